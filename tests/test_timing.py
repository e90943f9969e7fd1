from __future__ import annotations

import time

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.utils.benchmark import Timer

from cs336_lec2.timing import Timing, benchmark, copy_bandwidth, read_bandwidth


@given(st.lists(st.floats(0, 10, allow_nan=False), min_size=1, max_size=20))
def test_timing_statistics(times):
    timing = Timing(tuple(times))
    assert timing.min <= timing.median <= timing.max
    assert timing.min - 1e-12 <= timing.mean <= timing.max + 1e-12  # fmean may round by an ulp
    assert timing.times == tuple(times)


@pytest.mark.parametrize("bad", [(), (1.0, -0.5), (float("nan"),)])
def test_timing_rejects_empty_or_negative(bad):
    with pytest.raises(ValueError, match="times"):
        Timing(bad)


def test_benchmark_runs_warmup_then_repeats():
    calls = []
    timing = benchmark(lambda: calls.append(1), warmup=2, repeats=5, device="cpu")
    assert len(calls) == 7 and len(timing.times) == 5


def test_benchmark_measures_seconds():
    timing = benchmark(lambda: time.sleep(0.02), warmup=0, repeats=3, device="cpu")
    assert timing.min >= 0.02 and timing.median < 1.0


def test_warmup_is_not_timed():
    state = {"first": True}

    def slow_first_call():
        if state.pop("first", False):
            time.sleep(0.2)

    assert benchmark(slow_first_call, warmup=1, repeats=3, device="cpu").max < 0.1


def test_benchmark_agrees_with_torch_utils_benchmark():
    a = torch.randn(256, 256, generator=torch.Generator().manual_seed(0))
    # One thread for both: with two, a call waits at OpenMP's barrier whenever the other thread is
    # descheduled, and on a shared machine that makes single calls 0.1 ms or 8 ms at random.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        ours = benchmark(lambda: a @ a, warmup=3, repeats=15, device="cpu").min
        timer = Timer("a @ a", globals={"a": a}, num_threads=1)
        timer.timeit(3)  # warm-up, as ours
        theirs = min(timer.timeit(1).mean for _ in range(15))
    finally:
        torch.set_num_threads(threads)
    # Same work, same procedure (single calls, the fastest of 15); a generous factor allows for the load.
    assert theirs / 5 < ours < theirs * 5


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    (dict(repeats=0), ValueError, "repeats"), (dict(repeats=-3), ValueError, "repeats"),
    (dict(warmup=-1), ValueError, "warmup"), (dict(repeats=2.0), TypeError, "repeats"),
    (dict(warmup=True), TypeError, "warmup"), (dict(device="gpu"), ValueError, "device"),
])
def test_benchmark_rejects_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        benchmark(lambda: None, **kwargs)


@pytest.mark.parametrize("fn", [None, 42, "a @ b"])
def test_benchmark_rejects_non_callables(fn):
    with pytest.raises(TypeError, match="fn must be callable"):
        benchmark(fn)


def test_benchmark_on_cuda_without_cuda_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="asks for CUDA"):
        benchmark(lambda: None, device="cuda")


def test_copy_bandwidth_is_plausible():
    bandwidth = copy_bandwidth("cpu", nbytes=2**24, repeats=3)
    # Anything from a slow shared VM (~1 GB/s) to a big server's memory system (~1 TB/s).
    assert 1e8 < bandwidth < 2e12


@pytest.mark.parametrize(("nbytes", "error"), [(0, ValueError), (-8, ValueError), (1.5, TypeError)])
def test_copy_bandwidth_rejects_bad_sizes(nbytes, error):
    with pytest.raises(error, match="nbytes"):
        copy_bandwidth("cpu", nbytes=nbytes)


def test_read_bandwidth_is_bytes_read_over_the_fastest_sum(monkeypatch):
    import cs336_lec2.timing as timing

    assert 1e6 < read_bandwidth("cpu", nbytes=2**24, repeats=3) < 2e12  # a busy shared VM to a big server
    seen = {}

    def fake(fn, *, warmup, repeats, device):
        seen["summed"] = fn().item()  # the sum of the buffer of ones: its element count
        return Timing((0.5, 0.25, 2.0))

    monkeypatch.setattr(timing, "benchmark", fake)
    assert read_bandwidth("cpu", nbytes=4096) == 4096 / 0.25  # bytes over the FASTEST repeat
    assert seen["summed"] == 1024  # 4096 bytes of fp32, each read once


@pytest.mark.parametrize(("nbytes", "error"), [(0, ValueError), (2, ValueError), (1.5, TypeError)])
def test_read_bandwidth_rejects_bad_sizes(nbytes, error):
    with pytest.raises(error, match="nbytes"):
        read_bandwidth("cpu", nbytes=nbytes)


def test_matmul_roof_is_measured_below_the_estimated_peak_and_leaves_state_alone():
    from cs336_lec2.hardware import cpu_peak_estimate
    from cs336_lec2.timing import matmul_flops_per_sec

    threads, rng = torch.get_num_threads(), torch.get_rng_state()
    measured = matmul_flops_per_sec(256, device="cpu", threads=1, repeats=3)
    assert torch.get_num_threads() == threads and torch.equal(torch.get_rng_state(), rng)
    # the estimate is an upper bound on one core: a measurement above it means the CPU model is wrong
    assert 0 < measured <= cpu_peak_estimate("fp32", threads=1).flops


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    (dict(n=0), ValueError, r"n must be an int in \[1, 65536\] or None"),
    (dict(n=2.5), TypeError, "n must be an int"),
    (dict(threads=0), ValueError, "threads must be a positive int"),
    (dict(dtype=torch.int32), TypeError, "dtype must be a floating-point torch.dtype"),
])
def test_matmul_roof_rejects(kwargs, error, match):
    from cs336_lec2.timing import matmul_flops_per_sec

    with pytest.raises(error, match=match):
        matmul_flops_per_sec(device="cpu", **kwargs)


def test_host_to_device_copy_needs_cuda() -> None:
    from cs336_lec2.timing import host_to_device_copy

    with pytest.raises(ValueError, match="CUDA"):
        host_to_device_copy(2**20, "cpu")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="pinned memory and host-to-device copies need CUDA")
def test_host_to_device_copy_pinned_returns_before_it_completes() -> None:
    from cs336_lec2.timing import host_to_device_copy

    got = host_to_device_copy(2**26, "cuda")
    assert got.nbytes == 2**26 and got.pageable_s > 0 and got.pinned_s > 0
    assert got.issue_s < got.pinned_s  # non_blocking from pinned memory: the CPU is back at once


def test_the_ceiling_sweep_leaves_the_callers_random_stream_alone() -> None:
    """A chapter's seeded draws after the sweep must not depend on whether the sweep ran."""
    from cs336_lec2.timing import matmul_ceiling

    torch.manual_seed(1)
    expected = torch.rand(3)
    torch.manual_seed(1)
    matmul_ceiling(((32, 32, 32), (64, 32, 32)), torch.float32, "cpu")
    assert torch.equal(torch.rand(3), expected)
