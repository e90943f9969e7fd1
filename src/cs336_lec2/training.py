"""Seeding every random number generator at once."""

from __future__ import annotations

import random

import numpy as np
import torch

# numpy's legacy seeding accepts 0 <= seed < 2**32; we use the same range everywhere.
MAX_SEED = 2**32 - 1


def set_seed(seed: int) -> None:
    """Seed Python's ``random``, numpy's global generator, torch's CPU generator and every CUDA device.

    ``seed`` must be an int in ``[0, 2**32 - 1]`` (numpy's range). Returns nothing.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {type(seed).__name__} {seed!r}")
    seed = int(seed)
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be in [0, {MAX_SEED}], got {seed}")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # also seeds every CUDA device (lazily, when CUDA initialises)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
