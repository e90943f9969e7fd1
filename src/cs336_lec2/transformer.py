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

from .checks import check_bool, check_choice, check_int, check_positive_real, check_real
from .lm import RECOMPUTE, TransformerConfig


def _config(config: object) -> TransformerConfig:
    if not isinstance(config, TransformerConfig):
        raise TypeError(f"config must be a TransformerConfig, got {type(config).__name__}")
    return config


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
    c = _config(config)
    d = c.d_model
    mlp = (3 if c.gated_mlp else 2) * d * c.d_ff
    return {"q": d * c.q_dim, "kv": 2 * d * c.kv_dim, "o": c.q_dim * d, "mlp": mlp}


def parameter_count(config: TransformerConfig) -> ParameterCount:
    """The parameters of ``config``'s model by part (exactly its TransformerLM's)."""
    c = _config(config)
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


def approx_parameters(num_layers: int, d_model: int) -> int:
    """The rule of thumb ``12·L·d²``: attention ``4·d²`` plus an MLP of width ``4·d`` (``8·d²``) per layer."""
    return 12 * check_int("num_layers", num_layers, minimum=1) * check_int("d_model", d_model, minimum=1) ** 2


def llama_ffn_dim(d_model: int, multiple_of: int, ffn_dim_multiplier: float | None = None) -> int:
    """Llama's MLP width from its released ``params.json``: ``8/3·d``, times the multiplier, rounded up.

    The rule of Meta's reference code (``llama/model.py``, ``FeedForward``): ``int(2·4d/3)``, then
    ``int(ffn_dim_multiplier·that)`` when given, then up to a multiple of ``multiple_of``.
    """
    hidden = int(2 * 4 * check_int("d_model", d_model, minimum=1, max_bits=64) / 3)
    if ffn_dim_multiplier is not None:  # -1.0 gave a width of -10752, 0.0 of 0: a multiplier is positive
        hidden = int(check_positive_real("ffn_dim_multiplier", ffn_dim_multiplier) * hidden)
        if hidden < 1:
            raise ValueError(f"ffn_dim_multiplier={ffn_dim_multiplier!r} leaves no MLP width (8/3 d times it < 1)")
    step = check_int("multiple_of", multiple_of, minimum=1)
    return step * ((hidden + step - 1) // step)


def matmul_parameters(config: TransformerConfig) -> int:
    """The N of "2·N FLOPs per token forward": every block matrix plus the LM head ``d·V``.

    Embeddings are looked up (no FLOPs), biases and norms are elementwise, and the head costs
    ``2·d·V`` per token whether or not it is tied.
    """
    c = _config(config)
    return c.num_layers * sum(block_matrix_sizes(c).values()) + c.d_model * c.vocab_size


def attention_flops_per_token(config: TransformerConfig, seq_len: int) -> int:
    """Forward FLOPs per token of attention's ``q·kᵀ`` and ``scores·v``, full square: ``4·L·T·d``.

    Each query head meets all T keys (``2·T·d_head`` FLOPs for its scores, as many for the sum of
    values), H heads per layer, whatever the number of K/V heads. Half of it is masked (see the
    module's convention).
    """
    c = _config(config)
    return 4 * c.num_layers * check_int("seq_len", seq_len, minimum=1) * c.num_heads * c.head_dim


def forward_flops_per_token(config: TransformerConfig, seq_len: int, *, attention: bool = True) -> int:
    """Forward FLOPs per token: ``2·N_matmul`` plus (``attention=True``) ``4·L·T·d``."""
    check_int("seq_len", seq_len, minimum=1)  # also when attention=False: -5 is no sequence length
    flops = 2 * matmul_parameters(config)
    attention = check_bool("attention", attention)  # np.True_ too
    return flops + (attention_flops_per_token(config, seq_len) if attention else 0)


def training_flops_per_token(
    config: TransformerConfig, seq_len: int, *, attention: bool = True, recompute: str = "none"
) -> int:
    """FLOPs per token of a forward and backward pass: ``3 × forward`` = ``6·N + 12·L·T·d``, plus recomputation.

    Backward costs two matmuls per forward matmul (input and weight gradients). ``recompute`` is
    what :attr:`TransformerLM.recompute` runs again in backward ("math" attention), as
    ``FlopCounterMode`` counts it: ``"full"`` adds each block's forward except the MLP's output
    projection (PyTorch's non-reentrant checkpoint stops once it has every tensor backward needs,
    and nothing saves that output), ``- 2·L·d·d_ff``; ``"selective"`` (the attention core
    checkpointed) adds ``q·kᵀ`` only, ``2·L·T·d`` (the recomputation stops at the softmax). These
    are hardware FLOPs: MFU counts the ``"none"`` figure (model FLOPs).
    """
    c = _config(config)
    recompute = check_choice("recompute", recompute, RECOMPUTE)
    forward = forward_flops_per_token(c, seq_len, attention=attention)
    if recompute == "full":
        return 3 * forward + forward - 2 * c.d_model * c.vocab_size - 2 * c.num_layers * c.d_model * c.d_ff
    if recompute == "selective":
        return 3 * forward + (attention_flops_per_token(c, seq_len) // 2 if attention else 0)
    return 3 * forward


def kaplan_forward_flops_per_token(config: TransformerConfig, seq_len: int) -> int:
    """Kaplan et al. (2020), table 1: ``C_forward = 2·N + 2·L·n_ctx·d_attn``, N their non-embedding count.

    N is :attr:`ParameterCount.kaplan_n` (block matrices only, section 2.1); the attention term is
    half of :func:`attention_flops_per_token`'s full square, and the head's ``2·d·V`` is left out.
    """
    c = _config(config)
    n = parameter_count(c).kaplan_n
    return 2 * n + 2 * c.num_layers * check_int("seq_len", seq_len, minimum=1) * c.q_dim  # d_attn = H·head_dim


def attention_flop_share(config: TransformerConfig, seq_len: int) -> float:
    """The fraction of forward (and of training) FLOPs spent in attention's ``T×T`` products at ``seq_len``."""
    return attention_flops_per_token(config, seq_len) / forward_flops_per_token(config, seq_len)


def seq_len_for_attention_share(config: TransformerConfig, share: float) -> float:
    """The sequence length T at which attention's products are ``share`` of the FLOPs.

    From ``4·L·T·d / (2·N + 4·L·T·d) = share`` (d here H·head_dim): ``T = share·N / (2·(1 - share)·L·d)``.
    """
    c = _config(config)
    if not 0 < check_real("share", share) < 1:
        raise ValueError(f"share must be a number strictly between 0 and 1, got {share!r}")
    return float(share) * matmul_parameters(c) / (2 * (1 - float(share)) * c.num_layers * c.q_dim)


@dataclass(frozen=True)
class PublishedModel:
    """A released model: its config (architecture included), the size its authors state, the sources.

    ``released_params`` is the number of values in the released checkpoint (None where not known);
    :func:`parameter_count` of the config must equal it (a test checks).
    """

    name: str
    config: TransformerConfig
    reported_params: str  # as the paper or model card states it
    source: str
    released_params: int | None = None

    def parameters(self) -> ParameterCount:
        """:func:`parameter_count` of this configuration."""
        return parameter_count(self.config)


_GPT2 = (
    "Radford et al. 2019, 'Language Models are Unsupervised Multitask Learners', table 2 (layers, "
    "d_model, reported size); the released config.json of openai-community/gpt2(-medium, -large, -xl) "
    "(n_head, n_ctx 1024, vocabulary 50,257, d_ff = 4·d, tied embeddings, biases)"
)
_LLAMA2 = (
    "Touvron et al. 2023, 'Llama 2: Open Foundation and Fine-Tuned Chat Models', table 1 (context 4k, "
    "GQA for 70B) and section 2.2 (RMSNorm, SwiGLU, rotary embeddings); dim, layers, heads, KV heads, "
    "vocabulary 32,000 and the FFN rule (multiple_of, ffn_dim_multiplier) from the params.json "
    "released with the weights; untied, no biases"
)
_LLAMA3 = (
    "Meta Llama 3 model card and the released config.json of meta-llama/Meta-Llama-3-8B (vocab_size "
    "128256, hidden_size 4096, intermediate_size 14336, 32 layers, 32 heads, 8 KV heads, "
    "max_position_embeddings 8192, tie_word_embeddings false, RMSNorm, RoPE; no biases)"
)
_LLAMA = {"gated_mlp": True, "norm": "rmsnorm", "positions": "rope"}
_GEMMA = (
    "Gemma Team 2024, 'Gemma: Open Models Based on Gemini Research and Technology', table 1 (d_model 3072, "
    "28 layers, 16 heads of size 256, 16 KV heads, context 8192) and table 2 (7,751,248,896 non-embedding "
    "parameters); transformers' GemmaConfig defaults (google/gemma-7b: vocab_size 256000, intermediate_size "
    "24576, head_dim 256, tie_word_embeddings true, RMSNorm, RoPE, GeGLU: a gated MLP of three matrices, "
    "counted as SwiGLU's; no biases); released size 8,537,680,896 (keras-hub's gemma_7b_en preset)"
)
GEMMA_7B = TransformerConfig(256_000, 8192, 28, 3072, 16, 24_576, True, num_kv_heads=16, head_size=256, **_LLAMA)


def _gpt2(name: str, layers: int, d: int, heads: int, reported: str, released: int) -> PublishedModel:
    # dropout: the released config.json's attn_pdrop = resid_pdrop = embd_pdrop = 0.1
    config = TransformerConfig(50257, 1024, layers, d, heads, 4 * d, tied_embeddings=True, bias=True, dropout=0.1)
    return PublishedModel(name, config, reported, _GPT2, released)


def _llama(name: str, sizes: tuple[int, ...], kv: int, reported: str, source: str, released: int) -> PublishedModel:
    vocab, context, layers, d, heads, d_ff = sizes
    config = TransformerConfig(vocab, context, layers, d, heads, d_ff, num_kv_heads=kv, **_LLAMA)
    return PublishedModel(name, config, reported, source, released)


PUBLISHED: dict[str, PublishedModel] = {
    m.name: m
    for m in (
        # the number of values in the released checkpoints (Hugging Face's num_parameters())
        _gpt2("GPT-2 small", 12, 768, 12, "117M", 124_439_808),
        _gpt2("GPT-2 medium", 24, 1024, 16, "345M", 354_823_168),
        _gpt2("GPT-2 large", 36, 1280, 20, "762M", 774_030_080),
        _gpt2("GPT-2 XL", 48, 1600, 25, "1542M", 1_557_611_200),
        _llama("Llama 2 7B", (32000, 4096, 32, 4096, 32, 11008), 32, "7B", _LLAMA2, 6_738_415_616),
        _llama("Llama 2 13B", (32000, 4096, 40, 5120, 40, 13824), 40, "13B", _LLAMA2, 13_015_864_320),
        _llama("Llama 2 70B", (32000, 4096, 80, 8192, 64, 28672), 8, "70B", _LLAMA2, 68_976_648_192),
        _llama("Llama 3 8B", (128256, 8192, 32, 4096, 32, 14336), 8, "8B", _LLAMA3, 8_030_261_248),
        PublishedModel("Gemma 7B", GEMMA_7B, "7B", _GEMMA, 8_537_680_896),
    )
}
