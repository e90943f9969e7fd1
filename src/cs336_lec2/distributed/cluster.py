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
holds the published nccl-tests points the model is tested against.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from ..checks import check_choice, check_int, check_positive_real, check_real
from . import COLLECTIVES, STAGES, ring_bytes
from .nccl import ALGORITHMS, algorithm_seconds, fastest
from .nccl import page_table as nccl_table

# NVIDIA H100 datasheet (https://www.nvidia.com/en-us/data-center/h100/): H100 SXM, NVLink 900 GB/s per
# GPU, both directions together. A ring sends one way on each link, so the figure that bounds it is half.
NVLINK_H100_SXM = 900e9 / 2
# NVIDIA ConnectX-7 user manual (https://docs.nvidia.com/networking/display/ConnectX7VPI/Introduction):
# one NDR InfiniBand port, 400 Gb/s = 50 GB/s each way.
CONNECTX7_NDR = 400e9 / 8
# NVIDIA DGX H100 user guide (https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html):
# 8 H100 SXM GPUs and, for the compute fabric, 8 single-port ConnectX-7 (one NIC per GPU).
DGX_H100_GPUS = 8
DGX_H100_NICS = 8
# What NCCL gets from them. NCCL's topology model (github.com/NVIDIA/nccl src/graph/topo.h): SM90_NVLINK_BW
# = 20.6 GB/s per NVLink 4 link, 18 links per H100 / H200 ("450GB/s is the line rate. With the protocol
# overhead (~20%) NCCL can get an effective NVLink bandwidth of 370GB/s": NVIDIA/nccl-tests issue 212).
NVLINK_H100_NCCL = 20.6e9 * 18
# NVIDIA/nccl-tests issue 290, NCCL's maintainers: "For NDR @ 400Gbps you should see 46-48GB/s per NIC".
NDR_NCCL = 47e9
# NVLS all-reduce on 8 H100s: "a peak busBw of ~480GB/s (algbw ~275GB/s)" (nccl-tests issue 212; 480.70
# measured on 8 H200s, NCCL_TESTS S1). As a payload rate: busbw / (2 (N-1)/N).
NVLS_H100 = 480e9 * 8 / 14
# torch.nn.parallel.DistributedDataParallel: the first bucket 1 MiB, then bucket_cap_mb=25 (reducer.hpp).
DDP_FIRST_BUCKET_BYTES = 2**20
DDP_BUCKET_BYTES = 25 * 2**20


@dataclass(frozen=True)
class Cluster:
    """Nodes of ``gpus_per_node`` GPUs joined by NVLink inside, ``nics_per_node`` NICs between.

    ``nvlink`` and ``nic``: the bus bandwidth NCCL achieves on each, bytes/s one way. ``nvls``: the
    NVLS all-reduce's payload rate on one whole node (0: no NVLink SHARP). ``latency``: scales NCCL's
    latency table (1: as tuned; 0: bandwidth alone).
    """

    gpus_per_node: int = DGX_H100_GPUS
    nvlink: float = NVLINK_H100_NCCL  # one direction, per GPU
    nics_per_node: int = DGX_H100_NICS
    nic: float = NDR_NCCL  # one direction, per NIC
    nvls: float = NVLS_H100
    latency: float = 1.0

    def __post_init__(self) -> None:
        check_int("gpus_per_node", self.gpus_per_node, minimum=1)
        check_int("nics_per_node", self.nics_per_node, minimum=1)
        for name in ("nvlink", "nic"):
            check_positive_real(name, getattr(self, name))
        for name in ("nvls", "latency"):  # 0 allowed; False never (issue 31.7)
            check_real(name, getattr(self, name), minimum=0)

    @property
    def node_egress(self) -> float:
        """Bytes/s one node sends to the others, one direction: all its NICs together."""
        return self.nics_per_node * self.nic


H100_CLUSTER = Cluster()  # DGX H100 nodes on NDR InfiniBand, as NCCL achieves them
# The datasheet's links, no NVLS: the model before issue 29 (ring bandwidth at line rate).
H100_DATASHEET = Cluster(nvlink=NVLINK_H100_SXM, nic=CONNECTX7_NDR, nvls=0.0)

# NVIDIA DGX A100 (https://developer.nvidia.com/blog/defining-ai-innovation-with-dgx-a100/): 8 A100 SXM
# GPUs, NVSwitch (600 GB/s both directions: 12 NVLink 3 links), 8 single-port ConnectX-6 200 Gb/s HDR NICs.
# NCCL: SM80_NVLINK_BW = 20.0 GB/s x 12 links; the NICs at NDR's 47/50 of line rate (assumed); no NVLS.
A100_CLUSTER = Cluster(nvlink=20.0e9 * 12, nic=200e9 / 8 * NDR_NCCL / CONNECTX7_NDR, nvls=0.0)
# NVIDIA DGX B200 user guide (https://docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html):
# 8 B200 GPUs, fifth-generation NVSwitch (18 NVLink 5 links, 1.8 TB/s per GPU both directions), 8 ConnectX-7
# up to 400 Gb/s. NCCL: SM100_NVLINK_BW = 40.1 GB/s per link. NVLS: 845.67 GB/s busbw at 16 GiB on one
# 8x B200 node (stas00/ml-engineering network/README.md, all_reduce_bench.py, NCCL 2.27.7).
B200_CLUSTER = Cluster(nvlink=40.1e9 * 18, nic=NDR_NCCL, nvls=845.67e9 * 8 / 14)
# The node each card is built into, by the accelerator table's key: DGX H200 is DGX H100's network
# with H200 GPUs (NVLink 900 GB/s, 8 ConnectX-7; DGX H200 user guide). Cards without an 8-GPU
# NVSwitch node (PCIe, NVL pairs, consumer cards, V100's hybrid cube mesh) have none here.
CLUSTERS = {"a100-sxm-40gb": ("DGX A100", A100_CLUSTER), "a100-sxm-80gb": ("DGX A100", A100_CLUSTER),
            "h100-sxm": ("DGX H100", H100_CLUSTER), "h200": ("DGX H200", H100_CLUSTER),
            "b200": ("DGX B200", B200_CLUSTER)}


def _check_world(world_size: int, cluster: Cluster) -> tuple[int, int]:
    n = check_int("world_size", world_size, minimum=1, max_bits=40)  # 2**1100 met a float: OverflowError
    if not isinstance(cluster, Cluster):
        raise TypeError(f"cluster must be a Cluster, got {type(cluster).__name__}")
    g = cluster.gpus_per_node
    if n > g and n % g:
        raise ValueError(f"world_size must fill whole nodes of {g} GPUs when it spans nodes, got {n}")
    return n, max(1, n // g)


def ring_bandwidth(world_size: int, cluster: Cluster = H100_CLUSTER) -> float:
    """Bus bandwidth (bytes/s) of a ring: NVLink inside a node, else min(NVLink, node egress)."""
    _, nodes = _check_world(world_size, cluster)
    return cluster.nvlink if nodes == 1 else min(cluster.nvlink, cluster.node_egress)


def ring_latency(collective: str, world_size: int, cluster: Cluster = H100_CLUSTER) -> float:
    """Seconds of latency (α) of one ring/Simple ``collective`` call over ``world_size`` ranks, NCCL's table."""
    check_choice("collective", collective, COLLECTIVES)
    n, nodes = _check_world(world_size, cluster)
    ring = next(a for a in ALGORITHMS if a.name == "ring/Simple")
    return 0.0 if n == 1 else algorithm_seconds(ring, collective, 0.0, n, nodes, cluster)


def fastest_algorithm(collective: str, payload_bytes: float, world_size: int,
                      cluster: Cluster = H100_CLUSTER) -> tuple[float, str]:
    """(seconds, algorithm) of ONE ``collective`` call over ``payload_bytes``: NCCL's fastest, e.g. "nvls/Simple"."""
    check_choice("collective", collective, COLLECTIVES)
    payload = check_real("payload_bytes", payload_bytes, minimum=0)
    n, nodes = _check_world(world_size, cluster)
    return fastest(collective, payload, n, nodes, cluster)


def bus_bandwidth(collective: str, payload_bytes: float, world_size: int, cluster: Cluster = H100_CLUSTER,
                  *, algorithm: str = "default") -> float:
    """nccl-tests' ``busbw`` (bytes/s) the model predicts: ring bytes over the time of one call.

    ``algorithm``: ``"default"`` (NCCL's choice, :func:`fastest_algorithm`) or ``"ring"`` (the
    fastest ring protocol, as with ``NCCL_ALGO=Ring``).
    """
    check_choice("algorithm", algorithm, ("default", "ring"))
    seconds, _ = fastest_algorithm(collective, payload_bytes, world_size, cluster)
    if algorithm == "ring":
        n, nodes = _check_world(world_size, cluster)
        seconds = min(algorithm_seconds(a, collective, payload_bytes, n, nodes, cluster)
                      for a in ALGORITHMS if a.kind == "ring")
    return ring_bytes(collective, payload_bytes, world_size) / seconds


def collective_seconds(
    collective: str, payload_bytes: float, world_size: int, cluster: Cluster = H100_CLUSTER, *,
    bucket_bytes: float | None = None, first_bucket_bytes: float | None = None,
) -> float:
    """Seconds of a ``collective`` over ``payload_bytes``, in calls of ``bucket_bytes`` (one call when ``None``).

    Each call costs :func:`fastest_algorithm`'s time for its size: a first call of
    ``first_bucket_bytes`` (DDP: 1 MiB) when given, then full buckets, then the remainder.
    """
    check_choice("collective", collective, COLLECTIVES)
    payload = float(check_real("payload_bytes", payload_bytes, minimum=0))  # as the page's JavaScript does
    n, nodes = _check_world(world_size, cluster)

    def call(size: float) -> float:
        return fastest(collective, size, n, nodes, cluster)[0]

    if bucket_bytes is None:
        return call(payload)
    cap = check_positive_real("bucket_bytes", bucket_bytes)
    first = 0.0 if first_bucket_bytes is None else min(payload, check_positive_real(
        "first_bucket_bytes", first_bucket_bytes))
    rest = payload - first
    if not rest / cap <= 2**53:  # 1e308 bytes in buckets of 1e-300 overflowed math.floor
        raise ValueError(f"bucket_bytes={bucket_bytes!r} cuts {payload:g} bytes into uncountably many calls")
    full = math.floor(rest / cap)
    last = rest - full * cap
    seconds = full * call(cap) + (call(last) if last > 0 else 0.0) + (call(first) if first > 0 else 0.0)
    return seconds if payload > 0 else call(0.0)


def step_seconds(
    stage: str, num_params: int, world_size: int, cluster: Cluster = H100_CLUSTER, *,
    bytes_per_value: int = 2, bucket_bytes: float | None = None, reduce_bytes: int | None = None,
    first_bucket_bytes: float | None = None, units: int = 1,
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
    check_choice("stage", stage, STAGES)
    psi = check_int("num_params", num_params, minimum=0, max_bits=512)
    per_value = check_int("bytes_per_value", bytes_per_value, minimum=1, max_bits=64)
    reduce = per_value if reduce_bytes is None else check_int("reduce_bytes", reduce_bytes, minimum=1, max_bits=64)
    units = check_int("units", units, minimum=1, max_bits=31)  # checked for every stage: a bad one is an error
    calls = units if stage == "zero3" else 1

    def call(collective: str, width: int) -> float:
        # float first, then divide: the page's JavaScript rounds the same way
        return calls * collective_seconds(collective, float(psi * width) / calls, world_size, cluster,
                                          bucket_bytes=bucket_bytes, first_bucket_bytes=first_bucket_bytes)

    if stage == "zero3":
        return 2 * call("all_gather", per_value) + call("reduce_scatter", reduce)
    if stage == "dp" or reduce == per_value:
        return call("all_reduce", reduce)
    return call("reduce_scatter", reduce) + call("all_gather", per_value)


def hsdp_step_seconds(
    num_params: int, world_size: int, cluster: Cluster = H100_CLUSTER, *, bytes_per_value: int = 2,
) -> tuple[float, float]:
    """(inside, across): seconds of HSDP's collectives per step, sharded in a node, replicated across.

    Inside each node, ZeRO-3 over its ``g`` GPUs on NVLink (:func:`step_seconds`). Across nodes,
    each GPU all-reduces the gradients of its ``Ψ / g`` shard with the GPUs of the same local rank,
    one per node, over its own NIC. The two run on different links and can overlap.
    """
    n, nodes = _check_world(world_size, cluster)
    g = min(n, cluster.gpus_per_node)
    psi = check_int("num_params", num_params, minimum=0, max_bits=512)
    inside = step_seconds("zero3", psi, g, cluster, bytes_per_value=bytes_per_value)
    per_gpu_nic = Cluster(gpus_per_node=1, nvlink=cluster.nvlink, nics_per_node=1,
                          nic=cluster.node_egress / cluster.gpus_per_node, nvls=0.0, latency=cluster.latency)
    across = collective_seconds("all_reduce", psi * bytes_per_value / g, nodes, per_gpu_nic)
    return inside, across


def breakeven_tokens(seconds: float, num_params: int, peak_flops: float, *, flops_per_param: float = 6) -> float:
    """Tokens per GPU whose compute, ``flops_per_param · Ψ`` FLOPs each at ``peak_flops``, lasts ``seconds``.

    The compute a collective can hide behind: 6 (forward and backward, ``6ΨT``) for FSDP, which
    prefetches parameters during the forward pass; 4 (the backward alone) for DDP, whose gradients
    do not exist before the backward pass.
    """
    seconds = check_real("seconds", seconds, minimum=0)  # 0 allowed; np.False_ never
    psi = check_int("num_params", num_params, minimum=1, max_bits=512)
    return seconds * check_positive_real("peak_flops", peak_flops) / (
        check_positive_real("flops_per_param", flops_per_param) * psi)


def page_table() -> dict:
    """The calculator page's cluster tables: the nodes, DDP's buckets and NCCL's algorithm table."""
    return {"clusters": {key: {"name": name, **asdict(cluster)} for key, (name, cluster) in CLUSTERS.items()},
            "ddp_bucket_bytes": DDP_BUCKET_BYTES, "ddp_first_bucket_bytes": DDP_FIRST_BUCKET_BYTES, **nccl_table()}
