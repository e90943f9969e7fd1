"""Rebuild only what changed: the book build's inputs and outputs compared by content, never by mtime.

A build keeps three things between runs (all under the build folder):

* the staged source of each edition (``stage/<lang>/``) with a stamp of the digest of everything that
  staging reads (the book's config, pages, static files, the notebooks or the ``--from`` run, and the
  package's own code) and of what it wrote; staging runs again only when either digest differs;
* Sphinx's environment (``sphinx/<lang>/``), reused when the stamp of the code that renders a page
  (this package, Sphinx, Jupyter Book, the strictness) matches: Sphinx then re-reads only the pages
  whose staged file changed. Staging writes a file only when its bytes changed (:func:`sync_tree`), so
  an unchanged page keeps its mtime and Sphinx skips it. A failed build leaves no stamp, so the next one
  starts from nothing (a strict build never passes on warnings it did not re-emit);
* the HTML of each edition, updated file by file (:func:`sync_tree`) rather than deleted and copied.

Sphinx writes only the pages it re-read, unless a re-read page changed its title, headings or labels,
which other pages show or link to: then it writes every page (:func:`outline`, the ``setup`` below).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

STAMP = ".cs336-cache.json"
PACKAGE = Path(__file__).resolve().parent.parent  # src/cs336_lec2
TOOLS = ("jupyter-book", "sphinx", "myst-nb", "pydata-sphinx-theme", "sphinx-book-theme", "jieba")


def _files(paths: Iterable[Path]) -> list[tuple[str, Path]]:
    """``(name, file)`` for every file under ``paths`` (a file names itself), in a fixed order."""
    found: list[tuple[str, Path]] = []
    for path in paths:
        path = Path(path)
        if path.is_dir():
            found += [(str(f), f) for f in sorted(path.rglob("*")) if f.is_file() and "__pycache__" not in f.parts]
        elif path.is_file():
            found.append((str(path), path))
        else:
            found.append((str(path), path))  # a missing input counts too: its appearance must rebuild
    return found


def digest(paths: Iterable[Path], *extra: str) -> str:
    """SHA-256 of the names and bytes of every file under ``paths`` and of the strings ``extra``."""
    h = hashlib.sha256()
    for text in extra:
        h.update(f"{len(text)}:{text}".encode())
    for name, path in _files(paths):
        h.update(f"{len(name)}:{name}".encode())
        h.update(path.read_bytes() if path.is_file() else b"\0missing")
    return h.hexdigest()


def tree_digest(folder: Path, skip: str = STAMP) -> str:
    """SHA-256 of a folder's files by their path inside it (so the same tree elsewhere hashes the same)."""
    h = hashlib.sha256()
    for name, path in _files([folder]):
        relative = Path(name).relative_to(folder).as_posix()
        if relative == skip:
            continue
        h.update(f"{len(relative)}:{relative}".encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def code_key(strict: bool) -> str:
    """The digest of what renders a page besides its source: this package's code and the tools' versions."""
    versions = []
    for tool in TOOLS:
        try:
            versions.append(f"{tool}=={metadata.version(tool)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{tool} absent")
    return digest([PACKAGE], f"strict={strict}", *versions)


def read_stamp(folder: Path) -> dict:
    """The stamp a finished step left in ``folder`` (empty when there is none or it is unreadable)."""
    try:
        found = json.loads((folder / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def write_stamp(folder: Path, **values: str) -> None:
    """Record that a step finished in ``folder`` with these digests."""
    (folder / STAMP).write_text(json.dumps(values, sort_keys=True), encoding="utf-8")


def clear_stamp(folder: Path) -> None:
    """Forget a step's stamp before redoing it (an interrupted step then never looks finished)."""
    (folder / STAMP).unlink(missing_ok=True)


def same_bytes(src: Path, dst: Path) -> bool:
    """Whether ``dst`` is a file with ``src``'s bytes (sizes compared first: most changes show there)."""
    return dst.is_file() and dst.stat().st_size == src.stat().st_size and dst.read_bytes() == src.read_bytes()


def sync_tree(source: Path, target: Path, keep: Iterable[str] = (STAMP,)) -> int:
    """Make ``target`` hold exactly the files of ``source``; write only those whose bytes differ.

    A file whose bytes are unchanged is left alone (its mtime too, which is what Sphinx looks at);
    files and folders of ``target`` that ``source`` lacks are removed, except the names in ``keep``.
    Returns how many files were written or removed.
    """
    source, target = Path(source), Path(target)
    if not source.is_dir():
        raise FileNotFoundError(f"source: {source} is not a directory")
    keep = set(keep)
    target.mkdir(parents=True, exist_ok=True)
    changed = 0
    wanted = {p.relative_to(source) for p in source.rglob("*")}
    for path in sorted(target.rglob("*"), reverse=True):  # children before their folders
        relative = path.relative_to(target)
        if (relative in wanted and path.is_dir() == (source / relative).is_dir()) or relative.as_posix() in keep:
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
        changed += 1
    for relative in sorted(wanted):
        src, dst = source / relative, target / relative
        if src.is_dir():
            dst.mkdir(parents=True, exist_ok=True)
        elif not same_bytes(src, dst):
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)  # a new mtime: Sphinx sees the change
            changed += 1
    return changed


def refresh_static(static: Path, html_static: Path) -> int:
    """Copy into an edition's built ``html_static`` each file of ``static`` that is missing there or differs.

    Sphinx 7.4 copies the static files only when some page is rebuilt, and never over an existing file
    (it logs "Aborted attempted copy"), so an edited script would be served stale by a rebuild.
    Returns how many files were copied.
    """
    copied = 0
    for src in sorted(static.rglob("*")) if static.is_dir() else ():
        dst = html_static / src.relative_to(static)
        if src.is_file() and not same_bytes(src, dst):
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            copied += 1
    return copied


def stage_inputs(root: Path, lang: str, notebooks_from: Path | None) -> str:
    """The digest of everything the staging of edition ``lang`` reads (and of this package's code)."""
    book = root / "book"
    paths = [root / "_config.yml", root / "_toc.yml", *sorted(book.glob("*.md")), book / lang, book / "_static",
             book / "results", root / "notebooks", PACKAGE]
    if notebooks_from is not None:
        paths.append(notebooks_from)
    return digest(paths, lang, str(notebooks_from))


def restage(stage: Path, inputs: str, make: Callable[[Path], Path]) -> bool:
    """Bring ``stage`` up to date; ``make(folder)`` writes a fresh staging into an empty ``folder``.

    Nothing happens when the stamp in ``stage`` names these ``inputs`` and the files there are still the
    ones staged then. Otherwise the staging is redone aside and synced in (:func:`sync_tree`), so the
    pages that did not change keep their mtime. Returns whether it staged.
    """
    stamp = read_stamp(stage)
    if stage.is_dir() and stamp.get("inputs") == inputs and stamp.get("output") == tree_digest(stage):
        return False
    stage.parent.mkdir(parents=True, exist_ok=True)
    if stage.is_dir():
        clear_stamp(stage)
    with tempfile.TemporaryDirectory(dir=stage.parent, prefix=f".{stage.name}-") as aside:
        sync_tree(make(Path(aside) / stage.name), stage)
    write_stamp(stage, inputs=inputs, output=tree_digest(stage))
    return True


def up_to_date(out: Path, strict: bool) -> bool:
    """Whether ``out`` holds a finished build by today's code (call before :func:`needs_fresh_env`)."""
    return read_stamp(out).get("code") == code_key(strict) and (out / "_build" / "html" / "index.html").is_file()


def needs_fresh_env(out: Path, strict: bool) -> bool:
    """Whether Sphinx must start from nothing in ``out``: no finished build there with today's code.

    The stamp is removed here and written back by :func:`built` only after a build that succeeded.
    """
    fresh = read_stamp(out).get("code") != code_key(strict)
    out.mkdir(parents=True, exist_ok=True)
    clear_stamp(out)
    return fresh


def built(out: Path, strict: bool) -> None:
    """Record a successful Sphinx build in ``out``, so the next one may reuse its environment."""
    write_stamp(out, code=code_key(strict))


# Jupyter Book validates its config with jsonschema, whose import compiles some 40 grammars of the optional
# rfc3987_syntax package (for the "iri" format, which no config of ours uses): about 7 s of a build's 12 s
# of CPU on a 2-core machine, in each edition's process. Jupyter Book runs here without that package.
JUPYTER_BOOK = ("import sys; sys.modules['rfc3987_syntax'] = None; "
                "from jupyter_book.cli.main import main; sys.exit(main())")


def start_build(cmd: list[str], log: Path) -> tuple[subprocess.Popen, Path]:
    """Start one edition's build, its output going to ``log`` (two builds run at once, one a core).

    A ``jupyter-book`` command runs in the Python beside it, without the grammars of :data:`JUPYTER_BOOK`.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    python = Path(cmd[0]).with_name("python")
    if Path(cmd[0]).name == "jupyter-book" and python.exists():
        cmd = [str(python), "-c", JUPYTER_BOOK, *cmd[1:]]
    with open(log, "w", encoding="utf-8") as out:
        return subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT), log


def wait_build(job: tuple[subprocess.Popen, Path] | None) -> tuple[int, str]:
    """Wait for a build from :func:`start_build`; its exit status and what it printed."""
    if job is None:  # nothing to build: the staged source and the code are those of the last build
        return 0, ""
    process, log = job
    return process.wait(), log.read_text(encoding="utf-8", errors="replace").strip()


# ---- the Sphinx side: when a re-read page changed what other pages show of it, write every page ----
# Sphinx writes only the pages it re-read. A page also shows the others' titles and headings (navigation,
# previous and next links) and links to their labels, so when a re-read page's title, headings or labels
# changed, every page is written; a changed cell alone rewrites its own page only (writing every page,
# mostly syntax highlighting, costs more than the rest of a rebuild).


def outline(env: Any, docname: str) -> tuple:
    """What other pages show of ``docname``: its title, its headings and its labels (as text)."""
    title, toc = env.titles.get(docname), env.tocs.get(docname)
    std = env.domaindata.get("std", {})
    labels = sorted((name, *map(str, value[1:])) for name, value in std.get("labels", {}).items()
                    if value[0] == docname)
    anonymous = sorted(name for name, value in std.get("anonlabels", {}).items() if value[0] == docname)
    return (title.astext() if title is not None else None, toc.astext() if toc is not None else None,
            labels, anonymous)


def _note_reads(app: Any, env: Any, docnames: list[str]) -> None:
    app.cs336_outlines = {docname: outline(env, docname) for docname in docnames}


def _write_every_page(app: Any, env: Any) -> list[str] | None:
    before = getattr(app, "cs336_outlines", {})
    changed = any(outline(env, docname) != old for docname, old in before.items())
    return sorted(env.found_docs) if changed else None


def setup(app: Any) -> dict[str, Any]:
    app.connect("env-before-read-docs", _note_reads)
    app.connect("env-updated", _write_every_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
