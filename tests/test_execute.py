"""The execution pipeline, on tiny notebooks run by real kernels."""

from __future__ import annotations

import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from cs336_lec2.execute import RECORD_NAME, execute, find_chapters


def _chapter(path, body: str) -> None:
    cells = [
        new_markdown_cell("# Tiny", metadata={"tags": ["lang-en"]}),
        new_code_cell('device = "auto"\npreset = "auto"\nseed = 0', metadata={"tags": ["parameters"]}),
        new_code_cell(body),
    ]
    nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                            "language": "python"}})
    nbformat.write(nb, path)


@pytest.fixture
def chapters(tmp_path):
    src = tmp_path / "notebooks"
    src.mkdir()
    _chapter(src / "01_good.ipynb", (
        "from cs336_lec2.results import publish\n"
        "publish('timing', label=f'{device}-{preset}', seconds=1.0)\n"
        "print(device, preset)"
    ))
    _chapter(src / "02_bad.ipynb", "x = 1\nraise RuntimeError('boom in chapter two')")
    _chapter(src / "03_after.ipynb", "print('still runs')")
    return src


def test_find_chapters_by_number_stem_or_file(chapters, tmp_path):
    assert [p.stem for p in find_chapters(chapters)] == ["01_good", "02_bad", "03_after"]
    assert [p.stem for p in find_chapters(chapters, ["3", "01_good", "02_bad.ipynb"])] == [
        "03_after", "01_good", "02_bad"]
    with pytest.raises(ValueError, match="known chapters: 01_good, 02_bad, 03_after"):
        find_chapters(chapters, ["07"])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="no chapter notebooks"):
        find_chapters(empty)


@pytest.mark.slow
def test_output_run_injects_parameters_records_and_survives_a_failure(chapters, tmp_path):
    out = tmp_path / "out"
    lines: list[str] = []
    record = execute(chapters, device="cpu", preset="small", output=out, progress=False, log=lines.append)
    assert [c.name for c in record.chapters] == ["01_good", "02_bad", "03_after"]
    assert [c.ok for c in record.chapters] == [True, False, True]
    assert "RuntimeError: boom in chapter two" in record.chapters[1].error
    assert "cell [" in record.chapters[1].error
    assert any(line.startswith("02_bad: FAILED") for line in lines)
    saved = json.loads((out / RECORD_NAME).read_text())
    assert saved["parameters"] == {"device": "cpu", "preset": "small"}
    assert saved["machine"]["device_type"] == "cpu"
    assert saved["measurements"] == [
        {"kind": "timing", "chapter": "01_good", "label": "cpu-small", "seconds": 1.0}]
    good = nbformat.read(out / "01_good.ipynb", as_version=4)
    assert any("injected-parameters" in c.metadata.get("tags", []) for c in good.cells)
    assert "papermill" not in good.metadata
    assert (out / "03_after.ipynb").exists() and (out / "execute.log").read_text().count("\n") == 3


@pytest.mark.slow
def test_in_place_keeps_defaults_and_never_overwrites_with_a_failure(chapters):
    before_bad = (chapters / "02_bad.ipynb").read_text()
    record = execute(chapters, chapters=["01", "02"], in_place=True, progress=False, log=lambda _: None)
    assert [c.ok for c in record.chapters] == [True, False]
    good = nbformat.read(chapters / "01_good.ipynb", as_version=4)
    assert not any("injected-parameters" in c.metadata.get("tags", []) for c in good.cells)
    assert good.cells[2].outputs[0].text == "auto auto\n"
    assert [c.execution_count for c in good.cells if c.cell_type == "code"] == [1, 2]
    assert all("papermill" not in c.metadata for c in good.cells)
    assert (chapters / "02_bad.ipynb").read_text() == before_bad
    assert not list(chapters.glob(".*running*"))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"device": "tpu", "output": "x"}, "device must be"),
        ({"preset": "huge", "output": "x"}, "preset must be"),
        ({"in_place": True, "output": "x"}, "not both"),
        ({"in_place": True, "device": "cuda"}, "committed CPU reference"),
        ({"in_place": True, "preset": "large"}, "committed CPU reference"),
        ({}, "output: give a directory"),
    ],
)
def test_bad_arguments(chapters, kwargs, message):
    with pytest.raises(ValueError, match=message):
        execute(chapters, progress=False, **kwargs)
