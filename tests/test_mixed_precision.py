"""Tests of the mixed-precision measurements: autocast's dtypes per op, cast counting, fp8 and NVFP4 round trips."""

from __future__ import annotations

import pytest
import torch

from cs336_lec2.mixed_precision import (
    E2M1_VALUES,
    CountCasts,
    autocast_dtypes,
    e2m1_round,
    fp8_roundtrip,
    matmul_precision,
    nvfp4_roundtrip,
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


def test_e2m1_values_are_the_published_grid() -> None:
    # OCP Microscaling spec v1.0, FP4 E2M1: the positive half of -6 ... 6 (the 2026 lecture lists the same)
    assert E2M1_VALUES == (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)


def test_e2m1_round_to_nearest_ties_to_even_and_saturates() -> None:
    x = torch.tensor([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 7.0, 1e9, -2.9, -0.2, 0.0, 0.26])
    # ties go to the code with mantissa bit 0: 0, 1, 1, 2, 2, 4, 4; beyond 6 saturates
    assert e2m1_round(x).tolist() == [0.0, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0, 6.0, 6.0, -3.0, -0.0, 0.0, 0.5]
    assert e2m1_round(x.double()).dtype == torch.float64
    with pytest.raises(TypeError):
        e2m1_round(torch.tensor([1, 2]))


def test_nvfp4_roundtrip_keeps_representable_values_and_confines_an_outlier() -> None:
    # a block whose amax is 6 gets block scale 1 (exact in E4M3), so its E2M1 values come back exactly
    exact = torch.tensor([6.0, -4.0, 3.0, 0.5] * 4)
    assert torch.equal(nvfp4_roundtrip(exact), exact)
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(4096, generator=gen)
    x[0] = 100.0  # one outlier
    blocked, whole = nvfp4_roundtrip(x), nvfp4_roundtrip(x, block_size=x.numel())
    # one scale for the tensor: the outlier's scale flushes nearly everything else to zero
    assert (whole[1:] == 0).double().mean() > 0.99
    # a scale per 16 values: only the outlier's block is affected, the rest keeps 4-bit precision
    assert typical_error(x[16:], blocked[16:]) < 0.15 and (blocked[16:] == 0).double().mean() < 0.15
    assert blocked[0] == 100.0  # the block's maximum maps to E2M1's 6 exactly
    assert torch.equal(nvfp4_roundtrip(torch.zeros(32)), torch.zeros(32))


@pytest.mark.parametrize("block_size", [0, 3, 1.5, True])
def test_nvfp4_roundtrip_rejects_a_block_size_that_does_not_divide(block_size: object) -> None:
    with pytest.raises(ValueError, match="block_size"):
        nvfp4_roundtrip(torch.ones(32), block_size=block_size)  # type: ignore[arg-type]
