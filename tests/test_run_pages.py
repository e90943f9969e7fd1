"""A chapter page of a book built ``--from`` a run shows what ran (issue 27 §7): its parameters cell
names the device and preset the run record says it used, not the "auto" it asked for."""

from __future__ import annotations

import nbformat
import pytest

from cs336_lec2.publish.pages import show_run_parameters

RECORD = {"parameters": {"device": "cuda", "preset": "large", "requested_device": "auto", "requested_preset": "auto"}}


def _notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    parameters = nbformat.v4.new_code_cell('device = "auto"\npreset = "auto"\nseed = 0')
    parameters.metadata.tags = ["parameters"]
    injected = nbformat.v4.new_code_cell("# Parameters\ndevice = 'auto'\npreset = \"auto\"\n")
    injected.metadata.tags = ["injected-parameters"]
    other = nbformat.v4.new_code_cell('device = "auto"  # not a parameters cell')
    nb.cells = [parameters, injected, other]
    return nb


@pytest.mark.parametrize(("lang", "asked"), [("en", "asked for: "), ("zh", "请求值：")])
def test_the_parameters_cells_show_what_ran(lang, asked):
    nb = show_run_parameters(_notebook(), RECORD, lang)
    assert nb.cells[0].source == f'device = "cuda"  # {asked}"auto"\npreset = "large"  # {asked}"auto"\nseed = 0'
    assert nb.cells[1].source == f'# Parameters\ndevice = "cuda"  # {asked}"auto"\npreset = "large"  # {asked}"auto"\n'
    assert nb.cells[2].source == 'device = "auto"  # not a parameters cell'


def test_a_run_that_asked_for_what_it_ran_or_has_no_record_changes_nothing():
    same = {"parameters": {"device": "auto", "preset": "auto"}}
    for record in (same, None, {}):
        assert [c.source for c in show_run_parameters(_notebook(), record, "en").cells] == [
            c.source for c in _notebook().cells]
