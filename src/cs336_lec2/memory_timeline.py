"""The memory of one training step over time, measured op by op and predicted by the accounting.

:func:`record_step` runs one AdamW step of a :class:`~cs336_lec2.transformer_model.TransformerLM`
(``micro_batches`` forward/backward passes, then ``optimizer.step()``) under a ``TorchDispatchMode``
that sees every aten op, and returns a :class:`Timeline`: after each op, the bytes of live tensor
storage by category. A storage is counted once however many views share it; a ``weakref.finalize``
on it says when it is freed. (``torch.distributed._tools.mem_tracker.MemTracker`` tracks the same
storages per module; this recorder keeps the op-by-op order that a timeline needs.)
:func:`predicted_timeline` draws the same step from the package's formulas
(:mod:`~cs336_lec2.transformer_accounting`, :mod:`~cs336_lec2.activations`) at the op boundaries
the measurement marked; :func:`predicted_cruncher_timeline` does the same for the lecture's
``Cruncher`` (a ``loss`` given to :func:`record_step`, its layers plain or in checkpointed segments).
On CUDA the recorder works as well (a storage's bytes, not the allocator's blocks);
:mod:`~cs336_lec2.allocator_history` reads the allocator's own history beside it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from .activations import activation_bytes_per_layer
from .checks import Count, Flag, PositiveCount, beartype_on_first_call
from .config import Recompute, TransformerConfig
from .memory import optimizer_state_tensors
from .transformer_accounting import parameter_count

CATEGORIES = ("parameters", "buffers", "optimizer state", "gradients", "saved activations",
              "logits and loss", "temporaries")
PHASES = ("forward", "backward", "optimizer")


@dataclass(frozen=True)
class Timeline:
    """Bytes alive after each op of one step, by category (:data:`CATEGORIES`), with the op and its phase.

    ``marks`` are ``(op index, event)`` pairs: ``"forward"``, ``"block j"``, ``"loss"``,
    ``"backward"``, ``"head done"``, ``"block j done"``, ``"optimizer"``: where each event begins.
    """

    ops: tuple[str, ...]
    phases: tuple[str, ...]
    bytes: dict[str, np.ndarray]
    marks: tuple[tuple[int, str], ...] = ()
    total: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "total", sum(self.bytes.values(), np.zeros(len(self.ops), dtype=np.int64)))

    @property
    def peak(self) -> int:
        """The largest total, in bytes."""
        return int(self.total.max())

    @property
    def peak_index(self) -> int:
        """The first op after which the total reaches :attr:`peak`."""
        return int(self.total.argmax())

    def at(self, index: Count) -> dict[str, int]:
        """Bytes by category after op ``index``."""
        if index >= len(self.ops):
            raise ValueError(f"index must be below {len(self.ops)} (the ops recorded), got {index}")
        return {name: int(values[index]) for name, values in self.bytes.items()}


class _Recorder(TorchDispatchMode):
    """Every storage an aten op creates: its size, the op that made it and the op after which it is freed."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: list[str] = []
        self.phases: list[str] = []
        self.phase = "forward"
        self.size: list[int] = []
        self.born: list[int] = []
        self.died: list[int] = []  # -1 while alive
        self.kind: list[str] = []  # "" until classified
        self.live: dict[int, int] = {}  # storage address -> record, while alive
        self.marks: list[tuple[int, str]] = []
        self.finalizers: list[weakref.finalize] = []  # detached when the recording ends

    def track(self, t: object, kind: str = "") -> int | None:
        """The record of ``t``'s storage (new if it is not alive yet); None for a non-tensor or no memory."""
        if not isinstance(t, torch.Tensor) or t.layout != torch.strided:
            return None
        storage = t.untyped_storage()
        address = storage.data_ptr()
        if storage.nbytes() == 0:
            return None
        if address in self.live:
            rid = self.live[address]
        else:
            rid = len(self.size)
            self.live[address] = rid
            self.size.append(storage.nbytes())
            self.born.append(len(self.ops) if kind == "" else 0)
            self.died.append(-1)
            self.kind.append("")
            self.finalizers.append(weakref.finalize(storage, self._free, address, rid))
        if kind and not self.kind[rid]:
            self.kind[rid] = kind
        return rid

    def _free(self, address: int, rid: int) -> None:
        self.died[rid] = len(self.ops)
        if self.live.get(address) == rid:
            del self.live[address]

    def mark(self, event: str) -> None:
        self.marks.append((len(self.ops), event))

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            self.track(t)
        self.ops.append(func.__name__)
        self.phases.append(self.phase)
        return out

    def classify_alive(self, since: int, kind: str) -> None:
        """Give ``kind`` to every unclassified storage alive now and born at op ``since`` or later."""
        for rid in self.live.values():
            if self.born[rid] >= since and not self.kind[rid]:
                self.kind[rid] = kind

    def timeline(self) -> Timeline:
        # what the backward pass creates before the head's input gradient: the loss's gradients
        ends = [i for i, event in self.marks if event == "head done"]
        starts = [i for i, event in self.marks if event == "backward"]
        for rid, born in enumerate(self.born):
            if not self.kind[rid] and any(a <= born < b for a, b in zip(starts, ends, strict=False)):
                self.kind[rid] = "logits and loss"
        n = len(self.ops)
        out = {name: np.zeros(n + 1, dtype=np.int64) for name in CATEGORIES}
        for size, born, died, kind in zip(self.size, self.born, self.died, self.kind, strict=True):
            arr = out[kind or "temporaries"]
            arr[born] += size
            arr[n if died < 0 else died] -= size
        series = {name: np.cumsum(arr)[:n] for name, arr in out.items()}
        return Timeline(tuple(self.ops), tuple(self.phases), series, tuple(self.marks))


def _hook_marks(model: torch.nn.Module, rec: _Recorder) -> list[Any]:
    """Forward hooks that mark each block's start, the head, and (by tensor hooks) their backward ends."""
    handles = []

    def on_input(label: str) -> Callable[..., None]:
        def hook(module: torch.nn.Module, inputs: tuple[Any, ...]) -> None:
            if rec.phase != "forward":  # a checkpointed block's recomputation in backward
                return
            rec.mark(label)
            x = inputs[0]
            if x.requires_grad and torch.is_grad_enabled():
                x.register_hook(lambda g: rec.mark(f"{label} done"))  # its input's grad: its backward ended
        return hook

    # a TransformerLM's blocks and head, or a Cruncher's layers and head
    blocks = getattr(model, "blocks", None) or getattr(model, "layers", [])
    for j, block in enumerate(blocks):
        handles.append(block.register_forward_pre_hook(on_input(f"block {j}")))
    head = getattr(model, "lm_head", None) or getattr(model, "final", None)
    if head is not None:
        handles.append(head.register_forward_pre_hook(on_input("head")))
    return handles


def record_step(model: torch.nn.Module, rows: torch.Tensor, optimizer: torch.optim.Optimizer,
                *, micro_batches: PositiveCount = 1, warm_up: Flag = True,
                loss: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] | None = None) -> Timeline:
    """Record one training step of ``model`` on token ``rows`` ``(B, T + 1)``: next-token loss, AdamW.

    ``loss(output, chunk)`` (``chunk`` a micro-batch's rows) replaces the next-token cross-entropy:
    the model still sees ``chunk[:, :-1]``, so a regression batch packs its targets in the last
    column (a ``Cruncher`` on ``(B, D + 1)`` rows: ``loss=lambda out, c: F.mse_loss(out, c[:, -1])``). Blocks and head
    are marked for a ``TransformerLM`` (``blocks``, ``lm_head``) and for a ``Cruncher`` (``layers``,
    ``final``).

    ``rows`` is split into ``micro_batches`` equal parts, each loss divided by their number and
    backpropagated (gradient accumulation), then ``optimizer.step()``. With ``warm_up`` one step runs
    first, unrecorded, so the optimizer state exists (as in every step but the first); gradients are
    set to None before the recorded step. Categories: the model's parameters and buffers and the
    optimizer's state (by identity), the gradients (``.grad`` after the step), the logits and
    everything the loss creates in forward and backward, the saved activations (storages born in a
    forward pass and still alive at its end) and temporaries (the rest, the batch included).
    """
    k = int(micro_batches)
    if rows.dim() != 2 or rows.shape[0] % k:
        raise ValueError(f"rows must be (B, T + 1) with B a multiple of micro_batches={k}, got {tuple(rows.shape)}")
    chunks = rows.chunk(k)

    def step(rec: _Recorder | None) -> None:
        for chunk in chunks:
            if rec:
                rec.phase, start = "forward", len(rec.ops)
                rec.mark("forward")
            logits = model(chunk[:, :-1])
            if rec:
                rec.track(logits, "logits and loss")
                rec.mark("loss")
                loss_start = len(rec.ops)
            value = (F.cross_entropy(logits.flatten(0, 1), chunk[:, 1:].flatten()) if loss is None
                     else loss(logits, chunk)) / k
            del logits
            if rec:
                rec.classify_alive(loss_start, "logits and loss")
                rec.classify_alive(start, "saved activations")
                rec.phase = "backward"
                rec.mark("backward")
            value.backward()
            del value
        if rec:
            for p in model.parameters():
                if p.grad is not None:
                    rec.track(p.grad, "gradients")
            rec.phase = "optimizer"
            rec.mark("optimizer")
        optimizer.step()

    if warm_up:
        step(None)
    optimizer.zero_grad(set_to_none=True)
    rec = _Recorder()
    for kind, tensors in (("parameters", model.parameters()), ("buffers", model.buffers()),
                          ("optimizer state", optimizer_state_tensors(optimizer)), ("temporaries", [rows])):
        for t in tensors:
            rec.track(t, kind)
    handles = _hook_marks(model, rec)
    try:
        with rec:
            step(rec)
    finally:
        for h in handles:
            h.remove()
    for t in optimizer_state_tensors(optimizer):  # created by a first (unwarmed) step
        rec.track(t, "optimizer state")
    for finalizer in rec.finalizers:  # what outlives the step stays alive to its end
        finalizer.detach()
    return rec.timeline()


def buffer_bytes(config: TransformerConfig) -> int:
    """Bytes of a ``TransformerLM``'s buffers: each block's fp32 causal mask ``n²`` (``n`` the context
    length) and, with rotary positions, its cos and sin tables (``2·n·head_dim``)."""
    n = config.context_length
    rope = 2 * n * config.head_dim if config.positions == "rope" else 0
    return config.num_layers * 4 * (n * n + rope)


def _outside_saved(c: TransformerConfig, b: int, t: int) -> int:
    """Bytes saved outside the blocks (fp32): the int64 positions, the final norm's input and
    statistics, the LM head's input. (The token ids the embedding keeps are the batch's view.)"""
    positions = 8 * t if c.positions == "learned" else 0
    norm = 2 * c.d_model + 1 if c.norm == "rmsnorm" else c.d_model + 2
    return positions + 4 * b * t * (norm + c.d_model)


@dataclass(frozen=True)
class _Parts:
    """The byte counts one predicted region adds up, for one micro-batch of ``b`` sequences."""

    state: dict[str, int]
    block_params: int
    layer: int  # saved per block under the policy
    recomputed: int  # what backward rebuilds of one block beyond ``layer``
    in_flight: int  # gradients of one block's activations alive at once
    later_grads: int  # the embeddings' gradients, made last
    outside: int
    positions: int
    logits: int
    largest_param: int


def _parts(c: TransformerConfig, b: int, t: int, recompute: Recompute) -> _Parts:
    pc = parameter_count(c)
    weights = 4 * pc.total  # fp32
    per_norm = pc.norms // (2 * c.num_layers + 1)
    layer = activation_bytes_per_layer(c, b, t, recompute=recompute)
    widest = max(c.vocab_size, c.context_length if c.positions == "learned" else 0, c.d_ff, c.q_dim + 2 * c.kv_dim)
    return _Parts(
        state={"parameters": weights, "buffers": buffer_bytes(c), "optimizer state": 2 * weights},
        block_params=4 * (pc.attention + pc.mlp + 2 * per_norm) // c.num_layers,
        layer=layer,
        recomputed=activation_bytes_per_layer(c, b, t) - layer,
        in_flight=4 * b * t * (c.d_ff + c.d_model),  # the MLP's hidden gradient and the block output's
        later_grads=4 * (pc.position_embedding + (0 if c.tied_embeddings else pc.token_embedding)),
        outside=_outside_saved(c, b, t),
        positions=8 * t if c.positions == "learned" else 0,
        logits=4 * b * t * c.vocab_size,
        largest_param=4 * c.d_model * widest,
    )


def predicted_timeline(config: TransformerConfig, batch: PositiveCount, seq_len: PositiveCount, measured: Timeline,
                       *, recompute: Recompute = "none", micro_batches: PositiveCount = 1) -> Timeline:
    """The step :func:`record_step` measured, predicted from the formulas at the same op boundaries.

    fp32 AdamW (4 bytes a parameter, 4 a gradient, 8 of state; its 4-byte step counters left out),
    :func:`buffer_bytes`, :func:`~cs336_lec2.activations.activation_bytes_per_layer` for each block
    and the policy, and the fp32 logits ``4·BTV``: two such tensors in the loss (the logits and their
    log-softmax), three at the start of backward (the log-softmax and two gradients). In backward,
    block j's gradients and one block's activation gradients in flight (``4·BT·(d_ff + d)``) are
    added, and what recomputation rebuilds of the block (its full activations less the kept ones);
    the optimizer adds two temporaries as large as the largest parameter. Each region between two
    marks holds its largest value: a step function, read against the measured line.
    """
    c, k, b = config, int(micro_batches), int(batch)
    if b % k:
        raise ValueError(f"batch must be a multiple of micro_batches={k}, got {b}")
    p = _parts(c, b // k, int(seq_len), recompute)
    grads_all = p.state["parameters"]
    L = c.num_layers
    regions: list[dict[str, int]] = []
    grads, accumulated = 0, False
    for _, event in measured.marks:
        now = dict(p.state, gradients=grads)
        word, _, rest = event.partition(" ")
        if event == "forward":
            now["temporaries"] = 0
        elif word == "block" and not rest.endswith("done"):  # block j's forward
            now["saved activations"] = (int(rest) + 1) * p.layer + p.positions
        elif event in ("head", "loss"):
            now["saved activations"] = L * p.layer + p.outside
            now["logits and loss"] = p.logits * (1 if event == "head" else 2)
        elif event == "backward":
            now["saved activations"] = L * p.layer + p.outside
            now["logits and loss"] = 3 * p.logits
        elif rest.endswith("done"):  # the next block's backward: j = L - 1 after the head's
            j = L - 1 if word == "head" else int(rest.split()[0]) - 1
            grads = grads_all if accumulated or j < 0 else grads_all - p.later_grads - j * p.block_params
            now["gradients"] = grads
            now["saved activations"] = (j + 1) * p.layer + p.positions
            now["temporaries"] = p.recomputed + p.in_flight if j >= 0 else 0
        elif event == "optimizer":
            grads = now["gradients"] = grads_all
            now["temporaries"] = 2 * p.largest_param
        accumulated = accumulated or event == "block 0 done"
        regions.append(now)
    return _step_function(measured, regions)


def predicted_cruncher_timeline(dim: PositiveCount, num_layers: PositiveCount, batch: PositiveCount,
                                measured: Timeline, *, checkpoint_every: PositiveCount = 1,
                                micro_batches: PositiveCount = 1) -> Timeline:
    """The step :func:`record_step` measured of a ``Cruncher(dim, num_layers)`` (MSE loss, the
    package's fp32 ``AdamW``) on ``(batch, dim + 1)`` rows, predicted at the same op boundaries.

    With ``a = 4·b·dim`` bytes (one ``b × dim`` activation, ``b = batch / micro_batches``) and
    ``w = 4·dim²`` (one layer's weight): the parameters and AdamW's two moments (``3 · 4P``), the
    batch all step long; in forward, the layers' outputs the backward pass keeps (every one, or with
    layers in checkpointed segments of ``checkpoint_every = c`` only each segment's output) and the
    in-segment outputs alive while a layer runs. In the backward of layer ``j``: the outputs kept
    below it, the ones its segment recomputed up to it, two activation gradients in flight (the one
    it receives and the one it makes; layer 0 makes none), the head's and layers ``j..L-1``'s weight
    gradients (all of them, plus the new one, once a micro-batch has added to them). The optimizer
    adds two temporaries of a layer's weight. Each region between two marks holds its largest value.
    """
    d, L, k, c = int(dim), int(num_layers), int(micro_batches), int(checkpoint_every)
    if L % c or batch % k:
        raise ValueError("checkpoint_every must divide num_layers and micro_batches must divide batch, got "
                         f"checkpoint_every={c}, num_layers={L}, micro_batches={k}, batch={batch}")
    a, w, head, params = 4 * batch // k * d, 4 * d * d, 4 * d, 4 * (L * d * d + d)
    state = {"parameters": params, "optimizer state": 2 * params}
    regions: list[dict[str, int]] = []
    accumulated = False  # a micro-batch has made every gradient
    for start, event in measured.marks:
        accumulated = accumulated or (event == "forward" and start > 0)
        word, _, rest = event.partition(" ")
        grads = params if accumulated else 0
        now = dict(state, gradients=grads, temporaries=4 * batch * (d + 1))  # the whole batch
        if word == "block" and not rest.endswith("done"):  # layer j's forward: its input and output
            j = int(rest)
            now["saved activations"] = (j + 1) // c * a
            now["temporaries"] += (2 - (j % c == 0) - ((j + 1) % c == 0)) * a  # not kept
        elif event in ("head", "loss", "backward"):  # the output, its gradient, the head's gradient
            now["saved activations"] = L // c * a
            now["logits and loss"] = 8 * batch // k + (a if event == "backward" else 0)
            now["gradients"] = grads + head * (event == "backward")
        elif rest.endswith("done"):  # the backward of layer j: the next one down
            j = L - 1 if word == "head" else int(rest.split()[0]) - 1
            now["saved activations"] = (j // c + j % c) * a  # kept below, recomputed up to j
            now["temporaries"] += (2 if j else 1) * a
            now["gradients"] = params + w if accumulated else head + (L - j) * w
        elif event == "optimizer":
            now["gradients"], now["temporaries"] = params, now["temporaries"] + 2 * w
        regions.append(now)
    return _step_function(measured, regions)


def _step_function(measured: Timeline, regions: list[dict[str, int]]) -> Timeline:
    """A prediction over ``measured``'s ops: each region's bytes (one per mark) held until the next mark."""
    values = {name: np.zeros(len(measured.ops), dtype=np.int64) for name in CATEGORIES}
    bounds = [i for i, _ in measured.marks] + [len(measured.ops)]
    for start, end, now in zip(bounds[:-1], bounds[1:], regions, strict=True):
        for name, value in now.items():
            values[name][start:end] = value
    return Timeline(measured.ops, measured.phases, values, measured.marks)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
