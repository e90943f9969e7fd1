from __future__ import annotations

import json

import pytest

from cs336_lec2.publish import cli


def test_help_lists_the_commands(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    for command in ("info", "execute", "book"):
        assert command in out


def test_info_prints_device_and_peaks(capsys):
    assert cli.main(["info", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "torch" in out and "device:" in out
    assert "fp32:" in out and "estimate" in out


def test_info_on_missing_cuda_is_a_clear_error(monkeypatch, capsys):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert cli.main(["info", "--device", "cuda"]) == 2
    assert "--device cuda: torch" in _one_line_error(capsys, "sees no CUDA device")
    assert cli.main(["info", "--device", "tpu"]) == 2
    _one_line_error(capsys, "--device tpu: give auto, cpu, cuda or cuda:N")


def test_execute_needs_a_destination(capsys):
    assert cli.main(["execute"]) == 2
    assert "--output DIR" in capsys.readouterr().err


def test_execute_rejects_output_with_in_place():
    with pytest.raises(SystemExit):
        cli.main(["execute", "--in-place", "--output", "x"])


def test_execute_unknown_chapter(capsys, repo_root):
    code = cli.main(["execute", "--notebooks", str(repo_root / "notebooks"), "--chapters", "99", "--output", "x"])
    assert code == 2
    assert "--chapters: no chapter matches '99'" in capsys.readouterr().err


def test_book_reports_a_wrong_root(tmp_path, capsys):
    assert cli.main(["book", "--root", str(tmp_path)]) == 2  # bad input: 2, as main() promises (it was 1)
    assert "has no _config.yml" in capsys.readouterr().err


def test_browser_is_never_opened_in_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("DISPLAY", ":0")
    assert not cli._can_open_browser()
    monkeypatch.delenv("CI")
    assert cli._can_open_browser()


def test_cli_choices_match_the_package():
    from cs336_lec2 import device, presets
    from cs336_lec2.publish import book

    assert cli.DEVICE_CHOICES == device.DEVICE_CHOICES
    assert cli.PRESET_CHOICES == presets.PRESET_CHOICES
    assert tuple(book.EDITIONS) == cli.EDITION_CODES


def _one_line_error(capsys, flag: str) -> str:
    err = capsys.readouterr().err
    assert flag in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


def test_execute_into_the_notebooks_folder_is_refused(repo_root, capsys):
    """Issue 15 item 1: `--output notebooks` would overwrite the committed chapters."""
    notebooks = repo_root / "notebooks"
    before = {p.name: p.stat().st_mtime_ns for p in notebooks.glob("*.ipynb")}
    code = cli.main(["execute", "--notebooks", str(notebooks), "--chapters", "01", "--output", str(notebooks)])
    assert code == 2
    assert "--in-place" in _one_line_error(capsys, "--output")
    assert {p.name: p.stat().st_mtime_ns for p in notebooks.glob("*.ipynb")} == before


@pytest.mark.parametrize("timeout", ["0", "-1"])
def test_execute_rejects_a_timeout_that_is_not_positive(repo_root, tmp_path, capsys, timeout):
    args = ["execute", "--notebooks", str(repo_root / "notebooks"), "--output", str(tmp_path / "o"), "--timeout"]
    assert cli.main([*args, timeout]) == 2
    _one_line_error(capsys, "--timeout")
    assert not (tmp_path / "o").exists()


def test_execute_on_cuda_without_a_gpu_names_the_flag_and_creates_nothing(repo_root, tmp_path, monkeypatch, capsys):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    out = tmp_path / "gpu-run"
    code = cli.main(["execute", "--notebooks", str(repo_root / "notebooks"), "--device", "cuda", "--output", str(out)])
    assert code == 2
    _one_line_error(capsys, "--device cuda")
    assert not out.exists()


def test_execute_output_that_is_a_file_or_under_one(repo_root, tmp_path, capsys):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    for output in (a_file, a_file / "run"):
        assert cli.main(["execute", "--notebooks", str(repo_root / "notebooks"), "--output", str(output)]) == 2
        _one_line_error(capsys, "--output")


def test_execute_refuses_an_output_folder_holding_the_users_files(repo_root, tmp_path, capsys):
    """Issue 31.1: --output DIR replaced the user's 03_fail.ipynb, execute.log and an earlier run-record.json."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / "03_fail.ipynb").write_text("my notebook")
    assert cli.main(["execute", "--notebooks", str(repo_root / "notebooks"), "--chapters", "01",
                     "--output", str(out)]) == 2
    assert "already holds 03_fail.ipynb" in _one_line_error(capsys, "--output")
    assert [p.name for p in out.iterdir()] == ["03_fail.ipynb"] and (out / "03_fail.ipynb").read_text() == "my notebook"


def test_ctrl_c_is_one_line_and_exit_130(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_execute", interrupted)
    parser = cli.build_parser
    monkeypatch.setattr(cli, "build_parser", lambda: _with_run(parser(), interrupted))
    assert cli.main(["execute", "--output", "x"]) == 130
    _one_line_error(capsys, "interrupted")


def _with_run(parser, run):
    parser.set_defaults(run=run)
    for action in parser._subparsers._group_actions:  # the sub-commands keep their own defaults
        for sub in action.choices.values():
            sub.set_defaults(run=run)
    return parser


def test_book_flags_are_checked_with_their_names(tmp_path, capsys):
    assert cli.main(["book", "--from", str(tmp_path / "missing")]) == 2
    _one_line_error(capsys, "--from")
    a_file = tmp_path / "f"
    a_file.write_text("x")
    assert cli.main(["book", "--build-dir", str(a_file)]) == 2
    _one_line_error(capsys, "--build-dir")


def test_book_from_an_empty_folder_is_refused(tmp_path, capsys, repo_root):
    """Issue 15 item 4: `book --from` an empty folder built the committed book and exited 0."""
    empty = tmp_path / "run"
    empty.mkdir()
    assert cli.main(["book", "--root", str(repo_root), "--from", str(empty), "--build-dir", str(tmp_path / "b")]) == 2
    assert "--output folder of a cs336-lec2 execute run" in _one_line_error(capsys, "holds no executed chapters")


def test_info_measure_prints_the_measured_roof_beside_the_peak(capsys):
    assert cli.main(["info", "--device", "cpu", "--measure"]) == 0
    out = capsys.readouterr().out
    roof = out.split("measured compute roof", 1)[1]
    assert "fp32:" in roof and "bf16:" in roof and "of the peak above" in roof


def test_info_is_concise_and_sources_come_with_a_flag(capsys):
    """Issue 24.9: info printed ~400-character lines of citations; now they are behind --sources."""
    assert cli.main(["info", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100 and "info --sources" in out
    assert "turbo allowance" not in out
    assert cli.main(["info", "--device", "cpu", "--sources"]) == 0
    out = capsys.readouterr().out
    assert "sources:" in out and "fp32: estimate =" in out


def test_execute_takes_a_chapters_own_name(repo_root, capsys):
    """Issue 24.9: --chapters 05_flops_and_mfu (the chapter's own name) must be taken like 5."""
    from cs336_lec2.publish.execute import find_chapters

    notebooks = repo_root / "notebooks"
    for name in ("5", "05", "05_flops_and_mfu", "05_flops_and_mfu.ipynb", "flops_and_mfu"):
        assert [p.stem for p in find_chapters(notebooks, [name])] == ["05_flops_and_mfu"]
    args = cli.build_parser().parse_args(["execute", "--notebooks", str(notebooks), "--chapters", "05_flops_and_mfu",
                                          "--output", "x"])
    assert args.chapters == ["05_flops_and_mfu"]


def test_in_place_with_a_large_preset_names_the_flags(capsys):
    """Issue 20.15: --in-place --preset large named the Python argument in_place, not the flag."""
    assert cli.main(["execute", "--in-place", "--preset", "large"]) == 2
    err = _one_line_error(capsys, "--in-place refreshes the committed CPU reference")
    assert "--preset large" in err and "in_place" not in err.replace("--in-place", "")


def test_merge_writes_one_record_and_never_replaces_a_file_unasked(tmp_path, capsys):
    from test_records import GOOD  # a valid record of one chapter


    later = json.loads(json.dumps(GOOD))
    later["chapters"] = [{"name": "14_sharding", "seconds": 30.0, "ok": True, "error": None}]
    later["measurements"] = []
    a, b, out = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "merged.json"
    a.write_text(json.dumps(GOOD))
    b.write_text(json.dumps(later))
    assert cli.main(["merge", str(a), str(b), "--output", str(out)]) == 0
    assert [c["name"] for c in json.loads(out.read_text())["chapters"]] == ["05_flops_and_mfu", "14_sharding"]
    out.write_text("mine")
    assert cli.main(["merge", str(a), str(b), "--output", str(out)]) == 2
    assert "exists; give a new file name, or --force" in capsys.readouterr().err
    assert out.read_text() == "mine"
    b.write_text("{")
    assert cli.main(["merge", str(a), str(b), "--output", str(out), "--force"]) == 2
    assert capsys.readouterr().err.startswith("cs336-lec2 merge: b.json: not a valid run record")
