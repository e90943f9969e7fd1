"""The Chinese edition in Chinese on the whole page (issue 28 §1): the English-sentence count of the
built zh edition (``tools/zh_english.py``), the theme's words and the section anchors."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from cs336_lec2.publish.results_page import escape, zh_label
from cs336_lec2.publish.zh_theme import edition_half, slug

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("zh_english", ROOT / "tools" / "zh_english.py")
zh_english = importlib.util.module_from_spec(spec)
sys.modules["zh_english"] = zh_english  # its dataclass looks itself up there
spec.loader.exec_module(zh_english)

# English sentences the zh chapters show: 690 before the chapters spoke both languages (issue 28), now none.
CHAPTER_LIMIT = 0


@pytest.fixture(scope="module")
def findings(built_book):
    return zh_english.scan(built_book.parent)


def test_the_pages_around_the_chapters_show_no_english_sentence(findings):
    """The interface of every page, and the book's own pages (calculator, how to run, results, glossary,
    search, index), are Chinese."""
    ours = [f for f in findings if f.kind == "interface" or not zh_english.is_chapter(f)]
    assert not ours, "\n".join(map(str, ours))


def test_the_chapters_english_sentence_count_does_not_grow(findings):
    chapters = [f for f in findings if zh_english.is_chapter(f)]
    assert len(chapters) <= CHAPTER_LIMIT, f"{len(chapters)} English sentences in the zh chapters"


def test_theme_words_are_simplified_chinese(built_book):
    page = (built_book / "zh" / "notebooks" / "05_flops_and_mfu.html").read_text(encoding="utf-8")
    assert "打印为 PDF" in page and "列印" not in page
    for english in ("Print to PDF", "Show code cell", "Click to show", "Link to this heading", "Toggle primary sidebar",
                    "Search this book", "Color mode", "Executable notes"):
        assert english not in page, english
    english = (built_book / "en" / "notebooks" / "05_flops_and_mfu.html").read_text(encoding="utf-8")
    assert "Executable notes for Stanford CS336" in english and "Print to PDF" in english


def test_chinese_headings_have_meaningful_anchors(built_book):
    for path in sorted((built_book / "zh").rglob("*.html")):
        if "_static" in path.parts:
            continue
        numbered = re.findall(r'<section id="(id\d+)"', path.read_text(encoding="utf-8"))
        assert not numbered, f"{path.name}: {numbered}"
    page = (built_book / "zh" / "notebooks" / "05_flops_and_mfu.html").read_text(encoding="utf-8")
    assert '<section id="学习目标"' in page and 'href="#学习目标"' in page  # the page's own table of contents


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        ("这一句说 this is an English sentence here。", ["this is an English sentence here"]),
        ("激活重计算（activation checkpointing in full）不算。", []),  # a gloss
        ("FSDP（Fully Sharded Data Parallel，完全分片数据并行）", []),
        ("论文“Language Models are Few-Shot Learners”的表 D.1", []),  # a quoted title
        ("three words only", []),
        ("fp32 peak of the H100 SXM", ["fp32 peak of the H100 SXM"]),
        ("8 x NVIDIA H100 SXM：640 GB", []),  # a product's name
        ("设置：ddp, zero1, fsdp2_zero2, ddp_no_sync", []),  # a list of identifiers
        ("模式 b i h, b j h -> b i", []),  # an einsum pattern
        ("weights_only makes the load refuse code", ["makes the load refuse code"]),
    ],
)
def test_english_runs(text, runs):
    assert zh_english.english_runs(text) == runs


def test_a_library_message_shown_as_it_is_is_not_counted():
    text = ("torch 发出了 2 次警告：\n  The .grad attribute of a Tensor that is not a leaf\n"
            "Type-check error whilst checking the parameters of f.\nThe problem arose whilst checking 'k'.\n"
            "这一行说 but this one is counted here\n"
            "mfu() 抛出 ImplausibleMFUError: MFU 1.97 > 1 against a peak of nothing\n"
            "出处：NVIDIA H100 Tensor Core GPU datasheet, table 3")
    kept = zh_english.without_messages(text)
    assert [r for line in kept.splitlines() for r in zh_english.english_runs(line)] == ["but this one is counted here"]


def test_page_findings_skip_code_maths_and_english_links_but_see_attributes():
    html = """<html><head><title>第 5 章</title></head><body>
    <article class="bd-article"><p>中文 <code>call this for every tensor</code> 与
    <span class="math">\\(the sum over all of them\\)</span></p>
    <div class="cell_output"><pre>the cell printed this long line</pre></div>
    <div class="cell_input"><pre>print("a code line is not prose")</pre></div>
    <img alt="a figure of the roofline model" src="x.png"></article>
    <a lang="en" href="../en/x.html">Read the English edition here</a>
    <button title="Toggle the primary sidebar now">x</button>
    <script>let toggleHintShow = 'Click to show';</script></body></html>"""
    found = {(f.kind, f.text) for f in zh_english.page_findings(html, "p")}
    assert found == {("output", "the cell printed this long line"), ("figure", "a figure of the roofline model"),
                     ("interface", "Toggle the primary sidebar now"), ("interface", "Click to show")}


def test_slug_and_edition_half():
    assert slug("4. 具名维度：jaxtyping 与 einops") == "4-具名维度-jaxtyping-与-einops"
    assert slug("MFU（FLOP/s）") == "mfu-flop-s"
    assert edition_half("Notes · 讲稿", chinese=True) == "讲稿"
    assert edition_half("Notes · 讲稿", chinese=False) == "Notes"
    assert edition_half("Only one", chinese=True) == "Only one"


def test_the_results_page_labels_speak_chinese_and_keep_numbers_and_identifiers():
    label = escape("ddp, rank 0 of 2: training state of TransformerLM(21152 params) after Adam")
    assert zh_label(label) == escape("ddp, rank 0（共 2 个）：Adam 更新后 TransformerLM（21152 个参数）的训练状态")
    for label in ("Cruncher train step on the device, fp32 (TF32 off), batch=N, dim=N, num_layers=N, steps=N",
                  "AdamW step, foreach=False (torch's default on the CPU; the run labelled it foreach), 65664 params"):
        assert zh_english.english_runs(zh_label(escape(label))) == [], zh_label(escape(label))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_results_tables_fit_a_phone(built_book, chromium, lang):
    """Issue 27 §7: at 400 px every machine column of the results page can be reached: a table wider than
    the phone scrolls sideways in a box that fits the screen (issue 35 §4: its cells no longer break inside
    a word to fit)."""
    page = chromium.new_page(viewport={"width": 400, "height": 800})  # the test run's one browser (conftest)
    page.goto((built_book / lang / "book" / "results.html").as_uri())
    overflow = page.evaluate("""() => [...document.querySelectorAll('article table')].map((t) => {
        const box = t.closest('.pst-scrollable-table-container') || t;
        const reach = box === t ? t.getBoundingClientRect().width : box.scrollWidth;
        return [Math.round(box.getBoundingClientRect().right - window.innerWidth),
                Math.round(t.getBoundingClientRect().width - reach)]; })""")
    page.close()
    assert overflow and max(box for box, _ in overflow) <= 0, overflow  # each box within the screen
    assert max(hidden for _, hidden in overflow) <= 0, overflow  # and its table all within its scroll
