"""Tests of the lecture's Linear layer and Cruncher model."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch import nn

from cs336_lec2.models import Cruncher, Linear, cruncher_num_parameters, num_parameters


def test_lecture_parameter_count() -> None:
    # The lecture: Cruncher(dim=64, num_layers=2) has 64*64*2 + 64 = 8256 parameters.
    model = Cruncher(dim=64, num_layers=2)
    assert num_parameters(model) == 8256
    assert cruncher_num_parameters(64, 2) == 8256
    names = [name for name, _ in model.named_parameters()]
    assert names == ["layers.0.weight", "layers.1.weight", "final.weight"]


@given(dim=st.integers(1, 24), num_layers=st.integers(0, 4))
def test_parameter_count_formula(dim: int, num_layers: int) -> None:
    model = Cruncher(dim, num_layers)
    assert num_parameters(model) == num_layers * dim * dim + dim == cruncher_num_parameters(dim, num_layers)


@given(batch=st.integers(1, 8), dim=st.integers(1, 16), num_layers=st.integers(0, 3))
def test_cruncher_output_is_product_of_weights(batch: int, dim: int, num_layers: int) -> None:
    torch.manual_seed(0)
    model = Cruncher(dim, num_layers).double()
    x = torch.randn(batch, dim, dtype=torch.float64)
    expected = x
    for layer in model.layers:
        expected = expected @ layer.weight
    expected = (expected @ model.final.weight)[:, 0]
    out = model(x)
    assert out.shape == (batch,)
    torch.testing.assert_close(out, expected)


def test_linear_init_scale_and_forward() -> None:
    torch.manual_seed(0)
    layer = Linear(1024, 512)
    assert layer.weight.shape == (1024, 512)
    assert isinstance(layer.weight, nn.Parameter)
    # randn / sqrt(input_dim): the standard deviation of the weights is 1/sqrt(1024) = 1/32.
    assert math.isclose(layer.weight.std().item(), 1 / 32, rel_tol=0.01)
    x = torch.randn(3, 5, 1024)
    torch.testing.assert_close(layer(x), x @ layer.weight)


def test_same_seed_same_weights_and_matches_lecture_recipe() -> None:
    torch.manual_seed(7)
    a = Linear(6, 3)
    torch.manual_seed(7)
    expected = torch.randn(6, 3) / math.sqrt(6)
    torch.testing.assert_close(a.weight.detach(), expected)


def test_device_and_dtype_arguments() -> None:
    torch.manual_seed(1)
    a = Cruncher(8, 2)
    torch.manual_seed(1)
    b = Cruncher(8, 2, device="cpu", dtype=torch.float64)
    for pa, pb in zip(a.parameters(), b.parameters(), strict=True):
        assert pb.dtype == torch.float64 and pb.device.type == "cpu"
        torch.testing.assert_close(pa.detach().double(), pb.detach())
    assert b(torch.randn(4, 8, dtype=torch.float64)).dtype == torch.float64


def test_backward_reaches_every_parameter() -> None:
    model = Cruncher(4, 3)
    model(torch.randn(2, 4)).sum().backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in model.parameters())


def test_repr_names_sizes() -> None:
    text = repr(Cruncher(4, 1))
    assert "dim=4, num_layers=1" in text and "input_dim=4, output_dim=1" in text


def test_trainable_only() -> None:
    model = Cruncher(4, 1)
    model.final.weight.requires_grad_(False)
    assert num_parameters(model) == 20
    assert num_parameters(model, trainable_only=True) == 16


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"input_dim": 0, "output_dim": 3}, ValueError, r"input_dim must be an int in \[1, 1099511627776\]"),
        ({"input_dim": 3, "output_dim": -1}, ValueError, r"output_dim must be an int in \[1, 1099511627776\]"),
        ({"input_dim": 2.0, "output_dim": 3}, TypeError, "input_dim must be an int"),
        ({"input_dim": True, "output_dim": 3}, TypeError, "input_dim must be an int"),
    ],
)
def test_linear_rejects_bad_sizes(kwargs: dict, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        Linear(**kwargs)


@pytest.mark.parametrize(
    ("dim", "num_layers", "error", "match"),
    [
        (0, 1, ValueError, r"dim must be (a positive int|an int in \[1, )"),
        (4, -1, ValueError, r"num_layers must be (a non-negative int|an int in \[0, )"),
        ("4", 1, TypeError, r"dim must be (a positive int|an int in \[1, )"),
        (4, 1.5, TypeError, r"num_layers must be (a non-negative int|an int in \[0, )"),
    ],
)
def test_cruncher_rejects_bad_sizes(
    dim: object, num_layers: object, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        Cruncher(dim, num_layers)  # type: ignore[arg-type]
    with pytest.raises(error, match=match):
        cruncher_num_parameters(dim, num_layers)  # type: ignore[arg-type]


def test_forward_rejects_wrong_shapes() -> None:
    with pytest.raises(ValueError, match=r"x must have shape \(batch, dim=4\), got \(3, 5\)"):
        Cruncher(4, 1)(torch.randn(3, 5))
    with pytest.raises(ValueError, match=r"got \(4,\)"):
        Cruncher(4, 1)(torch.randn(4))
    with pytest.raises(ValueError, match="last dimension input_dim=4"):
        Linear(4, 2)(torch.randn(2, 3))


def test_num_parameters_rejects_non_module() -> None:
    with pytest.raises(TypeError, match=r"model must be a torch\.nn\.Module, got list"):
        num_parameters([torch.zeros(3)])  # type: ignore[arg-type]


@pytest.mark.parametrize("num_layers", [0, 1, 3])
def test_end_to_end_is_the_vector_the_model_computes_with(num_layers: int) -> None:
    from cs336_lec2.models import end_to_end

    torch.manual_seed(0)
    model = Cruncher(6, num_layers)
    x = torch.randn(5, 6)
    w = end_to_end(model)
    assert w.shape == (6,) and not w.requires_grad
    torch.testing.assert_close(x @ w, model(x).detach())


def test_end_to_end_rejects_other_models() -> None:
    from cs336_lec2.models import end_to_end

    with pytest.raises(TypeError, match="model must be a Cruncher, got Linear"):
        end_to_end(nn.Linear(2, 1))
