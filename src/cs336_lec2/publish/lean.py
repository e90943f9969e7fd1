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
* **Search results.** A result whose heading (the page's title, or the section's for a section result)
  holds every word of the query ranks first (a score of :data:`TITLE_BOOST` more), and one whose heading
  *is* the query comes before those: "activation memory" finds chapter 13's section "Activation memory per
  layer" before a chapter that mentions it in passing. A result's snippet comes from the page's body text:
  navigation, tables of contents, the page's buttons, the language switch and math (raw ``\\(T\\)`` before
  MathJax) are left out of it.
* **Snippets from disk.** Sphinx's search page fetches each result's page to cut its snippet, which a
  browser forbids for a book opened from ``file://``. The build writes every page's body text (with its
  sections' anchors) into one plain script, :data:`PAGES_SCRIPT`, that only ``search.html`` loads; the
  search page answers its own fetches from it (no network, no module, works from disk and over http).
"""

from __future__ import annotations

import hashlib
import json
import re
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar

ICON_STUB = "/* cs336-lec2 (publish/lean.py): icons come from the theme's Font Awesome web fonts. */\n"
ICON_SCRIPT = Path("_static") / "scripts" / "fontawesome.js"
SEARCH_SCRIPTS = re.compile(
    r'[ \t]*<script src="[^"]*(?:_static/searchtools\.js|_static/language_data\.js|searchindex\.js)[^"]*">'
    r"</script>\n?"
)
TITLE_BOOST = 100
PAGES_SCRIPT = Path("_static") / "cs336-search-pages.js"
PAGES_TAG = '<script src="_static/cs336-search-pages.js"></script>'
# What a result's snippet leaves out: navigation, tables of contents, the language switch, math.
SNIPPET_SKIPS = ("nav", ".bd-header-article", ".header-article-items", ".onlyprint", ".bd-sidebar-secondary",
                 ".bd-toc", ".toctree-wrapper", "div.contents", ".prev-next-area", ".cs336-lang-switch",
                 ".math", "mjx-container", ".headerlink", "script", "style", "footer")

# Sphinx puts this file (html_search_scorer) into language_data.js, which the search page loads right
# after searchtools.js: Scorer replaces the default one, and Search.htmlToText gets its skips.
SEARCH_JS = """
/* cs336-lec2 (publish/lean.py): a result whose heading holds every word of the query comes first, one whose
   heading is the query before those; a result's snippet is the page's body text without navigation, tables
   of contents or math, read from CS336_PAGES (_static/cs336-search-pages.js) instead of fetching the page,
   which a book opened from file:// may not do. */
var Scorer = {
  objNameMatch: 11, objPartialMatch: 6, objPrio: {0: 15, 1: 5, 2: -5}, objPrioDefault: 0,
  title: 15, partialTitle: 7, term: 5, partialTerm: 2,
  score: (result) => {
    const [, title, , , score] = result;
    const query = (new URLSearchParams(window.location.search).get("q") || "").toLowerCase().trim();
    const words = query.split(/\\s+/).filter((w) => w);
    if (!words.length) return score;
    // a section's result is titled "Page > Section": its heading is the section's
    const heading = new DOMParser().parseFromString(String(title), "text/html").documentElement.textContent
      .split(" > ").pop().toLowerCase().trim();
    if (!words.every((w) => heading.includes(w))) return score;
    return score + __BOOST__ + (heading === query || heading.replace(/^[\\d.]+\\s*/, "") === query ? __BOOST__ : 0);
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
  const fetchPage = window.fetch.bind(window);
  window.fetch = (url, ...rest) => {
    const root = document.documentElement.dataset.content_root || "";
    const name = String(url).startsWith(root) ? String(url).slice(root.length) : String(url);
    const pages = typeof CS336_PAGES !== "undefined" ? CS336_PAGES : {};
    return Object.prototype.hasOwnProperty.call(pages, name)
      ? Promise.resolve(new Response(pages[name], {headers: {"Content-Type": "text/html"}}))
      : fetchPage(url, ...rest);
  };
}
""".replace("__BOOST__", str(TITLE_BOOST)).replace("__SKIPS__", repr(", ".join(SNIPPET_SKIPS)))


def strip_search_scripts(html: str) -> str:
    """A page's HTML without the three search scripts the theme adds to every page."""
    return SEARCH_SCRIPTS.sub("", html)


def _skipped(selector: str, tag: str, classes: set[str]) -> bool:
    """Whether an element matches one of :data:`SNIPPET_SKIPS`' simple selectors (``tag``, ``.class``,
    ``tag.class``)."""
    name, _, cls = selector.partition(".")
    return (not name or name == tag) and (not cls or cls in classes)


class _BodyText(HTMLParser):
    """Streams a page and keeps the text of its body (``role="main"``), less :data:`SNIPPET_SKIPS`, with a
    ``<div id>`` for each element of it that has an id (a tree-building parser takes seconds a page)."""

    VOID: ClassVar[set[str]] = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                                "source", "track", "wbr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.open: list[tuple[str, bool, bool, bool]] = []  # tag, opens the body, skipped, wrote a <div>
        self.found = False

    def _state(self) -> tuple[bool, bool]:
        return any(entry[1] for entry in self.open), any(entry[2] for entry in self.open)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        attributes = dict(attrs)
        in_body, skipping = self._state()
        main = attributes.get("role") == "main"
        self.found |= main
        classes = set((attributes.get("class") or "").split())
        skip = (in_body or main) and any(_skipped(s, tag, classes) for s in (*SNIPPET_SKIPS, ".headerlink"))
        wrote = in_body and not skipping and not skip and bool(attributes.get("id"))
        if wrote:
            self.out.append(f'<div id="{escape(attributes["id"] or "")}">')
        self.open.append((tag, main, skip, wrote))

    def handle_endtag(self, tag: str) -> None:
        if not any(entry[0] == tag for entry in self.open):
            return
        while self.open:
            name, _, _, wrote = self.open.pop()
            if wrote:
                self.out.append("</div>")
            if name == tag:
                break

    def handle_data(self, data: str) -> None:
        in_body, skipping = self._state()
        if in_body and not skipping:
            self.out.append(escape(re.sub(r"\s+", " ", data), quote=False))


def page_text(html: str) -> str | None:
    """A page's body as the search page's snippets read it: its text, with an element for each anchor.

    What a snippet leaves out (:data:`SNIPPET_SKIPS`, the heading links) is dropped here already; every
    element of the body that has an ``id`` stays as a ``<div id>`` holding its text, so a section's result
    gets its snippet from that section (Sphinx's ``htmlToText`` looks the anchor up). None for a page
    without a body (``role="main"``).
    """
    parser = _BodyText()
    parser.feed(html)
    parser.close()
    if not parser.found:
        return None
    return f'<div role="main">{re.sub(r"  +", " ", "".join(parser.out))}</div>'


def pages_script(outdir: Path, cache: Path | None = None) -> str:
    """The plain script that gives the search page each page's body text (:func:`page_text`), by file name.

    ``cache`` (a JSON file) keeps each page's text under a hash of the page, so that a rebuild parses only
    the pages Sphinx wrote again.
    """
    known = json.loads(cache.read_text(encoding="utf-8")) if cache is not None and cache.is_file() else {}
    pages, kept = {}, {}
    for path in sorted(outdir.rglob("*.html")):
        name = path.relative_to(outdir).as_posix()
        if name in ("search.html", "genindex.html") or name.startswith(("_static/", "_sources/")):
            continue
        html = path.read_bytes()
        digest = hashlib.sha256(html).hexdigest()
        text = known[name][1] if known.get(name, [None])[0] == digest else page_text(html.decode("utf-8"))
        kept[name] = [digest, text]
        if text is not None:
            pages[name] = text
    if cache is not None and kept != known:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(kept, ensure_ascii=False), encoding="utf-8")
    body = json.dumps(pages, ensure_ascii=False, indent=0).replace("</", "<\\/")
    return f"/* cs336-lec2 (publish/lean.py): each page's text, for search snippets. */\nvar CS336_PAGES = {body};\n"


def write_search_pages(outdir: Path, cache: Path | None = None) -> bool:
    """Write :data:`PAGES_SCRIPT` and load it in ``search.html``; whether either changed (``cache``: see
    :func:`pages_script`)."""
    search = outdir / "search.html"
    if not search.is_file():
        return False
    changed = False
    script = outdir / PAGES_SCRIPT
    text = pages_script(outdir, cache)
    if not script.is_file() or script.read_text(encoding="utf-8") != text:
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(text, encoding="utf-8")
        changed = True
    page = search.read_text(encoding="utf-8")
    if PAGES_TAG not in page:
        search.write_text(page.replace("</head>", f"  {PAGES_TAG}\n</head>", 1), encoding="utf-8")
        changed = True
    return changed


def lighten(outdir: Path, cache: Path | None = None) -> int:
    """Apply the icon stub, drop the search scripts from every page but ``search.html`` and write the search
    page's snippets (:func:`write_search_pages`); files changed."""
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
    return changed + write_search_pages(outdir, cache)


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
        lighten(Path(app.outdir), Path(app.doctreedir) / "cs336-search-pages.json")


def setup(app: Any) -> dict[str, Any]:
    app.connect("config-inited", _one_search_box)
    app.connect("builder-inited", _search_scorer)
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
