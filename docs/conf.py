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
