"""How ``execute`` runs one chapter: a papermill engine that writes the notebook once, and its failures.

papermill's own engine writes the whole output notebook twice per cell (as the cell starts and as it
ends), to follow a long run from outside. A chapter of 100 cells and half a megabyte of figures is then
serialised and validated 200 times: about a quarter of a chapter's time on a 2-core machine (issue 30).
``execute`` asks papermill to write the notebook once, at the end or with the error, and runs it with
:class:`RememberingEngine`, which keeps the notebook being run so that a timeout or a dead kernel (both
raise before papermill writes anything) still leaves a partial copy that names the cell that failed.

The kernel is stopped at once when the chapter is done, not asked to exit: a kernel that imported
torch and torch._dynamo takes about a second to tear its interpreter down, a second per chapter for
nothing (every output has arrived by then; the chapters remove their scratch folders themselves).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
from papermill.engines import NBClientEngine, papermill_engines

ENGINE_NAME = "cs336-lec2"


class RememberingEngine(NBClientEngine):
    """papermill's nbclient engine, keeping the notebook it runs (papermill stamps each cell's start in it)."""

    notebook: nbformat.NotebookNode | None = None

    @classmethod
    def execute_managed_notebook(cls, nb_man: Any, kernel_name: str, **kwargs: Any) -> Any:
        """papermill's, after keeping ``nb_man.nb`` (the notebook as it runs) in :attr:`notebook`."""
        cls.notebook = nb_man.nb
        return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)


papermill_engines.register(ENGINE_NAME, RememberingEngine)


def run_notebook(path: Path, scratch: Path, **kwargs: Any) -> None:
    """``papermill.execute_notebook(path, scratch, **kwargs)``, writing ``scratch`` once (or at the failure).

    On a timeout or a dead kernel the partial notebook is written to ``scratch`` before the error goes on.
    """
    import papermill

    RememberingEngine.notebook = None
    try:
        papermill.execute_notebook(str(path), str(scratch), engine_name=ENGINE_NAME,
                                   request_save_on_cell_execute=False, shutdown_kernel="immediate", **kwargs)
    except Exception:
        if RememberingEngine.notebook is not None and not scratch.exists():
            nbformat.write(RememberingEngine.notebook, scratch)
        raise
    finally:
        RememberingEngine.notebook = None


def failed_cell(notebook: Path) -> str:
    """``cell [N] (first line)`` for the last cell that started executing in a partial notebook, else ``a cell``."""
    try:
        nb = nbformat.read(notebook, as_version=4)
    except (OSError, ValueError):
        return "a cell"
    code = [c for c in nb.cells if c.cell_type == "code"]
    # papermill stamps a cell's start time as it begins; its execution count may not be saved yet
    started = [i for i, c in enumerate(code)
               if c.get("execution_count") is not None or c.metadata.get("papermill", {}).get("start_time")]
    if not started:
        return "a cell"
    number = started[-1] + 1  # a top-to-bottom run numbers the code cells 1, 2, 3, ...
    first = next((line.strip() for line in code[started[-1]].source.splitlines() if line.strip()), "")
    return f"cell [{number}] ({first[:60]})" if first else f"cell [{number}]"


def describe_failure(err: BaseException, notebook: Path | None = None, timeout: float | None = None) -> str:
    """One line naming the cell and the error (papermill's error carries both; timeouts and dead kernels do not)."""
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    if isinstance(err, CellTimeoutError):
        where = failed_cell(notebook) if notebook is not None else "a cell"
        return f"{where} ran past the {timeout:g} s limit of --timeout and was stopped"
    if isinstance(err, DeadKernelError):
        where = failed_cell(notebook) if notebook is not None else "a cell"
        return f"the kernel died while running {where} (out of memory, or a crash in native code)"
    ename = getattr(err, "ename", type(err).__name__)
    evalue = getattr(err, "evalue", str(err))
    cell = getattr(err, "exec_count", None)
    where = f"cell [{cell}]" if cell is not None else "a cell"
    return f"{where} raised {ename}: {str(evalue).strip().splitlines()[0] if str(evalue).strip() else ''}"
