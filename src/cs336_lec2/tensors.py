"""Storage, strides and offsets: where a tensor's elements sit in memory, and how many bytes they take.

A strided PyTorch tensor is a window onto a flat block of memory, its *storage*. Three numbers per
tensor say which storage elements it shows: its ``shape``, its ``stride`` (how many storage elements
to step over to move one position along each dimension) and its ``storage_offset`` (where element
``(0, 0, ...)`` sits). Element ``index`` lives at storage element

    storage_offset + sum(index[i] * stride[i] for i in range(x.dim()))

Views (slices, transposes, ``view``, ``expand``) share the storage and differ only in these
numbers; copies get a storage of their own. Every function here works on any device, including
``"meta"`` tensors, which have shapes and strides but no memory.

Offsets are counted in **elements of the tensor's dtype**; sizes are in **bytes**.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from .checks import Count, Counts, Is, beartype_on_first_call, is_bool, rule

# The CUDA caching allocator hands out blocks in multiples of this many bytes (kMinBlockSize in
# c10/cuda/CUDACachingAllocator.cpp), so torch.cuda.memory_allocated() counts a 4-byte tensor as 512.
CUDA_BLOCK_BYTES = 512


@rule("a strided (dense), non-quantized torch.Tensor")
def _strided(x: torch.Tensor) -> bool:
    # quantized sub-byte dtypes (quint4x2) pack several elements per byte: no count here holds for them
    return bool(x.layout == torch.strided and not x.is_quantized)


Strided = Annotated[torch.Tensor, Is[_strided]]


def _as_int(value: object, name: str) -> int:
    """``value`` as a Python int (numpy integers included); bools and floats raise ``TypeError``."""
    if is_bool(value):  # numpy's bool too
        raise TypeError(f"{name} must be an int, got bool {value!r}")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}") from None


def memory_bytes(x: Strided) -> int:
    """Bytes the tensor's elements take: ``x.numel() * x.element_size()``.

    This is the size of the elements themselves, not of the storage behind them
    (see :func:`storage_bytes`): a slice of a big tensor has a small ``memory_bytes`` but shares
    the big storage, and an ``expand``-ed tensor reports more bytes than its storage holds, since
    its stride-0 dimensions show the same memory again and again.
    """
    return x.numel() * x.element_size()


def storage_bytes(x: Strided) -> int:
    """Bytes of the whole storage behind ``x``, which every view of it shares."""
    return x.untyped_storage().nbytes()


def same_storage(a: Strided, b: Strided) -> bool:
    """Whether ``a`` and ``b`` are backed by the same storage (one is a view of the other, or both
    are views of a third tensor), judged by the storage's data pointer and device.

    A storage of zero bytes holds no memory to share, so two tensors with empty storages (and
    ``"meta"`` tensors, which have no memory at all) are never reported as sharing.
    """
    sa, sb = a.untyped_storage(), b.untyped_storage()
    if sa.nbytes() == 0 or sb.nbytes() == 0 or a.device.type == "meta" or b.device.type == "meta":
        return False
    return a.device == b.device and sa.data_ptr() == sb.data_ptr()


def contiguous_strides(shape: Counts) -> tuple[int, ...]:
    """The strides (in elements) of a contiguous, row-major tensor of ``shape``.

    The last dimension has stride 1 and each earlier one steps over all the elements of the
    dimensions after it; sizes of 0 count as 1, exactly as ``torch.empty(shape).stride()``.
    """
    shape = tuple(int(size) for size in shape)
    strides = []
    step = 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def element_offset(x: Strided, index: Sequence[Any]) -> int:  # each entry checked below, by position
    """The storage position (in elements of ``x.dtype``) of ``x[index]``.

    ``index`` has one int per dimension (``()`` for a 0-dim tensor); negative entries count from
    the end as in Python. Returns ``x.storage_offset() + sum(index[i] * x.stride(i))``.
    Raises ``TypeError`` for a non-int entry, ``ValueError`` for the wrong number of entries and
    ``IndexError`` (as ``x[index]`` would) for an entry out of range.
    """
    if not isinstance(index, (tuple, list)):
        raise TypeError(f"index must be a tuple of ints, one per dimension, got {type(index).__name__}")
    if len(index) != x.dim():
        raise ValueError(
            f"index must have one entry per dimension of x (x.dim()={x.dim()}), got {len(index)}: {index!r}"
        )
    offset = int(x.storage_offset())
    for dim, (entry, size, stride) in enumerate(zip(index, x.shape, x.stride(), strict=True)):
        i = _as_int(entry, f"index[{dim}]")
        if not -size <= i < size:
            raise IndexError(f"index[{dim}]={i} is out of range for dimension {dim} of size {size}")
        offset += (i % int(size)) * stride
    return offset


def element_offsets(x: Strided) -> torch.Tensor:
    """An int64 CPU tensor of ``x.shape`` whose entry at each index is :func:`element_offset` of it.

    Reading the storage at these positions gives back ``x``: ``storage_view(x)[element_offsets(x)]``
    equals ``x`` element for element.
    """
    offsets = torch.full(x.shape, int(x.storage_offset()), dtype=torch.int64)
    for dim, (size, stride) in enumerate(zip(x.shape, x.stride(), strict=True)):
        along = torch.arange(size, dtype=torch.int64) * stride
        offsets = offsets + along.reshape([size if d == dim else 1 for d in range(x.dim())])
    return offsets


def storage_view(x: Strided) -> torch.Tensor:
    """The whole storage behind ``x`` as a 1-D tensor of ``x.dtype`` (a view: it shares memory with x).

    Its element ``element_offset(x, index)`` is ``x[index]``; it also shows the storage elements
    that ``x`` skips (those of other views, or the columns a slice leaves out).
    """
    length = storage_bytes(x) // x.element_size()
    return x.detach().as_strided((length,), (1,), 0)


def describe_layout(x: Strided) -> str:
    """One line with the layout of ``x``: shape, stride, storage offset, contiguity and dtype."""
    dtype = str(x.dtype).removeprefix("torch.")
    return (
        f"shape={tuple(x.shape)}, stride={x.stride()}, offset={x.storage_offset()}, "
        f"contiguous={x.is_contiguous()}, dtype={dtype}"
    )


def cuda_block_bytes(nbytes: Count) -> int:
    """Bytes ``torch.cuda.memory_allocated()`` charges for one tensor of ``nbytes`` bytes.

    The CUDA caching allocator rounds each request up to a multiple of :data:`CUDA_BLOCK_BYTES`
    (512); an empty tensor allocates nothing. This is a lower bound for requests over 1 MiB, where
    the allocator may hand out a whole cached block that it does not split: up to 1 MiB more
    (kSmallSize in c10/cuda/CUDACachingAllocator.cpp: blocks of the large pool are split only when over 1 MiB remains).
    """
    return -(-int(nbytes) // CUDA_BLOCK_BYTES) * CUDA_BLOCK_BYTES


class _NewTensors(TorchDispatchMode):
    """Records the numel of every tensor an op returns with a storage of its own.

    A view of an input, or of a tensor an earlier op created, is not a new allocation: a ``clone`` or
    ``bmm`` inside ``matmul`` is followed by an ``_unsafe_view`` of its fresh storage, counted once.
    The created tensors are kept until the block ends, so a freed storage's address cannot be reused
    and mistaken for one already seen.
    """

    def __init__(self, inputs: Sequence[torch.Tensor]) -> None:
        super().__init__()
        self.seen: list[torch.Tensor] = list(inputs)
        self.created: list[int] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        if isinstance(out, torch.Tensor) and not any(same_storage(out, t) for t in self.seen):
            self.created.append(out.numel())
            self.seen.append(out)
        return out


def new_tensors(fn: Callable[..., Any], *inputs: Strided) -> list[int]:
    """Run ``fn(*inputs)`` and list the element counts of the tensors its aten ops create, in order.

    A tensor that shares the storage of an input or of a tensor created before it (a view, an ``expand``,
    the ``_unsafe_view`` that follows a ``bmm``) is not new and is left out, so the list shows what really
    gets allocated, each storage once: a broadcast matmul copies its operands, an elementwise add does
    not. It hooks every op with a ``TorchDispatchMode``, as ``FlopCounterMode`` does.
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    tensors = list(inputs)
    with _NewTensors(tensors) as watch:
        fn(*tensors)
    return watch.created


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
