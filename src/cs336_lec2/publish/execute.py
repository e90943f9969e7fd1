"""Re-execute the chapters with papermill and write a run record (what an instructor runs on new hardware).

Two modes:

- ``in_place=True`` refreshes the committed reference: each chapter runs with its own default
  parameters (nothing injected) on the CPU, and replaces the committed notebook only when it ran
  without error, so a failure never loses a good notebook.
- otherwise the chapters run with ``device`` and ``preset`` injected and land in ``output``, next to
  the run record ``run-record.json`` and the log ``execute.log``; the book can be built from there.
"""

from __future__ import annotations

import json
import logging
import os
import platform
import re
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from .. import __version__
from ..device import DEVICE_CHOICES
from ..presets import PRESET_CHOICES
from ..results import CHAPTER_ENV, RESULTS_ENV, read_published
from .engine import describe_failure, run_notebook
from .guard import (
    Terminated,
    claim_folder,
    environment,
    folder_lock,
    sigterm_as_interrupt,
    write_notebook_atomic,
    write_text_atomic,
)

RECORD_NAME = "run-record.json"
LOG_NAME = "execute.log"
RECORD_SCHEMA = 1


@dataclass
class ChapterRun:
    """How one chapter's execution went."""

    name: str
    seconds: float
    ok: bool
    error: str | None = None


@dataclass
class RunRecord:
    """What ``run-record.json`` holds: the machine, the parameters, each chapter and the measurements."""

    machine: dict[str, Any]
    parameters: dict[str, str]
    chapters: list[ChapterRun] = field(default_factory=list)
    measurements: list[dict[str, Any]] = field(default_factory=list)
    created: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    schema: int = RECORD_SCHEMA
    package_version: str = __version__

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, ensure_ascii=False) + "\n"


def _chapter_matches(name: object, available: list[Path]) -> list[Path]:
    """The chapters one ``--chapters`` entry names: ``5``/``05`` (ASCII digits), a stem, a file name or a title."""
    if not isinstance(name, (str, os.PathLike)):
        raise TypeError(f"chapters: each chapter must be a str such as '05' or '05_flops_and_mfu', got "
                        f"{type(name).__name__} {name!r}")
    text = os.fspath(name).strip()
    base = Path(text).name
    stem = base[: -len(".ipynb")] if base.endswith(".ipynb") else base
    if re.fullmatch(r"[0-9]{1,2}", stem):  # ASCII only: "٥" and "²" are digits to str.isdigit, never chapters here
        return [p for p in available if p.stem[:2] == f"{int(stem):02d}"]
    found = [p for p in available if stem in (p.stem, p.stem[3:])]  # 05_flops_and_mfu or flops_and_mfu
    if not found and stem and any(c.isdigit() or c.isnumeric() or c in ".,+-" for c in stem[:3]):
        raise ValueError(f"chapters: {text!r} is not a chapter number; give a whole number in ASCII digits "
                         "(5 or 05) or a chapter's name (05_flops_and_mfu)")
    return found


def find_chapters(notebooks_dir: Path, names: str | Sequence[str] | None = None) -> list[Path]:
    """The chapter notebooks (``NN_name.ipynb``) in order, or the ones ``names`` selects.

    A name may be the file stem (``05_flops_and_mfu``), the stem without its number
    (``flops_and_mfu``), the number (``5`` or ``05``, ASCII digits) or the file name. A single string
    is one name: ``"12"`` is chapter 12, never chapters 1 and 2.
    """
    available = sorted(p for p in Path(notebooks_dir).glob("[0-9][0-9]_*.ipynb"))
    if not available:
        raise FileNotFoundError(f"no chapter notebooks (NN_name.ipynb) in {notebooks_dir}")
    if names is None:
        return available
    if isinstance(names, (str, os.PathLike)):
        names = [names]
    names = list(names)
    if not names:
        return available
    chosen: list[Path] = []
    for name in names:
        matches = _chapter_matches(name, available)
        if not matches:
            known = ", ".join(p.stem for p in available)
            raise ValueError(f"chapters: no chapter matches {name!r}; known chapters: {known}")
        chosen.extend(m for m in matches if m not in chosen)
    return chosen


def machine_info(device: str) -> dict[str, Any]:
    """Where the run happened: device, CPU, library versions (no host names, no paths)."""
    import torch

    from ..device import cpu_name, describe_device, get_device  # torch loads only when a run starts
    from ..hardware.cpus import detect_core

    dev = get_device(device)
    core = detect_core()
    info: dict[str, Any] = {
        "device_type": dev.type,
        "device": describe_device(dev),
        "device_name": torch.cuda.get_device_name(dev) if dev.type == "cuda" else cpu_name(),
        "cpu": cpu_name(),
        "cpu_core": f"{core.name} ({core.fp32_flops_per_cycle} fp32 FLOP/cycle{', assumed' if core.assumed else ''})",
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
    }
    return info


def strip_papermill_metadata(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Drop papermill's per-run metadata (timings, absolute paths) so committed notebooks stay stable."""
    nb.metadata.pop("papermill", None)
    for cell in nb.cells:
        cell.metadata.pop("papermill", None)
        cell.metadata.pop("execution", None)
    return nb


def check_output_dir(path: str | os.PathLike[str], name: str = "output") -> Path:
    """``path`` as a folder that exists (created if needed) and is writable, else a ``ValueError`` naming ``name``.

    An empty or blank path (an unset shell variable) is refused: it would mean the current folder.
    """
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path).strip():
        raise ValueError(f"{name}: {path!r} is not a folder name (an unset variable?); give a folder")
    path = Path(path)
    for parent in (path, *path.parents):
        if parent.exists() and not parent.is_dir():
            what = "is a file" if parent == path else f"is under {parent}, which is a file"
            raise ValueError(f"{name}: {path} {what}; give a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"{name}: cannot create the folder {path} ({err.strerror or err})") from err
    if not os.access(path, os.W_OK | os.X_OK):
        raise ValueError(f"{name}: the folder {path} is not writable")
    return path


def execute(
    notebooks_dir: str | os.PathLike[str] = "notebooks",
    *,
    chapters: str | Sequence[str] | None = None,
    device: str = "auto",
    preset: str = "auto",
    output: str | os.PathLike[str] | None = None,
    in_place: bool = False,
    progress: bool = True,
    timeout: float = 1800,
    log: Callable[[str], None] | None = None,
) -> RunRecord:
    """Run the chapters with papermill; return (and write) the run record. See the module docstring.

    ``output`` is new, empty or an earlier run's (a folder with other files is refused, naming one); that
    run's record is removed first. A chapter runs into a scratch file and lands as ``NN_name.ipynb``
    (atomically) only when it ran without error (a failed one is kept as ``NN_name.failed.ipynb``).
    The folder is locked while the run lasts. Ctrl-C or SIGTERM removes the scratch file and raises
    ``KeyboardInterrupt`` (:class:`Terminated` for SIGTERM); the record then covers the chapters that
    finished (their notebooks and measurements; the interrupted one is listed as failed), or is not
    written when none did.
    """
    from ..checks import check_bool, check_real
    from ..presets import resolve

    in_place, progress = check_bool("in_place", in_place), check_bool("progress", progress)  # "no" is true
    notebooks_dir = Path(notebooks_dir)
    paths = find_chapters(notebooks_dir, chapters)
    if device not in DEVICE_CHOICES:
        raise ValueError(f"device must be one of {DEVICE_CHOICES}, got {device!r}")
    if preset not in PRESET_CHOICES:
        raise ValueError(f"preset must be one of {PRESET_CHOICES}, got {preset!r}")
    try:
        timeout = check_real("timeout", timeout, minimum=1)
    except (TypeError, ValueError) as err:
        raise ValueError(f"timeout must be a finite number of seconds per cell, at least 1, got {timeout!r}") from err
    if in_place and output is not None:
        raise ValueError("give either in_place=True or an output directory, not both")
    if in_place and (device == "cuda" or preset not in ("auto", "small")):
        raise ValueError(
            "in_place refreshes the committed CPU reference (device 'auto'/'cpu', preset 'auto'/'small'); "
            "write GPU runs to an output directory instead"
        )
    if not in_place:
        if output is None:
            raise ValueError("output: give a directory for the executed notebooks (or in_place=True)")
        if not isinstance(output, (str, os.PathLike)) or not os.fspath(output).strip():
            raise ValueError(f"output: {output!r} is not a folder name (an unset variable?); give a folder")
        if Path(output).resolve() == notebooks_dir.resolve():
            raise ValueError(f"output: {output} is the chapters' own folder, and a run there would overwrite the "
                             "committed notebooks; give another folder, or refresh them with in_place=True "
                             "(--in-place)")

    # The committed reference is a CPU run: hide any GPU from its kernels instead of injecting parameters.
    hide_gpu = in_place or device == "cpu"
    dev, resolved_preset = resolve("cpu" if hide_gpu else device, "small" if in_place else preset)  # before any folder
    # output is None exactly when in_place (checked above); claim_folder never takes a folder of a user's files
    out_dir = notebooks_dir if output is None else claim_folder(check_output_dir(output), "output")
    with folder_lock(out_dir), sigterm_as_interrupt():
        record = RunRecord(
            machine=machine_info(dev.type),
            parameters={"device": dev.type, "preset": resolved_preset, "requested_device": device,
                        "requested_preset": preset},
        )
        (out_dir / RECORD_NAME).unlink(missing_ok=True)  # an old record must never describe this run's notebooks
        try:
            _run_chapters(paths, notebooks_dir, out_dir, record,
                          {} if in_place else {"device": device, "preset": preset},
                          hide_gpu=hide_gpu, in_place=in_place, progress=progress, timeout=timeout, log=log)
        except KeyboardInterrupt:
            if record.chapters and not in_place:  # what finished before the interrupt, the interrupted one failed
                write_text_atomic(out_dir / RECORD_NAME, record.to_json())
            raise
        write_text_atomic(out_dir / RECORD_NAME, record.to_json())
    return record


@contextmanager
def _ctrl_c_raises() -> Iterator[None]:
    """Ctrl-C raises ``KeyboardInterrupt`` wherever it lands, also inside nbclient's event loop.

    With Python's own SIGINT handler in place, asyncio's runner takes Ctrl-C over: it cancels the wait for
    the running cell, and nbclient reports a cancelled wait as ``DeadKernelError("Kernel died")``, so a
    Ctrl-C looked like a crash. A handler of our own keeps asyncio's away (it steps in only for Python's).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _run_chapters(paths: list[Path], notebooks_dir: Path, out_dir: Path, record: RunRecord,
                  parameters: dict[str, str], *, hide_gpu: bool, in_place: bool, progress: bool,
                  timeout: float, log: Callable[[str], None] | None) -> None:
    """Run each chapter into a scratch file and keep it (or not); fill ``record``'s chapters and measurements."""
    from tqdm.auto import tqdm

    log_path = out_dir / LOG_NAME
    fd, results_name = tempfile.mkstemp(prefix="cs336-results-", suffix=".jsonl")
    os.close(fd)  # publish() appends by name; keeping the descriptor open would leak one per run
    results_file = Path(results_name)
    overall = tqdm(paths, desc="chapters", unit="chapter", disable=not progress, file=sys.stderr)
    log = log or tqdm.write  # a line printed under a live progress bar, not through it
    scratch: Path | None = None
    papermill_log = logging.getLogger("papermill")  # nbclient logs a timeout there before raising it
    old_level = papermill_log.level
    papermill_log.setLevel(logging.CRITICAL)
    try:
        with _ctrl_c_raises(), log_path.open("w", encoding="utf-8") as log_file:
            for path in overall:
                overall.set_postfix_str(path.stem)
                target = out_dir / path.name
                failed_copy = out_dir / f"{path.stem}.failed.ipynb"
                scratch = out_dir / f".{path.stem}.running.ipynb"
                if not in_place:  # this run's result replaces the earlier one, or its absence says it failed
                    target.unlink(missing_ok=True)
                    failed_copy.unlink(missing_ok=True)
                start = time.perf_counter()
                error = None
                env = {RESULTS_ENV: str(results_file), CHAPTER_ENV: path.stem, "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
                if hide_gpu:
                    env["CUDA_VISIBLE_DEVICES"] = ""
                try:
                    with environment(**env):
                        run_notebook(
                            path, scratch, parameters=parameters, kernel_name="python3",
                            cwd=str(notebooks_dir), progress_bar=progress, execution_timeout=timeout,
                            # ipykernel warns on every start that its local TCP socket is unencrypted, and
                            # logs a traceback when an interrupt closes its sockets: neither helps a reader.
                            extra_arguments=["--IPKernelApp.log_level=CRITICAL"],
                        )
                except Exception as err:  # a failing chapter is reported; the others still run
                    error = describe_failure(err, scratch, timeout)
                seconds = time.perf_counter() - start
                if scratch.exists():
                    try:
                        nb = strip_papermill_metadata(nbformat.read(scratch, as_version=4))
                    except (ValueError, OSError) as err:  # a disk that filled up mid-write leaves a torn file
                        error = error or (f"its executed copy {scratch.name} could not be read back "
                                          f"({str(err).splitlines()[0] if str(err) else type(err).__name__}); "
                                          "is the disk full?")
                        nb = None
                    try:
                        if nb is not None and error is None:
                            write_notebook_atomic(nb, target)
                        elif nb is not None and not in_place:
                            write_notebook_atomic(nb, failed_copy)
                    finally:
                        scratch.unlink()
                run = ChapterRun(path.stem, round(seconds, 2), error is None, error)
                record.chapters.append(run)
                line = f"{path.stem}: {'ok' if run.ok else 'FAILED'} in {seconds:.1f} s"
                line += f" — {error}" if error else ""
                log_file.write(line + "\n")
                log_file.flush()
                log(line)
    except KeyboardInterrupt as err:
        if scratch is not None:
            scratch.unlink(missing_ok=True)
        what = "SIGTERM" if isinstance(err, Terminated) else "Ctrl-C"
        finished = len(record.chapters)
        if finished and record.chapters[-1].name != path.stem:  # not the chapter that just finished
            # the chapters that finished keep their record: a long GPU run is not lost to a timeout
            record.chapters.append(ChapterRun(path.stem, round(time.perf_counter() - start, 2), False,
                                              f"interrupted ({what})"))
        with log_path.open("a", encoding="utf-8") as log_file:
            log_file.write(f"interrupted ({what}): " + (f"the run record covers the {finished} chapter(s) that "
                                                         "finished\n" if finished else "no run record written\n"))
        raise
    finally:
        papermill_log.setLevel(old_level)
        overall.close()
        cut = {run.name for run in record.chapters if (run.error or "").startswith("interrupted")}
        # an interrupted chapter's notebook is not kept, so neither are the rows it published before the interrupt
        record.measurements = [m for m in read_published(results_file, warn=log) if m.get("chapter") not in cut]
        results_file.unlink(missing_ok=True)
