"""Write one PDF per edition of the whole book, from a built book, with headless Chromium (issue 27 §9).

    python tools/book_pdf.py                    # _build/html -> _build/html/pdf/cs336-lec2-{en,zh}.pdf
    python tools/book_pdf.py --build-dir DIR --languages zh

Run it after ``cs336-lec2 book`` (it reads the built HTML, never a notebook; about a minute). For each
edition it joins the pages in the table of contents' order into one print page (``<lang>/print.html``:
each page's article, the theme's styles, MathJax from the build, nothing from the network), waits for
MathJax, and prints it with Chromium's print-to-PDF through Playwright: A4, the fonts embedded, code
that never runs past the right margin (a listing line of 88 characters fits; a longer output line
wraps instead of being cut). What a page folds away is code a reader opens on purpose (Checks,
plotting code): the PDF leaves it out and keeps its outputs. Other folds print open, except the
answers, which move to an appendix at the end, each with a link from its exercise. Latin text is set in
a Latin font and Chinese in Noto Sans CJK (:func:`print_css`). The landing page is then rewritten with
a card for each PDF that exists.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup, Tag

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
# Fonts for Latin text, first found wins; the CJK font after them only sets what they lack (Chinese). A
# CJK font placed first would also set the Latin punctuation it has, full width: "projection’ s".
LATIN = '"Noto Sans", "DejaVu Sans", "Liberation Sans", Arial'
CJK = '"Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Zen Hei"'
MONO = '"DejaVu Sans Mono", "Liberation Mono", "Noto Sans Mono CJK SC", monospace'
PRINT_CSS = """
@page { size: A4; margin: 16mm 14mm 18mm 14mm; }
html, body { background: #fff !important; }
:root { --pst-font-family-base: FONTS; --pst-font-family-heading: FONTS; --pst-font-family-monospace: MONO; }
body { font-family: FONTS; font-size: 10pt; }
.cs336-print-page { break-before: page; }
.cs336-print-page:first-child { break-before: auto; }
/* the article fills the page; boxes keep their borders inside it (sphinx-book-theme's print styles
   indent the content by 2rem, which pushed every code box's right edge 18 px past the printable area) */
main.bd-main, .bd-content, .bd-article-container, article.bd-article { max-width: none !important;
  width: auto !important; margin: 0 !important; padding: 0 !important; overflow: visible !important;
  min-width: 0 !important; }
.admonition, div.admonition, .cell, div.cell_output, div.highlight, table, figure, img {
  max-width: 100% !important; box-sizing: border-box !important; }
.admonition, div.admonition { margin-left: 0 !important; margin-right: 0 !important; break-inside: auto; }
pre, .highlight pre { white-space: pre-wrap !important; overflow-wrap: anywhere; overflow: visible !important;
  font-size: 7.6pt !important; line-height: 1.35; max-height: none !important; }
div.cell_output, div.output, .highlight { overflow: visible !important; max-height: none !important; }
code, pre, kbd, samp { font-family: MONO !important; }
img { break-inside: avoid; }
table { font-size: 8.5pt; }
/* a page has no sideways scroll: the whole tokens a phone keeps on one line (cs336.css) may wrap here */
table .cs336-nobr { white-space: normal !important; }
td, th { overflow-wrap: anywhere; word-break: normal !important; }
.cell_output table.cs336-table { font-size: 7.5pt; }
.cell_output table.cs336-table th, .cell_output table.cs336-table td { padding: 0.1rem 0.3rem !important; }
/* the theme's print styles hide a page's first h1 (its title, printed in its own header); here every
   chapter's title heads its part of the book */
.bd-main .bd-content .bd-article h1:first-of-type { display: block !important; }
.headerlink, .cs336-lang-switch, .toggle-details__summary .tb-icon, button.copybtn { display: none !important; }
details > summary { list-style: none; }
details.above-input > summary, details.below-input > summary { display: none !important; }
.cs336-answer-link { font-style: italic; }
"""
# The appendix that holds the answers, and the line that points to each from its exercise.
ANSWERS = {"en": ("Answers to the exercises", "Answer: in the appendix", "Exercise"),
           "zh": ("练习答案", "答案见书末附录", "练习")}


def print_css(lang: str) -> str:
    """The print styles of an edition: Latin fonts before the CJK font in English (so an apostrophe or a
    quote is never set full width), the CJK font first in Chinese (whose quotes and punctuation are)."""
    fonts = f"{LATIN}, {CJK}, sans-serif" if lang == "en" else f"{CJK}, {LATIN}, sans-serif"
    return PRINT_CSS.replace("FONTS", fonts).replace("MONO", MONO)


def pages_in_order(lang_dir: Path) -> list[Path]:
    """The built pages of one edition in the table of contents' order."""
    sys.path.insert(0, str(ROOT / "src"))
    from cs336_lec2.publish.book import toc_files

    pages = [lang_dir / f"{entry}.html" for entry in toc_files(ROOT / "_toc.yml")]
    return [p for p in pages if p.is_file()]


def _relative_to_edition(html: str) -> str:
    """A page one folder down (``notebooks/``, ``book/``) -> addresses relative to the edition's folder."""
    return re.sub(r'((?:src|href)=")\.\./', r"\1", html)


def leave_out_folded_code(article) -> None:
    """Remove the code a page folds away (a ``details`` holding a cell's input: Checks, plotting code);
    its outputs stay. A fold left holding nothing but its summary goes too."""
    for details in article.find_all("details"):
        for cell_input in details.select(".cell_input"):
            cell_input.decompose()
        if not [child for child in details.find_all(recursive=False) if child.name != "summary"]:
            details.decompose()


def move_answers(article, chapter: str, number: int, lang: str) -> list[str]:
    """Take each answer (``.cs336-answer``) out of ``article``; leave a link to it in its place and return
    the appendix entries (HTML), each headed by its exercise's bold lead-in."""
    entries = []
    for i, answer in enumerate(article.select(".cs336-answer"), 1):
        anchor = f"cs336-answer-{number}-{i}"
        exercise = answer.find_previous_sibling("p")
        lead = exercise.find("strong") if exercise is not None else None
        title = lead.get_text(" ", strip=True) if lead is not None else f"{i}."
        if not title.startswith(ANSWERS[lang][2]):  # a chapter that numbers its exercises "1." only
            title = f"{ANSWERS[lang][2]} {title}"
        for toggle in answer.select(".admonition-title, summary"):
            toggle.decompose()
        entries.append(f'<div class="cs336-print-answer" id="{anchor}"><p><strong>{chapter} · {title}</strong></p>'
                       f"{answer.decode_contents()}</div>")
        link = BeautifulSoup(f'<p class="cs336-answer-link"><a href="#{anchor}">{ANSWERS[lang][1]}</a></p>',
                             "html.parser")
        answer.replace_with(link)
    return entries


def print_page(lang_dir: Path, lang: str, only: list[str] | None = None) -> str:
    """One HTML page holding every page of the edition (or the pages named in ``only``, e.g.
    ``["notebooks/02_floats"]``), ready to print, the answers in an appendix at the end."""
    pages = pages_in_order(lang_dir)
    if only is not None:
        pages = [p for p in pages if p.relative_to(lang_dir).with_suffix("").as_posix() in only]
    if not pages:
        raise FileNotFoundError(f"{lang_dir} holds no built page of the table of contents: build the book first")
    head = BeautifulSoup(pages[0].read_text(encoding="utf-8"), "html.parser").head
    if head is None:
        raise ValueError(f"{pages[0]}: a built page without <head>")
    styles = "\n".join(str(tag) for tag in head.find_all("link", rel="stylesheet"))
    mathjax = "\n".join(str(tag) for tag in head.find_all("script")
                        if "MathJax" in (tag.string or "") or "mathjax" in str(tag.get("src", "")))
    bodies, answers = [], []
    for number, path in enumerate(pages, 1):
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        article = soup.find("article") or soup.body
        if not isinstance(article, Tag):
            raise ValueError(f"{path}: a built page without <article> or <body>")
        for hidden in article.select(".headerlink, .cs336-lang-switch"):
            hidden.decompose()
        heading = article.find("h1")
        # answers first: one folded in a <details> keeps its code in the appendix
        answers += move_answers(article, heading.get_text(" ", strip=True) if heading else path.stem, number, lang)
        leave_out_folded_code(article)
        for details in article.find_all("details"):
            details["open"] = ""
        bodies.append(f'<div class="cs336-print-page">{article.decode_contents()}</div>')
    if answers:
        bodies.append(f'<div class="cs336-print-page cs336-print-answers"><section><h1>{ANSWERS[lang][0]}</h1>'
                      f'{"".join(answers)}</section></div>')
    html_lang = "zh-CN" if lang == "zh" else lang
    return _relative_to_edition(f"""<!DOCTYPE html>
<html lang="{html_lang}"><head><meta charset="utf-8"><title>cs336-lec2 ({lang})</title>
{styles}
<style>{print_css(lang)}</style>
{mathjax}
</head><body><main class="bd-main"><div class="bd-content"><article class="bd-article">
{''.join(bodies)}
</article></div></main></body></html>
""")


def write_pdf(html_dir: Path, lang: str, out: Path, only: list[str] | None = None) -> Path:
    """Print the ``lang`` edition under ``html_dir`` (or its pages in ``only``: :func:`print_page`) to ``out``
    with Chromium; return ``out``."""
    from playwright.sync_api import sync_playwright

    lang_dir = Path(html_dir).resolve() / lang
    source = lang_dir / "print.html"
    source.write_text(print_page(lang_dir, lang, only), encoding="utf-8")
    out.parent.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM) if CHROMIUM.exists() else None)
        try:
            page = browser.new_page()
            page.route(re.compile(r"^https?://"), lambda route: route.abort())  # offline: nothing from the network
            page.goto(source.as_uri(), wait_until="load", timeout=120_000)
            page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise",
                                   timeout=120_000)
            page.evaluate("() => MathJax.startup.promise")
            page.emulate_media(media="print")
            page.pdf(path=str(out), format="A4", print_background=True, prefer_css_page_size=True,
                     display_header_footer=True, header_template="<span></span>",
                     footer_template='<div style="font-size:8px;width:100%;text-align:center">'
                                     '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')
        finally:
            browser.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", type=Path, default=ROOT / "_build", help="the --build-dir of cs336-lec2 book")
    parser.add_argument("--languages", nargs="+", default=["en", "zh"], choices=["en", "zh"])
    args = parser.parse_args(argv)
    html_dir = args.build_dir / "html"
    if not (html_dir / "index.html").is_file():
        parser.error(f"--build-dir: {args.build_dir} holds no built book (html/index.html): run cs336-lec2 book first")
    sys.path.insert(0, str(ROOT / "src"))
    from cs336_lec2.publish.book import landing_page
    from cs336_lec2.publish.landing import pdf_href

    for lang in args.languages:
        out = write_pdf(html_dir, lang, html_dir / pdf_href(lang))
        print(f"{lang}: {out} ({out.stat().st_size / 2**20:.1f} MiB)")
    pdfs = {lang: pdf_href(lang) for lang in ("en", "zh") if (html_dir / pdf_href(lang)).is_file()}
    icon = (ROOT / "book" / "_static" / "favicon.svg").read_text(encoding="utf-8")
    (html_dir / "index.html").write_text(landing_page(icon, pdfs), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
