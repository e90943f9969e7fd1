"""Token data that need not fit in memory: a raw token file, opened lazily, sampled into (x, y) batches.

A tokenized corpus is one long 1-D array of token ids. :func:`write_tokens` stores it as raw bytes
(no header: ``uint16`` holds vocabularies up to 65,536 ids in 2 bytes a token; the dtype is
recorded in a small file beside it, since the bytes alone cannot tell uint16 from uint32), :func:`open_tokens`
maps the file into memory with :class:`numpy.memmap` so only the pages a batch touches are read,
and :func:`get_batch` draws ``batch_size`` windows of ``sequence_length + 1`` tokens at random starts
and splits each into inputs ``x`` and next-token targets ``y``.

Do not name a raw token file ``.npy``: a ``.npy`` file starts with a header that ``np.load``
parses, so ``np.load`` misreads (or rejects) raw bytes under that name, and ``np.memmap`` on a real
``.npy`` file would read the header as tokens. :func:`write_tokens` refuses the suffix; use
``.bin``. :func:`open_tokens` opens a real ``.npy`` file (written by ``np.save``) correctly.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import numpy as np
import numpy.typing as npt
import torch

from .bilingual import tr
from .checks import FilePath, Is, beartype_on_first_call, between
from .device import as_device
from .safety import write_atomic as _write_atomically  # all or nothing: never a torn token file

PathLike = FilePath
BatchSide = Annotated[int, Is[between(1, 2**31 - 1)]]
_NPY_MAGIC = b"\x93NUMPY"


def _integer_dtype(dtype: npt.DTypeLike) -> np.dtype:
    try:
        dt = np.dtype(dtype)
    except TypeError as err:
        raise TypeError(f"dtype must be a numpy integer dtype such as np.uint16, got {dtype!r}") from err
    if dt.kind not in "iu":
        raise TypeError(f"dtype must be a numpy integer dtype such as np.uint16, got {dt}")
    return dt


def _dtype_record(path: Path) -> Path:
    """Where :func:`write_tokens` records the dtype of the raw file ``path``: ``tokens.bin.dtype``."""
    return path.with_name(path.name + ".dtype")


def write_tokens(path: PathLike, tokens: npt.ArrayLike, dtype: npt.DTypeLike = np.uint16) -> int:
    """Write ``tokens`` (a 1-D sequence of token ids) to ``path`` as raw ``dtype`` bytes.

    The dtype is recorded beside the file (``<name>.dtype``), so :func:`open_tokens` cannot read the
    bytes at another width. Returns the number of bytes written (``len(tokens) * itemsize``).
    Refuses a ``.npy`` suffix (see the module docstring), ids that ``dtype`` cannot hold, and
    anything that is not 1-D integers.
    """
    path = Path(path)
    if path.suffix.lower() == ".npy":
        raise ValueError(tr(
            f"path must not end in .npy for a raw token file ({path.name}): np.load would expect a .npy "
            "header and misread the tokens; name it .bin (or write a real .npy with np.save)",
            f"原始词元文件的 path 不能以 .npy 结尾（{path.name}）：np.load 会按 .npy 文件头去读，从而读错"
            "词元；请改名为 .bin（或用 np.save 写一个真正的 .npy）",
        ))
    dt = _integer_dtype(dtype)
    array = np.asarray(tokens)
    if array.ndim != 1:
        raise ValueError(f"tokens must be 1-D, got shape {array.shape}")
    if array.size and array.dtype.kind not in "iu":
        raise TypeError(f"tokens must be integers, got dtype {array.dtype}")
    if array.size:
        info = np.iinfo(dt)
        low, high = int(array.min()), int(array.max())
        if low < info.min or high > info.max:
            raise ValueError(
                f"tokens range over [{low}, {high}], which dtype {dt} cannot hold ([{info.min}, {info.max}])"
            )
    data = array.astype(dt, copy=False)
    if not path.parent.is_dir():
        raise FileNotFoundError(f"path: the folder for token file {path.name!r} does not exist")
    # The dtype goes beside the bytes (raw bytes do not say how wide a token is). A record that
    # changes is removed before the new data lands, so a crash in between leaves a file that
    # open_tokens refuses to guess about, never one it misreads.
    record = _dtype_record(path)
    # A byte order other than this machine's is recorded with it ('>u2'): read as 'uint16', 300 would be 11265.
    written = dt.name if dt.isnative else dt.str
    changes = not record.is_file() or record.read_bytes().strip() != written.encode()
    if changes:
        record.unlink(missing_ok=True)
    _write_atomically(path, data.tofile)
    if changes:
        _write_atomically(record, lambda f: f.write(f"{written}\n".encode()))
    return data.nbytes


def open_tokens(path: PathLike, dtype: npt.DTypeLike | None = None) -> np.memmap:
    """Map the token file at ``path`` read-only; nothing is read until it is indexed.

    A raw file is read as the dtype :func:`write_tokens` recorded beside it; ``dtype``, if given, must
    agree with that record. A raw file without a record (written by another tool, e.g. nanoGPT's
    uint16 ``train.bin``) needs ``dtype``: the bytes alone cannot tell uint16 from uint32. A real
    ``.npy`` file (``np.save``) is opened with ``np.load(mmap_mode="r")``, must be 1-D integers, and
    of ``dtype`` where one is given. Returns a 1-D :class:`numpy.memmap`.
    """
    path = Path(path)
    dt = None if dtype is None else _integer_dtype(dtype)
    if not path.is_file():
        raise FileNotFoundError(f"path: there is no token file named {path.name!r}")
    size = path.stat().st_size
    with path.open("rb") as f:
        is_npy = f.read(len(_NPY_MAGIC)) == _NPY_MAGIC
    if path.suffix.lower() == ".npy" or is_npy:
        if not is_npy:
            raise ValueError(tr(
                f"{path.name} is named .npy but has no .npy header: it looks like a raw token file; "
                "rename it to .bin and open it again",
                f"{path.name} 以 .npy 命名，却没有 .npy 文件头：它看来是原始词元文件；请改名为 .bin 后重新打开",
            ))
        try:
            data = np.load(path, mmap_mode="r")
        except (ValueError, OSError, EOFError) as err:
            raise ValueError(
                f"{path.name} starts with the .npy magic bytes but its .npy header is unreadable ({err}): "
                "a truncated or damaged np.save file? Write it again with np.save, or as a raw .bin file "
                "with write_tokens"
            ) from err
        if data.ndim != 1 or data.dtype.kind not in "iu" or (dt is not None and data.dtype != dt):
            raise ValueError(f"{path.name} holds shape {data.shape} {data.dtype}, expected 1-D {dt or 'integers'}")
        return data
    dt = _raw_dtype(path, dt)
    if size == 0:
        raise ValueError(f"{path.name} is empty: there are no tokens to map")
    if size % dt.itemsize:
        raise ValueError(
            f"{path.name} has {size} bytes, not a multiple of {dt.itemsize} (the size of {dt}): wrong dtype?"
        )
    return np.memmap(path, dtype=dt, mode="r")


def _raw_dtype(path: Path, given: np.dtype | None) -> np.dtype:
    """The dtype to read the raw file ``path`` as: its record, checked against ``given``."""
    record = _dtype_record(path)
    if not record.is_file():
        if given is None:
            raise ValueError(
                f"{path.name} has no {record.name} beside it, so its token width is unknown: pass "
                "dtype= (np.uint16 for vocabularies up to 65,536 ids, as nanoGPT writes them)"
            )
        return given
    try:
        recorded = _integer_dtype(record.read_text(encoding="ascii").strip())
    except (TypeError, UnicodeDecodeError, OSError) as err:
        raise ValueError(f"{record.name} does not name an integer dtype ({err}): write the file again") from err
    if given is not None and given != recorded:
        raise ValueError(
            f"{path.name} was written as {recorded} ({record.name}), not {given}: read as {given}, "
            "every token would be wrong"
        )
    return recorded


def get_batch(
    data: np.ndarray,
    batch_size: BatchSide,
    sequence_length: BatchSide,
    device: str | torch.device,
    *,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Sample ``batch_size`` random windows of ``data``; return inputs ``x`` and targets ``y`` on ``device``.

    Both are int64 of shape ``(batch_size, sequence_length)``; ``y[b, t] = data[start_b + t + 1]`` is
    the token after ``x[b, t] = data[start_b + t]``. Starts are drawn uniformly from every valid
    position with ``generator`` (a CPU :class:`torch.Generator`; torch's global one if ``None``).
    Only the sampled windows are read from a memory-mapped ``data``. On CUDA the batch is copied
    from pinned (page-locked) memory with ``non_blocking=True``, so the copy can overlap compute.
    """
    if data.ndim != 1:
        raise ValueError(f"data must be 1-D (one long stream of tokens), got shape {data.shape}")
    if data.dtype.kind not in "iu":
        raise TypeError(f"data must hold integer token ids, got dtype {data.dtype}")
    batch_size, sequence_length = int(batch_size), int(sequence_length)
    if batch_size * (sequence_length + 1) > 2**32:  # 10**9 windows was a MemoryError after minutes
        raise ValueError(f"batch_size x (sequence_length + 1) = {batch_size * (sequence_length + 1):.3g} tokens: "
                         "more than one batch of this package holds (2**32)")
    if len(data) < sequence_length + 1:
        raise ValueError(tr(
            f"sequence_length={sequence_length} needs windows of {sequence_length + 1} tokens (inputs plus "
            f"one target), but data has only {len(data)} tokens",
            f"sequence_length={sequence_length} 需要长为 {sequence_length + 1} 个词元的窗口（输入再加一个目标），"
            f"但 data 只有 {len(data)} 个词元",
        ))
    device = as_device("device", device)  # NoCudaError (a RuntimeError) where CUDA is missing
    if generator is not None and generator.device.type != "cpu":
        raise ValueError(f"generator must live on the CPU, got one on {generator.device}")

    # randint's upper bound is exclusive: the last valid start leaves room for sequence_length + 1 tokens.
    starts = torch.randint(len(data) - sequence_length, (batch_size,), generator=generator).numpy()
    windows = data[starts[:, None] + np.arange(sequence_length + 1)]  # fancy indexing copies them out
    batch = torch.from_numpy(windows.astype(np.int64))
    if device.type == "cuda":  # page-locked host memory lets the copy run asynchronously
        batch = batch.pin_memory()
    batch = batch.to(device, non_blocking=device.type == "cuda")
    return batch[:, :-1].contiguous(), batch[:, 1:].contiguous()


def resident_bytes(path: PathLike | None = None) -> int:
    """Bytes of this process's memory mappings of ``path`` that are resident (in physical memory).

    Linux reports each mapped file separately (``psutil``'s ``memory_maps``); elsewhere, and for
    ``path=None``, this is the whole process's resident set size (RSS), which grows as well when
    pages of a mapped file are read in. 0 if the file is not mapped.
    """
    import psutil  # here: only this measurement needs it

    target = None if path is None else os.path.realpath(path)
    proc = psutil.Process()
    if target is None:
        return proc.memory_info().rss
    try:
        maps = proc.memory_maps(grouped=True)
    except (AttributeError, NotImplementedError, psutil.AccessDenied):
        return proc.memory_info().rss
    return sum(m.rss for m in maps if m.path == target)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
