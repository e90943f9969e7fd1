"""Memory over one real training step: the state a recipe holds, and CUDA's allocator peak.

:mod:`~cs336_lec2.memory` estimates and measures the parts; this module runs whole steps and reads
them off. :func:`state_after_adamw_step` compares the fp32 and mixed-bf16 recipes byte for byte after
one AdamW step; :func:`cuda_peak_step` sets ``torch.cuda.max_memory_allocated`` over a step beside
the estimate and the floor of what must coexist at the end of the forward pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

import torch
import torch.nn.functional as F
from torch import nn

from .checks import Count, beartype_on_first_call
from .memory import (
    MemoryBreakdown,
    SavedTensorsRecorder,
    gradient_bytes,
    optimizer_state_bytes,
    parameter_bytes,
    tensor_bytes,
    training_memory,
)
from .models import Cruncher
from .napkin import OptimizerName
from .optim import AdamW

Recipe = Literal["fp32", "mixed_bf16"]
RECIPES: tuple[Recipe, ...] = get_args(Recipe)


def state_after_adamw_step(recipe: Recipe, dim: int = 64, num_layers: int = 2, seed: Count = 0) -> dict[str, int]:
    """Bytes of the training state held after one AdamW step of ``Cruncher(dim, num_layers)``, read off the tensors.

    ``"fp32"`` is the lecture's recipe. ``"mixed_bf16"`` runs the forward and backward passes on a bf16
    model while AdamW updates fp32 master weights and copies them back; the fp32 copy of a gradient
    exists only during the update, so it is not part of the state that stays in memory. Returns
    ``{"params", "grads", "optimizer_state"}`` in bytes (the master copy counted as optimizer state,
    as :func:`training_memory` and the ZeRO paper count it).
    """
    gen = torch.Generator().manual_seed(int(seed))
    xs, ys = torch.randn(8, dim, generator=gen), torch.randn(8, generator=gen)
    torch.manual_seed(seed)
    if recipe == "fp32":
        model = Cruncher(dim, num_layers)
        opt = AdamW(model.parameters(), lr=1e-3)
        F.mse_loss(model(xs), ys).backward()
        opt.step()
        master_bytes = 0
    else:
        model = Cruncher(dim, num_layers, dtype=torch.bfloat16)
        master = [p.detach().float().requires_grad_() for p in model.parameters()]
        opt = AdamW(master, lr=1e-3)
        F.mse_loss(model(xs.bfloat16()).float(), ys).backward()
        with torch.no_grad():
            for m, p in zip(master, model.parameters(), strict=True):
                m.grad = None if p.grad is None else p.grad.float()  # a transient fp32 copy for the update ...
            opt.step()
            for m, p in zip(master, model.parameters(), strict=True):
                m.grad = None  # ... dropped right after it
                p.copy_(m)  # the bf16 weights the next forward pass uses
        master_bytes = tensor_bytes(master)
    return {"params": parameter_bytes(model), "grads": gradient_bytes(model),
            "optimizer_state": optimizer_state_bytes(opt) + master_bytes}


@dataclass(frozen=True)
class PeakStep:
    """One training step measured by CUDA's caching allocator, beside the estimate (bytes)."""

    peak: int  # torch.cuda.max_memory_allocated during the step (from a reset peak)
    estimate: MemoryBreakdown  # training_memory with the activations autograd saved
    state: int  # parameters + gradients + optimizer state, read off the tensors
    floor: int  # parameters + optimizer state + activations: all alive at the end of the forward pass


def cuda_peak_step(model: nn.Module, x: torch.Tensor, y: torch.Tensor, optimizer: torch.optim.Optimizer,
                   *, optimizer_name: OptimizerName = "adamw") -> PeakStep:
    """Measure the allocator's peak over one fp32 step (MSE loss) of ``model`` on CUDA tensors.

    A first step warms up (the optimizer creates its state there); the second is measured from a
    reset peak, with a :class:`SavedTensorsRecorder` around its forward pass to count the activations.
    The peak need not reach :attr:`PeakStep.estimate`'s total (gradients are created while
    activations are freed), but it cannot fall below :attr:`PeakStep.floor`.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if not (x.is_cuda and y.is_cuda and all(p.is_cuda for p in model.parameters())):
        raise ValueError("cuda_peak_step measures CUDA's allocator: put the model, x and y on a CUDA device")
    device = x.device

    def step() -> SavedTensorsRecorder:
        optimizer.zero_grad(set_to_none=True)
        with SavedTensorsRecorder(exclude=model.parameters()) as rec:
            loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        return rec

    step()  # warm-up: the optimizer creates its state here
    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    rec = step()
    torch.cuda.synchronize(device)
    peak = torch.cuda.max_memory_allocated(device)
    n = sum(p.numel() for p in model.parameters())
    estimate = training_memory(n, optimizer=optimizer_name, precision="fp32", activations=rec.num_values)
    params, state = parameter_bytes(model), optimizer_state_bytes(optimizer)
    return PeakStep(peak=peak, estimate=estimate, state=params + gradient_bytes(model) + state,
                    floor=params + state + estimate.activations)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
