"""Timing GPU and CPU work correctly: warm up first, and on CUDA wait for the kernels to finish.

CUDA calls return as soon as the kernel is *queued*, so a wall-clock timer around ``a @ b``
measures the launch, not the matmul. :func:`benchmark` records CUDA events on the stream around
each call and synchronizes before reading them; on the CPU the work is done when the call returns,
and ``time.perf_counter`` is the right clock. Warm-up runs absorb one-off costs (CUDA context and
cuBLAS handle creation, kernel selection, allocator growth, cold caches).
"""

from __future__ import annotations

import math
import numbers
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any

import torch

from .checks import Is, PositiveCount, PositiveReal, beartype_on_first_call, between, is_bool, is_int, rule
from .device import FloatDtype, device_arg
from .flops import matmul_flops

MAX_SECONDS = 1e6  # one repeat of 11.6 days: a broken clock, never a timing
MAX_REPEATS = 10**6  # more warm-up calls or repeats than this is a typo, not a measurement
MAX_COPY_BYTES = 2**40  # a 1 TiB buffer: more than any device here holds
Warmup = Annotated[int, Is[between(0, MAX_REPEATS)]]  # 2**1100 warm-up calls never return
Repeats = Annotated[int, Is[between(1, MAX_REPEATS)]]
CopyBytes = Annotated[int, Is[between(4, MAX_COPY_BYTES)]]  # 2**62 was a MemoryError
MAX_MATMUL_N = 2**16  # an n x n fp32 matrix of 16 GiB; 2**40 overflowed torch's storage size


@dataclass(frozen=True)
class Timing:
    """The wall-clock seconds of each timed repeat, with their summary statistics (seconds)."""

    times: tuple[float, ...]

    def __post_init__(self) -> None:
        if isinstance(self.times, (str, bytes)) or not isinstance(self.times, tuple | list):
            raise TypeError(f"times must be a tuple of seconds, got {type(self.times).__name__} {self.times!r}")
        if not all(isinstance(t, numbers.Real) and not is_bool(t) for t in self.times):
            raise TypeError(f"times must hold numbers of seconds, got {self.times!r}")
        if not all(0 <= t <= MAX_SECONDS for t in self.times):  # inf, NaN and 1.7e308 s are no timings
            raise ValueError(f"times must be finite non-negative seconds (at most {MAX_SECONDS:g}), got {self.times!r}")
        if not self.times:
            raise ValueError("times must hold at least one measurement")
        if any(not t >= 0 for t in self.times):
            raise ValueError(f"times must be non-negative seconds, got {self.times!r}")

    @property
    def median(self) -> float:
        """Median seconds: the robust summary on a shared machine."""
        return statistics.median(self.times)

    @property
    def min(self) -> float:
        """Fastest repeat in seconds: the least disturbed run."""
        return min(self.times)

    @property
    def max(self) -> float:
        """Slowest repeat in seconds."""
        return max(self.times)

    @property
    def mean(self) -> float:
        """Mean seconds (sensitive to outliers; prefer the median)."""
        return statistics.fmean(self.times)


def benchmark(
    fn: Callable[[], Any],
    *,
    warmup: Warmup = 3,
    repeats: Repeats = 10,
    device: str | torch.device | None = None,
) -> Timing:
    """Time ``fn()`` ``repeats`` times after ``warmup`` untimed calls; returns a :class:`Timing` in seconds.

    ``device`` (None: the "auto" device) selects the clock: on CUDA, events recorded on the current
    stream around each call, read after ``torch.cuda.synchronize()``; elsewhere ``time.perf_counter``.
    """
    dev = device_arg("device", device)
    for _ in range(warmup):
        fn()
    if dev.type == "cuda":
        with torch.cuda.device(dev):
            torch.cuda.synchronize()  # nothing queued before us may land inside the first timing
            pairs = []
            for _ in range(repeats):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                pairs.append((start, end))
            torch.cuda.synchronize()
            return Timing(tuple(start.elapsed_time(end) / 1e3 for start, end in pairs))  # ms -> s
    times = []
    for _ in range(repeats):
        begin = time.perf_counter()
        fn()
        times.append(time.perf_counter() - begin)
    return Timing(tuple(times))


def copy_bandwidth(
    device: str | torch.device | None = None,
    nbytes: CopyBytes | None = None,
    *,
    warmup: Warmup = 2,
    repeats: Repeats = 10,
) -> float:
    """Measured memory bandwidth in bytes/s: a device-to-device copy, counting bytes read + written.

    ``nbytes`` is the size of the buffer copied (default 256 MiB on CUDA, 64 MiB on the CPU: well
    beyond the caches, so the copy streams from memory). Like the STREAM benchmark's "copy" it counts
    ``2 * nbytes`` per copy, and it uses the FASTEST repeat: bandwidth is a capability (the memory
    roof of a roofline), and on a shared machine the slower repeats measure the other jobs.
    """
    dev = device_arg("device", device)
    if nbytes is None:
        nbytes = 2**28 if dev.type == "cuda" else 2**26
    src = torch.ones(nbytes, dtype=torch.uint8, device=dev)
    dst = torch.empty_like(src)
    timing = benchmark(lambda: dst.copy_(src), warmup=warmup, repeats=repeats, device=dev)
    if timing.min <= 0:
        raise RuntimeError(f"a {nbytes}-byte copy timed at {timing.min} s: the clock is too coarse")
    return 2 * nbytes / timing.min


def read_bandwidth(
    device: str | torch.device | None = None,
    nbytes: CopyBytes | None = None,
    *,
    warmup: Warmup = 2,
    repeats: Repeats = 10,
) -> float:
    """Measured READ bandwidth in bytes/s: the fastest warm ``sum`` over an ``nbytes`` fp32 buffer.

    A sum reads every byte once and writes nothing, so it measures what a kernel that mostly reads (a
    matmul re-reading its weight ``W``) gets from memory, without the write-allocate reads a CPU copy
    adds (:func:`copy_bandwidth` counts 2 bytes per byte copied where a cache moves 3). A buffer that
    fits a cache measures the cache. ``nbytes`` defaults to 256 MiB on CUDA, 64 MiB on the CPU.
    """
    dev = device_arg("device", device)
    if nbytes is None:
        nbytes = 2**28 if dev.type == "cuda" else 2**26
    buf = torch.ones(nbytes // 4, device=dev)
    timing = benchmark(buf.sum, warmup=warmup, repeats=repeats, device=dev)
    if timing.min <= 0:
        raise RuntimeError(f"a sum over {nbytes} bytes timed at {timing.min} s: the clock is too coarse")
    return buf.nbytes / timing.min


def matmul_flops_per_sec(
    n: Annotated[int, Is[between(1, MAX_MATMUL_N)]] | None = None,
    dtype: torch.dtype = torch.float32,
    device: str | torch.device | None = None,
    *,
    threads: PositiveCount | None = None,
    warmup: Warmup = 2,
    repeats: Repeats = 5,
) -> float:
    """Measured compute roof in FLOP/s: an ``n x n @ n x n`` matmul (``2 n^3`` FLOPs), FASTEST repeat.

    The compute counterpart of :func:`copy_bandwidth`: what this device actually sustains on a large
    matmul, to set beside the datasheet or estimated peak. ``n`` defaults to 4096 on CUDA and 1024 on
    the CPU; ``threads`` (CPU) runs it with that many torch threads and restores the setting after.
    The inputs are random (constant inputs flip fewer bits and run faster on a power-limited GPU), drawn
    from a private generator, so the global random number generators are not touched.
    """
    dev = device_arg("device", device)
    n = int(4096 if dev.type == "cuda" and n is None else 1024 if n is None else n)
    if not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating-point torch.dtype such as torch.float32, got {dtype!r}")
    before = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(int(threads))
    try:
        gen = torch.Generator().manual_seed(0)  # private, on the CPU: the same inputs on every device
        a, b = (torch.randn(n, n, generator=gen).to(device=dev, dtype=dtype) for _ in range(2))
        timing = benchmark(lambda: a @ b, warmup=warmup, repeats=repeats, device=dev)
    finally:
        torch.set_num_threads(before)
    if timing.min <= 0:
        raise RuntimeError(f"a {n}x{n} matmul timed at {timing.min} s: the clock is too coarse")
    return 2 * n**3 / timing.min


@dataclass(frozen=True)
class HostCopy:
    """A host-to-device copy of ``nbytes``, timed from pageable and from pinned memory (seconds)."""

    nbytes: int
    pageable_s: float  # median of blocking copies from ordinary (pageable) host memory
    pinned_s: float  # median of non_blocking copies from page-locked memory, to completion
    issue_s: float  # how long one pinned non_blocking copy kept the CPU before returning


def host_to_device_copy(nbytes: CopyBytes, device: str | torch.device) -> HostCopy:
    """Time copying ``nbytes`` of float32 to the CUDA ``device``: pageable ``.to(dev)`` against pinned
    ``.to(dev, non_blocking=True)``, and how soon the pinned copy hands the CPU back.

    Raises ValueError off CUDA (``pin_memory()`` needs an accelerator), and RuntimeError if a copy
    arrives different from its source.
    """
    dev = device_arg("device", device)
    if dev.type != "cuda":
        raise ValueError(f"host_to_device_copy times copies to a CUDA device, got {dev}")
    pageable = torch.randn(nbytes // 4)  # float32, ordinary host memory
    pinned = pageable.pin_memory()
    t_pageable = benchmark(lambda: pageable.to(dev), device=dev).median
    t_pinned = benchmark(lambda: pinned.to(dev, non_blocking=True), device=dev).median
    torch.cuda.synchronize(dev)
    t0 = time.perf_counter()
    on_gpu = pinned.to(dev, non_blocking=True)
    t_issue = time.perf_counter() - t0  # the CPU is free again after this...
    torch.cuda.synchronize(dev)  # ...while the copy itself finishes only here
    if not (pinned.is_pinned() and not pageable.is_pinned() and torch.equal(on_gpu.cpu(), pageable)):
        raise RuntimeError("the pinned copy did not arrive equal to its pageable source")
    return HostCopy(nbytes=pageable.nbytes, pageable_s=t_pageable, pinned_s=t_pinned, issue_s=t_issue)


@dataclass(frozen=True)
class Ceiling:
    """The best matmul rate a sweep of shapes reached: the measured ceiling (FLOP/s) and its shape."""

    flops_per_sec: float
    shape: tuple[int, int, int]  # (m, k, n) of the fastest
    tried: tuple[tuple[int, int, int], ...]  # every shape timed, in order
    dtype: torch.dtype


@rule("a non-empty sequence of (m, k, n) triples of positive ints")
def _shapes(shapes: Any) -> bool:
    return bool(len(shapes) > 0 and all(
        isinstance(s, (tuple, list)) and len(s) == 3 and all(is_int(x) and x > 0 for x in s) for s in shapes))


Shapes = Annotated[Sequence[Sequence[int]], Is[_shapes]]


def ceiling_shapes(n: PositiveCount, *, count: Repeats = 20,
                   multiple: PositiveCount = 64) -> tuple[tuple[int, int, int], ...]:
    """``count`` matmul shapes ``(m, k, n)`` around a target size ``n``, as ml-engineering's MAMF finder
    sweeps them: squares at 1/2, 3/4, 1, 5/4 and 3/2 of ``n``, then each size with one dimension doubled;
    sizes rounded up to a ``multiple`` (64: what tensor cores and vector units tile by)."""
    n, count, multiple = int(n), int(count), int(multiple)
    sizes = dict.fromkeys(max(multiple, -(-round(n * f) // multiple) * multiple) for f in (1, 0.75, 1.25, 0.5, 1.5))
    shapes = [(s, s, s) for s in sizes] + [shape for s in sizes for shape in ((2 * s, s, s), (s, 2 * s, s),
                                                                             (s, s, 2 * s))]
    return tuple(dict.fromkeys(shapes))[:count]


def matmul_ceiling(
    shapes: Shapes,
    dtype: FloatDtype = torch.float32,
    device: str | torch.device | None = None,
    *,
    warmup: Warmup = 1,
    repeats: Repeats = 3,
    budget_s: PositiveReal | None = None,
) -> Ceiling:
    """The maximum achievable matmul FLOP/s over ``shapes`` (ml-engineering's MAMF): each ``(m, k, n)`` timed
    by :func:`benchmark` (CUDA events on a GPU, ``perf_counter`` on a CPU), its FASTEST repeat kept, and
    the best rate over all shapes returned with its shape. Inputs are random (as a model's are).
    ``budget_s``: no new shape starts after this many seconds (the first always runs); ``tried`` says
    which ran. A slow dtype (bf16 on a CPU without bf16 units) then costs the budget, not minutes."""
    sizes = tuple((int(m), int(k), int(n)) for m, k, n in shapes)
    dev = device_arg("device", device)
    budget = math.inf if budget_s is None else float(budget_s)
    best: tuple[float, tuple[int, int, int]] = (0.0, sizes[0])
    tried: list[tuple[int, int, int]] = []
    # a private generator on the device, as matmul_flops_per_sec's: the caller's random streams stay as they were
    gen = torch.Generator(device=dev).manual_seed(0)
    begin = time.perf_counter()
    for m, k, n in shapes:
        if tried and time.perf_counter() - begin > budget:
            break
        tried.append((m, k, n))
        a = torch.randn(m, k, device=dev, dtype=dtype, generator=gen)
        b = torch.randn(k, n, device=dev, dtype=dtype, generator=gen)
        seconds = benchmark(partial(torch.matmul, a, b), warmup=warmup, repeats=repeats, device=dev).min
        if seconds > 0 and matmul_flops(m, k, n) / seconds > best[0]:
            best = (matmul_flops(m, k, n) / seconds, (m, k, n))
        del a, b  # free them before the next shape
    if best[0] <= 0:
        raise RuntimeError("every matmul of the sweep timed at 0 s: the clock is too coarse")
    return Ceiling(best[0], best[1], tuple(tried), dtype)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
