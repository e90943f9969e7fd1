"""The reader namespace of the English edition: ``from cs336_lec2.en import *``.

The same names as ``from cs336_lec2 import *``; importing this module also sets the language a notebook
reads in to English (:func:`cs336_lec2.bilingual.set_language`), so that what the package says in both
languages (the device line of :func:`~cs336_lec2.presets.start`, its own messages) comes once, in English.
The en edition's notebooks start with this import.
"""

from . import *  # noqa: F403
from . import __all__  # noqa: F401
from .bilingual import set_language

set_language("en")
