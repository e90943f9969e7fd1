"""How long a step's collectives take on a GPU cluster: NCCL's algorithms on achievable links.

An α–β model of NCCL. For each call, :mod:`~cs336_lec2.distributed.nccl` times every algorithm
NCCL has for the collective (ring, tree, NVLS; LL, LL128 and Simple protocols) with NCCL's own
latency table and takes the fastest, as NCCL's tuner does. The bandwidth is the bus bandwidth the
links achieve, not the datasheet's:

- inside one node, each GPU's NVLink as NCCL models it (``src/graph/topo.h``: 20.6 GB/s per
  NVLink 4 link, 18 links = 370.8 GB/s one way on H100 / H200, 82 % of the datasheet's 450);
- across nodes, the NODE's egress: NCCL spreads a node's channels over all its NICs, each NDR
  NIC carrying 46–48 GB/s of its 50 ("For NDR @ 400Gbps you should see 46-48GB/s per NIC",
  NCCL's maintainers in NVIDIA/nccl-tests issue 290); the ring is bound by the slower of the two.

NVLS (the NVSwitch reduces, one whole node, all-reduce) runs at its own measured rate. DDP calls
one all-reduce per gradient bucket: the first 1 MiB, then 25 MiB each (PyTorch's
``torch/csrc/distributed/c10d/reducer.hpp``: ``kDefaultFirstBucketBytes = 1024 * 1024``,
``kDefaultBucketBytesCap = 25 * 1024 * 1024``). :data:`~cs336_lec2.distributed.nccl.NCCL_TESTS`
holds the published nccl-tests points the model is tested against. The links themselves (datasheet
and achieved rates, with their sources) and the node of each card are facts of :mod:`cs336_lec2.catalog`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, replace
from typing import Any, Literal

from ..catalog import (  # noqa: F401  (chapter 14 reads them as cluster.X)
    CLUSTERS,
    DDP_BUCKET_BYTES,
    DDP_FIRST_BUCKET_BYTES,
    H100_CLUSTER,
    H100_DATASHEET,
    NDR_NCCL,
    Cluster,
)
from ..checks import (
    NonNegativeReal,
    Params,
    PositiveParams,
    PositiveReal,
    Units,
    ValueBytes,
    WorldSize,
    beartype_on_first_call,
)
from . import Collective, Stage, ring_bytes
from .nccl import ALGORITHMS, algorithm_seconds, fastest
from .nccl import page_table as nccl_table


def _nodes(world_size: int, cluster: Cluster) -> tuple[int, int]:
    """``(world_size, nodes)``: a world that spans nodes fills them (a rule between two arguments)."""
    n, g = int(world_size), cluster.gpus_per_node
    if n > g and n % g:
        raise ValueError(f"world_size must fill whole nodes of {g} GPUs when it spans nodes, got {n}")
    return n, max(1, n // g)


def ring_bandwidth(world_size: WorldSize, cluster: Cluster = H100_CLUSTER) -> float:
    """Bus bandwidth (bytes/s) of a ring: NVLink inside a node, else min(NVLink, node egress)."""
    _, nodes = _nodes(world_size, cluster)
    return cluster.nvlink if nodes == 1 else min(cluster.nvlink, cluster.node_egress)


def ring_latency(collective: Collective, world_size: WorldSize, cluster: Cluster = H100_CLUSTER) -> float:
    """Seconds of latency (α) of one ring/Simple ``collective`` call over ``world_size`` ranks, NCCL's table."""
    n, nodes = _nodes(world_size, cluster)
    ring = next(a for a in ALGORITHMS if a.name == "ring/Simple")
    seconds = algorithm_seconds(ring, collective, 0.0, n, nodes, cluster)  # a ring runs every collective
    return 0.0 if n == 1 or seconds is None else seconds


def fastest_algorithm(collective: Collective, payload_bytes: NonNegativeReal, world_size: WorldSize,
                      cluster: Cluster = H100_CLUSTER) -> tuple[float, str]:
    """(seconds, algorithm) of ONE ``collective`` call over ``payload_bytes``: NCCL's fastest, e.g. "nvls/Simple"."""
    n, nodes = _nodes(world_size, cluster)
    return fastest(collective, payload_bytes, n, nodes, cluster)


def bus_bandwidth(collective: Collective, payload_bytes: NonNegativeReal, world_size: WorldSize,
                  cluster: Cluster = H100_CLUSTER, *,
                  algorithm: Literal["default", "ring", "no_nvls"] = "default") -> float:
    """nccl-tests' ``busbw`` (bytes/s) the model predicts: ring bytes over the time of one call.

    ``algorithm``: ``"default"`` (NCCL's choice, :func:`fastest_algorithm`), ``"ring"`` (the
    fastest ring protocol, as with ``NCCL_ALGO=Ring``) or ``"no_nvls"`` (NCCL's choice with NVLS
    switched off, ``NCCL_NVLS_ENABLE=0``: SHARP disabled).
    """
    if algorithm == "no_nvls":  # NCCL_NVLS_ENABLE=0: NCCL's choice among the rest
        cluster = replace(cluster, nvls=0.0)
    seconds, _ = fastest_algorithm(collective, payload_bytes, world_size, cluster)
    if algorithm == "ring":
        n, nodes = _nodes(world_size, cluster)
        seconds = min(t for a in ALGORITHMS if a.kind == "ring"
                      if (t := algorithm_seconds(a, collective, payload_bytes, n, nodes, cluster)) is not None)
    return ring_bytes(collective, payload_bytes, world_size) / seconds


def collective_seconds(
    collective: Collective, payload_bytes: NonNegativeReal, world_size: WorldSize, cluster: Cluster = H100_CLUSTER,
    *, bucket_bytes: PositiveReal | None = None, first_bucket_bytes: PositiveReal | None = None,
) -> float:
    """Seconds of a ``collective`` over ``payload_bytes``, in calls of ``bucket_bytes`` (one call when ``None``).

    Each call costs :func:`fastest_algorithm`'s time for its size: a first call of
    ``first_bucket_bytes`` (DDP: 1 MiB) when given, then full buckets, then the remainder.
    """
    payload = float(payload_bytes)  # as the page's JavaScript does
    n, nodes = _nodes(world_size, cluster)

    def call(size: float) -> float:
        return fastest(collective, size, n, nodes, cluster)[0]

    if bucket_bytes is None:
        return call(payload)
    cap = float(bucket_bytes)
    first = 0.0 if first_bucket_bytes is None else min(payload, float(first_bucket_bytes))
    rest = payload - first
    if not rest / cap <= 2**53:  # 1e308 bytes in buckets of 1e-300 overflowed math.floor
        raise ValueError(f"bucket_bytes={bucket_bytes!r} cuts {payload:g} bytes into uncountably many calls")
    full = math.floor(rest / cap)
    last = rest - full * cap
    seconds = full * call(cap) + (call(last) if last > 0 else 0.0) + (call(first) if first > 0 else 0.0)
    return seconds if payload > 0 else call(0.0)


def step_seconds(
    stage: Stage, num_params: Params, world_size: WorldSize, cluster: Cluster = H100_CLUSTER, *,
    bytes_per_value: ValueBytes = 2, bucket_bytes: PositiveReal | None = None, reduce_bytes: ValueBytes | None = None,
    first_bucket_bytes: PositiveReal | None = None, units: Units = 1,
) -> float:
    """Seconds of one training step's collectives under ``stage`` (one of :data:`STAGES`).

    DP all-reduces the gradients (``reduce_bytes`` per value, default ``bytes_per_value``); ZeRO-1/2
    too when the widths agree, else reduce-scatter the gradients and all-gather the weights
    (``bytes_per_value``); ZeRO-3 all-gathers the weights twice and reduce-scatters the gradients
    once: the traffic of :func:`~cs336_lec2.distributed.step_communication`, each call at NCCL's
    fastest algorithm (:func:`collective_seconds`, buckets as given). ZeRO-3 / FSDP gathers and
    reduces one wrapped unit at a time: with ``units`` (a model wrapped per block has ``L + 2``:
    the blocks, the embeddings, the final norm with the head) each collective is that many equal
    calls, each paying its latency.
    """
    psi, per_value = int(num_params), int(bytes_per_value)
    reduce = per_value if reduce_bytes is None else int(reduce_bytes)
    calls = int(units) if stage == "zero3" else 1

    def call(collective: Collective, width: int) -> float:
        # float first, then divide: the page's JavaScript rounds the same way
        return calls * collective_seconds(collective, float(psi * width) / calls, world_size, cluster,
                                          bucket_bytes=bucket_bytes, first_bucket_bytes=first_bucket_bytes)

    if stage == "zero3":
        return 2 * call("all_gather", per_value) + call("reduce_scatter", reduce)
    if stage == "dp" or reduce == per_value:
        return call("all_reduce", reduce)
    return call("reduce_scatter", reduce) + call("all_gather", per_value)


def hsdp_step_seconds(
    num_params: Params, world_size: WorldSize, cluster: Cluster = H100_CLUSTER, *, bytes_per_value: ValueBytes = 2,
    reduce_bytes: ValueBytes | None = None,
) -> tuple[float, float]:
    """(inside, across): seconds of HSDP's collectives per step, sharded in a node, replicated across.

    Inside each node, ZeRO-3 over its ``g`` GPUs on NVLink (:func:`step_seconds`: weights gathered in
    ``bytes_per_value``, gradients reduced in ``reduce_bytes``, default the same). Across nodes, each
    GPU all-reduces the gradients of its ``Ψ / g`` shard (``reduce_bytes`` each) with the GPUs of the
    same local rank, one per node, over its own NIC. The two run on different links and can overlap.
    """
    n, nodes = _nodes(world_size, cluster)
    g = min(n, cluster.gpus_per_node)
    psi, per_value = int(num_params), int(bytes_per_value)
    reduce = per_value if reduce_bytes is None else int(reduce_bytes)
    inside = step_seconds("zero3", psi, g, cluster, bytes_per_value=per_value, reduce_bytes=reduce)
    per_gpu_nic = Cluster(gpus_per_node=1, nvlink=cluster.nvlink, nics_per_node=1,
                          nic=cluster.node_egress / cluster.gpus_per_node, nvls=0.0, latency=cluster.latency)
    across = collective_seconds("all_reduce", psi * reduce / g, nodes, per_gpu_nic)
    return inside, across


def breakeven_tokens(seconds: NonNegativeReal, num_params: PositiveParams,
                     peak_flops: PositiveReal, *, flops_per_param: PositiveReal = 6) -> float:
    """Tokens per GPU whose compute, ``flops_per_param · Ψ`` FLOPs each at ``peak_flops``, lasts ``seconds``.

    The compute a collective can hide behind: 6 (forward and backward, ``6ΨT``) for FSDP, which
    prefetches parameters during the forward pass; 4 (the backward alone) for DDP, whose gradients
    do not exist before the backward pass.
    """
    return float(seconds) * float(peak_flops) / (float(flops_per_param) * int(num_params))


def page_table() -> dict[str, Any]:
    """The calculator page's cluster tables: the nodes, DDP's buckets and NCCL's algorithm table."""
    return {"clusters": {key: {"name": name, **asdict(cluster)} for key, (name, cluster) in CLUSTERS.items()},
            "ddp_bucket_bytes": DDP_BUCKET_BYTES, "ddp_first_bucket_bytes": DDP_FIRST_BUCKET_BYTES, **nccl_table()}


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
