"""cs336_lec2.transformer_accounting's counts against TransformerLM, FlopCounterMode, a second model, papers."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from cs336_lec2.catalog import PUBLISHED
from cs336_lec2.config import TransformerConfig
from cs336_lec2.flops import count_flops
from cs336_lec2.models import num_parameters
from cs336_lec2.transformer_accounting import (
    approx_parameters,
    attention_flop_share,
    attention_flops_per_token,
    block_matrix_sizes,
    forward_flops_per_token,
    kaplan_forward_flops_per_token,
    llama_ffn_dim,
    matmul_parameters,
    parameter_count,
    seq_len_for_attention_share,
    training_flops_per_token,
)
from cs336_lec2.transformer_model import TransformerLM


@st.composite
def configs(draw: st.DrawFn, *, max_context: int = 8) -> TransformerConfig:
    kv = draw(st.integers(1, 3))
    heads = kv * draw(st.integers(1, 3))
    positions = draw(st.sampled_from(["learned", "rope"]))
    return TransformerConfig(
        vocab_size=draw(st.integers(2, 20)),
        context_length=draw(st.integers(1, max_context)),
        num_layers=draw(st.integers(1, 2)),
        d_model=heads * 2 * draw(st.integers(1, 3)),  # an even head dimension, for RoPE
        num_heads=heads,
        d_ff=draw(st.integers(1, 16)),
        tied_embeddings=draw(st.booleans()),
        bias=draw(st.booleans()),
        num_kv_heads=kv,
        head_size=draw(st.sampled_from([None, 2, 4, 6])),  # None: d / H; else H·head_size != d (as Gemma's)
        gated_mlp=draw(st.booleans()),
        norm=draw(st.sampled_from(["layernorm", "rmsnorm"])),
        positions=positions,
    )


@settings(max_examples=25, deadline=None)
@given(config=configs())
def test_parameter_count_equals_the_model(config: TransformerConfig) -> None:
    model = TransformerLM.from_config(config)
    counted = parameter_count(config)
    assert counted.total == num_parameters(model)
    by_part = {"attn": 0, "mlp": 0, "ln": 0}
    for name, p in model.named_parameters():
        for key in by_part:
            if f".{key}" in name or name.startswith(key):
                by_part[key] += p.numel()
    assert by_part == {"attn": counted.attention, "mlp": counted.mlp, "ln": counted.norms}
    assert counted.lm_head == (0 if config.tied_embeddings else config.vocab_size * config.d_model)
    biases = sum(p.numel() for name, p in model.named_parameters() if name.endswith(".bias") and "ln" not in name)
    assert counted.kaplan_n == counted.attention + counted.mlp - biases


@settings(max_examples=12, deadline=None)
@given(config=configs(), batch=st.integers(1, 3), data=st.data())
def test_flop_formulas_equal_flop_counter(config: TransformerConfig, batch: int, data: st.DataObject) -> None:
    seq_len = data.draw(st.integers(1, config.context_length))
    model = TransformerLM.from_config(config)  # math attention: its matmuls are visible to FlopCounterMode
    idx = torch.randint(0, config.vocab_size, (batch, seq_len))
    tokens = batch * seq_len
    assert count_flops(model, idx) == tokens * forward_flops_per_token(config, seq_len)
    for policy in ("none", "selective", "full"):
        model.recompute = policy
        measured = count_flops(lambda: model(idx).sum().backward())
        assert measured == tokens * training_flops_per_token(config, seq_len, recompute=policy), policy


def test_full_recomputation_with_dropout_reruns_the_mlp_output() -> None:
    """With dropout, full recomputation also reruns the MLP's output projection (counted 2·L·d·d_ff short)."""
    config = TransformerConfig(vocab_size=50, context_length=16, num_layers=2, d_model=32, num_heads=4, d_ff=64,
                               dropout=0.1)
    torch.manual_seed(0)
    model = TransformerLM.from_config(config)
    model.recompute = "full"
    idx = torch.randint(0, config.vocab_size, (2, 16))
    measured = count_flops(lambda: model(idx).sum().backward())
    assert measured == 32 * training_flops_per_token(config, 16, recompute="full")


def _reference_forward(w: dict[str, torch.Tensor], idx: torch.Tensor, heads: int, kv_heads: int) -> torch.Tensor:
    """A Llama-style forward written from scratch (no cs336_lec2 code): SwiGLU, GQA, RMSNorm, untied."""
    b, t = idx.shape
    x = w["emb"][idx]
    d = x.shape[-1]
    dh = d // heads
    for layer in w["layers"]:
        h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5)
        q = (h @ layer["wq"]).view(b, t, heads, dh).transpose(1, 2)
        k = (h @ layer["wk"]).view(b, t, kv_heads, dh).transpose(1, 2).repeat_interleave(heads // kv_heads, 1)
        v = (h @ layer["wv"]).view(b, t, kv_heads, dh).transpose(1, 2).repeat_interleave(heads // kv_heads, 1)
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        att = (q @ k.transpose(-1, -2) / math.sqrt(dh)).masked_fill(~mask, float("-inf")).softmax(-1)
        x = x + (att @ v).transpose(1, 2).reshape(b, t, d) @ layer["wo"]
        h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5)
        x = x + (F.silu(h @ layer["w1"]) * (h @ layer["w3"])) @ layer["w2"]
    return x @ w["head"]


@settings(max_examples=10, deadline=None)
@given(kv=st.integers(1, 2), group=st.integers(1, 3), dh=st.integers(1, 4), d_ff=st.integers(1, 24),
       layers=st.integers(1, 2), vocab=st.integers(2, 30), batch=st.integers(1, 2), seq=st.integers(1, 9))
def test_flops_equal_flop_counter_on_an_independent_gated_gqa_model(
    kv: int, group: int, dh: int, d_ff: int, layers: int, vocab: int, batch: int, seq: int
) -> None:
    heads = kv * group
    d = heads * dh
    shapes = {"wq": (d, d), "wk": (d, kv * dh), "wv": (d, kv * dh), "wo": (d, d),
              "w1": (d, d_ff), "w3": (d, d_ff), "w2": (d_ff, d)}
    w = {"emb": torch.randn(vocab, d, requires_grad=True), "head": torch.randn(d, vocab, requires_grad=True),
         "layers": [{k: torch.randn(s, requires_grad=True) for k, s in shapes.items()} for _ in range(layers)]}
    config = TransformerConfig(vocab, seq, layers, d, heads, d_ff, num_kv_heads=kv, gated_mlp=True,
                               norm="rmsnorm", positions="learned" if dh % 2 else "rope")
    idx = torch.randint(0, vocab, (batch, seq))
    tokens = batch * seq
    assert count_flops(_reference_forward, w, idx, heads, kv) == tokens * forward_flops_per_token(config, seq)
    trained = count_flops(lambda: _reference_forward(w, idx, heads, kv).sum().backward())
    # backward: the first matmul of each kind takes no input gradient only for the embedding lookup,
    # which is not a matmul, so every matmul costs 2 more of its size
    assert trained == tokens * training_flops_per_token(config, seq)
    n_ref = sum(t.numel() for layer in w["layers"] for t in layer.values()) + w["head"].numel()
    assert matmul_parameters(config) == n_ref


def test_published_parameter_counts_equal_the_released_checkpoints() -> None:
    # Released checkpoints' parameter counts, from the configs cited in each model's `source`
    released = {"GPT-2 small": 124_439_808, "GPT-2 XL": 1_557_611_200, "Llama 2 7B": 6_738_415_616,
                "Llama 2 13B": 13_015_864_320, "Llama 2 70B": 68_976_648_192, "Llama 3 8B": 8_030_261_248}
    for name, count in released.items():
        assert PUBLISHED[name].parameters().total == count == PUBLISHED[name].released_params, name
    for model in PUBLISHED.values():
        assert model.source and model.reported_params
        assert model.released_params is None or model.parameters().total == model.released_params


def test_llama_mlp_widths_follow_the_released_rule() -> None:
    # params.json: 7B multiple_of 256; 13B 256; 70B multiple_of 4096, ffn_dim_multiplier 1.3; Llama 3 1024, 1.3
    assert llama_ffn_dim(4096, 256) == PUBLISHED["Llama 2 7B"].config.d_ff == 11008
    assert llama_ffn_dim(5120, 256) == PUBLISHED["Llama 2 13B"].config.d_ff == 13824
    assert llama_ffn_dim(8192, 4096, 1.3) == PUBLISHED["Llama 2 70B"].config.d_ff == 28672
    assert llama_ffn_dim(4096, 1024, 1.3) == PUBLISHED["Llama 3 8B"].config.d_ff == 14336
    assert llama_ffn_dim(8192, 4096) == 24576  # 8/3 rule alone: 21,845 rounded up to 6 x 4096
    with pytest.raises(TypeError, match=r"ffn_dim_multiplier must be a positive finite number or None"):
        llama_ffn_dim(8192, 4096, "1.3")  # type: ignore[arg-type]


def test_kaplan_n_is_twelve_l_d_squared_for_a_gpt_block() -> None:
    # Kaplan et al. 2020, section 2.1: N ≈ 2·d·L·(2·d_attn + d_ff) = 12·L·d², biases and norms excluded
    for name in ("GPT-2 small", "GPT-2 XL"):
        c = PUBLISHED[name].config
        p = PUBLISHED[name].parameters()
        assert p.kaplan_n == 2 * c.d_model * c.num_layers * (2 * c.d_model + c.d_ff) == approx_parameters(
            c.num_layers, c.d_model)
        assert p.non_embedding - p.kaplan_n == p.block_biases + p.norms > 0


@given(layers=st.integers(1, 100), d=st.integers(1, 10_000))
def test_twelve_l_d_squared_is_the_block_matrices(layers: int, d: int) -> None:
    config = TransformerConfig(1, 1, layers, d, 1, 4 * d)
    assert approx_parameters(layers, d) == matmul_parameters(config) - d  # minus the 1-word head
    assert sum(block_matrix_sizes(config).values()) == 12 * d * d


@given(config=configs(max_context=64), t1=st.integers(1, 10_000), t2=st.integers(1, 10_000))
def test_flops_are_linear_in_n_and_in_t(config: TransformerConfig, t1: int, t2: int) -> None:
    n = matmul_parameters(config)
    assert forward_flops_per_token(config, t1, attention=False) == 2 * n
    assert training_flops_per_token(config, t1, attention=False) == 6 * n
    diff = forward_flops_per_token(config, t2) - forward_flops_per_token(config, t1)
    assert diff == 4 * config.num_layers * config.num_heads * config.head_dim * (t2 - t1)  # d when H·head_dim = d
    # PaLM's training form (appendix B): 6N + 12·L·H·Q·T with Q the head dimension
    palm = 6 * n + 12 * config.num_layers * config.num_heads * config.head_dim * t1
    assert training_flops_per_token(config, t1) == palm
    # Kaplan's attention term is half of the full square
    kaplan_attention = kaplan_forward_flops_per_token(config, t1) - 2 * parameter_count(config).kaplan_n
    assert 2 * kaplan_attention == attention_flops_per_token(config, t1)


@given(s=st.integers(1, 8192), b=st.integers(1, 64), heads=st.integers(1, 64), layers=st.integers(1, 96),
       vocab=st.integers(1, 200_000))
def test_training_flops_equal_korthikanti_model_flops(s: int, b: int, heads: int, layers: int, vocab: int) -> None:
    # Korthikanti et al. 2022, section 6: model FLOPs per iteration 72·B·s·l·h²·(1 + s/(6h) + V/(12·h·l))
    # for a GPT block (d_ff = 4h, full-square attention); multiply out to stay in integers
    h = 64 * heads
    config = TransformerConfig(vocab, s, layers, h, heads, 4 * h)
    twelve_hl = 12 * h * layers
    korthikanti_times_twelve_hl = 72 * b * s * layers * h * h * (twelve_hl + 2 * s * layers + vocab)
    assert 12 * h * layers * b * s * training_flops_per_token(config, s) == korthikanti_times_twelve_hl


@given(config=configs(), share=st.floats(0.01, 0.99))
def test_attention_share_crossover(config: TransformerConfig, share: float) -> None:
    t = seq_len_for_attention_share(config, share)
    n, attn = 2 * matmul_parameters(config), 4 * config.num_layers * config.num_heads * config.head_dim * t
    assert math.isclose(attn / (n + attn), share, rel_tol=1e-9)
    assert attention_flop_share(config, 1) < attention_flop_share(config, 2)


def test_llama_2_7b_training_flops_with_attention() -> None:
    # the figure: torchtitan's 6N + 12·L·H·Q·T at T = 4096 is 4.61e10 for Llama 2 7B;
    # torchtitan's N leaves out the embedding but keeps the head (d·V), as matmul_parameters does
    c = PUBLISHED["Llama 2 7B"].config
    flops = training_flops_per_token(c, 4096)
    assert round(flops / 1e10, 2) == 4.61
    assert matmul_parameters(c) == PUBLISHED["Llama 2 7B"].parameters().total - 32000 * 4096 - 65 * 4096


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda c: parameter_count({"d_model": 8}), TypeError, "config must be a TransformerConfig"),
        (lambda c: forward_flops_per_token(c, 0), ValueError, "seq_len must be a positive int"),
        (lambda c: forward_flops_per_token(c, 4, attention="False"), TypeError, "attention must be True or False"),
        (lambda c: attention_flops_per_token(c, 2.0), TypeError, r"seq_len must be a positive int below 2\*\*1000"),
        (lambda c: training_flops_per_token(c, 4, recompute="no"), ValueError,
         r"recompute must be one of \('none', 'selective', 'full'\)"),
        (lambda c: training_flops_per_token(c, 4, recompute=True), ValueError, "recompute must be one of"),
        (lambda c: seq_len_for_attention_share(c, 1.0), ValueError, "share must be a number strictly between"),
        (lambda c: approx_parameters(-1, 8), ValueError, "num_layers must be a positive int"),
        (lambda c: llama_ffn_dim(8, 0), ValueError, "multiple_of must be a positive int"),
    ],
)
def test_rejections(call, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        call(TransformerConfig(10, 4, 1, 8, 4, 16))
