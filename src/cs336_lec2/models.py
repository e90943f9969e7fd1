"""The lecture's toy model: :class:`Linear` and :class:`Cruncher`, a product of matrices.

``Cruncher(dim, num_layers)`` is ``num_layers`` square ``Linear(dim, dim)`` layers followed by a
``Linear(dim, 1)`` head, so it has ``num_layers * dim**2 + dim`` parameters (8256 for ``dim=64``,
two layers). There are no biases and no non-linearities: the model is a product of matrices, which
keeps every count of bytes and FLOPs in the chapters a one-line formula.

The decoder-only Transformer of chapters 13 and 14 is :mod:`cs336_lec2.transformer_model`, described by
:class:`cs336_lec2.config.TransformerConfig`.
"""

from __future__ import annotations

import math
from typing import Annotated, cast

import torch
from torch import nn

from .checks import MAX_PARAMETERS, Count, Flag, Is, PositiveCount, beartype_on_first_call, between
from .device import FloatDtype, as_device

Width = Annotated[int, Is[between(1, 2**40)]]  # the product of two widths is checked against MAX_PARAMETERS


class Linear(nn.Module):
    """``y = x @ weight`` with ``weight`` of shape ``(input_dim, output_dim)`` and no bias.

    The weight starts as ``randn(input_dim, output_dim) / sqrt(input_dim)`` so each output has
    roughly unit variance when the inputs do (the lecture's "Xavier-like" scaling). It is drawn from
    torch's global generator on the CPU, then moved: the same seed gives the same weights on any
    device.
    """

    def __init__(
        self,
        input_dim: Width,
        output_dim: Width,
        *,
        device: str | torch.device | None = None,
        dtype: FloatDtype | None = None,
    ) -> None:
        super().__init__()
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        _refuse_size(self.input_dim * self.output_dim, f"Linear({input_dim}, {output_dim})")
        device = None if device is None else as_device("device", device)
        input_dim, output_dim = self.input_dim, self.output_dim
        weight = torch.randn(input_dim, output_dim) / math.sqrt(input_dim)
        self.weight = nn.Parameter(weight.to(device=device, dtype=dtype))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x @ weight``: ``(..., input_dim)`` -> ``(..., output_dim)``."""
        if x.shape[-1:] != (self.input_dim,):
            raise ValueError(
                f"x must have last dimension input_dim={self.input_dim}, got shape {tuple(x.shape)}"
            )
        return x @ self.weight

    def extra_repr(self) -> str:
        return f"input_dim={self.input_dim}, output_dim={self.output_dim}"


class Cruncher(nn.Module):
    """``num_layers`` square ``Linear(dim, dim)`` layers, then the head ``final = Linear(dim, 1)``.

    Maps ``(B, dim)`` to ``(B,)``. ``num_layers=0`` is allowed: the model is then the head alone, a
    linear regression.
    """

    def __init__(
        self,
        dim: Width,
        num_layers: Annotated[int, Is[between(0, 2**40)]],
        *,
        device: str | torch.device | None = None,
        dtype: FloatDtype | None = None,
    ) -> None:
        super().__init__()
        self.dim, self.num_layers = dim, num_layers = int(dim), int(num_layers)
        _refuse_size(num_layers * dim * dim + dim, f"Cruncher({dim}, {num_layers})")  # before any layer is built
        device = None if device is None else as_device("device", device)
        self.layers = nn.ModuleList([Linear(dim, dim, device=device, dtype=dtype) for _ in range(num_layers)])
        self.final = Linear(dim, 1, device=device, dtype=dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``(B, dim)`` -> ``(B,)``: the layers in order, the head, then the trailing 1 squeezed away."""
        if x.dim() != 2 or x.shape[1] != self.dim:
            raise ValueError(f"x must have shape (batch, dim={self.dim}), got {tuple(x.shape)}")
        for layer in self.layers:
            x = layer(x)
        return self.final(x).squeeze(-1)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, num_layers={self.num_layers}"


def end_to_end(model: Cruncher) -> torch.Tensor:
    """The vector ``w_e`` with ``model(x) == x @ w_e``: the product of all of a ``Cruncher``'s factors.

    ``Cruncher`` has no non-linearity, so its ``L`` square layers and its head compose into one linear
    map from ``dim`` numbers to one. Computed without tracking gradients.
    """
    with torch.no_grad():
        w = torch.eye(model.dim, dtype=model.final.weight.dtype, device=model.final.weight.device)
        for layer in model.layers:
            w = w @ cast(nn.Linear, layer).weight
        return (w @ model.final.weight).squeeze(-1)


# Cruncher(4, 2**1100) never returned: more than checks.MAX_PARAMETERS (69e9 values) is a typo


def _refuse_size(values: int, what: str) -> None:
    if values > MAX_PARAMETERS:
        raise ValueError(f"{what} would hold {values:.3g} parameters, more than the {MAX_PARAMETERS:.3g} "
                         "this package builds (a typo?)")


def cruncher_num_parameters(dim: PositiveCount, num_layers: Count) -> int:
    """Parameters (a count, not bytes) of ``Cruncher(dim, num_layers)``: ``num_layers * dim**2 + dim``."""
    return num_layers * dim * dim + dim


def num_parameters(model: nn.Module, *, trainable_only: Flag = False) -> int:
    """Number of parameter values (elements, not bytes) in ``model``; shared parameters count once."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
