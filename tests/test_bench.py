"""``tools/bench.py`` (issue 30 item 4): its arguments and its table, cheaply (the benchmark itself is not a test)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _bench():
    spec = importlib.util.spec_from_file_location("bench", ROOT / "tools" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _bench()


def test_arguments_are_checked_with_one_clear_message(capsys):
    args = bench.parse_args(["ca8978a", "--chapters", "05", "12_mixed_precision", "--skip", "book"])
    assert args.rev == "ca8978a" and args.chapters == ["05", "12_mixed_precision"] and args.skip == ["book"]
    assert not args.suite and bench.parse_args(["HEAD~1", "--suite"]).suite
    for argv, message in ((["HEAD", "--skip", "tests"], "--skip: tests is not a step"),
                          (["HEAD", "--chapters", "5"], "--chapters: 5 is not a chapter"),
                          (["HEAD", "--chapters", "05;rm"], "--chapters: 05;rm is not a chapter"),
                          ([" "], "is not a git revision"),
                          ([], "the following arguments are required: rev")):
        with pytest.raises(SystemExit) as exit_:
            bench.parse_args(argv)
        assert exit_.value.code == 2
        assert message in capsys.readouterr().err, argv


def test_table_has_seconds_and_ratios_and_marks_what_is_missing():
    rows = [("01_napkin_math", 2.0, 4.0), ("15_new_chapter", 3.25, None), ("book from nothing", 30.0, 25.0),
            ("zero on the other side", 1.0, 0.0)]
    table = bench.format_table(rows, "this", "ca8978a")
    lines = table.splitlines()
    assert lines[0].split() == ["this", "ca8978a", "ratio"]
    assert set(lines[1]) <= {"-", " "}
    assert lines[2].split() == ["01_napkin_math", "2.0", "s", "4.0", "s", "0.50×"]
    assert lines[3].split() == ["15_new_chapter", "3.2", "s", "–", "–"]
    assert lines[4].split()[-1] == "1.20×" and lines[5].split()[-1] == "–"
    assert len({len(line) for line in lines[:3]}) == 1  # the columns line up
    assert bench.ratio(None, 1.0) == "–" and bench.ratio(1.0, 3.0) == "0.33×"


def test_make_bench_runs_the_tool_with_a_revision():
    makefile = (ROOT / "Makefile").read_text()
    assert "bench: $(STAMP)" in makefile and "tools/bench.py $(REV)" in makefile
    assert 'test -n "$(REV)"' in makefile


def test_own_work_names_the_slowest_chapter_less_kernel_and_imports():
    line = bench.own_work_line({"01_napkin_math": 5.0, "14_sharding": 12.5}, 0.5, 2.0)
    assert line.endswith("at most 10.0 s (14_sharding)") and "kernel start 0.5 s and imports 2.0 s" in line
