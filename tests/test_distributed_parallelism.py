"""Tests of cs336_lec2.distributed.parallelism: pipeline bubble, 1F1B memory, ring attention, all-to-all, 3-D state."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cs336_lec2.distributed import parallelism as P


def simulate_pipeline(p: int, m: int) -> tuple[int, int]:
    """(busy slots, total slots) of GPipe, simulated slot by slot: a stage runs a micro-batch's forward pass
    once the stage before has done it, then the backward passes flow back the same way (one slot each)."""
    done = [[-1] * m for _ in range(p)]  # the slot at which stage i finished micro-batch j's forward pass
    for i in range(p):
        free = 0
        for j in range(m):
            start = max(free, done[i - 1][j] + 1 if i else 0)
            done[i][j], free = start, start + 1
    forward = max(max(row) for row in done) + 1
    return 2 * p * m, 2 * p * forward  # the backward passes mirror the forward passes


@given(st.integers(1, 64), st.integers(1, 512))
def test_the_bubble_is_the_idle_share_of_a_simulated_schedule(p: int, m: int) -> None:
    busy, total = simulate_pipeline(p, m)
    assert math.isclose(P.pipeline_bubble(p, m), 1 - busy / total)


def test_bubble_and_in_flight_micro_batches() -> None:
    assert P.pipeline_bubble(1, 8) == 0 and P.pipeline_bubble(4, 4) == 3 / 7
    assert P.pipeline_bubble(16, 128) < 0.11 < P.pipeline_bubble(16, 16)  # more micro-batches, smaller bubble
    assert P.pipeline_in_flight(16, 128, "gpipe") == 128 and P.pipeline_in_flight(16, 128) == 16
    assert P.pipeline_in_flight(16, 4) == 4


def test_ring_attention_sends_every_other_gpus_keys_and_values() -> None:
    # cp GPUs: each receives the other cp - 1 blocks of K and V, as many as it sends
    assert P.ring_attention_bytes(8192, 1, 1024, 1) == 0
    full = 2 * 8192 * 1024 * 2  # K and V of the whole sequence, bf16
    assert math.isclose(P.ring_attention_bytes(8192, 1, 1024, 8), full * 7 / 8)


def test_all_to_all_through_one_nic() -> None:
    # DeepSeek-V3-like: 8 routed experts per token, width 7168, bf16, 4,096 tokens per GPU, 47 GB/s NIC
    seconds = P.all_to_all_seconds(4096, 7168, 8, 64, 47e9)
    assert math.isclose(seconds, 2 * 63 / 64 * 4096 * 8 * 7168 * 2 / 47e9)
    assert P.all_to_all_seconds(4096, 7168, 8, 1, 47e9) == 0


def test_llama3_405b_state_per_gpu() -> None:
    # TP 8 x PP 16 x DP 128: each GPU holds 1/128 of the weights, 1/16,384 of gradients and Adam state
    per_gpu = P.parallel_state_bytes(405_000_000_000, 8, 16, 128)
    assert math.isclose(per_gpu, 405e9 / 128 * (2 + 14 / 128))
    assert 6e9 < per_gpu < 7e9


@pytest.mark.parametrize(("call", "match"), [
    (lambda: P.pipeline_bubble(0, 1), "stages"),
    (lambda: P.pipeline_in_flight(2, 2, "interleaved"), "schedule"),
    (lambda: P.ring_attention_bytes(8, 1, 4, 0), "cp"),
    (lambda: P.all_to_all_seconds(1, 1, 1, 2, 0.0), "link"),
    (lambda: P.parallel_state_bytes(10, 1, 0, 1), "pp"),
])
def test_bad_input_names_the_argument(call, match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        call()
