"""The PDF of an edition (issue 27 §9, issue 35 item 7; ``tools/book_pdf.py``): every code line a chapter
shows appears in the PDF's text unbroken (nothing cut at the margin, nothing wrapped), folded code does
not, answers sit in an appendix, no box runs past the page, English apostrophes are set in a Latin
font, and the landing page links only what exists."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("book_pdf", ROOT / "tools" / "book_pdf.py")
book_pdf = importlib.util.module_from_spec(spec)
sys.modules["book_pdf"] = book_pdf
spec.loader.exec_module(book_pdf)

CHAPTER = "02_floats"


def _normal(text: str) -> str:
    # NFKC: a CJK font's glyphs may map to the Kangxi radicals (⼿ for 手) in the PDF's text.
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def _skeleton(text: str) -> str:
    """A line's ASCII characters without spaces: the PDF's text puts spaces around full-width punctuation
    and some glyphs come back as CJK radicals (⻓ for 长), but a line wrapped or cut loses part of these."""
    return re.sub(r"\s+", "", "".join(char for char in _normal(text) if char.isascii()))


def test_the_print_page_joins_the_pages_in_order_with_addresses_of_the_edition(built_book):
    html = re.sub(r"<wbr\s*/?>", "", book_pdf.print_page(built_book / "zh", "zh"))  # zh headings break between words
    assert html.index("CS336 第 2 讲") < html.index("估算：要训练多久") < html.index("超越单卡") < html.rindex("术语表")
    assert 'src="../' not in html and "_static/mathjax/tex-chtml.js" in html
    assert "https://" not in re.sub(r'href="https://[^"]*"', "", html).split("</head>")[0]


def _pdf(built_book: Path, lang: str, out: Path, only: list[str]) -> list[str]:
    """Print ``only`` of an edition to ``out``; the PDF's text lines."""
    pypdf = pytest.importorskip("pypdf")
    if not book_pdf.CHROMIUM.exists():
        pytest.skip("no Chromium at /usr/bin/chromium")
    # In a process of its own: the test run's browser tests hold Playwright's sync API in this one.
    script = ("import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); import book_pdf; "
              "book_pdf.write_pdf(Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4]), sys.argv[5:])")
    subprocess.run([sys.executable, "-c", script, str(ROOT / "tools"), str(built_book), lang, str(out), *only],
                   check=True, timeout=600)
    return [line for page in pypdf.PdfReader(out).pages for line in page.extract_text().splitlines()]


@pytest.mark.slow
def test_every_code_line_a_chapter_shows_is_unbroken_in_the_pdf_and_folded_code_is_left_out(built_book, tmp_path):
    text_lines = _pdf(built_book, "zh", tmp_path / "zh.pdf", [f"notebooks/{CHAPTER}"])
    lines = {_skeleton(line) for line in text_lines}
    notebook = nbformat.read(built_book.parent / "stage" / "zh" / "notebooks" / f"{CHAPTER}.ipynb", as_version=4)

    def code(folded: bool) -> list[str]:
        return [_skeleton(line) for cell in notebook.cells if cell.cell_type == "code"
                and not {"remove-cell", "remove-input"} & set(tags := cell.metadata.get("tags", []))
                and ("hide-input" in tags) == folded
                for line in cell.source.splitlines() if len(_skeleton(line)) >= 8]

    shown, folded = code(folded=False), set(code(folded=True)) - set(code(folded=False))
    assert len(shown) > 20 and len(folded) > 20
    broken = [line for line in shown if not any(line in text for text in lines)]
    assert not broken, broken[:10]
    printed = [line for line in folded if any(line in text for text in lines)]
    assert not printed, printed[:10]  # Checks and plotting code: folded on the page, left out of the PDF
    assert any("浮点格式" in _normal(text) for text in text_lines)


@pytest.mark.slow
def test_english_apostrophes_are_set_in_a_latin_font_in_the_pdf(built_book, tmp_path):
    """Issue 35.7: a CJK font first in the list set every ’ full width, and the PDF's text read "GPT-2’ s"."""
    text = " ".join(_pdf(built_book, "en", tmp_path / "en.pdf", [f"notebooks/{CHAPTER}"]))
    assert "GPT-2’s" in text and "’ s" not in text
    assert text.count("’") >= 5


def _print_page(built_book: Path, lang: str, chapters: list[str]) -> BeautifulSoup:
    return BeautifulSoup(book_pdf.print_page(built_book / lang, lang, [f"notebooks/{c}" for c in chapters]),
                         "html.parser")


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_answers_move_to_an_appendix_each_linked_from_its_exercise(built_book, lang):
    chapters = [CHAPTER, "13_transformer_accounting"]
    on_pages = sum(len(BeautifulSoup((built_book / lang / "notebooks" / f"{c}.html").read_text(encoding="utf-8"),
                                     "html.parser").select(".cs336-answer")) for c in chapters)
    soup = _print_page(built_book, lang, chapters)
    parts = soup.select(".cs336-print-page")
    appendix = parts[-1]
    assert "cs336-print-answers" in appendix["class"] and appendix.h1.get_text() == book_pdf.ANSWERS[lang][0]
    assert not [a for part in parts[:-1] for a in part.select(".cs336-answer, .cs336-print-answer")]
    answers = appendix.select(".cs336-print-answer")
    assert len(answers) == on_pages >= 4
    links = [a["href"] for part in parts[:-1] for a in part.select(".cs336-answer-link a")]
    assert links == [f"#{a['id']}" for a in answers]
    exercise = "Exercise" if lang == "en" else "练习"
    assert all(exercise in a.strong.get_text() for a in answers), [a.strong.get_text() for a in answers]
    assert not appendix.select(".admonition-title")  # no "Show answer" left in print


@pytest.mark.slow
def test_folded_code_is_left_out_and_its_outputs_kept(built_book):
    page = BeautifulSoup((built_book / "en" / "notebooks" / f"{CHAPTER}.html").read_text(encoding="utf-8"),
                         "html.parser")
    folded = page.select(".tag_hide-input")
    assert len(folded) >= 10
    soup = _print_page(built_book, "en", [CHAPTER])
    kept = soup.select(".tag_hide-input")
    assert not [c for c in kept if c.select(".cell_input")]
    outputs = sum(len(c.select(".cell_output")) for c in folded)
    assert sum(len(c.select(".cell_output")) for c in kept) == outputs > 0


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_box_runs_past_the_printed_page(built_book, chromium, lang):
    """Issue 35.7: code boxes and admonitions ran 18 px past the right margin and were cut (and the theme's
    print styles hid every chapter's title). Print media at A4's text width (210 − 2 × 14 mm = 688 CSS px)."""
    source = built_book / lang / "print-test.html"
    source.write_text(str(_print_page(built_book, lang, [CHAPTER, "13_transformer_accounting"])), encoding="utf-8")
    page = chromium.new_page(viewport={"width": 688, "height": 1000})
    try:
        page.route(re.compile(r"^https?://"), lambda route: route.abort())
        page.emulate_media(media="print")
        page.goto(source.as_uri())
        out = page.evaluate("""() => { const W = document.documentElement.clientWidth;
          const boxes = [...document.querySelectorAll(
            '.admonition, div.cell, div.highlight, div.cell_output, table, figure, img, .cs336-print-answer')];
          return [boxes.length, boxes.map((e) => [e.className, e.getBoundingClientRect()])
            .filter(([, r]) => r.width > 0 && (r.right > W + 0.5 || r.left < -0.5))
            .map(([c, r]) => `${c}: ${Math.round(r.left)}..${Math.round(r.right)} of ${W}`)]; }""")
        titles = page.evaluate("() => [...document.querySelectorAll('article h1')].map((h) => h.offsetHeight)")
        narrow = page.evaluate("""() => { const found = [];
          const walk = document.createTreeWalker(document.querySelector('article'), NodeFilter.SHOW_TEXT);
          for (let n = walk.nextNode(); n; n = walk.nextNode()) {
            const i = n.data.indexOf('’');
            if (i < 0 || n.parentElement.closest('pre, code')) continue;
            const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
            found.push(r.getBoundingClientRect().width / parseFloat(getComputedStyle(n.parentElement).fontSize));
          } return found; }""")
    finally:
        page.close()
        source.unlink()
    count, past = out
    assert count > 50 and not past, past
    assert len(titles) == 3 and min(titles) > 0, titles  # two chapters' titles and the appendix's, all shown
    if lang == "en":  # a Latin apostrophe is about 0.3 em wide; a CJK font's is 1 em
        assert narrow and max(narrow) < 0.5, narrow


@pytest.mark.slow
def test_the_landing_page_links_only_what_exists(built_book):
    """Issue 35.7: the PDF card linked a file that only tools/book_pdf.py makes."""
    landing = (built_book / "index.html").read_text(encoding="utf-8")
    hrefs = re.findall(r'href="([^"#]+)"', landing)
    assert len(hrefs) > 20
    missing = [h for h in hrefs if not h.startswith("data:") and not (built_book / h).is_file()]
    assert not missing, missing
    assert (".pdf" in landing) == any((built_book / "pdf").glob("*.pdf"))


def test_an_answer_folded_in_details_keeps_its_code_and_a_folded_check_loses_its_own():
    """The two ways a page folds: an answer (to the appendix, whole) and code (left out, its output kept)."""
    article = BeautifulSoup(
        '<article><p><strong>Exercise 1. Sum.</strong> Add.</p>'
        '<details class="cs336-answer"><summary>Show answer</summary><p>Two.</p>'
        '<div class="cell"><div class="cell_input">answer_code = 2</div></div></details>'
        '<div class="cell tag_hide-input"><details class="hide above-input"><summary>Checks</summary>'
        '<div class="cell_input">assert x</div></details><div class="cell_output">out</div></div>'
        '</article>', "html.parser").article
    entries = book_pdf.move_answers(article, "1. Ch", 1, "en")
    book_pdf.leave_out_folded_code(article)
    assert len(entries) == 1 and "answer_code = 2" in entries[0] and "Show answer" not in entries[0]
    assert "<strong>1. Ch · Exercise 1. Sum.</strong>" in entries[0]
    assert "assert x" not in str(article) and "Checks" not in str(article) and "out" in str(article)
    assert article.select_one(".cs336-answer-link a")["href"] == "#cs336-answer-1-1"
