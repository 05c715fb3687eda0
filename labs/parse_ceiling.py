"""One interpreter's side of the crawl-parsers lab's ceiling comparison, run in a subprocess.

The lab (:mod:`labs.lab_crawl_parsers`) serves the site once and runs this module on each
interpreter it compares (the GIL build, a free-threaded one), round after round. Here, on
this interpreter:

1. the **crawl**: the lab's crawl of the served mirrors at ``--threads`` robots, politeness 0
   (:func:`labs.lab_crawl_parsers.our_crawl`), with this process's CPU user and system
   seconds;
2. the **parse ceiling**: one thread reads the pages that crawl fetched from disk (the files
   the server served) and extracts their links with the crawl's own extractor (lxml), each
   under the URL it was fetched from (so link resolution does the same work); pages/s and CPU
   ms per page. A second pass times the lxml parse alone (the part that runs without the GIL).

It prints one JSON line. Usage (the lab builds the command)::

    python -m labs.parse_ceiling --site-dir DIR --seed URL [--seed URL ...]
        [--threads 16] [--max-pages N]
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import lxml.etree
import lxml.html

from crawlers.args import MAX_PAGES, MAX_THREADS, OneLineParser, at_most, positive_int
from crawlers.page import extract
from labs.harness import free_threaded_build, gil_enabled


def pages_of(urls: list[str], site: Path) -> list[tuple[str, Path]]:
    """``(url, file)`` for each served URL (``http://host:port/PATH``) whose file is below
    ``site``, in order; a URL whose file is missing is left out. O(len(urls))."""
    pages = []
    for url in urls:
        path = url.split("#", 1)[0].split("?", 1)[0]
        rest = path.split("/", 3)[3] if path.count("/") >= 3 else ""
        target = site / rest
        if target.is_dir():
            target = target / "index.html"
        if target.is_file():
            pages.append((url, target))
    return pages


def parse_ceiling(pages: list[tuple[str, Path]]) -> dict:
    """One thread extracting the links of the ``(url, file)`` pages, each file read from disk
    and resolved against its URL (so link resolution does the crawl's work): pages/s, CPU ms
    per page, and the CPU ms per page of the lxml parse alone (a second pass; this thread's
    CPU clock).
    Starts with the link cache cleared, as a crawl does. O(total bytes)."""
    extractor = extract.get_extractor("lxml")
    extract.clear_cache()
    c0, t0 = os.times(), time.perf_counter()
    for url, path in pages:
        try:
            extractor(path.read_bytes(), url)
        except extract.MalformedPage:
            pass
    seconds, c1 = time.perf_counter() - t0, os.times()
    parser = lxml.html.HTMLParser(collect_ids=False, huge_tree=True)
    parse = 0.0
    for _, path in pages:
        body = path.read_bytes()
        start = time.thread_time()
        try:
            lxml.html.document_fromstring(body, parser=parser)
        except (lxml.etree.ParserError, ValueError):
            pass
        parse += time.thread_time() - start
    n = max(len(pages), 1)
    return {"ceiling_pages": len(pages), "ceiling_seconds": seconds,
            "one_thread_pages_per_s": len(pages) / seconds if seconds > 0 else float("nan"),
            "ceiling_cpu_ms_per_page": 1000 * (c1.user - c0.user + c1.system - c0.system) / n,
            "parse_only_ms_per_page": 1000 * parse / n}


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m labs.parse_ceiling", description=__doc__)
    parser.add_argument("--site-dir", type=Path, required=True)
    parser.add_argument("--seed", action="append", required=True)
    parser.add_argument("--threads", type=at_most(positive_int, MAX_THREADS), default=16)
    parser.add_argument("--max-pages", type=at_most(positive_int, MAX_PAGES), default=None)
    args = parser.parse_args(argv)
    if not args.site_dir.is_dir():
        parser.error(f"no such directory: {args.site_dir}")
    from labs.lab_crawl_parsers import ParseClock, our_crawl

    clock = ParseClock()
    crawl = our_crawl(args.seed, "lxml", args.threads, args.max_pages or 10**9, clock)
    pages = pages_of(clock.urls, args.site_dir)
    if not pages:
        parser.error(f"the crawl fetched no page found under {args.site_dir}")
    row = parse_ceiling(pages)
    row.update({f"crawl_{k}": v for k, v in crawl.items() if k not in ("crawler", "parser")})
    row.update({"python": sys.version.split()[0], "free_threaded": free_threaded_build(),
                "gil": gil_enabled(),
                # the parse's speed is libxml2's: a wheel bundles its own, a source build
                # links the system's
                "libxml2": ".".join(map(str, lxml.etree.LIBXML_VERSION))})
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
