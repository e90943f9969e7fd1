"""cs336_lec2.bilingual: words in both languages, each output tagged with its language."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import nbformat
import numpy as np
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


# --- The package's own words (issue 38): tr, in_zh, fill, named -----------------------------------
def test_tr_picks_the_language_and_carries_both_where_a_notebook_reads_both(monkeypatch):
    import copy
    import pickle

    monkeypatch.setattr(bilingual, "_language", None)
    both = bilingual.tr("3 tokens", "3 个词元")
    assert both == "3 tokens" and bilingual.in_zh(both) == "3 个词元"
    assert bilingual.in_zh(pickle.loads(pickle.dumps(both))) == bilingual.in_zh(copy.deepcopy(both)) == "3 个词元"
    assert f"{both}" == "3 tokens" and type(f"{both}") is str  # formatting keeps the English only
    monkeypatch.setattr(bilingual, "_language", "zh")
    assert bilingual.tr("3 tokens", "3 个词元") == "3 个词元"
    monkeypatch.setattr(bilingual, "_language", "en")
    assert bilingual.tr("3 tokens", "3 个词元") == "3 tokens"
    assert bilingual.tr("一个文本") == "一个文本"  # an edition's one-language form
    with pytest.raises(TypeError, match="text must be a non-empty str"):
        bilingual.tr("")


def test_in_zh_reads_an_exceptions_message(monkeypatch):
    monkeypatch.setattr(bilingual, "_language", None)
    message = bilingual.tr("data has only 20 tokens", "data 只有 20 个词元")
    assert bilingual.in_zh(ValueError(message)) == "data 只有 20 个词元"
    assert bilingual.in_zh(OSError(5, message)) == "[Errno 5] data 只有 20 个词元"
    assert bilingual.in_zh(ValueError("a library's words")) == "a library's words"
    assert bilingual.in_zh(42) == "42"


def test_a_package_error_a_chapter_shows_has_its_chinese(monkeypatch, tmp_path):
    from cs336_lec2.data import get_batch, write_tokens
    from cs336_lec2.flops import ImplausibleMFUError, mfu

    monkeypatch.setattr(bilingual, "_language", None)
    with pytest.raises(ValueError) as err:
        get_batch(np.arange(20), batch_size=2, sequence_length=20, device="cpu")
    assert str(err.value).startswith("sequence_length=20 needs windows of 21 tokens")
    assert bilingual.in_zh(err.value) == ("sequence_length=20 需要长为 21 个词元的窗口（输入再加一个目标），"
                                          "但 data 只有 20 个词元")
    with pytest.raises(ValueError) as err:
        write_tokens(tmp_path / "tokens.npy", [1, 2])
    assert "（tokens.npy）" in bilingual.in_zh(err.value)
    with pytest.raises(ImplausibleMFUError) as err:
        mfu(2e12, 1.0, 1e12)
    assert bilingual.in_zh(err.value).startswith("MFU 2 > 1：测得 2e+12 FLOP/s，而峰值只有 1e+12 FLOP/s。可能的原因")


def test_fill_counts_wide_characters_and_never_starts_a_line_with_a_closing_mark():
    import textwrap

    english = "the quick brown fox jumps over the lazy dog " * 4
    assert bilingual.fill(english, 30, "  ", "    ") == textwrap.fill(english, 30, initial_indent="  ",
                                                                         subsequent_indent="    ")
    chinese = "以 fp32 峰值为分母，测得 7.03e+13 FLOP/s，而峰值只有 3.56e+13 FLOP/s。" * 3
    lines = bilingual.fill(chinese, 40, "  ").splitlines()
    assert len(lines) > 3 and all(bilingual.display_width(line) <= 40 for line in lines)
    assert not any(line.lstrip()[:1] in bilingual.NO_LINE_START for line in lines)
    assert "".join(line.strip() for line in lines).replace(" ", "") == chinese.replace(" ", "")
    assert bilingual.fill("a ``final = Linear(dim, 1)`` b", 20).splitlines()[1] == "``final = Linear(dim, 1)``"


def test_named_labels_show_under_each_header(monkeypatch, capsys):
    monkeypatch.setattr(bilingual, "_language", None)
    monkeypatch.setattr(bilingual, "_shell", lambda: None)
    bilingual.show_table([(bilingual.named("optimizer_state"), 144)], en=["part", "bytes"], zh=["部分", "字节"])
    english, chinese = capsys.readouterr().out.split("部分")
    assert "optimizer_state" in english and "优化器状态" in chinese and "optimizer_state" not in chinese
    assert bilingual.name_zh("mixed_bf16") == "bf16 混合精度"
    with pytest.raises(ValueError, match="no Chinese name for 'bogus'"):
        bilingual.name_zh("bogus")
