from __future__ import annotations

import pytest

from cs336_lec2 import cli


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
    assert "asks for CUDA" in capsys.readouterr().err


def test_execute_needs_a_destination(capsys):
    assert cli.main(["execute"]) == 2
    assert "--output DIR" in capsys.readouterr().err


def test_execute_rejects_output_with_in_place():
    with pytest.raises(SystemExit):
        cli.main(["execute", "--in-place", "--output", "x"])


def test_execute_unknown_chapter(capsys, repo_root):
    code = cli.main(["execute", "--notebooks", str(repo_root / "notebooks"), "--chapters", "99", "--output", "x"])
    assert code == 2
    assert "no chapter matches '99'" in capsys.readouterr().err


def test_book_reports_a_wrong_root(tmp_path, capsys):
    assert cli.main(["book", "--root", str(tmp_path)]) == 1
    assert "has no _config.yml" in capsys.readouterr().err


def test_browser_is_never_opened_in_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("DISPLAY", ":0")
    assert not cli._can_open_browser()
    monkeypatch.delenv("CI")
    assert cli._can_open_browser()


def test_cli_choices_match_the_package():
    from cs336_lec2 import book, device, presets

    assert cli.DEVICE_CHOICES == device.DEVICE_CHOICES
    assert cli.PRESET_CHOICES == presets.PRESET_CHOICES
    assert tuple(book.EDITIONS) == cli.EDITION_CODES
