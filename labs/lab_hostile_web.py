"""A crawl of a web full of traps, with the crawler's limits and with them lifted.

The generated web is served with ``crawlab serve``'s traps (:mod:`crawlers.web.traps`: a calendar,
ever-deeper paths, growing queries, session ids, a page at one byte a second, a gzip bomb,
``Retry-After: 3600``, redirects into paths robots.txt forbids, a 50 MB robots.txt) and crawled
by ``crawlab crawl --seed-url`` (8 robots, politeness 0, every other flag at its default), each
crawl in its own process so that its peak memory is its own (``wait4``). Three runs:

``ordinary``
    the same web without traps, default limits: the baseline;
``trapped``
    the trapped web, default limits (:class:`crawlers.page.policy.Policy`): the crawl should end
    on its own, having fetched every ordinary page;
``lifted``
    the trapped web with every numeric limit lifted (sizes, times, depths and budgets set
    beyond reach, Retry-After ignored), stopped by a time slice: what the traps do to a crawler
    that has no limits. Session ids are still removed, odd hosts still refused and redirects
    still asked of robots.txt: those are rules, not limits.

Columns: the pages fetched, how many of them are the web's ordinary pages (and the coverage of
those), pages under ``/private/`` (forbidden by robots.txt: must be 0), the longest URL fetched,
the fetches cut at the stop, the peak RSS of the crawl's process, how it stopped and how long it
took, then each limit's counter (``limit_...``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from crawlers.args import EXIT_INTERRUPTED
from crawlers.page.policy import LIMITS, Counters
from crawlers.web.server import WebServer
from crawlers.web.webgen import generate
from labs.harness import Lab, LabError, script

#: Every numeric limit set beyond reach (what "lifted" means), and Retry-After ignored.
LIFTED = {"fetch_seconds": "86400", "max_bytes": str(10**12), "max_redirects": "1000",
          "max_url_length": str(10**9), "max_path_depth": str(10**9),
          "max_segment_repeats": str(10**9), "max_query_params": str(10**9),
          "max_query_length": str(10**9), "max_pages_per_site": str(10**12),
          "robots_max_bytes": str(10**12), "robots_fetch_seconds": "86400",
          "max_crawl_delay": "86400", "retry_after_cap": "0", "max_retries": "0"}


def _peak_run(cmd: list[str], timeout: float) -> tuple[int, bytes, bytes, float]:
    """Run ``cmd``; (status, stdout, stderr, peak RSS in MB of that process, from wait4)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            proc.returncode = 0  # reaped above; keep Popen from waiting again
        out.seek(0)
        err.seek(0)
        return os.waitstatus_to_exitcode(status), out.read(), err.read(), usage.ru_maxrss / 1024


def crawl(web, traps: bool, flags: list[str], timeout: float) -> dict:
    """One ``crawlab crawl`` of ``web`` served (with ``traps``): the row of the CSV."""
    with WebServer(web, traps=traps) as srv, tempfile.TemporaryDirectory() as tmp:
        ordinary = {srv.addressing.url(p) for p in range(web.size)}
        out = Path(tmp) / "out"
        cmd = [sys.executable, "-m", "crawlers", "crawl", "--json", "--politeness", "0",
               "--out", str(out), *flags]
        for url in srv.seed_urls:
            cmd += ["--seed-url", url]
        status, stdout, stderr, rss = _peak_run(cmd, timeout)
        if status == EXIT_INTERRUPTED:  # the crawl was stopped (Ctrl-C, SIGTERM): so is the lab
            raise KeyboardInterrupt
        if status != 0:
            raise LabError(f"crawl failed ({status}): {stderr.decode().strip()[-500:]}")
        report = json.loads(stdout)
        fetched = [json.loads(line)["url"] for line in (out / "pages.jsonl").open()]
    limits = Counters(report["limits"]).as_dict()
    return {
        "traps": traps, "stopped_by": report["stopped_by"], "seconds": report["seconds"],
        "pages_fetched": report["pages_fetched"],
        "ordinary_fetched": len(ordinary.intersection(fetched)),
        "ordinary_pages": len(ordinary),
        "ordinary_coverage": len(ordinary.intersection(fetched)) / len(ordinary),
        "private_pages": sum("/private/" in u for u in fetched),
        "longest_url": max(map(len, fetched), default=0),
        "fetches_cut": report["fetches_cut"], "peak_rss_mb": round(rss, 1),
        "traceback": "Traceback" in stderr.decode(errors="replace"),
        **{f"limit_{k}": v for k, v in limits.items()},
    }


def main(argv=None) -> int:
    lab = Lab("hostile-web", __doc__, argv)
    # --quick: one site, so the trapped crawl's default budget (max_pages_per_site) is spent
    # once, not once a site, and a shorter slice: about a minute in all on 2 cores
    pages, sites = (60, 1) if lab.quick else (300, 6)
    slice_seconds = 20.0 if lab.quick else 180.0
    web = generate(n_pages=pages, n_sites=sites, seed=lab.seed)
    lifted = [f for name, value in LIFTED.items()
              for f in ("--" + name.replace("_", "-"), value)]
    assert {name for name in LIFTED} | {"robots_unreachable_seconds", "robots_retries",
                                        "stop_grace"} == {
        limit.name for limit in LIMITS}
    runs = [("ordinary", False, []), ("trapped", True, []),
            ("lifted", True, [*lifted, "--seconds", f"{slice_seconds:g}"])]
    rows = []
    for name, traps, flags in runs:
        print(f"# {name}: crawling {pages} pages on {sites} sites"
              + (" with traps" if traps else ""), flush=True)
        row = {"run": name, "pages": pages, "sites": sites,
               "flags": " ".join(flags) or "(defaults)",
               **crawl(web, traps, flags, timeout=slice_seconds + 600)}
        rows.append(row)
    lab.write_csv(rows)
    lab.table(rows, ["run", "stopped_by", "seconds", "pages_fetched", "ordinary_fetched",
                     "private_pages", "longest_url", "fetches_cut", "peak_rss_mb"])
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(script(main))
