"""Argument checks shared by the package's public functions.

A bad argument is refused with an error that names it, says what was expected and shows what came,
never turned into a silently wrong number. ``TypeError`` for the wrong kind of value, ``ValueError``
for the right kind out of range. ``bool`` (and numpy's ``np.bool_``) is refused wherever a number is
expected: ``True`` is an int to Python, but never a size or a count to a reader. Where a flag is
expected, only a real bool is taken: the string ``"False"`` is true to Python, never to a reader.
Numpy scalars (``np.float32(0.1)``, ``np.int64(2)``) are numbers like any other.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Iterable
from pathlib import Path
from typing import SupportsFloat

import numpy as np


def is_bool(value: object) -> bool:
    """Whether ``value`` is a bool: Python's ``True``/``False`` or numpy's ``np.True_``/``np.False_``."""
    return isinstance(value, (bool, np.bool_))


def _got(value: object) -> str:
    return f"got {type(value).__name__} {value!r}"


def _too_many_bits(name: str, value: int, max_bits: int, what: str) -> ValueError:
    return ValueError(f"{name} is a {value.bit_length()}-bit {what}, more than the {max_bits} bits accepted here")


def check_int(name: str, value: object, *, minimum: int, maximum: int | None = None,
              max_bits: int | None = None) -> int:
    """``value`` (an int or a numpy integer) as an int in ``[minimum, maximum]``.

    ``max_bits`` bounds very large ints that later meet a float (``float(2**1024)`` overflows).
    """
    if is_bool(value) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, {_got(value)}")
    if value < minimum or (maximum is not None and value > maximum):
        if maximum is not None:
            expected = f"an int in [{minimum}, {maximum}]"
        else:
            expected = "a positive int" if minimum == 1 else f"an int >= {minimum}"
        raise ValueError(f"{name} must be {expected}, got {value!r}")
    number = int(value)
    if max_bits is not None and number.bit_length() > max_bits:
        raise _too_many_bits(name, number, max_bits, "integer")
    return number


def check_count(name: str, value: object, *, minimum: int, max_bits: int | None = None) -> int:
    """A count given as an int or as a float holding a whole number (``70e9``), as an int >= ``minimum``."""
    expected = {0: "a non-negative whole number", 1: "a positive whole number"}.get(
        minimum, f"a whole number >= {minimum}")
    if is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {expected}, {_got(value)}")
    if not isinstance(value, numbers.Integral) and not (math.isfinite(value) and value == int(value)):
        raise ValueError(f"{name} must be {expected}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be {expected}, got {value!r}")
    count = int(value)
    if max_bits is not None and count.bit_length() > max_bits:
        raise _too_many_bits(name, count, max_bits, "number")
    return count


def _as_float(name: str, value: object, expected: str) -> float:
    """``value`` as a float: a real number that is not a bool, else ``TypeError``; huge ints ``ValueError``."""
    if is_bool(value) or not isinstance(value, (numbers.Real, SupportsFloat)) or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be {expected}, {_got(value)}")
    try:
        return float(value)
    except OverflowError:  # an int of 1024 bits or more
        raise ValueError(f"{name} is a {int(value).bit_length()}-bit integer, beyond the range of a float "
                         "(about 1.8e308)") from None
    except (TypeError, ValueError) as err:  # an object whose __float__ fails
        raise TypeError(f"{name} must be {expected}, {_got(value)}") from err


def check_positive_real(name: str, value: object) -> float:
    """``value`` (any real number, or anything with ``__float__``) as a positive finite float."""
    number = _as_float(name, value, "a positive number")
    if not (math.isfinite(number) and number > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return number


def check_real(name: str, value: object, *, minimum: float | None = None, maximum: float | None = None) -> float:
    """``value`` (a real number: int, float or numpy scalar, not a bool) as a finite float in ``[minimum, maximum]``.

    NaN and infinities are refused: a rate, a size or a time that is not finite is never meaningful.
    """
    number = _as_float(name, value, "a finite number")
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        if minimum is not None and maximum is not None:
            expected = f"a number in [{minimum:g}, {maximum:g}]"
        else:
            expected = f"a number >= {minimum:g}" if minimum is not None else f"a number <= {maximum:g}"
        raise ValueError(f"{name} must be {expected}, got {value!r}")
    return number


def check_bool(name: str, value: object) -> bool:
    """``value`` if it is a real bool (``True``/``False``, or numpy's ``np.bool_``), as a Python bool.

    Strings are refused: ``"False"`` and ``"no"`` are true to Python, so taking them would flip a flag.
    """
    if not is_bool(value):
        raise TypeError(f"{name} must be True or False, {_got(value)}")
    return bool(value)


def check_choice(name: str, value: object, choices: Iterable[str]) -> str:
    """``value`` if it is one of the strings ``choices``."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def printable(text: object) -> str:
    """``text`` with every character that is not printable (newlines, terminal escapes such as ``\\x1b[2J``,
    bidi overrides) written as its escape (``\\n``, ``\\x1b``, ``\\u202e``): one line, safe to print."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in str(text))


def check_path(name: str, value: object) -> Path:
    """``value`` (a str or ``os.PathLike``, not blank) as a :class:`~pathlib.Path`.

    An int would be taken as a file descriptor by ``open`` (and closed after), ``None`` or ``""`` as
    "here": each is refused with an error naming ``name``.
    """
    if is_bool(value) or not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a file path (str or os.PathLike), {_got(value)}")
    text = os.fspath(value)
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{name} must name a file, got {value!r} (an unset variable?)")
    if "\0" in text:
        raise ValueError(f"{name} must not contain a NUL character, got {value!r}")
    return Path(text)


def is_int(value: object) -> bool:
    """Whether ``value`` is a whole number by type: an int or a numpy integer, never a bool."""
    return isinstance(value, numbers.Integral) and not is_bool(value)


def check_format_widths(fmt: object) -> None:
    """The fields of a :class:`~cs336_lec2.floats.FloatFormat`: widths a float32 can carry, flags real bools.

    float32 carries every computation there, so a format may be at most as wide as it.
    """
    exponent, mantissa, total = fmt.exponent_bits, fmt.mantissa_bits, fmt.total_bits  # type: ignore[attr-defined]
    if not (is_int(exponent) and 2 <= exponent <= 8):
        raise ValueError(f"exponent_bits must be an int in [2, 8], got {exponent!r}")
    if not (is_int(mantissa) and 1 <= mantissa <= 23):
        raise ValueError(f"mantissa_bits must be an int in [1, 23], got {mantissa!r}")
    width = 1 + exponent + mantissa
    if not (is_int(total) and total % 8 == 0 and total >= width):
        raise ValueError(f"total_bits must be a multiple of 8 and >= bit_width {width}, got {total!r}")
    check_bool("ieee_specials", fmt.ieee_specials)  # type: ignore[attr-defined]
    check_bool("saturates", fmt.saturates)  # type: ignore[attr-defined]


def check_token_ids(name: str, ids: object, vocab_size: int) -> None:
    """Raise ``ValueError`` naming ``name`` unless every id of the integer tensor or array ``ids`` is in
    ``[0, vocab_size)`` (an embedding's "index out of range in self" names neither the ids nor the vocabulary)."""
    if getattr(ids, "numel", lambda: getattr(ids, "size", 0))():
        low, high = int(ids.min()), int(ids.max())  # type: ignore[attr-defined]
        if low < 0 or high >= vocab_size:
            raise ValueError(f"{name} holds token ids in [{low}, {high}]; they must be in [0, vocab_size={vocab_size})")


MAX_PARAMETERS = 2**36  # 69e9 values, 275 GB in fp32: a model this package BUILDS is never larger (a typo is)


def check_buildable(config: object) -> None:
    """Refuse (``ValueError``) to build a Transformer of ``config`` with more than :data:`MAX_PARAMETERS`
    values, before any layer is allocated (``num_layers=2**1100`` never returned). Accounting for a
    larger model needs no building: pass its config to :mod:`cs336_lec2.transformer` instead."""
    c = config
    d, layers = c.d_model, c.num_layers  # type: ignore[attr-defined]
    values = layers * d * (4 * d + 3 * c.d_ff) + (c.vocab_size + c.context_length) * d  # type: ignore[attr-defined]
    if values > MAX_PARAMETERS:
        raise ValueError(f"a model with vocab_size={c.vocab_size}, context_length={c.context_length}, "  # type: ignore[attr-defined]
                         f"num_layers={layers}, d_model={d} would hold about 2**{values.bit_length() - 1} "
                         f"parameters, more than the {MAX_PARAMETERS:.3g} this package builds")
