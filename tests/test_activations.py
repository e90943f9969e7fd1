"""Activation memory formulas against what autograd saves, and against Korthikanti et al. (2022)."""

from __future__ import annotations

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from torch.utils.checkpoint import checkpoint

from cs336_lec2.activations import (
    activation_bytes_per_layer,
    korthikanti_activation_bytes,
    logits_bytes,
    saved_values_per_token,
    segment_checkpoint_bytes,
)
from cs336_lec2.memory import SavedTensorsRecorder
from cs336_lec2.models import TransformerConfig, TransformerLM


@st.composite
def configs(draw: st.DrawFn) -> TransformerConfig:
    kv = draw(st.integers(1, 2))
    heads = kv * draw(st.integers(1, 3))
    return TransformerConfig(
        vocab_size=draw(st.integers(2, 20)), context_length=draw(st.integers(1, 8)), num_layers=1,
        d_model=heads * 2 * draw(st.integers(1, 3)), num_heads=heads, d_ff=draw(st.integers(1, 16)),
        bias=draw(st.booleans()), num_kv_heads=kv, gated_mlp=draw(st.booleans()),
        head_size=draw(st.sampled_from([None, 2, 4, 6])),  # None: d / H; else H·head_size != d (as Gemma's)
        norm=draw(st.sampled_from(["layernorm", "rmsnorm"])), positions=draw(st.sampled_from(["learned", "rope"])),
    )


@settings(max_examples=60, deadline=None)
@given(config=configs(), batch=st.integers(1, 3), data=st.data(), recompute=st.sampled_from(["none", "selective",
       "full"]), flash=st.booleans())
def test_activation_bytes_equal_what_autograd_saves(config: TransformerConfig, batch: int, data: st.DataObject,
                                                    recompute: str, flash: bool) -> None:
    seq_len = data.draw(st.integers(1, config.context_length))
    # Math attention's batched matmuls copy their non-contiguous q, k, v per head (3·d a token) when
    # B > 1 and H > 1. With one sequence or one head they take views instead, which keep the whole
    # QKV output (and RoPE's inputs) alive: a few d more per token than the formula counts.
    assume(flash or recompute != "none" or (batch > 1 and config.num_heads > 1))
    model = TransformerLM.from_config(config, attention="sdpa" if flash else "math")
    model.recompute = recompute
    block = model.blocks[0]
    x = torch.randn(batch, seq_len, config.d_model, requires_grad=True)
    # the weights and the mask / RoPE tables are the model's own tensors, not activations
    with SavedTensorsRecorder(exclude=[*model.parameters(), *model.buffers()]) as rec:
        checkpoint(block, x, use_reentrant=False) if recompute == "full" else block(x)
    expected = activation_bytes_per_layer(config, batch, seq_len, recompute=recompute, flash_attention=flash)
    assert rec.bytes == expected


@given(s=st.integers(1, 4096), b=st.integers(1, 16), heads=st.integers(1, 32), width=st.integers(1, 64))
def test_our_block_is_korthikanti_without_dropout_in_fp32(s: int, b: int, heads: int, width: int) -> None:
    h = heads * width
    config = TransformerConfig(2, s, 1, h, heads, 4 * h)
    ours = activation_bytes_per_layer(config, b, s) - 4 * b * s * 4  # without LayerNorm's mean / rstd
    # drop the two sbh dropout masks, the as²b attention-dropout mask and its 2as²b output; fp32 doubles
    no_dropout_16bit = korthikanti_activation_bytes(s, b, h, heads) - 2 * s * b * h - 3 * heads * s * s * b
    assert ours == 2 * no_dropout_16bit
    # selective: Korthikanti keeps 34sbh with the QKV output as q, k, v; ours keeps the same minus dropout masks
    selective = activation_bytes_per_layer(config, b, s, recompute="selective", bytes_per_value=2, stat_bytes=0)
    assert selective == korthikanti_activation_bytes(s, b, h, heads, recompute="selective") - 2 * s * b * h
    full = activation_bytes_per_layer(config, b, s, recompute="full", bytes_per_value=2)
    assert full == korthikanti_activation_bytes(s, b, h, heads, recompute="full") == 2 * s * b * h


def test_korthikanti_values() -> None:
    # GPT-3 175B's shape (s=2048, b=1, h=12288, a=96), eq. 1: 34·s·h + 5·a·s²
    assert korthikanti_activation_bytes(2048, 1, 12288, 96) == 34 * 2048 * 12288 + 5 * 96 * 2048**2
    assert korthikanti_activation_bytes(2048, 1, 12288, 96, recompute="selective") == 34 * 2048 * 12288


def test_flash_and_selective_drop_the_quadratic_term() -> None:
    config = TransformerConfig(10, 4096, 1, 64, 4, 256)
    for policy, flash in (("selective", False), ("none", True)):
        short, long = (activation_bytes_per_layer(config, 1, t, recompute=policy, flash_attention=flash)
                       for t in (1024, 2048))
        assert long == 2 * short  # linear in T
    short, long = (activation_bytes_per_layer(config, 1, t) for t in (1024, 2048))
    assert long > 2 * short
    values, stats = saved_values_per_token(config, 8, recompute="full")
    assert (values, stats) == (64, 0)


def test_logits_bytes() -> None:
    # fp32 logits: b·s·V·4 bytes; 32 sequences of 2048 tokens and a 50,257 vocabulary: 13.2 GB
    config = TransformerConfig(50257, 2048, 1, 8, 1, 8)
    assert logits_bytes(config, 32, 2048) == 32 * 2048 * 50257 * 4
    assert round(logits_bytes(config, 32, 2048) / 1e9, 1) == 13.2
    assert logits_bytes(config, 1, 1, bytes_per_value=2) == 2 * 50257


@given(layers=st.integers(1, 128), data=st.data())
def test_segment_checkpointing(layers: int, data: st.DataObject) -> None:
    every = data.draw(st.integers(1, layers))
    layer, kept = 1000, 30
    peak = segment_checkpoint_bytes(layers, every, layer, kept)
    assert peak <= layers * layer
    if layers > 1:
        assert segment_checkpoint_bytes(layers, 1, layer, kept) == layers * kept + layer
    # the best segment length is within one of sqrt(L·input/layer) (Chen et al. 2016)
    best = min(range(1, layers + 1), key=lambda k: segment_checkpoint_bytes(layers, k, layer, kept))
    assert segment_checkpoint_bytes(layers, best, layer, kept) <= peak


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda c: activation_bytes_per_layer(c, 0, 2), ValueError, "batch must be a positive int"),
        (lambda c: activation_bytes_per_layer(c, 1, 2, bytes_per_value=0), ValueError, "bytes_per_value"),
        (lambda c: activation_bytes_per_layer(c, 1, 2, recompute="no"), ValueError,
         r"recompute must be one of \('none', 'selective', 'full'\), got 'no'"),
        (lambda c: activation_bytes_per_layer(c, 1, 2, flash_attention="False"), TypeError,
         "flash_attention must be True or False, got str 'False'"),
        (lambda c: activation_bytes_per_layer({"d": 1}, 1, 2), TypeError, "config must be a TransformerConfig"),
        (lambda c: korthikanti_activation_bytes(1, 1, 0, 1), ValueError, "hidden must be a positive int"),
        (lambda c: korthikanti_activation_bytes(1, 1, 8, 1, recompute=None), ValueError, "recompute must be one of"),
        (lambda c: logits_bytes(c, 1, True), TypeError, "seq_len must be an int"),
        (lambda c: segment_checkpoint_bytes(4, 5, 1, 1), ValueError, r"every must be an int in \[1, 4\]"),
    ],
)
def test_rejections(call, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        call(TransformerConfig(10, 4, 1, 8, 4, 16))
