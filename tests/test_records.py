"""Run records are checked on load: a hand-edited record is refused with the file and the field named."""

from __future__ import annotations

import json
import math

import pytest

from cs336_lec2.publish.records import RecordError, check_record, load_record, merge_records

GOOD = {
    "schema": 1,
    "machine": {"device_name": "NVIDIA H100 80GB HBM3", "device_type": "cuda", "torch": "2.13.0"},
    "parameters": {"device": "cuda", "preset": "large"},
    "created": "2026-11-22T00:00:00Z",
    "chapters": [{"name": "05_flops_and_mfu", "seconds": 12.5, "ok": True, "error": None}],
    "measurements": [
        {"kind": "matmul", "dtype": "bf16", "m": 64, "k": 64, "n": 64, "flops_per_sec": 7.1e14, "mfu": 0.72,
         "peak_flops": 989.4e12, "peak_is_estimate": False, "chapter": "05_flops_and_mfu"},
        {"kind": "memory", "label": "x", "estimate_bytes": 496, "measured_bytes": 496},
        {"kind": "timing", "label": "y", "seconds": 0.5},
    ],
}


def _edited(path: str, value: object) -> dict:
    record = json.loads(json.dumps(GOOD))
    *parents, last = path.split(".")
    target = record
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    if value is KeyError:
        del target[last]
    else:
        target[last] = value
    return record


def test_a_good_record_passes():
    assert check_record(GOOD) is GOOD


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        # issue 20.5: each of these was trusted by the results page
        ("chapters.0.ok", "false", r"chapters\[0\]\.ok must be true or false, got 'false'"),
        ("measurements.0.mfu", math.nan, r"measurements\[0\]\.mfu must be a number in \(0, 1\], got nan"),
        ("measurements.0.mfu", 7.5, r"measurements\[0\]\.mfu must be a number in \(0, 1\], got 7\.5"),
        ("measurements.1.estimate_bytes", -248, r"measurements\[1\]\.estimate_bytes must be a whole number >= 0"),
        ("schema", 999, r"schema must be 1 \(what this version of cs336-lec2 writes\), got 999"),
        ("schema", True, r"schema must be 1"),
        # issue 20.14: each of these crashed book --from with a traceback
        ("machine", "H100", r"machine must be an object, got str 'H100'"),
        ("measurements.0.mfu", KeyError, r"measurements\[0\]\.mfu must be a number, got NoneType"),
        ("measurements", None, r"measurements must be a list, got NoneType"),
        ("chapters.0.seconds", "abc", r"chapters\[0\]\.seconds must be a number, got str 'abc'"),
        ("measurements.2.seconds", 10**400, r"measurements\[2\]\.seconds is a 1329-bit integer"),
        ("measurements.2.kind", "speed", r"measurements\[2\]\.kind must be 'matmul', 'memory' or 'timing'"),
        ("measurements.0.m", 2.5, r"measurements\[0\]\.m must be a whole number, got float"),
        ("measurements.0.peak_is_estimate", "no", r"measurements\[0\]\.peak_is_estimate must be true or false"),
        ("chapters", {"a": 1}, r"chapters must be a list"),
        ("parameters", {"device": 1}, r"parameters must be an object of strings"),
        ("measurements.1.label", 3, r"measurements\[1\]\.label must be a string, got int 3"),
    ],
)
def test_hand_edited_records_are_refused_naming_file_and_field(tmp_path, path, value, message):
    (tmp_path / "edited.json").write_text(json.dumps(_edited(path, value)))
    with pytest.raises(RecordError, match=rf"^edited\.json: {message}"):
        load_record(tmp_path / "edited.json")


def test_unreadable_records_are_one_clear_error(tmp_path):
    (tmp_path / "torn.json").write_text('{"schema": 1, "mach')
    with pytest.raises(RecordError, match=r"^torn\.json: not a valid run record"):
        load_record(tmp_path / "torn.json")
    (tmp_path / "bytes.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RecordError, match=r"^bytes\.json: not a valid run record"):
        load_record(tmp_path / "bytes.json")
    (tmp_path / "list.json").write_text("[1]")
    with pytest.raises(RecordError, match=r"^list\.json: a run record is a JSON object, got list"):
        load_record(tmp_path / "list.json")


def test_runs_of_one_machine_merge_chapter_by_chapter():
    """A run cut short, finished by a second run of the missing chapter: one record, each row with its chapter."""
    first = json.loads(json.dumps(GOOD))
    first["measurements"][1]["chapter"] = first["measurements"][2]["chapter"] = "05_flops_and_mfu"
    later = json.loads(json.dumps(GOOD))
    later["created"] = "2026-11-23T00:00:00Z"
    later["chapters"] = [{"name": "14_sharding", "seconds": 30.0, "ok": True, "error": None}]
    later["measurements"] = [{"kind": "timing", "label": "z", "seconds": 0.1, "chapter": "14_sharding"}]
    merged = merge_records([first, later])
    assert [c["name"] for c in merged["chapters"]] == ["05_flops_and_mfu", "14_sharding"]
    assert [m.get("label", m["kind"]) for m in merged["measurements"]] == ["matmul", "x", "y", "z"]
    assert merged["created"] == "2026-11-23T00:00:00Z"
    rerun = json.loads(json.dumps(later))  # chapter 14 again: its new rows replace the old ones
    rerun["measurements"][0]["label"] = "z2"
    assert [m.get("label") for m in merge_records([merged, rerun])["measurements"]][-1:] == ["z2"]
    other = json.loads(json.dumps(later))
    other["machine"]["device_name"] = "NVIDIA H200"
    with pytest.raises(RecordError, match=r"^the records differ in machine.device_name"):
        merge_records([first, other])
    with pytest.raises(RecordError, match="at least one"):
        merge_records([])


def test_cpu_runs_merge_only_on_the_same_core():
    """Two "AMD EPYC" machines of a session were a Zen 3 and a Zen 4: one record must not hold both."""
    zen4, zen3 = (json.loads(json.dumps(GOOD)) for _ in range(2))
    for record, core in ((zen4, "AMD Zen 4 (32 fp32 FLOP/cycle)"), (zen3, "AMD Zen 3 (32 fp32 FLOP/cycle)")):
        record["machine"].update(device_type="cpu", device_name="AMD EPYC", cpu_core=core)
    with pytest.raises(RecordError, match=r"^the records differ in machine.cpu_core"):
        merge_records([zen4, zen3])
    assert merge_records([zen4, json.loads(json.dumps(zen4))])["machine"]["cpu_core"].startswith("AMD Zen 4")
