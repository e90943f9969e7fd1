"""Where one step's time goes, op group by op group: a profiler trace joined with predicted FLOPs and bytes.

:func:`profile_step` runs a step first under a ``TorchDispatchMode`` that predicts, for every aten
op, its FLOPs (``torch.utils.flop_counter``'s formulas, the ones ``FlopCounterMode`` uses; one FLOP per
element produced for an elementwise op, a floor; none for a fused kernel without a formula, as
``FlopCounterMode`` counts none) and the bytes it reads and writes (its tensor
arguments and results; views move nothing); then under torch's profiler (shapes and FLOPs recorded),
which measures each op's time: CPU time on a CPU, kernel time on CUDA. Both sides sort ops into the same
:data:`GROUPS`, so each group gets predicted FLOPs and bytes beside a measured time: an achieved FLOP/s,
a bandwidth, and a place on the device's roofline (:meth:`StepProfile.roofline_rows`).
:meth:`StepProfile.mfu_gap` splits ``1 - MFU`` into the time of memory-bound groups, the time not covered
by any op (launches, Python, the autograd engine), matmuls below the peak and recomputed FLOPs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import torch

# torch.profiler.profile wraps this one; its start probes hasattr(torch, "_inductor"), which imports
# torch._inductor (and sympy): seconds on a CPU, for nothing a step's profile needs.
from torch.autograd.profiler import profile, record_function
from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten
from torch.utils.flop_counter import flop_registry

from .checks import FilePath, Is, PositiveReal, beartype_on_first_call, between
from .device import device_arg

Repeats = Annotated[int, Is[between(1, 1000)]]  # profiled steps: more than 1000 is a typo
GROUPS = ("matmul", "attention", "norm", "elementwise", "optimizer", "rest")
MATMUL_GROUPS = ("matmul", "attention")  # the groups whose FLOPs FlopCounterMode counts
_MATMUL = {"linear", "addmm", "mm", "matmul", "addmv", "mv", "dot"}
_ATTENTION = {"bmm", "baddbmm", "scaled_dot_product_attention"}  # the fused kernels and the math path's matmuls
_NORM = {"layer_norm", "native_layer_norm", "native_layer_norm_backward", "rms_norm", "_fused_rms_norm",
         "_fused_rms_norm_backward", "group_norm", "native_group_norm", "native_group_norm_backward"}
_ELEMENTWISE = {"gelu", "gelu_backward", "relu", "relu_", "threshold_backward", "silu", "silu_backward", "add",
                "add_", "mul", "mul_", "div", "div_", "sub", "sub_", "neg", "exp", "tanh", "tanh_backward",
                "sigmoid", "sigmoid_backward", "pow", "sqrt", "rsqrt", "dropout", "native_dropout",
                "native_dropout_backward", "where", "clamp", "clamp_min", "softmax", "_softmax",
                "_softmax_backward_data", "_safe_softmax", "masked_fill", "masked_fill_"}


def op_group(name: str, *, in_optimizer: bool = False, shapes: Iterable[Any] = ()) -> str:
    """The group of an aten op (``"aten::addmm"``, ``"aten.addmm.default"`` or ``"addmm"``).

    ``in_optimizer``: the op ran inside ``Optimizer.step``. ``shapes``: the op's input shapes, which tell a
    batched ``matmul`` (attention's ``q @ kᵀ``, inputs of 4 dimensions) from a layer's (a 2-D weight).
    """
    if in_optimizer:
        return "optimizer"
    base = name.removeprefix("aten::").removeprefix("aten.").split(".")[0]
    if base.startswith("_scaled_dot_product") or base.startswith("_flash_attention") or base in _ATTENTION:
        return "attention"
    if base in _MATMUL:
        dims = [len(s) for s in shapes if isinstance(s, list | tuple)]
        return "attention" if base == "matmul" and len(dims) >= 2 and min(dims[:2]) >= 4 else "matmul"
    if base in _NORM:
        return "norm"
    return "elementwise" if base in _ELEMENTWISE else "rest"


@dataclass
class _Tally:
    flops: int = 0
    bytes: int = 0
    ops: int = 0


class _Predictor(TorchDispatchMode):
    """Predicts FLOPs and bytes per group for every aten op that runs under it."""

    def __init__(self) -> None:
        super().__init__()
        self.groups = {g: _Tally() for g in GROUPS}
        self.formula_flops: dict[str, int] = {}  # FlopCounterMode's count per op: the check
        self.in_optimizer = False

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        packet = func._overloadpacket
        group = op_group(str(packet), in_optimizer=self.in_optimizer)
        tally = self.groups[group]
        outs = [t for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor)]
        ins = [t for t in tree_flatten((args, kwargs))[0] if isinstance(t, torch.Tensor)]
        if packet in flop_registry:
            flops = int(flop_registry[packet](*args, **kwargs, out_val=out))
            name = str(packet)
            self.formula_flops[name] = self.formula_flops.get(name, 0) + flops
        elif group in MATMUL_GROUPS:  # a kernel FlopCounterMode has no formula for (CPU flash attention)
            flops = 0
        else:  # one FLOP per element produced: a floor (a view or a factory op computes nothing)
            flops = 0 if func.is_view or not ins else sum(t.numel() for t in outs)
        if not func.is_view and ins:  # a view moves no bytes; a factory op (empty, zeros) reads none
            storages = {id(t): t.numel() * t.element_size() for t in (*ins, *outs)}
            tally.bytes += sum(storages.values())
        tally.flops += flops
        tally.ops += 1
        return out


@dataclass(frozen=True)
class GroupTime:
    """One op group of a step: predicted FLOPs and bytes, measured seconds, and the profiler's matmul FLOPs."""

    group: str
    flops: int
    bytes: int
    seconds: float
    ops: int

    @property
    def intensity(self) -> float:
        """Predicted FLOPs per byte (0 for a group that moves nothing)."""
        return self.flops / self.bytes if self.bytes else 0.0


@dataclass(frozen=True)
class StepProfile:
    """A profiled step: its :class:`GroupTime` per group, wall time, and FLOP counts for the checks."""

    groups: tuple[GroupTime, ...]
    wall_seconds: float
    device_type: str
    profiler_matmul_flops: int  # torch.profiler's with_flops count of mm / addmm / bmm / baddbmm
    formula_flops: dict[str, int] = field(default_factory=dict)  # FlopCounterMode's formulas, per aten op
    trace: Path | None = None

    @property
    def op_seconds(self) -> float:
        """Seconds covered by ops (CPU time on a CPU, kernel time on CUDA)."""
        return sum(g.seconds for g in self.groups)

    @property
    def matmul_flops(self) -> int:
        """Predicted FLOPs of the matmul and attention groups: what FlopCounterMode counts."""
        return sum(g.flops for g in self.groups if g.group in MATMUL_GROUPS)

    def roofline_rows(self, peak: PositiveReal, bandwidth: PositiveReal) -> list[dict[str, Any]]:
        """Per group: intensity, achieved FLOP/s and bytes/s, the roof at that intensity, and its bound."""
        peak, bandwidth = float(peak), float(bandwidth)
        rows = []
        for g in self.groups:
            if g.seconds <= 0:
                continue
            roof = min(peak, g.intensity * bandwidth)
            rows.append(dict(group=g.group, flops=g.flops, bytes=g.bytes, seconds=g.seconds,
                             intensity=g.intensity, flops_per_sec=g.flops / g.seconds,
                             bytes_per_sec=g.bytes / g.seconds, roof=roof,
                             bound="memory" if g.intensity * bandwidth < peak else "compute"))
        return rows

    def mfu_gap(self, model_flops: PositiveReal, peak: PositiveReal) -> dict[str, float]:
        """The step's time in parts, each a share of the wall time, adding up to 1: ``"mfu"`` and ``1 - MFU``.

        ``overhead``: wall time no op covers (launches, Python, the autograd engine). ``memory-bound ops``:
        the groups other than matmul and attention (norms, elementwise, optimizer, the rest).
        ``recomputation``: matmul FLOPs run beyond the model's (attention recomputed in backward,
        checkpointing), at the peak. ``matmuls below peak``: the rest of the matmul groups' time, beyond
        their FLOPs at the peak (negative only where matmuls beat the peak: then the peak is too low).
        """
        model_flops, peak = float(model_flops), float(peak)
        wall = self.wall_seconds
        mm_time = sum(g.seconds for g in self.groups if g.group in MATMUL_GROUPS)
        used = model_flops / peak / wall
        redone = (self.matmul_flops - model_flops) / peak / wall
        return {"mfu": used, "memory-bound ops": (self.op_seconds - mm_time) / wall,
                "overhead": (wall - self.op_seconds) / wall, "recomputation": redone,
                "matmuls below peak": mm_time / wall - used - redone}


_MARK = "cs336_lec2.profiled_step"


def _outermost_aten(events: Iterable[Any], start: float, end: float) -> Iterable[Any]:
    """Profiler events of aten ops with no aten op above them that began in ``[start, end]`` (µs), each with
    whether it ran in an optimizer. (By time, not by parent: CUDA's backward runs on a thread of its own.)"""
    for e in events:
        if not e.name.startswith("aten::") or not start <= e.time_range.start <= end:
            continue
        parent, in_opt, nested = e.cpu_parent, False, False
        while parent is not None:
            nested |= parent.name.startswith("aten::")
            in_opt |= parent.name.startswith("Optimizer.step")
            parent = parent.cpu_parent
        if not nested:
            yield e, in_opt


@contextmanager
def _native_stderr_off() -> Iterator[None]:
    """Silence file descriptor 2 (C code's stderr, not Python's ``sys.stderr``): kineto writes a "USDT: ...
    profiler_start" / "profiler_stop" line there at every start and stop, and no setting turns it off."""
    saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def _window_seconds(events: list[Any], window: tuple[float, float], cuda: bool) -> dict[str, float]:
    """Seconds per group of the outermost aten ops that began in ``window`` (µs)."""
    seconds = dict.fromkeys(GROUPS, 0.0)
    for e, in_opt in _outermost_aten(events, *window):
        spent = e.device_time_total if cuda else e.cpu_time_total
        seconds[op_group(e.name, in_optimizer=in_opt, shapes=e.input_shapes)] += spent / 1e6  # µs -> s
    return seconds


def step_marks(events: Iterable[Any]) -> list[Any]:
    """The host-side ranges of the profiled steps.

    On CUDA kineto also reports each ``record_function`` range as a GPU annotation of the same name,
    spanning only the kernels it saw: taking the shortest of all of them picked that span (an H200
    step of 8.5 ms measured as 2.8 ms, its forward matmul outside the window). The CPU range, which
    ends after ``synchronize``, covers the whole step.
    """
    return [e for e in events if e.name == _MARK and e.device_type == torch.autograd.DeviceType.CPU]


def profile_step(step: Callable[[], Any], device: str | torch.device | None = None, *,
                 trace: FilePath | None = None, repeats: Repeats = 3) -> StepProfile:
    """Predict and measure ``step`` (a full training step) per op group; see the module doc.

    ``step`` runs once to predict, once as a warm-up under the profiler (whose first step runs slower),
    then ``repeats`` times profiled; the least disturbed of these (the shortest) is the one reported, as
    :func:`~cs336_lec2.timing.benchmark`'s fastest repeat. Warm ``step`` up first. ``trace``: a path for
    ``prof.export_chrome_trace``, the JSON that chrome://tracing and Perfetto (ui.perfetto.dev) open.
    """
    dev = device_arg("device", device)
    predictor = _Predictor()

    def flag(value: bool) -> Callable[..., None]:
        def hook(*_: Any) -> None:
            predictor.in_optimizer = value
        return hook

    hooks = [register_optimizer_step_pre_hook(flag(True)),
             register_optimizer_step_post_hook(flag(False))]
    try:
        with predictor:
            step()
    finally:
        for h in hooks:
            h.remove()
    cuda = dev.type == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    sync()
    prof = profile(use_kineto=True, use_device="cuda" if cuda else None, record_shapes=True, with_flops=True)
    with _native_stderr_off():
        prof.__enter__()
    try:
        step()
        sync()
        for _ in range(repeats):
            with record_function(_MARK):
                step()
                sync()
    finally:
        with _native_stderr_off():
            prof.__exit__(None, None, None)
    events = list(prof.function_events)
    best = min(step_marks(events), key=lambda e: e.time_range.end - e.time_range.start)
    window = (best.time_range.start, best.time_range.end)
    wall = (window[1] - window[0]) / 1e6  # µs -> s: the step as the profiler saw it, synchronized
    seconds = _window_seconds(events, window, cuda)
    mm = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm"}
    profiler_flops = sum(int(e.flops or 0) for e in events
                         if e.name in mm and window[0] <= e.time_range.start <= window[1])
    path = None
    if trace is not None:
        path = Path(trace)
        prof.export_chrome_trace(str(path))
    groups = tuple(GroupTime(g, predictor.groups[g].flops, predictor.groups[g].bytes, seconds[g],
                             predictor.groups[g].ops) for g in GROUPS)
    return StepProfile(groups, wall, dev.type, profiler_flops, dict(predictor.formula_flops), path)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
