"""CUDA's caching allocator over a run, read from its own history: allocated, reserved, and the rest.

:func:`cuda_timeline` records ``torch.cuda.memory._record_memory_history`` around a function (one
training step, say) and turns the snapshot's trace into allocated and reserved bytes after every
allocator event (:func:`allocator_series`); :func:`dump_snapshot` writes the snapshot file that PyTorch's
memory visualiser opens. :mod:`~cs336_lec2.memory_timeline` records the same
step op by op, by category, on any device.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .checks import PositiveCount, beartype_on_first_call
from .results import RESULTS_ENV


@dataclass(frozen=True)
class CudaTimeline:
    """CUDA's caching allocator over a run, from its own history (one entry per allocator event).

    ``allocated``: bytes in tensors' blocks (what ``torch.cuda.memory_allocated`` reports, rounded up
    to the allocator's 512-byte blocks); ``reserved``: the segments the allocator holds from the
    driver (``memory_reserved``), freed blocks included. ``outside`` is the device memory in use
    beyond the reserved segments when the run ended: the CUDA context, library handles, other
    processes. ``max_allocated`` is ``torch.cuda.max_memory_allocated`` over the run, a check on
    ``allocated.max()``.
    """

    actions: tuple[str, ...]
    start: int  # bytes allocated when the history began: tensors made before the run
    allocated: np.ndarray
    reserved: np.ndarray
    max_allocated: int
    outside: int
    snapshot: dict[str, Any] = field(repr=False)


def allocator_series(events: Sequence[dict[str, Any]], allocated: int, reserved: int) -> tuple[np.ndarray, np.ndarray]:
    """Allocated and reserved bytes after each event of an allocator trace (``snapshot["device_traces"][i]``).

    ``allocated`` and ``reserved`` are the bytes when the history began: ``alloc`` adds a block,
    ``free_completed`` returns it (``free_requested`` only queues it behind a stream), ``segment_alloc``
    and ``segment_free`` (or ``segment_unmap``) change what is reserved.
    """
    alloc_step = {"alloc": 1, "free_completed": -1}
    reserve_step = {"segment_alloc": 1, "segment_map": 1, "segment_free": -1, "segment_unmap": -1}
    sizes = np.array([int(e["size"]) for e in events], dtype=np.int64)
    a = np.array([alloc_step.get(e["action"], 0) for e in events], dtype=np.int64)
    r = np.array([reserve_step.get(e["action"], 0) for e in events], dtype=np.int64)
    return allocated + np.cumsum(a * sizes), reserved + np.cumsum(r * sizes)


def cuda_timeline(fn: Callable[[], Any], device: torch.device | str | None = None,
                  *, max_entries: PositiveCount = 100_000) -> tuple[Any, CudaTimeline]:
    """Run ``fn()`` with CUDA's allocator history recorded: ``(fn's result, its CudaTimeline)``.

    Uses ``torch.cuda.memory._record_memory_history`` and ``_snapshot`` (private, stable since
    PyTorch 2.1; the history is switched off again afterwards). The snapshot is kept in the result
    for :func:`dump_snapshot`.
    """
    dev = torch.device("cuda" if device is None else device)
    if dev.type != "cuda":
        raise ValueError(f"cuda_timeline reads CUDA's allocator: device must be a CUDA device, got {dev}")
    torch.cuda.synchronize(dev)
    torch.cuda.reset_peak_memory_stats(dev)
    base = (torch.cuda.memory_allocated(dev), torch.cuda.memory_reserved(dev))
    # Python stacks only: symbolising C++ frames can make the snapshot take seconds to minutes;
    # an earlier recording's events are cleared, so the trace starts at ``base``
    torch.cuda.memory._record_memory_history(max_entries=int(max_entries),
                                             stacks="python", clear_history=True)
    try:
        result = fn()
        torch.cuda.synchronize(dev)
        snapshot = torch.cuda.memory._snapshot(dev)
    finally:
        torch.cuda.memory._record_memory_history(enabled=None)
    events = snapshot["device_traces"][dev.index or 0]
    allocated, reserved = allocator_series(events, *base)
    free, total = torch.cuda.mem_get_info(dev)
    return result, CudaTimeline(tuple(e["action"] for e in events), base[0], allocated, reserved,
                                torch.cuda.max_memory_allocated(dev),
                                total - free - torch.cuda.memory_reserved(dev), snapshot)


def dump_snapshot(timeline: CudaTimeline, path: str | Path | None = None) -> Path:
    """Write ``timeline``'s allocator snapshot as the pickle ``torch.cuda.memory._dump_snapshot`` writes.

    ``path`` defaults to ``memory_snapshot.pickle`` beside the run's results file (the folder a
    chapter's run writes to, :data:`cs336_lec2.results.RESULTS_ENV`), else in the working directory.
    To read it, drop the file onto PyTorch's memory visualiser (its ``memory_viz`` page draws the
    allocations over time and the stack of each), or stay offline with
    ``python -m torch.cuda._memory_viz trace FILE`` (every event as text) or ``... stats FILE``.
    """
    if not isinstance(timeline, CudaTimeline):
        raise TypeError(f"timeline must be a CudaTimeline, got {type(timeline).__name__}")
    if path is None:
        results = os.environ.get(RESULTS_ENV)
        path = (Path(results).parent if results else Path()) / "memory_snapshot.pickle"
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as f:
        pickle.dump(timeline.snapshot, f)
    return out


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
