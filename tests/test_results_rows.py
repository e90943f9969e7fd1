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


def _matmul(dtype: str, **extra) -> dict:
    return {"kind": "matmul", "chapter": "05_flops_and_mfu", "dtype": dtype, "m": 128, "k": 512, "n": 256,
            "flops_per_sec": 8e10, "mfu": 0.64, "peak_flops": 1.25e11, "peak_is_estimate": True, **extra}


def _matmul_rows(markdown: str) -> dict[str, list[str]]:
    table = markdown.split("\n\n## ")[1].split("\n\n")[1]
    rows = [[cell.strip() for cell in line.strip("|").split(" | ")] for line in table.splitlines()[2:]]
    return {row[0]: row[1:] for row in rows}


def test_the_measured_ceiling_is_a_row_per_dtype_beside_the_datasheet_mfu():
    """Issue 39: the measured ceiling and the MFU against it, per machine, labelled apart from the peak's MFU."""
    from cs336_lec2.publish.results_page import escape

    new = _record("CPU A", [_matmul("fp32", ceiling_flops=1e11, ceiling_shape="320x640x320", mfu_ceiling=0.8)])
    old = _record("CPU B", [_matmul("fp32")])  # a record from before the sweep
    for lang, ceiling, against, mfu in (
            ("en", "fp32: measured ceiling (best shape)", "fp32: MFU against the measured ceiling", "fp32: MFU"),
            ("zh", "fp32：实测上限（最佳形状）", "fp32：以实测上限为分母的 MFU", "fp32：MFU")):
        markdown = render_markdown([("a", new), ("b", old)], lang, None)
        rows = _matmul_rows(markdown)
        assert rows[escape(ceiling)] == [escape("0.100 TFLOP/s (320x640x320)"), "–"], rows
        assert rows[escape(against)] == [escape("0.800"), "–"]
        assert rows[escape(mfu)] == [escape("0.640")] * 2
        assert ("measured ceiling is the best rate" in markdown) == (lang == "en")
    # no ceiling anywhere (the committed records of before): no empty rows, no note
    assert "ceiling" not in render_markdown([("b", old)], "en", None)


def test_a_record_with_an_impossible_ceiling_mfu_is_refused():
    import pytest

    from cs336_lec2.publish.records import RecordError, check_record

    bad = _record("CPU A", [_matmul("fp32", ceiling_flops=1e11, mfu_ceiling=2.0)])
    with pytest.raises(RecordError, match="mfu_ceiling"):
        check_record(bad)
    with pytest.raises(RecordError, match="ceiling_flops"):
        check_record(_record("CPU A", [_matmul("fp32", ceiling_flops=-1.0)]))
    check_record(_record("CPU A", [_matmul("fp32", ceiling_flops=1e11, ceiling_shape="1x2x3", mfu_ceiling=0.8)]))
