"""The program every rank of :func:`cs336_lec2.distributed.launcher.launch` runs.

``torchrun --nproc-per-node N -m cs336_lec2.distributed.worker SPEC_JSON OUT_DIR``: each rank joins the
process group through torchrun's environment (``MASTER_ADDR``, ``MASTER_PORT``, ``RANK``, ``WORLD_SIZE``),
runs the task the spec names and writes ``rank{R}.pt`` (a dict of plain values and tensors, loadable with
``weights_only=True``) into ``OUT_DIR``. On any exception it first writes ``rank{R}.error.json``
(type, message, traceback and the time it happened, so the launcher can name the rank that failed
FIRST), then exits with status 1 at once (tearing the group down could wait for peers stuck in a
collective; the launcher stops them). After success the process group is destroyed.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import json
import os
import signal
import sys
import time
import traceback
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from ..checks import beartype_on_first_call


def build_model(model_spec: dict[str, Any]) -> nn.Module:
    """The model a spec names: ``{"name": "Cruncher", "kwargs": {...}}`` from :mod:`cs336_lec2.models`
    (``"TransformerLM"``: :mod:`cs336_lec2.transformer_model`)."""
    from .. import models, transformer_model

    module = transformer_model if model_spec["name"] == "TransformerLM" else models
    return getattr(module, model_spec["name"])(**model_spec["kwargs"])


def make_batches(spec: dict[str, Any]) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """``spec["steps"]`` global batches drawn on the CPU from ``spec["seed"]`` (the same on every rank)."""
    gen = torch.Generator().manual_seed(spec["seed"])
    model = spec["model"]
    rows = spec["batch"]
    if model["name"] == "TransformerLM":
        vocab, ctx = model["kwargs"]["vocab_size"], model["kwargs"]["context_length"]
        tokens = [torch.randint(vocab, (rows, ctx + 1), generator=gen) for _ in range(spec["steps"])]
        return [(t[:, :-1], t[:, 1:]) for t in tokens]
    dim = model["kwargs"]["dim"]
    return [(torch.randn(rows, dim, generator=gen), torch.randn(rows, generator=gen)) for _ in range(spec["steps"])]


def loss_fn(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """MSE for a regression output ``(B,)``; cross-entropy for logits ``(B, T, V)``."""
    if output.dim() == 3:
        return F.cross_entropy(output.flatten(0, 1), target.flatten())
    return F.mse_loss(output, target)


def train_single(spec: dict[str, Any], micro_batches: int = 1, device: str = "cpu") -> dict[str, torch.Tensor]:
    """The same training in one process on ``device``, plain Adam; returns the parameters (on the CPU) by name.

    Each global batch is cut into ``micro_batches`` chunks (as the ranks cut it) whose gradients are
    accumulated, each loss divided by ``micro_batches``: the mean of the chunks' mean gradients.
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the ranks run (OMP_NUM_THREADS=1): CPU kernels add in the same order
    try:
        torch.manual_seed(spec["seed"])
        model = build_model(spec["model"]).to(device)
        optimizer = torch.optim.Adam(model.parameters(), lr=spec["lr"])
        for x, y in make_batches(spec):
            optimizer.zero_grad(set_to_none=True)
            for xs, ys in zip(x.chunk(micro_batches), y.chunk(micro_batches), strict=True):
                (loss_fn(model(xs.to(device)), ys.to(device)) / micro_batches).backward()
            optimizer.step()
        return {name: p.detach().cpu().clone() for name, p in model.named_parameters()}
    finally:
        torch.set_num_threads(threads)


def _local(t: torch.Tensor) -> torch.Tensor:
    """A DTensor's local shard; any other tensor itself."""
    to_local = getattr(t, "to_local", None)
    return to_local() if callable(to_local) else t


# What each run of the ``train`` task is. The first three are the chapter's byte-exact accounting of DDP,
# ZeRO-1 and FSDP2; the others show FSDP2's options and DDP's gradient accumulation.
RUNS = ("ddp", "zero1", "fsdp2", "fsdp2_zero2", "fsdp2_blocks", "ddp_accumulate", "ddp_no_sync")
FSDP2_OPTIONS: dict[str, dict[str, bool]] = {
    "fsdp2": {},  # one unit per module with parameters, resharded after forward: ZeRO-3
    "fsdp2_zero2": {"reshard_after_forward": False},  # gathered once per step: ZeRO-2's traffic
    "fsdp2_blocks": {"per_block": True, "bf16": True},  # the FSDP2 docs' recipe
}


def _own_params(module: nn.Module) -> bool:
    return any(True for _ in module.parameters(recurse=False))


def shard_fsdp2(model: nn.Module, mesh: Any, *, per_block: bool = False,
                reshard_after_forward: bool = True, bf16: bool = False) -> list[Any]:
    """FSDP2: every unit's parameters become dim-0 shards (DTensors); the root last."""
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    opts: dict[str, Any] = {"mesh": mesh,
                            "reshard_after_forward": reshard_after_forward}
    if bf16:  # compute in bf16, reduce in fp32; the sharded (master) weights stay fp32
        opts["mp_policy"] = MixedPrecisionPolicy(param_dtype=torch.bfloat16,
                                                 reduce_dtype=torch.float32)
    # the FSDP2 docs' recipe
    units = (list(model.get_submodule("blocks").children()) if per_block
             else [m for m in list(model.modules())[1:] if _own_params(m)])
    shards = [fully_shard(unit, **opts) for unit in units]
    # The root (embeddings, final norm, head): the backward pass needs it first.
    fully_shard(model, **{**opts, "reshard_after_forward": False})
    if per_block:  # gather the next block while this one computes
        for this, after in itertools.pairwise(shards):
            this.set_modules_to_forward_prefetch([after])
    return units


def accumulate(model: nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor,
               y: torch.Tensor, micro_batches: int, no_sync: bool = False) -> None:
    """One optimizer step over ``micro_batches`` chunks of ``(x, y)``.

    Each backward pass adds its gradients to ``.grad``; under DDP it also all-reduces
    them, unless ``no_sync`` holds that back until the last chunk.
    """
    optimizer.zero_grad(set_to_none=True)
    chunks = list(zip(x.chunk(micro_batches), y.chunk(micro_batches), strict=True))
    hold = getattr(model, "no_sync", contextlib.nullcontext)
    for i, (xs, ys) in enumerate(chunks):
        defer = no_sync and i < len(chunks) - 1
        with hold() if defer else contextlib.nullcontext():
            (loss_fn(model(xs), ys) / micro_batches).backward()
    optimizer.step()


def _wrap_ddp(model: nn.Module, world: int, device: torch.device) -> nn.Module:
    """DDP whose all-reduces go through ``torch.distributed`` (so they are counted)."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    # Gradients live in DDP's all-reduce buckets (no second copy). The only buffer, a causal mask, is
    # a constant: no need to re-broadcast it every forward pass (torch 2.13 renamed the switch).
    no_resync: dict[str, Any] = ({"forward_sync_buffers": False}
                                 if "forward_sync_buffers" in inspect.signature(DDP).parameters
                                 else {"broadcast_buffers": False})
    device_ids = [device.index] if device.type == "cuda" else None
    wrapped = DDP(model, device_ids=device_ids, gradient_as_bucket_view=True, **no_resync)

    def hook(state, bucket):  # DDP rejects string annotations here
        # The default all-reduce hook, but called through torch.distributed so it is counted.
        buffer = bucket.buffer().div_(world)
        return dist.all_reduce(buffer, async_op=True).get_future().then(lambda f: f.value()[0])

    wrapped.register_comm_hook(None, hook)
    return wrapped


def _setup(run: str, model: nn.Module, world: int, device: torch.device, lr: float) -> tuple[nn.Module, Any]:
    """The model as ``run`` trains it and its optimizer."""
    if run in FSDP2_OPTIONS:
        from .measure import fully_shard

        if fully_shard is None:
            raise RuntimeError(f"this torch ({torch.__version__}) has no torch.distributed.fsdp.fully_shard (2.6+)")
        from torch.distributed.device_mesh import init_device_mesh

        # An explicit mesh on the ranks' own device: FSDP2's default is a CUDA mesh whenever a GPU exists,
        # also when the ranks run on the CPU with gloo (one GPU for two ranks).
        shard_fsdp2(model, init_device_mesh(device.type, (world,)), **FSDP2_OPTIONS[run])
        return model, torch.optim.Adam(model.parameters(), lr=lr)
    wrapped = _wrap_ddp(model, world, device)
    if run == "zero1":
        from torch.distributed.optim import ZeroRedundancyOptimizer

        return wrapped, ZeroRedundancyOptimizer(wrapped.parameters(), optimizer_class=torch.optim.Adam, lr=lr)
    return wrapped, torch.optim.Adam(wrapped.parameters(), lr=lr)


@contextlib.contextmanager
def _unsharded_peak(model: nn.Module) -> Iterator[list[int]]:
    """Largest bytes of unsharded (non-DTensor) parameters seen as any module with parameters starts
    its forward or backward pass; FSDP2 swaps a unit's gathered parameters in while it computes."""
    peak = [0]

    def sample(*_: Any) -> None:
        live = {p.data_ptr(): p.numel() * p.element_size() for p in model.parameters()
                if not hasattr(p, "to_local")}
        peak[0] = max(peak[0], sum(live.values()))

    handles = []
    for module in model.modules():
        if _own_params(module):
            handles.append(module.register_forward_pre_hook(sample))
    try:
        yield peak
    finally:
        for h in handles:
            h.remove()


def _train(run: str, spec: dict[str, Any], rank: int, world: int, device: torch.device) -> dict[str, Any]:
    from ..memory import optimizer_state_tensors
    from .measure import count_collectives, local_tensor_bytes

    if run not in RUNS:
        raise ValueError(f"strategy must be one of {RUNS}, got {run!r}")
    torch.manual_seed(spec["seed"])
    model = build_model(spec["model"]).to(device)
    names = [name for name, _ in model.named_parameters()]
    wrapped, optimizer = _setup(run, model, world, device, spec["lr"])
    micro = spec.get("micro_batches", 2) if run.startswith("ddp_") else 1

    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    comm_per_step, calls_per_step = [], []
    with _unsharded_peak(model) as peak:
        for x, y in make_batches(spec):
            x, y = x.chunk(world)[rank].to(device), y.chunk(world)[rank].to(device)
            with count_collectives() as comm:
                accumulate(wrapped, optimizer, x, y, micro, no_sync=run == "ddp_no_sync")
            comm_per_step.append(dict(comm.payload_bytes))
            calls_per_step.append(dict(comm.calls))
    local_opt = getattr(optimizer, "optim", optimizer)  # ZeroRedundancyOptimizer keeps its shard's optimizer in .optim
    params = [_local(p) for p in model.parameters()]
    result: dict[str, Any] = {
        "params": local_tensor_bytes(params),
        "grads": local_tensor_bytes(_local(p.grad) for p in model.parameters() if p.grad is not None),
        "optimizer_state": local_tensor_bytes(optimizer_state_tensors(local_opt)),
        "local_numel": [t.numel() for t in params],
        "comm_per_step": comm_per_step,
        "calls_per_step": calls_per_step,
        "unsharded_peak": peak[0] if run in FSDP2_OPTIONS else None,
        "cuda_peak": torch.cuda.max_memory_allocated(device) if device.type == "cuda" else None,
    }
    # A DTensor's full_tensor() is an all-gather: every rank calls it, rank 0 keeps the result.
    full = {name: p.full_tensor() if hasattr(p, "full_tensor") else p
            for name, p in zip(names, model.parameters(), strict=True)}
    if rank == 0:
        result["full_params"] = {name: t.detach().cpu().clone() for name, t in full.items()}
    dist.barrier()
    return result


LAUNCHED_BY_TORCHRUN = "CS336_LEC2_UNDER_TORCHRUN"  # launch() sets it: this rank's parent must be torchrun


def die_with_parent() -> None:
    """On Linux, get SIGKILL when the process that started this rank (torchrun) dies, even by SIGKILL:
    no rank outlives its launcher."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    parent = os.getppid()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    try:  # the launcher died before prctl took effect: this rank was handed to init (or a subreaper)
        command = Path(f"/proc/{parent}/cmdline").read_bytes()
        orphaned = os.getppid() != parent or b"torch.distributed.run" not in command
    except OSError:
        orphaned = True
    if orphaned and os.environ.get(LAUNCHED_BY_TORCHRUN) == "1":
        os._exit(1)


def run(spec: dict[str, Any], rank: int, world: int, out_dir: Path) -> dict[str, Any]:
    """Join the group and run ``spec["task"]``: ``train`` (each of ``spec["strategies"]``), or for tests
    ``fail`` (rank ``fail_rank`` raises), ``crash`` (it kills itself) or ``hang``."""
    backend = spec["backend"]
    device = torch.device("cpu")
    if backend == "nccl":
        device = torch.device("cuda", rank)
        torch.cuda.set_device(device)
    # torchrun's environment (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE): the c10d store its agent serves
    dist.init_process_group(backend, rank=rank, world_size=world, timeout=timedelta(seconds=spec["timeout"]))
    task = spec["task"]
    if task == "fail":  # for tests and the chapter's demonstration: one rank raises, the others wait for it
        if rank == spec["fail_rank"]:
            raise RuntimeError(spec["message"])
        dist.barrier()
        return {}
    if task == "crash":  # for tests: a rank dies without a Python error (as when the OS kills it)
        if rank == spec["fail_rank"]:
            os.kill(os.getpid(), signal.SIGKILL)
        dist.barrier()
        return {}
    if task == "hang":
        time.sleep(10 * spec["timeout"])
        return {}
    if task == "train":
        return {s: _train(s, spec, rank, world, device) for s in spec["strategies"]}
    raise ValueError(f"task must be 'train', 'fail', 'crash' or 'hang', got {task!r}")


def main(argv: list[str]) -> int:
    """``python -m cs336_lec2.distributed.worker SPEC_JSON OUT_DIR`` under torchrun; returns the exit status."""
    die_with_parent()
    torch.set_num_threads(1)  # the ranks share the machine's cores; the reference runs one thread too
    spec_path, out_dir = Path(argv[0]), Path(argv[1])
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    try:
        spec = json.loads(spec_path.read_text())
        result = run(spec, rank, world, out_dir)
        torch.save(result, out_dir / f"rank{rank}.pt")
    except BaseException as exc:
        error = {"rank": rank, "type": type(exc).__name__, "message": str(exc), "time": time.time(),
                 "traceback": traceback.format_exc()}
        (out_dir / f"rank{rank}.error.json").write_text(json.dumps(error))
        traceback.print_exc()
        sys.stderr.flush()
        # Leave at once: tearing the group down could wait on peers that are stuck in a collective.
        os._exit(1)
    dist.destroy_process_group()
    return 0


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
