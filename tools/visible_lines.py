"""Visible code lines per chapter: what a reader of the English edition sees without a click.

A code cell's source is visible unless the book removes or folds it (`remove-cell`, `remove-input`,
`hide-input`, `hide-cell`) or the cell conventions fold it (`checks`, `plot`, `gpu`, `answer`). The lines
counted are those of the en edition (the one-language rewrite applied, `cs336_lec2.publish.one_language`).
Usage: .venv/bin/python tools/visible_lines.py [--cells] notebooks/*.ipynb
  --cells also lists each visible cell over 20 lines, and the setup (parameters + setup cell) lines.
"""

from __future__ import annotations

import json
import sys

from cs336_lec2.publish.one_language import one_language

FOLDED = {"remove-cell", "remove-input", "hide-input", "hide-cell", "checks", "plot", "gpu", "helper", "answer"}
LONG = 20


def visible_cells(nb: dict) -> list[tuple[int, int]]:
    """(cell index, non-blank en-edition lines) of each code cell a reader sees unfolded."""
    found = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code" or FOLDED & set(cell.get("metadata", {}).get("tags", [])):
            continue
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        found.append((i, sum(1 for line in one_language(source, "en").splitlines() if line.strip())))
    return found


def visible_lines(nb: dict) -> int:
    """Non-blank source lines of the code cells a reader of the en edition sees unfolded."""
    return sum(n for _, n in visible_cells(nb))


def setup_lines(nb: dict) -> int:
    """Visible lines of the parameters cell and the next visible code cell (the setup a reader sees)."""
    cells = visible_cells(nb)
    params = next(i for i, c in enumerate(nb["cells"]) if "parameters" in c.get("metadata", {}).get("tags", []))
    after = [n for i, n in cells if i >= params]
    return sum(after[:2])


def main(args: list[str]) -> int:
    show_cells = "--cells" in args
    grand = 0
    for path in [a for a in args if a != "--cells"]:
        with open(path, encoding="utf-8") as f:
            nb = json.load(f)
        n = visible_lines(nb)
        grand += n
        extra = ""
        if show_cells:
            long = [f"c{i}:{k}" for i, k in visible_cells(nb) if k > LONG]
            extra = f"\tsetup {setup_lines(nb)}\tover {LONG}: {' '.join(long) or '-'}"
        print(f"{path}\t{n}{extra}")
    print(f"total\t{grand}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
