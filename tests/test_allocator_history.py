"""Tests of cs336_lec2.allocator_history: CUDA's allocator history as allocated and reserved bytes."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch

from cs336_lec2.allocator_history import CudaTimeline, allocator_series, cuda_timeline, dump_snapshot
from cs336_lec2.results import RESULTS_ENV


def test_allocator_series_follows_allocs_frees_and_segments() -> None:
    events = [
        {"action": "segment_alloc", "size": 2 << 20},
        {"action": "alloc", "size": 1024},
        {"action": "alloc", "size": 512},
        {"action": "free_requested", "size": 1024},  # queued: still allocated
        {"action": "free_completed", "size": 1024},
        {"action": "free_completed", "size": 4096},  # a block allocated before the history began
        {"action": "segment_free", "size": 2 << 20},
    ]
    allocated, reserved = allocator_series(events, allocated=8192, reserved=4 << 20)
    assert allocated.tolist() == [8192, 9216, 9728, 9728, 8704, 4608, 4608]
    assert reserved.tolist() == [6 << 20] * 6 + [4 << 20]


def test_cuda_timeline_refuses_a_cpu_device() -> None:
    with pytest.raises(ValueError, match="CUDA device"):
        cuda_timeline(lambda: None, "cpu")


def test_dump_snapshot_refuses_other_objects(tmp_path) -> None:
    with pytest.raises(TypeError, match="CudaTimeline"):
        dump_snapshot({"segments": []}, tmp_path / "x.pickle")  # type: ignore[arg-type]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="the allocator's history is CUDA's")
def test_cuda_timeline_matches_the_allocator_counters(tmp_path) -> None:
    dev = torch.device("cuda")
    keep = torch.empty(1 << 20, device=dev)  # allocated before the history: the base
    def work() -> float:
        a = torch.randn(1 << 22, device=dev)
        b = a * 2
        del a
        return float(b.sum())
    _, timeline = cuda_timeline(work, dev)
    assert timeline.allocated.max() == timeline.max_allocated >= keep.nbytes + 2 * (4 << 22)
    assert timeline.allocated[-1] == torch.cuda.memory_allocated(dev)
    assert timeline.reserved[-1] == torch.cuda.memory_reserved(dev) >= timeline.allocated.max()
    assert timeline.outside > 0  # the CUDA context lies outside the allocator
    path = dump_snapshot(timeline, tmp_path / "snapshot.pickle")
    assert set(pickle.loads(path.read_bytes())) >= {"segments", "device_traces"}


def test_dump_snapshot_writes_the_pickle_beside_the_results_file(tmp_path, monkeypatch) -> None:
    snapshot = {"segments": [], "device_traces": [[{"action": "alloc", "size": 512}]]}
    timeline = CudaTimeline((), 0, np.zeros(0), np.zeros(0), 0, 0, snapshot)
    monkeypatch.setenv(RESULTS_ENV, str(tmp_path / "run" / "results.jsonl"))
    path = dump_snapshot(timeline)
    assert path == tmp_path / "run" / "memory_snapshot.pickle"
    assert pickle.loads(path.read_bytes()) == snapshot
    assert dump_snapshot(timeline, tmp_path / "x.pickle").exists()
