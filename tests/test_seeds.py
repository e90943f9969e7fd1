"""Every chapter's checked outputs are the same for any ``seed`` parameter (issue 9).

Each chapter runs with papermill on the CPU (``CUDA_VISIBLE_DEVICES=""``) with ``seed`` injected as 1
and then as 2, each in a process of its own. Every code cell that nbval checks (not
tagged ``nbval-ignore-output`` or ``nbval-skip``) must then show what the committed notebook shows,
compared the way nbval compares: streams merged by name, the regexes of ``notebooks/sanitize.cfg``
applied, images by presence only. Cells are matched by their source, since papermill adds an
``injected-parameters`` cell. Select one chapter with ``-k 07``.

``CS336_SEEDS`` widens the sweep (issue 20.10): a comma list of seeds and ranges, ``CS336_SEEDS=3-12,99``;
by default seeds 1 and 2. The sweep executes every chapter again per seed (about 530 s for two seeds on a
2-core machine), so it is marked ``nightly`` and left out of ``make test`` (issue 30), where nbval executes
each chapter once: ``.github/workflows/seeds.yml`` runs seeds 1 and 2 and ten new seeds every night, so an
``allclose`` that only holds for lucky seeds is found; its failure names the seed to reproduce it with
(``make nightly`` runs it locally).
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import nbformat
import pytest

from cs336_lec2.results import RESULTS_ENV

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CHAPTERS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def parse_seeds(text: str) -> tuple[int, ...]:
    """``"1,2"`` -> (1, 2); ``"3-5,9"`` -> (3, 4, 5, 9): the seeds ``CS336_SEEDS`` names, in order, once each."""
    seeds: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        if not re.fullmatch(r"[0-9]+(-[0-9]+)?", part):
            raise ValueError(f"CS336_SEEDS: {part!r} is neither a seed nor a range a-b (e.g. 3-12,99)")
        low, _, high = part.partition("-")
        seeds += [s for s in range(int(low), int(high or low) + 1) if s not in seeds]
    return tuple(seeds)


SEEDS = parse_seeds(os.environ.get("CS336_SEEDS", "1,2"))
UNCHECKED_TAGS = {"nbval-ignore-output", "nbval-skip"}
# Keys nbval leaves out of its comparison (images too, as nbval does without --nbdime): only their presence counts.
SKIPPED_KEYS = {"metadata", "traceback", "prompt_number", "output_type", "name", "execution_count",
                "application/vnd.jupyter.widget-view+json"}
IMAGES = {"image/png", "image/jpeg", "image/svg+xml"}
TIMEOUT_S = 900

# Runs in a child process: papermill with the seed injected and the kernel's start-up warning silenced.
RUNNER = """
import sys, papermill
source, target, seed, cwd, timeout = sys.argv[1:]
try:
    papermill.execute_notebook(source, target, parameters={"seed": int(seed)}, kernel_name="python3", cwd=cwd,
                               progress_bar=False, execution_timeout=int(timeout),
                               extra_arguments=["--IPKernelApp.log_level=ERROR"])
except papermill.PapermillExecutionError as err:
    print(f"cell [{err.exec_count}] raised {err.ename}: {err.evalue}", file=sys.stderr)
    sys.exit(1)
"""


def _sanitizer():
    from nbval.plugin import get_sanitize_patterns

    patterns = get_sanitize_patterns((NOTEBOOKS / "sanitize.cfg").read_text(encoding="utf-8"))

    def sanitize(value):
        if isinstance(value, list):
            value = "".join(value)
        if not isinstance(value, str):
            return value
        for regex, replace in patterns:
            value = re.sub(regex, replace, value)
        return value

    return sanitize


def comparable(outputs, sanitize) -> dict[str, list]:
    """A cell's outputs as nbval compares them: one list of sanitized values per key (streams by name)."""
    from nbval.plugin import coalesce_streams

    outs: dict[str, list] = defaultdict(list)
    for out in coalesce_streams([nbformat.from_dict(o) for o in outputs]):
        if out.output_type == "stream":
            outs[out.name].append(sanitize(out.text))
            continue
        for key, value in out.items():
            if key == "data":
                for mime, content in value.items():
                    if mime in IMAGES:
                        outs[mime].append("<image>")
                    elif mime not in SKIPPED_KEYS:
                        outs[mime].append(sanitize(content))
            elif key not in SKIPPED_KEYS:
                outs[key].append(sanitize(value))
    return dict(outs)


def differences(reference: nbformat.NotebookNode, run: nbformat.NotebookNode, sanitize) -> list[str]:
    """One message per checked cell of ``reference`` whose outputs ``run`` does not reproduce."""
    by_source: dict[str, list] = defaultdict(list)
    for cell in run.cells:
        if cell.cell_type == "code":
            by_source[cell.source].append(cell)
    problems = []
    for index, cell in enumerate(reference.cells):
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        name = f"cell {index} [{cell.execution_count}] ({cell.source.strip().splitlines()[0][:60]!r})"
        if not by_source[cell.source]:
            problems.append(f"{name}: not found in the executed notebook")
            continue
        ran = by_source[cell.source].pop(0)
        errors = [o for o in ran.outputs if o.output_type == "error"]
        if errors:  # papermill stops at the first error: the cells after it have no outputs to compare
            problems.append(f"{name}: raised {errors[0].ename}: {errors[0].evalue} (the cells after it did not run)")
            break
        if UNCHECKED_TAGS & set(cell.metadata.get("tags", [])):
            continue
        want, got = comparable(cell.outputs, sanitize), comparable(ran.outputs, sanitize)
        if want != got:
            diff = difflib.unified_diff(_lines(want), _lines(got), "committed", "this seed", lineterm="", n=1)
            problems.append(f"{name}: outputs differ\n" + "\n".join(list(diff)[:40]))
    return problems


def _lines(outputs: dict[str, list]) -> list[str]:
    return [f"{key}: {line}" for key in sorted(outputs) for value in outputs[key] for line in str(value).splitlines()]


@pytest.mark.slow
@pytest.mark.nightly
@pytest.mark.parametrize("chapter", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_checked_outputs_are_the_same_for_other_seeds(chapter: Path, tmp_path: Path):
    pytest.importorskip("papermill")
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    env.pop(RESULTS_ENV, None)  # a seed run publishes no measurement
    sanitize = _sanitizer()
    reference = nbformat.read(chapter, as_version=4)
    problems = []
    # One seed after the other: the chapters time matmuls and copies and check them against measured roofs,
    # and a second kernel on the same cores would skew exactly those measurements.
    for seed in SEEDS:
        target = tmp_path / f"seed{seed}.ipynb"
        command = [sys.executable, "-c", RUNNER, str(chapter), str(target), str(seed), str(NOTEBOOKS), str(TIMEOUT_S)]
        try:
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=TIMEOUT_S + 120)
            returncode, log = done.returncode, done.stdout + done.stderr
        except subprocess.TimeoutExpired as err:  # run() has killed it
            returncode, log = "timeout", str(err.stdout or "") + str(err.stderr or "")
        if not target.exists():
            problems.append(f"seed {seed}: papermill wrote no notebook (exit {returncode}):\n{log[-2000:]}")
            continue
        found = differences(reference, nbformat.read(target, as_version=4), sanitize)
        if returncode and not any("raised" in p for p in found):  # e.g. the kernel died or timed out
            found.append(f"papermill exited with {returncode}:\n{log[-2000:]}")
        problems += [f"seed {seed}: {p}" for p in found]
    assert not problems, f"{chapter.name} depends on the seed:\n" + "\n".join(problems)


def test_the_comparison_finds_changed_checked_outputs_only():
    """The comparison above, on small notebooks: what it must flag and what it must let through."""
    new_cell, output = nbformat.v4.new_code_cell, nbformat.v4.new_output

    def notebook(printed: str, ignored: str, address: str, image: bool) -> nbformat.NotebookNode:
        data = {"text/plain": "<Figure size 640x480 with 1 Axes>"} | ({"image/png": "AAAA"} if image else {})
        return nbformat.v4.new_notebook(cells=[
            new_cell("print(x)", outputs=[output("stream", name="stdout", text=printed)]),
            new_cell("timing()", outputs=[output("stream", name="stdout", text=ignored)],
                     metadata={"tags": ["nbval-ignore-output"]}),
            new_cell("obj", outputs=[output("execute_result", data={"text/plain": address}, execution_count=3)]),
            new_cell("plot()", outputs=[output("display_data", data=data)]),
        ])

    sanitize = _sanitizer()
    reference = notebook("1.0\n", "3 ms\n", "<object at 0x7f00aa11bb22>", image=True)
    injected = nbformat.v4.new_code_cell("seed = 1", metadata={"tags": ["injected-parameters"]})
    same = notebook("1.0\n", "9 ms\n", "<object at 0x7f00cc33dd44>", image=True)
    same.cells.insert(0, injected)
    assert differences(reference, same, sanitize) == []
    changed = notebook("1.5\n", "3 ms\n", "<object at 0x7f00aa11bb22>", image=False)
    found = differences(reference, changed, sanitize)
    assert [p.split(":")[0] for p in found] == ["cell 0 [None] ('print(x)')", "cell 3 [None] ('plot()')"]
    assert "-stdout: 1.0" in found[0] and "+stdout: 1.5" in found[0]
    failed = notebook("1.0\n", "3 ms\n", "", image=True)
    failed.cells[0].outputs = [output("error", ename="AssertionError", evalue="seed", traceback=[])]
    assert differences(reference, failed, sanitize) == [
        "cell 0 [None] ('print(x)'): raised AssertionError: seed (the cells after it did not run)"]


def test_the_seed_list_takes_seeds_and_ranges():
    assert parse_seeds("1,2") == (1, 2) and parse_seeds("3-5, 9,4") == (3, 4, 5, 9)
    with pytest.raises(ValueError, match="CS336_SEEDS: 'x' is neither a seed nor a range"):
        parse_seeds("1,x")
