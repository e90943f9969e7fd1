"""The Hardware results page after ``cs336-lec2 book --from RUN`` (issue 35 item 8): one row per thing
measured on every machine, a figure whose labels are whole and drawn in their language's glyphs."""

from __future__ import annotations

import json
import re
import warnings
from itertools import combinations
from pathlib import Path

import pytest

from cs336_lec2 import bilingual
from cs336_lec2.publish.results_page import (
    _columns,
    load_records,
    measured_what,
    mfu_figure,
    render_markdown,
)

ROOT = Path(__file__).resolve().parent.parent
XEON = "cpu-intel-xeon-amx-2-threads"


def _record(device: str, measurements: list[dict]) -> dict:
    return {"schema": 1, "machine": {"device_name": device, "device_type": "cuda"},
            "parameters": {"device": "cuda", "preset": "large"}, "created": "2026-11-22T00:00:00Z",
            "chapters": [], "measurements": measurements}


def _timing_rows(markdown: str) -> list[list[str]]:
    table = markdown.split("## Timings")[1].split("\n\n")[1]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in table.splitlines()[2:]]


def test_what_was_measured_is_split_from_its_settings_and_its_measured_values():
    m = {"label": "Transformer full training step (4L d=128, B=2, T=64, fp32, AdamW, MFU 0.326)", "mfu": 0.3255}
    assert measured_what(m) == ("Transformer full training step", "4L d=128, B=2, T=64, fp32, AdamW", 0.3255)
    # an earlier chapter's wording, MFU only in the label
    old = {"label": "Transformer training step (24L d=1024, B=16, T=1024, bf16, MFU 0.273)"}
    assert measured_what(old) == ("Transformer full training step", "24L d=1024, B=16, T=1024, bf16", 0.273)
    # parentheses without settings belong to what was measured
    keep = {"label": "ablation: + AdamW(fused=True) (4L d=128, T=64, fp32, MFU 0.378)"}
    assert measured_what(keep)[0] == "ablation: + AdamW(fused=True)"
    plain = {"label": "Cruncher train step on cpu, fp32 (TF32 off), batch=128"}
    assert measured_what(plain) == ("Cruncher train step on cpu, fp32 (TF32 off), batch=128", "", None)


def test_one_measurement_is_one_row_whatever_its_value_and_settings_on_each_machine():
    """Before: the MFU and the model's shape in the label put one timing on a row per machine, the rest '–'."""
    cpu = _record("CPU A", [{"kind": "timing", "chapter": "13", "seconds": 0.0186, "mfu": 0.326,
                             "label": "Transformer full training step (4L d=128, B=2, T=64, fp32, AdamW, MFU 0.326)"}])
    gpu = _record("GPU B", [{"kind": "timing", "chapter": "13", "seconds": 0.147, "mfu": 0.273,
                             "label": "Transformer full training step (24L d=1024, B=16, T=1024, bf16, AdamW, "
                                      "MFU 0.273)"}])
    rows = _timing_rows(render_markdown([("a", cpu), ("b", gpu)], "en", None))
    assert rows == [["Transformer full training step",
                     r"18\.6 ms\, MFU 0\.326 \(4L d\=128\, B\=2\, T\=64\, fp32\, AdamW\)",
                     r"147 ms\, MFU 0\.273 \(24L d\=1024\, B\=16\, T\=1024\, bf16\, AdamW\)"]]
    # settings that agree are said once, in the row's label
    same = _record("GPU C", [{**gpu["measurements"][0], "seconds": 0.1}])
    assert _timing_rows(render_markdown([("b", gpu), ("c", same)], "en", None))[0][0] == (
        r"Transformer full training step \(24L d\=1024\, B\=16\, T\=1024\, bf16\, AdamW\)")


def test_the_committed_records_time_the_training_step_on_one_row():
    rows = _timing_rows(render_markdown(load_records(ROOT / "book" / "results"), "en", None))
    steps = [row for row in rows if row[0].startswith("Transformer full training step")]
    assert len(steps) == 1 and "–" not in steps[0], steps
    assert not any("MFU" in row[0] for row in rows), [row[0] for row in rows]  # no measured value in a label


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
        assert len(set(names)) == len(names) == 4 and sum(XEON in n.replace("- ", "-") for n in names) == 2
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
