"""What a chapter says in words: printed explanations, tables and figures, in one language or in two.

Each call has two forms (CONTRIBUTING.md, "One language per edition"):

- the **two-language** form of the source notebooks, ``say(en=..., zh=...)``,
  ``show_table(rows, en=[...], zh=[...])``, ``show_figures(draw, alt_en=..., alt_zh=...)`` with ``draw(w)``
  taking every word from ``w(en, zh)``: it shows each output once per language, each tagged with its
  language in the output's metadata (``{"lang": "en"}`` or ``{"lang": "zh"}``), so that the book's
  staging keeps only the edition's own (``publish/cells.py``);
- the **one-language** form that staging rewrites it into for an edition's notebooks
  (``publish/one_language.py``): ``say(text)``, ``show_table(rows, header)``, ``show_figures(draw, alt=...)``
  with ``draw()`` taking no words function. It shows each output once, untagged.

:func:`set_language` (``from cs336_lec2.zh import *`` calls it) names the language a notebook reads in:
the two-language form then shows only that language, a one-language figure gets a CJK font, and
:func:`tr` picks the package's own messages in it. Outside a notebook (a script, a test) the
two-language form prints both to stdout.

Numbers, identifiers and libraries' messages stay as they are: only the words are translated.
"""

from __future__ import annotations

import base64
import io
import sys
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from html import escape
from typing import TYPE_CHECKING, Any

from .checks import beartype_on_first_call

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

LANGUAGES = ("en", "zh")
LANG_KEY = "lang"  # the key of an output's metadata that names its language
ALT_KEY = "alt"  # the key of an image output's metadata that holds its alt text

# Pick the edition's words: w("Batch size", "批大小").
Words = Callable[[str, str], str]

# Fonts with Simplified Chinese glyphs, best first (Debian/Ubuntu's fonts-noto-cjk, then others).
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Zen Hei",
             "Microsoft YaHei", "PingFang SC", "SimHei")
# Drawn into a Chinese figure that had to keep English labels: one note, no boxes of missing glyphs.
NO_CJK_NOTE = "No Chinese font installed here (e.g. fonts-noto-cjk): labels left in English"


def _text(value: object, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TypeError(f"{name} must be a non-empty str, got {value!r}")
    return value


def _shell() -> Any:
    """The running IPython kernel's shell, or None outside a notebook."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell if shell is not None and hasattr(shell, "kernel") else None


def _publish(data: dict[str, Any], metadata: dict[str, Any]) -> None:
    from IPython.display import publish_display_data

    sys.stdout.flush()  # what the cell printed before stays before this output
    publish_display_data(data, metadata=metadata)


_language: str | None = None  # None: both languages (the two-language source notebooks)


def set_language(lang: str | None) -> None:
    """Read in one language from now on (``"en"`` or ``"zh"``), or in both (``None``)."""
    global _language
    if lang is not None and lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {LANGUAGES} or None, got {lang!r}")
    _language = lang


def language() -> str | None:
    """The language set by :func:`set_language`: ``"en"``, ``"zh"``, or None for both."""
    return _language


class Bilingual(str):
    """English text that carries its Chinese (``.zh``): what :func:`tr` returns where a notebook reads in
    both languages, so that a message raised there can still be shown in Chinese (:func:`in_zh`)."""

    zh: str

    def __new__(cls, en: str, zh: str) -> Bilingual:
        text = super().__new__(cls, en)
        text.zh = zh
        return text

    def __getnewargs__(self) -> tuple[str, str]:  # type: ignore[override]  # pickle and copy keep both
        return str(self), self.zh


def tr(en: str, zh: str | None = None) -> str:
    """Words in the language a notebook reads in; where it reads in both, the English text carrying its
    Chinese (a :class:`Bilingual`: a table shows it under each header in its language).

    The package calls ``tr(en, zh)``; a chapter writes ``tr(en=..., zh=...)``, which an edition's
    notebook reads as ``tr(text)``: one text, already in its language, returned as it is.
    """
    if zh is None:
        return _text(en, "text")
    if _language is None:
        return Bilingual(en, zh)
    return zh if _language == "zh" else en


# The Chinese names of the package's identifiers that a chapter shows as labels (a table's rows, a
# legend): training-state parts, precision recipes, recomputation policies, ZeRO stages, optimizers.
NAMES_ZH = {
    "params": "参数", "grads": "梯度", "optimizer_state": "优化器状态", "activations": "激活值",
    "total": "合计", "fp32": "fp32", "mixed_bf16": "bf16 混合精度",
    "none": "不重计算", "none, flash": "不重计算 + flash 注意力", "selective": "选择性重计算",
    "full": "完全重计算", "dp": "数据并行", "zero1": "ZeRO-1", "zero2": "ZeRO-2", "zero3": "ZeRO-3",
    "SGD": "SGD", "Momentum": "动量法", "AdaGrad": "AdaGrad", "RMSProp": "RMSProp", "Adam": "Adam",
    "AdamW": "AdamW", "sgd": "SGD", "sgd_momentum": "带动量的 SGD", "adagrad": "AdaGrad",
    "adam": "Adam", "adamw": "AdamW",
    "randn (scale 1)": "randn（不缩放）", "randn / sqrt(d)": "randn / sqrt(d)", "randn / d": "randn / d",
}


def name_zh(identifier: str) -> str:
    """The Chinese name of one of the package's identifiers (:data:`NAMES_ZH`)."""
    try:
        return NAMES_ZH[identifier]
    except KeyError:
        raise ValueError(f"no Chinese name for {identifier!r}; known: {sorted(NAMES_ZH)}") from None


def named(identifier: str) -> str:
    """An identifier as a label in the notebook's language: ``tr(identifier, name_zh(identifier))``."""
    return tr(identifier, name_zh(identifier))


def in_zh(said: object) -> str:
    """The Chinese of a text :func:`tr` made, or of an exception's message made by it; anything else
    (a library's message, a text already in one language) as it is."""
    if isinstance(said, OSError) and isinstance(said.strerror, Bilingual):  # OSError(errno, message)
        return str(said).replace(said.strerror, said.strerror.zh)
    if isinstance(said, BaseException):
        first = said.args[0] if len(said.args) == 1 else None
        return first.zh if isinstance(first, Bilingual) else str(said)
    return said.zh if isinstance(said, Bilingual) else str(said)


NO_LINE_START = "，。、；：！？）》”’"
_WIDE = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"  # CJK characters and full-width marks


def fill(text: str, width: int = 88, indent: str = "", subsequent: str | None = None) -> str:
    """``textwrap.fill`` that counts display columns (a CJK character takes two) and may break between
    two CJK characters, so that Chinese lines stay within ``width`` columns too. A line never starts
    with a closing mark (，。）…): the word before it goes down with it."""
    import re

    rest = indent if subsequent is None else subsequent
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        words: list[str] = []  # the tokens of the line being filled
        head = indent
        # tokens: a code span (``x, y`` or `x`) or an English title quoted in Chinese (“A Title”) with
        # what sticks to it, one CJK character or full-width mark, or a run of other non-space
        # characters; each with the spaces after it
        for token in re.findall(rf"(?:``[^`]+``|`[^`]+`|[^\s“{_WIDE}]*“[^“”{_WIDE}]+”)[^\s{_WIDE}]* *|[{_WIDE}] *"
                                rf"|[^\s{_WIDE}]+ *| +", paragraph):
            if words and display_width(head + "".join(words) + token.rstrip()) > width:
                carry = [words.pop()] if token[0] in NO_LINE_START and len(words) > 1 else []
                lines.append((head + "".join(words)).rstrip())
                head, words = rest, carry
            words.append(token)
        lines.append((head + "".join(words)).rstrip())
        indent = rest
    return "\n".join(lines)


def _pair(text: object, pair: dict[str, object], name: str) -> dict[str, Any] | None:
    """The texts to show: ``{None: text}`` for the one-language form, else the two-language pair (only the
    set language's half where one is set). Exactly one of the two forms must be given."""
    given = {lang: value for lang, value in pair.items() if value is not None}
    if text is not None and not given:
        return None
    if text is None and len(given) == len(LANGUAGES):
        return {lang: value for lang, value in given.items() if _language in (None, lang)}
    if text is None and given:  # one half of a pair: name the half that is missing
        missing = next(lang for lang in pair if lang not in given)
        raise TypeError(f"{name}: {missing} must be a non-empty str beside {next(iter(given))}, got None")
    raise TypeError(f"{name}: give either one text (one language) or both en= and zh= (two languages), "
                    f"got {'a text and ' if text is not None else ''}{sorted(given) or 'nothing else'}")


def say(text: str | None = None, /, *, en: str | None = None, zh: str | None = None) -> None:
    """Print an explanation: ``say(text)`` once, or ``say(en=..., zh=...)`` once per language, each output
    tagged with its language (only the :func:`set_language` one where one is set)."""
    pair = _pair(text, {"en": en, "zh": zh}, "say")
    if pair is None:
        print(_text(text, "text"))
        return
    texts = {lang: _text(value, lang) for lang, value in pair.items()}
    if _shell() is None or len(texts) == 1:
        for said in texts.values():
            print(said)
        return
    for lang, said in texts.items():
        _publish({"text/plain": said}, {LANG_KEY: lang})


def words(lang: str, *, english_only: bool = False) -> Words:
    """A function that picks ``lang``'s half of a pair of strings (English where ``english_only``)."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {LANGUAGES}, got {lang!r}")
    use_zh = lang == "zh" and not english_only

    def pick(en: str, zh: str) -> str:
        return zh if use_zh else en

    return pick


@cache
def cjk_font() -> str | None:
    """The name of an installed font with Simplified Chinese glyphs, or None (Colab has none)."""
    from matplotlib import font_manager

    installed = {f.name for f in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FONTS if name in installed), None)


def display_width(text: str) -> int:
    """Columns ``text`` takes in a monospaced font: a wide (CJK) character takes two."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def _table_text(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(display_width(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c) + " " * (w - display_width(str(c))) for c, w in zip(row, widths, strict=True)).rstrip()
             for row in [header, *rows]]
    return "\n".join(lines)


def _table_html(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{escape(str(c))}</th>" for c in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="cs336-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def show_table(rows: Iterable[Iterable[object]], header: Sequence[str] | None = None, /, *,
               en: Sequence[str] | None = None, zh: Sequence[str] | None = None) -> None:
    """Show a table (cells already formatted) under one ``header``, or under an English and a Chinese one.

    A cell made by :func:`tr` (a row label: ``tr("params", "参数")``) is English under the English
    header and Chinese under the Chinese one.

    In the book it is an HTML table; its plain-text form (what nbval compares) is the same table in
    aligned columns.
    """
    pair = _pair(header, {"en": en, "zh": zh}, "show_table")
    headers = {None: list(header or [])} if pair is None else {k: list(v) for k, v in pair.items()}
    widths = {len(h) for h in headers.values()}
    if len(widths) != 1 or 0 in widths:
        raise ValueError(f"the headers must name the same, non-zero number of columns, got {sorted(widths)}")
    ncols = widths.pop()
    cells = [[str(c) for c in row] for row in rows]
    if any(len(row) != ncols for row in cells):
        raise ValueError(f"every row must have {ncols} cells")
    # a cell made by tr(en, zh) (a row label) shows its Chinese under the Chinese header
    cells_zh = [[in_zh(c) for c in row] for row in rows]
    if _shell() is None:
        for lang, head in headers.items():
            print(_table_text(head, cells_zh if lang == "zh" else cells))
        return
    for lang, head in headers.items():
        shown = cells_zh if lang == "zh" else cells
        data = {"text/plain": _table_text(head, shown), "text/html": _table_html(head, shown)}
        _publish(data, {} if lang is None or len(headers) == 1 else {LANG_KEY: lang})


def _draws_words(draw: Callable[..., Any]) -> bool:
    """Whether ``draw`` takes the words function ``w`` (the two-language form) or nothing (one language)."""
    import inspect

    return bool(inspect.signature(draw).parameters)


def show_figures(draw: Callable[..., Any], *, alt: str | None = None, alt_en: str | None = None,
                 alt_zh: str | None = None, dpi: int = 110) -> None:
    """Draw a figure and show it as a PNG: ``show_figures(draw, alt=...)`` once, or
    ``show_figures(draw, alt_en=..., alt_zh=...)`` once per language, each tagged with its language.

    ``draw()`` (one language) or ``draw(w)`` (two, every word taken from ``w(en, zh)``) builds and returns
    a matplotlib figure. A Chinese figure uses a CJK font; where none is installed (Colab) it keeps English
    labels and says so in the figure, so the outputs are the same with or without the font.
    The figure's plain-text form is its alt text, which the book also uses as the image's ``alt``.
    """
    pair = _pair(alt, {"en": alt_en, "zh": alt_zh}, "show_figures")
    alts: dict[str | None, str] = {None: _text(alt, "alt")} if pair is None else {
        lang: _text(value, f"alt_{lang}") for lang, value in pair.items()}
    for lang, text in alts.items():
        _show_figure(draw, lang, text, dpi, tagged=len(alts) > 1)


@cache
def _note_no_cjk_font() -> None:
    print("本机没有中文字体（例如 fonts-noto-cjk），图中的中文会显示为方框；"
          "在 Colab 中可运行 !apt-get -qq install fonts-noto-cjk，再重启运行时。")


def _show_figure(draw: Callable[..., Any], lang: str | None, alt: str, dpi: int, *, tagged: bool) -> None:
    import matplotlib.pyplot as plt

    reads = lang or _language or "en"
    font = cjk_font() if reads == "zh" else None
    style: dict[RcKeyType, Any] = {}
    if font is not None:
        style = {"font.sans-serif": [font, "DejaVu Sans"], "font.family": "sans-serif",
                 "axes.unicode_minus": False}
    if reads == "zh" and font is None and not _draws_words(draw):
        _note_no_cjk_font()
    with plt.rc_context(style):
        english_only = reads == "zh" and font is None
        fig = draw(words(reads, english_only=english_only)) if _draws_words(draw) else draw()
        if english_only and _draws_words(draw):
            fig.text(0.5, -0.02, NO_CJK_NOTE, ha="center", va="top", fontsize=9, color="0.35")
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    if _shell() is None:
        print(f"[figure: {alt}]")
        return
    png = base64.b64encode(buffer.getvalue()).decode("ascii")
    metadata: dict[str, Any] = {ALT_KEY: alt}
    if tagged and lang is not None:
        metadata[LANG_KEY] = lang
    _publish({"image/png": png, "text/plain": f"<{alt}>"}, metadata)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
