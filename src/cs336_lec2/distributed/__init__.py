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

from ..checks import check_bool, check_choice, check_int, check_real

MAX_BITS = 512  # parameter counts beyond 2**512 are refused: bytes must stay within a float (~2**1024)
STAGES = ("dp", "zero1", "zero2", "zero3")
STRATEGIES = ("ddp", "zero1", "fsdp2")  # the PyTorch implementations of dp, zero1 and zero3 (= FSDP)
COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "broadcast")


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
    num_params: int, world_size: int, stage: str, *,
    param_bytes: int = 2, grad_bytes: int = 2, optimizer_bytes: int = 12,
) -> RankMemory:
    """Per-rank bytes of the training state under ``stage``, the ZeRO paper's way.

    ``dp`` replicates everything; ``zero1`` divides the optimizer state by
    ``world_size`` (N_d), ``zero2`` also the gradients, ``zero3`` also the parameters.
    Defaults: mixed-precision Adam, 2 bytes of 16-bit weights, 2 of gradients,
    ``K = 12`` of optimizer state (fp32 master weights, momentum, variance).
    """
    psi, n, stage, sizes = _check_zero(num_params, world_size, stage,
                                       (param_bytes, grad_bytes, optimizer_bytes))
    level = STAGES.index(stage)  # 0 dp, 1 opt. state, 2 + gradients, 3 + parameters
    sharded = [level >= 3, level >= 2, level >= 1]  # params, grads, optimizer state
    params, grads, opt = (float(Fraction(size * psi, n if shard else 1))
                          for size, shard in zip(sizes, sharded, strict=True))
    return RankMemory(params=params, grads=grads, optimizer_state=opt)


def _check_zero(num_params: int, world_size: int, stage: str,
                sizes: tuple[int, int, int]) -> tuple[int, int, str, list[int]]:
    names = ("param_bytes", "grad_bytes", "optimizer_bytes")
    return (check_int("num_params", num_params, minimum=0, max_bits=MAX_BITS),
            check_int("world_size", world_size, minimum=1), check_choice("stage", stage, STAGES),
            [check_int(k, v, minimum=0, max_bits=64) for k, v in zip(names, sizes, strict=True)])


def ring_bytes(collective: str, payload_bytes: float, world_size: int) -> float:
    """Bytes each rank SENDS in a ring ``collective`` over a buffer of ``payload_bytes`` (the full size).

    Reduce-scatter and all-gather send ``(N-1)/N`` of the buffer; all-reduce is the two in a row,
    ``2 (N-1)/N``; a pipelined broadcast forwards the buffer once, ``(N-1)/N`` on average per rank.
    """
    check_choice("collective", collective, COLLECTIVES)
    payload_bytes = check_real("payload_bytes", payload_bytes, minimum=0)  # NaN, inf, 2**1100: no byte counts
    n = check_int("world_size", world_size, minimum=1)
    return (2 if collective == "all_reduce" else 1) * (n - 1) / n * payload_bytes


def step_communication(num_params: int, world_size: int, stage: str, *, bytes_per_value: int = 2,
                       reduce_bytes: int | None = None) -> float:
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
    psi = check_int("num_params", num_params, minimum=0, max_bits=MAX_BITS)
    stage = check_choice("stage", stage, STAGES)
    check_int("bytes_per_value", bytes_per_value, minimum=1, max_bits=64)
    reduce = bytes_per_value if reduce_bytes is None else check_int("reduce_bytes", reduce_bytes, minimum=1,
                                                                      max_bits=64)
    gather = reduce if stage == "dp" else bytes_per_value  # DP gathers reduced gradients, ZeRO updated weights
    gathers = 2 if stage == "zero3" else 1
    return gathers * ring_bytes("all_gather", psi * gather, world_size) + ring_bytes(
        "reduce_scatter", psi * reduce, world_size)


def zero1_partition(numels: Sequence[int], world_size: int) -> list[list[int]]:
    """Indices of the parameters each rank's optimizer owns under ``ZeroRedundancyOptimizer``.

    Its rule: whole tensors, largest first (a stable sort), each to the rank with the fewest elements
    so far (the lowest rank on a tie). So shares are Ψ / N_d only when the tensors allow it.
    """
    n = check_int("world_size", world_size, minimum=1, maximum=2**20)
    if isinstance(numels, (str, bytes)) or not isinstance(numels, Sequence):  # None was a raw TypeError
        raise TypeError(f"numels must be a sequence of element counts, got {type(numels).__name__} {numels!r}")
    sizes = [0] * n
    owned: list[list[int]] = [[] for _ in range(n)]
    for i in sorted(range(len(numels)), key=lambda i: -check_int("numels", numels[i], minimum=0)):
        rank = sizes.index(min(sizes))
        owned[rank].append(i)
        sizes[rank] += numels[i]
    return owned


def fsdp_shard_numel(shape: Sequence[int], world_size: int, rank: int, *, padded: bool = False) -> int:
    """Elements of one parameter that ``rank`` keeps under FSDP2: its chunk of dim 0 (``torch.chunk``).

    Dim 0 is cut into ``ceil(rows / N)``-row chunks, so the last ranks may get fewer rows, or none.
    FSDP2 stores every rank's shard (and its gradient) padded to the full chunk, so that the
    all-gather and reduce-scatter buffers are ``N`` equal pieces: ``padded=True`` counts that storage.
    """
    n = check_int("world_size", world_size, minimum=1)
    r = check_int("rank", rank, minimum=0)
    if r >= n:
        raise ValueError(f"rank must be < world_size={n}, got {r}")
    padded = check_bool("padded", padded)  # "False" is true to Python
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence):
        raise TypeError(f"shape must be a sequence of dimensions, got {type(shape).__name__} {shape!r}")
    dims = [check_int("shape", d, minimum=0) for d in shape]
    if not dims:
        raise ValueError("shape must have at least one dimension (FSDP2 shards dim 0)")
    chunk = math.ceil(dims[0] / n)
    rows = chunk if padded else max(0, min(chunk, dims[0] - r * chunk))
    return rows * math.prod(dims[1:])


def expected_state_bytes(
    strategy: str, shapes: Sequence[Sequence[int]], world_size: int, rank: int, *,
    bytes_per_value: int = 4, optimizer_states: int = 2, step_bytes: int = 4,
) -> RankMemory:
    """Bytes of weights, gradients and Adam state ``rank`` holds under ``strategy``.

    ``bytes_per_value`` per weight and gradient value, ``optimizer_states`` Adam values,
    ``step_bytes`` per tensor whose state the rank keeps (Adam's 0-d ``step``).
    """
    sizes = (bytes_per_value, optimizer_states, step_bytes)
    strategy, n, b, k, s, numels = _checked(strategy, shapes, world_size, rank, *sizes)
    full = sum(numels)
    if strategy == "ddp":
        return RankMemory(b * full, b * full, k * b * full + s * len(numels))
    if strategy == "zero1":
        mine = [numels[i] for i in zero1_partition(numels, n)[rank]]  # whole tensors
        return RankMemory(b * full, b * full, k * b * sum(mine) + s * len(mine))
    local = sum(fsdp_shard_numel(shape, n, rank) for shape in shapes)
    stored = sum(fsdp_shard_numel(shape, n, rank, padded=True) for shape in shapes)
    return RankMemory(b * stored, b * stored, k * b * local + s * len(numels))


def _checked(strategy: str, shapes: Sequence[Sequence[int]], world_size: int, rank: int,
             *sizes: int) -> tuple[str, int, int, int, int, list[int]]:
    strategy = check_choice("strategy", strategy, STRATEGIES)
    n = check_int("world_size", world_size, minimum=1)
    if check_int("rank", rank, minimum=0) >= n:
        raise ValueError(f"rank must be < world_size={n}, got {rank}")
    b, k, s = (check_int(name, v, minimum=m) for name, v, m in
               zip(("bytes_per_value", "optimizer_states", "step_bytes"), sizes, (1, 0, 0), strict=True))
    numels = [math.prod(check_int("shapes", d, minimum=0) for d in shape) for shape in shapes]
    return strategy, n, b, k, s, numels
