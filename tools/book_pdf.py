"""Write one PDF per edition of the whole book, from a built book, with headless Chromium (issue 27 §9).

    python tools/book_pdf.py                    # _build/html -> _build/html/pdf/cs336-lec2-{en,zh}.pdf
    python tools/book_pdf.py --build-dir DIR --languages zh

Run it after ``cs336-lec2 book`` (it reads the built HTML, never a notebook; about a minute). For each
edition it joins the pages in the table of contents' order into one print page (``<lang>/print.html``:
each page's article, folds opened, the theme's styles, MathJax from the build, nothing from the
network), waits for MathJax, and prints it with Chromium's print-to-PDF through Playwright: A4, the fonts
embedded (Noto Sans CJK for Chinese), code that never runs past the right margin (a listing line of 88
characters fits; a longer output line wraps instead of being cut). The landing page is then rewritten
with a card for each PDF.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup, Tag

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
PRINT_CSS = """
@page { size: A4; margin: 16mm 14mm 18mm 14mm; }
html, body { background: #fff !important; }
body { font-family: "Noto Sans", "Noto Sans CJK SC", sans-serif; font-size: 10pt; }
.cs336-print-page { break-before: page; }
.cs336-print-page:first-child { break-before: auto; }
pre, .highlight pre { white-space: pre-wrap !important; overflow-wrap: anywhere; overflow: visible !important;
  font-size: 7.6pt !important; line-height: 1.35; max-height: none !important; }
div.cell_output, div.output, .highlight { overflow: visible !important; max-height: none !important; }
code { font-family: "DejaVu Sans Mono", "Noto Sans Mono CJK SC", monospace; }
img { max-width: 100% !important; break-inside: avoid; }
table { font-size: 8.5pt; }
.headerlink, .cs336-lang-switch, .toggle-details__summary .tb-icon, button.copybtn { display: none !important; }
details > summary { list-style: none; }
details.above-input > summary, details.below-input > summary { display: none !important; }
"""


def pages_in_order(lang_dir: Path) -> list[Path]:
    """The built pages of one edition in the table of contents' order."""
    sys.path.insert(0, str(ROOT / "src"))
    from cs336_lec2.publish.book import toc_files

    pages = [lang_dir / f"{entry}.html" for entry in toc_files(ROOT / "_toc.yml")]
    return [p for p in pages if p.is_file()]


def _relative_to_edition(html: str) -> str:
    """A page one folder down (``notebooks/``, ``book/``) -> addresses relative to the edition's folder."""
    return re.sub(r'((?:src|href)=")\.\./', r"\1", html)


def print_page(lang_dir: Path, lang: str) -> str:
    """One HTML page holding every page of the edition, ready to print."""
    pages = pages_in_order(lang_dir)
    if not pages:
        raise FileNotFoundError(f"{lang_dir} holds no built page of the table of contents: build the book first")
    head = BeautifulSoup(pages[0].read_text(encoding="utf-8"), "html.parser").head
    if head is None:
        raise ValueError(f"{pages[0]}: a built page without <head>")
    styles = "\n".join(str(tag) for tag in head.find_all("link", rel="stylesheet"))
    mathjax = "\n".join(str(tag) for tag in head.find_all("script")
                        if "MathJax" in (tag.string or "") or "mathjax" in str(tag.get("src", "")))
    bodies = []
    for path in pages:
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        article = soup.find("article") or soup.body
        if not isinstance(article, Tag):
            raise ValueError(f"{path}: a built page without <article> or <body>")
        for details in article.find_all("details"):
            details["open"] = ""
        for hidden in article.select(".headerlink, .cs336-lang-switch"):
            hidden.decompose()
        bodies.append(f'<div class="cs336-print-page">{article.decode_contents()}</div>')
    html_lang = "zh-CN" if lang == "zh" else lang
    return _relative_to_edition(f"""<!DOCTYPE html>
<html lang="{html_lang}"><head><meta charset="utf-8"><title>cs336-lec2 ({lang})</title>
{styles}
<style>{PRINT_CSS}</style>
{mathjax}
</head><body><main class="bd-main"><div class="bd-content"><article class="bd-article">
{''.join(bodies)}
</article></div></main></body></html>
""")


def write_pdf(html_dir: Path, lang: str, out: Path) -> Path:
    """Print the ``lang`` edition under ``html_dir`` to ``out`` with Chromium; return ``out``."""
    from playwright.sync_api import sync_playwright

    lang_dir = Path(html_dir).resolve() / lang
    source = lang_dir / "print.html"
    source.write_text(print_page(lang_dir, lang), encoding="utf-8")
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
