"""Back-of-the-envelope (napkin) math for training: how long it takes and how big a model fits.

The two questions lecture 2 opens with: how many days does training a model of ``N`` parameters on
``D`` tokens take (``6·N·D`` FLOPs at a fraction ``mfu`` of the GPUs' peak), and how many
parameters fit in a given amount of memory at a given number of bytes per parameter. The bytes per
parameter of each precision recipe (:data:`PRECISIONS`) and optimizer (:data:`OPTIMIZER_STATES`) are
here too; :mod:`cs336_lec2.memory` measures real tensors against them. No torch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from .checks import PositiveCount, PositiveReal, PositiveWholeCount, Rate, WholeCount, beartype_on_first_call

# Buffers each optimizer keeps per parameter (each the size of the parameter): SGD none, SGD with
# momentum the velocity, AdaGrad the running sum of squared gradients, Adam/AdamW the first and
# second moments m and v (Kingma & Ba 2015; Loshchilov & Hutter 2019).
OptimizerName = Literal["sgd", "sgd_momentum", "adagrad", "adam", "adamw"]
OPTIMIZER_STATES: dict[str, int] = {"sgd": 0, "sgd_momentum": 1, "adagrad": 1, "adam": 2, "adamw": 2}


@dataclass(frozen=True)
class Precision:
    """Bytes per value of each kind of tensor under one precision recipe."""

    param: int  # the weights the forward and backward passes use
    grad: int  # one gradient per parameter
    master: int  # an fp32 copy of the weights kept for the update (0: the weights are fp32 already)
    state: int  # one optimizer buffer value (momentum, m, v, ...)
    activation: int  # one value saved for the backward pass


# fp32: everything in 4-byte floats. mixed_bf16: bf16 weights, gradients and activations (2 bytes)
# for the matmuls, plus an fp32 master copy of the weights and fp32 optimizer buffers, so that small
# updates are not rounded away (Micikevicius et al. 2018, "Mixed Precision Training"; ZeRO, Rajbhandari
# et al. 2020, section 3.1: 2 + 2 + 12 = 16 bytes per parameter for mixed-precision Adam).
PrecisionName = Literal["fp32", "mixed_bf16", "mixed_bf16_fp32_grads"]
PRECISIONS: dict[str, Precision] = {
    "fp32": Precision(param=4, grad=4, master=0, state=4, activation=4),
    "mixed_bf16": Precision(param=2, grad=2, master=4, state=4, activation=2),
    # The same with gradients accumulated in fp32 (as Megatron-LM's --accumulate-allreduce-grads-in-fp32
    # does, so that many micro-batches sum without bf16 rounding): 2 + 4 + 12 = 18 bytes for Adam.
    "mixed_bf16_fp32_grads": Precision(param=2, grad=4, master=4, state=4, activation=2),
}

SECONDS_PER_DAY = 86_400


def training_flops(num_params: WholeCount, num_tokens: WholeCount) -> int:
    """FLOPs to train ``num_params`` parameters on ``num_tokens`` tokens: ``6·N·D``.

    2 per parameter per token forward, 4 backward; it ignores attention's sequence-length terms,
    elementwise work and the optimizer, which is why it is a rule of thumb.
    """
    return 6 * int(num_params) * int(num_tokens)


def training_days(
    num_params: PositiveWholeCount,
    num_tokens: PositiveWholeCount,
    num_gpus: PositiveCount,
    flop_per_sec_per_gpu: Rate,
    mfu: PositiveReal,
) -> float:
    """Days to train: ``6·N·D / (num_gpus · flop_per_sec_per_gpu · mfu) / 86400``.

    ``num_params`` and ``num_tokens`` are counts: ints, or whole floats such as ``70e9``.
    ``flop_per_sec_per_gpu`` is a peak in FLOP/s (a float, or anything with ``__float__`` such as
    the ``Peak`` that :func:`cs336_lec2.hardware.peak_flops` returns); ``mfu`` (model FLOPs
    utilization) is the fraction of that peak the run achieves, in ``(0, 1]``.
    """
    # 6·N·D: 2 FLOPs per parameter per token forward, 4 backward (the optimizer's few FLOPs per
    # parameter per *step* are negligible next to it).
    flops = training_flops(num_params, num_tokens)
    peak = float(flop_per_sec_per_gpu)  # a Peak too
    if mfu > 1:
        raise ValueError(f"mfu must be in (0, 1] (a fraction of the peak), got {mfu!r}")
    try:
        days = flops / (int(num_gpus) * peak * float(mfu)) / SECONDS_PER_DAY
    except OverflowError:
        days = math.inf
    if not math.isfinite(days):
        raise ValueError(f"6·N·D = a {flops.bit_length()}-bit number of FLOPs: the days do not fit in a float; "
                         "check num_params, num_tokens and the peak")
    return days


def max_trainable_params(total_memory_bytes: PositiveReal, bytes_per_param: PositiveReal) -> int:
    """The most parameters whose training state fits in ``total_memory_bytes`` (rounded down).

    Exact: ``result * bytes_per_param <= total_memory_bytes < (result + 1) * bytes_per_param``.
    It counts only per-parameter state (see :func:`bytes_per_param`), not activations, and assumes
    the memory of several GPUs can be pooled, which needs sharding (ZeRO / FSDP).
    """
    # Fractions keep the floor exact where float division could land a hair on the wrong side.
    return math.floor(Fraction(float(total_memory_bytes)) / Fraction(float(bytes_per_param)))


def bytes_per_param_breakdown(optimizer: OptimizerName = "adamw",
                              precision: PrecisionName = "mixed_bf16") -> dict[str, int]:
    """Bytes each parameter costs, by kind: ``params``, ``grads``, ``master_weights``, ``optimizer_state``.

    The figures come from :data:`PRECISIONS` and :data:`OPTIMIZER_STATES`; mixed_bf16 AdamW is ``2 + 2 + 4 + 8 = 16``.
    """
    p = PRECISIONS[precision]
    return {
        "params": p.param,
        "grads": p.grad,
        "master_weights": p.master,
        "optimizer_state": OPTIMIZER_STATES[optimizer] * p.state,
    }


def bytes_per_param(optimizer: OptimizerName = "adamw", precision: PrecisionName = "mixed_bf16") -> int:
    """Bytes of training state per parameter (activations excluded): 16 for AdamW in either precision."""
    return sum(bytes_per_param_breakdown(optimizer, precision).values())


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
