"""A second, independent typography check of the Chinese text (issue 28 §5): AutoCorrect
(``autocorrect-py``, the CJK copywriting linter of huacnlee/autocorrect), configured to the book's
conventions, over every Chinese cell, every Chinese output (``say``, tables, figure alt text) and every
Chinese page. The book's own check (``tests/test_notebooks.py``) covers line breaks, italics, code
spans and nesting; this one covers spacing between Chinese and Latin letters, numbers, code and maths,
and full-width punctuation in Chinese sentences.
"""

from __future__ import annotations

import re

import nbformat
import pytest
from test_notebooks import CHAPTERS, DIRECTIVE_OPTIONS, PROSE_DIRECTIVE, ZH_PAGES, without_code_and_math, zh_cells

autocorrect = pytest.importorskip("autocorrect_py")

# The book's conventions (CONTRIBUTING.md, "Writing Chinese"): a space between Chinese and Latin
# letters, numbers, `code` and $maths$; full-width punctuation in a Chinese sentence, none spaced.
# Spell checking is off: identifiers (fp32, cs336_lec2) are not words.
CONFIG = """
rules:
  space-word: 1
  space-punctuation: 1
  space-bracket: 1
  space-backticks: 1
  space-dollar: 1
  space-dash: 1
  fullwidth: 1
  no-space-fullwidth: 1
  no-space-fullwidth-quote: 1
  halfwidth-word: 1
  halfwidth-punctuation: 1
  spellcheck: 0
"""
# A printed line is monospaced output, not a sentence: a line whose columns are aligned (two or more
# spaces in a row: a table) is left alone, and a label's full-width colon before a value
# ("1e-5 in fp16：0 00000 …") is the book's style, which halfwidth-punctuation would undo.
# Spaces in a printed line are layout (values lined up under each other), so an output is checked for
# the spacing between Chinese and Latin letters and for full-width punctuation, not for spaces after it.
OUTPUT_CONFIG = CONFIG
for _rule in ("halfwidth-punctuation", "halfwidth-word", "no-space-fullwidth", "no-space-fullwidth-quote",
              "space-bracket"):
    OUTPUT_CONFIG = OUTPUT_CONFIG.replace(f"  {_rule}: 1", f"  {_rule}: 0")
ALIGNED = re.compile(r"\S {2,}\S")
LINK = re.compile(r"\[([^\]\n]*)\]\([^)\s]*\)")  # [text](target) -> text
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def lint_output(text: str) -> list[str]:
    """AutoCorrect's corrections of a printed output's lines that are sentences (see :data:`ALIGNED`)."""
    lines = [line.replace("|", "") for line in text.splitlines()  # |x|: an absolute value, not a word
             if line.strip() and not ALIGNED.search(line.strip())]
    return lint("\n".join(lines), "output.txt", OUTPUT_CONFIG)


def lint(text: str, filetype: str = "page.md", config: str = CONFIG) -> list[str]:
    """AutoCorrect's corrections of ``text``, one ``old -> new`` line each.

    Markdown is linted twice: as Markdown (a directive's body is prose), and as plain text with each
    code span read as `c` and each formula as $m$, since AutoCorrect's Markdown mode leaves the
    spacing around inline code alone (用`x`写).
    """
    autocorrect.load_config(config)
    changed = []
    if filetype.endswith(".md"):
        text = PROSE_DIRECTIVE.sub(lambda m: "\n" + DIRECTIVE_OPTIONS.sub("", m.group(2)) + "\n", text)
        plain = LINK.sub(r"\1", without_code_and_math(text))  # plain text, where `c` is spaced too
        changed = [(n + 1, old, new) for n, (old, new) in
                   enumerate(zip(plain.split("\n"), autocorrect.format(plain).split("\n"), strict=False)) if old != new]
    changed += [(line.line, line.old, line.new) for line in autocorrect.lint_for(text, filetype).lines]
    found = []
    for number, old, new in changed:
        at = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
        found.append(f"line {number}: {old[max(at - 15, 0):at + 15]!r} -> {new[max(at - 15, 0):at + 15]!r}")
    return found


def zh_outputs(notebook) -> list[tuple[int, str]]:
    """The Chinese words a chapter's cells print and show: outputs tagged ``lang: zh``, and their alt text."""
    found = []
    for i, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            metadata = output.get("metadata", {})
            if metadata.get("lang") != "zh":
                continue
            text = metadata.get("alt") or "".join(output.get("data", {}).get("text/plain", ""))
            if CJK.search(text):
                found.append((i, text))
    return found


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_passes_autocorrect(path):
    notebook = nbformat.read(path, as_version=4)
    problems = [f"cell {i}: {p}" for i, source in zh_cells(notebook) for p in lint(source)]
    problems += [f"cell {i} output: {p}" for i, text in zh_outputs(notebook) for p in lint_output(text)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", ZH_PAGES, ids=[p.stem for p in ZH_PAGES])
def test_page_passes_autocorrect(page):
    problems = lint(page.read_text(encoding="utf-8"))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "text",
    ["中文English混排", "数字123紧贴", "用`x`写", "公式$x$紧贴", "中文,半角逗号", "中文 ，空格", "括号(half)里",
     "```{note}\n提示里English紧贴。\n```"],
)
def test_autocorrect_catches(text):
    assert lint(text), text


def test_an_output_line_is_linted_as_a_sentence_but_a_table_is_not():
    assert lint_output("结果是fp32的两倍")
    assert lint_output("格式    最大值\nfp32    3.4e+38") == []
    assert lint_output("fp16 中的 1e-5：0 00000 0010101000") == []


def test_autocorrect_accepts_the_books_style():
    text = ("第 2 讲用 `torch.float32` 和 $x^2$ 算出 400 亿（40B）个参数，即“FLOPS”；"
            "见 [第 5 章](05_flops_and_mfu)。\n\n```python\nx=1 # 中文\n```\n")
    assert lint(text) == []
