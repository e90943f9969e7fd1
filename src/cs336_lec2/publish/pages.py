"""What an edition's chapter pages carry beyond their cells: the note of the run that produced them
(``cs336-lec2 book --from``) and the one-language notebooks that their Colab buttons open.

- A book built from a run says on every chapter page which machine and when produced its outputs; a
  chapter that failed in that run, or was not run there, says so too: its page shows the committed
  CPU reference instead (:func:`run_note`).
- Each edition's Colab button opens that edition's one-language copy of the chapter. The build writes
  the copies to ``<build>/colab/<lang>/notebooks/``; the book workflow publishes that folder as the
  root of the repository's ``colab_branch`` (``_config.yml``), where Colab opens them by their GitHub
  URL (``colab.research.google.com/github/<org>/<repo>/blob/<branch>/<lang>/notebooks/NN_name.ipynb``).
- The repository is ONE setting, ``_config.yml``'s ``repository: url:`` (:func:`repository_url`), empty
  by default: the book then has no Colab, repository or issue button (no link to a repository that
  may not exist), and the Colab copies' install line says how to install the package by hand
  (:func:`install_line`). A fork that publishes the book sets it (how_to_run).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import nbformat

from ..checks import printable
from .cells import reader_notebook
from .execute import RECORD_NAME
from .guard import fresh_folder
from .records import load_record

DEFAULT_COLAB_BRANCH = "colab"
# A repository URL as pip's ``git+`` takes it; nothing that could end a quoted string or a shell word.
_REPOSITORY_URL = re.compile(r"^(?:https?|ssh|file)://[^\s\"'\\`$]+$")
# Where no repository is set, the one line of a Colab copy that would install the package says how to.
_HOW_TO_INSTALL = {
    "en": "# This notebook needs the cs336-lec2 package: git clone the book's repository, "
          "then run `pip install .` in the clone.",
    "zh": "# 本笔记本需要 cs336-lec2 辅助包：先用 git clone 克隆本书的仓库，再在克隆下来的目录中运行 `pip install .`。",
}
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|$~])")

_TEXT = {
    "en": {
        "ok": "**The outputs on this page come from a run on {device}** ({kind}, preset {preset}), "
              "{date}, run `{run}`. The committed notebooks hold a CPU run with the small preset.",
        "failed": "**The outputs on this page are not from the run on {device}** ({date}, run `{run}`): "
                  "this chapter failed there ({error}). The page shows the committed CPU reference instead.",
        "missing": "**The outputs on this page are not from the run on {device}** ({date}, run `{run}`): "
                   "this chapter was not run there. The page shows the committed CPU reference instead.",
        "unknown": "**The outputs on this page come from the folder `{run}`**, which has no run record: "
                   "the machine and date are unknown (the run may have been interrupted).",
    },
    "zh": {
        "ok": "**本页输出来自在 {device} 上的一次运行**（{kind}，预设规模 {preset}），时间 {date}，运行 `{run}`。"
              "仓库中提交的 notebook 保存的是在 CPU 上以 small 预设规模运行的结果。",
        "failed": "**本页输出并非来自在 {device} 上的那次运行**（{date}，运行 `{run}`）：本章在那次运行中失败"
                  "（{error}）。本页显示的是仓库中提交的 CPU 参考输出。",
        "missing": "**本页输出并非来自在 {device} 上的那次运行**（{date}，运行 `{run}`）：那次运行没有执行本章。"
                   "本页显示的是仓库中提交的 CPU 参考输出。",
        "unknown": "**本页输出来自文件夹 `{run}`**，其中没有运行记录：机器和时间不明（那次运行可能被中断了）。",
    },
}


def _plain(text: object) -> str:
    """``text`` as one line of literal text: control characters shown escaped (:func:`.checks.printable`),
    Markdown's and HTML's special characters backslash-escaped (device names and errors are not Markdown)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", printable(" ".join(str(text).split())))


def _code(text: object) -> str:
    """``text`` for a code span: one line (control characters escaped), no backtick to close the span early."""
    return printable(text).replace("`", "'")


def unreadable(path: Path) -> str | None:
    """Why ``path`` is not a notebook the book can stage (torn JSON, no ``cells``), or None if it is one."""
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as err:  # nbformat raises NotJSONError, ValidationError, KeyError... on a damaged file
        return str(err).splitlines()[0][:120] if str(err).strip() else type(err).__name__
    if not isinstance(nb.get("cells"), list):
        return "it has no list of cells"
    for i, cell in enumerate(nb.cells):  # what staging reads from each cell: a hand-edited one must not crash it
        source = cell.get("source") if isinstance(cell, dict) else None
        metadata = cell.get("metadata", {}) if isinstance(cell, dict) else None
        tags = metadata.get("tags", []) if isinstance(metadata, dict) else None
        if not isinstance(cell, dict) or cell.get("cell_type") not in ("markdown", "code", "raw"):
            return f"cell {i} has no cell_type of markdown, code or raw"
        if not (isinstance(source, str) or (isinstance(source, list) and all(isinstance(x, str) for x in source))):
            return f"cell {i} has no text as its source (got {printable(repr(source))[:40]})"
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            return f"cell {i}'s metadata has no list of tags (got {printable(repr(tags))[:40]})"
    return None


def load_run_record(folder: Path) -> dict[str, Any] | None:
    """The checked run record of an execute folder (:func:`.records.load_record`), or None where it has none."""
    path = folder / RECORD_NAME
    return load_record(path) if path.exists() else None


def run_note(record: dict[str, Any] | None, run: str, chapter: str, taken: bool, lang: str) -> str:
    """The MyST note (a ``cs336-run-note`` admonition) for one chapter page of a book built from a run.

    ``taken`` says whether the page shows that run's notebook; if not, the record tells whether the
    chapter failed there or was not run. ``lang`` is the edition (``en`` or ``zh``).
    """
    if lang not in _TEXT:
        raise ValueError(f"lang must be one of {sorted(_TEXT)}, got {lang!r}")
    machine = (record or {}).get("machine") or {}
    parameters = (record or {}).get("parameters") or {}
    runs = {c.get("name"): c for c in (record or {}).get("chapters") or [] if isinstance(c, dict)}
    if record is None:
        kind = "unknown" if taken else "missing"
    elif taken:
        kind = "ok"
    else:
        kind = "failed" if chapter in runs and not runs[chapter].get("ok") else "missing"
    created = str((record or {}).get("created", "")).replace("T", " ").replace("Z", " UTC").strip()
    text = _TEXT[lang][kind].format(
        device=_plain(machine.get("device_name") or machine.get("device") or "an unknown machine"),
        kind=_plain(parameters.get("device") or machine.get("device_type") or "?"),
        preset=_plain(parameters.get("preset") or "?"), date=_plain(created or "?"),
        run=_code(run), error=_plain(runs.get(chapter, {}).get("error") or "?"),
    )
    admonition = "note" if kind in ("ok", "unknown") else "warning"
    return f":::{{{admonition}}}\n:class: cs336-run-note cs336-run-{kind}\n{text}\n:::\n"


def add_run_note(nb: nbformat.NotebookNode, note: str) -> nbformat.NotebookNode:
    """Put ``note`` right under the chapter's title (the first ``# `` line of its first markdown cell)."""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.split("\n")
        at = next((i + 1 for i, line in enumerate(lines) if line.startswith("# ")), 0)
        cell.source = "\n".join([*lines[:at], "", note.rstrip("\n"), *lines[at:]]).strip("\n")
        return nb
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(note))
    return nb


_PARAMETER = re.compile(r"^(?P<head>[ \t]*(?P<name>device|preset)[ \t]*=[ \t]*)"
                        r"""(?P<q>["'])(?P<value>[^"'\n]*)(?P=q)(?P<tail>[^\n]*)$""", re.M)
_ASKED = {"en": "asked for: ", "zh": "请求值："}


def show_run_parameters(nb: nbformat.NotebookNode, record: dict[str, Any] | None, lang: str) -> nbformat.NotebookNode:
    """A chapter taken from a run shows what ran in its parameters cells, not what was asked for.

    ``device = "auto"`` in a run the record says ran on ``cuda`` becomes ``device = "cuda"  # asked for: "auto"``
    (in the ``parameters`` cell and papermill's ``injected-parameters`` cell), so the page's code and its
    outputs agree; the note under the title (:func:`run_note`) names the machine.
    """
    ran = ((record or {}).get("parameters") or {})

    def shown(m: re.Match) -> str:
        value = ran.get(m["name"])
        if not isinstance(value, str) or not value or value == m["value"]:
            return m.group(0)
        return f'{m["head"]}"{value}"  # {_ASKED[lang]}"{m["value"]}"'

    for cell in nb.cells:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if cell.cell_type == "code" and tags & {"parameters", "injected-parameters"}:
            cell.source = _PARAMETER.sub(shown, cell.source)
    return nb


def repository_url(config: dict[str, Any]) -> str | None:
    """The book's repository, ``_config.yml``'s ``repository: url:`` without a trailing slash; None where it
    is unset or empty. A value that is not a URL pip's ``git+`` takes is a ``ValueError`` naming the setting."""
    value = (config.get("repository") or {}).get("url")
    if value is None or not str(value).strip():
        return None
    url = str(value).strip().rstrip("/")
    if not _REPOSITORY_URL.match(url):
        raise ValueError(f"_config.yml: repository: url: must look like https://github.com/ORG/REPO "
                         f"(or ssh://, file://), or be left empty; got {printable(value)!r}")
    return url


def install_line(config: dict[str, Any], lang: str = "en") -> str:
    """The one line of a Colab copy that installs the helper package: from the configured repository
    (:func:`repository_url`), or, where none is set, a comment in the edition's language saying how to."""
    if lang not in _HOW_TO_INSTALL:
        raise ValueError(f"lang must be one of {sorted(_HOW_TO_INSTALL)}, got {lang!r}")
    url = repository_url(config)
    return f'%pip install -q "cs336-lec2 @ git+{url}"' if url else _HOW_TO_INSTALL[lang]


def edition_links(config: dict[str, Any], lang: str) -> dict[str, Any]:
    """``config`` (a parsed ``_config.yml``) with the repository links of one edition's Jupyter Book config.

    With a repository set, the Colab button opens the edition's one-language notebooks on ``colab_branch``
    (the branch root holds ``<lang>/notebooks/``) and the repository and issue buttons point to it. With
    none, the book has no launch, repository or issue button: no link to a repository that is not there.
    """
    config = dict(config)
    url = repository_url(config)
    branch = str(config.pop("colab_branch", None) or DEFAULT_COLAB_BRANCH)
    if url is None:
        config.pop("repository", None)
        config.pop("launch_buttons", None)
        config["html"] = {**(config.get("html") or {}), "use_repository_button": False,
                          "use_issues_button": False, "use_edit_page_button": False}
        return config
    config["repository"] = {**(config.get("repository") or {}), "url": url, "branch": branch, "path_to_book": lang}
    return config


def write_colab_copies(stage: Path, out: Path, lang: str, install: str | None = None) -> list[Path]:
    """Write the staged one-language chapter notebooks of an edition into ``out/notebooks/`` (emptied first,
    only if an earlier build made it: :func:`.guard.fresh_folder`) as a reader opens them in Jupyter or Colab
    (:func:`.cells.reader_notebook`: boxes rendered, answers and checks folded), ``install`` their first code."""
    target = fresh_folder(out / "notebooks")  # emptied only if an earlier build made it (issue 31.2)
    written = []
    for path in sorted((stage / "notebooks").glob("*.ipynb")):
        nbformat.write(reader_notebook(nbformat.read(path, as_version=4), lang, install), target / path.name)
        written.append(target / path.name)
    return written
