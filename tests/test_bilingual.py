"""cs336_lec2.bilingual: words in both languages, each output tagged with its language."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import nbformat
import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from cs336_lec2 import bilingual
from cs336_lec2.bilingual import LANG_KEY, say, show_figures, show_table, words


def test_say_outside_a_notebook_prints_both_languages_english_first(capsys):
    say(en="one byte is 8 bits", zh="一个字节是 8 位")
    assert capsys.readouterr().out == "one byte is 8 bits\n一个字节是 8 位\n"


@pytest.mark.parametrize("bad", ["", "   ", None, 5, b"bytes"])
def test_say_refuses_an_empty_or_non_text_half(bad):
    with pytest.raises(TypeError, match=r"zh must be (a non-empty str|a str or None)"):
        say(en="fine", zh=bad)
    with pytest.raises(TypeError, match=r"en must be (a non-empty str|a str or None)"):
        say(en=bad, zh="好")


def test_words_picks_the_editions_half_and_english_when_asked():
    assert words("zh")("Batch size", "批大小") == "批大小"
    assert words("en")("Batch size", "批大小") == "Batch size"
    assert words("zh", english_only=True)("Batch size", "批大小") == "Batch size"
    with pytest.raises(ValueError, match="lang must be one of"):
        words("fr")


def test_show_table_aligns_columns_and_checks_its_shape(capsys):
    show_table([[1, "fp32"], [2, "bf16"]], en=["bytes", "dtype"], zh=["字节", "类型"])
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == ["bytes  dtype", "1      fp32", "2      bf16"]
    assert out[3].startswith("字节")
    with pytest.raises(ValueError, match="same, non-zero number of columns"):
        show_table([[1]], en=["a", "b"], zh=["甲"])
    with pytest.raises(ValueError, match="every row must have 2 cells"):
        show_table([[1]], en=["a", "b"], zh=["甲", "乙"])


def test_html_table_escapes_its_cells():
    html = bilingual._table_html(["<b>"], [["a&b"]])
    assert "<th>&lt;b&gt;</th>" in html and "<td>a&amp;b</td>" in html


def test_show_figures_draws_each_language_with_its_words_and_font(capsys, monkeypatch):
    seen = []

    def draw(w):
        seen.append((w("Time", "时间"), list(plt.rcParams["font.sans-serif"])[:1]))
        fig, ax = plt.subplots()
        ax.set_xlabel(w("Time", "时间"))
        return fig

    monkeypatch.setattr(bilingual, "cjk_font", lambda: "Noto Sans CJK SC")
    show_figures(draw, alt_en="A line", alt_zh="一条线")
    assert seen[0][0] == "Time" and seen[1] == ("时间", ["Noto Sans CJK SC"])
    assert capsys.readouterr().out == "[figure: A line]\n[figure: 一条线]\n"
    assert plt.get_fignums() == [], "every figure is closed: nothing is shown twice"


def test_without_a_cjk_font_the_chinese_figure_keeps_english_labels(monkeypatch):
    labels = []

    def draw(w):
        labels.append(w("Time", "时间"))
        return plt.figure()

    monkeypatch.setattr(bilingual, "cjk_font", lambda: None)
    show_figures(draw, alt_en="A line", alt_zh="一条线")
    assert labels == ["Time", "Time"]


def test_in_a_kernel_every_output_carries_its_language():
    nb = new_notebook(cells=[new_code_cell(
        "from cs336_lec2.bilingual import say, show_table\n"
        "print('before')\n"
        "say(en='eight bits', zh='八位')\n"
        "show_table([[1]], en=['n'], zh=['数'])"
    )])
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    outputs = nb.cells[0].outputs
    assert outputs[0].output_type == "stream" and outputs[0].text == "before\n"
    tagged = [(o.metadata.get(LANG_KEY), o.data["text/plain"]) for o in outputs[1:]]
    assert tagged == [("en", "eight bits"), ("zh", "八位"), ("en", "n\n1"), ("zh", "数\n1")]
    assert "<table" in outputs[3].data["text/html"]
    assert nbformat.validate(nb) is None


def test_a_chinese_header_lines_up_in_the_plain_text_form(capsys):
    assert bilingual.display_width("字节 a") == 6
    show_table([[1, "fp32"]], en=["n", "dtype"], zh=["字节数", "类型"])
    zh = capsys.readouterr().out.splitlines()[2:]
    assert zh == ["字节数  类型", "1       fp32"]
