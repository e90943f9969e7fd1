"""Tests of the mixed-precision measurements: autocast's dtypes per op, cast counting, fp8 round trips."""

from __future__ import annotations

import pytest
import torch

from cs336_lec2.mixed_precision import (
    CountCasts,
    autocast_dtypes,
    fp8_roundtrip,
    matmul_precision,
    typical_error,
    unchanged_fraction,
)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_autocast_dtypes_on_the_cpu(dtype: torch.dtype) -> None:
    table = autocast_dtypes("cpu", dtype)
    assert table["x @ w"] == table["F.linear(x, w)"] == dtype  # on autocast's lower-precision list
    assert table["mse_loss(h, target)"] == table["h + x"] == torch.float32  # fp32 list; type promotion
    assert table["w"] == table["w.grad"] == torch.float32  # autocast casts a copy of the weight
    assert len(table) == 12


@pytest.mark.parametrize(("args", "match"), [(("mps", torch.bfloat16), "device_type"),
                                             (("cpu", torch.float32), "dtype")])
def test_autocast_dtypes_rejects(args: tuple, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        autocast_dtypes(*args)


def test_count_casts_counts_dtype_conversions_only() -> None:
    x = torch.ones(4, 4)
    with CountCasts() as counter:
        y = x @ x  # no conversion
        y.to(torch.bfloat16)
        y.half().float()
    assert counter.casts == 3
    with CountCasts() as counter, torch.autocast("cpu", dtype=torch.bfloat16):
        x @ x  # autocast casts each fp32 input to bf16
    assert counter.casts == 2


def test_matmul_precision_sets_and_restores() -> None:
    before = torch.get_float32_matmul_precision()
    with matmul_precision("medium"):
        assert torch.get_float32_matmul_precision() == "medium"
    assert torch.get_float32_matmul_precision() == before
    with pytest.raises(RuntimeError), matmul_precision("high"):
        raise RuntimeError("restored even on an error")
    assert torch.get_float32_matmul_precision() == before
    with pytest.raises(ValueError, match="precision must be one of"), matmul_precision("tf32"):
        pass


def test_fp8_roundtrip_scaling_rescues_small_values_and_saturates_outliers() -> None:
    g = torch.full((8,), 1e-5)
    e4m3 = torch.float8_e4m3fn
    assert torch.equal(fp8_roundtrip(g, e4m3, scaled=False), torch.zeros(8))  # below E4M3's subnormals
    assert typical_error(g, fp8_roundtrip(g, e4m3, scaled=True)) < 0.07  # scaled: 3 mantissa bits
    big = torch.tensor([1e5, 1.0])
    assert fp8_roundtrip(big, e4m3, scaled=False)[0].item() == 448  # clamped, not NaN
    assert fp8_roundtrip(big, torch.float8_e5m2, scaled=False)[0].item() == 57344
    assert fp8_roundtrip(big, e4m3, scaled=True)[0].item() == pytest.approx(1e5)
    with pytest.raises(ValueError, match="float8"):
        fp8_roundtrip(g, torch.bfloat16, scaled=True)


def test_typical_error_is_the_median_relative_error() -> None:
    x = torch.tensor([1.0, 2.0, 4.0])
    assert typical_error(x, torch.tensor([1.1, 2.0, 0.0])) == pytest.approx(0.1)
    assert typical_error(x, torch.zeros(3)) == 1.0
    with pytest.raises(ValueError, match="same shape"):
        typical_error(x, torch.zeros(2))


def test_unchanged_fraction() -> None:
    before = [torch.zeros(3), torch.ones(1)]
    assert unchanged_fraction(before, [torch.tensor([0.0, 1.0, 0.0]), torch.ones(1)]) == 0.75
    assert unchanged_fraction(before, [b.clone() for b in before]) == 1.0
    with pytest.raises(ValueError, match="same number"):
        unchanged_fraction(before, before[:1])
