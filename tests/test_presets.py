from __future__ import annotations

import pytest
import torch

from cs336_lec2 import presets


def test_cpu_gets_small():
    assert presets.resolve("cpu", "auto") == (torch.device("cpu"), "small")


@pytest.mark.parametrize(
    ("gib", "expected"), [(15, "medium"), (40, "medium"), (69.9, "medium"), (79.6, "large"), (139.8, "large")]
)
def test_gpu_preset_follows_memory(monkeypatch, gib, expected):
    class Props:
        total_memory = int(gib * 2**30)

    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda device: Props)
    assert presets.auto_preset(torch.device("cuda")) == expected


def test_explicit_preset_is_kept():
    assert presets.resolve("cpu", "large") == (torch.device("cpu"), "large")


@pytest.mark.parametrize("bad", ["tiny", "", None, "Small"])
def test_unknown_preset(bad):
    with pytest.raises(ValueError, match=r"preset must be (one of \('auto', 'small', 'medium', 'large'\)|a str)"):
        presets.resolve("cpu", bad)


def test_pick_and_describe():
    sizes = {"small": {"B": 4, "D": 8}, "large": {"B": 16384, "D": 32768}}
    assert presets.pick(sizes, "small") == {"B": 4, "D": 8}
    assert presets.describe(sizes["small"]) == "B=4, D=8"
    with pytest.raises(ValueError, match=r"choose one of \['large', 'small'\]"):
        presets.pick(sizes, "medium")
