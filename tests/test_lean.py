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
    assert lean.lighten(tmp_path) == 4  # the stub, the map, two pages
    assert (scripts / "fontawesome.js").read_text() == lean.ICON_STUB
    assert not (scripts / "fontawesome.js.map").exists() and (scripts / "bootstrap.js").read_text() == "bootstrap"
    assert (tmp_path / "search.html").read_text() == PAGE
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
