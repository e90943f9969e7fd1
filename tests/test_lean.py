"""Lean pages (``publish/lean.py``, issue 27 items 6 and 10), without a browser.

The browser tests (``tests/test_browser.py``) check the built book: the bytes a chapter page loads, one
search box at 1400 px, the ranking of a page whose title holds the query, and snippets without math.
"""

from __future__ import annotations

from types import SimpleNamespace

from cs336_lec2.publish import lean

PAGE = """<head>
    <script src="../_static/documentation_options.js?v=9eb32ce0"></script>
    <script src="../_static/searchtools.js"></script>
    <script src="../_static/language_data.js"></script>
    <script src="../searchindex.js"></script>
    <script defer src="../_static/scripts/fontawesome.js?digest=55c2"></script>
</head>
<body><p>searchindex.js is named in the text</p></body>
"""


def test_pages_lose_the_three_search_scripts_and_nothing_else():
    lean_page = lean.strip_search_scripts(PAGE)
    assert "searchtools.js" not in lean_page and "language_data.js" not in lean_page
    assert '<script src="../searchindex.js">' not in lean_page
    assert "documentation_options.js" in lean_page and "fontawesome.js" in lean_page
    assert "<p>searchindex.js is named in the text</p>" in lean_page
    assert lean.strip_search_scripts(lean_page) == lean_page


def test_lighten_stubs_the_icon_script_and_keeps_the_search_page_whole(tmp_path):
    scripts = tmp_path / "_static" / "scripts"
    scripts.mkdir(parents=True)
    (scripts / "fontawesome.js").write_text("x" * 1_000_000)
    (scripts / "fontawesome.js.map").write_text("{}")
    (scripts / "bootstrap.js").write_text("bootstrap")
    (tmp_path / "notebooks").mkdir()
    for name in ("search.html", "index.html", "notebooks/05.html"):
        (tmp_path / name).write_text(PAGE)
    assert lean.lighten(tmp_path) == 5  # the stub, the map, two pages, the search page's snippets
    assert (scripts / "fontawesome.js").read_text() == lean.ICON_STUB
    assert not (scripts / "fontawesome.js.map").exists() and (scripts / "bootstrap.js").read_text() == "bootstrap"
    assert (tmp_path / "search.html").read_text() == PAGE.replace("</head>", f"  {lean.PAGES_TAG}\n</head>")
    assert (tmp_path / lean.PAGES_SCRIPT).read_text().endswith("var CS336_PAGES = {};\n")  # no page has a body
    for name in ("index.html", "notebooks/05.html"):
        assert "searchtools.js" not in (tmp_path / name).read_text()
    assert lean.lighten(tmp_path) == 0  # nothing left to do: an incremental build rewrites nothing


def test_one_search_box_and_the_scorer_that_puts_title_matches_first(tmp_path):
    config = SimpleNamespace(html_theme_options={"repository_url": "x"})
    lean._one_search_box(None, config)
    assert config.html_theme_options == {"repository_url": "x", "navbar_persistent": []}
    app = SimpleNamespace(doctreedir=str(tmp_path / "doctrees"), config=SimpleNamespace(html_search_scorer=""))
    lean._search_scorer(app)
    scorer = (tmp_path / "doctrees" / "cs336-search.js").read_text()
    assert app.config.html_search_scorer.endswith("cs336-search.js") and scorer == lean.SEARCH_JS
    assert f"score + {lean.TITLE_BOOST}" in scorer and "var Scorer = {" in scorer
    for skipped in ("nav", ".math", ".bd-toc", ".toctree-wrapper", ".cs336-lang-switch"):
        assert f"{skipped}," in scorer or f"{skipped}'" in scorer, skipped


BODY = """<html><body><nav><p>Chapters</p></nav>
<main id="main-content" role="main"><div class="bd-header-article">Open issue</div>
<section id="intro"><h1>Activation memory<a class="headerlink" href="#intro">#</a></h1>
<p>Bytes &amp; <span class="math notranslate">\\(T\\)</span> tokens<br>
saved</p>
<section id="per-layer"><h2>Per layer</h2>
<script>var x = "<p>";</script><p>34 s b h</p></section></section>
</main><footer>Back to top</footer></body></html>"""


def test_a_pages_text_keeps_its_anchors_and_leaves_out_what_a_snippet_skips():
    text = lean.page_text(BODY)
    assert text == ('<div role="main"> <div id="intro">Activation memory Bytes &amp; tokens saved '
                    '<div id="per-layer">Per layer 34 s b h</div></div> </div>'), text  # as textContent reads
    assert lean.page_text("<p>no body</p>") is None


def test_the_search_pages_script_holds_every_page_and_reuses_the_texts_of_unchanged_pages(tmp_path, monkeypatch):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "13.html").write_text(BODY)
    (tmp_path / "search.html").write_text(BODY)  # the search page itself is not a result
    cache = tmp_path / "doctrees" / "cs336-search-pages.json"
    script = lean.pages_script(tmp_path, cache)
    assert script.startswith("/* cs336-lec2") and '"notebooks/13.html": "<div role=\\"main\\">' in script
    assert "search.html" not in script and "<\\/div>" in script  # a closing tag cannot end the <script>
    monkeypatch.setattr(lean, "page_text", lambda html: 1 / 0)  # an unchanged page is not parsed again
    assert lean.pages_script(tmp_path, cache) == script
