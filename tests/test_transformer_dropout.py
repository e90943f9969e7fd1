"""The Transformer's dropout (cs336_lec2.transformer_model): its 1-byte mask (RMSNorm, RoPE: test_transformer_model)."""

from __future__ import annotations

import pytest
import torch

from cs336_lec2.memory import SavedTensorsRecorder
from cs336_lec2.transformer_model import dropout


def test_dropout_keeps_a_bool_mask_and_scales_the_rest() -> None:
    torch.manual_seed(0)
    x = torch.randn(64, 256, dtype=torch.float64, requires_grad=True)
    with SavedTensorsRecorder() as rec:
        y = dropout(x, 0.25, True)
    # what autograd keeps: one bool mask, 1 byte a value (F.dropout on the CPU keeps 8-byte float64 scales)
    assert [(r.dtype, r.storage_bytes) for r in rec.activations] == [(torch.bool, x.numel())]
    kept = y != 0
    torch.testing.assert_close(y[kept], x[kept] / 0.75)
    assert abs(1 - kept.double().mean().item() - 0.25) < 0.01  # 16,384 draws: sd 0.0034
    y.sum().backward()
    torch.testing.assert_close(x.grad, kept.double() / 0.75)  # the gradient flows through the mask


@pytest.mark.parametrize(("p", "training"), [(0.0, True), (0.5, False)])
def test_dropout_off_returns_the_input_and_keeps_nothing(p: float, training: bool) -> None:
    x = torch.randn(4, 8, requires_grad=True)
    with SavedTensorsRecorder() as rec:
        y = dropout(x, p, training)
    assert y is x and rec.saved == []
