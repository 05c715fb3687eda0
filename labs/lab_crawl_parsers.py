"""When threads make it slower: one real-HTML crawl at 1 to 16 threads with the lxml and bs4
extractors, CPU time beside pages/s, and Scrapy at concurrency 16 on the same site.

The site is real documentation HTML (Sphinx output: long navigation sidebars, highlighted
source pages), served from a local directory by :class:`crawlers.web.server.WebServer` in its own
process, as ``crawlab serve --dir`` does. To give the crawl more pages than one book has, the
same directory is served as ``--mirrors`` sites, one port each; the crawl follows ``.html``
links within them. The folder is ``--site-dir``, else the course book's own build
(``docs/_build/html``), else the book is built with Sphinx into a temporary folder.

For each extractor (``--parser lxml`` or ``bs4`` of ``crawlab crawl``) and thread count the lab
records pages/s and the CPU **user** and **system** seconds of this process
(:func:`os.times`), and the mean wall time of one link extraction. ``lxml`` parses a page in
one C call; ``bs4`` calls back into Python for every tag and text node, so its threads fight
for the GIL thousands of times per page: the GIL convoy. Threads that wake up only to find the
GIL taken go back to sleep on a futex, which is system time, and each handover costs a switch
interval: more threads, more handovers, fewer pages.

When ``scrapy`` is importable, :mod:`labs.scrapy_crawl` crawls the same sites in a subprocess
(16 requests in flight, no delay, same scope and page limit), timed from its first request.
One crawl lasts seconds, so one pair of runs is noisy: the comparison runs ``--rounds``
rounds, each a crawlab crawl at 1 and at 16 threads and a Scrapy crawl (in alternating order),
and reports the median of the per-round ratios with their spread. The 2, 4 and 8 thread
crawls run once.

Then the **parse ceiling** (issue 29): twice the pages/s of one thread that reads the same
pages from disk and extracts their links, on the same interpreter, is the most a crawl can do
on two cores. Each round, :mod:`labs.parse_ceiling` runs in a subprocess on each interpreter
compared (this one, and every ``--interpreter``, e.g. a free-threaded ``python3.13t``): the
ceiling, then the crawl of the same mirrors at 16 threads, politeness 0. The server is the
same process for all of them; the lab reads its CPU seconds before and after each crawl, so
``crawl-ceiling.csv`` has the CPU seconds of the crawler and of the server beside the
pages/s. On a shared machine the wall-clock ratio ``of_ceiling`` moves with the load; the
CPU seconds move much less, and give what the crawl would reach on two cores of its own
(``cpu_of_ceiling``) and, with the GIL on, the bound of the work that holds it
(``gil_of_ceiling``: every page's CPU but its lxml parse runs one thread at a time).
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import frontier
from crawlers.args import MAX_PAGES, MAX_RUNS, at_most, positive_int
from crawlers.crawl.crawler import Crawler
from crawlers.page import extract
from crawlers.page.fetch import HttpFetcher
from crawlers.page.urls import Scope
from crawlers.web.server import WebServer
from labs.crawlbench import to_the_end
from labs.harness import Lab, LabError, script, series
from labs.othercpu import busy_reason, machine_cpu, others_share

CEILING_THREADS = 16

THREADS = (1, 2, 4, 8, 16)
COMPARED = (1, 16)  # thread counts crawled once per round (the others once in all)
SCRAPY_CONCURRENCY = 16
QUICK_PAGES, FULL_PAGES = 400, 1000
BS4_QUICK_PAGES = 30  # bs4 takes about 0.1 s of CPU a page
MAX_MIRRORS = 1000  # --mirrors at most: each mirror site is served on a port of its own
BOOK = Path(__file__).resolve().parent.parent / "docs"


class ParseClock:
    """A crawl sink that adds up the wall time spent extracting links, notes when the last
    page was done (``time.perf_counter``) and keeps the URL of every page fetched, in order.
    Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # guards seconds, pages, last and urls
        self.seconds = 0.0
        self.pages = 0
        self.last = 0.0
        self.urls: list[str] = []

    def page(self, result) -> None:
        now = time.perf_counter()
        with self._lock:
            self.seconds += result.parse_seconds
            self.pages += 1
            self.last = max(self.last, now)
            self.urls.append(result.final_url)

    def edges(self, url: str, links: list[str]) -> None:
        pass


def find_site(given: Path | None, scratch: Path) -> Path:
    """The folder of HTML to serve: ``given``, the book's build, or a fresh Sphinx build."""
    if given is not None:
        if not given.is_dir() or not any(given.rglob("*.html")):
            raise LabError(f"no .html files under {given}")
        return given
    built = BOOK / "_build" / "html"
    if len(list(built.rglob("*.html"))) >= 20:
        return built
    out = scratch / "book"
    print(f"# building the course book into {out} (sphinx) ...")
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(BOOK),
                           str(out)], capture_output=True, text=True)
    if proc.returncode != 0 or not (out / "index.html").is_file():
        raise LabError("could not build the course book; give a folder of HTML with "
                       "--site-dir")
    return out


def is_page(url: str) -> bool:
    """The crawl's page rule (the same for Scrapy): an ``.html`` path."""
    return url.endswith(".html")


def our_crawl(seeds: list[str], parser: str, threads: int, max_pages: int,
              clock: ParseClock | None = None) -> dict:
    """One crawl of the mirrors with crawlab's threaded crawler, timed from the start of the
    crawl to the end of its last page (as the Scrapy crawl is): the pages still in flight
    when the page limit is reached are counted, so their time is too. ``clock`` (a fresh
    :class:`ParseClock`) is the sink, if given, to read the pages fetched from."""
    scope = Scope(seeds)
    clock = ParseClock() if clock is None else clock
    extract.clear_cache()  # every crawl starts with no link normalized yet
    with HttpFetcher(parser=parser, pool_size=max(threads, 8), max_bytes=20_000_000) as fetcher:
        crawler = Crawler(fetcher, frontier.create("monitor"), seeds, threads=threads,
                          when_full="spill", sink=clock,
                          in_scope=lambda u: u in scope and is_page(u))
        t0 = os.times()
        start = time.perf_counter()
        r = to_the_end(crawler.run(max_pages=max_pages, seconds=600))
        t1 = os.times()
    seconds = max(clock.last - start, 1e-9) if clock.pages else r.seconds
    return {"crawler": f"crawlab {parser}", "parser": parser, "threads": threads,
            "pages": r.pages_fetched, "errors": sum(r.errors.values()),
            "seconds": seconds, "pages_per_s": r.pages_fetched / seconds,
            "cpu_user_s": t1.user - t0.user, "cpu_sys_s": t1.system - t0.system,
            "parse_ms_per_page": 1000 * clock.seconds / max(clock.pages, 1)}


def scrapy_crawl(seeds: list[str], max_pages: int) -> dict | None:
    """The same crawl by Scrapy in a subprocess; ``None`` if scrapy is not installed."""
    try:
        import scrapy  # noqa: F401
    except ImportError:
        print("# scrapy is not installed: its crawl is skipped (pip install scrapy)")
        return None
    import json

    argv = [sys.executable, "-m", "labs.scrapy_crawl", "--max-pages", str(max_pages),
            "--concurrency", str(SCRAPY_CONCURRENCY)]
    for seed in seeds:
        argv += ["--seed", seed]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=900,
                          cwd=BOOK.parent)
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"# scrapy crawl failed: {tail}")
        return None
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"crawler": "scrapy", "parser": "scrapy", "threads": SCRAPY_CONCURRENCY,
            **got, "parse_ms_per_page": float("nan")}


def _flags(parser) -> None:
    parser.add_argument("--site-dir", type=Path, default=None,
                        help="folder of HTML to serve (default: the course book's build)")
    parser.add_argument("--mirrors", type=at_most(positive_int, MAX_MIRRORS), default=None,
                        help="serve the folder as this many sites, one port each (default: "
                        f"enough for the page limit, at least 4; at most {MAX_MIRRORS})")
    parser.add_argument("--max-pages", type=at_most(positive_int, MAX_PAGES), default=None,
                        help=f"page limit per crawl (default: {QUICK_PAGES} in --quick, else "
                        f"{FULL_PAGES}); bs4 gets at most {BS4_QUICK_PAGES} in --quick")
    parser.add_argument("--rounds", type=at_most(positive_int, MAX_RUNS), default=None,
                        help="rounds of crawlab at 1 and 16 threads and Scrapy, and of the "
                        "parse-ceiling comparison (default 3)")
    parser.add_argument("--interpreter", action="append", default=[], metavar="PYTHON",
                        help="also run the parse-ceiling comparison on this interpreter "
                        "(repeatable; e.g. a free-threaded python3.13t, run with PYTHON_GIL=0)")
    parser.add_argument("--only-ceiling", action="store_true",
                        help="run the parse-ceiling comparison alone (crawl-ceiling.csv)")


def mirrors_for(max_pages: int, n_html: int) -> int:
    """Mirror sites enough for a crawl to reach ``max_pages`` before it runs out of pages
    (a fifth more, since not every file is linked), at least 4."""
    return max(4, math.ceil(1.2 * max_pages / max(n_html, 1)))


def spread(ratios: list[float]) -> dict:
    """Median, lowest and highest of per-round ratios (``nan`` for none)."""
    if not ratios:
        return {"median": float("nan"), "min": float("nan"), "max": float("nan")}
    return {"median": statistics.median(ratios), "min": min(ratios), "max": max(ratios)}


def main(argv=None) -> int:
    lab = Lab("crawl-parsers", __doc__, argv, extra=_flags, replot=True)
    max_pages = lab.args.max_pages or (QUICK_PAGES if lab.quick else FULL_PAGES)
    if lab.args.replot:  # the parser comparison's figure from its CSV; nothing measured
        rows = lab.rows("crawl-parsers", list)
        _parsers_results(lab, rows, max(r["pages"] for r in rows), None, write=False)
        return lab.done()
    rounds = lab.args.rounds or 3
    limits = {"lxml": max_pages,
              "bs4": min(max_pages, BS4_QUICK_PAGES) if lab.quick else max_pages}
    with tempfile.TemporaryDirectory(prefix="crawlab-site-") as scratch:
        site = find_site(lab.args.site_dir, Path(scratch))
        n_html = len(list(site.rglob("*.html")))
        mirrors = lab.args.mirrors or mirrors_for(max_pages, n_html)
        if mirrors > MAX_MIRRORS:  # the default grows with --max-pages: the same limit
            raise LabError(f"--max-pages {max_pages}: {n_html} .html files would be served as "
                           f"{mirrors} mirror sites, more than {MAX_MIRRORS} (one port each); "
                           "give a smaller --max-pages, a larger --site-dir or --mirrors")
        print(f"# site: {site} ({n_html} .html files) served as {mirrors} mirror sites; "
              f"page limit {limits}; {rounds} rounds of crawlab at {COMPARED} threads and "
              "Scrapy")
        with WebServer(dirs=[str(site)] * mirrors) as server:
            seeds = [url + "/index.html" for url in server.site_urls]
            if not lab.args.only_ceiling:
                rows = compare_parsers(seeds, max_pages, rounds, limits)
            ceiling = ceiling_rounds(lab, server, site, seeds, max_pages, rounds)
    report_ceiling(lab, ceiling)
    if lab.args.only_ceiling:
        return lab.done()
    _parsers_results(lab, rows, max_pages, mirrors)
    return lab.done()


def compare_parsers(seeds: list[str], max_pages: int, rounds: int, limits: dict) -> list[dict]:
    """The crawls of the parser comparison: ``rounds`` rounds of lxml at 1 and 16 threads and
    Scrapy (alternating who goes first), then lxml at 2, 4, 8 threads and bs4 at every count."""
    rows = []
    with_scrapy = True
    for k in range(1, rounds + 1):  # odd rounds: crawlab first, even: Scrapy first
        for who in ("crawlab", "scrapy") if k % 2 else ("scrapy", "crawlab"):
            if who == "crawlab":
                rows += [{**our_crawl(seeds, "lxml", t, max_pages), "round": k}
                         for t in COMPARED]
            elif with_scrapy:
                theirs = scrapy_crawl(seeds, max_pages)
                with_scrapy = theirs is not None
                if theirs is not None:
                    rows.append({**theirs, "round": k})
    for threads in THREADS:
        if threads not in COMPARED:
            rows.append({**our_crawl(seeds, "lxml", threads, max_pages), "round": 1})
    for threads in THREADS:
        rows.append({**our_crawl(seeds, "bs4", threads, limits["bs4"]), "round": 1})
    return rows


def ceiling_rounds(lab: Lab, server: WebServer, site: Path, seeds: list[str], max_pages: int,
                   rounds: int) -> list[dict]:
    """``rounds`` rounds of :mod:`labs.parse_ceiling` on every interpreter compared (the
    order alternates round by round), each with the server's CPU seconds over its run."""
    pythons = [sys.executable, *lab.args.interpreter]
    for python in lab.args.interpreter:
        if not (os.path.isfile(python) and os.access(python, os.X_OK)):
            raise LabError(f"--interpreter: not an executable file: {python}")
    # a free-threaded build runs with the GIL off (lxml would switch it back on at import);
    # a GIL build ignores the variable
    env = {**os.environ, "PYTHON_GIL": os.environ.get("PYTHON_GIL", "0")}
    rows = []
    title = site_title(site)
    for k in range(1, rounds + 1):
        for python in pythons if k % 2 else pythons[::-1]:
            argv = [python, "-m", "labs.parse_ceiling", "--site-dir", str(site),
                    "--threads", str(CEILING_THREADS),
                    "--max-pages", str(max_pages)]
            for seed in seeds:
                argv += ["--seed", seed]
            load = round(os.getloadavg()[0], 2)
            before, times0, machine0 = server.cpu_seconds(), os.times(), machine_cpu()
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=900,
                                  cwd=BOOK.parent, env=env)
            after, times1, machine1 = server.cpu_seconds(), os.times(), machine_cpu()
            if proc.returncode != 0:
                tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
                raise LabError(f"the ceiling run on {python} failed: {tail}")
            got = json.loads(proc.stdout.strip().splitlines()[-1])
            server_s = float("nan") if before is None or after is None else after - before
            # the lab's own CPU over the round: this process, the run it waited for, the server
            own = sum(getattr(times1, f) - getattr(times0, f) for f in
                      ("user", "system", "children_user", "children_system"))
            others = others_share(machine0, machine1, own + (server_s if before is not None
                                                              else 0.0), os.cpu_count() or 1)
            rows.append({**ceiling_row(got, server_s, round_=k, load=load), "site": title,
                         "mirrors": len(seeds), "others_cpu_share": others})
            print(f"#   round {k}, Python {got['python']}{'t' if got['free_threaded'] else ''}: "
                  f"{rows[-1]['crawl_pages_per_s']:.0f} pages/s, "
                  f"{rows[-1]['of_ceiling']:.2f} of the ceiling (load {load}, other work "
                  f"{others:.0%} of the machine)", flush=True)
    return rows


def site_title(site: Path) -> str:
    """The ``<title>`` of the site's ``index.html`` (what the CSV calls the site), else the
    folder's name."""
    index = site / "index.html"
    try:
        found = re.search(rb"<title>(.*?)</title>", index.read_bytes()[:65536], re.S | re.I)
    except OSError:
        found = None
    if found is None:
        return site.name
    return " ".join(found.group(1).decode("utf-8", "replace").split())


def ceiling_row(got: dict, server_s: float, round_: int, load: float) -> dict:
    """One row of ``crawl-ceiling.csv`` from one :mod:`labs.parse_ceiling` run and the
    server's CPU seconds during it: the measured ratio to the ceiling and the bounds the CPU
    seconds give (see the module docstring)."""
    pages = max(got["crawl_pages"], 1)
    ceiling = 2 * got["one_thread_pages_per_s"]
    crawler_ms = 1000 * (got["crawl_cpu_user_s"] + got["crawl_cpu_sys_s"]) / pages
    server_ms = 1000 * server_s / pages
    ceiling_ms = got["ceiling_cpu_ms_per_page"]
    # two cores of its own: the crawl's and the server's CPU per page against the ceiling's
    cpu_bound = _ratio(ceiling_ms, crawler_ms + (server_ms if server_ms == server_ms else 0))
    # with the GIL on, all but the lxml parse runs one thread at a time: at most one core,
    # 1000 / held_ms pages/s, against the ceiling's 2000 / ceiling_ms
    held_ms = crawler_ms - got["parse_only_ms_per_page"]
    gil_bound = _ratio(ceiling_ms, 2 * held_ms) if got["gil"] else float("nan")
    return {
        "round": round_, "python": got["python"], "free_threaded": got["free_threaded"],
        "gil": got["gil"], "libxml2": got.get("libxml2", ""), "threads": CEILING_THREADS,
        "pages": got["crawl_pages"],
        "errors": got["crawl_errors"],
        "one_thread_pages_per_s": got["one_thread_pages_per_s"],
        "ceiling_pages_per_s": ceiling, "crawl_pages_per_s": got["crawl_pages_per_s"],
        "of_ceiling": _ratio(got["crawl_pages_per_s"], ceiling),
        "ceiling_cpu_ms_per_page": ceiling_ms,
        "parse_only_ms_per_page": got["parse_only_ms_per_page"],
        "crawler_cpu_user_s": got["crawl_cpu_user_s"], "crawler_cpu_sys_s": got["crawl_cpu_sys_s"],
        "server_cpu_s": server_s, "crawler_cpu_ms_per_page": crawler_ms,
        "server_cpu_ms_per_page": server_ms,
        "cpu_of_ceiling": cpu_bound, "gil_of_ceiling": gil_bound,
        "bound_of_ceiling": min(cpu_bound, gil_bound) if gil_bound == gil_bound else cpu_bound,
        "load_avg": load,
    }


def _ratio(a: float, b: float) -> float:
    """``a / b``, or ``nan`` when ``b`` is not positive (a crawl too short for the CPU clock's
    ticks)."""
    return a / b if b > 0 else float("nan")


def report_ceiling(lab: Lab, rows: list[dict]) -> None:
    """Write ``crawl-ceiling.csv`` and print the medians per interpreter."""
    lab.write_csv(rows, "crawl-ceiling")
    lab.table(rows, ["round", "python", "free_threaded", "gil", "one_thread_pages_per_s",
                     "crawl_pages_per_s", "of_ceiling", "crawler_cpu_ms_per_page",
                     "server_cpu_ms_per_page", "ceiling_cpu_ms_per_page", "cpu_of_ceiling",
                     "gil_of_ceiling", "load_avg", "others_cpu_share"])
    for key in dict.fromkeys((r["python"], r["free_threaded"], r["gil"]) for r in rows):
        mine = [r for r in rows if (r["python"], r["free_threaded"], r["gil"]) == key]
        med = {c: statistics.median(r[c] for r in mine)
               for c in ("of_ceiling", "cpu_of_ceiling", "bound_of_ceiling")}
        verdict = (busy_reason([r.get("others_cpu_share", float("nan")) for r in mine])
                   or ("met" if med["of_ceiling"] >= 0.8 else "MISSED"))
        print(f"# {key[0]}{'t' if key[1] else ''} GIL {'on' if key[2] else 'off'}: crawl at "
              f"{CEILING_THREADS} threads / parse ceiling, median of {len(mine)}: "
              f"{med['of_ceiling']:.2f} measured (target >= 0.8: {verdict}); bound from CPU "
              f"seconds {med['bound_of_ceiling']:.2f}")


def _parsers_results(lab: Lab, rows: list[dict], max_pages: int, mirrors: int | None,
                     write: bool = True) -> None:
    """The parser comparison's CSVs (unless ``write`` is false: a re-plot keeps the measured
    ones), summary lines and figure; ``mirrors`` ``None`` when not known (a re-plot)."""
    for r in rows:
        r["cpu_ms_per_page"] = 1000 * (r["cpu_user_s"] + r["cpu_sys_s"]) / max(r["pages"], 1)

    def runs(parser: str, threads: int) -> list[dict]:
        return [r for r in rows if r["parser"] == parser and r["threads"] == threads]

    def median_rate(parser: str, threads: int) -> float:
        return statistics.median(r["pages_per_s"] for r in runs(parser, threads))

    ref = {p: median_rate(p, 1) for p in ("lxml", "bs4")}
    scrapy_by_round = {r["round"]: r["pages_per_s"] for r in runs("scrapy", SCRAPY_CONCURRENCY)}
    for r in rows:
        r["vs_own_1_thread"] = r["pages_per_s"] / ref[r["parser"]] if r["parser"] in ref \
            else float("nan")
        theirs = scrapy_by_round.get(r["round"])
        r["vs_scrapy_same_round"] = (r["pages_per_s"] / theirs if theirs and r["parser"] == "lxml"
                                     and r["threads"] == SCRAPY_CONCURRENCY else float("nan"))
    rows.sort(key=lambda r: (r["parser"] == "scrapy", r["parser"] == "bs4", r["threads"],
                             r["round"]))
    if write:
        lab.write_csv(rows)
    lab.table(rows, ["crawler", "threads", "round", "pages", "pages_per_s", "vs_own_1_thread",
                     "vs_scrapy_same_round", "cpu_user_s", "cpu_sys_s", "cpu_ms_per_page",
                     "parse_ms_per_page", "errors"])
    lxml16, lxml1 = median_rate("lxml", 16), ref["lxml"]
    many = runs("lxml", 16)
    print(f"# lxml: 16 threads {lxml16:.0f} pages/s vs 1 thread {lxml1:.0f} (medians of "
          f"{len(many)} crawls each, 16 threads {min(r['pages_per_s'] for r in many):.0f} to "
          f"{max(r['pages_per_s'] for r in many):.0f}; target: 16 no slower than 1: "
          f"{'met' if lxml16 >= lxml1 else 'MISSED'})")
    print(f"# bs4: 16 threads {median_rate('bs4', 16):.1f} pages/s vs 1 thread {ref['bs4']:.1f}")
    if scrapy_by_round:
        ratio = spread([r["vs_scrapy_same_round"] for r in many
                        if r["vs_scrapy_same_round"] == r["vs_scrapy_same_round"]])
        scrapy_rate = statistics.median(scrapy_by_round.values())
        print(f"# crawlab lxml at 16 threads / Scrapy at concurrency 16: median "
              f"{ratio['median']:.1f}x over {len(scrapy_by_round)} rounds (from "
              f"{ratio['min']:.1f}x to {ratio['max']:.1f}x; Scrapy {scrapy_rate:.0f} pages/s); "
              f"target >= 3x: {'met' if ratio['median'] >= 3 else 'MISSED'}; the papers give "
              "no Scrapy figure")
        if write:
            lab.write_csv([{"rounds": len(scrapy_by_round), "pages": max_pages,
                            "crawlab_lxml16_pages_per_s": lxml16,
                            "scrapy16_pages_per_s": scrapy_rate,
                            "ratio_median": ratio["median"], "ratio_min": ratio["min"],
                            "ratio_max": ratio["max"]}], stem="crawl-parsers-vs-scrapy")

    served = f"{mirrors} mirrors" if mirrors else "mirrors"
    fig, axes = lab.figure(f"Real-HTML crawl ({served} of a Sphinx book): median "
                           "of the rounds, min-max", "robot threads", "", ncols=2)
    colors = {"lxml": "C0", "bs4": "C3", "scrapy": "C2"}

    def style(parser: str, **more) -> dict:
        star = {"marker": "*", "ms": 12, "ls": ""} if parser == "scrapy" else {}
        return {"color": colors[parser], **star, **more}

    def per_page(key: str):
        return lambda r: 1000 * r[key] / max(r["pages"], 1)

    name = {"lxml": "crawlab, lxml", "bs4": "crawlab, bs4", "scrapy": "Scrapy, 16 in flight"}
    series(axes[0], rows, "threads", "pages_per_s", "parser", style=style, label=name.get)
    series(axes[1], rows, "threads", per_page("cpu_user_s"), "parser", style=style,
           label=lambda p: f"{p}: user")
    series(axes[1], [r for r in rows if r["parser"] != "scrapy"], "threads",
           per_page("cpu_sys_s"), "parser", style=lambda p: style(p, mfc="white", ls="--"),
           label=lambda p: f"{p}: system")
    axes[0].set_ylabel("pages per second")
    axes[1].set_ylabel("CPU ms per page (this process)")
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.set_xticks(THREADS, [str(t) for t in THREADS])
    axes[0].legend(fontsize=8, loc="center left")
    axes[1].set_ylim(0, axes[1].get_ylim()[1] * 1.45)  # room above the lines for the legend
    axes[1].legend(fontsize=8, loc="upper left", ncol=2)
    axes[0].set_yscale("log")
    lab.save(fig)


if __name__ == "__main__":
    raise SystemExit(script(main))
