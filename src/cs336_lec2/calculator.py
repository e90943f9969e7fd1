"""The book's training calculator, in Python: the reference its in-browser JavaScript copy is tested against.

:func:`calculate` answers the three questions the calculator page asks of a configuration (how many
parameters and FLOPs, how many GPU-days, does the training state fit on N GPUs) by composing the
package's own functions, and nothing else: parameter counts and FLOPs per token from
:mod:`cs336_lec2.transformer`, activation and logits bytes from :mod:`cs336_lec2.activations`, bytes
per parameter from :mod:`cs336_lec2.napkin` / :mod:`cs336_lec2.memory`, sharded state, traffic and
its time on a cluster from :mod:`cs336_lec2.distributed` (chapter 14's model), dense peaks and memory
from the accelerator table (:mod:`cs336_lec2.hardware.accelerators`).

Why a JavaScript copy at all: the page must answer within one frame (16 ms) and be usable within a
second of loading, offline, with no kernel; a Python runtime compiled for the browser is tens of MB
and seconds to start. So ``book/_static/calculator/formulas.js`` repeats the arithmetic (ordinary
scripts, no ES modules: the book must work opened from ``file://``, where Chromium refuses modules), and
``tests/test_calculator_browser.py`` runs it in headless Chromium against :func:`calculate` on every
preset and 500 random configurations: integers (parameters, FLOPs, bytes) exactly, floats to 1e-9.
The tables the page needs (presets, accelerators, precision recipes, optimizers) are not copied by
hand: :func:`page_data` writes them and ``tests/test_calculator.py`` checks the committed
``book/_static/calculator/data.js`` against it (regenerate: ``python -m cs336_lec2.calculator``).

A config is a plain mapping (JSON-able, the same keys in Python and JavaScript); :data:`DEFAULTS`
lists them. ``tokens`` is D, ``micro_batch`` the sequences per GPU per step, ``num_gpus`` the
data-parallel size over which ``stage`` (``dp``, ``zero1``, ``zero2``, ``zero3`` = FSDP) shards the state,
``grad_accum`` the micro-batches per optimizer step. The page's address: :mod:`cs336_lec2.calculator_url`.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from .activations import activation_bytes_per_layer, embedding_dropout_bytes, logits_bytes, segment_checkpoint_bytes
from .calculator_memory import CUDA_CONTEXT_BYTES, largest_fsdp_unit, transient_bytes  # noqa: F401 (re-exported)
from .checks import check_bool, check_choice, check_count, check_int, check_real
from .distributed import STAGES, step_communication, zero_memory
from .distributed.cluster import CLUSTERS, DDP_BUCKET_BYTES, DDP_FIRST_BUCKET_BYTES, breakeven_tokens, step_seconds
from .distributed.cluster import page_table as cluster_table
from .flops import training_flops
from .hardware.accelerators import ACCELERATORS
from .lm import NORMS, POSITIONS, RECOMPUTE, TransformerConfig
from .memory import OPTIMIZER_STATES, PRECISIONS
from .napkin import SECONDS_PER_DAY, bytes_per_param_breakdown, max_trainable_params, training_days
from .transformer import PUBLISHED, parameter_count, training_flops_per_token

# The dtype of the matmuls under each precision recipe: its dense peak is the denominator of MFU.
MATMUL_DTYPE = {"fp32": "fp32", "mixed_bf16": "bf16", "mixed_bf16_fp32_grads": "bf16"}
ARCHITECTURE = ("vocab_size", "context_length", "num_layers", "d_model", "num_heads", "num_kv_heads", "d_ff",
                "gated_mlp", "tied_embeddings", "bias", "norm", "positions", "head_size",  # head_size None: d / H
                "dropout")  # dropout: whether the model trains with dropout masks (GPT-2, GPT-3), not its p


def preset_key(name: str) -> str:
    """The URL key of a published model: ``"GPT-2 small"`` -> ``"gpt2-small"``, ``"Llama 2 7B"`` -> ``"llama2-7b"``."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a model's name (a str), got {type(name).__name__} {name!r}")
    return re.sub(r"(\D)[ -](\d)", r"\1\2", name.lower()).replace(" ", "-")


PRESETS = {preset_key(name): model for name, model in PUBLISHED.items()}


def preset_architecture(key: str) -> dict[str, Any]:
    """The architecture fields of the published model ``key`` (see :data:`PRESETS`), as a config holds them."""
    config = PRESETS[check_choice("model", key, PRESETS)].config
    return {name: config.dropout > 0 if name == "dropout" else getattr(config, name) for name in ARCHITECTURE}


DEFAULTS: dict[str, Any] = {
    "model": "gpt2-small", **preset_architecture("gpt2-small"),
    "seq_len": 1024, "micro_batch": 8, "grad_accum": 1, "tokens": 10**10, "gpu": "h100-sxm", "num_gpus": 8, "mfu": 0.4,
    "tf32": False, "precision": "mixed_bf16", "optimizer": "adamw", "stage": "dp", "recompute": "none",
    "flash_attention": True,
}

# The tokens each preset was trained on, where its authors publish them; a preset without one keeps
# DEFAULTS["tokens"] (GPT-2's paper gives its data, WebText, in documents and GB, not in tokens).
TOKEN_BUDGETS = {
    **dict.fromkeys(("llama2-7b", "llama2-13b", "llama2-70b"), 2 * 10**12),  # Touvron et al. 2023, table 1: 2.0T
    "llama3-8b": 15 * 10**12,  # Meta Llama 3 model card: pretrained on "over 15T tokens"
    "gemma7b": 6 * 10**12,  # Gemma Team 2024, section 4.1: "Gemma 2B and 7B are trained on 3T and 6T tokens"
}

# The largest value each whole-number input takes: far beyond any published run (Llama 3 405B: 126
# layers, d = 16,384, 16,384 GPUs, 15.6T tokens), small enough that every quantity stays a finite
# float and an exact JavaScript number (below 2**53).
LIMITS = {"vocab_size": 2**24, "context_length": 2**24, "num_layers": 2**12, "d_model": 2**18,
          "num_heads": 2**14, "num_kv_heads": 2**14, "d_ff": 2**20, "seq_len": 2**24, "micro_batch": 2**16,
          "num_gpus": 2**20, "grad_accum": 2**16, "tokens": 10**15, "head_size": 2**14}
# The dropout probability of a model with dropout: GPT-2's released config (attn/resid/embd_pdrop); the bytes
# (a 1-byte mask per dropped value) do not depend on it.
DROPOUT = 0.1
MFU_MIN = 0.001  # 0.1 %: below it the page would print training times of millions of years


# The short name of each input in the page's address: calculator.html#model=llama2-7b&gpus=64&zero=zero3.
URL_KEYS = {"model": "model", "vocab_size": "vocab", "context_length": "ctx", "num_layers": "layers",
            "d_model": "d", "num_heads": "heads", "num_kv_heads": "kv", "d_ff": "dff", "gated_mlp": "gated",
            "tied_embeddings": "tied", "bias": "bias", "norm": "norm", "positions": "pos", "seq_len": "seq",
            "micro_batch": "batch", "grad_accum": "accum", "tokens": "tokens", "gpu": "gpu", "num_gpus": "gpus",
            "mfu": "mfu", "tf32": "tf32", "precision": "prec", "optimizer": "opt", "stage": "zero",
            "recompute": "recomp", "flash_attention": "flash", "head_size": "hs", "dropout": "drop"}


@contextlib.contextmanager
def _field(name: str) -> Iterator[None]:
    """Tag a ``ValueError`` / ``TypeError`` raised inside with ``.field = name`` (the page lists bad fields)."""
    try:
        yield
    except (ValueError, TypeError) as err:
        err.field = name  # type: ignore[attr-defined]
        raise


def preset_defaults(model: str) -> dict[str, Any]:
    """What a preset sets besides its architecture: its own context as ``seq_len``, its published ``tokens``."""
    if model not in PRESETS:
        return {}
    own = {"seq_len": PRESETS[model].config.context_length}
    return {**own, "tokens": TOKEN_BUDGETS[model]} if model in TOKEN_BUDGETS else own


def normalize(config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` over :data:`DEFAULTS`, checked; a preset ``model`` sets every architecture field.

    A preset also sets ``seq_len`` to its context length and ``tokens`` to its published budget
    (:func:`preset_defaults`) unless ``config`` gives them. ``model="custom"`` takes the architecture
    fields from ``config``. Raises ``ValueError`` / ``TypeError`` naming the first bad field; the
    exception's ``field`` attribute is that field's key (the page lists the bad fields by label).
    """
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping, got {type(config).__name__}")
    unknown = sorted(set(config) - set(DEFAULTS))
    if unknown:
        with _field(unknown[0]):
            raise ValueError(f"config has unknown keys {unknown}; known: {sorted(DEFAULTS)}")
    with _field("model"):
        check_choice("model", config.get("model", DEFAULTS["model"]), (*PRESETS, "custom"))
    c = {**DEFAULTS, **preset_defaults(config.get("model", DEFAULTS["model"])), **config}
    if c["model"] != "custom":
        c.update(preset_architecture(c["model"]))
    for name in ("vocab_size", "context_length", "num_layers", "d_model", "num_heads", "num_kv_heads", "d_ff",
                 "seq_len", "micro_batch", "num_gpus", "grad_accum"):
        with _field(name):
            check_int(name, c[name], minimum=1, maximum=LIMITS[name])
    with _field("head_size"):  # None: d_model / num_heads
        c["head_size"] is None or check_int("head_size", c["head_size"], minimum=1, maximum=LIMITS["head_size"])
    for name in ("gated_mlp", "tied_embeddings", "bias", "tf32", "flash_attention", "dropout"):
        with _field(name):
            check_bool(name, c[name])
    _check_architecture(c)
    with _field("seq_len"):
        if c["positions"] == "learned" and c["seq_len"] > c["context_length"]:
            raise ValueError(f"seq_len must be <= context_length={c['context_length']} with learned positions, "
                             f"got {c['seq_len']}")
    with _field("tokens"):
        c["tokens"] = check_count("tokens", c["tokens"], minimum=1)
        if c["tokens"] > LIMITS["tokens"]:
            raise ValueError(f"tokens must be at most {LIMITS['tokens']:.0e}, got {c['tokens']}")
    for name, options in (("gpu", ACCELERATORS), ("precision", PRECISIONS), ("optimizer", OPTIMIZER_STATES),
                          ("stage", STAGES), ("recompute", RECOMPUTE)):
        with _field(name):
            check_choice(name, c[name], options)
    with _field("mfu"):
        check_real("mfu", c["mfu"], minimum=MFU_MIN, maximum=1)
        model = _model(c)
        hfu = c["mfu"] * training_flops_per_token(model, c["seq_len"], recompute=c["recompute"]) / (
            training_flops_per_token(model, c["seq_len"]))
        if hfu > 1:
            raise ValueError(f"mfu={c['mfu']} with recompute={c['recompute']!r} means the GPUs run {hfu:.3f} of "
                             "their peak (HFU above 1)")
    return c


def _check_architecture(c: Mapping[str, Any]) -> None:
    """The architecture's own rules, each under the field the page marks (the page's checks, in order)."""
    heads = c["num_heads"]
    with _field("num_kv_heads"):
        if heads % c["num_kv_heads"]:
            raise ValueError(f"num_kv_heads must divide num_heads={heads}, got {c['num_kv_heads']}")
    with _field("d_model"):
        if c["head_size"] is None and c["d_model"] % heads:
            raise ValueError(f"d_model must be a multiple of num_heads={heads} (or give head_size), got {c['d_model']}")
    with _field("norm"):
        check_choice("norm", c["norm"], NORMS)
    with _field("positions"):
        check_choice("positions", c["positions"], POSITIONS)
        if c["positions"] == "rope" and (c["head_size"] or c["d_model"] // heads) % 2:
            raise ValueError("positions='rope' needs an even head size (head_size, or d_model/num_heads), "
                             f"got {c['head_size'] or c['d_model'] // heads}")
    with _field("d_model"):
        _model(c)  # anything else the package's own config refuses


def _model(c: Mapping[str, Any]) -> TransformerConfig:
    """The package's config of the model the calculator config describes."""
    sizes = [c[name] for name in ARCHITECTURE[:7] if name != "num_kv_heads"]
    return TransformerConfig(*sizes, tied_embeddings=c["tied_embeddings"], bias=c["bias"],
                             num_kv_heads=c["num_kv_heads"], gated_mlp=c["gated_mlp"], norm=c["norm"],
                             positions=c["positions"], head_size=c["head_size"],
                             dropout=DROPOUT if c["dropout"] else 0.0)


def matmul_dtype(config: Mapping[str, Any]) -> str:
    """The peak-table key whose dense peak applies: the recipe's matmul dtype (fp32 as TF32 when ``tf32``)."""
    if not isinstance(config, Mapping) or not {"precision", "gpu", "tf32"} <= set(config):
        raise ValueError(f"config must be a mapping with precision, gpu and tf32 (see normalize), got {config!r}")
    key = MATMUL_DTYPE[check_choice("precision", config["precision"], MATMUL_DTYPE)]
    card = ACCELERATORS[config["gpu"]]
    return "tf32" if key == "fp32" and config["tf32"] and "tf32" in card.peak_flops else key


def calculate(config: Mapping[str, Any]) -> dict[str, Any]:
    """Every quantity the calculator shows for ``config`` (see :data:`DEFAULTS`), by name.

    Integers are exact (parameters, FLOPs, bytes that divide evenly); per-GPU bytes of sharded state
    are floats when Ψ / N_d is not whole (:func:`~cs336_lec2.distributed.zero_memory`). A quantity
    the card cannot give (no dense peak for the recipe's dtype) is ``None``.
    """
    c = normalize(config)
    model = _model(c)
    counts = parameter_count(model)
    n, tokens, gpus, seq, batch = counts.total, c["tokens"], c["num_gpus"], c["seq_len"], c["micro_batch"]
    parameters = {"token_embedding": counts.token_embedding, "position_embedding": counts.position_embedding,
                  "attention": counts.attention, "mlp": counts.mlp, "norms": counts.norms,
                  "lm_head": counts.lm_head, "total": n, "non_embedding": counts.non_embedding,
                  "kaplan_n": counts.kaplan_n}

    card = ACCELERATORS[c["gpu"]]
    dtype = matmul_dtype(c)
    peak = card.peak_flops.get(dtype)
    # MFU counts model FLOPs (no recomputation); the GPUs also run the recomputed ones (hardware FLOPs).
    per_token = training_flops_per_token(model, seq)
    hardware = training_flops_per_token(model, seq, recompute=c["recompute"])
    total_flops = per_token * tokens
    flops = {"per_token_6n": training_flops(n, 1), "per_token": per_token, "per_token_hardware": hardware,
             "total_6n": training_flops(n, tokens), "total": total_flops}
    time = {"peak_dtype": dtype, "peak_flops": peak, "hfu": c["mfu"] * hardware / per_token,
            "days_6n": None if peak is None else training_days(n, tokens, gpus, peak, c["mfu"]),
            "days": None if peak is None else total_flops / (gpus * peak * c["mfu"]) / SECONDS_PER_DAY}

    per_param = bytes_per_param_breakdown(c["optimizer"], c["precision"])
    recipe = {"param_bytes": per_param["params"], "grad_bytes": per_param["grads"],
              "optimizer_bytes": per_param["master_weights"] + per_param["optimizer_state"]}
    state = zero_memory(n, gpus, c["stage"], **recipe)
    saved = {"flash_attention": c["flash_attention"], "bytes_per_value": PRECISIONS[c["precision"]].activation}
    layer = activation_bytes_per_layer(model, batch, seq, recompute=c["recompute"], **saved)
    if c["recompute"] == "full":  # every block input kept; backward recomputes one block at a time
        full = activation_bytes_per_layer(model, batch, seq, **saved)
        activations = segment_checkpoint_bytes(c["num_layers"], 1, full, layer)
    else:
        activations = c["num_layers"] * layer
    activations += embedding_dropout_bytes(model, batch, seq)  # once, not per layer (0 without dropout)
    logits = logits_bytes(model, batch, seq)
    extra = transient_bytes(c, counts, recipe, logits)
    total = state.params + state.grads + state.optimizer_state + activations + logits + sum(extra.values())
    memory = {"params": state.params, "grads": state.grads, "optimizer_state": state.optimizer_state,
              "activations": activations, "logits": logits, **extra, "total": total, "card": card.memory_bytes,
              "fits": total <= card.memory_bytes}

    largest = {}
    for stage in STAGES:  # bytes of state per parameter on one of N_d GPUs: exact as (bytes of N_d params) / N_d
        per_gpu = Fraction(round(zero_memory(gpus, gpus, stage, **recipe).total), gpus)
        largest[stage] = max_trainable_params(card.memory_bytes, per_gpu)

    widths = {"bytes_per_value": recipe["param_bytes"], "reduce_bytes": recipe["grad_bytes"]}  # gathers, reductions
    communication = {"bytes_per_step": step_communication(n, gpus, c["stage"], **widths),
                     "tokens_per_step": gpus * batch * seq, **_cluster_time(c, n, peak)}
    # An optimizer step: grad_accum micro-batches on every GPU, at the MFU (which counts every overhead)
    global_tokens = gpus * batch * c["grad_accum"] * seq
    rate = None if peak is None else gpus * peak * c["mfu"]  # model FLOP/s of all the GPUs
    step = {"global_batch": gpus * batch * c["grad_accum"], "global_batch_tokens": global_tokens,
            "steps": -(-tokens // global_tokens), "seconds": None if rate is None else per_token * global_tokens / rate,
            "tokens_per_second": None if rate is None else rate / per_token}
    return {"parameters": parameters, "flops": flops, "time": time, "memory": memory,
            "largest_model": largest, "communication": communication, "step": step}


def _cluster_time(c: Mapping[str, Any], n: int, peak: float | None) -> dict[str, Any]:
    """Seconds of a step's collectives on the card's DGX nodes and the tokens per GPU whose compute hides them.

    Chapter 14's model (:mod:`cs336_lec2.distributed.cluster`, NCCL's fastest algorithm per call): DDP
    (``dp``) all-reduces 1 MiB, then 25 MiB buckets during the backward pass only (4 FLOPs per parameter
    per token); ZeRO-1/2 too (4); ZeRO-3 / FSDP, one call per unit of a per-block wrapping (``L + 2``),
    prefetches parameters during forward too (6).
    Compute runs at the dense peak times MFU. ``None`` where the card has no node in
    :data:`~cs336_lec2.distributed.cluster.CLUSTERS` or the GPUs do not fill whole nodes of 8.
    """
    gpus, stage = c["num_gpus"], c["stage"]
    _, cluster = CLUSTERS.get(c["gpu"], (None, None))
    if cluster is None or (gpus > cluster.gpus_per_node and gpus % cluster.gpus_per_node):
        return {"seconds_per_step": None, "breakeven_tokens_per_gpu": None}
    bucket, first = (DDP_BUCKET_BYTES, DDP_FIRST_BUCKET_BYTES) if stage == "dp" else (None, None)
    p = PRECISIONS[c["precision"]]  # gathers move the weights' width, reductions the gradients'
    seconds = step_seconds(stage, n, gpus, cluster, bytes_per_value=p.param, reduce_bytes=p.grad,
                           bucket_bytes=bucket, first_bucket_bytes=first, units=c["num_layers"] + 2)
    hide = 6 if stage == "zero3" else 4
    even = None if peak is None else breakeven_tokens(seconds, n, peak * c["mfu"], flops_per_param=hide)
    return {"seconds_per_step": seconds, "breakeven_tokens_per_gpu": even}


def page_data() -> dict[str, Any]:
    """The tables the page reads, from the package: presets, accelerators, recipes, optimizers, stages, defaults."""
    presets = {key: {"name": m.name, "reported": m.reported_params, "source": m.source, **preset_architecture(key)}
               for key, m in PRESETS.items()}
    cards = {key: {"name": a.name, "memory_bytes": a.memory_bytes, "peak_flops": dict(a.peak_flops),
                   "source": a.source} for key, a in ACCELERATORS.items()}
    precisions = {key: {"param": p.param, "grad": p.grad, "master": p.master, "state": p.state,
                        "activation": p.activation} for key, p in PRECISIONS.items()}
    return {"presets": presets, "accelerators": cards, "precisions": precisions,
            "optimizer_states": dict(OPTIMIZER_STATES), "stages": list(STAGES), "recompute": list(RECOMPUTE),
            "norms": list(NORMS), "positions": list(POSITIONS),
            "matmul_dtype": dict(MATMUL_DTYPE), "seconds_per_day": SECONDS_PER_DAY, "defaults": DEFAULTS,
            **cluster_table(),
            "url_keys": URL_KEYS, "limits": LIMITS, "mfu_min": MFU_MIN, "token_budgets": TOKEN_BUDGETS,
            "cuda_context_bytes": CUDA_CONTEXT_BYTES, "validation": _validation_rows()}


def _validation_rows() -> list[dict[str, Any]]:
    """:func:`cs336_lec2.validation.page_rows` (imported here: that module computes with this one)."""
    from .validation import page_rows

    return page_rows()


def page_data_module() -> str:
    """``data.js``: :func:`page_data` as an ordinary script (no ES module: the book opens from ``file://`` too)."""
    body = json.dumps(page_data(), indent=1, ensure_ascii=False)
    return ("// Written by `python -m cs336_lec2.calculator` from the package's tables; do not edit by hand\n"
            "// (tests/test_calculator.py fails when this file and the package differ).\n"
            f"(window.CS336_CALC = window.CS336_CALC || {{}}).DATA = {body};\n")


def main() -> None:
    """Print ``data.js`` (redirect it to ``book/_static/calculator/data.js``)."""
    print(page_data_module(), end="")


if __name__ == "__main__":
    main()
