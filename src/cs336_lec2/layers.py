"""The Transformer's small building blocks: RMSNorm, the config's norm, rotary tables, and dropout.

:mod:`cs336_lec2.lm` builds :class:`~cs336_lec2.lm.TransformerLM` from them (and re-exports them).
:func:`dropout` keeps a 1-byte mask for the backward pass on every device, as CUDA's kernel does, so
that the activation counts of :mod:`cs336_lec2.activations` hold on the CPU too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from torch import nn

from .checks import check_int, check_positive_real

if TYPE_CHECKING:
    from .lm import TransformerConfig


def dropout(x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
    """Zero each value of ``x`` with probability ``p`` and scale the rest by ``1/(1-p)``, when training.

    ``torch.native_dropout`` keeps a ``bool`` mask (1 byte a value) for the backward pass on the CPU
    and on a GPU alike; ``F.dropout`` on the CPU keeps a float tensor of scales instead (4 bytes a
    value in fp32), while on a GPU it calls the same ``native_dropout``. ``p = 0`` or evaluation
    returns ``x`` itself and keeps nothing.
    """
    if not training or p == 0:
        return x
    return torch.native_dropout(x, p, True)[0]


class RMSNorm(nn.Module):
    """``x / sqrt(mean(x²) + eps) · weight`` over the last dimension (Zhang & Sennrich 2019; Llama)."""

    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``(..., d)`` -> ``(..., d)``; autograd keeps x, the normalised x and 1/rms per token."""
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def make_norm(config: TransformerConfig) -> nn.Module:
    """The config's norm of width d: ``nn.LayerNorm`` (bias as configured) or :class:`RMSNorm`."""
    if config.norm == "rmsnorm":
        return RMSNorm(config.d_model)
    return nn.LayerNorm(config.d_model, bias=config.bias)


def rotary_tables(context_length: int, head_dim: int, base: float = 10000.0) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of RoPE's angles ``t·base^(-2i/head_dim)`` (Su et al. 2021), each ``(context_length, head_dim)``.

    ``head_dim`` is even: RoPE rotates pairs of dimensions (an odd 3 gave tables for 4).
    """
    context_length = check_int("context_length", context_length, minimum=1, max_bits=31)
    head_dim = check_int("head_dim", head_dim, minimum=2, max_bits=31)
    if head_dim % 2:
        raise ValueError(f"head_dim must be even (RoPE rotates pairs of dimensions), got {head_dim}")
    base = check_positive_real("base", base)
    inv = base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    angles = torch.outer(torch.arange(context_length, dtype=torch.float64), inv)
    angles = torch.cat([angles, angles], dim=-1)
    return angles.cos().float(), angles.sin().float()


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate pairs ``(x_i, x_{i+D/2})`` of ``x`` (..., T, D) by the angles of positions 0..T-1."""
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin
