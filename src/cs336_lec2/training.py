"""The lecture's training loop, done so it honours its arguments and survives a crash.

- :func:`set_seed` seeds every global random number generator at once.
- :func:`train` (one :func:`train_step` after another) fits :class:`~cs336_lec2.models.Cruncher` to
  the lecture's synthetic regression (``x ~ N(0, 1)``, ``y = x @ arange(dim)``, MSE loss), with
  checkpoints and resumption.
- :func:`save_checkpoint` writes model, optimizer, step and every RNG state atomically;
  :func:`load_checkpoint` restores them, reading with ``torch.load(weights_only=True)``.

A checkpoint is a dict with the keys ``format``, ``model``, ``optimizer``, ``step``, ``rng`` (``torch``,
``cuda``, ``numpy``, ``python``, ``generator``) and ``extra``. It holds only tensors and plain Python
values, which is what lets it load with ``weights_only=True``: full unpickling would run whatever
code the file names, so loading an untrusted checkpoint that way is running untrusted code.
"""

from __future__ import annotations

import copy
import pickle
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from tqdm import tqdm  # plain tqdm: tqdm.auto warns on stderr in Jupyter without ipywidgets

from .bilingual import tr
from .checks import Count, FilePath, Flag, Is, PositiveCount, PositiveReal, beartype_on_first_call, between, is_bool
from .device import as_device, device_arg
from .models import Cruncher
from .optim import check_state_dict, make_optimizer
from .rng import check_rng_states, restore_rng_states, rng_states
from .safety import write_atomic

MAX_SEED = 2**32 - 1  # numpy's legacy seeding accepts 0 <= seed < 2**32; we use the same range everywhere
FORMAT = "cs336_lec2.checkpoint/1"
Seed = Annotated[int, Is[between(0, MAX_SEED)]]
Side = Annotated[int, Is[between(1, 2**31 - 1)]]  # one side of a batch this package draws


def set_seed(seed: Seed) -> None:
    """Seed Python's ``random``, numpy's global generator, torch's CPU generator and every CUDA device.

    ``seed`` must be an int in ``[0, 2**32 - 1]`` (numpy's range). Returns nothing.
    """
    seed = int(seed)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # also seeds every CUDA device (lazily, when CUDA initialises)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def _refuse_unloadable(name: str, value: object) -> None:
    """Raise unless ``value`` is made of tensors and plain Python values (what ``weights_only`` loads)."""
    if isinstance(value, dict):
        for key, item in value.items():
            _refuse_unloadable(f"{name}[{key!r}]", key)
            _refuse_unloadable(f"{name}[{key!r}]", item)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _refuse_unloadable(f"{name}[{i}]", item)
    elif isinstance(value, np.generic):  # np.float64 passes as a float, but weights_only loads refuse it
        raise TypeError(f"{name} is a numpy {type(value).__name__}: weights-only loading refuses numpy objects; "
                        f"pass {value!r}.item() (a plain Python number) instead")
    elif value is not None and not isinstance(value, (bool, int, float, str, torch.Tensor)):
        raise TypeError(tr(f"{name} must hold only tensors and plain Python values, got {type(value).__name__}",
                           f"{name} 只能包含张量和 Python 的普通值，得到的是 {type(value).__name__}"))


class CheckpointError(ValueError):
    """A file that cannot be loaded as a checkpoint (truncated, empty, foreign or tampered), named in the message."""


def save_checkpoint(
    path: FilePath,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    *,
    step: Count,
    generator: torch.Generator | None = None,
    **extra: Any,
) -> int:
    """Write model, optimizer, ``step``, RNG states (and ``generator``'s) and ``extra`` to ``path``.

    Atomic: the bytes go to a temporary file in the same directory, are flushed and fsynced, and only
    then replace ``path`` with :func:`os.replace`; a crash mid-save leaves the previous checkpoint
    intact. ``extra`` values must be tensors or plain Python values. Returns the file's size in bytes.
    """
    _refuse_unloadable("extra", extra)
    step, path = int(step), Path(path)
    if path.is_dir():  # also "" (the current folder): os.replace would fail with a raw IsADirectoryError
        raise ValueError(f"path must name a checkpoint file, got {str(path)!r}, which is a folder")
    if not path.parent.is_dir():
        raise FileNotFoundError(f"path: the directory for checkpoint {path.name!r} does not exist")
    payload = {
        "format": FORMAT,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "step": step,
        "rng": rng_states(generator),
        "extra": extra,
    }
    write_atomic(path, lambda f: torch.save(payload, f))  # temp file, fsync, os.replace, fsync the folder
    return path.stat().st_size


def _check_shapes(saved: dict[str, torch.Tensor], model: nn.Module) -> None:
    current = model.state_dict()
    problems = [
        f"{k}: missing from the checkpoint"
        if k not in saved
        else f"{k}: checkpoint {tuple(saved[k].shape)} vs model {tuple(v.shape)}"
        for k, v in current.items()
        if k not in saved or saved[k].shape != v.shape
    ]
    problems += [f"{k}: not in the model" for k in saved if k not in current]
    if problems:
        raise ValueError("checkpoint was saved from a different model shape: " + "; ".join(problems))


def read_checkpoint(path: FilePath) -> dict[str, Any]:
    """The checkpoint dict at ``path`` (tensors on the CPU), read with ``torch.load(weights_only=True)``.

    ``weights_only=True`` unpickles only tensors and plain containers: a file that names any other
    object (whose unpickling could run code) raises ``pickle.UnpicklingError`` instead.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"path: there is no checkpoint named {path.name!r}")
    unreadable = f"{path.name} cannot be read as a torch.save file: truncated or not a checkpoint"
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as err:  # torch advises weights_only=False (running the file's code): never
        if re.search(r"unsupported (global|class)", str(err), re.IGNORECASE):
            unreadable = (f"{path.name} names Python objects other than tensors and plain values, which a "
                          "weights-only load refuses: not written by save_checkpoint, or tampered with")
        raise CheckpointError(unreadable) from None
    except Exception:  # truncated zip, garbage bytes, a file of another program
        raise CheckpointError(unreadable) from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != FORMAT:
        raise CheckpointError(f"{path.name} is not a checkpoint written by save_checkpoint ({FORMAT})")
    return ckpt


def load_checkpoint(
    path: FilePath,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    *,
    generator: torch.Generator | None = None,
) -> tuple[int, dict[str, Any]]:
    """Restore ``model``, ``optimizer``, the global RNG states (and ``generator``'s) from ``path``.

    Reads with :func:`read_checkpoint` (``weights_only=True``). Returns ``(step, extra)``: the step
    saved and the extra values given to :func:`save_checkpoint`. Every check (the file, the model's
    shapes, the optimizer's type and groups, every part and RNG state present) runs before anything is
    changed, and a failure while restoring puts the earlier states back.
    """
    ckpt = read_checkpoint(path)
    _check_complete(ckpt, Path(path).name, generator)
    _check_shapes(ckpt["model"], model)
    try:
        check_state_dict(ckpt["optimizer"], optimizer)  # before the model is touched; errors name the field
    except (TypeError, ValueError) as err:
        raise CheckpointError(f"{Path(path).name}: {err}; nothing was restored") from None
    before = ({k: v.clone() for k, v in model.state_dict().items()}, copy.deepcopy(optimizer.state_dict()),
              rng_states(generator))
    try:
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        restore_rng_states(ckpt["rng"], generator)
    except Exception as err:  # what no check foresaw: put everything back, then say which file
        model.load_state_dict(before[0])
        optimizer.load_state_dict(before[1])
        restore_rng_states(before[2], generator)
        raise CheckpointError(f"{Path(path).name} could not be restored ({type(err).__name__}: {err}); "
                              "the model, optimizer and RNG states are as they were") from err
    return ckpt["step"], ckpt["extra"]


def _check_complete(ckpt: dict[str, Any], name: str, generator: torch.Generator | None) -> None:
    """Raise :class:`CheckpointError` naming the first missing or malformed part of a checkpoint."""
    parts = {"model": dict, "optimizer": dict, "step": int, "rng": dict, "extra": dict}
    problem = next((f"'{k}' is missing or not a {t.__name__}" for k, t in parts.items()
                    if not isinstance(ckpt.get(k), t) or is_bool(ckpt.get(k))), None)
    if problem is None and not 0 <= ckpt["step"] < 2**63:
        problem = f"'step' must be a whole number >= 0, got {ckpt['step']!r}"
    if problem is None and not all(isinstance(v, torch.Tensor) for v in ckpt["model"].values()):
        problem = "'model' holds something other than tensors"
    if problem is None:
        try:
            check_rng_states(ckpt["rng"], generator)
        except (TypeError, ValueError) as err:  # rng.python.state = 5 is a TypeError inside
            problem = str(err)
    if problem:
        raise CheckpointError(f"{name} is incomplete: {problem}; nothing was restored")


def regression_batch(
    batch_size: Side, dim: Side, *, generator: torch.Generator, device: str | torch.device = "cpu"
) -> tuple[torch.Tensor, torch.Tensor]:
    """The lecture's data: ``x ~ N(0, 1)`` of shape ``(batch_size, dim)`` and ``y = x @ arange(dim)``.

    ``x`` is drawn on the CPU from ``generator`` and then moved, so a seed gives the same data on any
    device.
    """
    batch_size, dim = int(batch_size), int(dim)
    if batch_size * dim > 2**34:
        raise ValueError(f"batch_size x dim = {batch_size * dim:.3g} values: more than this package builds")
    device = as_device("device", device)
    x = torch.randn(batch_size, dim, generator=generator).to(device)
    true_w = torch.arange(dim, dtype=torch.float32, device=x.device)
    return x, x @ true_w


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor) -> float:
    """One step of the loop on batch ``(x, y)``; returns the step's MSE loss (before the update)."""
    loss = F.mse_loss(model(x), y)  # forward
    loss.backward()  # backward: fills p.grad for every parameter
    optimizer.step()  # update the parameters from p.grad (and the optimizer's state)
    optimizer.zero_grad(set_to_none=True)  # drop the gradients: memory freed, none leaks into the next step
    return loss.item()


@dataclass
class TrainResult:
    """What :func:`train` returns: per-step losses, the model and optimizer, steps done, steps saved at."""

    losses: list[float]
    model: Cruncher
    optimizer: torch.optim.Optimizer
    step: int
    saved_at: list[int] = field(default_factory=list)


def train(
    *,
    dim: int,  # Cruncher checks dim and num_layers
    num_layers: int,
    batch_size: PositiveCount,
    num_steps: Annotated[int, Is[between(0, 10**9)]],  # a typo of 2**1100 never ends
    lr: PositiveReal,
    optimizer: str = "sgd",
    seed: Seed = 0,
    device: str | torch.device = "cpu",
    checkpoint_path: FilePath | None = None,
    checkpoint_every: PositiveCount | None = None,
    resume_from: FilePath | None = None,
    stop_at_step: Count | None = None,
    progress: Flag = False,
) -> TrainResult:
    """Train ``Cruncher(dim, num_layers)`` with ``optimizer`` at ``lr`` for ``num_steps`` steps.

    ``seed`` fixes the initial weights and the data (drawn from a dedicated ``torch.Generator`` seeded
    with ``seed + 2**32``, a stream no weight seed can coincide with). Every ``checkpoint_every`` steps,
    and at the end, the run is saved to ``checkpoint_path``; ``stop_at_step`` stops early without saving
    (a simulated crash); ``resume_from`` continues a saved run with the same configuration, and
    reproduces the uninterrupted run's losses bit for bit. ``losses`` are per-step MSE values.
    """
    if checkpoint_every is not None and checkpoint_path is None:
        raise ValueError("checkpoint_every needs checkpoint_path: where should the checkpoints go?")
    if stop_at_step is not None and stop_at_step > num_steps:
        raise ValueError(f"stop_at_step must be at most num_steps={num_steps}, got {stop_at_step}")
    set_seed(seed)  # the global RNGs are then saved in checkpoints as a seeded run's
    dev = device_arg("device", device)
    name = optimizer.lower() if isinstance(optimizer, str) else optimizer
    config = dict(dim=dim, num_layers=num_layers, batch_size=batch_size, lr=lr, optimizer=name, seed=seed)

    model = Cruncher(dim, num_layers, device=dev)
    opt = make_optimizer(optimizer, model.parameters(), lr=lr)
    data_gen = torch.Generator().manual_seed(seed + 2**32)
    start, losses = 0, []
    if resume_from is not None:
        extra = read_checkpoint(resume_from)["extra"]
        if not isinstance(extra.get("config"), dict) or "losses" not in extra:
            raise ValueError("resume_from must be a checkpoint written by train (it has no config or losses)")
        differ = [
            f"{k}: checkpoint {extra['config'].get(k)!r} vs now {v!r}"
            for k, v in config.items()
            if extra["config"].get(k) != v
        ]
        if differ:
            raise ValueError("resume_from holds a run with a different configuration: " + "; ".join(differ))
        start, _ = load_checkpoint(resume_from, model, opt, generator=data_gen)
        if start > num_steps:
            raise ValueError(f"resume_from is at step {start}, past num_steps={num_steps}")
        losses = list(extra["losses"])

    end = num_steps if stop_at_step is None else max(start, stop_at_step)
    saved_at: list[int] = []
    for step in tqdm(range(start + 1, end + 1), disable=not progress, desc="train", leave=False):
        x, y = regression_batch(batch_size, dim, generator=data_gen, device=dev)
        losses.append(train_step(model, opt, x, y))
        done = step == num_steps
        if checkpoint_path is not None and (done or (checkpoint_every and step % checkpoint_every == 0)):
            save_checkpoint(checkpoint_path, model, opt, step=step, generator=data_gen, config=config, losses=losses)
            saved_at.append(step)
    return TrainResult(losses=losses, model=model, optimizer=opt, step=end, saved_at=saved_at)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
