"""Every RNG's state as plain data: a round trip restores every generator, and an incomplete dict is named."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from cs336_lec2.rng import check_rng_states, restore_rng_states, rng_states


def test_round_trip_restores_every_generator():
    gen = torch.Generator().manual_seed(5)
    states = rng_states(gen)
    check_rng_states(states, gen)
    first = (random.random(), np.random.rand(), torch.randn(2), torch.randn(2, generator=gen))
    restore_rng_states(states, gen)
    again = (random.random(), np.random.rand(), torch.randn(2), torch.randn(2, generator=gen))
    assert first[:2] == again[:2] and torch.equal(first[2], again[2]) and torch.equal(first[3], again[3])


@pytest.mark.parametrize(
    ("damage", "match"),
    [
        (lambda s: s.pop("torch"), r"rng\['torch'\] is missing or not a Tensor"),
        (lambda s: s.pop("generator"), r"rng\['generator'\] is missing"),
        (lambda s: s["python"].pop("gauss"), r"rng\['python'\] is not Python's random state"),
        (lambda s: s.update(cuda=["x"]), r"rng\['torch'\] and rng\['cuda'\] must hold tensors"),
    ],
)
def test_check_names_the_missing_part(damage, match):
    states = rng_states()
    damage(states)
    with pytest.raises(ValueError, match=match):
        check_rng_states(states)


def test_a_generator_needs_its_state():
    with pytest.raises(ValueError, match="no data-generator state"):
        check_rng_states(rng_states(), torch.Generator())
    with pytest.raises(ValueError, match="must be a dict"):
        check_rng_states([1, 2])
