"""The argument rules: the named types beartype enforces (cs336_lec2.checks.CONF) and the helpers left for
the boundaries types cannot say (a launch spec, the CLI): what they accept, what they refuse, and that the
error is one line naming the argument."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Literal

import numpy as np
import pytest
from beartype import beartype
from beartype.vale import Is
from hypothesis import given
from hypothesis import strategies as st

from cs336_lec2 import checks
from cs336_lec2.checks import (
    CONF,
    ArgumentError,
    Count,
    Counts,
    FilePath,
    Flag,
    PositiveCount,
    PositiveReal,
    Probability,
    WholeCount,
    between,
    check_bool,
    check_choice,
    check_int,
    check_positive_real,
    check_real,
)


@beartype(conf=CONF)
def _rules(n: Count = 0, size: PositiveCount = 1, whole: WholeCount = 0, peak: PositiveReal = 1.0,
           p: Probability = 0.5, flag: Flag = False, path: FilePath = "x", shape: Counts = (),
           mode: Literal["a", "b"] = "a", k: Annotated[int, Is[between(1, 8)]] = 1) -> int:
    return 0


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"n": -1}, "_rules(): n must be a non-negative int below 2**1000, got int -1"),
    ({"n": 2**1100}, "_rules(): n must be a non-negative int below 2**1000, got a huge int 135829852904..."),
    ({"size": True}, "_rules(): size must be a positive int below 2**1000, got bool True"),
    ({"size": 2.0}, "_rules(): size must be a positive int below 2**1000, got float 2.0"),
    ({"whole": 1.5}, "_rules(): whole must be a non-negative whole number (an int, or a float such as 70e9) "
                     "below 2**1000, got float 1.5"),
    ({"peak": math.nan}, "_rules(): peak must be a positive finite number, got float nan"),
    ({"peak": np.True_}, "_rules(): peak must be a positive finite number, got bool np.True_"),
    ({"peak": "1.0"}, "_rules(): peak must be a positive finite number, got str '1.0'"),
    ({"p": 1.5}, "_rules(): p must be a probability, a number in [0, 1], got float 1.5"),
    ({"flag": "False"}, "_rules(): flag must be True or False, got str 'False'"),
    ({"flag": 1}, "_rules(): flag must be True or False, got int 1"),
    ({"path": ""}, "_rules(): path must be a file path (str or os.PathLike), not blank and without NUL, got str ''"),
    ({"path": 3}, "_rules(): path must be a file path (str or os.PathLike), not blank and without NUL, got int 3"),
    ({"shape": [2, -1]}, "_rules(): shape must be a sequence of non-negative ints below 2**1000 (not a str), "
                         "got list [2, -1]"),
    ({"mode": "c"}, "_rules(): mode must be one of ('a', 'b'), got str 'c'"),
    ({"k": 9}, "_rules(): k must be an int in [1, 8], got int 9"),
    ({"k": None}, "_rules(): k must be an int in [1, 8], got None"),
])
def test_a_broken_rule_is_one_line_naming_the_function_the_argument_and_the_rule(kwargs, message):
    with pytest.raises(ArgumentError) as caught:
        _rules(**kwargs)
    assert str(caught.value) == message
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, ValueError)


def test_the_rules_take_numpy_scalars_and_whole_floats():
    assert _rules(n=np.int64(3), size=np.int32(2), whole=7e9, peak=np.float32(2.0), p=np.float64(1.0),
                  flag=np.True_, shape=(np.int64(2), 3), k=np.int8(8)) == 0


def test_a_class_is_named_as_a_reader_knows_it():
    import torch

    from cs336_lec2.models import Linear, num_parameters

    with pytest.raises(ArgumentError, match=r"^num_parameters\(\): model must be a torch\.nn\.Module, got str 'm'$"):
        num_parameters("m")  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match=r"^Linear\(\): dtype must be a floating-point torch\.dtype"):
        Linear(2, 2, dtype=torch.int64)


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
                  lambda v: check_int("n", v, minimum=0)):
        with pytest.raises(TypeError, match=r"must be .*got bool"):
            check(flag)


def test_training_days_refuses_a_numpy_bool_mfu():
    from cs336_lec2.napkin import training_days

    with pytest.raises(TypeError, match="mfu must be a positive finite number, got bool"):
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


def test_every_named_rule_reaches_beartype() -> None:
    # The named types hold a stand-in for beartype's Is until beartype loads (the core imports without it);
    # conf() must swap in the real validator for each: in the overrides (for the core, which imported the
    # stand-ins) and in checks' namespace (for the modules imported after, which build on them).
    import re
    import typing
    from pathlib import Path

    from beartype.vale import Is

    from cs336_lec2 import checks, timing
    from cs336_lec2.distributed import launcher

    checks._use_beartype_in(vars(launcher))  # what launcher's first call does
    Timeout = launcher.Timeout
    overrides = checks.conf().hint_overrides
    stand_ins = [hint for hint in overrides if typing.get_origin(hint) is Annotated]
    assert len(stand_ins) >= 15 and all(
        type(m).__module__.startswith("beartype.") for hint in stand_ins for m in overrides[hint].__metadata__)
    named = {name: hint for name, hint in vars(checks).items() if typing.get_origin(hint) is Annotated}
    assert {"Count", "PositiveCount", "Flag", "Params", "WorldSize", "Units"} <= set(named)
    assert all(type(m).__module__.startswith("beartype.") for hint in named.values() for m in hint.__metadata__)
    # a type built on a named one after the swap keeps both rules (the launcher's timeout: positive, and small)
    assert len(Timeout.__metadata__) == 2
    assert all(type(m) is type(Is[checks.is_bool]) for m in Timeout.__metadata__)
    # a module's own rule (timing's Repeats, made with checks' Is) is beartype's from the module's first call
    with pytest.raises(checks.ArgumentError, match=r"^benchmark\(\): repeats must be"):
        timing.benchmark(lambda: None, repeats=0)
    assert all(type(m) is type(Is[checks.is_bool]) for m in timing.Repeats.__metadata__)
    # the stand-in is made in checks.py only (an alias made elsewhere would miss the swap)
    package = Path(checks.__file__).parent
    elsewhere = [p.name for p in package.rglob("*.py")
                 if p.name != "checks.py" and re.search(r"_Rule\(", p.read_text())]
    assert elsewhere == []


def test_every_module_outside_the_publisher_is_checked_from_its_first_call() -> None:
    # a module without the last line would take any argument unchecked (the reader namespace modules
    # en/zh define nothing; checks.py defines the rules)
    package = Path(checks.__file__).parent
    exempt = {"__init__.py", "checks.py", "en.py", "zh.py"}  # the top package's own files
    missing = [str(path.relative_to(package)) for path in sorted(package.rglob("*.py"))
               if "publish" not in path.parts and str(path.relative_to(package)) not in exempt
               and "beartype_on_first_call(globals())" not in path.read_text(encoding="utf-8")]
    assert not missing
