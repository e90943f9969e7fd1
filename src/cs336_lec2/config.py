"""The decoder-only Transformer's ONE description: :class:`TransformerConfig`, sizes and architecture.

The model (:class:`cs336_lec2.transformer_model.TransformerLM`) builds from it, and every count
(:mod:`cs336_lec2.transformer_accounting`, :mod:`cs336_lec2.activations`, the calculator) reads it, so
no count can describe a model other than the one built. GPT-2 is the defaults plus
``tied_embeddings=True, bias=True`` (and ``dropout=0.1`` as released); Llama is ``gated_mlp=True,
norm="rmsnorm", positions="rope"`` (and ``num_kv_heads``), no dropout.

No torch here: a config is arithmetic, and the accounting imports in a fraction of torch's time.
The value rules that a type cannot say (heads divide the width, KV heads divide the heads, rotary
needs an even head) are checked once, in :meth:`TransformerConfig.__post_init__`; every formula that
takes a config trusts it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from .checks import Flag, PositiveCount, Probability, beartype_on_first_call

Norm = Literal["layernorm", "rmsnorm"]
Positions = Literal["learned", "rope"]
Recompute = Literal["none", "selective", "full"]
AttentionImpl = Literal["math", "sdpa"]
NORMS: tuple[Norm, ...] = get_args(Norm)
POSITIONS: tuple[Positions, ...] = get_args(Positions)
RECOMPUTE: tuple[Recompute, ...] = get_args(Recompute)
ATTENTION_IMPLS: tuple[AttentionImpl, ...] = get_args(AttentionImpl)

_SIZES = ("vocab_size", "context_length", "num_layers", "d_model", "num_heads", "d_ff")
_FLAGS = ("tied_embeddings", "bias", "gated_mlp")


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
      0.1``). Each keeps a 1-byte mask for backward (:func:`cs336_lec2.transformer_model.dropout`).
    """

    vocab_size: PositiveCount
    context_length: PositiveCount
    num_layers: PositiveCount
    d_model: PositiveCount
    num_heads: PositiveCount
    d_ff: PositiveCount
    tied_embeddings: Flag = False
    bias: Flag = False
    num_kv_heads: PositiveCount | None = field(default=None, kw_only=True)
    head_size: PositiveCount | None = field(default=None, kw_only=True)
    gated_mlp: Flag = field(default=False, kw_only=True)
    norm: Norm = field(default="layernorm", kw_only=True)
    positions: Positions = field(default="learned", kw_only=True)
    dropout: Probability = field(default=0.0, kw_only=True)

    def __post_init__(self) -> None:
        # The boundary of every count: beartype checked each field's type (a positive int, a real bool, a
        # probability); here the rules that relate fields, and each value stored as a plain int / bool / float
        # (numpy's scalars wrap around or print oddly downstream).
        for name in _SIZES:
            object.__setattr__(self, name, int(getattr(self, name)))
        for name in _FLAGS:
            object.__setattr__(self, name, bool(getattr(self, name)))
        if self.dropout == 1:
            raise ValueError(f"dropout must be a probability in [0, 1), got {self.dropout!r}")
        object.__setattr__(self, "dropout", float(self.dropout))
        if self.head_size is None and self.d_model % self.num_heads:
            raise ValueError(f"d_model must be a multiple of num_heads={self.num_heads} (or set head_size), "
                             f"got {self.d_model}")
        if self.head_size is not None:
            object.__setattr__(self, "head_size", int(self.head_size))
        kv = self.num_heads if self.num_kv_heads is None else int(self.num_kv_heads)
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
    def kv_heads(self) -> int:
        """K/V heads: ``num_kv_heads`` (stored as ``num_heads`` when given as None)."""
        return self.num_heads if self.num_kv_heads is None else self.num_kv_heads

    @property
    def q_dim(self) -> int:
        """Width of the Q projection and of the attention output: ``num_heads · head_dim`` (``d`` unless set)."""
        return self.num_heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        """Width of the K (and of the V) projection: ``num_kv_heads · head_dim`` (``d`` without GQA)."""
        return self.kv_heads * self.head_dim


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
