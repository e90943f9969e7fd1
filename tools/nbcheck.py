#!/usr/bin/env python3
"""Structural lint for the chapter notebooks: the cell layout of CONTRIBUTING.md ("Chapters").

Usage: .venv/bin/python tools/nbcheck.py notebooks/*.ipynb
Exit status 1 when any notebook breaks a rule; one line per problem, then a summary line.
It reads the notebooks only; it never executes them.
"""
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
