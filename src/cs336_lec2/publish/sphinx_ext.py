"""A tiny Sphinx extension for the two editions of the book: a link on every page to the same page
in the other language, no script included twice, and Chinese search (:mod:`.zh_search`) in the zh edition.

The HTML lives at ``html/<lang>/<pagename>.html`` for both editions, so the other edition's copy of a
page is reached by climbing out of this edition and descending into the other one.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from . import zh_theme
from .cells import ANSWER_CLASS, ANSWER_TAG, ANSWER_TITLE
from .zh_search import GLOSSARY, SearchChineseGlossary, glossary_terms, jieba_available, write_user_dict

logger = logging.getLogger(__name__)


def other_edition_url(pagename: str, other_language: str) -> str:
    """Relative URL from ``<lang>/<pagename>.html`` to ``<other_language>/<pagename>.html``."""
    if not pagename or pagename.startswith("/") or ".." in pagename.split("/"):
        raise ValueError(f"pagename must be a relative Sphinx page name, got {pagename!r}")
    if not other_language or "/" in other_language:
        raise ValueError(f"other_language must be an edition code such as 'zh', got {other_language!r}")
    up = "../" * (pagename.count("/") + 1)
    return f"{up}{other_language}/{pagename}.html"


def unique_scripts(scripts: list) -> list:
    """``scripts`` without repeats, in order (an entry is a file name or a Sphinx ``JavaScript`` object)."""
    seen: set = set()
    kept = []
    for script in scripts:
        # Sphinx registers an inline script with filename None on one path and "" on the other.
        filename = getattr(script, "filename", script) or None
        key = (filename, tuple(sorted(getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            kept.append(script)
    return kept


def _dedupe_scripts(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    # sphinx-thebe registers its inline configuration twice under Sphinx 7, and a second
    # `const THEBE_JS_URL` declaration is a SyntaxError in the browser on every page.
    if "script_files" in context:
        context["script_files"] = unique_scripts(context["script_files"])


_INLINE_CODE = re.compile(r'(<span class="pre">)([^<]*)(</span>)')
_NAME_BREAK = re.compile(r"(?<=[._/,(=])(?=[^\s])")


def breakable_names(body: str) -> str:
    """``body`` with a break opportunity (``<wbr>``) after each ``.``, ``_``, ``/``, ``,``, ``(`` and ``=``
    of inline code, so that on a phone `cs336_lec2.flops.matmul_flops` wraps between its parts and
    never inside a word (the copied text is unchanged: ``<wbr>`` is not a character)."""
    return _INLINE_CODE.sub(lambda m: m.group(1) + _NAME_BREAK.sub("<wbr>", m.group(2)) + m.group(3), body)


def _break_inline_code(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    if "body" in context:
        context["body"] = breakable_names(context["body"])


_CELL = re.compile(r"(<(td|th)\b[^>]*>)(.*?)(</\2>)", re.S)
# A cell's parts: math (left for MathJax), a tag, or text between them.
_CELL_PART = re.compile(r'(<span class="math[^"]*">.*?</span>|<[^>]+>)', re.S)
# A token: a run of characters with no space and no Chinese character or punctuation (between those a line
# may break); one holding any character but a letter, a digit, "." or "," may break inside (after a hyphen,
# a slash, a bracket), so it is kept on one line.
_TOKEN = re.compile(r"[^\s\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]+")
_PLAIN = re.compile(r"[\w.,]*|&\w+;")
NOWRAP_CLASS = "cs336-nobr"


def _keep_token(match: re.Match[str]) -> str:
    token = match.group(0)
    if _PLAIN.fullmatch(token):
        return token
    return f'<span class="{NOWRAP_CLASS}">{token}</span>'


def whole_tokens_in_cells(body: str) -> str:
    """``body`` with each table cell's tokens kept whole on a phone.

    A browser may break a line inside ``1.175e-38``, ``8,192–16,384``, ``ZeRO-1``, ``(D, B)(B, K)`` or
    ``cpu-amd-epyc-2-threads``; in a table cell each such token goes into a ``<span class="cs336-nobr">``
    (``white-space: nowrap`` in cs336.css), and the ``<wbr>`` of :func:`breakable_names` is dropped: a table
    wider than the column scrolls sideways instead. Math and the copied text are unchanged.
    """
    def cell(match: re.Match[str]) -> str:
        parts = _CELL_PART.split(match.group(3).replace("<wbr>", ""))
        inner = "".join(part if part.startswith("<") else _TOKEN.sub(_keep_token, part) for part in parts)
        return match.group(1) + inner + match.group(4)

    return _CELL.sub(cell, body)


def _whole_tokens(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    if "body" in context:
        context["body"] = whole_tokens_in_cells(context["body"])


# The two editions' pages have the same sections in the same order (a chapter's prose comes in en/zh pairs
# with the same headings; tests/test_browser.py checks it), but their anchors are in their own language. A
# click on the language link carries the section the reader is in as its position (#cs336-section-N), and
# the other edition's page turns that back into its own anchor.
SWITCH_JS = """<script>
(function () {
  var PREFIX = "#cs336-section-";
  function sections() { return Array.prototype.slice.call(document.querySelectorAll("article section[id]")); }
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a.cs336-lang-switch-link");
    var id = decodeURIComponent(location.hash.slice(1));
    var here = link && id && document.getElementById(id);
    var n = here ? sections().indexOf(here.closest("section")) : -1;
    if (n >= 0) link.href = link.href.split("#")[0] + PREFIX + n;
  });
  document.addEventListener("DOMContentLoaded", function () {
    if (location.hash.indexOf(PREFIX) !== 0) return;
    var section = sections()[Number(location.hash.slice(PREFIX.length))];
    if (!section) return;
    history.replaceState(null, "", "#" + encodeURIComponent(section.id));
    section.scrollIntoView();
  });
})();
</script>
"""


def _add_switch(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    other = app.config.cs336_other_language
    if not other or "body" not in context:
        return
    url = escape(other_edition_url(pagename, other), quote=True)
    label = escape(app.config.cs336_other_label)
    hreflang = escape(app.config.cs336_other_hreflang or other, quote=True)
    link = (
        f'<p class="cs336-lang-switch"><a class="cs336-lang-switch-link" href="{url}" '
        f'hreflang="{hreflang}" lang="{hreflang}">{label}</a></p>\n{SWITCH_JS}'
    )
    context["body"] = link + context["body"]


def _chinese_search(app: Any) -> None:
    """In a Chinese edition, cut the search index with jieba and the glossary's terms (a warning without jieba)."""
    language = (app.config.html_search_language or app.config.language or "").lower()
    if not language.startswith("zh"):
        return
    if not jieba_available():
        logger.warning("jieba is not installed: the Chinese search index cannot find Chinese words "
                       "(pip install 'cs336-lec2[book]')")
        return
    glossary = Path(app.srcdir) / GLOSSARY
    if glossary.is_file() and "dict" not in app.config.html_search_options:
        terms = glossary_terms(glossary.read_text(encoding="utf-8"))
        path = write_user_dict(terms, Path(app.doctreedir) / "cs336-jieba-glossary.txt")
        app.config.html_search_options = {**app.config.html_search_options, "dict": str(path)}


CHAPTER_LINK = re.compile(r"\[([^\]\n]+)\]\(\.\./(notebooks/[\w-]+)\.ipynb\)")


def _unlink_absent_chapters(app: Any, docname: str, source: list[str]) -> None:
    """In a book page, a link to a chapter this book leaves out (removed from ``_toc.yml``) becomes its text."""
    if docname.startswith("book/"):
        source[0] = CHAPTER_LINK.sub(
            lambda m: m.group(0) if m.group(2) in app.env.found_docs else m.group(1), source[0])


class AnswersInOneDropdown(SphinxTransform):
    """Move an exercise's answer code cells into the "Show answer" dropdown of its prose (:mod:`.cells`).

    Jupyter Book renders the prose of a notebook cell and a code cell as siblings, so the staging can wrap
    only the prose; here every code cell tagged ``answer`` joins the answer dropdown before it (or a new
    one, when its answer has no prose), and one click shows prose, code and output together.
    """

    default_priority = 500

    def apply(self, **kwargs: Any) -> None:
        lang = "zh" if str(self.config.language or "").startswith("zh") else "en"
        for cell in list(self.document.findall(nodes.container)):
            if f"tag_{ANSWER_TAG}" not in cell["classes"] or cell.parent is None:
                continue
            parent = cell.parent
            index = parent.index(cell)
            before = parent[index - 1] if index > 0 else None
            if not (isinstance(before, nodes.admonition) and ANSWER_CLASS in before["classes"]):
                before = nodes.admonition("", nodes.title("", ANSWER_TITLE[lang]),
                                          classes=["admonition", "dropdown", ANSWER_CLASS])
                parent.insert(index, before)
            parent.remove(cell)
            before.append(cell)


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("cs336_other_language", "", "html")
    app.add_config_value("cs336_other_label", "", "html")
    app.add_config_value("cs336_other_hreflang", "", "html")
    app.connect("html-page-context", _add_switch)
    app.connect("html-page-context", _dedupe_scripts)
    app.connect("html-page-context", _break_inline_code)
    app.connect("html-page-context", _whole_tokens)  # after _break_inline_code, whose <wbr> it removes in cells
    app.add_search_language(SearchChineseGlossary)
    app.connect("builder-inited", _chinese_search)
    app.connect("source-read", _unlink_absent_chapters)
    app.add_transform(AnswersInOneDropdown)
    zh_theme.setup(app)
    # The calculator on its page and inline in chapters: a few lines that load it only where a page has one.
    app.add_js_file("calculator/loader.js", loading_method="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
