"""The project's own promises: workflows, pins and ranges, and the shape of the helper package."""

from __future__ import annotations

import ast
import importlib.util
import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "cs336_lec2"
MAKE_TARGETS = set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), re.M))


WORKFLOWS = sorted(p.name for p in (ROOT / ".github" / "workflows").glob("*.yml"))


def test_the_expected_workflows_exist():
    assert {"ci.yml", "book.yml", "refresh.yml", "compat.yml"} <= set(WORKFLOWS)


@pytest.mark.parametrize("name", WORKFLOWS)
def test_workflows_are_valid_and_use_existing_commands(name):
    text = (ROOT / ".github" / "workflows" / name).read_text()
    workflow = yaml.safe_load(text)
    assert workflow["jobs"]
    # `on:` parses as True in YAML 1.1; either way the trigger must be there.
    assert workflow.get("on") or workflow.get(True)
    for target in re.findall(r"\bmake (\w+)", text):
        assert target in MAKE_TARGETS, f"{name} runs `make {target}`, which the Makefile lacks"
    for command in re.findall(r"cs336-lec2 (\w+)", text):
        assert command in {"info", "execute", "book"}


def test_refresh_runs_on_a_self_hosted_gpu_and_uploads_the_record():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "refresh.yml").read_text())
    job = workflow["jobs"]["execute"]
    assert "self-hosted" in job["runs-on"]
    assert True in workflow and "workflow_dispatch" in workflow[True]
    upload = next(s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact"))
    assert "run-record.json" in upload["with"]["path"]


def test_ci_script_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    assert "make test" in readme and "make book" in readme
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_requirements_are_pinned_and_the_package_takes_ranges():
    pins = [line for line in (ROOT / "requirements.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    assert all("==" in line for line in pins), [line for line in pins if "==" not in line]
    assert "torch==2.13.0" in pins
    assert any(line.startswith("jupyter-book==1.") for line in pins)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    deps = project["dependencies"] + [d for group in project["optional-dependencies"].values() for d in group]
    assert not [d for d in deps if "==" in d], "the package itself takes ranges (Colab keeps its torch)"
    assert project["scripts"]["cs336-lec2"] == "cs336_lec2.publish.cli:main"


def _dotted(path) -> str:
    """``hardware/cpus.py`` -> ``hardware.cpus``; a package's ``__init__.py`` is the package itself."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# Every module with code; the package __init__s that only describe what lives there are left out.
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if _dotted(p) not in {"", "publish"})
TESTED_BY = {"publish.results_names": "test_results_rows",
             "publish.sphinx_ext": "test_book", "publish.results_page": "test_book", "publish.book": "test_book",
             "publish.pages": "test_book", "publish.zh_search": "test_book", "publish.engine": "test_execute",
             "hardware.accelerators": "test_hardware", "hardware.cpus": "test_cpus",
             "distributed.worker": "test_distributed_worker", "distributed.launcher": "test_distributed_launcher",
             "distributed.cluster": "test_distributed_cluster", "distributed.nccl": "test_distributed_cluster",
             "distributed.parallelism": "test_distributed_parallelism",
             "en": "test_one_language", "zh": "test_one_language", "publish.one_language": "test_one_language",
             "publish.reader": "test_one_language", "distributed.measure": "test_distributed",
             "config": "test_transformer_model", "catalog": "test_transformer_accounting",
             "calculator_page": "test_calculator"}


@pytest.mark.parametrize("path", MODULES, ids=[_dotted(p) for p in MODULES])
def test_modules_are_small_documented_and_tested(path):
    name = _dotted(path)
    source = path.read_text()
    tree = ast.parse(source)
    assert ast.get_docstring(tree), f"{name} has no module docstring"
    public = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")]
    undocumented = [n.name for n in public if not ast.get_docstring(n) and n.name not in {"setup", "main"}]
    assert not undocumented, f"{name}: {undocumented}"
    assert "notebooks" not in {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    test_file = TESTED_BY.get(name, "test_" + name.rsplit(".", 1)[-1])
    assert (ROOT / "tests" / f"{test_file}.py").exists(), f"{name} has no tests/{test_file}.py"


def _imported_modules(path) -> set[str]:
    """The absolute names of the cs336_lec2 modules ``path`` imports, at the top or inside a function."""
    package = ["cs336_lec2", *path.relative_to(PACKAGE).parent.parts]
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names |= {module} | {f"{module}.{a.name}" for a in node.names}
    return {n for n in names if n.startswith("cs336_lec2")}


def test_the_chapters_modules_never_import_the_publishing_machinery():
    # The direction of the layout (CONTRIBUTING, "Where does my change go"): publish/ builds on the
    # modules the chapters teach, never the other way, so a reader of flops.py meets no Sphinx or papermill.
    readers = [p for p in PACKAGE.rglob("*.py") if "publish" not in p.relative_to(PACKAGE).parts]
    assert len(readers) > 15
    upward = {_dotted(p) or "cs336_lec2": sorted(m for m in _imported_modules(p) if m.startswith("cs336_lec2.publish"))
              for p in readers}
    assert not {k: v for k, v in upward.items() if v}


def test_the_import_direction_check_resolves_relative_imports():
    # The check above must not pass for want of understanding `from ..x import y` or `from .x import y`.
    assert "cs336_lec2.device" in _imported_modules(PACKAGE / "publish" / "cli.py")
    assert "cs336_lec2.publish.execute" in _imported_modules(PACKAGE / "publish" / "book.py")
    assert "cs336_lec2.device" in _imported_modules(PACKAGE / "hardware" / "__init__.py")
    assert "cs336_lec2.hardware.cpus" in _imported_modules(PACKAGE / "publish" / "execute.py")


# ---- the version ranges and `make compat` (issue 9 D) ----

def _compat_pins():
    spec = importlib.util.spec_from_file_location("compat_pins", ROOT / "tools" / "compat_pins.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pins() -> dict[str, str]:
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    return dict(line.lower().split("==") for line in lines if "==" in line and not line.startswith("#"))


def test_every_requirement_has_a_tested_lower_bound_and_the_pins_lie_in_range():
    pyproject = (ROOT / "pyproject.toml").read_text()
    bounds = _compat_pins().lower_bounds(pyproject)
    project = tomllib.loads(pyproject)["project"]
    names = {re.split(r"[\[<>=!~ ]", r)[0].lower() for r in project["dependencies"]}
    assert names <= set(bounds), "every runtime dependency has a lower bound for `make compat COMPAT=oldest`"
    assert "sphinx-mathjax-offline" in bounds, "_config.yml loads it: the [book] extra must install it"
    pins = _pins()
    for requirement in project["dependencies"] + [r for extra in project["optional-dependencies"].values()
                                                  for r in extra if not r.startswith(project["name"])]:
        name = re.split(r"[\[<>=!~ ]", requirement)[0].lower()
        assert name in pins, f"{name} is not pinned in requirements.txt"
        in_range = Version(pins[name]) in SpecifierSet(requirement[len(name):])
        assert in_range, f"requirements.txt's {name}=={pins[name]} is outside {requirement}"
    # Colab keeps its own torch (the install cell adds only this package): its runtime must lie in range
    # (torch 2.10, numpy 2.0.2, psutil 5.9.5, Python 3.12: googlecolab/backend-info's pip-freeze.gpu.txt, 2026).
    colab = {"torch": "2.10.0", "numpy": "2.0.2", "psutil": "5.9.5", "matplotlib": "3.10.0", "einops": "0.8.2"}
    for name, version in colab.items():
        assert Version(version) >= Version(bounds[name]), f"Colab's {name} {version} is below our lower bound"
    assert Version("3.12") in SpecifierSet(project["requires-python"])


def test_compat_pins_need_a_lower_bound():
    compat_pins = _compat_pins()
    toml = '[project]\nname = "x"\ndependencies = ["torch>=2.5.0", "numpy>=1.26,<3"]\n[project.optional-dependencies]\n'
    assert compat_pins.lower_bounds(toml + 'dev = ["x[book]", "pytest>=9"]') == {
        "torch": "2.5.0", "numpy": "1.26", "pytest": "9"}
    with pytest.raises(ValueError, match="'einops' needs a lower bound"):
        compat_pins.lower_bounds(toml + 'dev = ["einops"]')
    with pytest.raises(ValueError, match="needs a lower bound"):
        compat_pins.lower_bounds(toml + 'dev = ["ruff~=0.5"]')


def test_compat_target_and_matrix():
    makefile = (ROOT / "Makefile").read_text()
    assert "compat" in MAKE_TARGETS and "bash tools/compat.sh $(COMPAT)" in makefile
    script = (ROOT / "tools" / "compat.sh").read_text()
    assert "oldest | newest)" in script and "compat_pins.py" in script
    assert ".venv-compat-*/" in (ROOT / ".gitignore").read_text().splitlines()
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "compat.yml").read_text())
    matrix = {row["versions"]: row for row in workflow["jobs"]["compat"]["strategy"]["matrix"]["include"]}
    assert set(matrix) == {"oldest", "pinned", "newest"}
    assert matrix["oldest"]["command"] == "make compat COMPAT=oldest"
    assert matrix["newest"]["command"] == "make compat COMPAT=newest"
    assert matrix["pinned"]["command"] == "make test"
    # the oldest Python pyproject allows, and the CI of record's Python for the pins
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"].split(";")[0].strip().startswith(">=" + matrix["oldest"]["python"])
    ci = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    assert ci["jobs"]["test"]["steps"][1]["with"]["python-version"] == matrix["pinned"]["python"]
