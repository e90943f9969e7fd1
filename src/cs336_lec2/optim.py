"""Teaching optimizers: SGD -> momentum -> AdaGrad -> RMSProp -> Adam -> AdamW, each adding one idea.

Every class subclasses :class:`torch.optim.Optimizer` and only writes ``update``: what one step does
to one parameter ``p`` given its gradient ``g``. The shared :meth:`TeachingOptimizer.step` loops
over the parameters (skipping those without a gradient) under ``torch.no_grad()``. With the same
hyper-parameters each one matches its ``torch.optim`` counterpart step for step (the tests prove it).

State kept per parameter (``optimizer.state[p]``; every tensor has ``p``'s shape and dtype):

=============  ===================================  =========================================
class          tensors                              other entries
=============  ===================================  =========================================
``SGD``        none                                 none
``Momentum``   ``momentum_buffer``                  none
``AdaGrad``    ``g2`` (running sum of ``g**2``)     none
``RMSProp``    ``square_avg``                       none
``Adam``       ``exp_avg``, ``exp_avg_sq``          ``step`` (a Python int: no tensor bytes)
``AdamW``      ``exp_avg``, ``exp_avg_sq``          ``step`` (a Python int: no tensor bytes)
=============  ===================================  =========================================

The state appears on the first step that sees a gradient; :func:`cs336_lec2.memory.optimizer_state_bytes` sums it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable
from typing import Any

import torch

from .checks import Flag, beartype_on_first_call, is_bool, is_int

Params = Iterable[torch.Tensor] | Iterable[dict[str, Any]]
State = dict[str, Any]  # optimizer.state[p]
Group = dict[str, Any]  # one of optimizer.param_groups
Tensor = torch.Tensor


def _number(
    name: str,
    value: object,
    low: float,
    high: float = math.inf,
    *,
    open_low: bool = False,
    open_high: bool = False,
) -> float:
    """``value`` as a float; raise unless it is a finite number in ``[low, high]`` (open ends with ``open_*``).

    Numpy scalars count as numbers (``lr=np.float32(0.1)``); bools do not, nor NaN or an infinity (an
    infinite ``lr`` or ``weight_decay`` turns every weight into ±inf or NaN in one step).
    """
    if is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    interval = f"{'(' if open_low else '['}{low}, {high}{')' if open_high or high == math.inf else ']'}"
    if isinstance(value, numbers.Integral) and abs(int(value)).bit_length() > 1000:  # float() would overflow
        raise ValueError(f"{name} must be a finite number in {interval}, got a {int(value).bit_length()}-bit int")
    number = float(value)
    too_low = number <= low if open_low else number < low
    too_high = number >= high if open_high else number > high
    if not math.isfinite(number) or too_low or too_high:
        raise ValueError(f"{name} must be a finite number in {interval}, got {value}")
    return number


def _check_group(group: Group) -> None:
    """Validate the hyper-parameters a param group carries (defaults and per-group overrides alike).

    Numpy scalars become Python floats, so a checkpoint's ``weights_only`` load takes the group back.
    """
    group["lr"] = _number("lr", group["lr"], 0.0)
    if "weight_decay" in group:
        group["weight_decay"] = _number("weight_decay", group["weight_decay"], 0.0)
    if "momentum" in group:
        group["momentum"] = _number("momentum", group["momentum"], 0.0, 1.0, open_high=True)
    if "alpha" in group:
        group["alpha"] = _number("alpha", group["alpha"], 0.0, 1.0)
    if "eps" in group:
        group["eps"] = _number("eps", group["eps"], 0.0, open_low=True)
    if "betas" in group:
        betas = group["betas"]
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise TypeError(f"betas must be a pair (beta1, beta2), got {betas!r}")
        group["betas"] = tuple(_number(f"betas[{i}]", beta, 0.0, 1.0, open_high=True)
                               for i, beta in enumerate(betas))


def check_state_dict(state_dict: object, optimizer: torch.optim.Optimizer) -> None:
    """Raise ``ValueError``/``TypeError`` naming the field unless ``state_dict`` is one ``optimizer`` can take.

    Structure (``state`` a dict, ``param_groups`` a list of dicts with a list of ``params``), the same
    groups and settings as ``optimizer``'s, every hyper-parameter in range (an ``lr`` of ``'x'``, NaN or
    -1 is refused) and every ``step`` a whole number >= 0: a tampered checkpoint never loads silently.
    """
    if not isinstance(state_dict, dict) or not isinstance(state_dict.get("state"), dict):
        raise TypeError(f"optimizer state: 'state' must be a dict, got {type(state_dict).__name__}")
    groups = state_dict.get("param_groups")
    if not isinstance(groups, list) or not all(isinstance(g, dict) and isinstance(g.get("params"), list)
                                               for g in groups):
        raise TypeError("optimizer state: 'param_groups' must be a list of dicts, each with a list of params, "
                        f"got {groups!r}"[:300])
    flags = {"foreach", "fused", "capturable", "differentiable", "maximize", "decoupled_weight_decay"}  # torch's own

    def shape(gs: list[dict[str, Any]]) -> list[tuple[int, list[str]]]:
        return [(len(g["params"]), sorted(set(g) - flags)) for g in gs]
    if shape(groups) != shape(optimizer.state_dict()["param_groups"]):
        raise ValueError(f"optimizer state: other parameter groups or settings than this {type(optimizer).__name__} "
                         "(saved from another optimizer type?)")
    for i, group in enumerate(groups):
        try:
            _check_group(dict(group))
            if "eps_inside_sqrt" in group and not is_bool(group["eps_inside_sqrt"]):
                raise TypeError(f"eps_inside_sqrt must be True or False, got {group['eps_inside_sqrt']!r}")
        except (TypeError, ValueError) as err:
            raise type(err)(f"optimizer state: param_groups[{i}].{err}") from None
    for key, per_param in state_dict["state"].items():
        if not isinstance(per_param, dict):
            raise TypeError(f"optimizer state: state[{key!r}] must be a dict, got {type(per_param).__name__}")
        step = per_param.get("step", 0)
        if isinstance(step, torch.Tensor) and step.numel() == 1:  # torch.optim keeps its step in a tensor
            step = step.item()
        if not (is_int(step) or (isinstance(step, float) and step.is_integer())) or not 0 <= step < 2**63:
            raise ValueError(f"optimizer state: state[{key!r}].step must be a whole number >= 0, got {step!r}")


class TeachingOptimizer(torch.optim.Optimizer):
    """Base class: :meth:`step` calls :meth:`update` for every parameter that has a gradient."""

    def add_param_group(self, param_group: Group) -> None:
        """Add a group of parameters (``torch.optim`` API), validating its hyper-parameters."""
        super().add_param_group(param_group)
        _check_group(self.param_groups[-1])

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state (``torch.optim`` API) after :func:`check_state_dict`: a tampered one is refused."""
        check_state_dict(state_dict, self)
        super().load_state_dict(state_dict)

    @torch.no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if one is given."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.is_sparse:
                    raise TypeError(f"{type(self).__name__} does not support sparse gradients")
                self.update(p, p.grad, self.state[p], group)
        return loss

    def update(self, p: Tensor, g: Tensor, state: State, group: Group) -> None:
        """Change ``p`` in place given its gradient ``g``, its ``state`` and its group's hyper-parameters."""
        raise NotImplementedError


class SGD(TeachingOptimizer):
    """Stochastic gradient descent: ``p -= lr * g``. Matches ``torch.optim.SGD(momentum=0)``."""

    def __init__(self, params: Params, lr: float = 0.01, weight_decay: float = 0.0) -> None:
        super().__init__(params, {"lr": lr, "weight_decay": weight_decay})

    def update(self, p: Tensor, g: Tensor, state: State, group: Group) -> None:
        if group["weight_decay"]:
            g = g + group["weight_decay"] * p  # L2 penalty folded into the gradient
        p.sub_(group["lr"] * g)


class Momentum(TeachingOptimizer):
    """SGD with momentum (torch's convention): ``buf = momentum * buf + g; p -= lr * buf``.

    Matches ``torch.optim.SGD(momentum=momentum)`` (no dampening, no Nesterov).
    """

    def __init__(
        self, params: Params, lr: float = 0.01, momentum: float = 0.9, weight_decay: float = 0.0
    ) -> None:
        super().__init__(params, {"lr": lr, "momentum": momentum, "weight_decay": weight_decay})

    def update(self, p: Tensor, g: Tensor, state: State, group: Group) -> None:
        if group["weight_decay"]:
            g = g + group["weight_decay"] * p
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = torch.zeros_like(p)
        buf = state["momentum_buffer"]
        buf.mul_(group["momentum"]).add_(g)  # a running, decaying sum of past gradients
        p.sub_(group["lr"] * buf)


class AdaGrad(TeachingOptimizer):
    """The lecture's AdaGrad: ``g2 += g**2; p -= lr * g / sqrt(g2 + eps)`` with ``eps = 1e-5``.

    ``torch.optim.Adagrad`` puts ``eps`` outside the square root: ``p -= lr * g / (sqrt(g2) + eps)``.
    Pass ``eps_inside_sqrt=False`` (and torch's ``eps``, 1e-10 by default) to match it exactly.
    """

    def __init__(
        self,
        params: Params,
        lr: float = 0.01,
        eps: float = 1e-5,
        weight_decay: float = 0.0,
        *,
        eps_inside_sqrt: Flag = True,
    ) -> None:
        eps_inside_sqrt = bool(eps_inside_sqrt)  # np.True_ stored as a Python bool: a checkpoint loads it back
        defaults = {"lr": lr, "eps": eps, "weight_decay": weight_decay, "eps_inside_sqrt": eps_inside_sqrt}
        super().__init__(params, defaults)

    def update(self, p: Tensor, g: Tensor, state: State, group: Group) -> None:
        if group["weight_decay"]:
            g = g + group["weight_decay"] * p
        if "g2" not in state:
            state["g2"] = torch.zeros_like(p)
        g2 = state["g2"]
        g2.add_(g * g)  # sum of squared gradients so far: only ever grows
        if group["eps_inside_sqrt"]:
            p.sub_(group["lr"] * g / torch.sqrt(g2 + group["eps"]))
        else:
            p.sub_(group["lr"] * g / (torch.sqrt(g2) + group["eps"]))


class RMSProp(TeachingOptimizer):
    """AdaGrad that forgets: ``v = alpha * v + (1 - alpha) * g**2; p -= lr * g / (sqrt(v) + eps)``.

    Matches ``torch.optim.RMSprop`` (no momentum, not centered).
    """

    def __init__(
        self,
        params: Params,
        lr: float = 0.01,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, {"lr": lr, "alpha": alpha, "eps": eps, "weight_decay": weight_decay})

    def update(self, p: Tensor, g: Tensor, state: State, group: Group) -> None:
        if group["weight_decay"]:
            g = g + group["weight_decay"] * p
        if "square_avg" not in state:
            state["square_avg"] = torch.zeros_like(p)
        v = state["square_avg"]
        v.mul_(group["alpha"]).addcmul_(g, g, value=1 - group["alpha"])
        p.addcdiv_(g, v.sqrt() + group["eps"], value=-group["lr"])  # p -= lr * g / (sqrt(v) + eps)


class Adam(TeachingOptimizer):
    """Momentum + RMSProp + bias correction. Matches ``torch.optim.Adam``.

    ``m = b1*m + (1-b1)*g``, ``v = b2*v + (1-b2)*g**2``, ``p -= lr * m_hat / (sqrt(v_hat) + eps)``
    where ``m_hat = m / (1 - b1**t)`` and ``v_hat = v / (1 - b2**t)`` undo the pull towards the
    zero initial state. ``weight_decay`` here is an L2 penalty added to ``g`` (torch's Adam does the
    same); :class:`AdamW` decouples it.
    """

    decoupled_weight_decay = False

    def __init__(
        self,
        params: Params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay})

    def update(self, p: Tensor, g: Tensor, state: State, group: Group) -> None:
        lr, (beta1, beta2), wd = group["lr"], group["betas"], group["weight_decay"]
        if wd and self.decoupled_weight_decay:
            p.mul_(1 - lr * wd)  # AdamW: shrink the weights directly, outside the adaptive scaling
        elif wd:
            g = g + wd * p
        if not state:
            state.update(step=0, exp_avg=torch.zeros_like(p), exp_avg_sq=torch.zeros_like(p))
        state["step"] += 1
        t, m, v = state["step"], state["exp_avg"], state["exp_avg_sq"]
        m.lerp_(g, 1 - beta1)  # m = beta1 * m + (1 - beta1) * g
        v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        denom = v.sqrt() / math.sqrt(1 - beta2**t) + group["eps"]
        p.addcdiv_(m, denom, value=-lr / (1 - beta1**t))


class AdamW(Adam):
    """Adam with decoupled weight decay (``p *= 1 - lr * weight_decay`` before the Adam step).

    The decay is decoupled from Adam's per-coordinate scaling by ``sqrt(v_hat)``, not from the
    learning rate: like torch, it is multiplied by ``lr``, so a schedule that lowers ``lr`` lowers it too.
    Matches ``torch.optim.AdamW``, whose default ``weight_decay`` is 0.01.
    """

    decoupled_weight_decay = True

    def __init__(
        self,
        params: Params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
    ) -> None:
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)


OPTIMIZERS: dict[str, type[TeachingOptimizer]] = {
    "sgd": SGD,
    "momentum": Momentum,
    "adagrad": AdaGrad,
    "rmsprop": RMSProp,
    "adam": Adam,
    "adamw": AdamW,
}


def make_optimizer(name: str, params: Params, **hyper: Any) -> TeachingOptimizer:
    """Build the optimizer called ``name`` (a key of :data:`OPTIMIZERS`) over ``params``."""
    if not isinstance(name, str) or name.lower() not in OPTIMIZERS:
        raise ValueError(f"optimizer must be one of {sorted(OPTIMIZERS)}, got {name!r}")
    return OPTIMIZERS[name.lower()](params, **hyper)


def fused_adamw_supported(device: str | torch.device) -> bool:
    """Whether the installed torch has a fused AdamW kernel (``fused=True``) for parameters on ``device``.

    Tried on a one-element parameter: torch raises a RuntimeError ("`fused=True` requires all the params
    to be ... of supported devices") where it has none, as for the CPU before torch 2.4.
    """
    p = torch.zeros(1, device=device, requires_grad=True)
    p.grad = torch.zeros(1, device=device)
    try:
        torch.optim.AdamW([p], fused=True).step()
    except RuntimeError:
        return False
    return True


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
