#!/usr/bin/env python3
"""Change the repository URL everywhere it is written: ``_config.yml`` and every chapter's install cell.

Usage: .venv/bin/python tools/set_repo_url.py https://github.com/ORG/REPO [--root .]

``_config.yml``'s ``repository: url:`` names the repository of the book's buttons (Colab, issues,
repository) and the one the install cell of each chapter (``notebooks/NN_name.ipynb``, its first code
cell) installs the helper package from. A fork or a mirror changes both with this one command; the
notebooks keep every other byte (tests/test_notebooks.py checks the install cells stay identical).
A reader can also override the install cell's URL without editing anything: CS336_LEC2_REPO=URL.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat
import yaml

URL = re.compile(r"^(?:https?|ssh|file)://[^\s\"'\\]+$|^git@[\w.-]+:[^\s\"'\\]+$")


def current_url(root: Path) -> str:
    """The repository URL ``_config.yml`` holds now."""
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    url = (config.get("repository") or {}).get("url")
    if not url:
        raise ValueError(f"{root / '_config.yml'} has no repository: url:")
    return str(url)


def set_repo_url(root: Path, new: str) -> list[Path]:
    """Write ``new`` in place of the current URL; return the files it changed."""
    new = new.strip().rstrip("/")
    if not URL.match(new):
        raise ValueError(f"url must look like https://github.com/ORG/REPO (or ssh://, file://, git@host:), got {new!r}")
    old = current_url(root)
    changed: list[Path] = []
    config_path = root / "_config.yml"
    text = config_path.read_text(encoding="utf-8")
    line = re.compile(rf"^(repository:\n(?:[ \t]+.*\n)*?[ \t]+url:[ \t]*){re.escape(old)}[ \t]*$", re.M)
    updated, count = line.subn(lambda m: m.group(1) + new, text)
    if count != 1:
        raise ValueError(f"{config_path}: found no 'url: {old}' line under 'repository:'")
    if updated != text:
        config_path.write_text(updated, encoding="utf-8")
        changed.append(config_path)
    chapters = sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    if not chapters:
        raise ValueError(f"no chapter notebooks in {root / 'notebooks'}")
    for path in chapters:
        nb = nbformat.read(path, as_version=4)
        cell = next((c for c in nb.cells if c.cell_type == "code"), None)
        if cell is None or f'"{old}"' not in cell.source or "CS336_LEC2_REPO" not in cell.source:
            raise ValueError(f"{path}: its first code cell is not the install cell naming {old}")
        if old != new:
            cell.source = cell.source.replace(f'"{old}"', f'"{new}"')
            nbformat.write(nb, path)
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="the new repository URL, e.g. https://github.com/ORG/REPO")
    parser.add_argument("--root", type=Path, default=Path("."), help="the repository root (default .)")
    args = parser.parse_args(argv)
    try:
        old = current_url(args.root)
        changed = set_repo_url(args.root, args.url)
    except (ValueError, OSError) as err:
        print(f"set_repo_url: {err}", file=sys.stderr)
        return 2
    print(f"{old} -> {args.url.strip().rstrip('/')}: {len(changed)} files changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
