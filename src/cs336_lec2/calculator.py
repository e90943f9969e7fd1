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
and seconds to start. So ``book/_static/calculator/calculator.js`` repeats the arithmetic, and
``tests/test_calculator_browser.py`` runs it in headless Chromium against :func:`calculate` on every
preset and 500 random configurations: integers (parameters, FLOPs, bytes) exactly, floats to 1e-9.
The tables the page needs (presets, accelerators, precision recipes, optimizers) are not copied by
hand: :func:`page_data` writes them and ``tests/test_calculator.py`` checks the committed
``book/_static/calculator/data.js`` against it (regenerate: ``python -m cs336_lec2.calculator``).

A config is a plain mapping (JSON-able, the same keys in Python and JavaScript); :data:`DEFAULTS`
lists them. ``tokens`` is D, ``micro_batch`` the sequences per GPU per step, ``num_gpus`` the
data-parallel size over which ``stage`` (``dp``, ``zero1``, ``zero2``, ``zero3`` = FSDP) shards the state.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any
from urllib.parse import unquote

from .activations import activation_bytes_per_layer, logits_bytes, segment_checkpoint_bytes
from .checks import check_bool, check_choice, check_count, check_int, check_positive_real
from .distributed import STAGES, step_communication, zero_memory
from .distributed.cluster import DDP_BUCKET_BYTES, H100_CLUSTER, breakeven_tokens, step_seconds
from .flops import training_flops
from .hardware.accelerators import ACCELERATORS
from .lm import NORMS, POSITIONS, RECOMPUTE, TransformerConfig
from .memory import OPTIMIZER_STATES, PRECISIONS
from .napkin import SECONDS_PER_DAY, bytes_per_param_breakdown, max_trainable_params, training_days
from .transformer import PUBLISHED, parameter_count, training_flops_per_token

# The dtype of the matmuls under each precision recipe: its dense peak is the denominator of MFU.
MATMUL_DTYPE = {"fp32": "fp32", "mixed_bf16": "bf16", "mixed_bf16_fp32_grads": "bf16"}
ARCHITECTURE = ("vocab_size", "context_length", "num_layers", "d_model", "num_heads", "num_kv_heads", "d_ff",
                "gated_mlp", "tied_embeddings", "bias", "norm", "positions")


def preset_key(name: str) -> str:
    """The URL key of a published model: ``"GPT-2 small"`` -> ``"gpt2-small"``, ``"Llama 2 7B"`` -> ``"llama2-7b"``."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a model's name (a str), got {type(name).__name__} {name!r}")
    return re.sub(r"(\D)[ -](\d)", r"\1\2", name.lower()).replace(" ", "-")


PRESETS = {preset_key(name): model for name, model in PUBLISHED.items()}


def preset_architecture(key: str) -> dict[str, Any]:
    """The architecture fields of the published model ``key`` (see :data:`PRESETS`), as a config holds them."""
    config = PRESETS[check_choice("model", key, PRESETS)].config
    return {name: getattr(config, name) for name in ARCHITECTURE}


DEFAULTS: dict[str, Any] = {
    "model": "gpt2-small", **preset_architecture("gpt2-small"),
    "seq_len": 1024, "micro_batch": 8, "tokens": 10**10, "gpu": "h100-sxm", "num_gpus": 8, "mfu": 0.4,
    "tf32": False, "precision": "mixed_bf16", "optimizer": "adamw", "stage": "dp", "recompute": "none",
    "flash_attention": True,
}


# The short name of each input in the page's address: calculator.html#model=llama2-7b&gpus=64&zero=zero3.
URL_KEYS = {"model": "model", "vocab_size": "vocab", "context_length": "ctx", "num_layers": "layers",
            "d_model": "d", "num_heads": "heads", "num_kv_heads": "kv", "d_ff": "dff", "gated_mlp": "gated",
            "tied_embeddings": "tied", "bias": "bias", "norm": "norm", "positions": "pos", "seq_len": "seq",
            "micro_batch": "batch", "tokens": "tokens", "gpu": "gpu", "num_gpus": "gpus", "mfu": "mfu",
            "tf32": "tf32", "precision": "prec", "optimizer": "opt", "stage": "zero", "recompute": "recomp",
            "flash_attention": "flash"}


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)  # "2e12", as the page writes large numbers; normalize checks it is whole


def config_from_url(fragment: str) -> dict[str, Any]:
    """The config a page address's fragment describes (``"#model=llama2-7b&gpus=64"``), as the page reads it.

    Booleans are written ``1`` / ``0``, numbers in decimal; an unknown name raises ``ValueError``
    (the page ignores it; a link in the book must not carry one).
    """
    if not isinstance(fragment, str):
        raise TypeError(f"fragment must be a str, got {type(fragment).__name__}")
    names = {short: key for key, short in URL_KEYS.items()}
    config: dict[str, Any] = {}
    for pair in filter(None, fragment.removeprefix("#").split("&")):
        name, _, raw = pair.partition("=")
        if name not in names:
            raise ValueError(f"fragment: unknown input {name!r}; known: {sorted(names)}")
        key = names[name]
        kind = type(DEFAULTS[key])
        value = unquote(raw)
        try:
            config[key] = value in ("1", "true") if kind is bool else _number(value) if kind in (int, float) else value
        except ValueError:  # "could not convert string to float" named neither the input nor the fragment
            raise ValueError(f"fragment: {name}={value!r} is not a number") from None
    return config


def normalize(config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` over :data:`DEFAULTS`, checked; a preset ``model`` sets every architecture field.

    ``model="custom"`` takes the architecture fields from ``config``. Raises ``ValueError`` /
    ``TypeError`` naming the first bad field.
    """
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping, got {type(config).__name__}")
    unknown = sorted(set(config) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"config has unknown keys {unknown}; known: {sorted(DEFAULTS)}")
    c = {**DEFAULTS, **config}
    check_choice("model", c["model"], (*PRESETS, "custom"))
    if c["model"] != "custom":
        c.update(preset_architecture(c["model"]))
    for name in ("vocab_size", "context_length", "num_layers", "d_model", "num_heads", "num_kv_heads", "d_ff",
                 "seq_len", "micro_batch", "num_gpus"):
        check_int(name, c[name], minimum=1, max_bits=60)  # the page computes in floats: 2**1100 is refused
    for name in ("gated_mlp", "tied_embeddings", "bias", "tf32", "flash_attention"):
        check_bool(name, c[name])
    _model(c)  # the architecture's own checks (num_kv_heads divides num_heads, norm, positions, ...)
    if c["positions"] == "learned" and c["seq_len"] > c["context_length"]:
        raise ValueError(f"seq_len must be <= context_length={c['context_length']} with learned positions, "
                         f"got {c['seq_len']}")
    c["tokens"] = check_count("tokens", c["tokens"], minimum=1, max_bits=100)
    if check_positive_real("mfu", c["mfu"]) > 1:
        raise ValueError(f"mfu must be in (0, 1], got {c['mfu']!r}")
    check_choice("gpu", c["gpu"], ACCELERATORS)
    check_choice("precision", c["precision"], PRECISIONS)
    check_choice("optimizer", c["optimizer"], OPTIMIZER_STATES)
    check_choice("stage", c["stage"], STAGES)
    check_choice("recompute", c["recompute"], RECOMPUTE)
    return c


def _model(c: Mapping[str, Any]) -> TransformerConfig:
    """The package's config of the model the calculator config describes."""
    sizes = [c[name] for name in ARCHITECTURE[:7] if name != "num_kv_heads"]
    return TransformerConfig(*sizes, tied_embeddings=c["tied_embeddings"], bias=c["bias"],
                             num_kv_heads=c["num_kv_heads"], gated_mlp=c["gated_mlp"], norm=c["norm"],
                             positions=c["positions"])


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
    logits = logits_bytes(model, batch, seq)
    total = state.params + state.grads + state.optimizer_state + activations + logits
    memory = {"params": state.params, "grads": state.grads, "optimizer_state": state.optimizer_state,
              "activations": activations, "logits": logits, "total": total, "card": card.memory_bytes,
              "fits": total <= card.memory_bytes}

    largest = {}
    for stage in STAGES:  # bytes of state per parameter on one of N_d GPUs: exact as (bytes of N_d params) / N_d
        per_gpu = Fraction(round(zero_memory(gpus, gpus, stage, **recipe).total), gpus)
        largest[stage] = max_trainable_params(card.memory_bytes, per_gpu)

    communication = {"bytes_per_step": step_communication(n, gpus, c["stage"], bytes_per_value=recipe["grad_bytes"]),
                     "tokens_per_step": gpus * batch * seq, **_cluster_time(c, n, peak)}
    return {"parameters": parameters, "flops": flops, "time": time, "memory": memory,
            "largest_model": largest, "communication": communication}


def _cluster_time(c: Mapping[str, Any], n: int, peak: float | None) -> dict[str, Any]:
    """Seconds of a step's collectives on DGX H100 nodes and the tokens per GPU whose compute hides them.

    Chapter 14's model (:mod:`cs336_lec2.distributed.cluster`): DDP (``dp``) all-reduces in 25 MiB
    buckets and overlaps only with the backward pass (4 FLOPs per parameter per token); ZeRO-1/2 also
    reduce gradients during backward (4); ZeRO-3 / FSDP prefetches parameters during forward too (6).
    Compute runs at the dense peak times MFU. ``None`` where the GPUs do not fill whole nodes of 8.
    """
    gpus, stage = c["num_gpus"], c["stage"]
    if gpus > H100_CLUSTER.gpus_per_node and gpus % H100_CLUSTER.gpus_per_node:
        return {"seconds_per_step": None, "breakeven_tokens_per_gpu": None}
    bucket = DDP_BUCKET_BYTES if stage == "dp" else None
    per_value = PRECISIONS[c["precision"]].grad
    seconds = step_seconds(stage, n, gpus, H100_CLUSTER, bytes_per_value=per_value, bucket_bytes=bucket)
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
            "cluster": {**dataclasses.asdict(H100_CLUSTER), "ddp_bucket_bytes": DDP_BUCKET_BYTES},
            "url_keys": URL_KEYS}


def page_data_module() -> str:
    """``data.js``: :func:`page_data` as an ES module (``export default {...}``), as committed beside the page."""
    body = json.dumps(page_data(), indent=1, ensure_ascii=False)
    return ("// Written by `python -m cs336_lec2.calculator` from the package's tables; do not edit by hand\n"
            "// (tests/test_calculator.py fails when this file and the package differ).\n"
            f"export default {body};\n")


def main() -> None:
    """Print ``data.js`` (redirect it to ``book/_static/calculator/data.js``)."""
    print(page_data_module(), end="")


if __name__ == "__main__":
    main()
