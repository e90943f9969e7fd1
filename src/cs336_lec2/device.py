"""Pick the device a chapter runs on, describe it in one line, and choose its 16-bit autocast dtype."""

from __future__ import annotations

import platform

import torch

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


def describe_device(device: str | torch.device) -> str:
    """A one-line, human-readable description: the card's name and memory, or the CPU and its threads."""
    device = torch.device(device)
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        return (
            f"{props.name} (cuda:{device.index or 0}, {props.total_memory / 2**30:.1f} GiB, "
            f"compute capability {props.major}.{props.minor}, CUDA {torch.version.cuda})"
        )
    if device.type == "cpu":
        threads = torch.get_num_threads()
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
    if capability is None or len(capability) != 2 or not all(isinstance(v, int) for v in capability):
        raise ValueError(f"capability must be (major, minor) ints for a CUDA device, got {capability!r}")
    return torch.bfloat16 if tuple(capability) >= (8, 0) else torch.float16
