"""The peak FLOP/s that applies to a device and dtype: the denominator of MFU.

On a GPU the figure is the card's DENSE datasheet peak from :mod:`cs336_lec2.hardware.accelerators` (re-exported
here: :class:`Accelerator`, :data:`ACCELERATORS`, :func:`lookup`, :class:`UnknownHardwareError`), for
the mode in use (fp32 matmuls count as TF32 when TF32 is on). A CPU has no datasheet peak:
:func:`cpu_peak_estimate` estimates an upper bound from its core's FMA pipes (the microarchitecture
table of :mod:`cs336_lec2.hardware.cpus`), threads and clock, marked as an estimate, which the caller can override.

The subpackage keeps the facts apart from the arithmetic: :mod:`~cs336_lec2.hardware.accelerators` is the
table of GPUs with their datasheet sources, :mod:`~cs336_lec2.hardware.cpus` the table of CPU cores, and
this module picks the figure that applies.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

import torch

from ..bilingual import in_zh, tr
from ..checks import Flag, PositiveCount, PositiveReal, beartype_on_first_call
from ..device import cpu_name, device_arg
from .accelerators import ACCELERATORS, DTYPE_KEYS, OVERRIDE_HINT, Accelerator, UnknownHardwareError, lookup
from .cpus import CpuCore, core_from_flags, cpu_info, detect_core, parse_flags

__all__ = ["ACCELERATORS", "DTYPE_KEYS", "Accelerator", "CpuCore", "Peak", "UnknownHardwareError", "cpu_clock_hz",
           "cpu_flags", "cpu_flops_per_cycle", "cpu_peak_estimate", "detect_core", "dtype_key", "lookup", "peak_flops",
           "peak_or_none", "tf32_enabled"]


@dataclass(frozen=True)
class Peak:
    """A peak rate in FLOP/s for one dtype key on one device, with where the figure comes from."""

    flops: PositiveReal
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
    tf32: Flag | None = None,
    override: PositiveReal | None = None,
) -> Peak:
    """The dense peak (FLOP/s) for matmuls in ``dtype`` on ``device`` (None: the "auto" device).

    On CUDA an fp32 matmul counts as "tf32" when TF32 is on (``tf32=None`` reads torch's setting)
    and the card has TF32 tensor cores (``tf32`` has no effect on the CPU); fp64 uses the FP64
    tensor-core rate where the card has one. On the CPU the result is :func:`cpu_peak_estimate`.
    ``override`` (FLOP/s) replaces the table or estimate: use it for a documented or measured peak
    of a machine the table does not know.
    """
    key = dtype_key(dtype)
    dev = device_arg("device", device)
    use_tf32 = dev.type == "cuda" and key == "fp32" and (tf32_enabled() if tf32 is None else tf32)
    if override is not None:
        name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else cpu_name() if dev.type == "cpu" else str(dev)
        return Peak(float(override), "tf32" if use_tf32 else key, name, "override given by the caller",
                    is_estimate=False)
    if dev.type == "cpu":
        return cpu_peak_estimate(key)
    if dev.type != "cuda":
        raise UnknownHardwareError(f"there is no peak table for device type {dev.type!r}. {OVERRIDE_HINT}")
    card = lookup(torch.cuda.get_device_name(dev))
    if use_tf32 and "tf32" in card.peak_flops:  # pre-Ampere cards have no TF32: fp32 stays fp32
        key = "tf32"
    if key not in card.peak_flops:
        raise ValueError(f"{card.name} has no datasheet peak for {key!r}; its modes: {sorted(card.peak_flops)}")
    if key == "fp64" and card.fp64_tensor is not None:
        return Peak(card.fp64_tensor, key, card.name, f"FP64 Tensor Core rate; {card.source}", is_estimate=False)
    return Peak(card.peak_flops[key], key, card.name, card.source, is_estimate=False)


_NOTED: set[tuple[str, str]] = set()  # (device name, mode) pairs already told they have no peak


def peak_or_none(
    dtype: torch.dtype | str,
    device: str | torch.device | None = None,
    *,
    tf32: Flag | None = None,
    overrides: Mapping[str, float] | None = None,
) -> Peak | None:
    """:func:`peak_flops`, or None for a GPU the accelerator table does not know: then there is no MFU.

    ``overrides`` maps a mode ("fp32", "tf32", "bf16", "fp16", ...) to the card's DENSE datasheet peak in
    FLOP/s (a chapter's ``PEAK_OVERRIDES``); the mode of an fp32 matmul is "tf32" when TF32 is on (as in
    :func:`peak_flops`). For an unknown card whose mode ``overrides`` lacks, it says once per card and mode
    how to give the figure, and returns None.
    """
    key = dtype_key(dtype)
    dev = device_arg("device", device)
    on_tf32 = dev.type == "cuda" and key == "fp32" and (tf32_enabled() if tf32 is None else tf32)
    mode = "tf32" if on_tf32 else key
    try:
        return peak_flops(dtype, dev, tf32=tf32, override=(overrides or {}).get(mode))
    except UnknownHardwareError:
        name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else str(dev)
        if (name, mode) not in _NOTED:
            _NOTED.add((name, mode))
            from ..bilingual import say  # the package's words, in the notebook's language

            say(en=f"no {mode} peak, so no MFU: {name!r} is not in the accelerator table; give its dense\n"
                   f"datasheet figure in FLOP/s as PEAK_OVERRIDES[{mode!r}] (the overrides argument)",
                zh=f"没有 {mode} 峰值，因此没有 MFU：加速器表中没有 {name!r}；请把它数据手册上的稠密\n"
                   f"峰值（FLOP/s）填入 PEAK_OVERRIDES[{mode!r}]（即 overrides 参数）")
        return None


# ---- the CPU: no datasheet, so an upper-bound estimate from the vector ISA, threads and clock ----
CPU_DTYPE_KEYS = ("fp64", "fp32", "bf16", "fp16")
# Virtual machines expose only the nominal clock; server cores boost to roughly 1.4-1.5x of it
# (e.g. AMD EPYC 7763: 2.45 GHz base, 3.5 GHz boost), so the estimate multiplies by this to stay an
# upper bound. With no clock at all we assume FALLBACK_CLOCK_HZ, above any server part's boost.
TURBO_ALLOWANCE = 1.5
FALLBACK_CLOCK_HZ = 4.0e9
CPUINFO_PATH = "/proc/cpuinfo"  # Linux only; elsewhere the flags are unknown and the clock comes from psutil
_AMX_SOURCE = "Intel 64 and IA-32 Architectures Optimization Reference Manual, AMX chapter"


def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags from /proc/cpuinfo ("flags" on x86, "Features" on Arm); empty if unknown."""
    return cpu_info(CPUINFO_PATH)["flags"]


def cpu_clock_hz() -> tuple[float, str]:
    """An upper bound on the CPU clock (Hz) and how it was obtained."""
    try:
        import psutil

        freq = psutil.cpu_freq()
    except (ImportError, NotImplementedError, OSError, RuntimeError):
        freq = None
    if freq is not None and freq.max > 0:
        return max(freq.max, freq.current) * 1e6, tr("the maximum clock the OS reports", "操作系统报告的最高时钟频率")
    readings = [freq.current] if freq is not None and freq.current > 0 else []
    try:
        with open(CPUINFO_PATH, encoding="utf-8") as f:
            readings += [float(line.split(":", 1)[1]) for line in f if line.startswith("cpu MHz")]
    except (OSError, ValueError):
        pass
    if readings:
        return max(readings) * 1e6 * TURBO_ALLOWANCE, tr(f"the reported clock x {TURBO_ALLOWANCE} turbo allowance",
                                                          f"报告的时钟频率 × {TURBO_ALLOWANCE} 的睿频余量")
    return FALLBACK_CLOCK_HZ, tr("no clock reported, assumed", "系统没有报告时钟频率，取假设值")


def cpu_flops_per_cycle(key: str, flags: frozenset[str] | str, core: CpuCore | None = None) -> tuple[float, str]:
    """Peak FLOPs per cycle per core for ``key`` on ``core`` with the ISA ``flags``, and the reasoning in words.

    ``core`` (a :class:`~cs336_lec2.hardware.cpus.CpuCore`, see :func:`~cs336_lec2.hardware.cpus.detect_core`) gives
    the FMA pipes and their width; None models the core from ``flags`` alone (two FMA pipes of the
    widest vector ISA, an upper bound). ``flags`` may be a set of names or a string like "avx2 fma".
    fp64 is half the fp32 rate; bf16/fp16 use AMX tiles, AVX-512 BF16/FP16 or Arm BF16 instructions
    where the flags show them, else the fp32 rate (converted to fp32: an upper bound).
    """
    flags = parse_flags(flags)
    if core is None:
        core = core_from_flags(flags)
    if not isinstance(core, CpuCore):
        raise TypeError(f"core must be a CpuCore or None, got {type(core).__name__}")
    fp32 = core.fp32_flops_per_cycle
    what = f"{core.name}: {core.fma_pipes} FMA pipe(s) x {core.width_bits} bits"
    what_zh = f"{core.name}：{core.fma_pipes} 条 FMA 流水线 × {core.width_bits} 位"
    if key in ("fp32", "fp64"):
        per_cycle = fp32 if key == "fp32" else fp32 / 2
        return per_cycle, tr(f"{what} = {per_cycle:g} {key} FLOP/cycle [{core.source}]",
                             f"{what_zh} = 每周期 {per_cycle:g} 次 {key} 浮点运算 [“{core.source}”]")
    if key not in CPU_DTYPE_KEYS:
        raise ValueError(f"the CPU estimate covers {CPU_DTYPE_KEYS}, not {key!r}; pass override=")
    if f"amx_{key}" in flags:  # 16x16x32 tile product (8192 FMAs) every 16 cycles: 1024 FLOP per cycle
        return 1024, tr(f"AMX {key} tiles: 1024 FLOP/cycle [{_AMX_SOURCE}]",
                        f"AMX {key} 矩阵块（tile）：每周期 1024 次浮点运算 [“{_AMX_SOURCE}”]")
    if (key == "bf16" and "avx512_bf16" in flags) or (key == "fp16" and "avx512_fp16" in flags):
        return 2 * fp32, tr(f"{what}, AVX-512 {key} (two {key} products per fp32 lane): {2 * fp32} FLOP/cycle",
                            f"{what_zh}，AVX-512 {key}（每个 fp32 通道两次 {key} 乘积）：每周期 {2 * fp32} 次浮点运算")
    if key == "bf16" and "bf16" in flags and ("asimd" in flags or "sve" in flags):
        return 2 * fp32, tr(f"{what}, Arm BFDOT (two bf16 products per fp32 lane): {2 * fp32} FLOP/cycle",
                            f"{what_zh}，Arm BFDOT（每个 fp32 通道两次 bf16 乘积）：每周期 {2 * fp32} 次浮点运算")
    if key == "fp16" and "asimdhp" in flags:
        return 2 * fp32, tr(f"{what}, Arm half-precision FMA (twice the fp32 lanes): {2 * fp32} FLOP/cycle",
                            f"{what_zh}，Arm 半精度 FMA（通道数是 fp32 的两倍）：每周期 {2 * fp32} 次浮点运算")
    return fp32, tr(f"{what}: no native {key} math, converted to fp32 (real speed is often far lower)",
                    f"{what_zh}：没有原生的 {key} 运算，转换成 fp32 计算（实际速度往往低得多）")


def cpu_peak_estimate(
    dtype: torch.dtype | str = "fp32",
    *,
    flags: AbstractSet[str] | str | None = None,
    threads: PositiveCount | None = None,
    clock_hz: PositiveReal | None = None,
    core: CpuCore | None = None,
) -> Peak:
    """An ESTIMATED upper bound on this CPU's matmul peak (FLOP/s): threads x clock x FLOPs/cycle/core.

    ``threads`` defaults to the threads torch computes with (capped by the CPUs this process may
    use), ``flags`` to /proc/cpuinfo, ``core`` to the microarchitecture :func:`~cs336_lec2.hardware.cpus.detect_core`
    finds there (when ``flags`` is given and ``core`` is not, the core is modelled from the flags alone)
    and ``clock_hz`` to :func:`cpu_clock_hz`; pass them to model another machine. Matrix units outside
    the vector ISA (Apple's AMX behind Accelerate) are not modelled: where a measurement beats the
    estimate, ``mfu`` says so, and ``peak_flops(override=)`` helps.
    """
    key = dtype_key(dtype)
    if flags is None:
        info = cpu_info(CPUINFO_PATH)
        flags = info["flags"]
        core = detect_core(info) if core is None else core
    flags = parse_flags(flags)
    if threads is None:
        available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        threads = min(torch.get_num_threads(), available)
    how = tr("given", "由参数给出")
    if clock_hz is None:
        clock_hz, how = cpu_clock_hz()
    per_cycle, isa = cpu_flops_per_cycle(key, flags, core)
    source = tr(f"estimate = {threads} threads x {clock_hz / 1e9:.2f} GHz ({how}) x {per_cycle:g} FLOP/cycle "
                f"({isa}); an upper bound, not a datasheet figure",
                f"估算值 = {threads} 个线程 × {clock_hz / 1e9:.2f} GHz（{in_zh(how)}）× 每周期 {per_cycle:g} 次"
                f"浮点运算（{in_zh(isa)}）；这是上界，不是数据手册上的数字")
    return Peak(threads * clock_hz * per_cycle, key, cpu_name(), source, is_estimate=True)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
