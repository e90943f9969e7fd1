from __future__ import annotations

import importlib
import inspect
import re
import textwrap

import pytest

from cs336_lec2 import data, floats, flops, memory, models, napkin, optim, tensors, timing, training
from cs336_lec2.presets import pick
from cs336_lec2.source import ELIDED, elide_checks, show_source, source_of

NOTE = re.compile(r"^\s*# … ")  # the comment lines a listing adds


def listing(obj) -> str:
    shown = show_source(obj)
    assert shown.data.startswith("```python\n") and shown.data.endswith("```")
    return shown.data[len("```python\n"):-len("```")]


def assert_verbatim_subsequence(shown: str, full: str) -> None:
    """Every line of ``shown`` but the added comments is a line of ``full``, in the same order."""
    full_lines = full.splitlines()
    position = 0
    for line in shown.splitlines():
        if NOTE.match(line) or line.lstrip().startswith("#   ("):
            continue
        while position < len(full_lines) and full_lines[position] != line:
            position += 1
        assert position < len(full_lines), f"not a line of the source, or out of order: {line!r}"
        position += 1


# Every function and class a chapter shows (chapters 01-12), and a few more.
SHOWN = [
    napkin.training_days, napkin.max_trainable_params, floats.FloatFormat, tensors.memory_bytes,
    tensors.element_offset, tensors.same_storage, flops.matmul_flops, flops.mfu,
    flops.arithmetic_intensity, timing.benchmark, models.Linear, models.Cruncher, training.set_seed,
    data.write_tokens, data.open_tokens, data.get_batch, optim.TeachingOptimizer.step, optim.Adam.update,
    optim.AdamW, memory.training_memory, training.save_checkpoint, training.train_step,
]


def test_source_of_a_package_function():
    code = source_of(pick)
    assert code.startswith("def pick(")
    assert "choose one of" in code


def test_show_source_renders_markdown_in_jupyter():
    shown = show_source(pick)
    assert shown.data.startswith("```python\ndef pick(")
    assert shown.data.endswith("```")


def test_builtins_have_no_source():
    with pytest.raises(TypeError, match="defined in Python source"):
        source_of(len)


def test_full_must_be_a_bool():
    with pytest.raises(TypeError, match="full must be True or False"):
        show_source(pick, full="yes")


@pytest.mark.parametrize("obj", SHOWN, ids=lambda o: o.__qualname__)
def test_listing_keeps_the_source_lines_in_order(obj):
    assert_verbatim_subsequence(listing(obj), source_of(obj))


@pytest.mark.parametrize("obj", SHOWN, ids=lambda o: o.__qualname__)
def test_listing_shows_no_check_calls_at_the_top_of_a_function(obj):
    body = re.compile(r"^(    )+(\w+(, \w+)* = )?_?check_\w+\(")  # a function's or a method's body
    for line in listing(obj).splitlines():
        if obj is flops.mfu and "top, is_estimate" in line:
            continue  # a check inside the computation, not at the top: it stays
        assert not body.match(line) or line.startswith("         "), line


@pytest.mark.parametrize("obj", SHOWN, ids=lambda o: o.__qualname__)
def test_full_listing_is_the_whole_source(obj):
    assert show_source(obj, full=True).data == f"```python\n{source_of(obj)}```"


def test_the_elision_says_where_the_full_source_is():
    from cs336_lec2.activations import segment_checkpoint_bytes

    shown = listing(segment_checkpoint_bytes)  # its one value rule (every <= num_layers) is a guard
    assert f"{ELIDED} (full source: cs336_lec2/activations.py)" in shown
    assert "raise ValueError" not in shown and "return -(-layers // k) * kept + k * layer" in shown


def test_a_formula_is_shown_as_it_is_its_types_checked_where_it_is_called():
    # issue 36: no check calls left in a formula's body, so its listing is the function itself
    assert listing(flops.matmul_flops) == source_of(flops.matmul_flops)
    assert "achieved = float(flops) / float(seconds)" in listing(flops.mfu)
    assert ELIDED not in listing(flops.mfu)


def test_mfu_fits_in_twenty_lines():
    assert len(listing(flops.mfu).splitlines()) <= 20
    assert len(source_of(flops.mfu).splitlines()) > 30  # the full source is much longer


def test_formula_listings_fit_in_twenty_lines():
    for fn in (napkin.training_days, flops.mfu, flops.matmul_flops, memory.training_memory,
               tensors.memory_bytes, flops.arithmetic_intensity):
        assert len(listing(fn).splitlines()) <= 20, fn.__name__


def test_the_docstring_keeps_its_first_paragraph():
    shown = listing(flops.mfu)
    assert "Model FLOPs utilization" in shown
    assert "ImplausibleMFUError`, naming the likely causes" not in shown  # the second paragraph


def test_a_property_shows_its_getter():
    shown = listing(floats.FloatFormat.eps)
    assert shown.startswith("@property\ndef eps(self)")


def test_a_method_that_only_checks_goes_as_a_whole():
    shown = listing(floats.FloatFormat)
    assert "def __post_init__" not in shown
    assert "__post_init__() elided: checks only" in shown
    assert "def max(self)" in shown


def test_attribute_assignments_are_never_taken_for_checks():
    shown = listing(models.Linear)
    assert "self.weight = nn.Parameter(" in shown
    assert "weight = torch.randn(input_dim, output_dim) / math.sqrt(input_dim)" in shown


SYNTHETIC = '''
def scale(x, factor, *, mode="mul"):
    """Scale ``x``.

    A long second paragraph
    about details.
    """
    check_choice("mode", mode, ("mul", "div"))
    if not isinstance(x, float):
        raise TypeError("x must be a float")
    if factor <= 0:
        raise ValueError(
            "factor must be positive"
        )
    # the idea
    if mode == "mul":
        return x * factor
    return x / factor
'''


def test_synthetic_function_guards_are_replaced_by_one_comment():
    code = textwrap.dedent(SYNTHETIC).lstrip()
    shown = elide_checks(code, "pkg/mod.py")
    assert shown.splitlines() == [
        'def scale(x, factor, *, mode="mul"):',
        '    """Scale ``x``.',
        '    """',
        '    check_choice("mode", mode, ("mul", "div"))',  # a call is code: only raise-guards are elided
        "    # … checks elided (full source: pkg/mod.py)",
        "    # the idea",
        '    if mode == "mul":',
        "        return x * factor",
        "    return x / factor",
    ]


NESTED = '''
def load(path):
    """Load."""
    data = read(path)
    if data is None:
        message = "nothing at " + path
        hint = " (check the path)"
        raise FileNotFoundError(
            message + hint
        )
    try:
        value = parse(data)
    except ValueError:
        cleanup()
        raise
    return value
'''


def test_a_long_error_path_in_a_block_is_elided_but_a_bare_raise_stays():
    shown = elide_checks(textwrap.dedent(NESTED).lstrip(), "pkg/io.py")
    assert "    # … checks elided (full source: pkg/io.py)" in shown
    assert "raise FileNotFoundError" not in shown and "message" not in shown
    assert "        cleanup()\n        raise\n" in shown  # re-raising is the logic: kept
    assert shown.splitlines()[1] == '    """Load."""'
    assert_verbatim_subsequence(shown, NESTED)


def test_helper_assignments_used_by_kept_code_stay():
    code = textwrap.dedent('''
        def f(a):
            n = len(a)
            if n == 0:
                raise ValueError("a must not be empty")
            return sum(a) / n
    ''').lstrip()
    shown = elide_checks(code)
    assert "n = len(a)" in shown and "return sum(a) / n" in shown
    assert "raise" not in shown


def test_a_function_that_only_checks_is_shown_as_it_is():
    code = "def check_x(x):\n    if x < 0:\n        raise ValueError('x')\n"
    assert elide_checks(code) == code


def test_every_package_function_can_be_listed():
    """The elision never fails on the package's own code, and keeps its lines verbatim."""
    names = ["checks", "data", "device", "floats", "flops", "memory", "models", "napkin", "optim",
             "presets", "results", "tensors", "timing", "training", "transformer_accounting", "transformer_model",
             "config", "catalog", "activations"]
    for name in names:
        module = importlib.import_module(f"cs336_lec2.{name}")
        for _, obj in inspect.getmembers(module, lambda o: inspect.isfunction(o) or inspect.isclass(o)):
            if getattr(obj, "__module__", "") != module.__name__:
                continue
            assert_verbatim_subsequence(listing(obj), source_of(obj))
