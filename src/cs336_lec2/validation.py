"""The calculator held against published training runs: torchtitan's benchmarks and Llama 2's GPU-hours.

Every published number here was read from its source (repository, path and commit in :data:`SOURCES`)
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
from .hardware.accelerators import ACCELERATORS

SOURCES = {
    "torchtitan-a100": "github.com/pytorch/torchtitan, docs/performance.md at commit 0413364 (64 A100 80GB, "
                       "FSDP2; tables 'Llama 3 performance numbers' and 'Llama 2 performance numbers')",
    "torchtitan-h100": "github.com/pytorch/torchtitan, benchmarks/llama3_h100_202412_torchtitan.md at commit "
                       "31a17bf (Llama 3.1 8B, FSDP, local batch 2, selective activation checkpointing; "
                       "tables 1 and 3; H100s with 96GB HBM2e at 500 W)",
    "torchtitan-seq": "github.com/pytorch/torchtitan, torchtitan/models/llama/train_configs/llama3_8b.toml at "
                      "commit 08a5a9f: seq_len = 8192, selective_ac_option = 'op' (the benchmark states no "
                      "sequence length; torchtitan's Llama 3 8B config is assumed)",
    "llama2-card": "github.com/meta-llama/llama, MODEL_CARD.md at commit 0e3444b (Touvron et al. 2023, "
                   "table 2): GPU-hours on A100-80GB; 2.0T tokens, context 4k",
}
SHORT = {"torchtitan-a100": "pytorch/torchtitan docs/performance.md @0413364",
         "torchtitan-h100": "pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md @31a17bf",
         "llama2-card": "meta-llama/llama MODEL_CARD.md @0e3444b"}  # the page's column; SOURCES in its tooltip
GIB = 2**30
# torchtitan's measured MFU for Llama 2 70B on A100s (docs/performance.md: batch 2, full AC, 50.5%):
# the MFU at which the calculator estimates Llama 2's GPU-hours.
LLAMA2_MFU = 0.505

_A100 = {"gpu": "a100-sxm-80gb", "num_gpus": 64, "stage": "zero3", "precision": "mixed_bf16_fp32_grads"}
_H100 = {"model": "llama3-8b", "gpu": "h100-sxm", "seq_len": 8192, "micro_batch": 2, "stage": "zero3",
         "precision": "mixed_bf16_fp32_grads", "recompute": "selective"}
_AC = {"none": ("no activation checkpointing", "不重计算"),
       "layer": ("selective (layer) AC", "选择性重计算（按层）"),
       "op": ("selective (op) AC", "选择性重计算（按算子）"), "full": ("full AC", "完全重计算")}


def _a100(model: str, name: str, seq: int, batch: int, ac: str, wps: int, mfu: float) -> dict[str, Any]:
    en, zh = _AC[ac]
    config = {**_A100, "model": model, "seq_len": seq, "micro_batch": batch,
              "recompute": "full" if ac == "full" else "none"}
    return {"kind": "mfu", "source": "torchtitan-a100", "config": config, "tokens_per_gpu_s": wps, "mfu": mfu,
            "label_en": f"{name}, 64 × A100, b = {batch}, T = {seq}, {en}",
            "label_zh": f"{name}，64 × A100，b = {batch}，T = {seq}，{zh}"}


def _h100(gpus: int, compiled: bool, tps: int, gib: float) -> dict[str, Any]:
    how = (" + torch.compile", " + torch.compile") if compiled else ("", "")
    return {"kind": "throughput", "source": "torchtitan-h100", "config": {**_H100, "num_gpus": gpus},
            "tokens_per_gpu_s": tps, "mfu_range": (0.33, 0.39), "memory_gib": gib, "compiled": compiled,
            "label_en": f"Llama 3.1 8B, {gpus} × H100, FSDP{how[0]}, b = 2, T = 8192",
            "label_zh": f"Llama 3.1 8B，{gpus} × H100，FSDP{how[1]}，b = 2，T = 8192"}


PUBLISHED_RUNS: list[dict[str, Any]] = [
    # docs/performance.md: model, local batch, activation checkpointing, WPS (tokens/s/GPU), MFU
    _a100("llama3-8b", "Llama 3 8B", 8192, 1, "layer", 2904, 0.568),
    _a100("llama3-8b", "Llama 3 8B", 8192, 1, "op", 2973, 0.582),
    _a100("llama2-13b", "Llama 2 13B", 4096, 2, "none", 2162, 0.611),
    _a100("llama2-13b", "Llama 2 13B", 4096, 2, "layer", 1914, 0.541),
    _a100("llama2-13b", "Llama 2 13B", 4096, 2, "op", 1904, 0.538),
    _a100("llama2-70b", "Llama 2 70B", 4096, 1, "op", 355, 0.508),
    _a100("llama2-70b", "Llama 2 70B", 4096, 2, "full", 353, 0.505),
    # benchmarks/llama3_h100_202412_torchtitan.md, tables 1 (8 GPUs) and 3 (128 GPUs): TPS/GPU, Memory (GiB);
    # the Float8 rows are left out (the benchmark itself calls their MFU "not well-defined")
    _h100(8, False, 5762, 82.4), _h100(8, True, 6667, 77.0),
    _h100(128, False, 5605, 67.0), _h100(128, True, 6514, 62.0),
    # MODEL_CARD.md: Time (GPU hours) per model, A100-80GB; 2.0T tokens each
    *({"kind": "gpu_hours", "source": "llama2-card", "gpu_hours": hours, "label_en": f"{name}, 2T tokens",
       "label_zh": f"{name}，2 万亿（2T）个词元",
       "config": {"model": key, "gpu": "a100-sxm-80gb", "tokens": 2 * 10**12, "mfu": LLAMA2_MFU}}
      for key, name, hours in (("llama2-7b", "Llama 2 7B", 184_320), ("llama2-13b", "Llama 2 13B", 368_640),
                               ("llama2-70b", "Llama 2 70B", 1_720_320))),
]


def _allocated(config: dict[str, Any]) -> float:
    """The calculator's memory per GPU without its CUDA context line (what the allocator can reserve)."""
    m = calculate(config)["memory"]
    return m["total"] - m["cuda_context"]


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
    return [{**{k: v for k, v in run.items() if k != "source"}, "source": SOURCES[run["source"]],
             "source_short": SHORT[run["source"]],
             "card": ACCELERATORS[run["config"]["gpu"]].name, "calc": compare(run)} for run in PUBLISHED_RUNS]
