"""Activation memory of a Transformer: what one layer keeps for backward, by recomputation policy.

:func:`activation_bytes_per_layer` reads a :class:`~cs336_lec2.lm.TransformerConfig` and is exact
for a :class:`~cs336_lec2.lm.TransformerLM` block on the CPU in fp32 (the tests compare it with the
tensors autograd saves, for every architecture and policy). :func:`korthikanti_activation_bytes`
is the published 16-bit estimate for a GPT block with dropout (Korthikanti et al. 2022,
"Reducing Activation Recomputation in Large Transformer Models", eq. 1 and table 2).
:func:`logits_bytes` is the fp32 ``B·T·V`` tensor of logits that the loss keeps, and
:func:`segment_checkpoint_bytes` the peak when every k-th layer's input is kept (Chen et al. 2016).
"""

from __future__ import annotations

from .checks import check_choice, check_int
from .lm import RECOMPUTE, TransformerConfig, check_bool


def _config(config: object) -> TransformerConfig:
    if not isinstance(config, TransformerConfig):
        raise TypeError(f"config must be a TransformerConfig, got {type(config).__name__}")
    return config


def saved_values_per_token(
    config: TransformerConfig, seq_len: int, *, recompute: str = "none", flash_attention: bool = False
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
    """
    c = _config(config)
    t = check_int("seq_len", seq_len, minimum=1)
    recompute = check_choice("recompute", recompute, RECOMPUTE)
    flash = check_bool("flash_attention", flash_attention)
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
    return values + 3 * q + c.num_heads * t + q, stats


def activation_bytes_per_layer(
    config: TransformerConfig,
    batch: int,
    seq_len: int,
    *,
    recompute: str = "none",
    flash_attention: bool = False,
    bytes_per_value: int = 4,
    stat_bytes: int = 4,
) -> int:
    """Bytes one block keeps for backward at ``batch`` sequences of ``seq_len`` tokens.

    ``B·T·(values·bytes_per_value + statistics·stat_bytes)`` with :func:`saved_values_per_token`:
    exact for ``TransformerLM`` in fp32 on the CPU (``flash_attention`` is its ``attention="sdpa"``);
    ``bytes_per_value=2`` counts a model run wholly in 16 bits (statistics stay fp32). Without
    flash attention or recomputation the ``B·H·T²`` softmax output dominates at long T.
    """
    b = check_int("batch", batch, minimum=1)
    values, stats = saved_values_per_token(config, seq_len, recompute=recompute, flash_attention=flash_attention)
    per_value = check_int("bytes_per_value", bytes_per_value, minimum=1)
    return b * seq_len * (values * per_value + stats * check_int("stat_bytes", stat_bytes, minimum=0))


def korthikanti_activation_bytes(
    seq_len: int, batch: int, hidden: int, num_heads: int, *, recompute: str = "none"
) -> int:
    """Korthikanti et al. (2022), table 2 (no tensor parallelism): bytes per layer of a GPT block.

    ``"none"``: ``s·b·h·(34 + 5·a·s/h) = 34·s·b·h + 5·a·s²·b`` (eq. 1); ``"selective"`` (the
    attention core recomputed): ``34·s·b·h``; ``"full"``: ``2·s·b·h`` (the 16-bit block input).
    16-bit activations, 1-byte dropout masks, an MLP of width ``4·h``.
    """
    s, b = check_int("seq_len", seq_len, minimum=1), check_int("batch", batch, minimum=1)
    h, a = check_int("hidden", hidden, minimum=1), check_int("num_heads", num_heads, minimum=1)
    recompute = check_choice("recompute", recompute, RECOMPUTE)
    if recompute == "full":
        return 2 * s * b * h
    return 34 * s * b * h + (5 * a * s * s * b if recompute == "none" else 0)


def logits_bytes(config: TransformerConfig, batch: int, seq_len: int, *, bytes_per_value: int = 4) -> int:
    """Bytes of the ``(B, T, V)`` logits, fp32 by default (the loss is computed in fp32): ``B·T·V·4``.

    Cross-entropy keeps them (or their softmax) for backward, and their gradient is as large again
    during the backward pass.
    """
    c = _config(config)
    b, s = check_int("batch", batch, minimum=1), check_int("seq_len", seq_len, minimum=1)
    return b * s * c.vocab_size * check_int("bytes_per_value", bytes_per_value, minimum=1)


def segment_checkpoint_bytes(num_layers: int, every: int, layer_bytes: int, input_bytes: int) -> int:
    """Peak activation bytes when the layers are checkpointed in segments of ``every`` layers.

    The inputs of the ``ceil(L / every)`` segments are kept; backward recomputes one segment at a
    time and holds its ``every`` layers' full activations: ``ceil(L/k)·input + k·layer``. ``every=1``
    is per-layer checkpointing, ``every=L`` none at all. The sum is smallest near
    ``k = √(L·input/layer)``: Chen et al. (2016)'s sublinear (``O(√L)``) schedule.
    """
    layers = check_int("num_layers", num_layers, minimum=1)
    k = check_int("every", every, minimum=1, maximum=layers)
    layer = check_int("layer_bytes", layer_bytes, minimum=0)
    kept = check_int("input_bytes", input_bytes, minimum=0)
    if k == layers:
        return layers * layer
    return -(-layers // k) * kept + k * layer  # ceil(L / k) in integers: no float for a huge L
