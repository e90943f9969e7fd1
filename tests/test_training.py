"""Tests of seeding, the training loop and atomic, resumable checkpoints."""

from __future__ import annotations

import os
import pickle
import random
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from cs336_lec2 import training
from cs336_lec2.models import Cruncher, num_parameters
from cs336_lec2.optim import OPTIMIZERS, SGD, Adam, make_optimizer
from cs336_lec2.training import (
    load_checkpoint,
    regression_batch,
    save_checkpoint,
    set_seed,
    train,
    train_step,
)


def _draw() -> tuple[float, float, torch.Tensor]:
    return random.random(), float(np.random.rand()), torch.randn(3)


def test_set_seed_reproduces_every_generator() -> None:
    set_seed(123)
    a = _draw()
    set_seed(123)
    b = _draw()
    assert a[0] == b[0] and a[1] == b[1] and torch.equal(a[2], b[2])
    set_seed(124)
    c = _draw()
    assert a[0] != c[0] and a[1] != c[1] and not torch.equal(a[2], c[2])


def test_set_seed_accepts_numpy_int_and_bounds() -> None:
    set_seed(np.int64(5))
    set_seed(0)
    set_seed(2**32 - 1)


@pytest.mark.parametrize(
    ("seed", "error", "match"),
    [
        (-1, ValueError, r"seed must be an int in \[0, 4294967295\]"),
        (2**32, ValueError, r"seed must be an int in \[0, 4294967295\]"),
        (1.0, TypeError, r"seed must be an int in \[0, 4294967295\]"),
        ("0", TypeError, r"seed must be an int in \[0, 4294967295\]"),
        (True, TypeError, r"seed must be an int in \[0, 4294967295\]"),
    ],
)
def test_set_seed_rejects(seed: object, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        set_seed(seed)  # type: ignore[arg-type]


# --- the synthetic regression and the loop ---------------------------------------------------------


def test_regression_batch_is_the_lecture_data() -> None:
    x, y = regression_batch(5, 16, generator=torch.Generator().manual_seed(0))
    assert x.shape == (5, 16) and y.shape == (5,) and x.dtype == y.dtype == torch.float32
    torch.testing.assert_close(y, x @ torch.arange(16, dtype=torch.float32))
    x2, _ = regression_batch(5, 16, generator=torch.Generator().manual_seed(0))
    assert torch.equal(x, x2)


def test_train_step_updates_and_clears_gradients() -> None:
    torch.manual_seed(0)
    model = Cruncher(4, 1)
    before = [p.detach().clone() for p in model.parameters()]
    x, y = regression_batch(8, 4, generator=torch.Generator().manual_seed(0))
    expected = torch.nn.functional.mse_loss(model(x), y).item()
    assert train_step(model, SGD(model.parameters(), lr=0.01), x, y) == expected
    assert all(p.grad is None for p in model.parameters())
    assert all(not torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))


SMALL = {"dim": 8, "num_layers": 1, "batch_size": 4, "num_steps": 30, "lr": 0.001}


def test_train_honours_lr_like_the_lecture_should_have() -> None:
    slow = train(**{**SMALL, "num_layers": 0, "lr": 0.01})
    fast = train(**{**SMALL, "num_layers": 0, "lr": 0.1})
    assert slow.losses[0] == fast.losses[0]  # same weights, same first batch: the lr acts after step 1
    assert slow.losses[1:] != fast.losses[1:]
    assert fast.losses[-1] < 1e-3 * fast.losses[0]  # lr 0.1 fits y = x @ arange(8) within 30 steps
    assert fast.losses[-1] < slow.losses[-1]
    assert slow.optimizer.param_groups[0]["lr"] == 0.01


@pytest.mark.parametrize("num_layers", [0, 1, 3])
def test_train_honours_depth_steps_optimizer_and_device(num_layers: int) -> None:
    result = train(**{**SMALL, "num_layers": num_layers, "num_steps": 7}, optimizer="adam")
    assert len(result.model.layers) == num_layers and result.model.dim == 8
    assert num_parameters(result.model) == num_layers * 64 + 8
    assert isinstance(result.optimizer, Adam)
    assert result.step == 7 and len(result.losses) == 7
    assert all(isinstance(v, float) for v in result.losses)
    assert all(p.device.type == "cpu" for p in result.model.parameters())


def test_train_honours_batch_size(monkeypatch: pytest.MonkeyPatch) -> None:
    sizes: list[int] = []

    def recording(batch_size: int, dim: int, **kwargs: object) -> tuple[torch.Tensor, torch.Tensor]:
        sizes.append(batch_size)
        return regression_batch(batch_size, dim, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(training, "regression_batch", recording)
    train(**{**SMALL, "batch_size": 3, "num_steps": 4})
    assert sizes == [3, 3, 3, 3]


def test_train_is_deterministic_per_seed() -> None:
    a, b, c = train(**SMALL, seed=1), train(**SMALL, seed=1), train(**SMALL, seed=2)
    assert a.losses == b.losses and a.losses != c.losses


def test_train_progress_bar_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert len(train(**{**SMALL, "num_steps": 3}, progress=True).losses) == 3
    assert "train" in capsys.readouterr().err


# --- checkpoints: resume bit for bit ---------------------------------------------------------------


@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
def test_crash_and_resume_reproduces_the_uninterrupted_run(tmp_path: Path, optimizer: str) -> None:
    config = {**SMALL, "num_steps": 40, "optimizer": optimizer, "lr": 1e-3}
    full = train(**config)
    ckpt = tmp_path / "run.pt"
    crashed = train(**config, checkpoint_path=ckpt, checkpoint_every=10, stop_at_step=25)
    assert crashed.step == 25 and crashed.saved_at == [10, 20] and len(crashed.losses) == 25
    set_seed(999)  # a fresh process would not share the crashed run's RNG state
    resumed = train(**config, resume_from=ckpt)
    assert resumed.losses == full.losses  # bit for bit, steps 21-25 recomputed identically
    for p, q in zip(full.model.parameters(), resumed.model.parameters(), strict=True):
        assert torch.equal(p, q)
    for p, q in zip(full.model.parameters(), resumed.model.parameters(), strict=True):
        for key, value in full.optimizer.state[p].items():
            other = resumed.optimizer.state[q][key]
            assert torch.equal(value, other) if isinstance(value, torch.Tensor) else value == other


def test_resume_can_extend_a_finished_run(tmp_path: Path) -> None:
    ckpt = tmp_path / "run.pt"
    first = train(**{**SMALL, "num_steps": 12}, checkpoint_path=ckpt)
    assert first.saved_at == [12]  # no checkpoint_every: saved once, at the end
    longer = train(**{**SMALL, "num_steps": 20}, resume_from=ckpt)
    assert longer.losses == train(**{**SMALL, "num_steps": 20}).losses


def test_checkpoint_restores_every_rng(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = Cruncher(4, 1)
    opt = Adam(model.parameters())
    gen = torch.Generator().manual_seed(3)
    set_seed(42)
    save_checkpoint(tmp_path / "c.pt", model, opt, step=5, generator=gen, note="hello")
    expected = (torch.randn(3), np.random.rand(3), random.random(), torch.randn(2, generator=gen))
    set_seed(7)
    other_gen = torch.Generator().manual_seed(11)
    step, extra = load_checkpoint(tmp_path / "c.pt", model, opt, generator=other_gen)
    assert step == 5 and extra == {"note": "hello"}
    got = (torch.randn(3), np.random.rand(3), random.random(), torch.randn(2, generator=other_gen))
    assert torch.equal(got[0], expected[0]) and np.array_equal(got[1], expected[1])
    assert got[2] == expected[2] and torch.equal(got[3], expected[3])


def test_checkpoint_is_plain_data_for_weights_only(tmp_path: Path) -> None:
    result = train(**{**SMALL, "num_steps": 3, "optimizer": "adamw"}, checkpoint_path=tmp_path / "c.pt")
    ckpt = torch.load(tmp_path / "c.pt", weights_only=True)
    assert set(ckpt) == {"format", "model", "optimizer", "step", "rng", "extra"}
    assert set(ckpt["rng"]) == {"torch", "cuda", "numpy", "python", "generator"}
    assert set(ckpt["extra"]) == {"config", "losses"} and ckpt["extra"]["losses"] == result.losses
    assert ckpt["step"] == 3 and list(ckpt["model"]) == ["layers.0.weight", "final.weight"]


class _Payload:
    """Stands for an object whose unpickling would run code."""

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (print, ("this ran while loading",))


def test_load_refuses_arbitrary_objects(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    torch.save({"format": training.FORMAT, "model": _Payload()}, tmp_path / "evil.pt")
    model = Cruncher(4, 0)
    with pytest.raises(training.CheckpointError, match=r"evil\.pt names Python objects") as err:
        load_checkpoint(tmp_path / "evil.pt", model, SGD(model.parameters()))
    assert "this ran" not in capsys.readouterr().out
    assert "weights_only=False" not in str(err.value) and err.value.__cause__ is None
    assert isinstance(err.value, ValueError) and not isinstance(err.value, pickle.UnpicklingError)


@pytest.mark.parametrize("content", [b"", b"garbage, not a zip", "truncated"])
def test_every_unreadable_file_is_one_clear_error_naming_it(tmp_path: Path, content: object) -> None:
    """Issue 15 item 3: empty, garbage and truncated files each raised a different torch error."""
    model = Cruncher(4, 1)
    opt = SGD(model.parameters())
    path = tmp_path / "c.pt"
    if content == "truncated":
        save_checkpoint(path, model, opt, step=1)
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    else:
        path.write_bytes(content)  # type: ignore[arg-type]
    before = [p.detach().clone() for p in model.parameters()]
    with pytest.raises(training.CheckpointError, match=r"^c\.pt cannot be read as a torch\.save file") as err:
        load_checkpoint(path, model, opt)
    assert "weights_only" not in str(err.value)
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))


def test_numpy_scalars_are_refused_at_save_time_not_at_load_time(tmp_path: Path) -> None:
    """Issue 15 item 3: best=np.float64(.25) (a float subclass) wrote a file that the weights-only load refused."""
    model = Cruncher(4, 1)
    opt = SGD(model.parameters())
    for extra in ({"best": np.float64(0.25)}, {"xs": [1, np.int64(2)]}, {"cfg": {"lr": np.float32(0.5)}}):
        with pytest.raises(TypeError, match=r"extra\[.*is a numpy .*\.item\(\)"):
            save_checkpoint(tmp_path / "c.pt", model, opt, step=1, **extra)
        assert not (tmp_path / "c.pt").exists()
    save_checkpoint(tmp_path / "c.pt", model, opt, step=1, best=np.float64(0.25).item())
    assert load_checkpoint(tmp_path / "c.pt", model, opt) == (1, {"best": 0.25})


def test_loading_another_optimizers_state_fails_before_the_model_is_touched(tmp_path: Path) -> None:
    """Issue 15 item 3: an SGD checkpoint loaded into AdamW changed the model, then failed."""
    model, other = Cruncher(4, 1), Cruncher(4, 1)
    before = [p.detach().clone() for p in other.parameters()]
    unchanged = lambda: all(torch.equal(a, b) for a, b in zip(before, other.parameters(), strict=True))  # noqa: E731
    save_checkpoint(tmp_path / "sgd.pt", model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9), step=1)
    with pytest.raises(ValueError, match="other parameter groups or settings than this AdamW"):
        load_checkpoint(tmp_path / "sgd.pt", other, torch.optim.AdamW(other.parameters()))
    assert unchanged()
    save_checkpoint(tmp_path / "mine.pt", model, make_optimizer("sgd", model.parameters(), lr=0.1), step=1)
    with pytest.raises(ValueError, match="than this AdamW"):  # the package's own optimizers too
        load_checkpoint(tmp_path / "mine.pt", other, make_optimizer("adamw", other.parameters(), lr=0.1))
    assert unchanged()
    ckpt = torch.load(tmp_path / "sgd.pt", weights_only=True)  # as an older torch, without the newer flags, wrote it
    for group in ckpt["optimizer"]["param_groups"]:
        for flag in ("foreach", "fused", "differentiable", "maximize"):
            group.pop(flag, None)
    torch.save(ckpt, tmp_path / "older.pt")
    same_kind = torch.optim.SGD(other.parameters(), lr=0.1, momentum=0.9)
    assert load_checkpoint(tmp_path / "older.pt", other, same_kind)[0] == 1


def test_a_failed_save_leaves_the_old_checkpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = Cruncher(4, 1)
    opt = SGD(model.parameters())
    path = tmp_path / "c.pt"
    save_checkpoint(path, model, opt, step=1)
    good = path.read_bytes()
    real_save = torch.save

    def crash_midway(obj: object, f: Any) -> None:
        real_save(obj, f)
        f.seek(0)
        f.truncate(100)  # half a file on disk, then the "machine dies"
        raise OSError("simulated crash during save")

    monkeypatch.setattr(torch, "save", crash_midway)
    with pytest.raises(OSError, match="simulated crash"):
        save_checkpoint(path, model, opt, step=2)
    assert path.read_bytes() == good
    assert [p.name for p in tmp_path.iterdir()] == ["c.pt"]  # the temporary file was removed
    monkeypatch.undo()
    assert load_checkpoint(path, model, opt)[0] == 1


def test_save_fsyncs_before_it_renames(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append("replace"), real_replace(a, b))[1])
    model = Cruncher(2, 0)
    size = save_checkpoint(tmp_path / "c.pt", model, SGD(model.parameters()), step=0)
    assert events == ["fsync", "replace", "fsync"]  # file data, rename, then the directory entry
    assert size == (tmp_path / "c.pt").stat().st_size > 0


def test_checkpoint_errors(tmp_path: Path) -> None:
    model = Cruncher(4, 1)
    opt = SGD(model.parameters())
    with pytest.raises(FileNotFoundError, match=r"no checkpoint named 'missing\.pt'"):
        load_checkpoint(tmp_path / "missing.pt", model, opt)
    with pytest.raises(FileNotFoundError, match=r"the directory for checkpoint 'c\.pt' does not exist"):
        save_checkpoint(tmp_path / "nope" / "c.pt", model, opt, step=0)
    with pytest.raises(TypeError, match=r"model must be a torch\.nn\.Module, got OrderedDict"):
        save_checkpoint(tmp_path / "c.pt", model.state_dict(), opt, step=0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"optimizer must be a torch.optim.Optimizer"):
        load_checkpoint(tmp_path / "c.pt", model, opt.state_dict())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"step must be a non-negative int below 2\*\*1000"):
        save_checkpoint(tmp_path / "c.pt", model, opt, step=-1)
    with pytest.raises(TypeError, match=r"extra\['when'\] must hold only tensors .*got datetime"):
        save_checkpoint(tmp_path / "c.pt", model, opt, step=0, when=datetime.now())
    with pytest.raises(TypeError, match=r"extra\['xs'\]\[1\] must hold only .*got ndarray"):
        save_checkpoint(tmp_path / "c.pt", model, opt, step=0, xs=[1, np.zeros(2)])
    with pytest.raises(TypeError, match=r"extra\['xs'\]\[1\] is a numpy int64"):
        save_checkpoint(tmp_path / "c.pt", model, opt, step=0, xs=[1, np.int64(2)])
    torch.save({"weights": torch.zeros(2)}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="not a checkpoint written by save_checkpoint"):
        load_checkpoint(tmp_path / "other.pt", model, opt)
    save_checkpoint(tmp_path / "c.pt", model, opt, step=0)
    bigger = Cruncher(8, 2)
    with pytest.raises(
        ValueError,
        match=r"different model shape: layers.0.weight: checkpoint \(4, 4\) vs "
        r"model \(8, 8\); layers.1.weight: missing from the checkpoint; final.weight: checkpoint \(4, 1\)",
    ):
        load_checkpoint(tmp_path / "c.pt", bigger, SGD(bigger.parameters()))
    shallower = Cruncher(4, 0)
    with pytest.raises(ValueError, match=r"different model shape: layers\.0\.weight: not in the model$"):
        load_checkpoint(tmp_path / "c.pt", shallower, SGD(shallower.parameters()))
    with pytest.raises(ValueError, match="no data-generator state"):
        load_checkpoint(tmp_path / "c.pt", model, opt, generator=torch.Generator())


@pytest.mark.parametrize(
    ("overrides", "error", "match"),
    [
        ({"dim": 0}, ValueError, r"dim must be (a positive int|an int in \[1, )"),
        ({"num_layers": -1}, ValueError, r"num_layers must be (a non-negative int|an int in \[0, )"),
        ({"batch_size": 2.5}, TypeError, r"batch_size must be a positive int below 2\*\*1000"),
        ({"num_steps": -1}, ValueError, r"num_steps must be an int in \[0, 1000000000\]"),
        ({"lr": -0.1}, ValueError, "lr must be a positive finite number"),
        ({"lr": float("inf")}, ValueError, r"lr must be a positive finite number"),  # issue 15 item 5
        ({"lr": float("nan")}, ValueError, r"lr must be a positive finite number"),
        ({"lr": "0.1"}, TypeError, r"lr must be a positive finite number"),
        ({"optimizer": "lion"}, ValueError, "optimizer must be one of"),
        ({"seed": -5}, ValueError, r"seed must be an int in \[0, 4294967295\]"),
        ({"device": "tpu"}, ValueError, "device must be a device such as"),
        ({"checkpoint_every": 5}, ValueError, "checkpoint_every needs checkpoint_path"),
        ({"checkpoint_every": 0, "checkpoint_path": "x.pt"}, ValueError, "checkpoint_every must be a positive int"),
        ({"stop_at_step": 31}, ValueError, r"stop_at_step must be at most num_steps=30"),
    ],
)
def test_train_rejects(overrides: dict, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        train(**{**SMALL, **overrides})


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message on a machine without CUDA")
def test_train_on_missing_cuda_says_so() -> None:
    with pytest.raises(RuntimeError, match="sees no CUDA device"):
        train(**SMALL, device="cuda")


def test_resume_rejects_other_runs(tmp_path: Path) -> None:
    ckpt = tmp_path / "run.pt"
    train(**{**SMALL, "num_steps": 10}, checkpoint_path=ckpt)
    with pytest.raises(ValueError, match=r"different configuration: lr: checkpoint 0\.001 vs now 0\.01$"):
        train(**{**SMALL, "lr": 0.01}, resume_from=ckpt)
    with pytest.raises(ValueError, match="resume_from is at step 10, past num_steps=5"):
        train(**{**SMALL, "num_steps": 5}, resume_from=ckpt)
    model = Cruncher(8, 1)
    save_checkpoint(tmp_path / "plain.pt", model, make_optimizer("sgd", model.parameters(), lr=0.001), step=3)
    with pytest.raises(ValueError, match="must be a checkpoint written by train"):
        train(**SMALL, resume_from=tmp_path / "plain.pt")


@pytest.mark.parametrize(
    ("damage", "match"),
    [
        (lambda c: c["rng"].pop("cuda"), r"rng\['cuda'\] is missing or not a list"),
        (lambda c: c["rng"].pop("python"), r"rng\['python'\] is missing"),
        (lambda c: c["rng"]["numpy"].pop(), r"rng\['numpy'\] is not numpy's MT19937 state"),
        (lambda c: c.pop("step"), r"'step' is missing or not a int"),
        (lambda c: c.pop("extra"), r"'extra' is missing or not a dict"),
        (lambda c: c.update(rng="abc"), r"'rng' is missing or not a dict"),
    ],
)
def test_failed_load_checkpoint_changes_nothing(tmp_path: Path, damage, match) -> None:
    """Issue 20.9: an incomplete rng dict raised KeyError: 'cuda' after weights and the global RNG were overwritten."""
    torch.manual_seed(0)
    saved_model = Cruncher(4, 1)
    save_checkpoint(tmp_path / "c.pt", saved_model, SGD(saved_model.parameters()), step=1)
    ckpt = torch.load(tmp_path / "c.pt", weights_only=True)
    damage(ckpt)
    torch.save(ckpt, tmp_path / "bad.pt")
    model = Cruncher(4, 1)
    opt = SGD(model.parameters(), lr=0.5)
    weights = {k: v.clone() for k, v in model.state_dict().items()}
    set_seed(123)
    with pytest.raises(training.CheckpointError, match=rf"^bad\.pt is incomplete: {match}.*; nothing was restored"):
        load_checkpoint(tmp_path / "bad.pt", model, opt)
    assert all(torch.equal(v, weights[k]) for k, v in model.state_dict().items())
    assert opt.param_groups[0]["lr"] == 0.5
    set_seed(123)
    expected = torch.randn(3)
    set_seed(123)
    with pytest.raises(training.CheckpointError):
        load_checkpoint(tmp_path / "bad.pt", model, opt)
    assert torch.equal(torch.randn(3), expected)  # the global RNG was not touched


def test_a_restore_that_fails_midway_puts_everything_back(tmp_path: Path, monkeypatch) -> None:
    """What no check foresees (here: the optimizer refusing its state) is rolled back, not left half-done."""
    torch.manual_seed(0)
    model = Cruncher(4, 1)
    save_checkpoint(tmp_path / "c.pt", model, SGD(model.parameters()), step=1)
    other = Cruncher(4, 1)
    opt = SGD(other.parameters())
    weights = {k: v.clone() for k, v in other.state_dict().items()}
    real = torch.optim.Optimizer.load_state_dict
    calls = []

    def refuse_once(self, state):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("simulated")
        return real(self, state)

    monkeypatch.setattr(torch.optim.Optimizer, "load_state_dict", refuse_once)
    with pytest.raises(training.CheckpointError, match=r"c\.pt could not be restored \(RuntimeError: simulated\)"):
        load_checkpoint(tmp_path / "c.pt", other, opt)
    assert all(torch.equal(v, weights[k]) for k, v in other.state_dict().items())


@pytest.mark.parametrize("where", ["", ".", "folder"])
def test_save_checkpoint_to_a_folder_is_a_clear_error(tmp_path: Path, monkeypatch, where: str) -> None:
    """Issue 20.14: save_checkpoint("") or a folder raised a raw IsADirectoryError after writing a temp file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    model = Cruncher(4, 1)
    folder = r"name a checkpoint file, got '.*', which is a folder"
    with pytest.raises(ValueError, match=rf"path must (be a file path|{folder})"):
        save_checkpoint(where, model, SGD(model.parameters()), step=0)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["folder"]  # no temp file left behind
