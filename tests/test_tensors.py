"""Tests of cs336_lec2.tensors: offsets agree with PyTorch's own indexing for every view we can build."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from cs336_lec2.tensors import (
    CUDA_BLOCK_BYTES,
    contiguous_strides,
    cuda_block_bytes,
    describe_layout,
    element_offset,
    element_offsets,
    memory_bytes,
    new_tensors,
    same_storage,
    storage_bytes,
    storage_view,
)

QUANTIZED = {torch.qint8, torch.quint8, torch.qint32, torch.quint4x2, torch.quint2x4}
DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.int16, torch.uint8, torch.int64]
shapes = st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple)


@st.composite
def strided_views(draw: st.DrawFn) -> tuple[torch.Tensor, torch.Tensor]:
    """A random tensor and a view of it: sliced with steps, permuted, maybe unsqueezed or expanded."""
    shape = draw(st.lists(st.integers(1, 5), min_size=1, max_size=4))
    dtype = draw(st.sampled_from(DTYPES))
    base = torch.arange(1, 1 + int(np.prod(shape)), dtype=torch.int64).to(dtype).reshape(shape)
    slices = []
    for size in shape:
        start = draw(st.integers(0, size - 1))
        stop = draw(st.integers(start, size))
        slices.append(slice(start, stop, draw(st.integers(1, 3))))
    view = base[tuple(slices)]
    view = view.permute(draw(st.permutations(range(view.dim()))))
    if draw(st.booleans()):
        dim = draw(st.integers(0, view.dim()))
        view = view.unsqueeze(dim).expand(*view.shape[:dim], draw(st.integers(1, 3)), *view.shape[dim:])
    return base, view


def all_indices(x: torch.Tensor) -> list[tuple[int, ...]]:
    return list(itertools.product(*(range(n) for n in x.shape)))


def read_via_untyped_storage(x: torch.Tensor, offset: int) -> torch.Tensor:
    """The element of ``x.dtype`` at element position ``offset`` of x's storage, read as raw bytes."""
    raw = torch.empty(0, dtype=torch.uint8).set_(x.untyped_storage())
    size = x.element_size()
    return raw[offset * size : (offset + 1) * size].view(x.dtype)[0]


@given(strided_views())
def test_element_offset_reads_the_element_from_the_untyped_storage(views) -> None:
    base, view = views
    assert same_storage(base, view)
    for index in all_indices(view):
        offset = element_offset(view, index)
        expected = view[index]
        assert torch.equal(read_via_untyped_storage(view, offset), expected)
        assert torch.equal(view.as_strided((), (), offset), expected)
        assert torch.equal(base.flatten()[offset], expected)  # the base is contiguous, offset 0


@given(strided_views(), st.data())
def test_negative_indices_count_from_the_end(views, data) -> None:
    _, view = views
    if view.numel() == 0:
        return
    index = tuple(data.draw(st.integers(-n, n - 1)) for n in view.shape)
    positive = tuple(i % n for i, n in zip(index, view.shape, strict=True))
    assert element_offset(view, index) == element_offset(view, positive)
    assert element_offset(view, list(index)) == element_offset(view, positive)
    assert torch.equal(storage_view(view)[element_offset(view, index)], view[index])


@given(strided_views())
def test_element_offsets_index_the_storage_view(views) -> None:
    base, view = views
    offsets = element_offsets(view)
    assert offsets.shape == view.shape and offsets.dtype == torch.int64
    assert torch.equal(storage_view(view)[offsets], view)
    for index in all_indices(view):
        assert offsets[index].item() == element_offset(view, index)
    assert storage_view(view).shape == (base.numel(),)
    assert same_storage(storage_view(view), base)


@given(shapes)
def test_contiguous_strides_match_torch(shape) -> None:
    assert contiguous_strides(shape) == torch.empty(shape).stride()
    assert contiguous_strides(list(shape)) == torch.empty(shape).stride()
    assert torch.empty(shape).as_strided(shape, contiguous_strides(shape)).is_contiguous()


@given(shapes, st.sampled_from(DTYPES))
def test_fresh_tensor_memory_equals_its_storage(shape, dtype) -> None:
    x = torch.zeros(shape, dtype=dtype)
    assert memory_bytes(x) == storage_bytes(x) == x.numel() * dtype.itemsize
    if dtype != torch.bfloat16:  # numpy has no bfloat16
        assert memory_bytes(x) == x.numpy().nbytes
    assert element_offsets(x).flatten().tolist() == list(range(x.numel()))
    assert element_offsets(x).shape == x.shape


def every_dtype() -> list[torch.dtype]:
    """Every non-quantized dtype torch can allocate a plain tensor of on this build (bits, fp8, ...)."""
    found = []
    for name in dir(torch):
        dtype = getattr(torch, name)
        if isinstance(dtype, torch.dtype) and dtype not in found and dtype not in QUANTIZED:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # complex32 announces that it is experimental
                try:
                    torch.empty(6, dtype=dtype)
                except (RuntimeError, TypeError):
                    continue
            found.append(dtype)
    return found


@pytest.mark.parametrize("dtype", every_dtype(), ids=str)
def test_memory_bytes_for_every_dtype(dtype) -> None:
    x = torch.empty(2, 3, dtype=dtype)
    assert memory_bytes(x) == 6 * dtype.itemsize == storage_bytes(x)
    assert memory_bytes(x.T) == memory_bytes(x)
    assert memory_bytes(x[:, :1]) == 2 * dtype.itemsize


@pytest.mark.parametrize(
    ("dtype", "bytes_per_element"),
    [
        (torch.float64, 8),
        (torch.float32, 4),
        (torch.bfloat16, 2),
        (torch.float16, 2),
        (torch.float8_e4m3fn, 1),
        (torch.float8_e5m2, 1),
        (torch.int64, 8),
        (torch.int32, 4),
        (torch.int8, 1),
        (torch.bool, 1),
        (torch.complex64, 8),
        (torch.complex128, 16),
    ],
)
def test_memory_bytes_known_sizes(dtype, bytes_per_element) -> None:
    assert memory_bytes(torch.empty(4, 8, dtype=dtype)) == 32 * bytes_per_element


def test_gpt3_ffn_matrix_on_meta() -> None:
    # d_model = 12288 for GPT-3 175B (Brown et al. 2020, table 2.1); the FFN is 4 * d_model wide.
    w = torch.empty(12288, 4 * 12288, dtype=torch.float32, device="meta")
    assert memory_bytes(w) == 2304 * 2**20 == 2_415_919_104
    assert not same_storage(w, w)  # meta tensors have no memory to share


def test_views_versus_storage_bytes() -> None:
    x = torch.zeros(4, 8)
    row = x[1]
    assert memory_bytes(row) == 8 * 4 and storage_bytes(row) == 32 * 4
    wide = torch.zeros(3).expand(1000, 3)
    assert memory_bytes(wide) == 3000 * 4 and storage_bytes(wide) == 3 * 4


def test_same_storage_for_views() -> None:
    x = torch.arange(24.0).reshape(4, 6)
    views = [x, x[1], x[:, 2:], x.T, x.view(6, 4), x.reshape(24), x.unsqueeze(0), x.detach(),
             x.diagonal(), x[0].expand(3, 6), x.narrow(1, 1, 2), x.flatten()]
    for v in views:
        assert same_storage(x, v) and same_storage(v, x)
    assert same_storage(x[0], x[3])  # disjoint elements, one storage


def test_same_storage_for_copies() -> None:
    x = torch.arange(24.0).reshape(4, 6)
    copies = [x.clone(), x.T.contiguous(), x.T.reshape(24), x.to(torch.float64), x[[0, 1]],
              torch.tensor(x.tolist()), x + 0]
    for c in copies:
        assert not same_storage(x, c) and not same_storage(c, x)
    assert not same_storage(torch.empty(0), torch.empty(0))


def test_mutation_through_a_view_is_seen_by_both() -> None:
    x = torch.zeros(2, 3)
    y = x.T
    y[2, 1] = 7.0
    assert x[1, 2].item() == 7.0
    assert storage_view(x)[element_offset(y, (2, 1))].item() == 7.0


def test_describe_layout() -> None:
    x = torch.zeros(2, 3, dtype=torch.bfloat16)
    assert describe_layout(x) == "shape=(2, 3), stride=(3, 1), offset=0, contiguous=True, dtype=bfloat16"
    assert describe_layout(x.T[1:]) == (
        "shape=(2, 2), stride=(1, 3), offset=1, contiguous=False, dtype=bfloat16"
    )
    assert describe_layout(torch.tensor(1.0)) == (
        "shape=(), stride=(), offset=0, contiguous=True, dtype=float32"
    )


def test_zero_dim_tensor() -> None:
    x = torch.arange(5.0)[3]
    assert element_offset(x, ()) == 3
    assert element_offsets(x).item() == 3


def test_numpy_integers_are_accepted() -> None:
    x = torch.zeros(3, 4)
    assert element_offset(x, (np.int64(2), np.int32(-1))) == 11


@given(st.integers(0, 2**40))
def test_cuda_block_bytes_rounds_up_to_512(nbytes) -> None:
    block = cuda_block_bytes(nbytes)
    assert block % CUDA_BLOCK_BYTES == 0
    assert nbytes <= block < nbytes + CUDA_BLOCK_BYTES


def test_cuda_block_bytes_examples() -> None:
    sizes = (0, 1, 4, 512, 513, 4 * 2**20)
    assert [cuda_block_bytes(n) for n in sizes] == [0, 512, 512, 512, 1024, 4 * 2**20]
    assert cuda_block_bytes(np.int64(4000)) == 4096
    assert contiguous_strides((np.int64(2), 3)) == (3, 1)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("numel", [1, 100, 128, 1000, 2**18, 2**20])
def test_cuda_memory_allocated_grows_by_the_block(numel) -> None:
    torch.cuda.synchronize()
    torch.cuda.empty_cache()  # no cached large block that the allocator could hand out unsplit
    before = torch.cuda.memory_allocated()
    x = torch.empty(numel, dtype=torch.float32, device="cuda")
    assert torch.cuda.memory_allocated() - before == cuda_block_bytes(memory_bytes(x))
    del x


# ---- rejections -------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor:UserWarning")
@pytest.mark.parametrize("fn", [memory_bytes, storage_bytes, element_offsets, storage_view, describe_layout])
def test_rejects_non_tensors_and_sparse(fn) -> None:
    with pytest.raises(TypeError, match=r"x must be a strided \(dense\), non-quantized torch\.Tensor"):
        fn([1.0, 2.0])
    with pytest.raises(ValueError, match="x must be a strided"):
        fn(torch.eye(3).to_sparse())
    quantized = torch.quantize_per_tensor(torch.ones(3), scale=0.5, zero_point=0, dtype=torch.quint8)
    with pytest.raises(ValueError, match=r"x must be a strided \(dense\), non-quantized torch\.Tensor"):
        fn(quantized)


def test_same_storage_rejects_non_tensors() -> None:
    with pytest.raises(TypeError, match=r"a must be a strided \(dense\), non-quantized torch\.Tensor"):
        same_storage(1, torch.zeros(1))
    with pytest.raises(TypeError, match=r"b must be a strided \(dense\), non-quantized torch\.Tensor"):
        same_storage(torch.zeros(1), np.zeros(1))
    with pytest.raises(ValueError, match="b must be a strided"):
        same_storage(torch.zeros(1), torch.eye(2).to_sparse())


def test_element_offset_rejections() -> None:
    x = torch.zeros(3, 4)
    with pytest.raises(TypeError, match=r"index must be Sequence\[(int|Any)\]"):
        element_offset(x, 5)
    with pytest.raises(ValueError, match=r"one entry per dimension of x \(x.dim\(\)=2\), got 1"):
        element_offset(x, (1,))
    with pytest.raises(ValueError, match="got 3"):
        element_offset(x, (1, 2, 0))
    with pytest.raises(IndexError, match="index\\[1\\]=4 is out of range for dimension 1 of size 4"):
        element_offset(x, (0, 4))
    with pytest.raises(IndexError, match="index\\[0\\]=-4 is out of range"):
        element_offset(x, (-4, 0))
    with pytest.raises(IndexError, match="of size 0"):
        element_offset(torch.zeros(2, 0), (0, 0))
    with pytest.raises(TypeError, match=r"index\[0\] must be an int, got float"):
        element_offset(x, (1.0, 0))
    with pytest.raises(TypeError, match="index\\[1\\] must be an int, got bool"):
        element_offset(x, (0, True))
    with pytest.raises(TypeError, match=r"x must be a strided \(dense\), non-quantized torch\.Tensor"):
        element_offset("x", (0,))


@given(st.lists(st.integers(0, 4), max_size=3), st.integers(-(2**20), -1), st.data())
def test_contiguous_strides_rejects_negative_sizes(shape, bad, data) -> None:
    at = data.draw(st.integers(0, len(shape)))
    shape = [*shape[:at], bad, *shape[at:]]
    with pytest.raises(ValueError, match=rf"shape must be a sequence of non-negative ints .*{bad}"):
        contiguous_strides(shape)


def test_contiguous_strides_rejections() -> None:
    with pytest.raises(TypeError, match=r"shape must be a sequence of non-negative ints .*2.0"):
        contiguous_strides((3, 2.0))
    with pytest.raises(TypeError, match=r"shape must be a sequence of non-negative ints .*True"):
        contiguous_strides((True,))
    with pytest.raises(TypeError, match=r"shape must be a (tuple|sequence) of non-negative ints.*got int"):
        contiguous_strides(3)


@pytest.mark.parametrize("bad", [1.5, True, "512", None, np.float64(4.0)])
def test_cuda_block_bytes_rejects_non_ints(bad) -> None:
    with pytest.raises(TypeError, match=r"nbytes must be a non-negative int below 2\*\*1000"):
        cuda_block_bytes(bad)


def test_cuda_block_bytes_rejects_negative_sizes() -> None:
    with pytest.raises(ValueError, match=r"nbytes must be a non-negative int below 2\*\*1000"):
        cuda_block_bytes(-1)


def test_new_tensors_sees_a_broadcast_matmul_copy_its_operands():
    a, b = torch.randn(2, 1, 16, 32), torch.randn(3, 32, 5)
    created = new_tensors(lambda p, q: p @ q, a, b)
    # both operands copied to the broadcast batch (2, 3), then the (2, 3, 16, 5) result: three storages,
    # each once (the _unsafe_view torch takes of each clone and of the bmm's result is not counted again)
    assert created == [2 * 3 * 16 * 32, 2 * 3 * 32 * 5, 2 * 3 * 16 * 5]


def test_new_tensors_skips_views_and_counts_only_an_adds_result():
    h, bias = torch.randn(4, 8, 2), torch.randn(2)
    assert new_tensors(torch.add, h, bias) == [4 * 8 * 2]  # the bias is read through a stride-0 view
    assert new_tensors(lambda t: t.mT[1:], h) == []  # views of the input allocate nothing
    assert new_tensors(lambda t: t.mT.contiguous(), h) == [h.numel()]
    assert new_tensors(lambda t: (t + 1).view(-1)[2:], h) == [h.numel()]  # a view of a new tensor: not new
    with pytest.raises(TypeError, match="callable"):
        new_tensors("x + 1", h)
