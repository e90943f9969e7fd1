"""Run a real ``torch.distributed`` group from a notebook: :func:`launch`, and its single-process twin.

:func:`launch` starts ``world_size`` ranks of :mod:`cs336_lec2.distributed.worker` (gloo over loopback, or
nccl with a GPU per rank) through torch's own launcher, ``torchrun --standalone`` (:func:`torchrun_command`:
c10d rendezvous on a port the OS picks, per-rank logs, the ranks stopped when one fails). The same command
runs the worker on a GPU node or across nodes. The launcher waits with a timeout, raises the error of the
rank that failed first (:class:`WorkerError`), and leaves no process behind, also when interrupted (Ctrl-C
or SIGTERM); on Linux the ranks also die with the process that launched them, should it be killed outright.
:func:`train_single_process` trains the same spec unsharded in the calling process, the reference
the ranks must match.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal

import torch
import torch.distributed as dist

from ..checks import (
    Is,
    PositiveReal,
    beartype_on_first_call,
    between,
    check_choice,
    check_int,
    check_positive_real,
    rule,
)
from ..device import as_device
from ..safety import sigterm_as_interrupt
from .worker import LAUNCHED_BY_TORCHRUN

MAX_TIMEOUT = 1e6  # seconds (11.6 days): the ranks' store and group take a timedelta of it
MAX_WORLD_SIZE = 32  # each rank is a Python process that imports torch (~0.3 GB): a typo of 1000 would swap the box
TASKS = ("train", "fail", "crash", "hang")
# each rank is a process of its own that imports torch; a timeout of 1e14 s overflowed the ranks' timedelta
WorldSize = Annotated[int, Is[between(1, MAX_WORLD_SIZE)]]
MicroBatches = Annotated[int, Is[between(1, 1024)]]


@rule(f"a positive finite number of seconds, at most {MAX_TIMEOUT:g}")
def _timeout(seconds: float) -> bool:
    return bool(seconds <= MAX_TIMEOUT)


Timeout = Annotated[PositiveReal, Is[_timeout]]
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def train_single_process(
    spec: dict[str, Any], *, micro_batches: MicroBatches = 1, device: str | torch.device = "cpu"
) -> dict[str, torch.Tensor]:
    """Train ``spec``'s model in THIS process, unsharded: the reference the ranks of :func:`launch` must match.

    Same seed, data, loss and ``torch.optim.Adam`` as the ranks. With ``micro_batches=N`` each
    global batch is cut into the ranks' N pieces and their gradients accumulated (each loss / N), the
    arithmetic data parallelism does, so the result can equal the ranks' bit for bit; with 1 the
    whole batch goes through at once. On the CPU it uses one thread, as the ranks do, so the kernels
    add in the same order. Returns the final parameters by name (CPU tensors).
    """
    from .worker import train_single

    _check_train_spec(spec)  # a missing key was a raw KeyError
    return train_single(spec, micro_batches, str(as_device("device", device)))


class WorkerError(RuntimeError):
    """A rank of :func:`launch` failed; ``rank``, ``error`` (its exception, one line) and ``log`` (its output)."""

    def __init__(self, rank: int, returncode: int | None, error: str, log: str) -> None:
        super().__init__(f"rank {rank} failed: {error}")
        self.rank, self.returncode, self.error, self.log = rank, returncode, error, log


def _loopback_name() -> str | None:
    names = {name for _, name in socket.if_nameindex()} if hasattr(socket, "if_nameindex") else set()
    return next((n for n in ("lo", "lo0") if n in names), None)


def _check_spec(spec: dict[str, Any], n: int) -> dict[str, Any]:
    """``spec`` if the worker can run it on ``n`` ranks; else an error naming the key (not a rank's IndexError)."""
    if "task" not in spec:
        raise ValueError(f"spec needs a 'task', one of {TASKS}")
    check_choice("spec['task']", spec["task"], TASKS)
    if spec["task"] in ("fail", "crash"):
        check_int("spec['fail_rank']", spec.get("fail_rank"), minimum=0, maximum=n - 1)
    if spec["task"] == "fail" and not isinstance(spec.get("message"), str):
        raise ValueError(f"spec['message'] must be the error the failing rank raises (a str), "
                         f"got {spec.get('message')!r}")
    if spec["task"] == "train":
        batch = _check_train_spec(spec)
        if batch % n:
            raise ValueError(f"spec['batch']={batch} must be a multiple of world_size={n}: each rank takes an equal "
                             "share of every batch")
    return spec


def _check_train_spec(spec: dict[str, Any]) -> int:
    """Every key a training spec needs, checked here (a rank would refuse it 5-20 s later); returns the batch."""
    from .worker import RUNS

    strategies = spec.get("strategies")
    if not isinstance(strategies, list | tuple) or not strategies:
        raise ValueError(f"spec['strategies'] must be a non-empty list drawn from {RUNS}, got {strategies!r}")
    for strategy in strategies:
        check_choice("spec['strategies']", strategy, RUNS)
    check_int("spec['steps']", spec.get("steps"), minimum=1, maximum=10**6)
    check_int("spec['seed']", spec.get("seed"), minimum=0, max_bits=63)
    check_positive_real("spec['lr']", spec.get("lr"))
    if "micro_batches" in spec:
        check_int("spec['micro_batches']", spec["micro_batches"], minimum=1, maximum=1024)
    model = spec.get("model")
    if (not isinstance(model, dict) or model.get("name") not in ("Cruncher", "TransformerLM")
            or not isinstance(model.get("kwargs"), dict)):
        raise ValueError("spec['model'] must be {'name': 'Cruncher' or 'TransformerLM', 'kwargs': {...}}, "
                         f"got {model!r}")
    need = ("dim",) if model["name"] == "Cruncher" else ("vocab_size", "context_length")
    for key in need:
        check_int(f"spec['model']['kwargs'][{key!r}]", model["kwargs"].get(key), minimum=1, max_bits=31)
    return check_int("spec['batch']", spec.get("batch"), minimum=1, max_bits=31)


def _die_with_parent(parent: int):
    """A ``preexec_fn`` (Linux): the launcher's torchrun gets SIGKILL when ``parent`` dies, even by SIGKILL
    (its ranks then die with it: :func:`.worker.die_with_parent`); None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:  # looked up here, in the parent: the forked child runs no import (a thread may hold the import lock)
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return preexec


def _remove_stale_folders() -> None:
    """Remove the temp folders of launches whose process was killed outright (its pid is in the name)."""
    import shutil

    for folder in Path(tempfile.gettempdir()).glob("cs336_lec2_dist_*_*"):
        pid = folder.name.split("_")[3]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def torchrun_command(world_size: int, spec_path: Path, out_dir: Path, log_dir: Path | None = None) -> list[str]:
    """The ``torchrun`` command line that runs the worker on ``world_size`` local ranks.

    ``--standalone`` is torchrun's one-node rendezvous: c10d on ``localhost:0``, a port the OS picks as the
    agent binds it. On a GPU node the same worker runs as ``torchrun --nproc-per-node 8 -m
    cs336_lec2.distributed.worker SPEC OUT``; across nodes with ``--nnodes``, ``--node-rank`` and
    ``--rdzv-endpoint HOST:PORT`` instead of ``--standalone`` (how_to_run shows both).
    """
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={world_size}",
               "--max-restarts=0", "--monitor-interval=0.1"]
    if log_dir is not None:  # each rank's output in its own file, for WorkerError.log
        command += [f"--log-dir={log_dir}", "--redirects=3"]
    return [*command, "-m", "cs336_lec2.distributed.worker", str(spec_path), str(out_dir)]


def pick_backend(world_size: WorldSize) -> Literal["gloo", "nccl"]:
    """``"nccl"`` when there is a CUDA GPU for each of ``world_size`` ranks, else ``"gloo"`` (CPU)."""
    n = int(world_size)
    enough_gpus = torch.cuda.is_available() and torch.cuda.device_count() >= n
    return "nccl" if enough_gpus and dist.is_nccl_available() else "gloo"


def launch(spec: dict[str, Any], *, world_size: WorldSize = 2, backend: Literal["auto", "gloo", "nccl"] = "auto",
           timeout: Timeout = 60.0) -> list[Any]:
    """Run :mod:`cs336_lec2.distributed.worker` on ``spec`` as ``world_size`` ranks; return each rank's result.

    Each rank is a fresh ``python -m cs336_lec2.distributed.worker`` process started by torchrun (so it
    works from Jupyter, papermill and Colab: nothing is pickled from the notebook), joined through the
    c10d store torchrun serves on a port the OS picks when it binds (so no other process can take it
    first). ``backend="auto"`` is :func:`pick_backend`. The first rank to fail raises
    :class:`WorkerError` with its error; if the ranks have not all finished after ``timeout`` seconds
    every process is stopped and ``TimeoutError`` is raised. Every process is gone when this returns.
    """
    n = int(world_size)
    spec = _check_spec(spec, n)
    backend = pick_backend(n) if backend == "auto" else backend
    if backend == "nccl" and torch.cuda.device_count() < n:
        raise ValueError(f"backend='nccl' needs a CUDA GPU per rank: world_size={n}, GPUs={torch.cuda.device_count()}")
    timeout = float(timeout)
    _remove_stale_folders()
    with tempfile.TemporaryDirectory(prefix=f"cs336_lec2_dist_{os.getpid()}_") as tmp, sigterm_as_interrupt():
        out = Path(tmp)
        (out / "spec.json").write_text(json.dumps({**spec, "backend": backend, "timeout": float(timeout)}))
        # OMP_NUM_THREADS: what torchrun would set, said here so that it prints no warning about it
        env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"), "PYTHONUNBUFFERED": "1",
               LAUNCHED_BY_TORCHRUN: "1"}
        package_root = Path(__file__).resolve().parent.parent.parent
        if package_root.name not in ("site-packages", "dist-packages"):  # a source checkout: import THIS copy
            env["PYTHONPATH"] = os.pathsep.join(p for p in (str(package_root), os.environ.get("PYTHONPATH")) if p)
        if backend == "gloo" and "GLOO_SOCKET_IFNAME" not in env and (loopback := _loopback_name()):
            env["GLOO_SOCKET_IFNAME"] = loopback
        command = torchrun_command(n, out / "spec.json", out, out / "logs")
        agent: subprocess.Popen[bytes] | None = None
        try:
            with open(out / "torchrun.log", "wb") as log:
                agent = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True,
                                         preexec_fn=_die_with_parent(os.getpid()))
            try:
                code = agent.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                raise TimeoutError(f"the {n} ranks did not finish within timeout={timeout} s; "
                                   "all were stopped") from None
        finally:
            if agent is not None:
                _stop(agent)
        if code != 0:
            raise _first_error(out, n, code)
        return [torch.load(out / f"rank{r}.pt", weights_only=True) for r in range(n)]


def _stop(agent: subprocess.Popen[bytes]) -> None:
    """Stop torchrun if it still runs: SIGTERM, on which it stops its ranks (SIGTERM, then SIGKILL), then
    SIGKILL to whatever is left of its process group."""
    if agent.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            agent.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            agent.wait(timeout=45)  # torchrun gives its ranks 30 s to end after SIGTERM
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(agent.pid, signal.SIGKILL)
    agent.wait()


# torchrun's failure summary: "rank      : 1 (local_rank: 1)" then "exitcode  : -9 (pid: 4242)"
# (line-anchored: the agent's own log lines also say "local_rank: 0" and "exitcode: 1")
_FAILURE = re.compile(r"^[ \t]*rank[ \t]*:[ \t]*(\d+)\b.*\n[ \t]*exitcode[ \t]*:[ \t]*(-?\d+)", re.M)


def _signal_name(number: int) -> str:
    """``SIGKILL`` for 9; ``signal 99`` for a number this platform does not name."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _rank_log(out: Path, rank: int) -> str:
    """What rank ``rank`` printed (torchrun's per-rank stdout and stderr files)."""
    parts = sorted((out / "logs").glob(f"**/attempt_*/{rank}/std*.log"))
    return "".join(p.read_text(errors="replace") for p in parts)


def _first_error(out: Path, n: int, code: int) -> WorkerError:
    """The :class:`WorkerError` of the rank that failed first (the others fail in its wake).

    Every rank that fails with a Python error writes an error file stamped with the time of its exception:
    the earliest wins. A rank that dies without one (killed by a signal, crashed before Python could
    report) is the cause when there is one: its peers then fail with a Python error ("connection closed
    by peer"); torchrun's summary gives its exit code, and its last line of output is its error.
    """
    errors = {}
    for path in out.glob("rank*.error.json"):
        with contextlib.suppress(ValueError, OSError):
            error = json.loads(path.read_text())
            errors[error["rank"]] = error
    summary = (out / "torchrun.log").read_text(errors="replace") if (out / "torchrun.log").exists() else ""
    codes = {int(rank): int(exit) for rank, exit in _FAILURE.findall(summary)}
    root = [int(rank) for rank, _ in _FAILURE.findall(summary.rpartition("Root Cause")[2])]
    # killed by a signal torchrun did not send (its SIGTERM stops the others), with no error of its own
    silent = sorted((r for r, c in codes.items() if c < 0 and c != -signal.SIGTERM and r not in errors),
                    key=lambda r: r not in root)
    if silent or not errors:
        rank = silent[0] if silent else (root or sorted(codes) or [0])[0]
        lines = _rank_log(out, rank).strip().splitlines()
        exit_code = codes.get(rank, code)
        if lines:
            message = lines[-1]
        elif exit_code < 0:
            message = f"killed by {_signal_name(-exit_code)} (exit code {exit_code}), no Python error"
        else:
            message = f"exit code {exit_code}, no output"
    else:
        first = min(errors.values(), key=lambda e: e["time"])
        rank, message = first["rank"], f"{first['type']}: {first['message']}"
    return WorkerError(rank, codes.get(rank, code), message, _rank_log(out, rank))


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
