"""Importing the examples' modules from the tests.

The examples are folders of scripts that import their siblings by name
(``common``, ``model``, ``generate``, ...), and several examples use the
same names.  :func:`use_example` makes one example's folder the one such
imports resolve to: it puts the folder first on ``sys.path`` and forgets
the modules of the other examples' folders (``tests/conftest.py`` calls it
before every test of a module that names its ``EXAMPLE`` folder).
"""

import os
import sys

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def use_example(folder):
    """Make ``folder`` (an example's folder) the one sibling imports resolve to."""
    folder = os.path.abspath(folder)
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if not path:
            continue
        where = os.path.dirname(os.path.abspath(path))
        if os.path.dirname(where) == EXAMPLES and where != folder:
            del sys.modules[name]
    while folder in sys.path:
        sys.path.remove(folder)
    sys.path.insert(0, folder)
