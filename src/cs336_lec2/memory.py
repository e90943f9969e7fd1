"""Memory of training, in bytes: the lecture's estimate and what PyTorch really holds.

:func:`training_memory` is the estimate: parameters, gradients, optimizer state and activations for
``num_params`` parameters, an optimizer and a precision recipe. The measurement helpers set real
numbers beside it: :func:`parameter_bytes`, :func:`gradient_bytes`, :func:`optimizer_state_bytes`
and :class:`SavedTensorsRecorder` / :func:`saved_activation_bytes`, which record what autograd keeps
for the backward pass. Every measurement counts each storage once (:func:`tensor_bytes`), because
that is the memory a tensor and all its views really occupy; :func:`tensors_in` collects the tensors of
nested containers (a state_dict, a checkpoint) for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import torch
from torch import nn

from .checks import WholeCount, beartype_on_first_call
from .napkin import OPTIMIZER_STATES, PRECISIONS, OptimizerName, Precision, PrecisionName  # noqa: F401  (re-exported)


@dataclass(frozen=True)
class MemoryBreakdown:
    """Bytes of training state, as :func:`training_memory` estimates them.

    ``optimizer_state`` includes the fp32 master copy of the weights under mixed precision (as the
    ZeRO paper counts it): the copy exists only for the optimizer's update. ``bytes_per_param`` is
    ``(params + grads + optimizer_state) / num_params`` — activations depend on the batch, not on
    the parameter count, so they are left out of it.
    """

    num_params: int
    optimizer: str
    precision: str
    params: int
    grads: int
    optimizer_state: int
    activations: int
    bytes_per_param: int
    total: int = field(init=False)  # params + grads + optimizer_state + activations

    def __post_init__(self) -> None:
        object.__setattr__(self, "total", self.params + self.grads + self.optimizer_state + self.activations)


def training_memory(
    num_params: WholeCount, *, optimizer: OptimizerName = "adamw", precision: PrecisionName = "fp32",
    activations: WholeCount = 0,
) -> MemoryBreakdown:
    """Estimate the bytes training holds: parameters, gradients, optimizer state and activations.

    ``optimizer`` is one of :data:`OPTIMIZER_STATES` (how many parameter-sized buffers it keeps);
    ``precision`` one of :data:`PRECISIONS`. ``activations`` is a COUNT of values saved for the
    backward pass (the lecture's ``B * D * num_layers``), stored in the recipe's activation dtype:
    4 bytes in fp32, 2 in mixed_bf16. fp32 AdamW costs ``4 + 4 + 2*4 = 16`` bytes per parameter;
    mixed_bf16 AdamW ``2 + 2 + (4 + 2*4) = 16`` as well — mixed precision saves activation memory
    and time, not parameter memory.
    """
    num_params, activations = int(num_params), int(activations)
    p = PRECISIONS[precision]
    state_per_param = p.master + OPTIMIZER_STATES[optimizer] * p.state
    return MemoryBreakdown(
        num_params=num_params,
        optimizer=optimizer,
        precision=precision,
        params=p.param * num_params,
        grads=p.grad * num_params,
        optimizer_state=state_per_param * num_params,
        activations=p.activation * activations,
        bytes_per_param=p.param + p.grad + state_per_param,
    )


def _storage_key(t: torch.Tensor) -> tuple[str, int, int]:
    """What identifies a tensor's storage: its device, start address and size in bytes.

    Storages without memory (the meta device) all start at address 0, so there the storage object
    itself (its C++ handle, shared by every view of it) tells them apart.
    """
    storage = t.untyped_storage()
    address = storage.data_ptr()
    if address == 0 and storage.nbytes():
        address = getattr(storage, "_cdata", id(storage))
    return (str(t.device), address, storage.nbytes())


def _check_tensor(name: str, t: object) -> torch.Tensor:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must contain only torch.Tensor, got {type(t).__name__}")
    return t


def tensor_bytes(tensors: Iterable[torch.Tensor] | torch.Tensor) -> int:
    """Bytes of the storages behind ``tensors``, each storage counted once.

    Views share their base's storage, so ``[x, x.t(), x[0]]`` counts ``x`` once — and a view counts
    the WHOLE storage it keeps alive, not just the elements it shows.
    """
    if isinstance(tensors, torch.Tensor):
        tensors = [tensors]
    if isinstance(tensors, (str, bytes)):
        raise TypeError(f"tensors must be a tensor or an iterable of tensors, got {type(tensors).__name__} {tensors!r}")
    seen: dict[tuple[str, int, int], int] = {}
    for t in tensors:
        key = _storage_key(_check_tensor("tensors", t))
        seen[key] = key[2]
    return sum(seen.values())


def tensors_in(tree: object) -> list[torch.Tensor]:
    """Every tensor inside nested dicts, lists and tuples (a ``state_dict``, a checkpoint, a part of one).

    Anything that is not a tensor or a container (a step count, a name, None) contributes nothing, so
    ``tensor_bytes(tensors_in(read_checkpoint(path)["optimizer"]))`` is the optimizer state's bytes.
    """
    if isinstance(tree, torch.Tensor):
        return [tree]
    items = tree.values() if isinstance(tree, dict) else tree if isinstance(tree, (list, tuple)) else ()
    return [t for item in items for t in tensors_in(item)]


def parameter_bytes(model: nn.Module) -> int:
    """Bytes of ``model``'s parameters (shared parameters once)."""
    return tensor_bytes(model.parameters())


def gradient_bytes(model: nn.Module) -> int:
    """Bytes of the ``.grad`` tensors of ``model``'s parameters (0 before the first backward pass)."""
    return tensor_bytes(p.grad for p in model.parameters() if p.grad is not None)


def optimizer_state_tensors(optimizer: torch.optim.Optimizer) -> list[torch.Tensor]:
    """Every tensor in ``optimizer.state`` (moments, step counters); plain Python numbers are skipped."""
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}")
    return [value for state in optimizer.state.values() for value in state.values() if isinstance(value, torch.Tensor)]


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    """Bytes of the tensors in ``optimizer.state`` (empty before the first ``step``).

    Only tensors count: plain Python numbers in the state are ignored. Scalar tensors DO count —
    ``torch.optim.Adam`` keeps its ``step`` counter as a 0-d fp32 tensor (4 bytes per parameter
    tensor, not per parameter value), so a measurement can exceed the per-parameter estimate by a
    few bytes.
    """
    return tensor_bytes(optimizer_state_tensors(optimizer))


@dataclass(frozen=True)
class SavedTensor:
    """One tensor autograd saved for backward: its shape, dtype, device and its storage's bytes.

    ``storage_ptr`` is the storage's address, kept so a caller can match a record to a tensor it
    holds (``t.untyped_storage().data_ptr()``); it is left out of the ``repr``.
    """

    shape: tuple[int, ...]
    dtype: torch.dtype
    device: str
    storage_bytes: int
    excluded: bool  # its storage belongs to an excluded tensor (a parameter)
    first_use: bool  # the first time this storage was saved inside the recorder
    storage_ptr: int = field(default=0, repr=False)


class SavedTensorsRecorder:
    """Record every tensor autograd saves for backward while the ``with`` block runs.

    Uses :func:`torch.autograd.graph.saved_tensors_hooks`. Tensors whose storage belongs to one of
    ``exclude`` (pass ``model.parameters()``: weights are not activations) are recorded but not
    counted. :attr:`bytes` counts each storage once — ``relu`` saves its output, and when the next
    matmul saves that same output as its input it costs nothing more. Under ``torch.autocast`` the
    saved weight is a low-precision COPY with a storage of its own, so it is counted: that copy
    really is held until backward. The recorder holds the saved tensors until the block ends (so a
    freed address cannot be reused and mistaken for one already seen), then keeps only their
    descriptions in :attr:`saved`; record one forward pass at a time.
    """

    def __init__(self, exclude: Iterable[torch.Tensor] | torch.Tensor = ()) -> None:
        if isinstance(exclude, torch.Tensor):
            exclude = [exclude]
        self._excluded = {_storage_key(_check_tensor("exclude", t)) for t in exclude}
        self._seen: set[tuple[str, int, int]] = set()
        self._alive: list[torch.Tensor] = []
        self._hooks: Any = None
        self.saved: list[SavedTensor] = []

    def _pack(self, t: torch.Tensor) -> torch.Tensor:
        key = _storage_key(t)
        first = key not in self._seen
        self._seen.add(key)
        self._alive.append(t)
        self.saved.append(
            SavedTensor(tuple(t.shape), t.dtype, str(t.device), key[2], key in self._excluded, first, key[1])
        )
        return t

    @staticmethod
    def _unpack(t: torch.Tensor) -> torch.Tensor:
        return t

    def __enter__(self) -> SavedTensorsRecorder:
        if self._hooks is not None:
            raise RuntimeError("a SavedTensorsRecorder records one with-block only; create a new one")
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)
        self._hooks.__enter__()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._hooks.__exit__(exc_type, exc, tb)
        self._alive.clear()

    @property
    def activations(self) -> list[SavedTensor]:
        """The counted records: not excluded, each storage once (its first save)."""
        return [s for s in self.saved if s.first_use and not s.excluded]

    @property
    def bytes(self) -> int:
        """Bytes of the saved storages that are not excluded, each storage counted once."""
        return sum(s.storage_bytes for s in self.activations)

    @property
    def num_values(self) -> int:
        """Values (elements) in those storages, each storage counted once."""
        return sum(s.storage_bytes // s.dtype.itemsize for s in self.activations)


def saved_activation_bytes(
    fn: Callable[..., Any], *args: Any, exclude: Iterable[torch.Tensor] = (), **kwargs: Any
) -> int:
    """Run ``fn(*args, **kwargs)`` and return the bytes autograd saved for backward (each storage once).

    Tensors sharing storage with ``exclude`` (the parameters) are not counted. The result of ``fn``
    is discarded, so the graph is freed when this returns.
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    with SavedTensorsRecorder(exclude=exclude) as recorder:
        fn(*args, **kwargs)
    return recorder.bytes


@contextmanager
def naming_tensors(model: nn.Module, **tensors: torch.Tensor) -> Iterator[dict[int, str]]:
    """Name the storages one forward pass of ``model`` touches, to read a :class:`SavedTensorsRecorder` by.

    Yields a dict from a storage's address (:attr:`SavedTensor.storage_ptr`) to a name: each of
    ``tensors`` by its keyword (``x=x``), each parameter by its qualified name (``layers.1.weight``)
    and, for forward passes inside the block, each submodule's output as ``layers.0(...)`` and the
    whole model's as ``model(...)`` (a view shares its base's storage, so it gets the outer name).
    The forward hooks are removed when the block ends. Addresses are matched, never shown.
    """
    names = {_check_tensor("tensors", t).untyped_storage().data_ptr(): name for name, t in tensors.items()}
    names.update({p.untyped_storage().data_ptr(): name for name, p in model.named_parameters()})

    def naming(label: str) -> Callable[..., None]:
        def hook(module: nn.Module, inputs: Any, output: Any) -> None:
            if isinstance(output, torch.Tensor):
                names[output.untyped_storage().data_ptr()] = label
        return hook

    handles = [m.register_forward_hook(naming(f"{name or 'model'}(...)")) for name, m in model.named_modules()]
    try:
        yield names
    finally:
        for handle in handles:
            handle.remove()


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
