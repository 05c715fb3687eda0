"""The harness every lab shares: flags, results folder, CSV, machine stamp, plot style.

A lab is a module ``labs/lab_NAME.py`` whose docstring's first line says what it shows and which
defines ``main(argv=None) -> int``. ``crawlab lab --list`` lists them; ``crawlab lab NAME`` runs
one (``NAME`` with dashes or underscores). A lab script looks like::

    from labs.harness import Lab

    def main(argv=None):
        lab = Lab("frontier-bench", __doc__, argv)        # parses --quick/--out/--seed
        rows = [...]                                       # measure
        lab.write_csv(rows)                                # results/frontier-bench/....csv
        fig, ax = lab.figure("Throughput", "threads", "pairs/s")
        ...
        lab.save(fig)                                      # PNG with the machine stamped on it
        return 0

Every number a lab prints comes with :func:`machine` (cores, Python, whether the GIL is on), and
every plot carries it in its corner, so a figure copied out of context still says where it was
measured.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import os
import pkgutil
import platform
import random
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from crawlers.args import OneLineParser

__all__ = ["Lab", "LabError", "gil_enabled", "lab_modules", "machine", "machine_line", "run_lab"]

DEFAULT_RESULTS = Path("results")


class LabError(Exception):
    """A lab's bad input or unmet precondition: reported as one line, exit status 2."""


def gil_enabled() -> bool:
    """Whether this interpreter runs with the GIL (always, before free-threaded 3.13t)."""
    check = getattr(sys, "_is_gil_enabled", None)
    return True if check is None else bool(check())


def machine() -> dict[str, Any]:
    """Where a measurement was taken: cores, CPU, Python, GIL, OS."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cores": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "gil": gil_enabled(),
        "os": f"{platform.system()} {platform.release()}",
    }


def machine_line(m: dict[str, Any] | None = None) -> str:
    """The stamp in one line, e.g. ``2 cores · CPython 3.11.7 · GIL on · Linux 6.1``."""
    m = m or machine()
    gil = "GIL on" if m["gil"] else "GIL off (free-threaded)"
    return f"{m['cores']} cores · {m['implementation']} {m['python']} · {gil} · {m['os']}"


class Lab:
    """One run of one lab: its parsed flags, its results folder, its CSV and PNG writers.

    ``extra`` adds lab-specific flags: a callable taking the :class:`argparse.ArgumentParser`.
    """

    def __init__(
        self,
        name: str,
        doc: str | None,
        argv: Sequence[str] | None = None,
        extra: Any = None,
    ) -> None:
        self.name = name
        self.title = (doc or name).strip().splitlines()[0]
        parser = OneLineParser(
            prog=f"crawlab lab {name}",
            description=doc,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        parser.add_argument(
            "--quick", action="store_true", help="small sizes: about a minute on 2 cores"
        )
        parser.add_argument(
            "--out",
            type=Path,
            default=DEFAULT_RESULTS,
            help="results folder (default: ./results); the lab writes into OUT/NAME/",
        )
        parser.add_argument("--seed", type=int, default=1, help="random seed (default: 1)")
        parser.add_argument("--no-plot", action="store_true", help="write CSV only")
        if extra is not None:
            extra(parser)
        self.args = parser.parse_args(argv)
        self.quick: bool = self.args.quick
        self.seed: int = self.args.seed
        self.rng = random.Random(self.seed)
        self.machine = machine()
        self.dir = self.args.out / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.started = time.perf_counter()
        print(f"# {self.title}")
        quick = " · quick" if self.quick else ""
        print(f"# {machine_line(self.machine)} · seed {self.seed}{quick}")

    # -- output -----------------------------------------------------------------------------

    def write_csv(self, rows: Iterable[dict[str, Any]], stem: str | None = None) -> Path:
        """Write ``rows`` (dicts with the same keys) to ``OUT/NAME/STEM.csv``; machine columns
        are appended to every row. Returns the path."""
        rows = list(rows)
        path = self.dir / f"{stem or self.name}.csv"
        stamp = {f"machine_{k}": v for k, v in self.machine.items()}
        keys: list[str] = []
        for row in rows:
            keys.extend(k for k in row if k not in keys)
        keys.extend(stamp)
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=keys)
            writer.writeheader()
            for row in rows:
                writer.writerow({**row, **stamp})
        print(f"# wrote {path}")
        return path

    def figure(self, title: str, xlabel: str, ylabel: str, ncols: int = 1, size=None):
        """A matplotlib figure in the house style; returns ``(fig, axes)`` (one axis when
        ``ncols == 1``). Uses the non-interactive Agg backend."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        plt.style.use("seaborn-v0_8-whitegrid")
        fig, axes = plt.subplots(1, ncols, figsize=size or (6.4 * ncols, 4.4), squeeze=False)
        for ax in axes[0]:
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
        fig.suptitle(title)
        return fig, (axes[0][0] if ncols == 1 else list(axes[0]))

    def save(self, fig, stem: str | None = None) -> Path | None:
        """Stamp the machine on ``fig`` and save it as ``OUT/NAME/STEM.png`` (unless
        ``--no-plot``). Returns the path."""
        import matplotlib.pyplot as plt

        if self.args.no_plot:
            plt.close(fig)
            return None
        fig.text(
            0.995, 0.005, f"{machine_line(self.machine)} · seed {self.seed}",
            ha="right", va="bottom", fontsize=7, color="0.4",
        )
        fig.tight_layout(rect=(0, 0.03, 1, 1))
        path = self.dir / f"{stem or self.name}.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        print(f"# wrote {path}")
        return path

    def table(self, rows: Sequence[dict[str, Any]], columns: Sequence[str] | None = None) -> None:
        """Print ``rows`` as an aligned plain-text table (floats to 3 significant digits)."""
        if not rows:
            return
        columns = list(columns or rows[0].keys())

        def fmt(v: Any) -> str:
            if isinstance(v, float):
                return f"{v:.3g}" if abs(v) < 1e5 else f"{v:,.0f}"
            return str(v)

        cells = [[fmt(r.get(c, "")) for c in columns] for r in rows]
        widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
        print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
        for row in cells:
            print("  ".join(v.rjust(w) for v, w in zip(row, widths)))

    def done(self) -> int:
        """Print the elapsed time; returns 0 for ``main`` to return."""
        print(f"# {self.name} done in {time.perf_counter() - self.started:.1f} s")
        return 0


# -- discovery --------------------------------------------------------------------------------


def lab_modules() -> dict[str, str]:
    """``{lab name: first docstring line}`` for every ``labs/lab_*.py``, sorted by name."""
    import labs

    found = {}
    for mod in pkgutil.iter_modules(labs.__path__):
        if mod.name.startswith("lab_"):
            name = mod.name[4:].replace("_", "-")
            found[name] = _first_doc_line(Path(labs.__path__[0]) / f"{mod.name}.py")
    return dict(sorted(found.items()))


def _first_doc_line(path: Path) -> str:
    import ast

    doc = ast.get_docstring(ast.parse(path.read_text()))
    return doc.strip().splitlines()[0] if doc else ""


def run_lab(name: str, argv: Sequence[str] | None = None) -> int:
    """Run lab ``name`` with ``argv``; :class:`LabError` if there is no such lab."""
    labs = lab_modules()
    key = name.replace("_", "-")
    if key not in labs:
        raise LabError(f"unknown lab {name!r}; valid labs: {', '.join(labs)}")
    module = importlib.import_module(f"labs.lab_{key.replace('-', '_')}")
    return int(module.main(list(argv or [])) or 0)
