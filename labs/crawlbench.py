"""What the crawl labs share: one crawl of the generated web, measured and summarized.

Kept apart from the lab scripts so each of them stays a short description of its experiment.
"""

from __future__ import annotations

from typing import Any, TypeVar

import frontier
from crawlers.crawl.crawler import POLL, Crawler
from crawlers.crawl.report import CrawlReport, GroundTruth
from crawlers.web import webgen
from crawlers.web.simfetch import SimulatedFetcher

__all__ = ["cpu_ceiling", "make_frontier", "make_web", "sim_crawl", "to_the_end"]

_WEBS: dict[tuple[int, int, int], webgen.Web] = {}
Report = TypeVar("Report")  # CrawlReport or BspReport: anything with a stopped_by


def make_web(pages: int, sites: int, seed: int) -> webgen.Web:
    """The generated web of that size and seed (cached: labs crawl it many times)."""
    key = (pages, sites, seed)
    if key not in _WEBS:
        _WEBS[key] = webgen.generate(n_pages=pages, n_sites=sites, seed=seed)
    return _WEBS[key]


def make_frontier(name: str, capacity: int = frontier.DEFAULT_CAPACITY):
    """A fresh frontier; ``capacity`` goes to bounded ones only."""
    if frontier.info(name).bounded:
        return frontier.create(name, capacity=capacity)
    return frontier.create(name)


def sim_crawl(
    web: webgen.Web,
    name: str,
    threads: int,
    *,
    latency: float,
    seconds: float | None = None,
    max_pages: int | None = None,
    capacity: int = frontier.DEFAULT_CAPACITY,
    when_full: str = "spill",
    seed: int = 1,
    timeline: bool = False,
    producers: int = 0,
    poll: float | None = POLL,
    watchdog: float = 0.5,
    thread_timeline: Any = None,
) -> CrawlReport:
    """Crawl ``web`` through the simulated fetcher and return the report."""
    fetcher = SimulatedFetcher(web, latency=latency, seed=seed)
    truth = GroundTruth(web.size, web.pagerank(), fetcher.addressing.page_of)
    crawler = Crawler(
        fetcher, make_frontier(name, capacity), fetcher.seed_urls(), threads=threads,
        when_full=when_full, ground_truth=truth, timeline=timeline, watchdog=watchdog,
        producers=producers, poll=poll, thread_timeline=thread_timeline,
    )
    return to_the_end(crawler.run(seconds=seconds, max_pages=max_pages))


def to_the_end(report: Report) -> Report:
    """``report`` (a threaded crawl's or a BSP crawl's), unless Ctrl-C (or SIGTERM, which
    ``crawlab`` turns into one) ended its crawl: the crawler then ends the crawl with a report
    instead of raising, and a lab that kept it would record a cut crawl as a measured one and
    go on to the next; ``KeyboardInterrupt`` is raised again instead, which ends the lab. (A
    BSP report's ``stopped_by`` lists its workers' reasons, comma-separated.)"""
    if "interrupted" in report.stopped_by.split(","):
        raise KeyboardInterrupt
    return report


def cpu_ceiling(web: webgen.Web, name: str = "monitor", seconds: float = 1.0) -> float:
    """Pages per second of one robot at zero latency: the most this process can crawl when
    the GIL serializes all Python work, whatever the thread count."""
    report = sim_crawl(web, name, 1, latency=0.0, seconds=seconds)
    return report.pages_per_second


def steady_rate(report: CrawlReport, warmup: float) -> float:
    """Pages per second after the first ``warmup`` seconds (needs a ``timeline``): the robots
    start on a handful of seed URLs, so the first moments measure the ramp, not the frontier."""
    span = report.seconds - warmup
    if span <= 0 or not report.timeline:
        return report.pages_per_second
    return sum(1 for t, _ in report.timeline if t >= warmup) / span


def summary(report: CrawlReport, **extra: Any) -> dict[str, Any]:
    """One CSV row: the report's scalar fields, the frontier counters, and ``extra``."""
    row = {k: v for k, v in report.as_json().items() if not isinstance(v, (dict, list))}
    row.update({f"frontier_{k}": v for k, v in report.frontier_stats.items()})
    row.update(extra)
    return row
