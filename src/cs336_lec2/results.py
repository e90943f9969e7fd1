"""Headline measurements a chapter publishes for the book's "Hardware results" page.

A chapter calls :func:`publish` with what it measured (a matmul's FLOP/s and MFU, a memory estimate
beside its measurement). When ``cs336-lec2 execute`` runs the chapter it sets the environment
variable :data:`RESULTS_ENV` to a JSON-lines file, and every record is appended there; run by hand
(Jupyter, Colab, nbval) the record is only returned, so a chapter behaves the same either way.
"""

from __future__ import annotations

import json
import math
import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .checks import FilePath, beartype_on_first_call

RESULTS_ENV = "CS336_LEC2_RESULTS"
CHAPTER_ENV = "CS336_LEC2_CHAPTER"
KINDS = ("matmul", "memory", "timing")


def _plain(value: Any, name: str) -> Any:
    """Convert numpy / torch scalars to plain JSON values and refuse what JSON cannot hold."""
    if hasattr(value, "item") and callable(value.item):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{name}={value!r}: a published measurement must be a finite number")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**63:
        raise ValueError(f"{name} is a {value.bit_length()}-bit integer: a published measurement must fit "
                         "in 64 bits (the results page computes with it)")
    if value is not None and not isinstance(value, (str, int, float, bool)):
        raise TypeError(f"{name} must be a str, int, float or bool, got {type(value).__name__}")
    return value


def publish(kind: str, **fields: Any) -> dict[str, Any]:
    """Record one measurement and return it.

    ``kind`` is one of :data:`KINDS`; a ``matmul`` record carries ``dtype``, ``m``, ``k``, ``n``,
    ``flops_per_sec``, ``mfu`` and ``peak_source`` (and, from chapter 5's sweep, ``ceiling_flops``,
    ``ceiling_shape`` and ``mfu_ceiling``: the measured ceiling and the MFU against it); a ``memory`` record ``label``,
    ``estimate_bytes`` and ``measured_bytes``; a ``timing`` record ``label`` and ``seconds``.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    record: dict[str, Any] = {"kind": kind, "chapter": os.environ.get(CHAPTER_ENV)}
    record.update({name: _plain(value, name) for name, value in fields.items()})
    target = os.environ.get(RESULTS_ENV)
    if target:
        with Path(target).open("a", encoding="utf-8") as f:
            f.write(json.dumps(record, sort_keys=True) + "\n")
    return record


def read_published(path: FilePath, warn: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Every record in a JSON-lines file written by :func:`publish` (empty if the file is absent).

    A line that is not a JSON object (torn by a crash or a full disk mid-write) is skipped, with one
    message to ``warn`` (default: a :class:`UserWarning`) naming the file and the line: one bad line
    never costs the other measurements.
    """
    path = Path(path)
    if not path.exists():
        return []
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError) as err:  # RecursionError: nested deeper than json can parse
            record, reason = None, f"not JSON ({err})"
        else:
            reason = "not a JSON object with a 'kind'"
        if isinstance(record, dict) and "kind" in record:
            records.append(record)
            continue
        message = f"{path.name}, line {number}: skipped a measurement that is {reason}"
        if warn is None:
            warnings.warn(message, UserWarning, stacklevel=2)
        else:
            warn(message)
    return records


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
