"""What a training step holds on a GPU besides the state and the activations: the calculator's extra memory lines.

:func:`transient_bytes` is the part of :func:`cs336_lec2.calculator.calculate`'s memory breakdown
that issue 29 item 4 added: the gradient of the logits, the full FSDP unit being computed and the
next one prefetched (ZeRO-3), DDP's gradient buckets, and the CUDA context (:data:`CUDA_CONTEXT_BYTES`),
which the card's memory loses before the first tensor is allocated.
``book/_static/calculator/formulas.js`` repeats it (``F.transient_bytes``; ``tests/test_calculator_node.py``
compares them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .checks import beartype_on_first_call
from .transformer_accounting import ParameterCount

# The CUDA context: the driver's state and the loaded kernels, held from the first CUDA call on and
# invisible to PyTorch's allocator (torch.cuda.memory_reserved does not count it; nvidia-smi does).
# Hugging Face's "Model training anatomy" (huggingface/transformers, docs/source/en/model_memory_anatomy.md)
# measures it: "the kernels alone take up 1.3GB" — 1343 MB (nvidia-smi's MiB) after torch.ones((1, 1)).to("cuda")
# on a V100, "which can take up 1-2GB of memory". One measurement, taken as the line's size; it varies
# with the driver, the CUDA version and the libraries loaded (cuBLAS, cuDNN, NCCL), and NCCL's own
# buffers come on top. Not measured here: no GPU was available.
CUDA_CONTEXT_BYTES = 1343 * 2**20


def largest_fsdp_unit(counts: ParameterCount, num_layers: int) -> int:
    """Parameters of the largest FSDP unit: one unit per block, the embeddings, and the final norm with the head.

    Per-block wrapping as torchtitan's ``apply_fsdp`` does; with a large vocabulary the embedding is
    the largest (Llama 3 8B: the head, 128,256 × 4,096 + 4,096 = 525,340,672, against 218,112,000 for a block).
    """
    norm = counts.norms // (2 * num_layers + 1)
    block = (counts.attention + counts.mlp) // num_layers + 2 * norm
    return max(counts.token_embedding + counts.position_embedding, block, counts.lm_head + norm)


def transient_bytes(c: Mapping[str, Any], counts: Any, recipe: Mapping[str, int], logits: int) -> dict[str, int]:
    """Memory a step holds besides the state and the activations (issue 29 item 4), by line.

    ``logits_grad``: the gradient of the fp32 logits, as large as they are. ``gathered`` (ZeRO-3 /
    FSDP): the full unit being computed and the next one prefetched, in the weights' dtype.
    ``ddp_buckets`` (DDP): the buckets hold a second copy of every gradient unless
    ``gradient_as_bucket_view=True`` (PyTorch's DistributedDataParallel documentation: that option
    saves "the total gradients size"; it is off by default). ``cuda_context``: :data:`CUDA_CONTEXT_BYTES`.
    """
    gathered = 2 * largest_fsdp_unit(counts, c["num_layers"]) * recipe["param_bytes"] if c["stage"] == "zero3" else 0
    buckets = counts.total * recipe["grad_bytes"] if c["stage"] == "dp" else 0
    return {"logits_grad": logits, "gathered": gathered, "ddp_buckets": buckets, "cuda_context": CUDA_CONTEXT_BYTES}


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
