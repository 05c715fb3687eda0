"""BSP speed-up: pages/s of a parse-bound crawl of real HTML against P, beside Scrapy, and the
superstep overhead of both backends (processes and MPI).

A threaded crawler in one CPython process runs the Python work of one page at a time, whatever
its thread count: the GIL serializes link extraction, URL normalization and the frontier
(lxml's parse itself releases the GIL, so some of a page's work does overlap).
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

A speed-up measured while other programs share the cores says little, so every crawl also
records the **CPU seconds** of each kind of process during the crawl: the P workers together
(each reports its process's CPU time per superstep, every thread counted, start-up not: the
``workers_cpu_seconds`` of the crawl's report; the reaped processes' whole lives, start-up
and imports included, are kept beside as ``workers_lifetime_cpu_s``), the coordinator (this
process, which routes the messages on the processes backend) and the web server (its own
process, read from ``/proc``), with the load average. CPU seconds change much less with the
load than wall time, and with the crawl's seconds they say how many cores the crawl kept
busy (``cores_busy``). From them the lab computes what two cores of its own would give: P = 2
needs every process's CPU per page at P = 2, and two cores give at most two CPU seconds a
second, so

    bound on 2 cores = (2 / all CPU per page at P = 2) / (pages/s of P = 1).

P = 1 is not held to one core: a worker's robot threads parse with lxml, which releases the
GIL, so one worker alone keeps more than one core busy, and what is left for a second worker
is less than a core. And, with the superstep overhead, a **model** of P = 4, 8 and 16 on a
machine with a core per worker and one each for the server and the coordinator: a superstep
of N pages takes max(N × worker CPU per page / P + empty superstep, N × server CPU per page,
N × coordinator CPU per page). The model's rows are written to ``model.csv`` (``source``
model) and drawn dashed beside the measured points.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from crawlers.args import MAX_RUNS, at_most, positive_int
from crawlers.bsp import BspConfig, run_bsp
from crawlers.bsp.overhead import processes_overhead
from crawlers.crawl.targets import WebOptions
from crawlers.page.urls import site_of
from crawlers.partition.assignment import write_partition_file
from crawlers.web.server import WebServer, process_cpu_seconds
from labs.crawlbench import to_the_end
from labs.harness import Lab, LabError, script, series, summarize
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
    parser.add_argument("--repeats", type=at_most(positive_int, MAX_RUNS), default=None,
                        help="crawls of each kind, interleaved (default: 2 in --quick, 3)")


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


def _bsp(seeds: list[str], procs: int, part_dir: Path, backend: str = "processes",
         server: WebServer | None = None) -> dict:
    """One BSP crawl of the served sites; its summary row with the CPU seconds of the
    workers during the crawl (their own reports), of their whole lives, of the coordinator
    and of ``server``. Several sites are dealt round-robin (a partition file); a single site
    is split by page-hash."""
    before = os.times(), _forked_cpu(), None if server is None else server.cpu_seconds()
    row = _bsp_crawl(seeds, procs, part_dir, backend)
    after = os.times(), _forked_cpu(), None if server is None else server.cpu_seconds()
    return {**row, **cpu_seconds(before, after, row["pages"], row.pop("workers_cpu_s"),
                                 row["seconds"])}


def _forked_cpu() -> float:
    """CPU seconds of the processes the multiprocessing forkserver has forked and reaped (the
    processes backend's workers are its children, not ours); 0 before it exists."""
    from multiprocessing import forkserver

    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    seconds = None if pid is None else process_cpu_seconds(pid, children=True)
    return 0.0 if seconds is None else seconds


def cpu_seconds(before: tuple, after: tuple, pages: int, workers: float,
                seconds: float) -> dict:
    """The CPU seconds of a crawl: ``workers`` (the workers' own count, during the crawl),
    their whole lives between two ``(os.times(), forkserver children's CPU, server CPU)``
    readings (the forkserver's reaped children, and ours: ``mpiexec`` and its ranks), this
    process (the coordinator) and the server (``nan`` if unknown); each per page in ms, and
    the cores they kept busy over the crawl's ``seconds``."""
    (t0, f0, s0), (t1, f1, s1) = before, after
    lifetime = (t1.children_user - t0.children_user) + (t1.children_system - t0.children_system)
    lifetime += f1 - f0
    coordinator = (t1.user - t0.user) + (t1.system - t0.system)
    server = float("nan") if s0 is None or s1 is None else s1 - s0
    n = max(pages, 1)
    busy = workers + coordinator + (0.0 if server != server else server)
    return {"workers_cpu_s": round(workers, 3), "workers_lifetime_cpu_s": round(lifetime, 3),
            "coordinator_cpu_s": round(coordinator, 3), "server_cpu_s": round(server, 3),
            "workers_cpu_ms_per_page": 1000 * workers / n,
            "coordinator_cpu_ms_per_page": 1000 * coordinator / n,
            "server_cpu_ms_per_page": 1000 * server / n,
            "cores_busy": busy / seconds if seconds > 0 else float("nan")}


def _bsp_crawl(seeds: list[str], procs: int, part_dir: Path, backend: str) -> dict:
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
    report = to_the_end(run_bsp(config))
    return {"pages": report.pages_fetched, "seconds": report.seconds,
            "pages_per_s": report.pages_per_second, "supersteps": report.supersteps,
            "startup_seconds": report.startup_seconds, "errors": sum(report.errors.values()),
            "workers_cpu_s": report.workers_cpu_seconds}


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
            "startup_seconds": r["startup_seconds"], "errors": sum(r["errors"].values()),
            "workers_cpu_s": r["workers_cpu_seconds"]}


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


ROLES = ("workers", "coordinator", "server")


def cpu_table(rows: list[dict]) -> list[dict]:
    """Per P: the median CPU ms per page of the workers, the coordinator and the server, the
    median cores they kept busy, pages, supersteps and pages/s, and the highest load average
    seen."""
    out = []
    for p in sorted({r["P"] for r in rows}):
        mine = [r for r in rows if r["P"] == p]
        row = {"P": p, "runs": len(mine)}
        for role in ROLES:
            row[f"{role}_cpu_ms_per_page"] = statistics.median(
                r[f"{role}_cpu_ms_per_page"] for r in mine)
        for key in ("cores_busy", "pages", "supersteps", "pages_per_s"):
            row[key] = statistics.median(r[key] for r in mine)
        row["load_avg_max"] = max(r["load_avg"] for r in mine)
        out.append(row)
    return out


def _all_ms(row: dict) -> float:
    """CPU ms per page of every process of the crawl (a server not read counts 0)."""
    return sum(x for x in (row[f"{role}_cpu_ms_per_page"] for role in ROLES) if x == x)


def cpu_bound(cpu: list[dict], cores: int = 2) -> float:
    """P=2 over P=1 on ``cores`` cores of its own, from CPU seconds: P = 2 runs at most
    ``1000 * cores / all ms per page`` pages/s (every process of the crawl shares the cores),
    over the pages/s P = 1 reached. P = 1 is not assumed to fit one core (lxml parses outside
    the GIL): its ``cores_busy`` says what it took."""
    one = next(r for r in cpu if r["P"] == 1)
    two = next(r for r in cpu if r["P"] == 2)
    return (1000 * cores / _all_ms(two)) / one["pages_per_s"]


def model_rows(cpu: list[dict], overhead: list[dict], sites: int, cores: int = 2,
               ps=(1, 2, 4, 8, 16)) -> list[dict]:
    """The model (see the module docstring): pages/s at each P of ``ps`` with a core per
    worker (``pages_per_s``) and on ``cores`` cores shared by every process
    (``pages_per_s_on_cores``), from the CPU per page measured at the largest P of ``cpu``
    and the empty superstep as a line in P through ``overhead`` (never below its lowest
    measurement). With ``sites`` sites dealt whole to the workers, at most ``sites`` of them
    have pages to crawl (0: the pages are split by page-hash, every worker has some)."""
    at = max(cpu, key=lambda r: r["P"])
    w, c, srv = (at[f"{role}_cpu_ms_per_page"] / 1000 for role in ROLES)
    srv = 0.0 if srv != srv else srv
    xs = [o["P"] for o in overhead]
    ys = [o["ms_per_superstep"] / 1000 for o in overhead]
    if len(set(xs)) > 1:
        slope, intercept = statistics.linear_regression(xs, ys)
    else:
        slope, intercept = 0.0, (ys[0] if ys else 0.0)
    floor = min(ys, default=0.0)
    n, steps = at["pages"], at["supersteps"]
    rows = []
    for p in ps:
        busy = min(p, sites) if sites else p
        step = max(intercept + slope * p, floor)
        seconds = max(n * w / busy + steps * step, n * srv, n * c)
        shared = n * (w + srv + c) / cores  # every process's CPU on the machine's cores
        rows.append({"P": p, "busy_workers": busy, "pages_per_s": n / seconds,
                     "pages_per_s_on_cores": n / max(seconds, shared), "cores": cores,
                     "from_P": at["P"], "workers_cpu_ms_per_page": 1000 * w,
                     "server_cpu_ms_per_page": 1000 * srv,
                     "coordinator_cpu_ms_per_page": 1000 * c, "superstep_ms": 1000 * step})
    one = rows[0]["pages_per_s"]
    for r in rows:
        r["vs_P1"] = r["pages_per_s"] / one
        r["vs_P1_on_cores"] = r["pages_per_s_on_cores"] / one
    return rows


def main(argv=None) -> int:
    lab = Lab("bsp-speedup", __doc__, argv, extra=_extra)
    use_mpi = not lab.args.no_mpi and _mpiexec() is not None
    repeats = lab.args.repeats or (2 if lab.quick else 3)
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
                           **_bsp(seeds, procs, scratch, server=server), "load_avg": _load()}
                    rows.append(row)
                    print(f"#   bsp processes P={procs}: {row['pages_per_s']:.1f} pages/s")
                if use_mpi:
                    for procs in (1, 2):
                        row = {"crawler": "bsp mpi", "P": procs, "repeat": rep,
                               **_bsp(seeds, procs, scratch, backend="mpi", server=server),
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

    cpu = cpu_table([r for r in rows if r["crawler"] == "bsp processes"])
    lab.write_csv(cpu, "cpu")
    print("# CPU ms per page of each kind of process (medians over the repeats)")
    lab.table(cpu)
    bound = cpu_bound(cpu)
    busy = next(r["cores_busy"] for r in cpu if r["P"] == 1)
    print(f"# P=1 kept {busy:.2f} cores busy (its robots parse outside the GIL); from CPU "
          f"seconds, on 2 cores of its own: P=2 at most {bound:.2f}x P=1 "
          f"(target 1.6x: {'reachable' if bound >= 1.6 else 'NOT reachable'} on 2 cores)")
    model = model_rows(cpu, [o for o in overhead if o["backend"] == "processes"],
                       sites=len(folders) if len(folders) > 1 else 0,
                       cores=os.cpu_count() or 1)
    lab.write_csv(model, "model", source="model")

    fig, (left, right) = lab.figure(
        f"BSP crawl of real HTML served on 127.0.0.1 ({runs_note([repeats])})", "workers P",
        "pages/s", ncols=2)
    series(left, [r for r in rows if r["crawler"] != "scrapy"], "P", "pages_per_s", "crawler")
    left.plot(procs_list, [base * min(p, os.cpu_count() or 1) for p in procs_list], ":",
              color="gray", label="linear up to the core count")
    if ("scrapy", 1) in med:
        left.axhline(med[("scrapy", 1)], color="C3", ls="--",
                     label=f"Scrapy (median of {repeats})")
    left.plot([m["P"] for m in model], [m["pages_per_s"] for m in model], "--", color="k",
              label="model: a core per worker (from CPU s)")
    left.plot([m["P"] for m in model], [m["pages_per_s_on_cores"] for m in model], "--",
              color="gray", label=f"model: {model[0]['cores']} cores shared (from CPU s)")
    left.set_xscale("log", base=2)
    left.set_xticks([m["P"] for m in model], [str(m["P"]) for m in model])
    left.legend(fontsize=8)
    series(right, overhead, "P", "ms_per_superstep", "backend")
    right.set_xlabel("workers P")
    right.set_ylabel("ms per empty superstep")
    right.set_xticks(procs_list)
    right.legend(fontsize=8)
    lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(script(main))
