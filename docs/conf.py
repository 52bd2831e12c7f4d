"""Sphinx configuration for vecampfit's documentation."""

import vecampfit

project = "vecampfit"
author = "the vecampfit authors"
copyright = "2026, the vecampfit authors"
release = vecampfit.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "numpydoc",
]

autosummary_generate = True
autodoc_default_options = {"members": True, "undoc-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
}
# The documentation must build without network access.
intersphinx_disabled_reftypes = ["*"]
intersphinx_mapping = {}

templates_path = []
exclude_patterns = ["_build"]
html_theme = "alabaster"
