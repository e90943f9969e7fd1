#!/usr/bin/env python3
"""Structural lint for the chapter notebooks: the cell layout of CONTRIBUTING.md ("Chapters"), and
asserts that cannot fail (all operands literals or names bound to literals: "Facts and numbers").

Usage: .venv/bin/python tools/nbcheck.py notebooks/*.ipynb
Exit status 1 when any notebook breaks a rule; one line per problem, then a summary line.
It reads the notebooks only; it never executes them.
"""
import ast
import json
import re
import sys

CJK = re.compile(r"[\u4e00-\u9fff]")
# an absolute file path of three or more parts (not part of a URL), or an installed-package path
MACHINE_PATH = re.compile(r"((?<![:/\w.])/[A-Za-z_][\w.-]*/[\w.-]+/[\w.-]+|site-packages)")
HEADING = re.compile(r"^(#{1,6})\s", re.M)


def text(src):
    return "".join(src) if isinstance(src, list) else src


def headings(s):
    return [len(h) for h in HEADING.findall(s)]


def _parse(src):
    """The cell's code as an ast module; IPython's %magic and !shell lines read as `pass`."""
    lines = ["pass" if line.lstrip().startswith(("%", "!")) else line for line in src.splitlines()]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


# the nodes a literal expression is built of: constants, containers and operators on them
_LITERAL_NODES = (ast.Constant, ast.UnaryOp, ast.BinOp, ast.BoolOp, ast.Compare, ast.Tuple, ast.List,
                  ast.Set, ast.Dict, ast.operator, ast.unaryop, ast.boolop, ast.cmpop, ast.expr_context)


def _is_literal(node, bound):
    """True when `node` is made of constants and names in `bound` only (no call, attribute, subscript)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            if sub.id not in bound:
                return False
        elif not isinstance(sub, _LITERAL_NODES):
            return False
    return True


def _bindings(trees):
    """Each name bound anywhere in the chapter -> the values it is bound to (None: not a plain value)."""
    values: dict[str, list[ast.expr | None]] = {}

    def bind(target, value):
        if isinstance(target, ast.Name):
            values.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            same = isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts)
            for i, t in enumerate(target.elts):
                bind(t, value.elts[i] if same else None)
        elif isinstance(target, ast.Starred):
            bind(target.value, None)

    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    bind(t, node.value)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                bind(node.target, None if isinstance(node, ast.AugAssign) else node.value)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                bind(node.target, None)
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                bind(node.optional_vars, None)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                values.setdefault(node.name, []).append(None)
            elif isinstance(node, ast.arg):
                values.setdefault(node.arg, []).append(None)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    values.setdefault((alias.asname or alias.name).split(".")[0], []).append(None)
    return values


def _changed_in_place(trees):
    """Names a cell may change without rebinding (`x.append(...)`, `x[i] = ...`), and names passed to a call."""
    changed: set[str] = set()
    passed: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Attribute, ast.Subscript)):
                stored = isinstance(node, ast.Attribute) or isinstance(node.ctx, (ast.Store, ast.Del))
                if stored and isinstance(node.value, ast.Name):
                    changed.add(node.value.id)
            elif isinstance(node, ast.Call):
                args = [*node.args, *(k.value for k in node.keywords)]
                passed.update(a.id for a in args if isinstance(a, ast.Name))
    return changed, passed


def literal_asserts(sources):
    """The asserts of a chapter's code cells whose operands are all literals or names bound to literals.

    Such an assert compares a constant with itself: it cannot fail, whatever the code computes
    (issue 37 item 25). `sources` are the code cells in order; returns (cell index, line, text).
    """
    trees = {i: t for i, t in ((i, _parse(src)) for i, src in sources) if t is not None}
    values = _bindings(trees.values())
    changed, passed = _changed_in_place(trees.values())
    mutable = (ast.List, ast.Dict, ast.Set)
    bound: set[str] = set()
    while True:  # a name bound once, to literals and earlier such names, to a fixed point
        grown = {name for name, vs in values.items()
                 if len(vs) == 1 and vs[0] is not None and _is_literal(vs[0], bound)
                 and name not in changed and not (name in passed and isinstance(vs[0], mutable))}
        if grown <= bound:
            break
        bound |= grown
    found = []
    for i, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Assert) and _is_literal(node.test, bound):
                found.append((i, node.lineno, ast.unparse(node.test)))
    return found


def check(path):
    problems, warnings = [], []
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    cells = nb["cells"]
    tags = [c.get("metadata", {}).get("tags", []) for c in cells]
    params = [i for i, t in enumerate(tags) if "parameters" in t]
    if len(params) != 1:
        problems.append(f"{len(params)} cells tagged 'parameters' (want 1)")
    else:
        src = text(cells[params[0]]["source"])
        for name in ("device", "preset"):
            if not re.search(rf"^{name}\s*=", src, re.M):
                problems.append(f"parameters cell lacks '{name} = ...'")
    expected = 1
    for i, (c, t) in enumerate(zip(cells, tags, strict=True)):
        src = text(c["source"])
        where = f"cell {i}"
        if c["cell_type"] == "markdown":
            if not src.strip():
                continue
            if "lang-en" in t:
                nxt = cells[i + 1] if i + 1 < len(cells) else None
                if nxt is None or "lang-zh" not in nxt.get("metadata", {}).get("tags", []):
                    problems.append(f"{where}: lang-en cell not followed by its lang-zh cell")
                else:
                    zh = text(nxt["source"])
                    if headings(src) != headings(zh):
                        problems.append(f"{where}: heading levels differ between en and zh")
                if len(CJK.findall(src)) > 0.05 * max(1, len(src)):
                    problems.append(f"{where}: lang-en cell is mostly Chinese")
            elif "lang-zh" in t:
                prev = cells[i - 1] if i > 0 else None
                if prev is None or "lang-en" not in prev.get("metadata", {}).get("tags", []):
                    problems.append(f"{where}: lang-zh cell not preceded by its lang-en cell")
                if not CJK.search(src):
                    problems.append(f"{where}: lang-zh cell has no Chinese")
            else:
                problems.append(f"{where}: markdown cell without lang-en/lang-zh tag")
        elif c["cell_type"] == "code":
            if "NBVAL_" in src:
                problems.append(f"{where}: NBVAL_ comment marker (use the nbval-* tag instead)")
            if not src.strip():
                continue
            n = c.get("execution_count")
            if n is None:
                problems.append(f"{where}: not executed")
            elif n != expected:
                problems.append(f"{where}: execution_count {n}, expected {expected} (run top to bottom)")
            expected = (n or expected) + 1
            for o in c.get("outputs", []):
                if o.get("output_type") == "error":
                    problems.append(f"{where}: error output {o.get('ename')}")
                blob = text(o.get("text", "")) + "\n" + text(o.get("data", {}).get("text/plain", ""))
                m = MACHINE_PATH.search(blob)
                if m:
                    problems.append(f"{where}: machine path in output ({m.group(0)})")
            # its asserts may sit in the `checks` cells that follow it (CONTRIBUTING, "Cell conventions")
            following = []
            for later in cells[i + 1:]:
                if later.get("cell_type") != "code":
                    break
                following.append(later)
            checked = any("checks" in later.get("metadata", {}).get("tags", []) and "assert" in text(later["source"])
                          for later in following)
            if "nbval-ignore-output" in t and "assert" not in src and not checked:
                warnings.append(f"{where}: nbval-ignore-output cell asserts nothing (is that right?)")
    code = [(i, text(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "code"]
    for i, line, test in literal_asserts(code):
        problems.append(f"cell {i}: assert on literals only, it cannot fail (line {line}: {test})")
    return problems, warnings


def main(paths):
    bad = 0
    for p in paths:
        problems, warnings = check(p)
        for prob in problems:
            print(f"{p}: {prob}")
            bad += 1
        for w in warnings:
            print(f"{p}: warning: {w}")
    print(f"nbcheck: {len(paths)} notebooks, {bad} problems")
    return 1 if bad or not paths else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
