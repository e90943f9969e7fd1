"""The calculator page's data, ``book/_static/calculator/data.js``, written from the package's tables.

:func:`cs336_lec2.calculator.page_data` (the inputs, rules, presets, accelerators, recipes and cluster
tables) and :func:`cs336_lec2.validation.page_rows` (the published runs beside the calculator's
numbers) in one ordinary script. This module sits above both, so that neither imports the other's
caller. Regenerate: ``python -m cs336_lec2.calculator_page > book/_static/calculator/data.js``
(``tests/test_calculator.py`` fails when the committed file differs).
"""

from __future__ import annotations

import json
from typing import Any

from .calculator import page_data as calculator_data
from .checks import beartype_on_first_call
from .validation import page_rows


def page_data() -> dict[str, Any]:
    """Everything ``data.js`` carries: the calculator's tables and the validation rows."""
    return {**calculator_data(), "validation": page_rows()}


def page_data_module() -> str:
    """``data.js``: :func:`page_data` as an ordinary script (no ES module: the book opens from ``file://`` too)."""
    body = json.dumps(page_data(), indent=1, ensure_ascii=False)
    return ("// Written by `python -m cs336_lec2.calculator_page` from the package's tables; do not edit by hand\n"
            "// (tests/test_calculator.py fails when this file and the package differ).\n"
            f"(window.CS336_CALC = window.CS336_CALC || {{}}).DATA = {body};\n")


def main() -> None:
    """Print ``data.js`` (redirect it to ``book/_static/calculator/data.js``)."""
    print(page_data_module(), end="")


if __name__ == "__main__":
    main()


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
