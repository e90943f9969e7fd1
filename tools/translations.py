#!/usr/bin/env python3
"""Keep the Chinese edition from drifting behind the English one.

Each Chinese text records a fingerprint of the English text it translates:

- a chapter's ``lang-zh`` cell keeps it in its metadata (``"translates": "sha256:<12 hex>"``) and
  translates the ``lang-en`` cell just before it;
- a page ``book/zh/<name>.md`` keeps it in an HTML comment on its first line
  (``<!-- translates book/en/<name>.md sha256:<12 hex> -->``), which the built page does not show.

When an English text changes, its fingerprint no longer matches and ``check`` names the Chinese text
to update (``tests/test_translations.py`` runs it). After updating the translation, re-stamp the pair:

    python tools/translations.py check                                   # list drifted pairs; exit 1 if any
    python tools/translations.py stamp notebooks/05_flops_and_mfu.ipynb:7  # the zh cell at index 7
    python tools/translations.py stamp book/zh/intro.md                    # a zh page
    python tools/translations.py stamp --all                               # every pair (a new book only)

The fingerprint ignores trailing whitespace and line endings, so re-wrapping a line's end does not
count as a change; a changed word, number or formula does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEY = "translates"
PAGE_STAMP = re.compile(r"\A<!-- translates (?P<en>\S+) (?P<fp>sha256:[0-9a-f]{12}) -->\n")


def fingerprint(text: str) -> str:
    """``sha256:`` and 12 hex digits of ``text`` with line endings and trailing whitespace normalised."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    normal = "\n".join(lines).strip("\n")
    return "sha256:" + hashlib.sha256(normal.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class Drift:
    """A Chinese text whose recorded fingerprint does not match its English source."""

    where: str  # what to pass to ``stamp``: ``notebooks/x.ipynb:7`` or ``book/zh/x.md``
    problem: str

    def __str__(self) -> str:
        return f"{self.where}: {self.problem}"


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _tags(cell: dict) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def _pairs(nb: dict) -> list[tuple[int, int]]:
    """(en index, zh index) of every lang-en / lang-zh pair."""
    cells = nb["cells"]
    return [(i - 1, i) for i, c in enumerate(cells)
            if "lang-zh" in _tags(c) and i > 0 and "lang-en" in _tags(cells[i - 1])]


def check_notebook(path: Path, root: Path = ROOT) -> list[Drift]:
    """Every zh cell of the chapter ``path`` whose fingerprint is missing or stale."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    rel = path.resolve().relative_to(root.resolve()).as_posix()
    drifts = []
    for en, zh in _pairs(nb):
        recorded = nb["cells"][zh].get("metadata", {}).get(KEY)
        actual = fingerprint(_source(nb["cells"][en]))
        if recorded is None:
            drifts.append(Drift(f"{rel}:{zh}", f"zh cell records no fingerprint of en cell {en}"))
        elif recorded != actual:
            first = _source(nb["cells"][en]).strip().splitlines()[0][:70]
            drifts.append(Drift(f"{rel}:{zh}", f"en cell {en} changed since it was translated ({first!r} …); "
                                               "update the Chinese, then stamp the pair"))
    return drifts


def _en_page(zh_page: Path, root: Path) -> Path:
    return root / "book" / "en" / zh_page.name


def check_page(zh_page: Path, root: Path = ROOT) -> list[Drift]:
    """The zh page's stamp, if missing or stale against its English page."""
    rel = zh_page.resolve().relative_to(root.resolve()).as_posix()
    en_page = _en_page(zh_page, root)
    if not en_page.exists():
        return [Drift(rel, f"no English page {en_page.relative_to(root).as_posix()}")]
    match = PAGE_STAMP.match(zh_page.read_text(encoding="utf-8"))
    if not match:
        return [Drift(rel, "no '<!-- translates book/en/… sha256:… -->' line at the top")]
    if match["fp"] != fingerprint(en_page.read_text(encoding="utf-8")):
        return [Drift(rel, f"{en_page.relative_to(root).as_posix()} changed since it was translated; "
                           "update the Chinese, then stamp the page")]
    return []


def notebooks(root: Path = ROOT) -> list[Path]:
    return sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def zh_pages(root: Path = ROOT) -> list[Path]:
    return sorted((root / "book" / "zh").glob("*.md"))


def check_all(root: Path = ROOT) -> list[Drift]:
    """Every drifted pair of the book: chapters' cells and zh pages."""
    drifts = [d for p in notebooks(root) for d in check_notebook(p, root)]
    return drifts + [d for p in zh_pages(root) for d in check_page(p, root)]


def _write_notebook(path: Path, nb: dict) -> None:
    # The layout nbformat writes (indent 1, non-ASCII kept), so a stamp changes one line per cell.
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")


def stamp_notebook(path: Path, zh_index: int | None = None) -> int:
    """Record the current English fingerprint in one zh cell (or all, ``zh_index=None``); return how many."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    pairs = _pairs(nb)
    if zh_index is not None:
        pairs = [(en, zh) for en, zh in pairs if zh == zh_index]
        if not pairs:
            raise SystemExit(f"{path}: cell {zh_index} is not a lang-zh cell that follows a lang-en cell")
    for en, zh in pairs:
        nb["cells"][zh].setdefault("metadata", {})[KEY] = fingerprint(_source(nb["cells"][en]))
    _write_notebook(path, nb)
    return len(pairs)


def stamp_page(zh_page: Path, root: Path = ROOT) -> None:
    """Put (or refresh) the fingerprint line at the top of a zh page."""
    en_page = _en_page(zh_page, root)
    if not en_page.exists():
        raise SystemExit(f"{zh_page}: no English page {en_page}")
    text = PAGE_STAMP.sub("", zh_page.read_text(encoding="utf-8"), count=1)
    rel_en = en_page.relative_to(root).as_posix()
    line = f"<!-- translates {rel_en} {fingerprint(en_page.read_text(encoding='utf-8'))} -->\n"
    zh_page.write_text(line + text, encoding="utf-8")


def main(argv: list[str] | None = None, root: Path = ROOT) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("check", help="list the Chinese texts whose English changed; exit 1 if any")
    stamp = sub.add_parser("stamp", help="record that a Chinese text matches its English source now")
    stamp.add_argument("targets", nargs="*", help="notebooks/NN_x.ipynb:CELL (a zh cell's index) or book/zh/x.md")
    stamp.add_argument("--all", action="store_true", help="stamp every pair of the book")
    args = parser.parse_args(argv)
    if args.command == "check":
        drifts = check_all(root)
        for d in drifts:
            print(d)
        print(f"translations: {len(drifts)} drifted")
        return 1 if drifts else 0
    if args.all == bool(args.targets):
        parser.error("stamp takes targets or --all, not both or neither")
    if args.all:
        count = sum(stamp_notebook(p) for p in notebooks(root))
        for page in zh_pages(root):
            stamp_page(page, root)
        print(f"stamped {count} cells and {len(zh_pages(root))} pages")
        return 0
    for target in args.targets:
        path, _, cell = target.rpartition(":") if target.endswith(tuple("0123456789")) else (target, "", "")
        file = (root / path).resolve() if not Path(path).is_absolute() else Path(path)
        if file.suffix == ".ipynb":
            if not cell:
                raise SystemExit(f"{target}: name the zh cell, e.g. {path}:7")
            stamp_notebook(file, int(cell))
        elif file.suffix == ".md":
            stamp_page(file, root)
        else:
            raise SystemExit(f"{target}: expected notebooks/NN_x.ipynb:CELL or book/zh/x.md")
        print(f"stamped {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
