"""The book's tables of measurements, generated from the committed CSVs of ``docs/results/``.

A page never shows a results CSV raw (15 digits, 18 columns of which 10 are the machine stamp):
it includes ``results/LAB/STEM.table.inc``, rendered here by ``docs/regenerate_figures.py``
(render step; a test renders again and compares). Each table

* rounds every measurement to 3 significant digits (whole numbers of 1,000 and more to the
  unit, with separators) and writes a ratio with ``×``;
* shows the columns that vary and are not the stamp, transposed (one column per row of the
  CSV) when it would be wider than :data:`MAX_COLUMNS`;
* says where it came from under its title: the CSV, then the machine stamp, date and commit of
  its rows (or ``model``: computed, not timed).
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
MAX_COLUMNS = 8
STAMP = ("source", "date", "commit", "note")


@dataclass(frozen=True)
class Table:
    """One generated table: ``results/CSV`` shown under ``title``."""

    csv: str
    title: str
    columns: tuple[str, ...] = ()  # default: every column but the stamp
    ratios: tuple[str, ...] = ()  # columns written with x
    percent: tuple[str, ...] = ()  # shares (0..1) written as percentages
    names: dict[str, str] = field(default_factory=dict)  # column -> header

    @property
    def out(self) -> str:
        return self.csv.removesuffix(".csv") + ".table.inc"


SHARES = ("share_run", "share_fetch", "share_lock", "share_not_empty", "share_not_full",
          "share_polite")
TIMELINE = Table(
    "crawl-timelines/crawl-timelines.csv", "Share of the threads' time in each state",
    columns=("scenario", "robots", "producers", "capacity", "latency", "pages_per_second",
             *SHARES),
    percent=SHARES, names={"pages_per_second": "pages/s", "latency": "latency (s)",
                           **{s: f"{s[6:]} (%)" for s in SHARES}})
COST = Table("crawl-timelines/timeline-cost-model.csv", "The cost of recording, from its parts",
             percent=("throughput_lost",),
             names={"throughput_lost": "throughput lost (%)",
                    "pages_per_second_without": "pages/s without"})
OVERHEAD = Table("crawl-timelines/timeline-overhead.csv",
                 "The monitor crawl with and without a timeline, alternating rounds",
                 names={"pages_per_second": "pages/s"})
SCALING = Table(
    "free-threaded/frontier-bench/scaling.csv",
    "2 threads over 1 thread, GIL off: median and min-max over the rounds",
    columns=("frontier", "rounds", "median", "min", "max"), ratios=("median", "min", "max"),
    names={"median": "2 threads / 1 (median)"})

FT_SCALING = Table(
    "free-threaded/frontier-bench/scaling.csv",
    "2 threads over 1 thread, GIL off: median and min-max over the rounds, the same as a share "
    "of the ceiling of each round, CPU efficiency, collections, and the lab's verdict",
    columns=("frontier", "median", "min", "max", "of_ceiling", "cpu_efficiency",
             "gc_per_second_2t", "verdict"), ratios=("median", "min", "max"),
    names={"median": "2 threads / 1", "of_ceiling": "share of the ceiling",
           "cpu_efficiency": "CPU efficiency", "gc_per_second_2t": "collections/s (2 threads)"})
USL = Table(
    "scaling/usl.csv",
    "The Universal Scalability Law fitted to each curve of the central figure (a model)",
    columns=("interpreter", "frontier", "sigma", "kappa", "speedup_8", "speedup_16",
             "speedup_64", "fit"), ratios=("speedup_8", "speedup_16", "speedup_64"),
    names={"sigma": "σ", "kappa": "κ", "speedup_8": "model: 8 cores",
           "speedup_16": "model: 16 cores", "speedup_64": "model: 64 cores"})

TABLES = (
    TIMELINE, COST, OVERHEAD,
    Table(f"free-threaded/{TIMELINE.csv}", f"{TIMELINE.title}, GIL off", TIMELINE.columns,
          percent=SHARES, names=TIMELINE.names),
    Table(f"free-threaded/{COST.csv}", f"{COST.title}, GIL off", percent=COST.percent,
          names=COST.names),
    Table(f"free-threaded/{OVERHEAD.csv}", f"{OVERHEAD.title}, GIL off", names=OVERHEAD.names),
    FT_SCALING, USL,
    Table("free-threaded/host-2026-11-24/frontier-bench/scaling.csv",
          f"{SCALING.title}, a later session's machine", SCALING.columns, SCALING.ratios,
          names=SCALING.names),
)


def number(text: str, ratio: bool = False, percent: bool = False) -> str:
    """A CSV cell as the book shows it: at most 3 significant digits (``12,345`` for numbers
    from 1,000), ``×`` after a ratio, percentages from shares; text as it is."""
    try:
        x = float(text)
    except ValueError:
        return text
    if text.strip().lower() in ("nan", "inf", "-inf", "true", "false") or math.isnan(x):
        return text if not math.isnan(x) else "n/a"
    if percent:
        x *= 100
    if x == int(x) and abs(x) < 1e15 and not (ratio or percent) and "." not in text \
            and "e" not in text.lower():
        shown = f"{int(x):,}" if abs(x) >= 1000 else str(int(x))
    elif abs(x) >= 1000:
        shown = f"{x:,.0f}"
    else:
        shown = f"{x:.3g}"
    return shown + ("×" if ratio else "")


def stamp(rows: list[dict[str, str]]) -> str:
    """Where the rows came from, once per distinct stamp: machine, date, commit, note."""
    seen: list[str] = []
    for r in rows:
        if r.get("source") == "measured":
            interp = (f"{r.get('machine_implementation', '')} {r.get('machine_python', '')}"
                      f"{'t' if r.get('machine_free_threaded') == 'True' else ''} · GIL "
                      f"{'on' if r.get('machine_gil') == 'True' else 'off'}")
            text = (f"measured on {r.get('machine_cores')} cores ({r.get('machine_cpu')}) · "
                    f"{interp} · {r.get('machine_os')} · load {r.get('machine_load_1min')}")
        else:
            text = r.get("source", "") + " (computed, not timed)"
        text += f", {r.get('date', '')[:10]}, commit {r.get('commit', '')[:10]}"
        if r.get("note"):
            text += f"; {r['note']}"
        if text not in seen:
            seen.append(text)
    return "; ".join(seen)


def _escape(text: str) -> str:
    return text.replace("*", r"\*").replace("|", r"\|") if text else "--"


def render_table(t: Table, results: Path = RESULTS) -> str:
    path = results / t.csv
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise ValueError(f"{path} has no rows")
    columns = list(t.columns) or [c for c in rows[0] if c not in STAMP
                                  and not c.startswith("machine_")]
    head = [t.names.get(c, c.replace("_", " ")) for c in columns]
    body = [[number(r[c], c in t.ratios, c in t.percent) for c in columns] for r in rows]
    if len(columns) > MAX_COLUMNS:  # transposed: one column per row of the CSV
        body = [[h, *(row[i] for row in body)] for i, h in enumerate(head)]
        head = ["row", *(f"{i + 1}" for i in range(len(rows)))]
        if columns[0] in t.columns:  # the first column names the rows
            head, body = body[0], body[1:]
    lines = [f".. list-table:: {t.title}", "   :header-rows: 1", "",
             *_row(head), *(line for row in body for line in _row(row)), "",
             f"From ``{t.csv}``: {stamp(rows)}.", ""]
    return "\n".join(lines)


def _row(cells: list[str]) -> list[str]:
    first, *rest = cells
    return [f"   * - {_escape(first)}", *(f"     - {_escape(c)}" for c in rest)]


def render(results: Path = RESULTS) -> dict[Path, str]:
    """``{path of the .inc: its text}`` for every table of :data:`TABLES`."""
    return {results / t.out: render_table(t, results) for t in TABLES}
