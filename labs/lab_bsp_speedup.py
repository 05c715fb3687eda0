"""BSP speed-up: pages/s of a parse-bound crawl of real HTML against P, beside Scrapy, and the
superstep overhead of both backends (processes and MPI).

A threaded crawler in one CPython process parses one page at a time, whatever its thread
count: the GIL serializes the Python work (link extraction, URL normalization, the frontier).
The BSP crawler (:mod:`crawlers.bsp`) runs P worker *processes*, each with its own GIL, that
meet only at the superstep barrier. On pages that cost milliseconds of CPU each, P = 2 should
come close to twice P = 1 on a 2-core machine; the issue's targets are at least 1.6x, and at
least 5x Scrapy's pages/s on the same site in the same run (when scrapy is installed).

The pages: documentation-like HTML of about 96 KB (the extractors lab's generator: code
blocks, a sidebar of links, paragraphs with links), one directory per site, every directory
served on its own 127.0.0.1 port by :class:`crawlers.web.server.WebServer` (a separate process);
or any tree of ``.html`` files with ``--pages-dir`` (served as one site). Generated sites are
dealt round-robin to the workers with a partition file (the papers' site distribution: links
stay inside a worker); a single given site is split by page-hash (links cross workers). Each
crawl runs to the end of the sites; pages/s is measured from the workers' start (process
start-up is reported apart). Every crawler (BSP on processes at each P, BSP under MPI, Scrapy)
runs the same number of times, interleaved round by round; the summary and the plot give the
median of those runs with their min-max spread. Scrapy runs in a child process
(its reactor cannot restart) with its defaults (16 concurrent requests, no delay) and a
``CrawlSpider`` following every link.

Then the superstep overhead: P workers doing empty supersteps (exchange + gather + allreduce,
:mod:`crawlers.bsp.overhead`), on the processes backend and under ``mpiexec`` (MPICH).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from crawlers.bsp import BspConfig, run_bsp
from crawlers.bsp.overhead import processes_overhead
from crawlers.crawl.targets import WebOptions
from crawlers.page.urls import site_of
from crawlers.partition.assignment import write_partition_file
from crawlers.web.server import WebServer
from labs.harness import Lab, LabError, series, summarize
from labs.lab_extractors import make_doc_pages
from labs.plotstyle import runs_note

SCRAPY_SCRIPT = textwrap.dedent("""
    import json, sys, time
    from scrapy.crawler import CrawlerProcess
    from scrapy.linkextractors import LinkExtractor
    from scrapy.spiders import CrawlSpider, Rule

    starts = sys.argv[1:]

    class Pages(CrawlSpider):
        name = "pages"
        allowed_domains = ["127.0.0.1"]
        start_urls = starts
        rules = [Rule(LinkExtractor(), callback="page", follow=True)]
        count = 0

        def parse_start_url(self, response):
            return self.page(response)

        def page(self, response):
            Pages.count += 1
            return None

    process = CrawlerProcess({"LOG_LEVEL": "ERROR", "TELNETCONSOLE_ENABLED": False,
                              "ROBOTSTXT_OBEY": True, "DOWNLOAD_MAXSIZE": 10_000_000})
    crawler = process.create_crawler(Pages)
    process.crawl(crawler)
    process.start()
    stats = crawler.stats.get_stats()
    seconds = (stats["finish_time"] - stats["start_time"]).total_seconds()
    print(json.dumps({"pages": Pages.count, "seconds": seconds,
                      "responses": stats.get("response_received_count", 0)}))
""")


def _extra(parser) -> None:
    parser.add_argument("--pages-dir", type=Path, default=None,
                        help="crawl this tree of .html files (one site, split by page-hash)")
    parser.add_argument("--no-mpi", action="store_true", help="skip the MPI backend")


def _sites(lab: Lab, scratch: Path) -> list[Path]:
    """The site folders: generated documentation pages, or the given tree's folders."""
    given = lab.args.pages_dir
    if given is not None:
        if not given.is_dir():
            raise LabError(f"unknown directory: {given}")
        if not any(given.rglob("*.html")):
            raise LabError(f"no .html file under {given}")
        return [given]
    count, per_site = (4, 60) if lab.quick else (8, 120)
    folders = []
    for k in range(count):
        folder = scratch / f"site{k}"
        make_doc_pages(folder, per_site, lab.seed + k)
        folders.append(folder)
    return folders


def _bsp(seeds: list[str], procs: int, part_dir: Path, backend: str = "processes") -> dict:
    """One BSP crawl of the served sites; its summary row. Several sites are dealt
    round-robin (a partition file); a single site is split by page-hash."""
    if len(seeds) > 1:
        part = str(part_dir / f"sites-{procs}.txt")
        table = {site_of(u): k % procs for k, u in enumerate(seeds)}
        write_partition_file(part, table, procs, method="round-robin")
    else:
        part = "page-hash"
    web = WebOptions(kind="urls", seed_urls=seeds, politeness=0.0, parser="lxml")
    config = BspConfig(web=web, procs=procs, robots=4, R=32, frontier="cbt",
                       partition=part, backend=backend, timeout=300)
    if backend == "mpi":
        return _bsp_mpi(config, seeds, part)
    report = run_bsp(config)
    return {"pages": report.pages_fetched, "seconds": report.seconds,
            "pages_per_s": report.pages_per_second, "supersteps": report.supersteps,
            "startup_seconds": report.startup_seconds, "errors": sum(report.errors.values())}


def _load() -> float:
    """The 1-minute load average (this lab's processes included)."""
    return round(os.getloadavg()[0], 2)


def _mpiexec() -> str | None:
    here = Path(sys.executable).parent / "mpiexec"
    return str(here) if here.exists() else shutil.which("mpiexec")


def _bsp_mpi(config: BspConfig, seeds: list[str], part: str) -> dict:
    cmd = [_mpiexec(), "-n", str(config.procs), sys.executable, "-m", "crawlers", "bsp",
           "--backend", "mpi", "--procs", str(config.procs), "--robots", str(config.robots),
           "--R", str(config.R), "--frontier", config.frontier, "--partition", part,
           "--politeness", "0", "--json"]
    for u in seeds:
        cmd += ["--seed-url", u]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise LabError(f"mpiexec crawl failed: {out.stderr.strip().splitlines()[-1:]}")
    r = json.loads(out.stdout.strip().splitlines()[-1])
    return {"pages": r["pages_fetched"], "seconds": r["seconds"],
            "pages_per_s": r["pages_per_second"], "supersteps": r["supersteps"],
            "startup_seconds": r["startup_seconds"], "errors": sum(r["errors"].values())}


def _scrapy(seeds: list[str], scratch: Path) -> dict | None:
    try:
        import scrapy  # noqa: F401
    except ImportError:
        print("# scrapy is not installed: the Scrapy comparison is skipped")
        return None
    script = scratch / "scrapy_pages.py"
    script.write_text(SCRAPY_SCRIPT)
    out = subprocess.run([sys.executable, str(script), *seeds], capture_output=True,
                         text=True, timeout=600)
    if out.returncode != 0:
        raise LabError(f"the Scrapy crawl failed: {out.stderr.strip().splitlines()[-1:]}")
    r = json.loads(out.stdout.strip().splitlines()[-1])
    return {"pages": r["pages"], "seconds": r["seconds"],
            "pages_per_s": r["pages"] / r["seconds"], "supersteps": "", "startup_seconds": "",
            "errors": r["responses"] - r["pages"]}


def _mpi_overhead(procs: int, rounds: int) -> float | None:
    cmd = [_mpiexec(), "-n", str(procs), sys.executable, "-m", "crawlers.bsp.overhead",
           "--rounds", str(rounds)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])["seconds"]


def main(argv=None) -> int:
    lab = Lab("bsp-speedup", __doc__, argv, extra=_extra)
    use_mpi = not lab.args.no_mpi and _mpiexec() is not None
    repeats = 2 if lab.quick else 3
    procs_list = (1, 2, 4)
    rows = []
    with tempfile.TemporaryDirectory(prefix="crawlab-bsp-") as tmp:
        scratch = Path(tmp)
        folders = _sites(lab, scratch)
        files = [p for f in folders for p in f.rglob("*.html")]
        average = sum(p.stat().st_size for p in files) / len(files) / 1024
        print(f"# {len(folders)} sites, {len(files)} HTML files, {average:.0f} KiB on average")
        with WebServer(dirs=[str(f) for f in folders]) as server:
            seeds = server.seed_urls
            for rep in range(repeats):
                for procs in procs_list:
                    row = {"crawler": "bsp processes", "P": procs, "repeat": rep,
                           **_bsp(seeds, procs, scratch), "load_avg": _load()}
                    rows.append(row)
                    print(f"#   bsp processes P={procs}: {row['pages_per_s']:.1f} pages/s")
                if use_mpi:
                    for procs in (1, 2):
                        row = {"crawler": "bsp mpi", "P": procs, "repeat": rep,
                               **_bsp(seeds, procs, scratch, backend="mpi"),
                               "load_avg": _load()}
                        rows.append(row)
                        print(f"#   bsp mpi P={procs}: {row['pages_per_s']:.1f} pages/s")
                scrapy_row = _scrapy(seeds, scratch)
                if scrapy_row is not None:
                    rows.append({"crawler": "scrapy", "P": 1, "repeat": rep, **scrapy_row,
                                 "load_avg": _load()})
                    print(f"#   scrapy: {scrapy_row['pages_per_s']:.1f} pages/s")
    lab.write_csv(rows, "crawls")
    summary = []
    for s in summarize(rows, ["crawler", "P"], "pages_per_s"):
        mine = [r for r in rows if r["crawler"] == s["crawler"] and r["P"] == s["P"]]
        summary.append({"crawler": s["crawler"], "P": s["P"], "runs": s["runs"],
                        "pages_per_s_median": round(s["median"], 1),
                        "pages_per_s_min": round(s["min"], 1),
                        "pages_per_s_max": round(s["max"], 1),
                        "pages": mine[0]["pages"],
                        "load_avg_max": max(r["load_avg"] for r in mine)})
    med = {(s["crawler"], s["P"]): s["pages_per_s_median"] for s in summary}
    base = med[("bsp processes", 1)]
    for s in summary:
        s["vs_bsp_P1"] = round(s["pages_per_s_median"] / base, 2)
    lab.write_csv(summary, "summary")
    print(f"# median (min-max) of {repeats} crawls each of the same sites (pages/s from the "
          "workers' start)")
    lab.table(summary)
    print(f"# load average now {_load()} on {os.cpu_count()} cores; it counts this lab's own "
          f"workers and server too, but well above P + 1 means other work shared the cores")
    speedup = med[("bsp processes", 2)] / base
    print(f"# target P=2 >= 1.6x P=1 (medians): {speedup:.2f}x, "
          f"{'met' if speedup >= 1.6 else 'NOT met'}")
    if ("scrapy", 1) in med:
        vs = med[("bsp processes", 2)] / med[("scrapy", 1)]
        print(f"# target P=2 >= 5x Scrapy (medians): {vs:.2f}x, {'met' if vs >= 5 else 'NOT met'}")

    rounds = 100 if lab.quick else 300
    overhead = []
    for procs in (1, 2, 4):
        overhead.append({"backend": "processes", "P": procs,
                         "ms_per_superstep": round(1000 * processes_overhead(procs, rounds), 3)})
        if use_mpi:
            mpi = _mpi_overhead(procs, rounds)
            if mpi is not None:
                overhead.append({"backend": "mpi", "P": procs,
                                 "ms_per_superstep": round(1000 * mpi, 3)})
    lab.write_csv(overhead, "overhead")
    print(f"# empty supersteps ({rounds} rounds): exchange + gather + allreduce")
    lab.table(overhead)

    fig, (left, right) = lab.figure(
        f"BSP crawl of real HTML served on 127.0.0.1 ({runs_note([repeats])})", "workers P",
        "pages/s", ncols=2)
    series(left, [r for r in rows if r["crawler"] != "scrapy"], "P", "pages_per_s", "crawler")
    left.plot(procs_list, [base * min(p, os.cpu_count() or 1) for p in procs_list], ":",
              color="gray", label="linear up to the core count")
    if ("scrapy", 1) in med:
        left.axhline(med[("scrapy", 1)], color="C3", ls="--",
                     label=f"Scrapy (median of {repeats})")
    left.set_xticks(procs_list)
    left.legend(fontsize=8)
    series(right, overhead, "P", "ms_per_superstep", "backend")
    right.set_xlabel("workers P")
    right.set_ylabel("ms per empty superstep")
    right.set_xticks(procs_list)
    right.legend(fontsize=8)
    lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(main())
