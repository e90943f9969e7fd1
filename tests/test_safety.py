"""The shared guards: one atomic write and one SIGTERM handler for the package and its tools (issue 31.18)."""

from __future__ import annotations

import errno
import os
import re
import signal
from pathlib import Path

import pytest

from cs336_lec2 import safety
from cs336_lec2.safety import Terminated, sigterm_as_interrupt, write_atomic, write_text_atomic

PACKAGE = Path(safety.__file__).resolve().parent


def test_each_guard_is_written_once():
    """Issue 31.18: the temp-file/fsync/os.replace write lived in data and publish.guard (and training), the
    SIGTERM handler in distributed.launcher and publish.guard."""
    writers, handlers = [], []
    for path in PACKAGE.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        if "os.replace(" in source and "fsync" in source:
            writers.append(path.relative_to(PACKAGE).as_posix())
        if re.search(r"signal\.signal\(\s*signal\.SIGTERM", source):
            handlers.append(path.relative_to(PACKAGE).as_posix())
    assert writers == ["safety.py"] and handlers == ["safety.py"]
    from cs336_lec2 import data, training
    from cs336_lec2.distributed import launcher
    from cs336_lec2.publish import guard

    assert data._write_atomically is write_atomic and training.write_atomic is write_atomic
    assert guard.write_text_atomic is write_text_atomic and guard.sigterm_as_interrupt is sigterm_as_interrupt
    assert launcher.sigterm_as_interrupt is sigterm_as_interrupt and guard.Terminated is Terminated


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "t.bin"
    target.write_bytes(b"old")

    def half_then_full(f):
        f.write(b"ne")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError, match=r"writing .*t\.bin failed \(No space left on device\); the earlier file"):
        write_atomic(target, half_then_full)
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["t.bin"]
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, lambda f: (_ for _ in ()).throw(KeyboardInterrupt()))
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["t.bin"]
    write_text_atomic(target, "né")
    assert target.read_text(encoding="utf-8") == "né"


def test_sigterm_raises_terminated_and_the_handler_is_restored():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Terminated, match="SIGTERM"), sigterm_as_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) is before and issubclass(Terminated, KeyboardInterrupt)
