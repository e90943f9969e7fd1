#!/usr/bin/env python3
"""Time this checkout beside another git revision on the same machine, in one run (issue 30 item 4).

    tools/bench.py REV [--chapters 05 12] [--skip chapters book] [--suite] [--json FILE]
    make bench REV=ca8978a

Both sides run from temporary copies: this checkout's files (tracked and untracked, not ignored; your
uncommitted changes included) are copied into a temporary folder, and ``REV`` is checked out into a
temporary ``git worktree`` that is removed afterwards. Nothing of yours is written to. Each side runs
with this Python (its venv) and its own ``src/`` first on ``PYTHONPATH``, each measurement for one side
right after the other's, so that both see the same load. It prints one table:

* each chapter's ``cs336-lec2 execute`` time on the CPU at the small preset (the run record's seconds,
  which include the kernel's start and the chapter's imports) and their total;
* a bare kernel's start, and the imports every chapter makes, timed apart (once per side);
* ``cs336-lec2 book`` into an empty folder (both editions), then again after one markdown cell of
  chapter 5 changed (the rebuild);
* with ``--suite``, ``make test`` (with this venv; nothing is installed).

The last column is this checkout's time over the revision's (below 1: faster). Timings on a shared
machine are noisy: compare ratios of one run, not seconds across runs; the book and suite rows also give
the CPU seconds (user + system, children included), which a busy machine disturbs less than wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
STEPS = ("chapters", "imports", "book", "suite")
IMPORTS = "import numpy, torch, matplotlib.pyplot, cs336_lec2"
CHANGED_CHAPTER = "05_flops_and_mfu"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; ``--skip`` and ``--chapters`` are checked here, with one clear message each."""
    parser = argparse.ArgumentParser(prog="tools/bench.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("rev", help="the git revision to compare with (a commit, tag or branch)")
    parser.add_argument("--chapters", nargs="+", metavar="NN", default=None,
                        help="chapters to execute (numbers such as 05 or names; default: all)")
    parser.add_argument("--skip", nargs="+", default=[], metavar="STEP",
                        help=f"steps to leave out: {', '.join(s for s in STEPS if s != 'suite')}")
    parser.add_argument("--suite", action="store_true", help="also time `make test` on both sides (long)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the measurements here as JSON")
    args = parser.parse_args(argv)
    unknown = [s for s in args.skip if s not in STEPS]
    if unknown:
        parser.error(f"--skip: {', '.join(unknown)} is not a step; steps: {', '.join(STEPS)}")
    if args.chapters is not None:
        bad = [c for c in args.chapters if not re.fullmatch(r"[0-9]{2}(_\w+)?", c)]
        if bad:
            parser.error(f"--chapters: {', '.join(bad)} is not a chapter (give numbers such as 05 or names)")
    if not args.rev.strip() or args.rev.startswith("-"):
        parser.error(f"rev: {args.rev!r} is not a git revision")
    return args


def ratio(this: float | None, other: float | None) -> str:
    """``this / other`` as ``0.82×``; ``–`` where either is missing or the revision's time is 0."""
    if this is None or other is None or other <= 0:
        return "–"
    return f"{this / other:.2f}×"


def format_table(rows: list[tuple[str, float | None, float | None]], this: str, other: str) -> str:
    """A plain-text table: one row per measurement (seconds on each side, ``–`` where missing) and the ratio."""
    head = ("", this, other, "ratio")
    cells = [head] + [(name, _seconds(a), _seconds(b), ratio(a, b)) for name, a, b in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(4)]
    lines = []
    for n, row in enumerate(cells):
        lines.append("  ".join([row[0].ljust(widths[0])] + [row[i].rjust(widths[i]) for i in (1, 2, 3)]).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def own_work_line(seconds: dict[str, float], kernel: float, imports: float) -> str:
    """The slowest chapter's own work: its execute seconds less a bare kernel's start and the common imports."""
    name = max(seconds, key=seconds.__getitem__)
    own = seconds[name] - kernel - imports
    return (f"own work (this checkout; less kernel start {kernel:.1f} s and imports {imports:.1f} s): "
            f"at most {own:.1f} s ({name})")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f} s"


class Side:
    """One side of the comparison: a tree of files to run, with its own ``src/`` first on the path."""

    def __init__(self, name: str, tree: Path, work: Path):
        self.name, self.tree, self.work = name, tree, work
        self.env = {**os.environ, "PYTHONPATH": str(tree / "src"), "CUDA_VISIBLE_DEVICES": "",
                    "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
        script = tomllib.loads((tree / "pyproject.toml").read_text())["project"]["scripts"]["cs336-lec2"]
        module, function = script.split(":")
        self.cli = [sys.executable, "-c", f"import sys; from {module} import {function} as m; sys.exit(m())"]

    def run(self, args: list[str], **kwargs) -> float:
        """Run a command in the tree; its wall time in seconds (a failure stops the benchmark, with its log).

        The CPU seconds it and its children used (user + system) are kept in ``self.cpu``: on a busy machine
        they compare two sides better than wall time does.
        """
        start, before = time.perf_counter(), _children_cpu()
        done = subprocess.run(args, cwd=self.tree, env=self.env, capture_output=True, text=True, **kwargs)
        if done.returncode != 0:
            raise SystemExit(f"{self.name}: {' '.join(args[:4])} … failed (exit {done.returncode}):\n"
                             f"{(done.stdout + done.stderr)[-3000:]}")
        self.cpu = _children_cpu() - before
        return time.perf_counter() - start

    def chapters(self, chapters: list[str] | None) -> dict[str, float]:
        """Each chapter's seconds as ``cs336-lec2 execute`` records them (CPU, small preset)."""
        out = self.work / f"run-{self.name}"
        selected = ["--chapters", *chapters] if chapters else []
        self.run([*self.cli, "execute", "--output", str(out), "--device", "cpu", "--preset", "small",
                  "--no-progress", *selected])
        record = json.loads((out / "run-record.json").read_text(encoding="utf-8"))
        failed = [c["name"] for c in record["chapters"] if not c["ok"]]
        if failed:
            raise SystemExit(f"{self.name}: {', '.join(failed)} failed; see {out}/execute.log")
        return {c["name"]: float(c["seconds"]) for c in record["chapters"]}

    def kernel(self) -> tuple[float, float]:
        """A bare kernel's start, then the chapters' common imports in it (seconds)."""
        code = (
            "import time, jupyter_client\n"
            "t = time.perf_counter(); km, kc = jupyter_client.manager.start_new_kernel(kernel_name='python3')\n"
            "started = time.perf_counter() - t; t = time.perf_counter()\n"
            f"reply = kc.execute_interactive({IMPORTS!r}, timeout=600)\n"
            "imported = time.perf_counter() - t; kc.stop_channels(); km.shutdown_kernel(now=True)\n"
            "assert reply['content']['status'] == 'ok', reply['content']\n"
            "print(started, imported)\n"
        )
        done = subprocess.run([sys.executable, "-c", code], cwd=self.tree, env=self.env, capture_output=True,
                              text=True, timeout=900)
        if done.returncode != 0:
            raise SystemExit(f"{self.name}: the bare kernel failed:\n{done.stderr[-2000:]}")
        started, imported = map(float, done.stdout.split()[-2:])
        return started, imported

    def book(self, rebuild: bool) -> float:
        """``cs336-lec2 book`` into ``book-<side>/``: from nothing, or after a one-cell change of chapter 5."""
        build = self.work / f"book-{self.name}"
        if not rebuild:
            shutil.rmtree(build, ignore_errors=True)
        else:
            path = self.tree / "notebooks" / f"{CHANGED_CHAPTER}.ipynb"
            original = path.read_bytes()
            nb = nbformat.read(path, as_version=4)
            cell = next(c for c in nb.cells if c.cell_type == "markdown")
            cell.source += " (benchmark)"  # one cell changed, in both editions' copies
            nbformat.write(nb, path)
            try:
                return self.run([*self.cli, "book", "--build-dir", str(build)])
            finally:  # the suite runs on this tree next: its drift and nbval tests must see the chapter as it was
                path.write_bytes(original)
        return self.run([*self.cli, "book", "--build-dir", str(build)])

    def suite(self) -> float:
        """``make test`` with this venv (its stamp is made fresh, so make installs nothing)."""
        stamp = self.work / f"stamp-{self.name}"
        stamp.touch()
        return self.run(["make", "test", f"VENV={sys.prefix}", f"STAMP={stamp}"])


def copy_checkout(target: Path) -> Path:
    """Copy this checkout's tracked and untracked (not ignored) files into ``target``."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    # a repository of its own: the suite's tests read `git ls-files` (a copy without .git failed them)
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost"}
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "--no-verify", "-m", "bench copy"]):
        subprocess.run(["git", *command], cwd=target, env=env, check=True, capture_output=True)
    return target


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and print the table (see the module docstring)."""
    args = parse_args(argv)
    found = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{args.rev}^{{commit}}"], cwd=ROOT,
                           capture_output=True, text=True)
    if found.returncode != 0:
        raise SystemExit(f"tools/bench.py: {args.rev!r} is not a commit of this repository")
    commit = found.stdout.strip()
    load = f"{os.getloadavg()[0]:.1f}"  # the machine's load average at the start and at the end
    rows: list[tuple[str, float | None, float | None]] = []
    with tempfile.TemporaryDirectory(prefix="cs336-bench-") as tmp:
        work = Path(tmp)
        other_tree = work / "rev"
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(other_tree), commit], cwd=ROOT,
                       check=True)
        try:
            this = Side("this", copy_checkout(work / "this"), work)
            other = Side("rev", other_tree, work)
            sides = (this, other)
            if "chapters" not in args.skip:
                ran: list[dict[str, float]] = []
                cpu: list[float] = []
                for side in sides:
                    ran.append(side.chapters(args.chapters))
                    cpu.append(side.cpu)
                for name in sorted(set(ran[0]) | set(ran[1])):
                    rows.append((name, ran[0].get(name), ran[1].get(name)))
                both = set(ran[0]) & set(ran[1])
                totals = [sum(r[n] for n in both) for r in ran]
                rows.append(("chapters, total (both sides ran)", totals[0], totals[1]))
                rows.append(("  CPU (user + system)", cpu[0], cpu[1]))
            if "imports" not in args.skip:
                kernels = [side.kernel() for side in sides]
                rows.append(("bare kernel start", kernels[0][0], kernels[1][0]))
                rows.append(("imports (numpy, torch, matplotlib, cs336_lec2)", kernels[0][1], kernels[1][1]))
            if "book" not in args.skip:
                fresh = [(side.book(rebuild=False), side.cpu) for side in sides]
                again = [(side.book(rebuild=True), side.cpu) for side in sides]
                rows.append(("book from nothing (both editions)", fresh[0][0], fresh[1][0]))
                rows.append(("  CPU (user + system)", fresh[0][1], fresh[1][1]))
                rows.append(("book after a one-cell change", again[0][0], again[1][0]))
                rows.append(("  CPU (user + system)", again[0][1], again[1][1]))
            if args.suite:
                suite = [(side.suite(), side.cpu) for side in sides]
                rows.append(("make test", suite[0][0], suite[1][0]))
                rows.append(("  CPU (user + system)", suite[0][1], suite[1][1]))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(other_tree)], cwd=ROOT, capture_output=True)
    load += f" to {os.getloadavg()[0]:.1f}"
    print(f"this checkout vs {args.rev} ({commit[:10]}), {os.cpu_count()} CPUs, load {load}; "
          "seconds (wall unless CPU):")
    print(format_table(rows, "this", args.rev[:12]))
    if "chapters" not in args.skip and "imports" not in args.skip:
        print(own_work_line(ran[0], *kernels[0]))
    if args.json:
        args.json.write_text(json.dumps({"rev": commit, "rows": rows}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
