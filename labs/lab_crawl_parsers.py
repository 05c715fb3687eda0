"""When threads make it slower: one real-HTML crawl at 1 to 16 threads with the lxml and bs4
extractors, CPU time beside pages/s, and Scrapy at concurrency 16 on the same site.

The site is real documentation HTML (Sphinx output: long navigation sidebars, highlighted
source pages), served from a local directory by :class:`crawlers.server.WebServer` in its own
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
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import frontier
from crawlers import extract
from crawlers.args import positive_int
from crawlers.crawl import Crawler
from crawlers.fetch import HttpFetcher
from crawlers.server import WebServer
from crawlers.urls import Scope
from labs.harness import Lab, LabError

THREADS = (1, 2, 4, 8, 16)
SCRAPY_CONCURRENCY = 16
BOOK = Path(__file__).resolve().parent.parent / "docs"


class ParseClock:
    """A crawl sink that adds up the wall time spent extracting links. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # guards seconds and pages
        self.seconds = 0.0
        self.pages = 0

    def page(self, result) -> None:
        with self._lock:
            self.seconds += result.parse_seconds
            self.pages += 1

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


def our_crawl(seeds: list[str], parser: str, threads: int, max_pages: int) -> dict:
    """One crawl of the mirrors with crawlab's threaded crawler."""
    scope = Scope(seeds)
    clock = ParseClock()
    extract.clear_cache()  # every crawl starts with no link normalized yet
    with HttpFetcher(parser=parser, pool_size=max(threads, 8), max_bytes=20_000_000) as fetcher:
        crawler = Crawler(fetcher, frontier.create("monitor"), seeds, threads=threads,
                          when_full="spill", sink=clock,
                          in_scope=lambda u: u in scope and is_page(u))
        t0 = os.times()
        r = crawler.run(max_pages=max_pages, seconds=600)
        t1 = os.times()
    return {"crawler": f"crawlab {parser}", "parser": parser, "threads": threads,
            "pages": r.pages_fetched, "errors": sum(r.errors.values()),
            "seconds": r.seconds, "pages_per_s": r.pages_per_second,
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
    parser.add_argument("--mirrors", type=positive_int, default=None,
                        help="serve the folder as this many sites (default: 4, 8 in full)")
    parser.add_argument("--max-pages", type=positive_int, default=None,
                        help="page limit per crawl (default: 150 in --quick, else 1000); "
                        "bs4 gets a fifth of it in --quick")


def main(argv=None) -> int:
    lab = Lab("crawl-parsers", __doc__, argv, extra=_flags)
    mirrors = lab.args.mirrors or (4 if lab.quick else 8)
    max_pages = lab.args.max_pages or (150 if lab.quick else 1000)
    limits = {"lxml": max_pages, "bs4": max(max_pages // 5, 1) if lab.quick else max_pages}
    with tempfile.TemporaryDirectory(prefix="crawlab-site-") as scratch:
        site = find_site(lab.args.site_dir, Path(scratch))
        n_html = len(list(site.rglob("*.html")))
        print(f"# site: {site} ({n_html} .html files) served as {mirrors} mirror sites; "
              f"page limit {limits}")
        rows = []
        with WebServer(dirs=[str(site)] * mirrors) as server:
            seeds = [url + "/index.html" for url in server.site_urls]
            for parser in ("lxml", "bs4"):
                for threads in THREADS:
                    rows.append(our_crawl(seeds, parser, threads, limits[parser]))
            theirs = scrapy_crawl(seeds, max_pages)
    if theirs is not None:
        rows.append(theirs)
    for r in rows:
        r["cpu_ms_per_page"] = 1000 * (r["cpu_user_s"] + r["cpu_sys_s"]) / max(r["pages"], 1)
    ref = {p: next(r for r in rows if r["parser"] == p and r["threads"] == 1)["pages_per_s"]
           for p in ("lxml", "bs4")}
    for r in rows:
        r["vs_own_1_thread"] = r["pages_per_s"] / ref[r["parser"]] if r["parser"] in ref \
            else float("nan")
    lab.write_csv(rows)
    lab.table(rows, ["crawler", "threads", "pages", "pages_per_s", "vs_own_1_thread",
                     "cpu_user_s", "cpu_sys_s", "cpu_ms_per_page", "parse_ms_per_page",
                     "errors"])
    at16 = {r["parser"]: r for r in rows if r["threads"] == 16}
    lxml16 = at16["lxml"]["pages_per_s"]
    print(f"# lxml: 16 threads {lxml16:.0f} pages/s vs 1 thread {ref['lxml']:.0f} "
          f"(target: 16 no slower than 1: {'met' if lxml16 >= ref['lxml'] else 'MISSED'})")
    print(f"# bs4: 16 threads {at16['bs4']['pages_per_s']:.1f} pages/s vs 1 thread "
          f"{ref['bs4']:.1f}")
    if theirs is not None:
        ratio = lxml16 / theirs["pages_per_s"] if theirs["pages_per_s"] else float("inf")
        print(f"# crawlab lxml at 16 threads / Scrapy at concurrency 16: {ratio:.1f}x "
              f"(target >= 3x: {'met' if ratio >= 3 else 'MISSED'}); the papers give no "
              f"Scrapy figure")

    fig, axes = lab.figure(f"Real-HTML crawl ({mirrors} mirrors of a Sphinx book)",
                           "robot threads", "", ncols=2)
    for parser, color in (("lxml", "C0"), ("bs4", "C3")):
        mine = [r for r in rows if r["parser"] == parser]
        xs = [r["threads"] for r in mine]
        axes[0].plot(xs, [r["pages_per_s"] for r in mine], marker="o", color=color,
                     label=f"crawlab, {parser}")
        axes[1].plot(xs, [1000 * r["cpu_user_s"] / r["pages"] for r in mine], marker="o",
                     color=color, label=f"{parser}: user")
        axes[1].plot(xs, [1000 * r["cpu_sys_s"] / r["pages"] for r in mine], marker="s",
                     linestyle="--", color=color, label=f"{parser}: system")
    if theirs is not None:
        axes[0].plot([SCRAPY_CONCURRENCY], [theirs["pages_per_s"]], marker="*", markersize=14,
                     linestyle="", color="C2", label="Scrapy, 16 in flight")
        axes[1].plot([SCRAPY_CONCURRENCY], [1000 * theirs["cpu_user_s"] / theirs["pages"]],
                     marker="*", markersize=12, linestyle="", color="C2", label="Scrapy: user")
    axes[0].set_ylabel("pages per second")
    axes[1].set_ylabel("CPU ms per page (this process)")
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.set_xticks(THREADS, [str(t) for t in THREADS])
        ax.legend(fontsize=8)
    axes[0].set_yscale("log")
    lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(main())
