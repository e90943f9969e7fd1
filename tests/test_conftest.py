"""The test-suite hooks of tests/conftest.py: a test that needs the built book is marked ``slow``.

Checked on a throwaway test folder with a copy of the real conftest, collected by a real pytest, so
``-m "not slow"`` is seen to leave out every test that would build the book, direct or through a fixture.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

SAMPLE = '''
import pytest


@pytest.fixture
def page(book_site):
    return book_site


def test_reads_the_book(built_book):
    pass


def test_opens_the_site(book_site):
    pass


def test_through_a_fixture(page):
    pass


def test_plain():
    pass
'''


def _collected(folder: Path, *args: str) -> list[str]:
    """The test names a real pytest collects in ``folder`` with ``args`` (no test runs).

    It runs as an xdist worker other than gw0, which never starts the background book build (were the hook
    broken, the collected book tests would start one).
    """
    env = {**os.environ, "PYTEST_XDIST_WORKER": "gw1"}
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "--rootdir", str(folder), "-c", str(folder / "pytest.ini"), *args,
                           str(folder)], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return sorted(line.split("::")[-1] for line in done.stdout.splitlines() if "::" in line)


def test_tests_that_need_the_built_book_are_marked_slow(tmp_path):
    shutil.copy2(TESTS / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: takes more than a few seconds\n")
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    # left out: the test that uses built_book, the one that uses book_site, and the one through `page`
    assert _collected(tmp_path, "-m", "not slow") == ["test_plain"]
