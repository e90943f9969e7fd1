"""What the ranks of a real process group measure about themselves: collectives called, bytes held.

- :func:`count_collectives`: the bytes each ``torch.distributed`` collective is handed, by kind;
- :func:`local_tensor_bytes`: the storage one rank holds (a DTensor counts its local shard);
- :data:`fully_shard`: FSDP2's entry point, None on a torch without it.

The formulas these measurements are held against are :mod:`cs336_lec2.distributed`'s, which need no torch.
"""

from __future__ import annotations

import contextlib
import functools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import torch
import torch.distributed as dist

from ..checks import beartype_on_first_call
from ..memory import tensor_bytes

try:  # FSDP2, public API since torch 2.6 (https://docs.pytorch.org/docs/stable/distributed.fsdp.fully_shard.html).
    # Torch 2.4-2.5 had a prototype under torch.distributed._composable.fsdp; it is not used here.
    from torch.distributed.fsdp import fully_shard
except ImportError:  # pragma: no cover - depends on the installed torch
    fully_shard = None  # type: ignore[assignment]  # an older torch: FSDP2 is then unavailable


def _local(t: torch.Tensor) -> torch.Tensor:
    to_local = getattr(t, "to_local", None)  # a DTensor (FSDP2's sharded parameters): its local shard
    return to_local() if callable(to_local) else t


def local_tensor_bytes(tensors: Iterable[torch.Tensor]) -> int:
    """Bytes of the storages behind ``tensors`` on THIS rank, each once; a DTensor counts its local shard."""
    return tensor_bytes(_local(t) for t in tensors)


# torch.distributed functions and the argument whose size is the collective's full ("payload") buffer.
_COUNTED = {
    "all_reduce": ("all_reduce", 0), "broadcast": ("broadcast", 0),
    "all_gather_into_tensor": ("all_gather", 0), "all_gather_single": ("all_gather", 0),
    "reduce_scatter_tensor": ("reduce_scatter", 1), "reduce_scatter_single": ("reduce_scatter", 1),
}


class CollectiveCounter:
    """Bytes passed to ``torch.distributed`` collectives, by kind: :attr:`payload_bytes`, :attr:`calls`."""

    def __init__(self) -> None:
        self.payload_bytes: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self._depth = 0


@contextlib.contextmanager
def count_collectives() -> Iterator[CollectiveCounter]:
    """Count the collectives called through ``torch.distributed`` inside the block (outermost calls only).

    The payload is the full buffer: the tensor of an all-reduce or broadcast, the OUTPUT of an
    all-gather, the INPUT of a reduce-scatter. Calls made from C++ (DDP's default hook) are not
    seen; give DDP a comm hook that calls ``dist.all_reduce``.
    """
    counter = CollectiveCounter()
    originals = {name: getattr(dist, name) for name in _COUNTED if hasattr(dist, name)}

    def wrap(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        kind, position = _COUNTED[name]
        @functools.wraps(fn)
        def counted(*args: Any, **kwargs: Any) -> Any:
            if counter._depth == 0:
                if position < len(args):
                    buffer = args[position]
                else:  # keyword call: the tensor argument this collective's payload is
                    names = {"all_reduce": "tensor", "broadcast": "tensor", "all_gather": "output_tensor",
                             "reduce_scatter": "input"}
                    buffer = kwargs[names[kind]]
                counter.payload_bytes[kind] += buffer.numel() * buffer.element_size()
                counter.calls[kind] += 1
            counter._depth += 1
            try:
                return fn(*args, **kwargs)
            finally:
                counter._depth -= 1

        return counted

    for name, fn in originals.items():
        setattr(dist, name, wrap(name, fn))
    try:
        yield counter
    finally:
        for name, fn in originals.items():
            setattr(dist, name, fn)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
