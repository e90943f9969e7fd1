"""The bilingual book: staging helpers, the results page, and a strict build of both editions."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from cs336_lec2.publish.book import EDITIONS, edition_toc, filter_notebook, landing_page, toc_files
from cs336_lec2.publish.cells import edition_notebook
from cs336_lec2.publish.results_page import MARKER, fill_results_page, load_records, render_markdown
from cs336_lec2.publish.sphinx_ext import other_edition_url, unique_scripts

ROOT = Path(__file__).resolve().parent.parent


def test_filter_notebook_keeps_one_language_and_all_code():
    nb = new_notebook(cells=[
        new_markdown_cell("# Title", metadata={"tags": ["lang-en"]}),
        new_markdown_cell("# 标题", metadata={"tags": ["lang-zh"]}),
        new_code_cell("x = 1", metadata={"tags": ["parameters"]}),
        new_code_cell("print(x)"),
    ])
    zh = filter_notebook(nbformat.from_dict(nb), "zh")
    assert [c.source for c in zh.cells] == ["# 标题", "x = 1", "print(x)"]
    en = filter_notebook(nbformat.from_dict(nb), "en")
    assert [c.source for c in en.cells] == ["# Title", "x = 1", "print(x)"]
    with pytest.raises(ValueError, match="keep must be one of"):
        filter_notebook(nb, "fr")


@pytest.mark.parametrize(
    ("page", "other", "url"),
    [("index", "zh", "../zh/index.html"),
     ("notebooks/05_flops_and_mfu", "en", "../../en/notebooks/05_flops_and_mfu.html"),
     ("book/intro", "zh", "../../zh/book/intro.html")],
)
def test_other_edition_url(page, other, url):
    assert other_edition_url(page, other) == url


@pytest.mark.parametrize(("page", "other"), [("", "zh"), ("/abs", "zh"), ("a/../b", "zh"), ("x", ""), ("x", "a/b")])
def test_other_edition_url_rejects_nonsense(page, other):
    with pytest.raises(ValueError):
        other_edition_url(page, other)


def test_toc_lists_the_root_pages_and_chapters():
    files = toc_files(ROOT / "_toc.yml")
    assert files[0] == "book/intro"
    assert "notebooks/05_flops_and_mfu" in files and "book/results" in files
    for lang in EDITIONS:
        for page in files:
            if page.startswith("book/"):
                name = Path(page).name + ".md"
                assert (ROOT / "book" / name).exists() or (ROOT / "book" / lang / name).exists(), (lang, page)


def test_each_edition_keeps_its_half_of_a_bilingual_caption():
    toc = "format: jb-book\nroot: book/intro\nparts:\n- caption: Chapters · 章节\n  chapters:\n  - file: a\n"
    assert "caption: 章节" in edition_toc(toc, "zh")
    assert "caption: Chapters\n" in edition_toc(toc, "en")


def test_chinese_pages_are_not_hard_wrapped():
    cjk = r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]"  # ideographs, CJK and full-width punctuation
    cjk_break = re.compile(cjk + r"[ \t]*\n[ \t]*" + cjk)
    for page in (ROOT / "book" / "zh").glob("*.md"):
        assert not cjk_break.search(page.read_text(encoding="utf-8")), f"{page.name}: a line break renders as a space"


def test_landing_page_offers_both_editions():
    html = landing_page('<svg xmlns="http://www.w3.org/2000/svg"/>')
    assert 'href="en/index.html" hreflang="en"' in html and 'href="zh/index.html" hreflang="zh-CN"' in html


RECORD = {
    "schema": 1,
    "machine": {"device_name": "NVIDIA H100 80GB HBM3", "torch": "2.13.0"},
    "parameters": {"device": "cuda", "preset": "large"},
    "created": "2026-11-22T00:00:00Z",
    "chapters": [{"name": "05_flops_and_mfu", "seconds": 12.5, "ok": True, "error": None}],
    "measurements": [
        {"kind": "matmul", "dtype": "bf16", "m": 16384, "k": 32768, "n": 8192, "flops_per_sec": 7.1e14,
         "mfu": 0.7176, "peak_flops": 989.4e12, "peak_is_estimate": False},
        {"kind": "memory", "label": "D=4 example", "estimate_bytes": 496, "measured_bytes": 496},
        {"kind": "timing", "label": "AdamW step", "seconds": 0.000325},
    ],
}


def test_results_page_renders_any_record(tmp_path):
    records = tmp_path / "results"
    records.mkdir()
    (records / "h100.json").write_text(json.dumps(RECORD))
    page = tmp_path / "results.md"
    page.write_text(f"# Results\n\n{MARKER}\n")
    fill_results_page(page, records, "en")
    text = page.read_text()
    assert "|  | H100 80GB HBM3 |" in text  # machines are the columns, named short
    assert "| size m×k×n | 16384×32768×8192 |" in text
    assert r"| bf16\: measured | 710 TFLOP\/s |" in text and r"| bf16\: dense peak | 989 TFLOP\/s |" in text
    assert r"| bf16\: MFU | 0\.718 |" in text
    assert r"| D\=4 example | 496 B \(1\.00×\) |" in text
    assert "| AdamW step | 325 µs |" in text
    assert (tmp_path / "results_mfu.png").stat().st_size > 1000
    zh = render_markdown(load_records(records), "zh", None)
    assert "## 矩阵乘法" in zh and "bf16：稠密峰值" in zh and "## 计时" in zh


def _results_built_from_a_run(tmp_path, lang: str, *, committed: bool) -> str:
    """The results page of a book built ``--from`` a run of ``RECORD``; ``committed``: that record is also
    in ``book/results`` (how_to_run, step 5)."""
    (tmp_path / "committed").mkdir(exist_ok=True)
    if committed:
        (tmp_path / "committed" / "h100.json").write_text(json.dumps(RECORD))
    run = tmp_path / "h100-run"
    run.mkdir(exist_ok=True)
    (run / "run-record.json").write_text(json.dumps(RECORD))
    page = tmp_path / "results.md"
    page.write_text(MARKER)
    fill_results_page(page, tmp_path / "committed", lang, extra=run / "run-record.json")
    return page.read_text()


def test_results_page_shows_the_run_a_book_is_built_from(tmp_path):
    en = _results_built_from_a_run(tmp_path, "en", committed=False)
    assert r"|  | H100 80GB HBM3 \(h100\-run \(this build\)\) |" in en
    zh = _results_built_from_a_run(tmp_path, "zh", committed=False)
    assert "本次构建" in zh and "this build" not in zh


def test_a_run_already_committed_is_shown_once(tmp_path):
    # how_to_run: step 4 builds --from the run, step 5 commits its record; the next build shows it once
    text = _results_built_from_a_run(tmp_path, "en", committed=True)
    assert "h100-run" not in text and "|  | H100 80GB HBM3 |\n" in text


def test_results_page_without_records_says_how_to_add_one(tmp_path):
    assert "cs336-lec2 execute" in render_markdown([], "en", None)
    page = tmp_path / "results.md"
    page.write_text("no marker")
    with pytest.raises(ValueError, match="must contain the line"):
        fill_results_page(page, tmp_path, "en")


def test_a_broken_record_is_named(tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"bad\.json: not a valid run record"):
        load_records(tmp_path)
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match=r"bad\.json: schema must be 1"):
        load_records(tmp_path)


def test_committed_records_render():
    records = load_records(ROOT / "book" / "results")
    assert records, "commit the record of a real CPU run under book/results/"
    for _, record in records:
        assert any(m["kind"] == "matmul" for m in record["measurements"])
        assert all(0 < m["mfu"] <= 1 for m in record["measurements"] if m["kind"] == "matmul")


@pytest.mark.slow
def test_strict_build_of_both_editions(built_book):
    assert (built_book / "index.html").exists()
    pages = [p for p in toc_files(ROOT / "_toc.yml")]
    for lang, edition in EDITIONS.items():
        for page in pages:
            html = (built_book / lang / f"{page}.html").read_text(encoding="utf-8")
            link = re.search(r'class="cs336-lang-switch-link" href="([^"]+)"', html)
            assert link, f"{lang}/{page}: no language switch"
            target = (built_book / lang / page).parent / link.group(1)
            assert target.resolve() == (built_book / edition.other / f"{page}.html").resolve()
            assert target.exists()
            assert f'lang="{edition.hreflang}"' in html
        # MathJax is served by the book itself, never by a CDN.
        assert (built_book / lang / "_static" / "mathjax" / "tex-chtml.js").exists()
        for html_file in (built_book / lang).rglob("*.html"):
            scripts = re.findall(r'<script[^>]+src="([^"]+)"', html_file.read_text(encoding="utf-8"))
            remote = [s for s in scripts if s.startswith(("http:", "https:", "//"))]
            assert not remote, f"{html_file.name} loads {remote}"


@pytest.mark.slow
def test_every_page_names_an_icon_that_exists(built_book):
    """A page without one makes the browser fetch /favicon.ico from the server root: a 404 (and a console error)."""
    pages = [p for p in built_book.rglob("*.html") if "_static" not in p.relative_to(built_book).parts]
    assert len(pages) > 2 * len(toc_files(ROOT / "_toc.yml"))
    for page in pages:
        icon = re.search(r'<link rel="icon" href="([^"]+)"', page.read_text(encoding="utf-8"))
        assert icon, f"{page.relative_to(built_book)} names no icon"
        href = icon.group(1)
        assert href.startswith("data:image/svg+xml,") or (page.parent / href).is_file(), \
            f"{page.relative_to(built_book)}: {href} is missing"


@pytest.mark.slow
def test_edition_index_forwards_to_the_first_page(built_book):
    first = toc_files(ROOT / "_toc.yml")[0]
    for lang, edition in EDITIONS.items():
        html = (built_book / lang / "index.html").read_text(encoding="utf-8")
        assert f'<html lang="{edition.hreflang}">' in html
        assert f'url={first}.html"' in html and f'href="{first}.html"' in html
        assert (built_book / lang / f"{first}.html").is_file()


def test_redirect_target_is_read_from_jupyter_books_page():
    from cs336_lec2.publish.book import BookBuildError, _redirect_target, edition_redirect_page

    assert _redirect_target('<meta http-equiv="Refresh" content="0; url=book/intro.html" />') == "book/intro.html"
    with pytest.raises(BookBuildError, match="not Jupyter Book's redirect page"):
        _redirect_target("<html><body>hello</body></html>")
    svg = (ROOT / "book" / "_static" / "favicon.svg").read_text(encoding="utf-8")
    page = edition_redirect_page(EDITIONS["zh"], "book/intro.html", svg)
    assert _redirect_target(page) == "book/intro.html" and 'lang="zh-CN"' in page
    # The icon travels inside the page (percent-encoded), so forwarding cancels no request for it.
    icon = re.search(r'<link rel="icon" href="data:image/svg\+xml,([^"]+)"', page).group(1)
    assert unquote(icon) == svg.strip()


@pytest.mark.slow
def test_each_edition_shows_only_its_language(built_book):
    en = (built_book / "en" / "notebooks" / "01_napkin_math.html").read_text(encoding="utf-8")
    zh = (built_book / "zh" / "notebooks" / "01_napkin_math.html").read_text(encoding="utf-8")
    body = re.compile(r'<article class="bd-article">(.*)</article>', re.S)
    en_body, zh_body = body.search(en).group(1), body.search(zh).group(1)
    cjk = re.compile(r"[\u4e00-\u9fff]")
    # English pages keep only the language link in Chinese (and CJK inside code outputs, if any).
    assert len(cjk.findall(en_body)) < 0.01 * len(en_body)
    assert len(cjk.findall(zh_body)) > 100


def test_repeated_scripts_are_dropped():
    from sphinx.builders.html._assets import _JavaScript

    scripts = [_JavaScript(None, body="const A = 1"), _JavaScript("", body="const A = 1"),
               _JavaScript("x.js"), "x.js", _JavaScript("x.js", **{"async": "async"}), _JavaScript("y.js")]
    kept = unique_scripts(scripts)
    assert [getattr(s, "filename", s) for s in kept] == [None, "x.js", "x.js", "y.js"]


def test_results_page_renders_a_gpu_copy_of_the_committed_record_beside_it(tmp_path):
    """A GPU record (machine cuda) renders next to the CPU one without code changes (issue 15 item 7)."""
    committed = json.loads((ROOT / "book" / "results" / "cpu-amd-epyc-2-threads.json").read_text())
    gpu = json.loads(json.dumps(committed))
    gpu["machine"].update(device_type="cuda", device_name="NVIDIA H100 80GB HBM3", cuda="12.8")
    gpu["parameters"] = {"device": "cuda", "preset": "large", "requested_device": "auto", "requested_preset": "auto"}
    gpu["chapters"][1].update(ok=False, error="cell [3] raised RuntimeError: boom")
    records = tmp_path / "results"
    records.mkdir()
    (records / "cpu.json").write_text(json.dumps(committed))
    (records / "h100.json").write_text(json.dumps(gpu))
    page = tmp_path / "results.md"
    page.write_text(MARKER)
    fill_results_page(page, records, "en")
    text = page.read_text()
    n = len(committed["chapters"])
    assert "|  | AMD EPYC CPU | H100 80GB HBM3 |" in text
    assert re.search(r"\| preset \| small( \\\(auto\\\))? \| large \|", text), text
    assert rf"| chapters ok \/ run | {n} \/ {n} | {n - 1} \/ {n} |" in text
    fp32 = next(m["mfu"] for m in committed["measurements"] if m["kind"] == "matmul" and m["dtype"] == "fp32")
    shown = f"{fp32:.3f}".replace(".", "\\.")
    assert f"| fp32\\: MFU | {shown} | {shown} |" in text
    zh = render_markdown(load_records(records), "zh", None)
    assert rf"| 成功章节 \/ 运行章节 | {n} \/ {n} | {n - 1} \/ {n} |" in zh


def _html(markdown: str) -> str:
    """The HTML that MyST's parser makes of ``markdown`` (tables and $-math on, as in the book)."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    return MarkdownIt("commonmark").enable("table").use(dollarmath_plugin).render(markdown)


def test_results_page_escapes_every_cell(tmp_path):
    """Issue 20.11: a device name holding <img onerror=...> ran in the browser; |, newlines and $ broke tables."""
    evil = json.loads(json.dumps(RECORD))
    evil["machine"]["device_name"] = "<img src=x onerror=alert(1)> | $x^2$ \n<script>alert(2)</script>"
    evil["measurements"][1]["label"] = "a | b\n| c | `code` *em* [link](javascript:alert(3)) {{ subst }}"
    evil["measurements"][2]["label"] = "<b>bold</b> $$math$$"
    records = tmp_path / "results"
    records.mkdir()
    (records / "evil.json").write_text(json.dumps(evil))
    run = tmp_path / "<svg onload=alert(4)>"
    run.mkdir()
    (run / "run-record.json").write_text(json.dumps(RECORD))
    markdown = render_markdown([*load_records(records), (f"{run.name} (this build)", RECORD)], "en", None)
    html = _html(markdown)
    for raw in ("<img", "<script", "<svg", "<b>", "<a ", "<code>", "<em>", 'class="math'):
        assert raw not in html, raw
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "$x^2$" in html
    for table in re.findall(r"<table>.*?</table>", html, re.DOTALL):
        widths = {row.count("<td") + row.count("<th") for row in re.findall(r"<tr>.*?</tr>", table, re.DOTALL)}
        assert widths == {3}, widths  # the label column and two machines in every row: no cell split by a |


def test_results_page_plot_takes_a_dollar_in_a_device_name(tmp_path):
    """Issue 20.15: a $...$ device name crashed matplotlib's math parser."""
    from cs336_lec2.publish.results_page import plot_mfu

    record = json.loads(json.dumps(RECORD))
    record["machine"]["device_name"] = "GPU $x^$ {broken"
    assert plot_mfu([("r", record)], tmp_path / "p.png", "en") and (tmp_path / "p.png").stat().st_size > 1000


def _run_folder(tmp_path, record: dict | None, notebooks: list[str]) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    for name in notebooks:
        (run / name).write_bytes((ROOT / "notebooks" / name).read_bytes())
    if record is not None:
        full = {**RECORD, "measurements": [], **record}
        (run / "run-record.json").write_text(json.dumps(full))
    return run


def test_book_from_a_run_takes_only_the_chapters_that_ran_ok(tmp_path):
    """A failed or unrun chapter is taken from notebooks/, with a warning (issue 15 item 4)."""
    from cs336_lec2.publish.book import chapters_from_run

    record = {"chapters": [{"name": "01_napkin_math", "ok": True, "error": None, "seconds": 1.0},
                           {"name": "02_floats", "ok": False, "error": "cell [4] raised ValueError: x", "seconds": 1}]}
    run = _run_folder(tmp_path, record, ["01_napkin_math.ipynb", "02_floats.ipynb", "03_tensors.ipynb"])
    chosen, warnings = chapters_from_run(ROOT, run)
    assert chosen == {"01_napkin_math.ipynb": run / "01_napkin_math.ipynb"}
    assert any(w.startswith("02_floats FAILED in that run (cell [4]") for w in warnings)
    assert any(w.startswith("03_tensors was not run there") for w in warnings)  # a stale notebook is ignored


def test_book_from_a_folder_without_record_warns_and_an_empty_one_is_refused(tmp_path):
    from cs336_lec2.publish.book import chapters_from_run

    run = _run_folder(tmp_path, None, ["01_napkin_math.ipynb"])
    chosen, warnings = chapters_from_run(ROOT, run)
    assert list(chosen) == ["01_napkin_math.ipynb"] and "no run-record.json" in warnings[0]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="holds no executed chapters"):
        chapters_from_run(ROOT, empty)


def test_book_from_a_hand_edited_record_is_one_clear_error(tmp_path, capsys):
    """Issue 20.14: "ok": "false", machine a string, measurements null... gave tracebacks (exit 1)."""
    from cs336_lec2.publish import cli
    from cs336_lec2.publish.book import chapters_from_run

    record = {"chapters": [{"name": "01_napkin_math", "ok": "false", "error": None, "seconds": 1.0}]}
    run = _run_folder(tmp_path, record, ["01_napkin_math.ipynb"])
    with pytest.raises(ValueError, match=r"^run-record\.json: chapters\[0\]\.ok must be true or false, got 'false'$"):
        chapters_from_run(ROOT, run)
    (run / "run-record.json").write_text(json.dumps({**RECORD, "machine": "H100", "measurements": None}))
    assert cli.main(["book", "--root", str(ROOT), "--from", str(run), "--build-dir", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["cs336-lec2 book: run-record.json: machine must be an object, got str 'H100'"]
    assert not (tmp_path / "b" / "html" / "index.html").exists()


def test_book_from_a_notebook_without_cells_falls_back_with_a_warning(tmp_path):
    """Issue 20.14/15: a corrupt notebook in --from crashed the build; it is named and the committed one used."""
    from cs336_lec2.publish.book import chapters_from_run

    record = {"chapters": [{"name": n, "ok": True, "error": None, "seconds": 1.0}
                           for n in ("01_napkin_math", "02_floats")]}
    run = _run_folder(tmp_path, record, ["01_napkin_math.ipynb", "02_floats.ipynb"])
    (run / "01_napkin_math.ipynb").write_text('{"metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    (run / "02_floats.ipynb").write_text('{"cells": [')
    chosen, warnings = chapters_from_run(ROOT, run)
    assert chosen == {}
    assert any(w.startswith("01_napkin_math: its notebook there is unreadable (") for w in warnings)
    assert any(w.startswith("02_floats: its notebook there is unreadable (") for w in warnings)
    (run / "run-record.json").unlink()
    chosen, warnings = chapters_from_run(ROOT, run)
    assert chosen == {} and sum("unreadable" in w for w in warnings) == 2


def test_build_book_refuses_an_empty_build_dir(tmp_path, monkeypatch):
    """Issue 20.2: book --build-dir "" wrote html/ and stage/ into the working folder."""
    from cs336_lec2.publish.book import build_book

    monkeypatch.chdir(tmp_path)
    for empty in ("", "  "):
        with pytest.raises(ValueError, match=r"^build_dir: .* is not a folder name"):
            build_book(ROOT, build_dir=empty)
    assert list(tmp_path.iterdir()) == []


# ---- newcomer paper cuts (issue 15 items 7 and 8): the documented commands work ----

def _pinned() -> dict[str, str]:
    lines = [line for line in (ROOT / "requirements.txt").read_text().splitlines() if line and not line.startswith("#")]
    return dict(line.lower().replace("_", "-").split("==") for line in lines)


def test_the_documented_jupyter_command_is_installed_by_requirements():
    docs = {p: p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *ROOT.glob("book/*/how_to_run.md")]}
    assert all("jupyter lab editions/" in text for text in docs.values())  # make editions writes them
    assert "jupyterlab" in _pinned() and "jupyter-server" in _pinned()


def test_contributor_tools_live_in_the_repository(tmp_path):
    import subprocess
    import sys

    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert "../shared" not in contributing and "tools/nbcheck.py" in contributing
    for tool in set(re.findall(r"\btools/[\w.-]+\.(?:py|sh)", contributing)):
        assert (ROOT / tool).is_file(), tool
    nbcheck = [sys.executable, str(ROOT / "tools" / "nbcheck.py")]
    good = subprocess.run([*nbcheck, str(ROOT / "notebooks" / "01_napkin_math.ipynb")], capture_output=True, text=True)
    assert good.returncode == 0, good.stdout
    bad = tmp_path / "99_bad.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("x = 1")]), bad)
    broken = subprocess.run([*nbcheck, str(bad)], capture_output=True, text=True)
    assert broken.returncode == 1 and "0 cells tagged 'parameters'" in broken.stdout


def test_the_readme_example_output_is_ignored_by_git():
    import subprocess

    for path in ("runs/h100/run-record.json", "runs/h100/05_flops_and_mfu.ipynb", ".wheelhouse/x.whl"):
        assert subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0, path


def test_the_set_up_says_what_torch_a_plain_index_gives():
    """requirements.txt claimed torch==2.13.0 'resolves to the CPU wheel'; on PyPI it is the CUDA build."""
    requirements = (ROOT / "requirements.txt").read_text()
    assert "resolves to the CPU wheel" not in requirements and "CUDA build" in requirements
    cpu_index = 'PIP_ARGS="--extra-index-url https://download.pytorch.org/whl/cpu"'
    for doc in (ROOT / "README.md", ROOT / "book" / "en" / "how_to_run.md", ROOT / "book" / "zh" / "how_to_run.md"):
        assert cpu_index in doc.read_text(encoding="utf-8"), doc
    makefile = (ROOT / "Makefile").read_text()
    assert "PIP_ARGS ?=" in makefile and "pip install --quiet $(PIP_ARGS) -r requirements.txt" in makefile


# ---- issue 24: Chinese search (item 3), one-language Colab notebooks (item 4), a run's pages (item 8) ----

def test_the_glossary_gives_the_chinese_search_its_words():
    from cs336_lec2.publish.zh_search import glossary_terms

    terms = glossary_terms((ROOT / "book" / "zh" / "glossary.md").read_text(encoding="utf-8"))
    for word in ("混合精度", "混合精度训练", "激活值", "张量", "优化器状态", "浮点运算次数", "显存带宽", "内存带宽"):
        assert word in terms, word
    assert "每秒浮点运算次数" in terms and not any("（" in t or "/" in t or " " in t for t in terms)
    table = "| English | 中文 | note |\n|---|---|---|\n| a | 甲乙（A） / 丙丁 | x |\n| b | 戊 | |\n"
    assert glossary_terms(table)[1:] == ["甲乙", "丙丁"]  # after EXTRA_WORDS; one-character terms are dropped
    definitions = "# 术语表\n\n甲乙（A）、丙丁\n: 释义。\n\n戊己 / 庚\n: 释义。\n"
    assert glossary_terms(definitions)[1:] == ["甲乙", "丙丁", "戊己"]


def test_the_chinese_index_also_holds_the_glossary_terms_inside_longer_words(tmp_path):
    from cs336_lec2.publish.zh_search import SearchChineseGlossary, jieba_available, write_user_dict

    if not jieba_available():
        pytest.fail("jieba is not installed: the zh edition's search cannot find Chinese words (requirements.txt)")
    words = write_user_dict(["混合精度", "激活值", "混合精度训练"], tmp_path / "dict.txt")
    search = SearchChineseGlossary({"dict": str(words)})
    split = search.split("本章讲混合精度训练与激活值")
    assert {"混合精度训练", "混合精度", "激活值"} <= set(split)
    assert "splitQuery" in search.js_splitter_code


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_run_note_names_the_machine_or_the_fallback(lang):
    from cs336_lec2.publish.pages import run_note

    record = {"machine": {"device_name": "NVIDIA H100 80GB HBM3"}, "parameters": {"device": "cuda", "preset": "large"},
              "created": "2026-11-22T10:00:00Z",
              "chapters": [{"name": "01_a", "ok": True}, {"name": "02_b", "ok": False, "error": "cell [3] raised *x*"}]}
    ok = run_note(record, "h100", "01_a", True, lang)
    assert ok.startswith(":::{note}\n:class: cs336-run-note cs336-run-ok\n") and ok.endswith(":::\n")
    assert "NVIDIA H100 80GB HBM3" in ok and "2026-11-22 10:00:00 UTC" in ok and "large" in ok and "`h100`" in ok
    failed = run_note(record, "h100", "02_b", False, lang)
    assert "cs336-run-failed" in failed and r"cell \[3\] raised \*x\*" in failed and failed.startswith(":::{warning}")
    assert "cs336-run-missing" in run_note(record, "h100", "03_c", False, lang)
    assert "cs336-run-unknown" in run_note(None, "h100", "01_a", True, lang)
    with pytest.raises(ValueError, match="lang must be one of"):
        run_note(record, "h100", "01_a", True, "fr")


def test_run_note_goes_under_the_chapter_title():
    from cs336_lec2.publish.pages import add_run_note

    nb = new_notebook(cells=[new_code_cell("x = 1"), new_markdown_cell("# 1. Title\n\nIntro.")])
    add_run_note(nb, ":::{note}\nN\n:::\n")
    assert nb.cells[1].source == "# 1. Title\n\n:::{note}\nN\n:::\n\nIntro."


@pytest.mark.slow
def test_each_editions_colab_copy_is_a_notebook_in_its_language_only(built_book):
    """The copies the workflow publishes (``_build/colab`` = the branch's root; the Colab buttons that open
    them, where a repository is set: tests/test_repository_links.py)."""
    published = built_book.parent / "colab"
    cjk = re.compile(r"[\u4e00-\u9fff]")
    for lang, edition in EDITIONS.items():
        for chapter in [p for p in toc_files(ROOT / "_toc.yml") if p.startswith("notebooks/")]:
            nb = nbformat.read(published / lang / f"{chapter}.ipynb", as_version=4)
            prose = [c for c in nb.cells if c.cell_type == "markdown"]
            tags = {t for c in nb.cells for t in c.metadata.get("tags", [])}
            assert prose and f"lang-{edition.other}" not in tags and f"lang-{lang}" in tags, (lang, chapter)
            chinese = sum(len(cjk.findall(c.source)) for c in prose)
            assert (chinese > 100) if lang == "zh" else (chinese == 0), (lang, chapter, chinese)
            source = edition_notebook(nbformat.read(ROOT / f"{chapter}.ipynb", as_version=4), lang)
            # the edition's code (its words, its comments), less the one-line install a Colab copy opens with
            # (tests/test_repository_links.py) and the "# @title" line of a folded cell (Colab's form view)
            shown = [re.sub(r"\A# @title [^\n]*\n", "", c.source) for c in nb.cells
                     if c.cell_type == "code" and "install" not in c.metadata.get("tags", [])]
            assert shown == [c.source for c in source.cells
                             if c.cell_type == "code" and "remove-cell" not in c.metadata.get("tags", [])]


@pytest.mark.slow
def test_the_chinese_search_index_holds_chinese_words(built_book):
    text = (built_book / "zh" / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(text[text.index("(") + 1:text.rindex(")")])
    pages = {word: {index["docnames"][i] for i in ([ids] if isinstance(ids, int) else ids)}
             for word, ids in index["terms"].items()}
    titles = {word: {index["docnames"][i] for i in ([ids] if isinstance(ids, int) else ids)}
              for word, ids in index["titleterms"].items()}
    for word in ("混合", "精度", "混合精度", "激活值", "张量", "优化器状态"):
        assert word in pages or word in titles, word
    assert "notebooks/12_mixed_precision" in titles["混合精度"]
    assert "notebooks/03_tensors" in titles["张量"]
    assert {"notebooks/10_memory_accounting", "notebooks/13_transformer_accounting"} <= titles["激活值"]


@pytest.mark.slow
def test_a_book_built_from_a_run_says_so_on_every_chapter_page(tmp_path, small_book_repo):
    """``cs336-lec2 book --from runs/<machine>`` (issue 24 item 8): the run's chapters carry its device
    and date, a chapter that failed there says so and shows the committed notebook."""
    import shutil

    from cs336_lec2.publish.book import build_book

    chapters = ["01_napkin_math", "02_floats", "03_tensors"]
    root = small_book_repo(chapters)
    run = tmp_path / "runs" / "h100"
    run.mkdir(parents=True)
    for name in chapters[:2]:
        shutil.copy2(ROOT / "notebooks" / f"{name}.ipynb", run)
    record = json.loads(json.dumps(RECORD))
    record["chapters"] = [{"name": chapters[0], "seconds": 3.0, "ok": True, "error": None},
                          {"name": chapters[1], "seconds": 4.0, "ok": True, "error": None},
                          {"name": chapters[2], "seconds": 1.0, "ok": False,
                           "error": "cell [5] raised RuntimeError: CUDA out of memory"}]
    (run / "run-record.json").write_text(json.dumps(record), encoding="utf-8")
    warnings: list[str] = []
    html = build_book(root, build_dir=tmp_path / "build", notebooks_from=run, strict=True, warn=warnings.append)
    assert warnings == [f"{chapters[2]} FAILED in that run (cell [5] raised RuntimeError: CUDA out of memory); "
                        "the committed notebook is used"]
    note = re.compile(r'class="cs336-run-note cs336-run-(\w+) admonition[^"]*">(.*?)</div>', re.S)
    for lang in EDITIONS:
        for name in chapters:
            page = (html / lang / "notebooks" / f"{name}.html").read_text(encoding="utf-8")
            found = note.findall(page)
            assert len(found) == 1, (lang, name, found)
            kind, body = found[0]
            assert "NVIDIA H100 80GB HBM3" in body and "2026-11-22" in body and "h100" in body, body
            assert kind == ("failed" if name == chapters[2] else "ok"), (lang, name, kind)
        failed = (html / lang / "notebooks" / f"{chapters[2]}.html").read_text(encoding="utf-8")
        assert "CUDA out of memory" in failed


def test_the_book_workflow_builds_from_a_refresh_run_and_publishes_the_colab_notebooks():
    import yaml

    book = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text(encoding="utf-8"))
    refresh = yaml.safe_load((ROOT / ".github" / "workflows" / "refresh.yml").read_text(encoding="utf-8"))
    assert "from_run" in book[True]["workflow_dispatch"]["inputs"]  # YAML reads the key `on` as True
    steps = book["jobs"]["build"]["steps"]
    fetch = next(s for s in steps if s.get("uses", "").startswith("actions/download-artifact"))
    uploaded = next(s for s in refresh["jobs"]["execute"]["steps"]
                    if s.get("uses", "").startswith("actions/upload-artifact"))
    assert fetch["with"]["name"] == uploaded["with"]["name"] and fetch["with"]["path"] == "runs/gpu"
    assert "runs/gpu/run-record.json" in uploaded["with"]["path"]
    build = next(s["run"] for s in steps if s.get("name") == "Build the book")
    assert "cs336-lec2 book --strict ${FROM_RUN:+--from runs/gpu}" in build
    publish = next(s["run"] for s in steps if "colab" in s.get("name", "").lower())
    assert "cd _build/colab" in publish and "colab_branch" in publish and "git push" in publish
    assert book["permissions"]["contents"] == "write" and book["permissions"]["actions"] == "read"


def test_results_page_takes_a_nul_in_a_label():
    record = json.loads(json.dumps(RECORD))
    record["measurements"][2]["label"] = "a\x00b 12"
    assert r"| a b 12 | 325 µs |" in render_markdown([("r", record)], "en", None)


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_answer_is_in_plain_view(built_book, lang):
    # Issue 27: an exercise's answer (its prose and its code) sits inside one "Show answer" dropdown,
    # which sphinx-togglebutton keeps closed until a click; nothing of it is on the page outside one.
    from bs4 import BeautifulSoup

    title = "Show answer" if lang == "en" else "显示答案"
    pages = sorted((built_book / lang / "notebooks").glob("[0-9][0-9]_*.html"))
    assert len(pages) == 14
    for page in pages:
        article = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").select_one("article")
        dropdowns = article.select(".admonition.dropdown.cs336-answer")
        assert dropdowns, f"{page.name}: no answer dropdown"
        for box in dropdowns:
            assert box.select_one(".admonition-title").get_text(strip=True) == title
        for cell in article.select(".tag_answer"):
            assert cell.find_parent(class_="cs336-answer"), f"{page.name}: answer code outside its dropdown"
        label = "Answer." if lang == "en" else "答案"
        for strong in article.find_all("strong", string=label):
            assert strong.find_parent(class_="cs336-answer"), f"{page.name}: answer prose in plain view"


def test_inline_code_breaks_only_between_the_parts_of_a_name():
    from cs336_lec2.publish.sphinx_ext import breakable_names

    body = '<p><code class="docutils literal notranslate"><span class="pre">cs336_lec2.flops.f(x=1)</span></code></p>'
    assert breakable_names(body) == ('<p><code class="docutils literal notranslate"><span class="pre">'
                                     'cs336_<wbr>lec2.<wbr>flops.<wbr>f(<wbr>x=<wbr>1)</span></code></p>')
    code_block = '<div class="highlight"><pre><span class="n">a.b</span></pre></div>'
    assert breakable_names(code_block) == code_block, "code blocks keep their text as it is"


@pytest.mark.slow
def test_the_download_button_serves_the_editions_reader_notebook(built_book):
    """Issue 35 item 2: the page's download button (``_sources/notebooks/NAME.ipynb``) gave the staged copy, with
    every answer in raw MyST. It now serves the edition's reader notebook: one language, every box rendered,
    answers in a <details> with their code folded and unrun."""
    for lang, edition in EDITIONS.items():
        sources = sorted((built_book / lang / "_sources" / "notebooks").glob("*.ipynb"))
        assert len(sources) == len([p for p in toc_files(ROOT / "_toc.yml") if p.startswith("notebooks/")])
        for path in sources:
            page = (built_book / lang / "notebooks" / f"{path.stem}.html").read_text(encoding="utf-8")
            assert f'href="../_sources/notebooks/{path.name}"' in page, path.name
            nb = nbformat.read(path, as_version=4)
            tags = {t for c in nb.cells for t in c.metadata.get("tags", [])}
            assert f"lang-{edition.other}" not in tags, (lang, path.name)
            for cell in nb.cells:
                if cell.cell_type == "markdown":
                    assert not re.search(r"[`:]{3}\{|:class:", cell.source), (lang, path.name, cell.source[:80])
                    if "answer" in cell.metadata.get("tags", []):
                        assert cell.source.startswith("<details>") and cell.source.endswith("</details>")
                elif "answer" in cell.metadata.get("tags", []):
                    assert cell.metadata["jupyter"]["source_hidden"] and not cell.outputs
                elif cell.cell_type == "code" and "from cs336_lec2" in cell.source:
                    assert f"from cs336_lec2.{lang} import *" in cell.source
