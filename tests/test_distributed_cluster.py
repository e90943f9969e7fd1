"""Tests of cs336_lec2.distributed.cluster and .nccl: links, NCCL's algorithms, nccl-tests, HSDP, break-even."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cs336_lec2 import catalog as K
from cs336_lec2.distributed import cluster as C
from cs336_lec2.distributed import nccl, ring_bytes, step_communication

# The datasheet's links, rings only, no latency: the bandwidth formulas of the ZeRO paper on DGX H100.
NO_LATENCY = K.Cluster(nvlink=450e9, nic=50e9, nvls=0, latency=0)
PSI = 7_500_000_000  # the ZeRO paper's figure-1 model


def test_sourced_constants() -> None:
    assert K.NVLINK_H100_SXM == 450e9  # half of the datasheet's 900 GB/s (both directions)
    assert K.CONNECTX7_NDR == 50e9  # 400 Gb/s
    assert K.H100_CLUSTER.nvlink == 370.8e9  # NCCL topo.h: 20.6 GB/s x 18 NVLink 4 links
    assert K.H100_CLUSTER.node_egress == 8 * 47e9  # 8 NICs per DGX H100, 46-48 GB/s each (nccl-tests #290)
    assert K.DDP_BUCKET_BYTES == 26_214_400 and K.DDP_FIRST_BUCKET_BYTES == 1_048_576  # reducer.hpp


def test_crossing_nodes_costs_the_node_egress_not_one_nic() -> None:
    # issue 23 item 1: 64 GPUs in 8 nodes move each rank's ring bytes at 8 x 50 GB/s, not 50 GB/s.
    assert C.ring_bandwidth(8, NO_LATENCY) == 450e9 and C.ring_bandwidth(64, NO_LATENCY) == 400e9
    assert C.ring_bandwidth(64) == C.ring_bandwidth(8) == 370.8e9  # as NCCL achieves them: NVLink binds
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
    c = K.H100_CLUSTER
    assert C.ring_latency("all_reduce", 1, c) == 0
    assert math.isclose(C.ring_latency("all_reduce", 8, c), 8.4e-6 + 14 * 3.4e-6)
    # 16 ranks in 2 nodes: 30 steps, 2 * nodes = 4 of them across the network (NCCL 2.20.3), x1.4 plateau
    assert math.isclose(C.ring_latency("all_reduce", 16, c), 1.4 * (8.4e-6 + 26 * 3.4e-6 + 4 * 14e-6))
    assert math.isclose(C.ring_latency("all_gather", 16, c), 8.4e-6 + 14 * 3.4e-6 + 1 * 14e-6)


@given(st.integers(min_value=0, max_value=10**12), st.integers(min_value=0, max_value=10**12),
       st.sampled_from([1, 2, 8, 16, 64, 1024]), st.sampled_from(["all_reduce", "all_gather", "reduce_scatter"]),
       st.sampled_from(["h100-sxm", "a100-sxm-80gb", "b200"]))
def test_nccls_choice_is_the_fastest_and_grows_with_the_payload(payload: int, more: int, n: int, kind: str,
                                                                 card: str) -> None:
    cluster = K.CLUSTERS[card][1]
    seconds, name = C.fastest_algorithm(kind, payload, n, cluster)
    simple = next(a for a in nccl.ALGORITHMS if a.name == "ring/Simple")
    ring = C.ring_latency(kind, n, cluster) + ring_bytes(kind, payload, n) / (
        C.ring_bandwidth(n, cluster) * nccl.ramp(simple, payload, cluster))
    assert seconds <= ring * (1 + 1e-12)  # never slower than the ring/Simple alone
    assert C.fastest_algorithm(kind, payload + more, n, cluster)[0] >= seconds  # monotone in the payload
    assert (name == "none") == (n == 1)
    if kind != "all_reduce":
        assert name.startswith("ring") or n == 1  # tree and NVLS are all-reduce algorithms
    # in buckets: each call pays its own latency, so never faster than one call
    bucketed = C.collective_seconds(kind, payload, n, cluster, bucket_bytes=K.DDP_BUCKET_BYTES,
                                    first_bucket_bytes=K.DDP_FIRST_BUCKET_BYTES)
    assert bucketed >= seconds * (1 - 1e-12)
    # without latency or NVLS, a ring at full bus bandwidth is all there is (tree: 0.46 of it)
    flat = K.Cluster(nvlink=cluster.nvlink, nic=cluster.nic, nvls=0, latency=0)
    assert math.isclose(C.collective_seconds(kind, payload, n, flat), ring_bytes(kind, payload, n)
                        / C.ring_bandwidth(n, flat), rel_tol=1e-12, abs_tol=1e-15)


def test_ddp_buckets_first_one_mib_then_25_mib() -> None:
    grads = 2 * 125_000_000  # bf16 gradients of a 125M-parameter model
    full, last = divmod(grads - 2**20, 25 * 2**20)
    assert (full, last) == (9, 13_021_824)

    def call(size: float) -> float:
        return C.fastest_algorithm("all_reduce", size, 64)[0]

    expected = full * call(25 * 2**20) + call(last) + call(2**20)
    got = C.collective_seconds("all_reduce", grads, 64, bucket_bytes=K.DDP_BUCKET_BYTES,
                               first_bucket_bytes=K.DDP_FIRST_BUCKET_BYTES)
    assert math.isclose(got, expected, rel_tol=1e-12)
    assert got > C.collective_seconds("all_reduce", grads, 64, bucket_bytes=K.DDP_BUCKET_BYTES)  # one call more


def test_which_algorithm_wins_where() -> None:
    # one DGX H100: LL rings for small calls, NVLink SHARP from about a megabyte; the ring for all-gather
    assert C.fastest_algorithm("all_reduce", 64 * 2**10, 8)[1] == "ring/LL"
    assert C.fastest_algorithm("all_reduce", 25 * 2**20, 8)[1] == "nvls/Simple"
    assert C.fastest_algorithm("all_gather", 25 * 2**20, 8)[1] == "ring/Simple"
    # across nodes: the tree's log2(nodes) latency beats the ring's 2(N-1) steps for a DDP bucket ...
    assert C.fastest_algorithm("all_reduce", 25 * 2**20, 1024)[1].startswith("tree")
    # ... the ring's bandwidth wins for a whole model's gradients
    assert C.fastest_algorithm("all_reduce", 2 * PSI, 64)[1] == "ring/Simple"
    assert C.fastest_algorithm("all_reduce", 10**6, 8, K.A100_CLUSTER)[1] != "nvls/Simple"  # no NVLS on A100
    # the 9.7 ms a bucket at 1,024 GPUs was the ring's latency; NCCL's tree pays under 0.4 ms of latency
    assert C.ring_latency("all_reduce", 1024) > 9.7e-3 and C.fastest_algorithm("all_reduce", 0, 1024)[0] < 4e-4


# NCCL 2.30.7 (S1) runs 512 KiB in 19 us; NCCL 2.20.3's table, the model's, has no algorithm under 24 us there.
LATENCY_TABLE_MISS = {("S1", 2**19)}


@pytest.mark.parametrize("point", nccl.NCCL_TESTS, ids=lambda p: f"{p[0]}-{p[1]}-{p[2]}-{p[3]}-{p[4]}")
def test_model_reproduces_published_nccl_tests(point) -> None:
    # Every published point within a factor 1.3 (issue 37.7), the scaling book's SHARP-off pair (S5) with NVLS
    # off; one node's points within 10 % from 256 MiB up, where latency and the size ramp are noise.
    src, card, n, kind, payload, busbw, algorithm = point
    model = C.bus_bandwidth(kind, payload, n, K.CLUSTERS[card][1], algorithm=algorithm) / 1e9
    bound = 1.35 if (src, payload) in LATENCY_TABLE_MISS else 1.3
    assert 1 / bound <= model / busbw <= bound
    if payload >= 2**28 and n == 8:
        assert abs(model / busbw - 1) <= 0.10


def test_the_size_ramp_is_what_brings_the_mid_sizes_within_1_3() -> None:
    # Without the ramp (one call at full bandwidth plus NCCL's latency) the model was 1.5x at 8 MiB (S1)
    # and 2.1x on the SHARP-off 58 MB all-reduce (S5): the ratios the ramp fixes.
    flat = {key: 0.0 for key in nccl.RAMP_BYTES}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(nccl, "RAMP_BYTES", {**flat, **{k: 1e-300 for k in flat}})
        mid = C.bus_bandwidth("all_reduce", 8 * 2**20, 8, K.CLUSTERS["h200"][1]) / 1e9
        sharp_off = C.bus_bandwidth("all_reduce", 2 * 8192 * 3584, 8, algorithm="no_nvls") / 1e9
    assert mid / 182.03 > 1.45 and sharp_off / 150.0 > 2.0
    # NVLS on, the same 58 MB runs at 433 GB/s before and below 400 now; SHARP off is slower still
    assert C.bus_bandwidth("all_reduce", 2 * 8192 * 3584, 8) / 1e9 < 400
    assert C.bus_bandwidth("all_reduce", 2 * 8192 * 3584, 8, algorithm="no_nvls") < \
        C.bus_bandwidth("all_reduce", 2 * 8192 * 3584, 8)


def test_the_ramp_is_one_for_ll_and_for_bandwidth_alone() -> None:
    ll, simple = (next(a for a in nccl.ALGORITHMS if a.name == name) for name in ("ring/LL", "ring/Simple"))
    assert nccl.ramp(ll, 2**20, K.H100_CLUSTER) == 1.0
    assert nccl.ramp(simple, 2**20, K.Cluster(latency=0)) == 1.0
    assert math.isclose(nccl.ramp(simple, 48 * 2**20, K.H100_CLUSTER), 0.5)  # RAMP_BYTES: half the bandwidth
    assert nccl.ramp(simple, 2**20, K.H100_CLUSTER) < nccl.ramp(simple, 2**30, K.H100_CLUSTER) < 1


def test_the_datasheet_ring_model_misses_the_measured_rings() -> None:
    # The model before issue 29: rings only, the datasheet's 450 GB/s. nccl-tests' rings on 8 H200s (S2)
    # reach 361-367 GB/s: the datasheet is 23-25 % optimistic, outside the 10 % the model above meets.
    rings = [p for p in nccl.NCCL_TESTS if p[6] == "ring" or p[3] != "all_reduce"]
    assert len(rings) == 3
    for _, _, n, kind, payload, busbw, _ in rings:
        old = C.bus_bandwidth(kind, payload, n, K.H100_DATASHEET, algorithm="ring") / 1e9
        assert old / busbw > 1.2


@given(st.integers(min_value=1, max_value=10**12), st.sampled_from([2, 8, 16, 64, 512]))
def test_step_seconds_carries_step_communication(psi: int, n: int) -> None:
    for stage in ("dp", "zero3"):
        bytes_sent = step_communication(psi, n, stage)
        assert math.isclose(C.step_seconds(stage, psi, n, NO_LATENCY),
                            bytes_sent / C.ring_bandwidth(n, NO_LATENCY), rel_tol=1e-12)


@given(st.integers(min_value=0, max_value=10**12), st.sampled_from([8, 64, 1024]), st.integers(1, 130))
def test_fsdp_pays_one_latency_per_unit_and_the_same_bandwidth(psi: int, n: int, units: int) -> None:
    one = C.step_seconds("zero3", psi, n)
    per_unit = C.step_seconds("zero3", psi, n, units=units)
    assert per_unit >= one * (1 - 1e-12)  # more calls are never faster
    # each of the 3 collectives pays at least one ring's per-call latency per unit
    assert per_unit >= 3 * units * C.fastest_algorithm("all_gather", 0, n)[0] * (1 - 1e-12)
    bandwidth = [C.step_seconds("zero3", psi, n, NO_LATENCY, units=u) for u in (1, units)]
    assert math.isclose(*bandwidth, rel_tol=1e-9)  # the bytes do not change with the calls
    assert C.step_seconds("dp", psi, n, units=units) == C.step_seconds("dp", psi, n)  # DDP has buckets


def test_hsdp_shards_inside_and_replicates_across() -> None:
    inside, across = C.hsdp_step_seconds(PSI, 64, NO_LATENCY)
    assert math.isclose(inside, 3 * 7 / 8 * 2 * PSI / 450e9)  # ZeRO-3 over one node's NVLink
    assert math.isclose(across, 2 * 7 / 8 * (2 * PSI / 8) / 50e9)  # a 1/8 shard, 8 nodes, one NIC each
    assert max(inside, across) < C.step_seconds("zero3", PSI, 64, NO_LATENCY)
    # fp32 gradient reductions: the reduce-scatter inside and the all-reduce across double, the gathers do not
    inside4, across4 = C.hsdp_step_seconds(PSI, 64, NO_LATENCY, reduce_bytes=4)
    assert math.isclose(across4, 2 * across) and math.isclose(inside4, inside * 4 / 3)


def test_small_models_are_latency_bound_on_many_gpus() -> None:
    grads = 2 * 125_000_000  # bf16 gradients of a 125M-parameter model: 11 buckets
    alpha_beta = C.collective_seconds("all_reduce", grads, 1024, bucket_bytes=K.DDP_BUCKET_BYTES,
                                      first_bucket_bytes=K.DDP_FIRST_BUCKET_BYTES)
    beta = C.collective_seconds("all_reduce", grads, 1024, K.Cluster(nvls=0, latency=0))
    assert alpha_beta > 1.5 * beta


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: C.ring_bandwidth(12), "world_size must fill whole nodes"),
        (lambda: C.ring_bandwidth(0), "world_size"),
        (lambda: C.ring_latency("gather", 8), "collective"),
        (lambda: C.collective_seconds("all_reduce", float("nan"), 8), "payload_bytes"),
        (lambda: C.collective_seconds("all_reduce", 10, 8, bucket_bytes=0), "bucket_bytes"),
        (lambda: C.collective_seconds("all_reduce", 10, 8, "h100"), "cluster must be a Cluster"),
        (lambda: K.Cluster(nvlink=-1), "nvlink"),
        (lambda: K.Cluster(gpus_per_node=0), "gpus_per_node"),
        (lambda: K.Cluster(latency=float("inf")), "latency"),
        (lambda: K.Cluster(nvls=-1.0), "nvls"),
        (lambda: C.fastest_algorithm("all_reduce", -1, 8), "payload_bytes"),
        (lambda: C.fastest_algorithm("all_reduce", 1, 12), "world_size"),
        (lambda: C.bus_bandwidth("all_reduce", 1, 8, algorithm="tree"), "algorithm"),
        (lambda: C.collective_seconds("all_reduce", 10, 8, bucket_bytes=4, first_bucket_bytes=0), "first_bucket"),
        (lambda: C.step_seconds("zero4", 10, 8), "stage"),
        (lambda: C.step_seconds("zero3", 10, 8, units=0), "units"),
        (lambda: C.step_seconds("zero3", 10, 8, units=2.5), "units"),
        (lambda: C.step_seconds("dp", 10, 8, units=0), "units"),
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
