"""A Scrapy crawl of local sites, for the parsers lab: ``python -m labs.scrapy_crawl``.

Runs in its own process (Scrapy's Twisted reactor can start only once per process) and
prints one JSON object on stdout: pages fetched, seconds from the first request to the end
of the last page's callback (crawlab's crawl is timed to the end of its last page too, so
neither counts its shut-down), and the CPU user and system seconds the crawl used (to the
close). The crawl mirrors crawlab's:
same seeds, same scope (the seed sites, ``.html`` pages), same page limit, no politeness
delay, no robots.txt, no retries, ``--concurrency`` requests in flight.

Requires scrapy (not a dependency of crawlab).
"""

from __future__ import annotations

import json
import resource
import time
from urllib.parse import urldefrag, urlsplit

from crawlers.args import MAX_PAGES, MAX_THREADS, OneLineParser, at_most, positive_int


def _cpu() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


def run(seeds: list[str], max_pages: int, concurrency: int) -> dict:
    """Crawl with Scrapy from ``seeds`` until ``max_pages`` pages or exhaustion."""
    import scrapy
    from scrapy.crawler import CrawlerProcess
    from scrapy.linkextractors import LinkExtractor

    sites = {urlsplit(s).netloc for s in seeds}
    out: dict = {"pages": 0, "errors": 0}

    class MirrorSpider(scrapy.Spider):
        name = "mirror"

        def __init__(self, **kw):
            super().__init__(**kw)
            self.extractor = LinkExtractor(tags=("a", "area"), attrs=("href",),
                                           allow=(r"\.html(#.*)?$",), deny_extensions=[])
            self.seen: set[str] = set()

        def _want(self, url: str) -> bool:
            url = urldefrag(url)[0]
            if (url in self.seen or len(self.seen) >= max_pages
                    or urlsplit(url).netloc not in sites):
                return False
            self.seen.add(url)
            return True

        async def start(self):  # Scrapy >= 2.13
            for request in self.start_requests():
                yield request

        def start_requests(self):
            out["t0"] = time.perf_counter()
            out["cpu0"] = _cpu()
            for url in seeds:
                if self._want(url):
                    yield scrapy.Request(url, callback=self.parse, errback=self.failed)

        def parse(self, response):
            out["pages"] += 1
            out["last"] = time.perf_counter()
            if not isinstance(response, scrapy.http.HtmlResponse):
                return
            links = self.extractor.extract_links(response)
            out["last"] = time.perf_counter()  # this page's links are known
            for link in links:
                if self._want(link.url):
                    yield scrapy.Request(urldefrag(link.url)[0], callback=self.parse,
                                         errback=self.failed)

        def failed(self, failure):
            out["errors"] += 1
            out["last"] = time.perf_counter()  # an error is the end of that request too

        def closed(self, reason):
            out["t1"] = time.perf_counter()
            out["cpu1"] = _cpu()

    process = CrawlerProcess(settings={
        "CONCURRENT_REQUESTS": concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": concurrency,  # every mirror is on 127.0.0.1
        "DOWNLOAD_DELAY": 0,
        "ROBOTSTXT_OBEY": False,
        "RETRY_ENABLED": False,
        "COOKIES_ENABLED": False,
        "AUTOTHROTTLE_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "ERROR",
    })
    process.crawl(MirrorSpider)
    process.start()
    seconds = out.get("last", out["t1"]) - out["t0"]
    return {"pages": out["pages"], "errors": out["errors"], "seconds": seconds,
            "pages_per_s": out["pages"] / seconds if seconds > 0 else 0.0,
            "cpu_user_s": out["cpu1"][0] - out["cpu0"][0],
            "cpu_sys_s": out["cpu1"][1] - out["cpu0"][1]}


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m labs.scrapy_crawl", description=__doc__)
    parser.add_argument("--seed", action="append", required=True, help="seed URL (repeat)")
    parser.add_argument("--max-pages", type=at_most(positive_int, MAX_PAGES), required=True)
    parser.add_argument("--concurrency", type=at_most(positive_int, MAX_THREADS), default=16)
    args = parser.parse_args(argv)
    print(json.dumps(run(args.seed, args.max_pages, args.concurrency)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
