"""Show the package's own code inside a chapter, so the book teaches it without keeping a copy.

A chapter shows the idea of a function, not its error handling. Argument types are checked by
beartype where a call enters (:mod:`cs336_lec2.checks`), so a formula's body holds no checks and its
listing is the function as it is; :func:`show_source` leaves out only the value rules that remain
(``if <bad>: raise ...`` guards) and long error messages, and says so in one comment line that names
the file and line of the full source. Every other line is the function's own source, verbatim and in
order. ``show_source(fn, full=True)`` shows everything.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import PurePath
from typing import Any

from .checks import Flag

ELIDED = "# … checks elided"


def source_of(obj: Any) -> str:
    """The source code of a function, class or method of this package, dedented."""
    try:
        return textwrap.dedent(inspect.getsource(obj))
    except (TypeError, OSError) as err:
        raise TypeError(f"obj must be a function, class or method defined in Python source, got {obj!r}") from err


def _where(obj: Any) -> tuple[str, int]:
    """``obj``'s file as ``package/module.py`` (never a machine path) and its first line."""
    target = inspect.unwrap(obj)
    path = PurePath(inspect.getsourcefile(target) or "?")
    parts = path.parts
    name = path.name
    if "cs336_lec2" in parts:  # the path inside the package, whatever the install location
        name = "/".join(parts[len(parts) - 1 - parts[::-1].index("cs336_lec2"):])
    return name, inspect.getsourcelines(target)[1]


def _call_name(node: ast.AST) -> str:
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

    def __init__(self, lines: list[str], where: tuple[str, int]) -> None:
        self.lines = lines
        self.file, self.first = where  # the listing's line 1 is line `first` of the file
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
        where = f"full source: {self.file}, line {self.first + fn.lineno - 1}"
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
                        raised = [_call_name(n.exc) for n in ast.walk(inner) if isinstance(n, ast.Raise)]
                        self._replace(inner.lineno, inner.end_lineno or inner.lineno,
                                      f"# … raises {raised[0] if raised else ''} (error message elided)")
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


def elide_checks(code: str, where: tuple[str, int] = ("?", 1)) -> str:
    """``code`` (one dedented def or class) with argument checks, long error paths and the docstring
    past its first paragraph left out, each dropped run replaced by one comment line.

    ``where`` is the file and first line of ``code`` in it, for the comment that points at the full
    source. Lines that stay are the source's own lines, in order.
    """
    lines = code.splitlines()
    try:
        tree = ast.parse(code)
    except SyntaxError as err:  # a SyntaxError is no ValueError: name the argument and the line
        raise ValueError(f"code is not valid Python (line {err.lineno}: {err.msg})") from None
    elider = _Elider(lines, where)
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


def show_source(obj: Any, *, full: Flag = False) -> Any:
    """Display ``obj``'s source: highlighted Markdown in Jupyter, plain text elsewhere.

    By default the listing is :func:`elide_checks`'s: the idea, with the argument checks replaced by
    a comment saying where the full source is; ``full=True`` shows every line. Returns the IPython
    ``Markdown`` object (rendered by Jupyter) when IPython is present, else the source string, so the
    cell's stored output is the same text on every machine.
    """
    if isinstance(obj, property) and obj.fget is not None:  # a property shows its getter
        obj = obj.fget
    code = source_of(obj)
    if not full:
        code = elide_checks(code, _where(obj))
    try:
        from IPython.display import Markdown
    except ImportError:  # plain Python: give back the text itself
        return code
    return Markdown(f"```python\n{code}```")
