"""The CPU core table and /proc/cpuinfo detection behind the CPU peak estimate (issue 9 part E)."""

from __future__ import annotations

import pytest

from cs336_lec2 import hardware
from cs336_lec2.hardware import cpu_peak_estimate, cpus


def _cpuinfo(vendor="", family=None, model=None, name="", flags="", implementer=None, part=None) -> str:
    lines = ["processor\t: 0"]
    if vendor:
        lines += [f"vendor_id\t: {vendor}", f"cpu family\t: {family}", f"model\t\t: {model}",
                  f"model name\t: {name}", f"flags\t\t: {flags}"]
    else:
        lines += [f"Features\t: {flags}", f"CPU implementer\t: {implementer:#x}", f"CPU part\t: {part:#x}"]
    return "\n".join(lines) + "\n\nprocessor\t: 1\nflags\t\t: sse\n"


ZEN4_FLAGS = "fpu sse sse2 avx fma avx2 avx512f avx512dq avx512_bf16"
CPUS = {  # name: (cpuinfo text, core name fragment, fp32 FLOP/cycle/core, bf16 FLOP/cycle/core)
    "epyc-9554 (zen 4)": (_cpuinfo("AuthenticAMD", 25, 17, "AMD EPYC 9554 64-Core Processor", ZEN4_FLAGS),
                          "Zen 4", 32, 64),
    "epyc-7763 (zen 3)": (_cpuinfo("AuthenticAMD", 25, 1, "AMD EPYC 7763", "sse avx fma avx2"), "Zen 3", 32, 32),
    "epyc-7742 (zen 2)": (_cpuinfo("AuthenticAMD", 23, 49, "AMD EPYC 7742", "sse avx fma avx2"), "Zen 2", 32, 32),
    "epyc-7601 (zen 1)": (_cpuinfo("AuthenticAMD", 23, 1, "AMD EPYC 7601", "sse avx fma avx2"), "Zen / Zen+", 16, 16),
    "epyc-9575f (zen 5)": (_cpuinfo("AuthenticAMD", 26, 2, "AMD EPYC 9575F", ZEN4_FLAGS), "Zen 5", 64, 128),
    "ryzen-ai-370 (zen 5 mobile)": (_cpuinfo("AuthenticAMD", 26, 0x24, "AMD Ryzen AI 9 HX 370", ZEN4_FLAGS),
                                    "mobile", 32, 64),
    "xeon-8480 (sapphire rapids)": (_cpuinfo("GenuineIntel", 6, 143, "Intel(R) Xeon(R) Platinum 8480+",
                                             "avx2 fma avx512f avx512_bf16 amx_tile amx_bf16"), "AMX", 64, 1024),
    "xeon-6148 (skylake-sp gold)": (_cpuinfo("GenuineIntel", 6, 85, "Intel(R) Xeon(R) Gold 6148 CPU",
                                             "avx2 fma avx512f"), "two AVX-512", 64, 64),
    "xeon-4114 (skylake-sp silver)": (_cpuinfo("GenuineIntel", 6, 85, "Intel(R) Xeon(R) Silver 4114 CPU",
                                               "avx2 fma avx512f"), "one AVX-512", 32, 32),
    "xeon-e5-2690v3 (haswell)": (_cpuinfo("GenuineIntel", 6, 63, "Intel(R) Xeon(R) CPU E5-2690 v3",
                                          "avx avx2 fma"), "AVX2", 32, 32),
    "graviton2 (neoverse n1)": (_cpuinfo(flags="fp asimd", implementer=0x41, part=0xD0C), "N1", 16, 16),
    "graviton3 (neoverse v1)": (_cpuinfo(flags="fp asimd sve bf16", implementer=0x41, part=0xD40), "V1", 32, 64),
    "grace (neoverse v2)": (_cpuinfo(flags="fp asimd sve sve2 bf16", implementer=0x41, part=0xD4F), "V2", 32, 64),
    "unknown arm": (_cpuinfo(flags="fp asimd", implementer=0x61, part=0x22), "NEON", 32, 32),
}


@pytest.mark.parametrize("machine", sorted(CPUS))
def test_cpu_core_detected_from_cpuinfo(machine, tmp_path, monkeypatch):
    text, name, fp32, bf16 = CPUS[machine]
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(text)
    monkeypatch.setattr(hardware, "CPUINFO_PATH", str(cpuinfo))
    core = hardware.detect_core(cpus.cpu_info(str(cpuinfo)))
    assert name in core.name and core.fp32_flops_per_cycle == fp32
    assert cpu_peak_estimate("fp32", threads=1, clock_hz=1e9).flops == fp32 * 1e9
    assert cpu_peak_estimate("fp64", threads=1, clock_hz=1e9).flops == fp32 / 2 * 1e9
    assert cpu_peak_estimate("bf16", threads=1, clock_hz=1e9).flops == bf16 * 1e9
    assert core.name in cpu_peak_estimate("fp32", threads=1, clock_hz=1e9).source


def test_zen4_is_32_fp32_flops_per_cycle_not_64(tmp_path, monkeypatch):
    """Zen 4 runs AVX-512 on 256-bit datapaths: the flags alone (avx512f) would say 64, twice too high."""
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(CPUS["epyc-9554 (zen 4)"][0])
    monkeypatch.setattr(hardware, "CPUINFO_PATH", str(cpuinfo))
    assert hardware.cpu_flags() == cpus.parse_flags(ZEN4_FLAGS)
    assert cpu_peak_estimate("fp32", threads=2, clock_hz=3.7e9).flops == pytest.approx(2 * 3.7e9 * 32)
    # the same flags without the vendor and model fall back to the flags-only upper bound
    assert cpu_peak_estimate("fp32", flags=ZEN4_FLAGS, threads=1, clock_hz=1e9).flops == 64e9
    zen4 = hardware.detect_core(cpus.cpu_info(str(cpuinfo)))
    assert cpu_peak_estimate("fp32", flags=ZEN4_FLAGS, threads=1, clock_hz=1e9, core=zen4).flops == 32e9


def test_cpu_flags_given_as_a_string_are_split_into_names():
    as_string = cpu_peak_estimate("fp32", flags="avx2 fma", threads=1, clock_hz=1e9)
    as_set = cpu_peak_estimate("fp32", flags={"avx2", "fma"}, threads=1, clock_hz=1e9)
    assert as_string.flops == as_set.flops == 32e9
    with pytest.raises(TypeError, match=r"flags must be (a string|Set\[str\] or a str)"):
        cpu_peak_estimate("fp32", flags=42, threads=1, clock_hz=1e9)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="core must be a CpuCore"):
        hardware.cpu_flops_per_cycle("fp32", "avx2 fma", core="zen4")  # type: ignore[arg-type]


def test_cpuinfo_absent_gives_empty_info(tmp_path):
    info = cpus.cpu_info(str(tmp_path / "absent"))
    assert info["flags"] == frozenset() and info["vendor"] == ""
    assert hardware.detect_core(info).assumed
