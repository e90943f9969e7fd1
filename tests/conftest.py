"""Shared test settings and fixtures.

Hypothesis runs without deadlines (CI machines are slow and shared). ``built_book`` builds both
editions once per session, strictly (warnings are errors), for the book and browser tests.
``tf32_state`` restores torch's float32 matmul switches after a test, on every supported torch.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def built_book() -> Path:
    """The HTML folder of a strict (-W) build of the committed book, in ``_build/test-book/``.

    It stays in the (ignored) build folder so a person can look at it and at the browser test's
    screenshots afterwards.
    """
    from cs336_lec2.publish.book import build_book

    return build_book(ROOT, build_dir=ROOT / "_build" / "test-book", strict=True)


@pytest.fixture
def tf32_state():
    """Restore torch's float32 matmul switches after a test, whichever of them this torch has.

    The per-backend ``fp32_precision`` switches arrived in torch 2.9 (reading a legacy ``allow_tf32`` flag
    after setting one of them raises), ``torch.backends.mkldnn.matmul`` is absent in older releases
    (2.5 has none), and older torch has only the legacy precision string and ``allow_tf32`` flags. Each
    switch present is saved and put back; the legacy flag only where the new one is missing.
    """
    mkldnn_matmul = getattr(getattr(torch.backends, "mkldnn", None), "matmul", None)
    backends = [b for b in (torch.backends, torch.backends.cuda.matmul, torch.backends.cudnn, mkldnn_matmul)
                if b is not None]
    precisions = [(b, b.fp32_precision) for b in backends if hasattr(b, "fp32_precision")]
    flags = [(b, b.allow_tf32) for b in backends if hasattr(b, "allow_tf32") and not hasattr(b, "fp32_precision")]
    legacy = torch.get_float32_matmul_precision()
    yield
    torch.set_float32_matmul_precision(legacy)
    for backend, value in flags:
        backend.allow_tf32 = value
    for backend, value in precisions:
        backend.fp32_precision = value
