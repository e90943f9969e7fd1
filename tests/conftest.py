"""Shared test settings and fixtures.

Hypothesis runs without deadlines (CI machines are slow and shared). ``built_book`` builds both
editions once per test run, strictly (warnings are errors), for the book and browser tests: the build
starts in the background as soon as the tests are collected, and under pytest-xdist (``make test`` runs
two workers) the other workers wait for that build and share it. ``chromium`` is the one headless
browser of a test run (per worker) and ``book_site`` serves the built book over http for it. Every test
that needs the built book is marked ``slow`` at collection, so ``pytest -m "not slow"`` is the fast subset.
``tf32_state`` restores torch's float32 matmul switches after a test, on every supported torch.
``small_book_repo(chapters)`` copies the book's sources with only some chapters into a temporary repo.
"""

from __future__ import annotations

import fcntl
import functools
import http.server
import os
import shutil
import threading
import uuid
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


@pytest.fixture
def small_book_repo(tmp_path):
    """``make(chapters)``: ``tmp_path/repo`` holding the config, ``book/`` and only these chapters (and their toc)."""

    def make(chapters: list[str]) -> Path:
        root = tmp_path / "repo"
        root.mkdir()
        shutil.copy2(ROOT / "_config.yml", root / "_config.yml")
        shutil.copytree(ROOT / "book", root / "book")
        (root / "notebooks").mkdir()
        for name in chapters:
            shutil.copy2(ROOT / "notebooks" / f"{name}.ipynb", root / "notebooks")
        toc = "\n".join(line for line in (ROOT / "_toc.yml").read_text(encoding="utf-8").splitlines()
                        if "file: notebooks/" not in line or any(name in line for name in chapters))
        (root / "_toc.yml").write_text(toc + "\n", encoding="utf-8")
        return root

    return make


BOOK_DIR = ROOT / "_build" / "test-book"
# One id per test run, shared by pytest-xdist's workers (which set PYTEST_XDIST_TESTRUNUID).
RUN = os.environ.get("PYTEST_XDIST_TESTRUNUID") or uuid.uuid4().hex
_BOOK: dict[str, object] = {}  # the background build of this process: its thread, and its error if it failed


def _build_once() -> None:
    """Build the test book unless a process of this test run already did; others wait on the lock meanwhile."""
    import subprocess
    import sys

    BOOK_DIR.parent.mkdir(parents=True, exist_ok=True)
    done = BOOK_DIR.parent / "test-book.run"  # which run has a finished build to share
    with open(BOOK_DIR.parent / "test-book.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # held while building: other workers wait here
        if not (done.exists() and done.read_text() == RUN):
            done.unlink(missing_ok=True)
            # In a process of its own: staging parses every code cell with ast, and CPython 3.11's parser is
            # not thread-safe ("AST constructor recursion depth mismatch") while a test parses in the main thread.
            built = subprocess.run(
                [sys.executable, "-c", "import sys; from cs336_lec2.publish.book import build_book; "
                 "build_book(sys.argv[1], build_dir=sys.argv[2], strict=True)", str(ROOT), str(BOOK_DIR)],
                capture_output=True, text=True)
            if built.returncode != 0:
                raise RuntimeError(f"the test book failed to build:\n{(built.stderr or built.stdout)[-6000:]}")
            done.write_text(RUN)


def _build_in_background() -> None:
    try:
        _build_once()
    except BaseException as err:  # handed to the built_book fixture, which fails with it
        _BOOK["error"] = err


def _needs_book(item: pytest.Item) -> bool:
    """Whether a test uses the built book, directly or through another fixture (``book_site``)."""
    return "built_book" in getattr(item, "fixturenames", ())


@pytest.hookimpl(tryfirst=True)  # before pytest's own hook deselects by ``-m``
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that needs the built book ``slow``: ``-m "not slow"`` leaves out the book build."""
    for item in items:
        if _needs_book(item):
            item.add_marker(pytest.mark.slow)


def pytest_collection_finish(session) -> None:
    """Start the book build as soon as the tests are collected, if any needs it (one worker of a run).

    The build runs in subprocesses beside the tests, so no worker sits idle while Jupyter Book works.
    """
    wanted = any(_needs_book(item) for item in session.items)
    if wanted and os.environ.get("PYTEST_XDIST_WORKER", "gw0") == "gw0":
        _BOOK["thread"] = threading.Thread(target=_build_in_background, name="test-book", daemon=True)
        _BOOK["thread"].start()


@pytest.fixture(scope="session")
def built_book() -> Path:
    """The HTML folder of a strict (-W) build of the committed book, in ``_build/test-book/``.

    Built once per test run (started when the tests are collected, :func:`pytest_collection_finish`) and
    shared by pytest-xdist's workers. It stays in the (ignored) build folder so a person can look at it and
    at the browser test's screenshots afterwards; an unchanged book is rebuilt in seconds (publish/cache.py).
    """
    if "thread" in _BOOK:
        _BOOK["thread"].join()
    if "error" in _BOOK:
        raise _BOOK["error"]
    _build_once()
    return BOOK_DIR / "html"


# No background networking: the machine's network is closed, and a book must not need one.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_executable() -> str:
    """Debian's Chromium (or ``$CHROMIUM``); skips the test without it, or fails it under .ci/run."""
    found = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    message = "headless Chromium is not installed (Debian: apt-get install chromium); the browser test needs it"
    if os.environ.get("CS336_LEC2_REQUIRE_BROWSER") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def chromium():
    """The one headless Chromium of this test run (per xdist worker), shared by every browser test."""
    executable = chromium_executable()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def book_site(built_book):
    """The built book served over http on a free local port, for the whole test run."""
    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:  # keep the test output readable
            pass

    handler = functools.partial(QuietHandler, directory=str(built_book))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


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
