"""The project's own promises: workflows, pins and ranges, and the shape of the helper package."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import tomllib
import yaml

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "cs336_lec2"
MAKE_TARGETS = set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), re.M))


@pytest.mark.parametrize("name", ["ci.yml", "book.yml", "refresh.yml"])
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
    assert project["scripts"]["cs336-lec2"] == "cs336_lec2.cli:main"


MODULES = sorted(p for p in PACKAGE.glob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("path", MODULES, ids=[p.stem for p in MODULES])
def test_modules_are_small_documented_and_tested(path):
    source = path.read_text()
    assert len(source.splitlines()) <= 350, f"{path.name} has grown well past ~300 lines: split it"
    tree = ast.parse(source)
    assert ast.get_docstring(tree), f"{path.name} has no module docstring"
    public = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")]
    undocumented = [n.name for n in public if not ast.get_docstring(n) and n.name not in {"setup", "main"}]
    assert not undocumented, f"{path.name}: {undocumented}"
    assert "notebooks" not in {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    tested_by = {"sphinx_ext": "test_book", "results_page": "test_book", "book": "test_book",
                 "accelerators": "test_hardware"}
    assert (ROOT / "tests" / f"{tested_by.get(path.stem, 'test_' + path.stem)}.py").exists()
