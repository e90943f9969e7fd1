"""The CPU core table: how many FLOPs one core can issue per cycle, by microarchitecture.

A CPU has no datasheet peak the way a GPU does, but its cores have a known number of vector FMA
pipelines of a known width. One FMA is 2 FLOPs, so a core's fp32 rate is
``pipes x (width / 32 bits) x 2`` FLOP per cycle. :func:`cpu_info` reads what Linux reports in
``/proc/cpuinfo`` (vendor, family, model, Arm part number, feature flags) and :func:`detect_core`
maps it to a :class:`CpuCore`; anything it does not recognise falls back to a model built from the
flags alone, which assumes two FMA pipes of the widest vector ISA present (an upper bound).

Sources (each :class:`CpuCore` names its own):

- Intel: the "# of AVX-512 FMA Units" field of each Xeon's page on ark.intel.com (1 on Xeon Bronze /
  Silver and some Gold 5100/5200 parts of Skylake-SP and Cascade Lake, 2 on the others), and the
  Intel 64 and IA-32 Architectures Optimization Reference Manual (FMA on ports 0 and 1 since
  Haswell, the second 512-bit FMA on port 5 of server cores, AMX's TMUL at 1024 bf16 FLOP per cycle).
- AMD: the Software Optimization Guides for AMD family 17h / 19h / 1Ah processors (pipe counts and
  widths); Zen 4 executes 512-bit instructions on its 256-bit datapaths, and desktop/server Zen 5
  widened them to 512 bits while mobile Zen 5 (Strix Point, Krackan Point) kept 256
  (A. J. Yee, "Zen4's AVX512 Teardown", 2022, and "Zen5's AVX512 Teardown", 2024, numberworld.org).
- Arm: the Neoverse N1 / N2 / V1 / V2 Software Optimization Guides (developer.arm.com): N1 and N2
  have two 128-bit FP/SIMD pipes, V1 two 256-bit SVE pipes (four 128-bit for NEON), V2 four 128-bit.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..checks import FilePath, beartype_on_first_call

CPUINFO_PATH = "/proc/cpuinfo"
_AMD_GUIDE = "AMD Software Optimization Guide for family {family} processors"
_YEE_ZEN4 = "A. J. Yee, Zen4's AVX512 Teardown (2022), http://www.numberworld.org/blogs/2022_9_26_zen4_avx512/"
_YEE_ZEN5 = ("A. J. Yee, Zen5's AVX512 Teardown (2024), "
             "http://www.numberworld.org/blogs/2024_8_7_zen5_avx512_teardown/")
_INTEL_ARK = "Intel ARK, '# of AVX-512 FMA Units' of the processor; Intel 64 and IA-32 Optimization Reference Manual"
_INTEL_MANUAL = "Intel 64 and IA-32 Architectures Optimization Reference Manual"
_SPR = "Chips and Cheese, Golden Cove Hits Servers (2023): Sapphire Rapids has 2x512-bit FMA throughput"
_ARM_GUIDE = "Arm Neoverse {core} Software Optimization Guide, https://developer.arm.com/documentation"


@dataclass(frozen=True)
class CpuCore:
    """One core design: ``fma_pipes`` vector FMA pipelines of ``width_bits`` each, and where that comes from."""

    name: str
    fma_pipes: int
    width_bits: int
    source: str
    assumed: bool = False  # True when the figure is the flags-only fallback, not a known design

    @property
    def fp32_flops_per_cycle(self) -> int:
        """fp32 FLOP per cycle per core: pipes x fp32 lanes per pipe x 2 (an FMA is 2 FLOPs)."""
        return self.fma_pipes * (self.width_bits // 32) * 2


def _core(name: str, pipes: int, width: int, source: str, assumed: bool = False) -> CpuCore:
    return CpuCore(name, pipes, width, source, assumed)


# Arm part numbers ("CPU part" with "CPU implementer : 0x41") of the Neoverse server cores.
ARM_NEOVERSE = {
    0xD0C: _core("Arm Neoverse N1", 2, 128, _ARM_GUIDE.format(core="N1")),
    0xD40: _core("Arm Neoverse V1", 2, 256, _ARM_GUIDE.format(core="V1")),
    0xD49: _core("Arm Neoverse N2", 2, 128, _ARM_GUIDE.format(core="N2")),
    0xD4F: _core("Arm Neoverse V2", 4, 128, _ARM_GUIDE.format(core="V2")),
}
# Intel client cores with AVX-512 and one 512-bit FMA unit: Cannon Lake, Ice Lake, Tiger Lake, Rocket Lake.
_INTEL_CLIENT_AVX512_MODELS = frozenset({0x66, 0x7D, 0x7E, 0x8C, 0x8D, 0xA7})
# Zen 5 models whose cores keep 256-bit datapaths (mobile Strix Point 0x20-0x2F, Krackan Point 0x60-0x6F).
_ZEN5_NARROW_MODELS = (range(0x20, 0x30), range(0x60, 0x70))


def parse_flags(flags: object) -> frozenset[str]:
    """Feature flags as a frozenset: a whitespace-separated string (as in /proc/cpuinfo) or an iterable of names."""
    if isinstance(flags, str):
        return frozenset(flags.lower().split())
    if isinstance(flags, (set, frozenset, list, tuple)) and all(isinstance(f, str) for f in flags):
        return frozenset(f.strip().lower() for f in flags)
    raise TypeError(f"flags must be a string such as 'avx2 fma' or a set of flag names, got {flags!r}")


def cpu_info(path: FilePath | None = None) -> dict[str, Any]:
    """What ``/proc/cpuinfo`` says about the first CPU: vendor, family, model, Arm implementer/part, flags.

    Keys: ``vendor`` (str, "" if unknown), ``family``, ``model``, ``implementer``, ``part`` (int or
    None), ``model_name`` (str) and ``flags`` (frozenset; empty where the file is absent, as on macOS).
    """
    path = CPUINFO_PATH if path is None else Path(path)  # FilePath: an int would be a file descriptor to open()
    info: dict[str, Any] = {"vendor": "", "family": None, "model": None, "implementer": None, "part": None,
                            "model_name": "", "flags": frozenset()}
    fields = {"vendor_id": "vendor", "cpu family": "family", "model": "model", "CPU implementer": "implementer",
              "CPU part": "part", "model name": "model_name", "flags": "flags", "Features": "flags"}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    if info["flags"]:
                        break  # the first processor's block is enough
                    continue
                key, _, value = line.partition(":")
                name = fields.get(key.strip())
                if name is None or (name != "flags" and info[name] not in ("", None)):
                    continue
                value = value.strip()
                if name == "flags":
                    info["flags"] = parse_flags(value)
                elif name in ("family", "model", "implementer", "part"):
                    with contextlib.suppress(ValueError):
                        info[name] = int(value, 0)
                else:
                    info[name] = value
    except OSError:
        pass
    return info


def core_from_flags(flags: frozenset[str]) -> CpuCore:
    """The flags-only fallback: two FMA pipes as wide as the widest vector ISA present (an upper bound)."""
    assumption = "not a known core: two FMA pipes of the widest vector ISA assumed (an upper bound)"
    if "avx512f" in flags:
        return _core("x86 with AVX-512", 2, 512, assumption, assumed=True)
    if "avx2" in flags and "fma" in flags:
        return _core("x86 with AVX2+FMA", 2, 256, assumption, assumed=True)
    if "asimd" in flags:
        return _core("Arm with NEON", 4, 128, "not a known core: four 128-bit FMA pipes assumed (an upper bound)",
                     assumed=True)
    if not flags:
        return _core("unknown CPU", 2, 512, "no CPU flags: AVX-512 with two FMA pipes assumed (an upper bound)",
                     assumed=True)
    # SSE (or AVX without FMA): a separate multiply and add pipe, each 128 bits wide on the cores that
    # lack FMA; counted as two 128-bit pipes of 2 FLOPs per lane.
    return _core("x86 without FMA", 2, 128, assumption, assumed=True)


def _intel_core(info: dict[str, Any], flags: frozenset[str]) -> CpuCore:
    name = info.get("model_name", "")
    if "amx_tile" in flags:  # Sapphire Rapids and later Xeons: two 512-bit FMA units (an upper bound per SKU)
        return _core("Intel Xeon with AMX (Sapphire Rapids or later)", 2, 512, f"{_INTEL_ARK}; {_SPR}")
    if "avx512f" in flags:
        skylake_sp_low_end = info.get("model") == 0x55 and re.search(r"\b(Bronze|Silver)\b", name)
        if skylake_sp_low_end or info.get("model") in _INTEL_CLIENT_AVX512_MODELS:
            return _core("Intel core with one AVX-512 FMA unit", 1, 512, _INTEL_ARK)
        return _core("Intel core with two AVX-512 FMA units", 2, 512, _INTEL_ARK)
    if "avx2" in flags and "fma" in flags:
        return _core("Intel core with AVX2+FMA (Haswell or later)", 2, 256, _INTEL_MANUAL)
    return core_from_flags(flags)


def _amd_core(info: dict[str, Any], flags: frozenset[str]) -> CpuCore:
    family, model = info.get("family"), info.get("model")
    if family == 0x17:
        if model is not None and model < 0x30:
            return _core("AMD Zen / Zen+", 2, 128, _AMD_GUIDE.format(family="17h"))
        return _core("AMD Zen 2", 2, 256, _AMD_GUIDE.format(family="17h"))
    if family == 0x19:
        if "avx512f" in flags:  # 512-bit instructions run on the 256-bit pipes (one 512-bit FMA per cycle)
            return _core("AMD Zen 4", 2, 256, f"{_AMD_GUIDE.format(family='19h')}; {_YEE_ZEN4}")
        return _core("AMD Zen 3", 2, 256, _AMD_GUIDE.format(family="19h"))
    if family == 0x1A:
        if model is not None and any(model in r for r in _ZEN5_NARROW_MODELS):
            return _core("AMD Zen 5 (mobile, 256-bit datapaths)", 2, 256, _YEE_ZEN5)
        return _core("AMD Zen 5", 2, 512, f"{_AMD_GUIDE.format(family='1Ah')}; {_YEE_ZEN5}")
    return core_from_flags(flags)


def detect_core(info: dict[str, Any] | None = None) -> CpuCore:
    """The :class:`CpuCore` of this machine (or of ``info``, shaped like :func:`cpu_info`'s result)."""
    info = cpu_info() if info is None else info
    if not isinstance(info, dict):
        raise TypeError(f"info must be a dict shaped like cpu_info()'s result, or None, got {type(info).__name__}")
    flags = parse_flags(info.get("flags", frozenset()))
    vendor = info.get("vendor", "")
    if vendor == "GenuineIntel":
        return _intel_core(info, flags)
    if vendor in ("AuthenticAMD", "HygonGenuine"):
        return _amd_core(info, flags)
    if info.get("implementer") == 0x41 and info.get("part") in ARM_NEOVERSE:
        return ARM_NEOVERSE[info["part"]]
    return core_from_flags(flags)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
