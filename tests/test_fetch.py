"""Fetchers: every injected fault gives its recorded error and fetching goes on."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from crawlers.page import faults
from crawlers.page.clock import ManualClock, NullClock
from crawlers.page.faults import Fault, FaultPlan, fault_path
from crawlers.page.fetch import FetchResult, HttpFetcher
from crawlers.web.server import WebServer
from crawlers.web.simfetch import SimulatedFetcher
from crawlers.web.webgen import generate

READ_TIMEOUT = 0.5


@pytest.fixture(scope="module")
def web():
    return generate(n_pages=120, n_sites=4, seed=11)


@pytest.fixture(scope="module")
def server(web):
    plan = FaultPlan.only({web.home(1) + 1: Fault.SERVER_ERROR})
    with WebServer(web, mode="thread", hold=5.0, faults=plan) as srv:
        yield srv


@pytest.fixture()
def fetcher():
    with HttpFetcher(timeout=(1.0, READ_TIMEOUT), max_bytes=500_000, max_redirects=5) as f:
        yield f


def _check_page(result: FetchResult, expected_links: list[str]) -> None:
    assert result.ok, result
    assert result.status == 200
    assert result.links == expected_links


# -- the fault vocabulary --------------------------------------------------------------------

def test_vocabulary_is_closed():
    for fault in Fault:
        kind = fault.expected_error
        assert kind is None or faults.is_error_kind(kind)
    assert faults.is_error_kind("http-404") and not faults.is_error_kind("http-4x4")
    assert faults.parse_faults("404, timeout") == (Fault.NOT_FOUND, Fault.TIMEOUT)
    with pytest.raises(ValueError, match="unknown fault"):
        faults.parse_faults("404,teapot")


def test_fault_plan_is_deterministic_and_near_its_rate():
    plan = FaultPlan(rate=0.2, seed=3)
    drawn = [plan.fault_for(p) for p in range(5000)]
    assert drawn == [FaultPlan(rate=0.2, seed=3).fault_for(p) for p in range(5000)]
    share = sum(f is not None for f in drawn) / len(drawn)
    assert 0.17 < share < 0.23
    assert {f for f in drawn if f is not None} == set(Fault)


# -- simulated ---------------------------------------------------------------------------------

@pytest.mark.parametrize("fault", list(Fault))
def test_simulated_fault_on_demand(web, fault):
    sim = SimulatedFetcher(web, latency=0.01, clock=ManualClock(), timeout=READ_TIMEOUT)
    origin = sim.addressing.origins[0]
    result = sim.fetch(origin + fault_path(fault))
    assert result.error == fault.expected_error
    home = sim.fetch(sim.seed_urls()[0])  # and fetching goes on
    _check_page(home, sim.addressing.links(web.home(0)))


def test_simulated_fault_plan_spares_home_pages(web):
    sim = SimulatedFetcher(web, latency=0.0, faults=FaultPlan(rate=1.0, seed=1))
    for url in sim.seed_urls():
        assert sim.fetch(url).ok
    page = web.home(0) + 1
    result = sim.fetch(sim.addressing.url(page))
    assert result.error == sim.plan.fault_for(page).expected_error


def test_simulated_links_come_from_the_graph(web):
    sim = SimulatedFetcher(web, latency=0.0)
    for page in range(0, web.size, 13):
        result = sim.fetch(sim.addressing.url(page))
        _check_page(result, sim.addressing.links(page))
        assert result.size == web.page_bytes[page]


def test_simulated_unknown_host_and_page(web):
    sim = SimulatedFetcher(web, latency=0.0)
    assert sim.fetch("http://nowhere.test/").error == faults.CONNECTION
    assert sim.fetch(sim.addressing.origins[0] + "/nope.html").error == "http-404"


def test_simulated_latency_is_deterministic_and_on_the_clock(web):
    clock = ManualClock()
    sim = SimulatedFetcher(web, latency=0.1, jitter=0.05, clock=clock, seed=2)
    url = sim.seed_urls()[0]
    sim.fetch(url)
    first = clock.now()
    assert 0.05 <= first <= 0.15
    sim.fetch(url)
    assert clock.now() == pytest.approx(2 * first)
    other = SimulatedFetcher(web, latency=0.1, jitter=0.05, clock=ManualClock(), seed=2)
    assert other.latency.delay(url) == sim.latency.delay(url)


def test_simulated_zero_latency_mode(web):
    sim = SimulatedFetcher(web, latency=0.0)
    assert isinstance(sim.clock, NullClock)
    start = time.perf_counter()
    for page in range(web.size):
        sim.fetch(sim.addressing.url(page))
    assert time.perf_counter() - start < 1.0


def test_simulated_real_clock_overlaps_threads(web):
    sim = SimulatedFetcher(web, latency=0.05, jitter=0.0)
    urls = [sim.addressing.url(p) for p in range(16)]
    start = time.perf_counter()
    threads = [threading.Thread(target=sim.fetch, args=(u,)) for u in urls]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert time.perf_counter() - start < 16 * 0.05 / 2  # waits overlap


def test_simulated_size_cap(web):
    sim = SimulatedFetcher(web, latency=0.0, max_bytes=1000)
    big = int(web.page_bytes.argmax())
    assert sim.fetch(sim.addressing.url(big)).error == faults.TOO_LARGE


# -- real HTTP ---------------------------------------------------------------------------------

@pytest.mark.parametrize("fault", list(Fault))
def test_http_fault_on_demand(server, fetcher, fault):
    origin = server.site_urls[0]
    result = fetcher.fetch(origin + fault_path(fault))
    assert result.error == fault.expected_error, result
    assert result.elapsed < 3.0
    home = fetcher.fetch(server.seed_urls[0])  # the same fetcher goes on
    _check_page(home, server.addressing.links(server.web.home(0)))


def test_http_pages_match_the_graph(server, fetcher, web):
    addressing = server.addressing
    for page in range(0, web.size, 11):
        if page == web.home(1) + 1:
            continue
        _check_page(fetcher.fetch(addressing.url(page)), addressing.links(page))


def test_http_fault_plan(server, fetcher, web):
    result = fetcher.fetch(server.addressing.url(web.home(1) + 1))
    assert result.error == "http-500" and result.status == 500 and result.links == []


def test_http_redirect_chain_and_limit(server, web):
    url = server.site_urls[0] + fault_path(Fault.REDIRECT_CHAIN)
    with HttpFetcher(max_redirects=faults.CHAIN_LENGTH) as enough:
        result = enough.fetch(url)
        assert result.ok and result.redirects == faults.CHAIN_LENGTH
        assert result.final_url != url
    with HttpFetcher(max_redirects=faults.CHAIN_LENGTH - 1) as short:
        assert short.fetch(url).error == faults.TOO_MANY_REDIRECTS


def test_http_redirect_loop(server, fetcher):
    result = fetcher.fetch(server.site_urls[1] + fault_path(Fault.REDIRECT_LOOP))
    assert result.error == faults.TOO_MANY_REDIRECTS
    # ?loop=1 -> ?loop=2 -> ?loop=1: given up when the chain comes back, not at the limit
    assert result.redirects == 2 < fetcher.max_redirects
    assert fetcher.counters.get("redirect_loop") == 1


def test_http_size_cap(server, web):
    big = int(web.page_bytes.argmax())
    url = server.addressing.url(big)
    with HttpFetcher(max_bytes=int(web.page_bytes[big]) // 2) as small:
        result = small.fetch(url)
    assert result.error == faults.TOO_LARGE
    with HttpFetcher(max_bytes=10_000_000) as large:
        assert large.fetch(url).ok


def test_http_not_html_body_not_read(server, fetcher):
    result = fetcher.fetch(server.site_urls[0] + fault_path(Fault.NOT_HTML))
    assert result.error == faults.NOT_HTML
    assert result.content_type == "application/pdf" and result.size == 0


def test_http_unreachable_site_is_recorded(fetcher):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = fetcher.fetch(f"http://127.0.0.1:{port}/")
    assert result.error == faults.CONNECTION and result.status is None


def test_http_invalid_url_is_recorded(fetcher):
    assert fetcher.fetch("http://exa mple.test:99/").error in (faults.INVALID_URL,
                                                                faults.CONNECTION)


def test_http_fetch_text(server, fetcher):
    status, text = fetcher.fetch_text(server.site_urls[0] + "/robots.txt")
    assert status == 200 and text.startswith("User-agent: *")
    assert fetcher.fetch_text(server.site_urls[0] + "/missing.txt")[0] == 404


def test_http_fetcher_shared_by_threads(server, fetcher, web):
    addressing = server.addressing
    pages = [p for p in range(web.size) if p != web.home(1) + 1]
    results: dict[int, FetchResult] = {}

    def worker(chunk):
        for p in chunk:
            results[p] = fetcher.fetch(addressing.url(p))

    threads = [threading.Thread(target=worker, args=(pages[i::16],)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert len(results) == len(pages)
    for p, result in results.items():
        _check_page(result, addressing.links(p))


def test_bs4_fetcher_gives_the_same_links(server, web):
    with HttpFetcher(parser="bs4") as soup, HttpFetcher() as fast:
        for page in range(0, web.size, 17):
            url = server.addressing.url(page)
            assert soup.fetch(url).links == fast.fetch(url).links
