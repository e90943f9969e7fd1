"""Shared test settings and fixtures.

Hypothesis runs without deadlines (CI machines are slow and shared). ``built_book`` builds both
editions once per session, strictly (warnings are errors), for the book and browser tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest
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
    from cs336_lec2.book import build_book

    return build_book(ROOT, build_dir=ROOT / "_build" / "test-book", strict=True)
