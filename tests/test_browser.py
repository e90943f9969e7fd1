"""Open both editions of the built book in headless Chromium (Debian's package; nothing is downloaded).

Where Chromium is missing the test skips with a message, unless CS336_LEC2_REQUIRE_BROWSER=1 (set
by .ci/run), where it fails instead.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest

from cs336_lec2.publish.book import EDITIONS, toc_files

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = [p for p in toc_files(ROOT / "_toc.yml") if p.startswith("notebooks/")]
# No background networking: the machine's network is closed, and a book must not need one.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _chromium() -> str:
    found = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    message = "headless Chromium is not installed (Debian: apt-get install chromium); the browser test needs it"
    if os.environ.get("CS336_LEC2_REQUIRE_BROWSER") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def site(built_book):
    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:  # keep the test output readable
            pass

    handler = functools.partial(QuietHandler, directory=str(built_book))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    executable = _chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _open(browser, url: str):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    page.on("response", lambda r: problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
    response = page.goto(url, wait_until="networkidle")
    assert response is not None and response.ok, f"{url}: HTTP {response.status if response else '?'}"
    return page, problems


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("lang", list(EDITIONS))
def test_chapter_pages_load_typeset_and_link_across(browser, site, built_book, lang):
    other = EDITIONS[lang].other
    typeset_pages = 0
    for chapter in CHAPTERS:
        page, problems = _open(browser, f"{site}/{lang}/{chapter}.html")
        html_lang = page.evaluate("document.documentElement.lang")
        assert html_lang.startswith(lang), (chapter, html_lang)
        if page.locator("div.math, span.math").count():
            page.wait_for_selector("mjx-container", state="attached", timeout=15000)
            typeset_pages += 1
        for img in page.locator("div.cell_output img").all():
            img.scroll_into_view_if_needed()
            box = img.bounding_box()
            loaded = img.evaluate("i => i.complete && i.naturalWidth > 0")
            assert loaded and box and box["width"] > 50 and box["height"] > 50, f"{chapter}: plot not visible"
        assert not problems, (chapter, problems)
        page.close()
    assert typeset_pages >= 3, "MathJax typeset too few chapter pages"

    page, problems = _open(browser, f"{site}/{lang}/{CHAPTERS[0]}.html")
    page.click("a.cs336-lang-switch-link")
    page.wait_for_load_state("networkidle")
    assert page.url == f"{site}/{other}/{CHAPTERS[0]}.html"
    assert page.evaluate("document.documentElement.lang").startswith(other)
    assert not problems, problems
    page.close()


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("lang", list(EDITIONS))
def test_screenshot_of_each_edition(browser, site, built_book, lang):
    shots = built_book.parent / "screenshots"
    shots.mkdir(exist_ok=True)
    chapter = next((c for c in CHAPTERS if "flops_and_mfu" in c), CHAPTERS[0])
    page, problems = _open(browser, f"{site}/{lang}/{chapter}.html")
    if page.locator("div.math, span.math").count():
        page.wait_for_selector("mjx-container", state="attached", timeout=15000)
    target = shots / f"{lang}.png"
    page.screenshot(path=str(target), full_page=False)
    assert target.stat().st_size > 10_000
    assert not problems, problems
    page.close()


def test_landing_page_in_browser(browser, site):
    page, problems = _open(browser, f"{site}/index.html")
    hrefs = page.eval_on_selector_all("a", "els => els.map(e => e.getAttribute('href'))")
    assert "en/index.html" in hrefs and "zh/index.html" in hrefs
    page.click("button[data-show='zh']")  # the language switch shows the Chinese half only
    assert page.is_visible("a[href='zh/index.html']") and not page.is_visible("a[href='en/index.html']")
    page.click("a[href='zh/index.html']")
    page.wait_for_load_state("networkidle")
    assert "/zh/" in page.url and not problems, problems
    page.close()


# ---- issue 24: the column fits code (item 1), phones keep a margin (item 9), search finds words (item 3) ----

# Code cells of at most this many characters a line fit the text column at 1400 px: never scrolled.
MAX_CODE_LINE = 88
# Code cells of the chapters that may still scroll at 1400 px, per edition: those with longer lines.
# 246 of 320 scrolled before the column was widened (book/_static/cs336.css), 202 after it; the
# chapters' code lines are now <= 88 characters (tests/test_chapter_layout.py), so none may scroll.
ALLOWED_WIDE_CODE_CELLS = 0
CODE_CELLS_JS = """() => [...document.querySelectorAll('div.cell_input pre, .highlight pre')]
    .filter((pre) => !pre.closest('div.cell_output'))
    .map((pre) => ({wide: pre.scrollWidth > pre.clientWidth,
                    longest: Math.max(...pre.textContent.split('\\n').map((line) => line.length)),
                    first: pre.textContent.trim().split('\\n')[0].slice(0, 60)}))"""
WIDE_OUTPUTS_JS = """() => [...document.querySelectorAll('div.cell_output pre')]
    .filter((pre) => pre.scrollWidth > pre.clientWidth).length"""
ARTICLE_WIDTH_JS = "document.querySelector('article.bd-article').getBoundingClientRect().width"


def _open_at(browser, url: str, width: int):
    page = browser.new_page(viewport={"width": width, "height": 900})
    response = page.goto(url, wait_until="load")
    assert response is not None and response.ok, url
    return page


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("lang", list(EDITIONS))
def test_code_cells_fit_the_column_at_1400px(browser, site, built_book, lang):
    wide, short_but_wide, total, wide_outputs = [], [], 0, 0
    for chapter in CHAPTERS:
        page = _open_at(browser, f"{site}/{lang}/{chapter}.html", 1400)
        cells = page.evaluate(CODE_CELLS_JS)
        wide_outputs += page.evaluate(WIDE_OUTPUTS_JS)
        page.close()
        total += len(cells)
        for cell in cells:
            if cell["wide"]:
                wide.append(f"{chapter}: {cell['longest']} chars, {cell['first']!r}")
                if cell["longest"] <= MAX_CODE_LINE:
                    short_but_wide.append(wide[-1])
    print(f"\n{lang} at 1400 px: {len(wide)} of {total} code cells scroll; {wide_outputs} outputs scroll")
    print("\n".join(wide))
    assert total > 10 * len(CHAPTERS)
    assert not short_but_wide, f"cells of <= {MAX_CODE_LINE} characters a line do not fit: {short_but_wide}"
    assert len(wide) <= ALLOWED_WIDE_CODE_CELLS, f"{len(wide)} code cells scroll at 1400 px:\n" + "\n".join(wide)


@pytest.mark.slow
@pytest.mark.browser
def test_wide_screens_widen_the_column_and_phones_keep_a_margin(browser, site, built_book):
    chapter = f"{site}/en/{next(c for c in CHAPTERS if 'flops_and_mfu' in c)}.html"
    widths = {}
    for width in (1400, 1920):
        page = _open_at(browser, chapter, width)
        widths[width] = page.evaluate(ARTICLE_WIDTH_JS)
        page.close()
    assert widths[1400] >= 900, widths  # the theme's column: 848 px
    assert widths[1920] >= 1.25 * widths[1400], widths  # the theme's: 854 px at 1920 px too

    page = _open_at(browser, chapter, 400)
    assert page.evaluate("document.documentElement.scrollWidth") <= 400, "a chapter page is wider than a phone"
    page.close()
    page = _open_at(browser, f"{site}/index.html", 400)
    for selector in ("h1", "p", "li"):
        box = page.locator(selector).first.bounding_box()
        assert box and box["x"] >= 12 and box["x"] + box["width"] <= 400 - 12, (selector, box)
    page.close()


SEARCHES = [  # (edition, query, pages that must come first, how many results they must be among)
    ("zh", "混合精度", ["12_mixed_precision"], 1),
    ("zh", "激活值", ["10_memory_accounting", "13_transformer_accounting"], 2),
    ("zh", "张量", ["03_tensors"], 2),
    ("zh", "优化器状态", ["09_optimizers"], 1),
    ("zh", "激活值的显存", ["10_memory_accounting"], 2),  # a phrase: cut into 激活值 + 显存
    ("en", "mixed precision", ["12_mixed_precision"], 2),
    ("en", "activations", ["10_memory_accounting"], 2),
    ("en", "stride", ["03_tensors"], 1),
    ("en", "MFU", ["05_flops_and_mfu"], 3),
]


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize(("lang", "query", "expected", "top"), SEARCHES)
def test_search_finds_the_chapter(browser, site, built_book, lang, query, expected, top):
    from urllib.parse import quote

    page = _open_at(browser, f"{site}/{lang}/search.html?q={quote(query)}", 1400)
    page.wait_for_function("() => typeof Search !== 'undefined' && Search._index !== null")
    ranked = page.evaluate("""(q) => {
        const seen = [];
        for (const r of Search._performSearch(...Search._parseQuery(q)).reverse())
            if (!seen.includes(r[0])) seen.push(r[0]);
        return seen; }""", query)
    print(f"{lang} {query!r}: {len(ranked)} pages, {ranked[:5]}")
    first = [name.rsplit("/", 1)[-1] for name in ranked[:top]]
    assert all(chapter in first for chapter in expected), (query, ranked)
    # ... and the page lists it for the reader
    page.wait_for_selector(f"ul.search li a[href^='notebooks/{expected[0]}.html']", timeout=15000)
    page.close()
