"""Tests of cs336_lec2.distributed.worker in this process: the spec's model, data and loss, the single-process
reference, and one rank (a group of one) running every strategy, whose bytes equal the formulas."""

from __future__ import annotations

import pytest
import torch
import torch.distributed as dist

from cs336_lec2.distributed import STRATEGIES, expected_state_bytes
from cs336_lec2.distributed import worker as W
from cs336_lec2.distributed.launcher import launch
from cs336_lec2.models import Cruncher, TransformerLM

CRUNCHER = {"name": "Cruncher", "kwargs": {"dim": 4, "num_layers": 2}}
LM = {"name": "TransformerLM", "kwargs": dict(vocab_size=16, context_length=4, num_layers=1, d_model=8,
                                              num_heads=2, d_ff=16)}


def spec(model: dict, **extra) -> dict:
    return {"model": model, "steps": 2, "batch": 4, "lr": 1e-2, "seed": 0, **extra}


@pytest.fixture
def no_group(monkeypatch):
    """A group of one in this process, joined as torchrun's ranks join: through MASTER_ADDR / MASTER_PORT."""
    import socket

    with socket.socket() as probe:  # a port free now (a group of one: nobody races for it here)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", str(port))
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
    shapes = [(4, 4), (4, 4), (4, 1)]
    for strategy in STRATEGIES:
        got, expected = result[strategy], expected_state_bytes(strategy, shapes, 1, 0)
        assert (got["params"], got["grads"], got["optimizer_state"]) == (
            expected.params, expected.grads, expected.optimizer_state)
        assert len(got["comm_per_step"]) == 2 and got["cuda_peak"] is None
        assert set(got["full_params"]) == {"layers.0.weight", "layers.1.weight", "final.weight"}


def test_one_rank_runs_every_run_of_a_transformer(tmp_path, no_group) -> None:
    # FSDP2's ZeRO-2 setting, the per-block bf16 recipe and DDP's accumulation, in a group of one.
    result = W.run({**spec(LM), "backend": "gloo", "timeout": 60, "task": "train",
                    "strategies": list(W.RUNS)}, 0, 1, tmp_path)
    model = TransformerLM(**LM["kwargs"])
    shapes = [tuple(p.shape) for p in model.parameters()]
    psi = sum(p.numel() for p in model.parameters())
    for run in W.RUNS:
        kind = "zero1" if run == "zero1" else "fsdp2" if run.startswith("fsdp2") else "ddp"
        got, expected = result[run], expected_state_bytes(kind, shapes, 1, 0)
        assert (got["params"], got["grads"], got["optimizer_state"]) == (
            expected.params, expected.grads, expected.optimizer_state), run
    # DDP: one all-reduce of the whole fp32 gradient per backward pass unless no_sync holds it back
    assert result["ddp_accumulate"]["comm_per_step"][0] == {"all_reduce": 2 * 4 * psi}
    assert result["ddp_no_sync"]["comm_per_step"][0] == {"all_reduce": 4 * psi}
    assert result["ddp_no_sync"]["calls_per_step"][0] == {"all_reduce": 1}
    assert result["fsdp2"]["comm_per_step"][0] == {}  # FSDP2 calls no collective in a group of one
    assert result["ddp"]["unsharded_peak"] is None


def test_two_ranks_measure_fsdp2s_settings_and_ddps_accumulation() -> None:
    # Real traffic needs two ranks (FSDP2 skips the collectives of a group of one).
    lm = {"name": "TransformerLM", "kwargs": {**LM["kwargs"], "num_layers": 3}}
    runs = ["fsdp2", "fsdp2_zero2", "fsdp2_blocks", "ddp_accumulate", "ddp_no_sync"]
    ranks = launch({**spec(lm), "task": "train", "strategies": runs}, world_size=2, backend="gloo",
                   timeout=120)
    model = TransformerLM(**lm["kwargs"])
    psi = sum(p.numel() for p in model.parameters())
    block = sum(p.numel() for p in model.blocks[0].parameters())
    root = psi - 3 * block
    largest = max(p.numel() for p in model.parameters())  # every module here has one weight
    for got in ranks:
        r = {run: got[run] for run in runs}
        # gathered twice per step (forward, backward), once when not resharded after forward
        assert r["fsdp2"]["comm_per_step"][0] == {"all_gather": 2 * 4 * psi, "reduce_scatter": 4 * psi}
        assert r["fsdp2"]["unsharded_peak"] == 4 * largest  # one module at a time
        assert r["fsdp2_zero2"]["comm_per_step"][0] == {"all_gather": 4 * psi, "reduce_scatter": 4 * psi}
        assert r["fsdp2_zero2"]["unsharded_peak"] == 4 * psi  # the whole model, gathered, at once
        # per block in bf16: blocks gathered twice, the root (kept for backward) once; reduced in fp32
        assert r["fsdp2_blocks"]["comm_per_step"][0] == {"all_gather": 2 * (2 * 3 * block + root),
                                                         "reduce_scatter": 4 * psi}
        assert r["fsdp2_blocks"]["calls_per_step"][0] == {"all_gather": 2 * 3 + 1, "reduce_scatter": 3 + 1}
        assert r["fsdp2_blocks"]["unsharded_peak"] == 2 * (root + block)  # root + one block, bf16
        assert r["ddp_accumulate"]["comm_per_step"][0] == {"all_reduce": 2 * 4 * psi}
        assert r["ddp_no_sync"]["comm_per_step"][0] == {"all_reduce": 4 * psi}
        assert r["ddp_no_sync"]["calls_per_step"][0] == {"all_reduce": 1}


def test_accumulate_sums_the_chunks_mean_gradients() -> None:
    torch.manual_seed(0)
    model = Cruncher(4, 2)
    x, y = torch.randn(8, 4), torch.randn(8)
    opt = torch.optim.SGD(model.parameters(), lr=0.0)
    W.accumulate(model, opt, x, y, 4)
    accumulated = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    W.loss_fn(model(x), y).backward()
    assert all(torch.allclose(a, p.grad, atol=1e-6) for a, p in zip(accumulated, model.parameters(), strict=True))


def test_train_rejects_an_unknown_run(tmp_path, no_group) -> None:
    with pytest.raises(ValueError, match="strategy must be one of"):
        W.run({**spec(LM), "backend": "gloo", "timeout": 30, "task": "train", "strategies": ["fsdp3"]},
              0, 1, tmp_path)


def test_run_rejects_an_unknown_task(tmp_path, no_group) -> None:
    with pytest.raises(ValueError, match="task"):
        W.run({"backend": "gloo", "timeout": 30, "task": "dance"}, 0, 1, tmp_path)


def test_the_listings_chapter_14_shows_are_short() -> None:
    # Issue 24: a listing shows the idea (<= 20 lines) and fits the book's column (<= 88 characters).
    import inspect

    for fn in (W.shard_fsdp2, W.accumulate):
        lines = inspect.getsource(fn).splitlines()
        assert len(lines) <= 20, (fn.__name__, len(lines))
        assert max(len(line) for line in lines) <= 88, fn.__name__
