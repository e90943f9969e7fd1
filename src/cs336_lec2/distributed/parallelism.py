"""Beyond data parallelism: the napkin formulas of pipeline, context, expert and 3-D parallelism.

Chapter 14 teaches them in a paragraph each; the formulas live here, without torch.

- :func:`pipeline_bubble`: the idle fraction of a synchronous pipeline schedule (GPipe or 1F1B) with
  ``p`` stages and ``m`` micro-batches, ``(p - 1) / (m + p - 1)`` (Narayanan et al. 2021, "Efficient
  Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", section 2.2.1, as the bubble
  time over the whole step). :func:`pipeline_in_flight`: the micro-batches whose activations the first
  stage holds at once: all ``m`` under GPipe, at most ``p`` under 1F1B (PipeDream-Flush).
- :func:`ring_attention_bytes`: the keys and values each GPU passes on per layer when context
  parallelism splits a sequence over ``cp`` GPUs in a ring (ring attention, Liu et al. 2023).
- :func:`all_to_all_seconds`: expert parallelism's dispatch and combine, each GPU's share of the token
  copies leaving through the link it has (one NIC per GPU across nodes).
- :func:`parallel_state_bytes`: the training state per GPU under tensor x pipeline x data parallelism,
  the weights split ``t · p`` ways and, ZeRO-1/2 style, gradients and optimizer state also over ``d``.
"""

from __future__ import annotations

from typing import Literal, get_args

from ..checks import Count, Params, PositiveCount, PositiveReal, beartype_on_first_call

Schedule = Literal["gpipe", "1f1b"]
SCHEDULES = get_args(Schedule)


def pipeline_bubble(stages: PositiveCount, micro_batches: PositiveCount) -> float:
    """Idle fraction of a step of ``stages`` pipeline stages and ``micro_batches`` micro-batches: (p-1)/(m+p-1)."""
    p, m = int(stages), int(micro_batches)
    return (p - 1) / (m + p - 1)


def pipeline_in_flight(stages: PositiveCount, micro_batches: PositiveCount, schedule: Schedule = "1f1b") -> int:
    """Micro-batches whose activations the first stage holds at once: ``m`` for GPipe, ``min(p, m)`` for 1F1B.

    GPipe runs every forward pass before any backward pass; 1F1B starts the backward pass of a
    micro-batch as soon as the last stage has it, so stage ``i`` holds at most ``p - i`` at a time.
    """
    p, m = int(stages), int(micro_batches)
    return m if schedule == "gpipe" else min(p, m)


def ring_attention_bytes(seq_len: PositiveCount, batch: PositiveCount, kv_width: PositiveCount,
                         cp: PositiveCount, *, bytes_per_value: PositiveCount = 2) -> float:
    """Bytes each GPU sends per layer's forward pass under ring attention over ``cp`` GPUs.

    Each GPU holds ``seq_len / cp`` tokens' keys and values (``kv_width`` values each: the KV heads
    times the head size) and passes them on ``cp - 1`` times, so every GPU sees every key.
    The backward pass sends about twice as much (the keys and values again, and their gradients).
    """
    s, b, width, n = int(seq_len), int(batch), int(kv_width), int(cp)
    return (n - 1) * 2 * (s / n) * b * width * int(bytes_per_value)


def all_to_all_seconds(tokens: Count, width: PositiveCount, top_k: PositiveCount, ep: PositiveCount,
                       link: PositiveReal, *, bytes_per_value: PositiveCount = 2) -> float:
    """Seconds of one MoE layer's forward all-to-alls (dispatch, then combine) over ``ep`` GPUs.

    Each GPU routes its ``tokens`` to ``top_k`` experts each; a uniform router sends ``(ep - 1) / ep``
    of those ``width``-value copies to other GPUs, once to dispatch and once to bring the results
    back, all through the GPU's own ``link`` (bytes/s): across nodes, its one NIC.
    """
    t, h, k, n = int(tokens), int(width), int(top_k), int(ep)
    return 2 * (n - 1) / n * t * k * h * int(bytes_per_value) / float(link)


def parallel_state_bytes(num_params: Params, tp: PositiveCount, pp: PositiveCount, dp: PositiveCount, *,
                         param_bytes: Count = 2, grad_bytes: Count = 2, optimizer_bytes: Count = 12) -> float:
    """Bytes of training state per GPU: weights over ``tp · pp``, gradients and optimizer state also over ``dp``.

    Llama 3 405B's layout (Dubey et al. 2024, section 3.3.2): tensor parallelism inside the node,
    pipeline stages across nodes, and FSDP over data-parallel ranks that shards optimizer state and
    gradients but keeps the weights gathered from the forward to the backward pass (ZeRO-2).
    """
    shard = int(num_params) / (int(tp) * int(pp))
    return shard * int(param_bytes) + shard * (int(grad_bytes) + int(optimizer_bytes)) / int(dp)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
