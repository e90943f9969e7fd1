"""The argument rules of the package, as types: beartype checks them where an argument enters.

Every module ends with :func:`beartype_on_first_call`, so every annotated parameter of every function
(and every field of a dataclass) is checked at call time, by beartype with :data:`CONF`. The types
below name the few rules a plain type cannot say: a count is a whole number (an int or a numpy integer,
never a bool: ``True`` is an int to Python, never a size to a reader), a real is finite (NaN, infinities
and ints beyond a float are refused), a probability lies in [0, 1], a flag is a real bool (the string
``"False"`` is true to Python, never to a reader). Choices are ``typing.Literal`` types. A value outside
its rule is refused with an :class:`ArgumentError` (both a ``TypeError`` and a ``ValueError``) in one line
that names the parameter, what was expected and what came. Value rules that relate several arguments
(heads divide the width) live once, where a configuration enters (``TransformerConfig``, the calculator's
``normalize``, the CLI, the launcher's spec).

No numpy here: the accounting core imports without it. To mypy the named types are plain ``int``,
``float`` and ``bool``; at run time they also take numpy's scalars, as the package always has.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, SupportsFloat, TypeVar, get_origin

if TYPE_CHECKING:
    from beartype import BeartypeConf

MAX_BITS = 1000  # a count meets a float somewhere (float(2**1024) overflows): 2**1000 is beyond any real size

_EXPECTED: dict[str, str] = {}  # validator name -> what it expects, in words, for the one-line message
_F = TypeVar("_F", bound=Callable[..., bool])


def rule(expected: str) -> Callable[[_F], _F]:
    """Register a validator's words: ``Is[rule]`` in beartype's message becomes ``expected``."""
    def register(fn: _F) -> _F:
        _EXPECTED[fn.__name__] = expected
        return fn
    return register


def is_bool(value: object) -> bool:
    """Whether ``value`` is a bool: Python's ``True``/``False`` or numpy's ``np.True_``/``np.False_``."""
    kind = type(value)
    return kind is bool or (kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_"))


def is_int(value: object) -> bool:
    """Whether ``value`` is a whole number by type: an int or a numpy integer, never a bool."""
    return isinstance(value, numbers.Integral) and not is_bool(value)


def _finite(x: Any) -> bool:
    """A real number (or anything with ``__float__``, such as a ``Peak``) that is finite; never a bool or str."""
    if is_bool(x) or isinstance(x, (str, bytes)) or not hasattr(x, "__float__"):
        return False
    try:
        return math.isfinite(float(x))
    except (OverflowError, TypeError, ValueError, RuntimeError):  # 2**1024 and up; a failing __float__
        return False


@rule(f"a non-negative int below 2**{MAX_BITS}")
def _count(n: Any) -> bool:
    return bool(is_int(n) and n >= 0 and int(n).bit_length() <= MAX_BITS)


@rule(f"a positive int below 2**{MAX_BITS}")
def _positive_count(n: Any) -> bool:
    return bool(is_int(n) and n > 0 and int(n).bit_length() <= MAX_BITS)


@rule(f"a non-negative whole number (an int, or a float such as 70e9) below 2**{MAX_BITS}")
def _whole(x: Any) -> bool:
    if not (_finite(x) and isinstance(x, numbers.Real)):
        return False
    n: Any = x  # a real number that is finite: comparable, and whole when it equals its int
    return bool(n >= 0 and n == int(n) and int(n).bit_length() <= MAX_BITS)


@rule(f"a positive whole number (an int, or a float such as 70e9) below 2**{MAX_BITS}")
def _positive_whole(x: Any) -> bool:
    return bool(_whole(x) and x > 0)


def between(low: int, high: int) -> Callable[[Any], bool]:
    """A validator for ``Annotated[int, Is[between(low, high)]]``: an int (numpy's too, never a bool) in
    ``[low, high]``, named in the one-line message as "an int in [low, high]"."""
    def valid(n: Any) -> bool:
        return bool(is_int(n) and low <= n <= high)
    valid.__name__ = valid.__qualname__ = f"_between_{low}_{high}".replace("-", "minus")
    _EXPECTED[valid.__name__] = f"an int in [{low}, {high}]"
    return valid


@rule(f"a sequence of non-negative ints below 2**{MAX_BITS} (not a str)")
def _counts(seq: Any) -> bool:
    return bool(not isinstance(seq, (str, bytes)) and all(_count(n) for n in seq))


@rule("a finite number (not a bool)")
def _real(x: Any) -> bool:
    return bool(_finite(x))


@rule("a finite number >= 0")
def _non_negative_real(x: Any) -> bool:
    return bool(_finite(x) and float(x) >= 0)


@rule("a positive finite number")
def _positive_real(x: Any) -> bool:
    return bool(_finite(x) and float(x) > 0)


@rule("a probability, a number in [0, 1]")
def _probability(x: Any) -> bool:
    return bool(_finite(x) and 0 <= float(x) <= 1)


@rule("True or False")
def _flag(x: Any) -> bool:
    return bool(is_bool(x))


@rule("a file path (str or os.PathLike), not blank and without NUL")
def _path(p: Any) -> bool:
    if is_bool(p) or not isinstance(p, (str, os.PathLike)):
        return False
    text = os.fspath(p)
    return isinstance(text, str) and bool(text.strip()) and "\0" not in text


# Bytes must stay within a float (~2**1024): parameter counts up to 2**512, bytes per value up to 2**64.
@rule("a non-negative int below 2**512")
def _params(n: int) -> bool:
    return bool(int(n).bit_length() <= 512)


@rule("a positive int below 2**512")
def _positive_params(n: int) -> bool:
    return bool(n > 0)


@rule("a non-negative int below 2**64")
def _state_bytes(n: int) -> bool:
    return bool(int(n).bit_length() <= 64)


@rule("a positive int below 2**64")
def _value_bytes(n: int) -> bool:
    return bool(n > 0 and int(n).bit_length() <= 64)


@rule("a positive int up to 2**20")
def _ranks(n: int) -> bool:
    return bool(n <= 2**20)


@rule("a positive int up to 2**40")
def _world(n: int) -> bool:
    return bool(n <= 2**40)  # 2**1100 met a float: OverflowError


@rule("a positive int below 2**31")
def _units(n: int) -> bool:
    return bool(n < 2**31)


class _Rule:
    """A named rule in an ``Annotated`` type, standing for beartype's ``Is[rule]`` until beartype reads
    the hints (:func:`conf` swaps checks' own in through ``hint_overrides``, :func:`_use_beartype_in` a
    module's): the package imports without beartype. Its repr is ``Is[rule]``, as beartype's messages
    print it."""

    def __init__(self, validator: Callable[[Any], bool]) -> None:
        self.validator = validator

    def __repr__(self) -> str:
        return f"Is[{self.validator.__name__}]"


class _IsStandIn:
    """``Is`` for the package's modules: ``Is[rule]`` is a :class:`_Rule` until beartype reads the module's
    hints, when :func:`_use_beartype_in` swaps in beartype's own (so a module imports without beartype)."""

    def __getitem__(self, validator: Callable[[Any], bool]) -> _Rule:
        return _Rule(validator)


Is: Any = _IsStandIn()


def _with_beartype(hint: Any) -> Any:
    """An ``Annotated`` hint with each :class:`_Rule` as beartype's ``Is[rule]``."""
    from beartype.vale import Is as beartype_is

    return Annotated[(hint.__origin__, *(beartype_is[m.validator] if isinstance(m, _Rule) else m
                                         for m in hint.__metadata__))]


def _stands_in(hint: Any) -> bool:
    return get_origin(hint) is Annotated and any(isinstance(m, _Rule) for m in hint.__metadata__)


_SWAPPED: set[str] = set()


def _use_beartype_in(namespace: dict[str, Any]) -> None:
    """Before beartype first reads a module's hints: its ``Is`` and its rules become beartype's own."""
    module = str(namespace.get("__name__"))
    if module in _SWAPPED:
        return
    _SWAPPED.add(module)
    from beartype.vale import Is as beartype_is

    for name, value in list(namespace.items()):
        if value is Is:
            namespace[name] = beartype_is
        elif _stands_in(value):
            namespace[name] = _with_beartype(value)


if TYPE_CHECKING:  # what mypy sees: the plain types (numbers' ABCs are no supertypes of int to mypy)
    Count = int
    PositiveCount = int
    WholeCount = float
    PositiveWholeCount = float
    Counts = Sequence[int]
    Real = float
    NonNegativeReal = float
    PositiveReal = float
    Rate = SupportsFloat
    Probability = float
    Flag = bool
    FilePath = str | os.PathLike[str]
    Params = int
    PositiveParams = int
    StateBytes = int
    ValueBytes = int
    Ranks = int
    WorldSize = int
    Units = int
else:
    Count = Annotated[numbers.Integral, _Rule(_count)]
    PositiveCount = Annotated[numbers.Integral, _Rule(_positive_count)]
    WholeCount = Annotated[numbers.Real, _Rule(_whole)]
    PositiveWholeCount = Annotated[numbers.Real, _Rule(_positive_whole)]
    Counts = Annotated[Sequence, _Rule(_counts)]
    Real = Annotated[object, _Rule(_real)]
    NonNegativeReal = Annotated[object, _Rule(_non_negative_real)]
    PositiveReal = Annotated[object, _Rule(_positive_real)]
    Rate = PositiveReal
    Probability = Annotated[object, _Rule(_probability)]
    Flag = Annotated[object, _Rule(_flag)]
    FilePath = Annotated[object, _Rule(_path)]
    Params = Annotated[Count, _Rule(_params)]
    PositiveParams = Annotated[Params, _Rule(_positive_params)]
    StateBytes = Annotated[Count, _Rule(_state_bytes)]
    ValueBytes = Annotated[Count, _Rule(_value_bytes)]
    Ranks = Annotated[PositiveCount, _Rule(_ranks)]
    WorldSize = Annotated[PositiveCount, _Rule(_world)]
    Units = Annotated[PositiveCount, _Rule(_units)]
# Count: a whole number of things (elements, bytes, steps), 0 allowed. PositiveCount: a size of at least
# 1 (a batch, a width, a number of layers). Counts: a shape, a list of sizes (each element checked).
# WholeCount: a count a reader may write as a float (70e9 parameters). Real: a finite real number.
# PositiveReal: a time, a size in bytes. Rate: a positive number or anything with __float__ (a Peak).
# Probability: a share, a momentum, a dropout rate. Flag: a real bool (numpy's too), never 0, 1 or
# "False". FilePath: a str or os.PathLike, not blank ("" is "here" to open(); an int a file descriptor).
# Params: a parameter count (PositiveParams: at least 1); StateBytes, ValueBytes: bytes of training state and
# of one value; Ranks, WorldSize: processes and GPUs; Units: FSDP's wrapped units.


class ArgumentError(TypeError, ValueError):
    """An argument outside its type or rule: one line naming the parameter, what was expected and what came.

    Both a ``TypeError`` and a ``ValueError``: a wrong argument is one or the other depending on who reads
    it. beartype raises it (:data:`CONF`) with its own message, shortened here to one line.
    """

    def __init__(self, message: object = "", *args: object) -> None:
        super().__init__(_one_line(str(message)), *args)


_NAMES = {"ndarray": "numpy_array", "Generator": "torch.Generator", "Tensor": "torch.Tensor",
          "Module": "torch.nn.Module", "dtype": "torch.dtype", "device": "torch.device",
          "Optimizer": "torch.optim.Optimizer"}  # as a reader knows them


def _words(hint: str) -> str:
    """A type hint of beartype's message in words: ``Annotated[..., Is[rule]]`` as the rule's words,
    ``Literal['a', 'b']`` as "one of ('a', 'b')", a class as "a TransformerConfig", ``X | None`` as "X or None"."""
    hint = re.sub(r"""<(?:protocol(?: ABC)?|class) ["']([\w.]+)["']>""", r"\1", hint)
    hint = re.sub(r"\b(?:[a-z_]\w*\.)+(?=[A-Za-z_]\w*)", "", hint)  # module paths: builtins.int, cs336_lec2.x.Y
    hint = re.sub(r"Callable\[.*\](?= \| |$)", "callable", hint)  # a callable, alone or with None
    for name, known_as in _NAMES.items():
        hint = re.sub(rf"(?<![\w.]){name}\b(?!\[)", known_as, hint)
    hint = re.sub(r"Annotated\[.*?Is\[(\w+)\]\]", lambda m: _EXPECTED.get(m.group(1), m.group(1)), hint)
    hint = re.sub(r"^Optional\[(.*)\]$", r"\1 | None", hint)
    hint = re.sub(r"Literal\[(.*?)\]", r"one of (\1)", hint)
    words = [f"{'an' if w[0] in 'aeiou' else 'a'} {w}" if re.fullmatch(r"[A-Za-z_][\w.]*", w)
             and w not in ("None", "callable") else w for w in hint.split(" | ")]
    return " or ".join(words).replace("numpy_array", "numpy array")


def _one_line(message: str) -> str:
    """beartype's message in one line, as the package has always said it: ``f(): name must be X, got T value``."""
    text = re.sub(r"\s+", " ", message.strip())  # a tensor's repr spans lines
    found = re.match(r"(?:Function|Method|Class method|Static method) ([\w.<>]+)\(\) parameter (\w+)=(.*?) "
                     r"violates (?:type hint|validator) "
                     r"(.*?), as (<(?:class|protocol)[^>]*>|[\w.]+) ", text)
    if not found:  # a return value or a class check: beartype's words, in one line
        return _words(text)
    where, name, got, hint, kind = found.groups()
    if kind.startswith("<"):  # <class "builtins.NoneType">, <protocol "numpy.bool">: beartype quotes the value
        kind, got = re.sub(r"""^<\w+(?: ABC)? ["'](?:\w+\.)*(\w+)["']>$""", r"\1", kind), got.strip('"')
    if kind == "NoneType":
        got = "None"
    elif re.fullmatch(r"-?\d{40,}\.\.\.", got):  # beartype cut a huge int short
        got = f"a huge int {got[:12]}..."
    else:
        got = f"{kind.rsplit('.', 1)[-1]} {got if len(got) <= 80 else got[:77] + '...'}"
    parts = where.split(".")
    call = parts[-2] if parts[-1] == "__init__" and len(parts) > 1 else parts[-1]
    if name == "value" and call.isidentifier():  # a property's setter: the property is what a reader set
        name = call
    return f"{call}(): {name} must be {_words(hint.rstrip('.'))}, got {got}"


@functools.cache
def conf() -> BeartypeConf:
    """How beartype checks the package: plain text; local variables unchecked (only what crosses a call);
    an ``int`` any integer and a ``float`` any real number, numpy's too (``float`` takes an int, as PEP
    484's tower says); each named type's rules as beartype's validators; a violation an
    :class:`ArgumentError`. The publisher (a command line, checked where its arguments enter) is not
    decorated."""
    from beartype import BeartypeConf, FrozenDict

    standing_in = {name: hint for name, hint in globals().items() if _stands_in(hint)}
    real = {name: _with_beartype(hint) for name, hint in standing_in.items()}
    # What a module imports from here from now on is beartype's own (a type it builds on one, such as
    # Annotated[PositiveReal, Is[rule]], keeps both rules); what the core imported before is swapped here.
    globals().update(real)
    return BeartypeConf(
        is_color=False, violation_type=ArgumentError,
        hint_overrides=FrozenDict({int: numbers.Integral, float: numbers.Real,
                                   **{standing_in[name]: real[name] for name in real}}),
    )


def __getattr__(name: str) -> Any:
    if name == "CONF":  # made on first use (conf()): the core imports without beartype
        return conf()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if TYPE_CHECKING:
    CONF: BeartypeConf
    """beartype's configuration for the package (:func:`conf`), made when first read."""


def _at_import() -> bool:
    """Whether the package is running one of its modules' top level (being imported): the constants it
    builds there (the catalog's models and clusters) are built unchecked, and tests check them."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name == "<module>" and str(frame.f_globals.get("__name__")).startswith("cs336_lec2."):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def _on_first_call(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn``, checked by beartype (:func:`conf`), decorated when it is first called."""
    checked: Callable[..., Any] | None = None

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        nonlocal checked
        if checked is None:
            if _at_import():
                return fn(*args, **kwargs)
            from beartype import beartype

            _use_beartype_in(fn.__globals__)
            checked = beartype(conf=conf())(fn)
        return checked(*args, **kwargs)

    return call


def _on_first_instance(cls: type) -> None:
    """``cls`` checked by beartype (every method, its dataclass ``__init__`` too) from its first instance on."""
    init = cls.__dict__["__init__"]

    def first(self: Any, *args: Any, **kwargs: Any) -> None:
        if _at_import():
            init(self, *args, **kwargs)
            return
        from beartype import beartype

        type.__setattr__(cls, "__init__", init)  # back, then beartype decorates the class in place
        _use_beartype_in(vars(sys.modules[cls.__module__]))
        beartype(conf=conf())(cls)
        cls.__init__(self, *args, **kwargs)  # type: ignore[misc]

    type.__setattr__(cls, "__init__", functools.wraps(init)(first))


def beartype_on_first_call(namespace: dict[str, Any]) -> None:
    """Check the calls of the functions and classes a module defines (its ``globals()``), from the first.

    Every module of the package outside ``publish/`` calls this on its last line. Each public function
    is decorated by beartype (:func:`conf`) when it is first called, not at import: importing the package
    loads no beartype (~0.2 s) and decorates nothing a chapter never calls. A public class is checked
    from its first instance (a class without its own ``__init__`` is left as it is); a function another
    module-level object captured before (a default argument, a table) is called unchecked through it.
    """
    module = namespace["__name__"]
    for name, obj in list(namespace.items()):
        if getattr(obj, "__module__", None) != module or name.startswith("_"):
            continue  # a private helper gets what a checked caller passed (and mypy checks it)
        if inspect.isfunction(obj):
            namespace[name] = _on_first_call(obj)
        elif inspect.isclass(obj) and "__init__" in obj.__dict__:
            _on_first_instance(obj)


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
    number = int(value)
    if number < minimum or (maximum is not None and number > maximum):
        if maximum is not None:
            expected = f"an int in [{minimum}, {maximum}]"
        else:
            expected = "a positive int" if minimum == 1 else f"an int >= {minimum}"
        raise ValueError(f"{name} must be {expected}, got {value!r}")
    if max_bits is not None and number.bit_length() > max_bits:
        raise _too_many_bits(name, number, max_bits, "integer")
    return number


def _as_float(name: str, value: object, expected: str) -> float:
    """``value`` as a float: a real number that is not a bool, else ``TypeError``; huge ints ``ValueError``."""
    if is_bool(value) or not isinstance(value, (numbers.Real, SupportsFloat)) or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be {expected}, {_got(value)}")
    try:
        return float(value)
    except OverflowError:  # an int of 1024 bits or more
        bits = value.bit_length() if isinstance(value, int) else "many"  # only Python's ints overflow a float
        raise ValueError(f"{name} is a {bits}-bit integer, beyond the range of a float "
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


def check_token_ids(name: str, ids: object, vocab_size: int) -> None:
    """Raise ``ValueError`` naming ``name`` unless every id of the integer tensor or array ``ids`` is in
    ``[0, vocab_size)`` (an embedding's "index out of range in self" names neither the ids nor the vocabulary)."""
    if getattr(ids, "numel", lambda: getattr(ids, "size", 0))():
        low, high = int(ids.min()), int(ids.max())  # type: ignore[attr-defined]
        if low < 0 or high >= vocab_size:
            raise ValueError(f"{name} holds token ids in [{low}, {high}]; they must be in [0, vocab_size={vocab_size})")


MAX_PARAMETERS = 2**36  # 69e9 values, 275 GB in fp32: a model this package BUILDS is never larger (a typo is)
