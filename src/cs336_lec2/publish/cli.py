"""The ``cs336-lec2`` command: ``info``, ``execute``, ``book`` and ``notebooks``."""

from __future__ import annotations

import argparse
import json
import os
import sys
import webbrowser
from collections.abc import Sequence
from pathlib import Path

from ..checks import printable

# The choices of device.DEVICE_CHOICES, presets.PRESET_CHOICES and book.EDITIONS, repeated so that
# `cs336-lec2 --help` starts without importing torch; tests/test_cli.py keeps them equal.
DEVICE_CHOICES = ("auto", "cpu", "cuda")
PRESET_CHOICES = ("auto", "small", "medium", "large")
EDITION_CODES = ("en", "zh")
INFO_DTYPES = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8")


def _info(args: argparse.Namespace) -> int:
    import torch

    from .. import __version__, hardware
    from ..device import describe_device, get_device

    _check_cuda(args.device)
    try:
        device = get_device(args.device)
    except (ValueError, RuntimeError) as err:
        raise UsageError(f"--device {args.device}: give auto, cpu, cuda or cuda:N of a visible GPU ({err})") from err
    print(f"cs336-lec2 {__version__}, torch {torch.__version__}, CUDA {torch.version.cuda or 'none'}")
    print(f"device: {describe_device(device)}")
    print("dense peak FLOP/s for this device (what MFU divides by):")
    sources: dict[str, list[str]] = {}
    for key in INFO_DTYPES:
        try:
            peak = hardware.peak_flops(key, device)
        except (ValueError, LookupError) as err:
            reason = str(err).splitlines()[0] if args.sources else _short(str(err))
            print(f"  {key:>5}: not available ({reason})")
            continue
        kind = "estimate" if peak.is_estimate else "datasheet"
        sources.setdefault(peak.source, []).append(key)
        print(f"  {key:>5}: {peak.flops / 1e12:9.2f} TFLOP/s  ({kind})")
    if args.sources:
        print("sources:")
        for source, keys in sources.items():
            print(f"  {', '.join(keys)}: {source}")
    elif sources:
        print("  (cs336-lec2 info --sources: where each peak comes from)")
    if args.measure:
        from ..timing import matmul_flops_per_sec

        print("measured compute roof (fastest square matmul, torch's current threads):")
        for dtype in (torch.float32, torch.bfloat16):
            roof = matmul_flops_per_sec(dtype=dtype, device=device)
            key = hardware.dtype_key(dtype)
            try:
                share = f"{roof / hardware.peak_flops(dtype, device).flops:.2f} of the peak above"
            except (ValueError, LookupError):
                share = "no peak to compare"
            print(f"  {key:>5}: {roof / 1e12:9.3f} TFLOP/s  ({share})")
    return 0


def _short(text: str, limit: int = 72) -> str:
    """The first clause of ``text`` (up to ``limit`` characters): a reason that fits on one line."""
    first = text.splitlines()[0].split("; ")[0] if text else ""
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def _folder(text: str) -> Path:
    """An argparse type: a folder path, refusing an empty or blank one (an unset shell variable)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder name (an unset variable?); give a folder")
    return Path(text)


class UsageError(ValueError):
    """Bad command-line input, already phrased with the flag's name (exit status 2)."""


def _check_cuda(device: str) -> None:
    """``--device cuda`` on a machine where torch sees no GPU: one line naming the flag."""
    if device.strip().lower().startswith("cuda"):
        import torch

        from ..device import no_cuda_reason

        if not torch.cuda.is_available():
            raise UsageError(f"--device {device}: {no_cuda_reason()}; use --device auto or --device cpu")


def _check_execute_args(args: argparse.Namespace) -> None:
    """Reject bad ``execute`` flags with messages that name the flag, before any folder is created."""
    if not args.in_place and args.output is None:
        raise UsageError("give --output DIR (or --in-place to refresh the committed notebooks)")
    if args.in_place and (args.device == "cuda" or args.preset not in ("auto", "small")):
        raise UsageError(f"--in-place refreshes the committed CPU reference (--device auto or cpu, --preset auto or "
                         f"small), not --device {args.device} --preset {args.preset}: give --output DIR for that run")
    if not args.timeout > 0:
        raise UsageError(f"--timeout must be a positive number of seconds per cell, got {args.timeout}")
    if args.in_place and args.notebooks.is_dir() and not os.access(args.notebooks, os.W_OK | os.X_OK):
        raise UsageError(f"--in-place rewrites the chapters in --notebooks {args.notebooks}, which is not writable")
    if args.output is not None and args.output.resolve() == args.notebooks.resolve():
        raise UsageError(f"--output {args.output} is the chapters' own folder (--notebooks): a run there would "
                         "overwrite the committed notebooks; give another folder, or use --in-place to refresh them")
    from .execute import find_chapters

    try:
        find_chapters(args.notebooks, args.chapters)
    except FileNotFoundError as err:
        raise UsageError(f"--notebooks {args.notebooks}: {err}") from err
    except ValueError as err:
        raise UsageError(str(err).replace("chapters:", "--chapters:", 1)) from err
    _check_cuda(args.device)
    if args.output is not None:
        from .execute import check_output_dir
        from .guard import claim_folder

        try:
            claim_folder(check_output_dir(args.output, "--output"), "--output")
        except ValueError as err:
            raise UsageError(str(err)) from err


def _execute(args: argparse.Namespace) -> int:
    from .execute import execute
    from .guard import sigterm_as_interrupt

    with sigterm_as_interrupt():  # from the start: a SIGTERM while torch loads is one clean line too
        _check_execute_args(args)
        record = execute(
            args.notebooks, chapters=args.chapters, device=args.device, preset=args.preset,
            output=args.output, in_place=args.in_place, progress=not args.no_progress, timeout=args.timeout,
        )
    total = sum(c.seconds for c in record.chapters)
    failed = [c for c in record.chapters if not c.ok]
    where = args.notebooks if args.in_place else args.output
    print(f"{len(record.chapters) - len(failed)}/{len(record.chapters)} chapters ran in {total:.1f} s; "
          f"record: {Path(where) / 'run-record.json'}")
    for chapter in failed:
        print(f"FAILED {chapter.name}: {printable(chapter.error)}", file=sys.stderr)
    return 1 if failed else 0


def _book(args: argparse.Namespace) -> int:
    from .book import BookBuildError, build_book
    from .execute import check_output_dir

    if args.from_dir is not None and not args.from_dir.is_dir():
        raise UsageError(f"--from {args.from_dir}: there is no such folder (give a cs336-lec2 execute --output DIR)")
    if args.build_dir is not None:
        try:
            check_output_dir(args.build_dir, "--build-dir")
        except ValueError as err:
            raise UsageError(str(err)) from err
    try:
        html = build_book(
            args.root, build_dir=args.build_dir, notebooks_from=args.from_dir,
            languages=tuple(args.languages), strict=args.strict, quiet=not args.verbose,
            warn=lambda message: print(f"cs336-lec2 book: warning: {printable(message)}", file=sys.stderr),
        )
    except BookBuildError as err:
        print(f"cs336-lec2 book: {err}", file=sys.stderr)
        return 1
    except PermissionError as err:
        raise UsageError(f"cannot write {err.filename}: permission denied (check --build-dir)") from err
    index = html / "index.html"
    print(f"book built: {index}")
    if args.open and _can_open_browser():
        webbrowser.open(index.as_uri())
    return 0


def _can_open_browser() -> bool:
    """Only open a browser where a person can see it (never in CI or on a headless server)."""
    if os.environ.get("CI"):
        return False
    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _notebooks(args: argparse.Namespace) -> int:
    from .reader import write_reader_notebooks

    written = write_reader_notebooks(args.notebooks, args.output, tuple(args.languages), force=args.force)
    for lang in args.languages:
        count = sum(1 for path in written if path.parent.name == lang)
        print(f"{count} {lang} notebooks in {args.output / lang} (jupyter lab {args.output / lang})")
    return 0


def _merge(args: argparse.Namespace) -> int:
    from .execute import write_text_atomic
    from .records import load_record, merge_records

    if args.output.exists() and not args.force:
        raise UsageError(f"--output {args.output} exists; give a new file name, or --force to replace it")
    merged = merge_records([load_record(path) for path in args.records])
    write_text_atomic(args.output, json.dumps(merged, indent=2, ensure_ascii=False) + "\n")
    print(f"{len(merged['chapters'])} chapters, {len(merged['measurements'])} measurements: {args.output}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``cs336-lec2`` and its five sub-commands."""
    parser = argparse.ArgumentParser(
        prog="cs336-lec2",
        description="Toolkit of the executable CS336 lecture 2 book: inspect this machine, re-execute the "
        "chapters, build the bilingual HTML book.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    info = sub.add_parser("info", help="this machine's device, torch version and the dense peaks that apply")
    info.add_argument("--device", default="auto", help="auto (default), cpu or cuda")
    info.add_argument("--sources", action="store_true",
                      help="also print where each peak comes from (datasheet, whitepaper, CPU estimate)")
    info.add_argument("--measure", action="store_true",
                      help="also time a large fp32 and bf16 matmul: the measured compute roof beside the peaks")
    info.set_defaults(run=_info)

    ex = sub.add_parser(
        "execute", help="re-execute the chapters with papermill and write a run record",
        description="Run the chapters top to bottom with papermill. Each run writes run-record.json "
        "(machine, parameters, per-chapter time, published measurements) and execute.log beside the notebooks.",
    )
    ex.add_argument("--device", choices=DEVICE_CHOICES, default="auto", help="injected device (default auto)")
    ex.add_argument("--preset", choices=PRESET_CHOICES, default="auto",
                    help="injected problem sizes (default auto: small on CPU, medium/large by GPU memory)")
    ex.add_argument("--chapters", nargs="+", metavar="CHAPTER",
                    help="run only these chapters (5, 05, 05_flops_and_mfu or flops_and_mfu); default: all")
    where = ex.add_mutually_exclusive_group()
    where.add_argument("--output", type=_folder, metavar="DIR", help="write the executed notebooks and the record here")
    where.add_argument("--in-place", action="store_true",
                       help="refresh the committed CPU reference in notebooks/ (default parameters, GPU hidden)")
    ex.add_argument("--notebooks", type=_folder, default=Path("notebooks"), metavar="DIR",
                    help="where the chapters are (default notebooks/)")
    ex.add_argument("--timeout", type=int, default=1800, help="seconds one cell may run, > 0 (default 1800)")
    ex.add_argument("--no-progress", action="store_true", help="no progress bars (for logs)")
    ex.set_defaults(run=_execute)

    bk = sub.add_parser(
        "book", help="build the HTML book (en and zh editions) without executing anything",
        description="Build both editions with Jupyter Book 1 into _build/html/{en,zh} under a landing page.",
    )
    bk.add_argument("--from", dest="from_dir", type=_folder, metavar="DIR",
                    help="take executed notebooks from this cs336-lec2 execute output (default: notebooks/)")
    bk.add_argument("--root", type=_folder, default=Path("."), help="the repository root (default .)")
    bk.add_argument("--build-dir", type=_folder, help="output folder (default ROOT/_build)")
    bk.add_argument("--languages", nargs="+", choices=EDITION_CODES, default=list(EDITION_CODES),
                    help="editions to build")
    bk.add_argument("--strict", action="store_true", help="treat every Sphinx warning as an error (-W)")
    bk.add_argument("--open", action="store_true", help="open the built book in a browser where there is a display")
    bk.add_argument("--verbose", action="store_true", help="show Jupyter Book's own output")
    bk.set_defaults(run=_book)

    nbs = sub.add_parser(
        "notebooks", help="write the one-language notebooks (English, Chinese) to run in a local Jupyter",
        description="Write each chapter as the en and zh editions show it, one language in prose, code and "
        "outputs, answers folded, into OUTPUT/en/ and OUTPUT/zh/. Files you changed are never replaced "
        "without --force.",
    )
    nbs.add_argument("--output", type=_folder, default=Path("editions"), metavar="DIR",
                     help="where to write them (default editions/: editions/en/, editions/zh/)")
    nbs.add_argument("--languages", nargs="+", choices=EDITION_CODES, default=list(EDITION_CODES),
                     help="editions to write (default: en zh)")
    nbs.add_argument("--notebooks", type=_folder, default=Path("notebooks"), metavar="DIR",
                     help="where the two-language chapters are (default notebooks/)")
    nbs.add_argument("--force", action="store_true", help="replace notebooks already there that differ")
    nbs.set_defaults(run=_notebooks)

    mg = sub.add_parser(
        "merge", help="merge run records of one machine (a run cut short, and its missing chapters run later)",
        description="Merge run-record.json files of runs on the same machine, torch, CUDA and preset into one "
        "record for book/results/ (a chapter run later replaces the earlier run of it, its measurements too).",
    )
    mg.add_argument("records", nargs="+", type=Path, metavar="RECORD", help="run-record.json files, oldest first")
    mg.add_argument("--output", type=Path, required=True, metavar="FILE", help="the merged record to write")
    mg.add_argument("--force", action="store_true", help="replace FILE if it exists")
    mg.set_defaults(run=_merge)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status.

    0 on success, 1 when a chapter or the book build failed or a file could not be written (one line
    on stderr), 2 for bad input (one line, no traceback), 130 when interrupted with Ctrl-C, 143 on SIGTERM.
    """
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (ValueError, FileNotFoundError, RuntimeError) as err:
        print(f"cs336-lec2 {args.command}: {printable(str(err).strip())}", file=sys.stderr)
        return 2
    except OSError as err:  # a full disk, a folder that vanished: one line naming the file, never a traceback
        where = f" ({err.filename})" if err.filename and str(err.filename) not in str(err) else ""
        print(f"cs336-lec2 {args.command}: {err.strerror or err}{where}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as err:
        sigterm = type(err).__name__ == "Terminated"  # execute.Terminated, raised for SIGTERM
        what = "terminated (SIGTERM)" if sigterm else "interrupted (Ctrl-C)"
        print(f"cs336-lec2 {args.command}: {what}; nothing half-done was kept", file=sys.stderr)
        return 143 if sigterm else 130


if __name__ == "__main__":
    sys.exit(main())
