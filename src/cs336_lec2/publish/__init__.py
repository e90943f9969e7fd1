"""The machinery that publishes the book; nothing here is taught by a chapter.

- :mod:`~cs336_lec2.publish.cli`: the ``cs336-lec2`` command (``info``, ``execute``, ``book``)
- :mod:`~cs336_lec2.publish.execute`: re-execute the chapters with papermill, write a run record
- :mod:`~cs336_lec2.publish.book`: build the two editions (en, zh) with Jupyter Book 1
- :mod:`~cs336_lec2.publish.results_page`: render run records as the "Hardware results" page
- :mod:`~cs336_lec2.publish.sphinx_ext`: the Sphinx extension both editions load

It imports from the chapters' modules (``device``, ``presets``, ``results``, ``hardware``), never the
other way round: a reader of ``flops.py`` meets no Sphinx or papermill.
"""
