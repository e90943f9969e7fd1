"""Helpers for the executable CS336 lecture 2 book: resource accounting in PyTorch.

**The reader namespace.** A chapter starts with ``from cs336_lec2 import *`` (its editions with
``from cs336_lec2.en import *`` or ``.zh``, which also set the language), as d2l's chapters start with
``from d2l import torch as d2l``: it gives the names in :data:`__all__`, the package's functions that the
chapters call, each defined in the module of its concern. Names load lazily (PEP 562), so
``import cs336_lec2`` itself imports neither torch nor matplotlib, and a module that needs no torch (the
accounting) imports without it.

The modules, one concern each:

- :mod:`~cs336_lec2.floats`, :mod:`~cs336_lec2.tensors`: number formats, storage and strides
- :mod:`~cs336_lec2.flops`, :mod:`~cs336_lec2.timing`: counting FLOPs, timing them, MFU, the measured
  matmul ceiling; :mod:`~cs336_lec2.op_profile`: where a step's time goes, op group by op group
- :mod:`~cs336_lec2.napkin`, :mod:`~cs336_lec2.memory`: back-of-the-envelope (``6·N·D``, bytes per
  parameter) and measured memory (:mod:`~cs336_lec2.step_memory`: over one real step;
  :mod:`~cs336_lec2.memory_timeline`, :mod:`~cs336_lec2.allocator_history`: op by op, predicted beside)
- :mod:`~cs336_lec2.mixed_precision`: what autocast does per op and what it casts; fp8 with a scale
- :mod:`~cs336_lec2.models`, :mod:`~cs336_lec2.optim`, :mod:`~cs336_lec2.data`,
  :mod:`~cs336_lec2.training`: the lecture's toy model, optimizers, data loading and training loop
- :mod:`~cs336_lec2.config`: ``TransformerConfig``, the one description of the Transformer of chapters 13-14
- :mod:`~cs336_lec2.transformer_model`: that Transformer as a ``torch.nn`` model, in one module
- :mod:`~cs336_lec2.transformer_accounting`, :mod:`~cs336_lec2.activations`: accounting for it (parameters
  and FLOPs per token; activation memory by recomputation policy), every count read from the config
- :mod:`~cs336_lec2.catalog`: the published facts, each with its source (released models, token budgets,
  datasheet peaks, cluster links, published runs)
- :mod:`~cs336_lec2.calculator` (with ``calculator_memory``, ``calculator_url``, ``calculator_page``) and
  :mod:`~cs336_lec2.validation`: the book's training calculator and the runs it is held against
- :mod:`~cs336_lec2.hardware` (a subpackage): the peak of a device and dtype, CPU estimates
- :mod:`~cs336_lec2.distributed` (a subpackage): ZeRO / FSDP accounting and NCCL's cluster model (no
  torch); what ranks measure (``measure``), and the launcher and worker that run a real process group
  for chapter 14
- :mod:`~cs336_lec2.device`, :mod:`~cs336_lec2.presets`: which device and problem sizes a chapter uses
- :mod:`~cs336_lec2.bilingual`, :mod:`~cs336_lec2.results`, :mod:`~cs336_lec2.source`: what a chapter
  says (in one language or two), publishes, and shows of the package's own code

:mod:`~cs336_lec2.publish` builds and re-executes the book (the ``cs336-lec2`` command). It imports
from the modules above, never the other way round (``tests/test_project.py`` checks the direction).

**The accounting core needs no torch**: ``config``, ``transformer_accounting``, ``activations``,
``napkin``, ``catalog``, ``distributed`` (with ``cluster`` and ``nccl``) and the calculator import without
it (``tests/test_imports.py`` imports them with torch blocked, and checks that no two modules import
each other, directly or around a cycle).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"


# Every module of the package is type-checked at run time from its annotations: a wrong argument is refused
# where it enters, in one line naming the parameter and what it expected. The named rules (a positive count,
# a probability) are in checks.py. Each module ends with checks.beartype_on_first_call(globals()): a
# function is decorated by beartype when it is first called, so importing the package loads no beartype
# and decorates nothing a chapter does not call (an import hook decorating everything cost each kernel
# ~0.6 s).

# The reader namespace: module -> the names a chapter uses from it. A name new to the chapters goes here,
# under the module that defines it (tests/test_project.py checks that each one exists there).
READER: dict[str, tuple[str, ...]] = {
    "activations": ("activation_bytes_per_layer", "korthikanti_activation_bytes", "logits_bytes",
                    "segment_checkpoint_bytes", "STEP_POLICIES", "training_step_bytes"),
    "allocator_history": ("cuda_timeline", "dump_snapshot"),
    "bilingual": ("fill", "in_zh", "name_zh", "named", "say", "show_figures", "show_table", "tr"),
    "catalog": ("ACCELERATORS", "PUBLISHED", "TOKEN_BUDGETS"),
    "config": ("TransformerConfig",),
    "data": ("get_batch", "open_tokens", "resident_bytes", "write_tokens"),
    "device": ("autocast_dtype", "describe_device"),
    "distributed": ("STAGES", "STRATEGIES", "expected_state_bytes", "ring_bytes",
                    "step_communication", "zero1_partition", "zero_memory"),
    "distributed.launcher": ("launch", "pick_backend", "train_single_process"),
    "floats": ("FORMATS", "FloatFormat", "decompose", "representable_values", "round_to_format",
               "saturating_cast", "spacing", "to_binary_fraction"),
    "flops": ("ImplausibleMFUError", "arithmetic_intensity", "count_elements", "count_flops", "einsum_flops",
              "einsum_sizes", "flop_breakdown", "linear_backward_flops", "linear_forward_flops", "matmul_flops",
              "measured_mfu", "mfu", "roofline"),
    "hardware": ("Peak", "UnknownHardwareError", "cpu_flags", "lookup", "peak_flops",
                 "peak_or_none", "tf32_enabled"),
    "memory": ("SavedTensorsRecorder", "gradient_bytes", "naming_tensors", "optimizer_state_bytes",
               "parameter_bytes", "tensor_bytes", "tensors_in", "training_memory"),
    "memory_timeline": ("CATEGORIES", "predicted_cruncher_timeline", "predicted_timeline", "record_step"),
    "mixed_precision": ("CountCasts", "E2M1_VALUES", "autocast_dtypes", "e2m1_round", "fp8_roundtrip",
                        "matmul_precision", "nvfp4_roundtrip", "typical_error", "unchanged_fraction"),
    "models": ("Cruncher", "Linear", "cruncher_num_parameters", "end_to_end", "num_parameters"),
    "napkin": ("PRECISIONS", "training_flops"),
    "optim": ("AdaGrad", "Adam", "AdamW", "Momentum", "RMSProp", "SGD", "TeachingOptimizer", "fused_adamw_supported",
              "make_optimizer"),
    "presets": ("start",),
    "results": ("publish",),
    "source": ("show_source",),
    "step_memory": ("cuda_peak_step", "state_after_adamw_step"),
    "tensors": ("contiguous_strides", "cuda_block_bytes", "describe_layout", "element_offset",
                "element_offsets", "memory_bytes", "new_tensors", "same_storage", "storage_bytes", "storage_view"),
    "op_profile": ("profile_step",),
    "timing": ("benchmark", "copy_bandwidth", "host_to_device_copy", "read_bandwidth",
               "matmul_ceiling", "ceiling_shapes"),
    "training": ("load_checkpoint", "read_checkpoint", "regression_batch", "save_checkpoint", "set_seed",
                 "train", "train_step"),
    "transformer_accounting": ("approx_parameters", "attention_flop_share", "attention_flops_per_token",
                    "forward_flops_per_token", "kaplan_forward_flops_per_token", "llama_ffn_dim",
                    "matmul_parameters", "parameter_count", "seq_len_for_attention_share",
                    "training_flops_per_token"),
    "transformer_model": ("CausalSelfAttention", "TransformerLM"),
}
# Modules a chapter uses by name (``napkin.xxx``, ``cluster.xxx``), also in the reader namespace.
READER_MODULES: dict[str, str] = {
    "hardware": "hardware", "napkin": "napkin", "presets": "presets", "results": "results",
    "cluster": "distributed.cluster", "nccl": "distributed.nccl", "worker": "distributed.worker",
    "parallelism": "distributed.parallelism",
}
_HOME = {name: module for module, names in READER.items() for name in names}

__all__ = sorted({*_HOME, *READER_MODULES})


def __getattr__(name: str) -> Any:
    """Load a reader-namespace name (or submodule) on first use."""
    if name in _HOME:
        value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    elif name in READER_MODULES:
        value = importlib.import_module(f"{__name__}.{READER_MODULES[name]}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
