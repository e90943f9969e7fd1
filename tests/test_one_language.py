"""One language per edition, code included (issue 35 items 1-2): the rewrite of a code cell's words, the
runtime's one-language forms, and the notebooks a reader opens (no raw directive, no answer in view)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from markdown_it import MarkdownIt

from cs336_lec2 import bilingual
from cs336_lec2.publish.cells import edition_notebook, reader_markdown, reader_notebook
from cs336_lec2.publish.one_language import OneLanguageError, one_language

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
PAIR_LEFT = re.compile(r"\b(?:en|zh|alt_en|alt_zh)=|\bw\(")


# --- the rewrite -------------------------------------------------------------------------------------------

def test_a_say_pair_becomes_one_positional_text_with_its_continuation_lines_shifted():
    source = ('say(en=f"one {x}\\n"\n'
              '       f"two",\n'
              '    zh=f"一 {x}\\n"\n'
              '       f"二")\n')
    assert one_language(source, "en") == 'say(f"one {x}\\n"\n    f"two")\n'
    assert one_language(source, "zh") == 'say(f"一 {x}\\n"\n    f"二")\n'


def test_a_table_header_pair_and_an_alt_pair():
    table = 'show_table(rows, en=["name", "bytes"], zh=["名称", "字节数"])'
    assert one_language(table, "en") == 'show_table(rows, ["name", "bytes"])'
    assert one_language(table, "zh") == 'show_table(rows, ["名称", "字节数"])'
    fig = 'show_figures(draw, alt_en="a line", alt_zh="一条线")'
    assert one_language(fig, "zh") == 'show_figures(draw, alt="一条线")'


def test_draw_functions_lose_the_words_function_and_drawing_helpers_too():
    source = (
        "def panel(ax, data, w):\n"
        "    ax.set_title(w('Time', '时间'))\n"
        "\n"
        "def draw(w):\n"
        "    fig, ax = plt.subplots()\n"
        "    panel(ax, [1, 2], w)\n"
        "    ax.set(xlabel=w('step', '步'), ylabel=w(\n"
        "        'loss', '损失'))\n"
        "    return fig\n"
    )
    en = one_language(source, "en")
    assert "def panel(ax, data):" in en and "def draw():" in en and "panel(ax, [1, 2])" in en
    assert "ax.set_title('Time')" in en and "xlabel='step'" in en and "'loss'" in en
    assert not CJK.search(en)
    zh = one_language(source, "zh")
    assert "'时间'" in zh and "'损失'" in zh and "'Time'" not in zh
    compile(zh, "<zh>", "exec")


def test_a_weight_named_w_is_left_alone():
    source = "def output_std(w: torch.Tensor, x):\n    return (x @ w).std()\n"
    assert one_language(source, "zh") == source


def test_each_edition_imports_its_languages_reader_namespace():
    assert one_language("from cs336_lec2 import *", "zh") == "from cs336_lec2.zh import *"
    assert one_language("from cs336_lec2 import *", "en") == "from cs336_lec2.en import *"


@pytest.mark.parametrize("source, why", [
    ('say(en="a")', "other half"),
    ('f(en="a", zh="b", end="")', "last two"),
    ('f(sep=" ", en="a", zh="b")', "no keyword may come before"),
    ("label = w('a', 'b')", "only inside a function"),
])
def test_shapes_the_rewrite_does_not_know_are_refused_with_the_line(source, why):
    with pytest.raises(OneLanguageError, match=why):
        one_language(source, "en")


def test_magics_and_comments_pass_through():
    source = "%time x = 1  # one\nsay(en='a', zh='b')"
    assert one_language(source, "en") == "%time x = 1  # one\nsay('a')"


# --- the runtime --------------------------------------------------------------------------------------------

def test_the_one_language_forms_print_once_and_the_language_picks_a_pair(capsys):
    try:
        bilingual.say("once")
        bilingual.show_table([[1, 2]], ["a", "b"])
        bilingual.set_language("zh")
        bilingual.say(en="English", zh="中文")
        assert bilingual.tr("bytes", "字节") == "字节"
    finally:
        bilingual.set_language(None)
    assert capsys.readouterr().out == "once\na  b\n1  2\n中文\n"
    with pytest.raises(TypeError, match="either one text"):
        bilingual.say("one", en="two", zh="二")
    with pytest.raises(ValueError, match="lang must be one of"):
        bilingual.set_language("fr")


# --- every chapter ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem[:2])
def test_each_edition_of_each_chapter_is_python_in_its_own_language(path):
    nb = nbformat.read(path, as_version=4)
    for lang in ("en", "zh"):
        edition = edition_notebook(nb, lang)
        for i, cell in enumerate(edition.cells):
            if cell.cell_type != "code":
                continue
            assert not PAIR_LEFT.search(cell.source), f"{lang} cell {i} keeps a words pair"
            if lang == "en":
                assert not CJK.search(cell.source), f"en cell {i} carries Chinese: {cell.source[:200]}"
            for output in cell.get("outputs", []):
                assert output.get("metadata", {}).get("lang", lang) == lang


# --- the notebooks a reader opens ---------------------------------------------------------------------------

def _rendered(markdown: str) -> str:
    """A markdown cell as Jupyter's renderer (CommonMark with HTML) makes it."""
    return MarkdownIt("commonmark", {"html": True}).render(markdown)


def _visible_html(html: str) -> str:
    """The rendered HTML without what sits folded inside a <details> (its summary stays)."""
    return re.sub(r"<details>\s*<summary>(.*?)</summary>.*?</details>", r"\1", html, flags=re.S)


def test_boxes_render_as_details_or_quoted_notes():
    dropdown = "```{admonition} Aside: why\n:class: dropdown\nBecause *so*.\n```"
    assert reader_markdown(dropdown, "en") == "<details>\n<summary>Aside: why</summary>\n\nBecause *so*.\n\n</details>"
    note = "Before.\n\n```{note}\nfp16 stops at `tiny`.\n```\n\nAfter."
    assert reader_markdown(note, "zh") == "Before.\n\n> **注**\n>\n> fp16 stops at `tiny`.\n\nAfter."


def _reader_notebooks(lang):
    for path in CHAPTERS:
        yield path.stem, reader_notebook(edition_notebook(nbformat.read(path, as_version=4), lang), lang, "%pip x")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_reader_notebooks_show_no_directive_and_no_answer_before_a_click(lang):
    answers = 0
    for name, nb in _reader_notebooks(lang):
        assert nb.cells[next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")].source == "%pip x"
        for i, cell in enumerate(nb.cells):
            tags = cell.metadata.get("tags", [])
            if cell.cell_type == "markdown":
                html = _rendered(cell.source)
                assert not re.search(r"[`:]{3}\{|\{(admonition|note|warning|dropdown)\}|:class:", html), \
                    f"{name} cell {i}: raw MyST in {cell.source[:120]!r}"
                if "answer" in tags:
                    answers += 1
                    assert _visible_html(html).strip() in {"Show answer", "显示答案"}, \
                        f"{name} cell {i}: an answer in view"
            elif "answer" in tags:
                assert cell.metadata["jupyter"]["source_hidden"] and cell.metadata["cellView"] == "form"
                assert cell.outputs == [], f"{name} cell {i}: an answer's output in view"
            elif {"checks", "plot", "gpu", "helper"} & set(tags):
                assert cell.metadata["jupyter"]["source_hidden"] and cell.source.startswith("# @title ")
    assert answers >= 2 * len(CHAPTERS)


def test_the_notebooks_command_writes_both_editions_and_keeps_a_readers_changes(tmp_path, capsys):
    from cs336_lec2.publish.cli import main

    assert main(["notebooks", "--output", str(tmp_path)]) == 0
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.ipynb"))
    assert written == sorted(f"{lang}/{p.name}" for lang in ("en", "zh") for p in CHAPTERS)
    mine = tmp_path / "en" / CHAPTERS[0].name
    nb = json.loads(mine.read_text(encoding="utf-8"))
    nb["cells"].append({"cell_type": "markdown", "metadata": {}, "source": "my notes"})
    mine.write_text(json.dumps(nb), encoding="utf-8")
    assert main(["notebooks", "--output", str(tmp_path)]) == 2
    assert "already exist and differ" in capsys.readouterr().err
    assert "my notes" in mine.read_text(encoding="utf-8"), "a reader's notebook is never replaced unasked"
    assert main(["notebooks", "--output", str(tmp_path), "--force"]) == 0


# --- running a one-language notebook ------------------------------------------------------------------------

def _texts(cell) -> list[str]:
    found = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream" and output.get("name") == "stdout":
            found.append(output["text"])
        elif "text/plain" in output.get("data", {}):
            found.append(output["data"]["text/plain"] + ("\n" if "image/png" not in output["data"] else ""))
    return found


@pytest.mark.slow
@pytest.mark.parametrize(("chapter", "lang"), [("04", "en"), ("02", "zh")])  # two chapters, each language once
def test_a_one_language_notebook_runs_and_prints_each_output_once_in_its_language(chapter, lang, tmp_path):
    from nbclient import NotebookClient

    from cs336_lec2.publish.cells import merge_text

    path = next(p for p in CHAPTERS if p.stem.startswith(chapter))
    staged = edition_notebook(nbformat.read(path, as_version=4), lang)
    nb = reader_notebook(staged, lang)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    expected = [c for c in staged.cells if c.cell_type == "code" and "remove-cell" not in c.metadata.get("tags", [])]
    ran = [c for c in nb.cells if c.cell_type == "code"]
    assert len(ran) == len(expected)
    figures, staged_figures = 0, 0
    for i, (got, want) in enumerate(zip(ran, expected, strict=True)):
        assert not [o for o in got.outputs if o.get("output_type") == "error"], f"cell {i} failed"
        assert all("lang" not in o.get("metadata", {}) for o in got.outputs), f"cell {i}: a two-language output"
        text = "".join(_texts(got))
        if lang == "en":
            assert not CJK.search(text), f"en cell {i} printed Chinese: {text[:200]}"
        figures += sum("image/png" in o.get("data", {}) for o in got.outputs)
        tags = set(want.metadata.get("tags", []))
        staged_figures += sum("image/png" in o.get("data", {}) for o in want.outputs) * ("answer" not in tags)
        if "nbval-ignore-output" in tags or "answer" in tags:
            continue
        # each checked output once, as the edition shows it: the same text and the same figures
        assert "".join(_texts({"outputs": merge_text(got.outputs)})) == "".join(_texts(want)), f"cell {i}"
        assert sum("image/png" in o.get("data", {}) for o in got.outputs) == \
            sum("image/png" in o.get("data", {}) for o in want.outputs), f"cell {i}: figures"
    assert figures == staged_figures, "each figure once, as the edition shows it"
