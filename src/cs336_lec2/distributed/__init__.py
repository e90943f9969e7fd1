"""Training state spread over data-parallel ranks: ZeRO's memory and traffic formulas, and real runs.

- :func:`zero_memory`: bytes per rank of parameters, gradients and optimizer state for plain data
  parallelism and ZeRO stages 1-3 (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward
  Training Trillion Parameter Models", section 5: ``2Ψ + 2Ψ + KΨ`` with ``K = 12`` for mixed-precision
  Adam). :func:`step_communication`: bytes each rank sends per step (section 7: 2Ψ for DP and
  ZeRO-1/2, 3Ψ for ZeRO-3, from the ring algorithms' ``(N-1)/N`` factors in :func:`ring_bytes`).
- :func:`expected_state_bytes`: what one rank of PyTorch's DDP, ``ZeroRedundancyOptimizer`` (ZeRO-1)
  or FSDP2 (``fully_shard``, ZeRO-3) holds, to the byte, for an fp32 Adam model of given shapes.
- :mod:`~cs336_lec2.distributed.measure` (torch): :func:`~cs336_lec2.distributed.measure.count_collectives`
  and :func:`~cs336_lec2.distributed.measure.local_tensor_bytes`, what the ranks measure about themselves.
- :mod:`~cs336_lec2.distributed.cluster`: how long those bytes take on real interconnects (NVLink,
  InfiniBand node egress, at the rates NCCL achieves), each call by NCCL's fastest algorithm
  (:mod:`~cs336_lec2.distributed.nccl`: NCCL's tuning table, the published nccl-tests points).

The formulas live here, without torch; the process plumbing that measures them sits beside them in the subpackage:
:mod:`~cs336_lec2.distributed.launcher` starts the ranks, each running :mod:`~cs336_lec2.distributed.worker`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, get_args

from ..checks import (
    Count,
    Counts,
    Flag,
    NonNegativeReal,
    Params,
    PositiveCount,
    Ranks,
    StateBytes,
    ValueBytes,
    beartype_on_first_call,
)

Stage = Literal["dp", "zero1", "zero2", "zero3"]
Strategy = Literal["ddp", "zero1", "fsdp2"]  # the PyTorch implementations of dp, zero1 and zero3 (= FSDP)
Collective = Literal["all_reduce", "all_gather", "reduce_scatter", "broadcast"]
STAGES: tuple[Stage, ...] = get_args(Stage)
STRATEGIES: tuple[Strategy, ...] = get_args(Strategy)
COLLECTIVES: tuple[Collective, ...] = get_args(Collective)


@dataclass(frozen=True)
class RankMemory:
    """Bytes ONE rank holds of each part of the training state (fractions when Ψ / N_d is not whole)."""

    params: float
    grads: float
    optimizer_state: float

    @property
    def total(self) -> float:
        """``params + grads + optimizer_state``, in bytes."""
        return self.params + self.grads + self.optimizer_state


def zero_memory(
    num_params: Params, world_size: PositiveCount, stage: Stage, *,
    param_bytes: StateBytes = 2, grad_bytes: StateBytes = 2,
    optimizer_bytes: StateBytes = 12,
) -> RankMemory:
    """Per-rank bytes of the training state under ``stage``, the ZeRO paper's way.

    ``dp`` replicates everything; ``zero1`` divides the optimizer state by
    ``world_size`` (N_d), ``zero2`` also the gradients, ``zero3`` also the parameters.
    Defaults: mixed-precision Adam, 2 bytes of 16-bit weights, 2 of gradients,
    ``K = 12`` of optimizer state (fp32 master weights, momentum, variance).
    """
    psi, n = int(num_params), int(world_size)
    sizes = (int(param_bytes), int(grad_bytes), int(optimizer_bytes))
    level = STAGES.index(stage)  # 0 dp, 1 opt. state, 2 + gradients, 3 + parameters
    sharded = [level >= 3, level >= 2, level >= 1]  # params, grads, optimizer state
    params, grads, opt = (float(Fraction(size * psi, n if shard else 1))
                          for size, shard in zip(sizes, sharded, strict=True))
    return RankMemory(params=params, grads=grads, optimizer_state=opt)


def ring_bytes(collective: Collective, payload_bytes: NonNegativeReal, world_size: PositiveCount) -> float:
    """Bytes each rank SENDS in a ring ``collective`` over a buffer of ``payload_bytes`` (the full size).

    Reduce-scatter and all-gather send ``(N-1)/N`` of the buffer; all-reduce is the two in a row,
    ``2 (N-1)/N``; a pipelined broadcast forwards the buffer once, ``(N-1)/N`` on average per rank.
    """
    n = int(world_size)
    return (2 if collective == "all_reduce" else 1) * (n - 1) / n * payload_bytes


def step_communication(num_params: Params, world_size: PositiveCount, stage: Stage, *,
                       bytes_per_value: ValueBytes = 2, reduce_bytes: ValueBytes | None = None) -> float:
    """Bytes each rank sends per training step under ``stage``, the ZeRO paper's section 7 accounting.

    DP, ZeRO-1 and ZeRO-2 reduce the gradients (a reduce-scatter) and share updated parameters (an
    all-gather; DP's all-reduce is the two on the gradients): ``2 (N-1)/N Ψ`` values, "2Ψ". ZeRO-3
    all-gathers the parameters twice (forward and backward) and reduce-scatters the gradients once:
    ``3 (N-1)/N Ψ``, "3Ψ". Each collective in its own dtype: gathers move ``bytes_per_value`` (the
    weights' width), reductions ``reduce_bytes`` (the gradients' width; default the same). FSDP2 as
    torchtitan runs it reduces in fp32 (``MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32)``):
    ZeRO-3 then moves ``2·2 + 4 = 8`` bytes per parameter, not 6; DDP under autocast all-reduces the
    fp32 gradients, 8.
    """
    psi = int(num_params)
    reduce = bytes_per_value if reduce_bytes is None else reduce_bytes
    gather = reduce if stage == "dp" else bytes_per_value  # DP gathers reduced gradients, ZeRO updated weights
    gathers = 2 if stage == "zero3" else 1
    return gathers * ring_bytes("all_gather", psi * gather, world_size) + ring_bytes(
        "reduce_scatter", psi * reduce, world_size)


def zero1_partition(numels: Counts, world_size: Ranks) -> list[list[int]]:
    """Indices of the parameters each rank's optimizer owns under ``ZeroRedundancyOptimizer``.

    Its rule: whole tensors, largest first (a stable sort), each to the rank with the fewest elements
    so far (the lowest rank on a tie). So shares are Ψ / N_d only when the tensors allow it.
    """
    n = int(world_size)
    sizes = [0] * n
    owned: list[list[int]] = [[] for _ in range(n)]
    for i in sorted(range(len(numels)), key=lambda i: -numels[i]):
        rank = sizes.index(min(sizes))
        owned[rank].append(i)
        sizes[rank] += numels[i]
    return owned


def fsdp_shard_numel(shape: Counts, world_size: PositiveCount, rank: Count, *, padded: Flag = False) -> int:
    """Elements of one parameter that ``rank`` keeps under FSDP2: its chunk of dim 0 (``torch.chunk``).

    Dim 0 is cut into ``ceil(rows / N)``-row chunks, so the last ranks may get fewer rows, or none.
    FSDP2 stores every rank's shard (and its gradient) padded to the full chunk, so that the
    all-gather and reduce-scatter buffers are ``N`` equal pieces: ``padded=True`` counts that storage.
    """
    n, r, dims = int(world_size), int(rank), [int(d) for d in shape]
    if r >= n:
        raise ValueError(f"rank must be < world_size={n}, got {r}")
    if not dims:
        raise ValueError("shape must have at least one dimension (FSDP2 shards dim 0)")
    chunk = math.ceil(dims[0] / n)
    rows = chunk if padded else max(0, min(chunk, dims[0] - r * chunk))
    return rows * math.prod(dims[1:])


# expected_state_bytes: ``bytes_per_value`` per weight and gradient value, ``optimizer_states`` Adam
# values, ``step_bytes`` per tensor whose state the rank keeps (Adam's 0-d ``step``).
def expected_state_bytes(
    strategy: Strategy, shapes: Sequence[Counts], world_size: PositiveCount,
    rank: Count, *, bytes_per_value: PositiveCount = 4, optimizer_states: Count = 2,
    step_bytes: Count = 4,
) -> RankMemory:
    """Bytes of weights, gradients and Adam state ``rank`` holds under ``strategy``."""
    n, b = int(world_size), int(bytes_per_value)
    k, s = int(optimizer_states), int(step_bytes)
    if rank >= n:
        raise ValueError(f"rank must be < world_size={n}, got {rank}")
    full = sum(numels := [math.prod(int(d) for d in shape) for shape in shapes])
    if strategy == "ddp":
        return RankMemory(b * full, b * full, k * b * full + s * len(numels))
    if strategy == "zero1":
        mine = [numels[i] for i in zero1_partition(numels, n)[rank]]  # whole tensors
        return RankMemory(b * full, b * full, k * b * sum(mine) + s * len(mine))
    local = sum(fsdp_shard_numel(shape, n, rank) for shape in shapes)
    stored = sum(fsdp_shard_numel(shape, n, rank, padded=True) for shape in shapes)
    return RankMemory(b * stored, b * stored, k * b * local + s * len(numels))


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
