"""The Hardware results page's tables (issue 35 item 8): a thing measured is one row on every machine,
whatever it measured there and however that machine's run was set up."""

from __future__ import annotations

from pathlib import Path

from cs336_lec2.publish.results_page import load_records, measured_what, render_markdown

ROOT = Path(__file__).resolve().parent.parent


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
