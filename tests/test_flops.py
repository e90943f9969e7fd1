from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from cs336_lec2.flops import (
    ImplausibleMFUError,
    arithmetic_intensity,
    count_elements,
    count_flops,
    einsum_flops,
    einsum_sizes,
    flop_breakdown,
    linear_backward_flops,
    linear_forward_flops,
    matmul_flops,
    measured_mfu,
    mfu,
    roofline,
)
from cs336_lec2.hardware import Peak
from cs336_lec2.napkin import training_flops

dims = st.integers(0, 10**6)
small = st.integers(1, 24)


@given(dims, dims, dims)
def test_matmul_flops_is_two_m_k_n(m, k, n):
    assert matmul_flops(m, k, n) == 2 * m * k * n
    assert isinstance(matmul_flops(m, k, n), int)


@given(small, small, small)
@settings(max_examples=30)
def test_flop_counter_agrees_with_the_formula(m, k, n):
    gen = torch.Generator().manual_seed(m * 10_000 + k * 100 + n)
    a, b = torch.randn(m, k, generator=gen), torch.randn(k, n, generator=gen)
    assert count_flops(torch.matmul, a, b) == matmul_flops(m, k, n)


@given(small, small, small, st.booleans())
@settings(max_examples=20)
def test_linear_backward_flops_match_autograd(batch, d_in, d_out, input_grad):
    x = torch.randn(batch, d_in, requires_grad=input_grad)
    w = torch.randn(d_in, d_out, requires_grad=True)

    def step():
        (x @ w).sum().backward()

    expected = linear_forward_flops(batch, d_in, d_out) + linear_backward_flops(batch, d_in, d_out,
                                                                                 input_grad=input_grad)
    assert count_flops(step) == expected
    assert linear_backward_flops(batch, d_in, d_out) == 2 * linear_forward_flops(batch, d_in, d_out)


def test_count_flops_passes_arguments_and_breaks_down_by_op():
    a, b = torch.ones(4, 8), torch.ones(8, 2)
    assert count_flops(lambda x, *, y: x @ y, a, y=b) == 2 * 4 * 8 * 2
    assert flop_breakdown(torch.mm, a, b) == {"aten.mm": 128}
    assert count_flops(torch.relu, a) == 0  # elementwise work is not counted


@pytest.mark.parametrize("fn", [None, 3, "torch.mm"])
def test_count_flops_rejects_non_callables(fn):
    with pytest.raises(TypeError, match="fn must be callable"):
        count_flops(fn)


@given(st.integers(0, 10**12), st.integers(0, 10**13))
def test_training_flops_is_six_n_d(n, d):
    assert training_flops(n, d) == 6 * n * d


def test_training_flops_accepts_whole_floats():
    assert training_flops(70e9, 15e12) == 6 * 70 * 10**9 * 15 * 10**12


@pytest.mark.parametrize(("args", "error"), [
    ((-1, 2, 3), ValueError), ((1, 2.5, 3), ValueError), ((1, float("nan"), 3), ValueError),
    ((True, 2, 3), TypeError), (("4", 2, 3), TypeError), ((None, 2, 3), TypeError),
])
def test_matmul_flops_rejects_bad_sizes(args, error):
    with pytest.raises(error, match=r"must be a non-negative int below 2\*\*1000"):
        matmul_flops(*args)


@pytest.mark.parametrize(("n", "d"), [(-1, 5), (5, -1), (1.5, 2), (float("inf"), 2)])
def test_training_flops_rejects_bad_counts(n, d):
    with pytest.raises(ValueError, match=r"num_params|num_tokens"):
        training_flops(n, d)


def test_arithmetic_intensity():
    # Square fp32 matmul: 2n³ FLOPs over 3n² elements × 4 bytes = n/6 FLOP/byte.
    assert arithmetic_intensity(1536, 1536, 1536, 4) == pytest.approx(1536 / 6)
    assert arithmetic_intensity(1536, 1536, 1536, torch.bfloat16) == pytest.approx(1536 / 3)
    # A matrix-vector product stays near 1 FLOP per 2-byte element whatever its size.
    assert arithmetic_intensity(8192, 8192, 1, torch.bfloat16) < 1.0


@given(small, small, small, st.sampled_from([1, 2, 4, 8]))
def test_intensity_grows_no_faster_than_the_smallest_dimension(m, k, n, size):
    assert arithmetic_intensity(m, k, n, size) <= 2 * min(m, k, n) / size


@pytest.mark.parametrize(("args", "match"), [
    ((4, 4, 4, 0), "bytes_per_element"), ((4, 4, 4, -2), "bytes_per_element"),
    ((0, 0, 0, 4), "moves no data"), ((-4, 4, 4, 4), r"m must be a non-negative int below 2\*\*1000"),
])
def test_arithmetic_intensity_rejects_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        arithmetic_intensity(*args)


def test_roofline_is_the_lower_of_the_two_roofs():
    assert roofline(10, 100e12, 2e12) == 20e12  # memory-bound
    assert roofline(1000, 100e12, 2e12) == 100e12  # compute-bound
    assert roofline(1000, Peak(50e12, "bf16", "x", "s", False), 2e12) == 50e12
    for bad in ((-1, 1e12, 1e9), (1, 0, 1e9), (1, 1e12, -1)):
        with pytest.raises(ValueError):
            roofline(*bad)


def test_mfu_is_achieved_over_peak():
    assert mfu(1e12, 2.0, 1e12) == 0.5
    assert mfu(0, 1.0, 1e12) == 0.0
    assert mfu(3e12, 1.0, Peak(6e12, "fp32", "cpu", "estimate", True)) == 0.5


def test_mfu_above_one_against_a_datasheet_peak_names_the_causes():
    # The classic slip: a bf16 rate (989.4 TFLOP/s at 100%) divided by the fp32 peak of 67 TFLOP/s.
    with pytest.raises(ImplausibleMFUError, match=r"wrong dtype.*synchronize") as info:
        mfu(989.4e12 * 0.7, 1.0, 67e12)
    assert "MFU 10.3 > 1" in str(info.value)
    assert issubclass(ImplausibleMFUError, ValueError)


def test_mfu_above_one_against_an_estimate_blames_the_estimate():
    with pytest.raises(ImplausibleMFUError, match=r"ESTIMATE and it is too low.*override"):
        mfu(2e11, 1.0, Peak(1e11, "fp32", "AMD EPYC", "estimate", True))


@pytest.mark.parametrize(("args", "match"), [
    ((1e12, 0, 1e12), "seconds"), ((1e12, -1, 1e12), "seconds"), ((1e12, float("nan"), 1e12), "seconds"),
    ((-1, 1, 1e12), "flops"), ((float("inf"), 1, 1e12), "flops"), ((2**1100, 1, 1e12), "flops must be a finite"),
    ((1e12, 1, 0), "peak"), ((1e12, 1, -5e12), "peak"),
])
def test_mfu_rejects_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        mfu(*args)


def test_a_peak_of_zero_flops_is_refused_where_it_is_made():
    with pytest.raises(ValueError, match=r"Peak\(\): flops must be a positive finite number"):
        Peak(0.0, "fp32", "x", "s", False)


def test_mfu_rejects_non_numbers():
    with pytest.raises(TypeError, match="seconds"):
        mfu(1e12, "1 s", 1e12)  # type: ignore[arg-type]
    for flag in (True, np.True_):  # issue 20.7: a bool is no count of FLOPs
        with pytest.raises(TypeError, match=r"flops must be a finite number >= 0"):
            mfu(flag, 1.0, 1e12)


def test_mfu_of_a_huge_flop_count_is_a_clear_error():
    """Issue 20.14: mfu(flops=2**1100) raised OverflowError from math.isfinite."""
    with pytest.raises(ValueError, match=r"flops must be a finite number >= 0"):
        mfu(2**1100, 1.0, 1e12)
    assert mfu(2**60, 1.0, 2.0**61) == 0.5


def test_mfu_not_strict_returns_an_over_estimate_against_an_estimated_peak():
    estimate = Peak(1e11, "bf16", "Apple M2", "estimate", True)
    assert mfu(1.5e11, 1.0, estimate, strict=False) == pytest.approx(1.5)
    assert mfu(5e10, 1.0, estimate, strict=False) == pytest.approx(0.5)  # below 1 nothing changes
    with pytest.raises(ImplausibleMFUError, match="strict=False"):
        mfu(1.5e11, 1.0, estimate)  # strict by default


@pytest.mark.parametrize("peak", [67e12, Peak(67e12, "fp32", "NVIDIA H100 SXM", "datasheet", False)])
def test_mfu_not_strict_still_refuses_a_datasheet_peak_exceeded(peak):
    with pytest.raises(ImplausibleMFUError, match=r"wrong dtype.*boost clock"):
        mfu(132e12, 1.0, peak, strict=False)


@pytest.mark.parametrize("strict", [None, 0, "no"])
def test_mfu_rejects_a_non_bool_strict(strict):
    with pytest.raises(TypeError, match="strict must be True or False"):
        mfu(1e12, 1.0, 2e12, strict=strict)  # type: ignore[arg-type]


def test_count_elements_adds_up_what_each_op_produces():
    x = torch.ones(10)
    assert count_elements(lambda: x + 1) == 10
    assert count_elements(lambda: (x * 2).sum()) == 10 + 1  # the product, then one scalar
    assert count_elements(torch.matmul, torch.ones(2, 3), torch.ones(3, 4)) == 2 * 4
    with pytest.raises(TypeError, match="callable"):
        count_elements(42)


def test_count_elements_of_an_adamw_step_is_a_few_dozen_ops_per_parameter():
    p = torch.zeros(1000, requires_grad=True)
    p.grad = torch.ones(1000)
    opt = torch.optim.AdamW([p], lr=1e-3, foreach=False)
    opt.step()  # the first step allocates the moments
    assert 5 <= count_elements(opt.step) / 1000 <= 40


def test_einsum_flops_is_twice_the_product_of_every_size():
    x, y = torch.randn(2, 3, 4), torch.randn(2, 5, 4)
    pattern = "batch seq1 hidden, batch seq2 hidden -> batch seq1 seq2"
    assert einsum_sizes(pattern, x, y) == {"batch": 2, "seq1": 3, "hidden": 4, "seq2": 5}
    assert einsum_flops(pattern, x, y) == 2 * 2 * 3 * 4 * 5 == count_flops(torch.matmul, x, y.mT)
    a, b = torch.randn(6, 7), torch.randn(7, 8)
    assert einsum_flops("m k, k n -> m n", a, b) == matmul_flops(6, 7, 8)


@pytest.mark.parametrize(("pattern", "shapes", "why"), [
    ("b i h, b j h -> b i", ((2, 3, 4), (2, 5, 4)), "within one operand"),
    ("i, j -> i j", ((3,), (5,)), "sums over nothing"),
    ("b s h, b t h -> b s t", ((2, 3, 4), (2, 5, 3)), "'h' is 4 and 3"),
    ("b s h, b t h -> b s t", ((2, 3, 4), (5, 4)), "name every dim"),
    ("... i k, ... k j -> ... i j", ((2, 3, 4), (2, 4, 5)), "two operands"),
    ("i k, k j, j l -> i l", ((2, 3), (3, 4)), "two operands"),
    ("i k, k j", ((2, 3), (3, 4)), "one '->'"),
])
def test_einsum_flops_refuses_what_it_cannot_price(pattern, shapes, why):
    a, b = (torch.zeros(s) for s in shapes)
    with pytest.raises(ValueError, match=why):
        einsum_flops(pattern, a, b)


def test_measured_mfu_is_none_without_a_peak_and_the_ratio_otherwise():
    assert measured_mfu(1e12, 1.0, None) is None
    datasheet = Peak(4e12, "bf16", "NVIDIA H100 SXM", "datasheet", False)
    assert measured_mfu(1e12, 1.0, datasheet) == pytest.approx(0.25)
    # above 1 against an estimate: returned, so a chapter can say the estimate is too low
    estimate = Peak(1e11, "bf16", "Apple M2", "estimate", True)
    assert measured_mfu(1.5e11, 1.0, estimate) == pytest.approx(1.5)
    with pytest.raises(ImplausibleMFUError, match="wrong dtype"):
        measured_mfu(8e12, 1.0, datasheet)  # above 1 against a datasheet peak: a mistake, refused


def test_measured_mfu_wants_a_peak_object():
    with pytest.raises(TypeError, match="peak must be a Peak"):
        measured_mfu(1e12, 1.0, 2e12)  # type: ignore[arg-type]
