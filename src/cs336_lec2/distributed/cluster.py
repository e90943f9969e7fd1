"""How long a step's collectives take on a GPU cluster: bandwidth of the links, latency of the steps.

An α–β model of NCCL's ring collectives. The β (bandwidth) term is the bytes each rank sends
(:func:`~cs336_lec2.distributed.ring_bytes`) over the bandwidth the ring gets:

- inside one node, each GPU's NVLink, one direction (a ring keeps every link busy one way);
- across nodes, the NODE's egress: NCCL runs one ring channel per NIC, each channel crossing the
  node boundary on its own NIC, so a node's traffic spreads over all of them (or, with a tree or
  a hierarchical algorithm, the node reduces over NVLink first and sends a ``1/g`` share per NIC).
  The ring is then bound by the slower of the GPU's NVLink and the node's NICs together.

The α (latency) term is NCCL's own tuning model (``src/graph/tuning.cc`` in github.com/NVIDIA/nccl,
ring algorithm, Simple protocol, the one used for large messages): a base latency per call plus a
latency per ring step, ``2 (N-1)`` steps for an all-reduce, ``N-1`` for a reduce-scatter or
all-gather, the steps that cross a node paying the network's latency. DDP calls one all-reduce
per gradient bucket (``bucket_cap_mb=25``, PyTorch's default), so a model's latency grows with
its size divided by the bucket size. Tree (latency ``log N``) and NVLS (NVSwitch in-network
reduction) algorithms exist too; NCCL picks among them with this same model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..checks import check_choice, check_int, check_positive_real, check_real
from . import COLLECTIVES, STAGES, ring_bytes

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
# NCCL's tuning model (src/graph/tuning.cc, NCCL 2.2x): baseLat[Ring][Simple] = 8.4 us per call;
# hwLat[NVLINK][Ring][Simple] = 3.4 us and hwLat[NET][Ring][Simple] = 14 us per ring step.
NCCL_RING_BASE_LATENCY = 8.4e-6
NCCL_RING_NVLINK_STEP = 3.4e-6
NCCL_RING_NET_STEP = 14e-6
# torch.nn.parallel.DistributedDataParallel(bucket_cap_mb=25): gradients are all-reduced 25 MiB at a time.
DDP_BUCKET_BYTES = 25 * 2**20


@dataclass(frozen=True)
class Cluster:
    """Nodes of ``gpus_per_node`` GPUs joined by NVLink inside, ``nics_per_node`` NICs between (bytes/s, s)."""

    gpus_per_node: int = DGX_H100_GPUS
    nvlink: float = NVLINK_H100_SXM  # one direction, per GPU
    nics_per_node: int = DGX_H100_NICS
    nic: float = CONNECTX7_NDR  # one direction, per NIC
    base_latency: float = NCCL_RING_BASE_LATENCY  # per collective call
    nvlink_step: float = NCCL_RING_NVLINK_STEP  # per ring step inside a node
    net_step: float = NCCL_RING_NET_STEP  # per ring step that crosses nodes

    def __post_init__(self) -> None:
        check_int("gpus_per_node", self.gpus_per_node, minimum=1)
        check_int("nics_per_node", self.nics_per_node, minimum=1)
        for name in ("nvlink", "nic"):
            check_positive_real(name, getattr(self, name))
        for name in ("base_latency", "nvlink_step", "net_step"):  # 0 allowed; False never (issue 31.7)
            check_real(name, getattr(self, name), minimum=0)

    @property
    def node_egress(self) -> float:
        """Bytes/s one node sends to the others, one direction: all its NICs together."""
        return self.nics_per_node * self.nic


H100_CLUSTER = Cluster()  # DGX H100 nodes on NDR InfiniBand

# NVIDIA DGX A100 (https://developer.nvidia.com/blog/defining-ai-innovation-with-dgx-a100/): 8 A100 SXM
# GPUs, NVSwitch "GPU to GPU communication to peak at 600 GB/s" (both directions), and 8 single-port
# ConnectX-6 200 Gb/s HDR InfiniBand NICs for the compute fabric.
A100_CLUSTER = Cluster(nvlink=600e9 / 2, nic=200e9 / 8)
# NVIDIA DGX B200 user guide (https://docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html):
# 8 B200 GPUs, fifth-generation NVSwitch "14.4 TB/s aggregate" (1.8 TB/s per GPU, both directions) and
# 8 single-port ConnectX-7 cards up to 400 Gb/s.
B200_CLUSTER = Cluster(nvlink=14.4e12 / 8 / 2, nic=CONNECTX7_NDR)
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
    """Bytes/s a rank's ring traffic flows at: NVLink inside a node, else min(NVLink, node egress)."""
    _, nodes = _check_world(world_size, cluster)
    return cluster.nvlink if nodes == 1 else min(cluster.nvlink, cluster.node_egress)


def ring_latency(collective: str, world_size: int, cluster: Cluster = H100_CLUSTER) -> float:
    """Seconds of latency (α) of one ring ``collective`` call over ``world_size`` ranks, NCCL's model."""
    check_choice("collective", collective, COLLECTIVES)
    n, nodes = _check_world(world_size, cluster)
    if n == 1:
        return 0.0
    twice = 2 if collective == "all_reduce" else 1
    steps, crossing = twice * (n - 1), twice * (nodes - 1)
    return cluster.base_latency + (steps - crossing) * cluster.nvlink_step + crossing * cluster.net_step


def collective_seconds(
    collective: str, payload_bytes: float, world_size: int, cluster: Cluster = H100_CLUSTER, *,
    bucket_bytes: float | None = None,
) -> float:
    """Seconds of one ring ``collective`` over ``payload_bytes`` (α + β), in calls of ``bucket_bytes``.

    β: :func:`ring_bytes` over :func:`ring_bandwidth`. α: :func:`ring_latency` once per call, and
    ``ceil(payload / bucket_bytes)`` calls (one when ``bucket_bytes`` is ``None``).
    """
    sent = ring_bytes(collective, payload_bytes, world_size)
    calls = 1
    if bucket_bytes is not None:
        ratio = payload_bytes / check_positive_real("bucket_bytes", bucket_bytes)
        if not ratio <= 2**53:  # 1e308 bytes in buckets of 1e-300 overflowed math.ceil
            raise ValueError(f"bucket_bytes={bucket_bytes!r} cuts {payload_bytes:g} bytes into uncountably many calls")
        calls = max(1, math.ceil(ratio))
    return calls * ring_latency(collective, world_size, cluster) + sent / ring_bandwidth(world_size, cluster)


def step_seconds(
    stage: str, num_params: int, world_size: int, cluster: Cluster = H100_CLUSTER, *,
    bytes_per_value: int = 2, bucket_bytes: float | None = None, reduce_bytes: int | None = None,
) -> float:
    """Seconds of one training step's collectives under ``stage`` (one of :data:`STAGES`).

    DP all-reduces the gradients (``reduce_bytes`` per value, default ``bytes_per_value``); ZeRO-1/2
    too when the widths agree, else reduce-scatter the gradients and all-gather the weights
    (``bytes_per_value``); ZeRO-3 all-gathers the weights twice and reduce-scatters the gradients
    once: the traffic of :func:`~cs336_lec2.distributed.step_communication`, plus each call's latency.
    """
    check_choice("stage", stage, STAGES)
    psi = check_int("num_params", num_params, minimum=0, max_bits=512)
    per_value = check_int("bytes_per_value", bytes_per_value, minimum=1, max_bits=64)
    reduce = per_value if reduce_bytes is None else check_int("reduce_bytes", reduce_bytes, minimum=1, max_bits=64)

    def call(collective: str, width: int) -> float:
        return collective_seconds(collective, psi * width, world_size, cluster, bucket_bytes=bucket_bytes)

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
                          nic=cluster.node_egress / cluster.gpus_per_node, base_latency=cluster.base_latency,
                          nvlink_step=cluster.nvlink_step, net_step=cluster.net_step)
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
