"""How a chapter's cells look in one edition of the book: its language, its folds, its answers.

A chapter notebook carries both languages and says what a cell *is* with a few tags (CONTRIBUTING.md,
"Cell conventions"); this module turns that into what one edition shows (DESIGN.md §3, §7):

- ``lang-en`` / ``lang-zh`` markdown cells: the other language's cells are dropped, and so are the
  outputs whose metadata names the other language (:mod:`cs336_lec2.bilingual` tags them); what is
  left of a cell's printed lines and sentences shows as one block of text;
- ``checks`` code cells (asserts, ``publish``): the code folds behind "Checks" / "核对";
- ``plot`` code cells (matplotlib): the code folds behind "Plotting code" / "绘图代码";
- ``answer`` cells: the prose becomes a "Show answer" / "显示答案" dropdown, and the answer's code
  cells are moved into that same dropdown when the page is built (:mod:`.sphinx_ext`): one click
  shows the whole answer;
- ``zh_comments`` in a code cell's metadata maps its English comments to Chinese ones, applied in the
  zh edition only.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from html import escape
from typing import Any

import nbformat

from ..bilingual import ALT_KEY, LANG_KEY, LANGUAGES
from .one_language import OneLanguageError, one_language

LANGUAGE_TAGS = {code: f"lang-{code}" for code in LANGUAGES}
ANSWER_TAG, CHECKS_TAG, PLOT_TAG, GPU_TAG, HELPER_TAG = "answer", "checks", "plot", "gpu", "helper"
ANSWER_CLASS = "cs336-answer"  # the dropdown's class, which sphinx_ext looks for
COMMENTS_KEY = "zh_comments"

# The prompts of a folded cell and the title of an answer, per edition.
FOLDS = {
    CHECKS_TAG: {"en": ("Checks", "Hide checks"), "zh": ("核对", "收起核对")},
    PLOT_TAG: {"en": ("Plotting code", "Hide plotting code"), "zh": ("绘图代码", "收起绘图代码")},
    GPU_TAG: {"en": ("GPU-only code", "Hide GPU-only code"), "zh": ("仅在 GPU 上运行的代码", "收起 GPU 代码")},
    HELPER_TAG: {"en": ("Helper code", "Hide helper code"), "zh": ("辅助代码", "收起辅助代码")},
}
ANSWER_TITLE = {"en": "Show answer", "zh": "显示答案"}
CODE_TITLE = {"en": "Code", "zh": "代码"}
# Sphinx settings: the theme's words for a folded cell and a dropdown, in the edition's language.
PROMPTS = {
    "en": {"nb_code_prompt_show": "Show code cell {type}", "nb_code_prompt_hide": "Hide code cell {type}",
           "togglebutton_hint": "Click to show", "togglebutton_hint_hide": "Click to hide"},
    "zh": {"nb_code_prompt_show": "显示代码", "nb_code_prompt_hide": "收起代码",
           "togglebutton_hint": "点击展开", "togglebutton_hint_hide": "点击收起"},
}


def _tags(cell: Any) -> list[str]:
    tags = cell.get("metadata", {}).get("tags", [])
    return list(tags) if isinstance(tags, list) else []


def keep_outputs(outputs: list[Any], lang: str) -> list[Any]:
    """The outputs an edition shows: those in ``lang`` and those in no particular language."""
    return [o for o in outputs if o.get("metadata", {}).get(LANG_KEY, lang) == lang]


def _plain_text(output: Any) -> str | None:
    """The text of a stdout stream or of a display of plain text only; None for anything else."""
    if output.get("output_type") == "stream" and output.get("name") == "stdout":
        return output.get("text", "")
    data = output.get("data", {})
    if output.get("output_type") == "display_data" and set(data) == {"text/plain"}:
        text = data["text/plain"]
        return text if text.endswith("\n") else text + "\n"
    return None


def merge_text(outputs: list[Any]) -> list[Any]:
    """``outputs`` with each run of printed lines and :func:`~cs336_lec2.bilingual.say` sentences made one
    stdout stream: the page shows one block of text, as the cell printed it, not one box a sentence."""
    merged: list[Any] = []
    for output in outputs:
        text = _plain_text(output)
        if text is not None and merged and merged[-1].get("_text"):
            merged[-1]["text"] += text
        elif text is not None:
            merged.append(nbformat.v4.new_output("stream", name="stdout", text=text))
            merged[-1]["_text"] = True
        else:
            merged.append(output)
    for output in merged:
        output.pop("_text", None)
    return merged


def translate_comments(source: str, comments: dict[str, str]) -> str:
    """``source`` with each ``# english`` comment of ``comments`` replaced by ``# 中文``."""
    for en, zh in comments.items():
        source = re.sub(rf"#\s?{re.escape(en)}(?=\s*$)", _literal(f"# {zh}"), source, flags=re.MULTILINE)
    return source


def _literal(text: str) -> Callable[[re.Match[str]], str]:
    """A ``re.sub`` replacement that inserts ``text`` as it is (a string would read its backslashes as escapes)."""
    return lambda _match: text


def comment_lines(source: str) -> list[str]:
    """The text of every ``#`` comment in ``source`` (whole-line and trailing), without the ``#``."""
    found = []
    for line in source.splitlines():
        in_string = None
        for i, char in enumerate(line):
            if in_string:
                if char == in_string and line[i - 1] != "\\":
                    in_string = None
            elif char in "\"'":
                in_string = char
            elif char == "#":
                found.append(line[i + 1:].strip())
                break
    return [text for text in found if text]


def _fold(cell: Any, fold: str, lang: str) -> None:
    show, hide = FOLDS[fold][lang]
    if "hide-input" not in cell.metadata.setdefault("tags", []):
        cell.metadata.tags.append("hide-input")
    mystnb = cell.metadata.setdefault("mystnb", {})
    mystnb.update(code_prompt_show=show, code_prompt_hide=hide)


def _answer_prose(source: str, lang: str) -> str:
    fence = "`" * (max((len(m) for m in re.findall(r"`{3,}", source)), default=2) + 1)
    return f"{fence}{{admonition}} {ANSWER_TITLE[lang]}\n:class: dropdown {ANSWER_CLASS}\n\n{source}\n{fence}"


# A MyST box: a fenced directive (```{name} title / :::{name} title), its options, its body.
_DIRECTIVE = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w-]+)\}[ \t]*(?P<title>[^\n]*)\n"
    r"(?P<options>(?:[ \t]*:[\w-]+:[^\n]*\n)*)\n?(?P<body>.*?)\n?^(?P=fence)[ \t]*$",
    re.S | re.M,
)
BOX_TITLES = {"note": {"en": "Note", "zh": "注"}, "warning": {"en": "Warning", "zh": "注意"},
              "tip": {"en": "Tip", "zh": "提示"}, "important": {"en": "Important", "zh": "重要"}}
FORM_VIEW = "cellView"  # Colab shows a cell whose code starts with "# @title ..." as that title only


def _box(found: re.Match, lang: str) -> str:
    """One MyST box as Markdown every notebook viewer renders: a folded ``<details>`` for a dropdown
    (an answer, an aside), else a quoted note under its title in bold."""
    name, body = found["name"], found["body"].strip("\n")
    title = found["title"].strip() or BOX_TITLES.get(name, {}).get(lang, name.capitalize())
    if "dropdown" in found["options"]:
        return f"<details>\n<summary>{escape(title)}</summary>\n\n{body}\n\n</details>"
    quoted = "\n".join(f"> {line}".rstrip() for line in body.split("\n"))
    return f"> **{title}**\n>\n{quoted}"


def reader_markdown(source: str, lang: str) -> str:
    """``source`` with every MyST box made plain Markdown or HTML (:func:`_box`): what Jupyter, Colab and
    GitHub's viewer render as the book does, folded where it folds, with no directive text left."""
    return _DIRECTIVE.sub(lambda found: _box(found, lang), source)


def _fold_in_notebook(cell: Any, title: str) -> None:
    """Fold a code cell's source where a notebook is read: JupyterLab's ``source_hidden`` and Colab's form
    view (a first line ``# @title <title>``)."""
    cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
    cell.metadata[FORM_VIEW] = "form"
    cell.source = f"# @title {title}\n{cell.source}"


def reader_notebook(nb: nbformat.NotebookNode, lang: str, install: str | None = None) -> nbformat.NotebookNode:
    """A staged edition (:func:`edition_notebook`) as the notebook a reader opens in Jupyter or Colab or
    downloads from the book: every box renders (:func:`reader_markdown`), an answer is a ``<details>``
    whose code is folded and not yet run (no output gives it away), checks, plotting, GPU-only and helper
    code fold as in the book, and ``install`` (a line that installs the package) opens the code."""
    nb = copy.deepcopy(nb)
    cells = []
    for cell in nb.cells:
        tags = set(_tags(cell))
        if "remove-cell" in tags:
            continue
        if cell.cell_type == "markdown":
            cell.source = reader_markdown(cell.source, lang)
        elif cell.cell_type == "code":
            folds = [fold for fold in FOLDS if fold in tags]
            if ANSWER_TAG in tags:
                _fold_in_notebook(cell, ANSWER_TITLE[lang])
                cell.outputs, cell.execution_count = [], None
            elif folds or tags & {"hide-input", "remove-input"}:
                _fold_in_notebook(cell, FOLDS[folds[0]][lang][0] if folds else CODE_TITLE[lang])
            cell.metadata.pop("mystnb", None)
            cell.metadata.pop(COMMENTS_KEY, None)
        cells.append(cell)
    if install:
        first_code = next((i for i, c in enumerate(cells) if c.cell_type == "code"), len(cells))
        cells.insert(first_code, nbformat.v4.new_code_cell(install, metadata={"tags": ["install"]}))
    nb.cells = cells
    return nb


def edition_notebook(nb: nbformat.NotebookNode, lang: str) -> nbformat.NotebookNode:
    """A copy of ``nb`` as the ``lang`` edition shows it (see the module docstring)."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {LANGUAGES}, got {lang!r}")
    nb = copy.deepcopy(nb)
    drop = {tag for code, tag in LANGUAGE_TAGS.items() if code != lang}
    cells = []
    for index, cell in enumerate(nb.cells):
        tags = set(_tags(cell))
        if drop & tags:
            continue
        if cell.cell_type == "markdown" and ANSWER_TAG in tags:
            cell.source = _answer_prose(cell.source, lang)
        if cell.cell_type == "code":
            cell.outputs = merge_text(keep_outputs(cell.get("outputs", []), lang))
            alts = [o["metadata"][ALT_KEY] for o in cell.outputs if ALT_KEY in o.get("metadata", {})]
            if len(alts) == 1:
                options = cell.metadata.setdefault("mystnb", {}).setdefault("image", {})
                options["alt"] = alts[0]
            # a cell folded with Jupyter Book's bare hide-input tag folds as helper code: no prompt says only
            # "Show code cell source"
            for fold in [fold for fold in FOLDS if fold in tags] or ([HELPER_TAG] if "hide-input" in tags else []):
                _fold(cell, fold, lang)
            try:
                cell.source = one_language(cell.source, lang)
            except OneLanguageError as err:
                raise OneLanguageError(f"code cell {index}: {err}") from None
            comments = cell.metadata.get(COMMENTS_KEY)
            if lang == "zh" and isinstance(comments, dict):
                cell.source = translate_comments(cell.source, comments)
        cells.append(cell)
    nb.cells = cells
    return nb
