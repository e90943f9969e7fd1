"""Every random number generator's state as plain data (what a checkpoint stores), restored and checked.

:func:`rng_states` gathers torch's CPU and CUDA states, numpy's global generator, Python's ``random``
and, optionally, a data :class:`torch.Generator`, as tensors and plain values (what
``torch.load(weights_only=True)`` takes back). :func:`check_rng_states` says whether such a dict is
complete before :func:`restore_rng_states` changes anything.
"""

from __future__ import annotations

import random
from typing import Any, cast

import numpy as np
import torch

from .checks import beartype_on_first_call


def rng_states(generator: torch.Generator | None = None) -> dict[str, Any]:
    """Every RNG state as tensors and plain values (loadable with ``weights_only=True``)."""
    _check_generator(generator)
    # legacy=True: numpy's documented 5-tuple (its stubs also allow the dict form)
    state = cast("tuple[str, np.ndarray, int, int, float]", np.random.get_state(legacy=True))
    _, key, pos, has_gauss, cached_gaussian = state
    version, python_state, gauss = random.getstate()
    return {
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
        "numpy": [torch.from_numpy(key.astype(np.int64)), int(pos), int(has_gauss), float(cached_gaussian)],
        "python": {"version": version, "state": list(python_state), "gauss": gauss},
        "generator": None if generator is None else generator.get_state(),
    }


def restore_rng_states(states: dict[str, Any], generator: torch.Generator | None = None) -> None:
    """Undo :func:`rng_states`. CUDA states are restored only where as many CUDA devices are visible.

    ``states`` is checked first (:func:`check_rng_states`): a malformed one changes nothing.
    """
    try:
        check_rng_states(states, generator)
    except ValueError as err:
        raise ValueError(f"states: {err}") from None
    torch.set_rng_state(states["torch"])
    if states["cuda"] and torch.cuda.is_available() and len(states["cuda"]) == torch.cuda.device_count():
        torch.cuda.set_rng_state_all(states["cuda"])
    key, pos, has_gauss, cached_gaussian = states["numpy"]
    np.random.set_state(("MT19937", key.numpy().astype(np.uint32), pos, has_gauss, cached_gaussian))
    p = states["python"]
    random.setstate((p["version"], tuple(p["state"]), p["gauss"]))
    if generator is not None:
        if states["generator"] is None:
            raise ValueError("generator was given, but the checkpoint holds no data-generator state")
        generator.set_state(states["generator"])


_PARTS = {"torch": torch.Tensor, "cuda": list, "numpy": list, "python": dict}


def check_rng_states(states: object, generator: torch.Generator | None = None) -> None:
    """Raise ``ValueError`` naming the first part of ``states`` (from :func:`rng_states`) that is missing or malformed.

    ``generator`` given means the states must hold a data-generator state too. Changes nothing.
    """
    if not isinstance(states, dict):
        raise ValueError(f"the RNG states must be a dict, got {type(states).__name__}")
    for key, kind in _PARTS.items():
        if not isinstance(states.get(key), kind):
            raise ValueError(f"rng[{key!r}] is missing or not a {kind.__name__}")
    if "generator" not in states:
        raise ValueError("rng['generator'] is missing")
    _check_generator(generator)
    numpy_state, python_state = states["numpy"], states["python"]
    if (len(numpy_state) != 4 or not isinstance(numpy_state[0], torch.Tensor) or numpy_state[0].numel() != 624
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in numpy_state[1:])):
        raise ValueError("rng['numpy'] is not numpy's MT19937 state (a 624-word key, pos, has_gauss, gauss)")
    state = python_state.get("state")
    if (not {"version", "state", "gauss"} <= set(python_state) or not isinstance(state, (list, tuple))
            or len(state) != 625 or not all(isinstance(w, int) and not isinstance(w, bool) for w in state)):
        raise ValueError("rng['python'] is not Python's random state (version, 625-word state, gauss)")
    if not all(isinstance(s, torch.Tensor) for s in [states["torch"], *states["cuda"]]):
        raise ValueError("rng['torch'] and rng['cuda'] must hold tensors")
    if generator is not None and not isinstance(states["generator"], torch.Tensor):
        raise ValueError("generator was given, but the checkpoint holds no data-generator state")


def _check_generator(generator: object) -> None:
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__} {generator!r}")


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
