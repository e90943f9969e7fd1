"""Pick the device a chapter runs on, describe it in one line, and choose its 16-bit autocast dtype."""

from __future__ import annotations

import numbers
import platform
from typing import Annotated

import torch

from .checks import Is, beartype_on_first_call, is_bool, rule

DEVICE_CHOICES = ("auto", "cpu", "cuda")


def no_cuda_reason() -> str:
    """Why a CUDA request cannot be met here, in words every "no GPU" error of the package shares."""
    return (f"torch {torch.__version__} sees no CUDA device "
            "(CPU-only build, no driver, or CUDA_VISIBLE_DEVICES hides it)")


def get_device(preference: str | torch.device = "auto") -> torch.device:
    """Return the device to compute on.

    ``"auto"`` means CUDA when it is available, else the CPU. ``"cuda"`` (or ``"cuda:N"``) on a
    machine without a usable CUDA device raises :class:`RuntimeError` instead of silently falling
    back, so a run that asked for a GPU never reports CPU numbers as GPU numbers.
    """
    if isinstance(preference, torch.device):
        preference = str(preference)
    if not isinstance(preference, str):
        raise TypeError(f"preference must be a str such as 'auto', 'cpu' or 'cuda', got {preference!r}")
    choice = preference.strip().lower()
    if choice == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if choice == "cpu":
        return torch.device("cpu")
    if choice == "cuda" or choice.startswith("cuda:"):
        if not torch.cuda.is_available():
            raise RuntimeError(f"preference={preference!r} asks for CUDA, but {no_cuda_reason()}; use 'auto' or 'cpu'")
        device = torch.device(choice)
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise RuntimeError(
                f"preference={preference!r}: only {torch.cuda.device_count()} CUDA device(s) are visible"
            )
        return device
    raise ValueError(f"preference must be one of {DEVICE_CHOICES} (or 'cuda:N'), got {preference!r}")


class NoCudaError(RuntimeError, ValueError):
    """A CUDA device was asked for where there is none (a ``RuntimeError`` as ever, and a ``ValueError``:
    a bad argument, named in the message)."""


def as_device(name: str, value: object, *, available: bool = True) -> torch.device:
    """Where a device enters: ``value`` (a ``torch.device`` or a string such as ``"cpu"``, ``"cuda:1"``) as a device
    this machine has, else a ``TypeError``/``ValueError`` (:class:`NoCudaError` for a missing GPU) naming ``name``.
    ``available=False`` checks the spelling only.
    """
    if not isinstance(value, (str, torch.device)):
        raise TypeError(f"{name} must be a device such as 'cpu' or 'cuda' (a str or torch.device), "
                        f"got {type(value).__name__} {value!r}")
    try:
        device = torch.device(value)
    except (RuntimeError, ValueError, TypeError):
        raise ValueError(f"{name} must be a device such as 'cpu', 'cuda' or 'cuda:1', got {value!r}") from None
    if available and device.type == "cuda" and not torch.cuda.is_available():
        raise NoCudaError(f"{name}={str(value)!r}, but {no_cuda_reason()} (it asks for CUDA); use {name}='cpu'")
    if available and device.type == "cuda" and device.index is not None and device.index >= max(
            1, torch.cuda.device_count()):
        raise NoCudaError(f"{name}={str(value)!r}: only {torch.cuda.device_count()} CUDA device(s) are visible")
    if device.type not in ("cpu", "cuda", "meta", "mps"):
        raise ValueError(f"{name} must be a CPU or CUDA device, got {value!r}")
    return device


@rule("a floating-point torch.dtype such as torch.float32")
def _floating(dtype: torch.dtype) -> bool:
    return bool(dtype.is_floating_point)


FloatDtype = Annotated[torch.dtype, Is[_floating]]
"""A dtype a model's weights can have ("float32" is a string, not a dtype: torch's own error names neither)."""


def device_arg(name: str, value: object) -> torch.device:
    """The device an argument called ``name`` asks for: ``None`` or ``"auto"`` is :func:`get_device`'s choice,
    anything else must pass :func:`as_device` (errors name ``name``)."""
    if value is None or (isinstance(value, str) and value.strip().lower() == "auto"):
        return get_device("auto")
    return as_device(name, value.strip().lower() if isinstance(value, str) else value)


def cpu_name() -> str:
    """The CPU's model name (from /proc/cpuinfo where it exists), else what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def describe_device(device: str | torch.device, lang: str = "en") -> str:
    """A one-line, human-readable description: the card's name and memory, or the CPU and its threads,
    in ``lang``'s words (``"en"`` or ``"zh"``; names and numbers stay as they are)."""
    zh = lang == "zh"
    device = as_device("device", device, available=False)
    if device.type == "cuda":
        try:
            props = torch.cuda.get_device_properties(device)
        except (AssertionError, RuntimeError):  # torch asserts when there is no CUDA at all
            raise NoCudaError(f"device={str(device)!r}, but {no_cuda_reason()}") from None
        where, gib = f"cuda:{device.index or 0}", f"{props.total_memory / 2**30:.1f} GiB"
        cc = f"{props.major}.{props.minor}"
        if zh:
            return f"{props.name}（{where}，{gib}，计算能力 {cc}，CUDA {torch.version.cuda}）"
        return f"{props.name} ({where}, {gib}, compute capability {cc}, CUDA {torch.version.cuda})"
    if device.type == "cpu":
        threads = torch.get_num_threads()
        if zh:
            return f"{cpu_name()}（CPU，{threads} 个线程）"
        return f"{cpu_name()} (cpu, {threads} thread{'s' if threads != 1 else ''})"
    return str(device)


def autocast_dtype(device_type: str, capability: tuple[int, int] | None = None) -> torch.dtype:
    """The 16-bit dtype to autocast to: bf16 on the CPU and on CUDA GPUs of compute capability >= 8.0, else fp16.

    ``capability`` is ``torch.cuda.get_device_capability(device)`` and is required for CUDA. Volta (7.0)
    and Turing (7.5, e.g. Colab's T4) tensor cores do fp16 only; bf16 tensor cores start with Ampere
    (8.0; NVIDIA A100 Tensor Core GPU Architecture whitepaper, 2020). ``torch.cuda.is_bf16_supported()``
    says True on a T4 because it counts emulated bf16, which is far slower: do not use it to choose.
    """
    if device_type == "cpu":
        return torch.bfloat16
    if device_type != "cuda":
        raise ValueError(f"device_type must be 'cpu' or 'cuda', got {device_type!r}")
    if not isinstance(capability, tuple | list) or len(capability) != 2 or not all(
            isinstance(v, numbers.Integral) and not is_bool(v) for v in capability):  # (True, 0) is no capability
        raise ValueError(f"capability must be (major, minor) ints for a CUDA device, got {capability!r}")
    return torch.bfloat16 if tuple(capability) >= (8, 0) else torch.float16


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
