"""The harness every lab shares: flags, results folder, CSV, machine stamp, plot style.

A lab is a module ``labs/lab_NAME.py`` whose docstring's first line says what it shows and which
defines ``main(argv=None) -> int``. ``crawlab lab --list`` lists them; ``crawlab lab NAME`` runs
one (``NAME`` with dashes or underscores). A lab script looks like::

    from labs.harness import Lab, script

    def main(argv=None):
        lab = Lab("frontier-bench", __doc__, argv)        # parses --quick/--out/--seed
        rows = [...]                                       # measure
        lab.write_csv(rows)                                # results/frontier-bench/....csv
        fig, ax = lab.figure("Throughput", "threads", "pairs/s")
        ...
        lab.save(fig)                                      # PNG with the machine stamped on it
        return 0

    if __name__ == "__main__":                             # python -m labs.lab_frontier_bench:
        raise SystemExit(script(main))                     # errors in one line, as crawlab's

Every number says where it came from. :meth:`Lab.write_csv` writes a ``source`` column:
``measured`` rows carry the machine stamp (:func:`machine`: cores, CPU, the interpreter's
version, whether it is a free-threaded build, whether the GIL is on *at run time*, the 1-minute
load average when the run started), the UTC ``date`` and the ``commit`` measured (``+dirty``
when the work tree had uncommitted changes), and a ``note`` that says when the machine was
shared; ``model`` rows (computed, not timed) carry date and commit but no machine. A paper's
numbers go through :meth:`Lab.write_paper_csv`: ``source`` ``paper``, the paper and its figure
or table, and no stamp of ours; a paper's number shown beside ours lives in a column whose
name starts with ``paper_``. Every plot carries the stamp in its corner, so a figure copied out
of context still says where it was measured.

:func:`series` draws a family of series (one line per frontier, per thread count, ...) as the
median of the repeats with their min-max spread as error bars: a lab script measures and
calls it, and never plots a best run.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import io
import math
import os
import pkgutil
import platform
import random
import statistics
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from crawlers.args import (
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    MAX_SEED,
    OneLineParser,
    at_most,
    non_negative_int,
)
from frontier.files import read_regular
from labs import plotstyle

__all__ = [
    "Lab", "LabError", "SOURCES", "add_frontier_flag", "commit", "free_threaded_build",
    "frontier_names", "gil_enabled", "interpreter_line", "lab_modules", "provenance_problems",
    "columns", "machine", "machine_line", "run_lab", "script", "series", "spread", "summarize",
    "write_rows",
]

DEFAULT_RESULTS = Path("results")
ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("measured", "paper", "model")
#: The columns :meth:`Lab.write_csv` adds to a lab's rows (with the ``machine_*`` stamp).
PROVENANCE = ("source", "date", "commit", "note")
#: Said in the note of every row a ``--quick`` run measures: its sizes are not the full run's.
QUICK_NOTE = "quick run (--quick: small sizes)"
SHARED_LOAD = 0.5  # a 1-minute load above this many runnable tasks per core: machine shared
#: The most bytes :meth:`Lab.read_csv` reads (``--replot``, ``--from-csv``): a lab's CSV is
#: well under 1 MB (the largest in docs/results under 100 KB), and its rows are held in memory
#: as dicts, several times the file's size; a larger file is refused before it is read.
MAX_CSV_BYTES = 16 << 20
#: The largest integer :meth:`Lab.read_csv` takes in a cell: every count, size or nanosecond
#: time a lab writes fits in 64 bits; a larger one is a damaged file (a figure cannot draw it).
MAX_CSV_INT = 2**63


class LabError(Exception):
    """A lab's bad input or unmet precondition: reported as one line, exit status 2."""


class MissingColumn(LabError, KeyError):
    """A column a lab reads and the CSV it re-plots lacks (a :class:`KeyError` too, so a lab
    that asks for an optional column with ``try``/``except KeyError`` still works)."""

    __str__ = Exception.__str__


class _Row(dict):
    """A row read back by :meth:`Lab.rows` (``--replot``): a column the CSV lacks is a
    :class:`MissingColumn` naming the file, not a bare :class:`KeyError`."""

    def __init__(self, data: Mapping[str, Any], path: Path) -> None:
        super().__init__(data)
        self.path = path

    def __missing__(self, key: Any) -> Any:
        raise MissingColumn(f"--replot: {self.path} has no column {key!r}: it was written by "
                            "another version of the lab, or edited; run it without --replot")


def _kind(value: Any) -> str:
    """What a cell read by :func:`_cell` is: ``empty``, ``nan``, ``bool``, ``int``, ``float``
    or ``text``."""
    if value == "":
        return "empty"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else "float"
    return "text"


def column_types(header: Sequence[str],
                 rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple[str, set[str]]]:
    """``{column: (kind, also)}`` of a table that may have been edited, read off its cells:
    ``kind`` is ``int`` (every number an integer), ``float`` (some number not one: an integer
    cell fits too), ``bool`` or ``text`` (the kind most cells have, when numbers are not the
    most), or ``any`` (no cell but empty or nan); ``also`` is the empty and nan cells, which a
    run may write anywhere. Provenance columns are left out. O(rows x columns)."""
    types: dict[str, tuple[str, set[str]]] = {}
    for column in header:
        if column in PROVENANCE or column.startswith("machine_"):
            continue
        counts: dict[str, int] = {}
        for row in rows:
            kind = _kind(row.get(column, ""))
            counts[kind] = counts.get(kind, 0) + 1
        kinds = {k: n for k, n in counts.items() if k not in ("empty", "nan")}
        numbers = kinds.get("int", 0) + kinds.get("float", 0)
        if not kinds:
            kind = "any"
        elif numbers and numbers >= max(kinds.get("bool", 0), kinds.get("text", 0)):
            kind = "float" if kinds.get("float", 0) else "int"
        else:
            kind = max(("bool", "text"), key=lambda k: kinds.get(k, 0))
        types[column] = (kind, {"empty", "nan"})
    return types


def _fits(value: Any, kind: str, also: set[str]) -> bool:
    """Whether a cell read back fits its column's type (see :func:`column_types`)."""
    got = _kind(value)
    if got in ("empty", "nan"):
        return got in also or kind == "any"
    return kind in ("any", got) or (kind == "float" and got == "int")


_KIND_WORDS = {"int": "an integer", "float": "a finite number", "bool": "True or False",
               "text": "a word (not a number)"}


def _cell(text: str, path: Path, line: int, column: str) -> Any:
    """A CSV cell as :meth:`Lab.read_csv` gives it (see there); :class:`LabError` for a number
    out of range, which no lab writes and which overflowed in the figures."""
    if text in ("True", "False"):
        return text == "True"
    number: int | float
    try:
        number = int(text)
    except ValueError:  # not an integer, or one of more than 4300 digits (float: inf)
        try:
            number = float(text)
        except ValueError:
            return text
    if abs(number) > MAX_CSV_INT if type(number) is int else math.isinf(number):  # 1e309, inf
        raise LabError(f"{path} line {line}: column {column!r} holds {text[:40]!r}, a number "
                       f"out of range (no lab writes an infinity or an integer over 2**63)")
    return number


def columns(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every key of ``rows``, in the order the keys first appear. O(rows x columns)."""
    keys: list[str] = []
    for row in rows:
        keys.extend(k for k in row if k not in keys)
    return keys


def write_rows(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    """Write ``rows`` to the CSV file ``path`` (replaced), one column per key in the order the
    keys first appear (:func:`columns`), empty where a row lacks one; returns ``path``."""
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns(rows))
        writer.writeheader()
        writer.writerows(rows)
    return path


def gil_enabled() -> bool:
    """Whether the GIL is on *now* (``sys._is_gil_enabled()`` where it exists, 3.13+; before
    that always). A free-threaded build can still run with the GIL (``PYTHON_GIL=1``, or an
    extension module that needs it), so this, not the build, is what decides a measurement."""
    check = getattr(sys, "_is_gil_enabled", None)
    return True if check is None else bool(check())


def free_threaded_build() -> bool:
    """Whether this interpreter was built free-threaded (``Py_GIL_DISABLED``, 3.13t)."""
    return bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def commit(root: Path = ROOT) -> str:
    """The commit the code runs at, ``+dirty`` when tracked files differ from it; ``unknown``
    outside a git checkout."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                              text=True, timeout=10)
        if head.returncode != 0:
            return "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=root, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def _load_1min() -> float | str:
    try:
        return round(os.getloadavg()[0], 2)
    except (OSError, AttributeError):
        return ""


def machine() -> dict[str, Any]:
    """Where a measurement was taken: cores, CPU, the interpreter (version, free-threaded build
    or not, GIL on at run time or not), OS, and the 1-minute load average right now."""
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
        "free_threaded": free_threaded_build(),
        "gil": gil_enabled(),
        "os": f"{platform.system()} {platform.release()}",
        "load_1min": _load_1min(),
    }


def interpreter_line(implementation: str, python: str, free_threaded: bool, gil: bool) -> str:
    """One interpreter exactly, e.g. ``CPython 3.13.1t · GIL off`` (``t``: a free-threaded
    build; ``GIL off`` only when it was off at run time)."""
    return (f"{implementation} {python}{'t' if free_threaded else ''} · "
            f"{'GIL on' if gil else 'GIL off'}")


def machine_line(m: dict[str, Any] | None = None, interpreter: str | None = None) -> str:
    """The stamp in one line, e.g. ``2 cores · CPython 3.11.7 · GIL on · Linux 6.1 · load 1.2``
    (:func:`interpreter_line`; ``interpreter`` replaces it when the measurement ran on other
    interpreters than the one that drew the figure)."""
    m = m or machine()
    interp = interpreter or interpreter_line(m["implementation"], m["python"],
                                             bool(m.get("free_threaded")), bool(m["gil"]))
    load = f" · load {m['load_1min']}" if m.get("load_1min", "") != "" else ""
    return f"{m['cores']} cores · {interp} · {m['os']}{load}"


def shared_note(m: Mapping[str, Any]) -> str:
    """What the load average says about the run: empty when the machine looked idle."""
    load, cores = m.get("load_1min", ""), m.get("cores") or 1
    if load == "" or load < SHARED_LOAD * cores:
        return ""
    return (f"machine shared: 1-min load {load} on {cores} cores when the run started; "
            "timings noisier than on an idle machine")


class Lab:
    """One run of one lab: its parsed flags, its results folder, its CSV and PNG writers.

    ``extra`` adds lab-specific flags: a callable taking the :class:`argparse.ArgumentParser`;
    ``title``, a callable taking the parsed flags, gives the header's first line when it
    depends on them (default: the first line of ``doc``). A ``--frontier`` that names no
    frontier is refused (one line) before the header is printed. ``replot``: the lab takes
    every row through :meth:`rows`, so it has ``--replot``; a lab that measures every time
    has no such flag (argparse refuses it in one line, before the header).
    """

    def __init__(
        self,
        name: str,
        doc: str | None,
        argv: Sequence[str] | None = None,
        extra: Any = None,
        title: Any = None,
        replot: bool = False,
    ) -> None:
        self.name = name
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
        parser.add_argument("--seed", type=at_most(non_negative_int, MAX_SEED),
                            default=1, help=f"random seed, 0 to {MAX_SEED} (default: 1)")
        parser.add_argument("--no-plot", action="store_true", help="write CSV only")
        if replot:  # the lab takes its rows through rows(): only then is there --replot
            parser.add_argument("--replot", action="store_true",
                                help="measure nothing: draw the figures again from the CSVs "
                                     "already in OUT/NAME/ (they keep the stamp of the run "
                                     "that measured them)")
        parser.add_argument("--note", default="",
                            help="a note stored with every measured row (e.g. what else ran)")
        if extra is not None:
            extra(parser)
        self.args = parser.parse_args(argv)
        self.args.replot = getattr(self.args, "replot", False)
        chosen = getattr(self.args, "frontier", None)
        if isinstance(chosen, list) and chosen:
            frontier_names(chosen, ())  # a bad one: one line (ValueError), no header before it
        self.title = title(self.args) if title else (doc or name).strip().splitlines()[0]
        self.quick: bool = self.args.quick
        self.seed: int = self.args.seed
        self.rng = random.Random(self.seed)
        self.machine = machine()
        self.date = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.commit = commit()
        self.note = "; ".join(n for n in (shared_note(self.machine), QUICK_NOTE * self.quick,
                                          self.args.note) if n)
        self.dir = self.args.out / name
        self._replot_stamped = False
        try:  # before anything is measured: an --out that is a file is one line, exit 2
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            parser.error(f"argument --out: cannot make the folder {self.dir}: "
                         f"{exc.strerror or exc}")
        self.started = time.perf_counter()
        print(f"# {self.title}")
        quick = " · quick" if self.quick else ""
        print(f"# {machine_line(self.machine)} · seed {self.seed}{quick}")

    # -- output -----------------------------------------------------------------------------

    def rows(self, stem: str, measure: Callable[[], list[dict[str, Any]]],
             source: str = "measured") -> list[dict[str, Any]]:
        """The rows of ``OUT/NAME/STEM.csv``: ``measure()`` written by :meth:`write_csv`, or,
        with ``--replot``, the rows a run wrote before, read back without their provenance
        columns (nothing is measured; the figures are stamped with the machine, date and
        commit of the rows' measurement). The one re-plot path of every lab that takes its
        rows through here (made with ``replot=True``); :class:`LabError` when ``--replot``
        finds no CSV."""
        if not self.args.replot:
            rows = measure()
            self.write_csv(rows, stem, source)
            return rows
        path = self.dir / f"{stem}.csv"
        if not path.is_file():
            raise LabError(f"--replot: {path} is missing: run the lab without --replot first")
        header, rows, lines, raw = self._read_table(path)
        if not rows or any(r.get("source") not in SOURCES for r in rows):
            raise LabError(f"--replot: {path} is not a table this lab wrote (no rows, or rows "
                           "without their source column): run the lab without --replot")
        stamped = next((r for r in rows if r.get("source") == "measured"), None)
        if stamped is not None and not self._replot_stamped:
            self.stamp_from({k: str(v) for k, v in stamped.items()})
            self._replot_stamped = True
        self._check_cells(path, header, rows, lines, raw)
        print(f"# read {path} (--replot: nothing measured)")
        return [_Row({k: v for k, v in r.items()
                      if k not in PROVENANCE and not k.startswith("machine_")}, path)
                for r in rows]

    def write_csv(
        self, rows: Iterable[dict[str, Any]], stem: str | None = None, source: str = "measured"
    ) -> Path:
        """Write ``rows`` (dicts) to ``OUT/NAME/STEM.csv`` with their provenance and return
        the path. ``source`` (a row's own ``source`` key wins) is ``measured`` -- the row gets
        ``date``, ``commit``, ``note`` and the ``machine_*`` stamp -- or ``model`` -- date and
        commit only. A paper's rows go through :meth:`write_paper_csv` instead; a column that
        holds a paper's number beside ours must be named ``paper_...``."""
        rows = [{"source": row.get("source", source), **row} for row in rows]
        for row in rows:
            if row["source"] not in ("measured", "model"):
                raise ValueError(f"write_csv takes measured or model rows, not "
                                 f"{row['source']!r}: use write_paper_csv")
        stamp = {"date": self.date, "commit": self.commit, "note": self.note,
                 **{f"machine_{k}": v for k, v in self.machine.items()}}
        model = {"date": self.date, "commit": self.commit}
        out = [{**row, **(stamp if row["source"] == "measured" else model)} for row in rows]
        return self._write(out, stem)

    def write_paper_csv(
        self, rows: Iterable[dict[str, Any]], stem: str, paper: str, figure: str
    ) -> Path:
        """Write a paper's numbers: ``source`` ``paper``, the ``paper`` and the ``figure`` (or
        table) they come from, and no stamp of ours."""
        if not paper or not figure:
            raise ValueError("a paper's rows name the paper and its figure or table")
        return self._write([{"source": "paper", "paper": paper, "figure": figure, **row}
                            for row in rows], stem)

    def _write(self, rows: list[dict[str, Any]], stem: str | None) -> Path:
        bad = [k for k in columns(rows) if "paper" in k.lower() and not k.startswith("paper_")
               and k != "paper"]
        if bad:
            raise ValueError(f"columns with a paper's numbers are named paper_...: {bad}")
        path = write_rows(self.dir / f"{stem or self.name}.csv", rows)
        print(f"# wrote {path}")
        return path

    def figure(self, title: str, xlabel: str, ylabel: str, ncols: int = 1, size=None):
        """A matplotlib figure in the house style (:mod:`labs.plotstyle`); returns ``(fig,
        axes)`` (one axis when ``ncols == 1``). Uses the non-interactive Agg backend."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        plotstyle.apply()
        fig, axes = plt.subplots(1, ncols, squeeze=False, figsize=size or (
            min(6.4 * ncols, plotstyle.MAX_WIDTH), 4.4 if ncols < 3 else 3.8))
        for ax in axes[0]:
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
        fig.suptitle(title)
        return fig, (axes[0][0] if ncols == 1 else list(axes[0]))

    def save(self, fig, stem: str | None = None, interpreter: str | None = None,
             layout: bool = True) -> Path | None:
        """Stamp the machine on ``fig`` and save it as ``OUT/NAME/STEM.png`` (unless
        ``--no-plot``); returns the path. The stamp names the interpreter that ran this lab and
        its GIL state, or ``interpreter`` when the numbers came from others (then each panel
        or series says which). Text too small for the book's width is enlarged
        (:func:`labs.plotstyle.enforce_readable`); ``layout=False`` keeps the lab's own
        layout."""
        import matplotlib.pyplot as plt

        if self.args.no_plot:
            plt.close(fig)
            return None
        stamp = fig.text(
            0.995, 0.005,
            f"{machine_line(self.machine, interpreter)} · seed {self.seed} · "
            f"{self.date[:10]} · {self.commit[:10]}",
            ha="right", va="bottom", fontsize=8, color="0.3",
        )
        plotstyle.enforce_readable(fig, skip=[stamp])
        if layout:  # False: the lab laid the figure out itself (a figure-wide legend)
            fig.tight_layout(rect=(0, 0.035, 1, 1))
        path = self.dir / f"{stem or self.name}.png"
        fig.savefig(path, dpi=plotstyle.DPI)
        plt.close(fig)
        print(f"# wrote {path}")
        return path

    def interpreter(self) -> str:
        """The interpreter of this run's stamp and its GIL state, e.g. ``CPython 3.11.7 · GIL
        on`` (after :meth:`stamp_from`, the one that measured the rows)."""
        m = self.machine
        return interpreter_line(m["implementation"], m["python"], bool(m.get("free_threaded")),
                                bool(m["gil"]))

    def read_csv(self, path: Path) -> list[dict[str, Any]]:
        """Rows a lab wrote, read back for a figure: numbers as ``int``/``float``, ``True`` and
        ``False`` as booleans, the rest as text (blank lines skipped). :class:`LabError`, one
        line naming ``path`` (and the line), when it cannot be read or is not a whole table:
        not a regular file (a folder, a FIFO that would block the read, a device), more than
        :data:`MAX_CSV_BYTES`, not UTF-8, a field over :func:`csv.field_size_limit`, a row with
        more or fewer cells than the header (a truncated file), a number out of range (``inf``,
        ``1e309``, an integer beyond :data:`MAX_CSV_INT`), or ``nan`` in a column of integers.
        A column the lab needs and the file lacks is the caller's (a :class:`KeyError` that
        :func:`run_lab` turns into a :class:`LabError`). O(size of the file)."""
        return self._read_table(path)[1]

    def _read_table(self, path: Path) -> tuple[list[str], list[dict[str, Any]], list[int],
                                               list[list[str]]]:
        """:meth:`read_csv`'s header, rows, the line each row ends on, and each row's cells
        as written (for the errors)."""
        try:
            text = read_regular(path, MAX_CSV_BYTES, "a lab CSV's").decode("utf-8")
        except OSError as exc:
            raise LabError(f"cannot read {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise LabError(f"cannot read {path}: not UTF-8 text (byte {exc.start})") from None
        reader = csv.reader(io.StringIO(text, newline=""))
        rows: list[dict[str, Any]] = []
        lines: list[int] = []  # the line each row ends on, for the errors
        raw: list[list[str]] = []  # each row's cells as written, for the errors
        try:
            header = next(reader, [])
            for cells in reader:
                if not cells:
                    continue  # a blank line, as csv.DictReader skips it
                if len(cells) != len(header):
                    raise LabError(f"{path} line {reader.line_num}: {len(cells)} cells, the "
                                   f"header has {len(header)}: a truncated or damaged table")
                if any("\0" in v for v in cells):
                    column = header[next(i for i, v in enumerate(cells) if "\0" in v)]
                    raise LabError(f"{path} line {reader.line_num}: column {column!r} holds "
                                   "a NUL byte, which no lab writes")
                lines.append(reader.line_num)
                raw.append(cells)
                rows.append({k: _cell(v, path, reader.line_num, k)
                             for k, v in zip(header, cells)})
        except csv.Error as exc:  # a field over the size limit, a NUL byte, a stray quote
            raise LabError(f"cannot read {path} line {reader.line_num}: {exc}") from None
        for column in header:
            values = [row[column] for row in rows]
            if any(type(v) is int for v in values):
                bad = next((n for n, v in zip(lines, values)
                            if isinstance(v, float) and math.isnan(v)), None)
                if bad is not None:
                    raise LabError(f"{path} line {bad}: column {column!r} holds integers, "
                                   "not nan")
        return header, rows, lines, raw

    def _check_cells(self, path: Path, header: Sequence[str],
                     rows: Sequence[Mapping[str, Any]], lines: Sequence[int],
                     raw: Sequence[Sequence[str]]) -> None:
        """:class:`LabError`, one line naming ``path``, the line and the column, for the first
        cell of a re-plotted table that is not of its column's type, read off the table itself
        (:func:`column_types`: a column whose numbers are all integers holds integers, one
        of numbers finite numbers, one mostly of words words; an empty or nan cell passes, as
        a run may write one). O(rows x columns)."""
        for i, column in enumerate(header):
            types = column_types([column], rows)
            if column not in types:
                continue
            kind, also = types[column]
            for n, (line, row, cells) in enumerate(zip(lines, rows, raw), 1):
                if not _fits(row[column], kind, also):
                    want = _KIND_WORDS.get(kind, "another value")
                    raise LabError(f"--replot: {path} line {line} (row {n}): column {column!r} "
                                   f"holds {cells[i][:40]!r}, not {want} as the rest of the "
                                   "column: the table was edited; run the lab without --replot")

    def stamp_from(self, row: Mapping[str, str]) -> None:
        """Stamp this run's figures with the machine, date and commit of a measured CSV row
        (a figure redrawn from committed numbers says where *they* were measured)."""
        m = {k[len("machine_"):]: v for k, v in row.items() if k.startswith("machine_")}
        for key in ("free_threaded", "gil"):
            m[key] = str(m.get(key)) == "True"
        m = {k: str(v) if k in ("python", "os", "cpu") else v for k, v in m.items()}
        self.machine = {**self.machine, **m}
        self.date, self.commit = row.get("date") or self.date, row.get("commit") or self.commit

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


# -- the frontiers a lab measures ---------------------------------------------------------------


def add_frontier_flag(parser: argparse.ArgumentParser, default: str) -> None:
    """The ``--frontier`` flag of a lab that measures frontiers: repeatable, a registered name
    or the student's own class as ``FILE.py:CLASS``; ``default`` says what runs without it."""
    parser.add_argument(
        "--frontier", action="append", metavar="NAME",
        help=f"measure this frontier (repeatable; default: {default}): a name from `crawlab "
        "frontiers`, or your own class as FILE.py:CLASS")


def frontier_names(chosen: Sequence[str] | None, default: Iterable[str]) -> list[str]:
    """The registered names of the frontiers ``--frontier`` chose (``default`` when none):
    each ``FILE.py:CLASS`` is loaded, checked and registered (:mod:`frontier.userclass`), and
    an unknown name or a bad class is one line (a ``ValueError``) before any work."""
    from frontier.userclass import resolve

    return [resolve(name) for name in (chosen or default)]


# -- provenance check ---------------------------------------------------------------------------

STAMP_COLUMNS = ("machine_cores", "machine_cpu", "machine_python", "machine_implementation",
                 "machine_free_threaded", "machine_gil", "machine_os", "machine_load_1min")


def provenance_problems(columns: Sequence[str], rows: Iterable[Mapping[str, str]]) -> list[str]:
    """What breaks the rule in a results CSV (its header and rows, as read back): a ``source``
    column, each row ``measured``, ``paper`` or ``model``; ``paper`` rows name the paper and
    the figure and carry no stamp of ours; ``measured`` rows carry the machine stamp, the date
    and the commit (a load average not recorded is ``unknown``, and then a note says why);
    ``model`` rows date and commit and no machine; a paper's number lives in a ``paper_...``
    column. Empty when the CSV keeps the rule."""
    problems = []
    if "source" not in columns:
        return ["no source column"]
    for c in columns:
        if "paper" in c.lower() and c != "paper" and not c.startswith("paper_"):
            problems.append(f"column {c!r} holds a paper's number but is not named paper_...")
    machine_cols = [c for c in columns if c.startswith("machine_")]
    for i, row in enumerate(rows, start=2):  # line numbers: the header is line 1
        src = row.get("source", "")
        if src not in SOURCES:
            problems.append(f"line {i}: source {src!r} is not one of {', '.join(SOURCES)}")
            continue
        stamped = [c for c in (*machine_cols, "date", "commit") if row.get(c)]
        if src == "paper":
            if not row.get("paper") or not row.get("figure"):
                problems.append(f"line {i}: a paper row names no paper or no figure")
            if stamped:
                problems.append(f"line {i}: a paper row carries our stamp ({stamped[0]})")
            continue
        missing = [c for c in ("date", "commit") if not row.get(c)]
        if src == "measured":
            missing += [c for c in STAMP_COLUMNS if not row.get(c)]
            if row.get("machine_load_1min") == "unknown" and not row.get("note"):
                problems.append(f"line {i}: load average unknown and no note says why")
        elif [c for c in machine_cols if row.get(c)]:
            problems.append(f"line {i}: a model row carries a machine stamp")
        if missing:
            problems.append(f"line {i}: a {src} row lacks {', '.join(missing)}")
    return problems


# -- statistics and plots ---------------------------------------------------------------------


def spread(values: Iterable[float]) -> dict[str, float]:
    """``median``, ``min``, ``max`` and ``runs`` of repeated measurements."""
    xs = [float(v) for v in values]
    if not xs:
        raise ValueError("spread of no measurement")
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "runs": len(xs)}


def summarize(rows: Iterable[Mapping[str, Any]], keys: Sequence[str], value: str
              ) -> list[dict[str, Any]]:
    """One row per distinct ``keys`` (in order of first appearance): the keys, then the
    ``median``, ``min``, ``max`` of ``value`` over the repeats and how many ``runs`` there were.
    """
    groups: dict[tuple, list[float]] = {}
    for row in rows:
        groups.setdefault(tuple(row[k] for k in keys), []).append(row[value])
    return [{**dict(zip(keys, key)), **spread(vals)} for key, vals in groups.items()]


def series(
    ax: Any,
    rows: Iterable[Mapping[str, Any]],
    x: str,
    y: str | Callable[[Mapping[str, Any]], float],
    by: str | None = None,
    *,
    order: Sequence[Any] | None = None,
    style: Callable[[Any], dict[str, Any]] | None = None,
    label: Callable[[Any], str] | None = None,
) -> dict[Any, list[dict[str, Any]]]:
    """Draw a family of series on ``ax``: one line per value of column ``by`` (all rows one line
    when None), through the *median* of ``y`` over the rows that share an ``x``, with the
    min-max of those repeats as error bars where there are at least
    :data:`~labs.plotstyle.MIN_RUNS_FOR_SPREAD` of them (fewer say nothing about spread). ``y``
    is a column or a function of a row. ``order`` picks and orders the lines (default: first
    appearance). Each line has its series' look (:func:`labs.plotstyle.look`: its own marker and
    line style, and a colour no other series of ``ax`` has while the palette has one), which
    ``style(key)`` may amend (matplotlib keywords); ``label(key)`` gives the legend text.
    Returns ``{key: [{x, median, min, max, runs}, ...]}`` sorted by x, the numbers drawn (say
    how many runs in the title: :func:`labs.plotstyle.runs_note`)."""
    get = y if callable(y) else (lambda r: r[y])
    rows = list(rows)
    keys = list(order) if order is not None else list(
        dict.fromkeys(r[by] if by else None for r in rows))
    drawn = {}

    def name(key: Any) -> Any:
        return key if by else y if isinstance(y, str) else None

    present = {r[by] for r in rows} if by else {None}
    plotstyle.colours(ax, [name(k) for k in keys if k in present])  # distinct on this axes
    for key in keys:
        mine = [{"x": r[x], "v": get(r)} for r in rows if by is None or r[by] == key]
        if not mine:
            continue
        points = sorted(summarize(mine, ["x"], "v"), key=lambda p: p["x"])
        kwargs = {**plotstyle.look(name(key), ax), **(style(key) if style else {})}
        kwargs.setdefault("label", label(key) if label else (str(key) if by else None))
        (line,) = ax.plot([p["x"] for p in points], [p["median"] for p in points], **kwargs)
        plotstyle.spread(ax, points, "x", line.get_color(), capsize=3, lw=1)
        drawn[key] = points
    return drawn


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


def _call_lab(main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None) -> int:
    """``main(argv)``; with ``--replot``, an exception of the lab's figure or summary code (a
    table that passed :meth:`Lab._check_cells` yet holds rows no run writes: one row, no row
    at a tolerance the lab looks up) is a :class:`LabError`, one line, never a traceback. Its
    own errors (:class:`LabError`; a column the table lacks is a :class:`MissingColumn`), an
    interrupt and an :class:`OSError` (a figure it cannot write) pass through."""
    try:
        return int(main(argv) or 0)
    except (LabError, OSError):
        raise
    except Exception as exc:
        if "--replot" not in (sys.argv[1:] if argv is None else argv):
            raise
        what = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        raise LabError(f"--replot: cannot draw the figure from the tables read ({what}): they "
                       "were edited or written by another version of the lab; run it without "
                       "--replot") from None


def run_lab(name: str, argv: Sequence[str] | None = None) -> int:
    """Run lab ``name`` with ``argv``; :class:`LabError` if there is no such lab."""
    labs = lab_modules()
    key = name.replace("_", "-")
    if key not in labs:
        raise LabError(f"unknown lab {name!r}; valid labs: {', '.join(labs)}")
    module = importlib.import_module(f"labs.lab_{key.replace('-', '_')}")
    argv = list(argv or [])
    try:
        return _call_lab(module.main, argv)
    except LabError:
        raise
    except KeyError as exc:
        read = _read_flag(argv)
        if read is None:
            raise
        again = "run it without --replot" if read == "--replot" else "give a CSV this lab wrote"
        raise LabError(f"{read}: the CSV this lab read has no column {exc}: it was written "
                       f"by another version of the lab, or edited; {again}") from None


def _read_flag(argv: Sequence[str]) -> str | None:
    """How ``argv`` makes a lab read its rows from a CSV, for an error: ``--replot``,
    ``--from-csv FILE``, or ``None`` (it measures). argparse takes an unambiguous prefix
    (``--repl``, ``--from``) and ``--from-csv=FILE``, so these count too."""
    for i, arg in enumerate(argv):
        name, eq, value = arg.partition("=")
        if len(name) > 4 and "--replot".startswith(name) and not eq:
            return "--replot"
        if len(name) > 3 and "--from-csv".startswith(name):
            if not eq:
                value = argv[i + 1] if i + 1 < len(argv) else ""
            return f"--from-csv {value}"
    return None


def script(main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None = None
           ) -> int:
    """A lab run as ``python -m labs.lab_NAME``: its ``__main__`` line is
    ``raise SystemExit(script(main))``. ``main(argv)`` (``None``: the command line), with what
    ``crawlab``'s own main says in one line said in one line here too, not as a traceback: bad
    input (:class:`LabError`) and a served web that could not start
    (:class:`~crawlers.web.server.ServerError`), exit status 2; Ctrl-C, and SIGTERM as
    ``crawlab`` takes it, ``interrupted``, 130. The lines name the lab as its flags' errors do
    (``crawlab lab NAME: ...``)."""
    from crawlers.crawl.interrupts import terminate_is_interrupt
    from crawlers.web.server import ServerError

    name = Path(main.__code__.co_filename).stem.removeprefix("lab_").replace("_", "-")
    prog = f"crawlab lab {name}"
    try:
        with terminate_is_interrupt():
            return _call_lab(main, argv)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except ServerError as exc:
        print(f"{prog}: error: the served web did not start: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except LabError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
