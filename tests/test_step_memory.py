"""Tests of cs336_lec2.step_memory: a real step's state per recipe, and CUDA's allocator peak."""

from __future__ import annotations

import pytest
import torch

from cs336_lec2 import step_memory
from cs336_lec2.memory import training_memory
from cs336_lec2.models import Cruncher


@pytest.mark.parametrize("recipe", ["fp32", "mixed_bf16"])
def test_state_after_adamw_step_is_the_estimate_to_the_byte(recipe: str) -> None:
    got = step_memory.state_after_adamw_step(recipe, dim=16, num_layers=3)
    want = training_memory(3 * 16 * 16 + 16, optimizer="adamw", precision=recipe)
    assert got == {"params": want.params, "grads": want.grads, "optimizer_state": want.optimizer_state}
    assert sum(got.values()) == 16 * (3 * 16 * 16 + 16)


def test_state_after_adamw_step_rejects_an_unknown_recipe() -> None:
    with pytest.raises(ValueError, match="recipe"):
        step_memory.state_after_adamw_step("fp16")


def test_cuda_peak_step_refuses_cpu_tensors() -> None:
    model = Cruncher(dim=4, num_layers=1)
    opt = torch.optim.AdamW(model.parameters())
    with pytest.raises(ValueError, match="CUDA"):
        step_memory.cuda_peak_step(model, torch.randn(2, 4), torch.randn(2), opt)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="the allocator's peak is a CUDA statistic")
def test_cuda_peak_step_lies_between_the_floor_and_the_estimate() -> None:
    dev = torch.device("cuda")
    torch.manual_seed(0)
    model = Cruncher(256, 4).to(dev)
    x, y = torch.randn(512, 256, device=dev), torch.randn(512, device=dev)
    got = step_memory.cuda_peak_step(model, x, y, torch.optim.AdamW(model.parameters()))
    assert got.state == got.estimate.total - got.estimate.activations  # measured state = estimated
    assert got.estimate.activations == 4 * (512 * 256 * 5 + 2 * 512)  # B*D*(L+1) + 2B fp32 values
    assert got.floor <= got.peak <= 1.1 * got.estimate.total + 64 * 2**20
