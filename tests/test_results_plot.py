"""The Hardware results page's figure after ``cs336-lec2 book --from RUN`` (issue 35 item 8): every machine
named whole and apart, Chinese drawn in a CJK font (no "Glyph missing")."""

from __future__ import annotations

import json
import re
import warnings
from itertools import combinations
from pathlib import Path

import pytest

from cs336_lec2 import bilingual
from cs336_lec2.publish.results_page import _columns, load_records
from cs336_lec2.publish.results_plot import mfu_figure

ROOT = Path(__file__).resolve().parent.parent
XEON = "cpu-intel-xeon-amx-2-threads"


def _xeon_twice(lang: str) -> list[tuple[str, dict]]:
    """The committed records and a new Xeon run beside them, as ``book --from`` shows them."""
    records = load_records(ROOT / "book" / "results")
    run = json.loads((ROOT / "book" / "results" / f"{XEON}.json").read_text(encoding="utf-8"))
    return [*records, (f"{XEON}{'（本次构建）' if lang == 'zh' else ' (this build)'}", run)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_figure_names_every_machine_whole_without_overlap(lang):
    records = _xeon_twice(lang)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Glyph … missing from font(s)" is a UserWarning
        fig = mfu_figure(records, lang)
        fig.canvas.draw()
    try:
        labels = [t for t in fig.axes[0].get_xticklabels() if t.get_text()]
        names = [" ".join(t.get_text().split("\n")) for t in labels]
        expected = _columns(records)
        # whole names, wrapped at spaces or hyphens (a hyphen stays at the end of its line)
        assert [n.replace("- ", "-").replace(" ", "") for n in names] == [e.replace(" ", "") for e in expected]
        assert len(set(names)) == len(names) == len(records) and sum(XEON in n.replace("- ", "-") for n in names) == 2
        renderer = fig.canvas.get_renderer()
        boxes = [t.get_window_extent(renderer) for t in labels]
        figure = fig.bbox
        for box in boxes:
            assert figure.x0 <= box.x0 and box.x1 <= figure.x1 and figure.y0 <= box.y0, (box, figure)
        for a, b in combinations(boxes, 2):
            assert not a.overlaps(b), (a, b)
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


def test_the_chinese_figure_draws_chinese_with_a_cjk_font():
    font = bilingual.cjk_font()
    if font is None:
        pytest.skip("no CJK font installed")
    fig = mfu_figure(_xeon_twice("zh"), "zh")
    try:
        label = next(t for t in fig.axes[0].get_xticklabels() if "本次构建" in t.get_text())
        assert label.get_fontfamily() == ["DejaVu Sans", font]  # Latin from DejaVu, Chinese from the CJK font
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


def test_without_a_cjk_font_the_figure_says_this_build_in_english(monkeypatch):
    monkeypatch.setattr(bilingual, "cjk_font", lambda: None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = mfu_figure(_xeon_twice("zh"), "zh")
        fig.canvas.draw()
    try:
        texts = " ".join(t.get_text() for t in fig.axes[0].get_xticklabels())
        assert "this build" in texts and not re.search(r"[\u3000-\u9fff\uff00-\uffef]", texts)
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
