"""The peak FLOP/s that applies to a device and dtype: the denominator of MFU.

On a GPU the figure is the card's DENSE datasheet peak from :mod:`cs336_lec2.accelerators` (re-exported
here: :class:`Accelerator`, :data:`ACCELERATORS`, :func:`lookup`, :class:`UnknownHardwareError`), for
the mode in use (fp32 matmuls count as TF32 when TF32 is on). A CPU has no datasheet peak:
:func:`cpu_peak_estimate` estimates an upper bound from its vector ISA, threads and clock, marked as an
estimate, which the caller can override.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import torch

from .accelerators import ACCELERATORS, DTYPE_KEYS, Accelerator, UnknownHardwareError, lookup
from .device import cpu_name, get_device

__all__ = ["ACCELERATORS", "DTYPE_KEYS", "Accelerator", "Peak", "UnknownHardwareError", "cpu_clock_hz", "cpu_flags",
           "cpu_flops_per_cycle", "cpu_peak_estimate", "dtype_key", "lookup", "peak_flops", "tf32_enabled"]


@dataclass(frozen=True)
class Peak:
    """A peak rate in FLOP/s for one dtype key on one device, with where the figure comes from."""

    flops: float
    dtype: str
    device_name: str
    source: str
    is_estimate: bool

    def __float__(self) -> float:
        return self.flops


_TORCH_KEYS = {torch.float64: "fp64", torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16",
               torch.int8: "int8"}
_TORCH_KEYS.update({getattr(torch, n): "fp8" for n in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                                                      "float8_e5m2fnuz") if hasattr(torch, n)})


def dtype_key(dtype: torch.dtype | str) -> str:
    """The peak-table key ("fp32", "bf16", ...) for a torch dtype or a key string."""
    if isinstance(dtype, torch.dtype):
        if dtype not in _TORCH_KEYS:
            raise ValueError(f"dtype {dtype} has no peak table entry; supported: {sorted(map(str, _TORCH_KEYS))}")
        return _TORCH_KEYS[dtype]
    if isinstance(dtype, str) and dtype.strip().lower() in DTYPE_KEYS:
        return dtype.strip().lower()
    raise ValueError(f"dtype must be a torch.dtype or one of {DTYPE_KEYS}, got {dtype!r}")


def tf32_enabled() -> bool:
    """Whether CUDA fp32 matmuls may run on TF32 tensor cores under torch's current settings."""
    matmul = torch.backends.cuda.matmul
    for setting in (getattr(matmul, "fp32_precision", None), getattr(torch.backends, "fp32_precision", None)):
        if setting in ("tf32", "ieee"):  # torch >= 2.9 API; "none" defers to the next level
            return setting == "tf32"
    try:
        return bool(matmul.allow_tf32)
    except RuntimeError:  # torch refuses to answer after a mix of the old and new APIs
        return torch.get_float32_matmul_precision() != "highest"


def peak_flops(
    dtype: torch.dtype | str,
    device: str | torch.device | None = None,
    *,
    tf32: bool | None = None,
    override: float | None = None,
) -> Peak:
    """The dense peak (FLOP/s) for matmuls in ``dtype`` on ``device`` (None: the "auto" device).

    On CUDA an fp32 matmul counts as "tf32" when TF32 is on (``tf32=None`` reads torch's setting)
    and the card has TF32 tensor cores (``tf32`` has no effect on the CPU); fp64 uses the FP64
    tensor-core rate where the card has one. On the CPU the result is :func:`cpu_peak_estimate`.
    ``override`` (FLOP/s) replaces the table or estimate: use it for a documented or measured peak
    of a machine the table does not know.
    """
    key = dtype_key(dtype)
    dev = get_device("auto" if device is None else device)
    if tf32 is not None and not isinstance(tf32, bool):
        raise TypeError(f"tf32 must be True, False or None, got {tf32!r}")
    use_tf32 = dev.type == "cuda" and key == "fp32" and (tf32_enabled() if tf32 is None else tf32)
    if override is not None:
        if isinstance(override, bool) or not isinstance(override, (int, float)) or not (
                math.isfinite(override) and override > 0):
            raise ValueError(f"override must be a positive finite FLOP/s figure, got {override!r}")
        name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else cpu_name() if dev.type == "cpu" else str(dev)
        return Peak(float(override), "tf32" if use_tf32 else key, name, "override given by the caller",
                    is_estimate=False)
    if dev.type == "cpu":
        return cpu_peak_estimate(key)
    if dev.type != "cuda":
        raise UnknownHardwareError(f"no peak table for device type {dev.type!r}; pass override= (FLOP/s)")
    card = lookup(torch.cuda.get_device_name(dev))
    if use_tf32 and "tf32" in card.peak_flops:  # pre-Ampere cards have no TF32: fp32 stays fp32
        key = "tf32"
    if key not in card.peak_flops:
        raise ValueError(f"{card.name} has no datasheet peak for {key!r}; its modes: {sorted(card.peak_flops)}")
    if key == "fp64" and card.fp64_tensor is not None:
        return Peak(card.fp64_tensor, key, card.name, f"FP64 Tensor Core rate; {card.source}", is_estimate=False)
    return Peak(card.peak_flops[key], key, card.name, card.source, is_estimate=False)


# ---- the CPU: no datasheet, so an upper-bound estimate from the vector ISA, threads and clock ----
CPU_DTYPE_KEYS = ("fp64", "fp32", "bf16", "fp16")
# Virtual machines expose only the nominal clock; server cores boost to roughly 1.4-1.5x of it
# (e.g. AMD EPYC 7763: 2.45 GHz base, 3.5 GHz boost), so the estimate multiplies by this to stay an
# upper bound. With no clock at all we assume FALLBACK_CLOCK_HZ, above any server part's boost.
TURBO_ALLOWANCE = 1.5
FALLBACK_CLOCK_HZ = 4.0e9
CPUINFO_PATH = "/proc/cpuinfo"  # Linux only; elsewhere the flags are unknown and the clock comes from psutil


def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags from /proc/cpuinfo ("flags" on x86, "Features" on Arm); empty if unknown."""
    try:
        with open(CPUINFO_PATH, encoding="utf-8") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def cpu_clock_hz() -> tuple[float, str]:
    """An upper bound on the CPU clock (Hz) and how it was obtained."""
    try:
        import psutil

        freq = psutil.cpu_freq()
    except (ImportError, NotImplementedError, OSError, RuntimeError):
        freq = None
    if freq is not None and freq.max > 0:
        return max(freq.max, freq.current) * 1e6, "the maximum clock the OS reports"
    readings = [freq.current] if freq is not None and freq.current > 0 else []
    try:
        with open(CPUINFO_PATH, encoding="utf-8") as f:
            readings += [float(line.split(":", 1)[1]) for line in f if line.startswith("cpu MHz")]
    except (OSError, ValueError):
        pass
    if readings:
        return max(readings) * 1e6 * TURBO_ALLOWANCE, f"the reported clock x {TURBO_ALLOWANCE} turbo allowance"
    return FALLBACK_CLOCK_HZ, "no clock reported, assumed"


def cpu_flops_per_cycle(key: str, flags: frozenset[str]) -> tuple[float, str]:
    """Peak FLOPs per cycle per core for ``key`` given the ISA flags, and the reasoning in words.

    Assumes two vector FMA units per x86 core (four 128-bit pipes on Arm), each FMA = 2 FLOPs: the
    most current server cores have, so the result is an upper bound.
    """
    if "avx512f" in flags:
        lanes, isa = 16, "AVX-512"
    elif "avx2" in flags and "fma" in flags:
        lanes, isa = 8, "AVX2+FMA"
    elif "asimd" in flags:
        lanes, isa = 4, "NEON (4 FMA pipes assumed)"
    elif not flags:
        lanes, isa = 16, "unknown ISA (AVX-512 assumed)"
    else:
        lanes, isa = 4, "SSE"
    units = 4 if "asimd" in flags else 2
    fp32 = lanes * 2 * units
    if key == "fp64":
        return fp32 / 2, f"{isa}: {lanes // 2} fp64 lanes x 2 (FMA) x {units} units"
    if key in ("bf16", "fp16") and f"amx_{key}" in flags:
        return 1024, f"AMX {key}: 16x16x32 tile product (8192 FMAs) every 16 cycles"
    if (key == "bf16" and "avx512_bf16" in flags) or (key == "fp16" and "avx512_fp16" in flags):
        return 2 * fp32, f"AVX-512 {key} dot products: 2x the fp32 rate"
    if key in ("bf16", "fp16"):
        return fp32, f"{isa}: no native {key} math, converted to fp32 (real speed is often far lower)"
    if key != "fp32":
        raise ValueError(f"the CPU estimate covers {CPU_DTYPE_KEYS}, not {key!r}; pass override=")
    return fp32, f"{isa}: {lanes} fp32 lanes x 2 (FMA) x {units} units"


def cpu_peak_estimate(
    dtype: torch.dtype | str = "fp32",
    *,
    flags: frozenset[str] | None = None,
    threads: int | None = None,
    clock_hz: float | None = None,
) -> Peak:
    """An ESTIMATED upper bound on this CPU's matmul peak (FLOP/s): threads x clock x FLOPs/cycle/core.

    ``threads`` defaults to the threads torch computes with (capped by the CPUs this process may
    use), ``flags`` to /proc/cpuinfo and ``clock_hz`` to :func:`cpu_clock_hz`; pass them to model
    another machine. Matrix units outside the vector ISA (Apple's AMX behind Accelerate) are not
    modelled: where a measurement beats the estimate, ``mfu`` says so, and ``peak_flops(override=)`` helps.
    """
    key = dtype_key(dtype)
    flags = cpu_flags() if flags is None else frozenset(flags)
    if threads is None:
        available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        threads = min(torch.get_num_threads(), available)
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive int, got {threads!r}")
    how = "given"
    if clock_hz is None:
        clock_hz, how = cpu_clock_hz()
    if not (isinstance(clock_hz, (int, float)) and math.isfinite(clock_hz) and clock_hz > 0):
        raise ValueError(f"clock_hz must be a positive number of Hz, got {clock_hz!r}")
    per_cycle, isa = cpu_flops_per_cycle(key, flags)
    source = (f"estimate = {threads} threads x {clock_hz / 1e9:.2f} GHz ({how}) x {per_cycle:g} FLOP/cycle "
              f"({isa}); an upper bound, not a datasheet figure")
    return Peak(threads * clock_hz * per_cycle, key, cpu_name(), source, is_estimate=True)
