"""Activation memory formulas against what autograd saves, and against Korthikanti et al. (2022)."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from torch.utils.checkpoint import checkpoint

from cs336_lec2.activations import (
    activation_bytes_per_layer,
    dropout_mask_bytes_per_token,
    embedding_dropout_bytes,
    korthikanti_activation_bytes,
    logits_bytes,
    saved_values_per_token,
    segment_checkpoint_bytes,
    training_step_bytes,
)
from cs336_lec2.config import TransformerConfig
from cs336_lec2.memory import SavedTensorsRecorder
from cs336_lec2.transformer_accounting import parameter_count
from cs336_lec2.transformer_model import TransformerLM


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
        dropout=draw(st.sampled_from([0.0, 0.1, 0.5])),
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
    policy = {"recompute": recompute, "flash_attention": flash}
    masks = sum(r.storage_bytes for r in rec.activations if r.dtype == torch.bool)
    assert masks == batch * seq_len * dropout_mask_bytes_per_token(config, seq_len, **policy)
    if flash and config.dropout:
        # the CPU's SDPA runs dropout through its math fallback (T x T float tensors); a GPU's flash
        # kernel keeps its seed and offset only, as counted: only the masks outside it are measurable here
        return
    assert rec.bytes == activation_bytes_per_layer(config, batch, seq_len, **policy)


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


@given(s=st.integers(1, 4096), b=st.integers(1, 16), heads=st.integers(1, 32), width=st.integers(1, 64))
def test_with_dropout_our_block_is_korthikanti_eq_1(s: int, b: int, heads: int, width: int) -> None:
    # GPT-2's block with dropout, in 16 bits and without LayerNorm's statistics, is the paper's count
    h = heads * width
    config = TransformerConfig(2, s, 1, h, heads, 4 * h, dropout=0.1)
    for policy in ("none", "selective", "full"):
        ours = activation_bytes_per_layer(config, b, s, recompute=policy, bytes_per_value=2, stat_bytes=0)
        assert ours == korthikanti_activation_bytes(s, b, h, heads, recompute=policy)


# Korthikanti et al. (2022) section 5: selective recomputation saves 70 % of the activations of GPT-3
# 175B and 65 % of MT-NLG 530B's. Shapes: GPT-3 175B s = 2048, h = 12288, a = 96 (NVIDIA/Megatron-LM
# examples/gpt3/train_gpt3_175b_distributed.sh); MT-NLG 530B s = 2048, h = 20480, a = 128 (Megatron's
# gpt3-530b job script).
PAPER_MODELS = {"GPT-3 175B": (2048, 12288, 96, 0.70), "MT-NLG 530B": (2048, 20480, 128, 0.65)}


@pytest.mark.parametrize("name", PAPER_MODELS)
def test_the_papers_selective_saving_needs_the_dropout_masks(name: str) -> None:
    s, h, a, saved = PAPER_MODELS[name]
    kept = {}
    for p in (0.0, 0.1):
        config = TransformerConfig(50257, s, 1, h, a, 4 * h, dropout=p)
        kept[p] = [activation_bytes_per_layer(config, 1, s, recompute=r, bytes_per_value=2, stat_bytes=0)
                   for r in ("none", "selective")]
    paper = korthikanti_activation_bytes(s, 1, h, a)
    assert kept[0.1][0] == paper  # with dropout: the paper's per-layer bytes exactly
    assert round(1 - kept[0.1][1] / kept[0.1][0], 2) == saved  # and its saving: 70 %, 65 %
    # without dropout: 0.56 / 0.59 of the paper, and selective saves 50 % / 44 %, not 70 % / 65 %
    ratio, saving = kept[0.0][0] / paper, 1 - kept[0.0][1] / kept[0.0][0]
    assert (round(ratio, 2), round(saving, 2)) == {"GPT-3 175B": (0.56, 0.5), "MT-NLG 530B": (0.59, 0.44)}[name]


@given(s=st.integers(1, 4096), b=st.integers(1, 8), heads=st.integers(1, 16), width=st.integers(1, 32),
       t=st.sampled_from([1, 2, 4, 8]))
def test_korthikanti_table_2_rows_against_megatron(s: int, b: int, heads: int, width: int, t: int) -> None:
    h = heads * width * t
    a = heads * t
    sbh = s * b * h
    row = {(r, sp): korthikanti_activation_bytes(s, b, h, a, recompute=r, tensor_parallel=t, sequence_parallel=sp)
           for r in ("none", "selective", "full") for sp in (False, True)}
    # NVIDIA/Megatron-LM megatron/training/theoretical_memory_usage.py ("formula in Table 2"):
    # selective without sequence parallelism sbh·(10 + 24/t), with it sbh·(18 + 4·ffn/h)/t, ffn = 4h
    assert row["selective", False] * t == sbh * (10 * t + 24)
    assert row["selective", True] * t == sbh * (18 + 4 * 4)
    # table 2: sbh·(10 + 24/t + 5as/(ht)) and, sequence parallel, sbh/t·(34 + 5as/h); full 2sbh
    assert row["none", False] * h * t == sbh * (10 * h * t + 24 * h + 5 * a * s)
    assert row["none", True] * h * t == sbh * (34 * h + 5 * a * s)
    assert row["full", False] == row["full", True] == 2 * sbh
    if t == 1:  # eq. 1
        assert row["none", False] == row["none", True] == 34 * sbh + 5 * a * s * s * b


def test_the_whole_model_keeps_one_embedding_mask_more() -> None:
    config = TransformerConfig(30, 12, 3, 16, 4, 64, dropout=0.1)
    model = TransformerLM.from_config(config)
    idx = torch.randint(0, 30, (2, 12))
    with SavedTensorsRecorder(exclude=[*model.parameters(), *model.buffers()]) as rec:
        model(idx)
    masks = sum(r.storage_bytes for r in rec.activations if r.dtype == torch.bool)
    per_layer = 2 * 12 * dropout_mask_bytes_per_token(config, 12)
    assert masks == 3 * per_layer + embedding_dropout_bytes(config, 2, 12) == 3 * per_layer + 2 * 12 * 16
    model.eval()  # evaluation draws no mask
    with SavedTensorsRecorder(exclude=[*model.parameters(), *model.buffers()]) as rec:
        model(idx)
    assert not any(r.dtype == torch.bool for r in rec.activations)
    assert embedding_dropout_bytes(TransformerConfig(30, 12, 3, 16, 4, 64), 2, 12) == 0


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


def test_training_step_bytes_adds_state_activations_and_logits() -> None:
    # one GPT-3-style layer family member: d = 8192, 64 heads, s = 2048 (chapter 13's 8 x H100 question)
    config = TransformerConfig(50257, 2048, 9, 8192, 64, 4 * 8192)
    s, h, a, b = 2048, 8192, 64, 8
    state = 16 * parameter_count(config).total
    logits = 2 * 4 * b * s * 50257  # fp32 logits and their gradient
    sbh = s * b * h
    assert training_step_bytes(config, 0, s) == state
    # no dropout: no masks, no dropped-out probabilities (32 sbh + 2 as^2 b)
    assert training_step_bytes(config, b, s) == state + 9 * (32 * sbh + 2 * a * s * s * b) + logits
    assert training_step_bytes(config, b, s, "selective") == state + 9 * 32 * sbh + logits
    assert training_step_bytes(config, b, s, "full") == state + 9 * 2 * sbh + 32 * sbh + logits
    # sqrt(9) = 3: three segment inputs kept, one segment of three blocks recomputed
    assert training_step_bytes(config, b, s, "sqrt(L) segments") == state + 3 * 2 * sbh + 3 * 32 * sbh + logits
    policies = [training_step_bytes(config, b, s, p) for p in ("none", "selective", "sqrt(L) segments", "full")]
    assert policies == sorted(policies, reverse=True)
    # with dropout, Korthikanti's eq. 1 as published (34 sbh + 5 as^2 b)
    dropped = dataclasses.replace(config, dropout=0.1)
    assert training_step_bytes(dropped, b, s) == state + 9 * (34 * sbh + 5 * a * s * s * b) + logits
    assert training_step_bytes(dropped, b, s, "full") == state + 9 * 2 * sbh + 34 * sbh + logits


@pytest.mark.parametrize(("s", "b", "heads", "t"), [(48, 3, 4, 1), (64, 2, 8, 2), (32, 5, 8, 4)])
def test_korthikanti_without_dropout_drops_the_masks(s: int, b: int, heads: int, t: int) -> None:
    h = 16 * heads
    # at t = 1 it is our GPT block without dropout in 16 bits, no statistics (counted from what autograd saves)
    block = TransformerConfig(1000, s, 1, h, heads, 4 * h)
    assert korthikanti_activation_bytes(s, b, h, heads, dropout=False) == activation_bytes_per_layer(
        block, b, s, bytes_per_value=2, stat_bytes=0)
    for split in (False, True):
        kw = {"tensor_parallel": t, "sequence_parallel": split}
        masks = 2 * s * b * h // (t if split else 1)  # the two sbh masks, replicated unless split
        with_masks = korthikanti_activation_bytes(s, b, h, heads, **kw)
        assert korthikanti_activation_bytes(s, b, h, heads, dropout=False, **kw) == (
            with_masks - masks - 3 * heads * s * s * b // t)
        assert korthikanti_activation_bytes(s, b, h, heads, recompute="selective", dropout=False, **kw) == (
            korthikanti_activation_bytes(s, b, h, heads, recompute="selective", **kw) - masks)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda c: activation_bytes_per_layer(c, 0, 2), ValueError, "batch must be a positive int"),
        (lambda c: activation_bytes_per_layer(c, 1, 2, bytes_per_value=0), ValueError, "bytes_per_value"),
        (lambda c: activation_bytes_per_layer(c, 1, 2, recompute="no"), ValueError,
         r"recompute must be one of \('none', 'selective', 'full'\)"),
        (lambda c: activation_bytes_per_layer(c, 1, 2, flash_attention="False"), TypeError,
         "flash_attention must be True or False, got str 'False'"),
        (lambda c: activation_bytes_per_layer({"d": 1}, 1, 2), TypeError, "config must be a TransformerConfig"),
        (lambda c: korthikanti_activation_bytes(1, 1, 0, 1), ValueError, "hidden must be a positive int"),
        (lambda c: korthikanti_activation_bytes(1, 1, 8, 1, recompute=None), ValueError, "recompute must be one of"),
        (lambda c: korthikanti_activation_bytes(1, 1, 8, 2, tensor_parallel=4), ValueError,
         "tensor_parallel must divide num_heads=2 and hidden=8, got 4"),
        (lambda c: dropout_mask_bytes_per_token(c, 2, recompute="some"), ValueError, "recompute must be one of"),
        (lambda c: embedding_dropout_bytes(c, 1, 0), ValueError, "seq_len must be a positive int"),
        (lambda c: logits_bytes(c, 1, True), TypeError, r"seq_len must be a positive int below 2\*\*1000"),
        (lambda c: segment_checkpoint_bytes(4, 5, 1, 1), ValueError, r"every must be at most num_layers=4"),
        (lambda c: training_step_bytes(c, 1, 4, "sqrt"), ValueError, "policy must be one of"),
        (lambda c: training_step_bytes(c, -1, 4), ValueError, "batch must be"),
    ],
)
def test_rejections(call, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        call(TransformerConfig(10, 4, 1, 8, 4, 16))
