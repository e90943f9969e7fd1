"""Write ``src/cs336_lec2/source_zh.json`` (the zh edition's listing docstrings and comments) from a
translation table, with each listing's fingerprint of its English words (issue 38).

    python tools/listings_zh.py TABLE.py    # TABLE.py defines ZH = {English text: Chinese}
    python tools/listings_zh.py --check     # list the listings whose English changed or lacks Chinese

The listings are those the chapters show (``show_source(...)`` in their code cells,
:func:`chapter_listings`); an English text already translated keeps its Chinese.
"""

from __future__ import annotations

import argparse
import ast
import json
import runpy
import sys
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "cs336_lec2" / "source_zh.json"


def chapter_listings() -> list[tuple[str, Any, bool]]:
    """(chapter, object, full) for each ``show_source(...)`` of the chapters' code cells."""
    import cs336_lec2

    names = {name: getattr(cs336_lec2, name) for name in cs336_lec2.__all__}
    found = []
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code" or "show_source" not in cell.source:
                continue
            tree = ast.parse(cell.source)
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "show_source"):
                    continue
                full = any(k.arg == "full" and ast.literal_eval(k.value) for k in node.keywords)
                arg = node.args[0]
                if isinstance(arg, ast.Call) and getattr(arg.func, "id", "") == "getattr":
                    # show_source(getattr(Owner, name)) in a loop over literal names
                    owner = eval(ast.unparse(arg.args[0]), names)
                    loop = next(n for n in ast.walk(tree) if isinstance(n, ast.For))
                    found += [(path.stem, getattr(owner, n), full) for n in ast.literal_eval(loop.iter)]
                else:
                    found.append((path.stem, eval(ast.unparse(arg), names), full))
    return found


def stale(table: dict[str, Any]) -> list[str]:
    """The listings whose entry is missing, whose English changed, or with an English text untranslated."""
    from cs336_lec2.source import english_texts, fingerprint, listing, listing_key

    problems = []
    for chapter, obj, full in chapter_listings():
        key, texts = listing_key(obj, full), english_texts(listing(obj, full))
        entry = table.get(key)
        if entry is None or entry["english"] != fingerprint(texts):
            problems.append(f"{chapter}: {key}: its English docstrings or comments changed; translate: "
                            + "; ".join(t for t in texts if t not in (entry or {}).get("zh", {})) or "(none new)")
        elif missing := [t for t in texts if t not in entry["zh"]]:
            problems.append(f"{chapter}: {key}: no Chinese for {missing}")
    return problems


def build(zh: dict[str, str]) -> dict[str, Any]:
    from cs336_lec2.source import english_texts, fingerprint, listing, listing_key

    table: dict[str, Any] = {}
    for _, obj, full in chapter_listings():
        texts = english_texts(listing(obj, full))
        table[listing_key(obj, full)] = {"english": fingerprint(texts), "zh": {t: zh[t] for t in texts}}
    return dict(sorted(table.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", nargs="?", help="a Python file defining ZH = {English: Chinese}")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if args.check or not args.table:
        problems = stale(json.loads(OUT.read_text(encoding="utf-8")))
        print("\n".join(problems) or "every listing has its Chinese")
        return 1 if problems else 0
    known = {t: c for entry in json.loads(OUT.read_text(encoding="utf-8")).values() for t, c in entry["zh"].items()}
    zh = {**known, **runpy.run_path(args.table)["ZH"]}
    OUT.write_text(json.dumps(build(zh), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
