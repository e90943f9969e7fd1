"""The package's import graph: no cycles, and an accounting core that imports without torch, quickly."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "cs336_lec2"

# The accounting core: configs, counts, bytes, napkin maths, ZeRO / FSDP, the cluster and NCCL models, the
# published facts and the calculator. Integer arithmetic: none of it needs torch.
CORE = ("config", "transformer_accounting", "activations", "napkin", "catalog", "distributed",
        "distributed.cluster", "distributed.nccl", "distributed.parallelism", "calculator", "calculator_memory",
        "calculator_url", "calculator_page", "validation")
IMPORT_BUDGET_S = 0.3  # issue 36: the core in under 0.3 s (interpreter start-up not counted)


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (at the top, inside a function or under TYPE_CHECKING).

    ``from .x import y`` imports ``x``, and ``x.y`` too when that is a module; a submodule counts as
    importing nothing of its parent package unless it says so.
    """
    files = {_module_name(p, root): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                module = ".".join([*base, *([node.module] if node.module else [])])
                found |= {module} | {f"{module}.{a.name}" for a in node.names}
        graph[name] = {m for m in found if m in files and m != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (its modules, the first repeated at the end), or None."""
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as err:
        return list(err.args[1])
    return None


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE)
    assert len(graph) > 40 and "cs336_lec2.calculator" in graph["cs336_lec2.calculator_page"]
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph) or [])}"


def test_the_cycle_check_sees_a_cycle_through_a_function_level_import(tmp_path: Path) -> None:
    # The cycles issue 36 found: calculator <-> validation (one side inside a function), lm <-> layers
    # (one side under TYPE_CHECKING). The check must see both kinds.
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "a.py").write_text("from .b import g\n")
    (root / "b.py").write_text("def g():\n    from . import a\n")
    (root / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import x\n")
    graph = import_graph(root)
    assert "pkg.a" in graph["pkg.b"] and "pkg.a" in graph["pkg.c"]
    assert set(find_cycle(graph) or []) == {"pkg.a", "pkg.b"}


_PROBE = """
import importlib, json, sys, time

class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "matplotlib"):
            raise ImportError(f"{name} is blocked: the accounting core must not need it")
        return None

sys.meta_path.insert(0, Blocked())
start, cpu = time.perf_counter(), time.process_time()
for name in sys.argv[1:]:
    importlib.import_module("cs336_lec2." + name)
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"seconds": seconds, "cpu_seconds": cpu, "numpy": "numpy" in sys.modules,
                  "beartype": "beartype" in sys.modules}))
"""


def _import_core() -> dict[str, object]:
    run = subprocess.run([sys.executable, "-c", _PROBE, *CORE], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout)


def test_the_accounting_core_imports_without_torch_quickly() -> None:
    # CPU time, best of three fresh interpreters: on a shared machine the wall clock also counts the time
    # other processes hold the cores (torch alone took 2.3 s of it before issue 36)
    runs = [_import_core() for _ in range(3)]
    assert not any(r["beartype"] for r in runs)  # ~0.2 s by itself: the core is checked from its first call
    best = min(float(r["cpu_seconds"]) for r in runs)  # type: ignore[arg-type]
    assert best < IMPORT_BUDGET_S, f"the accounting core took {best:.3f} s of CPU to import ({IMPORT_BUDGET_S} s)"


def test_the_calculator_computes_with_torch_blocked() -> None:
    code = _PROBE.replace("print(json.dumps", "from cs336_lec2.calculator import calculate\n"
                          "r = calculate({'model': 'llama2-7b'})\nprint(json.dumps")
    code = code.replace('"numpy": "numpy" in sys.modules,', '"total": r["parameters"]["total"],')
    run = subprocess.run([sys.executable, "-c", code, "calculator"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads(run.stdout)["total"] == 6_738_415_616  # Llama 2 7B's released checkpoint


@pytest.mark.parametrize("name", ["transformer_model", "distributed.measure"])
def test_the_torch_modules_are_not_in_the_core(name: str) -> None:
    # The line between the two halves: these need torch, and nothing in the core imports them.
    graph = import_graph(PACKAGE)
    reach, todo = set(), [f"cs336_lec2.{c}" for c in CORE]
    while todo:
        module = todo.pop()
        if module not in reach:
            reach.add(module)
            todo.extend(graph[module])
    assert f"cs336_lec2.{name}" not in reach


_FIRST_CALL = """
import json, sys
import cs336_lec2
from cs336_lec2 import flops, napkin
from cs336_lec2.catalog import Cluster
loaded = [getattr(cs336_lec2, name) for name in cs336_lec2.__all__]  # every module a chapter uses
before = "beartype" in sys.modules
said = []
for call in (lambda: napkin.training_days(-1, 1, 1), lambda: Cluster(gpus_per_node=0)):
    try:
        call()
    except TypeError as err:
        said.append(f"{type(err).__name__}: {err}")
try:  # a module outside the core: checked from its first call as well
    flops.matmul_flops(2, -3, 4)
except TypeError as err:
    said.append(f"{type(err).__name__}: {err}")
print(json.dumps({"before": before, "said": said,
                  "days": napkin.training_days(70e9, 1.4e12, 1024, 989e12, 0.5)}))
"""


def test_every_module_is_checked_from_its_first_call() -> None:
    run = subprocess.run([sys.executable, "-c", _FIRST_CALL], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    got = json.loads(run.stdout)
    assert got["before"] is False  # importing the package (and building the catalog's constants) loads no beartype
    assert got["said"][:2] == [
        "ArgumentError: training_days(): num_params must be a positive whole number (an int, or a float such "
        "as 70e9) below 2**1000, got int -1",
        "ArgumentError: Cluster(): gpus_per_node must be a positive int below 2**1000, got int 0",
    ]
    assert got["said"][2].startswith("ArgumentError: matmul_flops(): k must be")
    assert got["days"] > 0
