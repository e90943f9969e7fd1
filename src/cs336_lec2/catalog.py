"""The published facts the book computes with, each with its source: one catalog, no torch.

- :data:`PUBLISHED`: released models (GPT-2, Llama 2 and 3, Gemma), each a
  :class:`~cs336_lec2.config.TransformerConfig` built with keywords, its stated size and its released
  parameter count;
- :data:`TOKEN_BUDGETS`: the tokens those models were trained on, where their authors say;
- :data:`ACCELERATORS`: dense datasheet peaks, memory and bandwidth of each card (the lookup by
  device name and the peak for a dtype are :mod:`cs336_lec2.hardware`'s);
- the cluster links (NVLink, InfiniBand at the rates NCCL achieves) and :data:`CLUSTERS`, the node
  each card is built into (the model of a step's collectives is :mod:`cs336_lec2.distributed.cluster`);
- :data:`PUBLISHED_RUNS`: training runs the calculator is held against (:mod:`cs336_lec2.validation`).

A figure changes here, in one place, with its source beside it; the modules that compute read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .bilingual import Bilingual
from .checks import NonNegativeReal, PositiveCount, PositiveReal, beartype_on_first_call
from .config import TransformerConfig
from .transformer_accounting import ParameterCount, parameter_count

# ---------------------------------------------------------------------------------------------- released models

@dataclass(frozen=True)
class PublishedModel:
    """A released model: its config (architecture included), the size its authors state, the sources.

    ``released_params`` is the number of values in the released checkpoint (None where not known);
    :func:`parameter_count` of the config must equal it (a test checks).
    """

    name: str
    config: TransformerConfig
    reported_params: str  # as the paper or model card states it
    source: str
    released_params: int | None = None

    def parameters(self) -> ParameterCount:
        """:func:`parameter_count` of this configuration."""
        return parameter_count(self.config)


_GPT2 = (
    "Radford et al. 2019, 'Language Models are Unsupervised Multitask Learners', table 2 (layers, "
    "d_model, reported size); the released config.json of openai-community/gpt2(-medium, -large, -xl) "
    "(n_head, n_ctx 1024, vocabulary 50,257, d_ff = 4·d, tied embeddings, biases)"
)
_LLAMA2 = (
    "Touvron et al. 2023, 'Llama 2: Open Foundation and Fine-Tuned Chat Models', table 1 (context 4k, "
    "GQA for 70B) and section 2.2 (RMSNorm, SwiGLU, rotary embeddings); dim, layers, heads, KV heads, "
    "vocabulary 32,000 and the FFN rule (multiple_of, ffn_dim_multiplier) from the params.json "
    "released with the weights; untied, no biases"
)
_LLAMA3 = (
    "Meta Llama 3 model card and the released config.json of meta-llama/Meta-Llama-3-8B (vocab_size "
    "128256, hidden_size 4096, intermediate_size 14336, 32 layers, 32 heads, 8 KV heads, "
    "max_position_embeddings 8192, tie_word_embeddings false, RMSNorm, RoPE; no biases)"
)
_LLAMA: dict[str, Any] = {"gated_mlp": True, "norm": "rmsnorm", "positions": "rope"}
_GEMMA = (
    "Gemma Team 2024, 'Gemma: Open Models Based on Gemini Research and Technology', table 1 (d_model 3072, "
    "28 layers, 16 heads of size 256, 16 KV heads, context 8192) and table 2 (7,751,248,896 non-embedding "
    "parameters); transformers' GemmaConfig defaults (google/gemma-7b: vocab_size 256000, intermediate_size "
    "24576, head_dim 256, tie_word_embeddings true, RMSNorm, RoPE, GeGLU: a gated MLP of three matrices, "
    "counted as SwiGLU's; no biases); released size 8,537,680,896 (keras-hub's gemma_7b_en preset)"
)
GEMMA_7B = TransformerConfig(vocab_size=256_000, context_length=8192, num_layers=28, d_model=3072, num_heads=16,
                             d_ff=24_576, tied_embeddings=True, num_kv_heads=16, head_size=256, **_LLAMA)


def _gpt2(name: str, layers: int, d: int, heads: int, reported: str, released: int) -> PublishedModel:
    # dropout: the released config.json's attn_pdrop = resid_pdrop = embd_pdrop = 0.1
    config = TransformerConfig(vocab_size=50257, context_length=1024, num_layers=layers, d_model=d, num_heads=heads,
                               d_ff=4 * d, tied_embeddings=True, bias=True, dropout=0.1)
    return PublishedModel(name, config, reported, _GPT2, released)


def _llama(name: str, sizes: tuple[int, ...], kv: int, reported: str, source: str, released: int) -> PublishedModel:
    vocab, context, layers, d, heads, d_ff = sizes
    config = TransformerConfig(vocab_size=vocab, context_length=context, num_layers=layers, d_model=d,
                               num_heads=heads, d_ff=d_ff, num_kv_heads=kv, **_LLAMA)
    return PublishedModel(name, config, reported, source, released)


PUBLISHED: dict[str, PublishedModel] = {
    m.name: m
    for m in (
        # the number of values in the released checkpoints (Hugging Face's num_parameters())
        _gpt2("GPT-2 small", 12, 768, 12, "117M", 124_439_808),
        _gpt2("GPT-2 medium", 24, 1024, 16, "345M", 354_823_168),
        _gpt2("GPT-2 large", 36, 1280, 20, "762M", 774_030_080),
        _gpt2("GPT-2 XL", 48, 1600, 25, "1542M", 1_557_611_200),
        _llama("Llama 2 7B", (32000, 4096, 32, 4096, 32, 11008), 32, "7B", _LLAMA2, 6_738_415_616),
        _llama("Llama 2 13B", (32000, 4096, 40, 5120, 40, 13824), 40, "13B", _LLAMA2, 13_015_864_320),
        _llama("Llama 2 70B", (32000, 4096, 80, 8192, 64, 28672), 8, "70B", _LLAMA2, 68_976_648_192),
        _llama("Llama 3 8B", (128256, 8192, 32, 4096, 32, 14336), 8, "8B", _LLAMA3, 8_030_261_248),
        PublishedModel("Gemma 7B", GEMMA_7B, "7B", _GEMMA, 8_537_680_896),
    )
}


# ---------------------------------------------------------------------------------------------- token budgets

# The tokens each preset was trained on, where its authors publish them; a preset without one keeps
# DEFAULTS["tokens"] (GPT-2's paper gives its data, WebText, in documents and GB, not in tokens).
TOKEN_BUDGETS = {
    **dict.fromkeys(("llama2-7b", "llama2-13b", "llama2-70b"), 2 * 10**12),  # Touvron et al. 2023, table 1: 2.0T
    "llama3-8b": 15 * 10**12,  # Meta Llama 3 model card: pretrained on "over 15T tokens"
    "gemma7b": 6 * 10**12,  # Gemma Team 2024, section 4.1: "Gemma 2B and 7B are trained on 3T and 6T tokens"
}


# ---------------------------------------------------------------------------------------------- accelerators

# Every figure is the vendor's number for dense math (no 2:4 structured sparsity), per dtype key:
#
# - ``fp64``, ``fp32``: the non-tensor (vector / CUDA-core) rates. Where a card also has FP64 tensor
#   cores (A100, H100, H200, B200) that rate is kept apart in ``fp64_tensor``, and
#   :func:`cs336_lec2.hardware.peak_flops` uses it for fp64 because cuBLAS runs DGEMM on them.
# - ``tf32``, ``bf16``, ``fp16``, ``fp8``: tensor-core rates. GeForce whitepapers list fp16 (and fp8 on
#   Ada) twice, with fp16 accumulation and with fp32 accumulation at half that rate; bf16 has only the
#   fp32-accumulate row. We give the fp32-accumulate rate (what training uses).
# - ``int8``: tensor-core OP/s (integer operations, not FLOPs).
#
# A key is absent when the card's datasheet lists no figure for it (V100 and T4 have no bf16 or TF32,
# and consumer / graphics parts publish no FP64 rate). ``memory_bytes`` uses the datasheet's decimal GB
# (10**9 bytes; the "80 GB" H100 reports about 79 GiB usable to torch) and ``memory_bandwidth`` its
# decimal GB/s or TB/s.
DTYPE_KEYS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8")
_T = 1e12  # tera
_GB = 10**9  # datasheets count memory in decimal gigabytes


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


def _card(key: str, name: str, names: tuple[str, ...], source: str, *, dense: Mapping[str, float], memory_gb: float,
          bandwidth_gbs: float, sparse: Mapping[str, float] | None = None,
          fp64_tensor: float | None = None) -> Accelerator:
    """An :class:`Accelerator` from a datasheet's figures in TFLOP/s, GB and GB/s."""
    return Accelerator(
        name=name, key=key, peak_flops=MappingProxyType({k: v * _T for k, v in dense.items()}),
        memory_bytes=round(memory_gb * _GB), memory_bandwidth=bandwidth_gbs * 1e9, source=source,
        device_names=names, sparse_flops=MappingProxyType({k: v * _T for k, v in (sparse or {}).items()}),
        fp64_tensor=None if fp64_tensor is None else fp64_tensor * _T,
    )


def _halved(sparse: Mapping[str, float], **exact: float) -> dict[str, float]:
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
_SRC_H100 = Bilingual(  # its Chinese for the Chinese edition (chapter 1 shows it: bilingual.in_zh)
    "NVIDIA H100 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h100/; dense "
    "tensor rates from table 3 of the NVIDIA H100 Tensor Core GPU Architecture whitepaper (editions after "
    "the first GTC22 one, whose figures were preliminary), "
    "https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper",
    "“NVIDIA H100 Tensor Core GPU”数据手册，https://www.nvidia.com/en-us/data-center/h100/；稠密张量核心"
    "算力取自白皮书“NVIDIA H100 Tensor Core GPU Architecture”的表 3（GTC22 首版之后的版本，首版的数字是"
    "初步的），https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper")
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


# ---------------------------------------------------------------------------------------------- cluster links

# NVIDIA H100 datasheet (https://www.nvidia.com/en-us/data-center/h100/): H100 SXM, NVLink 900 GB/s per
# GPU, both directions together. A ring sends one way on each link, so the figure that bounds it is half.
NVLINK_H100_SXM = 900e9 / 2
# NVIDIA ConnectX-7 user manual (https://docs.nvidia.com/networking/display/ConnectX7VPI/Introduction):
# one NDR InfiniBand port, 400 Gb/s = 50 GB/s each way.
CONNECTX7_NDR = 400e9 / 8
# NVIDIA DGX H100 user guide (https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html):
# 8 H100 SXM GPUs and, for the compute fabric, 8 single-port ConnectX-7 (one NIC per GPU).
DGX_H100_GPUS = 8
DGX_H100_NICS = 8
# What NCCL gets from them. NCCL's topology model (github.com/NVIDIA/nccl src/graph/topo.h): SM90_NVLINK_BW
# = 20.6 GB/s per NVLink 4 link, 18 links per H100 / H200 ("450GB/s is the line rate. With the protocol
# overhead (~20%) NCCL can get an effective NVLink bandwidth of 370GB/s": NVIDIA/nccl-tests issue 212).
NVLINK_H100_NCCL = 20.6e9 * 18
# NVIDIA/nccl-tests issue 290, NCCL's maintainers: "For NDR @ 400Gbps you should see 46-48GB/s per NIC".
NDR_NCCL = 47e9
# NVLS all-reduce on 8 H100s: "a peak busBw of ~480GB/s (algbw ~275GB/s)" (nccl-tests issue 212; 480.70
# measured on 8 H200s, NCCL_TESTS S1). As a payload rate: busbw / (2 (N-1)/N).
NVLS_H100 = 480e9 * 8 / 14
# torch.nn.parallel.DistributedDataParallel: the first bucket 1 MiB, then bucket_cap_mb=25 (reducer.hpp).
DDP_FIRST_BUCKET_BYTES = 2**20
DDP_BUCKET_BYTES = 25 * 2**20


@dataclass(frozen=True)
class Cluster:
    """Nodes of ``gpus_per_node`` GPUs joined by NVLink inside, ``nics_per_node`` NICs between.

    ``nvlink`` and ``nic``: the bus bandwidth NCCL achieves on each, bytes/s one way. ``nvls``: the
    NVLS all-reduce's payload rate on one whole node (0: no NVLink SHARP). ``latency``: scales NCCL's
    latency table (1: as tuned; 0: bandwidth alone, with no size ramp either: nccl.ramp).
    """

    # A cluster is built by hand in chapter 14: beartype checks its fields here, once (formulas trust them).
    gpus_per_node: PositiveCount = DGX_H100_GPUS
    nvlink: PositiveReal = NVLINK_H100_NCCL  # one direction, per GPU
    nics_per_node: PositiveCount = DGX_H100_NICS
    nic: PositiveReal = NDR_NCCL  # one direction, per NIC
    nvls: NonNegativeReal = NVLS_H100  # 0 allowed; False never (issue 31.7)
    latency: NonNegativeReal = 1.0

    @property
    def node_egress(self) -> float:
        """Bytes/s one node sends to the others, one direction: all its NICs together."""
        return self.nics_per_node * self.nic


H100_CLUSTER = Cluster()  # DGX H100 nodes on NDR InfiniBand, as NCCL achieves them
# The datasheet's links, no NVLS, bandwidth alone: the model before issue 29 (ring bandwidth at line rate).
H100_DATASHEET = Cluster(nvlink=NVLINK_H100_SXM, nic=CONNECTX7_NDR, nvls=0.0, latency=0.0)

# NVIDIA DGX A100 (https://developer.nvidia.com/blog/defining-ai-innovation-with-dgx-a100/): 8 A100 SXM
# GPUs, NVSwitch (600 GB/s both directions: 12 NVLink 3 links), 8 single-port ConnectX-6 200 Gb/s HDR NICs.
# NCCL: SM80_NVLINK_BW = 20.0 GB/s x 12 links; the NICs at NDR's 47/50 of line rate (assumed); no NVLS.
A100_CLUSTER = Cluster(nvlink=20.0e9 * 12, nic=200e9 / 8 * NDR_NCCL / CONNECTX7_NDR, nvls=0.0)
# NVIDIA DGX B200 user guide (https://docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html):
# 8 B200 GPUs, fifth-generation NVSwitch (18 NVLink 5 links, 1.8 TB/s per GPU both directions), 8 ConnectX-7
# up to 400 Gb/s. NCCL: SM100_NVLINK_BW = 40.1 GB/s per link. NVLS: 845.67 GB/s busbw at 16 GiB on one
# 8x B200 node (stas00/ml-engineering network/README.md, all_reduce_bench.py, NCCL 2.27.7).
B200_CLUSTER = Cluster(nvlink=40.1e9 * 18, nic=NDR_NCCL, nvls=845.67e9 * 8 / 14)
# The node each card is built into, by the accelerator table's key: DGX H200 is DGX H100's network
# with H200 GPUs (NVLink 900 GB/s, 8 ConnectX-7; DGX H200 user guide). Cards without an 8-GPU
# NVSwitch node (PCIe, NVL pairs, consumer cards, V100's hybrid cube mesh) have none here.
CLUSTERS = {"a100-sxm-40gb": ("DGX A100", A100_CLUSTER), "a100-sxm-80gb": ("DGX A100", A100_CLUSTER),
            "h100-sxm": ("DGX H100", H100_CLUSTER), "h200": ("DGX H200", H100_CLUSTER),
            "b200": ("DGX B200", B200_CLUSTER)}


# ---------------------------------------------------------------------------------------------- published runs

RUN_SOURCES = {
    "torchtitan-a100": "github.com/pytorch/torchtitan, docs/performance.md at commit 0413364 (64 A100 80GB, "
                       "FSDP2; tables 'Llama 3 performance numbers' and 'Llama 2 performance numbers')",
    "torchtitan-h100": "github.com/pytorch/torchtitan, benchmarks/llama3_h100_202412_torchtitan.md at commit "
                       "31a17bf (Llama 3.1 8B, FSDP, local batch 2, selective activation checkpointing; "
                       "tables 1 and 3; H100s with 96GB HBM2e at 500 W)",
    "torchtitan-seq": "github.com/pytorch/torchtitan, torchtitan/models/llama/train_configs/llama3_8b.toml at "
                      "commit 08a5a9f: seq_len = 8192, selective_ac_option = 'op' (the benchmark states no "
                      "sequence length; torchtitan's Llama 3 8B config is assumed)",
    "llama2-card": "github.com/meta-llama/llama, MODEL_CARD.md at commit 0e3444b (Touvron et al. 2023, "
                   "table 2): GPU-hours on A100-80GB; 2.0T tokens, context 4k",
}
RUN_SHORT = {"torchtitan-a100": "pytorch/torchtitan docs/performance.md @0413364",
         "torchtitan-h100": "pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md @31a17bf",
         "llama2-card": "meta-llama/llama MODEL_CARD.md @0e3444b"}  # the page's column; RUN_SOURCES in its tooltip
# torchtitan's measured MFU for Llama 2 70B on A100s (docs/performance.md: batch 2, full AC, 50.5%):
# the MFU at which the calculator estimates Llama 2's GPU-hours.
LLAMA2_MFU = 0.505

_RUN_A100 = {"gpu": "a100-sxm-80gb", "num_gpus": 64, "stage": "zero3", "precision": "mixed_bf16_fp32_grads"}
_RUN_H100 = {"model": "llama3-8b", "gpu": "h100-sxm", "seq_len": 8192, "micro_batch": 2, "stage": "zero3",
         "precision": "mixed_bf16_fp32_grads", "recompute": "selective"}
_AC = {"none": ("no activation checkpointing", "不重计算"),
       "layer": ("selective (layer) AC", "选择性重计算（按层）"),
       "op": ("selective (op) AC", "选择性重计算（按算子）"), "full": ("full AC", "完全重计算")}


def _a100(model: str, name: str, seq: int, batch: int, ac: str, wps: int, mfu: float) -> dict[str, Any]:
    en, zh = _AC[ac]
    config = {**_RUN_A100, "model": model, "seq_len": seq, "micro_batch": batch,
              "recompute": "full" if ac == "full" else "none"}
    return {"kind": "mfu", "source": "torchtitan-a100", "config": config, "tokens_per_gpu_s": wps, "mfu": mfu,
            "label_en": f"{name}, 64 × A100, b = {batch}, T = {seq}, {en}",
            "label_zh": f"{name}，64 × A100，b = {batch}，T = {seq}，{zh}"}


def _h100(gpus: int, compiled: bool, tps: int, gib: float) -> dict[str, Any]:
    how = (" + torch.compile", " + torch.compile") if compiled else ("", "")
    return {"kind": "throughput", "source": "torchtitan-h100", "config": {**_RUN_H100, "num_gpus": gpus},
            "tokens_per_gpu_s": tps, "mfu_range": (0.33, 0.39), "memory_gib": gib, "compiled": compiled,
            "label_en": f"Llama 3.1 8B, {gpus} × H100, FSDP{how[0]}, b = 2, T = 8192",
            "label_zh": f"Llama 3.1 8B，{gpus} × H100，FSDP{how[1]}，b = 2，T = 8192"}


PUBLISHED_RUNS: list[dict[str, Any]] = [
    # docs/performance.md: model, local batch, activation checkpointing, WPS (tokens/s/GPU), MFU
    _a100("llama3-8b", "Llama 3 8B", 8192, 1, "layer", 2904, 0.568),
    _a100("llama3-8b", "Llama 3 8B", 8192, 1, "op", 2973, 0.582),
    _a100("llama2-13b", "Llama 2 13B", 4096, 2, "none", 2162, 0.611),
    _a100("llama2-13b", "Llama 2 13B", 4096, 2, "layer", 1914, 0.541),
    _a100("llama2-13b", "Llama 2 13B", 4096, 2, "op", 1904, 0.538),
    _a100("llama2-70b", "Llama 2 70B", 4096, 1, "op", 355, 0.508),
    _a100("llama2-70b", "Llama 2 70B", 4096, 2, "full", 353, 0.505),
    # benchmarks/llama3_h100_202412_torchtitan.md, tables 1 (8 GPUs) and 3 (128 GPUs): TPS/GPU, Memory (GiB);
    # the Float8 rows are left out (the benchmark itself calls their MFU "not well-defined")
    _h100(8, False, 5762, 82.4), _h100(8, True, 6667, 77.0),
    _h100(128, False, 5605, 67.0), _h100(128, True, 6514, 62.0),
    # MODEL_CARD.md: Time (GPU hours) per model, A100-80GB; 2.0T tokens each
    *({"kind": "gpu_hours", "source": "llama2-card", "gpu_hours": hours, "label_en": f"{name}, 2T tokens",
       "label_zh": f"{name}，2 万亿（2T）个词元",
       "config": {"model": key, "gpu": "a100-sxm-80gb", "tokens": 2 * 10**12, "mfu": LLAMA2_MFU}}
      for key, name, hours in (("llama2-7b", "Llama 2 7B", 184_320), ("llama2-13b", "Llama 2 13B", 368_640),
                               ("llama2-70b", "Llama 2 70B", 1_720_320))),
]


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
