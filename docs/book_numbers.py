"""The numbers the book's prose quotes, generated from the committed CSVs of docs/results/.

Usage: ``python docs/book_numbers.py [--results DIR] [--out FILE]`` (``docs/regenerate_figures.py``
runs it after the labs).

A page quotes a measured number only as a substitution, ``|pq_time_cbt_range|``, and includes
the generated ``docs/results/numbers.inc`` that defines them (``.. include::
results/numbers.inc``). Each substitution is one entry of :data:`NUMBERS`: the CSV it reads
and how it formats the value, so a number in the prose is the number in its CSV, always: a
test renders this file from the committed CSVs and fails when the committed one differs, and
fails when a page listed in :data:`PAGES` types a measured number by hand.
"""

from __future__ import annotations

import argparse
import csv
import re
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DOCS = Path(__file__).resolve().parent
RESULTS = DOCS / "results"
OUT = RESULTS / "numbers.inc"
# Pages whose measured numbers all come from here: tests/test_book_numbers.py finds every
# decimal, ratio (``2x``) and percentage typed in their prose (code literals and directives
# aside) and fails on any not listed here with the reason it is not a measurement of ours.
PAGES = {
    "priority.rst": {
        "0.8": "the paper's QH/CBT (Figure 9's 'about 20% more')",
        "20%": "the paper's words",
        "0.95": "the paper's Table 1",
        "0.93": "the paper's Table 1",
        "10%": "a setting: RAM at 10% of the queue (Figure 9)",
        "30%": "a setting: RAM at 30% of the queue (Figure 9)",
        "3.1": "a section number of the paper",
        "3.2": "a section number of the paper",
    },
}
TYPED = re.compile(r"(?<![\w.|])\d+(?:\.\d+)?(?:x\b|×|\s?%)|(?<![\w.|])\d+\.\d+(?!\d)")


def typed_numbers(text: str) -> list[str]:
    """Decimals, ratios and percentages typed in ``text``, outside code literals, directive
    lines and substitutions (``|name|``)."""
    text = re.sub(r"``[^`]*``", "", text)
    text = re.sub(r"\|[a-z0-9_]+\|", "", text)
    lines = [line for line in text.splitlines() if not line.lstrip().startswith(".. ")]
    return [" ".join(m.split()) for m in TYPED.findall("\n".join(lines))]

Rows = list[dict[str, str]]


@dataclass(frozen=True)
class Number:
    """One quoted number: ``value(rows)`` of ``results/lab/stem.csv``, as text."""

    name: str
    lab: str
    stem: str
    value: Callable[[Rows], str]
    what: str


def _rows(results: Path, lab: str, stem: str) -> Rows:
    path = results / lab / f"{stem}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run the {lab} lab (docs/regenerate_figures.py)")
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def _f(x: float, digits: int = 2) -> str:
    return f"{x:.{digits}f}"


def _where(rows: Rows, **match: str) -> Rows:
    return [r for r in rows if all(r[k] == v for k, v in match.items())]


def _one(rows: Rows, col: str, **match: str) -> float:
    found = _where(rows, **match)
    if len(found) != 1:
        raise ValueError(f"{len(found)} rows match {match}")
    return float(found[0][col])


def _median(rows: Rows, col: str, **match: str) -> float:
    found = _where(rows, **match)
    if not found:
        raise ValueError(f"no row matches {match}")
    return statistics.median(float(r[col]) for r in found)


def _range(values: list[float], digits: int = 2, unit: str = "") -> str:
    return f"{_f(min(values), digits)}{unit}-{_f(max(values), digits)}{unit}"


def _medians_by(rows: Rows, keys: tuple[str, ...], col: str) -> list[float]:
    groups: dict[tuple, list[float]] = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), []).append(float(r[col]))
    return [statistics.median(v) for v in groups.values()]


def _fb(frontier: str) -> Callable[[Rows], str]:
    def value(rows: Rows) -> str:
        mine = [float(r["ratio_vs_queue"]) for r in _where(rows, frontier=frontier, threads="1")]
        return (f"{_f(statistics.median(mine))}x (median of {len(mine)} rounds, "
                f"{_range(mine)}x)")
    return value


def _pq_time(col: str) -> Callable[[Rows], str]:
    def value(rows: Rows) -> str:
        big = [r for r in rows if int(r["R"]) >= 1000]
        return _range(_medians_by(big, ("N", "R"), col)) + "x"
    return value


def _blockio_row(ram: str, r: str, col: str, digits: int = 2) -> Callable[[Rows], str]:
    return lambda rows: _f(_one(rows, col, RAM=ram, R=r), digits)


def _qh_cbt_mean(rows: Rows) -> str:
    return _f(statistics.mean(float(r["QH/CBT"]) for r in rows))


def _qh_cbt_list(ram: str) -> Callable[[Rows], str]:
    def value(rows: Rows) -> str:
        mine = sorted(_where(rows, RAM=ram), key=lambda r: int(r["R"]))
        return ", ".join(f"{_f(float(r['QH/CBT']))} (R = {int(r['R']):,})" for r in mine)
    return value


def _bh_io(rows: Rows) -> str:
    return _range([float(r["BH_io_per_key"]) for r in rows], 1)


def _bh_over_others(rows: Rows) -> str:
    ratios = [float(r["BH_io_per_key"]) / max(float(r["QH_io_per_key"]),
                                               float(r["CBT_io_per_key"])) for r in rows]
    return f"{min(ratios):,.0f} to {max(ratios):,.0f}"


def _lru_saving(rows: Rows) -> str:
    mine = _where(rows, RAM="30%", R="1000")[0]
    own, lru = float(mine["QH_io_per_key"]), float(mine["QH_lru_io_per_key"])
    return f"{100 * (1 - own / lru):.0f} % ({own:.4f} against {lru:.4f} per key)"


def _cmp(kind: str, r: str) -> Callable[[Rows], str]:
    return lambda rows: _f(_one(rows, kind, R=r))


def _cmp_find(label: str, r: str) -> Callable[[Rows], str]:
    return lambda rows: _f(_one(rows, f"{label}_cmp_per_key", R=r)
                           - _one(rows, f"{label}_order_cmp_per_key", R=r))


def _eff(col: str, t: str) -> Callable[[Rows], str]:
    return lambda rows: _f(_one(rows, col, T=t), 3)


def _qh_rounds(rows: Rows) -> str:
    return ", ".join(f"{_f(float(r['QH_extract_per_slice']))} after {r['turnovers']} "
                     f"turnover{'s' if r['turnovers'] != '1' else ''}" for r in rows)


def _qh_per_step(rows: Rows) -> str:
    return _range([float(r["QH_extract"]) for r in rows])


def _relaxed(policy: str, t: str, col: str, digits: int = 0) -> Callable[[Rows], str]:
    return lambda rows: _f(_one(rows, col, policy=policy, T=t), digits)


NUMBERS = [
    Number("fb_cbt_1t", "frontier-bench", "frontier-bench", _fb("cbt"),
           "cbt put+get pairs/s over queue.Queue's, 1 thread"),
    Number("fb_qh_1t", "frontier-bench", "frontier-bench", _fb("quickheap"),
           "quickheap put+get pairs/s over queue.Queue's, 1 thread"),
    Number("pqc_qh_bh_10", "pq-comparisons", "pq-comparisons", _cmp("QH/BH", "10"),
           "QH/BH comparisons, R = 10"),
    Number("pqc_qh_bh_1000", "pq-comparisons", "pq-comparisons", _cmp("QH/BH", "1000"),
           "QH/BH comparisons, R = 1,000"),
    Number("pqc_qh_bh_10000", "pq-comparisons", "pq-comparisons", _cmp("QH/BH", "10000"),
           "QH/BH comparisons, R = 10,000"),
    Number("pqc_bh_10000", "pq-comparisons", "pq-comparisons", _cmp("BH_cmp_per_key", "10000"),
           "BH comparisons per key, R = 10,000"),
    Number("pqc_qh_10000", "pq-comparisons", "pq-comparisons", _cmp("QH_cmp_per_key", "10000"),
           "QH comparisons per key with ordering, R = 10,000"),
    Number("pqc_qh_find_10000", "pq-comparisons", "pq-comparisons", _cmp_find("QH", "10000"),
           "QH comparisons per key finding only, R = 10,000"),
    Number("pqc_qh_order_10000", "pq-comparisons", "pq-comparisons",
           _cmp("QH_order_cmp_per_key", "10000"), "QH ordering comparisons per key, R = 10,000"),
    Number("io_lru_saving", "pq-blockio", "pq-blockio", _lru_saving,
           "QH own cache policy against LRU, RAM 30 %, R = 1,000"),
    Number("io_qh_cbt_mean", "pq-blockio", "pq-blockio", _qh_cbt_mean, "mean QH/CBT block I/O"),
    Number("io_qh_cbt_10", "pq-blockio", "pq-blockio", _qh_cbt_list("10%"), "QH/CBT, RAM 10 %"),
    Number("io_qh_cbt_30", "pq-blockio", "pq-blockio", _qh_cbt_list("30%"), "QH/CBT, RAM 30 %"),
    Number("io_cbt_levels_30_1000", "pq-blockio", "pq-blockio",
           _blockio_row("30%", "1000", "CBT_levels", 0), "CBT levels, RAM 30 %, R = 1,000"),
    Number("io_cbt_cached_30_1000", "pq-blockio", "pq-blockio",
           _blockio_row("30%", "1000", "CBT_levels_cached", 0),
           "CBT levels cached whole, RAM 30 %, R = 1,000"),
    Number("io_cbt_levels_30_2500", "pq-blockio", "pq-blockio",
           _blockio_row("30%", "2500", "CBT_levels", 0), "CBT levels, RAM 30 %, R = 2,500"),
    Number("io_cbt_cached_30_2500", "pq-blockio", "pq-blockio",
           _blockio_row("30%", "2500", "CBT_levels_cached", 0),
           "CBT levels cached whole, RAM 30 %, R = 2,500"),
    Number("io_bh_range", "pq-blockio", "pq-blockio", _bh_io, "BH block transfers per key"),
    Number("io_bh_over", "pq-blockio", "pq-blockio", _bh_over_others,
           "BH block transfers over the worse of QH and CBT"),
    Number("time_cbt_range", "pq-time", "by-R", _pq_time("CBT/heapq"),
           "CBT/heapq time per key, R >= 1,000, quick run (medians)"),
    Number("time_qh_range", "pq-time", "by-R", _pq_time("QH/heapq"),
           "QH/heapq time per key, R >= 1,000, quick run (medians)"),
    Number("time_full_cbt_1e7", "full/pq-time", "by-N",
           lambda rows: _f(_one(rows, "CBT/heapq", N="10000000")), "CBT/heapq at N = 10^7"),
    Number("time_full_qh_1e7", "full/pq-time", "by-N",
           lambda rows: _f(_one(rows, "QH/heapq", N="10000000")), "QH/heapq at N = 10^7"),
    Number("eff_random_ext_8", "pq-slices", "efficiency", _eff("CBT_extract", "8"),
           "CBT extract efficiency, random pivots, T = 8"),
    Number("eff_random_ins_8", "pq-slices", "efficiency", _eff("CBT_insert", "8"),
           "CBT insert efficiency, random pivots, T = 8"),
    Number("eff_sample_ext_8", "pq-slices", "efficiency", _eff("CBT_sample_extract", "8"),
           "CBT extract efficiency, sampled pivots, T = 8"),
    Number("eff_sample_ins_8", "pq-slices", "efficiency", _eff("CBT_sample_insert", "8"),
           "CBT insert efficiency, sampled pivots, T = 8"),
    Number("eff_qh_rounds", "pq-slices", "qh-rounds", _qh_rounds,
           "QH per-slice extract efficiency as the run grows"),
    Number("eff_qh_per_step", "pq-slices", "qh-rounds", _qh_per_step,
           "QH per-superstep extract efficiency, T = 8"),
    Number("relaxed_two_max_8", "pq-slices", "relaxed",
           _relaxed("two-choice", "8", "max_rank_error"), "two-choice max rank error, T = 8"),
    Number("relaxed_two_max_2", "pq-slices", "relaxed",
           _relaxed("two-choice", "2", "max_rank_error"), "two-choice max rank error, T = 2"),
    Number("relaxed_even_max_8", "pq-slices", "relaxed",
           _relaxed("even", "8", "max_rank_error"), "even split max rank error, T = 8"),
    Number("relaxed_two_eff_8", "pq-slices", "relaxed",
           _relaxed("two-choice", "8", "extract_eff", 2), "two-choice extract efficiency, T = 8"),
]


def values(results: Path = RESULTS) -> dict[str, str]:
    """``{name: text}`` of every number, read from ``results``."""
    return {n.name: n.value(_rows(results, n.lab, n.stem)) for n in NUMBERS}


def render(results: Path = RESULTS) -> str:
    out = [".. This file is generated by docs/book_numbers.py from docs/results/*/*.csv.",
           "   Do not edit: rerun ``python docs/regenerate_figures.py --render-only``.", ""]
    for n in NUMBERS:
        value = n.value(_rows(results, n.lab, n.stem))
        out += [f".. {n.what}: results/{n.lab}/{n.stem}.csv",
                f".. |{n.name}| replace:: {value}", ""]
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="book_numbers.py", description=__doc__.split("\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if not args.results.is_dir():
        parser.error(f"--results: no such directory {str(args.results)!r}")
    try:
        text = render(args.results.resolve())
    except (FileNotFoundError, ValueError, KeyError) as e:
        print(f"book_numbers.py: {e}", file=sys.stderr)
        return 2
    args.out.write_text(text)
    print(f"wrote {args.out}: {len(NUMBERS)} numbers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
