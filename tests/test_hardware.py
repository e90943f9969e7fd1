from __future__ import annotations

import math
from collections import namedtuple

import psutil
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from cs336_lec2 import hardware
from cs336_lec2.hardware import (
    ACCELERATORS,
    DTYPE_KEYS,
    Accelerator,
    Peak,
    UnknownHardwareError,
    cpu_peak_estimate,
    dtype_key,
    lookup,
    peak_flops,
    peak_or_none,
    tf32_enabled,
)

T = 1e12

# What torch.cuda.get_device_name() returns on each card, and the table entry it must map to.
REAL_NAMES = {
    "NVIDIA H100 80GB HBM3": "h100-sxm",
    "NVIDIA H100 PCIe": "h100-pcie",
    "NVIDIA H100 NVL": "h100-nvl",
    "NVIDIA H200": "h200",
    "NVIDIA H200 NVL": "h200-nvl",
    "Tesla T4": "t4",
    "Tesla V100-SXM2-16GB": "v100-sxm2-16gb",
    "Tesla V100-SXM2-32GB": "v100-sxm2-32gb",
    "NVIDIA A100-SXM4-80GB": "a100-sxm-80gb",
    "NVIDIA A100-SXM4-40GB": "a100-sxm-40gb",
    "NVIDIA A100-PCIE-40GB": "a100-pcie-40gb",
    "NVIDIA A100 80GB PCIe": "a100-pcie-80gb",
    "NVIDIA A10G": "a10g",
    "NVIDIA L4": "l4",
    "NVIDIA L40S": "l40s",
    "NVIDIA GeForce RTX 3090": "rtx-3090",
    "NVIDIA GeForce RTX 4090": "rtx-4090",
    "NVIDIA B200": "b200",
}


@pytest.fixture
def fake_cuda(monkeypatch):
    """Make torch believe a given card is present, so the real lookup and peak logic run on a CPU box."""

    def install(name: str) -> None:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
        monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: name)

    return install


def set_tf32(on: bool) -> None:
    matmul = torch.backends.cuda.matmul
    if hasattr(matmul, "fp32_precision"):
        matmul.fp32_precision = "tf32" if on else "ieee"
    else:
        matmul.allow_tf32 = on


# ---- the table ----

def test_table_is_complete_and_consistent():
    required = {"t4", "v100-sxm2-16gb", "a10g", "l4", "a100-sxm-40gb", "a100-sxm-80gb", "a100-pcie-40gb",
                "a100-pcie-80gb", "h100-sxm", "h100-pcie", "h100-nvl", "h200", "b200", "l40s", "rtx-3090",
                "rtx-4090"}
    assert required <= set(ACCELERATORS)
    names = [n for card in ACCELERATORS.values() for n in card.device_names]
    assert len(names) == len(set(names)), "a device name maps to two cards"
    for key, card in ACCELERATORS.items():
        assert card.key == key
        assert set(card.peak_flops) <= set(DTYPE_KEYS)
        assert all(v > 0 and math.isfinite(v) for v in card.peak_flops.values())
        assert card.memory_bytes >= 16 * 10**9 and card.memory_bandwidth >= 300e9
        assert "http" in card.source
        assert card.peak_flops["fp32"] > 0  # every card lists an fp32 rate


@pytest.mark.parametrize("card", list(ACCELERATORS.values()), ids=list(ACCELERATORS))
def test_dense_peak_is_half_the_sparse_figure(card: Accelerator):
    assert set(card.sparse_flops) <= set(card.peak_flops)
    for key, sparse in card.sparse_flops.items():
        dense = card.peak_flops[key]
        assert dense <= sparse
        # 2:4 sparsity doubles the dense rate; datasheets round (the L40S lists 362.05 | 733 for bf16).
        assert sparse / dense == pytest.approx(2, rel=0.02), key


def test_hopper_and_ampere_figures():
    h100 = ACCELERATORS["h100-sxm"].peak_flops
    assert h100["bf16"] == pytest.approx(989.4 * T)  # 1,979 on the datasheet is WITH sparsity
    assert h100["fp16"] == pytest.approx(989.4 * T)
    assert h100["fp8"] == pytest.approx(1978.9 * T)
    assert h100["tf32"] == pytest.approx(494.7 * T)
    assert (h100["fp32"], h100["fp64"]) == (pytest.approx(67 * T), pytest.approx(34 * T))
    assert ACCELERATORS["h100-sxm"].memory_bytes == 80 * 10**9
    assert ACCELERATORS["h100-sxm"].memory_bandwidth == pytest.approx(3.35e12)
    assert ACCELERATORS["h100-pcie"].peak_flops["bf16"] == pytest.approx(756 * T)
    for variant in ("a100-sxm-40gb", "a100-sxm-80gb", "a100-pcie-40gb", "a100-pcie-80gb"):
        a100 = ACCELERATORS[variant].peak_flops
        assert (a100["bf16"], a100["tf32"], a100["fp32"]) == (312 * T, 156 * T, 19.5 * T)
    h200 = ACCELERATORS["h200"]
    assert h200.peak_flops == ACCELERATORS["h100-sxm"].peak_flops
    assert (h200.memory_bytes, h200.memory_bandwidth) == (141 * 10**9, pytest.approx(4.8e12))


def test_modes_a_card_lacks_are_absent():
    for key in ("v100-sxm2-16gb", "t4"):
        assert not {"bf16", "tf32", "fp8"} & set(ACCELERATORS[key].peak_flops)
    assert "fp8" not in ACCELERATORS["a100-sxm-80gb"].peak_flops


def test_geforce_uses_fp32_accumulate_rate():
    # The whitepapers list fp16 tensor math with fp16 accumulate at twice these figures.
    assert ACCELERATORS["rtx-4090"].peak_flops["bf16"] == pytest.approx(165.2 * T)
    assert ACCELERATORS["rtx-3090"].peak_flops["fp16"] == pytest.approx(71 * T)


def test_accelerators_are_hashable_and_read_only():
    card = ACCELERATORS["l4"]
    assert {card, card} == {card}
    with pytest.raises(TypeError):
        card.peak_flops["bf16"] = 1.0  # type: ignore[index]


# ---- lookup ----

@pytest.mark.parametrize(("name", "key"), list(REAL_NAMES.items()))
def test_lookup_real_device_names(name, key):
    assert lookup(name).key == key


def test_lookup_ignores_case_and_spacing_but_not_suffixes():
    assert lookup("  nvidia   h100 80gb hbm3 ").key == "h100-sxm"
    assert lookup("h100-sxm").key == "h100-sxm"
    assert lookup("NVIDIA H200").key != lookup("NVIDIA H200 NVL").key


def test_lookup_unknown_card_lists_known_ones():
    with pytest.raises(UnknownHardwareError, match=r"known cards: .*NVIDIA H100 80GB HBM3"):
        lookup("NVIDIA H300 Imaginary")
    assert issubclass(UnknownHardwareError, LookupError)
    with pytest.raises(TypeError, match="device_name must be a str"):
        lookup(80)  # type: ignore[arg-type]


# ---- dtype keys and TF32 ----

@pytest.mark.parametrize(("dtype", "key"), [(torch.float32, "fp32"), (torch.bfloat16, "bf16"),
                                            (torch.float16, "fp16"), (torch.float64, "fp64"),
                                            (torch.float8_e4m3fn, "fp8"), (torch.int8, "int8"), (" BF16", "bf16")])
def test_dtype_key(dtype, key):
    assert dtype_key(dtype) == key


@pytest.mark.parametrize("bad", [torch.complex64, torch.int64, "fp128", "float32", 32])
def test_dtype_key_rejects_unknown(bad):
    with pytest.raises(ValueError, match="dtype"):
        dtype_key(bad)


@pytest.mark.usefixtures("tf32_state")
def test_tf32_switch_changes_the_fp32_peak_on_cuda(fake_cuda):
    fake_cuda("NVIDIA H100 80GB HBM3")
    set_tf32(True)
    assert tf32_enabled()
    peak = peak_flops(torch.float32)
    assert (peak.dtype, peak.flops) == ("tf32", pytest.approx(494.7 * T))
    set_tf32(False)
    assert not tf32_enabled()
    assert peak_flops(torch.float32).dtype == "fp32"
    assert peak_flops(torch.float32).flops == pytest.approx(67 * T)
    assert peak_flops("fp32", tf32=True).dtype == "tf32"  # the argument beats torch's setting
    torch.set_float32_matmul_precision("high")  # the other public switch
    assert tf32_enabled() and peak_flops(torch.float32).dtype == "tf32"


@pytest.mark.usefixtures("tf32_state")
def test_tf32_on_a_card_without_tf32_keeps_fp32(fake_cuda):
    fake_cuda("Tesla V100-SXM2-16GB")
    set_tf32(True)
    peak = peak_flops(torch.float32)
    assert (peak.dtype, peak.flops) == ("fp32", pytest.approx(15.7 * T))


def test_tf32_has_no_effect_on_cpu():
    assert peak_flops(torch.float32, "cpu", tf32=True).dtype == "fp32"
    with pytest.raises(TypeError, match="tf32 must be"):
        peak_flops(torch.float32, "cpu", tf32="yes")  # type: ignore[arg-type]


# ---- peak_flops on (monkeypatched) CUDA ----

def test_peak_flops_on_cuda_uses_the_datasheet(fake_cuda):
    fake_cuda("NVIDIA A100-SXM4-80GB")
    peak = peak_flops(torch.bfloat16, "cuda")
    assert peak == Peak(312 * T, "bf16", "NVIDIA A100 SXM4 80GB", ACCELERATORS["a100-sxm-80gb"].source, False)
    assert float(peak) == 312 * T


def test_fp64_uses_the_fp64_tensor_core_rate_where_there_is_one(fake_cuda):
    fake_cuda("NVIDIA H100 80GB HBM3")
    peak = peak_flops(torch.float64)
    assert peak.flops == pytest.approx(67 * T) and "FP64 Tensor Core" in peak.source
    fake_cuda("Tesla V100-SXM2-16GB")
    assert peak_flops(torch.float64).flops == pytest.approx(7.8 * T)


def test_mode_the_card_lacks_names_card_and_modes(fake_cuda):
    fake_cuda("Tesla T4")
    with pytest.raises(ValueError, match=r"NVIDIA T4 has no datasheet peak for 'bf16'; its modes: \['fp16'"):
        peak_flops(torch.bfloat16)


def test_unknown_gpu_needs_an_override(fake_cuda):
    fake_cuda("NVIDIA Quantum 9000")
    with pytest.raises(UnknownHardwareError):
        peak_flops(torch.bfloat16)
    peak = peak_flops(torch.bfloat16, override=123e12)
    assert (peak.flops, peak.device_name, peak.is_estimate) == (123e12, "NVIDIA Quantum 9000", False)


def test_peak_or_none_notes_an_unknown_gpu_once_per_mode_and_returns_none(fake_cuda, capsys, monkeypatch):
    monkeypatch.setattr(hardware, "_NOTED", set())
    fake_cuda("NVIDIA Quantum 9000")
    assert peak_or_none(torch.bfloat16, "cuda") is None
    assert peak_or_none(torch.bfloat16, "cuda") is None
    said = capsys.readouterr().out
    assert said.count("no bf16 peak, so no MFU: 'NVIDIA Quantum 9000'") == 1
    assert "PEAK_OVERRIDES['bf16']" in said
    assert peak_or_none(torch.float32, "cuda", tf32=True) is None  # the tf32 mode gets its own note
    assert "no tf32 peak" in capsys.readouterr().out


def test_peak_or_none_takes_the_override_of_the_mode_that_runs(fake_cuda):
    fake_cuda("NVIDIA Quantum 9000")
    overrides = {"fp32": 50 * T, "tf32": 400 * T}
    assert peak_or_none(torch.float32, "cuda", tf32=False, overrides=overrides).flops == 50 * T
    assert peak_or_none(torch.float32, "cuda", tf32=True, overrides=overrides).flops == 400 * T


def test_peak_or_none_is_peak_flops_where_the_card_is_known(fake_cuda):
    fake_cuda("NVIDIA H100 80GB HBM3")
    assert peak_or_none(torch.bfloat16, "cuda") == peak_flops(torch.bfloat16, "cuda")
    assert peak_or_none("fp32", "cpu") == peak_flops("fp32", "cpu")
    with pytest.raises(TypeError, match=r"overrides must be Mapping\[str, float\] or None"):
        peak_or_none("fp32", "cpu", overrides=[("fp32", 1e12)])  # type: ignore[arg-type]


# ---- the CPU estimate ----

def test_peak_flops_on_cpu_is_an_estimate():
    for key in hardware.CPU_DTYPE_KEYS:
        peak = peak_flops(key, "cpu")
        assert peak.is_estimate and peak.dtype == key and peak.flops > 0
        assert peak.source.startswith("estimate = ") and "upper bound" in peak.source
    assert peak_flops("fp64", "cpu").flops == pytest.approx(peak_flops("fp32", "cpu").flops / 2)
    assert peak_flops("bf16", "cpu").flops >= peak_flops("fp32", "cpu").flops


@pytest.mark.parametrize("key", ["tf32", "fp8", "int8"])
def test_cpu_estimate_refuses_modes_it_does_not_model(key):
    with pytest.raises(ValueError, match="CPU estimate covers"):
        peak_flops(key, "cpu")
    assert peak_flops(key, "cpu", override=1e12).flops == 1e12  # ... unless the caller knows better


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), "1e12", True])
def test_override_must_be_a_positive_number(bad):
    with pytest.raises(ValueError, match="override must be"):
        peak_flops("fp32", "cpu", override=bad)


def test_override_replaces_the_estimate():
    peak = peak_flops(torch.float32, "cpu", override=5e11)
    assert (peak.flops, peak.is_estimate, peak.source) == (5e11, False, "override given by the caller")


AVX2 = frozenset({"avx", "avx2", "fma", "sse2"})
SPR = AVX2 | {"avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_tile", "amx_int8"}


@pytest.mark.parametrize(("flags", "key", "per_cycle"), [
    (AVX2, "fp32", 32), (AVX2, "fp64", 16), (AVX2, "bf16", 32),
    (frozenset({"avx512f", "fma", "avx2"}), "fp32", 64),
    (frozenset({"avx512f", "avx512_bf16"}), "bf16", 128),
    (SPR, "bf16", 1024), (SPR, "fp16", 128), (SPR | {"amx_fp16"}, "fp16", 1024), (SPR, "fp32", 64),
    (frozenset({"sse", "sse2"}), "fp32", 16), (frozenset({"fp", "asimd"}), "fp32", 32),
    (frozenset(), "fp32", 64),
])
def test_cpu_flops_per_cycle_from_flags(flags, key, per_cycle):
    peak = cpu_peak_estimate(key, flags=flags, threads=1, clock_hz=1e9)
    assert peak.flops == per_cycle * 1e9


@given(threads=st.integers(1, 512), clock=st.floats(1e8, 6e9))
def test_cpu_estimate_is_threads_times_clock_times_flops_per_cycle(threads, clock):
    peak = cpu_peak_estimate("fp32", flags=AVX2, threads=threads, clock_hz=clock)
    assert peak.flops == pytest.approx(threads * clock * 32)
    assert peak.is_estimate and f"{threads} threads" in peak.source


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(threads=0), "threads"), (dict(threads=1.5), "threads"), (dict(threads=True), "threads"),
    (dict(clock_hz=0), "clock_hz"), (dict(clock_hz=float("nan")), "clock_hz"), (dict(clock_hz="3GHz"), "clock_hz"),
])
def test_cpu_estimate_rejects_bad_arguments(kwargs, match):
    with pytest.raises((TypeError, ValueError), match=match):  # TypeError: not a number at all
        cpu_peak_estimate("fp32", flags=AVX2, **kwargs)


def test_cpu_clock_prefers_the_reported_maximum(monkeypatch):
    freq = namedtuple("freq", "current min max")
    monkeypatch.setattr(psutil, "cpu_freq", lambda: freq(2000.0, 800.0, 3500.0))
    assert hardware.cpu_clock_hz() == (3.5e9, "the maximum clock the OS reports")


def test_cpu_clock_without_a_maximum_adds_turbo_allowance(monkeypatch, tmp_path):
    freq = namedtuple("freq", "current min max")
    monkeypatch.setattr(psutil, "cpu_freq", lambda: freq(2000.0, 0.0, 0.0))
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\ncpu MHz\t\t: 2445.4\nflags\t\t: fpu avx2 fma\n")
    monkeypatch.setattr(hardware, "CPUINFO_PATH", str(cpuinfo))
    hz, how = hardware.cpu_clock_hz()
    assert hz == pytest.approx(2445.4e6 * hardware.TURBO_ALLOWANCE) and "turbo allowance" in how
    assert hardware.cpu_flags() == {"fpu", "avx2", "fma"}


def test_cpu_clock_with_nothing_reported_falls_back(monkeypatch, tmp_path):
    monkeypatch.setattr(psutil, "cpu_freq", lambda: None)
    monkeypatch.setattr(hardware, "CPUINFO_PATH", str(tmp_path / "absent"))
    assert hardware.cpu_clock_hz() == (hardware.FALLBACK_CLOCK_HZ, "no clock reported, assumed")
    assert hardware.cpu_flags() == frozenset()


def test_unknown_hardware_error_says_how_to_go_on(fake_cuda):
    fake_cuda("NVIDIA Quantum 9000")
    with pytest.raises(UnknownHardwareError, match=r"override=989\.4e12") as err:
        peak_flops(torch.bfloat16)
    assert "peak_flops(torch.bfloat16, override=" in str(err.value) and "datasheet" in str(err.value)


def test_override_accepts_numpy_scalars():
    import numpy as np

    peak = peak_flops("fp32", "cpu", override=np.float32(2.0**40))
    assert peak.flops == 2.0**40 and type(peak.flops) is float
    with pytest.raises(ValueError, match=r"override must be a positive finite number or None"):
        peak_flops("fp32", "cpu", override=np.float64("nan"))
