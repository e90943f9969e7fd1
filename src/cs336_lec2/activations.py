"""Activation memory of a Transformer: what one layer keeps for backward, by recomputation policy.

:func:`activation_bytes_per_layer` reads a :class:`~cs336_lec2.lm.TransformerConfig` and is exact
for a :class:`~cs336_lec2.lm.TransformerLM` block on the CPU in fp32 (the tests compare it with the
tensors autograd saves, for every architecture and policy), dropout's 1-byte masks included
(:func:`dropout_mask_bytes_per_token`). :func:`korthikanti_activation_bytes` is the published 16-bit
estimate for a GPT block with dropout (Korthikanti et al. 2022, "Reducing Activation Recomputation in
Large Transformer Models", eq. 1 and table 2, tensor and sequence parallelism included): for a GPT-2
block (``d_ff = 4·d``) with ``dropout > 0``, 2-byte values and no statistics,
:func:`activation_bytes_per_layer` equals it.
:func:`embedding_dropout_bytes` is the one mask outside the blocks, :func:`logits_bytes` the fp32
``B·T·V`` tensor of logits that the loss keeps, and
:func:`segment_checkpoint_bytes` the peak when every k-th layer's input is kept (Chen et al. 2016).
:func:`training_step_bytes` puts them together: the bytes of a mixed-precision AdamW step of a GPT model.
"""

from __future__ import annotations

import math
from typing import Literal, get_args

from .checks import Count, Flag, PositiveCount, beartype_on_first_call
from .config import RECOMPUTE, Recompute, TransformerConfig
from .transformer_accounting import parameter_count


def saved_values_per_token(
    config: TransformerConfig, seq_len: PositiveCount, *, recompute: Recompute = "none", flash_attention: Flag = False
) -> tuple[int, int]:
    """``(values, statistics)`` one block keeps per token: activations, and fp32 norm/softmax statistics.

    Per token (d wide unless said): each norm's input (RMSNorm also its normalised x), 2 LayerNorm
    statistics or 1 RMSNorm one; the QKV input; the MLP input and ``2·d_ff`` (GELU's input and output)
    or ``4·d_ff`` (SwiGLU: gate, silu, up, product); and the attention core:

    - math attention: q, k, v (copies with H heads, which the batched matmuls make when B > 1 and
      H > 1; with one sequence or one head they keep views, and so the whole QKV output), the
      softmax output (``H·T``), the output projection's input;
    - flash attention (``F.scaled_dot_product_attention``): q, k, v (``H·head_dim + 2·kv``, or RoPE's rotated
      q and k beside the QKV output that v keeps alive), its output, and ``H`` log-sum-exp statistics;
    - ``recompute="selective"`` (the core checkpointed): q, k, v and the output projection's input;
    - ``recompute="full"``: the block input only (``d``, no statistics).

    With ``config.dropout > 0`` math attention also keeps the dropped-out probabilities (``H·T``: the
    matmul with v saves them beside the softmax output); the masks are
    :func:`dropout_mask_bytes_per_token`.
    """
    c = config
    t, flash = int(seq_len), bool(flash_attention)
    d, q, kv = c.d_model, c.q_dim, c.kv_dim  # q = H·head_dim: d unless the head size is set (Gemma)
    if recompute == "full":
        return d, 0
    norm_values, norm_stats = (2 * d, 1) if c.norm == "rmsnorm" else (d, 2)
    qkv_kept = (q + kv + q + 2 * kv) if c.positions == "rope" else q + 2 * kv
    mlp = d + (4 if c.gated_mlp else 2) * c.d_ff
    values, stats = 2 * norm_values + d + mlp, 2 * norm_stats
    if recompute == "selective":
        return values + qkv_kept + q, stats
    if flash:
        return values + qkv_kept + q, stats + c.num_heads
    dropped = c.num_heads * t if c.dropout else 0
    return values + 3 * q + c.num_heads * t + dropped + q, stats


def dropout_mask_bytes_per_token(
    config: TransformerConfig, seq_len: PositiveCount, *, recompute: Recompute = "none", flash_attention: Flag = False
) -> int:
    """Bytes of dropout masks one block keeps per token in training: 1 byte a masked value (``bool``).

    With ``config.dropout > 0``: the masks after the attention's output projection and after the MLP
    (``2·d``), and with math attention and no recomputation the mask of the ``H·T`` attention
    probabilities. A flash kernel draws that mask inside and keeps only its random seed and offset
    (PyTorch's ``aten::_scaled_dot_product_flash_attention_backward`` takes ``philox_seed`` and
    ``philox_offset``, no mask); selective recomputation redraws it in backward (checkpointing
    restores the RNG state); full recomputation keeps no mask.
    Korthikanti et al. (2022, section 4.1) count the same masks: ``2·sbh`` and ``as²b`` bytes.
    """
    c = config
    if not c.dropout or recompute == "full":
        return 0
    return 2 * c.d_model + (c.num_heads * int(seq_len) if recompute == "none" and not flash_attention else 0)


def activation_bytes_per_layer(
    config: TransformerConfig,
    batch: PositiveCount,
    seq_len: PositiveCount,
    *,
    recompute: Recompute = "none",
    flash_attention: Flag = False,
    bytes_per_value: PositiveCount = 4,
    stat_bytes: Count = 4,
) -> int:
    """Bytes one block keeps for backward at ``batch`` sequences of ``seq_len`` tokens.

    ``B·T·(values·bytes_per_value + statistics·stat_bytes + mask bytes)`` with
    :func:`saved_values_per_token` and :func:`dropout_mask_bytes_per_token`: exact for
    ``TransformerLM`` in fp32 on the CPU (``flash_attention`` is its ``attention="sdpa"``; with dropout
    the flash row describes a GPU's fused kernel, as the CPU's SDPA falls back to math attention);
    ``bytes_per_value=2`` counts a model run wholly in 16 bits (statistics stay fp32). Without flash
    attention or recomputation the ``B·H·T²`` softmax output dominates at long T.
    """
    values, stats = saved_values_per_token(config, seq_len, recompute=recompute, flash_attention=flash_attention)
    masks = dropout_mask_bytes_per_token(config, seq_len, recompute=recompute, flash_attention=flash_attention)
    return int(batch) * int(seq_len) * (values * int(bytes_per_value) + stats * int(stat_bytes) + masks)


def korthikanti_activation_bytes(
    seq_len: PositiveCount, batch: PositiveCount, hidden: PositiveCount, num_heads: PositiveCount, *,
    recompute: Recompute = "none", tensor_parallel: PositiveCount = 1, sequence_parallel: Flag = False,
    dropout: Flag = True,
) -> int:
    """Korthikanti et al. (2022), table 2: bytes per layer of a GPT block on one GPU.

    16-bit activations, 1-byte dropout masks, an MLP of width ``4·h``. With ``t = tensor_parallel``:

    - ``"none"``: ``sbh·(34 + 5as/h) = 34·sbh + 5·as²b`` (eq. 1) at ``t = 1``; tensor parallel
      ``sbh·(10 + 24/t + 5as/(ht))``: the norms' inputs, the attention's and the MLP's inputs and
      both dropout masks (``10·sbh``) are replicated on every GPU; with ``sequence_parallel`` they
      are split along the sequence too: ``sbh/t·(34 + 5as/h)``;
    - ``"selective"`` (the attention core recomputed): the same without the ``5as²b`` term;
    - ``"full"``: ``2·sbh``, the 16-bit block input.

    ``dropout=False`` drops the masks and the dropped-out probabilities (the paper's model has dropout):
    ``32·sbh + 2·as²b`` at ``t = 1``, ``32·sbh`` selective; the replicated part is then ``8·sbh``.
    ``t`` divides ``num_heads`` and ``hidden`` (Megatron-LM's rule), so every count is a whole number.
    """
    s, b, h, a, t = int(seq_len), int(batch), int(hidden), int(num_heads), int(tensor_parallel)
    if a % t or h % t:
        raise ValueError(f"tensor_parallel must divide num_heads={a} and hidden={h}, got {t}")
    if recompute == "full":
        return 2 * s * b * h
    attention_core = (5 if dropout else 2) * a * s * s * b // t if recompute == "none" else 0
    replicated = (10 if dropout else 8) * s * b * h
    replicated = replicated // t if sequence_parallel else replicated
    return replicated + 24 * s * b * h // t + attention_core


def logits_bytes(
    config: TransformerConfig, batch: PositiveCount, seq_len: PositiveCount, *, bytes_per_value: PositiveCount = 4
) -> int:
    """Bytes of the ``(B, T, V)`` logits, fp32 by default (the loss is computed in fp32): ``B·T·V·4``.

    Cross-entropy keeps them (or their softmax) for backward, and their gradient is as large again
    during the backward pass.
    """
    c = config
    return int(batch) * int(seq_len) * c.vocab_size * int(bytes_per_value)


def embedding_dropout_bytes(config: TransformerConfig, batch: PositiveCount, seq_len: PositiveCount) -> int:
    """The embedding dropout's 1-byte mask, ``B·T·d`` when ``config.dropout > 0`` (kept once, not per layer).

    Megatron-LM's ``theoretical_memory_usage.py`` adds the same ``s·b·h`` ("Dropout in embedding layer").
    """
    c = config
    return int(batch) * int(seq_len) * c.d_model if c.dropout else 0


def segment_checkpoint_bytes(
    num_layers: PositiveCount, every: PositiveCount, layer_bytes: Count, input_bytes: Count
) -> int:
    """Peak activation bytes when the layers are checkpointed in segments of ``every`` layers.

    The inputs of the ``ceil(L / every)`` segments are kept; backward recomputes one segment at a
    time and holds its ``every`` layers' full activations: ``ceil(L/k)·input + k·layer``. ``every=1``
    is per-layer checkpointing, ``every=L`` none at all. The sum is smallest near
    ``k = √(L·input/layer)``: Chen et al. (2016)'s sublinear (``O(√L)``) schedule.
    """
    layers, k, layer, kept = int(num_layers), int(every), int(layer_bytes), int(input_bytes)
    if k > layers:
        raise ValueError(f"every must be at most num_layers={layers}, got {k}")
    if k == layers:
        return layers * layer
    return -(-layers // k) * kept + k * layer  # ceil(L / k) in integers: no float for a huge L


# Chapter 13's activation policies for a whole step: three per layer, and Chen et al.'s segments.
StepPolicy = Literal["none", "selective", "full", "sqrt(L) segments"]
STEP_POLICIES: tuple[StepPolicy, ...] = get_args(StepPolicy)
ADAMW_MIXED_BYTES_PER_PARAM = 16  # fp32 weights, gradients, two moments (chapter 10)


def training_step_bytes(
    config: TransformerConfig, batch: Count, seq_len: PositiveCount, policy: StepPolicy = "none"
) -> int:
    """Bytes of one mixed-precision AdamW step of a GPT model (``d_ff = 4·d``), ``batch`` sequences in flight.

    16 bytes for each parameter, Korthikanti's 16-bit activations of the ``L`` layers under ``policy``
    (:data:`STEP_POLICIES`), with dropout's masks only when ``config.dropout > 0``, and the fp32
    logits with their gradient (``2·4·BTV``):

    - ``"none"``, ``"selective"``: ``L`` layers at that policy's bytes (``32sbh + 2as²b``, ``32sbh``
      without dropout; ``34sbh + 5as²b``, ``34sbh`` with it);
    - ``"full"``: ``L`` block inputs (``2sbh``) plus the one block being recomputed (``32sbh`` or ``34sbh``);
    - ``"sqrt(L) segments"``: every ``round(√L)``-th block input kept, one segment of blocks recomputed
      at a time (:func:`segment_checkpoint_bytes`).

    ``batch=0`` gives the model state alone.
    """
    c = config
    b, s = int(batch), int(seq_len)
    state = ADAMW_MIXED_BYTES_PER_PARAM * parameter_count(c).total
    if b == 0:
        return state
    layer = {p: korthikanti_activation_bytes(s, b, c.d_model, c.num_heads, recompute=p, dropout=c.dropout > 0)
             for p in RECOMPUTE}
    if policy in ("none", "selective"):
        acts = c.num_layers * layer[policy]
    elif policy == "full":
        acts = c.num_layers * layer["full"] + layer["selective"]
    else:
        every = max(1, round(math.sqrt(c.num_layers)))
        acts = segment_checkpoint_bytes(c.num_layers, every, layer["selective"], layer["full"])
    return state + acts + 2 * logits_bytes(c, b, s)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
