"""Run records (``run-record.json``, written by ``cs336-lec2 execute``) read back and checked field by field.

A record is hand-editable JSON, and the results page and ``book --from`` trust what it says: an
``"ok": "false"`` counted as ok, an MFU of 7.5 or NaN printed, a negative estimate turned into a
ratio of -2. :func:`load_record` refuses such a record with one line that names the file, the field
and what was expected, before anything is rendered.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ..checks import is_bool
from .execute import RECORD_SCHEMA

MAX_SECONDS = 1e6  # 11.6 days: more for one chapter or one timing is a damaged record, never a duration to print
MAX_INT = 2**63  # what execute and publish() ever write; larger ints would overflow the page's float arithmetic


class RecordError(ValueError):
    """A run record that is not what ``cs336-lec2 execute`` writes; the message names file and field."""


def _number(where: str, value: object, *, minimum: float = 0.0, maximum: float = math.inf,
            open_min: bool = False, whole: bool = False) -> None:
    kind = "a whole number" if whole else "a number"
    if is_bool(value) or not isinstance(value, (int, float)) or (whole and not isinstance(value, int)):
        raise RecordError(f"{where} must be {kind}, got {type(value).__name__} {value!r}")
    if isinstance(value, int) and abs(value) >= MAX_INT:
        raise RecordError(f"{where} is a {value.bit_length()}-bit integer, more than a record holds (64 bits)")
    low_ok = value > minimum if open_min else value >= minimum
    if not (math.isfinite(value) and low_ok and value <= maximum):
        span = f"{'(' if open_min else '['}{minimum:g}, {maximum:g}]" if maximum < math.inf else (
            f"{'>' if open_min else '>='} {minimum:g}")
        raise RecordError(f"{where} must be {kind} {'in ' if maximum < math.inf else ''}{span}, got {value!r}")


def _text(where: str, value: object, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str):
        raise RecordError(f"{where} must be a string, got {type(value).__name__} {value!r}")


def _measurement(where: str, m: object) -> None:
    if not isinstance(m, dict):
        raise RecordError(f"{where} must be an object, got {type(m).__name__}")
    kind = m.get("kind")
    if kind == "matmul":
        _text(f"{where}.dtype", m.get("dtype"))
        for size in ("m", "k", "n"):
            _number(f"{where}.{size}", m.get(size), minimum=1, whole=True)
        _number(f"{where}.flops_per_sec", m.get("flops_per_sec"), open_min=True)
        # MFU above 1 against a datasheet peak is an error, never a number to print (DESIGN.md §6)
        _number(f"{where}.mfu", m.get("mfu"), open_min=True, maximum=1.0)
        if m.get("peak_flops") is not None:
            _number(f"{where}.peak_flops", m.get("peak_flops"), open_min=True)
        # the measured ceiling (issue 39): the best rate of a sweep of shapes; the chapter's rate may pass it
        # by a shared machine's noise, never by a quarter
        if m.get("ceiling_flops") is not None:
            _number(f"{where}.ceiling_flops", m.get("ceiling_flops"), open_min=True)
            _text(f"{where}.ceiling_shape", m.get("ceiling_shape"), optional=True)
        if m.get("mfu_ceiling") is not None:
            _number(f"{where}.mfu_ceiling", m.get("mfu_ceiling"), open_min=True, maximum=1.25)
        if m.get("peak_is_estimate") is not None and not is_bool(m.get("peak_is_estimate")):
            raise RecordError(f"{where}.peak_is_estimate must be true or false, got {m.get('peak_is_estimate')!r}")
    elif kind == "memory":
        _text(f"{where}.label", m.get("label"))
        _number(f"{where}.estimate_bytes", m.get("estimate_bytes"), whole=True)
        _number(f"{where}.measured_bytes", m.get("measured_bytes"), whole=True)
    elif kind == "timing":
        _text(f"{where}.label", m.get("label"))
        _number(f"{where}.seconds", m.get("seconds"), maximum=MAX_SECONDS)
    else:
        raise RecordError(f"{where}.kind must be 'matmul', 'memory' or 'timing', got {kind!r}")
    _text(f"{where}.chapter", m.get("chapter"), optional=True)


def check_record(record: object, name: str = "run record") -> dict[str, Any]:
    """``record`` if it is a run record as ``execute`` writes it, else a :class:`RecordError` naming the field."""
    if not isinstance(record, dict):
        raise RecordError(f"{name}: a run record is a JSON object, got {type(record).__name__}")
    schema = record.get("schema")
    if is_bool(schema) or schema != RECORD_SCHEMA:
        raise RecordError(f"{name}: schema must be {RECORD_SCHEMA} (what this version of cs336-lec2 writes), "
                          f"got {schema!r}")
    machine = record.get("machine")
    if not isinstance(machine, dict):
        raise RecordError(f"{name}: machine must be an object, got {type(machine).__name__} {machine!r}")
    for key in ("device_name", "device", "device_type", "torch", "cpu"):
        _text(f"{name}: machine.{key}", machine.get(key), optional=True)
    parameters = record.get("parameters", {})
    if not isinstance(parameters, dict) or not all(isinstance(v, str) for v in parameters.values()):
        raise RecordError(f"{name}: parameters must be an object of strings, got {parameters!r}")
    _text(f"{name}: created", record.get("created"), optional=True)
    chapters = record.get("chapters", [])
    if not isinstance(chapters, list):
        raise RecordError(f"{name}: chapters must be a list, got {type(chapters).__name__}")
    for i, chapter in enumerate(chapters):
        where = f"{name}: chapters[{i}]"
        if not isinstance(chapter, dict):
            raise RecordError(f"{where} must be an object, got {type(chapter).__name__}")
        _text(f"{where}.name", chapter.get("name"))
        if not is_bool(chapter.get("ok")):
            raise RecordError(f"{where}.ok must be true or false, got {chapter.get('ok')!r}")
        _number(f"{where}.seconds", chapter.get("seconds"), maximum=MAX_SECONDS)
        _text(f"{where}.error", chapter.get("error"), optional=True)
    measurements = record.get("measurements")
    if not isinstance(measurements, list):
        raise RecordError(f"{name}: measurements must be a list, got {type(measurements).__name__} {measurements!r}")
    for i, m in enumerate(measurements):
        _measurement(f"{name}: measurements[{i}]", m)
    return record


def load_record(path: str | Path) -> dict[str, Any]:
    """The run record at ``path``, checked (:func:`check_record`); a :class:`RecordError` names file and field."""
    path = Path(path)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:  # JSONDecodeError is a ValueError
        raise RecordError(f"{path.name}: not a valid run record ({err})") from err
    except RecursionError:  # arrays nested thousands deep: nothing execute writes
        raise RecordError(f"{path.name}: not a valid run record (nested too deeply to read)") from None
    except OSError as err:
        raise RecordError(f"{path.name}: cannot be read ({err.strerror or err})") from err
    return check_record(record, path.name)


def load_records(records_dir: str | Path) -> list[tuple[str, dict[str, Any]]]:
    """``(name, record)`` for every ``*.json`` record in ``records_dir``, sorted by name."""
    return [(path.stem, load_record(path)) for path in sorted(Path(records_dir).glob("*.json"))]


# What must agree for two runs to be one machine's record: the same device, software and problem sizes.
SAME_RUN = (("machine", "device_name"), ("machine", "torch"), ("machine", "cuda"), ("parameters", "preset"))


def merge_records(records: list[dict[str, Any]]) -> dict[str, Any]:
    """One record from runs of different chapters on the same machine (a chapter re-run later wins).

    An instructor whose run was cut short re-runs the missing chapters into another folder; merging keeps
    every measurement with the chapter that made it. Runs on different devices, torch or CUDA versions or
    presets are refused: their numbers do not belong in one column of the results page.
    """
    if not records:
        raise RecordError("give at least one run record to merge")
    checked = [check_record(r, f"record {i + 1}") for i, r in enumerate(records)]
    same: tuple[tuple[str, str], ...] = SAME_RUN
    if any(r["machine"].get("device_type") == "cpu" for r in checked):  # "AMD EPYC" is Zen 3 or Zen 4
        same = (*SAME_RUN, ("machine", "cpu_core"))
    for section, key in same:
        values = {str(r.get(section, {}).get(key)) for r in checked}
        if len(values) > 1:
            raise RecordError(f"the records differ in {section}.{key} ({', '.join(sorted(values))}); "
                              "only runs on one machine with one setup merge")
    chapters: dict[str, dict[str, Any]] = {}
    measurements: dict[str, list[dict[str, Any]]] = {}
    for record in checked:  # in order: a later run of a chapter replaces the earlier one, rows included
        for chapter in record["chapters"]:
            chapters[chapter["name"]] = chapter
            measurements[chapter["name"]] = [m for m in record["measurements"] if m.get("chapter") == chapter["name"]]
    merged = dict(checked[-1])
    merged["chapters"] = [chapters[name] for name in sorted(chapters)]
    merged["measurements"] = [m for name in sorted(measurements) for m in measurements[name]]
    merged["created"] = max(str(r.get("created", "")) for r in checked)
    return check_record(merged, "merged record")
