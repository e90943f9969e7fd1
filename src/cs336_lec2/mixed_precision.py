"""Mixed precision, measured: what ``torch.autocast`` does per op, what it casts, and fp8 with a scale.

- :func:`autocast_dtypes` runs a few typical ops under ``torch.autocast`` and reports each result's dtype
  (the lists of ops autocast lowers or keeps in fp32 differ between devices and torch releases).
- :class:`CountCasts` counts the dtype conversions (``aten._to_copy``) dispatched while it is active.
- :func:`matmul_precision` sets ``torch.set_float32_matmul_precision`` for a block (TF32 on or off).
- :func:`fp8_roundtrip` and :func:`typical_error`: a tensor cast to fp8 and back, with or without a
  per-tensor scale, and the median relative error that cast made.
- :func:`unchanged_fraction`: the share of weights an optimizer step left exactly as they were.
- :data:`E2M1_VALUES` and :func:`nvfp4_roundtrip`: NVIDIA's 4-bit NVFP4, E2M1 values with one E4M3
  scale per 16-value block and one fp32 scale per tensor.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode  # the hook torch's own tools use to see ops

from .checks import beartype_on_first_call, is_bool, is_int
from .floats import saturating_cast

MATMUL_PRECISIONS = ("highest", "high", "medium")
FP8_DTYPES = (torch.float8_e4m3fn, torch.float8_e5m2)


def autocast_dtypes(device_type: str, dtype: torch.dtype) -> dict[str, torch.dtype]:
    """Run typical ops under ``torch.autocast(device_type, dtype)``; return each result's dtype by op.

    The ops: a matmul, ``F.linear``, relu, a 16-bit + fp32 sum, softmax, layer_norm, sum, exp, the
    cross-entropy and MSE losses; then ``w`` and ``w.grad`` after the backward pass. The data is drawn on
    the CPU from a fixed seed and moved, so the values are the same on every device.
    """
    if device_type not in ("cpu", "cuda"):
        raise ValueError(f"device_type must be 'cpu' or 'cuda', got {device_type!r}")
    if dtype not in (torch.bfloat16, torch.float16):
        raise ValueError(f"dtype must be torch.bfloat16 or torch.float16, got {dtype!r}")
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(4, 8, generator=gen).to(device_type)
    w = torch.randn(8, 8, generator=gen).to(device_type).requires_grad_()
    target = torch.randn(4, 8, generator=gen).to(device_type)
    labels = torch.tensor([0, 1, 2, 3]).to(device_type)
    with torch.autocast(device_type, dtype=dtype):
        h = x @ w
        out = {"x @ w": h.dtype, "F.linear(x, w)": F.linear(x, w).dtype, "relu(h)": torch.relu(h).dtype,
               "h + x": (h + x).dtype, "softmax(h)": torch.softmax(h, dim=-1).dtype,
               "layer_norm(h)": F.layer_norm(h, (8,)).dtype, "h.sum()": h.sum().dtype, "h.exp()": h.exp().dtype,
               "cross_entropy(h, labels)": F.cross_entropy(h, labels).dtype}
        loss = F.mse_loss(h, target)
        out["mse_loss(h, target)"] = loss.dtype
    loss.backward()
    assert w.grad is not None  # for the type checker: backward filled it
    return {**out, "w": w.dtype, "w.grad": w.grad.dtype}


class CountCasts(TorchDispatchMode):
    """Counts the dtype conversions (``aten._to_copy``, what ``.to(dtype)`` and autocast's casts run)
    dispatched while active: ``with CountCasts() as counter: ...``, then ``counter.casts``."""

    def __init__(self) -> None:
        super().__init__()
        self.casts = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        self.casts += func is torch.ops.aten._to_copy.default
        return func(*args, **(kwargs or {}))


@contextmanager
def matmul_precision(precision: str) -> Iterator[None]:
    """Run a block with ``torch.set_float32_matmul_precision(precision)``, then restore the previous one.

    ``"highest"`` keeps fp32 matmuls in fp32 (PyTorch's default); ``"high"`` lets CUDA's tensor cores take
    them in TF32 (Ampere and later).
    """
    if precision not in MATMUL_PRECISIONS:
        raise ValueError(f"precision must be one of {MATMUL_PRECISIONS}, got {precision!r}")
    previous = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(precision)
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(previous)


def fp8_roundtrip(x: torch.Tensor, dtype: torch.dtype, scaled: bool) -> torch.Tensor:
    """``x`` cast to the fp8 ``dtype`` and back to fp32, optionally with a per-tensor scale fmax / amax.

    The cast clamps to the format's range first (:func:`~cs336_lec2.floats.saturating_cast`), as fp8
    training code does, so an outlier saturates to the largest finite value instead of becoming inf/NaN.
    """
    if dtype not in FP8_DTYPES:
        raise ValueError(f"dtype must be torch.float8_e4m3fn or torch.float8_e5m2, got {dtype!r}")
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        raise TypeError(f"x must be a floating-point tensor, got {type(x).__name__}")
    scale = torch.finfo(dtype).max / x.abs().max() if scaled else torch.tensor(1.0, device=x.device)
    return saturating_cast(x * scale, dtype).float() / scale


# fp4 E2M1 (OCP Microscaling spec v1.0): bias 1, no inf or NaN. Code 2e + m is (m / 2) for e = 0
# (subnormal) and (1 + m / 2) * 2**(e - 1) otherwise: 0, 0.5, 1, 1.5, 2, 3, 4, 6.
E2M1_VALUES: tuple[float, ...] = tuple(m / 2 if e == 0 else (1 + m / 2) * 2.0 ** (e - 1)
                                       for e in range(4) for m in range(2))


def e2m1_round(x: torch.Tensor) -> torch.Tensor:
    """``x`` rounded to the nearest E2M1 value, ties to the even code (mantissa bit 0), saturating at ±6."""
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        raise TypeError(f"x must be a floating-point tensor, got {type(x).__name__}")
    grid = torch.tensor(E2M1_VALUES, dtype=torch.float64, device=x.device)
    distance = (x.double().abs().clamp(max=grid[-1]).unsqueeze(-1) - grid).abs()
    nearest = distance == distance.min(dim=-1, keepdim=True).values
    even = torch.arange(len(grid), device=x.device) % 2 == 0
    code = (2 * nearest.int() + (nearest & even).int()).argmax(dim=-1)  # a tie: the even code
    return (grid[code] * x.double().sign()).to(x.dtype)


def nvfp4_roundtrip(x: torch.Tensor, block_size: int = 16) -> torch.Tensor:
    """``x`` quantised to NVFP4 and back to fp32, by NVIDIA's two-level rule.

    An fp32 per-tensor scale maps the largest block's scale onto E4M3's top, ``amax / (6 * 448)``;
    each block of ``block_size`` consecutive values (16 in NVFP4) gets the scale ``block amax / 6``,
    stored in E4M3 relative to the tensor's; the values divided by it are rounded to E2M1
    (:func:`e2m1_round`). ``block_size=x.numel()`` gives one scale for the whole tensor.
    """
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        raise TypeError(f"x must be a floating-point tensor, got {type(x).__name__}")
    if is_bool(block_size) or not is_int(block_size) or block_size < 1 or x.numel() % block_size:
        raise ValueError(f"block_size must be a positive divisor of x.numel() = {x.numel()}, got {block_size!r}")
    blocks = x.float().reshape(-1, block_size)
    tensor_scale = blocks.abs().max() / (E2M1_VALUES[-1] * torch.finfo(torch.float8_e4m3fn).max)
    if tensor_scale == 0:
        return torch.zeros_like(x, dtype=torch.float32)
    block_amax = blocks.abs().amax(dim=-1, keepdim=True)
    stored = saturating_cast(block_amax / E2M1_VALUES[-1] / tensor_scale, torch.float8_e4m3fn)
    scale = stored.float() * tensor_scale
    values = e2m1_round(torch.where(scale > 0, blocks / scale, 0.0))
    return (values * scale).reshape(x.shape)


def typical_error(x: torch.Tensor, y: torch.Tensor) -> float:
    """Median of ``|y - x| / |x|`` over the entries, in float64 (1.0 where a value of ``x`` became zero)."""
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same shape, got {tuple(x.shape)} and {tuple(y.shape)}")
    return ((y.double() - x.double()).abs() / x.double().abs()).median().item()


def unchanged_fraction(before: Sequence[torch.Tensor], after: Sequence[torch.Tensor]) -> float:
    """The share of entries equal in ``before`` and ``after`` (e.g. weights before and after a step)."""
    if len(before) != len(after) or not before:
        raise ValueError(f"before and after must hold the same number (> 0) of tensors, got {len(before)} "
                         f"and {len(after)}")
    same = sum((b == a.detach()).sum().item() for b, a in zip(before, after, strict=True))
    return same / sum(b.numel() for b in before)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
