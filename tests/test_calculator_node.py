"""The calculator's JavaScript equals the package, run in Node: no book build, no browser (issue 36 item 4).

``tests/calculator_node.js`` loads ``data.js`` + ``formulas.js`` + ``url.js`` as the page does and
answers one JSON request. Against :func:`cs336_lec2.calculator.calculate` on every preset (and every
stage × recipe × recomputation × attention of each) and 1,000 random configurations: integers
(parameters, FLOPs, bytes) exactly, as the decimal strings of JavaScript BigInts, floats to a relative
1e-9; a changed formula makes the comparison fail (tested). Bad configurations are refused under the
same field. The address grammar both ways: the package's :func:`~cs336_lec2.calculator_url.url_of`
read by url.js, url.js's ``toHash`` read by :func:`~cs336_lec2.calculator_url.read_url` (the same
address, character for character), and hundreds of broken addresses read alike. Skipped, saying so,
where ``node`` is missing; CI has it.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_calculator_url import BAD_LINKS, GEMMA_7B

from cs336_lec2.calculator import (
    FIELDS,
    LIMITS,
    MFU_MIN,
    PRESETS,
    RULES,
    URL_KEYS,
    calculate,
    normalize,
    preset_architecture,
)
from cs336_lec2.calculator_page import page_data
from cs336_lec2.calculator_url import read_url, url_of

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed: the calculator's JavaScript "
                                                     "cannot be compared with the package here (CI runs it)")
DRIVER = Path(__file__).with_name("calculator_node.js")
DATA = page_data()
RANDOM_CONFIGS = 1000


def run_node(request: dict[str, Any]) -> dict[str, Any]:
    """The answer of ``calculator_node.js`` to ``request`` (see that file)."""
    done = subprocess.run([NODE, str(DRIVER)], input=json.dumps(request), capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def random_config(rng: random.Random) -> dict[str, Any]:
    """A valid configuration drawn over every input's range (a preset in a quarter of them)."""
    config = {
        "seq_len": rng.choice([1, 7, 128, 1024, 2048, 4096, 8192, 32768, rng.randint(1, 65536)]),
        "micro_batch": rng.randint(1, 64),
        "grad_accum": rng.choice([1, 2, 16, rng.randint(1, LIMITS["grad_accum"])]),
        "tokens": rng.choice([1, 10**9, 3 * 10**11, 15 * 10**12, rng.randint(1, LIMITS["tokens"])]),
        "gpu": rng.choice(sorted(DATA["accelerators"])),
        "num_gpus": rng.choice([1, 2, 3, 8, 12, 16, 64, 1000, 1024, 16384, rng.randint(1, 100_000)]),
        "mfu": rng.choice([1.0, 0.4, round(rng.uniform(0.01, 1), 3), rng.uniform(MFU_MIN, 1)]),
        "tf32": rng.random() < 0.5,
        "precision": rng.choice(sorted(DATA["precisions"])),
        "optimizer": rng.choice(sorted(DATA["optimizer_states"])),
        "stage": rng.choice(DATA["stages"]),
        "recompute": rng.choice(DATA["recompute"]),
        "flash_attention": rng.random() < 0.5,
        "nvls": rng.random() < 0.5,
        "reduce_fp32": rng.random() < 0.5,
    }
    if config["recompute"] != "none":  # recomputation runs up to 4/3 of the model FLOPs: HFU stays <= 1
        config["mfu"] = min(config["mfu"], 0.75)
    if rng.random() < 0.25:
        key = rng.choice(sorted(PRESETS))
        arch = preset_architecture(key)
        if arch["positions"] == "learned":
            config["seq_len"] = rng.randint(1, arch["context_length"])
        return {"model": key, **config}
    heads = rng.choice([1, 2, 3, 12, 16, 25, 32, 64, 128, rng.randint(1, 256)])
    kv = rng.choice([d for d in range(1, heads + 1) if heads % d == 0])
    learned = rng.random() < 0.5
    head_dim = rng.choice([1, 16, 64, 80, 128, 256, rng.randint(1, 512)])
    d_model = heads * (head_dim if learned or head_dim % 2 == 0 else 2 * head_dim)  # RoPE: an even head
    context = rng.choice([1024, 4096, 131072, rng.randint(1, 200_000)])
    if learned:
        config["seq_len"] = min(config["seq_len"], context)
    head_size = rng.choice([None, None, rng.randint(1, 300) * (1 if learned else 2)])  # set: H·head_size != d
    return {"model": "custom", "vocab_size": rng.choice([1, 50257, 32000, 128256, rng.randint(1, 300_000)]),
            "head_size": head_size,
            "context_length": context, "num_layers": rng.randint(1, 160), "d_model": d_model, "num_heads": heads,
            "num_kv_heads": kv,
            "d_ff": min(LIMITS["d_ff"], rng.choice([4 * d_model, rng.randint(1, 8 * d_model)])),
            "gated_mlp": rng.random() < 0.5, "tied_embeddings": rng.random() < 0.5, "bias": rng.random() < 0.5,
            "dropout": rng.random() < 0.5,
            "norm": rng.choice(DATA["norms"]), "positions": "learned" if learned else "rope", **config}


def broken_config(rng: random.Random) -> dict[str, Any]:
    """A custom configuration with one input out of its range or kind, or one rule between inputs broken."""
    config = {**random_config(rng), "model": "custom", **preset_architecture("gpt2-small"), "seq_len": 512}
    config.pop("head_size")
    key = rng.choice([*FIELDS, "kv", "heads", "rope", "context", "hfu"])
    field = FIELDS.get(key)
    if field is None:  # a rule: GPT-2 small's 12 heads of 64 on a width of 768
        config.update({"kv": {"num_kv_heads": 5}, "heads": {"d_model": 770}, "context": {"seq_len": 1025},
                       "rope": {"positions": "rope", "d_model": 12 * 33},
                       "hfu": {"mfu": 1.0, "recompute": "full"}}[key])
    elif field.kind == "choice":
        config[key] = rng.choice(["nope", "", 3, None, "GPT-2 small"])
    elif field.kind == "bool":
        config[key] = rng.choice([1, 0, "yes", None])
    else:
        limit = field.maximum
        config[key] = rng.choice([0, -1, 1.5, limit + 1, True, "8", field.minimum / 2])
    return config


def mismatches(py: object, js: object, path: str = "") -> list[str]:
    """Where the JavaScript result ``js`` differs from Python's ``py``: ints exactly, floats to 1e-9 relative."""
    if isinstance(py, dict):
        if not isinstance(js, dict) or set(js) != set(py):
            return [f"{path}: keys {sorted(py)} != {js!r}"]
        return [m for key in py for m in mismatches(py[key], js[key], f"{path}.{key}".lstrip("."))]
    if py is None or isinstance(py, (bool, str)):
        return [] if js == py and type(js) is type(py) else [f"{path}: {py!r} != {js!r}"]
    if isinstance(py, int):
        return [] if js == {"int": str(py)} else [f"{path}: {py} != {js!r}"]
    if isinstance(py, float):
        if isinstance(js, (int, float)) and not isinstance(js, bool) and math.isclose(py, js, rel_tol=1e-9,
                                                                                      abs_tol=0 if py else 1e-300):
            return []
        return [f"{path}: {py!r} != {js!r}"]
    return [f"{path}: unexpected {type(py).__name__}"]


def compare(configs: list[dict[str, Any]], patch: str = "") -> list[str]:
    """Every difference between the package and the JavaScript (with ``patch`` run first) on ``configs``."""
    found = []
    for config, js in zip(configs, run_node({"patch": patch, "calculate": configs})["calculate"], strict=True):
        found += [f"{config}: {m}" for m in mismatches(calculate(config), js)]
    return found


def grid() -> list[dict[str, Any]]:
    """Every preset, and each under every stage, recomputation and attention kernel (the recipes in turn)."""
    recipes = sorted(DATA["precisions"])
    return [{"model": key} for key in PRESETS] + [
        {"model": key, "recompute": recompute, "flash_attention": flash, "stage": stage, "num_gpus": 64,
         "precision": recipes[i % len(recipes)]}
        for i, (key, stage, recompute, flash) in enumerate(
            (k, s, r, f) for k in PRESETS for s in DATA["stages"] for r in DATA["recompute"] for f in (False, True))]


def test_javascript_equals_python_on_every_preset_and_random_configs():
    rng = random.Random(20260415)
    configs = grid() + [random_config(rng) for _ in range(RANDOM_CONFIGS)]
    results = run_node({"calculate": configs})["calculate"]
    py = [calculate(config) for config in configs]
    found = [f"{config}: {m}" for config, p, js in zip(configs, py, results, strict=True) for m in mismatches(p, js)]
    assert not found[:10], f"{len(found)} differences"
    # the comparison is not vacuous: huge FLOP totals (beyond 2**53) and every branch occur
    assert any(r["flops"]["total"] > 2**53 for r in py)
    assert {r["memory"]["fits"] for r in py} == {True, False}
    assert any(r["time"]["days"] is None for r in py)
    assert any(r["communication"]["seconds_per_step"] is None for r in py)
    assert any(r["memory"]["params"] != int(r["memory"]["params"]) for r in py)  # sharded state as a fraction


def test_the_comparison_fails_when_a_formula_differs():
    presets = [{"model": key} for key in PRESETS]
    one_more = calculate({})
    one_more["parameters"]["total"] += 1  # a deliberately wrong Python value
    js = run_node({"calculate": [{}]})["calculate"][0]
    assert mismatches(one_more, js) == [f"parameters.total: {one_more['parameters']['total']} != "
                                        f"{{'int': '{one_more['parameters']['total'] - 1}'}}"]
    # one formula off by one FLOP, then one float off by 1e-8
    wrong = compare(presets, "const F = NS.F, a = F.attention_flops_per_token;"
                             "F.attention_flops_per_token = (c, s) => a(c, s) + 1n;")
    affected = ("flops.per_token", "flops.total", "time.days", "step.seconds", "step.tokens_per_second")
    assert wrong and all(any(name in m for name in affected) for m in wrong)
    assert sum("flops.per_token:" in m for m in wrong) == len(presets)
    wrong = compare(presets, "const F = NS.F, d = F.days; F.days = (...a) => d(...a) * (1 + 1e-8);")
    assert wrong and all("time.days" in m for m in wrong)
    # a rule dropped from the schema the page reads: a configuration Python refuses is computed
    drop_kv = "const s = NS.DATA.schema; s.checks = s.checks.filter((step) => step !== 'kv');"
    bad = {"model": "custom", "num_kv_heads": 5}
    assert "error" in run_node({"calculate": [bad]})["calculate"][0]
    assert "error" not in run_node({"patch": drop_kv, "calculate": [bad]})["calculate"][0]


def test_bad_configurations_are_refused_under_the_same_field():
    rng = random.Random(36)
    configs = [broken_config(rng) for _ in range(400)]
    results = run_node({"calculate": configs})["calculate"]
    fields, codes = [], set()
    for config, js in zip(configs, results, strict=True):
        with pytest.raises((ValueError, TypeError)) as err:
            normalize(config)
        assert "error" in js, (config, js)
        assert js["error"]["field"] == err.value.field, (config, js, str(err.value))
        fields.append(err.value.field)
        codes.add(js["error"]["code"])
    assert set(fields) == set(FIELDS)  # every input was refused at least once
    assert set(RULES) <= codes  # and every rule between inputs broken


def test_each_address_the_package_writes_the_javascript_reads_and_back():
    rng = random.Random(16)
    configs = [normalize(c) for c in grid()[:40] + [random_config(rng) for _ in range(300)]]
    ours = [url_of(c) for c in configs]
    answer = run_node({"readHash": ours, "toHash": configs})
    for config, url, read, theirs in zip(configs, ours, answer["readHash"], answer["toHash"], strict=True):
        assert read == {"config": json.loads(json.dumps(config)), "errors": []}, url  # Python -> JavaScript
        assert read_url(theirs) == (config, {}), theirs  # JavaScript -> Python
        assert theirs == url  # the same address, character for character
    assert ours[0] == "#model=gpt2-small" and any("hs=" in url for url in ours)
    assert all(f"{short}=" in "".join(ours) for short in URL_KEYS.values() if short not in ("hs",))


def _fragments(rng: random.Random, count: int) -> list[str]:
    """Addresses mixing good and bad values of every input, in every way the grammar can be broken."""
    values = ["1", "0", "8", "-8", "1.5", "0x40", "1e3", "", "08", "2e12", "1.5e13", "1e400", ".5", "0.4", "1.",
              "true", "false", "yes", "banana", "llama2-70b", "custom", "h100-sxm", "zero3", "full", "rope",
              "9007199254740991", "4096", "65", "%20", "%"]
    names = [*URL_KEYS.values(), "typo", "constructor"]
    return ["#" + "&".join(f"{rng.choice(names)}={rng.choice(values)}" for _ in range(rng.randint(1, 6)))
            for _ in range(count)]


def test_javascript_reads_every_address_as_python_does():
    extra = ["#model=custom&heads=7&kv=3", "#seq=2048", "#tokens=1.5e13&gpus=16&foo=1&gpus=8", "#mfu=.5", GEMMA_7B,
             GEMMA_7B.replace("&hs=256", "&hs=255"), "#model=gemma7b&gpus=64&zero=zero3", "#__proto__=1"]
    fragments = [*BAD_LINKS, *extra, *_fragments(random.Random(29), 600)]
    found = run_node({"readHash": fragments})["readHash"]
    for fragment, js in zip(fragments, found, strict=True):
        config, errors = read_url(fragment)
        assert js == {"config": json.loads(json.dumps(config)), "errors": list(errors)}, fragment
    assert sum(bool(js["errors"]) for js in found) > 400 and any(not js["errors"] for js in found)
