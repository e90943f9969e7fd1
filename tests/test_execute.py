"""The execution pipeline, on tiny notebooks run by real kernels."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import nbformat
import papermill
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from cs336_lec2.publish.execute import RECORD_NAME, check_output_dir, execute, find_chapters
from cs336_lec2.publish.guard import EXECUTE_MARKER


def _chapter(path, body: str) -> None:
    cells = [
        new_markdown_cell("# Tiny", metadata={"tags": ["lang-en"]}),
        new_code_cell('device = "auto"\npreset = "auto"\nseed = 0', metadata={"tags": ["parameters"]}),
        new_code_cell(body),
    ]
    nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                            "language": "python"}})
    nbformat.write(nb, path)


@pytest.fixture
def chapters(tmp_path):
    src = tmp_path / "notebooks"
    src.mkdir()
    _chapter(src / "01_good.ipynb", (
        "from cs336_lec2.results import publish\n"
        "publish('timing', label=f'{device}-{preset}', seconds=1.0)\n"
        "print(device, preset)"
    ))
    _chapter(src / "02_bad.ipynb", "x = 1\nraise RuntimeError('boom in chapter two')")
    _chapter(src / "03_after.ipynb", "print('still runs')")
    return src


def test_find_chapters_by_number_stem_or_file(chapters, tmp_path):
    assert [p.stem for p in find_chapters(chapters)] == ["01_good", "02_bad", "03_after"]
    assert [p.stem for p in find_chapters(chapters, ["3", "01_good", "02_bad.ipynb"])] == [
        "03_after", "01_good", "02_bad"]
    with pytest.raises(ValueError, match="known chapters: 01_good, 02_bad, 03_after"):
        find_chapters(chapters, ["07"])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="no chapter notebooks"):
        find_chapters(empty)


@pytest.mark.slow
def test_output_run_injects_parameters_records_and_survives_a_failure(chapters, tmp_path):
    out = tmp_path / "out"
    lines: list[str] = []
    record = execute(chapters, device="cpu", preset="small", output=out, progress=False, log=lines.append)
    assert [c.name for c in record.chapters] == ["01_good", "02_bad", "03_after"]
    assert [c.ok for c in record.chapters] == [True, False, True]
    assert "RuntimeError: boom in chapter two" in record.chapters[1].error
    assert "cell [" in record.chapters[1].error
    assert any(line.startswith("02_bad: FAILED") for line in lines)
    saved = json.loads((out / RECORD_NAME).read_text())
    assert saved["parameters"] == {"device": "cpu", "preset": "small", "requested_device": "cpu",
                                   "requested_preset": "small"}
    assert saved["machine"]["device_type"] == "cpu" and "fp32 FLOP/cycle" in saved["machine"]["cpu_core"]
    assert saved["measurements"] == [
        {"kind": "timing", "chapter": "01_good", "label": "cpu-small", "seconds": 1.0}]
    good = nbformat.read(out / "01_good.ipynb", as_version=4)
    assert any("injected-parameters" in c.metadata.get("tags", []) for c in good.cells)
    assert "papermill" not in good.metadata
    assert (out / "03_after.ipynb").exists() and (out / "execute.log").read_text().count("\n") == 3
    # a failed chapter never lands under its own name (a book --from would take it): it is kept aside
    assert not (out / "02_bad.ipynb").exists() and (out / "02_bad.failed.ipynb").exists()
    assert not list(out.glob(".*running*"))


@pytest.mark.slow
def test_in_place_keeps_defaults_and_never_overwrites_with_a_failure(chapters):
    before_bad = (chapters / "02_bad.ipynb").read_text()
    record = execute(chapters, chapters=["01", "02"], in_place=True, progress=False, log=lambda _: None)
    assert [c.ok for c in record.chapters] == [True, False]
    good = nbformat.read(chapters / "01_good.ipynb", as_version=4)
    assert not any("injected-parameters" in c.metadata.get("tags", []) for c in good.cells)
    assert good.cells[2].outputs[0].text == "auto auto\n"
    assert [c.execution_count for c in good.cells if c.cell_type == "code"] == [1, 2]
    assert all("papermill" not in c.metadata for c in good.cells)
    assert (chapters / "02_bad.ipynb").read_text() == before_bad
    assert not list(chapters.glob(".*running*"))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"device": "tpu", "output": "x"}, "device must be"),
        ({"preset": "huge", "output": "x"}, "preset must be"),
        ({"in_place": True, "output": "x"}, "not both"),
        ({"in_place": True, "device": "cuda"}, "committed CPU reference"),
        ({"in_place": True, "preset": "large"}, "committed CPU reference"),
        ({}, "output: give a directory"),
    ],
)
def test_bad_arguments(chapters, kwargs, message):
    with pytest.raises(ValueError, match=message):
        execute(chapters, progress=False, **kwargs)


def test_output_that_is_the_notebooks_folder_is_refused(chapters):
    """Issue 15 item 1: `--output notebooks` used to overwrite the committed chapters."""
    before = {p.name: p.read_bytes() for p in chapters.iterdir()}
    for output in (chapters, chapters / ".", chapters / ".." / chapters.name):
        with pytest.raises(ValueError, match=r"chapters' own folder.*in_place=True"):
            execute(chapters, output=output, progress=False)
    assert {p.name: p.read_bytes() for p in chapters.iterdir()} == before


@pytest.mark.parametrize("timeout", [0, -5, True, "60", 0.001, float("inf"), float("nan")])
def test_timeout_must_be_positive(chapters, tmp_path, timeout):
    """Issue 20.15: timeout=0.001 and timeout=inf were taken, and failed later with unrelated messages."""
    with pytest.raises(ValueError, match="timeout must be a finite number of seconds per cell, at least 1, got "):
        execute(chapters, output=tmp_path / "out", progress=False, timeout=timeout)
    assert not (tmp_path / "out").exists()


def test_output_that_is_a_file_or_under_one_is_a_clear_error(tmp_path):
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    with pytest.raises(ValueError, match=r"output: .*file\.txt is a file; give a folder"):
        check_output_dir(a_file)
    with pytest.raises(ValueError, match=r"is under .*file\.txt, which is a file"):
        check_output_dir(a_file / "run", "--output")
    if Path("/proc/self").is_dir():  # Linux: a file system where nobody, root included, may create a folder
        with pytest.raises(ValueError, match="--output: cannot create the folder"):
            check_output_dir(Path("/proc/cs336-lec2-run"), "--output")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root may write anywhere")
def test_read_only_output_is_a_clear_error(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        with pytest.raises(ValueError, match="not writable"):
            check_output_dir(ro, "--output")
    finally:
        ro.chmod(0o700)


def _fake_papermill(monkeypatch, behaviour):
    """Replace papermill's runner: ``behaviour(source, target)`` writes (part of) a notebook or raises."""
    def run(source, target, **_kwargs):
        behaviour(Path(source), Path(target))
    monkeypatch.setattr(papermill, "execute_notebook", run)


def _copy(source: Path, target: Path) -> None:
    target.write_bytes(source.read_bytes())


def test_a_new_run_removes_the_stale_record_and_notebooks(chapters, tmp_path, monkeypatch):
    """Issue 15 item 4: an old record and an old notebook must not pass for this run's."""
    out = tmp_path / "out"
    out.mkdir()
    (out / EXECUTE_MARKER).touch()  # the folder of an earlier run
    (out / RECORD_NAME).write_text('{"stale": true}')
    (out / "02_bad.ipynb").write_text("an old, good run of chapter two")

    def fail_in_two(source: Path, target: Path) -> None:
        _copy(source, target)
        if source.stem == "02_bad":
            raise RuntimeError("boom")

    _fake_papermill(monkeypatch, fail_in_two)
    record = execute(chapters, chapters=["01", "02"], output=out, device="cpu", progress=False, log=lambda _: None)
    assert [c.ok for c in record.chapters] == [True, False]
    saved = json.loads((out / RECORD_NAME).read_text())
    assert "stale" not in saved and [c["name"] for c in saved["chapters"]] == ["01_good", "02_bad"]
    assert saved["parameters"]["preset"] == "small" and saved["parameters"]["requested_preset"] == "auto"
    assert not (out / "02_bad.ipynb").exists() and (out / "02_bad.failed.ipynb").exists()


def test_ctrl_c_leaves_no_record_and_no_partial_notebook(chapters, tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    (out / EXECUTE_MARKER).touch()  # the folder of an earlier run
    (out / RECORD_NAME).write_text('{"stale": true}')

    def interrupted(source: Path, target: Path) -> None:
        target.write_text("half a notebook")
        raise KeyboardInterrupt

    _fake_papermill(monkeypatch, interrupted)
    with pytest.raises(KeyboardInterrupt):
        execute(chapters, output=out, device="cpu", progress=False, log=lambda _: None)
    assert sorted(p.name for p in out.iterdir()) == [EXECUTE_MARKER, "execute.log"]
    assert "interrupted" in (out / "execute.log").read_text()


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_execute_leaks_no_file_descriptor(chapters, tmp_path, monkeypatch):
    _fake_papermill(monkeypatch, _copy)
    execute(chapters, chapters=["01"], output=tmp_path / "warm", device="cpu", progress=False, log=lambda _: None)
    before = len(os.listdir("/proc/self/fd"))
    for i in range(3):
        execute(chapters, chapters=["01"], output=tmp_path / f"o{i}", device="cpu", progress=False,
                log=lambda _: None)
    assert len(os.listdir("/proc/self/fd")) == before


@pytest.mark.slow
def test_timeouts_and_dead_kernels_name_the_cell(tmp_path, capfd):
    src = tmp_path / "notebooks"
    src.mkdir()
    _chapter(src / "01_slow.ipynb", "import time\ntime.sleep(60)")
    _chapter(src / "02_dies.ipynb", "import os\nos._exit(1)")
    (slow,) = execute(src, chapters=["01"], output=tmp_path / "a", device="cpu", progress=False, timeout=3,
                      log=lambda _: None).chapters
    assert slow.error == "cell [3] (import time) ran past the 3 s limit of --timeout and was stopped"
    # a generous limit, so that a slow kernel start on a busy machine is not taken for a timeout
    (dies,) = execute(src, chapters=["02"], output=tmp_path / "b", device="cpu", progress=False, timeout=120,
                      log=lambda _: None).chapters
    assert dies.error.startswith("the kernel died while running cell [3] (import os)")
    # issue 20.13: no kernel traceback (zmq.error.ZMQError) and no "Timeout waiting for execute reply" line
    printed = capfd.readouterr()
    assert "Traceback" not in printed.err + printed.out and "Timeout waiting" not in printed.err + printed.out


def test_a_folder_the_process_may_not_write_is_named(tmp_path, monkeypatch):
    """Read-only output (root may write anywhere, so the permission answer is simulated here)."""
    import cs336_lec2.publish.execute as execute_module

    real_access = os.access
    monkeypatch.setattr(execute_module.os, "access",
                        lambda p, mode: False if Path(p) == tmp_path / "ro" else real_access(p, mode))
    (tmp_path / "ro").mkdir()
    with pytest.raises(ValueError, match=r"--build-dir: the folder .*ro is not writable"):
        check_output_dir(tmp_path / "ro", "--build-dir")


# ---- issue 20: data loss, mixed runs, signals, chapter selection -------------------------------------------


def test_in_place_write_is_atomic_on_enospc(chapters, monkeypatch):
    """Issue 20.1: a write that failed with ENOSPC left the committed notebook at 0 bytes."""
    import errno

    from cs336_lec2.publish import guard

    before = (chapters / "01_good.ipynb").read_bytes()

    def full_disk(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    _fake_papermill(monkeypatch, _copy)
    monkeypatch.setattr(guard.os, "fsync", full_disk)
    with pytest.raises(OSError, match=r"writing .*01_good.ipynb failed \(No space left on device\); the earlier file"):
        execute(chapters, chapters=["01"], in_place=True, progress=False, log=lambda _: None)
    assert (chapters / "01_good.ipynb").read_bytes() == before
    assert sorted(p.name for p in chapters.iterdir() if p.name.startswith(".")) == []  # no temp or scratch file


def test_enospc_at_the_cli_is_one_line_and_a_nonzero_exit(chapters, monkeypatch, capsys):
    import errno

    from cs336_lec2.publish import guard
    from cs336_lec2.publish.cli import main

    _fake_papermill(monkeypatch, _copy)
    monkeypatch.setattr(guard.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left")))
    assert main(["execute", "--in-place", "--notebooks", str(chapters), "--chapters", "1", "--no-progress"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cs336-lec2 execute: writing ") and "No space left" in err[0]


@pytest.mark.parametrize("output", ["", "  "])
def test_empty_output_is_refused(chapters, output, monkeypatch, tmp_path):
    """Issue 20.2: output="" (an unset shell variable) meant the current folder and replaced a notebook."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"^output: .* is not a folder name"):
        execute(chapters, output=output, progress=False)
    with pytest.raises(ValueError, match="is not a folder name"):
        check_output_dir(output, "--output")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notebooks"]


def test_empty_folder_flags_are_refused_at_the_cli(capsys):
    from cs336_lec2.publish.cli import main

    for argv in (["execute", "--output", ""], ["book", "--build-dir", ""], ["book", "--from", " "]):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2
        assert "is not a folder name (an unset variable?)" in capsys.readouterr().err


def test_a_torn_measurement_line_still_writes_the_record(chapters, tmp_path, monkeypatch):
    """Issue 20.3: one torn line in the measurements file lost the run record."""
    from cs336_lec2.results import RESULTS_ENV

    def torn(source: Path, target: Path) -> None:
        _copy(source, target)
        with open(os.environ[RESULTS_ENV], "a") as f:
            f.write('{"kind": "timing", "label": "ok", "seconds": 1.0}\n{"kind": "tim')

    _fake_papermill(monkeypatch, torn)
    lines: list[str] = []
    record = execute(chapters, chapters=["01"], output=tmp_path / "out", device="cpu", progress=False,
                     log=lines.append)
    saved = json.loads((tmp_path / "out" / RECORD_NAME).read_text())
    assert [m["label"] for m in saved["measurements"]] == ["ok"] == [m["label"] for m in record.measurements]
    assert any("line 2: skipped a measurement that is not JSON" in line for line in lines)


def test_two_runs_into_one_folder_are_refused(chapters, tmp_path, monkeypatch):
    """Issue 20.4: two runs into one output folder mixed their notebooks and their log silently."""
    from cs336_lec2.publish.guard import LOCK_NAME, folder_lock

    out = tmp_path / "out"
    out.mkdir()
    _fake_papermill(monkeypatch, _copy)
    with folder_lock(out):
        with pytest.raises(ValueError, match=r"another cs336-lec2 execute is running into .*out"):
            execute(chapters, chapters=["01"], output=out, device="cpu", progress=False, log=lambda _: None)
        assert not (out / RECORD_NAME).exists()
    execute(chapters, chapters=["01"], output=out, device="cpu", progress=False, log=lambda _: None)
    assert (out / RECORD_NAME).exists() and not (out / LOCK_NAME).exists()


def test_chapter_12_is_chapter_12_only(chapters):
    """Issue 20.8: execute(chapters="12") ran chapters 01 and 02; 5.5 and Arabic-Indic digits picked 05."""
    _chapter(chapters / "12_twelve.ipynb", "print(12)")
    assert [p.stem for p in find_chapters(chapters, "12")] == ["12_twelve"]
    assert [p.stem for p in find_chapters(chapters, ["12"])] == ["12_twelve"]
    assert [p.stem for p in find_chapters(chapters, "good")] == ["01_good"]  # the name without its number
    assert [p.stem for p in find_chapters(chapters, ["02_bad", "03_after.ipynb"])] == ["02_bad", "03_after"]
    for bad in ("1.5", "\u0661", "\u00b2", "+1", "1e0"):
        expected = rf"^chapters: {re.escape(repr(bad))} is not a chapter number; give a whole number"
        with pytest.raises(ValueError, match=expected):
            find_chapters(chapters, [bad])
    with pytest.raises(TypeError, match="chapters: each chapter must be a str"):
        find_chapters(chapters, [1])


def test_chapter_selection_errors_at_the_cli_name_the_flag(chapters, capsys):
    from cs336_lec2.publish.cli import main

    assert main(["execute", "--notebooks", str(chapters), "--output", "x", "--chapters", "\u00b2"]) == 2
    assert capsys.readouterr().err.strip() == (
        "cs336-lec2 execute: --chapters: '\u00b2' is not a chapter number; give a whole number in ASCII digits "
        "(5 or 05) or a chapter's name (05_flops_and_mfu)")


def test_sigterm_is_handled_like_ctrl_c(chapters, tmp_path, monkeypatch, capsys):
    """Issue 20.13: SIGTERM skipped all cleanup (exit 143, no message, .NN.running.ipynb left, empty log)."""
    import signal

    from cs336_lec2.publish.cli import main
    from cs336_lec2.publish.guard import Terminated

    def killed(source: Path, target: Path) -> None:
        target.write_text("half a notebook")
        os.kill(os.getpid(), signal.SIGTERM)

    _fake_papermill(monkeypatch, killed)
    out = tmp_path / "out"
    with pytest.raises(Terminated):
        execute(chapters, output=out, device="cpu", progress=False, log=lambda _: None)
    assert sorted(p.name for p in out.iterdir()) == [EXECUTE_MARKER, "execute.log"]
    assert "interrupted (SIGTERM): no run record written" in (out / "execute.log").read_text()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the handler is restored
    assert main(["execute", "--notebooks", str(chapters), "--output", str(out), "--device", "cpu",
                 "--no-progress"]) == 143
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "cs336-lec2 execute: terminated (SIGTERM); nothing half-done was kept")


def test_an_interrupt_keeps_the_record_of_the_chapters_that_finished(chapters, tmp_path, monkeypatch):
    """A GPU run cut by a time limit in its last chapter lost the measurements of the thirteen before it."""
    import signal

    from cs336_lec2.publish.guard import Terminated
    from cs336_lec2.results import publish

    def run(source: Path, target: Path) -> None:
        publish("timing", label=source.stem, seconds=1.0)
        if source.stem == "02_bad":
            os.kill(os.getpid(), signal.SIGTERM)
        _copy(source, target)

    _fake_papermill(monkeypatch, run)
    out = tmp_path / "out"
    with pytest.raises(Terminated):
        execute(chapters, output=out, device="cpu", progress=False, log=lambda _: None)
    saved = json.loads((out / RECORD_NAME).read_text())
    assert [(c["name"], c["ok"], c["error"]) for c in saved["chapters"]] == [
        ("01_good", True, None), ("02_bad", False, "interrupted (SIGTERM)")]
    assert [m["label"] for m in saved["measurements"]] == ["01_good"]  # not the interrupted chapter's row
    assert (out / "01_good.ipynb").exists() and not (out / "02_bad.ipynb").exists()
    assert "the run record covers the 1 chapter(s) that finished" in (out / "execute.log").read_text()


def test_kernels_log_no_traceback_on_interrupt(chapters, tmp_path, monkeypatch):
    """Issue 20.13: Ctrl-C printed the kernel's 20-line zmq.error.ZMQError traceback before the clean line."""
    seen = {}

    def run(source, target, **kwargs):
        seen.update(kwargs)
        _copy(Path(source), Path(target))

    monkeypatch.setattr(papermill, "execute_notebook", run)
    execute(chapters, chapters=["01"], output=tmp_path / "o", device="cpu", progress=False, log=lambda _: None)
    assert "--IPKernelApp.log_level=CRITICAL" in seen["extra_arguments"]


def test_a_torn_executed_notebook_is_a_failed_chapter_not_a_traceback(chapters, tmp_path, monkeypatch):
    """Issue 20.15: a disk that filled up during --output gave "Notebook does not appear to be JSON"."""
    _fake_papermill(monkeypatch, lambda source, target: target.write_text('{"cells": [{"cell_t'))
    (run,) = execute(chapters, chapters=["01"], output=tmp_path / "o", device="cpu", progress=False,
                     log=lambda _: None).chapters
    assert not run.ok and run.error.startswith("its executed copy .01_good.running.ipynb could not be read back (")
    assert run.error.endswith("is the disk full?")
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == [EXECUTE_MARKER, "execute.log", RECORD_NAME]


@pytest.mark.parametrize("theirs", ["03_fail.ipynb", "execute.log", RECORD_NAME, "01_good.ipynb", "notes.txt"])
def test_a_folder_with_files_execute_did_not_write_is_refused_and_left_as_it_was(chapters, tmp_path, monkeypatch,
                                                                               theirs):
    """Issue 31.1: execute --output DIR deleted or overwrote the user's files in DIR without asking."""
    out = tmp_path / "out"
    out.mkdir()
    (out / theirs).write_text("the user's own file")
    _fake_papermill(monkeypatch, _copy)
    with pytest.raises(ValueError, match=rf"^output: .*out already holds {re.escape(theirs)}, which cs336-lec2 "
                                         "did not write"):
        execute(chapters, chapters=["01"], output=out, device="cpu", progress=False, log=lambda _: None)
    assert sorted(p.name for p in out.iterdir()) == [theirs] and (out / theirs).read_text() == "the user's own file"


def test_a_new_or_empty_folder_is_claimed_and_a_second_run_may_replace_its_own_files(chapters, tmp_path, monkeypatch):
    _fake_papermill(monkeypatch, _copy)
    for out in (tmp_path / "new", tmp_path / "empty"):
        if out.name == "empty":
            out.mkdir()
        for _ in range(2):  # the second run replaces what the first wrote
            execute(chapters, chapters=["01"], output=out, device="cpu", progress=False, log=lambda _: None)
        assert (out / EXECUTE_MARKER).is_file() and (out / "01_good.ipynb").is_file()


def test_the_kernel_is_stopped_not_asked_to_exit(tmp_path):
    # Interpreter teardown (atexit, module finalizers) is skipped: about a second per chapter once
    # torch is imported (publish/engine.py). The chapters clean up their scratch folders themselves.
    src, out = tmp_path / "notebooks", tmp_path / "run"
    src.mkdir()
    flag = tmp_path / "teardown-ran"
    _chapter(src / "01_exit.ipynb", f"import atexit, pathlib\natexit.register(pathlib.Path({str(flag)!r}).touch)")
    record = execute(src, output=out, progress=False)
    assert [c.ok for c in record.chapters] == [True] and (out / "01_exit.ipynb").is_file()
    assert not flag.exists()


def test_ctrl_c_during_a_cell_is_the_clean_interrupt_not_a_dead_kernel(chapters, tmp_path, monkeypatch):
    """Issue 36: SIGINT during a long cell ended in a DeadKernelError traceback, not the one-line exit.

    nbclient waits for a cell inside an asyncio event loop; asyncio's runner turns Ctrl-C into the
    cancellation of that wait, and nbclient turns a cancelled wait into ``DeadKernelError("Kernel died")``.
    The fake runner below does what nbclient does, with a SIGINT arriving while the cell runs.
    """
    import asyncio
    import signal
    import threading

    from nbclient.exceptions import DeadKernelError

    async def wait_for_the_cell() -> None:
        waiting = asyncio.ensure_future(asyncio.sleep(30))  # the cell's reply, long in coming
        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()  # Ctrl-C meanwhile, from outside
        try:
            await waiting
        except asyncio.CancelledError:
            raise DeadKernelError("Kernel died") from None

    def long_cell(source: Path, target: Path) -> None:
        target.write_text("half a notebook")
        asyncio.run(wait_for_the_cell())

    _fake_papermill(monkeypatch, long_cell)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        execute(chapters, chapters=["01"], output=out, device="cpu", progress=False, log=lambda _: None)
    assert "interrupted (Ctrl-C): no run record written" in (out / "execute.log").read_text()
    assert sorted(p.name for p in out.iterdir()) == [EXECUTE_MARKER, "execute.log"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler is restored
