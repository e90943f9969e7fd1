"""Visible code lines per chapter: what a reader of the English edition sees without a click.

A code cell's source is visible unless the book removes or folds it (`remove-cell`, `remove-input`,
`hide-input`, `hide-cell`) or the cell conventions fold it (`checks`, `plot`, `answer`).
Usage: .venv/bin/python tools/visible_lines.py notebooks/*.ipynb   (or git show REV:path for a revision)
"""

from __future__ import annotations

import json
import sys

FOLDED = {"remove-cell", "remove-input", "hide-input", "hide-cell", "checks", "plot", "answer"}


def visible_lines(nb: dict) -> int:
    """Non-blank source lines of the code cells a reader sees unfolded."""
    total = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code" or FOLDED & set(cell.get("metadata", {}).get("tags", [])):
            continue
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        total += sum(1 for line in source.splitlines() if line.strip())
    return total


def main(paths: list[str]) -> int:
    grand = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            n = visible_lines(json.load(f))
        grand += n
        print(f"{path}\t{n}")
    print(f"total\t{grand}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
