"""Show the package's own code inside a chapter, so the book teaches it without keeping a copy."""

from __future__ import annotations

import inspect
import textwrap
from typing import Any


def source_of(obj: Any) -> str:
    """The source code of a function, class or method of this package, dedented."""
    try:
        return textwrap.dedent(inspect.getsource(obj))
    except (TypeError, OSError) as err:
        raise TypeError(f"obj must be a function, class or method defined in Python source, got {obj!r}") from err


def show_source(obj: Any) -> Any:
    """Display ``obj``'s source: highlighted Markdown in Jupyter, plain text elsewhere.

    Returns the IPython ``Markdown`` object (rendered by Jupyter) when IPython is present, else the
    source string, so the cell's stored output is the same text on every machine.
    """
    code = source_of(obj)
    try:
        from IPython.display import Markdown
    except ImportError:  # plain Python: give back the text itself
        return code
    return Markdown(f"```python\n{code}```")
