"""Tests of cs336_lec2.distributed.launcher: a real 2-process gloo group — its results equal the formulas and
single-process training, a failing or killed rank's error surfaces, timeouts, interruptions, no orphans."""

from __future__ import annotations

import contextlib
import json
import math
import os
import subprocess
import time

import pytest
import torch
import torch.distributed as dist

from cs336_lec2 import distributed as D
from cs336_lec2.distributed import launcher as L


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: L.launch([], world_size=2), "spec"),
        (lambda: L.launch({}, world_size=0), "world_size"),
        (lambda: L.launch({"task": "hang"}, backend="mpi"), "backend"),
        (lambda: L.launch({"task": "hang"}, timeout=0), "timeout"),
        (lambda: L.train_single_process([]), "spec"),
        (lambda: L.train_single_process({}, micro_batches=0), "micro_batches"),
    ],
)
def test_bad_input_names_the_argument(call, match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_nccl_needs_a_gpu_per_rank(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(ValueError, match="nccl"):
        L.launch({"task": "hang"}, world_size=2, backend="nccl")


def test_pick_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(dist, "is_nccl_available", lambda: True)
    assert L.pick_backend(2) == "nccl"
    assert L.pick_backend(4) == "gloo"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert L.pick_backend(1) == "gloo"


class _Watch:
    """Records the torchrun a launch starts and every process under it (polled while it runs)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import threading

        self.agents: list[subprocess.Popen] = []
        self.pids: set[int] = set()
        real = subprocess.Popen

        def popen(*args, **kwargs):
            p = real(*args, **kwargs)
            self.agents.append(p)
            threading.Thread(target=self._poll, args=(p,), daemon=True).start()
            return p

        monkeypatch.setattr(L.subprocess, "Popen", popen)

    def _poll(self, agent: subprocess.Popen) -> None:
        psutil = pytest.importorskip("psutil")
        while agent.poll() is None:
            with contextlib.suppress(psutil.Error):
                self.pids |= {c.pid for c in psutil.Process(agent.pid).children(recursive=True)}
            time.sleep(0.02)

    def ranks_started(self, n: int = 2, within: float = 60) -> None:
        deadline = time.monotonic() + within
        while len(self.pids) < n:
            assert time.monotonic() < deadline, "the ranks did not start"
            time.sleep(0.05)

    def assert_all_gone(self, ranks: int = 2) -> None:
        psutil = pytest.importorskip("psutil")
        assert len(self.agents) == 1 and self.agents[0].poll() is not None, "torchrun is stopped"
        assert len(self.pids) >= ranks, f"saw {len(self.pids)} processes under torchrun"
        left = [p for p in self.pids if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
        assert left == [], "a rank outlived its launch"


def test_failing_rank_surfaces_its_error(monkeypatch: pytest.MonkeyPatch) -> None:
    watch = _Watch(monkeypatch)
    t0 = time.monotonic()
    with pytest.raises(L.WorkerError, match="rank 1 failed: RuntimeError: broken on purpose") as info:
        L.launch({"task": "fail", "fail_rank": 1, "message": "broken on purpose"}, world_size=2, timeout=60)
    assert time.monotonic() - t0 < 45  # the waiting rank was stopped, not waited out to the timeout
    assert info.value.rank == 1 and "broken on purpose" in info.value.log
    watch.assert_all_gone()


def test_rank_killed_without_a_python_error(monkeypatch: pytest.MonkeyPatch) -> None:
    watch = _Watch(monkeypatch)
    with pytest.raises(L.WorkerError, match="rank 1 failed") as info:
        L.launch({"task": "crash", "fail_rank": 1}, world_size=2, timeout=60)
    assert info.value.rank == 1 and info.value.returncode == -9  # SIGKILL: no error file; torchrun's summary
    watch.assert_all_gone()


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM"])
def test_an_interrupted_launch_stops_its_ranks(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C (the notebook's stop button) or SIGTERM while the launcher waits still stops every rank;
    issue 20.12: SIGTERM to the process that called launch() left both ranks alive."""
    import signal
    import threading

    watch = _Watch(monkeypatch)

    def interrupt() -> None:
        watch.ranks_started()
        os.kill(os.getpid(), getattr(signal, how))

    threading.Thread(target=interrupt, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        L.launch({"task": "hang"}, world_size=2, timeout=60)
    watch.assert_all_gone()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_groups_launched_at_once_do_not_meet() -> None:
    # Each group's rank 0 binds its own port (the OS picks it), so two launches at the same moment
    # cannot take each other's port or join each other's group.
    from concurrent.futures import ThreadPoolExecutor

    def fail(i: int) -> str:
        with pytest.raises(L.WorkerError) as info:
            L.launch({"task": "fail", "fail_rank": 1, "message": f"group {i}"}, world_size=2, timeout=60)
        return str(info.value)

    with ThreadPoolExecutor(3) as pool:
        assert list(pool.map(fail, range(3))) == [f"rank 1 failed: RuntimeError: group {i}" for i in range(3)]


def test_hanging_ranks_time_out(monkeypatch: pytest.MonkeyPatch) -> None:
    watch = _Watch(monkeypatch)
    t0 = time.monotonic()
    with pytest.raises(TimeoutError, match="timeout=10"):
        L.launch({"task": "hang"}, world_size=2, timeout=10)
    assert time.monotonic() - t0 < 10 + 15
    watch.assert_all_gone()


def test_sharded_training_matches_formula_and_single_process(monkeypatch: pytest.MonkeyPatch) -> None:
    watch = _Watch(monkeypatch)
    spec = {"task": "train", "strategies": list(D.STRATEGIES), "steps": 2, "batch": 4, "lr": 1e-2, "seed": 3,
            "model": {"name": "Cruncher", "kwargs": {"dim": 5, "num_layers": 2}}}  # odd rows: uneven shards
    results = L.launch(spec, world_size=2, backend="gloo", timeout=120)
    reference = L.train_single_process(spec, micro_batches=2)
    shapes = [tuple(t.shape) for t in reference.values()]
    psi_ = sum(math.prod(s) for s in shapes)
    for rank, result in enumerate(results):
        for strategy in D.STRATEGIES:
            got = result[strategy]
            expected = D.expected_state_bytes(strategy, shapes, 2, rank)
            assert (got["params"], got["grads"], got["optimizer_state"]) == (
                expected.params, expected.grads, expected.optimizer_state)
    for strategy in D.STRATEGIES:
        for name, value in reference.items():
            # the same micro-batches and one thread: the same arithmetic, so the same bits
            assert torch.equal(results[0][strategy]["full_params"][name], value), (strategy, name)
    assert results[0]["ddp"]["comm_per_step"] == [{"all_reduce": 4 * psi_}] * 2
    padded = sum(D.fsdp_shard_numel(s, 2, 0, padded=True) for s in shapes)
    assert results[1]["fsdp2"]["comm_per_step"][0] == {  # padded buffers: N equal pieces
        "all_gather": 2 * 2 * 4 * padded, "reduce_scatter": 2 * 4 * padded}
    watch.assert_all_gone()


# ---- issue 20.12 and 20.15: orphans, signals, bounds, specs the worker cannot run -----------------------------


TRAIN = {"task": "train", "strategies": ["ddp"], "steps": 1, "batch": 4, "lr": 1e-2, "seed": 0,
         "model": {"name": "Cruncher", "kwargs": {"dim": 2, "num_layers": 1}}}


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: L.launch({"task": "hang"}, world_size=1000), ValueError, r"world_size must be an int in \[1, 32\]"),
        (lambda: L.pick_backend(10**6), ValueError, r"world_size must be an int in \[1, 32\]"),
        (lambda: L.launch({"strategies": ["ddp"]}), ValueError, r"spec needs a 'task', one of \('train'"),
        (lambda: L.launch({"task": "dance"}), ValueError, r"spec\['task'\] must be one of"),
        (lambda: L.launch({**TRAIN, "batch": 1}, world_size=2), ValueError,
         r"spec\['batch'\]=1 must be a multiple of world_size=2"),
        (lambda: L.launch({**TRAIN, "batch": 6}, world_size=4), ValueError, r"multiple of world_size=4"),
        # issue 31.15: each of these was accepted, and a rank refused it 5-20 s later
        (lambda: L.launch({"task": "train", "batch": 4}), ValueError, r"spec\['strategies'\] must be a non-empty list"),
        (lambda: L.launch({**TRAIN, "strategies": ["bogus"]}), ValueError, r"spec\['strategies'\] must be one of"),
        (lambda: L.launch({"task": "fail", "fail_rank": 1}), ValueError, r"spec\['message'\] must be the error"),
        (lambda: L.launch({**TRAIN, "lr": "x"}), TypeError, r"spec\['lr'\] must be a positive number"),
        (lambda: L.launch({**TRAIN, "model": {"name": "Cruncher", "kwargs": {}}}), TypeError,
         r"spec\['model'\]\['kwargs'\]\['dim'\] must be an int"),
        (lambda: L.launch({"task": "hang"}, timeout=1e14), ValueError, r"timeout must be .*at most 1e\+06"),
        (lambda: L.launch({"task": "fail", "fail_rank": 2}, world_size=2), ValueError, r"spec\['fail_rank'\]"),
        (lambda: L.launch({"task": "hang"}, timeout=math.inf), ValueError, "timeout must be a positive finite number"),
        (lambda: L.launch({"task": "hang"}, timeout=math.nan), ValueError, "timeout must be a positive finite number"),
    ],
)
def test_bad_launches_are_refused_before_any_rank_starts(call, error, match, monkeypatch) -> None:
    watch = _Watch(monkeypatch)
    with pytest.raises(error, match=match):
        call()
    assert watch.agents == []


LAUNCHING_CHILD = "from cs336_lec2.distributed.launcher import launch; launch({'task': 'hang'}, timeout=120)"


def _ranks_of(child: subprocess.Popen) -> list:
    """The two worker processes under ``child``'s torchrun."""
    psutil = pytest.importorskip("psutil")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(psutil.Error):
            ranks = [p for p in psutil.Process(child.pid).children(recursive=True)
                     if "cs336_lec2.distributed.worker" in " ".join(p.cmdline()) and "torch.distributed.run" not in
                     " ".join(p.cmdline())]
            if len(ranks) == 2:
                return ranks
        time.sleep(0.2)
    raise AssertionError("the child did not start two ranks")


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="the parent-death signal is Linux's")
@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_ranks_die_with_the_launching_process(how: str) -> None:
    """Issue 20.12: killing the process that called launch() left both ranks alive (PPID 1) and a temp folder."""
    import signal
    import sys
    import tempfile
    from pathlib import Path

    psutil = pytest.importorskip("psutil")
    env = {**os.environ, "PYTHONPATH": str(Path(L.__file__).resolve().parents[2])}
    child = subprocess.Popen([sys.executable, "-c", LAUNCHING_CHILD], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        ranks = _ranks_of(child)
        os.kill(child.pid, getattr(signal, how))
        child.wait(timeout=30)
        _gone, alive = psutil.wait_procs(ranks, timeout=20)
        assert alive == [], f"ranks outlived their parent after {how}"
    finally:
        child.kill()
        child.wait()
    folders = list(Path(tempfile.gettempdir()).glob(f"cs336_lec2_dist_{child.pid}_*"))
    if how == "SIGTERM":
        assert folders == []  # cleaned up on the way out
    else:  # a SIGKILLed parent cannot clean up; the next launch removes its folder
        L._remove_stale_folders()
        assert not any(f.exists() for f in folders)


def test_the_worker_runs_under_the_torchrun_command_line(tmp_path) -> None:
    """Issue 36.5: ``torchrun --standalone --nproc-per-node 2 -m cs336_lec2.distributed.worker SPEC OUT`` (what
    how_to_run shows for a GPU node) trains two CPU ranks to the single-process result, bit for bit."""
    import sys
    from pathlib import Path

    spec = {**TRAIN, "strategies": ["ddp", "zero1"], "steps": 2, "backend": "gloo", "timeout": 60.0}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(Path(L.__file__).resolve().parents[2])}
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone",
               "--nproc-per-node", "2", "-m", "cs336_lec2.distributed.worker", str(tmp_path / "spec.json"),
               str(tmp_path)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    reference = L.train_single_process(spec, micro_batches=2)
    for rank in range(2):
        result = torch.load(tmp_path / f"rank{rank}.pt", weights_only=True)
        assert set(result) == {"ddp", "zero1"}
    full = torch.load(tmp_path / "rank0.pt", weights_only=True)
    for strategy in ("ddp", "zero1"):
        for name, value in reference.items():
            assert torch.equal(full[strategy]["full_params"][name], value), (strategy, name)
    assert L.torchrun_command(2, Path("s.json"), Path("o"))[1:5] == [
        "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2"]


def test_the_first_error_reads_torchruns_summary_not_its_agents_log_lines(tmp_path) -> None:
    """A rank killed by a signal leaves no error file; torchrun's summary names it. The agent's own log lines
    ("failed (exitcode: 1) local_rank: 0") must not pair one rank with another's exit code."""
    import json

    (tmp_path / "torchrun.log").write_text(
        "E1126 api.py:1002] failed (exitcode: 1) local_rank: 0 (pid: 22845) of binary: python\n"
        "Failures:\n[1]:\n  rank      : 1 (local_rank: 1)\n  exitcode  : -9 (pid: 22846)  (SIGKILL)\n"
        "Root Cause (first observed failure):\n[0]:\n  rank      : 0 (local_rank: 0)\n  exitcode  : 1 (pid: 22845)\n")
    (tmp_path / "rank0.error.json").write_text(json.dumps(
        {"rank": 0, "type": "RuntimeError", "message": "Connection reset by peer", "time": 1.0}))
    error = L._first_error(tmp_path, 2, 1)
    assert (error.rank, error.returncode) == (1, -9)
    assert str(error) == "rank 1 failed: killed by SIGKILL (exit code -9), no Python error"
    assert L._signal_name(9) == "SIGKILL" and L._signal_name(99) == "signal 99"
