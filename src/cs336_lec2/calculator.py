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
nothing else: what an input is (:data:`FIELDS`: kind, limits, choices, short name in the address), the
rules between inputs (:data:`RULES`) and the order of the checks (:data:`CHECKS`) are written with the
tables the page needs (presets, accelerators, precision recipes, optimizers) into
``book/_static/calculator/data.js`` by :func:`page_data` (regenerate: ``python -m cs336_lec2.calculator_page``;
``tests/test_calculator.py`` fails when the committed file differs). ``tests/test_calculator_node.py``
runs data.js + formulas.js + url.js in Node against :func:`calculate` on every preset and 1,000 random
configurations: integers (parameters, FLOPs, bytes) exactly, floats to 1e-9.

A config is a plain mapping (JSON-able, the same keys in Python and JavaScript); :data:`DEFAULTS`
lists them. ``tokens`` is D, ``micro_batch`` the sequences per GPU per step, ``num_gpus`` the
data-parallel size over which ``stage`` (``dp``, ``zero1``, ``zero2``, ``zero3`` = FSDP) shards the state,
``grad_accum`` the micro-batches per optimizer step. The page's address: :mod:`cs336_lec2.calculator_url`.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import re
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, replace
from fractions import Fraction
from typing import Any, Literal

from .activations import activation_bytes_per_layer, embedding_dropout_bytes, logits_bytes, segment_checkpoint_bytes
from .calculator_memory import CUDA_CONTEXT_BYTES, largest_fsdp_unit, transient_bytes  # noqa: F401 (re-exported)
from .catalog import ACCELERATORS, CLUSTERS, DDP_BUCKET_BYTES, DDP_FIRST_BUCKET_BYTES, PUBLISHED, TOKEN_BUDGETS
from .checks import beartype_on_first_call, is_bool
from .config import NORMS, POSITIONS, RECOMPUTE, TransformerConfig
from .distributed import STAGES, step_communication, zero_memory
from .distributed.cluster import breakeven_tokens, step_seconds
from .distributed.cluster import page_table as cluster_table
from .napkin import (
    OPTIMIZER_STATES,
    PRECISIONS,
    SECONDS_PER_DAY,
    bytes_per_param_breakdown,
    max_trainable_params,
    training_days,
    training_flops,
)
from .transformer_accounting import parameter_count, training_flops_per_token

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
    if key not in PRESETS:
        raise ValueError(f"model must be one of {', '.join(PRESETS)}, got {key!r}")
    config = PRESETS[key].config
    return {name: config.dropout > 0 if name == "dropout" else getattr(config, name) for name in ARCHITECTURE}


DEFAULTS: dict[str, Any] = {
    "model": "gpt2-small", **preset_architecture("gpt2-small"),
    "seq_len": 1024, "micro_batch": 8, "grad_accum": 1, "tokens": 10**10, "gpu": "h100-sxm", "num_gpus": 8, "mfu": 0.4,
    "tf32": False, "precision": "mixed_bf16", "optimizer": "adamw", "stage": "dp", "recompute": "none",
    "flash_attention": True, "nvls": True, "reduce_fp32": True,
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




@dataclass(frozen=True)
class Field:
    """One input of the calculator, as the page and its address show it; :data:`FIELDS` lists them in form order.

    ``kind``: ``int`` (a whole number in [1, ``maximum``]; ``optional`` ones may be None), ``tokens``
    (a whole number, given as an int or a float such as ``2e12``), ``real`` (a number in
    [``minimum``, ``maximum``]), ``bool``, or ``choice`` (one of ``options``). ``url`` is its short name
    in the page's address (``#gpus=64``), ``group`` the box of the form that holds it.
    """

    key: str
    url: str
    kind: Literal["int", "tokens", "real", "bool", "choice"]
    group: Literal["model", "training", "hardware", "recipe"]
    maximum: float | None = None
    minimum: float = 1
    optional: bool = False
    options: tuple[str, ...] = ()


def _ints(group: str, pairs: tuple[tuple[str, str], ...]) -> list[Field]:
    """Whole-number fields of ``group`` from (key, url) pairs, each limited by :data:`LIMITS`."""
    return [Field(key, url, "int", group, LIMITS[key]) for key, url in pairs]  # type: ignore[arg-type]


# Every input, in the order the form shows them; ``url`` names it in the page's address (#model=llama2-7b&gpus=64).
FIELDS: dict[str, Field] = {f.key: f for f in (
    Field("model", "model", "choice", "model", options=(*PRESETS, "custom")),
    *_ints("model", (("vocab_size", "vocab"), ("context_length", "ctx"), ("num_layers", "layers"), ("d_model", "d"),
                     ("num_heads", "heads"), ("num_kv_heads", "kv"), ("d_ff", "dff"))),
    Field("head_size", "hs", "int", "model", LIMITS["head_size"], optional=True),  # None: d_model / num_heads
    Field("norm", "norm", "choice", "model", options=NORMS),
    Field("positions", "pos", "choice", "model", options=POSITIONS),
    *(Field(key, url, "bool", "model") for key, url in (("gated_mlp", "gated"), ("tied_embeddings", "tied"),
                                                         ("bias", "bias"), ("dropout", "drop"))),
    *_ints("training", (("seq_len", "seq"), ("micro_batch", "batch"), ("grad_accum", "accum"))),
    Field("tokens", "tokens", "tokens", "training", LIMITS["tokens"]),
    Field("gpu", "gpu", "choice", "hardware", options=tuple(ACCELERATORS)),
    *_ints("hardware", (("num_gpus", "gpus"),)),
    Field("mfu", "mfu", "real", "hardware", 1, minimum=MFU_MIN),
    Field("tf32", "tf32", "bool", "hardware"),
    Field("nvls", "nvls", "bool", "hardware"),  # NVLink SHARP (NVLS) all-reduces on the node's NVSwitch
    Field("precision", "prec", "choice", "recipe", options=tuple(PRECISIONS)),
    Field("optimizer", "opt", "choice", "recipe", options=tuple(OPTIMIZER_STATES)),
    Field("stage", "zero", "choice", "recipe", options=tuple(STAGES)),
    Field("recompute", "recomp", "choice", "recipe", options=tuple(RECOMPUTE)),
    Field("flash_attention", "flash", "bool", "recipe"),
    Field("reduce_fp32", "rfp32", "bool", "recipe"),  # gradients reduced in fp32 (autocast DDP, FSDP2, Megatron)
)}
URL_KEYS = {key: f.url for key, f in FIELDS.items()}  # the short name of each input in the page's address


@dataclass(frozen=True)
class Rule:
    """A rule between inputs: ``left`` must stand in ``relation`` to ``right`` whenever every ``when`` holds.

    ``left`` and ``right`` are input keys, numbers, or the derived quantities of :func:`_quantity`
    (``head_dim``, ``hfu``). A broken rule is reported under ``field`` with the error ``code`` (the
    page words it per language) and ``params`` (the names its message fills in, each an operand).
    """

    code: str
    field: str
    relation: Literal["divides", "multiple_of", "even", "at_most"]
    left: str
    right: str | int = 0
    when: tuple[tuple[str, Any], ...] = ()
    params: tuple[tuple[str, str], ...] = ()
    message: str = ""  # Python's error, formatted with the params, ``value`` (left's) and ``field``


RULES: dict[str, Rule] = {r.code: r for r in (
    Rule("kv", "num_kv_heads", "divides", "num_kv_heads", "num_heads", params=(("heads", "num_heads"),),
         message="num_kv_heads must divide num_heads={heads}, got {value}"),
    Rule("heads", "d_model", "multiple_of", "d_model", "num_heads", when=(("head_size", None),),
         params=(("heads", "num_heads"),),
         message="d_model must be a multiple of num_heads={heads} (or give head_size), got {value}"),
    Rule("rope", "positions", "even", "head_dim", when=(("positions", "rope"),),
         message="positions='rope' needs an even head size (head_size, or d_model/num_heads), got {value}"),
    Rule("context", "seq_len", "at_most", "seq_len", "context_length", when=(("positions", "learned"),),
         params=(("ctx", "context_length"),),
         message="seq_len must be <= context_length={ctx} with learned positions, got {value}"),
    Rule("hfu", "mfu", "at_most", "hfu", 1, params=(("hfu", "hfu"),),
         message="mfu with this recompute means the GPUs run {hfu:.3f} of their peak (HFU above 1)"),
)}
# The order normalize checks in (a field key, or a rule's code): the first failure names the bad field, and
# the page reads an address by dropping bad fields one at a time in this order (calculator_url.read_url).
CHECKS = ("vocab_size", "context_length", "num_layers", "d_model", "num_heads", "num_kv_heads", "d_ff", "seq_len",
          "micro_batch", "num_gpus", "grad_accum", "head_size", "gated_mlp", "tied_embeddings", "bias", "tf32",
          "nvls", "reduce_fp32", "flash_attention", "dropout", "kv", "heads", "norm", "positions", "rope", "context",
          "tokens", "gpu", "precision", "optimizer", "stage", "recompute", "mfu", "hfu")
# The sizes the rules tie together: when a default breaks a rule with the sizes an address gives, the
# page drops them all and keeps the rest (calculator_url.read_url).
LINKED = (*ARCHITECTURE, "seq_len")
# How the address writes each kind of value (calculator_url): regular expressions both Python and
# JavaScript read the same way, matched against the whole value.
URL_GRAMMAR: dict[str, Any] = {
    "int": r"[0-9]{1,15}",  # decimal digits only: 0x40, 1e3, 1.5, -8 and "" are errors
    "tokens": r"([0-9]{1,20})(?:\.([0-9]{1,20}))?(?:[eE]([0-9]{1,2}))?",  # 2e12, 1.5e13; whole
    "real": r"[0-9]{0,15}\.?[0-9]{1,20}|[0-9]{1,15}\.",  # 0.4, .5, 1; no exponent
    "booleans": {"1": True, "true": True, "0": False, "false": False},
}


@contextlib.contextmanager
def _field(name: str) -> Iterator[None]:
    """Tag a ``ValueError`` / ``TypeError`` raised inside with ``.field = name`` (the page lists bad fields)."""
    try:
        yield
    except (ValueError, TypeError) as err:
        err.field = name  # type: ignore[union-attr]  # an attribute the page reads
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
        _check_value(FIELDS["model"], config.get("model", DEFAULTS["model"]))
    c = {**DEFAULTS, **preset_defaults(config.get("model", DEFAULTS["model"])), **config}
    if c["model"] != "custom":
        c.update(preset_architecture(c["model"]))
    for step in CHECKS:
        if step in RULES:
            _check_rule(RULES[step], c)
        else:
            with _field(step):
                c[step] = _check_value(FIELDS[step], c[step])
    return c


def _is_number(value: object, kind: str) -> bool:
    """An int where ``kind`` is "int", else any real number (numpy's too)."""
    return isinstance(value, numbers.Integral if kind == "int" else numbers.Real)


def _check_value(field: Field, value: Any) -> Any:
    """``value`` as the input ``field`` takes it (tokens as an int), or the error naming the field."""
    name, kind = field.key, field.kind
    if kind == "choice":
        if not isinstance(value, str) or value not in field.options:
            raise ValueError(f"{name} must be one of {field.options}, got {value!r}")
        return value
    if kind == "bool":
        if not is_bool(value):
            raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
        return value
    if value is None and field.optional:
        return None
    if is_bool(value) or not _is_number(value, kind):
        expected = "an int" if kind == "int" else "a number"
        raise TypeError(f"{name} must be {expected}, got {type(value).__name__} {value!r}")
    if kind == "tokens" and not isinstance(value, numbers.Integral) and not (
            math.isfinite(value) and value == int(value)):
        raise ValueError(f"tokens must be a whole number, got {value!r}")
    if not field.minimum <= value <= field.maximum:  # NaN fails too
        raise ValueError(f"{name} must be in [{field.minimum}, {field.maximum}], got {value!r}")
    return int(value) if kind == "tokens" else value


def _quantity(c: Mapping[str, Any], name: str | int) -> Any:
    """An operand of a :class:`Rule`: a number, an input's value, or a derived quantity (head_dim, hfu)."""
    if not isinstance(name, str):
        return name
    if name == "head_dim":
        return c["head_size"] or c["d_model"] // c["num_heads"]
    if name == "hfu":  # MFU counts model FLOPs; recomputation makes the GPUs run more
        model = _model(c)
        return c["mfu"] * training_flops_per_token(model, c["seq_len"], recompute=c["recompute"]) / (
            training_flops_per_token(model, c["seq_len"]))
    return c[name]


def _check_rule(rule: Rule, c: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` tagged with ``rule.field`` when ``rule`` applies to ``c`` and does not hold."""
    if any(c[key] != value for key, value in rule.when):
        return
    with _field(rule.field):
        left, right = _quantity(c, rule.left), _quantity(c, rule.right)
        holds = {"divides": lambda: right % left == 0, "multiple_of": lambda: left % right == 0,
                 "even": lambda: left % 2 == 0, "at_most": lambda: left <= right}[rule.relation]()
        if not holds:
            params = {name: _quantity(c, operand) for name, operand in rule.params}
            raise ValueError(rule.message.format(value=left, **params))


def _model(c: Mapping[str, Any]) -> TransformerConfig:
    """The package's config of the model the calculator config describes."""
    return TransformerConfig(**{name: c[name] for name in ARCHITECTURE if name != "dropout"},
                             dropout=DROPOUT if c["dropout"] else 0.0)


def matmul_dtype(config: Mapping[str, Any]) -> str:
    """The peak-table key whose dense peak applies: the recipe's matmul dtype (fp32 as TF32 when ``tf32``)."""
    if not isinstance(config, Mapping) or not {"precision", "gpu", "tf32"} <= set(config):
        raise ValueError(f"config must be a mapping with precision, gpu and tf32 (see normalize), got {config!r}")
    if config["precision"] not in MATMUL_DTYPE:
        raise ValueError(f"precision must be one of {', '.join(MATMUL_DTYPE)}, got {config['precision']!r}")
    key = MATMUL_DTYPE[config["precision"]]
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
        largest[stage] = max_trainable_params(card.memory_bytes, float(per_gpu))  # as it reads any number

    widths = {"bytes_per_value": recipe["param_bytes"], "reduce_bytes": reduce_width(c)}  # gathers, reductions
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


def reduce_width(c: Mapping[str, Any]) -> int:
    """Bytes per value a gradient reduction moves: 4 with ``reduce_fp32``, else the recipe's gradient width."""
    return 4 if c["reduce_fp32"] else PRECISIONS[c["precision"]].grad


def _cluster_time(c: Mapping[str, Any], n: int, peak: float | None) -> dict[str, Any]:
    """Seconds of a step's collectives on the card's DGX nodes and the tokens per GPU whose compute hides them.

    Chapter 14's model (:mod:`cs336_lec2.distributed.cluster`, NCCL's fastest algorithm per call): DDP
    (``dp``) all-reduces 1 MiB, then 25 MiB buckets during the backward pass only (4 FLOPs per parameter
    per token); ZeRO-1/2 too (4); ZeRO-3 / FSDP, one call per unit of a per-block wrapping (``L + 2``),
    prefetches parameters during forward too (6). Gathers move the weights' width; reductions move
    fp32 when ``reduce_fp32`` (autocast + DDP all-reduces fp32 gradients, FSDP2's ``reduce_dtype``,
    Megatron-Core's fp32 all-reduce for bf16), else the gradients' width. ``nvls`` off: NCCL without
    NVLink SHARP (``NCCL_NVLS_ENABLE=0``), rings and trees only.
    Compute runs at the dense peak times MFU. ``None`` where the card has no node in
    :data:`~cs336_lec2.distributed.cluster.CLUSTERS` or the GPUs do not fill whole nodes of 8.
    """
    gpus, stage = c["num_gpus"], c["stage"]
    _, cluster = CLUSTERS.get(c["gpu"], (None, None))
    if cluster is None or (gpus > cluster.gpus_per_node and gpus % cluster.gpus_per_node):
        return {"seconds_per_step": None, "breakeven_tokens_per_gpu": None}
    bucket, first = (DDP_BUCKET_BYTES, DDP_FIRST_BUCKET_BYTES) if stage == "dp" else (None, None)
    p = PRECISIONS[c["precision"]]  # gathers move the weights' width, reductions fp32 or the gradients'
    if not c["nvls"]:
        cluster = replace(cluster, nvls=0.0)
    seconds = step_seconds(stage, n, gpus, cluster, bytes_per_value=p.param, reduce_bytes=reduce_width(c),
                           bucket_bytes=bucket, first_bucket_bytes=first, units=c["num_layers"] + 2)
    hide = 6 if stage == "zero3" else 4
    even = None if peak is None else breakeven_tokens(seconds, n, peak * c["mfu"], flops_per_param=hide)
    return {"seconds_per_step": seconds, "breakeven_tokens_per_gpu": even}


def page_data() -> dict[str, Any]:
    """The tables the page reads, from the package: presets, accelerators, recipes, optimizers, stages, defaults."""
    presets = {key: {"name": m.name, "reported": m.reported_params, "source": m.source, **preset_architecture(key),
                     "sets": preset_defaults(key)} for key, m in PRESETS.items()}
    cards = {key: {"name": a.name, "memory_bytes": a.memory_bytes, "peak_flops": dict(a.peak_flops),
                   "source": a.source} for key, a in ACCELERATORS.items()}
    precisions = {key: {"param": p.param, "grad": p.grad, "master": p.master, "state": p.state,
                        "activation": p.activation} for key, p in PRECISIONS.items()}
    return {"schema": page_schema(), "presets": presets, "accelerators": cards, "precisions": precisions,
            "optimizer_states": dict(OPTIMIZER_STATES), "stages": list(STAGES), "recompute": list(RECOMPUTE),
            "norms": list(NORMS), "positions": list(POSITIONS),
            "matmul_dtype": dict(MATMUL_DTYPE), "seconds_per_day": SECONDS_PER_DAY, "defaults": DEFAULTS,
            **cluster_table(),
            "token_budgets": TOKEN_BUDGETS,
            "cuda_context_bytes": CUDA_CONTEXT_BYTES}


def page_schema() -> dict[str, Any]:
    """The inputs for the page's JavaScript: :data:`FIELDS`, :data:`RULES`, :data:`CHECKS` and the address's grammar.

    The page builds its form, checks a configuration and reads its address from this alone: formulas.js
    and url.js hold the arithmetic and no list of inputs, limits or rules of their own.
    """
    fields = [{**asdict(f), "options": list(f.options)} for f in FIELDS.values()]
    rules = {code: {"field": r.field, "relation": r.relation, "left": r.left, "right": r.right,
                    "when": dict(r.when), "params": dict(r.params)} for code, r in RULES.items()}
    return {"fields": fields, "rules": rules, "checks": list(CHECKS), "architecture": list(ARCHITECTURE),
            "linked": list(LINKED), "url": URL_GRAMMAR}


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
