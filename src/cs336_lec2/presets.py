"""Problem-size presets: ``small`` (CPU, CI), ``medium`` (a 16 GB GPU such as a T4), ``large`` (80 GB and up).

A chapter keeps a dict of sizes per preset and calls :func:`resolve` on its ``device`` and
``preset`` parameters, so the same notebook runs in seconds on a laptop and at the lecture's sizes
on an H100.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any, TypeVar

import torch

from .checks import beartype_on_first_call
from .device import get_device

PRESETS = ("small", "medium", "large")
PRESET_CHOICES = ("auto", *PRESETS)
# A GPU needs at least this much memory for the large preset (the lecture's 80 GB class, with slack
# for what the driver reserves); anything smaller gets the medium preset.
LARGE_PRESET_MIN_BYTES = 70 * 2**30

T = TypeVar("T")


def auto_preset(device: torch.device) -> str:
    """The preset that fits ``device``: small on CPU, large on GPUs of 70 GiB and more, else medium."""
    if not isinstance(device, torch.device):
        raise TypeError(f"device must be a torch.device (resolve() turns 'cpu' into one), got "
                        f"{type(device).__name__} {device!r}")
    if device.type != "cuda":
        return "small"
    total = torch.cuda.get_device_properties(device).total_memory
    return "large" if total >= LARGE_PRESET_MIN_BYTES else "medium"


def resolve(device: str | torch.device = "auto", preset: str = "auto") -> tuple[torch.device, str]:
    """Turn a chapter's ``device`` and ``preset`` parameters into a concrete device and preset name."""
    dev = get_device(device)
    if not isinstance(preset, str) or preset not in PRESET_CHOICES:
        raise ValueError(f"preset must be one of {PRESET_CHOICES}, got {preset!r}")
    return dev, auto_preset(dev) if preset == "auto" else preset


def pick(sizes: Mapping[str, T], preset: str) -> T:
    """``sizes[preset]`` with an error that lists the presets a chapter defines."""
    if not isinstance(sizes, Mapping):
        raise TypeError(f"sizes must be a mapping of preset names to sizes, got {type(sizes).__name__} {sizes!r}")
    if not isinstance(preset, str):
        raise TypeError(f"preset must be a preset's name (a str), got {type(preset).__name__} {preset!r}")
    if preset not in sizes:
        raise ValueError(f"preset {preset!r} is not defined in sizes here; choose one of {sorted(sizes)}")
    return sizes[preset]


def start(device: str | torch.device, preset: str, seed: int, sizes: Mapping[str, T]) -> tuple[torch.device, str, T]:
    """Start a chapter: its device, its preset's name and sizes (``sizes[preset]``), every generator seeded.

    Prints one line naming the device and the preset (the reader's language; in both where the notebook
    reads in both), so its cell is tagged ``nbval-ignore-output``.
    """
    from .bilingual import say
    from .device import describe_device
    from .training import set_seed

    dev, name = resolve(device, preset)
    chosen = pick(sizes, name)
    set_seed(seed)
    shown = describe(chosen) if isinstance(chosen, Mapping) else ""
    # the sizes beside the preset, or wrapped under it: what a chapter prints fits the book's 88 columns
    if len(shown) <= 60:
        en_sizes, zh_sizes = (f" ({shown})", f"（{shown}）") if shown else ("", "")
    else:
        wrapped = textwrap.fill(shown, width=84, initial_indent="  ", subsequent_indent="  ")
        en_sizes, zh_sizes = f":\n{wrapped}", f"：\n{wrapped}"
    say(en=f"device: {describe_device(dev)}\npreset: {name}{en_sizes}",
        zh=f"设备：{describe_device(dev, 'zh')}\n预设：{name}{zh_sizes}")
    return dev, name, chosen


def describe(sizes: Mapping[str, Any]) -> str:
    """A one-line summary of a preset's sizes, e.g. ``B=64, D=128``."""
    if not isinstance(sizes, Mapping):
        raise TypeError(f"sizes must be a mapping of names to sizes, got {type(sizes).__name__} {sizes!r}")
    return ", ".join(f"{k}={v}" for k, v in sizes.items())


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
