"""The drift guard (issue 21): each Chinese text records which English text it translates."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool():
    spec = importlib.util.spec_from_file_location("translations", ROOT / "tools" / "translations.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["translations"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


T = _tool()


def test_every_chinese_text_translates_the_current_english():
    drifts = T.check_all()
    assert not drifts, "the English changed after these were translated:\n" + "\n".join(map(str, drifts))


@pytest.fixture
def book(tmp_path):
    """A copy of two chapters and the zh/en pages, stamped, to change without touching the repository."""
    (tmp_path / "notebooks").mkdir()
    for name in ("02_floats.ipynb", "05_flops_and_mfu.ipynb"):
        shutil.copy(ROOT / "notebooks" / name, tmp_path / "notebooks" / name)
    shutil.copytree(ROOT / "book" / "en", tmp_path / "book" / "en")
    shutil.copytree(ROOT / "book" / "zh", tmp_path / "book" / "zh")
    assert T.main(["stamp", "--all"], root=tmp_path) == 0
    assert T.check_all(tmp_path) == []
    return tmp_path


def _first_pair(nb: dict) -> tuple[int, int]:
    return T._pairs(nb)[1]


def test_a_changed_english_cell_names_its_chinese_twin(book, capsys):
    path = book / "notebooks" / "05_flops_and_mfu.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    en, zh = _first_pair(nb)
    nb["cells"][en]["source"] = T._source(nb["cells"][en]).replace("a", "A", 1)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    drifts = T.check_all(book)
    assert [d.where for d in drifts] == [f"notebooks/05_flops_and_mfu.ipynb:{zh}"]
    assert f"en cell {en} changed" in drifts[0].problem
    assert T.main(["check"], root=book) == 1
    assert f"notebooks/05_flops_and_mfu.ipynb:{zh}" in capsys.readouterr().out
    # After the translation is updated, one command re-stamps the pair and the guard is green again.
    assert T.main(["stamp", f"notebooks/05_flops_and_mfu.ipynb:{zh}"], root=book) == 0
    assert T.check_all(book) == []


def test_trailing_whitespace_is_not_a_change_but_a_number_is():
    assert T.fingerprint("6 N D  \r\nflops\n") == T.fingerprint("6 N D\nflops")
    assert T.fingerprint("6 N D") != T.fingerprint("6 N d")
    assert T.fingerprint("bf16: 989 TFLOP/s") != T.fingerprint("bf16: 1979 TFLOP/s")


def test_a_new_pair_without_a_stamp_is_reported(book):
    path = book / "notebooks" / "02_floats.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    _, zh = _first_pair(nb)
    del nb["cells"][zh]["metadata"][T.KEY]
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    assert [d.where for d in T.check_all(book)] == [f"notebooks/02_floats.ipynb:{zh}"]


def test_a_changed_english_page_names_the_chinese_page(book):
    en = book / "book" / "en" / "how_to_run.md"
    en.write_text(en.read_text(encoding="utf-8") + "\nOne more step.\n", encoding="utf-8")
    drifts = T.check_all(book)
    assert [d.where for d in drifts] == ["book/zh/how_to_run.md"]
    T.main(["stamp", "book/zh/how_to_run.md"], root=book)
    assert T.check_all(book) == []
    # Stamping twice keeps one stamp line.
    T.main(["stamp", "book/zh/how_to_run.md"], root=book)
    assert (book / "book" / "zh" / "how_to_run.md").read_text(encoding="utf-8").count("<!-- translates") == 1


def test_stamp_refuses_a_cell_that_is_not_chinese(book):
    with pytest.raises(SystemExit, match="not a lang-zh cell"):
        T.main(["stamp", "notebooks/02_floats.ipynb:0"], root=book)
