"""Show the package's own code inside a chapter, so the book teaches it without keeping a copy.

A chapter shows the idea of a function, not its error handling. Argument types are checked by
beartype where a call enters (:mod:`cs336_lec2.checks`), so a formula's body holds no checks and its
listing is the function as it is; :func:`show_source` leaves out only the value rules that remain
(``if <bad>: raise ...`` guards) and long error messages, and says so in one comment line that names
the file of the full source (no line number: it would change every listing below an edit). Every
other line is the function's own source, verbatim and in order. ``show_source(fn, full=True)``
shows everything.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import io
import json
import re
import textwrap
import tokenize
from functools import cache
from importlib import resources
from pathlib import PurePath
from typing import Any, NamedTuple

from .checks import Flag, beartype_on_first_call

ELIDED = "# … checks elided"


def source_of(obj: Any) -> str:
    """The source code of a function, class or method of this package, dedented."""
    try:
        return textwrap.dedent(inspect.getsource(obj))
    except (TypeError, OSError) as err:
        raise TypeError(f"obj must be a function, class or method defined in Python source, got {obj!r}") from err


def _file_of(obj: Any) -> str:
    """``obj``'s file as ``package/module.py`` (never a machine path)."""
    target = inspect.unwrap(obj)
    path = PurePath(inspect.getsourcefile(target) or "?")
    parts = path.parts
    name = path.name
    if "cs336_lec2" in parts:  # the path inside the package, whatever the install location
        name = "/".join(parts[len(parts) - 1 - parts[::-1].index("cs336_lec2"):])
    return name


def _call_name(node: ast.AST | None) -> str:
    func = node.func if isinstance(node, ast.Call) else None
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _is_guard(stmt: ast.stmt) -> bool:
    """A statement that does nothing but refuse: a raise, an if/for made of those."""
    if isinstance(stmt, ast.Raise):
        return stmt.exc is not None  # a bare ``raise`` re-raises: that is the logic, not a check
    if isinstance(stmt, (ast.If, ast.For)):
        blocks = [stmt.body, stmt.orelse] if isinstance(stmt, ast.If) else [stmt.body]
        return not (isinstance(stmt, ast.For) and stmt.orelse) and all(
            not block or all(_is_guard(s) for s in block) or _error_path(block) for block in blocks)
    return False


def _error_path(block: list[ast.stmt]) -> bool:
    """A block that builds an error message and raises it."""
    *before, last = block
    return isinstance(last, ast.Raise) and last.exc is not None and all(
        isinstance(s, ast.Assign) and _assigned(s) for s in before)


def _assigned(stmt: ast.stmt) -> set[str]:
    """The names a plain assignment binds; empty if it stores into an attribute or an item."""
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign):
        targets = [stmt.target]
    else:
        return set()
    names: set[str] = set()
    for target in targets:
        parts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        if not all(isinstance(p, ast.Name) for p in parts):
            return set()
        names.update(p.id for p in parts if isinstance(p, ast.Name))
    return names


def _loads(node: ast.AST, skip: set[int]) -> set[str]:
    """Names read in ``node``, outside the statements whose ids are in ``skip``."""
    if id(node) in skip:
        return set()
    names = {node.id} if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) else set()
    for child in ast.iter_child_nodes(node):
        names |= _loads(child, skip)
    return names


def _blocks(node: ast.AST) -> list[list[ast.stmt]]:
    """The statement lists directly inside ``node`` (bodies, else branches, handlers)."""
    out = []
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list) and block and all(isinstance(s, ast.stmt) for s in block):
            out.append(block)
    for handler in getattr(node, "handlers", []):
        out.append(handler.body)
    return out


class _Elider:
    """Collects which source lines a listing drops and which comment replaces them."""

    def __init__(self, lines: list[str], file: str) -> None:
        self.lines = lines
        self.file = file
        self.drop: set[int] = set()  # 1-based lines of the listing
        self.notes: dict[int, str] = {}  # listing line -> comment replacing the run dropped there

    def docstring(self, node: ast.AST) -> list[ast.stmt]:
        """Keep the docstring's first paragraph (and its closing quotes); return the rest of the body."""
        body = list(getattr(node, "body", []))
        if not (body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0].value, "value", None), str)):
            return body
        first, last = body[0].lineno, body[0].end_lineno or body[0].lineno
        if last > first and self.lines[last - 1].strip() in {'"""', "'''"}:
            blank = next((i for i in range(first + 1, last) if not self.lines[i - 1].strip()), None)
            if blank is not None:
                self.drop.update(range(blank, last))
        return body[1:]

    def function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, in_class: bool) -> None:
        body = self.docstring(fn)
        marked = self._mark(fn, body)
        where = f"full source: {self.file}"
        if body and all(id(s) in marked for s in body):
            if in_class:  # a method that only checks (``__post_init__``) goes as a whole
                top = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
                self._replace(top, fn.end_lineno or fn.lineno, f"# … {fn.name}() elided: checks only "
                              f"({where})")
            return  # a function that only checks is shown as it is
        runs = self._runs(body, marked)
        for n, run in enumerate(runs):
            text = f"{ELIDED} ({where})" if n == 0 else "# … more checks elided"
            self._replace(run[0].lineno, run[-1].end_lineno or run[-1].lineno, text)
        self._nested(body, marked)

    def _mark(self, fn: ast.AST, body: list[ast.stmt]) -> set[int]:
        """Ids of the statements of ``body`` to elide: guards, and assignments only guards read."""
        marked = {id(s) for s in body if _is_guard(s)}
        changed = True
        while changed:
            changed = False
            for stmt in body:
                made = _assigned(stmt)
                if id(stmt) in marked or not made:
                    continue
                read_by_kept = _loads(fn, marked | {id(stmt)})
                read_by_marked = set().union(*(_loads(s, set()) for s in body if id(s) in marked))
                if not made & read_by_kept and made & read_by_marked:
                    marked.add(id(stmt))
                    changed = True
            for stmt in body:  # an if whose branches are now all elided is elided too
                if id(stmt) not in marked and isinstance(stmt, ast.If) and all(
                        all(id(s) in marked or _is_guard(s) for s in b) for b in _blocks(stmt)):
                    marked.add(id(stmt))
                    changed = True
        return marked

    @staticmethod
    def _runs(body: list[ast.stmt], marked: set[int]) -> list[list[ast.stmt]]:
        runs: list[list[ast.stmt]] = []
        previous = False
        for stmt in body:
            if id(stmt) in marked:
                if previous:
                    runs[-1].append(stmt)
                else:
                    runs.append([stmt])
            previous = id(stmt) in marked
        return runs

    def _nested(self, body: list[ast.stmt], marked: set[int]) -> None:
        """In nested blocks, an error path of three lines or more becomes one comment line."""
        for stmt in body:
            if id(stmt) in marked:
                continue
            for block in _blocks(stmt):
                tail = self._error_tail(block)
                if tail < len(block):
                    last = block[-1]
                    raised = _call_name(last.exc) if isinstance(last, ast.Raise) else ""
                    what = f"raises {raised}" if raised else "checks"
                    self._replace(block[tail].lineno, last.end_lineno or last.lineno,
                                  f"# … {what} (error message elided)")
                    block = block[:tail]
                for inner in block:  # nested guards (three lines or more) in the middle of a block
                    if _is_guard(inner) and (inner.end_lineno or inner.lineno) - inner.lineno >= 2:
                        names = [_call_name(n.exc) for n in ast.walk(inner) if isinstance(n, ast.Raise)]
                        self._replace(inner.lineno, inner.end_lineno or inner.lineno,
                                      f"# … raises {names[0] if names else ''} (error message elided)")
                self._nested(block, set())

    @staticmethod
    def _error_tail(block: list[ast.stmt]) -> int:
        """Where a block's closing error path starts (``len(block)`` if it has none worth eliding).

        The tail ends in a ``raise``; before it only guards and the assignments that build the
        message (names nothing earlier reads). It spans three lines or more.
        """
        last = block[-1]
        if not (isinstance(last, ast.Raise) and last.exc is not None):
            return len(block)
        start = len(block) - 1
        while start > 0:
            stmt, before = block[start - 1], block[: start - 1]
            made = _assigned(stmt)
            earlier = set().union(*(_loads(s, set()) for s in before)) if before else set()
            if _is_guard(stmt) or (made and not made & earlier and isinstance(stmt, ast.Assign)
                                   and not any(isinstance(n, ast.Call) for n in ast.walk(stmt.value))):
                start -= 1
            else:
                break
        if (last.end_lineno or last.lineno) - block[start].lineno < 2:
            return len(block)
        return start

    def _replace(self, first: int, last: int, text: str) -> None:
        if any(line in self.drop for line in range(first, last + 1)):
            return
        line = self.lines[first - 1]
        indent = line[: len(line) - len(line.lstrip())]
        self.drop.update(range(first, last + 1))
        self.notes[first] = "\n".join(indent + part for part in text.splitlines())


def elide_checks(code: str, file: str = "?") -> str:
    """``code`` (one dedented def or class) with argument checks, long error paths and the docstring
    past its first paragraph left out, each dropped run replaced by one comment line.

    ``file`` names where ``code`` lives, for the comment that points at the full source (no line
    number: it would change every listing below an edit). Lines that stay are the source's own
    lines, in order.
    """
    lines = code.splitlines()
    try:
        tree = ast.parse(code)
    except SyntaxError as err:  # a SyntaxError is no ValueError: name the argument and the line
        raise ValueError(f"code is not valid Python (line {err.lineno}: {err.msg})") from None
    elider = _Elider(lines, file)
    methods = {id(s) for node in ast.walk(tree) if isinstance(node, ast.ClassDef) for s in node.body}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            elider.function(node, in_class=id(node) in methods)
        elif isinstance(node, ast.ClassDef):
            elider.docstring(node)
    out: list[str] = []
    for number, line in enumerate(lines, start=1):
        if number in elider.notes:
            out.append(elider.notes[number])
        if number not in elider.drop:
            out.append(line)
    return "\n".join(out) + "\n"


# --- The Chinese edition's listings: the docstrings and comments in Chinese (issue 38) ---------------
# ``source_zh.json``: listing key -> {"english": fingerprint of the English docstrings and comments the
# listing shows, "zh": {English text: Chinese}}. The fingerprint covers those words only, never the code,
# so a code change leaves a translation valid and a changed comment invalidates it
# (tests/test_source_zh.py).
ZH_FILE = "source_zh.json"
_NOTES_ZH = (  # the comments elide_checks writes, in Chinese
    (re.compile(r"… checks elided \(full source: (\S+)\)"),
     r"… 省略了检查（完整源码：\1）"),
    (re.compile(r"… (\w+)\(\) elided: checks only \(full source: (\S+)\)"),
     r"… 省略了 \1()：其中只有检查（完整源码：\2）"),
    (re.compile(r"… more checks elided"), "… 省略了更多检查"),
    (re.compile(r"… raises (\w+) \(error message elided\)"), r"… 抛出 \1（省略了错误信息）"),
    (re.compile(r"… checks \(error message elided\)"), "… 检查（省略了错误信息）"),
)


def listing_key(obj: Any, full: bool = False) -> str:
    """The key of ``obj``'s listing in :data:`ZH_FILE`: ``module.qualname``, `` (full)`` for a whole one."""
    target = obj.fget if isinstance(obj, property) and obj.fget is not None else obj
    target = inspect.unwrap(target)
    return f"{target.__module__}.{target.__qualname__}" + (" (full)" if full else "")


def listing(obj: Any, full: bool = False) -> str:
    """The code :func:`show_source` shows for ``obj`` (English docstrings and comments)."""
    if isinstance(obj, property) and obj.fget is not None:  # a property shows its getter
        obj = obj.fget
    code = source_of(obj)
    return code if full else elide_checks(code, _file_of(obj))


class _Words(NamedTuple):
    """A docstring, or a comment (a run of whole-line comments at one column is one), in a listing."""

    kind: str  # "doc" or "comment"
    first: int  # first and last line (1-based)
    last: int
    col: int  # where the string or the "#" starts
    end_col: int  # where the string ends on its last line
    text: str  # the words, on one line
    prefix: str  # the string's prefix and quotes (docstrings)


PRAGMA = re.compile(r"^(type:|noqa|pragma|fmt:)")  # comments for tools: never translated


def _words(code: str) -> list[_Words]:
    """The docstrings and comments of ``code``, in order."""
    found: list[_Words] = []
    lines = code.splitlines()
    starts_statement = True
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        (row, col), (end_row, end_col) = token.start, token.end
        if token.type == tokenize.COMMENT:
            text = token.string.lstrip("#").strip()
            whole_line = not lines[row - 1][:col].strip()
            last = found[-1] if found else None
            if (whole_line and last is not None and last.kind == "comment" and last.last == row - 1
                    and last.col == col and not lines[row - 2][:col].strip() and not _is_note(text)
                    and not _is_note(last.text)):  # a note is never merged with the words beside it
                found[-1] = last._replace(last=row, end_col=end_col, text=f"{last.text} {text}")
            else:
                found.append(_Words("comment", row, row, col, end_col, text, "#"))
        elif token.type == tokenize.STRING and starts_statement and token.string.lstrip("rbuRBU")[:3] in {
                '"""', "\'\'\'"}:
            prefix = token.string[: len(token.string) - len(token.string.lstrip("rbuRBU")) + 3]
            found.append(_Words("doc", row, end_row, col, end_col,
                                " ".join(ast.literal_eval(token.string).split()), prefix))
        if token.type not in (tokenize.COMMENT, tokenize.NL):
            starts_statement = token.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
    return found


def _is_note(text: str) -> bool:
    """A comment :func:`elide_checks` adds, or one for a tool (``type: ignore``)."""
    return text.startswith("…") or bool(PRAGMA.match(text))


def english_texts(code: str) -> list[str]:
    """The English docstrings and comments a listing shows, without the notes :func:`elide_checks` adds."""
    return [w.text for w in _words(code) if w.text and not _is_note(w.text)]


def fingerprint(texts: list[str]) -> str:
    """A short hash of a listing's English words: it changes when one of them does."""
    return hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()[:16]


@cache
def zh_translations() -> dict[str, dict[str, Any]]:
    """The Chinese docstrings and comments of the listings (:data:`ZH_FILE`)."""
    return json.loads(resources.files(__package__).joinpath(ZH_FILE).read_text(encoding="utf-8"))


def _note_zh(text: str) -> str:
    for pattern, chinese in _NOTES_ZH:
        text = pattern.sub(chinese, text)
    return text


def translate_listing(code: str, key: str) -> str:
    """``code`` (a listing) with its docstrings and comments in Chinese, from :data:`ZH_FILE`'s ``key``.

    A text with no translation stays English (tests/test_source_zh.py finds it). Chinese is filled to
    88 columns; a trailing comment that would pass them goes on its own line above its code.
    """
    from .bilingual import display_width, fill

    zh = zh_translations().get(key, {}).get("zh", {})
    lines = code.splitlines()
    for w in reversed(_words(code)):  # from the end: earlier line numbers stay valid
        head, tail = lines[w.first - 1][: w.col], lines[w.last - 1][w.end_col:]
        indent = " " * w.col
        if w.kind == "comment":
            if _is_note(w.text):
                new = [head + "#" + _note_zh(lines[w.first - 1][w.col + 1:])]
            elif w.text in zh:
                trailing = bool(head.strip())
                at = len(head) - len(head.lstrip()) if trailing else w.col
                filled = fill(zh[w.text], 88, " " * at + "# ").splitlines()
                if trailing and display_width(head + "# " + zh[w.text]) <= 88:
                    new = [head + "# " + zh[w.text]]
                elif trailing:  # a trailing comment too long for its line: above the code
                    new = [*filled, head.rstrip()]
                else:
                    new = filled
            else:
                continue
        elif w.text in zh:
            closing = lines[w.last - 1][: w.end_col - 3]
            ends_alone = w.last > w.first and not closing.strip()
            room = 88 - len(w.prefix) - (0 if ends_alone else 3)  # the quotes that open and close it
            body = fill(zh[w.text], room, indent, indent)[w.col:].splitlines()
            new = [head + w.prefix + body[0], *body[1:]]
            new = [*new, closing + w.prefix[-3:] + tail] if ends_alone else [*new[:-1], new[-1] + w.prefix[-3:] + tail]
        else:
            continue
        lines[w.first - 1: w.last] = new
    return "\n".join(lines) + "\n"


def show_source(obj: Any, *, full: Flag = False) -> Any:
    """Display ``obj``'s source: highlighted Markdown in Jupyter, plain text elsewhere.

    By default the listing is :func:`elide_checks`'s: the idea, with the argument checks replaced by
    a comment saying where the full source is; ``full=True`` shows every line. In Chinese (the zh
    edition, :func:`~cs336_lec2.bilingual.set_language`) its docstrings and comments are Chinese
    (:func:`translate_listing`); a notebook that reads in both languages shows both listings, each
    tagged with its language. Returns the IPython ``Markdown`` object (rendered by Jupyter) when
    IPython is present, else the source string, so the cell's stored output is the same text on every
    machine.
    """
    from . import bilingual

    code = listing(obj, full)
    codes = {"en": code, "zh": translate_listing(code, listing_key(obj, full))}
    reads = bilingual.language()
    try:
        from IPython.display import Markdown  # noqa: F401  (present: the notebook form)
    except ImportError:  # plain Python: give back the text itself
        return codes[reads or "en"]
    return _listing_type()(codes if reads is None else {reads: codes[reads]})


@cache
def _listing_type() -> type:
    """The listing :func:`show_source` returns in Jupyter (made on first use: IPython is optional)."""
    from IPython.display import Markdown

    from . import bilingual

    class Listing(Markdown):
        """Highlighted Markdown whose plain text is the code; in a notebook that reads in both languages,
        shown once per language, each output tagged with its language (``.data``: the first)."""

        def __init__(self, codes: dict[str, str]) -> None:
            self.codes = codes
            super().__init__(f"```python\n{next(iter(codes.values()))}```")

        def __repr__(self) -> str:
            return next(iter(self.codes.values()))

        def _ipython_display_(self) -> None:
            if bilingual._shell() is None:
                print(repr(self))
                return
            for lang, text in self.codes.items():
                bilingual._publish({"text/markdown": f"```python\n{text}```", "text/plain": text},
                                   {bilingual.LANG_KEY: lang} if len(self.codes) > 1 else {})

    return Listing


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)
