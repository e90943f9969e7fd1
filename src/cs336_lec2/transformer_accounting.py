"""Counting a decoder-only Transformer from its config: parameters by part and FLOPs per token.

Every function reads a :class:`~cs336_lec2.lm.TransformerConfig`, which holds the architecture
(grouped-query attention, gated MLP, tied embeddings, biases, norm, positions): no function takes
a separate architecture flag, so none can count a model other than the one described. The counts
are exact for :class:`~cs336_lec2.lm.TransformerLM` (the tests check them against the model and
``FlopCounterMode``). Activation memory is in :mod:`cs336_lec2.activations`.

Notation: L layers, width d, H query heads of width d/H, ``kv`` the width of K (and of V),
``d_ff`` the MLP width, V the vocabulary, T the sequence length (s in Korthikanti et al.), B the
batch (b).

**Causal-attention convention.** Attention's two ``T × T`` products are counted as the FULL square,
``4·L·T·d`` FLOPs per token forward, as PaLM (Chowdhery et al. 2022, appendix B), torchtitan and
``FlopCounterMode`` count them (a causal mask makes half of it useless work, which most kernels
still do). Kaplan et al. (2020, table 1) count half: :func:`kaplan_forward_flops_per_token`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .checks import Flag, PositiveCount, PositiveReal, Probability, beartype_on_first_call
from .config import Recompute, TransformerConfig


@dataclass(frozen=True)
class ParameterCount:
    """Parameters (values, not bytes) by part; ``attention``, ``mlp`` and ``norms`` sum all layers.

    ``norms`` holds the two norms of every block and the final norm. A tied LM head shares the token
    embedding's matrix, so ``lm_head`` is 0 then. ``block_biases`` (the biases inside ``attention``
    and ``mlp``, already counted there) is kept apart for Kaplan's N.
    """

    token_embedding: int
    position_embedding: int
    attention: int
    mlp: int
    norms: int
    lm_head: int
    block_biases: int = 0
    total: int = field(init=False)

    def __post_init__(self) -> None:
        parts = (self.token_embedding, self.position_embedding, self.attention, self.mlp, self.norms, self.lm_head)
        object.__setattr__(self, "total", sum(parts))

    @property
    def non_embedding(self) -> int:
        """Every parameter except the vocabulary matrices (embedding, head) and positions: blocks and norms."""
        return self.attention + self.mlp + self.norms

    @property
    def kaplan_n(self) -> int:
        """Kaplan et al.'s N (2020, section 2.1): the block matrices only, no embeddings, biases or norms.

        For a GELU MLP with ``d_ff = 4·d`` it is exactly ``12·L·d²``.
        """
        return self.attention + self.mlp - self.block_biases


def block_matrix_sizes(config: TransformerConfig) -> dict[str, int]:
    """Weights of one block's matrices: ``q``, ``kv`` (K and V), ``o``, ``mlp`` (q and o ``d × H·head_dim``)."""
    c = config
    d = c.d_model
    mlp = (3 if c.gated_mlp else 2) * d * c.d_ff
    return {"q": d * c.q_dim, "kv": 2 * d * c.kv_dim, "o": c.q_dim * d, "mlp": mlp}


def parameter_count(config: TransformerConfig) -> ParameterCount:
    """The parameters of ``config``'s model by part (exactly its TransformerLM's)."""
    c = config
    d, bias, m = c.d_model, int(c.bias), block_matrix_sizes(c)
    attn_bias = bias * (c.q_dim + 2 * c.kv_dim + d)  # q, k, v, output projection
    mlp_bias = bias * ((2 if c.gated_mlp else 1) * c.d_ff + d)
    norm = d if c.norm == "rmsnorm" else d * (1 + bias)  # LayerNorm: and a bias
    learned = c.positions == "learned"
    return ParameterCount(
        token_embedding=c.vocab_size * d,
        position_embedding=c.context_length * d if learned else 0,
        attention=c.num_layers * (m["q"] + m["kv"] + m["o"] + attn_bias),
        mlp=c.num_layers * (m["mlp"] + mlp_bias),
        norms=(2 * c.num_layers + 1) * norm,
        lm_head=0 if c.tied_embeddings else d * c.vocab_size,
        block_biases=c.num_layers * (attn_bias + mlp_bias),
    )


def approx_parameters(num_layers: PositiveCount, d_model: PositiveCount) -> int:
    """The rule of thumb ``12·L·d²``: attention ``4·d²`` plus an MLP of width ``4·d`` (``8·d²``) per layer."""
    return 12 * int(num_layers) * int(d_model) ** 2


def llama_ffn_dim(
    d_model: PositiveCount, multiple_of: PositiveCount, ffn_dim_multiplier: PositiveReal | None = None
) -> int:
    """Llama's MLP width from its released ``params.json``: ``8/3·d``, times the multiplier, rounded up.

    The rule of Meta's reference code (``llama/model.py``, ``FeedForward``): ``int(2·4d/3)``, then
    ``int(ffn_dim_multiplier·that)`` when given, then up to a multiple of ``multiple_of``.
    """
    hidden = 2 * 4 * int(d_model) // 3  # int(8d/3) of the reference code, exact at any size
    if ffn_dim_multiplier is not None:  # -1.0 gave a width of -10752, 0.0 of 0: a multiplier is positive
        hidden = int(float(ffn_dim_multiplier) * hidden)
        if hidden < 1:
            raise ValueError(f"ffn_dim_multiplier={ffn_dim_multiplier!r} leaves no MLP width (8/3 d times it < 1)")
    step = int(multiple_of)
    return step * ((hidden + step - 1) // step)


def matmul_parameters(config: TransformerConfig) -> int:
    """The N of "2·N FLOPs per token forward": every block matrix plus the LM head ``d·V``.

    Embeddings are looked up (no FLOPs), biases and norms are elementwise, and the head costs
    ``2·d·V`` per token whether or not it is tied.
    """
    c = config
    return c.num_layers * sum(block_matrix_sizes(c).values()) + c.d_model * c.vocab_size


def attention_flops_per_token(config: TransformerConfig, seq_len: PositiveCount) -> int:
    """Forward FLOPs per token of attention's ``q·kᵀ`` and ``scores·v``, full square: ``4·L·T·d``.

    Each query head meets all T keys (``2·T·d_head`` FLOPs for its scores, as many for the sum of
    values), H heads per layer, whatever the number of K/V heads. Half of it is masked (see the
    module's convention).
    """
    c = config
    return 4 * c.num_layers * int(seq_len) * c.num_heads * c.head_dim


def forward_flops_per_token(config: TransformerConfig, seq_len: PositiveCount, *, attention: Flag = True) -> int:
    """Forward FLOPs per token: ``2·N_matmul`` plus (``attention=True``) ``4·L·T·d``."""
    flops = 2 * matmul_parameters(config)
    return flops + (attention_flops_per_token(config, seq_len) if attention else 0)


def training_flops_per_token(
    config: TransformerConfig, seq_len: PositiveCount, *, attention: Flag = True, recompute: Recompute = "none"
) -> int:
    """FLOPs per token of a forward and backward pass: ``3 × forward`` = ``6·N + 12·L·T·d``, plus recomputation.

    Backward costs two matmuls per forward matmul (input and weight gradients). ``recompute`` is
    what :attr:`TransformerLM.recompute` runs again in backward ("math" attention), as
    ``FlopCounterMode`` counts it: ``"full"`` adds each block's forward except the MLP's output
    projection (PyTorch's non-reentrant checkpoint stops once it has every tensor backward needs,
    and nothing saves that output), ``- 2·L·d·d_ff`` (not with dropout, which reruns on that output);
    ``"selective"`` (the attention core checkpointed) adds ``q·kᵀ`` only, ``2·L·T·d`` (the
    recomputation stops at the softmax). These are hardware FLOPs: MFU counts the ``"none"`` figure
    (model FLOPs).
    """
    c = config
    forward = forward_flops_per_token(c, seq_len, attention=attention)
    if recompute == "full":
        # with dropout after it, the MLP's output is recomputed too: the dropout reruns on it
        last = 0 if c.dropout > 0 else 2 * c.num_layers * c.d_model * c.d_ff
        return 3 * forward + forward - 2 * c.d_model * c.vocab_size - last
    if recompute == "selective":
        return 3 * forward + (attention_flops_per_token(c, seq_len) // 2 if attention else 0)
    return 3 * forward


def kaplan_forward_flops_per_token(config: TransformerConfig, seq_len: PositiveCount) -> int:
    """Kaplan et al. (2020), table 1: ``C_forward = 2·N + 2·L·n_ctx·d_attn``, N their non-embedding count.

    N is :attr:`ParameterCount.kaplan_n` (block matrices only, section 2.1); the attention term is
    half of :func:`attention_flops_per_token`'s full square, and the head's ``2·d·V`` is left out.
    """
    c = config
    n = parameter_count(c).kaplan_n
    return 2 * n + 2 * c.num_layers * int(seq_len) * c.q_dim  # d_attn = H·head_dim


def attention_flop_share(config: TransformerConfig, seq_len: PositiveCount) -> float:
    """The fraction of forward (and of training) FLOPs spent in attention's ``T×T`` products at ``seq_len``."""
    return attention_flops_per_token(config, seq_len) / forward_flops_per_token(config, seq_len)


def seq_len_for_attention_share(config: TransformerConfig, share: Probability) -> float:
    """The sequence length T at which attention's products are ``share`` of the FLOPs.

    From ``4·L·T·d / (2·N + 4·L·T·d) = share`` (d here H·head_dim): ``T = share·N / (2·(1 - share)·L·d)``.
    """
    c = config
    if not 0 < share < 1:
        raise ValueError(f"share must be a number strictly between 0 and 1, got {share!r}")
    try:
        return float(share) * matmul_parameters(c) / (2 * (1 - float(share)) * c.num_layers * c.q_dim)
    except OverflowError:  # a config of 2**1000 values: exact as an int, beyond a float
        raise ValueError(f"config holds about 2**{matmul_parameters(c).bit_length()} matmul parameters: the "
                         "sequence length does not fit in a float") from None


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
