"""The shared argument checks: what they accept, what they refuse, and that the error names the argument."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cs336_lec2.checks import check_bool, check_choice, check_count, check_int, check_positive_real, check_real


@given(st.integers(-50, 50), st.integers(-50, 50), st.one_of(st.none(), st.integers(-50, 50)))
def test_check_int_accepts_exactly_the_range(value, minimum, maximum):
    inside = value >= minimum and (maximum is None or value <= maximum)
    if inside:
        assert check_int("x", value, minimum=minimum, maximum=maximum) == value
    else:
        with pytest.raises(ValueError, match=r"^x must be (a positive int|an int >= -?\d+|an int in \[-?\d+, -?\d+\]), "
                                             rf"got {value}$"):
            check_int("x", value, minimum=minimum, maximum=maximum)


def test_check_int_names_the_range_the_way_a_reader_says_it():
    for minimum, maximum, expected in [(1, None, "a positive int"), (0, None, "an int >= 0"),
                                       (2, None, "an int >= 2"), (0, 30, r"an int in \[0, 30\]")]:
        with pytest.raises(ValueError, match=rf"^n must be {expected}, got -1$"):
            check_int("n", -1, minimum=minimum, maximum=maximum)


@pytest.mark.parametrize("bad", [True, False, 2.0, "3", None, np.float64(2.0)])
def test_check_int_refuses_what_is_not_an_int(bad):
    with pytest.raises(TypeError, match=rf"^n must be an int, got {type(bad).__name__} "):
        check_int("n", bad, minimum=0)


def test_check_int_takes_numpy_integers_and_returns_a_python_int():
    out = check_int("n", np.int64(7), minimum=1)
    assert out == 7 and type(out) is int


def test_check_int_bounds_the_bits_of_huge_ints():
    assert check_int("n", 2**500 - 1, minimum=1, max_bits=500) == 2**500 - 1
    with pytest.raises(ValueError, match=r"^n is a 501-bit integer, more than the 500 bits accepted here$"):
        check_int("n", 2**500, minimum=1, max_bits=500)


@given(st.integers(0, 10**15))
def test_check_count_takes_an_int_or_the_same_whole_float(n):
    assert check_count("n", n, minimum=0) == n
    if float(n) == n:
        assert check_count("n", float(n), minimum=0) == n


@pytest.mark.parametrize(("bad", "error"), [
    (2.5, ValueError), (math.inf, ValueError), (math.nan, ValueError), (-1, ValueError), (-3.0, ValueError),
    (True, TypeError), ("7e9", TypeError), (None, TypeError),
])
def test_check_count_refuses_fractions_infinities_negatives_and_non_numbers(bad, error):
    with pytest.raises(error, match=r"^n must be a non-negative whole number, got "):
        check_count("n", bad, minimum=0)


def test_check_count_says_positive_for_a_minimum_of_one():
    with pytest.raises(ValueError, match=r"^n must be a positive whole number, got 0$"):
        check_count("n", 0, minimum=1)
    assert check_count("n", 7e9, minimum=1) == 7_000_000_000
    with pytest.raises(ValueError, match=r"^n is a 1329-bit number, more than the 500 bits accepted here$"):
        check_count("n", 10**400, minimum=1, max_bits=500)


@given(st.floats(min_value=1e-300, max_value=1e300))
def test_check_positive_real_returns_the_same_float(x):
    assert check_positive_real("x", x) == x


class _Peak:
    """A stand-in for a figure that converts itself to float (as hardware.Peak does)."""

    def __float__(self) -> float:
        return 989.4e12


def test_check_positive_real_takes_anything_with_float_and_refuses_the_rest():
    assert check_positive_real("peak", _Peak()) == 989.4e12
    assert check_positive_real("peak", 3) == 3.0
    for bad in (0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match=r"^peak must be a positive finite number, got "):
            check_positive_real("peak", bad)
    for bad in (True, "1e15", None):
        with pytest.raises(TypeError, match=r"^peak must be a positive number, got "):
            check_positive_real("peak", bad)
    with pytest.raises(ValueError, match=r"^peak is a 1329-bit integer, beyond the range of a float"):
        check_positive_real("peak", 10**400)


def test_check_choice():
    assert check_choice("mode", "b", ("a", "b")) == "b"
    assert check_choice("mode", "a", iter(["a"])) == "a"  # any iterable of choices, read once
    for bad in ("c", None, 1):
        with pytest.raises(ValueError, match=r"^mode must be one of \('a', 'b'\), got "):
            check_choice("mode", bad, ("a", "b"))


@pytest.mark.parametrize("flag", [np.True_, np.False_])
def test_numpy_bools_are_not_numbers(flag):
    """Issue 20.7: np.bool_ passed as 1 (training_days(..., mfu=np.True_) gave 6.72 days)."""
    for check in (lambda v: check_positive_real("mfu", v), lambda v: check_real("x", v),
                  lambda v: check_int("n", v, minimum=0), lambda v: check_count("n", v, minimum=0)):
        with pytest.raises(TypeError, match=r"must be .*got bool"):
            check(flag)


def test_training_days_refuses_a_numpy_bool_mfu():
    from cs336_lec2.napkin import training_days

    with pytest.raises(TypeError, match="mfu must be a positive number, got bool"):
        training_days(70e9, 15e12, 1024, 312e12, mfu=np.True_)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, np.float32("nan"), np.float64("inf")])
def test_check_real_refuses_what_is_not_finite(value):
    with pytest.raises(ValueError, match=r"^x must be a finite number, got "):
        check_real("x", value)


def test_check_real_takes_numpy_scalars_and_bounds():
    assert check_real("lr", np.float32(0.5)) == 0.5 and type(check_real("n", np.int64(2))) is float
    assert check_real("x", 0, minimum=0, maximum=1) == 0.0
    with pytest.raises(ValueError, match=r"^x must be a number in \[0, 1\], got 1.5$"):
        check_real("x", 1.5, minimum=0, maximum=1)
    with pytest.raises(ValueError, match=r"^x must be a number >= 0, got -1$"):
        check_real("x", -1, minimum=0)
    with pytest.raises(ValueError, match=r"^x is a 1101-bit integer, beyond the range of a float"):
        check_real("x", 2**1100)
    for bad in ("1", None, b"1", [1]):
        with pytest.raises(TypeError, match=r"^x must be a finite number, got "):
            check_real("x", bad)


@pytest.mark.parametrize("flag", ["False", "no", 0, 1, None, 0.0])
def test_check_bool_refuses_strings_and_numbers(flag):
    """Issue 20.7: the string "False" is true to Python; a flag takes only a real bool."""
    with pytest.raises(TypeError, match=r"^gated must be True or False, got "):
        check_bool("gated", flag)


def test_check_bool_takes_python_and_numpy_bools():
    assert check_bool("g", True) is True and check_bool("g", np.False_) is False
