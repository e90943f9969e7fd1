"""The reader namespace of the Chinese edition: ``from cs336_lec2.zh import *``.

The same names as ``from cs336_lec2 import *``; importing this module also sets the language a notebook
reads in to Chinese (:func:`cs336_lec2.bilingual.set_language`), so that figures get a CJK font and the
package's own messages come in Chinese. The zh edition's notebooks start with this import.
"""

from . import *  # noqa: F403
from . import __all__  # noqa: F401
from .bilingual import set_language

set_language("zh")
