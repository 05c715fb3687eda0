"""Results against the papers: regenerate ``docs/results/papers-table.inc`` from the labs' CSVs.

Usage: ``python docs/papers_table.py [--results DIR] [--out FILE]``

The papers' numbers are typed once, here, in :data:`CLAIMS`, each with its figure or table. For
every claim, the script reads the lab's CSVs under ``docs/results/LAB/`` and states our number
beside the paper's; a lab with no CSV yet (or no lab at all yet) is listed as "not yet
measured". Then every lab's plot, the command that made it, and its measured table follow.
The course book includes the generated file from ``docs/results-vs-papers.rst``; rerun this
script after ``python docs/regenerate_figures.py``.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
RESULTS = DOCS / "results"
OUT = RESULTS / "papers-table.inc"
MAX_ROWS = 12
MAX_COLUMNS = 9

PAPERS = {
    "threads": "Ramprasad, Mahajan, Liu: synchronization of multithreaded web crawlers",
    "pq": "Marin, Paredes, Bonacic (2008): priority queues for parallel crawlers",
    "dynamic": "Dong, Lu, Zhang: parallel crawling with dynamic partition",
    "hypergraph": "Türk, Cambazoglu, Aykanat: hypergraph partitioning for parallel crawling",
}

Rows = list[dict[str, str]]


def read_csv(lab: str, stem: str | None = None, results: Path = RESULTS) -> Rows | None:
    """Rows of ``results/lab/stem.csv`` (``stem`` defaults to the lab's name); None if absent."""
    path = results / lab / f"{stem or lab}.csv"
    if not path.is_file():
        return None
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def num(value: str) -> float:
    return float(value) if value not in ("", None) else float("nan")


def fmt(value: object) -> str:
    """A number with 3 significant digits (whole from 100 up); text unchanged."""
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return str(value)
    if x != x:
        return ""
    if x.is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:.3g}"


# --------------------------------------------------------------------------------------------
# Our number for each claim, from the CSVs. Each returns text, or None when not measured.


def ours_crawl_threads(results: Path) -> str | None:
    rows = read_csv("crawl-threads", results=results)
    if not rows:
        return None
    slice_s = max(num(r["seconds"]) for r in rows)
    best = max(rows, key=lambda r: num(r["pages_fetched"]))
    bounds = [num(r["of_bound"]) for r in rows if r["frontier"] != "unsynchronized"]
    peak = {}
    for name in sorted({r["frontier"] for r in rows}):
        mine = [r for r in rows if r["frontier"] == name]
        peak[name] = max(mine, key=lambda r: num(r["steady_pages_per_second"]))["threads"]
    peaks = ", ".join(f"{n} {t}" for n, t in peak.items())
    return (f"most pages in a {slice_s:.1f} s slice: {fmt(best['pages_fetched'])} "
            f"({best['frontier']}, {best['threads']} robots); every correct frontier at "
            f"{min(bounds):.2f}-{max(bounds):.2f} of the Little's-law bound T/L; "
            f"best thread count (no drop up to the largest tried): {peaks}")


def ours_crawl_capacity(results: Path) -> str | None:
    from labs.lab_crawl_capacity import onset  # the lab's own definition of the onset

    rows = read_csv("crawl-capacity", results=results) or []
    plunge = [r for r in rows if r.get("experiment") == "plunge"]
    if not plunge:
        return None
    parts = []
    for cap in sorted({r["capacity"] for r in plunge}, key=int):
        pages = {(r["frontier"], int(r["total_threads"])): num(r["pages_fetched"])
                 for r in plunge if r["capacity"] == cap}
        threads = sorted({t for _, t in pages})
        ratios = [pages[("tanenbaum", t)] / pages[("monitor", t)] for t in threads]
        sem = min(pages[("semaphore", t)] / pages[("monitor", t)] for t in threads)
        parts.append(f"capacity {cap}: tanenbaum below 0.8 of monitor from "
                     f"{onset(threads, ratios)} threads "
                     f"(at the largest, {ratios[-1]:.2f}); semaphore at least "
                     f"{sem:.2f} of monitor")
    own = [r for r in rows if r.get("experiment") == "own-links" and r["when_full"] == "block"]
    dead = sum(r["deadlock"] == "True" for r in own)
    return ("half robots, half producers, ``block``, untimed waits: "
            + "; ".join(parts)
            + f"; robots putting their own links with ``block``: deadlock in {dead} of "
            f"{len(own)} runs, from one thread on")


def ours_crawl_races(results: Path) -> str | None:
    rows = read_csv("crawl-races", results=results)
    if not rows:
        return None
    plain = [r for r in rows if r["frontier"] == "unsynchronized"]
    forced = [r for r in rows if r["frontier"] == "unsynchronized+switch"]
    text = (f"plain ``unsynchronized``: {sum(int(r['fetched_twice']) for r in plain)} pages "
            f"fetched twice and {sum(int(r['never_fetched']) for r in plain)} never fetched in "
            f"{len(plain)} crawls of {fmt(max(num(r['urls_discovered']) for r in plain))} URLs")
    if forced:
        worst = max(forced, key=lambda r: num(r["fetched_twice"]) / max(num(r["pages_fetched"]),
                                                                        1))
        share = num(worst["fetched_twice"]) / max(num(worst["pages_fetched"]), 1)
        text += (f"; with a forced switch in the window: up to {share:.0%} of fetches repeated, "
                 f"up to {fmt(max(num(r['never_fetched']) for r in forced))} pages never fetched")
    return text


def ours_pq_comparisons(results: Path) -> str | None:
    rows = read_csv("pq-comparisons", results=results)
    if not rows:
        return None
    return "QH/BH comparisons per key: " + ", ".join(
        f"R={fmt(r['R'])}: {fmt(r['QH/BH'])}" for r in rows)


def ours_pq_blockio(results: Path) -> str | None:
    rows = read_csv("pq-blockio", results=results)
    if not rows:
        return None
    return "; ".join(
        f"RAM {r['RAM']}, R={r['R']}: block I/O per key BH {fmt(r['BH_io_per_key'])}, "
        f"QH {fmt(r['QH_io_per_key'])}, CBT {fmt(r['CBT_io_per_key'])} "
        f"(QH/CBT {fmt(r['QH/CBT'])})" for r in rows)


PAPER_TABLE1_PQ = {1: (1.00, 1.00), 2: (0.99, 0.98), 4: (0.98, 0.97), 8: (0.95, 0.93)}


def ours_pq_table1(results: Path) -> str | None:
    rows = read_csv("pq-slices", "efficiency", results=results)
    if not rows:
        return None
    if "CBT_sample_extract" not in rows[0]:  # a run before sampled pivots existed
        return "CBT extract/insert efficiency: " + ", ".join(
            f"T={r['T']}: {fmt(r['CBT_extract'])}/{fmt(r['CBT_insert'])}" for r in rows)
    return ("CBT extract/insert efficiency, sampled pivots (random pivots): " + ", ".join(
        f"T={r['T']}: {fmt(r['CBT_sample_extract'])}/{fmt(r['CBT_sample_insert'])} "
        f"({fmt(r['CBT_extract'])}/{fmt(r['CBT_insert'])})" for r in rows))


def ours_pq_speedup(results: Path) -> str | None:
    rows = read_csv("pq-slices", "speedup", results=results)
    if not rows:
        return None
    modes = sorted({r["mode"] for r in rows})
    return "; ".join(
        f"{mode}: " + ", ".join(f"T={r['T']}: {fmt(r['speedup'])}" for r in rows
                                if r["mode"] == mode) for mode in modes)


def ours_bsp_dynamic(results: Path) -> str | None:
    rows = read_csv("bsp-dynamic", results=results)
    if not rows:
        return None
    key = next((k for k in ("policy", "partition") if k in rows[0]), None)
    value = next((k for k in ("simulated_pct", "stdev_pct", "measured_pct") if k in rows[0]), None)
    if not key or not value:
        return "see the table below"
    return "stdev of the normalized workload: " + ", ".join(
        f"{r[key]} {fmt(r[value])} %" for r in rows)


def ours_partition(results: Path) -> str | None:
    rows = read_csv("partition", "table2", results=results)
    if not rows:
        return None
    try:
        ratios = ", ".join(f"K={r['K']}: {fmt(r['hash/HP'])}" for r in rows)
        hp = [num(r["imb% HP"]) for r in rows]
        site = [num(r["imb% site-hash"]) for r in rows]
    except KeyError:
        return "see the table below"
    return (f"generated topical web: site-hash sends this many times the hypergraph's "
            f"messages: {ratios}; imbalance {min(hp):.1f}-{max(hp):.1f} % (hypergraph) against "
            f"{min(site):.1f}-{max(site):.1f} % (site-hash)")


def ours_bsp_failures(results: Path) -> str | None:
    rows = read_csv("bsp-failures", results=results)
    if not rows:
        return None
    try:
        return ("failures per page " + ", ".join(
            f"P={r['P']}: {fmt(r['failures_per_page'])}" for r in rows)
            + "; failures from other processors / co-resident ones: " + ", ".join(
            f"P={r['P']}: {num(r['remote_over_local']):.0%}" for r in rows))
    except KeyError:
        return "see the table below"


def ours_bsp_rx(results: Path) -> str | None:
    rows = read_csv("bsp-rx", "search", results=results)
    if not rows:
        return None
    try:
        found = [r for r in rows if r["P"] == "4" and r["messages"] == "all links"]
        return "P=4, all links: " + "; ".join(
            f"error at most {num(r['threshold']):.0%} up to a tolerance of "
            f"{fmt(r['largest_tolerance'])} pages (R_x {fmt(r['R_x'])})" for r in found)
    except KeyError:
        return "see the table below"


def ours_generic(lab: str, stem: str | None = None) -> Callable[[Path], str | None]:
    def ours(results: Path) -> str | None:
        rows = read_csv(lab, stem, results=results)
        if rows is None:
            found = sorted((results / lab).glob("*.csv")) if (results / lab).is_dir() else []
            return f"see the table below ({found[0].name})" if found else None
        return "see the table below"
    return ours


@dataclass
class Claim:
    """One figure or table of a paper, and the lab that measures the same thing."""

    lab: str
    paper: str  # a key of PAPERS
    ref: str
    says: str
    ours: Callable[[Path], str | None]


CLAIMS = [
    Claim("crawl-threads", "threads", "Figures 13-15",
          "links crawled in a 3 s slice, 1-64 threads, frontier of 30: the locking crawlers "
          "beat the lock-free one, whose best is about 5,000 links; the semaphore crawler "
          "drops past 8 threads (blamed on 8 performance cores)",
          ours_crawl_threads),
    Claim("crawl-capacity", "threads", "Figures 16-18",
          "the monitor crawler plunges when the threads reach about twice the frontier size "
          "(60, 40, 20 threads for sizes 30, 20, 10), the semaphore crawler does not; cause "
          "left open",
          ours_crawl_capacity),
    Claim("crawl-races", "threads", "Section V, lock-free figure",
          "without locks the frontier is \"overwritten frequently\" and crawlers \"usually do "
          "repetitive crawling work\" (no count given)",
          ours_crawl_races),
    Claim("pq-comparisons", "pq", "Figure 8",
          "key comparisons: the Quickheap (QH) outperforms the binary heap (BH) more and more "
          "as R grows (values read off a plot)",
          ours_pq_comparisons),
    Claim("pq-blockio", "pq", "Figure 9",
          "disk I/O with RAM at 10 % and 30 % of the queue: BH cannot compete; the CBT does "
          "about 20 % more I/O than the QH on average",
          ours_pq_blockio),
    Claim("pq-slices", "pq", "Table 1",
          "CBT efficiency extract/insert with T slices: T=1 1.00/1.00, T=2 0.99/0.98, "
          "T=4 0.98/0.97, T=8 0.95/0.93",
          ours_pq_table1),
    Claim("pq-slices", "pq", "Figure 10",
          "speed-up near T for T up to 8 on 8 CPUs (OpenMP threads, no GIL)",
          ours_pq_speedup),
    Claim("bsp-failures", "pq", "Figure 6",
          "late messages (failures) per superstep: more for larger P early in the crawl; "
          "failures caused by other processors below 10 % of the co-resident ones",
          ours_bsp_failures),
    Claim("bsp-rx", "pq", "Figure 7",
          "P = 4, 2 million pages: error below 5 % for tolerances 1,000-10,000 pages, "
          "well below 1 % at 1,000, with R_x about R/P = 3,000",
          ours_bsp_rx),
    Claim("bsp-dynamic", "dynamic", "Table 1",
          "stdev of the normalized workload of 6 C-procs: static-random 6.19 %, static-size "
          "3.44 %, dynamic-random 2.50 %, dynamic-size 0.82 %",
          ours_bsp_dynamic),
    Claim("partition", "hypergraph", "Table 2",
          "K = 4-64 on four crawled webs: the hypergraph partition sends 4.9-8.7 times fewer "
          "messages than site hashing on average per web (google: 8.4k against 24.0k at K=4, "
          "13.7k against 84.7k at K=64); load imbalance about 5 % against 4-203 % for hashing",
          ours_partition),
]


# --------------------------------------------------------------------------------------------
# Rendering


def lab_names() -> list[str]:
    """Every lab of ``labs/`` (``lab_crawl_threads.py`` -> ``crawl-threads``)."""
    return sorted(p.stem[4:].replace("_", "-") for p in (ROOT / "labs").glob("lab_*.py"))


def list_table(header: list[str], rows: list[list[str]], widths: str | None = None) -> list[str]:
    out = [".. list-table::", "   :header-rows: 1"]
    if widths:
        out.append(f"   :widths: {widths}")
    out.append("")
    for row in [header, *rows]:
        for i, cell in enumerate(row):
            text = " ".join(str(cell).split()) or "\\"
            out.append(f"   {'*' if i == 0 else ' '} - {text}")
    out.append("")
    return out


def machine_of(rows: Rows) -> str | None:
    r = rows[0] if rows else {}
    if "machine_cores" not in r:
        return None
    gil = "GIL on" if r.get("machine_gil") == "True" else "GIL off"
    return (f"{r['machine_cores']} cores, {r.get('machine_implementation', '')} "
            f"{r.get('machine_python', '')}, {gil}")


def csv_table(path: Path, results: Path) -> list[str]:
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return []
    columns = [c for c in rows[0] if not c.startswith("machine_")]
    shown_cols = columns[:MAX_COLUMNS]
    shown = rows[:MAX_ROWS]
    rel = path.relative_to(results.parent) if results.parent in path.parents else path
    note = f"``{rel}``"
    if len(rows) > len(shown) or len(columns) > len(shown_cols):
        note += (f": first {len(shown)} of {len(rows)} rows, {len(shown_cols)} of "
                 f"{len(columns)} columns")
    machine = machine_of(rows)
    if machine:
        note += f"; measured on {machine}"
    return [note + ".", "",
            *list_table(shown_cols, [[fmt(r[c]) for c in shown_cols] for r in shown])]


def render(results: Path = RESULTS) -> str:
    labs = lab_names()
    out = [".. This file is generated by docs/papers_table.py from docs/results/*/*.csv.",
           "   Do not edit: rerun ``python docs/papers_table.py``.", ""]
    out += ["The papers", "----------", ""]
    out += [f"* **{key}**: {title}" for key, title in PAPERS.items()] + [""]
    out += ["Side by side", "------------", ""]
    rows = []
    for c in CLAIMS:
        ours = c.ours(results)
        if ours is None:
            ours = ("not yet measured" if c.lab in labs
                    else "not yet measured (lab not written yet)")
        rows.append([f"``{c.lab}``", f"{c.paper}, {c.ref}", c.says, ours])
    out += list_table(["lab", "paper", "the paper", "we measured"], rows, "12 14 37 37")
    claimed = {c.lab for c in CLAIMS}
    others = [lab for lab in labs if lab not in claimed]
    if others:
        out += ["Labs with no figure in the papers (our own questions): "
                + ", ".join(f"``{lab}``" for lab in others) + ".", ""]
    out += ["Every lab's measurements", "------------------------", ""]
    for lab in sorted(set(labs) | claimed):
        out += [lab, "~" * len(lab), ""]
        folder = results / lab
        csvs = sorted(folder.glob("*.csv")) if folder.is_dir() else []
        if not csvs:
            out += ["Not yet measured." if lab in labs else "Not yet measured: the lab is not "
                    "written yet.", ""]
            continue
        out += [f"Made by ``crawlab lab {lab} --quick --out docs/results`` "
                "(all labs: ``python docs/regenerate_figures.py``).", ""]
        for png in sorted(folder.glob("*.png")):
            out += [f".. image:: {png.relative_to(results.parent).as_posix()}",
                    f"   :alt: the {lab} lab's plot ({png.name})", ""]
        for path in csvs:
            out += csv_table(path, results)
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="papers_table.py", description=__doc__.split("\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="folder of the labs' results (default: docs/results)")
    parser.add_argument("--out", type=Path, default=OUT,
                        help="the rst file to write (default: docs/results/papers-table.inc)")
    args = parser.parse_args(argv)
    if not args.results.is_dir():
        parser.error(f"--results: no such directory {str(args.results)!r}")
    text = render(args.results.resolve())
    args.out.write_text(text)
    measured = sum(c.ours(args.results.resolve()) is not None for c in CLAIMS)
    print(f"wrote {args.out}: {measured} of {len(CLAIMS)} paper figures measured")
    return 0


if __name__ == "__main__":
    sys.exit(main())
