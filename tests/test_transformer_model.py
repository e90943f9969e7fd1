"""TransformerLM and TransformerConfig: the architecture options, their checks and the model's behaviour."""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from cs336_lec2.config import TransformerConfig
from cs336_lec2.models import num_parameters
from cs336_lec2.transformer_model import RMSNorm, TransformerLM, apply_rotary, rotary_tables


def _tiny_lm(**overrides: object) -> TransformerLM:
    kwargs: dict = dict(vocab_size=50, context_length=12, num_layers=2, d_model=16, num_heads=4, d_ff=64)
    kwargs.update(overrides)
    return TransformerLM(**kwargs)


def test_transformer_lm_shapes_and_names() -> None:
    torch.manual_seed(0)
    model = _tiny_lm()
    idx = torch.randint(0, 50, (3, 12))
    logits = model(idx)
    assert logits.shape == (3, 12, 50) and logits.dtype == torch.float32
    names = {name for name, _ in model.named_parameters()}
    assert {"token_embedding.weight", "position_embedding.weight", "lm_head.weight", "ln_f.weight"} <= names
    assert "blocks.1.attn.qkv.weight" in names and "blocks.0.mlp.fc.weight" in names
    assert not any(name.endswith(".bias") for name in names)  # bias=False: none anywhere
    assert model.config == TransformerConfig(50, 12, 2, 16, 4, 64)
    # the causal mask is not part of the state dict
    assert not any("causal" in key for key in model.state_dict())


def test_transformer_lm_is_causal() -> None:
    # Changing a later token must not change the logits at earlier positions.
    torch.manual_seed(0)
    model = _tiny_lm().double()
    idx = torch.randint(0, 50, (2, 12))
    changed = idx.clone()
    changed[:, 7] = (changed[:, 7] + 1) % 50
    a, b = model(idx), model(changed)
    torch.testing.assert_close(a[:, :7], b[:, :7])
    assert not torch.allclose(a[:, 7:], b[:, 7:])


def test_transformer_lm_math_and_sdpa_agree() -> None:
    torch.manual_seed(0)
    model = _tiny_lm(bias=True).double()
    idx = torch.randint(0, 50, (2, 9))
    assert model.attention == "math"
    math_logits = model(idx)
    model.attention = "sdpa"
    assert all(block.attn.attention == "sdpa" for block in model.blocks)
    torch.testing.assert_close(model(idx), math_logits)


def test_transformer_lm_tied_embeddings_share_one_parameter() -> None:
    tied = _tiny_lm(tied_embeddings=True)
    untied = _tiny_lm()
    assert tied.lm_head.weight is tied.token_embedding.weight
    assert num_parameters(untied) - num_parameters(tied) == 50 * 16
    tied(torch.randint(0, 50, (1, 4))).sum().backward()
    assert tied.token_embedding.weight.grad is not None


def test_transformer_lm_same_seed_same_model_and_dtype_device() -> None:
    torch.manual_seed(3)
    a = _tiny_lm(bias=True)
    torch.manual_seed(3)
    b = _tiny_lm(bias=True, device="cpu", dtype=torch.float64)
    for (name, pa), pb in zip(a.named_parameters(), b.parameters(), strict=True):
        assert pb.dtype == torch.float64, name
        torch.testing.assert_close(pa.detach().double(), pb.detach())
    # GPT-2's initialisation: weights N(0, 0.02), biases zero, LayerNorm weights one
    assert float(a.blocks[0].attn.qkv.bias.detach().abs().max()) == 0.0
    assert float(a.ln_f.weight.detach().min()) == 1.0
    big = TransformerLM(64, 8, 1, 256, 4, 1024)
    assert math.isclose(big.blocks[0].mlp.fc.weight.std().item(), 0.02, rel_tol=0.05)


def test_transformer_lm_backward_reaches_every_parameter() -> None:
    model = _tiny_lm(bias=True)
    model(torch.randint(0, 50, (2, 5))).sum().backward()
    assert all(p.grad is not None for p in model.parameters())


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(d_model=18, num_heads=4), ValueError, "d_model must be a multiple of num_heads"),
        (dict(num_layers=0), ValueError, "num_layers must be a positive int"),
        (dict(vocab_size=2.5), TypeError, "vocab_size must be an int"),
        (dict(bias=1), TypeError, r"bias must be a bool"),
        (dict(attention="flash"), ValueError, "attention must be one of"),
    ],
)
def test_transformer_lm_rejects_bad_config(kwargs: dict, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        _tiny_lm(**kwargs)


def test_transformer_lm_rejects_bad_input() -> None:
    model = _tiny_lm()
    with pytest.raises(ValueError, match="context_length=12"):
        model(torch.zeros(1, 13, dtype=torch.long))
    with pytest.raises(ValueError, match="idx must be an int64/int32 tensor"):
        model(torch.zeros(1, 4))
    with pytest.raises(ValueError, match="idx must be"):
        model(torch.zeros(4, dtype=torch.long))
    with pytest.raises(TypeError, match=r"idx must be a torch\.Tensor"):
        model([[1, 2]])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="attention must be one of"):
        model.attention = "flash"  # type: ignore[assignment]
    with pytest.raises(TypeError, match="config must be a TransformerConfig"):
        TransformerLM.from_config({"d_model": 4})  # type: ignore[arg-type]


def test_transformer_lm_from_config_round_trip() -> None:
    config = TransformerConfig(40, 10, 3, 24, 6, 48, tied_embeddings=True, bias=True)
    model = TransformerLM.from_config(config, attention="sdpa")
    assert model.config == config and model.attention == "sdpa" and config.head_dim == 4


LLAMA_LIKE = dict(num_kv_heads=2, gated_mlp=True, norm="rmsnorm", positions="rope")


def test_default_config_is_the_old_gpt_block() -> None:
    # the architecture fields default to the model chapters 10-14 always built: same tensors, same draws
    config = TransformerConfig(64, 16, 2, 32, 2, 64)
    assert config.num_kv_heads == 2 and not config.gated_mlp and config.norm == "layernorm"
    assert config.positions == "learned" and config.kv_dim == 32
    model = TransformerLM(64, 16, 2, 32, 2, 64)
    shapes = [tuple(p.shape) for p in model.parameters()]
    assert len(shapes) == 16 and shapes[:2] == [(64, 32), (16, 32)] and (96, 32) in shapes
    assert TransformerConfig(64, 16, 2, 32, 2, 64, num_kv_heads=2) == config  # None is stored as H


def test_llama_like_model_has_the_parts_it_says() -> None:
    torch.manual_seed(0)
    model = _tiny_lm(**LLAMA_LIKE)
    names = {name for name, _ in model.named_parameters()}
    assert model.position_embedding is None and "position_embedding.weight" not in names
    assert "blocks.0.mlp.up.weight" in names and isinstance(model.blocks[0].ln1, RMSNorm)
    assert model.blocks[0].attn.qkv.weight.shape == (16 + 2 * 2 * 4, 16)  # q: d, k and v: 2 heads of 4
    assert model(torch.randint(0, 50, (2, 12))).shape == (2, 12, 50)


@settings(max_examples=15, deadline=None)
@given(kv=st.sampled_from([1, 2, 4]), gated=st.booleans(), norm=st.sampled_from(["layernorm", "rmsnorm"]),
       positions=st.sampled_from(["learned", "rope"]), bias=st.booleans())
def test_math_and_sdpa_agree_and_the_model_is_causal(kv: int, gated: bool, norm: str, positions: str,
                                                     bias: bool) -> None:
    torch.manual_seed(0)
    model = _tiny_lm(num_kv_heads=kv, gated_mlp=gated, norm=norm, positions=positions, bias=bias).double()
    idx = torch.randint(0, 50, (2, 9))
    changed = idx.clone()
    changed[:, 5] = (changed[:, 5] + 1) % 50
    a = model(idx)
    torch.testing.assert_close(model(changed)[:, :5], a[:, :5])
    model.attention = "sdpa"
    torch.testing.assert_close(model(idx), a)


def test_gqa_equals_multi_head_attention_with_repeated_kv_weights() -> None:
    # An independent check of GQA: copy each K/V head's weights to its query group in a plain MHA model
    torch.manual_seed(0)
    gqa = _tiny_lm(num_kv_heads=2).double()
    mha = _tiny_lm().double()
    state = gqa.state_dict()
    for i in range(2):
        w = state[f"blocks.{i}.attn.qkv.weight"]
        q, k, v = w.split((16, 8, 8))
        k, v = (z.view(2, 4, 16).repeat_interleave(2, dim=0).reshape(16, 16) for z in (k, v))
        state[f"blocks.{i}.attn.qkv.weight"] = torch.cat([q, k, v])
    mha.load_state_dict(state)
    idx = torch.randint(0, 50, (2, 12))
    torch.testing.assert_close(gqa(idx), mha(idx))


def test_rmsnorm_and_rotary_against_their_definitions() -> None:
    x = torch.randn(3, 5, 8, dtype=torch.float64)
    norm = RMSNorm(8).double()
    torch.testing.assert_close(norm(x), x / (x.pow(2).mean(-1, keepdim=True) + 1e-5).sqrt())
    cos, sin = rotary_tables(5, 8)
    y = apply_rotary(x, cos.double(), sin.double())
    torch.testing.assert_close(y.norm(dim=-1), x.norm(dim=-1))  # a rotation keeps lengths
    # pair (x_0, x_4) at position t is turned by the angle t (frequency base^0 = 1)
    t = 3
    c, s = math.cos(t), math.sin(t)
    torch.testing.assert_close(y[:, t, 0], c * x[:, t, 0] - s * x[:, t, 4])
    # relative: q·k depends only on the distance between the positions
    q, k = torch.randn(8, dtype=torch.float64), torch.randn(8, dtype=torch.float64)
    cos, sin = (z.double() for z in rotary_tables(10, 8))
    rq, rk = apply_rotary(q.expand(10, 8), cos, sin), apply_rotary(k.expand(10, 8), cos, sin)
    assert math.isclose(float(rq[2] @ rk[5]), float(rq[6] @ rk[9]), rel_tol=1e-6)  # fp32 tables


@pytest.mark.parametrize("attention", ["math", "sdpa"])
def test_dropout_is_random_in_training_and_off_in_evaluation(attention: str) -> None:
    torch.manual_seed(0)
    model = _tiny_lm(bias=True, dropout=0.5, attention=attention).double()
    plain = TransformerLM.from_config(dataclasses.replace(model.config, dropout=0.0)).double()
    plain.load_state_dict(model.state_dict())  # the same weights, no dropout
    idx = torch.randint(0, 50, (2, 9))
    assert not torch.allclose(model(idx), model(idx))  # two draws of the masks
    assert not torch.allclose(model(idx), plain(idx))
    model.eval()
    torch.testing.assert_close(model(idx), plain(idx))  # dropout is the only difference


def test_recompute_redraws_the_same_dropout_masks() -> None:
    # checkpointing restores the RNG state before recomputing, so the masks and the gradient are the same
    idx = torch.randint(0, 50, (2, 8), generator=torch.Generator().manual_seed(1))
    grads = {}
    for policy in ("none", "selective", "full"):
        torch.manual_seed(0)
        model = _tiny_lm(bias=True, dropout=0.3).double()
        model.recompute = policy
        torch.manual_seed(5)  # the same masks in every forward pass
        model(idx).square().mean().backward()
        grads[policy] = [p.grad for p in model.parameters()]
    for policy in ("selective", "full"):
        for a, b in zip(grads["none"], grads[policy], strict=True):
            torch.testing.assert_close(a, b)


def test_recompute_keeps_the_gradient() -> None:
    torch.manual_seed(0)
    model = _tiny_lm(bias=True, **LLAMA_LIKE).double()
    idx = torch.randint(0, 50, (2, 8))
    model(idx).square().mean().backward()
    plain = [p.grad.clone() for p in model.parameters()]
    for policy in ("selective", "full"):
        model.zero_grad()
        model.recompute = policy
        model(idx).square().mean().backward()
        for a, p in zip(plain, model.parameters(), strict=True):
            torch.testing.assert_close(a, p.grad)
    assert model.checkpointing is True
    model.checkpointing = False
    assert model.recompute == "none"


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(num_kv_heads=3), ValueError, "num_kv_heads must divide num_heads=4, got 3"),
        (dict(num_kv_heads=0), ValueError, "num_kv_heads must be a positive int"),
        (dict(gated_mlp="False"), TypeError, "gated_mlp must be True or False, got str 'False'"),
        (dict(tied_embeddings=1), TypeError, "tied_embeddings must be True or False"),
        (dict(norm="batchnorm"), ValueError, r"norm must be one of \('layernorm', 'rmsnorm'\)"),
        (dict(positions="alibi"), ValueError, r"positions must be one of \('learned', 'rope'\)"),
        (dict(d_model=12, num_heads=4, positions="rope"), ValueError, "even head dimension"),
        (dict(dropout=1.0), ValueError, r"dropout must be a probability in \[0, 1\), got 1.0"),
        (dict(dropout=-0.1), ValueError, r"dropout must be a probability, a number in \[0, 1\]"),
        (dict(dropout="0.1"), TypeError, r"dropout must be a probability, a number in \[0, 1\]"),
        (dict(dropout=True), TypeError, r"dropout must be a probability, a number in \[0, 1\]"),
    ],
)
def test_config_rejects_bad_architecture(kwargs: dict, error: type[Exception], match: str) -> None:
    sizes = dict(vocab_size=50, context_length=12, num_layers=2, d_model=16, num_heads=4, d_ff=64)
    sizes.update(kwargs)
    with pytest.raises(error, match=match):
        TransformerConfig(**sizes)


def test_recompute_choices_are_checked() -> None:
    model = _tiny_lm()
    with pytest.raises(ValueError, match=r"recompute must be one of \('none', 'selective', 'full'\), got str 'no'"):
        model.recompute = "no"
    with pytest.raises(TypeError, match="checkpointing must be True or False"):
        model.checkpointing = "True"  # type: ignore[assignment]


def test_an_empty_sequence_is_refused_by_name() -> None:
    # (B, 0) token ids once raised UnboundLocalError ('limit'): the walrus sat behind a short-circuit
    model = _tiny_lm()
    with pytest.raises(ValueError, match=r"idx has sequence length 0; it must be in 1..context_length=12"):
        model(torch.zeros(2, 0, dtype=torch.int64))
