"""Tests of cs336_lec2.distributed.cluster: the node-egress bandwidth, NCCL's latency model, HSDP, break-even."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cs336_lec2.distributed import cluster as C
from cs336_lec2.distributed import ring_bytes, step_communication

NO_LATENCY = C.Cluster(base_latency=0, nvlink_step=0, net_step=0)
PSI = 7_500_000_000  # the ZeRO paper's figure-1 model


def test_sourced_constants() -> None:
    assert C.NVLINK_H100_SXM == 450e9  # half of the datasheet's 900 GB/s (both directions)
    assert C.CONNECTX7_NDR == 50e9  # 400 Gb/s
    assert C.H100_CLUSTER.node_egress == 400e9  # 8 NICs per DGX H100
    assert C.DDP_BUCKET_BYTES == 26_214_400


def test_crossing_nodes_costs_the_node_egress_not_one_nic() -> None:
    # issue 23 item 1: 64 GPUs in 8 nodes move each rank's ring bytes at 8 x 50 GB/s, not 50 GB/s.
    assert C.ring_bandwidth(8) == 450e9 and C.ring_bandwidth(64) == 400e9
    seconds = C.step_seconds("zero3", PSI, 64, NO_LATENCY)
    assert math.isclose(seconds, 3 * 63 / 64 * 2 * PSI / (8 * 50e9))
    assert round(seconds, 2) == 0.11  # exercise 2, the figure
    # The same seconds from the hierarchical picture: reduce inside the node, each GPU's NIC carries 1/8.
    per_nic = 3 * (63 / 64) * 2 * PSI / 8
    assert math.isclose(seconds, per_nic / 50e9)
    assert math.isclose(C.step_seconds("zero3", PSI, 64, NO_LATENCY) / C.step_seconds("zero3", PSI, 8, NO_LATENCY),
                        (63 / 64) / (7 / 8) * 450 / 400)


def test_breakeven_ddp_is_one_and_a_half_times_fsdp() -> None:
    # issue 23 item 2: DDP hides behind the backward (4 psi per token), FSDP behind all 6.
    peak = 989.4e12
    dp = C.step_seconds("dp", PSI, 8, NO_LATENCY)
    ddp = C.breakeven_tokens(dp, PSI, peak, flops_per_param=4)
    assert math.isclose(ddp, 1.5 * C.breakeven_tokens(dp, PSI, peak))
    assert round(ddp, -1) == 1920
    ex2 = C.breakeven_tokens(C.step_seconds("zero3", PSI, 64, NO_LATENCY), PSI, peak)
    assert round(ex2, -2) == 2400


def test_ring_latency_is_nccls_model() -> None:
    c = C.H100_CLUSTER
    assert C.ring_latency("all_reduce", 1, c) == 0
    assert math.isclose(C.ring_latency("all_reduce", 8, c), 8.4e-6 + 14 * 3.4e-6)
    # 16 ranks in 2 nodes: 30 steps, 2 of them across the network
    assert math.isclose(C.ring_latency("all_reduce", 16, c), 8.4e-6 + 28 * 3.4e-6 + 2 * 14e-6)
    assert math.isclose(C.ring_latency("all_gather", 16, c), 8.4e-6 + 14 * 3.4e-6 + 1 * 14e-6)


@given(st.integers(min_value=0, max_value=10**12), st.sampled_from([1, 2, 8, 16, 64, 1024]),
       st.sampled_from(["all_reduce", "all_gather", "reduce_scatter"]))
def test_collective_seconds_is_alpha_plus_beta(payload: int, n: int, kind: str) -> None:
    bucketed = C.collective_seconds(kind, payload, n, bucket_bytes=C.DDP_BUCKET_BYTES)
    calls = max(1, math.ceil(payload / C.DDP_BUCKET_BYTES))
    beta = ring_bytes(kind, payload, n) / C.ring_bandwidth(n)
    assert math.isclose(bucketed, calls * C.ring_latency(kind, n) + beta, rel_tol=1e-12, abs_tol=1e-15)
    assert C.collective_seconds(kind, payload, n) <= bucketed
    assert math.isclose(C.collective_seconds(kind, payload, n, NO_LATENCY), beta, rel_tol=1e-12, abs_tol=1e-15)


@given(st.integers(min_value=1, max_value=10**12), st.sampled_from([2, 8, 16, 64, 512]))
def test_step_seconds_carries_step_communication(psi: int, n: int) -> None:
    for stage in ("dp", "zero3"):
        bytes_sent = step_communication(psi, n, stage)
        assert math.isclose(C.step_seconds(stage, psi, n, NO_LATENCY), bytes_sent / C.ring_bandwidth(n),
                            rel_tol=1e-12)


def test_hsdp_shards_inside_and_replicates_across() -> None:
    inside, across = C.hsdp_step_seconds(PSI, 64, NO_LATENCY)
    assert math.isclose(inside, 3 * 7 / 8 * 2 * PSI / 450e9)  # ZeRO-3 over one node's NVLink
    assert math.isclose(across, 2 * 7 / 8 * (2 * PSI / 8) / 50e9)  # a 1/8 shard, 8 nodes, one NIC each
    assert max(inside, across) < C.step_seconds("zero3", PSI, 64, NO_LATENCY)


def test_small_models_are_latency_bound_on_many_gpus() -> None:
    grads = 2 * 125_000_000  # bf16 gradients of a 125M-parameter model: 10 buckets
    assert math.ceil(grads / C.DDP_BUCKET_BYTES) == 10
    alpha_beta = C.collective_seconds("all_reduce", grads, 64, bucket_bytes=C.DDP_BUCKET_BYTES)
    beta = C.collective_seconds("all_reduce", grads, 64, NO_LATENCY)
    assert alpha_beta > 4 * beta


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: C.ring_bandwidth(12), "world_size must fill whole nodes"),
        (lambda: C.ring_bandwidth(0), "world_size"),
        (lambda: C.ring_latency("gather", 8), "collective"),
        (lambda: C.collective_seconds("all_reduce", float("nan"), 8), "payload_bytes"),
        (lambda: C.collective_seconds("all_reduce", 10, 8, bucket_bytes=0), "bucket_bytes"),
        (lambda: C.collective_seconds("all_reduce", 10, 8, "h100"), "cluster must be a Cluster"),
        (lambda: C.Cluster(nvlink=-1), "nvlink"),
        (lambda: C.Cluster(gpus_per_node=0), "gpus_per_node"),
        (lambda: C.Cluster(net_step=float("inf")), "net_step"),
        (lambda: C.step_seconds("zero4", 10, 8), "stage"),
        (lambda: C.hsdp_step_seconds(2**1100, 8), "num_params"),
        (lambda: C.breakeven_tokens(-1.0, 10, 1e15), "seconds"),
        (lambda: C.breakeven_tokens(1.0, 10, 1e15, flops_per_param=0), "flops_per_param"),
    ],
)
def test_bad_input_names_the_argument(call, match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_step_seconds_moves_each_collective_in_its_own_dtype():
    from cs336_lec2.distributed.cluster import H100_CLUSTER, collective_seconds, step_seconds

    psi, n = 7 * 10**9, 64
    same = step_seconds("zero3", psi, n, bytes_per_value=2)
    assert step_seconds("zero3", psi, n, bytes_per_value=2, reduce_bytes=2) == same  # the old default kept
    mixed = step_seconds("zero3", psi, n, bytes_per_value=2, reduce_bytes=4)  # torchtitan: fp32 reductions
    assert mixed == 2 * collective_seconds("all_gather", 2 * psi, n) + collective_seconds("reduce_scatter", 4 * psi, n)
    assert step_seconds("dp", psi, n, H100_CLUSTER, bytes_per_value=2, reduce_bytes=4) == collective_seconds(
        "all_reduce", 4 * psi, n)  # DDP all-reduces fp32 gradients, whatever the weights' width
    zero1 = step_seconds("zero1", psi, n, bytes_per_value=2, reduce_bytes=4)
    assert zero1 == collective_seconds("reduce_scatter", 4 * psi, n) + collective_seconds("all_gather", 2 * psi, n)
