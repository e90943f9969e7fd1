"""The accelerator table: DENSE datasheet peaks, memory and bandwidth of each card, and :func:`lookup`.

:mod:`cs336_lec2.hardware` turns these figures into the peak that applies to a device and dtype.

Every figure is the vendor's number for dense math (no 2:4 structured sparsity), per dtype key:

- ``fp64``, ``fp32``: the non-tensor (vector / CUDA-core) rates. Where a card also has FP64 tensor
  cores (A100, H100, H200, B200) that rate is kept apart in ``fp64_tensor``, and
  :func:`cs336_lec2.hardware.peak_flops` uses it for fp64 because cuBLAS runs DGEMM on them.
- ``tf32``, ``bf16``, ``fp16``, ``fp8``: tensor-core rates. GeForce whitepapers list fp16 (and fp8 on
  Ada) twice, with fp16 accumulation and with fp32 accumulation at half that rate; bf16 has only the
  fp32-accumulate row. We give the fp32-accumulate rate (what training uses).
- ``int8``: tensor-core OP/s (integer operations, not FLOPs).

A key is absent when the card's datasheet lists no figure for it (V100 and T4 have no bf16 or TF32,
and consumer / graphics parts publish no FP64 rate). ``memory_bytes`` uses the datasheet's decimal GB
(10**9 bytes; the "80 GB" H100 reports about 79 GiB usable to torch) and ``memory_bandwidth`` its
decimal GB/s or TB/s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

DTYPE_KEYS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8")
_T = 1e12  # tera
_GB = 10**9  # datasheets count memory in decimal gigabytes


OVERRIDE_HINT = (
    "To go on, take the dense peak of your card and dtype from its datasheet and pass it in FLOP/s: "
    "peak_flops(torch.bfloat16, override=989.4e12) (that figure is the H100 SXM's dense bf16)."
)


class UnknownHardwareError(LookupError):
    """The device is not in :data:`ACCELERATORS`; the message says how to pass ``override=`` instead."""


@dataclass(frozen=True)
class Accelerator:
    """One card: dense peaks per dtype key (FLOP/s; OP/s for int8), memory (bytes), bandwidth (bytes/s)."""

    name: str
    key: str
    peak_flops: Mapping[str, float]
    memory_bytes: int
    memory_bandwidth: float
    source: str
    device_names: tuple[str, ...]
    # The datasheet's figures WITH 2:4 structured sparsity, where it lists them (never used for MFU).
    sparse_flops: Mapping[str, float] = field(default_factory=dict)
    # FP64 tensor-core rate (DGEMM), where the card has one; ``peak_flops["fp64"]`` stays the vector rate.
    fp64_tensor: float | None = None

    def __hash__(self) -> int:  # the mappings are read-only views; the key identifies the card
        return hash(self.key)


def _card(key, name, names, source, *, dense, memory_gb, bandwidth_gbs, sparse=None, fp64_tensor=None):
    return Accelerator(
        name=name, key=key, peak_flops=MappingProxyType({k: v * _T for k, v in dense.items()}),
        memory_bytes=round(memory_gb * _GB), memory_bandwidth=bandwidth_gbs * 1e9, source=source,
        device_names=names, sparse_flops=MappingProxyType({k: v * _T for k, v in (sparse or {}).items()}),
        fp64_tensor=None if fp64_tensor is None else fp64_tensor * _T,
    )


def _halved(sparse: dict[str, float], **exact: float) -> dict[str, float]:
    """Dense rates from a datasheet that lists tensor rates only with sparsity ("one-half lower without")."""
    return {k: exact.get(k, v / 2) for k, v in sparse.items()}


_SRC_T4 = "NVIDIA T4 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/tesla-t4/"
_SRC_V100 = ("NVIDIA Tesla V100 GPU datasheet, https://images.nvidia.com/content/technologies/volta/pdf/"
             "volta-v100-datasheet-update-us-1165301-r5.pdf")
_SRC_A10 = "NVIDIA A10 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/products/a10-gpu/"
# NVIDIA publishes no A10G datasheet (AWS-only part, 80 SMs at 1.71 GHz with GeForce-rate tensor cores).
_SRC_A10G = ("AWS EC2 G5 (A10G) specifications as compared in 'NVIDIA A10 vs A10G for ML model inference', "
             "https://www.baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference/")
_SRC_L4 = "NVIDIA L4 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/l4/"
_SRC_L40S = "NVIDIA L40S GPU datasheet, https://www.nvidia.com/en-us/data-center/l40s/"
_SRC_A100 = ("NVIDIA A100 Tensor Core GPU datasheet, https://www.nvidia.com/content/dam/en-zz/Solutions/"
             "Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf")
_SRC_H100 = ("NVIDIA H100 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h100/; dense "
             "tensor rates from table 3 of the NVIDIA H100 Tensor Core GPU Architecture whitepaper (editions after "
             "the first GTC22 one, whose figures were preliminary), "
             "https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper")
_SRC_H200 = "NVIDIA H200 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h200/"
_SRC_B200 = ("NVIDIA HGX B200 specifications (8-GPU figures / 8), https://www.nvidia.com/en-us/data-center/hgx/")
_SRC_3090 = ("NVIDIA Ampere GA102 GPU Architecture whitepaper (RTX 3090 column), https://www.nvidia.com/content/"
             "PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf")
_SRC_4090 = ("NVIDIA Ada GPU Architecture whitepaper (RTX 4090 column), https://images.nvidia.com/aem-dam/"
             "Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf")

# Shared rate tables (TFLOP/s). A100: the four variants differ only in memory.
_A100 = dict(fp64=9.7, fp32=19.5, tf32=156, bf16=312, fp16=312, int8=624)
_A100_SPARSE = dict(tf32=312, bf16=624, fp16=624, int8=1248)
# H100 SXM: the datasheet's sparse 1,979 TFLOP/s bf16 is 2 x the whitepaper's dense 989.4.
_H100_SXM_SPARSE = dict(tf32=989, bf16=1979, fp16=1979, fp8=3958, int8=3958)
_H100_SXM = dict(fp64=34, fp32=67, **_halved(_H100_SXM_SPARSE, tf32=494.7, bf16=989.4, fp16=989.4,
                                               fp8=1978.9, int8=1978.9))
_H100_PCIE_SPARSE = dict(tf32=756, bf16=1513, fp16=1513, fp8=3026, int8=3026)
_H100_PCIE = dict(fp64=26, fp32=51, **_halved(_H100_PCIE_SPARSE, tf32=378, bf16=756, fp16=756))
_NVL_SPARSE = dict(tf32=835, bf16=1671, fp16=1671, fp8=3341, int8=3341)  # H100 NVL and H200 NVL, per GPU
_NVL = dict(fp64=30, fp32=60, **_halved(_NVL_SPARSE))
_B200_SPARSE = dict(tf32=2250, bf16=4500, fp16=4500, fp8=9000, int8=9000)

_CARDS = (
    _card("t4", "NVIDIA T4", ("Tesla T4", "NVIDIA T4"), _SRC_T4, memory_gb=16, bandwidth_gbs=320,
          dense=dict(fp32=8.1, fp16=65, int8=130)),  # fp16: "mixed precision (FP16/FP32)"
    _card("v100-sxm2-16gb", "NVIDIA V100 SXM2 16GB", ("Tesla V100-SXM2-16GB",), _SRC_V100,
          memory_gb=16, bandwidth_gbs=900, dense=dict(fp64=7.8, fp32=15.7, fp16=125)),
    _card("v100-sxm2-32gb", "NVIDIA V100 SXM2 32GB", ("Tesla V100-SXM2-32GB",), _SRC_V100,
          memory_gb=32, bandwidth_gbs=900, dense=dict(fp64=7.8, fp32=15.7, fp16=125)),
    _card("v100-pcie-16gb", "NVIDIA V100 PCIe 16GB", ("Tesla V100-PCIE-16GB",), _SRC_V100,
          memory_gb=16, bandwidth_gbs=900, dense=dict(fp64=7, fp32=14, fp16=112)),
    _card("a10", "NVIDIA A10", ("NVIDIA A10",), _SRC_A10, memory_gb=24, bandwidth_gbs=600,
          dense=dict(fp32=31.2, tf32=62.5, bf16=125, fp16=125, int8=250),
          sparse=dict(tf32=125, bf16=250, fp16=250, int8=500)),
    _card("a10g", "NVIDIA A10G", ("NVIDIA A10G",), _SRC_A10G, memory_gb=24, bandwidth_gbs=600,
          dense=dict(fp32=35, tf32=35, bf16=70, fp16=70, int8=140)),
    _card("l4", "NVIDIA L4", ("NVIDIA L4",), _SRC_L4, memory_gb=24, bandwidth_gbs=300,
          dense=dict(fp32=30.3, **_halved(dict(tf32=120, bf16=242, fp16=242, fp8=485, int8=485))),
          sparse=dict(tf32=120, bf16=242, fp16=242, fp8=485, int8=485)),
    _card("l40s", "NVIDIA L40S", ("NVIDIA L40S",), _SRC_L40S, memory_gb=48, bandwidth_gbs=864,
          dense=dict(fp32=91.6, tf32=183, bf16=362.05, fp16=362.05, fp8=733, int8=733),
          sparse=dict(tf32=366, bf16=733, fp16=733, fp8=1466, int8=1466)),
    _card("a100-sxm-40gb", "NVIDIA A100 SXM4 40GB", ("NVIDIA A100-SXM4-40GB",), _SRC_A100, memory_gb=40,
          bandwidth_gbs=1555, dense=_A100, sparse=_A100_SPARSE, fp64_tensor=19.5),
    _card("a100-sxm-80gb", "NVIDIA A100 SXM4 80GB", ("NVIDIA A100-SXM4-80GB",), _SRC_A100, memory_gb=80,
          bandwidth_gbs=2039, dense=_A100, sparse=_A100_SPARSE, fp64_tensor=19.5),
    _card("a100-pcie-40gb", "NVIDIA A100 PCIe 40GB", ("NVIDIA A100-PCIE-40GB",), _SRC_A100, memory_gb=40,
          bandwidth_gbs=1555, dense=_A100, sparse=_A100_SPARSE, fp64_tensor=19.5),
    _card("a100-pcie-80gb", "NVIDIA A100 PCIe 80GB", ("NVIDIA A100 80GB PCIe", "NVIDIA A100-PCIE-80GB"),
          _SRC_A100, memory_gb=80, bandwidth_gbs=1935, dense=_A100, sparse=_A100_SPARSE, fp64_tensor=19.5),
    _card("h100-sxm", "NVIDIA H100 SXM", ("NVIDIA H100 80GB HBM3",), _SRC_H100, memory_gb=80,
          bandwidth_gbs=3350, dense=_H100_SXM, sparse=_H100_SXM_SPARSE, fp64_tensor=67),
    _card("h100-pcie", "NVIDIA H100 PCIe", ("NVIDIA H100 PCIe",), _SRC_H100, memory_gb=80,
          bandwidth_gbs=2000, dense=_H100_PCIE, sparse=_H100_PCIE_SPARSE, fp64_tensor=51),
    _card("h100-nvl", "NVIDIA H100 NVL", ("NVIDIA H100 NVL",), _SRC_H100, memory_gb=94,
          bandwidth_gbs=3900, dense=_NVL, sparse=_NVL_SPARSE, fp64_tensor=60),
    # H200: the H100 SXM's compute with 141 GB of HBM3e at 4.8 TB/s.
    _card("h200", "NVIDIA H200 SXM", ("NVIDIA H200",), _SRC_H200, memory_gb=141, bandwidth_gbs=4800,
          dense=_H100_SXM, sparse=_H100_SXM_SPARSE, fp64_tensor=67),
    _card("h200-nvl", "NVIDIA H200 NVL", ("NVIDIA H200 NVL",), _SRC_H200, memory_gb=141, bandwidth_gbs=4800,
          dense=_NVL, sparse=_NVL_SPARSE, fp64_tensor=60),
    _card("b200", "NVIDIA B200", ("NVIDIA B200",), _SRC_B200, memory_gb=180, bandwidth_gbs=8000,
          dense=dict(fp64=37, fp32=75, **_halved(_B200_SPARSE)), sparse=_B200_SPARSE, fp64_tensor=37),
    _card("rtx-3090", "NVIDIA GeForce RTX 3090", ("NVIDIA GeForce RTX 3090",), _SRC_3090, memory_gb=24,
          bandwidth_gbs=936, dense=dict(fp32=35.6, tf32=35.6, bf16=71, fp16=71, int8=284),
          sparse=dict(tf32=71, bf16=142, fp16=142, int8=568)),
    _card("rtx-4090", "NVIDIA GeForce RTX 4090", ("NVIDIA GeForce RTX 4090",), _SRC_4090, memory_gb=24,
          bandwidth_gbs=1008, dense=dict(fp32=82.6, tf32=82.6, bf16=165.2, fp16=165.2, fp8=330.3, int8=660.6),
          sparse=dict(tf32=165.2, bf16=330.4, fp16=330.4, fp8=660.6, int8=1321.2)),
)
ACCELERATORS: dict[str, Accelerator] = {card.key: card for card in _CARDS}


def _normalise(name: str) -> str:
    return re.sub(r"[\s_]+", " ", name.strip().lower())


_BY_NAME = {_normalise(n): card for card in _CARDS for n in (*card.device_names, card.name, card.key)}


def lookup(device_name: str) -> Accelerator:
    """The :class:`Accelerator` for a name as ``torch.cuda.get_device_name()`` returns it (or its key).

    Matching is exact up to case and spacing, so "NVIDIA H200" never matches "NVIDIA H200 NVL".
    """
    if not isinstance(device_name, str):
        raise TypeError(f"device_name must be a str, got {type(device_name).__name__}")
    card = _BY_NAME.get(_normalise(device_name))
    if card is None:
        known = ", ".join(n for c in _CARDS for n in c.device_names)
        raise UnknownHardwareError(
            f"device_name={device_name!r} is not in the accelerator table (known cards: {known}). "
            + OVERRIDE_HINT
        )
    return card
