"""The theme's own words in the Chinese edition: Simplified Chinese, in the book's terms (issue 28 §1).

The themes translate part of their interface, some of it badly: sphinx-book-theme's ``zh_CN``
catalog prints "Print to PDF" as 列印成 PDF (Traditional usage), pydata-sphinx-theme has no Chinese
catalog at all ("Color mode", "Back to top"), Sphinx 7's has no "Link to this heading", and a few
words are written into the templates and scripts untranslated ("Toggle primary sidebar",
"Toggle hidden content"). In an edition whose ``language`` is Chinese this module

- puts :data:`MESSAGES` in front of the ``sphinx`` and ``booktheme`` message catalogs (``builder-inited``);
- picks the edition's half of a setting written ``English · 中文`` (``config-inited``): the footer,
  and sets the search box's placeholder and the author line in Chinese;
- replaces :data:`UNTRANSLATABLE` in the written pages and the theme scripts (``build-finished``);
- lets a heading wrap only between words (:func:`breakable_headings`: a ``<wbr>`` between the words jieba
  cuts, and ``word-break: keep-all`` in cs336.css), so that 资源核算 is never cut as 资源核 / 算;
- names each section after its heading (``#具名维度-jaxtyping-与-einops``), where docutils, which
  keeps only ASCII in an id, numbers Chinese headings ``#id1``, ``#id2`` … (:class:`HeadingAnchors`).

``tools/zh_english.py`` counts what is left.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import locale
from sphinx.transforms import SphinxTransform

# Theme and Sphinx messages, msgid -> Simplified Chinese.
MESSAGES = {
    "Print to PDF": "打印为 PDF",
    "Link to this heading": "链接到本节",
    "Link to this image": "链接到此图",
    "Link to this table": "链接到此表",
    "Link to this code": "链接到此代码",
    "Link to this definition": "链接到此定义",
    "Link to this equation": "链接到此公式",
    "Color mode": "配色模式",
    "System Settings": "跟随系统",
    "Light": "浅色",
    "Dark": "深色",
    "Skip to main content": "跳到正文",
    "Back to top": "回到顶部",
    "On this page": "本页目录",
    "Section Navigation": "本节导航",
    "Launch interactive content": "在交互环境中运行",
    "Launch on": "打开于",
    "Source repositories": "源代码仓库",
    "Source repository": "源代码仓库",
    "repository": "仓库",
    "Repository": "仓库",
    "© Copyright %(copyright)s.": "© 版权所有 %(copyright)s。",
    "Copyright %(copyright)s": "版权所有 %(copyright)s",
    "Open issue": "提交问题",
    "open issue": "提交问题",
    "Download this page": "下载本页",
    "Download source file": "下载源文件",
    "Download notebook file": "下载笔记本文件",
    "Fullscreen mode": "全屏模式",
    "Contents": "目录",
    "By": "作者：",
    "By the": "作者：",
    "Copyright": "版权",
    "previous page": "上一页",
    "next page": "下一页",
    "Toggle navigation": "显示或隐藏导航栏",
    "Search": "搜索",
    "Click to show": "点击展开",
    "Click to hide": "点击收起",
    "Copy": "复制",
    "Copied!": "已复制！",
    "Copy to clipboard": "复制到剪贴板",
}
# Words written into the theme's templates and scripts, not looked up in a catalog.
UNTRANSLATABLE = {
    'title="Toggle primary sidebar"': 'title="显示或隐藏目录栏"',
    'title="Toggle secondary sidebar"': 'title="显示或隐藏本页目录"',
    'aria-label="Toggle hidden content"': 'aria-label="展开或收起隐藏的内容"',
    'aria-label="Main"': 'aria-label="全书目录"',
    'aria-label="Page"': 'aria-label="本页"',
    "Search this book...": "搜索本书……",
    "打开于 Colab": "在 Colab 中打开",  # the theme writes translation("Launch on") + " Colab"
}
SEARCH_PLACEHOLDER = "搜索本书……"
AUTHOR = "cs336-lec2 贡献者"
CATALOGS = ("sphinx", "booktheme")


def is_chinese(app: Any) -> bool:
    """Whether the edition being built is a Chinese one (its Sphinx ``language`` starts with zh)."""
    return str(app.config.language or "").lower().startswith("zh")


def edition_half(text: str, chinese: bool) -> str:
    """``"English · 中文"`` -> its English or Chinese half; a text without `` · `` is kept whole."""
    halves = text.split(" · ")
    return (halves[1] if chinese else halves[0]).strip() if len(halves) == 2 else text


def _config(app: Any, config: Any) -> None:
    chinese = is_chinese(app)
    options = dict(config.html_theme_options or {})
    if isinstance(options.get("extra_footer"), str):
        options["extra_footer"] = edition_half(options["extra_footer"], chinese)
    if chinese:
        options["search_bar_text"] = SEARCH_PLACEHOLDER
        config.author = AUTHOR
    config.html_theme_options = options


def _catalogs(app: Any) -> None:
    """Put :data:`MESSAGES` first in the catalogs the templates, Sphinx and the book theme read."""
    if not is_chinese(app):
        return
    for catalog in CATALOGS:
        translator = locale.translators.get(("general", catalog))
        # A catalog Sphinx found is a GNUTranslations whose messages are in ``_catalog``; updating it
        # reaches the templates too, which hold that same object.
        messages = getattr(translator, "_catalog", None)
        if isinstance(messages, dict):
            messages.update(MESSAGES)


def localize_file(path: Path) -> bool:
    """Replace :data:`UNTRANSLATABLE` in one written file; whether it changed."""
    text = path.read_text(encoding="utf-8")
    new = text
    for english, chinese in UNTRANSLATABLE.items():
        new = new.replace(english, chinese)
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def _pages(app: Any, exception: Exception | None) -> None:
    if exception is not None or not is_chinese(app) or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for path in [*out.rglob("*.html"), *(out / "_static").glob("*.js")]:
        localize_file(path)


_HEADING = re.compile(r"(<h[1-6]\b[^>]*>)(.*?)(</h[1-6]>)", re.S)
_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]{2,}")


def breakable_headings(body: str, cut: Any) -> str:
    """``body`` with a ``<wbr>`` between the words of each run of Chinese characters in its headings.

    ``cut`` splits a run into words (``jieba.cut``). Under ``word-break: keep-all`` (cs336.css) a heading
    then wraps at a space, after punctuation or between two words, never inside one.
    """
    def heading(match: re.Match[str]) -> str:
        parts = re.split(r"(<[^>]+>)", match.group(2))
        inner = "".join(part if part.startswith("<") else
                        _HAN_RUN.sub(lambda run: "<wbr>".join(cut(run.group(0))), part) for part in parts)
        return match.group(1) + inner + match.group(3)

    return _HEADING.sub(heading, body)


def _wrap_headings(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    if not is_chinese(app) or "body" not in context:
        return
    try:
        import jieba  # the zh edition's search already cuts with it (zh_search.py), glossary terms included
    except ImportError:
        return
    context["body"] = breakable_headings(context["body"], lambda run: list(jieba.cut(run, HMM=False)))


AUTO_ID = re.compile(r"id\d+")
NOT_IN_SLUG = re.compile(r"[^\w\u3400-\u4dbf\u4e00-\u9fff]+")


def slug(title: str) -> str:
    """A heading's anchor: lower case, Chinese and ASCII words joined by ``-`` (``4. 具名维度：x 与 y``
    -> ``4-具名维度-x-与-y``)."""
    return NOT_IN_SLUG.sub("-", title.lower()).strip("-_")


class HeadingAnchors(SphinxTransform):
    """Give each section that docutils could only number (``id3``) an anchor made of its heading."""

    default_priority = 400  # before the table of contents is collected from the sections' ids

    def apply(self, **kwargs: Any) -> None:
        if not is_chinese(self.app):
            return
        document = self.document
        for section in document.findall(nodes.section):
            title = section.next_node(nodes.title)
            for i, old in enumerate(section["ids"]):
                if not AUTO_ID.fullmatch(old) or title is None or not slug(title.astext()):
                    continue
                new, n = slug(title.astext()), 1
                while new in document.ids:
                    n += 1
                    new = f"{slug(title.astext())}-{n}"
                section["ids"][i] = new
                document.ids[new] = document.ids.pop(old, section)
                for name, target in list(document.nameids.items()):
                    if target == old:
                        document.nameids[name] = new


def setup(app: Any) -> None:
    """Connect the steps (called from :mod:`.sphinx_ext`'s ``setup``)."""
    app.add_transform(HeadingAnchors)
    app.connect("config-inited", _config)
    app.connect("builder-inited", _catalogs)
    app.connect("build-finished", _pages)
    app.connect("html-page-context", _wrap_headings)
