"""Tests of cs336_lec2.memory_timeline: the op-by-op recorder of one step, and its prediction."""

from __future__ import annotations

import dataclasses

import pytest
import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

from cs336_lec2.config import Recompute, TransformerConfig
from cs336_lec2.memory import SavedTensorsRecorder, optimizer_state_bytes, parameter_bytes, tensor_bytes
from cs336_lec2.memory_timeline import (
    CATEGORIES,
    Timeline,
    buffer_bytes,
    predicted_cruncher_timeline,
    predicted_timeline,
    record_step,
)
from cs336_lec2.models import Cruncher
from cs336_lec2.optim import AdamW
from cs336_lec2.transformer_model import TransformerLM

SMALL = TransformerConfig(vocab_size=500, context_length=32, num_layers=3, d_model=64, num_heads=4, d_ff=256,
                          bias=True)
LLAMA = TransformerConfig(500, 32, 2, 64, 4, 176, num_kv_heads=2, gated_mlp=True, norm="rmsnorm", positions="rope")


def _step(config: TransformerConfig, recompute: Recompute = "none", micro_batches: int = 1, batch: int = 4,
          warm_up: bool = True) -> tuple[TransformerLM, torch.optim.Optimizer, torch.Tensor, Timeline]:
    torch.manual_seed(0)
    model = TransformerLM.from_config(config)
    model.recompute = recompute
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    rows = torch.randint(0, config.vocab_size, (batch, config.context_length + 1))
    return model, opt, rows, record_step(model, rows, opt, micro_batches=micro_batches, warm_up=warm_up)


@pytest.mark.parametrize(("config", "recompute", "micro_batches"), [
    (SMALL, "none", 1), (SMALL, "selective", 1), (SMALL, "full", 1),
    (SMALL, "none", 2), (SMALL, "selective", 4), (SMALL, "full", 2), (LLAMA, "none", 1), (LLAMA, "full", 2),
    (dataclasses.replace(SMALL, tied_embeddings=True), "full", 1),
])
def test_predicted_peak_is_within_5_percent_of_the_measured_peak(
        config: TransformerConfig, recompute: Recompute, micro_batches: int) -> None:
    *_, measured = _step(config, recompute, micro_batches)
    predicted = predicted_timeline(config, 4, config.context_length, measured, recompute=recompute,
                                   micro_batches=micro_batches)
    assert abs(predicted.peak / measured.peak - 1) < 0.05
    # and in the same phase of the step
    assert predicted.phases[predicted.peak_index] == measured.phases[measured.peak_index]


def test_the_recorder_agrees_with_the_tensors_alive_at_the_end_of_the_forward_pass() -> None:
    # an independent count: what a forward pass saves (saved-tensor hooks), plus the state held by hand
    model, opt, rows, timeline = _step(SMALL)
    end_of_forward = next(i for i, event in timeline.marks if event == "backward") - 1
    with SavedTensorsRecorder() as saved:  # every saved storage, the parameters' and the batch's included
        logits = model(rows[:, :-1])
        loss = F.cross_entropy(logits.flatten(0, 1), rows[:, 1:].flatten()) / 1
    held_tensors = [*model.parameters(), *model.buffers(), rows]
    held = tensor_bytes(held_tensors) + optimizer_state_bytes(opt)
    held_at = {t.untyped_storage().data_ptr() for t in held_tensors}
    saved_not_held = sum(dict((r.storage_ptr, r.storage_bytes) for r in saved.saved
                              if r.storage_ptr not in held_at).values())
    # after the division, the logits and the undivided loss (4 bytes) are still referenced
    alive = tensor_bytes([logits]) + 4 + loss.untyped_storage().nbytes()
    assert timeline.total[end_of_forward] == held + saved_not_held + alive


def test_the_categories_are_the_state_read_off_the_tensors() -> None:
    model, opt, _, timeline = _step(SMALL)
    last = timeline.at(len(timeline.ops) - 1)
    assert last["parameters"] == parameter_bytes(model)
    assert last["buffers"] == tensor_bytes(list(model.buffers())) == buffer_bytes(SMALL)
    assert last["optimizer state"] == optimizer_state_bytes(opt)
    assert last["gradients"] == tensor_bytes([p.grad for p in model.parameters() if p.grad is not None])
    assert list(timeline.bytes) == list(CATEGORIES)


def test_frees_are_seen() -> None:
    *_, timeline = _step(SMALL)
    # the first op of the optimizer (a storage freed between two ops is alive after the first)
    at = timeline.at(next(i for i, event in timeline.marks if event == "optimizer"))
    assert timeline.bytes["saved activations"].max() > 0 and at["saved activations"] == 0
    assert timeline.bytes["logits and loss"].max() > 0 and at["logits and loss"] == 0
    assert timeline.total[-1] < timeline.peak


def test_a_first_step_counts_the_optimizer_state_it_creates() -> None:
    _, opt, _, timeline = _step(SMALL, warm_up=False)
    assert timeline.bytes["optimizer state"][0] == 0
    assert timeline.at(len(timeline.ops) - 1)["optimizer state"] == optimizer_state_bytes(opt) > 0


def test_buffer_bytes_with_rotary_tables() -> None:
    model = TransformerLM.from_config(LLAMA)
    assert buffer_bytes(LLAMA) == tensor_bytes(list(model.buffers()))


def test_accumulation_lowers_the_activations_at_the_peak() -> None:
    *_, one = _step(SMALL)
    *_, four = _step(SMALL, micro_batches=4)
    assert four.bytes["saved activations"].max() < one.bytes["saved activations"].max() / 3
    assert four.at(four.peak_index)["gradients"] > 0 == one.at(one.peak_index)["gradients"]


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda m, o, r: record_step(m, r, o, micro_batches=3), ValueError, "multiple of micro_batches"),
    (lambda m, o, r: record_step(m, r[0], o), ValueError, "rows must be"),
    (lambda m, o, r: record_step(m, r, o, micro_batches=0), ValueError, "micro_batches"),
    (lambda m, o, r: record_step(m, r.tolist(), o), TypeError, "rows must be a torch.Tensor"),
    (lambda m, o, r: record_step(m, r, None), TypeError, "optimizer must be a torch.optim.Optimizer"),  # type: ignore[arg-type]
    (lambda m, o, r: record_step(m, r, o, loss="mse"), TypeError, "loss must be callable or None"),  # type: ignore[arg-type]
])
def test_record_step_rejects(call: object, error: type, match: str) -> None:
    model = TransformerLM.from_config(SMALL)
    with pytest.raises(error, match=match):
        call(model, torch.optim.AdamW(model.parameters()), torch.zeros(4, 33, dtype=torch.long))  # type: ignore[operator]


def test_predicted_timeline_rejects() -> None:
    *_, timeline = _step(dataclasses.replace(SMALL, num_layers=1))
    with pytest.raises(TypeError, match="config must be a TransformerConfig"):
        predicted_timeline({"d_model": 64}, 4, 32, timeline)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="measured must be a Timeline"):
        predicted_timeline(SMALL, 4, 32, [1, 2])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="multiple of micro_batches"):
        predicted_timeline(SMALL, 4, 32, timeline, micro_batches=3)
    with pytest.raises(ValueError, match="recompute"):
        predicted_timeline(SMALL, 4, 32, timeline, recompute="some")


# --- the lecture's deep network (chapter 10): a Cruncher, MSE loss, layers in checkpointed segments ---
class Segments(torch.nn.Module):
    """A Cruncher's layers run in non-reentrant checkpointed segments of ``every`` layers."""

    def __init__(self, net: Cruncher, every: int) -> None:
        super().__init__()
        self.layers, self.final, self.every = net.layers, net.final, every

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i in range(0, len(self.layers), self.every):
            x = checkpoint(torch.nn.Sequential(*self.layers[i:i + self.every]), x, use_reentrant=False)
        return self.final(x).squeeze(-1)


def _mse(out: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    return F.mse_loss(out, rows[:, -1])


def _cruncher_step(dim: int, num_layers: int, batch: int, every: int = 1, micro_batches: int = 1
                   ) -> tuple[torch.nn.Module, Timeline]:
    torch.manual_seed(0)
    net = Cruncher(dim, num_layers)
    model = net if every == 1 else Segments(net, every)
    rows = torch.randn(batch, dim + 1)
    return model, record_step(model, rows, AdamW(model.parameters()), loss=_mse, micro_batches=micro_batches)


@pytest.mark.parametrize(("shape", "every", "micro_batches"), [
    ((64, 4, 128), 1, 1), ((64, 4, 128), 2, 1), ((64, 4, 128), 4, 1), ((64, 4, 128), 1, 4),
    ((64, 4, 128), 2, 2), ((32, 6, 256), 3, 1), ((128, 2, 32), 1, 1), ((64, 1, 256), 1, 2),
])
def test_cruncher_predicted_peak_is_within_5_percent_of_the_measured_peak(
        shape: tuple[int, int, int], every: int, micro_batches: int) -> None:
    dim, num_layers, batch = shape
    _, measured = _cruncher_step(dim, num_layers, batch, every, micro_batches)
    predicted = predicted_cruncher_timeline(dim, num_layers, batch, measured, checkpoint_every=every,
                                            micro_batches=micro_batches)
    assert abs(predicted.peak / measured.peak - 1) < 0.05
    assert predicted.phases[predicted.peak_index] == measured.phases[measured.peak_index]


def test_cruncher_timeline_marks_its_layers_and_reads_its_state() -> None:
    model, timeline = _cruncher_step(64, 4, 128)
    events = [event for _, event in timeline.marks]
    assert events[:6] == ["forward", "block 0", "block 1", "block 2", "block 3", "head"]
    # layer 0's input is the batch, which needs no gradient: no "block 0 done"
    assert [e for e in events if e.endswith("done")] == ["head done", "block 3 done", "block 2 done", "block 1 done"]
    last = timeline.at(len(timeline.ops) - 1)
    assert last["parameters"] == last["gradients"] == parameter_bytes(model) == 4 * (4 * 64 * 64 + 64)
    assert last["optimizer state"] == 2 * last["parameters"]  # the package's AdamW: its step is an int
    end_of_forward = next(i for i, event in timeline.marks if event == "backward") - 1
    assert timeline.at(end_of_forward)["saved activations"] == 4 * 4 * 128 * 64  # the 4 layers' outputs


def test_checkpointed_segments_keep_one_output_each_and_lower_the_peak() -> None:
    *_, plain = _cruncher_step(64, 4, 128)
    *_, halves = _cruncher_step(64, 4, 128, every=2)
    end = next(i for i, event in halves.marks if event == "backward") - 1
    assert halves.at(end)["saved activations"] == 2 * 4 * 128 * 64
    assert halves.peak < plain.peak


def test_predicted_cruncher_timeline_rejects() -> None:
    _, timeline = _cruncher_step(16, 4, 8)
    with pytest.raises(TypeError, match="measured must be a Timeline"):
        predicted_cruncher_timeline(16, 4, 8, [1, 2])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must divide"):
        predicted_cruncher_timeline(16, 4, 8, timeline, checkpoint_every=3)
    with pytest.raises(ValueError, match="must divide"):
        predicted_cruncher_timeline(16, 4, 8, timeline, micro_batches=3)
    with pytest.raises(ValueError, match="num_layers"):
        predicted_cruncher_timeline(16, 0, 8, timeline)
