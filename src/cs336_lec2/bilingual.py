"""What a chapter says in words, in both languages: printed explanations, tables and figures.

Code is shared between the two editions; words are not. :func:`say` prints an explanation once per
language, :func:`show_table` shows a table once per language and :func:`show_figures` draws a figure
once per language. Each output carries its language in the output's metadata (``{"lang": "en"}`` or
``{"lang": "zh"}``); the book's staging keeps only the edition's own (``publish/cells.py``), and a
reader in Jupyter or Colab sees both, English first. Outside a notebook (a script, a test) both are
printed to stdout.

Numbers, identifiers and libraries' messages stay as they are: only the words are translated.
"""

from __future__ import annotations

import base64
import io
import sys
import unicodedata
from collections.abc import Callable, Sequence
from functools import cache
from html import escape
from typing import Any

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


def say(en: str, zh: str) -> None:
    """Print one explanation in English and in Chinese, each output tagged with its language."""
    texts = {"en": _text(en, "en"), "zh": _text(zh, "zh")}
    if _shell() is None:
        print(texts["en"])
        print(texts["zh"])
        return
    for lang, text in texts.items():
        _publish({"text/plain": text}, {LANG_KEY: lang})


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


def show_table(rows: Sequence[Sequence[object]], *, en: Sequence[str], zh: Sequence[str]) -> None:
    """Show a table (cells already formatted) under an English and a Chinese header.

    In the book it is an HTML table, which wraps on a narrow screen instead of scrolling; its plain-text
    form (what nbval compares) is the same table in aligned columns.
    """
    headers = {"en": list(en), "zh": list(zh)}
    if not headers["en"] or len(headers["en"]) != len(headers["zh"]):
        raise ValueError(f"en and zh must name the same number of columns, got {len(en)} and {len(zh)}")
    cells = [[str(c) for c in row] for row in rows]
    if any(len(row) != len(headers["en"]) for row in cells):
        raise ValueError(f"every row must have {len(headers['en'])} cells")
    if _shell() is None:
        for header in headers.values():
            print(_table_text(header, cells))
        return
    for lang, header in headers.items():
        _publish({"text/plain": _table_text(header, cells), "text/html": _table_html(header, cells)},
                 {LANG_KEY: lang})


def show_figures(draw: Callable[[Words], Any], *, alt_en: str, alt_zh: str, dpi: int = 110) -> None:
    """Draw a figure once per language and show each, tagged with its language, as a PNG.

    ``draw(w)`` builds and returns a matplotlib figure, taking every word from ``w(en, zh)``. The
    Chinese figure uses a CJK font; where none is installed (Colab) it keeps English labels and says so in
    the figure, so the outputs are the same with or without the font.
    The figure's plain-text form is its alt text, which the book also uses as the image's ``alt``.
    """
    import matplotlib.pyplot as plt

    alts = {"en": _text(alt_en, "alt_en"), "zh": _text(alt_zh, "alt_zh")}
    font = cjk_font()
    for lang in LANGUAGES:
        style: dict[str, Any] = {}
        if lang == "zh" and font is not None:
            style = {"font.sans-serif": [font, "DejaVu Sans"], "font.family": "sans-serif",
                     "axes.unicode_minus": False}
        with plt.rc_context(style):
            fig = draw(words(lang, english_only=lang == "zh" and font is None))
            if lang == "zh" and font is None:
                fig.text(0.5, -0.02, NO_CJK_NOTE, ha="center", va="top", fontsize=9, color="0.35")
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
        plt.close(fig)
        if _shell() is None:
            print(f"[figure: {alts[lang]}]")
            continue
        png = base64.b64encode(buffer.getvalue()).decode("ascii")
        _publish({"image/png": png, "text/plain": f"<{alts[lang]}>"}, {LANG_KEY: lang, ALT_KEY: alts[lang]})
