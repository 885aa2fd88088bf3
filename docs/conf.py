"""Sphinx configuration of pairedframe's documentation (build: ``sphinx-build -W --keep-going -b html docs
docs/_build/html``; ``pip install ".[docs]"``).

The API reference is generated from the docstrings of every name in ``pairedframe.__all__``
(autosummary + numpydoc, ``reference/api.rst`` is written here at each build); the CLI reference from
the ``pairedframe`` command itself (``_ext/pf_cli.py``); the "how we know" pages include the tables the
benchmark scripts wrote to ``docs/results/`` (``_ext/pf_results.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent / "src"))

import pairedframe  # noqa: E402

project = "pairedframe"
author = "pairedframe developers"
copyright = "pairedframe developers"
release = version = pairedframe.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "pf_api",
    "pf_cli",
    "pf_results",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_generated", "results", "README.md"]
root_doc = "index"

myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

autosummary_generate = True
autodoc_typehints = "none"            # numpydoc's Parameters sections say the types
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# numpydoc's checks: a public name without a docstring (GL08) and unknown sections (GL06, GL07) fail the build.
numpydoc_validation_checks = {"GL06", "GL07", "GL08"}

html_theme = "pydata_sphinx_theme"
html_title = f"pairedframe {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path: list[str] = []
# dataclasses' generated __init__ has no docstring of its own: the class docstring documents it.
numpydoc_validation_exclude = {r"\.__init__$"}
# Options such as --plan stay two hyphens (no typographic dashes or quotes).
smartquotes = False
