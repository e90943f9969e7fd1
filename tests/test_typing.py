"""The type checker's set-up (pyproject.toml [tool.mypy]); `make lint` runs the check itself."""

from __future__ import annotations

import tomllib
from pathlib import Path

from mypy.main import define_options
from mypy.options import PER_MODULE_OPTIONS

ROOT = Path(__file__).resolve().parent.parent
MYPY = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def _override(option: str) -> dict:
    """The one [[tool.mypy.overrides]] entry that sets ``option``."""
    found = [entry for entry in MYPY["overrides"] if option in entry]
    assert len(found) == 1, f"one override sets {option}, not {len(found)}"
    return found[0]


def test_make_lint_runs_ruff_then_mypy_on_the_package_and_tools():
    lint = (ROOT / "Makefile").read_text(encoding="utf-8").split("\nlint:")[1].split("\n\n")[0]
    assert lint.index("ruff check .") < lint.index("$(BIN)/mypy")
    assert "test: lint" in (ROOT / "Makefile").read_text(encoding="utf-8")
    assert set(MYPY["files"]) == {"src/cs336_lec2", "tools"}
    assert ".mypy_cache/" in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    # the baseline everywhere: function bodies checked; every `# type: ignore` coded and still needed
    assert MYPY["check_untyped_defs"] and MYPY["warn_unused_ignores"]
    assert "ignore-without-code" in MYPY["enable_error_code"]


def test_the_core_override_turns_on_every_flag_of_mypys_strict_mode():
    """`strict = true` in an override would turn strict on everywhere (python/mypy#11401): the core's entry
    spells out the flags of this mypy's --strict, and the one global among them is set for all modules."""
    _, _, strict = define_options()
    core = _override("disallow_untyped_defs")
    assert "cs336_lec2.calculator" in core["module"] and "cs336_lec2.napkin" in core["module"]
    for option, value in strict:
        where = core if option in PER_MODULE_OPTIONS else MYPY
        assert where.get(option) is value, f"{option} = {str(value).lower()} is missing from the strict set-up"


def test_no_module_is_exempt_from_the_type_checker():
    # issue 36.6: the temporary TODO exemption is gone; a module's errors are fixed, never ignored wholesale
    assert not [entry for entry in MYPY["overrides"] if entry.get("ignore_errors")]
    assert "TODO(issue 36.6)" not in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
