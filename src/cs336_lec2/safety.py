"""The two guards the package and its ``publish`` tools share, written once (``publish`` imports them from
here; nothing outside ``publish/`` imports from it):

- :func:`write_atomic` / :func:`write_text_atomic`: a file is written all or nothing (a temporary file
  beside it, fsync, ``os.replace``, then the folder fsync'd), so a full disk or a crash mid-write leaves
  the earlier file as it was, never a torn one;
- :func:`sigterm_as_interrupt`: SIGTERM handled like Ctrl-C (it raises :class:`Terminated`, a
  ``KeyboardInterrupt``), so whatever cleans up after Ctrl-C also cleans up after a ``kill``.
"""

from __future__ import annotations

import os
import signal
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from .bilingual import in_zh, tr
from .checks import beartype_on_first_call


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_atomic(target: str | os.PathLike[str], write: Callable[[BinaryIO], object]) -> None:
    """Call ``write(f)`` on a temporary binary file beside ``target``, fsync it, then ``os.replace`` it onto
    ``target`` and fsync the folder. On any failure the temporary file is removed and the earlier
    ``target`` is untouched; an ``OSError`` raised names ``target``.
    """
    target = Path(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.chmod(tmp, _mode_for(target))  # mkstemp makes it owner-only; keep what the file had (or the umask's)
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())  # the bytes are on disk before the name points at them
        os.replace(tmp, target)  # atomic on POSIX and Windows: readers see the old file or the new one
    except BaseException as err:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError):  # say which file, and that the old one is safe (no tmp path: stable text)
            message = tr(f"writing {target.name} failed ({err.strerror or err}); "
                         "the earlier file of that name is untouched",
                         f"写入 {target.name} 失败（{err.strerror or in_zh(err)}）；同名的旧文件原样保留")
            raise (OSError(err.errno, message) if err.errno is not None else OSError(message)) from err
        raise
    if hasattr(os, "O_DIRECTORY"):  # make the rename itself durable (POSIX)
        try:
            dir_fd = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return
        try:
            os.fsync(dir_fd)
        except OSError:  # some file systems cannot fsync a folder; the data itself is on disk
            pass
        finally:
            os.close(dir_fd)


def write_text_atomic(target: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``target`` all or nothing (:func:`write_atomic`)."""
    write_atomic(target, lambda f: f.write(text.encode("utf-8")))


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: handled like Ctrl-C (scratch files removed, processes stopped, no record written)."""


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM into :class:`Terminated` while the block runs (main thread only; restored after)."""
    def handler(signum: int, frame: object) -> None:
        raise Terminated("SIGTERM")

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: signals cannot be caught here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
