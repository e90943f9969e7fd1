"""The calculator held against published training runs: torchtitan's benchmarks and Llama 2's GPU-hours.

Every published number (:data:`cs336_lec2.catalog.PUBLISHED_RUNS`) was read from its source (repository,
path and commit in :data:`cs336_lec2.catalog.RUN_SOURCES`)
and is compared with what :func:`cs336_lec2.calculator.calculate` computes for the same configuration
(:func:`compare`); ``tests/test_validation.py`` asserts each agreement within a stated tolerance, and
the calculator page shows the table in both languages (``book/_static/calculator/validation.js``
renders :func:`page_rows`, which ``data.js`` carries).

What each kind of row checks:

* ``mfu`` (torchtitan on 64 A100s, ``docs/performance.md``): the MFU the calculator's FLOPs per token
  give from the published tokens/s/GPU, against the published MFU. torchtitan counted the token
  embedding in its 6N then (a lookup, no FLOPs); with it added back the two agree to 0.5 %.
* ``throughput`` (torchtitan on 8 and 128 H100s, December 2024): the MFU the calculator needs to
  reach the published tokens/s/GPU, against the "33% to 39% MFU" the benchmark states for these runs.
* ``memory`` (the same runs): the published peak (``torch.cuda.max_memory_reserved``, which torchtitan's
  ``train.py`` logs: the allocator's reserve, without the CUDA context) lies between the calculator's
  totals (without its CUDA context line) under full recomputation and under none: torchtitan's
  per-op selective checkpointing keeps some matmul outputs, which the calculator does not model. The
  difference between 8 and 128 GPUs is the sharded state alone, and that the calculator predicts.
* ``gpu_hours`` (Llama 2's model card): the GPU-hours of 2T tokens at torchtitan's measured Llama 2 70B
  MFU on the same GPUs (A100 80GB), and the MFU the published GPU-hours imply.
"""

from __future__ import annotations

from typing import Any

from .calculator import calculate
from .catalog import ACCELERATORS, PUBLISHED_RUNS, RUN_SHORT, RUN_SOURCES
from .checks import beartype_on_first_call

GIB = 2**30

def _allocated(config: dict[str, Any]) -> float:
    """The calculator's memory per GPU without its CUDA context line (what the allocator can reserve)."""
    m = calculate(config)["memory"]
    return float(m["total"] - m["cuda_context"])


def compare(run: dict[str, Any]) -> dict[str, Any]:
    """What the calculator says of a published run (see the module's docstring for each kind)."""
    r = calculate(run["config"])
    peak, per_token = r["time"]["peak_flops"], r["flops"]["per_token"]
    out: dict[str, Any] = {"per_token": per_token, "peak_flops": peak}
    if run["kind"] in ("mfu", "throughput"):
        out["mfu"] = run["tokens_per_gpu_s"] * per_token / peak  # the MFU the published throughput means
    if run["kind"] == "mfu":
        embedding = 6 * r["parameters"]["token_embedding"]  # torchtitan's 6N then counted the lookup too
        out["mfu_embedding_counted"] = run["tokens_per_gpu_s"] * (per_token + embedding) / peak
        out["ratio"] = out["mfu"] / run["mfu"]
    if run["kind"] == "throughput":
        out["memory_full"] = _allocated({**run["config"], "recompute": "full"})
        out["memory_none"] = _allocated({**run["config"], "recompute": "none"})
        twin = next(o for o in PUBLISHED_RUNS if o["kind"] == "throughput" and o["compiled"] == run["compiled"]
                    and o["config"]["num_gpus"] != run["config"]["num_gpus"])
        small, large = sorted((run, twin), key=lambda o: o["config"]["num_gpus"])
        out["memory_drop_published"] = (small["memory_gib"] - large["memory_gib"]) * GIB
        out["memory_drop"] = _allocated(small["config"]) - _allocated(large["config"])
        out["ratio"] = out["memory_drop"] / out["memory_drop_published"]
    if run["kind"] == "gpu_hours":
        out["gpu_hours"] = r["flops"]["total"] / (peak * run["config"]["mfu"]) / 3600  # at the stated MFU
        out["mfu"] = r["flops"]["total"] / (peak * run["gpu_hours"] * 3600)  # the MFU the GPU-hours mean
        out["ratio"] = out["gpu_hours"] / run["gpu_hours"]
    return out


def page_rows() -> list[dict[str, Any]]:
    """Each published run with its source and the calculator's numbers, for the page (``data.js``)."""
    return [{**{k: v for k, v in run.items() if k != "source"}, "source": RUN_SOURCES[run["source"]],
             "source_short": RUN_SHORT[run["source"]],
             "card": ACCELERATORS[run["config"]["gpu"]].name, "calc": compare(run)} for run in PUBLISHED_RUNS]


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
