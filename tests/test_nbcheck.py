"""tools/nbcheck.py's lint of asserts that cannot fail (issue 37 item 25): literals compared with literals."""
from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("nbcheck", ROOT / "tools" / "nbcheck.py")
assert _spec is not None and _spec.loader is not None
nbcheck = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nbcheck)


def _found(*cells: str) -> list[str]:
    return [test for _, _, test in nbcheck.literal_asserts(list(enumerate(cells)))]


@pytest.mark.parametrize("cells", [
    ("assert 2 * 3 == 6",),
    ("peak = 989.4e12", "assert peak == 989.4e12"),  # a constant against itself, a cell apart
    ("a, b = 16, 2**20\nc = a * b", "assert c == 16 * 2**20 and -a < 0"),  # unpacked, then derived
    ("flag = True", "assert flag"),
])
def test_an_assert_on_literals_only_is_flagged(cells):
    written = ast.unparse(ast.parse(cells[-1]).body[0].test)  # type: ignore[attr-defined]
    assert _found(*cells) == [written]


@pytest.mark.parametrize("cells", [
    ("x = torch.ones(3)", "assert x.sum() == 3"),  # a computed value
    ("peak = H100.peak_flops['bf16']", "assert peak == 989.4e12"),  # the package's figure, a published one
    ("n = 2", "n = f(n)", "assert n == 2"),  # rebound to a computed value
    ("seen = []", "seen.append(run())", "assert seen == []"),  # changed in place
    ("seen = []", "record(seen)", "assert seen == [1]"),  # a list a call may fill
    ("ok = False\ntry:\n    go()\nexcept ValueError:\n    ok = True", "assert ok"),  # set by control flow
    ("for i in range(3):\n    pass", "assert i == 2"),
    ("%time y = 1 + 1", "assert len('ab') == 2"),  # a magic line parses; a call is not a literal
])
def test_an_assert_on_computed_values_passes(cells):
    assert _found(*cells) == []


def test_check_reports_the_cell_and_the_chapters_have_none(tmp_path):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    bad = tmp_path / "99_bad.ipynb"
    cells = [new_code_cell("device = 'auto'\npreset = 'small'", metadata={"tags": ["parameters"]}),
             new_code_cell("total = 6 * 10**23"), new_code_cell("assert total == 6 * 10**23")]
    for n, cell in enumerate(cells, 1):
        cell.execution_count = n
    nbformat.write(new_notebook(cells=cells), bad)
    problems, _ = nbcheck.check(bad)
    assert problems == ["cell 2: assert on literals only, it cannot fail (line 1: total == 6 * 10 ** 23)"]
    found = {p.name: nbcheck.check(p)[0] for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))}
    assert len(found) == 14
    assert {name: [p for p in probs if "literals only" in p] for name, probs in found.items()} == {n: [] for n in found}
