"""The decoder-only Transformer that chapters 13 and 14 account for, described by ONE config.

:class:`TransformerConfig` holds the sizes AND the architecture: grouped-query attention
(``num_kv_heads``), the head size, a gated SwiGLU MLP (``gated_mlp``), tied embeddings, biases, the norm
(``"layernorm"`` or ``"rmsnorm"``) and the positions (``"learned"`` or ``"rope"``). The model
(:class:`TransformerLM`) and every count of :mod:`cs336_lec2.transformer` read it, so no count can
describe a model other than the one built. GPT-2 is the defaults plus ``tied_embeddings=True,
bias=True`` (and ``dropout=0.1`` as released); Llama is ``gated_mlp=True, norm="rmsnorm",
positions="rope"`` (and ``num_kv_heads``), no dropout. Plain ``torch.nn``: every saved tensor and FLOP
has a formula. The small blocks (norms, rotary tables, dropout) live in :mod:`cs336_lec2.layers`.
Re-exported by ``models``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

from .checks import check_bool, check_buildable, check_choice, check_int, check_real, check_token_ids
from .device import check_device, check_dtype
from .layers import RMSNorm, apply_rotary, dropout, make_norm, rotary_tables  # noqa: F401  (re-exported)

AttentionImpl = Literal["math", "sdpa"]
ATTENTION_IMPLS: tuple[str, ...] = ("math", "sdpa")
NORMS: tuple[str, ...] = ("layernorm", "rmsnorm")
POSITIONS: tuple[str, ...] = ("learned", "rope")
RECOMPUTE: tuple[str, ...] = ("none", "selective", "full")


@dataclass(frozen=True)
class TransformerConfig:
    """A decoder-only Transformer: its sizes and its architecture, read by the model and every count.

    Sizes: ``vocab_size`` V, ``context_length`` (the longest sequence), ``num_layers`` L,
    ``d_model`` d, ``num_heads`` H (``d_model`` a multiple of it), ``d_ff`` (the MLP's hidden width).
    Architecture (keyword-only after ``bias``):

    - ``tied_embeddings``: the LM head reuses the token embedding matrix (GPT-2).
    - ``bias``: biases in every Linear (not the head) and LayerNorm (GPT-2); RMSNorm has none.
    - ``num_kv_heads``: grouped-query attention, K and V with this many heads (it divides H); the
      default None means H (multi-head attention) and is stored as H.
    - ``head_size``: a head's width, None = ``d_model / num_heads`` (Gemma 7B: d = 3,072, 16 heads of 256).
    - ``gated_mlp``: SwiGLU, ``down(silu(x·W_gate) * (x·W_up))``, three ``d × d_ff`` matrices (Llama).
    - ``norm``: ``"layernorm"`` (GPT-2) or ``"rmsnorm"`` (Llama; a weight, no mean, no bias).
    - ``positions``: ``"learned"`` (a ``context_length × d`` embedding) or ``"rope"`` (rotary, no
      parameters; needs an even head dimension).
    - ``dropout``: the probability ``p`` in ``[0, 1)`` of GPT-2's and Megatron's four dropouts, in
      training: on the attention probabilities, after the attention's output projection, after the
      MLP and on the embeddings (GPT-2's released config: ``attn_pdrop = resid_pdrop = embd_pdrop =
      0.1``). Each keeps a 1-byte mask for backward (:func:`cs336_lec2.layers.dropout`).
    """

    vocab_size: int
    context_length: int
    num_layers: int
    d_model: int
    num_heads: int
    d_ff: int
    tied_embeddings: bool = False
    bias: bool = False
    num_kv_heads: int | None = field(default=None, kw_only=True)
    head_size: int | None = field(default=None, kw_only=True)
    gated_mlp: bool = field(default=False, kw_only=True)
    norm: str = field(default="layernorm", kw_only=True)
    positions: str = field(default="learned", kw_only=True)
    dropout: float = field(default=0.0, kw_only=True)

    def __post_init__(self) -> None:
        for name in ("vocab_size", "context_length", "num_layers", "d_model", "num_heads", "d_ff"):
            check_int(name, getattr(self, name), minimum=1)
        for name in ("tied_embeddings", "bias", "gated_mlp"):
            check_bool(name, getattr(self, name))
        check_choice("norm", self.norm, NORMS)
        check_choice("positions", self.positions, POSITIONS)
        if not check_real("dropout", self.dropout, minimum=0.0) < 1:
            raise ValueError(f"dropout must be a probability in [0, 1), got {self.dropout!r}")
        object.__setattr__(self, "dropout", float(self.dropout))
        if self.head_size is None and self.d_model % (h := self.num_heads):
            raise ValueError(f"d_model must be a multiple of num_heads={h} (or set head_size), got {self.d_model}")
        self.head_size is None or check_int("head_size", self.head_size, minimum=1)  # None: d_model / num_heads
        kv = self.num_heads if self.num_kv_heads is None else check_int("num_kv_heads", self.num_kv_heads, minimum=1)
        if self.num_heads % kv:
            raise ValueError(f"num_kv_heads must divide num_heads={self.num_heads}, got {kv}")
        object.__setattr__(self, "num_kv_heads", kv)
        if self.positions == "rope" and self.head_dim % 2:
            raise ValueError(f"positions='rope' needs an even head dimension, got head_dim={self.head_dim}")

    @property
    def head_dim(self) -> int:
        """The width of one attention head: ``head_size``, or ``d_model // num_heads`` when it is None."""
        return self.d_model // self.num_heads if self.head_size is None else self.head_size

    @property
    def q_dim(self) -> int:
        """Width of the Q projection and of the attention output: ``num_heads · head_dim`` (``d`` unless set)."""
        return self.num_heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        """Width of the K (and of the V) projection: ``num_kv_heads · head_dim`` (``d`` without GQA)."""
        return int(self.num_kv_heads) * self.head_dim  # type: ignore[arg-type]


class CausalSelfAttention(nn.Module):
    """Causal self-attention with H query heads and ``num_kv_heads`` K/V heads (GQA when fewer).

    ``qkv = Linear(d, q_dim + 2·kv_dim)``, RoPE on q and k when configured, attention, ``proj = Linear(q_dim, d)``.
    ``attention="math"`` spells it out (``softmax(q @ kᵀ / sqrt(d_head) + causal_bias) @ v``) so that
    ``FlopCounterMode`` sees its two batched matmuls and autograd saves plain tensors;
    ``attention="sdpa"`` calls ``F.scaled_dot_product_attention(..., is_causal=True)`` (a fused, flash
    kernel where one exists: nothing ``T × T`` is kept). ``recompute_core=True`` runs the attention core (scores,
    softmax, weighted sum) under activation checkpointing: Korthikanti et al.'s selective recomputation.
    """

    def __init__(self, config: TransformerConfig, *, attention: AttentionImpl = "math") -> None:
        super().__init__()
        self.num_heads, self.num_kv_heads, self.head_dim = config.num_heads, config.num_kv_heads, config.head_dim
        self.attention = check_choice("attention", attention, ATTENTION_IMPLS)
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
        gated_mlp: bool = False, norm: str = "layernorm", positions: str = "learned", dropout: float = 0.0,
        attention: AttentionImpl = "math",
        device: str | torch.device | None = None, dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self.config = config = TransformerConfig(
            vocab_size, context_length, num_layers, d_model, num_heads, d_ff, tied_embeddings, bias,
            num_kv_heads=num_kv_heads, head_size=head_size, gated_mlp=gated_mlp, norm=norm, positions=positions,
            dropout=dropout,
        )
        check_buildable(config)  # before any layer is allocated
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position_embedding = nn.Embedding(context_length, d_model) if positions == "learned" else None
        self.blocks = nn.ModuleList([TransformerBlock(config, attention=attention) for _ in range(num_layers)])
        self.ln_f = make_norm(config)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self._recompute = "none"
        self.apply(self._init_weights)
        self.to(device=None if device is None else check_device("device", device), dtype=check_dtype("dtype", dtype))
        if tied_embeddings:  # tied after the move: a move to another device kind ("meta") would untie them
            self.lm_head.weight = self.token_embedding.weight

    @classmethod
    def from_config(cls, config: TransformerConfig, *, attention: AttentionImpl = "math",
                    device: str | torch.device | None = None, dtype: torch.dtype | None = None) -> TransformerLM:
        """The model a :class:`TransformerConfig` describes."""
        if not isinstance(config, TransformerConfig):
            raise TypeError(f"config must be a TransformerConfig, got {type(config).__name__}")
        c = config
        sizes = (c.vocab_size, c.context_length, c.num_layers, c.d_model, c.num_heads, c.d_ff)
        arch = {"tied_embeddings": c.tied_embeddings, "bias": c.bias, "num_kv_heads": c.num_kv_heads,
                "head_size": c.head_size, "gated_mlp": c.gated_mlp, "norm": c.norm, "positions": c.positions,
                "dropout": c.dropout}
        return cls(*sizes, **arch, attention=attention, device=device, dtype=dtype)

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, (nn.Linear, nn.LayerNorm)) and module.bias is not None:
            nn.init.zeros_(module.bias)

    @property
    def attention(self) -> str:
        """The attention implementation of every block, ``"math"`` or ``"sdpa"``."""
        return self.blocks[0].attn.attention if len(self.blocks) else "math"

    @attention.setter
    def attention(self, value: AttentionImpl) -> None:
        value = check_choice("attention", value, ATTENTION_IMPLS)  # type: ignore[assignment]
        for block in self.blocks:
            block.attn.attention = value

    @property
    def recompute(self) -> str:
        """Activation recomputation: ``"none"``, ``"selective"`` or ``"full"``.

        ``"full"`` runs every block under non-reentrant ``torch.utils.checkpoint`` (only block inputs
        are kept; the block's forward runs again in backward); ``"selective"`` checkpoints only each
        block's attention core, the ``T × T`` scores and softmax (Korthikanti et al. 2022, section 4.2).
        """
        return self._recompute

    @recompute.setter
    def recompute(self, value: str) -> None:
        self._recompute = check_choice("recompute", value, RECOMPUTE)
        for block in self.blocks:
            block.attn.recompute_core = value == "selective"

    @property
    def checkpointing(self) -> bool:
        """``recompute == "full"``; setting True or False sets ``recompute`` to ``"full"`` or ``"none"``."""
        return self._recompute == "full"

    @checkpointing.setter
    def checkpointing(self, value: bool) -> None:
        self.recompute = "full" if check_bool("checkpointing", value) else "none"

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        """Token ids ``idx`` (integers, shape ``(B, T)``, ``T <= context_length``) -> logits ``(B, T, V)``."""
        if not isinstance(idx, torch.Tensor):
            raise TypeError(f"idx must be a torch.Tensor of token ids, got {type(idx).__name__}")
        if idx.dtype not in (torch.int64, torch.int32) or idx.dim() != 2:
            raise ValueError(f"idx must be an int64/int32 tensor of shape (B, T), got {idx.dtype} {tuple(idx.shape)}")
        t = idx.shape[1]
        if not 1 <= t <= (limit := self.config.context_length):
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
