"""The decoder-only Transformer of chapters 13 and 14 as a ``torch.nn`` model, in one module, as nanoGPT's ``model.py``.

:class:`TransformerLM` builds the model that a :class:`~cs336_lec2.config.TransformerConfig` describes:
grouped-query attention, a GELU or gated (SwiGLU) MLP, LayerNorm or RMSNorm, learned or rotary
positions, tied embeddings, biases and dropout. Its small parts are here too: :func:`dropout` (a
1-byte mask on every device), :class:`RMSNorm`, :func:`rotary_tables` and :func:`apply_rotary`. Plain
``torch.nn``: every saved tensor and FLOP has a formula, in :mod:`cs336_lec2.transformer_accounting`
(parameters, FLOPs) and :mod:`cs336_lec2.activations` (saved bytes), which read the same config and
need no torch.
"""

from __future__ import annotations

import math
from typing import TypeVar

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

from .checks import MAX_PARAMETERS, Flag, PositiveCount, PositiveReal, beartype_on_first_call, check_token_ids
from .config import ATTENTION_IMPLS, RECOMPUTE, AttentionImpl, Norm, Positions, Recompute, TransformerConfig
from .device import FloatDtype, as_device
from .transformer_accounting import parameter_count


def dropout(x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
    """Zero each value of ``x`` with probability ``p`` and scale the rest by ``1/(1-p)``, when training.

    ``torch.native_dropout`` keeps a ``bool`` mask (1 byte a value) for the backward pass on the CPU
    and on a GPU alike; ``F.dropout`` on the CPU keeps a float tensor of scales instead (4 bytes a
    value in fp32), while on a GPU it calls the same ``native_dropout``. ``p = 0`` or evaluation
    returns ``x`` itself and keeps nothing.
    """
    if not training or p == 0:
        return x
    return torch.native_dropout(x, p, True)[0]


class RMSNorm(nn.Module):
    """``x / sqrt(mean(x²) + eps) · weight`` over the last dimension (Zhang & Sennrich 2019; Llama)."""

    def __init__(self, dim: PositiveCount, eps: PositiveReal = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``(..., d)`` -> ``(..., d)``; autograd keeps x, the normalised x and 1/rms per token."""
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def make_norm(config: TransformerConfig) -> nn.Module:
    """The config's norm of width d: ``nn.LayerNorm`` (bias as configured) or :class:`RMSNorm`."""
    if config.norm == "rmsnorm":
        return RMSNorm(config.d_model)
    return nn.LayerNorm(config.d_model, bias=config.bias)


def rotary_tables(context_length: int, head_dim: int, base: float = 10000.0) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of RoPE's angles ``t·base^(-2i/head_dim)`` (Su et al. 2021), each ``(context_length, head_dim)``.

    ``head_dim`` is even (RoPE rotates pairs of dimensions): the config checks it.
    """
    inv = base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    angles = torch.outer(torch.arange(context_length, dtype=torch.float64), inv)
    angles = torch.cat([angles, angles], dim=-1)
    return angles.cos().float(), angles.sin().float()


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate pairs ``(x_i, x_{i+D/2})`` of ``x`` (..., T, D) by the angles of positions 0..T-1."""
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


class CausalSelfAttention(nn.Module):
    """Causal self-attention with H query heads and ``num_kv_heads`` K/V heads (GQA when fewer).

    ``qkv = Linear(d, q_dim + 2·kv_dim)``, RoPE on q and k when configured, attention, ``proj = Linear(q_dim, d)``.
    ``attention="math"`` spells it out (``softmax(q @ kᵀ / sqrt(d_head) + causal_bias) @ v``) so that
    ``FlopCounterMode`` sees its two batched matmuls and autograd saves plain tensors;
    ``attention="sdpa"`` calls ``F.scaled_dot_product_attention(..., is_causal=True)`` (a fused, flash
    kernel where one exists: nothing ``T × T`` is kept). ``recompute_core=True`` runs the attention core (scores,
    softmax, weighted sum) under activation checkpointing: Korthikanti et al.'s selective recomputation.
    """

    causal_bias: torch.Tensor  # buffers, registered below
    cos: torch.Tensor
    sin: torch.Tensor

    def __init__(self, config: TransformerConfig, *, attention: AttentionImpl = "math") -> None:
        super().__init__()
        self.num_heads, self.num_kv_heads, self.head_dim = config.num_heads, config.kv_heads, config.head_dim
        self.attention = _choice("attention", attention, ATTENTION_IMPLS)
        self.recompute_core, self.p = False, config.dropout
        d, q, kv = config.d_model, config.q_dim, config.kv_dim
        self.split = (q, kv, kv)
        self.qkv = nn.Linear(d, q + 2 * kv, bias=config.bias)
        self.proj = nn.Linear(q, d, bias=config.bias)
        n = config.context_length
        self.register_buffer("causal_bias", torch.full((n, n), float("-inf")).triu(1), persistent=False)
        self.rope = config.positions == "rope"
        if self.rope:
            cos, sin = rotary_tables(n, config.head_dim)
            self.register_buffer("cos", cos, persistent=False)
            self.register_buffer("sin", sin, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``(B, T, d)`` -> ``(B, T, d)``; position t attends to positions ``<= t`` only."""
        b, t, _ = x.shape
        q, k, v = self.qkv(x).split(self.split, dim=-1)
        q = q.view(b, t, self.num_heads, self.head_dim).transpose(1, 2)  # (B, H, T, d_head)
        k, v = (z.view(b, t, self.num_kv_heads, -1).transpose(1, 2) for z in (k, v))
        if self.rope:
            q, k = (apply_rotary(z, self.cos[:t], self.sin[:t]) for z in (q, k))
        if self.recompute_core and torch.is_grad_enabled():
            y = checkpoint(self.core, q, k, v, use_reentrant=False)
        else:
            y = self.core(q, k, v)
        return dropout(self.proj(y.transpose(1, 2).reshape(b, t, self.split[0])), self.p, self.training)

    def core(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """q ``(B, H, T, d_h)`` attends over k, v ``(B, KV, T, d_h)``: ``(B, H, T, d_h)``."""
        group, p = self.num_heads // self.num_kv_heads, self.p if self.training else 0.0
        if self.attention == "sdpa":  # a flash kernel draws its dropout mask inside, keeps none
            return F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True, enable_gqa=group > 1)
        if group > 1:  # each K/V head serves `group` query heads
            k, v = (z.repeat_interleave(group, dim=1) for z in (k, v))
        t = q.shape[-2]
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.head_dim))
        scores = scores + self.causal_bias[:t, :t].to(scores.dtype)
        return dropout(scores.softmax(dim=-1), p, self.training) @ v

    def extra_repr(self) -> str:
        return f"heads={self.num_heads}, kv_heads={self.num_kv_heads}, attention={self.attention!r}"


class MLP(nn.Module):
    """GELU: ``proj(gelu(fc(x)))``; gated (SwiGLU, Shazeer 2020): ``proj(silu(fc(x)) * up(x))``."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        d, d_ff, bias = config.d_model, config.d_ff, config.bias
        self.gated, self.p = config.gated_mlp, config.dropout
        self.fc = nn.Linear(d, d_ff, bias=bias)
        self.act: nn.Module = nn.SiLU() if self.gated else nn.GELU()
        if self.gated:
            self.up = nn.Linear(d, d_ff, bias=bias)
        self.proj = nn.Linear(d_ff, d, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``(..., d)`` -> ``(..., d)``."""
        h = self.act(self.fc(x))
        return dropout(self.proj(h * self.up(x) if self.gated else h), self.p, self.training)


class TransformerBlock(nn.Module):
    """A pre-norm block: ``x + attn(norm1(x))``, then ``x + mlp(norm2(x))``."""

    def __init__(self, config: TransformerConfig, *, attention: AttentionImpl = "math") -> None:
        super().__init__()
        self.ln1 = make_norm(config)
        self.attn = CausalSelfAttention(config, attention=attention)
        self.ln2 = make_norm(config)
        self.mlp = MLP(config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``(B, T, d)`` -> ``(B, T, d)``."""
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TransformerLM(nn.Module):
    """A decoder-only language model: ``forward(idx)`` maps token ids ``(B, T)`` to logits ``(B, T, V)``.

    Token embedding ``(V, d)`` (plus a learned position embedding ``(context_length, d)`` when ``positions="learned"``),
    ``num_layers`` :class:`TransformerBlock`, a final norm ``ln_f`` and the LM head ``Linear(d, V, bias=False)``,
    tied to the token embedding (one parameter) when ``tied_embeddings``. The architecture keywords are
    :class:`TransformerConfig`'s; the defaults are GPT-2's block without biases.

    Weights are drawn on the CPU from torch's global generator (normal, std 0.02, as GPT-2; biases
    zero; norm weights one), then moved to ``device`` / ``dtype``: the same seed gives the same model
    on every device. ``attention`` ("math" or "sdpa") and :attr:`recompute` can be changed later.
    """

    def __init__(
        self, vocab_size: int, context_length: int, num_layers: int, d_model: int, num_heads: int, d_ff: int,
        *,
        tied_embeddings: bool = False, bias: bool = False,
        num_kv_heads: int | None = None, head_size: int | None = None,
        gated_mlp: bool = False, norm: Norm = "layernorm", positions: Positions = "learned", dropout: float = 0.0,
        attention: AttentionImpl = "math",
        device: str | torch.device | None = None, dtype: FloatDtype | None = None,
    ) -> None:
        super().__init__()
        self.config = config = TransformerConfig(
            vocab_size=vocab_size, context_length=context_length, num_layers=num_layers, d_model=d_model,
            num_heads=num_heads, d_ff=d_ff, tied_embeddings=tied_embeddings, bias=bias, num_kv_heads=num_kv_heads,
            head_size=head_size, gated_mlp=gated_mlp, norm=norm, positions=positions, dropout=dropout,
        )
        if (values := parameter_count(config).total) > MAX_PARAMETERS:  # before any layer is allocated
            sizes = ", ".join(f"{name}={getattr(config, name)}" for name in (
                "num_layers", "d_model", "d_ff", "vocab_size", "context_length"))
            raise ValueError(f"a model with {sizes} "
                             f"would hold about 2**{values.bit_length() - 1} parameters, more than the "
                             f"{MAX_PARAMETERS:.3g} this package builds (a typo? to count a larger model, "
                             "pass its config to cs336_lec2.transformer_accounting)")
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position_embedding = nn.Embedding(context_length, d_model) if positions == "learned" else None
        self.blocks = nn.ModuleList([TransformerBlock(config, attention=attention) for _ in range(num_layers)])
        self.ln_f = make_norm(config)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self._recompute: Recompute = "none"
        self.apply(self._init_weights)
        self.to(device=None if device is None else as_device("device", device), dtype=dtype)
        if tied_embeddings:  # tied after the move: a move to another device kind ("meta") would untie them
            self.lm_head.weight = self.token_embedding.weight

    @classmethod
    def from_config(cls, config: TransformerConfig, *, attention: AttentionImpl = "math",
                    device: str | torch.device | None = None, dtype: torch.dtype | None = None) -> TransformerLM:
        """The model a :class:`~cs336_lec2.config.TransformerConfig` describes."""
        if not isinstance(config, TransformerConfig):  # a dict of sizes is the common slip
            raise TypeError(f"config must be a TransformerConfig, got {type(config).__name__}")
        fields = {name: getattr(config, name) for name in config.__dataclass_fields__}
        return cls(**fields, attention=attention, device=device, dtype=dtype)

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, (nn.Linear, nn.LayerNorm)) and module.bias is not None:
            nn.init.zeros_(module.bias)

    @property
    def _attentions(self) -> list[CausalSelfAttention]:
        """Each block's attention (``nn.ModuleList`` items are plain modules to a type checker)."""
        return [block.attn for block in self.blocks if isinstance(block.attn, CausalSelfAttention)]

    @property
    def attention(self) -> AttentionImpl:
        """The attention implementation of every block, ``"math"`` or ``"sdpa"``."""
        return self._attentions[0].attention if len(self.blocks) else "math"

    @attention.setter
    def attention(self, value: AttentionImpl) -> None:
        value = _choice("attention", value, ATTENTION_IMPLS)
        for attn in self._attentions:
            attn.attention = value

    @property
    def recompute(self) -> Recompute:
        """Activation recomputation: ``"none"``, ``"selective"`` or ``"full"``.

        ``"full"`` runs every block under non-reentrant ``torch.utils.checkpoint`` (only block inputs
        are kept; the block's forward runs again in backward); ``"selective"`` checkpoints only each
        block's attention core, the ``T × T`` scores and softmax (Korthikanti et al. 2022, section 4.2).
        """
        return self._recompute

    @recompute.setter
    def recompute(self, value: Recompute) -> None:
        self._recompute = _choice("recompute", value, RECOMPUTE)
        for attn in self._attentions:
            attn.recompute_core = value == "selective"

    @property
    def checkpointing(self) -> bool:
        """``recompute == "full"``; setting True or False sets ``recompute`` to ``"full"`` or ``"none"``."""
        return self._recompute == "full"

    @checkpointing.setter
    def checkpointing(self, value: Flag) -> None:
        if not isinstance(value, bool):  # the string "False" is true to Python
            raise TypeError(f"checkpointing must be True or False, got {type(value).__name__} {value!r}")
        self.recompute = "full" if value else "none"

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        """Token ids ``idx`` (integers, shape ``(B, T)``, ``T <= context_length``) -> logits ``(B, T, V)``."""
        if idx.dtype not in (torch.int64, torch.int32) or idx.dim() != 2:
            raise ValueError(f"idx must be an int64/int32 tensor of shape (B, T), got {idx.dtype} {tuple(idx.shape)}")
        t, limit = idx.shape[1], self.config.context_length
        if not 1 <= t <= limit:  # an empty (B, 0) batch too: there is no next token to predict
            raise ValueError(f"idx has sequence length {t}; it must be in 1..context_length={limit}")
        if idx.device.type == "cpu":  # on a GPU min()/max() would wait for the device on every step
            check_token_ids("idx", idx, self.config.vocab_size)
        x = self.token_embedding(idx)
        if self.position_embedding is not None:
            x = x + self.position_embedding(torch.arange(t, device=idx.device))
        x = dropout(x, self.config.dropout, self.training)
        for block in self.blocks:
            if self._recompute == "full" and torch.is_grad_enabled():
                x = checkpoint(block, x, use_reentrant=False)
            else:
                x = block(x)
        return self.lm_head(self.ln_f(x))

    def extra_repr(self) -> str:
        return repr(self.config).removeprefix("TransformerConfig(").removesuffix(")")


_T = TypeVar("_T", bound=str)


def _choice(name: str, value: object, allowed: tuple[_T, ...]) -> _T:
    """``value`` if it is one of ``allowed`` (a setter is a boundary the config does not guard)."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return allowed[allowed.index(value)]


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
