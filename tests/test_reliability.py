"""Issue 31 (reliability, third round): files never lost, nothing injected, hostile records and inputs refused.

One regression test (or more) per item; the module-wide sweep of hostile values is tests/test_hostile_inputs.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

BUILD_MARKER = ".cs336-lec2-build"  # publish.guard.BUILD_MARKER

ROOT = Path(__file__).resolve().parent.parent
RECORD = {
    "schema": 1,
    "machine": {"device_name": "NVIDIA H100 80GB HBM3", "torch": "2.13.0"},
    "parameters": {"device": "cuda", "preset": "large"},
    "created": "2026-11-22T00:00:00Z",
    "chapters": [{"name": "01_napkin_math", "seconds": 12.5, "ok": True, "error": None}],
    "measurements": [],
}


def _run_folder(parent: Path, record: dict | None, notebooks: list[str], name: str = "run") -> Path:
    run = parent / name
    run.mkdir()
    for nb in notebooks:
        (run / nb).write_bytes((ROOT / "notebooks" / nb).read_bytes())
    if record is not None:
        (run / "run-record.json").write_text(json.dumps(record))
    return run


# ---- 31.2: book --build-dir cleans only what the build owns ----

@pytest.mark.parametrize("theirs", ["html/en/mine.txt", "stage/en/notes.md", "colab/en/notebooks/draft.ipynb"])
def test_book_refuses_a_build_dir_holding_the_users_files_before_building(tmp_path, theirs):
    """Issue 31.2: book --build-dir deleted html/en/mine.txt, stage/en/notes.md, colab/en/notebooks/draft.ipynb."""
    from cs336_lec2.publish.book import build_book

    build = tmp_path / "build"
    (build / theirs).parent.mkdir(parents=True)
    (build / theirs).write_text("the user's own")
    with pytest.raises(ValueError, match=rf"^build_dir: .* holds {re.escape(Path(theirs).name)}, which the book "
                                         "build did not write"):
        build_book(ROOT, build_dir=build, languages=("en",))
    assert (build / theirs).read_text() == "the user's own"


def test_stage_and_colab_folders_are_emptied_only_when_the_build_made_them(tmp_path):
    from cs336_lec2.publish.book import stage_edition
    from cs336_lec2.publish.pages import write_colab_copies

    stage = stage_edition(ROOT, "en", tmp_path / "stage" / "en")
    assert (stage / BUILD_MARKER).is_file()
    (stage / "leftover.md").write_text("the build's own folder: emptied")
    stage_edition(ROOT, "en", stage)
    assert not (stage / "leftover.md").exists()
    copies = write_colab_copies(stage, tmp_path / "colab" / "en", "en")
    assert copies and (tmp_path / "colab" / "en" / "notebooks" / BUILD_MARKER).is_file()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.md").write_text("keep")
    with pytest.raises(ValueError, match=r"holds notes\.md, which the book build did not write"):
        stage_edition(ROOT, "en", mine)
    (mine / "notebooks").mkdir()
    (mine / "notebooks" / "draft.ipynb").write_text("keep")
    with pytest.raises(ValueError, match=r"holds draft\.ipynb"):
        write_colab_copies(stage, mine, "en")
    assert (mine / "notes.md").read_text() == "keep" == (mine / "notebooks" / "draft.ipynb").read_text()


# ---- 31.4: nothing reaches generated Markdown unescaped ----

EVIL = "run\n```{raw} html\n<img src=x onerror=alert(1)>\n```\n"


def _rendered(markdown: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").render(markdown)


@pytest.mark.parametrize("kind", ["taken", "fallback", "failed"])
def test_a_run_note_never_carries_live_html_or_markdown_from_a_folder_name_or_a_record(kind):
    """Issue 31.4: a --from folder named with a newline and a MyST {raw} html block put a live <img onerror>
    on every chapter page; the note only replaced backticks."""
    from cs336_lec2.publish.pages import run_note

    record = None if kind == "taken" else {
        "machine": {"device_name": "<img src=x onerror=alert(2)>\n```{raw} html\n"},
        "created": "2026\n:::\n<script>",
        "chapters": [{"name": "01_x", "ok": False, "error": "x\n```{raw} html\n<img src=y onerror=alert(3)>"}],
    }
    note = run_note(record, EVIL, "01_x", kind == "taken", "en")
    lines = note.splitlines()
    assert len(lines) == 4 and lines[0].startswith(":::{") and lines[1].startswith(":class:") and lines[3] == ":::"
    body = _rendered(lines[2])
    assert "<img" not in body and "<script" not in body and "<pre" not in body and "{raw}" in body  # shown, inert


def test_a_book_staged_from_a_hostile_folder_name_has_no_raw_block(tmp_path):
    from cs336_lec2.publish.book import chapters_from_run, stage_edition

    run = _run_folder(tmp_path, RECORD, ["01_napkin_math.ipynb"], name="r\n~~~{raw} html\n<img src=x onerror=1>\n~~~")
    chosen, _ = chapters_from_run(ROOT, run)
    stage = stage_edition(ROOT, "en", tmp_path / "stage", run, chosen)
    for path in (stage / "notebooks").glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown":
                assert not re.search(r"^\s*(~~~|```)\s*\{raw\}", cell.source, re.MULTILINE), path.name  # no raw block
                assert "<img" not in _rendered(cell.source), path.name


# ---- 31.5: control characters in a record are printed escaped ----

def test_a_failed_chapters_error_is_printed_with_its_control_characters_escaped(tmp_path, capsys):
    """Issue 31.5: an error holding \\x1b[2J and newlines was printed raw in book's warning line."""
    from cs336_lec2.publish.book import chapters_from_run

    record = {**RECORD, "chapters": [{"name": "01_napkin_math", "seconds": 1.0, "ok": False,
                                      "error": "boom\x1b[2J\nFAKE: all good\u202e"}]}
    run = _run_folder(tmp_path, record, ["01_napkin_math.ipynb"])
    _, warnings = chapters_from_run(ROOT, run)
    failed = next(w for w in warnings if "FAILED" in w)
    assert "\x1b" not in failed and "\n" not in failed and "\u202e" not in failed
    assert r"boom\x1b[2J\nFAKE: all good\u202e" in failed


def test_the_cli_prints_every_error_and_warning_on_one_escaped_line(tmp_path, capsys):
    from cs336_lec2.publish import cli

    run = tmp_path / "r\x1b[2J\nun"
    assert cli.main(["book", "--root", str(ROOT), "--from", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err and r"r\x1b[2J\nun" in err


# ---- 31.3: cpu_info takes a path only ----

@pytest.mark.parametrize("bad", [0, 1, True, False, 3.0, b"/proc/cpuinfo"])
def test_cpu_info_refuses_a_file_descriptor_or_a_bool_and_closes_nothing(tmp_path, bad):
    """Issue 31.3: cpu_info(f.fileno()) closed the caller's file; cpu_info(True) closed stdout."""
    from cs336_lec2.hardware.cpus import cpu_info

    with open(tmp_path / "mine.txt", "w") as f:
        with pytest.raises(TypeError, match=r"path must be a file path \(str or os\.PathLike\)"):
            cpu_info(f.fileno() if bad == 0 else bad)
        f.write("still open")  # EBADF here before the fix
    assert (tmp_path / "mine.txt").read_text() == "still open"


# ---- 31.6: token byte order ----

@pytest.mark.parametrize("dtype", [">u2", ">i4", ">u4", "<u2", "<i8"])
def test_tokens_in_either_byte_order_read_back_as_written(tmp_path, dtype):
    """Issue 31.6: write_tokens(p, [1, 2, 300], dtype='>u2') then open_tokens gave [256, 512, 11265]."""
    import numpy as np

    from cs336_lec2.data import get_batch, open_tokens, write_tokens

    path = tmp_path / "t.bin"
    write_tokens(path, [1, 2, 300], dtype=dtype)
    assert open_tokens(path).tolist() == [1, 2, 300]
    x, y = get_batch(open_tokens(path), 4, 2, "cpu")
    assert x.tolist() == [[1, 2]] * 4 and y.tolist() == [[2, 300]] * 4
    other = np.dtype(dtype).newbyteorder()
    if other.itemsize > 1:
        with pytest.raises(ValueError, match="every token would be wrong"):
            open_tokens(path, dtype=other)


# ---- 31.9: tampered checkpoints ----

def _saved(tmp_path):
    import torch

    from cs336_lec2.models import Cruncher
    from cs336_lec2.optim import SGD
    from cs336_lec2.training import save_checkpoint

    model = Cruncher(4, 1)
    opt = SGD(model.parameters(), lr=0.1)
    path = tmp_path / "c.pt"
    save_checkpoint(path, model, opt, step=3)
    return path, model, opt, torch.load(path, weights_only=True)


@pytest.mark.parametrize(("where", "value", "message"), [
    ("lr", "x", r"param_groups\[0\]\.lr must be a number"),
    ("lr", float("nan"), r"param_groups\[0\]\.lr must be a finite number"),
    ("lr", -1.0, r"param_groups\[0\]\.lr must be a finite number in \[0\.0, inf\)"),
    pytest.param("lr", 2**1100, r"c\.pt: optimizer state: param_groups\[0\]\.lr must be a finite", id="lr-2**1100"),
    ("step", -7, r"'step' must be a whole number >= 0, got -7"),
    ("step", True, r"'step' is missing or not a int"),
    ("param_groups", 5, r"'param_groups' must be a list of dicts"),
    ("rng.python.state", 5, r"rng\['python'\] is not Python's random state"),
])
def test_a_tampered_checkpoint_is_refused_on_load_and_changes_nothing(tmp_path, where, value, message):
    """Issue 31.9: lr 'x', NaN or -1, step -7 or True, param_groups=5, rng.python.state=5 loaded silently
    (or raised a raw TypeError)."""
    import torch

    from cs336_lec2.training import CheckpointError, load_checkpoint

    path, model, opt, ckpt = _saved(tmp_path)
    if where == "lr":
        ckpt["optimizer"]["param_groups"][0]["lr"] = value
    elif where == "param_groups":
        ckpt["optimizer"]["param_groups"] = value
    elif where == "rng.python.state":
        ckpt["rng"]["python"]["state"] = value
    else:
        ckpt[where] = value
    torch.save(ckpt, path)
    before = [p.clone() for p in model.parameters()]
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(path, model, opt)
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
    assert opt.param_groups[0]["lr"] == 0.1


def test_train_refuses_to_resume_from_a_checkpoint_whose_step_was_edited(tmp_path):
    """Issue 31.9: train(num_steps=2, resume_from=<step edited to -5>) returned 9 losses."""
    import torch

    from cs336_lec2.training import CheckpointError, train

    path = tmp_path / "c.pt"
    train(dim=4, num_layers=1, batch_size=2, num_steps=2, lr=0.01, checkpoint_path=path, checkpoint_every=1)
    ckpt = torch.load(path, weights_only=True)
    ckpt["step"] = -5
    torch.save(ckpt, path)
    with pytest.raises(CheckpointError, match="'step' must be a whole number >= 0, got -5"):
        train(dim=4, num_layers=1, batch_size=2, num_steps=2, lr=0.01, resume_from=path)


def test_rng_states_name_a_bad_generator_and_a_bad_state():
    """Issue 31.14: rng_states('g') raised AttributeError, restore_rng_states({}) KeyError."""
    from cs336_lec2.rng import restore_rng_states, rng_states

    with pytest.raises(TypeError, match=r"generator must be a torch\.Generator or None, got str 'g'$"):
        rng_states("g")
    with pytest.raises(ValueError, match=r"rng\['torch'\] is missing"):
        restore_rng_states({})


# ---- 31.10 and 31.14: absurd durations and deeply nested records ----

@pytest.mark.parametrize("seconds", [1.7e308, float("inf"), 2e6])
def test_a_record_with_an_absurd_duration_is_refused_when_read(tmp_path, seconds):
    """Issue 31.10: the results page showed "inf s" for chapters of 1.7e308 s."""
    from cs336_lec2.publish.records import RecordError, check_record, load_record

    bad = {**RECORD, "chapters": [{**RECORD["chapters"][0], "seconds": seconds}]}
    with pytest.raises(RecordError, match=r"chapters\[0\]\.seconds must be a number in \[0, 1e\+06\], got "):
        check_record(json.loads(json.dumps(bad)))
    timing = {**RECORD, "measurements": [{"kind": "timing", "label": "step", "seconds": seconds}]}
    (tmp_path / "r.json").write_text(json.dumps(timing))
    with pytest.raises(RecordError, match=r"^r\.json: measurements\[0\]\.seconds must be a number in \[0, 1e\+06\]"):
        load_record(tmp_path / "r.json")


def test_a_deeply_nested_record_is_one_error_naming_the_file(tmp_path, capsys):
    """Issue 31.14: a deeply nested record raised RecursionError, and the CLI message omitted the file."""
    from cs336_lec2.publish import cli
    from cs336_lec2.publish.records import RecordError, load_record

    run = _run_folder(tmp_path, None, ["01_napkin_math.ipynb"])
    (run / "run-record.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(RecordError, match=r"^run-record\.json: not a valid run record \(nested too deeply"):
        load_record(run / "run-record.json")
    assert cli.main(["book", "--root", str(ROOT), "--from", str(run), "--build-dir", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "run-record.json: not a valid run record" in err[0]


# ---- 31.13: book --from with malformed markdown cells ----

@pytest.mark.parametrize("damage", ["no source", "source 5", "tags 5", "tags [5]", "no cell_type"])
def test_book_from_a_notebook_with_a_malformed_cell_falls_back_with_one_warning(tmp_path, damage):
    """Issue 31.13: a markdown cell without source, or with tags: 5 / source: 5, gave a traceback (exit 1)."""
    from cs336_lec2.publish.book import chapters_from_run, stage_edition

    record = {**RECORD, "chapters": [{"name": "01_napkin_math", "seconds": 1.0, "ok": True, "error": None}]}
    run = _run_folder(tmp_path, record, ["01_napkin_math.ipynb"])
    nb = json.loads((run / "01_napkin_math.ipynb").read_text())
    cell = next(c for c in nb["cells"] if c["cell_type"] == "markdown")
    if damage == "no source":
        del cell["source"]
    elif damage == "source 5":
        cell["source"] = 5
    elif damage == "no cell_type":
        del cell["cell_type"]
    else:
        cell["metadata"]["tags"] = 5 if damage == "tags 5" else [5]
    (run / "01_napkin_math.ipynb").write_text(json.dumps(nb))
    chosen, warnings = chapters_from_run(ROOT, run)
    assert chosen == {}
    assert [w for w in warnings if w.startswith("01_napkin_math: its notebook there is unreadable (")]
    stage_edition(ROOT, "en", tmp_path / "stage", run, chosen)  # the committed notebook is staged instead


# ---- 31.8 and 31.16: flags in execute, token ids in the Transformer ----

@pytest.mark.parametrize("flag", ["in_place", "progress"])
@pytest.mark.parametrize("value", ["no", "False", 0, None])
def test_execute_takes_only_a_real_bool_for_its_flags(tmp_path, flag, value):
    """Issue 31.8: execute(nbs, in_place='no') rewrote the notebooks in place."""
    from cs336_lec2.publish.execute import execute

    nbs = tmp_path / "nbs"
    nbs.mkdir()
    (nbs / "01_x.ipynb").write_text(nbformat.writes(nbformat.v4.new_notebook()))
    before = (nbs / "01_x.ipynb").read_bytes()
    kwargs = {"output": tmp_path / "out"} if flag == "progress" else {}
    with pytest.raises(TypeError, match=rf"^{flag} must be True or False, got "):
        execute(nbs, **{flag: value}, **kwargs)
    assert (nbs / "01_x.ipynb").read_bytes() == before and not (tmp_path / "out").exists()


def test_token_ids_beyond_the_vocabulary_are_named():
    """Issue 31.16: ids >= vocab_size gave torch's "index out of range in self"."""
    import torch

    from cs336_lec2.transformer_model import TransformerLM

    model = TransformerLM(16, 8, 1, 8, 2, 16)
    with pytest.raises(ValueError, match=r"^idx holds token ids in \[0, 16\]; they must be in \[0, vocab_size=16\)$"):
        model(torch.tensor([[0, 16]]))
    with pytest.raises(ValueError, match=r"idx holds token ids in \[-1, 3\]"):
        model(torch.tensor([[-1, 3]]))
    assert model(torch.tensor([[0, 15]])).shape == (1, 2, 16)


# ---- 31.7, 31.11, 31.12, 31.14, 31.16, 31.17: the issue's own examples (the sweep is test_hostile_inputs.py) ----

def _issue_examples():
    import math

    import numpy as np
    import torch

    from cs336_lec2 import (
        activations,
        calculator,
        calculator_url,
        device,
        floats,
        flops,
        hardware,
        memory,
        models,
        optim,
        presets,
        source,
        timing,
        training,
    )
    from cs336_lec2 import (
        transformer_accounting as transformer,
    )
    from cs336_lec2 import (
        transformer_model as lm,
    )
    from cs336_lec2.distributed import cluster, zero1_partition
    from cs336_lec2.hardware import cpus

    big = 2**1100
    cases = [  # (call, exception, what the message must name)
        (lambda: transformer.llama_ffn_dim(4096, 256, -1.0), ValueError, "ffn_dim_multiplier"),
        (lambda: transformer.llama_ffn_dim(4096, 256, 0.0), ValueError, "ffn_dim_multiplier"),
        (lambda: transformer.llama_ffn_dim(4096, 256, math.inf), ValueError, "ffn_dim_multiplier"),
        (lambda: lm.TransformerConfig(64, 16, 2, 6, 2, 32, positions="rope"), ValueError, "head_dim"),  # RoPE: even
        (lambda: hardware.cpu_peak_estimate(flags="avx2 fma", threads=2, clock_hz=True), TypeError, "clock_hz"),
        (lambda: device.autocast_dtype("cuda", (True, 0)), ValueError, "capability"),
        (lambda: cluster.Cluster(latency=False), TypeError, "latency"),
        (lambda: timing.Timing((math.inf,)), ValueError, "times"),
        (lambda: floats.to_binary_fraction(0.1, 2**40), ValueError, "bits"),
        (lambda: models.Cruncher(4, big), ValueError, "num_layers"),
        (lambda: flops.roofline(big, 1e12, 1e9), ValueError, "intensity"),
        (lambda: flops.arithmetic_intensity(big, 2, 2, 4), ValueError, "m"),
        (lambda: optim.Adam([torch.zeros(1, requires_grad=True)], lr=big), ValueError, "lr"),
        (lambda: training.train(dim=2, num_layers=1, batch_size=2, num_steps=1, lr=big), ValueError, "lr"),
        (lambda: hardware.peak_flops("fp32", "cpu", override=big), ValueError, "override"),
        (lambda: hardware.cpu_peak_estimate(flags="avx2", threads=big, clock_hz=3e9), ValueError, "threads"),
        (lambda: cluster.ring_latency("all_reduce", big), ValueError, "world_size"),
        (lambda: cluster.collective_seconds("all_reduce", 1e308, 8, bucket_bytes=1e-300), ValueError, "bucket_bytes"),
        (lambda: cluster.step_seconds("dp", 10**9, big), ValueError, "world_size"),
        (lambda: cluster.hsdp_step_seconds(10**9, big), ValueError, "world_size"),
        (lambda: activations.segment_checkpoint_bytes(big, 2, 1, 1), ValueError, "num_layers must be"),  # 2**1000 max
        (lambda: transformer.seq_len_for_attention_share(lm.TransformerConfig(64, 16, 2, 16, 2, 32), big),
         ValueError, "share"),
        (lambda: calculator.calculate({"model": "custom", "vocab_size": big}), ValueError, "vocab_size"),
        (lambda: calculator_url.config_from_url("#gpus=abc"), ValueError, "gpus"),
        (lambda: calculator.preset_key(5), TypeError, "name"),
        (lambda: calculator.matmul_dtype({}), ValueError, "config"),
        (lambda: presets.auto_preset("cpu"), TypeError, "device"),
        (lambda: presets.describe(5), TypeError, "sizes"),
        (lambda: presets.pick(None, "small"), TypeError, "sizes"),
        (lambda: cpus.detect_core(5), TypeError, "info"),
        (lambda: source.elide_checks(5), TypeError, "code"),
        (lambda: source.elide_checks("def (:"), ValueError, "code"),
        (lambda: models.Linear(2, 3, device="nonsense"), ValueError, "device"),
        (lambda: models.Linear(2, 3, dtype="float32"), TypeError, "dtype"),
        (lambda: device.describe_device("garbage"), ValueError, "device"),
        (lambda: training.regression_batch(-1, 2, generator=torch.Generator()), ValueError, "batch_size"),
        (lambda: training.regression_batch(True, 2, generator=torch.Generator()), TypeError, "batch_size"),
        (lambda: timing.copy_bandwidth("cpu", 2**62), ValueError, "nbytes"),
        (lambda: memory.tensor_bytes(5), TypeError, "tensors"),
        (lambda: zero1_partition(None, 2), TypeError, "numels"),
        (lambda: timing.Timing("abc"), TypeError, "times"),
    ]
    if not torch.cuda.is_available():
        cases += [(lambda: models.Linear(2, 3, device="cuda"), ValueError, "device"),
                  (lambda: device.describe_device("cuda"), ValueError, "device")]
    accepted = [  # issue 31.17: numpy numbers where checks.py's rule takes them
        lambda: floats.decode_bits(np.int64(0x3C00), "fp16") == 1.0,
        lambda: len(floats.representable_values("fp8_e4m3", 0.0, 1.0, limit=np.int64(1000))) > 0,
        lambda: floats.to_binary_fraction(0.5, np.int64(2)) == "0.10",
        lambda: floats.FloatFormat("e4", np.int64(4), np.int64(3), np.int64(8), None).bit_width == 8,
        lambda: hardware.cpu_peak_estimate(flags="avx2 fma", threads=np.int64(2), clock_hz=np.float32(3e9)).flops > 0,
        lambda: flops.mfu(1e9, 1.0, 1e12, strict=np.True_) == 1e-3,
        lambda: optim.AdaGrad([torch.zeros(1, requires_grad=True)], eps_inside_sqrt=np.True_) is not None,
        lambda: lm.TransformerConfig(64, 16, 2, 16, 2, 32, gated_mlp=np.True_).gated_mlp,
        lambda: transformer.forward_flops_per_token(lm.TransformerConfig(64, 16, 2, 16, 2, 32), 8,
                                                    attention=np.False_) > 0,
        lambda: activations.saved_values_per_token(lm.TransformerConfig(64, 16, 2, 16, 2, 32), 8,
                                                   flash_attention=np.True_) is not None,
        lambda: hardware.peak_flops("fp32", "cpu", tf32=np.True_) is not None,
    ]
    return cases, accepted


def test_the_issues_examples_are_one_clear_error_naming_the_argument():
    """Issue 31.7 (silent acceptance), 31.11 (hangs bounded up front), 31.12 (OverflowError on 2**1100),
    31.14 and 31.16 (raw or vague errors): each example of the issue, by name."""
    cases, _ = _issue_examples()
    for call, error, name in cases:
        if error is None:
            call()
            continue
        with pytest.raises(error) as info:
            call()
        assert name in str(info.value), (name, str(info.value))


def test_numpy_numbers_and_bools_are_taken_where_the_rule_says_so():
    """Issue 31.17: np.int64 in decode_bits, representable_values(limit=), to_binary_fraction(bits=),
    FloatFormat, cpu_peak_estimate(threads=); np.float32 clocks; np.True_ for strict, eps_inside_sqrt,
    gated_mlp, attention, flash_attention and tf32 were refused."""
    _, accepted = _issue_examples()
    for i, call in enumerate(accepted):
        assert call(), i


def test_the_cli_names_the_flag_for_a_read_only_chapters_folder(tmp_path, capsys):
    """Issue 31.16: execute --in-place on a read-only folder named neither the folder nor the flag."""
    import os

    from cs336_lec2.publish import cli

    nbs = tmp_path / "nbs"
    nbs.mkdir()
    (nbs / "01_x.ipynb").write_text(nbformat.writes(nbformat.v4.new_notebook()))
    nbs.chmod(0o555)
    try:
        if os.access(nbs, os.W_OK):
            pytest.skip("root may write anywhere")
        assert cli.main(["execute", "--in-place", "--notebooks", str(nbs)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--in-place" in err[0] and str(nbs) in err[0]
    finally:
        nbs.chmod(0o755)


def test_a_build_folder_an_earlier_version_left_is_still_the_builds(tmp_path):
    # Folders built before the marker existed carry the cache stamp or Sphinx's .buildinfo: still ours.
    from cs336_lec2.publish.guard import check_owned, fresh_folder

    for sign in (".cs336-cache.json", ".buildinfo"):
        folder = tmp_path / sign.strip(".")
        folder.mkdir()
        (folder / sign).write_text("{}")
        (folder / "index.html").write_text("old page")
        assert check_owned(folder) == folder
        assert [p.name for p in fresh_folder(folder).iterdir()] == [".cs336-lec2-build"]
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.md").write_text("mine")
    with pytest.raises(ValueError, match=r"notes\.md"):
        check_owned(mine)
