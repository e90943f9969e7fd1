"""The results page's figure: MFU per machine and dtype, one bar each (:mod:`.results_page` has the tables).

Every machine's name is on the x axis whole, wrapped over lines (two machines of one kind differ only at
the end of their names), and the text has glyphs in both languages: Latin from DejaVu Sans, Chinese from
an installed CJK font (:func:`cs336_lec2.bilingual.cjk_font`).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from .results_names import _TEXT, _columns


def _tick_label(name: str, width: int = 18) -> str:
    """A machine's name on the plot's x axis: whole, over as many lines as it needs (never cut: two
    machines of one kind differ only at the end), with ``$`` kept literal (it starts matplotlib's math)."""
    lines = textwrap.wrap(name, width, break_on_hyphens=True, break_long_words=False) or [name]
    return "\n".join(lines).replace("$", r"\$")


def mfu_figure(records: list[tuple[str, dict[str, Any]]], lang: str) -> Any:
    """The bar chart of MFU per machine and dtype (largest size per pair), a matplotlib figure; None if
    there is nothing to plot. Its text is set in DejaVu Sans with an installed CJK font behind it
    (:func:`..bilingual.cjk_font`), so a Chinese run name draws in Chinese; where none is installed, our
    Chinese words fall back to English.
    """
    from ..bilingual import cjk_font

    font = cjk_font()
    columns = _columns(records)
    if font is None:  # no glyphs for our Chinese words: say them in English rather than draw boxes
        columns = [c.replace(_TEXT["zh"]["this_build"], _TEXT["en"]["this_build"]) for c in columns]
    best: dict[tuple[str, str], tuple[int, float]] = {}
    for column, (_, r) in zip(columns, records, strict=True):
        for m in r["measurements"]:
            if m["kind"] == "matmul":
                key, size = (column, str(m["dtype"])), m["m"] * m["k"] * m["n"]
                if size >= best.get(key, (-1, 0.0))[0]:
                    best[key] = (size, float(m["mfu"]))
    if not best:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    devices = [c for c in dict.fromkeys(columns) if any(d == c for d, _ in best)]
    dtypes = list(dict.fromkeys(t for _, t in best))
    width = 0.8 / len(dtypes)
    # Latin glyphs from DejaVu Sans, CJK ones from the font behind it. matplotlib falls back glyph by glyph
    # only along font.family itself: a generic "sans-serif" family resolves to its first installed font
    # alone, which is why the build warned "Glyph … missing" although a CJK font was installed.
    with matplotlib.rc_context({"font.family": ["DejaVu Sans", *([font] if font else [])]}):
        fig, ax = plt.subplots(figsize=(max(5.0, 1.7 * len(devices) + 2), 3.8))
        for i, dtype in enumerate(dtypes):
            xs = [j + i * width for j, d in enumerate(devices) if (d, dtype) in best]
            ys = [best[(d, dtype)][1] for d in devices if (d, dtype) in best]
            ax.bar(xs, ys, width, label=dtype.replace("$", r"\$"))
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(devices))])
        ax.set_xticklabels([_tick_label(d) for d in devices], fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_ylabel(_TEXT[lang]["ylabel"])
        ax.legend(fontsize=8)
        fig.tight_layout()
    return fig


def plot_mfu(records: list[tuple[str, dict[str, Any]]], path: str | Path, lang: str) -> bool:
    """Write :func:`mfu_figure` to ``path`` as a PNG; False if there is nothing to plot."""
    fig = mfu_figure(records, lang)
    if fig is None:
        return False
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
