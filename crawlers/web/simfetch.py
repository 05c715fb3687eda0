"""The simulated fetcher: the generated web without sockets.

:class:`SimulatedFetcher` answers from the graph: a page's links come straight from the
CSR arrays (no HTML is built or parsed), so the cost a crawl measures is the frontier's.
Latency comes from a :class:`crawlers.page.clock.LatencyModel` realised by a clock:
:class:`~crawlers.page.clock.RealClock` sleeps with the GIL released (threads overlap their
waits, which is why threads pay off), :class:`~crawlers.page.clock.NullClock` is the
zero-latency mode. Faults follow a :class:`crawlers.page.faults.FaultPlan` (home pages are
spared) or are requested on demand with ``/_fault/<kind>``; the recorded errors are the
same as :class:`crawlers.page.fetch.HttpFetcher`'s on the served web.
"""

from __future__ import annotations

import time

from crawlers.page import faults
from crawlers.page.clock import Clock, LatencyModel, NullClock, RealClock
from crawlers.page.faults import Fault, FaultPlan
from crawlers.page.fetch import FetchResult
from crawlers.page.urls import site_of
from crawlers.web.render import robots_txt
from crawlers.web.webgen import Addressing, Web


class SimulatedFetcher:
    """A :class:`crawlers.page.fetch.Fetcher` over a generated :class:`Web`, in memory.

    ``latency`` is the mean delay per request and ``jitter`` its half-width (default
    ``latency / 2``), deterministic per URL from ``seed``; ``latency=0`` or
    ``clock=NullClock()`` gives the zero-latency mode. ``timeout`` is how long a
    ``timeout`` fault keeps the caller waiting. ``max_bytes`` and ``max_redirects`` mirror
    the real fetcher's limits. ``disallow`` lists the path prefixes every site's
    robots.txt disallows.

    Thread-safe: all state is read-only after construction; the only blocking call is the
    clock's sleep. O(out-degree) per fetch plus the simulated latency.
    """

    def __init__(
        self,
        web: Web,
        latency: float = 0.02,
        jitter: float | None = None,
        *,
        clock: Clock | None = None,
        faults: FaultPlan | None = None,
        seed: int = 0,
        timeout: float = 1.0,
        max_bytes: int = 2_000_000,
        max_redirects: int = 5,
        addressing: Addressing | None = None,
        disallow: tuple[str, ...] = (),
        crawl_delay: float | None = None,
    ) -> None:
        self.web = web
        self.latency = LatencyModel(latency, latency / 2 if jitter is None else jitter, seed)
        self.clock: Clock = clock if clock is not None else (
            RealClock() if latency > 0 else NullClock())
        self.plan = faults if faults is not None else FaultPlan()
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.max_redirects = max_redirects
        self.addressing = addressing if addressing is not None else web.logical()
        self.robots = robots_txt(disallow, crawl_delay)
        self._sites = {site_of(o): s for s, o in enumerate(self.addressing.origins)}

    def seed_urls(self) -> list[str]:
        """The home page of every site."""
        return self.addressing.seed_urls()

    def fault_of(self, url: str, page: int | None) -> Fault | None:
        """The fault ``url`` shows: on demand by path, else the plan's (home pages spared)."""
        path = url.split("/", 3)[3] if url.count("/") >= 3 else ""
        fault = faults.fault_in_path("/" + path)
        if fault is not None or page is None:
            return fault
        if page == self.web.home(int(self.web.page_site[page])):
            return self.plan.fixed.get(page)
        return self.plan.fault_for(page)

    def _known_site(self, url: str) -> bool:
        try:
            return site_of(url) in self._sites
        except ValueError:
            return False

    def fetch(self, url: str) -> FetchResult:
        """Simulate fetching ``url``: wait its latency, answer from the graph or a fault."""
        start = time.perf_counter()
        result = FetchResult(url=url, final_url=url)
        if not self._known_site(url):
            result.error = faults.CONNECTION  # no such host
            result.elapsed = time.perf_counter() - start
            return result
        delay = self.latency.delay(url)
        page = self.addressing.page_of(url)
        fault = self.fault_of(url, page)
        self._answer(result, page, fault, delay)
        result.elapsed = time.perf_counter() - start
        return result

    def _answer(self, result: FetchResult, page: int | None, fault: Fault | None,
                delay: float) -> None:
        sleep = self.clock.sleep
        if fault is Fault.TIMEOUT:
            sleep(self.timeout)
            result.error = faults.TIMEOUT
            return
        if fault is Fault.RESET:
            sleep(delay)
            result.error = faults.CONNECTION
            return
        if fault is Fault.REDIRECT_LOOP:
            sleep(delay * (self.max_redirects + 1))
            result.status, result.redirects = 302, self.max_redirects
            result.error = faults.TOO_MANY_REDIRECTS
            return
        hops = faults.CHAIN_LENGTH if fault is Fault.REDIRECT_CHAIN else 0
        if hops > self.max_redirects:
            sleep(delay * (self.max_redirects + 1))
            result.status, result.redirects = 302, self.max_redirects
            result.error = faults.TOO_MANY_REDIRECTS
            return
        sleep(delay * (hops + 1))
        result.redirects = hops
        if hops:
            result.final_url = f"{result.url.split('?', 1)[0]}?hop=0"
        if fault is Fault.NOT_FOUND or (page is None and fault is None):
            result.status, result.error = 404, faults.http_error(404)
        elif fault is Fault.SERVER_ERROR:
            result.status, result.error = 500, faults.http_error(500)
        elif fault is Fault.NOT_HTML:
            result.status, result.content_type = 200, "application/pdf"
            result.error = faults.NOT_HTML
        elif fault is Fault.OVERSIZE:
            result.status, result.content_type = 200, "text/html"
            result.size = self.max_bytes + 1
            result.error = faults.TOO_LARGE
        elif fault is Fault.MALFORMED:
            result.status, result.content_type = 200, "text/html"
            result.size = 1024
            result.error = faults.MALFORMED
        elif page is None:  # an on-demand fault page that succeeds: links to its home
            result.status, result.content_type = 200, "text/html; charset=utf-8"
            site = self.addressing.site_index(result.url)
            result.links = [self.addressing.url(self.web.home(site or 0))]
            result.size = 256
        else:
            result.status, result.content_type = 200, "text/html; charset=utf-8"
            result.size = int(self.web.page_bytes[page])
            if result.size > self.max_bytes:
                result.error = faults.TOO_LARGE
            else:
                result.links = self.addressing.links(page)

    def fetch_text(self, url: str) -> tuple[int | None, str]:
        """``(200, robots.txt)`` for ``/robots.txt`` of a known site, ``(404, "")`` for
        other paths, ``(None, "")`` for an unknown host. Waits the latency of ``url``."""
        if not self._known_site(url):
            return None, ""
        self.clock.sleep(self.latency.delay(url))
        if url.split("?", 1)[0].endswith("/robots.txt") and url.count("/") == 3:
            return 200, self.robots
        return 404, ""
