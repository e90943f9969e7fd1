"""Floating-point formats from their bit layout: ranges, precision and what a format really stores.

Every figure of a :class:`FloatFormat` (bias, max, smallest normal and subnormal, epsilon) is derived
from its exponent and mantissa widths; the tests check them against ``torch.finfo``. :func:`decompose`
splits a number into sign, exponent and mantissa as a format stores it; :func:`round_to_format`
computes the stored value from the layout alone (``decompose`` uses it for TF32, which has no dtype).

Conversions follow torch: a float is rounded to float32, then to the format, to nearest even.
Overflow gives infinity, except in fp8 E4M3 ("FN": no infinity), where a cast's result is
implementation-defined (OCP fp8 spec: NaN or ±448); torch gives NaN up to 2.12 and, on the CPU,
448 since pytorch/pytorch#178817 (2.13). Like FP8 training code, this module saturates:
:func:`saturating_cast` clamps to ±max before the cast, the same on every torch and device.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated

import torch

from .checks import Flag, Is, beartype_on_first_call, between, is_bool, is_int


@dataclass(frozen=True)
class FloatFormat:
    """A binary floating-point format: 1 sign bit, ``exponent_bits``, ``mantissa_bits``.

    ``ieee_specials``: the all-ones exponent encodes inf (mantissa 0) and NaN, as in IEEE 754;
    otherwise (E4M3 "FN") it holds normal numbers and only the all-ones pattern ``S.1111.111`` is NaN.
    ``saturates``: overflow gives ±max instead of ±inf. ``total_bits`` is what one element occupies
    in memory (TF32 keeps ``bit_width`` = 19 significant bits inside a 32-bit float).
    """

    name: str
    exponent_bits: Annotated[int, Is[between(2, 8)]]  # at most float32's widths: it carries every computation
    mantissa_bits: Annotated[int, Is[between(1, 23)]]
    total_bits: int
    torch_dtype: torch.dtype | None
    ieee_specials: Flag = True
    saturates: Flag = False

    def __post_init__(self) -> None:
        if not (is_int(self.total_bits) and self.total_bits % 8 == 0 and self.total_bits >= self.bit_width):
            raise ValueError(f"total_bits must be a multiple of 8 and >= bit_width {self.bit_width}, "
                             f"got {self.total_bits!r}")

    @property
    def bit_width(self) -> int:
        """Bits that carry information: sign + exponent + mantissa (19 for TF32)."""
        return 1 + self.exponent_bits + self.mantissa_bits

    @property
    def bytes_per_element(self) -> int:
        """Bytes one element occupies in memory."""
        return self.total_bits // 8

    @property
    def bias(self) -> int:
        """Exponent bias: ``2**(exponent_bits - 1) - 1``."""
        return 2 ** (self.exponent_bits - 1) - 1

    @property
    def max_exponent(self) -> int:
        """Unbiased exponent of the largest binade (the all-ones field is special in IEEE formats)."""
        top_field = 2**self.exponent_bits - (2 if self.ieee_specials else 1)
        return top_field - self.bias

    @property
    def min_exponent(self) -> int:
        """Unbiased exponent of the smallest normal binade (field 1); subnormals share it."""
        return 1 - self.bias

    @property
    def max(self) -> float:
        """Largest finite value. In E4M3 the top mantissa pattern of the top binade is NaN."""
        top_mantissa = 2**self.mantissa_bits - (1 if self.ieee_specials else 2)
        return math.ldexp(1 + top_mantissa / 2**self.mantissa_bits, self.max_exponent)

    @property
    def min_normal(self) -> float:
        """Smallest positive normal value, ``2**min_exponent`` (``torch.finfo(...).tiny``)."""
        return math.ldexp(1.0, self.min_exponent)

    @property
    def min_subnormal(self) -> float:
        """Smallest positive (subnormal) value, ``2**(min_exponent - mantissa_bits)``."""
        return math.ldexp(1.0, self.min_exponent - self.mantissa_bits)

    @property
    def eps(self) -> float:
        """Machine epsilon: the gap between 1 and the next value, ``2**-mantissa_bits``."""
        return math.ldexp(1.0, -self.mantissa_bits)


# Layouts: IEEE 754-2008 (binary32, binary16); bfloat16 and TF32 as in the NVIDIA A100 whitepaper
# (2020); fp8 E4M3 / E5M2 as in Micikevicius et al. 2022, "FP8 Formats for Deep Learning"
# (arXiv:2209.05433) and the OCP 8-bit floating point spec v1.0.
FORMATS: dict[str, FloatFormat] = {
    "fp32": FloatFormat("fp32", 8, 23, 32, torch.float32),
    "tf32": FloatFormat("tf32", 8, 10, 32, None),
    "fp16": FloatFormat("fp16", 5, 10, 16, torch.float16),
    "bf16": FloatFormat("bf16", 8, 7, 16, torch.bfloat16),
    "fp8_e4m3": FloatFormat("fp8_e4m3", 4, 3, 8, torch.float8_e4m3fn, ieee_specials=False, saturates=True),
    "fp8_e5m2": FloatFormat("fp8_e5m2", 5, 2, 8, torch.float8_e5m2),
}


def get_format(fmt: str | FloatFormat) -> FloatFormat:
    """The :class:`FloatFormat` named ``fmt`` (or ``fmt`` itself); unknown names list the known ones."""
    if isinstance(fmt, FloatFormat):
        return fmt
    if isinstance(fmt, str) and fmt in FORMATS:
        return FORMATS[fmt]
    raise ValueError(f"fmt must be one of {sorted(FORMATS)} (or a FloatFormat), got {fmt!r}")


def _check_real(name: str, x: object) -> float:
    if is_bool(x) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(x).__name__} {x!r}")
    if isinstance(x, numbers.Integral) and abs(int(x)) >= 2**1024 - 2**970:  # rounds to 2**1024: overflow
        raise ValueError(f"{name} is an integer of {len(str(abs(int(x))))} digits, beyond float64's range")
    return float(x)


def _to_float32(x: float) -> float:
    """``x`` rounded to float32 (as torch rounds a Python float), returned as a Python float."""
    return torch.tensor(x, dtype=torch.float64).to(torch.float32).item()


def round_to_format(x: float, fmt: str | FloatFormat) -> float:
    """The value ``fmt`` stores for ``x``, from the bit layout alone (no torch dtype needed).

    ``x`` is rounded to float32 first (what torch does), then to ``fmt``'s grid with
    round-to-nearest-even; overflow gives ±inf, or ±max where the format saturates.
    """
    f = get_format(fmt)
    x = _to_float32(_check_real("x", x))
    if math.isnan(x):
        return math.nan
    if math.isinf(x):
        return math.copysign(f.max, x) if f.saturates else x
    if x == 0:
        return x
    quantum = spacing(f, min(abs(x), f.max))
    # abs(x) / quantum is exact (a power-of-two scaling); Python's round() breaks ties to even.
    magnitude = round(abs(x) / quantum) * quantum
    if magnitude > f.max:
        magnitude = f.max if f.saturates else math.inf
    return math.copysign(magnitude, x)


def spacing(fmt: str | FloatFormat, x: float) -> float:
    """The gap (ULP) between ``|x|`` and the next larger value of ``fmt``, like ``numpy.spacing``.

    Constant ``min_subnormal`` below the normal range, then ``2**(exponent - mantissa_bits)``
    in each binade: the relative spacing stays near ``eps`` over the whole normal range.
    """
    f = get_format(fmt)
    a = abs(_check_real("x", x))
    if not a <= f.max:
        raise ValueError(f"x must be finite with |x| <= {f.name} max {f.max}, got {x!r}")
    if a < f.min_normal:
        return f.min_subnormal
    exponent = math.frexp(a)[1] - 1  # a = m * 2**exponent with 1 <= m < 2
    return math.ldexp(1.0, exponent - f.mantissa_bits)


def decode_bits(bits: int, fmt: str | FloatFormat) -> float:
    """The value of the bit pattern ``bits`` (sign, exponent field, mantissa field) in ``fmt``."""
    f = get_format(fmt)
    width = f.bit_width
    if not is_int(bits) or not 0 <= bits < 2**width:  # np.int64 too
        raise ValueError(f"bits must be an int in [0, 2**{width}) for {f.name}, got {bits!r}")
    bits = int(bits)
    sign = -1.0 if bits >> (width - 1) else 1.0
    field = (bits >> f.mantissa_bits) & (2**f.exponent_bits - 1)
    mantissa = bits & (2**f.mantissa_bits - 1)
    all_ones = 2**f.exponent_bits - 1
    if f.ieee_specials and field == all_ones:
        return sign * math.inf if mantissa == 0 else math.nan
    if not f.ieee_specials and field == all_ones and mantissa == 2**f.mantissa_bits - 1:
        return math.nan
    if field == 0:
        return sign * math.ldexp(mantissa, f.min_exponent - f.mantissa_bits)
    return sign * math.ldexp(2**f.mantissa_bits + mantissa, field - f.bias - f.mantissa_bits)


@dataclass(frozen=True)
class Decomposed:
    """A number as ``fmt`` stores it: ``stored_value = (-1)**sign * significand * 2**exponent``.

    ``exponent`` is unbiased (``field - bias``); subnormals and zero report ``min_exponent``, the
    exponent their ``0.mantissa`` significand is scaled by; inf and NaN report ``None``.
    """

    format: str
    value: float
    stored_value: float
    sign: int
    exponent_field: str
    mantissa_bits: str
    exponent: int | None
    is_zero: bool
    is_subnormal: bool
    is_inf: bool
    is_nan: bool

    @property
    def bits(self) -> str:
        """The bit pattern as ``"sign exponent mantissa"``, e.g. ``"0 01111 0000000000"``."""
        return f"{self.sign} {self.exponent_field} {self.mantissa_bits}"

    @property
    def formula(self) -> str:
        """How the fields make the value, e.g. ``"+1.0100000b x 2^-7"``; ``"inf"`` / ``"nan"``."""
        if self.is_nan:
            return "nan"
        if self.is_inf:
            return ("-" if self.sign else "+") + "inf"
        lead = "0" if self.is_zero or self.is_subnormal else "1"
        return f"{'-' if self.sign else '+'}{lead}.{self.mantissa_bits}b x 2^{self.exponent}"


def _encode(value: float, f: FloatFormat) -> int:
    """The bit pattern of ``value``, which must be a value of ``f`` (NaN gets the canonical pattern)."""
    sign = 1 if math.copysign(1.0, value) < 0 else 0
    all_ones, a = 2**f.exponent_bits - 1, abs(value)
    if math.isnan(value):  # IEEE: quiet NaN (top mantissa bit); FN: S.1111.111
        field, mantissa = all_ones, 2 ** (f.mantissa_bits - 1) if f.ieee_specials else 2**f.mantissa_bits - 1
    elif math.isinf(value):
        field, mantissa = all_ones, 0
    elif a < f.min_normal:  # zero and subnormals: 0.M x 2**min_exponent
        field, mantissa = 0, int(a / f.min_subnormal)
    else:
        exponent = math.frexp(a)[1] - 1
        field, mantissa = exponent + f.bias, int((a / math.ldexp(1.0, exponent) - 1) * 2**f.mantissa_bits)
    return (sign << (f.exponent_bits + f.mantissa_bits)) | (field << f.mantissa_bits) | mantissa


def saturating_cast(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """``x`` clamped to ``±finfo(dtype).max``, then cast: overflow and ±inf saturate, NaN stays NaN.

    What FP8 training code does before a cast; a plain E4M3 cast of 1000 is NaN or 448 by version.
    """
    if not (isinstance(x, torch.Tensor) and x.dtype.is_floating_point):
        raise TypeError(f"x must be a floating-point torch.Tensor, got {getattr(x, 'dtype', type(x).__name__)}")
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise ValueError(f"dtype must be a floating-point torch.dtype, got {dtype!r}")
    top = torch.finfo(dtype).max
    return x.clamp(-top, top).to(dtype)  # clamp keeps NaN


def _torch_bits(x: float, dtype: torch.dtype, saturate: bool) -> tuple[float, int]:
    """torch's stored value of ``x`` in ``dtype`` and its raw bit pattern as an unsigned int."""
    stored = saturating_cast(torch.tensor(x), dtype) if saturate else torch.tensor(x, dtype=dtype)
    width = torch.finfo(dtype).bits
    as_int = {8: torch.uint8, 16: torch.int16, 32: torch.int32}[width]
    return stored.item(), int(stored.view(as_int).item()) & (2**width - 1)


def decompose(x: float, fmt: str | FloatFormat) -> Decomposed:
    """Split ``x`` into sign, exponent and mantissa as ``fmt`` stores it.

    Formats with a torch dtype use torch's own cast and bits (E4M3 through :func:`saturating_cast`,
    its plain overflow being version-dependent); TF32 and other formats use :func:`round_to_format`.
    """
    f = get_format(fmt)
    x = _check_real("x", x)
    if f.torch_dtype is not None:
        stored, bits = _torch_bits(x, f.torch_dtype, saturate=f.saturates)
    else:
        stored = round_to_format(x, f)
        bits = _encode(stored, f)
    m_bits, e_bits = f.mantissa_bits, f.exponent_bits
    field = (bits >> m_bits) & (2**e_bits - 1)
    is_nan, is_inf = math.isnan(stored), math.isinf(stored)
    special = is_nan or is_inf
    return Decomposed(
        format=f.name,
        value=x,
        stored_value=stored,
        sign=bits >> (e_bits + m_bits),
        exponent_field=format(field, f"0{e_bits}b"),
        mantissa_bits=format(bits & (2**m_bits - 1), f"0{m_bits}b"),
        exponent=None if special else max(field, 1) - f.bias,
        is_zero=stored == 0,
        is_subnormal=field == 0 and stored != 0,
        is_inf=is_inf,
        is_nan=is_nan,
    )


def _nonnegative_values(f: FloatFormat, a: float, b: float, limit: int) -> list[float]:
    """Every value of ``f`` in ``[a, b]`` with ``0 <= a``, ascending, binade by binade."""
    values: list[float] = []
    for field in range(f.max_exponent + f.bias + 1):
        base = 0.0 if field == 0 else math.ldexp(1.0, field - f.bias)  # subnormals start at 0
        step = math.ldexp(1.0, max(field, 1) - f.bias - f.mantissa_bits)
        if base > b:
            break
        # one index of slack either side; the exact comparison below decides
        first = max(0, math.ceil((a - base) / step) - 1)
        last = min(2**f.mantissa_bits - 1, math.floor((b - base) / step) + 1)
        if len(values) + last - first - 1 > limit:  # checked before building a huge list
            raise ValueError(f"more than limit={limit} {f.name} values in the range; narrow it")
        values.extend(v for v in (base + i * step for i in range(first, last + 1)) if a <= v <= min(b, f.max))
    return values


def representable_values(fmt: str | FloatFormat, lo: float, hi: float, *, limit: int = 100_000) -> list[float]:
    """Every finite value of ``fmt`` in ``[lo, hi]``, ascending; zero appears once; bounds may be ±inf.

    Raises ``ValueError`` when there are more than ``limit`` of them (fp32 has 2**23 per binade).
    """
    f = get_format(fmt)
    lo, hi = _check_real("lo", lo), _check_real("hi", hi)
    if not lo <= hi:
        raise ValueError(f"lo must be <= hi, got lo={lo!r}, hi={hi!r}")
    if not is_int(limit) or limit < 1:
        raise ValueError(f"limit must be a positive int, got {limit!r}")
    lo, hi = max(lo, -f.max), min(hi, f.max)  # an infinite bound means "to the end of the range"
    if lo > hi:
        return []
    negatives = [-v for v in reversed(_nonnegative_values(f, max(0.0, -hi), -lo, limit)) if v > 0] if lo < 0 else []
    positives = _nonnegative_values(f, max(0.0, lo), hi, limit) if hi >= 0 else []
    if len(negatives) + len(positives) > limit:
        raise ValueError(f"more than limit={limit} {f.name} values in [{lo}, {hi}]; narrow the range")
    return negatives + positives


def to_binary_fraction(x: float | str | Fraction, bits: int) -> str:
    """``x`` written in base 2 with ``bits`` digits after the point, truncated (not rounded).

    A ``str`` such as ``"0.01"`` is read exactly as a decimal (1/100, whose binary expansion never
    ends); a float is its exact binary value (``0.01`` is then float64's nearest value to 1/100).
    """
    if not is_int(bits) or not 0 <= bits <= 2**16:  # 2**40 digits ran out of memory after minutes
        raise ValueError(f"bits must be an int in [0, 65536], got {bits!r}")
    try:
        value = Fraction(x)
    except (TypeError, ValueError, OverflowError) as err:  # OverflowError: inf; ValueError: nan, "abc"
        raise ValueError(f"x must be a finite number or a decimal string, got {x!r}") from err
    sign, value = ("-" if value < 0 else ""), abs(value)
    whole, fraction = math.floor(value), value - math.floor(value)
    return f"{sign}{whole:b}." + format(math.floor(fraction * 2**bits), f"0{bits}b") if bits else f"{sign}{whole:b}"


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
