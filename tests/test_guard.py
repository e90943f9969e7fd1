"""The run guards of cs336-lec2 execute: atomic writes, the folder lock, SIGTERM as an interrupt."""

from __future__ import annotations

import errno
import os
import signal
from pathlib import Path

import pytest

from cs336_lec2.publish import guard
from cs336_lec2.publish.guard import (
    LOCK_NAME,
    Terminated,
    folder_lock,
    sigterm_as_interrupt,
    write_notebook_atomic,
    write_text_atomic,
)

ROOT = Path(__file__).resolve().parent.parent


def test_atomic_write_replaces_and_keeps_the_files_mode(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("old")
    target.chmod(0o640)
    write_text_atomic(target, "new")
    assert target.read_text() == "new" and target.stat().st_mode & 0o777 == 0o640
    write_text_atomic(tmp_path / "fresh.txt", "x")
    assert (tmp_path / "fresh.txt").stat().st_mode & 0o077  # not mkstemp's owner-only 0600


def test_atomic_write_on_a_full_disk_leaves_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "a.txt"
    target.write_text("old")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(guard.os, "fsync", full)
    with pytest.raises(OSError, match=r"writing .*a\.txt failed \(No space left on device\)") as info:
        write_text_atomic(target, "new")
    assert info.value.errno == errno.ENOSPC
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_the_lock_is_exclusive_and_removed_after(tmp_path):
    with folder_lock(tmp_path):
        assert (tmp_path / LOCK_NAME).exists()
        with pytest.raises(ValueError, match="another cs336-lec2 execute is running into"), folder_lock(tmp_path):
            pass
    assert not (tmp_path / LOCK_NAME).exists()
    with folder_lock(tmp_path):  # free again
        pass


def test_sigterm_becomes_terminated_and_the_handler_is_restored():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Terminated), sigterm_as_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) == before
    assert issubclass(Terminated, KeyboardInterrupt)


def test_an_atomically_written_notebook_is_byte_identical_to_nbformats(tmp_path):
    # A re-run must not change a committed notebook's last byte: nbformat.write ends the file with a newline.
    import nbformat

    nb = nbformat.read(ROOT / "notebooks" / "02_floats.ipynb", as_version=4)
    nbformat.write(nb, tmp_path / "by_nbformat.ipynb")
    write_notebook_atomic(nb, tmp_path / "atomic.ipynb")
    assert (tmp_path / "atomic.ipynb").read_bytes() == (tmp_path / "by_nbformat.ipynb").read_bytes()
