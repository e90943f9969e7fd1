"""Tests of seeding, the training loop and atomic, resumable checkpoints."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from cs336_lec2.training import set_seed


def _draw() -> tuple[float, float, torch.Tensor]:
    return random.random(), float(np.random.rand()), torch.randn(3)


def test_set_seed_reproduces_every_generator() -> None:
    set_seed(123)
    a = _draw()
    set_seed(123)
    b = _draw()
    assert a[0] == b[0] and a[1] == b[1] and torch.equal(a[2], b[2])
    set_seed(124)
    c = _draw()
    assert a[0] != c[0] and a[1] != c[1] and not torch.equal(a[2], c[2])


def test_set_seed_accepts_numpy_int_and_bounds() -> None:
    set_seed(np.int64(5))
    set_seed(0)
    set_seed(2**32 - 1)


@pytest.mark.parametrize(
    ("seed", "error", "match"),
    [
        (-1, ValueError, r"seed must be in \[0, 4294967295\], got -1"),
        (2**32, ValueError, "seed must be in"),
        (1.0, TypeError, "seed must be an int, got float"),
        ("0", TypeError, "seed must be an int, got str"),
        (True, TypeError, "seed must be an int, got bool"),
    ],
)
def test_set_seed_rejects(seed: object, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        set_seed(seed)  # type: ignore[arg-type]
