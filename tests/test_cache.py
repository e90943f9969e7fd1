"""The book build redoes only what changed (``publish/cache.py``, issue 30 item 2), and always what changed.

Unit tests of the content digests, the folder sync and the stamps, then one real build of a two-chapter
book: built from nothing, built again with nothing changed (Sphinx is not run), after one cell and a
chapter title changed (both show up, the title in the other chapter's navigation too), then after one
more cell changed (its page shows it; a page that did not change is not rewritten).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from cs336_lec2.publish import cache

ROOT = Path(__file__).resolve().parent.parent


def _tree(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def test_digest_follows_content_names_and_missing_files_not_mtimes(tmp_path):
    tree = _tree(tmp_path / "a", {"x.txt": "one", "sub/y.txt": "two"})
    before = cache.digest([tree])
    os.utime(tree / "x.txt", (1, 1))  # an mtime alone changes nothing
    assert cache.digest([tree]) == before
    (tree / "x.txt").write_text("One")
    assert cache.digest([tree]) != before
    (tree / "x.txt").write_text("one")
    assert cache.digest([tree]) == before
    (tree / "sub" / "y.txt").rename(tree / "sub" / "z.txt")
    assert cache.digest([tree]) != before
    missing = tmp_path / "nothing.txt"
    assert cache.digest([missing]) != cache.digest([])  # a missing input that appears later must rebuild
    assert cache.digest([tree], "en") != cache.digest([tree], "zh")
    assert cache.code_key(strict=True) != cache.code_key(strict=False)


def test_sync_tree_writes_only_what_differs_and_removes_the_rest(tmp_path):
    source = _tree(tmp_path / "src", {"same.txt": "a", "changed.txt": "new", "sub/new.txt": "n", "dir/f": "d"})
    target = _tree(tmp_path / "dst", {"same.txt": "a", "changed.txt": "old", "gone.txt": "g", "old/deep/f": "x",
                                      "dir": "a file where a folder belongs", cache.STAMP: "{}"})
    os.utime(target / "same.txt", (1000, 1000))
    # written: changed.txt, sub/new.txt, dir/f; removed: gone.txt, old/deep/f, old/deep, old, the file dir
    assert cache.sync_tree(source, target) == 8
    found = {p.relative_to(target).as_posix(): p.read_text() for p in target.rglob("*") if p.is_file()}
    assert found == {"same.txt": "a", "changed.txt": "new", "sub/new.txt": "n", "dir/f": "d", cache.STAMP: "{}"}
    assert (target / "same.txt").stat().st_mtime == 1000  # untouched: Sphinx will not re-read it
    assert (target / "changed.txt").stat().st_mtime > time.time() - 60  # a new mtime: Sphinx re-reads it
    assert cache.sync_tree(source, target) == 0
    with pytest.raises(FileNotFoundError, match=r"source: .* is not a directory"):
        cache.sync_tree(tmp_path / "absent", target)


def test_restage_skips_only_when_inputs_and_staged_files_are_unchanged(tmp_path):
    calls = []

    def make(folder: Path) -> Path:
        calls.append(folder)
        return _tree(folder, {"page.md": f"staged {len(calls)}"})

    stage = tmp_path / "stage" / "en"
    assert cache.restage(stage, "inputs-1", make) is True
    assert cache.restage(stage, "inputs-1", make) is False and len(calls) == 1
    assert cache.restage(stage, "inputs-2", make) is True and (stage / "page.md").read_text() == "staged 2"
    (stage / "page.md").write_text("edited by hand")  # the staged files no longer match their stamp
    assert cache.restage(stage, "inputs-2", make) is True and (stage / "page.md").read_text() == "staged 3"
    assert not [p for p in stage.parent.iterdir() if p.name != "en"]  # the staging aside is gone


def test_stage_inputs_cover_the_book_the_notebooks_the_run_and_the_code(tmp_path):
    root = _tree(tmp_path / "repo", {"_config.yml": "c", "_toc.yml": "t", "book/intro.md": "i",
                                     "book/en/a.md": "e", "book/zh/a.md": "z", "book/_static/s.css": "s",
                                     "notebooks/01_x.ipynb": "{}"})
    base = cache.stage_inputs(root, "en", None)
    for name in ("_config.yml", "_toc.yml", "book/intro.md", "book/en/a.md", "book/_static/s.css",
                 "notebooks/01_x.ipynb"):
        original = (root / name).read_text()
        (root / name).write_text(original + " changed")
        assert cache.stage_inputs(root, "en", None) != base, name
        (root / name).write_text(original)
    assert cache.stage_inputs(root, "en", None) == base
    (root / "book" / "results").mkdir()
    (root / "book" / "results" / "r.json").write_text("{}")
    assert cache.stage_inputs(root, "en", None) != base
    run = _tree(tmp_path / "runs" / "h100", {"01_x.ipynb": "{}"})
    assert cache.stage_inputs(root, "en", run) != cache.stage_inputs(root, "en", None)


def test_a_failed_build_leaves_no_stamp_so_the_next_one_starts_fresh(tmp_path):
    out = tmp_path / "sphinx" / "en"
    assert cache.needs_fresh_env(out, strict=True) is True
    assert not cache.up_to_date(out, strict=True)
    cache.built(out, strict=True)
    assert not cache.up_to_date(out, strict=True)  # no HTML there yet
    _tree(out, {"_build/html/index.html": "<html>"})
    assert cache.up_to_date(out, strict=True) and not cache.up_to_date(out, strict=False)
    assert cache.needs_fresh_env(out, strict=True) is False
    assert not cache.up_to_date(out, strict=True)  # cleared until built() says the build succeeded
    assert cache.needs_fresh_env(out, strict=True) is True


def test_every_page_is_written_when_a_reread_page_changes_its_title_headings_or_labels():
    class Text(str):
        def astext(self) -> str:
            return str(self)

    env = SimpleNamespace(found_docs={"a", "b", "c"}, titles={"b": Text("Floats")}, tocs={"b": Text("Floats Goals")},
                          domaindata={"std": {"labels": {"goals": ("b", "id1", "Goals")}, "anonlabels": {}}})
    app = SimpleNamespace()
    cache._note_reads(app, env, [])
    assert cache._write_every_page(app, env) is None
    cache._note_reads(app, env, ["b"])
    assert cache._write_every_page(app, env) is None  # a cell changed: only its page is written
    for change in (lambda: env.titles.update(b=Text("Floats, renamed")),
                   lambda: env.tocs.update(b=Text("Floats Aims")),
                   lambda: env.domaindata["std"]["labels"].pop("goals"),
                   lambda: env.domaindata["std"]["anonlabels"].update(new=("b", "id2")),
                   lambda: env.titles.update(d=Text("A new page"))):
        cache._note_reads(app, env, ["b", "d"])
        change()
        assert cache._write_every_page(app, env) == ["a", "b", "c"]


@pytest.mark.slow
def test_a_rebuild_shows_a_changed_cell_and_title_and_skips_sphinx_when_nothing_changed(
        tmp_path, monkeypatch, small_book_repo):
    from cs336_lec2.publish import book

    chapters = ["01_napkin_math", "02_floats"]
    root = small_book_repo(chapters)
    build = tmp_path / "build"
    html = book.build_book(root, build_dir=build, languages=("en",), strict=True)
    page = html / "en" / "notebooks" / f"{chapters[1]}.html"
    assert "A changed cell" not in page.read_text(encoding="utf-8")

    started = []
    start_build = cache.start_build
    monkeypatch.setattr(book, "start_build", lambda *a: started.append(a) or start_build(*a))
    book.build_book(root, build_dir=build, languages=("en",), strict=True)
    assert started == []  # nothing changed: no Sphinx at all

    path = root / "notebooks" / f"{chapters[1]}.ipynb"
    nb = nbformat.read(path, as_version=4)
    heading = next(c for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("# ")
                   and "lang-en" in c.metadata.get("tags", []))
    heading.source = "# Floats, renamed for the test\n" + heading.source.split("\n", 1)[-1]
    cell = next(c for c in nb.cells if c.cell_type == "markdown" and "lang-en" in c.metadata.get("tags", [])
                and c is not heading)
    cell.source += "\n\nA changed cell."
    nbformat.write(nb, path)
    book.build_book(root, build_dir=build, languages=("en",), strict=True)
    assert len(started) == 1 and "--all" not in started[0][0]  # Sphinx ran, on its kept environment
    assert "A changed cell." in page.read_text(encoding="utf-8")
    cell.source += " And another."  # a cell alone: its page is written, the others are not
    nbformat.write(nb, path)
    untouched = html / "en" / "book" / "glossary.html"
    written = untouched.stat().st_mtime_ns
    book.build_book(root, build_dir=build, languages=("en",), strict=True)
    assert "A changed cell. And another." in page.read_text(encoding="utf-8")
    assert untouched.stat().st_mtime_ns == written
    assert "A changed cell." in page.read_text(encoding="utf-8")
    other = (html / "en" / "notebooks" / f"{chapters[0]}.html").read_text(encoding="utf-8")
    assert "Floats, renamed for the test" in other  # the navigation of a page that did not change
    # A script edited alone (no page changed): Sphinx 7.4 would keep the old copy; the rebuild serves the new one.
    script = root / "book" / "_static" / "calculator" / "formulas.js"
    script.write_text(script.read_text(encoding="utf-8") + "\n// edited for the test\n", encoding="utf-8")
    book.build_book(root, build_dir=build, languages=("en",), strict=True)
    served = html / "en" / "_static" / "calculator" / "formulas.js"
    assert served.read_text(encoding="utf-8").endswith("// edited for the test\n")


def test_refresh_static_copies_what_is_missing_or_differs_and_nothing_else(tmp_path):
    static = _tree(tmp_path / "static", {"a.js": "new", "sub/b.css": "same", "c.js": "added"})
    built = _tree(tmp_path / "html_static", {"a.js": "old", "sub/b.css": "same", "theme.css": "sphinx's"})
    kept = (built / "sub" / "b.css").stat().st_mtime_ns
    assert cache.refresh_static(static, built) == 2
    assert (built / "a.js").read_text() == "new" and (built / "c.js").read_text() == "added"
    assert (built / "sub" / "b.css").stat().st_mtime_ns == kept and (built / "theme.css").read_text() == "sphinx's"
    assert cache.refresh_static(static, built) == 0 and cache.refresh_static(tmp_path / "none", built) == 0
