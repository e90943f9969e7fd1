"""The calculator's Python reference: presets equal the released checkpoints, the page's data is the package's."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cs336_lec2.calculator import (
    CHECKS,
    DEFAULTS,
    FIELDS,
    LIMITS,
    LINKED,
    PRESETS,
    RULES,
    URL_KEYS,
    calculate,
    normalize,
    preset_architecture,
    preset_key,
)
from cs336_lec2.calculator_page import page_data, page_data_module
from cs336_lec2.calculator_url import config_from_url
from cs336_lec2.catalog import ACCELERATORS
from cs336_lec2.distributed import STAGES, ring_bytes, step_communication, zero_memory
from cs336_lec2.napkin import OPTIMIZER_STATES, PRECISIONS, SECONDS_PER_DAY, training_days

ROOT = Path(__file__).resolve().parent.parent

# Parameters of the released checkpoints, as transformers counts them (model.num_parameters(); a tied
# LM head once) and as llama.cpp writes them into GGUF files (general.parameter_count). GPT-2: the
# openai-community/gpt2* checkpoints (the paper's table 2 rounds them: 117M, 345M, 762M, 1542M).
# Llama 2: meta-llama/Llama-2-{7b,13b,70b}-hf (the Hub's safetensors metadata of those uploads is 64
# values per layer higher: it also counts the rotary `inv_freq` buffers). Llama 3: meta-llama/Meta-Llama-3-8B.
RELEASED = {
    "gpt2-small": 124_439_808,
    "gpt2-medium": 354_823_168,
    "gpt2-large": 774_030_080,
    "gpt2-xl": 1_557_611_200,
    "llama2-7b": 6_738_415_616,
    "llama2-13b": 13_015_864_320,
    "llama2-70b": 68_976_648_192,
    "llama3-8b": 8_030_261_248,
    # Gemma 7B: keras-hub's gemma_7b_en preset ("params": 8537680896); the Gemma report's table 2 gives
    # 7,751,248,896 non-embedding parameters (its embedding row counts a 256,128-token vocabulary, the
    # released one has 256,000)
    "gemma7b": 8_537_680_896,
}


def test_gemma_heads_are_wider_than_its_width_divides():
    # Gemma 7B: d = 3,072 but 16 heads of 256, so q and o are 3,072 x 4,096 (transformers' GemmaConfig)
    r = calculate({"model": "gemma7b"})
    assert r["parameters"]["non_embedding"] == 7_751_248_896  # the Gemma report, table 2
    assert r["parameters"]["attention"] == 28 * (3072 * 4096 * 4)  # q, k, v, o: all 4,096 wide, 16 KV heads
    with pytest.raises(ValueError, match="head_size") as info:
        normalize({"model": "custom", **preset_architecture("gemma7b"), "head_size": 0})
    assert info.value.field == "head_size"
    # without a head size, d / H (3,072 / 16 = 192) and 2.3 B fewer parameters
    plain = calculate({"model": "custom", **preset_architecture("gemma7b"), "head_size": None})
    assert plain["parameters"]["attention"] == 28 * 4 * 3072 * 3072
    with pytest.raises(ValueError, match="multiple of num_heads") as info:
        normalize({"model": "custom", **preset_architecture("gemma7b"), "d_model": 3000, "head_size": None})
    assert info.value.field == "d_model"
    assert normalize({"model": "custom", **preset_architecture("gemma7b"), "d_model": 3000})["head_size"] == 256


def test_preset_keys_are_the_url_names():
    assert preset_key("GPT-2 small") == "gpt2-small"
    assert preset_key("Llama 2 70B") == "llama2-70b"
    assert preset_key("Llama 3 8B") == "llama3-8b"


@pytest.mark.parametrize("key", sorted(PRESETS))
def test_every_preset_has_the_released_parameter_count(key):
    assert key in RELEASED, f"add the released parameter count of {key} (with its source) to RELEASED"
    assert calculate({"model": key})["parameters"]["total"] == RELEASED[key]


def test_the_presets_are_gpt2_llama2_and_llama3_as_released():
    assert set(PRESETS) == set(RELEASED)
    for key, model in PRESETS.items():  # the package states the same counts
        assert model.released_params == RELEASED[key], key


def test_the_committed_page_data_is_the_packages():
    committed = (ROOT / "book" / "_static" / "calculator" / "data.js").read_text(encoding="utf-8")
    assert committed == page_data_module(), (
        "book/_static/calculator/data.js is stale: run "
        "`python -m cs336_lec2.calculator_page > book/_static/calculator/data.js`")


def test_page_data_lists_every_choice():
    data = page_data()
    assert set(data["accelerators"]) == set(ACCELERATORS)
    assert set(data["precisions"]) == set(PRECISIONS) and set(data["optimizer_states"]) == set(OPTIMIZER_STATES)
    assert data["stages"] == list(STAGES) and data["defaults"] == DEFAULTS


def test_a_preset_sets_the_architecture_and_custom_keeps_it():
    c = normalize({"model": "llama2-70b", "d_model": 7})
    assert c["d_model"] == 8192 and c["num_kv_heads"] == 8 and c["gated_mlp"] and c["norm"] == "rmsnorm"
    assert c["positions"] == "rope" and not c["tied_embeddings"]
    custom = normalize({"model": "custom", **preset_architecture("llama2-70b"), "num_layers": 1})
    assert custom["num_layers"] == 1 and custom["d_model"] == 8192


def test_defaults_compose_the_package():
    r = calculate({})
    n = r["parameters"]["total"]
    card = ACCELERATORS[DEFAULTS["gpu"]]
    peak = card.peak_flops["bf16"]
    assert r["time"]["peak_dtype"] == "bf16" and r["time"]["peak_flops"] == peak
    assert r["flops"]["per_token_6n"] == 6 * n and r["flops"]["total"] == r["flops"]["per_token"] * DEFAULTS["tokens"]
    assert r["time"]["days_6n"] == training_days(n, DEFAULTS["tokens"], 8, peak, 0.4)
    m = r["memory"]
    assert (m["params"], m["grads"], m["optimizer_state"]) == (2 * n, 2 * n, 12 * n)  # DDP, mixed bf16 AdamW
    assert m["total"] == (m["params"] + m["grads"] + m["optimizer_state"] + m["activations"] + 2 * m["logits"]
                          + m["ddp_buckets"] + m["cuda_context"])
    assert m["logits"] == 4 * DEFAULTS["micro_batch"] * DEFAULTS["seq_len"] * DEFAULTS["vocab_size"]
    assert m["card"] == card.memory_bytes and m["fits"] == (m["total"] <= card.memory_bytes)
    assert r["largest_model"]["dp"] == card.memory_bytes // 16


def test_fp32_on_tf32_and_a_card_without_bf16():
    assert calculate({"precision": "fp32", "tf32": True})["time"]["peak_dtype"] == "tf32"
    assert calculate({"precision": "fp32"})["time"]["peak_dtype"] == "fp32"
    t4 = calculate({"gpu": "t4"})["time"]
    assert t4["peak_flops"] is None and t4["days"] is None and t4["days_6n"] is None


def test_fp32_gradients_cost_two_more_bytes_per_parameter():
    n = calculate({})["parameters"]["total"]
    m = calculate({"precision": "mixed_bf16_fp32_grads"})["memory"]
    assert m["grads"] == 4 * n and m["params"] + m["grads"] + m["optimizer_state"] == 18 * n


@pytest.mark.parametrize("gpus", [1, 3, 8, 64])
def test_the_largest_model_grows_with_the_stage(gpus):
    largest = calculate({"num_gpus": gpus})["largest_model"]
    sizes = [largest[s] for s in STAGES]
    assert sizes == sorted(sizes)
    memory = ACCELERATORS[DEFAULTS["gpu"]].memory_bytes
    for stage, n in largest.items():  # the most parameters whose sharded state fits (to one: the
        # bytes per parameter, 20/3 for ZeRO-1 on 3 GPUs, reach max_trainable_params as a float)
        per_param = Fraction(round(zero_memory(gpus, gpus, stage).total), gpus)
        assert n * per_param <= memory < (n + 2) * per_param


def test_communication_needs_whole_nodes_and_overlaps_with_the_backward_pass():
    assert calculate({"num_gpus": 12})["communication"]["seconds_per_step"] is None
    ddp = calculate({"num_gpus": 16})["communication"]
    fsdp = calculate({"num_gpus": 16, "stage": "zero3"})["communication"]
    # by default gradients are reduced in fp32 (issue 37.2): DDP all-reduces 4 bytes a value, FSDP gathers
    # bf16 twice and reduce-scatters fp32 once, 2 + 2 + 4 = 8 against 2 x 4 = 8: the same bytes
    assert ddp["seconds_per_step"] > 0 and fsdp["bytes_per_step"] == pytest.approx(ddp["bytes_per_step"])
    bf16 = {"num_gpus": 16, "reduce_fp32": False}
    ddp16, fsdp16 = (calculate({**bf16, "stage": s})["communication"] for s in ("dp", "zero3"))
    assert fsdp16["bytes_per_step"] == pytest.approx(1.5 * ddp16["bytes_per_step"])  # the ZeRO paper's 3 / 2
    assert ddp16["bytes_per_step"] == pytest.approx(ddp["bytes_per_step"] / 2)
    single = calculate({"num_gpus": 1})["communication"]
    assert single["bytes_per_step"] == 0 and single["seconds_per_step"] == 0


@pytest.mark.parametrize("flash", [False, True])
def test_recomputation_trades_activations_for_flops(flash):
    runs = {r: calculate({"model": "llama2-7b", "seq_len": 4096, "micro_batch": 1, "recompute": r,
                          "flash_attention": flash}) for r in ("none", "selective", "full")}
    saved = [runs[r]["memory"]["activations"] for r in ("none", "selective", "full")]
    work = [runs[r]["flops"]["per_token_hardware"] for r in ("none", "selective", "full")]
    assert saved[0] >= saved[1] > saved[2] and work[0] < work[1] < work[2]
    assert {runs[r]["flops"]["per_token"] for r in runs} == {work[0]}  # MFU counts model FLOPs
    assert runs["full"]["time"]["hfu"] > runs["none"]["time"]["hfu"] == 0.4


def test_flash_attention_drops_the_scores_from_the_activations():
    long = {"model": "llama2-7b", "seq_len": 4096, "micro_batch": 1}
    math_attention = calculate({**long, "flash_attention": False})["memory"]["activations"]
    flash = calculate({**long, "flash_attention": True})["memory"]["activations"]
    assert math_attention - flash > 32 * 32 * 4096 * 4096 * 2 * 0.9  # the B·H·T² bf16 softmax of 32 layers


@pytest.mark.parametrize(("config", "error", "name"), [
    ({"model": "gpt5"}, ValueError, "model"),
    ({"gpu": "tpu"}, ValueError, "gpu"),
    ({"num_gpus": 0}, ValueError, "num_gpus"),
    ({"mfu": 1.5}, ValueError, "mfu"),
    ({"mfu": 0}, ValueError, "mfu"),
    ({"tokens": 1.5}, ValueError, "tokens"),
    ({"seq_len": 2048}, ValueError, "seq_len"),  # GPT-2's learned positions stop at 1024
    ({"model": "custom", "num_kv_heads": 5}, ValueError, "num_kv_heads"),
    ({"model": "custom", "bias": 1}, TypeError, "bias"),
    ({"model": "custom", "norm": "batchnorm"}, ValueError, "norm"),
    ({"model": "custom", "positions": "rope", "d_model": 9, "num_heads": 3, "num_kv_heads": 3}, ValueError, "rope"),
    ({"flash_attention": "yes"}, TypeError, "flash_attention"),
    ({"recompute": "some"}, ValueError, "recompute"),
    ({"stage": "zero4"}, ValueError, "stage"),
    ({"typo": 1}, ValueError, "typo"),
])
def test_bad_inputs_are_refused_by_name(config, error, name):
    with pytest.raises(error, match=name):
        calculate(config)
    with pytest.raises(TypeError, match="config"):
        calculate([("model", "gpt2-small")])


@given(model=st.sampled_from(sorted(PRESETS)), gpus=st.integers(1, 4096), stage=st.sampled_from(STAGES),
       precision=st.sampled_from(sorted(PRECISIONS)), optimizer=st.sampled_from(sorted(OPTIMIZER_STATES)),
       batch=st.integers(1, 64), seq=st.integers(1, 1024), tokens=st.integers(1, 10**14))
def test_memory_and_flops_add_up(model, gpus, stage, precision, optimizer, batch, seq, tokens):
    r = calculate({"model": model, "num_gpus": gpus, "stage": stage, "precision": precision,
                   "optimizer": optimizer, "micro_batch": batch, "seq_len": seq, "tokens": tokens})
    m, f = r["memory"], r["flops"]
    parts = ("params", "grads", "optimizer_state", "activations", "logits", "logits_grad", "gathered", "ddp_buckets",
             "cuda_context")
    assert math.isclose(m["total"], sum(m[part] for part in parts))
    assert f["total"] == f["per_token"] * tokens and f["total_6n"] == 6 * r["parameters"]["total"] * tokens
    assert r["communication"]["tokens_per_step"] == gpus * batch * seq


def test_a_page_address_round_trips_to_a_config():
    config = config_from_url("#model=llama2-7b&seq=4096&batch=1&tokens=2e12&gpus=64&zero=zero3&mfu=0.5&tf32=1")
    assert config == {"model": "llama2-7b", "seq_len": 4096, "micro_batch": 1, "tokens": 2 * 10**12, "num_gpus": 64,
                      "stage": "zero3", "mfu": 0.5, "tf32": True}
    assert calculate(config)["parameters"]["total"] == RELEASED["llama2-7b"]
    assert config_from_url("") == {} and set(URL_KEYS) == set(DEFAULTS)
    with pytest.raises(ValueError, match="'gpu_count' is not an input"):
        config_from_url("#gpu_count=8")


def test_every_link_to_the_calculator_in_the_book_opens_a_valid_configuration():
    links = []
    for path in [*ROOT.glob("book/**/*.md"), *ROOT.glob("notebooks/[0-9][0-9]_*.ipynb")]:
        text = path.read_text(encoding="utf-8").replace("&amp;", "&")
        links += [(path.name, m) for m in re.findall(r"calculator\.html(#[^\s\"')\]\\]*)", text)]
        if path.name == "calculator.md":
            links += [(path.name, m) for m in re.findall(r'href="(#model=[^"]*)"', text)]
    assert links, "the calculator page links an example configuration"
    for name, fragment in links:
        try:
            calculate(config_from_url(fragment))
        except (ValueError, TypeError) as err:
            pytest.fail(f"{name} links the calculator with {fragment}: {err}")


def test_an_optimizer_step_accumulates_micro_batches_at_the_mfu():
    config = {"model": "llama2-7b", "num_gpus": 64, "micro_batch": 2, "grad_accum": 8, "mfu": 0.4}
    r = calculate(config)
    step = r["step"]
    assert step["global_batch"] == 64 * 2 * 8 and step["global_batch_tokens"] == 64 * 2 * 8 * 4096
    assert step["global_batch_tokens"] == 4 * 2**20  # Llama 2's published 4M-token batch (Touvron et al. 2023)
    assert step["steps"] == math.ceil(2 * 10**12 / step["global_batch_tokens"])
    assert math.isclose(step["seconds"] * step["tokens_per_second"], step["global_batch_tokens"])
    # the whole run is its steps, one after the other (the last step partly filled)
    assert math.isclose(step["steps"] * step["seconds"], r["time"]["days"] * SECONDS_PER_DAY, rel_tol=1e-5)
    one = calculate({**config, "grad_accum": 1})["step"]
    assert math.isclose(step["seconds"], 8 * one["seconds"]) and step["tokens_per_second"] == one["tokens_per_second"]


def test_each_card_communicates_over_its_own_node():
    # one all-reduce (bf16 reductions, as wide as the gathers): bandwidth dominates
    one_call = {"model": "llama2-7b", "num_gpus": 64, "stage": "zero1", "reduce_fp32": False}
    seconds = {gpu: calculate({**one_call, "gpu": gpu})["communication"]["seconds_per_step"]
               for gpu in ("a100-sxm-80gb", "h100-sxm", "h200", "b200", "h100-pcie", "rtx-4090")}
    # across nodes the ring runs at the node's NICs: HDR 200 Gb/s on DGX A100, NDR 400 Gb/s on the others
    assert seconds["a100-sxm-80gb"] > 1.9 * seconds["h100-sxm"] and seconds["h200"] == seconds["h100-sxm"]
    assert seconds["h100-pcie"] is None and seconds["rtx-4090"] is None  # no DGX node for these cards
    inside = {gpu: calculate({**one_call, "num_gpus": 8, "gpu": gpu})["communication"]["seconds_per_step"]
              for gpu in ("h100-sxm", "b200")}
    # inside a node the all-reduce runs NVLS: 845.67 GB/s busbw measured on 8 B200s, ~480 on 8 H100s
    assert 0.55 < inside["b200"] / inside["h100-sxm"] < 480 / 845.67 * 1.01
    # NVLS off (the scaling book's SHARP-disabled node): the ring's 371 GB/s instead of NVLS's 480
    no_nvls = calculate({**one_call, "num_gpus": 8, "nvls": False})["communication"]["seconds_per_step"]
    assert 1.25 < no_nvls / inside["h100-sxm"] < 1.6


def test_fsdp_memory_is_near_deepspeeds_estimate():
    # DeepSpeed's estimator (deepspeed/runtime/zero/stage3.py, estimate_zero3_model_states_mem_needs, no
    # offload): 4 bytes x the largest layer's parameters + 18 bytes x params / GPUs. For Llama 3 8B the
    # largest layer is the 128,256 x 4,096 embedding, as transformers builds it.
    deepspeed = 4 * 128_256 * 4096 + 18 * RELEASED["llama3-8b"] / 64
    m = calculate({"model": "llama3-8b", "num_gpus": 64, "stage": "zero3"})["memory"]
    ours = m["params"] + m["grads"] + m["optimizer_state"] + m["gathered"]
    assert 0.9 < ours / deepspeed < 1.1  # it was 0.46 without the gathered units
    # the largest unit is the LM head with the final RMSNorm: it and the prefetched next, in bf16
    assert m["gathered"] == 2 * (128_256 * 4096 + 4096) * 2


def test_ddp_holds_a_second_copy_of_the_gradients_and_every_step_the_logits_gradient():
    dp = calculate({"model": "gpt2-small", "stage": "dp"})["memory"]
    zero1 = calculate({"model": "gpt2-small", "stage": "zero1"})["memory"]
    assert dp["ddp_buckets"] == dp["grads"] == RELEASED["gpt2-small"] * 2 and zero1["ddp_buckets"] == 0
    assert dp["gathered"] == zero1["gathered"] == 0
    assert dp["logits_grad"] == dp["logits"] == 8 * 1024 * 50257 * 4  # fp32 B·T·V, and its gradient


def test_each_collective_moves_its_own_dtype():
    # FSDP2 as torchtitan runs it: bf16 weights gathered, gradients reduced in fp32 (issue 29 item 3)
    psi, n = RELEASED["llama2-7b"], 64
    fp32_grads = {"model": "llama2-7b", "num_gpus": n, "precision": "mixed_bf16_fp32_grads"}
    zero3 = calculate({**fp32_grads, "stage": "zero3"})["communication"]["bytes_per_step"]
    dp = calculate({**fp32_grads, "stage": "dp"})["communication"]["bytes_per_step"]
    assert math.isclose(zero3, 8 * psi * (n - 1) / n) and math.isclose(dp, 8 * psi * (n - 1) / n)  # not 12Ψ
    bf16 = calculate({**fp32_grads, "precision": "mixed_bf16", "stage": "zero3",
                      "reduce_fp32": False})["communication"]
    assert math.isclose(bf16["bytes_per_step"], 6 * psi * (n - 1) / n)
    # bf16 gradients, reduced in fp32 as the default recipe (autocast DDP, FSDP2, Megatron-Core) does
    default = calculate({**fp32_grads, "precision": "mixed_bf16", "stage": "zero3"})["communication"]
    assert math.isclose(default["bytes_per_step"], 8 * psi * (n - 1) / n)
    assert step_communication(psi, n, "zero1", bytes_per_value=2, reduce_bytes=4) == zero3 - ring_bytes(
        "all_gather", 2 * psi, n)


def test_dropout_adds_the_masks_korthikanti_counts():
    # Korthikanti et al. (2022, section 4.1), per layer in 16 bits: dropout after the attention
    # projection and after the MLP keeps sbh mask bytes each; attention dropout keeps an as^2b mask
    # and its 16-bit output (2as^2b); the embedding's dropout one more sbh mask, once.
    base = {"model": "custom", "seq_len": 1024, "micro_batch": 2, "flash_attention": False,
            "precision": "mixed_bf16", "recompute": "none"}
    off, on = (calculate({**base, "dropout": d})["memory"]["activations"] for d in (False, True))
    c = normalize(base)
    s, b, h, a, L = 1024, 2, c["d_model"], c["num_heads"], c["num_layers"]
    assert on - off == L * (2 * s * b * h + 3 * a * s * s * b) + s * b * h
    assert normalize({"model": "gpt2-small"})["dropout"] and not normalize({"model": "llama3-8b"})["dropout"]
    flash_off, flash_on = (calculate({**base, "flash_attention": True, "dropout": d})["memory"]["activations"]
                           for d in (False, True))
    assert flash_on - flash_off == L * 2 * s * b * h + s * b * h  # a flash kernel keeps no s^2 mask


def test_the_schema_checks_every_input_and_rule_once_in_one_order():
    assert set(FIELDS) == set(DEFAULTS) and {key: f.url for key, f in FIELDS.items()} == URL_KEYS
    assert len(set(URL_KEYS.values())) == len(URL_KEYS)  # one short name per input
    assert sorted(CHECKS) == sorted([*(set(FIELDS) - {"model"}), *RULES])  # model: before the preset applies
    assert all(rule.field in FIELDS and rule.field in (*LINKED, "mfu") for rule in RULES.values())
    assert all(f.maximum is not None and f.maximum < 2**53 for f in FIELDS.values() if f.kind in ("int", "tokens"))
    schema = page_data()["schema"]
    assert [f["key"] for f in schema["fields"]] == list(FIELDS) and schema["checks"] == list(CHECKS)


def test_the_hand_kept_javascript_holds_no_list_of_inputs():
    # formulas.js and url.js read the inputs, their limits, short names and rules from data.js: no input's
    # key is quoted there (but "model", checked before a preset applies, and "tokens" / "tf32", which are
    # also a kind and a dtype), no short name, no limit
    for name in ("formulas.js", "url.js"):
        text = (ROOT / "book" / "_static" / "calculator" / name).read_text(encoding="utf-8")
        quoted = {key for key in FIELDS if re.search(rf"[\"'`]{key}[\"'`]", text)}
        assert quoted <= {"model", "tokens", "tf32"}, (name, quoted)
        assert not [f.url for f in FIELDS.values() if f"{f.url}=" in text], name
        assert not [limit for limit in LIMITS.values() if str(limit) in text], name
