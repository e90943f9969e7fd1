"""The one-language notebooks a reader runs in a local Jupyter: ``cs336-lec2 notebooks``.

Each edition's notebook is the two-language source in ``notebooks/`` as that edition shows it
(:func:`.cells.edition_notebook`: its prose, its code's words, its outputs) in the form every notebook
viewer renders (:func:`.cells.reader_notebook`: boxes as ``<details>``, answers folded and not yet run).
The files a reader may have run and edited are never overwritten without ``force``.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from .cells import edition_notebook, reader_notebook


class WouldOverwriteError(ValueError):
    """Writing the notebooks would replace files a reader may have changed."""


def write_reader_notebooks(notebooks: Path, out: Path, languages: tuple[str, ...] = ("en", "zh"), *,
                           chapters: list[str] | None = None, force: bool = False) -> list[Path]:
    """Write ``out/<lang>/NN_name.ipynb`` for every chapter in ``notebooks`` (or those named in
    ``chapters``, as file stems) and language; return the paths written. Raises
    :class:`WouldOverwriteError` naming the files that exist and differ, unless ``force``."""
    sources = sorted(notebooks.glob("[0-9][0-9]_*.ipynb"))
    if chapters is not None:
        sources = [s for s in sources if s.stem in chapters]
    if not sources:
        raise FileNotFoundError(f"notebooks: no chapter notebooks (NN_name.ipynb) in {notebooks}")
    planned: dict[Path, str] = {}
    for source in sources:
        nb = nbformat.read(source, as_version=4)
        for lang in languages:
            text = nbformat.writes(reader_notebook(edition_notebook(nb, lang), lang)) + "\n"
            planned[out / lang / source.name] = text
    changed = [p for p, text in planned.items() if p.exists() and p.read_text(encoding="utf-8") != text]
    if changed and not force:
        names = ", ".join(str(p) for p in changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
        raise WouldOverwriteError(f"--output: {names} already exist and differ (your runs or edits?); "
                                  "choose another folder, or add --force to replace them")
    for path, text in planned.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(planned)
