"""Build the HTML book: two editions (``en/``, ``zh/``) with Jupyter Book 1, never executing a notebook.

Jupyter Book 1 drops markdown-cell tags, so it cannot hide one language itself. Each edition is
built from a staged copy of the book in which the other language's cells are already gone
(DESIGN.md §3): ``_build/stage/<lang>/`` holds the config, the table of contents, the pages of
``book/`` (shared ones plus those of ``book/<lang>/``) and the filtered notebooks. The HTML of both
editions lands in ``_build/html/{en,zh}/`` under a landing page that offers both; the one-language
notebooks that each edition's Colab button opens land in ``_build/colab/{en,zh}/notebooks/``
(:mod:`.pages`, which also writes the note of a ``--from`` run on each chapter page).
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from html import escape
from pathlib import Path
from urllib.parse import quote

import nbformat
import yaml

from ..checks import printable
from . import landing, pages
from .cache import (
    STAMP,
    built,
    needs_fresh_env,
    refresh_static,
    restage,
    stage_inputs,
    start_build,
    sync_tree,
    up_to_date,
    wait_build,
)
from .cells import PROMPTS, edition_notebook
from .execute import RECORD_NAME
from .guard import BUILD_MARKER, check_owned, fresh_folder
from .one_language import OneLanguageError
from .pages import add_run_note, edition_links, load_run_record, run_note, unreadable, write_colab_copies
from .records import load_record
from .results_page import fill_results_page


@dataclass(frozen=True)
class Edition:
    """One language edition of the book."""

    code: str  # folder and tag suffix: lang-en / lang-zh
    sphinx_language: str
    title: str
    other: str
    other_label: str

    @property
    def hreflang(self) -> str:
        """The edition's language as HTML writes it (``zh-CN``, not Sphinx's ``zh_CN``)."""
        return self.sphinx_language.replace("_", "-")


EDITIONS = {
    "en": Edition("en", "en", "CS336 Lecture 2: PyTorch and resource accounting", "zh", "中文版"),
    "zh": Edition("zh", "zh_CN", "CS336 第 2 讲：PyTorch 与资源核算", "en", "English edition"),
}

class BookBuildError(RuntimeError):
    """Jupyter Book failed (or warned, with strict builds) for one edition."""


def filter_notebook(nb: nbformat.NotebookNode, keep: str) -> nbformat.NotebookNode:
    """The ``keep`` edition of a chapter: its language's cells and outputs, folds and answers (:mod:`.cells`)."""
    if keep not in EDITIONS:
        raise ValueError(f"keep must be one of {sorted(EDITIONS)}, got {keep!r}")
    return edition_notebook(nb, keep)


def toc_files(toc_path: Path) -> list[str]:
    """Every ``file:`` entry of a Jupyter Book table of contents, in order."""
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key in ("root", "file"):
                if isinstance(node.get(key), str):
                    found.append(node[key])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.safe_load(toc_path.read_text(encoding="utf-8")))
    return found


def edition_toc(toc_text: str, lang: str) -> str:
    """The table of contents of one edition: a caption written ``English · 中文`` keeps its own half."""
    index = list(EDITIONS).index(lang)
    toc = yaml.safe_load(toc_text)
    for part in toc.get("parts", []):
        halves = str(part.get("caption", "")).split(" · ")
        if len(halves) == len(EDITIONS):
            part["caption"] = halves[index]
    return yaml.safe_dump(toc, allow_unicode=True, sort_keys=False)


def _edition_config(root: Path, edition: Edition) -> dict:
    config = edition_links(yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8")), edition.code)
    config["title"] = edition.title
    sphinx = config.setdefault("sphinx", {})
    extensions = sphinx.setdefault("extra_extensions", [])
    extensions += [e for e in ("cs336_lec2.publish.sphinx_ext", "cs336_lec2.publish.cache",
                                                  "cs336_lec2.publish.lean") if e not in extensions]
    sphinx.setdefault("config", {}).update(
        language=edition.sphinx_language,
        cs336_other_language=edition.other,
        cs336_other_label=edition.other_label,
        cs336_other_hreflang=EDITIONS[edition.other].hreflang,
        **PROMPTS[edition.code],
    )
    return config


def chapters_from_run(root: Path, notebooks_from: Path) -> tuple[dict[str, Path], list[str]]:
    """Which chapters a book built ``--from`` an execute folder takes from it, and warnings about the rest.

    A chapter comes from ``notebooks_from`` only when that run's record lists it as ok (or, with no
    record, when its notebook is there); a failed, missing or unrun chapter falls back to the committed
    notebook, with a warning. Raises ``FileNotFoundError`` for a folder with neither notebooks nor a record.
    """
    names = [Path(e).with_suffix(".ipynb").name for e in toc_files(root / "_toc.yml") if e.startswith("notebooks/")]
    present = {name for name in names if (notebooks_from / name).is_file()}
    record_path = notebooks_from / RECORD_NAME
    if not present and not record_path.exists():
        raise FileNotFoundError(f"{notebooks_from} holds no executed chapters and no {RECORD_NAME}: give the "
                                "--output folder of a cs336-lec2 execute run")
    warnings: list[str] = []
    if not record_path.exists():
        warnings.append(f"{notebooks_from} has no {RECORD_NAME}: the run may have been interrupted; "
                        "its notebooks are used as they are")
        usable = {}
        for name in sorted(present):
            if why := unreadable(notebooks_from / name):
                warnings.append(f"{Path(name).stem}: its notebook there is unreadable ({why}); "
                                "the committed notebook is used")
            else:
                usable[name] = notebooks_from / name
        return usable, warnings
    runs = {c["name"]: c for c in load_record(record_path)["chapters"]}  # checked: a bad record is one clear error
    chosen: dict[str, Path] = {}
    for name in names:
        run = runs.get(Path(name).stem)
        taken = run is not None and run["ok"] and name in present
        why = unreadable(notebooks_from / name) if taken else None
        if why:
            warnings.append(f"{Path(name).stem}: its notebook there is unreadable ({why}); "
                            "the committed notebook is used")
        elif taken:
            chosen[name] = notebooks_from / name
        elif run is not None and not run.get("ok"):
            warnings.append(f"{Path(name).stem} FAILED in that run ({printable(run.get('error'))}); "
                            "the committed notebook is used")
        else:
            warnings.append(f"{Path(name).stem} was not run there; the committed notebook is used")
    return chosen, warnings


def stage_edition(
    root: Path, lang: str, stage: Path, notebooks_from: Path | None = None, chosen: dict[str, Path] | None = None
) -> Path:
    """Write the staged source of one edition into ``stage`` (emptied first) and return it.

    ``chosen`` maps notebook file names to the executed copies to use (see :func:`chapters_from_run`);
    by default every notebook present in ``notebooks_from`` is used. With ``notebooks_from``, every
    chapter page says which run (machine, date) its outputs come from, or that it fell back to the
    committed notebook (:func:`.pages.run_note`).
    """
    edition = EDITIONS[lang]
    fresh_folder(stage)  # emptied only if an earlier build made it (issue 31.2)
    (stage / "_config.yml").write_text(
        yaml.safe_dump(_edition_config(root, edition), allow_unicode=True, sort_keys=False), encoding="utf-8"
    )
    (stage / "_toc.yml").write_text(edition_toc((root / "_toc.yml").read_text(encoding="utf-8"), lang),
                                    encoding="utf-8")
    book = stage / "book"
    book.mkdir()
    for path in (root / "book").glob("*.md"):
        shutil.copy2(path, book / path.name)
    for path in (root / "book" / lang).iterdir():
        if path.is_file():
            shutil.copy2(path, book / path.name)
    if (root / "book" / "_static").is_dir():
        shutil.copytree(root / "book" / "_static", book / "_static")
    record = load_run_record(notebooks_from) if notebooks_from is not None else None
    results_page = book / "results.md"
    if results_page.exists():
        run_record = notebooks_from / RECORD_NAME if notebooks_from is not None else None
        fill_results_page(results_page, root / "book" / "results", lang,
                          run_record if run_record is not None and run_record.exists() else None)
    for entry in toc_files(root / "_toc.yml"):
        if not entry.startswith("notebooks/"):
            continue
        name = Path(entry).with_suffix(".ipynb").name
        source = root / "notebooks" / name
        if chosen is not None:
            source = chosen.get(name, source)
        elif notebooks_from is not None and (notebooks_from / name).exists():
            source = notebooks_from / name
        if not source.exists():
            raise FileNotFoundError(f"_toc.yml lists {entry}, but {name} is neither in notebooks/ nor in --from")
        try:
            nb = filter_notebook(nbformat.read(source, as_version=4), lang)
        except OneLanguageError as err:
            raise OneLanguageError(f"{name}, {err}") from None
        if notebooks_from is not None:
            taken = source != root / "notebooks" / name
            add_run_note(nb, run_note(record, notebooks_from.name, Path(name).stem, taken, lang))
            if taken:
                pages.show_run_parameters(nb, record, lang)
        (stage / "notebooks").mkdir(exist_ok=True)
        nbformat.write(nb, stage / "notebooks" / name)
    return stage


def _install_line(root: Path, lang: str) -> str:
    """The Colab copies' one-line install of the package, in the edition's language (:func:`.pages.install_line`)."""
    return pages.install_line(yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8")), lang)


def _serve_reader_notebooks(notebooks: Path, html: Path) -> None:
    """The page's download button serves ``_sources/notebooks/NAME.ipynb``: make it the edition's reader
    notebook (one language, boxes rendered, answers folded) rather than the staged copy Sphinx keeps."""
    sources = html / "_sources" / "notebooks"
    for path in sorted(notebooks.glob("*.ipynb")):
        if (sources / path.name).is_file():
            shutil.copyfile(path, sources / path.name)


def _jupyter_book() -> str:
    beside = Path(sys.executable).with_name("jupyter-book")
    found = str(beside) if beside.exists() else shutil.which("jupyter-book")
    if not found:
        raise BookBuildError("jupyter-book is not installed: install the 'book' extra (pip install 'cs336-lec2[book]')")
    return found


def icon_link(svg: str) -> str:
    """A ``<link rel="icon">`` that carries the SVG itself, as a ``data:`` URL.

    A page without an icon makes the browser ask the server root for ``/favicon.ico`` (a 404 on any
    static host), and a page that forwards at once would cancel a fetch of a separate icon file; an
    icon inside the page is neither.
    """
    return f'<link rel="icon" href="data:image/svg+xml,{quote(svg.strip())}" type="image/svg+xml">'


def landing_page(icon_svg: str, pdfs: dict[str, str] | None = None) -> str:
    """The root ``index.html``: what the book is, the chapters of both editions as cards (:mod:`.landing`)."""
    return landing.landing_page(icon_link(icon_svg), pdfs)


def edition_redirect_page(edition: Edition, target: str, icon_svg: str) -> str:
    """An edition's ``index.html``: it forwards to the first page, as Jupyter Book's own does.

    Jupyter Book writes a bare ``<meta http-equiv="Refresh">`` there, with no language, title or icon
    (see :func:`icon_link`). This page names all three, and links the target for readers whose browser
    does not follow the refresh.
    """
    target = escape(target, quote=True)
    return f"""<!DOCTYPE html>
<html lang="{edition.hreflang}">
<head><meta charset="utf-8">
<meta http-equiv="Refresh" content="0; url={target}">
<title>{escape(edition.title)}</title>
{icon_link(icon_svg)}
</head>
<body><p><a href="{target}">{escape(edition.title)}</a></p></body>
</html>
"""


def _redirect_target(index_html: str) -> str:
    """The page that Jupyter Book's ``index.html`` forwards to (its ``url=`` in the refresh tag)."""
    found = re.search(r'http-equiv="Refresh"\s+content="\d+;\s*url=([^"]+)"', index_html, re.IGNORECASE)
    if not found:
        raise BookBuildError(f"index.html is not Jupyter Book's redirect page: {index_html[:200]!r}")
    return found.group(1).strip()


def build_book(
    root: str | Path = ".",
    *,
    build_dir: str | Path | None = None,
    notebooks_from: str | Path | None = None,
    languages: tuple[str, ...] = ("en", "zh"),
    strict: bool = False,
    quiet: bool = True,
    warn: Callable[[str], None] | None = None,
) -> Path:
    """Stage and build the editions; return the folder holding ``index.html`` and one folder per edition.

    ``strict`` turns every Sphinx warning into an error (``-W``). ``notebooks_from`` takes executed
    notebooks from a ``cs336-lec2 execute`` output folder instead of ``notebooks/`` (only the chapters
    its run record lists as ok: :func:`chapters_from_run`); ``warn`` receives one line per chapter it
    could not take from there (default: printed to stderr).
    """
    warn = warn or (lambda message: print(f"warning: {message}", file=sys.stderr))
    root = Path(root).resolve()
    for required in ("_config.yml", "_toc.yml", "book", "notebooks"):
        if not (root / required).exists():
            raise FileNotFoundError(f"root: {root} has no {required}; run from the repository root")
    unknown = [code for code in languages if code not in EDITIONS]
    if unknown or not languages:
        raise ValueError(f"languages must be a non-empty subset of {sorted(EDITIONS)}, got {languages!r}")
    if build_dir is not None and not str(build_dir).strip():
        raise ValueError(f"build_dir: {build_dir!r} is not a folder name (an unset variable?); give a folder")
    build = Path(build_dir).resolve() if build_dir else root / "_build"
    source = Path(notebooks_from).resolve() if notebooks_from else None
    if source is not None and not source.is_dir():
        raise FileNotFoundError(f"notebooks_from: {source} is not a directory")
    chosen = None
    if source is not None:
        chosen, warnings = chapters_from_run(root, source)
        for message in warnings:
            warn(message)
    html = build / "html"
    for code in languages:  # refuse before building: the build empties these folders (issue 31.2)
        for folder in (build / "stage" / code, build / "colab" / code / "notebooks", html / code):
            check_owned(folder)
    html.mkdir(parents=True, exist_ok=True)
    icon_svg = (root / "book" / "_static" / "favicon.svg").read_text(encoding="utf-8")
    jobs = {}
    for code in languages:  # stage what changed (cache.py), then build the editions side by side
        stage = build / "stage" / code
        staging = partial(stage_edition, root, code, notebooks_from=source, chosen=chosen)
        changed = restage(stage, stage_inputs(root, code, source), staging)
        write_colab_copies(stage, build / "colab" / code, code, _install_line(root, code))
        out = build / "sphinx" / code
        current = not changed and up_to_date(out, strict)  # then Sphinx would find nothing to do
        cmd = [_jupyter_book(), "build", str(stage), "--path-output", str(out), "--builder", "html"]
        cmd += ["--all"] * needs_fresh_env(out, strict) + ["-W", "--keep-going"] * strict + ["-q"] * quiet
        jobs[code] = None if current else start_build(cmd, out / "build.log")
    finished = {code: wait_build(job) for code, job in jobs.items()}
    for code, (returncode, log) in finished.items():
        if returncode != 0:
            raise BookBuildError(f"the {code} edition failed to build (exit {returncode}):\n{log[-6000:]}")
        out = build / "sphinx" / code
        built(out, strict)
        refresh_static(build / "stage" / code / "book" / "_static", out / "_build" / "html" / "_static")
        target = check_owned(html / code)  # checked before building too: nothing of a user's is removed
        sync_tree(out / "_build" / "html", target, keep=(STAMP, BUILD_MARKER))
        (target / BUILD_MARKER).write_text("made by cs336-lec2 book; emptied on the next build\n", encoding="utf-8")
        _serve_reader_notebooks(build / "colab" / code / "notebooks", target)
        index = target / "index.html"
        forward_to = _redirect_target(index.read_text(encoding="utf-8"))
        index.write_text(edition_redirect_page(EDITIONS[code], forward_to, icon_svg), encoding="utf-8")
    pdfs = {code: landing.pdf_href(code) for code in EDITIONS if (html / landing.pdf_href(code)).is_file()}
    (html / "index.html").write_text(landing_page(icon_svg, pdfs), encoding="utf-8")
    (html / ".nojekyll").touch()  # GitHub Pages: serve _static/ and friends as they are
    return html
