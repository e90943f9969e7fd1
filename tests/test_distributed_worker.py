"""Tests of cs336_lec2.distributed.worker in this process: the spec's model, data and loss, the single-process
reference, and one rank (a group of one) running every strategy, whose bytes equal the formulas."""

from __future__ import annotations

import pytest
import torch
import torch.distributed as dist

from cs336_lec2.distributed import STRATEGIES, expected_state_bytes
from cs336_lec2.distributed import worker as W
from cs336_lec2.models import Cruncher, TransformerLM

CRUNCHER = {"name": "Cruncher", "kwargs": {"dim": 4, "num_layers": 2}}
LM = {"name": "TransformerLM", "kwargs": dict(vocab_size=16, context_length=4, num_layers=1, d_model=8,
                                              num_heads=2, d_ff=16)}


def spec(model: dict, **extra) -> dict:
    return {"model": model, "steps": 2, "batch": 4, "lr": 1e-2, "seed": 0, **extra}


@pytest.fixture
def no_group():
    yield
    if dist.is_initialized():
        dist.destroy_process_group()


def test_build_model_and_batches() -> None:
    assert isinstance(W.build_model(CRUNCHER), Cruncher) and isinstance(W.build_model(LM), TransformerLM)
    (x, y), _ = W.make_batches(spec(CRUNCHER))
    assert x.shape == (4, 4) and y.shape == (4,)
    batches = W.make_batches(spec(LM))
    tokens, targets = batches[0]
    assert tokens.shape == targets.shape == (4, 4) and torch.equal(tokens[:, 1:], targets[:, :-1])
    assert all(torch.equal(a, b) for (a, _), (b, _) in zip(batches, W.make_batches(spec(LM)), strict=True))
    assert len(batches) == 2 and not torch.equal(batches[0][0], batches[1][0])


def test_loss_fn_picks_mse_or_cross_entropy() -> None:
    y = torch.tensor([1.0, 2.0])
    assert W.loss_fn(torch.tensor([1.0, 4.0]), y).item() == 2.0
    logits = torch.zeros(1, 2, 4)
    assert torch.isclose(W.loss_fn(logits, torch.tensor([[0, 3]])), torch.log(torch.tensor(4.0)))


def test_train_single_trains_and_restores_threads() -> None:
    threads = torch.get_num_threads()
    trained = W.train_single(spec(CRUNCHER), micro_batches=2)
    assert torch.get_num_threads() == threads
    torch.manual_seed(0)
    initial = dict(Cruncher(4, 2).named_parameters())
    assert trained.keys() == initial.keys()
    assert all(not torch.equal(trained[k], initial[k]) for k in trained)
    again = W.train_single(spec(CRUNCHER), micro_batches=2)
    assert all(torch.equal(trained[k], again[k]) for k in trained)


def test_one_rank_runs_every_strategy(tmp_path, no_group) -> None:
    result = W.run({**spec(CRUNCHER), "backend": "gloo", "timeout": 60, "task": "train",
                    "strategies": list(STRATEGIES)}, 0, 1, tmp_path)
    assert int((tmp_path / "port").read_text()) > 0  # rank 0 published the port the OS gave its store
    shapes = [(4, 4), (4, 4), (4, 1)]
    for strategy in STRATEGIES:
        got, expected = result[strategy], expected_state_bytes(strategy, shapes, 1, 0)
        assert (got["params"], got["grads"], got["optimizer_state"]) == (
            expected.params, expected.grads, expected.optimizer_state)
        assert len(got["comm_per_step"]) == 2 and got["cuda_peak"] is None
        assert set(got["full_params"]) == {"layers.0.weight", "layers.1.weight", "final.weight"}


def test_run_rejects_an_unknown_task(tmp_path, no_group) -> None:
    with pytest.raises(ValueError, match="task"):
        W.run({"backend": "gloo", "timeout": 30, "task": "dance"}, 0, 1, tmp_path)
