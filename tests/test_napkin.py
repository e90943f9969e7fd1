"""Tests of cs336_lec2.napkin: training days, the largest trainable model, bytes per parameter."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cs336_lec2.memory import training_memory
from cs336_lec2.napkin import (
    OPTIMIZER_STATES,
    PRECISIONS,
    SECONDS_PER_DAY,
    bytes_per_param,
    bytes_per_param_breakdown,
    max_trainable_params,
    training_days,
    training_flops,
)

H100_BF16_DENSE = 989.4e12  # FLOP/s, NVIDIA H100 SXM datasheet (dense bf16; 1979 TFLOP/s is with 2:4 sparsity)

params = st.integers(min_value=1000, max_value=10**13)
tokens = st.integers(min_value=1000, max_value=10**14)
gpus = st.integers(min_value=1, max_value=100_000)
peaks = st.floats(min_value=1e9, max_value=1e16)
mfus = st.floats(min_value=1e-3, max_value=1.0)
factors = st.integers(min_value=1, max_value=1000)


class Peak:
    """Stands in for hardware.peak_flops's result: anything with __float__ is a peak."""

    def __float__(self) -> float:
        return H100_BF16_DENSE


def test_the_lectures_70b_on_15t_tokens_example() -> None:
    assert training_flops(70 * 10**9, 15 * 10**12) == 63 * 10**23  # the package's 6·N·D
    days = training_days(70e9, 15e12, 1024, H100_BF16_DENSE, 0.5)
    assert days == pytest.approx(6 * 70e9 * 15e12 / (1024 * H100_BF16_DENSE * 0.5) / 86_400)
    assert round(days) == 144
    assert training_days(70e9, 15e12, 1024, Peak(), 0.5) == days
    assert training_days(70 * 10**9, 15 * 10**12, 1024, 989_400_000_000_000, 1 / 2) == days


@given(params, tokens, gpus, peaks, mfus)
def test_days_are_flops_over_throughput(n: int, d: int, g: int, peak: float, mfu: float) -> None:
    days = training_days(n, d, g, peak, mfu)
    assert days * SECONDS_PER_DAY * g * peak * mfu == pytest.approx(6 * n * d, rel=1e-12)


@given(params, tokens, gpus, peaks, mfus, factors)
def test_days_scale_linearly_with_work_and_inversely_with_throughput(
    n: int, d: int, g: int, peak: float, mfu: float, k: int
) -> None:
    days = training_days(n, d, g, peak, mfu)
    assert training_days(k * n, d, g, peak, mfu) == pytest.approx(k * days, rel=1e-12)
    assert training_days(n, k * d, g, peak, mfu) == pytest.approx(k * days, rel=1e-12)
    assert training_days(n, d, k * g, peak, mfu) == pytest.approx(days / k, rel=1e-12)
    assert training_days(n, d, g, k * peak, mfu) == pytest.approx(days / k, rel=1e-12)
    assert training_days(n, d, g, peak, mfu / k) == pytest.approx(k * days, rel=1e-12)


def test_the_lectures_largest_model_on_8_h100s() -> None:
    assert max_trainable_params(8 * 80e9, 16) == 40 * 10**9
    assert max_trainable_params(8 * 80 * 10**9, bytes_per_param("adamw", "mixed_bf16")) == 40 * 10**9


@given(st.integers(min_value=1, max_value=10**15), st.integers(min_value=1, max_value=64))
def test_max_params_is_the_exact_floor_for_ints(memory: int, per_param: int) -> None:
    n = max_trainable_params(memory, per_param)
    assert n * per_param <= memory < (n + 1) * per_param


@given(st.floats(min_value=1.0, max_value=1e15), st.floats(min_value=0.5, max_value=64.0))
def test_max_params_is_the_exact_floor_for_floats(memory: float, per_param: float) -> None:
    n = max_trainable_params(memory, per_param)
    assert isinstance(n, int)
    assert n * Fraction(per_param) <= Fraction(memory) < (n + 1) * Fraction(per_param)


def test_bytes_per_param_of_each_recipe() -> None:
    assert bytes_per_param_breakdown("adamw", "mixed_bf16") == {
        "params": 2,
        "grads": 2,
        "master_weights": 4,
        "optimizer_state": 8,
    }
    assert bytes_per_param() == bytes_per_param("adamw", "fp32") == bytes_per_param("adam", "mixed_bf16") == 16
    assert bytes_per_param("sgd", "fp32") == 8
    assert bytes_per_param("sgd_momentum", "fp32") == bytes_per_param("adagrad", "mixed_bf16") == 12


@pytest.mark.parametrize("precision", list(PRECISIONS))
@pytest.mark.parametrize("optimizer", list(OPTIMIZER_STATES))
def test_bytes_per_param_agrees_with_the_memory_estimate(optimizer: str, precision: str) -> None:
    estimate = training_memory(1000, optimizer=optimizer, precision=precision)
    assert bytes_per_param(optimizer, precision) == estimate.bytes_per_param
    parts = bytes_per_param_breakdown(optimizer, precision)
    assert parts["master_weights"] + parts["optimizer_state"] == estimate.optimizer_state // 1000


GOOD = {"num_params": 70e9, "num_tokens": 15e12, "num_gpus": 1024, "flop_per_sec_per_gpu": 1e15, "mfu": 0.5}


@pytest.mark.parametrize("name", ["flop_per_sec_per_gpu", "mfu"])
@pytest.mark.parametrize("bad", [0, -1, -0.5, math.nan, math.inf])
def test_training_days_rejects_non_positive_rates(name: str, bad: float) -> None:
    with pytest.raises(ValueError, match=f"{name} must be a positive finite number"):
        training_days(**{**GOOD, name: bad})


@pytest.mark.parametrize("name", ["num_params", "num_tokens"])
@pytest.mark.parametrize("bad", [0, -1, -5e9, 1.5, 70e9 + 0.5, math.nan, math.inf])
def test_training_days_rejects_counts_that_are_not_positive_whole_numbers(name: str, bad: float) -> None:
    with pytest.raises(ValueError, match=f"{name} must be a positive whole number"):
        training_days(**{**GOOD, name: bad})


@pytest.mark.parametrize("name", ["num_params", "num_tokens", "flop_per_sec_per_gpu", "mfu"])
@pytest.mark.parametrize("bad", ["1e9", None, True, [1.0]])
def test_training_days_rejects_non_numbers(name: str, bad: object) -> None:
    with pytest.raises(TypeError, match=f"{name} must be a positive"):
        training_days(**{**GOOD, name: bad})


@pytest.mark.parametrize("bad", [1.5, 1.0000001, 50])
def test_mfu_above_one_is_rejected(bad: float) -> None:
    with pytest.raises(ValueError, match=r"mfu must be in \(0, 1\]"):
        training_days(**{**GOOD, "mfu": bad})


def test_num_gpus_must_be_a_positive_int() -> None:
    for bad in (0, -8):
        with pytest.raises(ValueError, match=r"num_gpus must be a positive int below 2\*\*1000"):
            training_days(**{**GOOD, "num_gpus": bad})
    for bad in (8.0, "8", True, None):
        with pytest.raises(TypeError, match=r"num_gpus must be a positive int below 2\*\*1000"):
            training_days(**{**GOOD, "num_gpus": bad})


def test_max_trainable_params_rejections() -> None:
    for name, args in (
        ("total_memory_bytes", (0, 16)),
        ("bytes_per_param", (1e9, -2)),
        ("bytes_per_param", (1e9, math.nan)),
    ):
        with pytest.raises(ValueError, match=f"{name} must be a positive finite number"):
            max_trainable_params(*args)
    with pytest.raises(TypeError, match=r"total_memory_bytes must be a positive finite number"):
        max_trainable_params("80GB", 16)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"bytes_per_param must be a positive finite number"):
        max_trainable_params(80e9, None)  # type: ignore[arg-type]


def test_bytes_per_param_rejections() -> None:
    with pytest.raises(ValueError, match=r"optimizer must be one of \('sgd', 'sgd_momentum'"):
        bytes_per_param("lion")
    with pytest.raises(ValueError, match=r"precision must be one of \('fp32', 'mixed_bf16', 'mixed_bf16_fp32_grads'\)"):
        bytes_per_param("adamw", "fp8")
    with pytest.raises(ValueError, match="optimizer must be one of"):
        bytes_per_param_breakdown(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(("args", "match"), [
    ((10**400, 10**12, 8, 1e15, 0.5), r"num_params must be a positive whole number"),  # beyond a float
    ((10**200, 10**200, 8, 1e15, 0.5), "6·N·D = a 1332-bit number.*check num_params"),  # each fits, 6·N·D does not
    ((10**12, 1e300, 8, 1e15, 0.5), "6·N·D = a 1040-bit number.*check num_params"),  # 6·N·D too large
    ((10**12, 10**12, 10**400, 1e15, 0.5), r"num_gpus must be a positive int below 2\*\*1000"),
    ((10**12, 10**12, 8, 10**400, 0.5), r"flop_per_sec_per_gpu must be a positive finite number"),
])
def test_training_days_with_huge_numbers_is_a_clear_error(args, match):
    """Issue 15 item 6: these raised OverflowError ("int too large to convert to float")."""
    with pytest.raises(ValueError, match=match):
        training_days(*args)
    with pytest.raises(ValueError, match=r"total_memory_bytes must be a positive finite number"):
        max_trainable_params(10**400, 16)


def test_the_largest_counts_accepted_still_give_a_float():
    biggest = 2**500 - 1  # a 500-bit count
    days = training_days(biggest, biggest, 1, 1e15, 1.0)
    assert math.isfinite(days) and days == pytest.approx(6 * 2.0**1000 / 1e15 / 86_400)
    with pytest.raises(ValueError, match="the days do not fit in a float"):
        training_days(biggest, biggest, 1, 1e-300, 1.0)  # a finite FLOP count over an absurdly small peak
