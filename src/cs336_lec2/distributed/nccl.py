"""Which algorithm NCCL runs a collective with, and how long it takes: NCCL's own tuning model.

NCCL times every (algorithm, protocol) pair it has for a call as ``latency + bytes / bandwidth``
and runs the fastest (``ncclTopoGetAlgoTime`` in ``src/graph/tuning.cc``). :data:`ALGORITHMS` is
that table for the Simple, LL and LL128 protocols of the ring and the tree, and for NVLS (NVLink
SHARP: the NVSwitch reduces), read from github.com/NVIDIA/nccl ``src/graph/tuning.cc`` at NCCL
2.20.3 (commit b6475625; ``makefiles/version.mk``):

- latency, µs: ``baseLat`` per call plus ``hwLat[NVLINK or NET]`` per hop; a ring all-reduce takes
  ``2 (N-1)`` hops, ``2 · nodes`` of them on the network (``N-1`` and ``nodes-1`` for reduce-scatter
  and all-gather), and a multi-node Simple ring all-reduce pays ×1.4 (its "plateau effect" on
  compute capability ≥ 8.0); a tree (all-reduce only) ``2 ((g-1) · intra + log2(nodes) · net)``.
- bandwidth: the ring moves :func:`~cs336_lec2.distributed.ring_bytes` at the bus bandwidth times
  the protocol's share (LL 1/4, LL128 0.92, Simple 1; LL capped at ``llMaxBws``: 87.7 GB/s in a
  node, 39.0 on two nodes, 20.4 beyond); a tree moves the payload at half of 0.92 of it (LL: /3.8,
  LL128: ×7/9 in a node, ×120/128 across); NVLS the payload at the node's NVLS rate.

The ramp: a call reaches that bandwidth only when it is large enough to keep all of NCCL's channels and
its chunk pipeline busy (``ncclTopoGetAlgoInfo`` in ``src/enqueue.cc`` lowers the channel count for small
calls; each channel moves its share in chunks of up to ``buffSize / 2``). The model scales the bandwidth
of the Simple and LL128 protocols by ``1 / (1 + sqrt(RAMP_BYTES / payload))``, one constant per kind
fitted to the published points (:data:`RAMP_BYTES`: 1 MiB for NVLS, 48 MiB for the ring and the tree);
LL moves 8-byte lines with no chunk pipeline and keeps its cap. It is an empirical curve, not NCCL's
channel arithmetic.

Left out, with what it changes: NVLSTree (NCCL 2.18.1+: NVLS inside each node, a tree across; in the
2.20.3 table) and CollNet (switch reductions across nodes, SHARP on InfiniBand): across nodes the model
keeps the ring and the tree, whose bandwidth the node egress bounds either way, so for large calls on a
few nodes NVLSTree changes little; NCCL's tree correction factors. NVLS for reduce-scatter /
all-gather: NCCL 2.20.3's table admits NVLS (and CollNetDirect) for both and ``src/device/
reduce_scatter.h`` has an NVLS kernel, but on 8×H200 with NCCL 2.27.7 they measure at ring speed
(stas00/ml-engineering ``network/README.md``, section SHARP: 361-363 GB/s, the ring's), so the model
runs them on the ring. The table is 2.20.3's; the published points were measured with NCCL 2.30.7
(S1) and 2.27.7 (S2, S4), whose latencies at 512 KiB are below 2.20.3's (the one point outside 1.3×).
The links' rates (:mod:`~cs336_lec2.distributed.cluster`: NCCL's own NVLink figure, its maintainers'
NIC and NVLS figures) are held against the published nccl-tests points in :data:`NCCL_TESTS`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from ..catalog import Cluster
from ..checks import beartype_on_first_call

US = 1e-6
# tuning.cc llMaxBws (Hopper in a node; Intel CPUs on 2 and on more nodes), bus bytes/s.
LL_MAX_BUS = (87.7e9, 39.0e9, 20.4e9)
RING_PLATEAU = 1.4  # tuning.cc: multi-node Simple ring all-reduce latency x1.4 (compute capability >= 8.0)
# A Simple or LL128 call of `payload` bytes gets 1 / (1 + sqrt(RAMP / payload)) of the bandwidth (module doc).
RAMP_BYTES = {"nvls": 2**20, "ring": 48 * 2**20, "tree": 48 * 2**20}


@dataclass(frozen=True)
class Algorithm:
    """One row of NCCL's table: latency per call and per hop (s), share of the bus bandwidth."""

    name: str
    kind: str  # "ring", "tree" or "nvls"
    base: float  # baseLat, s per call
    nvlink_hop: float  # hwLat[NVLINK], s per hop inside a node
    net_hop: float  # hwLat[NET], s per hop across nodes
    share: float  # of the bus bandwidth, in a node
    share_across: float  # of the bus bandwidth, across nodes
    ll_cap: bool  # capped at LL_MAX_BUS


ALGORITHMS = (
    Algorithm("ring/LL", "ring", 6.6 * US, 0.6 * US, 2.7 * US, 1 / 4, 1 / 4, True),
    Algorithm("ring/LL128", "ring", 14.0 * US, 1.9 * US, 4.0 * US, 0.92, 0.92, False),
    Algorithm("ring/Simple", "ring", 8.4 * US, 3.4 * US, 14.0 * US, 1.0, 1.0, False),
    Algorithm("tree/LL", "tree", 6.8 * US, 0.6 * US, 5.0 * US, 0.92 / 3.8, 0.92 / 3.8, True),
    Algorithm("tree/LL128", "tree", 14.0 * US, 1.25 * US, 8.5 * US, 0.92 * 7 / 9, 0.92 * 120 / 128, False),
    Algorithm("tree/Simple", "tree", 0.0, 28.0 * US, 28.0 * US, 0.92, 0.92, False),
    Algorithm("nvls/Simple", "nvls", 0.0, 23.0 * US, 18.0 * US, 1.0, 1.0, False),
)


def ramp(a: Algorithm, payload: float, cluster: Cluster) -> float:
    """Share of ``a``'s bandwidth a call of ``payload`` bytes gets: ``1 / (1 + sqrt(RAMP / payload))``.

    1 for LL, and on a cluster with ``latency=0`` (bandwidth alone: no per-call costs at all).
    """
    if a.ll_cap or payload <= 0 or not cluster.latency:
        return 1.0
    return 1.0 / (1.0 + math.sqrt(RAMP_BYTES[a.kind] / payload))


def algorithm_seconds(a: Algorithm, collective: str, payload: float, n: int, nodes: int,
                      cluster: Cluster) -> float | None:
    """Seconds of one ``collective`` over ``payload`` bytes and ``n`` ranks by ``a``; ``None`` where NCCL lacks it.

    Arguments are checked by the callers in :mod:`~cs336_lec2.distributed.cluster`.
    """
    all_reduce = collective == "all_reduce"
    g = n // nodes  # ranks per node
    bus = cluster.nvlink if nodes == 1 else min(cluster.nvlink, cluster.node_egress)
    rate = bus * (a.share if nodes == 1 else a.share_across)
    if a.ll_cap:
        rate = min(rate, LL_MAX_BUS[min(nodes, 3) - 1])
    rate *= ramp(a, payload, cluster)
    if a.kind == "ring":
        steps = (2 if all_reduce else 1) * (n - 1)
        net = 0 if nodes == 1 else (2 * nodes if all_reduce else nodes - 1)
        latency = a.base + (steps - net) * a.nvlink_hop + net * a.net_hop
        if all_reduce and nodes > 1 and a.name == "ring/Simple":
            latency *= RING_PLATEAU
        sent = (2 if all_reduce else 1) * (n - 1) / n * payload
        return cluster.latency * latency + sent / rate
    if not all_reduce:
        return None
    if a.kind == "tree":
        hops = (g - 1) * a.nvlink_hop + int(math.log2(nodes)) * a.net_hop
        return cluster.latency * (a.base + 2 * hops) + payload / (0.5 * rate)
    if nodes > 1 or n != cluster.gpus_per_node or not cluster.nvls:  # NVLS: one whole NVSwitch node
        return None
    return cluster.latency * (a.base + a.nvlink_hop) + payload / (cluster.nvls * ramp(a, payload, cluster))


def fastest(collective: str, payload: float, n: int, nodes: int, cluster: Cluster) -> tuple[float, str]:
    """(seconds, name) of the fastest row of :data:`ALGORITHMS`, NCCL's choice; (0, "none") for one rank."""
    if n == 1:
        return 0.0, "none"
    times = ((algorithm_seconds(a, collective, payload, n, nodes, cluster), a.name) for a in ALGORITHMS)
    return min((t, name) for t, name in times if t is not None)


def page_table() -> dict[str, Any]:
    """The table for the calculator's page (its JavaScript copy of :func:`algorithm_seconds` reads it)."""
    return {"nccl_algorithms": [asdict(a) for a in ALGORITHMS], "nccl_ll_max_bus": list(LL_MAX_BUS),
            "nccl_ring_plateau": RING_PLATEAU, "nccl_ramp_bytes": RAMP_BYTES}


# Published nccl-tests all_reduce_perf / all_gather_perf / reduce_scatter_perf bus bandwidths (GB/s):
# (source, card, GPUs, collective, payload bytes, busbw, NCCL's own choice or the forced algorithm).
#   S1: stas00/ml-engineering network/benchmarks/README.md, "How the calls are timed", nccl-tests column:
#       one 8x H200 SXM node (NVLink 4, NV18, the H100 SXM's NVSwitch fabric), NCCL 2.30.7, default algorithm.
#   S2: stas00/ml-engineering network/README.md, section SHARP: the same 8x H200 node at 16 GiB with
#       NCCL_NVLS_ENABLE=0 (ring) and the ring collectives, nccl-tests.
#   S3: NVIDIA/nccl-tests issue 347: one 8x H100 80GB HBM3 node, all_reduce_perf 8 GiB, out of place.
#   S4: stas00/ml-engineering network/README.md, "Inter-node speed depends on intra-node speed":
#       4 nodes x 8 B200, 8 x 50 GB/s (400 Gb/s) EFA v4 NICs per node, NCCL 2.27.7, all_reduce_bench.py
#       (torch.distributed; the same README finds it within 2-7 % of nccl-tests).
#   S5: How to Scale Your Model (jax-ml.github.io/scaling-book/gpus, part 12, "How to Think About GPUs"):
#       an all-reduce on one 8x H100 node with SHARP (NVLS) disabled, ~370 GB/s bus bandwidth at 10 GB and
#       ~150 GB/s at 58 MB (bf16[8192, 3584]); "no_nvls": NCCL's choice without NVLS.
KIB = 2**10
S1_NVLS = (3.20, 6.26, 12.40, 24.63, 48.30, 72.45, 91.48, 139.97, 182.03, 242.45, 298.44, 369.82,
           411.21, 442.27, 455.82, 464.00, 468.31, 473.10, 475.16, 480.70)  # 32 KiB x 2**i, i = 0..19
NCCL_TESTS = (
    *(("S1", "h200", 8, "all_reduce", 32 * KIB * 2**i, bus, "default") for i, bus in enumerate(S1_NVLS)),
    ("S2", "h200", 8, "all_reduce", 16 * 2**30, 367.2, "ring"),
    ("S2", "h200", 8, "all_gather", 16 * 2**30, 361.4, "default"),
    ("S2", "h200", 8, "reduce_scatter", 16 * 2**30, 362.9, "default"),
    ("S3", "h100-sxm", 8, "all_reduce", 8 * 2**30, 479.41, "default"),
    *(("S4", "b200", 32, "all_reduce", 2**30 * 2**i, bus, "default")
      for i, bus in enumerate((361.99, 372.42, 377.34, 380.39, 381.80))),
    ("S5", "h100-sxm", 8, "all_reduce", 2 * 8192 * 3584, 150.0, "no_nvls"),
    ("S5", "h100-sxm", 8, "all_reduce", 10e9, 370.0, "no_nvls"),
)
NCCL_TESTS_SOURCES = {
    "S1": "stas00/ml-engineering network/benchmarks/README.md (nccl-tests, 8×H200, NCCL 2.30.7)",
    "S2": "stas00/ml-engineering network/README.md, SHARP (nccl-tests, 8×H200, ring)",
    "S3": "NVIDIA/nccl-tests issue 347 (8×H100, NCCL default)",
    "S4": "stas00/ml-engineering network/README.md (4×8 B200, 8×400 Gb/s per node)",
    "S5": "How to Scale Your Model, part 12 (8×H100, SHARP off), jax-ml.github.io/scaling-book/gpus",
}


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
