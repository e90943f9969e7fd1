"""Counting FLOPs (by formula and by torch's FlopCounterMode) and turning them into MFU.

A FLOP here is one floating-point add or multiply, so a multiply-accumulate is 2 FLOPs and an
``(m, k) @ (k, n)`` matmul costs ``2·m·k·n``: each of the ``m·n`` outputs is a dot product of
length ``k``, i.e. ``k`` multiplies and ``k`` adds when the accumulator starts from zero (the
hardware's FMA does exactly that), which is why the count is ``2k`` and not ``2k - 1``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten
from torch.utils.flop_counter import FlopCounterMode

from .bilingual import in_zh, tr
from .checks import Count, Flag, NonNegativeReal, PositiveReal, beartype_on_first_call
from .hardware import Peak


class ImplausibleMFUError(ValueError):
    """An MFU above 1: the measurement or the peak it was divided by is wrong."""


def matmul_flops(m: Count, k: Count, n: Count) -> int:
    """FLOPs of an ``(m, k) @ (k, n)`` matmul: ``2·m·k·n`` (one multiply and one add per term)."""
    return 2 * m * k * n


def linear_forward_flops(batch: Count, in_dim: Count, out_dim: Count) -> int:
    """FLOPs of ``x @ w`` for ``x`` of shape ``(batch, in_dim)`` and ``w`` of ``(in_dim, out_dim)``."""
    return matmul_flops(batch, in_dim, out_dim)


def linear_backward_flops(batch: Count, in_dim: Count, out_dim: Count, *, input_grad: Flag = True) -> int:
    """FLOPs of the backward pass of ``x @ w``: ``w.grad = xᵀ·dy`` and, if ``input_grad``, ``dx = dy·wᵀ``.

    Each is a matmul of the forward's size, so backward is twice the forward, except for a first
    layer whose input needs no gradient (``input_grad=False``): then it equals the forward.
    """
    weight_grad = matmul_flops(in_dim, batch, out_dim)
    return weight_grad + (matmul_flops(batch, out_dim, in_dim) if input_grad else 0)


def count_flops(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
    """Run ``fn(*args, **kwargs)`` under ``torch.utils.flop_counter.FlopCounterMode``; its total FLOPs.

    FlopCounterMode counts the ops it has formulas for (matmuls, convolutions, attention) and
    nothing elementwise; a backward pass run inside ``fn`` is counted too.
    """
    return sum(flop_breakdown(fn, *args, **kwargs).values())


def flop_breakdown(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> dict[str, int]:
    """Like :func:`count_flops`, but the FLOPs per operator (e.g. ``{"aten.mm": 2048}``)."""
    counter = FlopCounterMode(display=False)
    with counter:
        fn(*args, **kwargs)
    totals = counter.get_flop_counts().get("Global", {})
    return {str(op).removesuffix(".default"): int(n) for op, n in totals.items()}


def arithmetic_intensity(m: Count, k: Count, n: Count, bytes_per_element: PositiveReal | torch.dtype) -> float:
    """FLOPs per byte of an ``(m, k) @ (k, n)`` matmul that reads A and B once and writes C once.

    ``bytes_per_element`` is a dtype or a number of bytes (0.5 for a 4-bit format)."""
    size = bytes_per_element.itemsize if isinstance(bytes_per_element, torch.dtype) else bytes_per_element
    elements = int(m) * int(k) + int(k) * int(n) + int(m) * int(n)  # Python ints: numpy's wrap around
    if elements == 0:
        raise ValueError(f"a ({m}, {k}) @ ({k}, {n}) matmul moves no data; its intensity is undefined")
    return matmul_flops(int(m), int(k), int(n)) / elements / float(size)  # int / int first: exact at any size


def roofline(intensity: NonNegativeReal, peak: PositiveReal | Peak, bandwidth: PositiveReal) -> float:
    """Attainable FLOP/s at an arithmetic ``intensity`` (FLOP/byte): ``min(peak, intensity·bandwidth)``."""
    return min(float(peak), float(intensity) * float(bandwidth))


def mfu(
    flops: NonNegativeReal, seconds: PositiveReal, peak: PositiveReal | Peak, *, strict: Flag = True
) -> float:
    """Model FLOPs utilization: ``flops / seconds / peak``, a fraction in ``[0, 1]``.

    ``peak`` is a :class:`~cs336_lec2.hardware.Peak` or a float in FLOP/s (taken as a datasheet
    figure). Above 1 against a datasheet peak the measurement or the peak is wrong: it raises
    :class:`ImplausibleMFUError`, naming the likely causes. Above 1 against an ESTIMATED peak
    (``peak.is_estimate``, e.g. a CPU whose matrix unit the estimate does not model) it is the
    estimate that is too low: it raises too when ``strict`` (the default), and with
    ``strict=False`` the ratio is returned as it is, an over-estimate of the MFU for the caller to
    report as such.
    """
    if isinstance(peak, Peak):  # a Peak's flops were checked when it was made
        top, is_estimate = peak.flops, peak.is_estimate
        what = tr(f"{peak.dtype} peak of {peak.device_name}", f"{peak.device_name} 的 {peak.dtype} 峰值")
    else:
        top, is_estimate, what = float(peak), False, tr("peak", "峰值")
    achieved = float(flops) / float(seconds)
    ratio = achieved / top
    if ratio > 1:
        if is_estimate and not strict:
            return ratio
        told = f"MFU {ratio:.3g} > 1: {achieved:.4g} FLOP/s measured against a {what} of {top:.4g} FLOP/s. "
        told_zh = f"MFU {ratio:.3g} > 1：测得 {achieved:.4g} FLOP/s，而{in_zh(what)}只有 {top:.4g} FLOP/s。"
        if is_estimate:
            raise ImplausibleMFUError(tr(
                told + "The peak is an ESTIMATE and it is too low for this machine (a higher boost clock, "
                "more threads or wider vector or matrix units than assumed); pass a documented or measured peak "
                "with peak_flops(..., override=...), or mfu(..., strict=False) to get the ratio anyway.",
                told_zh + "这个峰值是估算值，对本机偏低（加速时钟频率更高、线程更多，或向量、矩阵单元比假设的更宽）；"
                "请用 peak_flops(..., override=...) 传入有文档可查或实测的峰值，或用 mfu(..., strict=False) "
                "照样得到这个比值。",
            ))
        raise ImplausibleMFUError(tr(
            told + "Likely causes: a peak for the wrong dtype (a bf16 or TF32 run divided by the fp32 "
            "peak), dense FLOPs credited to a 2:4-sparse kernel that skips half of them (compare it with "
            "the sparse figure instead), a timing that missed torch.cuda.synchronize() or warm-up (so it "
            "measured a kernel launch, not the work), or FLOPs counted wrongly (e.g. a backward pass "
            "counted that never ran). Rarely, a card clocked above the boost clock its datasheet assumes (a "
            "factory-overclocked GeForce card) passes its peak by a few per cent.",
            told_zh + "可能的原因：用错了数据类型的峰值（bf16 或 TF32 的运行除以了 fp32 峰值）；把稠密的浮点运算"
            "次数算在了跳过一半运算的 2:4 稀疏内核上（应改为与稀疏峰值比较）；计时漏了 torch.cuda.synchronize() "
            "或预热（测到的是内核启动，而不是计算本身）；或者浮点运算次数算错了（例如算进了并未执行的反向传播）。"
            "少数情况下，显卡的时钟频率高于数据手册假设的加速时钟频率（出厂超频的 GeForce 显卡），会超出峰值百分之几。",
        ))
    return ratio


class _ElementCounter(TorchDispatchMode):
    """Adds up the elements every aten op produces: an op on ``n`` elements adds ``n``."""

    def __init__(self) -> None:
        super().__init__()
        self.elements = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        self.elements += sum(t.numel() for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor))
        return out


def count_elements(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
    """Run ``fn(*args, **kwargs)`` and add up the elements of every tensor its aten ops produce.

    An elementwise op on ``n`` elements adds ``n``, so for elementwise work (an optimizer step) the total
    over the parameter count is the ops per parameter, the part that :func:`count_flops` leaves out. It
    hooks every op with a ``TorchDispatchMode``, the mechanism ``FlopCounterMode`` is built on.
    """
    with _ElementCounter() as counter:
        fn(*args, **kwargs)
    return counter.elements


def einsum_sizes(pattern: str, a: torch.Tensor, b: torch.Tensor) -> dict[str, int]:
    """The size of each dimension name of a two-operand einsum ``pattern`` (``"b i h, b j h -> b i j"``),
    read off the operands ``a`` and ``b``; a name two operands give different sizes is refused."""
    if not isinstance(pattern, str) or pattern.count("->") != 1:
        raise ValueError(f"pattern must be 'inputs -> output' (one '->'), got {pattern!r}")
    specs = [s.split() for s in pattern.split("->")[0].split(",")]
    if len(specs) != 2 or "..." in pattern:
        raise ValueError(f"pattern must name every dim of two operands: {pattern!r}")
    sizes: dict[str, int] = {}
    for names, t in zip(specs, (a, b), strict=True):
        if not isinstance(t, torch.Tensor) or len(names) != t.dim():
            raise ValueError(f"{names} must name every dim of a tensor, got {getattr(t, 'shape', t)}")
        for name, size in zip(names, t.shape, strict=True):
            seen = sizes.setdefault(name, size)
            if seen != size:
                raise ValueError(f"dimension {name!r} is {seen} and {size}")
    return sizes


def einsum_flops(pattern: str, a: torch.Tensor, b: torch.Tensor) -> int:
    """FLOPs of a two-operand einsum that contracts like a matmul: 2 x the product of all dimension sizes.

    Each tuple of one value per name costs one multiply and one add. That holds only when at least one name
    is summed and every summed name is in both operands; other patterns are refused, not priced.
    """
    sizes = einsum_sizes(pattern, a, b)  # each name's size, read off a and b
    inputs, output = pattern.split("->")
    first, second = (set(s.split()) for s in inputs.split(","))
    summed = set(sizes) - set(output.split())
    if not summed:
        raise ValueError(f"{pattern!r} sums over nothing: not a matmul")
    if summed - (first & second):
        raise ValueError(f"{pattern!r} sums a name within one operand, first")
    return 2 * math.prod(sizes.values())


def measured_mfu(flops: float, seconds: float, peak: Peak | None) -> float | None:
    """The MFU of a measurement, or None where there is no peak (a GPU the table does not know).

    Against a datasheet peak an MFU above 1 raises :class:`ImplausibleMFUError`, as in :func:`mfu`. Against
    an ESTIMATED peak it is returned as it is: above 1, it says the estimate is too low for this machine.
    """
    if peak is None:
        return None
    if not isinstance(peak, Peak):
        raise TypeError(f"peak must be a Peak (from peak_flops or peak_or_none) or None, got {type(peak).__name__}")
    return mfu(flops, seconds, peak, strict=False)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
