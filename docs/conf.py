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


def _write_rules(app):
    """``exercises/rules.inc``: the grader's policy table (:mod:`exercises.policy`), generated
    at every build so the page shows exactly what the grader enforces."""
    from exercises.policy import BUILTINS, DUNDERS, EXERCISES

    rows = []
    for e in EXERCISES.values():
        allowed = "; ".join(f"``{m}``: {', '.join(names)}" for m, names in e.allowed.items())
        forbidden = "; ".join(sorted(set(e.forbidden.values()))) or "--"
        rows.append(f"   * - {e.key}\n     - ``{e.file}``: ``{e.obj}``\n     - {allowed}\n"
                    f"     - {forbidden}\n     - {len(e.public)} public, {len(e.hidden)} hidden"
                    f"\n     - {e.seconds:g} s, silent {e.patience:g} s")
    text = (".. list-table:: The grader's policy (generated from ``exercises/policy.py``)\n"
            "   :header-rows: 1\n   :widths: 6 18 40 16 10 10\n\n"
            "   * - exercise\n     - file: class\n     - may import (module: names)\n"
            "     - forbidden\n     - suites\n     - limits\n" + "\n".join(rows) + "\n\n"
            f"Builtins every exercise may use: {', '.join(f'``{b}``' for b in sorted(BUILTINS))}."
            f"\n\nDunder names allowed: {', '.join(f'``{d}``' for d in sorted(DUNDERS))}.\n")
    out = Path(app.srcdir) / "exercises" / "rules.inc"
    if not out.exists() or out.read_text() != text:
        out.write_text(text)


def setup(app):
    app.connect("source-read", _add_instructor_toctree)
    app.connect("builder-inited", _write_rules)
