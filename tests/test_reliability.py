"""Issue 31 (reliability, third round): files never lost, nothing injected, hostile records and inputs refused.

One regression test (or more) per item; the module-wide sweep of hostile values is tests/test_hostile_inputs.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

BUILD_MARKER = ".cs336-lec2-build"  # publish.guard.BUILD_MARKER

ROOT = Path(__file__).resolve().parent.parent
RECORD = {
    "schema": 1,
    "machine": {"device_name": "NVIDIA H100 80GB HBM3", "torch": "2.13.0"},
    "parameters": {"device": "cuda", "preset": "large"},
    "created": "2026-11-22T00:00:00Z",
    "chapters": [{"name": "01_napkin_math", "seconds": 12.5, "ok": True, "error": None}],
    "measurements": [],
}


def _run_folder(parent: Path, record: dict | None, notebooks: list[str], name: str = "run") -> Path:
    run = parent / name
    run.mkdir()
    for nb in notebooks:
        (run / nb).write_bytes((ROOT / "notebooks" / nb).read_bytes())
    if record is not None:
        (run / "run-record.json").write_text(json.dumps(record))
    return run


# ---- 31.2: book --build-dir cleans only what the build owns ----

@pytest.mark.parametrize("theirs", ["html/en/mine.txt", "stage/en/notes.md", "colab/en/notebooks/draft.ipynb"])
def test_book_refuses_a_build_dir_holding_the_users_files_before_building(tmp_path, theirs):
    """Issue 31.2: book --build-dir deleted html/en/mine.txt, stage/en/notes.md, colab/en/notebooks/draft.ipynb."""
    from cs336_lec2.publish.book import build_book

    build = tmp_path / "build"
    (build / theirs).parent.mkdir(parents=True)
    (build / theirs).write_text("the user's own")
    with pytest.raises(ValueError, match=rf"^build_dir: .* holds {re.escape(Path(theirs).name)}, which the book "
                                         "build did not write"):
        build_book(ROOT, build_dir=build, languages=("en",))
    assert (build / theirs).read_text() == "the user's own"


def test_stage_and_colab_folders_are_emptied_only_when_the_build_made_them(tmp_path):
    from cs336_lec2.publish.book import stage_edition
    from cs336_lec2.publish.pages import write_colab_copies

    stage = stage_edition(ROOT, "en", tmp_path / "stage" / "en")
    assert (stage / BUILD_MARKER).is_file()
    (stage / "leftover.md").write_text("the build's own folder: emptied")
    stage_edition(ROOT, "en", stage)
    assert not (stage / "leftover.md").exists()
    copies = write_colab_copies(stage, tmp_path / "colab" / "en")
    assert copies and (tmp_path / "colab" / "en" / "notebooks" / BUILD_MARKER).is_file()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.md").write_text("keep")
    with pytest.raises(ValueError, match=r"holds notes\.md, which the book build did not write"):
        stage_edition(ROOT, "en", mine)
    (mine / "notebooks").mkdir()
    (mine / "notebooks" / "draft.ipynb").write_text("keep")
    with pytest.raises(ValueError, match=r"holds draft\.ipynb"):
        write_colab_copies(stage, mine)
    assert (mine / "notes.md").read_text() == "keep" == (mine / "notebooks" / "draft.ipynb").read_text()


# ---- 31.4: nothing reaches generated Markdown unescaped ----

EVIL = "run\n```{raw} html\n<img src=x onerror=alert(1)>\n```\n"


def _rendered(markdown: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").render(markdown)


@pytest.mark.parametrize("kind", ["taken", "fallback", "failed"])
def test_a_run_note_never_carries_live_html_or_markdown_from_a_folder_name_or_a_record(kind):
    """Issue 31.4: a --from folder named with a newline and a MyST {raw} html block put a live <img onerror>
    on every chapter page; the note only replaced backticks."""
    from cs336_lec2.publish.pages import run_note

    record = None if kind == "taken" else {
        "machine": {"device_name": "<img src=x onerror=alert(2)>\n```{raw} html\n"},
        "created": "2026\n:::\n<script>",
        "chapters": [{"name": "01_x", "ok": False, "error": "x\n```{raw} html\n<img src=y onerror=alert(3)>"}],
    }
    note = run_note(record, EVIL, "01_x", kind == "taken", "en")
    lines = note.splitlines()
    assert len(lines) == 4 and lines[0].startswith(":::{") and lines[1].startswith(":class:") and lines[3] == ":::"
    body = _rendered(lines[2])
    assert "<img" not in body and "<script" not in body and "<pre" not in body and "{raw}" in body  # shown, inert


def test_a_book_staged_from_a_hostile_folder_name_has_no_raw_block(tmp_path):
    from cs336_lec2.publish.book import chapters_from_run, stage_edition

    run = _run_folder(tmp_path, RECORD, ["01_napkin_math.ipynb"], name="r\n~~~{raw} html\n<img src=x onerror=1>\n~~~")
    chosen, _ = chapters_from_run(ROOT, run)
    stage = stage_edition(ROOT, "en", tmp_path / "stage", run, chosen)
    for path in (stage / "notebooks").glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown":
                assert not re.search(r"^\s*(~~~|```)\s*\{raw\}", cell.source, re.MULTILINE), path.name  # no raw block
                assert "<img" not in _rendered(cell.source), path.name


# ---- 31.5: control characters in a record are printed escaped ----

def test_a_failed_chapters_error_is_printed_with_its_control_characters_escaped(tmp_path, capsys):
    """Issue 31.5: an error holding \\x1b[2J and newlines was printed raw in book's warning line."""
    from cs336_lec2.publish.book import chapters_from_run

    record = {**RECORD, "chapters": [{"name": "01_napkin_math", "seconds": 1.0, "ok": False,
                                      "error": "boom\x1b[2J\nFAKE: all good\u202e"}]}
    run = _run_folder(tmp_path, record, ["01_napkin_math.ipynb"])
    _, warnings = chapters_from_run(ROOT, run)
    failed = next(w for w in warnings if "FAILED" in w)
    assert "\x1b" not in failed and "\n" not in failed and "\u202e" not in failed
    assert r"boom\x1b[2J\nFAKE: all good\u202e" in failed


def test_the_cli_prints_every_error_and_warning_on_one_escaped_line(tmp_path, capsys):
    from cs336_lec2.publish import cli

    run = tmp_path / "r\x1b[2J\nun"
    assert cli.main(["book", "--root", str(ROOT), "--from", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err and r"r\x1b[2J\nun" in err
