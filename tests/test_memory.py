"""Tests of cs336_lec2.memory: the training-memory estimate and the measurements set beside it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st

from cs336_lec2 import memory
from cs336_lec2.memory import (
    OPTIMIZER_STATES,
    PRECISIONS,
    SavedTensorsRecorder,
    gradient_bytes,
    optimizer_state_bytes,
    parameter_bytes,
    saved_activation_bytes,
    tensor_bytes,
    training_memory,
)
from cs336_lec2.models import Cruncher

counts = st.integers(min_value=0, max_value=10**13)
optimizers = st.sampled_from(sorted(OPTIMIZER_STATES))
precisions = st.sampled_from(sorted(PRECISIONS))


# --- the estimate -----------------------------------------------------------------------------


@given(counts, counts, optimizers, precisions)
def test_total_is_the_sum_of_the_parts(n: int, a: int, opt: str, prec: str) -> None:
    m = training_memory(n, optimizer=opt, precision=prec, activations=a)
    assert m.total == m.params + m.grads + m.optimizer_state + m.activations
    assert m.params + m.grads + m.optimizer_state == m.bytes_per_param * n
    assert (m.num_params, m.optimizer, m.precision) == (n, opt, prec)


@given(counts, counts, counts, optimizers, precisions)
def test_linear_in_num_params_and_activations(n1: int, n2: int, a: int, opt: str, prec: str) -> None:
    def total(n: int, acts: int) -> int:
        return training_memory(n, optimizer=opt, precision=prec, activations=acts).total

    assert total(n1 + n2, 0) == total(n1, 0) + total(n2, 0)
    assert total(n1, a) == total(n1, 0) + total(0, a)
    assert total(0, 0) == 0


@given(counts, counts)
def test_fp32_adamw_is_16_bytes_per_param_plus_4_per_activation(n: int, a: int) -> None:
    m = training_memory(n, optimizer="adamw", precision="fp32", activations=a)
    assert m.total == 16 * n + 4 * a
    assert (m.params, m.grads, m.optimizer_state, m.activations) == (4 * n, 4 * n, 8 * n, 4 * a)


@given(counts, counts, st.sampled_from(["adam", "adamw"]))
def test_mixed_bf16_adam_costs_the_same_per_param_but_half_per_activation(n: int, a: int, opt: str) -> None:
    fp32 = training_memory(n, optimizer=opt, precision="fp32", activations=a)
    mixed = training_memory(n, optimizer=opt, precision="mixed_bf16", activations=a)
    assert mixed.bytes_per_param == fp32.bytes_per_param == 16
    # bf16 weights and grads (2 + 2); fp32 master copy and m, v (4 + 8) counted as optimizer state
    assert (mixed.params, mixed.grads, mixed.optimizer_state) == (2 * n, 2 * n, 12 * n)
    assert mixed.activations * 2 == fp32.activations == 4 * a


@pytest.mark.parametrize(
    ("optimizer", "fp32_bytes", "mixed_bytes"),
    [("sgd", 8, 8), ("sgd_momentum", 12, 12), ("adagrad", 12, 12), ("adam", 16, 16), ("adamw", 16, 16)],
)
def test_bytes_per_param_of_each_optimizer(optimizer: str, fp32_bytes: int, mixed_bytes: int) -> None:
    assert training_memory(1, optimizer=optimizer).bytes_per_param == fp32_bytes
    assert training_memory(1, optimizer=optimizer, precision="mixed_bf16").bytes_per_param == mixed_bytes
    assert training_memory(10, optimizer=optimizer).optimizer_state == 10 * 4 * OPTIMIZER_STATES[optimizer]


def test_lecture_d4_example_estimate() -> None:
    # The lecture: D=4, num_layers=2, B=2 -> params D*D*L + D = 36, activations B*D*L = 16,
    # grads 36, AdaGrad state 36: 124 values, 4 bytes each in fp32 = 496 bytes.
    B, D, L = 2, 4, 2
    m = training_memory(D * D * L + D, optimizer="adagrad", activations=B * D * L)
    assert (m.params, m.activations, m.grads, m.optimizer_state) == (144, 64, 144, 144)
    assert m.total == 496 == 4 * 124


def test_breakdown_is_frozen_and_total_is_not_an_argument() -> None:
    m = training_memory(3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.params = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        memory.MemoryBreakdown(3, "sgd", "fp32", 12, 12, 0, 0, 8, total=1)  # type: ignore[call-arg]


def test_numpy_integers_are_accepted() -> None:
    assert training_memory(np.int64(5), activations=np.int32(2)).total == 16 * 5 + 4 * 2


@pytest.mark.parametrize("name", ["num_params", "activations"])
@pytest.mark.parametrize("bad", [-1, -(10**12), -7e9])
def test_negative_counts_are_rejected(name: str, bad: int) -> None:
    kwargs = {"num_params": 10, "activations": 0, name: bad}
    with pytest.raises(ValueError, match=f"{name} must be a non-negative whole number .*, got .*{bad}"):
        training_memory(kwargs.pop("num_params"), **kwargs)


@pytest.mark.parametrize("name", ["num_params", "activations"])
@pytest.mark.parametrize(("bad", "error"), [(1.5, ValueError), (float("inf"), ValueError), (float("nan"), ValueError),
                                            ("3", TypeError), (None, TypeError), (True, TypeError)])
def test_non_integer_counts_are_rejected(name: str, bad: object, error: type) -> None:
    kwargs: dict[str, object] = {"num_params": 10, "activations": 0, name: bad}
    with pytest.raises(error, match=f"{name} must be a non-negative whole number"):
        training_memory(kwargs.pop("num_params"), **kwargs)  # type: ignore[arg-type]


def test_whole_floats_are_counts_like_in_napkin() -> None:
    """Issue 15 item 6: ``training_memory(7e9)`` is accepted, as ``training_days(7e9, ...)`` is."""
    assert training_memory(7e9) == training_memory(7 * 10**9)
    assert training_memory(7e9, activations=2.0).activations == 8


def test_meta_device_parameters_are_counted_per_storage() -> None:
    """Issue 15 item 5: every meta storage sits at address 0; two same-shape layers are still two."""
    with torch.device("meta"):
        model = torch.nn.Sequential(torch.nn.Linear(10, 10, bias=False), torch.nn.Linear(10, 10, bias=False))
    assert parameter_bytes(model) == 2 * 10 * 10 * 4 == 800
    w = model[0].weight
    assert memory.tensor_bytes([w, w.t(), w[0]]) == 400  # views of one meta storage still count once
    tied = torch.nn.Sequential(model[0], model[0])
    assert parameter_bytes(tied) == 400


@pytest.mark.parametrize("bad", ["lion", "Adam", "", None])
def test_unknown_optimizer_lists_the_valid_ones(bad: object) -> None:
    with pytest.raises(ValueError, match="optimizer must be one of") as info:
        training_memory(10, optimizer=bad)  # type: ignore[arg-type]
    assert all(repr(name) in str(info.value) for name in OPTIMIZER_STATES)
    assert str(info.value).endswith(repr(bad))


@pytest.mark.parametrize("bad", ["bf16", "fp16", "FP32", None])
def test_unknown_precision_lists_the_valid_ones(bad: object) -> None:
    with pytest.raises(ValueError, match=r"precision must be one of \('fp32', 'mixed_bf16', 'mixed_bf16_fp32_grads'\)"):
        training_memory(10, precision=bad)  # type: ignore[arg-type]


# --- measuring bytes --------------------------------------------------------------------------


def test_tensor_bytes_counts_each_storage_once() -> None:
    x = torch.zeros(4, 8)  # 128 bytes
    y = torch.zeros(3, dtype=torch.float64)  # 24 bytes
    assert tensor_bytes([x]) == 128
    assert tensor_bytes([x, x, x.t(), x[0], x.view(-1)]) == 128  # views share x's storage
    assert tensor_bytes([x[0, :1]]) == 128  # a view keeps the whole storage alive
    assert tensor_bytes([x, y, y[1:]]) == 152
    assert tensor_bytes([x.clone()]) == 128 and tensor_bytes([x, x.clone()]) == 256
    assert tensor_bytes(x) == 128  # a single tensor is accepted too
    assert tensor_bytes([]) == 0


def test_tensor_bytes_rejects_non_tensors() -> None:
    with pytest.raises(TypeError, match=r"tensors must (be Iterable\[torch\.Tensor\]|contain only torch\.Tensor)"):
        tensor_bytes([torch.zeros(1), [1.0]])  # type: ignore[list-item]


def _d4_step(optimizer_cls: type[torch.optim.Optimizer], **kwargs: object):
    torch.manual_seed(0)
    model = Cruncher(dim=4, num_layers=2)
    x = torch.randn(2, 4)
    y = torch.tensor([4.0, 5.0])
    opt = optimizer_cls(model.parameters(), **kwargs)
    assert gradient_bytes(model) == 0 and optimizer_state_bytes(opt) == 0
    with SavedTensorsRecorder(exclude=model.parameters()) as rec:
        loss = F.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return model, opt, rec


def test_lecture_d4_example_measured_with_adagrad() -> None:
    from cs336_lec2.optim import AdaGrad

    model, opt, rec = _d4_step(AdaGrad, lr=0.01)
    assert parameter_bytes(model) == 4 * 36
    assert gradient_bytes(model) == 4 * 36
    assert optimizer_state_bytes(opt) == 4 * 36  # one g2 buffer per parameter, no step tensors
    # autograd saves the input of each of the three matmuls (x, h1, h2: 3 * B * D = 24 values; the
    # lecture's B * D * L = 16 counts h1 and h2) and mse_loss's prediction and target (2 + 2).
    assert rec.num_values == 3 * 2 * 4 + 2 + 2
    assert rec.bytes == 4 * rec.num_values == 112


def test_torch_adam_state_counts_its_scalar_step_tensors() -> None:
    model, opt, _ = _d4_step(torch.optim.Adam, lr=0.01)
    num_param_tensors = len(list(model.parameters()))
    # m and v per parameter value, plus one 0-d fp32 `step` tensor per parameter tensor
    assert optimizer_state_bytes(opt) == 2 * 4 * 36 + 4 * num_param_tensors


def test_optimizer_state_ignores_non_tensor_values() -> None:
    p = torch.nn.Parameter(torch.zeros(5))
    opt = torch.optim.SGD([p], lr=0.1)
    opt.state[p] = {"step": 3, "note": "plain values are not tensors", "buf": torch.zeros(5)}
    assert optimizer_state_bytes(opt) == 20


def test_measurement_helpers_reject_wrong_types() -> None:
    with pytest.raises(TypeError, match=r"model must be a torch\.nn\.Module, got Tensor"):
        parameter_bytes(torch.zeros(1))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"model must be a torch\.nn\.Module, got list"):
        gradient_bytes([])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"optimizer must be a torch.optim.Optimizer"):
        optimizer_state_bytes({})  # type: ignore[arg-type]


def test_shared_parameters_count_once() -> None:
    layer = torch.nn.Linear(3, 3, bias=False)
    model = torch.nn.Sequential(layer, layer)
    assert parameter_bytes(model) == 36


# --- what autograd saves ----------------------------------------------------------------------


def test_matmul_saves_both_operands_when_both_need_grad() -> None:
    x = torch.randn(2, 3, requires_grad=True)
    w = torch.randn(3, 5, requires_grad=True)
    with SavedTensorsRecorder() as rec:
        _ = x @ w
    assert sorted(s.shape for s in rec.saved) == [(2, 3), (3, 5)]
    assert rec.bytes == 4 * (6 + 15) and rec.num_values == 21


def test_records_point_at_the_saved_storage_without_showing_it() -> None:
    x = torch.randn(2, 3, requires_grad=True)
    w = torch.randn(3, 5, requires_grad=True)
    with SavedTensorsRecorder() as rec:
        _ = x @ w
    assert {s.storage_ptr for s in rec.saved} == {x.untyped_storage().data_ptr(), w.untyped_storage().data_ptr()}
    assert "storage_ptr" not in repr(rec.saved[0])


def test_excluded_parameters_are_recorded_but_not_counted() -> None:
    x = torch.randn(2, 3, requires_grad=True)
    w = torch.randn(3, 5, requires_grad=True)
    with SavedTensorsRecorder(exclude=[w]) as rec:
        _ = x @ w
    assert sorted((s.shape, s.excluded) for s in rec.saved) == [((2, 3), False), ((3, 5), True)]
    assert rec.bytes == 4 * 6
    assert [s.shape for s in rec.activations] == [(2, 3)]


def test_exclusion_follows_storage_so_views_of_parameters_are_excluded() -> None:
    x = torch.randn(2, 3)
    w = torch.randn(5, 3, requires_grad=True)
    with SavedTensorsRecorder(exclude=w) as rec:
        _ = x @ w.t()
    assert rec.bytes == 4 * 6  # only x; w.t() shares w's storage


def test_relu_saves_its_output_and_a_shared_storage_counts_once() -> None:
    a = torch.randn(4, 3, requires_grad=True)
    w = torch.randn(3, 3, requires_grad=True)
    with SavedTensorsRecorder(exclude=[w]) as rec:
        h = torch.relu(a)
        _ = h @ w
    saved_h = [s for s in rec.saved if not s.excluded]
    assert len(saved_h) == 2  # relu saved h, the matmul saved h again
    assert [s.first_use for s in saved_h] == [True, False]
    assert rec.bytes == 4 * 12 and rec.num_values == 12


def test_ops_without_grad_save_nothing() -> None:
    x = torch.randn(3, 3)
    with SavedTensorsRecorder() as rec:
        _ = torch.relu(x @ x)
    with torch.no_grad(), SavedTensorsRecorder() as rec2:
        _ = torch.relu(torch.randn(3, requires_grad=True))
    assert rec.saved == [] and rec2.saved == [] and rec.bytes == 0


def test_recording_does_not_change_the_gradients() -> None:
    torch.manual_seed(0)
    x = torch.randn(4, 3)
    w = torch.randn(3, 2, requires_grad=True)
    (torch.tanh(x @ w) ** 2).sum().backward()
    expected = w.grad.clone()
    w.grad = None
    with SavedTensorsRecorder(exclude=[w]):
        loss = (torch.tanh(x @ w) ** 2).sum()
    loss.backward()
    assert torch.equal(w.grad, expected)


def test_saved_activation_bytes_runs_fn_with_args_and_kwargs() -> None:
    x = torch.randn(2, 3)
    w = torch.randn(3, 4, requires_grad=True)

    def f(a: torch.Tensor, *, weight: torch.Tensor) -> torch.Tensor:
        return torch.relu(a @ weight)  # saves a (for weight's grad) and relu's (2, 4) output

    assert saved_activation_bytes(f, x, weight=w, exclude=[w]) == 4 * (6 + 8)
    assert saved_activation_bytes(f, x, weight=w) == 4 * (6 + 8)  # w is not needed: x needs no grad


def test_recorder_errors() -> None:
    with pytest.raises(TypeError, match=r"exclude must be Iterable\[torch\.Tensor\] or a torch\.Tensor"):
        SavedTensorsRecorder(exclude=[1])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="fn must be callable, got int"):
        saved_activation_bytes(3)  # type: ignore[arg-type]
    rec = SavedTensorsRecorder()
    with rec, pytest.raises(RuntimeError, match="records one with-block only"):
        rec.__enter__()
    with pytest.raises(RuntimeError, match="records one with-block only"), rec:
        pass


def test_hooks_are_removed_after_the_block() -> None:
    with SavedTensorsRecorder() as rec:
        pass
    x = torch.randn(2, requires_grad=True)
    _ = x.exp()
    assert rec.saved == []


# --- naming what autograd saved, the mixed-precision state, the CUDA peak -----------------------


def test_naming_tensors_names_every_saved_storage_and_removes_its_hooks() -> None:
    torch.manual_seed(0)
    model = Cruncher(dim=4, num_layers=2)
    x, y = torch.randn(2, 4), torch.tensor([4.0, 5.0])
    with SavedTensorsRecorder(exclude=model.parameters()) as rec, memory.naming_tensors(model, x=x, y=y) as names:
        F.mse_loss(model(x), y)
    saved = [names[r.storage_ptr] for r in rec.saved]
    # the matmuls save their inputs (and the weights whose input needs a gradient); the loss its two inputs
    assert saved == ["x", "layers.1.weight", "layers.0(...)", "final.weight", "layers.1(...)", "model(...)", "y"]
    assert not any(m._forward_hooks for m in model.modules())  # hooks removed with the block
    with pytest.raises(TypeError, match="model"), memory.naming_tensors("model"):  # type: ignore[arg-type]
        pass


def test_tensors_in_finds_every_tensor_in_nested_containers() -> None:
    a, b, c = torch.zeros(3), torch.zeros(2, dtype=torch.float64), torch.zeros(5, dtype=torch.int8)
    found = memory.tensors_in({"a": a, "b": [b, (c,)], "step": 7, "name": "x", "none": None})
    assert [t is x for t, x in zip(found, (a, b, c), strict=True)] == [True, True, True]
    assert memory.tensors_in(a) == [a]
    assert memory.tensors_in({"step": 1, "lr": 0.1}) == [] and memory.tensors_in(5) == []


def test_tensors_in_gives_the_bytes_of_an_adamw_state_dict() -> None:
    from cs336_lec2.optim import AdamW

    model = Cruncher(8, 1)
    opt = AdamW(model.parameters(), lr=0.1)
    model(torch.randn(2, 8)).sum().backward()
    opt.step()
    n = sum(p.numel() for p in model.parameters())
    assert tensor_bytes(memory.tensors_in(model.state_dict())) == 4 * n
    assert tensor_bytes(memory.tensors_in(opt.state_dict())) == 8 * n  # two moments
