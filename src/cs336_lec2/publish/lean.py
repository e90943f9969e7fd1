"""Lean pages (issue 27 items 6 and 10): what a page does not use is not loaded, and search finds the page.

A Sphinx extension, loaded into both editions by :func:`.book.build_book`:

* **No icon script.** pydata-sphinx-theme draws its icons (``<i class="fa-solid …">``) from the Font Awesome
  web fonts its stylesheet already loads; its ``fontawesome.js`` (1.49 MB, on every page) only swaps them
  for SVGs. The built file is replaced by a one-line stub (the pages keep their ``<script>``, which then
  costs a few bytes), and its source map is removed.
* **The search index on the search page only.** The theme loads ``searchtools.js``, ``language_data.js``
  and the whole ``searchindex.js`` on every page for an inline search this book does not switch on
  (``search_as_you_type``); every other page drops those three scripts, and its search box still sends
  the reader to ``search.html``.
* **One search box.** The theme shows a search field in the header and another at the top of the sidebar;
  the header's (``navbar_persistent``) goes.
* **Search results.** A page whose title holds every word of the query ranks first (a score of
  :data:`TITLE_BOOST` more), and a result's snippet comes from the page's body text: navigation, tables
  of contents, the page's buttons, the language switch and math (raw ``\\(T\\)`` before MathJax) are left
  out of it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ICON_STUB = "/* cs336-lec2 (publish/lean.py): icons come from the theme's Font Awesome web fonts. */\n"
ICON_SCRIPT = Path("_static") / "scripts" / "fontawesome.js"
SEARCH_SCRIPTS = re.compile(
    r'[ \t]*<script src="[^"]*(?:_static/searchtools\.js|_static/language_data\.js|searchindex\.js)[^"]*">'
    r"</script>\n?"
)
TITLE_BOOST = 100
# What a result's snippet leaves out: navigation, tables of contents, the language switch, math.
SNIPPET_SKIPS = ("nav", ".bd-header-article", ".header-article-items", ".onlyprint", ".bd-sidebar-secondary",
                 ".bd-toc", ".toctree-wrapper", "div.contents", ".prev-next-area", ".cs336-lang-switch",
                 ".math", "mjx-container", ".headerlink", "script", "style", "footer")

# Sphinx puts this file (html_search_scorer) into language_data.js, which the search page loads right
# after searchtools.js: Scorer replaces the default one, and Search.htmlToText gets its skips.
SEARCH_JS = """
/* cs336-lec2 (publish/lean.py): a page whose title holds every word of the query comes first; a result's
   snippet is the page's body text without navigation, tables of contents or math. */
var Scorer = {
  objNameMatch: 11, objPartialMatch: 6, objPrio: {0: 15, 1: 5, 2: -5}, objPrioDefault: 0,
  title: 15, partialTitle: 7, term: 5, partialTerm: 2,
  score: (result) => {
    const [docname, , , , score] = result;
    const index = typeof Search !== "undefined" ? Search._index : null;
    const query = new URLSearchParams(window.location.search).get("q") || "";
    const words = query.toLowerCase().split(/\\s+/).filter((w) => w);
    if (!index || !words.length) return score;
    const title = (index.titles[index.docnames.indexOf(docname)] || "").toLowerCase();
    return words.every((w) => title.includes(w)) ? score + __BOOST__ : score;
  },
};
if (typeof Search !== "undefined" && !Search.cs336Snippets) {
  const htmlToText = Search.htmlToText;
  Search.cs336Snippets = true;
  Search.htmlToText = (htmlString, anchor) => {
    const page = new DOMParser().parseFromString(htmlString, "text/html");
    page.querySelectorAll(__SKIPS__).forEach((el) => el.remove());
    return htmlToText(page.documentElement.outerHTML, anchor).replace(/\\s+/g, " ");
  };
}
""".replace("__BOOST__", str(TITLE_BOOST)).replace("__SKIPS__", repr(", ".join(SNIPPET_SKIPS)))


def strip_search_scripts(html: str) -> str:
    """A page's HTML without the three search scripts the theme adds to every page."""
    return SEARCH_SCRIPTS.sub("", html)


def lighten(outdir: Path) -> int:
    """Apply the icon stub and drop the search scripts from every page but ``search.html``; files changed."""
    changed = 0
    icons = outdir / ICON_SCRIPT
    if icons.is_file() and icons.read_text(encoding="utf-8", errors="replace") != ICON_STUB:
        icons.write_text(ICON_STUB, encoding="utf-8")
        changed += 1
    icon_map = icons.with_name(icons.name + ".map")
    if icon_map.exists():
        icon_map.unlink()
        changed += 1
    for page in outdir.rglob("*.html"):
        if page.relative_to(outdir).as_posix() == "search.html" or "_static" in page.relative_to(outdir).parts:
            continue
        text = page.read_text(encoding="utf-8")
        lean = strip_search_scripts(text)
        if lean != text:
            page.write_text(lean, encoding="utf-8")
            changed += 1
    return changed


def _one_search_box(app: Any, config: Any) -> None:
    config.html_theme_options = {**(config.html_theme_options or {}), "navbar_persistent": []}


def _search_scorer(app: Any) -> None:
    path = Path(app.doctreedir) / "cs336-search.js"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != SEARCH_JS:
        path.write_text(SEARCH_JS, encoding="utf-8")
    app.config.html_search_scorer = str(path)


def _build_finished(app: Any, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        lighten(Path(app.outdir))


def setup(app: Any) -> dict[str, Any]:
    app.connect("config-inited", _one_search_box)
    app.connect("builder-inited", _search_scorer)
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
