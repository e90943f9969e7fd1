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


EXECUTE_MARKER = ".cs336-lec2-execute"  # in a folder execute created (or found empty): the folder is its own
BUILD_MARKER = ".cs336-lec2-build"  # in each folder the book build created: it may empty it again
# What a build of an earlier version left, before folders carried BUILD_MARKER: the staging's cache stamp
# (publish/cache.py) and the .buildinfo Sphinx writes into its HTML. A user's folder holds neither.
EARLIER_BUILD_SIGNS = (".cs336-cache.json", ".buildinfo")


def _first_entry(folder: Path, ignore: tuple[str, ...] = ()) -> str | None:
    return next((p.name for p in sorted(folder.iterdir()) if p.name not in ignore), None)


def claim_folder(folder: Path, name: str, marker: str = EXECUTE_MARKER) -> Path:
    """``folder`` as a folder this tool may write into: new, empty, or marked as its own by an earlier run.

    A folder that holds anything else (a user's notebook, an older run's record) is refused with a
    ``ValueError`` naming ``name`` and one of its files: nothing the tool did not write is ever replaced.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / marker).is_file():
        other = _first_entry(folder, (LOCK_NAME,))
        if other is not None:
            raise ValueError(f"{name}: {folder} already holds {other}, which cs336-lec2 did not write there; "
                             "give a new or empty folder (nothing in it is replaced or removed)")
        (folder / marker).write_text("written by cs336-lec2; its files here may be replaced by the next run\n",
                                     encoding="utf-8")
    return folder


def fresh_folder(folder: Path, name: str = "build_dir", marker: str = BUILD_MARKER) -> Path:
    """Empty ``folder`` for a new build, only if an earlier build made it (its ``marker``) or it is empty.

    A folder without the marker that holds anything is refused (``ValueError`` naming ``name`` and one
    of its files) before anything in it is removed. Returns the empty folder, marked as the build's.
    """
    import shutil

    folder = check_owned(folder, name, marker)
    if folder.is_dir():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / marker).write_text("made by cs336-lec2 book; emptied on the next build\n", encoding="utf-8")
    return folder


def check_owned(folder: Path, name: str = "build_dir", marker: str = BUILD_MARKER) -> Path:
    """``folder`` if :func:`fresh_folder` may empty it (absent, empty or marked), else a ``ValueError``."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{name}: {folder} is a file, where the build writes a folder")
    owned = (folder / marker).is_file() or (marker == BUILD_MARKER and any(
        (folder / sign).is_file() for sign in EARLIER_BUILD_SIGNS))
    if folder.is_dir() and not owned and (other := _first_entry(folder)) is not None:
        raise ValueError(f"{name}: {folder} holds {other}, which the book build did not write; it empties that "
                         "folder on every build, so move your files out (or give another --build-dir; a "
                         "folder an older version of the build left unmarked can simply be deleted)")
    return folder
