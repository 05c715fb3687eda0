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
    _add_directives(app)


# --------------------------------------------------------------------------------------------
# Tables generated at build time, so that they never go stale: the crawler's limits from
# crawlers.page.policy, and the hostile-web crawls from their committed CSV.

from docutils.parsers.rst import Directive, directives  # noqa: E402
from docutils.statemachine import StringList  # noqa: E402


def _flags_literal(text: str) -> str:
    """``--seconds`` written as a literal, so that it is not typeset as an en dash."""
    import re

    return re.sub(r"(?<![\w`])(--[a-z][a-z-]*)", r"``\1``", text)


def _list_table(rows: list[list[str]], widths: str) -> list[str]:
    out = [".. list-table::", "   :header-rows: 1", f"   :widths: {widths}", ""]
    for row in rows:
        for i, cell in enumerate(row):
            out.append(f"   {'*' if i == 0 else ' '} - {' '.join(str(cell).split()) or '0'}")
    return out


class _Generated(Directive):
    """A directive whose body is reStructuredText made by :meth:`lines`."""

    def lines(self) -> list[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def run(self):
        from docutils import nodes

        node = nodes.container()
        self.state.nested_parse(StringList(self.lines(), source="generated"),
                                self.content_offset, node)
        return node.children


class LimitsTable(_Generated):
    """``.. crawlab-limits::``: every limit of crawlers.page.policy.LIMITS with its flag,
    default, unit and counter, then the counted rules (EVENTS)."""

    option_spec = {"events": directives.flag}

    def lines(self) -> list[str]:
        from dataclasses import fields

        from crawlers.page.policy import EVENTS, LIMITS, Policy

        if "events" in self.options:
            rows = [["counter", "what it counts"]]
            rows += [[f"``{name}``", _flags_literal(what)] for name, what in EVENTS.items()]
            return _list_table(rows, "25 75")
        defaults = {f.name: f.default for f in fields(Policy)}
        rows = [["flag (and counter)", "default", "when it is reached"]]
        for limit in LIMITS:
            value = defaults[limit.name]
            shown = f"{value:,}" if isinstance(value, int) else f"{value:g}"
            rows.append([f"``{limit.flag}`` (``{limit.name}``)", f"{shown} {limit.unit}",
                         _flags_literal(limit.acts)])
        return _list_table(rows, "30 14 56")


class HostileWebTable(_Generated):
    """``.. crawlab-hostile-web::``: the runs of results/hostile-web/hostile-web.csv; with
    ``:limits:``, the limit counters that acted in any run."""

    option_spec = {"limits": directives.flag}

    def lines(self) -> list[str]:
        import csv

        path = Path(__file__).resolve().parent / "results" / "hostile-web" / "hostile-web.csv"
        with path.open(newline="") as f:
            runs = list(csv.DictReader(f))
        if "limits" in self.options:
            names = [k for k in runs[0] if k.startswith("limit_")
                     and any(r[k] not in ("", "0") for r in runs)]
            rows = [["counter", *(r["run"] for r in runs)]]
            rows += [[f"``{k[len('limit_'):]}``", *(r[k] for r in runs)] for k in names]
            return _list_table(rows, "28 " + " ".join(["24"] * len(runs)))
        # transposed (one column per run): nine columns do not fit the page at 800 px
        rows = [["run", *(r["run"] for r in runs)],
                ["stopped by", *(r["stopped_by"] for r in runs)],
                ["seconds", *(f"{float(r['seconds']):.1f}" for r in runs)],
                ["pages fetched", *(r["pages_fetched"] for r in runs)],
                ["ordinary pages fetched",
                 *(f"{r['ordinary_fetched']} of {r['ordinary_pages']}" for r in runs)],
                ["/private/ pages", *(r["private_pages"] for r in runs)],
                ["longest URL (characters)", *(r["longest_url"] for r in runs)],
                ["fetches cut", *(r["fetches_cut"] for r in runs)],
                ["peak RSS (MB)", *(r["peak_rss_mb"] for r in runs)]]
        return _list_table(rows, "28 " + " ".join(["24"] * len(runs)))


class GraderPolicy(_Generated):
    """``.. crawlab-grader-policy::``: the grader's table (exercises.policy.EXERCISES): per
    exercise what it may import, what it forbids, its suites and its limits; then the builtins
    and dunders every exercise may use."""

    def lines(self) -> list[str]:
        from exercises.policy import (
            BUILTINS,
            DUNDERS,
            EXERCISES,
            REFUSED_ATTRIBUTES,
            SYNTAX,
            VALUES,
        )

        rows = [["exercise", "may import (module: names)", "also"]]
        for e in EXERCISES.values():
            forbidden = ", ".join(f"``{name}``" for name in e.forbidden) or "nothing more"
            rows.append([
                f"{e.key}: ``{e.file}``, class ``{e.obj}``",
                "; ".join(f"``{m}``: {', '.join(names)}" for m, names in e.allowed.items()),
                f"forbidden: {forbidden}; checks: {len(e.public)} public suites, "
                f"{len(e.hidden)} hidden; limits: {e.seconds:g} s in all, silent "
                f"{e.patience:g} s"])
        return [*_list_table(rows, "22 50 28"), "",
                "Builtins every exercise may use: "
                + ", ".join(f"``{b}``" for b in sorted(BUILTINS)) + ".", "",
                "Dunder names allowed: " + ", ".join(f"``{d}``" for d in sorted(DUNDERS)) + ".",
                "", "Attributes refused wherever they appear: "
                + ", ".join(f"``{a}``" for a in sorted(REFUSED_ATTRIBUTES)) + " (``format`` "
                "and ``format_map`` read attributes named inside a string; an f-string is "
                "checked like code), and private ones (``_x``) except on a name of your own.",
                "", "Imported names that may be stored or passed on as values: "
                + ", ".join(f"``{v}``" for v in sorted(VALUES)) + "; any other imported name "
                "(a class, a ``typing`` form) may only be called, subclassed, raised, caught, "
                "compared, used in ``isinstance`` or an annotation.", "",
                "Statements and expressions a file may be written in (:mod:`ast` node names; "
                "anything else, ``match``, ``async`` and type parameters among them, is "
                "refused): " + ", ".join(f"``{n}``" for n in sorted(SYNTAX)) + "."]


class KitLeaveOut(_Generated):
    """``.. crawlab-kit-leave-out::``: what the student kit leaves out, and why
    (exercises.kit.LEAVE_OUT)."""

    def lines(self) -> list[str]:
        from exercises.kit import LEAVE_OUT

        rows = [["left out", "why"]] + [[f"``{path}``", why] for path, why in LEAVE_OUT.items()]
        return _list_table(rows, "35 65")


def _add_directives(app) -> None:
    app.add_directive("crawlab-grader-policy", GraderPolicy)
    app.add_directive("crawlab-kit-leave-out", KitLeaveOut)
    app.add_directive("crawlab-limits", LimitsTable)
    app.add_directive("crawlab-hostile-web", HostileWebTable)
