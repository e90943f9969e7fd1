"""Which card a device is: :func:`lookup` in the accelerator table (:data:`cs336_lec2.catalog.ACCELERATORS`).

:mod:`cs336_lec2.hardware` turns the card's figures into the peak that applies to a device and dtype.
The figures themselves, with their datasheets, are facts of :mod:`cs336_lec2.catalog`.
"""

from __future__ import annotations

import re

from ..catalog import ACCELERATORS, DTYPE_KEYS, Accelerator  # noqa: F401  (the table; re-exported)
from ..checks import beartype_on_first_call

OVERRIDE_HINT = (
    "To go on, take the dense peak of your card and dtype from its datasheet and pass it in FLOP/s: "
    "peak_flops(torch.bfloat16, override=989.4e12) (that figure is the H100 SXM's dense bf16)."
)


class UnknownHardwareError(LookupError):
    """The device is not in :data:`ACCELERATORS`; the message says how to pass ``override=`` instead."""


def _normalise(name: str) -> str:
    return re.sub(r"[\s_]+", " ", name.strip().lower())


_BY_NAME = {_normalise(n): card for card in ACCELERATORS.values() for n in (*card.device_names, card.name, card.key)}


def lookup(device_name: str) -> Accelerator:
    """The :class:`Accelerator` for a name as ``torch.cuda.get_device_name()`` returns it (or its key).

    Matching is exact up to case and spacing, so "NVIDIA H200" never matches "NVIDIA H200 NVL".
    """
    if not isinstance(device_name, str):
        raise TypeError(f"device_name must be a str, got {type(device_name).__name__}")
    card = _BY_NAME.get(_normalise(device_name))
    if card is None:
        known = ", ".join(n for c in ACCELERATORS.values() for n in c.device_names)
        raise UnknownHardwareError(
            f"device_name={device_name!r} is not in the accelerator table (known cards: {known}). "
            + OVERRIDE_HINT
        )
    return card


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
