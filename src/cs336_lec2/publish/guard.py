"""What keeps a run of ``cs336-lec2 execute`` from losing or mixing files: atomic writes, a folder lock,
SIGTERM handled like Ctrl-C, environment variables set for the kernels only."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# written once for the package and its tools (issue 31.18); re-exported here for execute and the CLI
from ..safety import Terminated, sigterm_as_interrupt, write_atomic, write_text_atomic

__all__ = ["LOCK_NAME", "Terminated", "environment", "folder_lock", "sigterm_as_interrupt", "write_atomic",
           "write_notebook_atomic", "write_text_atomic"]


def write_notebook_atomic(nb: Any, target: Path) -> None:
    """Write the notebook ``nb`` to ``target`` all or nothing (:func:`write_text_atomic`)."""
    import nbformat

    text = nbformat.writes(nb)
    write_text_atomic(target, text if text.endswith("\n") else text + "\n")  # as nbformat.write ends it


LOCK_NAME = ".cs336-lec2-execute.lock"


@contextmanager
def folder_lock(folder: Path):
    """Hold an exclusive lock on ``folder`` (a lock file in it) so two runs never write into one folder."""
    try:
        import fcntl
    except ImportError:  # Windows: no flock; one run at a time is then the user's to keep
        yield
        return
    path = folder / LOCK_NAME
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ValueError(f"output: another cs336-lec2 execute is running into {folder} (it holds {LOCK_NAME}); "
                             "wait for it to finish or give another folder") from None
        try:  # the holder before us may have removed the file after we opened it: lock the one on disk
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        yield
    finally:
        path.unlink(missing_ok=True)  # removed while still locked, so no later run locks a stale copy
        os.close(fd)


@contextmanager
def environment(**values: str | None):
    """Set (or, with None, remove) environment variables for the kernels started inside."""
    def assign(name: str, value: str | None) -> None:
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value

    old = {k: os.environ.get(k) for k in values}
    try:
        for k, v in values.items():
            assign(k, v)
        yield
    finally:
        for k, v in old.items():
            assign(k, v)
