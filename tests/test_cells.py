"""cs336_lec2.publish.cells: what one edition of the book shows of a chapter's cells."""

from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from cs336_lec2.publish import cells as cells_module
from cs336_lec2.publish.cells import (
    ANSWER_CLASS,
    comment_lines,
    edition_notebook,
    keep_outputs,
    translate_comments,
)


def _out(text, lang=None, **extra):
    metadata = {"lang": lang, **extra} if lang else {}
    return new_output("display_data", data={"text/plain": text}, metadata=metadata)


def _fig(text, lang, **extra):
    return new_output("display_data", data={"text/plain": text, "image/png": "AA=="}, metadata={"lang": lang, **extra})


def _texts(cell):
    return "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in cell.outputs)


def chapter():
    return new_notebook(cells=[
        new_markdown_cell("# 1. Title", metadata={"tags": ["lang-en"]}),
        new_markdown_cell("# 1. 标题", metadata={"tags": ["lang-zh"]}),
        new_code_cell("x = 1  # one byte\n# the sum\ny = '# not a comment'",
                      metadata={"zh_comments": {"one byte": "一个字节", "the sum": "求和"}},
                      outputs=[_out("shared"), _out("eight bits", "en"), _out("八位", "zh")]),
        new_code_cell("assert x == 1", metadata={"tags": ["checks"]}),
        new_code_cell("draw()", metadata={"tags": ["plot"]},
                      outputs=[_fig("<a line>", "en", alt="a line"), _fig("<一条线>", "zh", alt="一条线")]),
        new_markdown_cell("**Answer.** Two ```x``` bytes.", metadata={"tags": ["lang-en", "answer"]}),
        new_markdown_cell("**答案。** 两个字节。", metadata={"tags": ["lang-zh", "answer"]}),
        new_code_cell("assert 2 == 1 + 1", metadata={"tags": ["answer"]}),
    ])


def test_each_edition_keeps_its_own_cells_and_outputs_and_the_shared_ones():
    source = chapter()
    for lang, other in (("en", "八位"), ("zh", "eight bits")):
        nb = edition_notebook(source, lang)
        texts = "".join(_texts(c) for c in nb.cells if c.cell_type == "code")
        assert "shared" in texts and other not in texts
        assert len(nb.cells) == 6
    assert len(source.cells) == 8 and len(source.cells[2].outputs) == 3, "the source is left as it was"


def test_checks_and_plots_fold_with_the_editions_words():
    zh = edition_notebook(chapter(), "zh")
    checks, plot = zh.cells[2], zh.cells[3]
    assert "hide-input" in checks.metadata.tags and checks.metadata.mystnb["code_prompt_show"] == "核对"
    assert "hide-input" in plot.metadata.tags and plot.metadata.mystnb["code_prompt_show"] == "绘图代码"
    en = edition_notebook(chapter(), "en")
    assert en.cells[2].metadata.mystnb["code_prompt_show"] == "Checks"


def test_a_bare_hide_input_cell_folds_as_helper_code_in_the_editions_words():
    """Issue 35 item 10: no fold prompt says only "Show code cell source"."""
    source = nbformat.v4.new_notebook(cells=[new_code_cell("def peak(): ...", metadata={"tags": ["hide-input"]})])
    for lang, prompt in (("en", "Helper code"), ("zh", "辅助代码")):
        assert edition_notebook(source, lang).cells[0].metadata.mystnb["code_prompt_show"] == prompt


def test_a_figure_gets_its_alt_text_in_the_editions_language():
    assert edition_notebook(chapter(), "zh").cells[3].metadata.mystnb["image"]["alt"] == "一条线"
    assert edition_notebook(chapter(), "en").cells[3].metadata.mystnb["image"]["alt"] == "a line"


def test_answer_prose_becomes_one_dropdown_whose_fence_outlasts_the_answers_own():
    en = edition_notebook(chapter(), "en").cells[4].source
    assert en.startswith("````{admonition} Show answer\n:class: dropdown " + ANSWER_CLASS)
    assert en.endswith("\n````") and "**Answer.**" in en
    assert edition_notebook(chapter(), "zh").cells[4].source.startswith("```{admonition} 显示答案\n")


def test_comments_are_translated_in_the_zh_edition_only():
    assert edition_notebook(chapter(), "zh").cells[1].source == "x = 1  # 一个字节\n# 求和\ny = '# not a comment'"
    assert edition_notebook(chapter(), "en").cells[1].source.startswith("x = 1  # one byte")


def test_a_comment_is_replaced_whole_not_a_prefix_of_another():
    assert translate_comments("# the sum of all", {"the sum": "和"}) == "# the sum of all"


def test_comment_lines_skip_hashes_inside_strings():
    assert comment_lines("a = '#x'  # real\n# whole line\nb = \"#\"") == ["real", "whole line"]


def test_keep_outputs_and_bad_language():
    outputs = [_out("a", "en"), _out("b")]
    assert [o.data["text/plain"] for o in keep_outputs(outputs, "zh")] == ["b"]
    with pytest.raises(ValueError, match="lang must be one of"):
        edition_notebook(nbformat.v4.new_notebook(), "fr")


def test_printed_lines_and_sentences_show_as_one_block_per_run():
    outputs = [new_output("stream", name="stdout", text="x = 1\n"), _out("eight bits", "zh"),
               _out("八位", "zh"), new_output("display_data", data={"image/png": "AA==", "text/plain": "<f>"}),
               _out("after", "zh"), new_output("stream", name="stderr", text="warn\n")]
    merged = cells_module.merge_text(outputs)
    assert [o.output_type for o in merged] == ["stream", "display_data", "stream", "stream"]
    assert merged[0].text == "x = 1\neight bits\n八位\n" and merged[2].text == "after\n"
    assert merged[3].name == "stderr" and "_text" not in merged[0]
    nb = new_notebook(cells=[new_code_cell("", outputs=outputs)])
    assert nbformat.validate(edition_notebook(nb, "zh")) is None


def test_the_colab_copy_folds_an_answer_in_html_that_jupyter_shows():
    staged = edition_notebook(chapter(), "zh")
    colab = cells_module.reader_notebook(staged, "zh")
    assert colab.cells[4].source == "<details>\n<summary>显示答案</summary>\n\n**答案。** 两个字节。\n\n</details>"
    assert colab.cells[1].source == staged.cells[1].source, "code and other prose stay as staged"
    assert colab.cells[5].metadata["jupyter"]["source_hidden"] and colab.cells[5].outputs == []
    en = cells_module.reader_notebook(edition_notebook(chapter(), "en"), "en").cells[4].source
    assert en.startswith("<details>\n<summary>Show answer</summary>") and "```x```" in en
