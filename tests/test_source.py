from __future__ import annotations

import pytest

from cs336_lec2.presets import pick
from cs336_lec2.source import show_source, source_of


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
