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
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DOCS = Path(__file__).resolve().parent
RESULTS = DOCS / "results"
OUT = RESULTS / "numbers.inc"
# Every page's measured numbers come from here: tests/test_book_numbers.py finds every decimal,
# ratio (``2x``) and percentage typed in the prose of every page of the book (code literals and
# directives aside) and fails on any not listed here, for its page, with the reason it is not a
# measurement of ours (a setting, a version, a paper's number, a goal).
PAGES = {
    "exercises/autograder.rst": {
        "64": "limits of the judge (64 MiB, capacities 1 to 64), settings",
        "5%": "a setting: the noise's chance per bytecode (exercises.evidence.PUBLIC)",
    },
    "instructor/answers.rst": {
        "10": "settings (R, capacities) and powers of ten",
        "100": "settings (R, sleepers)",
        "99": "worked arithmetic",
        "15": "the generated web's links per page, a setting",
        "50": "the re-check interval in ms, a setting",
        "30": "a capacity, a setting",
        "36": "sys.getsizeof of a 64-bit int, a constant of CPython",
        "16": "bytes of a set slot, and GB in a question",
        "27": "worked arithmetic: 16/0.6",
        "56": "sys.getsizeof of a tuple, a constant of CPython",
        "24": "sys.getsizeof of a float, a constant of CPython",
        "320": "worked arithmetic: P x R",
        "0.1": "a setting (switch interval) and worked arithmetic",
        "99 %": "a model estimate: 20 ms of waiting against about 0.1 ms of Python a page",
        "60 %": "CPython's set load factor",
        "0.6": "the same load factor, in arithmetic",
        "1 %": "worked arithmetic",
        "3.11": "a Python version",
        "3.13": "a Python version",
    },
    "instructor/plunge-and-gil.rst": {
        "plunged": "the paper's result",
        "60": "the paper's setting: twice its capacity 30",
        "30": "the paper's capacity",
        "10": "a setting: a capacity",
        "20": "a setting: a capacity",
        "50": "a setting: the re-check interval in ms",
        "0.8": "the threshold that defines the onset (labs.lab_crawl_capacity.onset)",
        "0.6": "the quick mode's slice, a setting",
        "3.13": "a Python version",
    },
    "handouts/frontier-bench.rst": {},
    "handouts/crawl-parsers.rst": {
        "16": "a setting: requests in flight or threads",
        "400": "a setting: the quick mode's pages",
        "15": "PEP 779's stated target (15 %) and worker counts",
        "3×": "the target set for the comparison (a goal)",
        "0.8": "the issue's target against the ceiling (a goal)",
        "3.13": "a Python version",
        "3.14": "a Python version",
        "3.11": "a Python version",
        "15 %": "PEP 779's stated single-thread target",
    },
    "handouts/crawl-timelines.rst": {
        "5%": "the target set for the cost of recording",
    },
    "free-threaded.rst": {
        "0.12": "a setting: the micro-benchmark's quick cell, in s",
        "0.5": "a setting: the micro-benchmark's full-mode cell, in s",
        "0.3": "a setting: the side-by-side lab's quick cell, in s",
        "0.15": "a setting: the scaling lab's quick cell, in s",
        "120": "pytest's per-test limit, a setting",
        "64": "a setting: the model's cut",
        "3.13": "a Python version",
        "3.14": "a Python version",
        "1.8×": "the issue's goal for sliced",
        "1.4×": "the goal for lockfree",
        "0.74": "the goal for lockfree, a share of the ceiling",
        "0.95": "the goal for sliced, a share of the ceiling",
        "1.6×": "the lab's threshold for a machine too busy to judge",
        "1.0×": "the goal for a single lock: below it",
        "1.0": "the CPU efficiency of no added cost, a definition",
        "1.1": "the lab's thresholds for a ceiling above the cores, a setting",
    },
    "frontiers.rst": {
        "3.13": "a Python version",
        "30": "the default capacity, a setting",
    },
    "glossary.rst": {
        "3.13": "a Python version",
    },
    "index.rst": {
        "3.10": "a Python version",
    },
    "instructor/grading.rst": {
        "600": "a setting: the grader's time limit in s",
        "3.10": "a Python version",
    },
    "scheduler.rst": {
        "100": "a setting: histories per frontier (LINEARIZE_RUNS)",
        "0.05": "the default of --noise, a setting",
        "95 %": "the confidence PCT's run count is computed for, a setting",
    },
    "handouts/crawl-quality.rst": {},
    "handouts/crawl-capacity.rst": {
        "plunged": "the paper's result (its Figures 16-18)",
        "50": "a setting: the re-check interval in ms",
        "20": "the full mode's duration in minutes, an estimate",
        "100": "a question's setting",
        "0.8": "the threshold that defines the onset",
    },
    "handouts/bsp-failures.rst": {
        "10 %": "the paper's 'below 10 %'",
    },
    "handouts/bsp-rx.rst": {
        "1 %": "a threshold of the search",
        "5 %": "a threshold",
    },
    "handouts/bsp-speedup.rst": {
        "1 %": "a question's threshold",
        "1.6×": "the issue's target for P = 2 (a goal)",
    },
    "handouts/crawl-threads.rst": {
        "50": "worked arithmetic: T/L with L = 20 ms",
        "3,200": "worked arithmetic: T/L with L = 20 ms",
        "1.5": "the quick slice, a setting",
        "0.05": "a latency setting",
        "0.25": "the warm-up, a setting",
    },
    "handouts/crawl-memory.rst": {
        "70": "a setting: the generated URLs' length",
        "150": "the target in bytes per URL (a goal)",
        "16": "a question's setting (16 GB)",
        "3.11": "a Python version",
    },
    "handouts/crawl-races.rst": {
        "0.1": "a switch interval setting",
        "3.11": "a Python version",
        "3.13": "a Python version",
    },
    "handouts/bsp-dynamic.rst": {
        "64": "a setting to try (batch)",
        "3.1": "the paper's Algorithm 3.1",
        "1.5": "a setting",
        "10 %": "a checkpoint of the metric",
        "50 %": "a checkpoint",
        "1.0": "coverage 1.0, a requirement",
    },
    "web.rst": {
        "75": "the papers' datasets (75 to 96 %)",
        "40": "worked example (Little's law)",
        "120": "worked example (Little's law)",
        "200": "a setting: injected latency in ms",
        "96": "the size of the test pages in KB, a setting",
        "16": "a setting: KB per page, threads",
        "50": "a setting and a fact of RFC 9309",
        "500": "RFC 9309's 500 KiB",
        "0.85": "a default of the generator",
        "96 %": "the papers' datasets (75 to 96 %)",
        "0.2": "a worked example, not a measurement",
        "0.1": "a worked example",
        "1.7": "a parameter of the generator",
        "1.1": "a parameter of the generator",
        "0.05": "a setting in an example command and a fault rate",
    },
    "bsp.rst": {
        "32": "a setting: P = 4 to 32",
        "1,000": "a setting: the error tolerance",
        "10,000": "a setting: the error tolerance",
        "10 %": "the paper's 'below 10 %' (Figure 6)",
        "5 %": "a threshold of the binary search (the paper's statement)",
        "6.19 %": "the paper's Table 1",
        "3.44 %": "the paper's Table 1",
        "2.50 %": "the paper's Table 1",
        "0.82 %": "the paper's Table 1",
        "1.0": "coverage 1.0, a requirement (every page)",
        "3.1": "the paper's Algorithm 3.1",
    },
    "partitioning.rst": {
        "50": "an estimate of a message's size in bytes",
        "75": "the papers' datasets (75 to 96 %)",
        "40,000": "a setting: the quick web",
        "2,000": "a setting: the quick web",
        "64": "a setting: topics, K",
        "31": "worked arithmetic: sites per part",
        "1,500": "a setting: the simulated web",
        "40": "a setting: its sites",
        "200": "a question's setting",
        "87.4 %": "the paper's google crawl (Table 1 of the paper)",
        "5 %": "the balance constraint given to the partitioners (a setting)",
        "96 %": "real webs keep 75 to 96 % of links intra-site: the papers' datasets",
        "90 %": "a setting: topic locality 0.9",
        "0.5": "a setting of the exercise",
        "0.7": "a setting of the exercise",
        "0.9": "a setting of the exercise",
        "1.0": "a setting of the exercise",
    },
    "priority.rst": {
        "slowest": "a definition (a superstep waits for its slowest slice)",
        "2,000": "a question's setting",
        "20": "worked arithmetic",
        "0.8": "the paper's QH/CBT (Figure 9's 'about 20% more')",
        "20%": "the paper's words",
        "0.95": "the paper's Table 1",
        "0.93": "the paper's Table 1",
        "10%": "a setting: RAM at 10% of the queue (Figure 9)",
        "30%": "a setting: RAM at 30% of the queue (Figure 9)",
        "3.1": "a section number of the paper",
        "3.2": "a section number of the paper",
    },
    "building.rst": {
        "800": "the page width the tables are made for, a setting",
    },
    "durability.rst": {
        "64": "a setting: group commit of 64 pages",
    },
    "exercises/ex3-termination.rst": {
        "300": "a setting of the grader's crawl",
        "10": "a setting: the switch interval in µs",
        "20": "a setting: the grader's time limit in s",
    },
    "exercises/ex4-bsp-exchange.rst": {
        "10": "a setting: the switch interval in µs",
    },
    "instructor/dpor.rst": {
        "40": "worked arithmetic",
        "30": "a capacity, a setting",
    },
    "instructor/solutions.rst": {
        "slowest": "a definition (the slowest worker of a superstep)",
    },
    "mutation.rst": {
        "4,000": "a setting: where a check's output is cut",
        "4,001": "a setting: where a check's output is cut",
        "55": "a setting of the test: where the search is cut",
        "100": "a setting of the test: where the search is cut",
        "20": "a setting: the runs asked of the flaky tests",
    },
}
TYPED = re.compile(r"(?<![\w.|])\d+(?:\.\d+)?(?:x\b|×|\s?%)|(?<![\w.|])\d+\.\d+(?!\.?\d)"
                   r"|(?<![\w.|])(?:\d+(?:\.\d+)?\s+to\s+)?\d+(?:\.\d+)?\s+times\b"
                   r"|~\s?\d+")
# Whole numbers a page types by hand: a count of 10 or more, one written with a thousands
# separator (``12,345``) or a run of slash-separated counts (``3/249/254``). Not: a year, a
# setting written as an assignment (``R = 1,000``, ``K = 64``), a power (``10^6``, ``2**63``),
# a section or issue reference, nor a thread count (``16 threads``: the command's parameter).
WHOLE = re.compile(r"(?<![\w.,/|=^*#§-])(?<!= )(?<!\*\*)"
                   r"(?:\d{1,3}(?:,\d{3})+|\d+(?:/\d+){2,}|\d{2,})"
                   r"(?![\w/%×^*\\-]|[.,]\d|\s?%)"
                   r"(?!\s+(?:threads?|robots?|processes|cores?|workers?)\b)")
YEAR = re.compile(r"(?:19|20)\d\d")
REFERENCE = re.compile(r"(?:\b(?:Figures?|Tables?|Sections?|[Ii]ssues?|RFC|PEP|Algorithm|Chapter)"
                       r"|\d,?|-|\band)\s*$")
# Words that state a shape or a ranking of a measurement: they come from a substitution that
# computes them from the CSV (``|ft_gainers|``), or the page's PAGES entry says why not (a
# paper's result, a definition).
SHAPES = re.compile(r"\b(?:scal(?:es|ed|ing) linearly|linear speed-?up|twice as (?:fast|slow)"
                    r"|half as fast|plunges|plunged|all (?:lose|gain|win)"
                    r"|every (?:frontier|line) (?:loses|gains|rises)|no (?:line|frontier) "
                    r"(?:rises|gains)|fastest|slowest)\b", re.I)
# Directives whose body is code or data, not prose.
CODE_DIRECTIVES = ("code-block", "code", "sourcecode", "literalinclude", "parsed-literal",
                   "math", "highlight", "doctest", "testcode", "testoutput")


def prose(text: str) -> str:
    """``text`` without code literals, roles (``:pep:`779```), substitutions, directive lines
    and their options, literal blocks (after ``::``) and code directives' bodies."""
    text = re.sub(r"``[^`]*``", "", text)
    text = re.sub(r":[a-z:-]+:`[^`]*`", "", text)
    text = re.sub(r"\|[a-z0-9_]+\|", "", text)
    kept, skip_indent = [], None
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip())
        if skip_indent is not None:
            if not line.strip() or indent > skip_indent:
                continue
            skip_indent = None
        stripped = line.strip()
        if stripped.startswith(".. "):
            name = re.match(r"\.\. ([\w-]+)::", stripped)
            if name and name.group(1) in CODE_DIRECTIVES or stripped.endswith("::") and not name:
                skip_indent = indent
            elif name is None and not stripped.startswith(".. |"):
                skip_indent = indent  # a comment: its indented lines too
            continue
        if re.match(r":[\w-]+:(\s|$)", stripped) and indent:
            skip_indent = indent  # a directive's option, with its continuation lines
            continue
        if stripped.endswith("::"):
            skip_indent = indent
            line = line.rstrip()[:-2]
        kept.append(line)
    return "\n".join(kept)


def typed_numbers(text: str) -> list[str]:
    """Decimals, ratios, percentages, whole-number counts and shape or ranking words typed in
    ``text``, outside code (literals, literal blocks, code directives), directive lines and
    options, roles and substitutions (``|name|``)."""
    body = prose(text)
    found = [(m.start(), " ".join(m.group().split())) for m in TYPED.finditer(body)]
    taken = [range(m.start(), m.end()) for m in TYPED.finditer(body)]
    found += [(m.start(), m.group()) for m in WHOLE.finditer(body)
              if not YEAR.fullmatch(m.group()) and not any(m.start() in r for r in taken)
              and not REFERENCE.search(body[max(0, m.start() - 12):m.start()])]
    found += [(m.start(), m.group().lower()) for m in SHAPES.finditer(body)]
    return [t for _, t in sorted(found)]


Rows = list[dict[str, str]]


@dataclass(frozen=True)
class Number:
    """One quoted number: ``value(rows)`` of ``results/lab/stem.csv``, as text; with
    ``beside=(lab, stem)``, ``value(rows, rows_beside)`` (a comparison of two CSVs)."""

    name: str
    lab: str
    stem: str
    value: Callable[..., str]
    what: str
    beside: tuple[str, str] | None = None
    more: tuple[tuple[str, str], ...] = ()

    def text(self, results: Path) -> str:
        rows = _rows(results, self.lab, self.stem)
        extra = [_rows(results, *b) for b in self.more]
        if self.beside is None:
            return self.value(rows, *extra)
        return self.value(rows, _rows(results, *self.beside), *extra)


def _rows(results: Path, lab: str, stem: str) -> Rows:
    path = results / lab / f"{stem}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run the {lab} lab "
                                "(docs/regenerate_figures.py)")
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
    """``lo-hi`` of ``values`` with ``unit``; one value when the two read the same."""
    lo, hi = _f(min(values), digits), _f(max(values), digits)
    return f"{lo}{unit}" if lo == hi else f"{lo}-{hi}{unit}"


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


def _cell(col: str, digits: int = 2, scale: float = 1.0, unit: str = "",
          **match: str) -> Callable[[Rows], str]:
    """One cell (the median, if several rows match) formatted with ``digits`` decimals;
    ``digits=-1``: a whole number with thousands separators."""
    def value(rows: Rows) -> str:
        x = scale * _median(rows, col, **match)
        return (f"{x:,.0f}" if digits < 0 else _f(x, digits)) + unit
    return value


def _text(col: str, **match: str) -> Callable[[Rows], str]:
    """One cell as it is written (the single row that matches)."""
    def value(rows: Rows) -> str:
        found = _where(rows, **match)
        if len(found) != 1:
            raise ValueError(f"{len(found)} rows match {match}")
        return found[0][col]
    return value


def _col_range(col: str, digits: int = 1, unit: str = "", **match: str) -> Callable[[Rows], str]:
    return lambda rows: _range([float(r[col]) for r in _where(rows, **match)], digits, unit)


def _control(k: str) -> Callable[[Rows], str]:
    return lambda rows: _f(_median(rows, "messages", web="no-topics", K=k, method="site-hash")
                           / _median(rows, "messages", web="no-topics", K=k,
                                     method="hypergraph"))


def _page_over_site(rows: Rows) -> str:
    ks = sorted({r["K"] for r in rows if r["web"] == "topical"}, key=int)
    ratios = [_median(rows, "messages", web="topical", K=k, method="page-hash")
              / _median(rows, "messages", web="topical", K=k, method="site-hash") for k in ks]
    return f"{min(ratios):.0f} to {max(ratios):.0f}"


def _peak_k(rows: Rows) -> str:
    return max(rows, key=lambda r: float(r["hash/HP"]))["K"]


def _paper_k64_range(rows: Rows) -> str:
    return _range([float(r["ratio"]) for r in _where(rows, K="64")], 1)


def _control_range(rows: Rows) -> str:
    return _range([float(_control(k)(rows)) for k in sorted(
        {r["K"] for r in rows if r["web"] == "no-topics"}, key=int)])


def _bsp_equal(rows: Rows) -> str:
    off = [r["method"] for r in rows if r["predicted_messages"] != r["measured_page_messages"]]
    if not off:
        return "the count equals the prediction exactly for every partition"
    return f"the count differs from the prediction for {', '.join(off)}"


def _pct(col: str, digits: int = 1, **match: str) -> Callable[[Rows], str]:
    return _cell(col, digits, scale=100, unit=" %", **match)


def _remote_range(rows: Rows) -> str:
    return _range([100 * float(r["remote_over_local"]) for r in rows
                   if r["remote_over_local"] != ""], 0, " %")


def _dyn(policy: str) -> Callable[[Rows], str]:
    return _cell("stdev_pct", 2, unit=" %", policy=policy)


def _dyn_model(rows: Rows) -> str:
    return ", ".join(f"{r['policy']} {float(r['stdev_pct']):.2f} %" for r in rows)


def _dyn_comm(rows: Rows) -> str:
    """bsp-dynamic: the communication overhead L/N against 1, over the four policies."""
    xs = [float(r["communication"]) for r in rows]
    side = "above 1" if min(xs) > 1 else "below 1" if max(xs) < 1 else "around 1"
    return f"{side} ({_range(xs, 3)} over the four policies)"


def _bspf_vs_paper(rows: Rows) -> str:
    """bsp-failures: our remote/local failure ratio against the paper's 'below 10 %'."""
    xs = [float(r["remote_over_local"]) for r in rows if r["remote_over_local"] != ""]
    side = "above" if min(xs) > 0.1 else "below" if max(xs) < 0.1 else "on both sides of"
    return f"{_range([100 * x for x in xs], 0, ' %')}, {side}"


def _rx_search(rows: Rows) -> str:
    """bsp-rx: the R_x the binary search found under both readings, per threshold."""
    parts, close = [], True
    for threshold in sorted({r["threshold"] for r in rows}, key=float):
        a = _one(rows, "R_x", threshold=threshold, messages="all links")
        b = _one(rows, "R_x", threshold=threshold, messages="remote only")
        close &= abs(a - b) <= 0.05 * max(a, b)
        parts.append(f"{a:,.1f} against {b:,.1f} at {100 * float(threshold):g} %")
    verdict = "about the same" if close else "a different"
    return f"{verdict} ``R_x`` for the same error threshold under both ({'; '.join(parts)})"


def _worse(a: str, b: str) -> Callable[[Rows], str]:
    def value(rows: Rows) -> str:
        x, y = _one(rows, "stdev_pct", policy=a), _one(rows, "stdev_pct", policy=b)
        return "worse than" if x > y else "better than" if x < y else "level with"
    return value


def _machine(rows: Rows) -> str:
    """Where the rows were measured, in a phrase: cores, Python, GIL, load at the start."""
    r = next(r for r in rows if r.get("source") == "measured")
    gil = "GIL on" if r["machine_gil"] == "True" else "GIL off"
    build = "t" if r["machine_free_threaded"] == "True" else ""
    return (f"{r['machine_cores']} cores, {r['machine_implementation']} "
            f"{r['machine_python']}{build}, {gil}, 1-min load {r['machine_load_1min']} at the "
            f"start, {r['date'][:10]}")


def _rate(mode: str, parser: str, threads: str) -> Callable[[Rows], str]:
    def value(rows: Rows) -> str:
        x = _median(rows, "pages_per_s", mode=mode, parser=parser, threads=threads)
        return f"{x:,.0f} pages/s" if x >= 20 else f"{x:.1f} pages/s"
    return value


def _ext_ratio(a: str, b: str, threads: str) -> Callable[[Rows], str]:
    return lambda rows: f"{_median(rows, 'pages_per_s', mode='crawl', parser=a, threads=threads) / _median(rows, 'pages_per_s', mode='crawl', parser=b, threads=threads):.1f}"  # noqa: E501


def _ext_vs_scrapy(rows: Rows) -> str:
    ratios = [_median(rows, "pages_per_s", mode="crawl", parser="lxml", threads=t)
              / _median(rows, "pages_per_s", mode="crawl", parser="scrapy", threads=t)
              for t in ("1", "16")]
    return _range(ratios, 1)


def _ext_pair(parser: str) -> Callable[[Rows], str]:
    def value(rows: Rows) -> str:
        xs = [_median(rows, "pages_per_s", mode="extract", parser=parser, threads=t)
              for t in ("1", "16")]
        return " and ".join(f"{x:,.0f}" if x >= 20 else f"{x:.1f}" for x in xs)
    return value


def _ext_sys(parser: str) -> Callable[[Rows], str]:
    return _cell("cpu_sys_s", 1, unit=" s", mode="crawl", parser=parser, threads="16")


def _ws_slow(rows: Rows) -> dict[str, str]:
    return max(_where(rows, test="slow"), key=lambda r: int(r["connections"]))


def _ws(col: str, digits: int = -1, unit: str = "") -> Callable[[Rows], str]:
    def value(rows: Rows) -> str:
        x = float(_ws_slow(rows)[col])
        return (f"{x:,.0f}" if digits < 0 else _f(x, digits)) + unit
    return value


def _fetchers(rows: Rows) -> list[float]:
    return [float(r["requests_per_s"]) for r in rows if r["test"].startswith("HttpFetcher")]


def _ws_over(rows: Rows) -> str:
    return f"{_median(rows, 'requests_per_s', test='max') / max(_fetchers(rows)):.1f}"


def _ws_fetcher(rows: Rows) -> str:
    return " and ".join(f"{x:,.0f}" for x in _fetchers(rows))


def _cp(parser: str, threads: str, col: str, digits: int = 1,
        how: str = "range") -> Callable[[Rows], str]:
    """crawl-parsers: the range (or median) over rounds of ``col`` at that parser and threads;
    ``cpu_ms`` is CPU (user + system) per page."""
    def value(rows: Rows) -> str:
        mine = _where(rows, parser=parser, threads=threads)
        if not mine:
            raise ValueError(f"no crawl-parsers row for {parser}, {threads} threads")
        xs = [float(r[col]) for r in mine]
        if how == "median":
            return _f(statistics.median(xs), digits)
        return _f(xs[0], digits) if len(xs) == 1 else _range(xs, digits)
    return value


def _cc(rows: Rows, ft: bool) -> Rows:
    """crawl-ceiling: the rows of the GIL build (``ft`` False) or of a free-threaded build
    with the GIL off (``ft`` True)."""
    mine = [r for r in rows if r["free_threaded"] == str(ft) and r["gil"] == str(not ft)]
    if not mine:
        raise ValueError(f"no crawl-ceiling row for {'free-threaded' if ft else 'GIL'} runs")
    return mine


def _cc_ft(value: Callable[[Rows], str]) -> Callable[[Rows], str]:
    """``value``, or what is missing when the run compared no free-threaded interpreter
    (``crawlab lab crawl-parsers`` without ``--interpreter``)."""
    def guarded(rows: Rows) -> str:
        try:
            return value(rows)
        except ValueError:
            return "not measured in this run (no free-threaded --interpreter was given)"
    return guarded


def _cc_site(rows: Rows) -> str:
    r = rows[0]
    return f"{r.get('site', 'a folder of HTML')} ({r.get('mirrors', '?')} mirror sites)"


def _cc_med(col: str, ft: bool, digits: int = 2) -> Callable[[Rows], str]:
    return lambda rows: _f(statistics.median(float(r[col]) for r in _cc(rows, ft)), digits)


def _cc_spread(col: str, ft: bool) -> Callable[[Rows], str]:
    """The median over rounds, with the lowest and highest."""
    def value(rows: Rows) -> str:
        xs = [float(r[col]) for r in _cc(rows, ft)]
        return f"{_f(statistics.median(xs))} ({_range(xs)}, {len(xs)} rounds)"
    return value


def _cc_others(rows: Rows) -> list[float]:
    """Each round's share of the machine other processes took (``nan`` where not read)."""
    return [float(r["others_cpu_share"] or "nan") for r in rows]


def _cc_busy(rows: Rows) -> str:
    """Why the other work during ``rows`` voids a wall-clock verdict, or "" when it does not:
    the lab's rule on the share of the machine other processes took in each round
    (:func:`labs.othercpu.busy_reason`); for rows measured before the lab read it, the
    1-minute load above the machine's cores (the rule of :func:`_cc_shared`)."""
    if "others_cpu_share" in rows[0]:
        from labs.othercpu import busy_reason

        return busy_reason(_cc_others(rows))
    cores = int(rows[0]["machine_cores"])
    top = max(float(r["load_avg"]) for r in rows)
    return (f"cannot judge (machine too busy: the 1-minute load reached {top:.1f} on {cores} "
            "cores, so the wall-clock share of the ceiling is no verdict)" if top > cores else "")


def _cc_target(ft: bool) -> Callable[[Rows], str]:
    """The 0.8-of-the-ceiling target: met or missed, unless the run's load voids the
    wall-clock ratio it is judged on."""
    def value(rows: Rows) -> str:
        mine = _cc(rows, ft)
        busy = _cc_busy(mine)
        if busy:
            return busy
        x = statistics.median(float(r["of_ceiling"]) for r in mine)
        return "met in this run" if x >= 0.8 else "missed in this run"
    return value


def _cc_shared(rows: Rows) -> str:
    """Whether the other work during the runs leaves the wall-clock ratios a verdict."""
    if "others_cpu_share" in rows[0]:
        busy = _cc_busy(rows)
        said = (f"other processes took {_range(_cc_others(rows), 2)} of the machine in a "
                "round (its busy CPU seconds less the lab's own)")
        return f"{said}, so these wall-clock ratios are no verdict" if busy else said
    cores = int(rows[0]["machine_cores"])
    top = max(float(r["load_avg"]) for r in rows)
    if top > cores:
        return (f"the load went above the {cores} cores, so these wall-clock ratios are no "
                "verdict")
    return f"the load stayed within the {cores} cores"


def _cc_pair(col: str) -> Callable[[Rows], str]:
    """Free-threaded over GIL, round by round: the median with the lowest and highest."""
    def value(rows: Rows) -> str:
        gil = {r["round"]: float(r[col]) for r in _cc(rows, False)}
        ft = {r["round"]: float(r[col]) for r in _cc(rows, True)}
        xs = [ft[k] / gil[k] for k in gil if k in ft]
        return f"{_f(statistics.median(xs))}× ({_range(xs)}×)"
    return value


def _cc_python_pair(rows: Rows) -> str:
    """Free-threaded over GIL, round by round: the ceiling's CPU per page less its lxml
    parse (the Python part of a page's extraction)."""
    def python_ms(r: dict) -> float:
        return float(r["ceiling_cpu_ms_per_page"]) - float(r["parse_only_ms_per_page"])
    gil = {r["round"]: python_ms(r) for r in _cc(rows, False)}
    ft = {r["round"]: python_ms(r) for r in _cc(rows, True)}
    xs = [ft[k] / gil[k] for k in gil if k in ft]
    return f"{_f(statistics.median(xs))}× ({_range(xs)}×)"


def _cc_libxml2(ft: bool) -> Callable[[Rows], str]:
    def value(rows: Rows) -> str:
        found = {r.get("libxml2", "") for r in _cc(rows, ft)} - {""}
        return ", ".join(sorted(found)) if found else "not recorded in this run"
    return value


def _cc_reason(ft: bool) -> Callable[[Rows], str]:
    """Why the crawl stays where it is, in a sentence of medians: the bounds its CPU
    seconds give (see labs/lab_crawl_parsers.py: ceiling_row)."""
    def value(rows: Rows) -> str:
        mine = _cc(rows, ft)

        def med(col: str) -> float:
            return statistics.median(float(r[col]) for r in mine)

        crawler, server, ceiling = (med("crawler_cpu_ms_per_page"),
                                    med("server_cpu_ms_per_page"),
                                    med("ceiling_cpu_ms_per_page"))
        text = (f"the crawl spent {_f(crawler)} ms of CPU a page and the server "
                f"{_f(server)} ms, against {_f(ceiling)} ms a page in the ceiling: on two "
                f"cores of its own, at most {_f(med('cpu_of_ceiling'))} of the ceiling")
        if not ft:
            held = crawler - med("parse_only_ms_per_page")
            text += (f"; and with the GIL on, all but the lxml parse "
                     f"({_f(med('parse_only_ms_per_page'))} ms) holds it, {_f(held)} ms a "
                     f"page on one core at a time: at most {_f(med('gil_of_ceiling'))}")
        bound = med("bound_of_ceiling")
        return text + (f". So 0.8 is {'within' if bound >= 0.8 else 'beyond'} what this "
                       "crawl's CPU seconds allow on 2 cores")
    return value


def _cc_load(rows: Rows) -> str:
    return _range([float(r["load_avg"]) for r in rows], 1)


def _bsp_cpu(p: str, role: str) -> Callable[[Rows], str]:
    return lambda rows: _f(_one(rows, f"{role}_cpu_ms_per_page", P=p))


def _bsp_bound(rows: Rows) -> str:
    from labs.lab_bsp_speedup import cpu_bound

    cpu = [{k: (int(v) if k == "P" else float(v)) for k, v in r.items()
            if k == "P" or k.endswith("_per_page") or k == "pages_per_s"} for r in rows]
    return _f(cpu_bound(cpu))


def _bsp_one_worker(rows: Rows) -> str:
    """How many cores P = 1 kept busy, said against one core (cpu.csv)."""
    busy = _one(rows, "cores_busy", P="1")
    if busy > 1.0:
        return (f"{_f(busy)} cores: more than one, because a worker's robot threads parse with "
                "lxml, which releases the GIL")
    return f"{_f(busy)} cores: no more than one"


def _bsp_reason(rows: Rows) -> str:
    """The sentence that closes the measured reason: whether the bound rules 1.6x out, and
    why, from P = 1's cores (cpu.csv)."""
    busy = _one(rows, "cores_busy", P="1")
    if float(_bsp_bound(rows)) >= 1.6:
        return ("So the target is not ruled out by CPU seconds: a gap between the bound and "
                "the measured ratio is the machine's load, the barrier or the server")
    why = ("P = 1 is already more than one core's worth of crawling, and a second worker can "
           "only have what the first one leaves of the second core" if busy > 1.0 else
           "every process's CPU per page at P = 2 is more than two cores can give at the "
           "target's rate")
    return f"That is the reason, measured: {why}"


def _bsp_bound_verdict(rows: Rows) -> str:
    return "within" if float(_bsp_bound(rows)) >= 1.6 else "beyond"


def _bsp_model(rows: Rows) -> str:
    return ", ".join(f"{_f(float(r['vs_P1']), 1)}× at P = {r['P']} "
                     f"({_f(float(r['vs_P1_on_cores']), 1)}× on {r['cores']} cores)"
                     for r in rows if int(r["P"]) >= 4)


def _bsp_target(rows: Rows) -> str:
    x = float(_one(rows, "vs_bsp_P1", crawler="bsp processes", P="2"))
    return f"{_f(x)}× ({'met' if x >= 1.6 else 'missed'})"


def _bsp_scrapy(rows: Rows) -> str:
    """bsp-speedup: the 5x-Scrapy target, or that the run has no Scrapy row to judge it by."""
    scrapy = _where(rows, crawler="scrapy")
    if not scrapy:
        return ("this run has no Scrapy row (scrapy was not installed where it ran), so the "
                "5x-Scrapy target is not judged here and the figure has no Scrapy line")
    mine = float(_one(rows, "pages_per_s_median", crawler="bsp processes", P="2"))
    theirs = statistics.median(float(r["pages_per_s_median"]) for r in scrapy)
    x = mine / theirs
    return (f"Scrapy ran at {theirs:,.0f} pages/s, so P = 2 made {_f(x)}× Scrapy's pages/s "
            f"({'met' if x >= 5 else 'missed'})")


def _cp_target(rows: Rows) -> str:
    one = statistics.median(float(r["pages_per_s"]) for r in _where(rows, parser="lxml",
                                                                       threads="1"))
    many = statistics.median(float(r["pages_per_s"]) for r in _where(rows, parser="lxml",
                                                                        threads="16"))
    return "met" if many >= one else "missed"


def _cp_vs_scrapy(rows: Rows) -> str:
    r = rows[0]
    return (f"{float(r['ratio_median']):.1f} ({float(r['ratio_min']):.1f} to "
            f"{float(r['ratio_max']):.1f})")


def _capacity_ratios(rows: Rows, other: str) -> dict[str, list[tuple[int, float]]]:
    """Per capacity, ``(threads, other / monitor)`` of the plunge runs' medians."""
    from labs.lab_crawl_capacity import medians

    plunge = [r for r in rows if r.get("experiment") == "plunge"]
    out = {}
    for cap in sorted({r["capacity"] for r in plunge}, key=int):
        pages = medians(plunge, cap)
        threads = sorted({t for _, t in pages})
        out[cap] = [(t, pages[(other, t)] / pages[("monitor", t)]) for t in threads]
    return out


def _onsets(rows: Rows) -> str:
    from labs.lab_crawl_capacity import onset

    found = [onset([t for t, _ in pts], [x for _, x in pts])
             for pts in _capacity_ratios(rows, "tanenbaum").values()]
    return ", ".join("none" if t is None else str(t) for t in found)


def _last_ratio(rows: Rows) -> str:
    return _range([pts[-1][1] for pts in _capacity_ratios(rows, "tanenbaum").values()])


def _sem_range(rows: Rows) -> str:
    return _range([x for pts in _capacity_ratios(rows, "semaphore").values() for _, x in pts])


def _sem_extreme(rows: Rows) -> str:
    cap, t, x = max(((c, t, x) for c, pts in _capacity_ratios(rows, "semaphore").items()
                     for t, x in pts), key=lambda p: abs(p[2] - 1))
    return f"{x:.2f} at capacity {cap}, {t} threads"


def _early(rows: Rows) -> str:
    found = [f"capacity {c} at {t} threads, {x:.2f}"
             for c, pts in _capacity_ratios(rows, "tanenbaum").items()
             for t, x in pts if t < 2 * int(c) and x < 0.8]
    return "; ".join(found) if found else "none"


def _grid(rows: Rows) -> str:
    return ", ".join(str(t) for t, _ in next(iter(_capacity_ratios(rows, "tanenbaum").values())))


def _ceiling(rows: Rows) -> float:
    return _median(rows, "cpu_ceiling", threads="1", frontier="monitor")


def _ct_bound(rows: Rows) -> str:
    return _range([float(r["of_bound"]) for r in rows if r["frontier"] != "unsynchronized"])


def _ct_bound_shape(rows: Rows) -> str:
    """The zero-latency panel in words: per robot count above one, each frontier's median rate
    over its own one-robot median (``vs_one_robot``), as a range with the frontiers at its ends,
    and whether every frontier fell below its one-robot rate."""
    counts = sorted({int(r["threads"]) for r in rows} - {1})
    parts = []
    for t in counts:
        names = sorted({r["frontier"] for r in rows})
        ratio = {n: _median(rows, "vs_one_robot", frontier=n, threads=str(t)) for n in names}
        lo, hi = min(ratio, key=ratio.get), max(ratio, key=ratio.get)
        below = sum(v < 1.0 for v in ratio.values())
        verdict = ("every frontier below its one-robot rate" if below == len(names)
                   else "none below" if below == 0 else f"{below} of {len(names)} below")
        parts.append(f"with {t} robots from {_f(ratio[lo])}x (``{lo}``) to {_f(ratio[hi])}x "
                     f"(``{hi}``), {verdict}")
    return "; ".join(parts)


def _mem(structure: str, col: str = "bytes_per_url", urls: str = "1000000"
         ) -> Callable[[Rows], str]:
    """crawl-memory: bytes per URL of ``structure`` at ``urls`` URLs, to the byte."""
    return lambda rows: f"{_one(rows, col, structure=structure, urls=urls):.0f}"


def _mem_frontiers(names: tuple[str, ...]) -> Callable[[Rows], str]:
    def value(rows: Rows) -> str:
        xs = [_one(rows, "bytes_per_url", structure=n, urls="100000") for n in names]
        lo, hi = round(min(xs)), round(max(xs))
        return f"{lo}" if lo == hi else f"{lo} to {hi}"
    return value


def _mem_budget(rows: Rows) -> float:
    """Bytes per discovered URL of ``VisitedSet`` (10^6) plus a ``heap`` frontier holding a
    tenth of the URLs, with their strings (10^5)."""
    return (_one(rows, "bytes_per_url", structure="VisitedSet (fingerprints)", urls="1000000")
            + 0.1 * (_one(rows, "bytes_per_url", structure="heap", urls="100000")
                     + _one(rows, "string_bytes_per_url", structure="monitor", urls="100000")))


def _mem_16gb(rows: Rows) -> str:
    mantissa, exponent = f"{16e9 / _mem_budget(rows):.1e}".split("e")
    return f"{mantissa} · 10\\ :sup:`{int(exponent)}`"


def _mem_target(rows: Rows) -> str:
    x = _one(rows, "bytes_per_url", structure="VisitedSet (fingerprints)", urls="1000000")
    return "met" if x <= 150 else "missed"


def _dur_top(rows: Rows, mode: str) -> dict[str, str]:
    """crawl-durability: ``mode``'s row at the most threads measured."""
    return max(_where(rows, mode=mode), key=lambda r: int(r["threads"]))


def _dur(mode: str) -> Callable[[Rows], str]:
    return lambda rows: _f(float(_dur_top(rows, mode)["of_no_journal"]))


def _dur_gain(rows: Rows) -> str:
    top = float(_dur_top(rows, "per-page")["median_pages_per_second"])
    return _f(top / _one(rows, "median_pages_per_second", mode="per-page", threads="1"), 1) + "x"


def _dur_trend(rows: Rows) -> str:
    """crawl-durability: does commit per page keep a smaller share of the journal-free rate at
    the most threads than at one?"""
    one = _one(rows, "of_no_journal", mode="per-page", threads="1")
    top = float(_dur_top(rows, "per-page")["of_no_journal"])
    if top < one:
        return "so it falls further behind as the crawl gets faster"
    return "and yet in this run it did not fall further behind as the crawl got faster"


def _trend(xs: list[float]) -> str:
    """'falls', 'rises' or 'does not move one way' with K, from the first to the last value."""
    return "falls" if xs[-1] < xs[0] else "rises" if xs[-1] > xs[0] else "stays level"


def _part_trend(ours: Rows, paper: Rows) -> str:
    """partition: our site-hash/hypergraph ratio's trend with K against each paper dataset's."""
    mine = [float(r["hash/HP"]) for r in sorted(ours, key=lambda r: int(r["K"]))]
    theirs = {}
    for r in sorted(paper, key=lambda r: int(r["K"])):
        theirs.setdefault(r["dataset"], []).append(float(r["ratio"]))
    trends = {_trend(v) for v in theirs.values()}
    paper_says = (f"the paper's {trends.pop()} on all {len(theirs)} of its webs"
                  if len(trends) == 1 else "the paper's trend differs between its webs")
    return (f"Our ratio {_trend(mine)} with K ({_f(mine[0], 1)} at K = 4, {_f(mine[-1], 1)} at "
            f"K = 64), {paper_says}")


FT_CEILING = "deque per thread"  # labs.lab_frontier_bench.PRIVATE: nothing shared
FB_BASELINES = ("queue.Queue", "queue.SimpleQueue", FT_CEILING)  # ...lab_frontier_bench.BASELINES


def _fb_simple_vs_best(rows: Rows) -> str:
    """frontier-bench: queue.SimpleQueue over the fastest frontier, per thread count (range)."""
    xs = []
    for t in sorted({r["threads"] for r in rows}, key=int):
        best = max(_median(rows, "pairs_per_second", frontier=f, threads=t)
                   for f in {r["frontier"] for r in rows} - set(FB_BASELINES))
        xs.append(_median(rows, "pairs_per_second", frontier="queue.SimpleQueue", threads=t)
                  / best)
    order = "an order of magnitude" if min(xs) >= 10 else "several times"
    return (f"{order} faster than every frontier here ({min(xs):.0f} to {max(xs):.0f} times "
            "the fastest)")


def _fb_slowest(rows: Rows) -> str:
    """frontier-bench: the two frontiers (not the baselines) slowest per pair at one thread."""
    one = {f: _median(rows, "pairs_per_second", frontier=f, threads="1")
           for f in {r["frontier"] for r in rows} - set(FB_BASELINES)}
    a, b = sorted(one, key=one.get)[:2]
    return (f"the slowest per pair at one thread in the micro-benchmark are ``{a}`` and "
            f"``{b}``, {one[a]:,.0f} and {one[b]:,.0f} pairs/s")


def _cr_count(frontier: str) -> Callable[[Rows], str]:
    """crawl-races: what ``frontier`` fetched twice and never fetched over all its crawls."""
    def value(rows: Rows) -> str:
        mine = _where(rows, frontier=frontier)
        twice = [int(r["fetched_twice"]) for r in mine]
        never = [int(r["never_fetched"]) for r in mine]
        if not any(twice) and not any(never):
            return f"fetched no page twice and lost none, in each of its {len(mine)} crawls"
        hit = [r for r in mine if int(r["fetched_twice"]) or int(r["never_fetched"])]
        return (f"fetched up to {max(twice)} pages twice and never fetched up to {max(never)} "
                f"(in {len(hit)} of its {len(mine)} crawls, from "
                f"{min(int(r['threads']) for r in hit)} robots on)")
    return value


def _cr_switch(rows: Rows) -> str:
    """crawl-races: the forced-switch frontier, by robot count: the largest share of repeated
    fetches, the most pages never fetched, and how its crawls ended."""
    mine = _where(rows, frontier="unsynchronized+switch")
    parts = []
    for t in sorted({int(r["threads"]) for r in mine}):
        at = [r for r in mine if int(r["threads"]) == t]
        share = max(int(r["fetched_twice"]) / max(int(r["pages_fetched"]), 1) for r in at)
        never = max(int(r["never_fetched"]) for r in at)
        stalled = sum(r["stopped_by"] == "stalled" for r in at)
        parts.append(f"{t} robot{'s' if t > 1 else ''}: up to {100 * share:.0f} % of the "
                     f"fetches repeats, up to {never} pages never fetched, {stalled} of "
                     f"{len(at)} crawls stalled")
    return "; ".join(parts)


def _deadlock_pages(rows: Rows) -> str:
    """crawl-capacity: pages crawled before the deadlock of robots putting their own links
    with ``block``, per robot count (the range over the capacities)."""
    mine = _where(rows, experiment="own-links", when_full="block")
    parts, counts = [], sorted({int(r["threads"]) for r in mine})
    for t in counts:
        pages = sorted({int(r["pages_fetched"]) for r in mine if int(r["threads"]) == t})
        parts.append(str(pages[0]) if len(pages) == 1 else f"{pages[0]} to {pages[-1]}")
    stuck = sum(r["deadlock"] == "True" for r in mine)
    return (f"{', '.join(parts[:-1])} and {parts[-1]} pages for "
            f"{', '.join(map(str, counts[:-1]))} and {counts[-1]} robots; "
            f"{stuck} of {len(mine)} crawls deadlocked")


def _curves(names: tuple[str, ...]) -> Callable[[Rows], str]:
    """crawl-quality: whether the frontiers ``names`` drew the same quality curve (every
    fraction's quality equal) or, if not, where they part."""
    def value(rows: Rows) -> str:
        curves = {n: [(r["fraction"], r["quality"]) for r in _where(rows, frontier=n)]
                  for n in names}
        first = curves[names[0]]
        if all(c == first for c in curves.values()):
            return "give the same curve"
        part = next(i for i, pts in enumerate(zip(*curves.values())) if len(set(pts)) > 1)
        return (f"give different curves (from a fraction of {first[part][0]} of the web "
                "crawled on)")
    return value


def _tl_waits(scenario: str) -> Callable[[Rows], str]:
    """crawl-timelines: whether ``scenario``'s threads waited in the frontier at all."""
    def value(rows: Rows) -> str:
        row = _where(rows, scenario=scenario)[0]
        shares = {s: 100 * float(row[f"share_{s}"]) for s in ("lock", "not_empty", "not_full")}
        if not any(round(x, 1) for x in shares.values()):
            return "never waited in the frontier (no time on lock, not_empty or not_full)"
        return "waited in the frontier: " + ", ".join(
            f"{x:.1f} % of its time on {s}" for s, x in shares.items() if round(x, 1))
    return value


def _tl_spread(rows: Rows) -> str:
    """crawl-timelines: how far apart the rounds without a timeline are (max/min - 1)."""
    rates = [float(r["pages_per_second"]) for r in rows if r["timeline"] == "False"]
    return f"up to {100 * (max(rates) / min(rates) - 1):.0f} %"


def _tl_vary(ft_rows: Rows, gil_rows: Rows) -> str:
    """crawl-timelines: the spread (max/min - 1) of the rounds without a timeline,
    free-threaded against the GIL build."""
    def spread(rows: Rows) -> float:
        rates = [float(r["pages_per_second"]) for r in rows if r["timeline"] == "False"]
        return max(rates) / min(rates) - 1

    ft, gil = spread(ft_rows), spread(gil_rows)
    said = (f"the rounds without a timeline spread over {100 * ft:.0f} % of their slowest, "
            f"against {100 * gil:.0f} % with the GIL")
    if ft < gil:
        return f"Without the GIL the crawls vary less ({said}), and the direct comparison"
    return (f"Without the GIL the crawls vary as much ({said}), and even there the direct "
            "comparison")


def _cp_trend(parser: str) -> Callable[[Rows], str]:
    """crawl-parsers: how ``parser``'s pages/s and CPU per page moved from 1 thread to the
    most (medians of the rounds), said with a 5 % margin for 'flat'."""
    def value(rows: Rows) -> str:
        mine = [r for r in rows if r["parser"] == parser and r["crawler"] != "scrapy"]
        lo, hi = (str(f(int(r["threads"]) for r in mine)) for f in (min, max))
        rate = [_median(mine, "pages_per_s", threads=t) for t in (lo, hi)]
        cpu = [_median(mine, "cpu_ms_per_page", threads=t) for t in (lo, hi)]

        def moved(pair: list[float], up: str, down: str, flat: str) -> str:
            change = pair[1] / pair[0] - 1
            return flat if abs(change) <= 0.05 else up if change > 0 else down

        return (f"pages/s {moved(rate, 'rose', 'fell', 'stayed flat')} ({rate[0]:,.0f} at {lo} "
                f"thread, {rate[1]:,.0f} at {hi}) and CPU per page "
                f"{moved(cpu, 'grew', 'shrank', 'stayed flat')} ({cpu[0]:.1f} ms, {cpu[1]:.1f} ms)")
    return value


def _cr_window(rows: Rows) -> str:
    """crawl-races: what the one window with a call (put's full check, then push) let through
    in the plain frontier's crawls."""
    mine = _where(rows, frontier="unsynchronized")
    lost = sum(int(r["never_fetched"]) for r in mine)
    twice = sum(int(r["fetched_twice"]) for r in mine)
    if not lost and not twice:
        return (f"in these {len(mine)} crawls it let no race through: the GIL was never "
                "handed over inside it at the moment it mattered")
    return (f"the plain frontier's {lost} pages never fetched and {twice} fetched twice "
            f"({len(mine)} crawls) come from there")


def _cr_by_interval(rows: Rows) -> str:
    """crawl-races: the forced-switch frontier at its smallest robot count above one, per
    switch interval: pages fetched twice and never fetched (first crawl of each point)."""
    mine = _where(rows, frontier="unsynchronized+switch")
    t = min(int(r["threads"]) for r in mine if int(r["threads"]) > 1)
    parts = []
    for interval in sorted({r["switch_interval"] for r in mine}, key=float, reverse=True):
        at = _where(mine, threads=str(t), switch_interval=interval)
        parts.append(f"{1000 * float(interval):g} ms: {at[0]['fetched_twice']} fetched twice, "
                     f"{at[0]['never_fetched']} never fetched")
    return f"at {t} robots, " + "; ".join(parts)


def _cr_visited(rows: Rows) -> str:
    races = [int(r["visited_races"]) for r in rows]
    if not any(races):
        return f"stayed 0 in all {len(rows)} crawls"
    return f"reached {max(races)} (in {sum(map(bool, races))} of {len(rows)} crawls)"


def _fb_over(a: str, b: str, one: bool = False) -> Callable[[Rows], str]:
    """frontier-bench: ``a``'s median rate over ``b``'s, at one thread (``one``) or as the
    range over the thread counts above one."""
    def value(rows: Rows) -> str:
        counts = sorted({int(r["threads"]) for r in rows})
        ts = [1] if one else [t for t in counts if t > 1]
        xs = [_median(rows, "pairs_per_second", frontier=a, threads=str(t))
              / _median(rows, "pairs_per_second", frontier=b, threads=str(t)) for t in ts]
        return (_f(xs[0]) if one else _range(xs)) + "x"
    return value


def _fb_range(names: tuple[str, ...]) -> Callable[[Rows], str]:
    def value(rows: Rows) -> str:
        return _range([_median(rows, "ratio_vs_queue", frontier=n, threads="1") for n in names])
    return value


def _fb_simple(rows: Rows) -> str:
    """frontier-bench: queue.SimpleQueue's median pairs/s over queue.Queue's, over threads."""
    counts = sorted({r["threads"] for r in rows}, key=int)
    xs = [_median(rows, "ratio_vs_queue", frontier="queue.SimpleQueue", threads=t)
          for t in counts]
    return f"{min(xs):.0f} to {max(xs):.0f} times"


def _fb_counter(col: str, frontiers: tuple[str, ...], threads: str = "") -> Callable[[Rows], str]:
    """frontier-bench: the range of counter ``col`` over every round of ``frontiers`` at more
    than one thread (or at ``threads``), as whole numbers."""
    def value(rows: Rows) -> str:
        xs = [int(r[col]) for r in rows if r["frontier"] in frontiers and r["threads"] != "1"
              and (not threads or r["threads"] == threads)]
        return f"{min(xs):,} to {max(xs):,}"
    return value


def _fb_most_threads(rows: Rows) -> int:
    """frontier-bench: the largest thread count the run measured (a quick run stops at 4)."""
    return max(int(r["threads"]) for r in rows)


def _fb_at_most_threads(rows: Rows) -> str:
    """frontier-bench: optimistic's aborts per round at the run's largest thread count."""
    return _fb_counter("optimistic_aborts", ("optimistic",), str(_fb_most_threads(rows)))(rows)


def _fb_rise(rows: Rows) -> str:
    """frontier-bench: whether any frontier's median pairs/s at more threads passes its
    one-thread rate by more than the rounds' own spread (5 %)."""
    best = []
    for name in sorted({r["frontier"] for r in rows}):
        one = _median(rows, "pairs_per_second", frontier=name, threads="1")
        more = max(_median(rows, "pairs_per_second", frontier=name, threads=t)
                   for t in {r["threads"] for r in rows if r["frontier"] == name} - {"1"})
        best.append((more / one, name))
    gain, name = max(best)
    if gain <= 1.05:
        return (f"no line rises (the most, ``{name}``, reaches {_f(gain)}x its one-thread "
                "rate: within the noise of the rounds)")
    risers = [f"``{n}`` ({_f(g)}x)" for g, n in sorted(best, reverse=True) if g > 1.05]
    return f"some lines rise above their one-thread rate: {', '.join(risers)}"


def _fb_races(name: str) -> Callable[[Rows], str]:
    def value(rows: Rows) -> str:
        mine = _where(rows, frontier=name)
        counts = {c: sum(int(r[c] or 0) for r in mine)
                  for c in ("races_detected", "duplicates_handed_out", "urls_overwritten")}
        if not any(counts.values()):
            return (f"caught no race in this run: ``races_detected``, "
                    f"``duplicates_handed_out`` and ``urls_overwritten`` are 0 in all "
                    f"{len(mine)} rows")
        return "caught races in this run: " + ", ".join(
            f"``{c}`` {n:,}" for c, n in counts.items() if n) + f" over {len(mine)} rows"
    return value


def _more_or_fewer(rows: Rows) -> str:
    hp = _one(rows, "measured_page_messages", method="hypergraph")
    site = _one(rows, "measured_page_messages", method="site-hash")
    return "more" if hp > site else "fewer" if hp < site else "as many"


FT_LINKED = "lockfree, nodes left linked"  # labs.lab_frontier_bench.RETAINING
FT_SHARED_READ = "one AtomicRef, read by all"  # labs.lab_frontier_bench.SHARED_READ
FT_SHARED_CAS = "one AtomicRef, CAS by all"  # labs.lab_frontier_bench.SHARED_CAS
# labs.lab_frontier_bench.SHARED_OBJECT
FT_SHARED_OBJECT = "one shared object, a deque per thread behind it"
FT_SLICED_SHARED = "sliced, every call on the shared frontier"  # ...lab_frontier_bench
FT_HANDLED = "lockfree, through a handle of its own"  # labs.lockfree_handles.HANDLED
FT_NO_TAIL = "lockfree, get reads no tail"  # labs.lockfree_handles.NO_TAIL
FT_BASELINES = (*FB_BASELINES, FT_LINKED,
                "lockfree, one per thread", FT_HANDLED, FT_NO_TAIL,
                FT_SHARED_READ, FT_SHARED_CAS, FT_SHARED_OBJECT, FT_SLICED_SHARED)
FT_REPEATS = tuple((f"free-threaded/repeats/run-{i}/frontier-bench", "scaling") for i in range(21))
"""The other runs of frontier-bench kept beside free-threaded/frontier-bench: run-0 a first run
of the same command on 2026-11-26, run-1 to run-5 quick ones, run-6 and run-7 full ones late
that day (run-7 the main run before the shared-object baseline was added beside sliced), run-8
to run-11 the main runs before run-15 (run-9 the last before sliced had handles,
run-10 the first with them), run-12 a full run of the same command on 2026-11-27 at the commit
before lockfree's handle diagnostics were added, made to look, not declared as the main run, and
run-13 and run-14 two more made after run-15, with them, kept whatever they showed; run-15 the
main run before run-17; run-16 the same command as run-17, run after it; run-17 the main run
before the present one, the first with 15 rounds (--rounds 15) where every earlier run has 5
(its machine an AMD EPYC); run-18 the same command as run-19, run after it, kept whatever it showed; run-19 the main run
before the present one (declared a day after run-17, and made on another machine, an Intel
Xeon); run-20 the same command as the present one (declared a day after run-19, on the same
kind of machine), run after it, kept whatever it showed."""
FT_BEFORE = "free-threaded/repeats/run-19/frontier-bench"  # the main run before the present one
FT_AGAIN = "free-threaded/repeats/run-20/frontier-bench"  # the same command run after it
# the last main run made on another machine than the present one's (an AMD EPYC)
FT_ACROSS = "free-threaded/repeats/run-17/frontier-bench"
APART = 0.15  # two full runs of the lab at different times should agree within this share
DAY = 24.0  # hours: the goal asks two runs at least this far apart to agree within APART


def _cpus(row: dict[str, str]) -> float:
    """The CPUs a cell had: its CPU seconds over its wall-clock seconds."""
    return float(row["cpu_seconds"]) / float(row["seconds"])


def _ceiling_rounds(fb: Rows) -> list[tuple[str, float, float, float]]:
    """``(round, 2-over-1 ratio, CPUs of the 1-thread cell, CPUs of the 2-thread cell)`` of
    ``deque per thread``, round by round (frontier-bench.csv)."""
    cells = {(r["threads"], r["repeat"]): r for r in _where(fb, frontier=FT_CEILING)}
    out = []
    for k in sorted({k for t, k in cells if t == "1" and ("2", k) in cells}, key=int):
        one, two = cells["1", k], cells["2", k]
        out.append((k, float(two["pairs_per_second"]) / float(one["pairs_per_second"]),
                    _cpus(one), _cpus(two)))
    return out


def _ft_sliced_sessions(scaling: Rows, fb: Rows, side: Rows, side_cells: Rows,
                        sc: Rows) -> str:
    """``sliced``'s 2-thread over 1-thread ratio without the GIL in the three labs that
    measure it, each with its statistic, runs, date, load and its own session's ceiling."""
    def stamp(r: dict[str, str]) -> str:
        return f"{r['date'][:10]}, 1-minute load {r['machine_load_1min']} at the start"

    sl = _where(scaling, frontier="sliced")[0]
    rounds = _ceiling_rounds(fb)
    first = (f"{_f(float(sl['median']))}x in the free-threaded micro-benchmark (the median of "
             f"{sl['rounds']} per-round ratios, {_range([float(sl['min']), float(sl['max'])])}x;"
             f" {stamp(sl)}; its ceiling {_f(float(sl['ceiling']))}x, its rounds "
             f"{_range([x for _, x, _, _ in rounds])}x)")
    ratio = _where(side, frontier="sliced", interpreter="free-threaded", workload="bench")[0]
    has_ceiling = bool(_where(side, frontier=FT_CEILING))
    cells = _where(side_cells, frontier="sliced", interpreter="free-threaded", workload="bench")
    second = (f"{_f(float(ratio['t2_over_t1']))}x in the side-by-side lab (a ratio of medians of "
              f"{cells[0]['runs'] if cells else '?'} runs; {stamp(ratio)}; "
              + ("" if has_ceiling else "no ceiling measured in that run") + ")")

    def med(frontier: str, t: str) -> float:
        return float(_where(sc, frontier=frontier, threads=t, interpreter="free-threaded")[0]
                     ["median"])
    s1 = _where(sc, frontier="sliced", threads="1", interpreter="free-threaded")[0]
    ceiling = med(FT_CEILING, "2") / med(FT_CEILING, "1")
    third = (f"{_f(med('sliced', '2') / med('sliced', '1'))}x in the scaling lab (a ratio of "
             f"medians of {s1['runs']} runs; {stamp(s1)}; its ceiling {_f(ceiling)}x)")
    return f"{first}, {second}, and {third}"


def _ft_judged(rows: Rows, fb: Rows) -> str:
    """This run's ceiling with the load it was measured at, where it comes from (the median of
    per-round ratios, each with the CPUs its two cells had: frontier-bench.csv), and the
    verdict the lab computed for ``lockfree`` and ``sliced`` (scaling.csv)."""
    lf, sl = _where(rows, frontier="lockfree")[0], _where(rows, frontier="sliced")[0]
    had = _where(rows, frontier=FT_CEILING)[0].get("cpus_2t")
    ceiling = float(lf["ceiling"])
    text = (f"the ceiling (``{FT_CEILING}``) read {_f(ceiling)}x at a 1-minute "
            f"load of {lf['machine_load_1min']} on {lf['machine_cores']} cores "
            f"({lf['date'][:10]})")
    rounds = _ceiling_rounds(fb)
    if rounds:
        text += (f": the median of {len(rounds)} rounds' 2-over-1 ratios, each with the CPUs "
                 "of its 1-thread and 2-thread cells (CPU over wall-clock seconds): "
                 + ", ".join(f"{_f(x)}x ({_f(c1)} and {_f(c2)})" for _, x, c1, c2 in rounds))
        if had:
            text += (f". The {_f(float(had))} CPUs of the table are the median of the 2-thread "
                     "cells alone, not the CPUs behind the median ratio")
        starved = [(k, x, c1, c2) for k, x, c1, c2 in rounds if c1 < 0.9]
        if starved:
            text += ("; a round whose 1-thread cell had less than one CPU overstates what the "
                     "second thread gained (" + ", ".join(
                         f"round {k}: {_f(x)}x on {_f(c2)} CPUs, its one thread having had "
                         f"{_f(c1)}" for k, x, c1, c2 in starved) + ")")
    elif had:
        text += f", its two threads having had {_f(float(had))} CPUs between them"
    return (text + f"; ``lockfree`` read {_f(float(lf['of_ceiling']))} of it (the lab's verdict: "
            f"{lf['verdict'] or 'none'}) and ``sliced`` {_f(float(sl['of_ceiling']))} "
            f"({sl['verdict'] or 'none'})")


def _ft_runs(main: Rows, *repeats: Rows) -> str:
    """The goals over every run of the day (the main run and its quick repeats, scaling.csv):
    the ceiling's range, each judged frontier's share of it and in how many runs the lab said
    it met its goal, and the single-lock frontiers' verdicts; the load range."""
    runs = [main, *repeats]

    def share(name: str) -> str:
        rows = [_where(r, frontier=name)[0] for r in runs]
        met = sum(r["verdict"].startswith("meets") for r in rows)
        judged = sum(r["verdict"].startswith(("meets", "is below")) for r in rows)
        return (f"``{name}``'s share {_range([float(r['of_ceiling']) for r in rows])} (its goal "
                f"met in {met} of the {judged} runs the lab could judge)")

    handled = [_where(r, frontier="sliced")[0] for r in runs if _has_handles(r)]
    since = (f"; in the {len(handled)} of those runs since ``sliced`` has had per-thread "
             f"handles, its share read {_range([float(r['of_ceiling']) for r in handled])} and "
             f"its goal was met in {sum(r['verdict'].startswith('meets') for r in handled)}"
             ) if handled else ""
    locked = [r for run in runs for r in run if r["verdict"].endswith("single lock should be")]
    below = sum(r["verdict"].startswith("below") for r in locked)
    loads = [float(r[0]["machine_load_1min"]) for r in runs]
    days = sorted({r[0]["date"][:10] for r in runs})
    rounds = Counter(_rounds(r) for r in runs)
    return (f"over the {len(runs)} runs of {' and '.join(days)} ("
            + ", ".join(f"{n} of {k} rounds" for k, n in sorted(rounds.items()))
            + "; 1-minute load "
            f"{_range(loads)}), the ceiling read "
            f"{_range([float(r[0]['ceiling']) for r in runs])}x; {share('lockfree')}; "
            f"{share('sliced')}{since}; and a single-lock frontier was below 1.0x in {below} of "
            f"its {len(locked)} judged readings")


def _rounds(run: Rows) -> int:
    """The rounds of a frontier-bench run (scaling.csv): those of its ceiling's row."""
    return int(_where(run, frontier=FT_CEILING)[0]["rounds"])


def _has_handles(run: Rows) -> bool:
    """Whether a run measured ``sliced`` through per-thread handles: every such run measured it
    beside :data:`FT_SLICED_SHARED` too, and no earlier run did."""
    return any(r["frontier"] == FT_SLICED_SHARED for r in run)


def _hours_between(a: str, b: str) -> float:
    """Hours from ISO stamp ``a`` to ``b`` (``2026-11-26T22:38:12Z``)."""
    from datetime import datetime

    def at(stamp: str) -> datetime:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return (at(b) - at(a)).total_seconds() / 3600


def _ft_apart(now: Rows, before: Rows) -> str:
    """The present main run beside the one it replaced (scaling.csv of both): see
    :func:`_two_runs`."""
    return _two_runs(now, before, "the run above was made {hours} hours after the one it "
                     "replaced")


def _ft_again(main: Rows, later: Rows) -> str:
    """The present main run beside the run of the same command made after it (scaling.csv of
    both): see :func:`_two_runs`."""
    return _two_runs(later, main, f"the run after it ({_run_name(FT_AGAIN)}, the same "
                     "command), made {hours} hours later")


def _ft_day(now: Rows, *repeats: Rows) -> str:
    """The goal's stability check: the present main run (scaling.csv) beside the main run it
    replaced (:data:`FT_BEFORE`) when that is :data:`DAY` hours or more before it (the check
    as declared), naming both machines when their CPUs differ; and on one machine, beside the
    latest of :data:`FT_REPEATS` (``repeats``, in that order) that ran the same command
    (:func:`_command`) on a machine with the same CPU and cores a day or more before it, or
    that no such run exists yet. Each says whether the ceiling, ``lockfree``'s and ``sliced``'s
    shares agree within :data:`APART`."""
    named = dict(zip((where for where, _ in FT_REPEATS), repeats, strict=True))
    machine = _machine(now)
    before = named[FT_BEFORE]
    hours = _hours_between(before[0]["date"], now[0]["date"])
    same = [(where, run) for where, run in named.items()
            if _machine(run) == machine and _command(run) == _command(now)
            and _hours_between(run[0]["date"], now[0]["date"]) >= DAY]
    parts = []
    if hours >= DAY:
        across = _machine(before) != machine
        parts.append(f"made: the run above and the main run it replaced "
                     f"({_run_name(FT_BEFORE)}) are {_f(hours, 1)} hours apart"
                     + (f", on {_machine(before)}, then {machine}" if across else "")
                     + f"; {_agreement(before, now)}")
    if same:
        where, run = max(same, key=lambda p: p[1][0]["date"])
        if where != FT_BEFORE:
            parts.append(f"on one machine ({machine}), the run above and {_run_name(where)} "
                         f"({_rounds(run)} rounds each) are "
                         f"{_f(_hours_between(run[0]['date'], now[0]['date']), 1)} hours "
                         f"apart; {_agreement(run, now)}")
    else:
        parts.append(f"not made yet on one machine: no run of the same command "
                     f"({_rounds(now)} rounds) on {machine} was made a day ({DAY:.0f} hours) "
                     "or more before the run above. The next main run is the first made a day "
                     "or more after it; it is named before it is made and kept whatever it "
                     "shows, and the check compares it with the latest such run on its own "
                     "machine")
    if hours < DAY and not same:
        parts[0] += (f" (the main run it replaced is {_f(hours, 1)} hours before it, less than "
                     "a day)")
    return ". ".join(p[0].upper() + p[1:] if i else p for i, p in enumerate(parts))


def _ft_more_rounds(now: Rows, *repeats: Rows) -> str:
    """Which of :data:`FT_REPEATS` (``repeats``, in that order) and the main run asked for more
    rounds than the fewest any of them has, read from their rows: ``run-16, run-17, run-18 and
    the run above (15 rounds; the others 5)``."""
    runs = [*zip((_run_name(w) for w, _ in FT_REPEATS), repeats), ("the run above", now)]
    fewest = min(_rounds(r) for _, r in runs)
    more = [(name, _rounds(r)) for name, r in runs if _rounds(r) > fewest]
    counts = sorted({n for _, n in more})
    names = [name for name, _ in more]
    if not names:
        return f"none of them (each has {fewest})"
    said = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{said} ({' or '.join(map(str, counts))} rounds; the others {fewest})"


def _ft_machines(now: Rows, before: Rows) -> str:
    """The main run beside :data:`FT_ACROSS`, the last main run made on another machine
    (scaling.csv of both), by machine: each one's CPU, the shares of the two baselines that only share one atomic reference
    (:data:`FT_SHARED_READ`, :data:`FT_SHARED_CAS`) and of ``lockfree`` and ``sliced``, and
    what share of its earlier reading each kept."""
    a, b = ({r["frontier"]: r for r in run} for run in (before, now))
    names = (FT_SHARED_READ, FT_SHARED_CAS, "lockfree", "sliced")

    def share(rows: dict[str, dict[str, str]], n: str) -> float:
        return float(rows[n]["of_ceiling"])
    if _machine(before) == _machine(now):
        return (f"both were made on machines that say the same CPU ({_machine(now)}), so "
                "this pair of runs cannot tell a machine's part from a run's")
    return (f"on {_machine(before)} ({_run_name(FT_ACROSS)}) and {_machine(now)} (the run "
            "above), the shares of the ceiling read: "
            + "; ".join(f"``{n}`` {_f(share(a, n))} and {_f(share(b, n))} (it kept "
                        f"{_f(share(b, n) / share(a, n))} of its share)" for n in names))


def _command(run: Rows) -> tuple:
    """What a run's rows say of the command that made it: its rounds, the thread counts of its
    rows, and the interpreter (version, implementation, free-threaded build, GIL at run time).
    Two runs are "the same command" only when all of these are equal."""
    first = run[0]
    return (_rounds(run), tuple(sorted({r["threads"] for r in run})),
            *(first[k] for k in ("machine_python", "machine_implementation",
                                 "machine_free_threaded", "machine_gil")))


def _machine(run: Rows) -> str:
    """``AMD EPYC (2 cores)``: a run's CPU and cores, as its machine stamp says."""
    return f"{run[0]['machine_cpu']} ({run[0]['machine_cores']} cores)"


def _moved(a: dict[str, dict[str, str]], b: dict[str, dict[str, str]], name: str,
           key: str) -> float:
    """How far ``name``'s ``key`` moved from run ``a`` to run ``b`` (rows by frontier), as a
    share of its reading in ``a``."""
    return abs(float(b[name][key]) - float(a[name][key])) / float(a[name][key])


def _agreement(earlier: Rows, newer: Rows) -> str:
    """Whether two runs (scaling.csv) agree within :data:`APART` on the ceiling, ``lockfree``'s
    and ``sliced``'s shares: the most any moved, or each that moved beyond it."""
    a, b = ({r["frontier"]: r for r in run} for run in (earlier, newer))
    moved = {label: _moved(a, b, n, k)
             for label, n, k in (("the ceiling", FT_CEILING, "median"),
                                 ("``lockfree``'s share", "lockfree", "of_ceiling"),
                                 ("``sliced``'s share", "sliced", "of_ceiling"))}
    beyond = [f"{label} moved {m:.0%}" for label, m in moved.items() if m > APART]
    return (f"they agree within {APART:.0%} on the ceiling and both shares (the most any "
            f"moved: {max(moved.values()):.0%})" if not beyond else
            f"they do not agree within {APART:.0%}: {', '.join(beyond)}")


def _run_name(where: str) -> str:
    """``run-16`` for ``free-threaded/repeats/run-16/frontier-bench``."""
    return f"``{where.split('/')[-2]}``"


def _machines(before: Rows, now: Rows) -> str:
    """``; on an AMD EPYC, then an Intel Xeon`` when two runs' machines have different CPUs
    (their ``machine_cpu`` and ``machine_cores``), else nothing: a comparison across machines
    measures the machines as well as the runs."""
    return ("" if _machine(before) == _machine(now) else
            f"; on {_machine(before)}, then {_machine(now)}")


def _two_runs(now: Rows, before: Rows, lead: str) -> str:
    """Two runs of frontier-bench: ``lead`` (with the ``{hours}`` between them filled in), and
    for the ceiling, ``lockfree`` and ``sliced`` both readings and whether they agree within
    :data:`APART`; then how many of the other correct frontiers' shares agree."""
    a, b = {r["frontier"]: r for r in before}, {r["frontier"]: r for r in now}

    def moved(name: str, key: str) -> float:
        return _moved(a, b, name, key)

    def one(name: str, key: str = "of_ceiling", unit: str = "") -> str:
        m = moved(name, key)
        return (f"{_f(float(a[name][key]))}{unit} then {_f(float(b[name][key]))}{unit} "
                f"({m:.0%} apart: {'within' if m <= APART else 'beyond'} {APART:.0%})")
    others = [n for n in b if n in a and n not in (*FT_BASELINES, "unsynchronized", "lockfree",
                                                   "sliced")]
    agree = [n for n in others if moved(n, "of_ceiling") <= APART]
    hours = _hours_between(before[0]["date"], now[0]["date"])
    sliced = (one("sliced") if _has_handles(before) == _has_handles(now) else
              f"{_f(float(a['sliced']['of_ceiling']))} then "
              f"{_f(float(b['sliced']['of_ceiling']))}, not a comparison: it was given "
              "per-thread handles between the two runs")
    from labs.lab_frontier_bench import CEILING_GOALS

    straddled = [f"``{n}``'s goal of {g} lies between its two readings" for n, g in
                 CEILING_GOALS.items() if n in a and n in b and
                 min(float(a[n]["of_ceiling"]), float(b[n]["of_ceiling"])) < g
                 <= max(float(a[n]["of_ceiling"]), float(b[n]["of_ceiling"]))]
    return (lead.format(hours=_f(hours, 1)) + f" ({_rounds(before)} and {_rounds(now)} "
            f"rounds, 1-minute loads {before[0]['machine_load_1min']} and "
            f"{now[0]['machine_load_1min']}{_machines(before, now)}): the "
            f"ceiling read {one(FT_CEILING, 'median', 'x')}; ``lockfree``'s share "
            f"{one('lockfree')}; ``sliced``'s {sliced}; of the other "
            f"{len(others)} frontiers' shares, {len(agree)} agree within {APART:.0%}"
            + "".join(f"; {x}" for x in straddled))


def _ft_profile(rows: Rows, before: Rows) -> str:
    """The profile lab (growth.csv): ``lockfree``'s CPU per pair at 1 and 2 threads, the
    functions that grew most, how much of the growth is in functions whose work is reference
    counting, in the interpreter loop and in compare-and-set; ``sliced``'s growth beside it,
    and in the profile made before it had handles (``before``, the same lab)."""
    def of(name: str) -> dict[str, dict[str, str]]:
        return {r["function"]: r for r in _where(rows, frontier=name)}
    lf, sl = of("lockfree"), of("sliced")
    old = _where(before, frontier="sliced", function="(all)")[0]

    def grew(r: dict[str, str]) -> float:
        return float(r["growth_ns"])
    whole = lf["(all)"]
    counting = sum(grew(r) for r in lf.values() if r["counting"] == "True")
    loop = grew(lf["_PyEval_EvalFrameDefault"]) if "_PyEval_EvalFrameDefault" in lf else 0.0
    cas = grew(lf["AtomicRef_CompareAndSet"]) if "AtomicRef_CompareAndSet" in lf else 0.0
    top = sorted((r for f, r in lf.items() if f != "(all)"), key=grew, reverse=True)[:4]
    return (f"a put+get pair of ``lockfree`` took {_f(float(whole['ns_1t']), 0)} ns of CPU at "
            f"one thread and {_f(float(whole['ns_2t']), 0)} ns at two (medians of "
            f"{whole['rounds']} rounds, {whole['date'][:10]}, 1-minute load "
            f"{whole['machine_load_1min']}): {_f(grew(whole), 0)} ns more. The functions that "
            "grew most: " + ", ".join(f"``{r['function']}`` {grew(r):+.0f} ns" for r in top)
            + f". Those whose work is changing reference counts grew by {_f(counting, 0)} ns "
            f"between them ({counting / grew(whole):.0%} of the growth), the interpreter loop, "
            f"which changes the counts of what it loads inline, by {_f(loop, 0)} ns "
            f"({loop / grew(whole):.0%}), and compare-and-set, the one step the algorithm "
            f"shares on purpose, by {_f(cas, 0)} ns ({cas / grew(whole):.0%}): "
            + ("the second thread's cost is mostly reference counting, not the "
               "compare-and-set" if counting + loop > grew(whole) / 2 and counting > cas else
               "reference counting is not most of the second thread's cost")
            + f". ``sliced``'s pair went from {_f(float(sl['(all)']['ns_1t']), 0)} to "
            f"{_f(float(sl['(all)']['ns_2t']), 0)} ns ({grew(sl['(all)']):+.0f} ns); in the "
            f"profile made before it had per-thread handles ({old['date'][:10]}, 1-minute load "
            f"{old['machine_load_1min']}), from {_f(float(old['ns_1t']), 0)} to "
            f"{_f(float(old['ns_2t']), 0)} ns ({grew(old):+.0f} ns)")


def _ft_shared_object(rows: Rows, fb: Rows) -> str:
    """``sliced`` through per-thread handles beside ``sliced`` with every call on the shared
    frontier and the shared-object baseline (scaling.csv): ratio, share of the ceiling and CPU
    efficiency of each; then, round by round, how many times the handles' pairs per second
    were the shared calls' at one thread and at two (frontier-bench.csv)."""
    row = {r["frontier"]: r for r in rows}

    def one(name: str) -> str:
        r = row[name]
        return (f"{_f(float(r['median']))}×, {_f(float(r['of_ceiling']))} of the ceiling, CPU "
                f"efficiency {_f(float(r['cpu_efficiency']))}")
    rate = {(r["frontier"], r["threads"], r["repeat"]): float(r["pairs_per_second"]) for r in fb}

    def gain(t: str) -> tuple[float, str]:
        per = [rate["sliced", t, k] / rate[FT_SLICED_SHARED, t, k]
               for (n, th, k) in rate if n == "sliced" and th == t
               and (FT_SLICED_SHARED, t, k) in rate]
        m = statistics.median(per)
        return m, f"{_f(m)}× ({_range(per)})"
    (m1, g1), (m2, g2) = gain("1"), gain("2")
    return (f"two threads calling one shared object that does the least work there is on a deque "
            f"of each thread's own reached {one(FT_SHARED_OBJECT)}; ``sliced`` with every call "
            f"on the shared frontier, {one(FT_SLICED_SHARED)}; ``sliced`` through each thread's "
            f"handle, {one('sliced')}. Round by round, the handles made {g1} the pairs per "
            f"second of the shared calls at one thread and {g2} at two: "
            + ("they made every operation cheaper, about as much with one thread as with two, "
               "so what the shared calls cost was work more than contention"
               if abs(m2 - m1) <= 0.1 else
               "they gained more with two threads than with one: the shared calls had cost "
               "contention" if m2 > m1 else "they gained less with two threads than with one"))


def _ft_quiet(rows: Rows) -> str:
    """One run's load, ceiling and the two judged frontiers' shares and verdicts
    (scaling.csv)."""
    row = {r["frontier"]: r for r in rows}
    lf, sl = row["lockfree"], row["sliced"]
    return (f"at a 1-minute load of {_f(float(rows[0]['machine_load_1min']))}, the ceiling read "
            f"{_f(float(rows[0]['ceiling']))}×, ``lockfree`` {_f(float(lf['of_ceiling']))} of "
            f"it ({lf['verdict'] or 'no verdict'}) and ``sliced`` "
            f"{_f(float(sl['of_ceiling']))} ({sl['verdict'] or 'no verdict'})")


def _ft_shared_ref(rows: Rows) -> str:
    """What one shared AtomicRef costs two threads (scaling.csv): 2-over-1 ratio and share of
    the ceiling, read only and read with CAS, beside lockfree with one queue per thread."""
    row = {r["frontier"]: r for r in rows}

    def one(name: str) -> str:
        r = row[name]
        return (f"{_f(float(r['median']))}x, {_f(float(r['of_ceiling']))} of the ceiling, CPU "
                f"efficiency {_f(float(r['cpu_efficiency']))}")
    shares = [float(row[n]["of_ceiling"]) for n in (FT_SHARED_READ, FT_SHARED_CAS)]
    lf = float(row["lockfree"]["of_ceiling"])
    where = ("above both" if lf > max(shares) else "below both" if lf < min(shares)
             else "within their range")
    return (f"two threads that only read one shared ``AtomicRef`` reached "
            f"{one(FT_SHARED_READ)}; that read and compare-and-set it, "
            f"{one(FT_SHARED_CAS)}. ``lockfree``, which does both on every "
            f"operation (on ``head`` or ``tail``) besides work of its own thread's, reached "
            f"{_f(lf)} of the ceiling, {where}; its own code with one queue per thread, "
            f"nothing shared, {one('lockfree, one per thread')}")


def _ft_lf_handles(rows: Rows, fb: Rows, *repeats: Rows) -> str:
    """lockfree's own steps without the sharing its algorithm does not need (scaling.csv; the
    1-thread rates from frontier-bench.csv): through a handle, and with a get that reads no
    tail, beside lockfree, in the run above and over every run that measured them (``repeats``:
    the scaling.csv of the other runs), each against lockfree's goal in the runs the lab could
    judge, and whether a variant's median over the runs lies outside lockfree's range."""
    from labs.lab_frontier_bench import CEILING_GOALS

    goal = CEILING_GOALS["lockfree"]
    names = ("lockfree", FT_HANDLED, FT_NO_TAIL)
    row = {r["frontier"]: r for r in rows}

    def rate(name: str) -> float:
        return statistics.median(float(r["pairs_per_second"])
                                 for r in _where(fb, frontier=name, threads="1"))

    def here(name: str) -> str:
        r = row[name]
        return (f"{_f(float(r['of_ceiling']))} of the ceiling ({_f(float(r['of_ceiling_min']))}"
                f"-{_f(float(r['of_ceiling_max']))} over its rounds), CPU efficiency "
                f"{_f(float(r['cpu_efficiency']))}")
    runs = [{r["frontier"]: r for r in run} for run in (rows, *repeats)
            if all(_where(run, frontier=n) for n in names)]
    share = {n: [float(run[n]["of_ceiling"]) for run in runs] for n in names}
    judged = [run for run in runs  # the lab's verdict is the judgement: a goal met or missed
              if run["lockfree"]["verdict"].startswith(("meets", "is below"))]
    met = {n: sum(float(run[n]["of_ceiling"]) >= goal for run in judged) for n in names}
    lo, hi = min(share["lockfree"]), max(share["lockfree"])
    apart = [n for n in names[1:] if not lo <= statistics.median(share[n]) <= hi]
    return (f"through a handle of its own, ``lockfree``'s steps ran "
            f"{_f(rate(FT_HANDLED) / rate('lockfree'))}× its pairs per second at one thread "
            f"and reached {here(FT_HANDLED)}; with a ``get`` that reads no tail as well, "
            f"{here(FT_NO_TAIL)}; ``lockfree`` itself, {here('lockfree')}. Over the "
            f"{len(runs)} runs that measured these rows (the median and range of the runs' "
            f"shares): ``lockfree`` {_f(statistics.median(share['lockfree']))} "
            f"({_range(share['lockfree'])}), through a handle "
            f"{_f(statistics.median(share[FT_HANDLED]))} ({_range(share[FT_HANDLED])}), with "
            f"no tail read {_f(statistics.median(share[FT_NO_TAIL]))} "
            f"({_range(share[FT_NO_TAIL])}); of the {len(judged)} the lab could judge, the "
            f"goal of {goal} was reached in {met['lockfree']}, {met[FT_HANDLED]} and "
            f"{met[FT_NO_TAIL]} respectively. "
            + ("Neither variant's median lies outside ``lockfree``'s range: taking out what the "
               "algorithm does not share moved the share less than one run differs from the "
               "next" if not apart else
               "; ".join(f"{'the handle' if n == FT_HANDLED else 'the tail-less get'}'s "
                         f"median lies {'above' if statistics.median(share[n]) > hi else 'below'}"
                         " ``lockfree``'s range" for n in apart)))


def _ft_sliced_here(rows: Rows) -> str:
    """sliced's 2-over-1 ratio, share of the ceiling, CPU efficiency and verdict."""
    r = _where(rows, frontier="sliced")[0]
    return (f"it read {_f(float(r['median']))}x, {_f(float(r['of_ceiling']))} of the ceiling, "
            f"with a CPU efficiency of {_f(float(r['cpu_efficiency']))} (the lab's verdict: "
            f"{r['verdict'] or 'none'})")


def _ft_linked(rows: Rows) -> str:
    """lockfree beside itself with its nodes left linked: collections and CPU efficiency."""
    lf, old = _where(rows, frontier="lockfree")[0], _where(rows, frontier=FT_LINKED)[0]
    return (f"with its dequeued nodes left linked, ``lockfree`` ran "
            f"{_f(float(old['gc_per_second_2t']), 0)} collections a second at 2 threads and "
            f"did {_f(float(old['cpu_efficiency']))} of its 1-thread work per CPU second; "
            f"unlinked, {_f(float(lf['gc_per_second_2t']), 0)} collections and "
            f"{_f(float(lf['cpu_efficiency']))}")


def _ft_cpu_range(rows: Rows) -> str:
    """CPU efficiency at 2 threads over 1, range over the correct frontiers (``unsynchronized``
    loses URLs and its gets time out: its rate measures its losses)."""
    mine = [float(r["cpu_efficiency"]) for r in rows
            if r["frontier"] not in (*FT_BASELINES, "unsynchronized")]
    return _range(mine)


def _usl_gil(rows: Rows) -> str:
    """The GIL panel's fits: the range of σ and how many curves fell (κ > 0), usl.csv."""
    gil = _where(rows, interpreter="gil")
    fell = [r["frontier"] for r in gil if float(r["kappa"]) > 0]
    return (f"σ reads {_range([float(r['sigma']) for r in gil])} over its {len(gil)} curves, and "
            f"{len(fell)} of them fell at the second thread (κ above 0: the locked frontiers "
            "hand their lock over through the GIL)" if fell else
            f"σ reads {_range([float(r['sigma']) for r in gil])} over its {len(gil)} curves")


def _usl_ceiling(rows: Rows) -> str:
    """The scaling lab's nothing-shared ceiling without the GIL, 2 threads over 1 (medians)."""
    med = {r["threads"]: float(r["median"]) for r in
           _where(rows, interpreter="free-threaded", frontier=FT_CEILING)}
    c = med["2"] / med["1"]
    said = (f"{_f(c)}x (medians of {rows[0]['runs']} rounds, 1-minute load "
            f"{rows[0]['machine_load_1min']}, {rows[0]['date'][:10]})")
    if c < 1.6:  # labs.lab_frontier_bench.BUSY
        return (f"{said}, below the 1.6x under which the lab calls the machine too busy to "
                "judge: these curves describe the other work on the machine as much as the "
                "frontiers")
    return (f"{said}: the machine gave the lab its second core, and the curves are the "
            "frontiers'")


def _ft_gainers(rows: Rows) -> str:
    """The frontiers whose median 2-thread over 1-thread ratio is above 1, or a verdict that
    none is: the shape the free-threaded page describes, from the scaling CSV."""
    mine = [r for r in rows if r["frontier"] not in FT_BASELINES]
    up = sorted((r for r in mine if float(r["median"]) > 1.0), key=lambda r: -float(r["median"]))
    if not up:
        best = max(mine, key=lambda r: float(r["median"]))
        return (f"no frontier gains from the second thread: every one of the {len(mine)} is "
                f"below 1x, the best ``{best['frontier']}`` at {_f(float(best['median']))}x")
    named = ", ".join(f"``{r['frontier']}`` ({_f(float(r['median']))}x)" for r in up)
    return (f"{len(up)} of the {len(mine)} frontiers gain from the second thread, {named}; "
            f"the other {len(mine) - len(up)} stay at or below 1x")


def _ft_row(frontier: str) -> Callable[[Rows], str]:
    def value(rows: Rows) -> str:
        r = _where(rows, frontier=frontier)[0]
        return (f"{_f(float(r['median']))}x (median of {r['rounds']} rounds, "
                f"{_f(float(r['min']))}-{_f(float(r['max']))}x, {r['date'][:10]})")
    return value


def _gil_scaling(workload: str) -> Callable[[Rows], str]:
    """Without the GIL, 2 threads over 1 for ``workload``: which frontiers gain, with the
    range of the ratio (a shape sentence, from ratios.csv)."""
    def value(rows: Rows) -> str:
        mine = [r for r in _where(rows, workload=workload, interpreter="free-threaded")
                if r["frontier"] not in FT_BASELINES]
        xs = [float(r["t2_over_t1"]) for r in mine]
        up = sum(x > 1.0 for x in xs)
        who = ("every frontier" if up == len(xs) else "no frontier" if up == 0
               else f"{up} of the {len(xs)} frontiers")
        return f"{who} ({_range(xs)}x, 2 threads over 1)"
    return value


def _gil_vs_t1(workload: str) -> Callable[[Rows], str]:
    def value(rows: Rows) -> str:
        return _range([float(r["vs_gil_at_t1"]) for r in
                       _where(rows, workload=workload, interpreter="free-threaded")
                       if r["frontier"] not in FT_BASELINES]) + "x"
    return value


def _gil_crawl_beats(rows: Rows) -> str:
    """For how many frontiers the free-threaded crawl at 2 threads beats the GIL build's best
    thread count (medians, gil-side-by-side.csv)."""
    crawl = _where(rows, workload="crawl")
    names = sorted({r["frontier"] for r in crawl})
    beats = [f for f in names
             if _median(crawl, "median", frontier=f, interpreter="free-threaded", threads="2")
             > max(float(r["median"]) for r in _where(crawl, frontier=f, interpreter="gil"))]
    return ("for every frontier" if len(beats) == len(names)
            else f"for {len(beats)} of the {len(names)} frontiers")


def _gil_lf(rows: Rows) -> str:
    r = _where(rows, workload="bench", frontier="lockfree", interpreter="free-threaded")[0]
    return f"{_f(float(r['t2_over_t1']))}x"


NUMBERS = [
    Number("part_intra", "partition", "partition",
           _cell("intra_site_percent", 1, unit=" %", web="topical", K="4", method="site-hash"),
           "intra-site links of the topical web"),
    Number("part_ratio_4", "partition", "table2", _cell("hash/HP", 1, K="4"),
           "site-hash/hypergraph messages, K = 4"),
    Number("part_ratio_64", "partition", "table2", _cell("hash/HP", 1, K="64"),
           "site-hash/hypergraph messages, K = 64"),
    Number("part_site_4", "partition", "table2", _cell("msgs site-hash", -1, K="4"),
           "site-hash messages, K = 4"),
    Number("part_hp_4", "partition", "table2", _cell("msgs HP", -1, K="4"),
           "hypergraph messages, K = 4"),
    Number("part_site_64", "partition", "table2", _cell("msgs site-hash", -1, K="64"),
           "site-hash messages, K = 64"),
    Number("part_hp_64", "partition", "table2", _cell("msgs HP", -1, K="64"),
           "hypergraph messages, K = 64"),
    Number("part_peak_k", "partition", "table2", _peak_k, "K of the largest ratio"),
    Number("part_page_over_site", "partition", "partition", _page_over_site,
           "page-hash over site-hash messages"),
    Number("part_hp_imb", "partition", "table2", _col_range("imb% HP", 1, " %"),
           "hypergraph imbalance over K"),
    Number("part_site_imb_4", "partition", "table2", _cell("imb% site-hash", 0, unit=" %", K="4"),
           "site-hash imbalance, K = 4"),
    Number("part_site_imb_64", "partition", "table2",
           _cell("imb% site-hash", 0, unit=" %", K="64"), "site-hash imbalance, K = 64"),
    Number("paper_part_k64", "partition", "paper-table2", _paper_k64_range,
           "the paper's site-hash/hypergraph ratio at K = 64, four webs (Table 2)"),
    Number("paper_part_google_k64", "partition", "paper-table2",
           _cell("ratio", 1, dataset="google", K="64"), "the paper's ratio, google, K = 64"),
    Number("paper_part_google_imb_4", "partition", "paper-table2",
           _cell("hash_imbalance_percent", 1, unit=" %", dataset="google", K="4"),
           "the paper's site-hash imbalance, google, K = 4"),
    Number("paper_part_google_imb_64", "partition", "paper-table2",
           _cell("hash_imbalance_percent", 0, unit=" %", dataset="google", K="64"),
           "the paper's site-hash imbalance, google, K = 64"),
    Number("part_control_4", "partition", "partition", _control("4"),
           "site-hash/hypergraph messages without topics, K = 4"),
    Number("part_control_64", "partition", "partition", _control("64"),
           "site-hash/hypergraph messages without topics, K = 64"),
    Number("part_control_range", "partition", "partition", _control_range,
           "site-hash/hypergraph messages without topics, over K"),
    Number("part_bsp_equal", "partition", "bsp-check", _bsp_equal,
           "page_messages against the prediction"),
    Number("part_bsp_page", "partition", "bsp-check",
           _cell("measured_page_messages", -1, method="page-hash"), "page_messages, page-hash"),
    Number("part_bsp_site", "partition", "bsp-check",
           _cell("measured_page_messages", -1, method="site-hash"), "page_messages, site-hash"),
    Number("part_bsp_hp", "partition", "bsp-check",
           _cell("measured_page_messages", -1, method="hypergraph"), "page_messages, hypergraph"),
    Number("part_bsp_hp_vs_site", "partition", "bsp-check", _more_or_fewer,
           "hypergraph against site-hash page_messages"),
    Number("bspf_remote_range", "bsp-failures", "bsp-failures", _remote_range,
           "remote over local failures, over P"),
    Number("rx_pages", "bsp-rx", "bsp-rx", _cell("pages", -1, P="4", messages="all links",
                                                 tolerance="1000"), "pages of the web"),
    Number("rx_err_1000", "bsp-rx", "bsp-rx",
           _pct("mean_error", 2, P="4", messages="all links", tolerance="1000"),
           "mean error, P = 4, all links, tolerance 1,000"),
    Number("rx_err_10000", "bsp-rx", "bsp-rx",
           _pct("mean_error", 2, P="4", messages="all links", tolerance="10000"),
           "mean error, P = 4, all links, tolerance 10,000"),
    Number("rx_1000", "bsp-rx", "bsp-rx",
           _cell("R_x", -1, P="4", messages="all links", tolerance="1000"),
           "R_x, P = 4, all links, tolerance 1,000"),
    Number("rx_remote_1000", "bsp-rx", "bsp-rx",
           _cell("R_x", -1, P="4", messages="remote only", tolerance="1000"),
           "R_x, P = 4, remote links only, tolerance 1,000"),
    Number("rx_remote_err_1000", "bsp-rx", "bsp-rx",
           _pct("mean_error", 1, P="4", messages="remote only", tolerance="1000"),
           "mean error, P = 4, remote links only, tolerance 1,000"),
    Number("rx_tol_5", "bsp-rx", "search",
           _cell("largest_tolerance", -1, P="4", messages="all links", threshold="0.05"),
           "largest tolerance with the error below 5 %, P = 4, all links"),
    Number("dyn_sr", "bsp-dynamic", "bsp-dynamic", _dyn("static-random"),
           "stdev of the normalized workload, static-random"),
    Number("dyn_ss", "bsp-dynamic", "bsp-dynamic", _dyn("static-size"),
           "stdev of the normalized workload, static-size"),
    Number("dyn_dr", "bsp-dynamic", "bsp-dynamic", _dyn("dynamic-random"),
           "stdev of the normalized workload, dynamic-random"),
    Number("dyn_ds", "bsp-dynamic", "bsp-dynamic", _dyn("dynamic-size"),
           "stdev of the normalized workload, dynamic-size"),
    Number("dyn_comm", "bsp-dynamic", "bsp-dynamic",
           _dyn_comm,
           "communication overhead L/N, all policies"),
    Number("bspf_vs_paper", "bsp-failures", "bsp-failures", _bspf_vs_paper,
           "remote/local failures against the paper's 10 %"),
    Number("rx_search", "bsp-rx", "search", _rx_search,
           "R_x found by the binary search, all links against remote only"),
    Number("dyn_model", "bsp-dynamic", "model", _dyn_model, "the ideal-worker model"),
    Number("dyn_ss_vs_sr", "bsp-dynamic", "bsp-dynamic", _worse("static-size", "static-random"),
           "static-size against static-random"),
    Number("dyn_dr_vs_ds", "bsp-dynamic", "bsp-dynamic", _worse("dynamic-random", "dynamic-size"),
           "dynamic-random against dynamic-size"),
    Number("ext_machine", "extractors", "extractors", _machine, "the extractors run's machine"),
    Number("ext_lxml_1", "extractors", "extractors", _rate("crawl", "lxml", "1"), "lxml, 1"),
    Number("ext_lxml_16", "extractors", "extractors", _rate("crawl", "lxml", "16"), "lxml, 16"),
    Number("ext_bs4_1", "extractors", "extractors", _rate("crawl", "bs4", "1"), "bs4, 1"),
    Number("ext_bs4_16", "extractors", "extractors", _rate("crawl", "bs4", "16"), "bs4, 16"),
    Number("ext_scrapy_1", "extractors", "extractors", _rate("crawl", "scrapy", "1"),
           "Scrapy's extractor, 1"),
    Number("ext_scrapy_16", "extractors", "extractors", _rate("crawl", "scrapy", "16"),
           "Scrapy's extractor, 16"),
    Number("ext_lxml_sys", "extractors", "extractors", _ext_sys("lxml"), "lxml system CPU"),
    Number("ext_bs4_sys", "extractors", "extractors", _ext_sys("bs4"), "bs4 system CPU"),
    Number("ext_scrapy_sys", "extractors", "extractors", _ext_sys("scrapy"),
           "Scrapy's extractor system CPU"),
    Number("ext_lxml_bs4_1", "extractors", "extractors", _ext_ratio("lxml", "bs4", "1"),
           "lxml over bs4, 1 thread"),
    Number("ext_lxml_bs4_16", "extractors", "extractors", _ext_ratio("lxml", "bs4", "16"),
           "lxml over bs4, 16 threads"),
    Number("ext_lxml_scrapy", "extractors", "extractors", _ext_vs_scrapy,
           "lxml over Scrapy's extractor, 1 and 16 threads"),
    Number("ext_x_lxml", "extractors", "extractors", _ext_pair("lxml"), "extraction only, lxml"),
    Number("ext_x_bs4", "extractors", "extractors", _ext_pair("bs4"), "extraction only, bs4"),
    Number("ext_x_scrapy", "extractors", "extractors", _ext_pair("scrapy"),
           "extraction only, Scrapy"),
    Number("hw_machine", "hostile-web", "hostile-web", _machine, "the hostile-web run's machine"),
    *(Number(f"hw_{run}_{key}", "hostile-web", "hostile-web", fn, f"{run} run: {what}")
      for run in ("ordinary", "trapped", "lifted")
      for key, fn, what in (
          ("stop", _text("stopped_by", run=run), "how the crawl stopped"),
          ("seconds", _cell("seconds", 1, run=run), "seconds taken"),
          ("pages", _cell("pages_fetched", -1, run=run), "pages fetched"),
          ("ordinary", _cell("ordinary_fetched", -1, run=run), "ordinary pages fetched"),
          ("longest", _cell("longest_url", -1, run=run), "longest URL fetched"),
          ("cut", _cell("fetches_cut", -1, run=run), "fetches cut at the stop"),
          ("private", _cell("private_pages", -1, run=run), "pages fetched under /private/"),
          ("rss", _cell("peak_rss_mb", 0, run=run), "peak RSS of the crawl, MB"))),
    Number("hw_ordinary", "hostile-web", "hostile-web", _cell("ordinary_pages", -1, run="trapped"),
           "ordinary pages of the web"),
    Number("ws_machine", "web-server", "web-server", _machine, "the web-server run's machine"),
    Number("ws_L", "web-server", "web-server", _ws("littles_L"), "sustained concurrency"),
    Number("ws_conn", "web-server", "web-server", _ws("connections"), "client connections"),
    Number("ws_rps", "web-server", "web-server", _ws("requests_per_s"), "responses per second"),
    Number("ws_latency", "web-server", "web-server", _ws("mean_latency_ms", -1, " ms"),
           "mean response time"),
    Number("ws_failed", "web-server", "web-server", _ws("failed_clients"), "failed clients"),
    Number("ws_max", "web-server", "web-server", _cell("requests_per_s", -1, test="max"),
           "pages/s at zero latency"),
    Number("ws_over", "web-server", "web-server", _ws_over,
           "server pages/s over the fastest HttpFetcher run"),
    Number("ws_fetcher", "web-server", "web-server", _ws_fetcher, "HttpFetcher pages/s, 1 and 16"),
    Number("cp_machine", "crawl-parsers", "crawl-parsers", _machine, "the run's machine"),
    Number("cp_lxml_cpu_1", "crawl-parsers", "crawl-parsers", _cp("lxml", "1", "cpu_ms_per_page"),
           "lxml CPU ms per page, 1 thread, over rounds"),
    Number("cp_lxml_cpu_16", "crawl-parsers", "crawl-parsers",
           _cp("lxml", "16", "cpu_ms_per_page"), "lxml CPU ms per page, 16 threads"),
    Number("cp_lxml_rate_1", "crawl-parsers", "crawl-parsers", _cp("lxml", "1", "pages_per_s", 0),
           "lxml pages/s, 1 thread, over rounds"),
    Number("cp_lxml_rate_16", "crawl-parsers", "crawl-parsers",
           _cp("lxml", "16", "pages_per_s", 0), "lxml pages/s, 16 threads, over rounds"),
    Number("cp_lxml_med_1", "crawl-parsers", "crawl-parsers",
           _cp("lxml", "1", "pages_per_s", 0, "median"), "lxml pages/s, 1 thread, median"),
    Number("cp_lxml_med_16", "crawl-parsers", "crawl-parsers",
           _cp("lxml", "16", "pages_per_s", 0, "median"), "lxml pages/s, 16 threads, median"),
    Number("cp_lxml_target", "crawl-parsers", "crawl-parsers", _cp_target,
           "16 threads no slower than 1 (medians)"),
    Number("cp_bs4_cpu_1", "crawl-parsers", "crawl-parsers", _cp("bs4", "1", "cpu_ms_per_page", 0),
           "bs4 CPU ms per page, 1 thread"),
    Number("cp_bs4_rate_1", "crawl-parsers", "crawl-parsers", _cp("bs4", "1", "pages_per_s"),
           "bs4 pages/s, 1 thread"),
    Number("cp_bs4_rate_16", "crawl-parsers", "crawl-parsers", _cp("bs4", "16", "pages_per_s"),
           "bs4 pages/s, 16 threads"),
    Number("cp_bs4_parse_1", "crawl-parsers", "crawl-parsers",
           _cp("bs4", "1", "parse_ms_per_page", 0), "bs4 ms per extraction, 1 thread"),
    Number("cp_bs4_parse_16", "crawl-parsers", "crawl-parsers",
           _cp("bs4", "16", "parse_ms_per_page", 0), "bs4 ms per extraction, 16 threads"),
    Number("cp_bs4_sys_1", "crawl-parsers", "crawl-parsers", _cp("bs4", "1", "cpu_sys_s", 2),
           "bs4 system CPU s, 1 thread"),
    Number("cp_bs4_sys_16", "crawl-parsers", "crawl-parsers", _cp("bs4", "16", "cpu_sys_s", 2),
           "bs4 system CPU s, 16 threads"),
    Number("cp_scrapy_rate", "crawl-parsers", "crawl-parsers",
           _cp("scrapy", "16", "pages_per_s", 0), "Scrapy pages/s, 16 in flight, over rounds"),
    Number("ft_gainers", "free-threaded/frontier-bench", "scaling", _ft_gainers,
           "which frontiers gain at 2 threads without the GIL, the committed run"),
    Number("ft_gainers_later", "free-threaded/host-2026-11-24/frontier-bench", "scaling",
           _ft_gainers, "the same, a later session's machine"),
    Number("ft_ceiling_later", "free-threaded/host-2026-11-24/frontier-bench", "scaling",
           _ft_row(FT_CEILING), "the share-nothing baseline, later machine"),
    Number("ft_sliced_sessions", "free-threaded/frontier-bench", "scaling", _ft_sliced_sessions,
           "sliced's 2-over-1 ratio without the GIL in three labs, each with its session",
           beside=("free-threaded/frontier-bench", "frontier-bench"),
           more=(("gil-side-by-side", "ratios"), ("gil-side-by-side", "gil-side-by-side"),
                 ("scaling", "scaling"))),
    Number("ft_judged", "free-threaded/frontier-bench", "scaling", _ft_judged,
           "this run's ceiling (per-round ratios and CPUs), load and verdicts, no GIL",
           beside=("free-threaded/frontier-bench", "frontier-bench")),
    Number("ft_runs", "free-threaded/frontier-bench", "scaling", _ft_runs,
           "the goals over the day's runs of the micro-benchmark, no GIL", more=FT_REPEATS),
    Number("ft_shared_object", "free-threaded/frontier-bench", "scaling", _ft_shared_object,
           "sliced through handles, through the shared frontier, and the shared-object "
           "baseline, no GIL", beside=("free-threaded/frontier-bench", "frontier-bench")),
    Number("ft_quiet", "free-threaded/repeats/run-6/frontier-bench", "scaling", _ft_quiet,
           "a full run late on 2026-11-26 with nothing else running, no GIL"),
    Number("ft_profile", "free-threaded/ft-profile", "growth", _ft_profile,
           "where lockfree's CPU per pair grows at 2 threads, by function (perf), no GIL",
           more=(("free-threaded/repeats/profile-0/ft-profile", "growth"),)),
    Number("ft_apart", "free-threaded/frontier-bench", "scaling", _ft_apart,
           "the main run beside the main run it replaced: hours apart, agreement within 15%",
           more=((FT_BEFORE, "scaling"),)),
    Number("ft_again", "free-threaded/frontier-bench", "scaling", _ft_again,
           "the main run beside the same command run after it: agreement within 15%",
           more=((FT_AGAIN, "scaling"),)),
    Number("ft_day", "free-threaded/frontier-bench", "scaling", _ft_day,
           "the goal's stability check: two runs a day apart on one machine agree within 15%, "
           "or not made yet",
           more=FT_REPEATS),
    Number("ft_more_rounds", "free-threaded/frontier-bench", "scaling", _ft_more_rounds,
           "the kept runs of frontier-bench that asked for more rounds, no GIL",
           more=FT_REPEATS),
    Number("ft_machines", "free-threaded/frontier-bench", "scaling", _ft_machines,
           "the sharing baselines, lockfree and sliced on the machine of the main run and on "
           "the machine of the last main run made on another, no GIL",
           more=((FT_ACROSS, "scaling"),)),
    Number("ft_shared_ref", "free-threaded/frontier-bench", "scaling", _ft_shared_ref,
           "one shared AtomicRef read, and read and CASed, by two threads, no GIL"),
    Number("ft_lf_handles", "free-threaded/frontier-bench", "scaling", _ft_lf_handles,
           "lockfree through a handle, and with a get that reads no tail, beside it, over the "
           "runs that measured them, no GIL",
           beside=("free-threaded/frontier-bench", "frontier-bench"), more=FT_REPEATS),
    Number("ft_sliced_here", "free-threaded/frontier-bench", "scaling", _ft_sliced_here,
           "sliced's ratio, share of the ceiling and CPU efficiency, no GIL"),
    Number("ft_linked", "free-threaded/frontier-bench", "scaling", _ft_linked,
           "lockfree with and without unlinking: collections/s and CPU efficiency, 2 threads"),
    Number("ft_cpu_range", "free-threaded/frontier-bench", "scaling", _ft_cpu_range,
           "CPU efficiency at 2 threads over 1, range over the correct frontiers"),
    Number("usl_gil", "scaling", "usl", _usl_gil, "the GIL panel's fitted σ and falls"),
    Number("usl_ceiling", "scaling", "scaling", _usl_ceiling,
           "the central figure's ceiling without the GIL"),
    Number("ft_lf", "free-threaded/frontier-bench", "scaling", _ft_row("lockfree"),
           "lockfree 2 threads / 1, no GIL, the committed run"),
    Number("ft_lf_later", "free-threaded/host-2026-11-24/frontier-bench", "scaling",
           _ft_row("lockfree"), "lockfree 2 threads / 1, no GIL, later machine"),
    Number("gil_lf", "gil-side-by-side", "ratios", _gil_lf,
           "lockfree 2 threads / 1 without the GIL, put+get, in the side-by-side lab"),
    Number("gil_crawl_gain", "gil-side-by-side", "ratios", _gil_scaling("crawl"),
           "which frontiers' crawls gain at 2 threads without the GIL"),
    Number("gil_bench_vs_t1", "gil-side-by-side", "ratios", _gil_vs_t1("bench"),
           "free-threaded over GIL at 1 thread, put+get pairs, range over frontiers"),
    Number("gil_crawl_beats", "gil-side-by-side", "gil-side-by-side", _gil_crawl_beats,
           "frontiers whose free-threaded 2-thread crawl beats the GIL build's best"),
    Number("gil_lf_runs", "gil-side-by-side", "gil-side-by-side",
           _cell("runs", -1, workload="bench", frontier="lockfree", interpreter="free-threaded",
                 threads="2"), "runs per cell of the side-by-side lab"),
    Number("gil_date", "gil-side-by-side", "gil-side-by-side",
           lambda rows: rows[0]["date"][:10], "the side-by-side lab's date"),
    Number("cp_scrapy_over_lxml_cpu", "crawl-parsers", "crawl-parsers",
           lambda rows: _f(_median(rows, "cpu_ms_per_page", parser="scrapy", threads="16")
                           / _median(rows, "cpu_ms_per_page", parser="lxml", threads="16"), 1),
           "Scrapy's CPU per page over the lxml crawl's, 16 in flight, medians"),
    Number("ex_bs4_16", "extractors", "extractors",
           _cell("vs_own_1_thread", 2, unit="x", mode="extract", parser="bs4", threads="16"),
           "bs4 extraction at 16 threads over 1 thread (pages/s)"),
    Number("ex_bs4_user_16", "extractors", "extractors",
           _cell("cpu_user_s", 1, mode="extract", parser="bs4", threads="16"),
           "bs4 extraction, user CPU s at 16 threads"),
    Number("ex_bs4_sys_16", "extractors", "extractors",
           _cell("cpu_sys_s", 1, mode="extract", parser="bs4", threads="16"),
           "bs4 extraction, system CPU s at 16 threads"),
    Number("cp_scrapy_cpu", "crawl-parsers", "crawl-parsers",
           _cp("scrapy", "16", "cpu_ms_per_page", 0, "median"), "Scrapy CPU ms per page"),
    Number("cp_vs_scrapy", "crawl-parsers", "crawl-parsers-vs-scrapy", _cp_vs_scrapy,
           "crawlab lxml at 16 threads over Scrapy, same rounds"),
    Number("cp_rounds", "crawl-parsers", "crawl-parsers-vs-scrapy",
           _cell("rounds", -1), "rounds of the Scrapy comparison"),
    Number("cp_vs_scrapy_target", "crawl-parsers", "crawl-parsers-vs-scrapy",
           lambda rows: "met" if float(rows[0]["ratio_median"]) >= 3 else "missed",
           "the >= 3x target"),
    Number("pg_full_onsets", "full/crawl-capacity", "crawl-capacity", _onsets,
           "tanenbaum below 0.8 of monitor from (full run), capacities 10, 20, 30"),
    Number("pg_full_last", "full/crawl-capacity", "crawl-capacity", _last_ratio,
           "tanenbaum/monitor at the most threads (full run)"),
    Number("pg_full_sem", "full/crawl-capacity", "crawl-capacity", _sem_range,
           "semaphore/monitor over all points (full run)"),
    Number("pg_full_sem_extreme", "full/crawl-capacity", "crawl-capacity", _sem_extreme,
           "semaphore/monitor farthest from 1 (full run)"),
    Number("pg_full_early", "full/crawl-capacity", "crawl-capacity", _early,
           "tanenbaum collapses before twice the capacity (full run)"),
    Number("pg_quick_onsets", "crawl-capacity", "crawl-capacity", _onsets,
           "tanenbaum below 0.8 of monitor from (quick run)"),
    Number("pg_quick_grid", "crawl-capacity", "crawl-capacity", _grid,
           "thread counts of the quick run"),
    Number("ct_ceiling", "crawl-threads", "crawl-threads", _cell("cpu_ceiling", -1, threads="1",
                                                                 frontier="monitor"),
           "CPU ceiling, pages/s"),
    Number("ct_us_per_page", "crawl-threads", "crawl-threads",
           lambda rows: f"{1e6 / _ceiling(rows):.0f}",
           "microseconds of Python per page (1 / ceiling)"),
    Number("ct_knee", "crawl-threads", "crawl-threads",
           lambda rows: f"{0.001 * _ceiling(rows):.0f}",
           "robots where T/L passes the ceiling at L = 1 ms"),
    Number("mem_machine", "crawl-memory", "crawl-memory", _machine, "the run's machine"),
    Number("mem_visited", "crawl-memory", "crawl-memory", _mem("VisitedSet (fingerprints)"),
           "VisitedSet bytes per URL at 10^6"),
    Number("mem_target", "crawl-memory", "crawl-memory", _mem_target,
           "VisitedSet against the 150-byte target"),
    Number("mem_set", "crawl-memory", "crawl-memory",
           _mem("set of URL strings", "total_bytes_per_url"), "a set of URL strings, total"),
    Number("mem_set_own", "crawl-memory", "crawl-memory", _mem("set of URL strings"),
           "the set's own bytes per URL"),
    Number("mem_set_str", "crawl-memory", "crawl-memory",
           _mem("set of URL strings", "string_bytes_per_url"), "the strings' bytes per URL"),
    Number("mem_racy", "crawl-memory", "crawl-memory", _mem("RacyVisitedSet"),
           "RacyVisitedSet bytes per URL at 10^6"),
    Number("mem_ring", "crawl-memory", "crawl-memory",
           _mem_frontiers(("monitor", "semaphore", "optimistic")), "ring-buffer frontiers"),
    Number("mem_linked", "crawl-memory", "crawl-memory", _mem_frontiers(("coarse", "fine")),
           "linked-list frontiers"),
    Number("mem_heavy", "crawl-memory", "crawl-memory",
           _mem_frontiers(("heap", "unsynchronized")), "heap and unsynchronized"),
    Number("mem_budget", "crawl-memory", "crawl-memory", lambda rows: f"{_mem_budget(rows):.0f}",
           "VisitedSet plus a heap frontier of a tenth of the URLs, bytes per URL"),
    Number("mem_16gb", "crawl-memory", "crawl-memory", _mem_16gb,
           "URLs in 16 GB at mem_budget bytes each"),
    Number("mem_str_100k", "crawl-memory", "crawl-memory",
           _mem("monitor", "string_bytes_per_url", "100000"), "a URL string's bytes"),
    Number("dur_page_1", "crawl-durability", "crawl-durability",
           _cell("of_no_journal", 2, mode="per-page", threads="1"),
           "commit per page: share of the journal-free rate, 1 thread"),
    Number("dur_page_max", "crawl-durability", "crawl-durability", _dur("per-page"),
           "commit per page: share of the journal-free rate, most threads"),
    Number("dur_group_max", "crawl-durability", "crawl-durability", _dur("group"),
           "group commit: share of the journal-free rate, most threads"),
    Number("dur_threads_max", "crawl-durability", "crawl-durability",
           lambda rows: str(max(int(r["threads"]) for r in rows)), "the most threads measured"),
    Number("dur_page_gain", "crawl-durability", "crawl-durability", _dur_gain,
           "commit per page: median rate at the most threads over one thread"),
    Number("bsp_empty_proc", "bsp-speedup", "overhead",
           lambda rows: _range([float(r["ms_per_superstep"])
                                for r in _where(rows, backend="processes")]) + " ms",
           "an empty superstep on the processes backend, over P"),
    Number("bsp_p2", "bsp-speedup", "summary", _bsp_target,
           "P=2 over P=1, medians of the processes backend, and the 1.6x target"),
    Number("bsp_runs", "bsp-speedup", "summary",
           lambda rows: _where(rows, crawler="bsp processes", P="2")[0]["runs"],
           "crawls per point"),
    Number("bsp_load", "bsp-speedup", "crawls",
           lambda rows: _range([float(r["load_avg"]) for r in rows], 1),
           "1-minute load average beside the crawls"),
    Number("bsp_machine", "bsp-speedup", "crawls", _machine, "the run's machine"),
    Number("bsp_w1", "bsp-speedup", "cpu", _bsp_cpu("1", "workers"),
           "worker CPU ms per page, P = 1"),
    Number("bsp_w2", "bsp-speedup", "cpu", _bsp_cpu("2", "workers"),
           "workers' CPU ms per page, P = 2"),
    Number("bsp_c2", "bsp-speedup", "cpu", _bsp_cpu("2", "coordinator"),
           "coordinator CPU ms per page, P = 2"),
    Number("bsp_s2", "bsp-speedup", "cpu", _bsp_cpu("2", "server"),
           "server CPU ms per page, P = 2"),
    Number("bsp_cores1", "bsp-speedup", "cpu", _bsp_one_worker,
           "cores the crawl kept busy, P = 1, against one core"),
    Number("bsp_reason", "bsp-speedup", "cpu", _bsp_reason,
           "whether CPU seconds rule the 1.6x target out on 2 cores, and why"),
    Number("bsp_cores2", "bsp-speedup", "cpu", lambda rows: _f(_one(rows, "cores_busy", P="2")),
           "cores the crawl kept busy, P = 2"),
    Number("bsp_bound", "bsp-speedup", "cpu", _bsp_bound,
           "P=2 over P=1 on 2 cores of its own, from CPU seconds"),
    Number("bsp_bound_verdict", "bsp-speedup", "cpu", _bsp_bound_verdict,
           "whether 1.6x is within that bound"),
    Number("bsp_model", "bsp-speedup", "model", _bsp_model, "the model at P = 4, 8, 16"),
    Number("cc_machine", "crawl-parsers", "crawl-ceiling", _machine, "the run's machine"),
    Number("cc_load", "crawl-parsers", "crawl-ceiling", _cc_load, "load beside the runs"),
    Number("cc_site", "crawl-parsers", "crawl-ceiling", _cc_site, "the site crawled"),
    Number("cc_shared", "crawl-parsers", "crawl-ceiling", _cc_shared,
           "whether the wall-clock ratios can be read as a verdict"),
    Number("cc_gil_of", "crawl-parsers", "crawl-ceiling", _cc_spread("of_ceiling", False),
           "GIL build: the 16-thread crawl over the parse ceiling"),
    Number("cc_ft_of", "crawl-parsers", "crawl-ceiling",
           _cc_ft(_cc_spread("of_ceiling", True)),
           "free-threaded, GIL off: the 16-thread crawl over the parse ceiling"),
    Number("cc_gil_target", "crawl-parsers", "crawl-ceiling", _cc_target(False),
           "GIL build: 0.8 of the ceiling"),
    Number("cc_ft_target", "crawl-parsers", "crawl-ceiling", _cc_ft(_cc_target(True)),
           "free-threaded: 0.8 of the ceiling"),
    Number("cc_gil_reason", "crawl-parsers", "crawl-ceiling", _cc_reason(False),
           "GIL build: the bounds its CPU seconds give"),
    Number("cc_ft_reason", "crawl-parsers", "crawl-ceiling", _cc_ft(_cc_reason(True)),
           "free-threaded: the bounds its CPU seconds give"),
    Number("cc_ft_vs_gil", "crawl-parsers", "crawl-ceiling",
           _cc_ft(_cc_pair("crawl_pages_per_s")),
           "free-threaded crawl over GIL crawl, pages/s, round by round"),
    Number("cc_single_cost", "crawl-parsers", "crawl-ceiling",
           _cc_ft(_cc_pair("ceiling_cpu_ms_per_page")),
           "free-threaded over GIL: CPU per page of one thread parsing from disk"),
    Number("cc_python_cost", "crawl-parsers", "crawl-ceiling", _cc_ft(_cc_python_pair),
           "free-threaded over GIL: the ceiling's CPU per page less the lxml parse"),
    Number("cc_parse_cost", "crawl-parsers", "crawl-ceiling",
           _cc_ft(_cc_pair("parse_only_ms_per_page")),
           "free-threaded over GIL: the lxml parse alone"),
    Number("cc_libxml2_gil", "crawl-parsers", "crawl-ceiling", _cc_libxml2(False),
           "the libxml2 the GIL build's lxml runs"),
    Number("cc_libxml2_ft", "crawl-parsers", "crawl-ceiling", _cc_ft(_cc_libxml2(True)),
           "the libxml2 the free-threaded build's lxml runs"),
    Number("cc_ft_sys", "crawl-parsers", "crawl-ceiling",
           _cc_ft(lambda rows: _f(statistics.median(float(r["crawler_cpu_sys_s"]) / (
               float(r["crawler_cpu_user_s"]) + float(r["crawler_cpu_sys_s"]))
               for r in _cc(rows, True)))),
           "free-threaded crawl: system time's share of its CPU"),
    Number("cr_plain", "crawl-races", "crawl-races", _cr_count("unsynchronized"),
           "the plain unsynchronized frontier's repeats and losses"),
    Number("cr_control", "crawl-races", "crawl-races", _cr_count("monitor"),
           "the locked control's repeats and losses"),
    Number("cr_switch", "crawl-races", "crawl-races", _cr_switch,
           "the forced-switch frontier, per robot count"),
    Number("cr_window", "crawl-races", "crawl-races", _cr_window,
           "what put's check-then-push window let through, plain unsynchronized"),
    Number("cr_visited", "crawl-races", "crawl-races", _cr_visited,
           "RacyVisitedSet's race counter over every crawl"),
    Number("cr_by_interval", "crawl-races", "crawl-races", _cr_by_interval,
           "the forced-switch frontier per switch interval, smallest robot count above one"),
    Number("pg_deadlock_pages", "crawl-capacity", "crawl-capacity", _deadlock_pages,
           "pages before the own-links deadlock, per robot count (quick run)"),
    Number("cq_priority", "crawl-quality", "crawl-quality", _curves(("heap", "cbt", "quickheap")),
           "whether the three priority frontiers draw one curve"),
    Number("cq_fifo", "crawl-quality", "crawl-quality", _curves(("monitor", "lockfree")),
           "whether the two FIFO frontiers draw one curve"),
    Number("tl_monitor_lock", "crawl-timelines", "crawl-timelines",
           lambda rows: f"{100 * float(_where(rows, scenario='monitor')[0]['share_lock']):.0f} %",
           "share of the monitor crawl's thread time blocked on the lock, GIL"),
    Number("tl_lockfree_waits", "crawl-timelines", "crawl-timelines", _tl_waits("lockfree"),
           "lockfree's time in the frontier's waits, GIL"),
    Number("tl_ft_lockfree_waits", "free-threaded/crawl-timelines", "crawl-timelines",
           _tl_waits("lockfree"), "lockfree's time in the frontier's waits, free-threaded"),
    Number("tl_gil_spread", "crawl-timelines", "timeline-overhead", _tl_spread,
           "how far apart two monitor crawls without a timeline are, GIL"),
    Number("tl_vary", "free-threaded/crawl-timelines", "timeline-overhead", _tl_vary,
           "spread of the rounds without a timeline, free-threaded against GIL",
           beside=("crawl-timelines", "timeline-overhead")),
    Number("dur_trend", "crawl-durability", "crawl-durability", _dur_trend,
           "commit per page: its share of the journal-free rate, one thread against the most"),
    Number("part_trend", "partition", "table2", _part_trend,
           "our site-hash/hypergraph ratio with K against the paper's",
           beside=("partition", "paper-table2")),
    Number("fb_simple_vs_best", "frontier-bench", "frontier-bench", _fb_simple_vs_best,
           "queue.SimpleQueue over the fastest frontier, per thread count"),
    Number("eff_qh_ext_8", "pq-slices", "efficiency", _eff("QH_extract", "8"),
           "QH extract efficiency, T = 8"),
    Number("cp_lxml_trend", "crawl-parsers", "crawl-parsers", _cp_trend("lxml"),
           "the lxml crawl from 1 thread to the most: pages/s and CPU per page"),
    Number("cr_machine", "crawl-races", "crawl-races", _machine, "the run's machine"),
    Number("bsp_scrapy", "bsp-speedup", "summary", _bsp_scrapy,
           "the 5x-Scrapy target, or that the run has no Scrapy row"),
    Number("fb_slowest", "frontier-bench", "frontier-bench", _fb_slowest,
           "the two frontiers slowest per pair at one thread (medians)"),
    Number("fb_fine_coarse", "frontier-bench", "frontier-bench", _fb_over("fine", "coarse"),
           "fine over coarse, 2 threads and more"),
    Number("fb_simple", "frontier-bench", "frontier-bench", _fb_simple,
           "queue.SimpleQueue's pairs/s over queue.Queue's, range over thread counts"),
    Number("fb_lock_waits", "frontier-bench", "frontier-bench",
           _fb_counter("lock_waits", ("monitor", "coarse", "fine", "heap", "semaphore",
                                      "tanenbaum")),
           "lock_waits per round of the lock-based frontiers, 2 threads and more"),
    Number("fb_lock_waits_fine", "frontier-bench", "frontier-bench",
           _fb_counter("lock_waits", ("fine",)), "fine's lock_waits per round, 2+ threads"),
    Number("fb_lock_waits_coarse", "frontier-bench", "frontier-bench",
           _fb_counter("lock_waits", ("coarse",)), "coarse's lock_waits per round, 2+ threads"),
    Number("fb_cas", "frontier-bench", "frontier-bench", _fb_counter("cas_retries", ("lockfree",)),
           "lockfree's cas_retries per round, 2 threads and more"),
    Number("fb_aborts_most", "frontier-bench", "frontier-bench", _fb_at_most_threads,
           "optimistic's aborts per round at the run's largest thread count"),
    Number("fb_most_threads", "frontier-bench", "frontier-bench",
           lambda rows: str(_fb_most_threads(rows)), "the run's largest thread count"),
    Number("fb_rise", "frontier-bench", "frontier-bench", _fb_rise,
           "whether any frontier's pairs/s rise with threads (medians against one thread)"),
    Number("fb_unsync_races", "frontier-bench", "frontier-bench", _fb_races("unsynchronized"),
           "unsynchronized's race counters, summed over the run"),
    Number("fb_fine_coarse_1", "frontier-bench", "frontier-bench",
           _fb_over("fine", "coarse", one=True), "fine over coarse, one thread"),
    Number("fb_lf_monitor", "frontier-bench", "frontier-bench", _fb_over("lockfree", "monitor"),
           "lockfree over monitor, 2 threads and more"),
    Number("ct_bound_shape", "crawl-threads", "frontier-bound", _ct_bound_shape,
           "the zero-latency panel: each frontier's rate over its one-robot rate"),
    Number("ct_bound_runs", "crawl-threads", "frontier-bound",
           lambda rows: str(len({r["run"] for r in rows})), "crawls per point, zero latency"),
    Number("ct_of_bound_all", "crawl-threads", "crawl-threads",
           lambda rows: _range([float(r["of_bound"]) for r in rows]),
           "of_bound over every frontier and robot count, the I/O-bound panel"),
    Number("ct_of_bound", "crawl-threads", "crawl-threads", _ct_bound,
           "steady rate over min(T/L, ceiling), correct frontiers"),
    Number("fb_fast_range", "frontier-bench", "frontier-bench",
           _fb_range(("monitor", "lockfree", "coarse", "heap", "unsynchronized")),
           "five frontiers' put+get pairs/s over queue.Queue's, 1 thread, medians"),
    Number("pqs_proc_2", "pq-slices", "speedup", _cell("speedup", 2, mode="process", T="2"),
           "speed-up with 2 processes"),
    Number("pqs_thread_2", "pq-slices", "speedup", _cell("speedup", 2, mode="thread", T="2"),
           "speed-up with 2 threads"),
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
    return {n.name: n.text(results) for n in NUMBERS}


def render(results: Path = RESULTS) -> str:
    out = [".. This file is generated by docs/book_numbers.py from docs/results/*/*.csv.",
           "   Do not edit: rerun ``python docs/regenerate_figures.py --render-only``.", ""]
    for n in NUMBERS:
        value = n.text(results)
        beside = "".join(f" beside results/{lab}/{stem}.csv"
                         for lab, stem in ([n.beside] if n.beside else []) + list(n.more))
        out += [f".. {n.what}: results/{n.lab}/{n.stem}.csv{beside}",
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
