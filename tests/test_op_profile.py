"""The per-op profile of a step (op_profile) and the matmul ceiling sweep (timing.matmul_ceiling)."""

from __future__ import annotations

import json
import math

import pytest
import torch
import torch.nn.functional as F

from cs336_lec2.config import TransformerConfig
from cs336_lec2.flops import flop_breakdown
from cs336_lec2.hardware import peak_or_none
from cs336_lec2.op_profile import GROUPS, MATMUL_GROUPS, op_group, profile_step
from cs336_lec2.timing import ceiling_shapes, matmul_ceiling
from cs336_lec2.transformer_model import TransformerLM

TINY = TransformerConfig(vocab_size=64, context_length=16, num_layers=2, d_model=32, num_heads=4, d_ff=64,
                         bias=True)


def _step(attention: str):
    torch.manual_seed(0)
    net = TransformerLM.from_config(TINY, attention=attention)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    rows = torch.randint(0, TINY.vocab_size, (2, 17), generator=torch.Generator().manual_seed(0))

    def fwd_bwd() -> None:
        out = net(rows[:, :-1])
        F.cross_entropy(out.flatten(0, 1), rows[:, 1:].flatten()).backward()

    def step() -> None:
        fwd_bwd()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return step, fwd_bwd


@pytest.mark.parametrize("attention", ["math", "sdpa"])
def test_profile_flops_match_flop_counter_mode(attention):
    step, fwd_bwd = _step(attention)
    step()  # warm
    prof = profile_step(step, "cpu")
    counted = flop_breakdown(fwd_bwd)  # the optimizer adds no matmul FLOPs
    # the predicted matmul + attention FLOPs are FlopCounterMode's, op by op
    assert prof.matmul_flops == sum(counted.values()) > 0
    assert {k.removesuffix(".default"): v for k, v in prof.formula_flops.items()} == counted
    # torch.profiler's with_flops count of the matmul kernels agrees where it has a formula (no sdpa)
    mm = sum(v for k, v in counted.items() if k in ("aten.mm", "aten.addmm", "aten.bmm", "aten.baddbmm"))
    assert prof.profiler_matmul_flops == mm
    if attention == "math":
        assert prof.profiler_matmul_flops == prof.matmul_flops


def test_groups_time_within_wall_and_gap_adds_up(tmp_path):
    step, _ = _step("math")
    step()
    prof = profile_step(step, "cpu", trace=tmp_path / "step.json")
    seconds = {g.group: g.seconds for g in prof.groups}
    assert tuple(seconds) == GROUPS
    assert 0 < prof.op_seconds <= prof.wall_seconds
    # every group this model has took time: matmuls, attention's bmm, LayerNorm, GELU, AdamW
    assert all(seconds[g] > 0 for g in ("matmul", "attention", "norm", "elementwise", "optimizer"))
    opt_group = next(g for g in prof.groups if g.group == "optimizer")
    assert opt_group.flops > 0 and opt_group.bytes > 0
    gap = prof.mfu_gap(prof.matmul_flops, peak=1e12)
    assert math.isclose(sum(gap.values()), 1.0)
    assert gap["recomputation"] == 0 and gap["overhead"] >= 0 and gap["memory-bound ops"] > 0
    rows = prof.roofline_rows(peak=1e12, bandwidth=1e10)
    assert all(r["flops_per_sec"] == r["flops"] / r["seconds"] and r["roof"] <= 1e12 for r in rows)
    # elementwise work (one FLOP per element, 4+ bytes per element) sits left of any ridge
    assert {r["group"]: r["bound"] for r in rows}["elementwise"] == "memory"
    trace = json.loads((tmp_path / "step.json").read_text())
    assert any(e.get("name") == "aten::addmm" for e in trace["traceEvents"])


def test_recomputation_shows_in_the_gap():
    step, _ = _step("math")
    step()
    prof = profile_step(step, "cpu")
    gap = prof.mfu_gap(prof.matmul_flops / 2, peak=1e12)  # half the FLOPs "model" FLOPs: half recomputed
    assert math.isclose(gap["recomputation"], gap["mfu"])


@pytest.mark.parametrize(("name", "shapes", "group"), [
    ("aten::addmm", [], "matmul"), ("aten.mm.default", [], "matmul"), ("aten::bmm", [], "attention"),
    ("aten::matmul", [[2, 4, 16, 8], [2, 4, 8, 16]], "attention"), ("aten::matmul", [[2, 16, 8], [8, 8]], "matmul"),
    ("aten::_scaled_dot_product_flash_attention_for_cpu", [], "attention"), ("aten::native_layer_norm", [], "norm"),
    ("aten::gelu_backward", [], "elementwise"), ("aten::embedding", [], "rest"),
])
def test_op_group(name, shapes, group):
    assert op_group(name, shapes=shapes) == group
    assert op_group(name, in_optimizer=True) == "optimizer"
    assert set(MATMUL_GROUPS) < set(GROUPS)


def test_ceiling_shapes_around_the_target():
    shapes = ceiling_shapes(8192)
    assert len(shapes) == 20 == len(set(shapes)) and shapes[0] == (8192, 8192, 8192)
    assert all(s % 64 == 0 and 4096 <= s <= 24576 for shape in shapes for s in shape)
    assert ceiling_shapes(10, count=3) == ((64, 64, 64), (128, 64, 64), (64, 128, 64))


def test_ceiling_is_the_best_tried_shape_and_below_the_peak():
    shapes = ((32, 32, 32), (96, 64, 128), (128, 128, 128))
    ceiling = matmul_ceiling(shapes, torch.float32, "cpu", repeats=2)
    assert ceiling.tried == shapes and ceiling.shape in shapes and ceiling.dtype == torch.float32
    assert ceiling.flops_per_sec > 0
    peak = peak_or_none(torch.float32, "cpu")
    if peak is not None and not peak.is_estimate:
        assert ceiling.flops_per_sec <= peak.flops
    with pytest.raises(ValueError, match="shapes"):
        matmul_ceiling((), torch.float32, "cpu")


def test_ceiling_budget_stops_new_shapes():
    shapes = ((256, 256, 256),) * 50
    ceiling = matmul_ceiling(shapes, torch.float32, "cpu", repeats=1, budget_s=1e-9)
    assert ceiling.tried == shapes[:1]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA only")
def test_ceiling_on_cuda_below_datasheet():
    dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    ceiling = matmul_ceiling(ceiling_shapes(4096, count=5), dtype, "cuda")
    peak = peak_or_none(dtype, "cuda")
    assert ceiling.shape in ceiling.tried and (peak is None or 0 < ceiling.flops_per_sec <= peak.flops)
