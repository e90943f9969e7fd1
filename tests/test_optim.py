"""The teaching optimizers match torch.optim step for step, keep the documented state, reject bad input."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from cs336_lec2.memory import optimizer_state_bytes
from cs336_lec2.models import Cruncher, num_parameters
from cs336_lec2.optim import (
    OPTIMIZERS,
    SGD,
    AdaGrad,
    Adam,
    AdamW,
    Momentum,
    RMSProp,
    TeachingOptimizer,
    make_optimizer,
)

SHAPES = [(), (3,), (4, 5), (2, 3, 4)]
STEPS = 7


def _params(seed: int = 0) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(shape, generator=gen, dtype=torch.float64).requires_grad_() for shape in SHAPES]


def _loss(params: list[torch.Tensor], step: int) -> torch.Tensor:
    """A non-quadratic loss whose gradients change with the parameters and with the step."""
    gen = torch.Generator().manual_seed(1000 + step)
    total = torch.zeros((), dtype=torch.float64)
    for p in params:
        target = torch.randn(p.shape, generator=gen, dtype=torch.float64)
        total = total + ((p - target) ** 2).sum() + torch.sin(3 * p).sum()
    return total


def _run_side_by_side(
    ours: Callable[[list[torch.Tensor]], torch.optim.Optimizer],
    reference: Callable[[list[torch.Tensor]], torch.optim.Optimizer],
) -> tuple[torch.optim.Optimizer, list[torch.Tensor]]:
    """Step both optimizers on identical parameters; assert equal parameters after every step."""
    a, b = _params(), _params()
    opt_a, opt_b = ours(a), reference(b)
    for step in range(STEPS):
        for params, opt in ((a, opt_a), (b, opt_b)):
            opt.zero_grad(set_to_none=True)
            _loss(params, step).backward()
            opt.step()
        for pa, pb in zip(a, b, strict=True):
            torch.testing.assert_close(pa, pb, msg=lambda m, step=step: f"step {step}: {m}")
    return opt_a, a


CASES: list[tuple[str, Callable[..., Any], Callable[..., Any], dict[str, Any], dict[str, Any]]] = [
    ("sgd", SGD, torch.optim.SGD, {"lr": 0.05}, {}),
    ("sgd+wd", SGD, torch.optim.SGD, {"lr": 0.05, "weight_decay": 0.1}, {}),
    ("momentum", Momentum, torch.optim.SGD, {"lr": 0.02, "momentum": 0.9}, {}),
    ("momentum+wd", Momentum, torch.optim.SGD, {"lr": 0.02, "momentum": 0.5, "weight_decay": 0.2}, {}),
    ("adagrad", AdaGrad, torch.optim.Adagrad, {"lr": 0.1, "eps": 1e-10}, {"eps_inside_sqrt": False}),
    (
        "adagrad+wd",
        AdaGrad,
        torch.optim.Adagrad,
        {"lr": 0.1, "eps": 1e-3, "weight_decay": 0.05},
        {"eps_inside_sqrt": False},
    ),
    ("rmsprop", RMSProp, torch.optim.RMSprop, {"lr": 0.01, "alpha": 0.9, "eps": 1e-6}, {}),
    ("rmsprop+wd", RMSProp, torch.optim.RMSprop, {"lr": 0.01, "weight_decay": 0.1}, {}),
    ("adam", Adam, torch.optim.Adam, {"lr": 0.05, "betas": (0.8, 0.95), "eps": 1e-6}, {}),
    ("adam+wd", Adam, torch.optim.Adam, {"lr": 0.05, "weight_decay": 0.1}, {}),
    ("adamw", AdamW, torch.optim.AdamW, {"lr": 0.05, "betas": (0.9, 0.99), "weight_decay": 0.1}, {}),
    ("adamw-defaults", AdamW, torch.optim.AdamW, {}, {}),
    ("adam-defaults", Adam, torch.optim.Adam, {}, {}),
]


@pytest.mark.parametrize(("name", "ours", "theirs", "hyper", "extra"), CASES, ids=[c[0] for c in CASES])
def test_matches_torch_step_for_step(
    name: str, ours: Callable[..., Any], theirs: Callable[..., Any], hyper: dict, extra: dict
) -> None:
    _run_side_by_side(lambda p: ours(p, **hyper, **extra), lambda p: theirs(p, **hyper, foreach=False))


@settings(max_examples=15)
@given(
    lr=st.floats(1e-4, 0.5),
    beta1=st.floats(0.0, 0.99),
    beta2=st.floats(0.5, 0.9999),
    weight_decay=st.floats(0.0, 0.5),
)
def test_adamw_matches_torch_for_any_hyper_parameters(
    lr: float, beta1: float, beta2: float, weight_decay: float
) -> None:
    hyper = {"lr": lr, "betas": (beta1, beta2), "weight_decay": weight_decay}
    _run_side_by_side(lambda p: AdamW(p, **hyper), lambda p: torch.optim.AdamW(p, **hyper, foreach=False))


def _lecture_adagrad(params: list[torch.Tensor], g2s: list[torch.Tensor], lr: float) -> None:
    """The lecture's AdaGrad step, transcribed: g2 += g**2; p -= lr * g / sqrt(g2 + 1e-5)."""
    with torch.no_grad():
        for p, g2 in zip(params, g2s, strict=True):
            g2 += torch.square(p.grad)
            p -= lr * p.grad / torch.sqrt(g2 + 1e-5)


def test_adagrad_default_is_the_lecture_update() -> None:
    a, b = _params(), _params()
    opt = AdaGrad(a, lr=0.1)
    g2s = [torch.zeros_like(p) for p in b]
    for step in range(STEPS):
        for params in (a, b):
            for p in params:
                p.grad = None
            _loss(params, step).backward()
        opt.step()
        _lecture_adagrad(b, g2s, lr=0.1)
        for pa, pb, g2 in zip(a, b, g2s, strict=True):
            torch.testing.assert_close(pa, pb)
            torch.testing.assert_close(opt.state[pa]["g2"], g2)


def test_adagrad_modes_differ_where_eps_matters() -> None:
    # With a tiny gradient the two conventions disagree: sqrt(g2 + eps) vs sqrt(g2) + eps.
    results = []
    for inside in (True, False):
        p = torch.tensor([0.0], dtype=torch.float64, requires_grad=True)
        p.grad = torch.tensor([1e-3], dtype=torch.float64)
        AdaGrad([p], lr=1.0, eps=1e-5, eps_inside_sqrt=inside).step()
        results.append(p.item())
    assert math.isclose(results[0], -1e-3 / math.sqrt(1e-6 + 1e-5))
    assert math.isclose(results[1], -1e-3 / (1e-3 + 1e-5))
    assert abs(results[0] - results[1]) > 0.5


EXPECTED_STATE = {
    SGD: set(),
    Momentum: {"momentum_buffer"},
    AdaGrad: {"g2"},
    RMSProp: {"square_avg"},
    Adam: {"exp_avg", "exp_avg_sq", "step"},
    AdamW: {"exp_avg", "exp_avg_sq", "step"},
}


@pytest.mark.parametrize("cls", list(EXPECTED_STATE), ids=lambda c: c.__name__)
def test_documented_state_names_shapes_and_bytes(cls: type[TeachingOptimizer]) -> None:
    torch.manual_seed(0)
    model = Cruncher(dim=4, num_layers=2)
    opt = cls(model.parameters(), lr=0.01)
    assert optimizer_state_bytes(opt) == 0  # state appears on the first step
    model(torch.randn(3, 4)).pow(2).mean().backward()
    opt.step()
    tensors = 0
    for p in model.parameters():
        state = opt.state[p]
        assert set(state) == EXPECTED_STATE[cls]
        for key, value in state.items():
            if key == "step":
                assert value == 1 and isinstance(value, int)
            else:
                assert value.shape == p.shape and value.dtype == p.dtype
                tensors += 1
    # Cruncher(4, 2): 2 * 16 + 4 = 36 parameters, 4 bytes each in fp32, per state tensor.
    assert optimizer_state_bytes(opt) == tensors // 3 * num_parameters(model) * 4
    assert optimizer_state_bytes(opt) == {SGD: 0, Momentum: 144, AdaGrad: 144, RMSProp: 144}.get(cls, 288)


def test_parameters_without_gradient_are_skipped() -> None:
    a, b = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    opt = Adam([a, b], lr=0.1)
    a.grad = torch.ones(2)
    opt.step()
    assert torch.equal(b, torch.ones(2)) and b not in opt.state
    assert not torch.equal(a, torch.ones(2)) and opt.state[a]["step"] == 1


@pytest.mark.parametrize("lr", [0.5, 0.1, 0.01])
def test_adamw_decay_is_multiplied_by_lr_like_torch(lr: float) -> None:
    # A zero gradient on a fresh state makes the Adam part exactly 0, leaving only the decay p *= 1 - lr * wd.
    ours, theirs = torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    opt_ours, opt_theirs = AdamW([ours], lr=lr, weight_decay=0.2), torch.optim.AdamW([theirs], lr=lr, weight_decay=0.2)
    for p, opt in ((ours, opt_ours), (theirs, opt_theirs)):
        p.grad = torch.zeros(3)
        opt.step()
    expected = torch.full((3,), 1 - lr * 0.2)
    torch.testing.assert_close(ours.detach(), expected)
    torch.testing.assert_close(theirs.detach(), expected)


def test_zero_gradients_still_move_a_parameter_with_state_but_none_does_not() -> None:
    p = torch.ones(2, requires_grad=True)
    opt = Adam([p], lr=0.01)
    p.grad = torch.full((2,), 3.0)
    opt.step()
    after_first = p.detach().clone()
    p.grad = torch.zeros(2)
    opt.step()  # m and v are not zero: Adam keeps moving, by lr * (b1 / (1 + b1)) / sqrt(b2 / (1 + b2))
    drift = (after_first - p.detach()).abs()
    expected = 0.01 * (0.9 / 1.9) / math.sqrt(0.999 / 1.999)
    torch.testing.assert_close(drift, torch.full((2,), expected), rtol=1e-3, atol=0)
    p.grad = None
    before_none = p.detach().clone()
    opt.step()
    assert torch.equal(p.detach(), before_none)


def test_closure_is_evaluated_and_returned() -> None:
    p = torch.tensor([2.0], requires_grad=True)
    opt = SGD([p], lr=0.25)

    def closure() -> torch.Tensor:
        opt.zero_grad()
        loss = (p**2).sum()
        loss.backward()
        return loss

    assert opt.step(closure).item() == 4.0
    assert p.item() == 2.0 - 0.25 * 4.0


def test_param_groups_keep_their_own_learning_rates() -> None:
    a, b = torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
    opt = SGD([{"params": [a]}, {"params": [b], "lr": 1.0}], lr=0.1)
    a.grad, b.grad = torch.ones(1), torch.ones(1)
    opt.step()
    assert math.isclose(a.item(), -0.1, rel_tol=1e-6) and b.item() == -1.0


def test_state_dict_round_trip_continues_identically() -> None:
    a, b = _params(), _params()
    opt_a = Adam(a, lr=0.05)
    for step in range(3):
        opt_a.zero_grad()
        _loss(a, step).backward()
        opt_a.step()
    with torch.no_grad():
        for pa, pb in zip(a, b, strict=True):
            pb.copy_(pa)
    opt_b = Adam(b, lr=0.05)
    # load_state_dict keeps references to the tensors it is given (torch.optim does the same): copy them,
    # as saving to disk and loading back would.
    opt_b.load_state_dict(copy.deepcopy(opt_a.state_dict()))
    for step in range(3, 6):
        for params, opt in ((a, opt_a), (b, opt_b)):
            opt.zero_grad()
            _loss(params, step).backward()
            opt.step()
    for pa, pb in zip(a, b, strict=True):
        assert torch.equal(pa, pb)


def test_make_optimizer() -> None:
    params = [torch.zeros(2, requires_grad=True)]
    for name, cls in OPTIMIZERS.items():
        assert type(make_optimizer(name, params, lr=0.1)) is cls
    assert isinstance(make_optimizer("AdamW", params), AdamW)
    with pytest.raises(ValueError, match=r"optimizer must be one of \['adagrad', .*got 'lion'"):
        make_optimizer("lion", params)
    with pytest.raises(ValueError, match=r"(optimizer must be one of|name must be a str)"):
        make_optimizer(3, params)  # type: ignore[arg-type]


BAD_HYPER = [
    (SGD, {"lr": -0.1}, ValueError, r"lr must be a finite number in \[0.0, inf\), got -0.1"),
    (SGD, {"lr": float("nan")}, ValueError, "lr must be a finite number in"),
    (SGD, {"lr": "0.1"}, TypeError, r"lr must be a float"),
    (SGD, {"lr": True}, TypeError, r"lr must be a number"),
    (SGD, {"weight_decay": -1.0}, ValueError, "weight_decay must be a finite number in"),
    (Momentum, {"momentum": 1.0}, ValueError, r"momentum must be a finite number in \[0.0, 1.0\), got 1.0"),
    (Momentum, {"momentum": -0.1}, ValueError, "momentum must be a finite number in"),
    (AdaGrad, {"eps": 0.0}, ValueError, r"eps must be a finite number in \(0.0, inf\), got 0.0"),
    (AdaGrad, {"eps_inside_sqrt": 1}, TypeError, "eps_inside_sqrt must be True or False"),
    (RMSProp, {"alpha": 1.5}, ValueError, r"alpha must be a finite number in \[0.0, 1.0\], got 1.5"),
    (RMSProp, {"eps": -1e-8}, ValueError, "eps must be a finite number in"),
    (Adam, {"betas": (0.9, 1.0)}, ValueError, r"betas\[1\] must be a finite number in \[0.0, 1.0\), got 1.0"),
    (Adam, {"betas": (-0.1, 0.999)}, ValueError, r"betas\[0\] must be a finite number in"),
    (Adam, {"betas": 0.9}, TypeError, r"betas must be tuple\[float, float\]"),
    (AdamW, {"betas": (0.9, 0.99, 0.9)}, TypeError, r"betas must be tuple\[float, float\]"),
    (AdamW, {"weight_decay": -0.01}, ValueError, "weight_decay must be a finite number in"),
    # issue 20.7: an infinite lr or weight decay turns every weight into ±inf in one step
    (SGD, {"lr": float("inf")}, ValueError, r"lr must be a finite number in \[0.0, inf\), got inf"),
    (SGD, {"weight_decay": float("inf")}, ValueError, "weight_decay must be a finite number in"),
    (AdamW, {"weight_decay": float("inf")}, ValueError, "weight_decay must be a finite number in"),
    (Adam, {"eps": float("inf")}, ValueError, "eps must be a finite number in"),
    (SGD, {"lr": np.True_}, TypeError, r"lr must be a float"),
]


@pytest.mark.parametrize(("cls", "hyper", "error", "match"), BAD_HYPER)
def test_rejects_bad_hyper_parameters(
    cls: type[TeachingOptimizer], hyper: dict, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        cls([torch.zeros(1, requires_grad=True)], **hyper)


def test_rejects_bad_param_group_override() -> None:
    opt = SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match="lr must be a finite number in"):
        opt.add_param_group({"params": [torch.zeros(1, requires_grad=True)], "lr": -1.0})


def test_rejects_sparse_gradients_and_empty_params() -> None:
    p = torch.zeros(3, requires_grad=True)
    p.grad = torch.zeros(3).to_sparse()
    with pytest.raises(TypeError, match="Adam does not support sparse gradients"):
        Adam([p]).step()
    with pytest.raises(ValueError, match="empty parameter list"):
        SGD([])


def test_optimizer_state_bytes_rejects_non_optimizer() -> None:
    with pytest.raises(TypeError, match=r"optimizer must be a torch.optim.Optimizer"):
        optimizer_state_bytes({})  # type: ignore[arg-type]


def test_numpy_scalar_hyper_parameters_are_numbers():
    """Issue 20.15: lr=np.float32(.1) was refused as "must be a number"; it is stored as a Python float."""
    p = torch.ones(2, requires_grad=True)
    opt = make_optimizer("adamw", [p], lr=np.float32(0.5), betas=(np.float64(0.9), 0.99), weight_decay=np.int64(0))
    group = opt.param_groups[0]
    assert type(group["lr"]) is float and group["lr"] == 0.5 and group["betas"] == (0.9, 0.99)
    p.grad = torch.ones(2)
    opt.step()
    assert torch.isfinite(p).all() and p.dtype == torch.float32


def test_infinite_learning_rate_is_refused_before_any_weight_changes():
    """Issue 20.7: make_optimizer('sgd', lr=inf) was accepted, and one step made every weight -inf."""
    for hyper in ({"lr": math.inf}, {"lr": 0.1, "weight_decay": math.inf}):
        with pytest.raises(ValueError, match="must be a finite number"):
            make_optimizer("sgd", [torch.ones(2, requires_grad=True)], **hyper)


def test_fused_adamw_supported_answers_what_torch_does(monkeypatch: pytest.MonkeyPatch) -> None:
    from cs336_lec2.optim import fused_adamw_supported

    assert fused_adamw_supported("cpu") is True  # torch >= 2.4 fuses AdamW on the CPU too

    class NoFusedKernel(torch.optim.AdamW):
        def step(self, closure=None):  # what torch raises for a device without the kernel
            raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of supported devices")

    monkeypatch.setattr(torch.optim, "AdamW", NoFusedKernel)
    assert fused_adamw_supported("cpu") is False
    if torch.cuda.is_available():
        monkeypatch.undo()
        assert fused_adamw_supported("cuda") is True  # CUDA has had fused AdamW since torch 2.0
