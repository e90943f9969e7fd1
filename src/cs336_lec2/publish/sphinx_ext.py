"""A tiny Sphinx extension for the two editions of the book: a link on every page to the same page
in the other language, no script included twice, and Chinese search (:mod:`.zh_search`) in the zh edition.

The HTML lives at ``html/<lang>/<pagename>.html`` for both editions, so the other edition's copy of a
page is reached by climbing out of this edition and descending into the other one.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

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


def _add_switch(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    other = app.config.cs336_other_language
    if not other or "body" not in context:
        return
    url = escape(other_edition_url(pagename, other), quote=True)
    label = escape(app.config.cs336_other_label)
    hreflang = escape(app.config.cs336_other_hreflang or other, quote=True)
    link = (
        f'<p class="cs336-lang-switch"><a class="cs336-lang-switch-link" href="{url}" '
        f'hreflang="{hreflang}" lang="{hreflang}">{label}</a></p>\n'
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
    app.add_search_language(SearchChineseGlossary)
    app.connect("builder-inited", _chinese_search)
    app.add_transform(AnswersInOneDropdown)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
