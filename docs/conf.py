"""Sphinx configuration of the crawlab course book."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import frontier  # noqa: E402

project = "crawlab"
author = "the crawlab authors"
copyright = "2026, the crawlab authors"
release = frontier.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
]
intersphinx_mapping = {}  # no network in the lab machines: keep the build offline
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "description"
nitpicky = False
exclude_patterns = ["_build", "results/**/*.csv"]
html_theme = "furo"
html_title = f"crawlab {release}"

# --------------------------------------------------------------------------------------------
# Instructor edition: ``sphinx-build -t instructor ...`` adds the instructor notes (answers and
# reference solutions). The student build excludes those pages entirely (no HTML, no _sources
# copy, no search-index entry), so the answers are not in it at all.

INSTRUCTOR = tags.has("instructor")  # noqa: F821 (``tags`` is given to conf.py by Sphinx)
if not INSTRUCTOR:
    exclude_patterns.append("instructor/**")
else:
    html_title = f"crawlab {release} (instructor edition)"

_INSTRUCTOR_TOCTREE = """

.. toctree::
   :maxdepth: 1
   :caption: Instructor

   instructor/index
"""


def _add_instructor_toctree(app, docname, source):
    """Append the instructor section to the index's toctree in the instructor build only, so
    ``index.rst`` never names pages that the student build does not have."""
    if INSTRUCTOR and docname == "index":
        source[0] += _INSTRUCTOR_TOCTREE


def setup(app):
    app.connect("source-read", _add_instructor_toctree)
