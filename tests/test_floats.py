"""Tests of cs336_lec2.floats: layouts vs torch.finfo, stored values vs torch's casts, TF32 rounding."""

from __future__ import annotations

import dataclasses
import itertools
import math
import struct
from fractions import Fraction

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from cs336_lec2.floats import (
    FORMATS,
    FloatFormat,
    decode_bits,
    decompose,
    get_format,
    representable_values,
    round_to_format,
    saturating_cast,
    spacing,
    to_binary_fraction,
)

TORCH_FORMATS = [name for name, f in FORMATS.items() if f.torch_dtype is not None]
UINT = {8: torch.uint8, 16: torch.int16, 32: torch.int32}

# Python floats spanning every format's underflow, normal range and overflow.
wide_floats = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e39, max_value=1e39),
    st.floats(min_value=-1e5, max_value=1e5),
    st.floats(min_value=-1e-3, max_value=1e-3),
    st.builds(lambda m, e: math.ldexp(m, e), st.floats(-2, 2), st.integers(-150, 130)),
)
float32_patterns = st.integers(0, 2**32 - 1).map(lambda b: struct.unpack("<f", struct.pack("<I", b))[0])


def same(a: float, b: float) -> bool:
    """Equal as stored values: NaN matches NaN, and the sign of zero counts."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def torch_value(x: float, name: str) -> float:
    """torch's cast of ``x``; saturating formats clamp first (a plain E4M3 overflow is version-dependent)."""
    f = FORMATS[name]
    if f.saturates:
        return saturating_cast(torch.tensor(x), f.torch_dtype).item()
    return torch.tensor(x, dtype=f.torch_dtype).item()


def tf32_by_bitmask(x: float) -> float:
    """TF32 by bit manipulation: float32 bits, round-to-nearest-even at bit 13, zero the low 13 bits."""
    x32 = torch.tensor(x, dtype=torch.float32)
    bits = int(x32.view(torch.int32).item()) & 0xFFFFFFFF
    if (bits & 0x7F800000) == 0x7F800000:  # inf / NaN pass through
        return x32.item()
    lsb = (bits >> 13) & 1
    bits = (bits + 0xFFF + lsb) & 0xFFFFE000  # a carry may ripple into the exponent (or to inf)
    return struct.unpack("<f", struct.pack("<I", bits))[0]


# ---- layouts ---------------------------------------------------------------------------------


def test_the_six_formats_and_their_layouts() -> None:
    layouts = {name: (f.exponent_bits, f.mantissa_bits, f.total_bits) for name, f in FORMATS.items()}
    assert layouts == {
        "fp32": (8, 23, 32),
        "tf32": (8, 10, 32),
        "fp16": (5, 10, 16),
        "bf16": (8, 7, 16),
        "fp8_e4m3": (4, 3, 8),
        "fp8_e5m2": (5, 2, 8),
    }
    assert [FORMATS[n].bytes_per_element for n in FORMATS] == [4, 4, 2, 2, 1, 1]


@pytest.mark.parametrize("name", TORCH_FORMATS)
def test_derived_figures_match_torch_finfo(name: str) -> None:
    f, info = FORMATS[name], torch.finfo(FORMATS[name].torch_dtype)
    assert f.total_bits == f.bit_width == info.bits
    assert f.eps == info.eps
    assert f.max == info.max
    assert -f.max == info.min
    assert f.min_normal == info.tiny == info.smallest_normal
    # The smallest subnormal is the bit pattern 0...01 (torch.finfo does not list it).
    one_bit = torch.tensor([1], dtype=UINT[f.total_bits]).view(f.torch_dtype).item()
    assert f.min_subnormal == one_bit == decode_bits(1, f)


def test_named_figures() -> None:
    assert FORMATS["fp16"].max == 65504
    assert FORMATS["fp8_e4m3"].max == 448  # S.1111.111 is NaN, so the top is 1.110b x 2^8
    assert FORMATS["fp8_e5m2"].max == 57344  # IEEE-like: exponent 11111 is inf / NaN
    assert FORMATS["bf16"].min_normal == FORMATS["fp32"].min_normal == 2.0**-126
    assert FORMATS["fp8_e4m3"].bias == 7 and FORMATS["fp8_e5m2"].bias == 15


def test_tf32_is_19_bits_stored_in_32() -> None:
    tf32, fp32 = FORMATS["tf32"], FORMATS["fp32"]
    assert tf32.torch_dtype is None
    assert (tf32.bit_width, tf32.total_bits, tf32.bytes_per_element) == (19, 32, 4)
    assert tf32.eps == FORMATS["fp16"].eps == 2.0**-10  # fp16's precision ...
    assert tf32.min_normal == fp32.min_normal  # ... with fp32's range
    assert tf32.max == (2 - 2.0**-10) * 2.0**127
    assert tf32.min_subnormal == 2.0**-136


@pytest.mark.parametrize("name", [n for n in TORCH_FORMATS if FORMATS[n].total_bits <= 16])
def test_decode_bits_matches_torch_for_every_pattern(name: str) -> None:
    f = FORMATS[name]
    patterns = torch.arange(2**f.total_bits, dtype=torch.int64)
    raw = patterns.to(torch.uint8) if f.total_bits == 8 else patterns.to(torch.int32).to(torch.int16)
    torch_values = raw.view(f.torch_dtype).double().tolist()
    for bits, expected in enumerate(torch_values):
        assert same(decode_bits(bits, f), expected), (name, bin(bits))


@given(float32_patterns)
def test_decode_bits_matches_fp32(x: float) -> None:
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    assert same(decode_bits(bits, "fp32"), x)


# ---- rounding ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", TORCH_FORMATS)
@given(x=wide_floats)
def test_round_to_format_matches_torch_cast(name: str, x: float) -> None:
    assert same(round_to_format(x, name), torch_value(x, name))


@pytest.mark.parametrize("name", TORCH_FORMATS)
@given(x=wide_floats)
def test_decompose_stores_what_torch_stores(name: str, x: float) -> None:
    d = decompose(x, name)
    assert same(d.stored_value, torch_value(x, name))
    bits = int(f"{d.sign}{d.exponent_field}{d.mantissa_bits}", 2)
    assert same(decode_bits(bits, name), d.stored_value)
    assert d.value == x


@given(x=st.one_of(wide_floats, float32_patterns))
def test_tf32_rounding_matches_a_float32_bitmask(x: float) -> None:
    expected = tf32_by_bitmask(x)
    assert same(round_to_format(x, "tf32"), expected)
    d = decompose(x, "tf32")
    assert same(d.stored_value, expected)
    assert same(decode_bits(int(f"{d.sign}{d.exponent_field}{d.mantissa_bits}", 2), "tf32"), expected)


@pytest.mark.parametrize("name", TORCH_FORMATS)
@given(x=st.one_of(wide_floats, st.sampled_from([0.0, -0.0, math.inf, -math.inf])))
def test_layout_only_decompose_matches_torch(name: str, x: float) -> None:
    """The same format without its torch dtype goes through round_to_format and the layout's encoder."""
    ours, theirs = decompose(x, dataclasses.replace(FORMATS[name], torch_dtype=None)), decompose(x, name)
    assert same(ours.stored_value, theirs.stored_value) and ours.bits == theirs.bits
    assert (ours.exponent, ours.is_subnormal, ours.is_inf) == (theirs.exponent, theirs.is_subnormal, theirs.is_inf)


def test_tf32_ties_go_to_even() -> None:
    # 1 + 2**-11 lies halfway between 1 and 1 + 2**-10: the even mantissa (1.0) wins.
    assert round_to_format(1 + 2**-11, "tf32") == 1.0
    # 1 + 3 * 2**-11 lies halfway between 1 + 2**-10 (odd) and 1 + 2**-9 (even).
    assert round_to_format(1 + 3 * 2**-11, "tf32") == 1 + 2**-9
    assert round_to_format(FORMATS["fp32"].max, "tf32") == math.inf  # rounds past tf32's max


def test_inputs_are_rounded_to_float32_first_like_torch() -> None:
    x = 1 + 2**-11 + 2**-40  # float32 drops 2**-40, leaving an exact tie that goes to 1.0
    assert round_to_format(x, "fp16") == torch_value(x, "fp16") == 1.0


# ---- decompose: the chapter's examples ---------------------------------------------------------


def test_underflow_of_1e_8() -> None:
    fp16, bf16 = decompose(1e-8, "fp16"), decompose(1e-8, "bf16")
    assert fp16.stored_value == 0.0 and fp16.is_zero and not fp16.is_subnormal
    assert bf16.stored_value != 0 and not bf16.is_subnormal and bf16.exponent == -27
    assert math.isclose(bf16.stored_value, 1e-8, rel_tol=FORMATS["bf16"].eps)


def test_rounding_of_one_plus_2_to_the_minus_8() -> None:
    assert decompose(1 + 2**-8, "bf16").stored_value == 1.0  # 7 mantissa bits: the tie goes to even
    assert decompose(1 + 2**-8, "fp16").stored_value == 1 + 2**-8  # 10 mantissa bits keep it


def test_overflow() -> None:
    assert decompose(65504, "fp16").stored_value == 65504
    big = decompose(70000, "fp16")
    assert big.stored_value == math.inf and big.is_inf and big.exponent is None
    assert big.bits == "0 11111 0000000000"
    assert decompose(70000, "bf16").stored_value == 70144  # bf16 has fp32's range
    assert decompose(1e6, "fp8_e5m2").is_inf


def test_e4m3_saturates_on_every_torch_version() -> None:
    for x in (464.0, 470.0, 1e6, math.inf):
        assert torch_value(x, "fp8_e4m3") == 448.0
        assert decompose(x, "fp8_e4m3").stored_value == round_to_format(x, "fp8_e4m3") == 448.0
        assert decompose(-x, "fp8_e4m3").bits == "1 1111 110"
    assert decompose(-1e6, "fp8_e4m3").stored_value == -448.0
    nan = decompose(math.nan, "fp8_e4m3")
    assert nan.is_nan and nan.exponent_field == "1111" and nan.mantissa_bits == "111"


def test_plain_e4m3_overflow_cast_is_nan_or_448() -> None:
    # Implementation-defined: NaN up to torch 2.12, 448 on the CPU since pytorch/pytorch#178817.
    plain = torch.tensor([1000.0, -1000.0]).to(torch.float8_e4m3fn).float()
    assert plain.isnan().all() or plain.tolist() == [448.0, -448.0]


def test_e4m3_results_survive_a_nan_on_overflow_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Emulate torch <= 2.12, whose plain E4M3 cast gives NaN past 464: the clamp keeps every result."""
    plain_to = torch.Tensor.to

    def nan_on_overflow(self: torch.Tensor, *args: object, **kwargs: object) -> torch.Tensor:
        out = plain_to(self, *args, **kwargs)
        if out.dtype == torch.float8_e4m3fn and self.dtype != out.dtype and (self.abs() > 464).any():
            wide = plain_to(self, torch.float32)
            wide[wide.abs() > 464] = math.nan
            out = plain_to(wide, torch.float8_e4m3fn)
        return out

    monkeypatch.setattr(torch.Tensor, "to", nan_on_overflow)
    assert torch.tensor([1000.0]).to(torch.float8_e4m3fn).float().isnan().all()  # the emulation works
    for x in (470.0, 1000.0, 1e6, math.inf):
        assert decompose(x, "fp8_e4m3").stored_value == 448.0
        assert decompose(-x, "fp8_e4m3").stored_value == -448.0
    assert saturating_cast(torch.tensor([1e6]), torch.float8_e4m3fn).float().item() == 448.0


def test_saturating_cast() -> None:
    x = torch.tensor([1e6, -1e6, math.inf, -math.inf, math.nan, 0.1, -3.0])
    e4m3 = saturating_cast(x, torch.float8_e4m3fn).float()
    assert e4m3[:4].tolist() == [448.0, -448.0, 448.0, -448.0] and e4m3[4].isnan()
    assert e4m3[5:].tolist() == [0.1015625, -3.0]  # in range: the ordinary rounded cast
    e5m2 = saturating_cast(x, torch.float8_e5m2).float()
    assert e5m2[:4].tolist() == [57344.0, -57344.0, 57344.0, -57344.0] and e5m2[4].isnan()
    assert saturating_cast(torch.tensor([7e4]), torch.float16).item() == 65504
    assert saturating_cast(x.double(), torch.float32).dtype == torch.float32
    with pytest.raises(ValueError, match=r"dtype must be a floating-point torch\.dtype"):
        saturating_cast(x, torch.int8)
    with pytest.raises(TypeError, match=r"x must be a floating-point torch\.Tensor, got torch\.int64"):
        saturating_cast(torch.tensor([1, 2]), torch.float8_e4m3fn)
    with pytest.raises(TypeError, match=r"x must be a torch\.Tensor"):
        saturating_cast([1.0], torch.float8_e4m3fn)  # type: ignore[arg-type]


def test_fields_of_a_few_numbers() -> None:
    one = decompose(1.0, "fp32")
    assert (one.sign, one.exponent_field, one.exponent) == (0, "01111111", 0)
    assert one.mantissa_bits == "0" * 23 and one.formula == "+1." + "0" * 23 + "b x 2^0"
    minus_three = decompose(-3.0, "fp8_e4m3")
    assert minus_three.bits == "1 1000 100" and minus_three.formula == "-1.100b x 2^1"
    sub = decompose(1e-6, "fp16")
    assert sub.is_subnormal and sub.exponent == -14 and sub.formula.startswith("+0.")
    assert math.isclose(sub.stored_value, int(sub.mantissa_bits, 2) * 2.0**-24)
    assert decompose(-0.0, "bf16").sign == 1 and decompose(-0.0, "bf16").is_zero
    assert decompose(math.inf, "fp32").formula == "+inf" and decompose(math.nan, "fp16").formula == "nan"


# ---- spacing, representable values, binary fractions --------------------------------------------


@pytest.mark.parametrize("name", ["fp32", "fp16", "bf16"])
@given(x=st.floats(min_value=0, max_value=1e38))
def test_spacing_matches_torch_nextafter(name: str, x: float) -> None:
    dtype = FORMATS[name].torch_dtype
    stored = torch.tensor(x, dtype=dtype)
    if torch.isinf(stored) or stored.item() == FORMATS[name].max:
        return
    gap = (torch.nextafter(stored, torch.tensor(math.inf, dtype=dtype)) - stored).item()
    assert spacing(name, stored.item()) == gap


@given(x=st.floats(min_value=0, max_value=3e38))
def test_spacing_matches_numpy_for_fp32(x: float) -> None:
    assert spacing("fp32", float(np.float32(x))) == float(np.spacing(np.float32(x)))


def test_spacing_named_values() -> None:
    for f in FORMATS.values():
        assert spacing(f, 1.0) == f.eps
        assert spacing(f, 0.0) == spacing(f, f.min_normal / 2) == f.min_subnormal
    assert spacing("fp16", 1024) == 1.0 and spacing("bf16", 256) == 2.0


@pytest.mark.parametrize(("name", "count"), [("fp8_e4m3", 253), ("fp8_e5m2", 247), ("fp16", 63487)])
def test_representable_values_counts_every_finite_pattern(name: str, count: int) -> None:
    values = representable_values(name, -1e9, 1e9)
    assert len(values) == count  # 2**bits minus NaNs, infinities and -0
    assert values == sorted(set(values))
    assert values[0] == -FORMATS[name].max and values[-1] == FORMATS[name].max


@given(
    name=st.sampled_from(["fp16", "bf16", "fp8_e4m3", "fp8_e5m2"]),  # fp32/tf32: too many near 0
    lo=st.floats(min_value=-600, max_value=600),
    width=st.floats(min_value=0, max_value=2),
)
def test_representable_values_are_exactly_the_grid(name: str, lo: float, width: float) -> None:
    hi = lo + width
    values = representable_values(name, lo, hi, limit=10**6)
    assert all(lo <= v <= hi and round_to_format(v, name) == v for v in values)
    for a, b in itertools.pairwise(values):  # consecutive values are one ULP apart
        assert b - a == spacing(name, a if a >= 0 else b)


def test_representable_values_in_one_binade() -> None:
    assert len(representable_values("fp16", 1, 2)) == len(representable_values("tf32", 1, 2)) == 2**10 + 1
    assert len(representable_values("fp32", 1, 1 + 2**-13)) == 2**10 + 1
    assert representable_values("fp8_e4m3", 1, 2) == [1 + i / 8 for i in range(9)]
    assert representable_values("fp8_e5m2", 0, 0) == [0.0]
    assert representable_values("fp8_e4m3", 449, math.inf) == []
    assert representable_values("fp8_e4m3", -math.inf, math.inf) == representable_values("fp8_e4m3", -448, 448)
    assert representable_values("fp8_e5m2", 40000, math.inf) == [40960.0, 49152.0, 57344.0]


def test_binary_fractions() -> None:
    assert to_binary_fraction(0.5, 3) == "0.100"
    assert to_binary_fraction(-5.75, 2) == "-101.11"
    assert to_binary_fraction(6, 0) == "110"
    # 1/100 never ends in binary: after 0.0000001 the 20-digit block 01000111101011100001 repeats
    exact = to_binary_fraction("0.01", 67)
    assert exact == "0.0000001" + "01000111101011100001" * 3
    # float64's 0.01 is 1/100 rounded to 53 significant bits; it agrees with 1/100 for 57 places
    assert to_binary_fraction(0.01, 57) == to_binary_fraction("0.01", 57)
    assert to_binary_fraction(0.01, 70) != to_binary_fraction("0.01", 70)
    assert to_binary_fraction(Fraction(1, 3), 6) == "0.010101"


# ---- rejections ----------------------------------------------------------------------------------


def test_unknown_format_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"fmt must be one of \['bf16', 'fp16', 'fp32', 'fp8_e4m3'"):
        get_format("fp64")
    for fn in (lambda: decompose(1.0, "fp64"), lambda: round_to_format(1.0, "e4m3"), lambda: spacing(3, 1.0)):
        with pytest.raises(ValueError, match=r"fmt must be (one of \['bf16'|a str or a FloatFormat)"):
            fn()
    assert get_format(FORMATS["bf16"]) is FORMATS["bf16"]
    custom = FloatFormat("e3m2", 3, 2, 8, None)
    assert get_format(custom) is custom and custom.max == 14.0


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ((1, 3, 8), "exponent_bits must be an int in"),
        ((9, 3, 16), "exponent_bits must be an int in"),
        ((4, 0, 8), "mantissa_bits must be an int in"),
        ((8, 24, 40), "mantissa_bits must be an int in"),
        ((4, 3, 7), "total_bits must be a multiple of 8 and >= bit_width 8"),
        ((4, 3, 12), "total_bits must be a multiple of 8"),
        ((4.0, 3, 8), "exponent_bits must be an int in"),
    ],
)
def test_impossible_layouts_are_rejected(fields: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        FloatFormat("bad", *fields, torch_dtype=None)


@pytest.mark.parametrize("bad", ["1.0", None, True, 1j])
def test_non_real_inputs_are_rejected(bad: object) -> None:
    for fn in (decompose, round_to_format, spacing):
        with pytest.raises(TypeError, match=r"x must be a (real number|float)"):
            fn(bad, "fp16") if fn is not spacing else fn("fp16", bad)


def test_other_rejections() -> None:
    with pytest.raises(ValueError, match="x must be finite with"):
        spacing("fp16", 70000)
    with pytest.raises(ValueError, match="x must be finite with"):
        spacing("fp16", math.nan)
    for bits in (-1, 2**8, True, 1.0):
        with pytest.raises(ValueError, match=r"bits must be an int"):
            decode_bits(bits, "fp8_e4m3")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="lo must be <= hi"):
        representable_values("fp16", 2, 1)
    with pytest.raises(ValueError, match="more than limit=1000"):
        representable_values("fp32", 1, 2, limit=1000)
    for limit in (0, -5, 1.5, True):
        with pytest.raises(ValueError, match=r"limit must be (an int|a positive int)"):
            representable_values("fp16", 1, 2, limit=limit)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"lo must be a (real number|float)"):
        representable_values("fp16", "0", 1)  # type: ignore[arg-type]
    for bits in (-1, 2.0, True):
        with pytest.raises(ValueError, match=r"bits must be an int"):
            to_binary_fraction(0.5, bits)  # type: ignore[arg-type]
    for x in (math.inf, math.nan, "abc", None):
        with pytest.raises(ValueError, match=r"x must be (a finite number or a decimal string|a float or a str)"):
            to_binary_fraction(x, 4)  # type: ignore[arg-type]


def test_an_integer_beyond_float64_is_a_clear_error_not_an_overflow():
    # float(int) raises OverflowError from 2**1024 - 2**970 on (it rounds to 2**1024); below, fp32 overflows to inf
    for huge in (10**400, -(2**1024 - 2**970)):
        with pytest.raises(ValueError, match=r"x is an integer of \d+ digits, beyond float64's range"):
            decompose(huge, "fp32")
    assert decompose(2**1024 - 2**970 - 1, "fp32").is_inf
    with pytest.raises(ValueError, match="lo is an integer"):
        representable_values("fp8_e4m3", -(10**400), 0)
