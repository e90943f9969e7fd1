from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from cs336_lec2.results import CHAPTER_ENV, RESULTS_ENV, publish, read_published


def test_without_target_the_record_is_only_returned(monkeypatch, tmp_path):
    monkeypatch.delenv(RESULTS_ENV, raising=False)
    monkeypatch.delenv(CHAPTER_ENV, raising=False)
    record = publish("timing", label="matmul", seconds=0.5)
    assert record == {"kind": "timing", "chapter": None, "label": "matmul", "seconds": 0.5}
    assert list(tmp_path.iterdir()) == []


def test_records_are_appended_as_json_lines(monkeypatch, tmp_path):
    target = tmp_path / "results.jsonl"
    monkeypatch.setenv(RESULTS_ENV, str(target))
    monkeypatch.setenv(CHAPTER_ENV, "05_flops_and_mfu")
    publish("matmul", dtype="bf16", m=np.int64(64), k=64, n=64, flops_per_sec=torch.tensor(1.5e9), mfu=0.25)
    publish("memory", label="params", estimate_bytes=144, measured_bytes=144)
    records = read_published(target)
    assert [r["kind"] for r in records] == ["matmul", "memory"]
    assert records[0]["chapter"] == "05_flops_and_mfu"
    assert records[0]["m"] == 64 and isinstance(records[0]["m"], int)
    assert math.isclose(records[0]["flops_per_sec"], 1.5e9)
    assert json.loads(target.read_text().splitlines()[1])["measured_bytes"] == 144


def test_read_published_of_a_missing_file(tmp_path):
    assert read_published(tmp_path / "absent.jsonl") == []


def test_unknown_kind():
    with pytest.raises(ValueError, match="kind must be one of"):
        publish("speed", seconds=1.0)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_values_are_refused(bad):
    with pytest.raises(ValueError, match=r"mfu=.*finite"):
        publish("matmul", mfu=bad)


def test_non_scalar_values_are_refused():
    with pytest.raises(TypeError, match="shape must be a str, int, float or bool"):
        publish("timing", shape=[1, 2])


def test_torn_line_in_measurements_is_skipped_with_a_warning(tmp_path):
    """Issue 20.3: one torn line ("Unterminated string...") cost the whole run record."""
    target = tmp_path / "results.jsonl"
    good = json.dumps({"kind": "timing", "label": "a", "seconds": 0.5})
    target.write_text(good + "\n" + '{"kind": "timing", "label": "b' + "\n[1, 2]\n\n" + good + "\n")
    messages: list[str] = []
    records = read_published(target, warn=messages.append)
    assert [r["label"] for r in records] == ["a", "a"]
    assert len(messages) == 2
    assert messages[0].startswith("results.jsonl, line 2: skipped a measurement that is not JSON")
    assert "line 3" in messages[1]
    with pytest.warns(UserWarning) as caught:
        assert len(read_published(target)) == 2
    assert ["line 2" in str(w.message) for w in caught] == [True, False]


def test_publish_refuses_ints_beyond_64_bits():
    """Issue 20.14: publish(seconds=10**400) was accepted, and the results page then crashed on it."""
    with pytest.raises(ValueError, match=r"^seconds is a 1329-bit integer: a published measurement must fit in 64"):
        publish("timing", label="x", seconds=10**400)
    assert publish("memory", label="x", estimate_bytes=2**62, measured_bytes=1)["estimate_bytes"] == 2**62
