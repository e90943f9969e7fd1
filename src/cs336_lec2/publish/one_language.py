"""One language in a code cell: the two-language source's words rewritten into one edition's.

The chapters' code says its words in both languages in a few fixed forms (CONTRIBUTING.md, "One language per
edition"); :func:`one_language` rewrites a cell's source into the edition's, leaving everything else as written:

- a call's keyword pair ``en=A, zh=B`` (the last arguments) becomes one positional argument, ``A`` or ``B``;
- a keyword pair ``alt_en=A, alt_zh=B`` becomes ``alt=A`` or ``alt=B``;
- inside a function that takes the words function ``w`` (``def draw(w)``, ``def panel(ax, data, w)``), each
  ``w(A, B)`` becomes ``A`` or ``B``; the parameter ``w`` goes, and so does ``w`` passed on to another such
  function;
- an edition imports the reader namespace from ``cs336_lec2.en`` or ``cs336_lec2.zh``, which also set the
  language the notebook reads in (what the package itself says comes once, in that language).

The edits are made on the text at the positions Python's :mod:`ast` gives, from the last to the first, and
the continuation lines of a moved argument shift left with it. Any other shape (a pair that is not last, a
``w(...)`` outside a ``draw`` function, one half of a pair) raises :class:`OneLanguageError`.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass

from ..bilingual import LANGUAGES

WORDS = "w"  # the words function's parameter name in a draw(w) function
READER_IMPORT = "from cs336_lec2 import *"  # an edition imports from cs336_lec2.en / .zh, which set its language


class OneLanguageError(ValueError):
    """A code cell says its words in a form the one-language rewrite does not know."""


@dataclass(frozen=True)
class _Edit:
    start: int  # offsets into the source
    end: int
    text: str
    shift: int = 0  # columns the continuation lines of ``text`` move left


def _offsets(source: str) -> list[int]:
    starts, total = [], 0
    for line in source.splitlines(keepends=True):
        starts.append(total)
        total += len(line)
    starts.append(total)
    return starts


def _dedent(text: str, shift: int) -> str:
    """``text`` with every line after the first moved ``shift`` columns left (as far as its indent allows)."""
    if shift <= 0:
        return text
    first, *rest = text.split("\n")
    moved = [line[min(shift, len(line) - len(line.lstrip(" "))):] for line in rest]
    return "\n".join([first, *moved])


def _is_words_call(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == WORDS
            and len(node.args) == 2 and not node.keywords)


def _takes_words(node: ast.FunctionDef) -> bool:
    """Whether ``node``'s parameter ``w`` is the words function (not, say, a weight ``w``): the function
    draws (its name starts with ``draw``) or calls ``w(en, zh)``."""
    return node.name.startswith("draw") or any(_is_words_call(n) for n in ast.walk(node))


class _Finder(ast.NodeVisitor):
    def __init__(self, source: str, lang: str) -> None:
        self.source, self.lang = source, lang
        self.edits: list[_Edit] = []
        self.at = _offsets(source)
        self.words_depth = 0  # > 0 inside a draw(w) function

    def pos(self, line: int, col: int) -> int:
        # ast columns are UTF-8 byte offsets; the text edits need character offsets
        text = self.source[self.at[line - 1]:self.at[line]]
        return self.at[line - 1] + len(text.encode("utf-8")[:col].decode("utf-8", errors="replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self.pos(node.lineno, node.col_offset), self.pos(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def col(self, offset: int) -> int:
        return offset - self.source.rfind("\n", 0, offset) - 1

    def fail(self, node: ast.AST, why: str) -> None:
        raise OneLanguageError(f"line {getattr(node, 'lineno', '?')}: {why}")

    def remove_item(self, items: list[ast.AST], index: int) -> None:
        """Cut ``items[index]`` (an argument or parameter) out of its comma-separated list."""
        start, end = self.span(items[index])
        if index + 1 < len(items):
            end = self.span(items[index + 1])[0]  # "w, next" -> "next"
        elif index > 0:
            start = self.source.rfind(",", self.span(items[index - 1])[1], start)  # "prev, w" -> "prev"
        self.edits.append(_Edit(start, end, ""))

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        params = node.args.posonlyargs + node.args.args
        names = [a.arg for a in params]
        if WORDS not in names or not _takes_words(node):
            self.generic_visit(node)
            return
        index = names.index(WORDS)
        if params[index].annotation is not None or node.args.defaults:
            self.fail(node, f"{node.name}'s words parameter {WORDS!r} takes no annotation and no defaults here")
        self.remove_item(params, index)  # type: ignore[arg-type]
        self.words_depth += 1
        self.generic_visit(node)
        self.words_depth -= 1

    def visit_Call(self, node: ast.Call) -> None:
        if _is_words_call(node):
            if not self.words_depth:
                self.fail(node, f"{WORDS}(en, zh) is allowed only inside a function that takes {WORDS}")
            chosen = node.args[LANGUAGES.index(self.lang)]
            start, end = self.span(node)
            c_start, c_end = self.span(chosen)
            self.edits.append(_Edit(start, end, self.source[c_start:c_end], self.col(c_start) - self.col(start)))
            self.visit(chosen)
            return
        passed = [i for i, a in enumerate(node.args) if isinstance(a, ast.Name) and a.id == WORDS]
        if passed and self.words_depth:  # a drawing helper handed the words function: it takes none now
            if node.keywords or len(passed) > 1:
                self.fail(node, f"pass {WORDS} once, as a positional argument, with no keywords after it")
            self.remove_item(node.args, passed[0])  # type: ignore[arg-type]
            for i, arg in enumerate(node.args):
                if i != passed[0]:
                    self.visit(arg)
            self.visit(node.func)
            return
        self.pair(node, "en", "zh", None)
        self.pair(node, "alt_en", "alt_zh", "alt")
        self.generic_visit(node)

    def pair(self, node: ast.Call, en: str, zh: str, rename: str | None) -> None:
        keywords = {k.arg: i for i, k in enumerate(node.keywords)}
        found = [name for name in (en, zh) if name in keywords]
        if not found:
            return
        if len(found) == 1:
            self.fail(node, f"{found[0]}= needs its other half ({zh if found[0] == en else en}=)")
        i_en, i_zh = keywords[en], keywords[zh]
        if sorted((i_en, i_zh)) != [len(node.keywords) - 2, len(node.keywords) - 1]:
            self.fail(node, f"{en}= and {zh}= must be the last two arguments of the call")
        if rename is None and node.keywords[:-2]:
            self.fail(node, f"{en}= / {zh}= become a positional argument: no keyword may come before them")
        keep, drop = (node.keywords[i_en], node.keywords[i_zh])
        if self.lang == "zh":
            keep, drop = drop, keep
        first, second = sorted((keep, drop), key=lambda k: (k.lineno, k.col_offset))
        v_start, v_end = self.span(keep.value)
        prefix = f"{rename}=" if rename else ""
        # the kept value replaces the first keyword of the pair; the second one goes with its comma
        f_start, f_end = self.span(first)
        s_start, s_end = self.span(second)
        value = self.source[v_start:v_end]
        shift = self.col(v_start) - (self.col(f_start) + len(prefix))
        self.edits.append(_Edit(f_start, f_end, prefix + value, shift))
        cut = self.source.rfind(",", f_end, s_start)
        self.edits.append(_Edit(cut if cut >= 0 else f_end, s_end, ""))


def one_language(source: str, lang: str) -> str:
    """``source`` (a code cell of the two-language source) with only ``lang``'s words; see the module docstring."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {LANGUAGES}, got {lang!r}")
    lines = source.split("\n")
    magics = [i for i, line in enumerate(lines) if line.lstrip().startswith(("%", "!"))]
    parsed = "\n".join("pass" + " " * (len(line) - 4) if i in magics else line for i, line in enumerate(lines))
    try:
        tree = ast.parse(parsed)
    except SyntaxError:
        return source  # not Python we can read: left as it is (a test keeps the chapters parseable)
    finder = _Finder(source, lang)
    finder.visit(tree)
    edits = sorted(finder.edits, key=lambda e: (e.start, e.end))
    for before, after in itertools.pairwise(edits):
        if after.start < before.end:
            raise OneLanguageError("overlapping words pairs: nest no pair inside another's chosen half")
    out = source
    for edit in reversed(edits):
        out = out[:edit.start] + _dedent(edit.text, edit.shift) + out[edit.end:]
    out = out.replace(READER_IMPORT, f"from cs336_lec2.{lang} import *")
    try:
        compile("\n".join("pass" if i in magics else s for i, s in enumerate(out.split("\n"))), "<cell>", "exec")
    except SyntaxError as err:
        why = f"{err.msg}, line {err.lineno}"
        raise OneLanguageError(f"the {lang} edition of this cell is not Python ({why})") from None
    return out
