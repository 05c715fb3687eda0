"""URL normalization, sites, scope, robots.txt and politeness."""

from __future__ import annotations

import threading

import pytest

from crawlers.page.clock import ManualClock
from crawlers.page.policy import Policy
from crawlers.page.robots import Politeness, RobotsCache
from crawlers.page.urls import Scope, normalize, site_of
from crawlers.web.simfetch import SimulatedFetcher
from crawlers.web.webgen import generate

BASE = "http://example.com/dir/page.html"

NORMALIZE_CASES = [
    # (url, base, expected)
    ("http://example.com/a", None, "http://example.com/a"),
    # a fragment or a query alone keeps the base's path, an empty ";" parameter included
    # (urljoin dropped it: a page's "#" link was another URL than the page)
    ("#", "http://example.com/a;", "http://example.com/a;"),
    ("?q=1", "http://example.com/a;", "http://example.com/a;?q=1"),
    ("", "http://example.com/;", "http://example.com/;"),
    ("HTTP://Example.COM/a", None, "http://example.com/a"),
    ("http://example.com", None, "http://example.com/"),
    ("http://example.com:80/a", None, "http://example.com/a"),
    ("https://example.com:443/a", None, "https://example.com/a"),
    ("http://example.com:8080/a", None, "http://example.com:8080/a"),
    ("https://example.com:80/a", None, "https://example.com:80/a"),
    ("http://example.com/a#frag", None, "http://example.com/a"),
    ("http://example.com/a?q=1#frag", None, "http://example.com/a?q=1"),
    ("http://example.com/a?", None, "http://example.com/a"),
    ("http://example.com/a/./b/../c", None, "http://example.com/a/c"),
    ("http://example.com/../a", None, "http://example.com/a"),
    ("http://example.com/a/b/..", None, "http://example.com/a/"),
    ("http://example.com/%7Euser/%2fx", None, "http://example.com/~user/%2Fx"),
    ("http://example.com/a b", None, "http://example.com/a%20b"),
    ("http://user:pw@example.com/a", None, "http://example.com/a"),
    ("http://example.com./a", None, "http://example.com/a"),
    ("  http://example.com/a\n", None, "http://example.com/a"),
    ("http://[::1]:8000/a", None, "http://[::1]:8000/a"),
    ("other.html", BASE, "http://example.com/dir/other.html"),
    ("./other.html#x", BASE, "http://example.com/dir/other.html"),
    ("../up.html", BASE, "http://example.com/up.html"),
    ("/root.html", BASE, "http://example.com/root.html"),
    ("//cdn.example.org/x", BASE, "http://cdn.example.org/x"),
    ("?q=2", BASE, "http://example.com/dir/page.html?q=2"),
    ("#section", BASE, "http://example.com/dir/page.html"),
    ("", BASE, "http://example.com/dir/page.html"),
    ("HTTPS://OTHER.org:443", BASE, "https://other.org/"),
    # rejected: schemes, garbage
    ("mailto:someone@example.com", None, None),
    ("mailto:someone@example.com", BASE, None),
    ("javascript:void(0)", BASE, None),
    ("JavaScript:alert(1)", BASE, None),
    ("data:text/html,<p>hi</p>", BASE, None),
    ("file:///etc/passwd", BASE, None),
    ("ftp://example.com/x", None, None),
    ("tel:+15551234", BASE, None),
    ("http://", None, None),
    ("http:///path", None, None),
    ("http://example.com:99999/", None, None),
    ("http://example.com:port/", None, None),
    ("not a url", None, None),
    ("", None, None),
    ("relative.html", None, None),
]


@pytest.mark.parametrize("url,base,expected", NORMALIZE_CASES)
def test_normalize_table(url, base, expected):
    assert normalize(url, base) == expected


@pytest.mark.parametrize("url,base,expected", [c for c in NORMALIZE_CASES if c[2]])
def test_normalize_is_idempotent(url, base, expected):
    assert normalize(expected) == expected


def test_normalize_rejects_non_strings():
    assert normalize(None) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("url,site", [
    ("http://Site3.crawlab.test/p1.html", "site3.crawlab.test:80"),
    ("https://example.com/x", "example.com:443"),
    ("http://127.0.0.1:8001/p0.html", "127.0.0.1:8001"),
    ("http://127.0.0.1:80/", "127.0.0.1:80"),
])
def test_site_of(url, site):
    assert site_of(url) == site


@pytest.mark.parametrize("bad", ["mailto:x@y", "/relative", "ftp://h/x"])
def test_site_of_rejects(bad):
    with pytest.raises(ValueError):
        site_of(bad)


def test_scope_stays_on_seed_sites():
    scope = Scope(["http://a.test/", "http://127.0.0.1:8001/p0.html"])
    assert "http://a.test/deep/page.html" in scope
    assert "http://127.0.0.1:8001/p9.html" in scope
    assert "http://127.0.0.1:8002/p9.html" not in scope  # another port is another site
    assert "https://a.test/" not in scope  # another port (443) too
    assert "http://b.test/" not in scope
    assert "mailto:x@a.test" not in scope


def test_scope_extra_sites_and_anywhere():
    scope = Scope(["http://a.test/"], extra_sites=["b.test:80"])
    assert scope.allows("http://b.test/x")
    assert Scope(["http://a.test/"], anywhere=True).allows("http://c.test/")


@pytest.fixture(scope="module")
def small_web():
    return generate(n_pages=60, n_sites=3, seed=4)


def test_robots_disallow_is_honoured(small_web):
    fetcher = SimulatedFetcher(small_web, latency=0.0, disallow=("/p1.html", "/private/"))
    robots = RobotsCache(fetcher)
    home = fetcher.seed_urls()[0]
    origin = home.rsplit("/", 1)[0]
    assert robots.allowed(home)
    assert not robots.allowed(origin + "/p1.html")
    assert not robots.allowed(origin + "/private/x.html")
    assert robots.allowed(origin + "/p2.html")


def test_robots_fetched_once_per_site_by_concurrent_threads(small_web):
    calls = []

    class Counting(SimulatedFetcher):
        def fetch_text(self, url):
            calls.append(url)
            return super().fetch_text(url)

    fetcher = Counting(small_web, latency=0.01, disallow=("/p1.html",))
    robots = RobotsCache(fetcher)
    urls = fetcher.seed_urls()
    answers = []
    threads = [threading.Thread(target=lambda u=u: answers.append(robots.allowed(u)))
               for u in urls * 8]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert answers == [True] * len(threads)
    assert sorted(calls) == sorted(u.rsplit("/", 1)[0] + "/robots.txt" for u in urls)


def test_robots_unreachable_disallows_and_404_allows():
    class Fixed:
        def __init__(self, status):
            self.status = status

        def fetch_text(self, url):
            return self.status, ""

    assert not RobotsCache(Fixed(None)).allowed("http://a.test/x")
    assert not RobotsCache(Fixed(503)).allowed("http://a.test/x")
    assert RobotsCache(Fixed(404)).allowed("http://a.test/x")


class _Robots:
    """A fetcher that answers robots.txt with ``text`` (status 200)."""

    def __init__(self, text: str, status: int | None = 200):
        self.text, self.status = text, status

    def fetch_text(self, url):
        return self.status, self.text


# (robots.txt, path, allowed?): RFC 9309 as a crawler with user agent "crawlab" reads it;
# urllib.robotparser got each of these wrong (found by an adversarial reading)
RFC_9309 = [
    ("User-agent: *\nAllow: /\nDisallow: /private/\n", "/private/a", False),  # longest wins
    ("User-agent: *\nDisallow: /private/\nAllow: /private/open\n", "/private/open", True),
    ("User-agent: *\nDisallow: /*.secret\n", "/a/b.secret", False),  # * is a wildcard
    ("User-agent: *\nDisallow: /priv*\n", "/private/x", False),
    ("User-agent: *\nDisallow: /*.pdf$\n", "/a.pdf?x", True),  # $ ends the path
    ("\ufeffUser-agent: *\nDisallow: /private/\n", "/private/a", False),  # a BOM
    ("User-agent: crawl\nAllow: /\n\nUser-agent: crawlab\nDisallow: /\n", "/a", False),
    ("User-agent: lab\nDisallow: /\n", "/a", True),  # a group names its agent, not a part
    ("User-agent: crawlab\nAllow: /x\n\nUser-agent: crawlab\nDisallow: /private/\n",
     "/private/a", False),  # the groups of one agent are merged
    ("User-agent: *\rDisallow: /private/\r", "/private/a", False),  # CR alone ends a line
    ("User-agent: *\nDisallow: /caf\u00e9/\n", "/caf%C3%A9/x", False),  # UTF-8, encoded
    # lines urllib.robotparser raised on, ending the whole crawl: ignored, the rest obeyed
    ("User-agent: *\nDisallow: //[\nDisallow: /private/\n", "/private/a", False),
    ("User-agent: *\nDisallow: //[\n", "/a", True),
    ("User-agent: *\nCrawl-delay: \u00b2\nRequest-rate: \u00b2/5\n", "/a", True),
    ("User-agent: *\nCrawl-delay: " + "9" * 5000 + "\n", "/a", True),  # unreadable: ignored
    ("User-agent: *\nCrawl-delay: 100000\n", "/a", False),  # longer than max_crawl_delay
    ("User-agent: *\nCrawl-delay: 0.5\n", "/a", True),
]


@pytest.mark.parametrize("text, path, allowed", RFC_9309)
def test_robots_txt_is_read_as_rfc_9309_says(text, path, allowed):
    robots = RobotsCache(_Robots(text))
    assert robots.allowed("http://a.test" + path) is allowed


def test_a_robots_txt_the_parser_gives_up_on_disallows_its_site_and_is_counted(monkeypatch):
    import crawlers.page.robots as robots_module

    def refuse(text):
        raise ValueError("the parser gave up")

    monkeypatch.setattr(robots_module.Protego, "parse", staticmethod(refuse))
    policy = Policy()
    robots = RobotsCache(_Robots("User-agent: *\nAllow: /\n"), policy=policy)
    assert not robots.allowed("http://a.test/x")
    assert robots.allowed("http://a.test/y") is False  # cached: asked once
    assert policy.counters.get("robots_unparsable") == 1


def test_robots_crawl_delay(small_web):
    fetcher = SimulatedFetcher(small_web, latency=0.0, crawl_delay=2)
    assert RobotsCache(fetcher).crawl_delay(fetcher.seed_urls()[0]) == 2.0


@pytest.mark.parametrize("asked", ["61", "99999999999999999999999"])
def test_a_site_asking_a_crawl_delay_past_the_cap_is_not_crawled(asked):
    """A hostile robots.txt's ``Crawl-delay: 99999999999999999999999`` overflowed the robots'
    waits (OverflowError) and the crawl hung; a delay past ``max_crawl_delay`` now refuses
    the site's URLs, counted, and the delay handed to politeness never exceeds the cap."""
    class Robots:
        policy = Policy()

        def fetch_text(self, url):
            return 200, f"User-agent: *\nCrawl-delay: {asked}\n"

    fetcher = Robots()
    robots = RobotsCache(fetcher)
    assert not robots.allowed("http://a.test/x")
    assert fetcher.policy.counters.as_dict().get("max_crawl_delay") == 1
    assert robots.crawl_delay("http://a.test/x") == Policy().max_crawl_delay == 60.0
    fetcher.policy = Policy(max_crawl_delay=float(asked))  # the site's own, allowed
    assert RobotsCache(fetcher).allowed("http://a.test/x")


def test_politeness_spaces_requests_per_site():
    clock = ManualClock()
    polite = Politeness(0.5, clock)
    assert polite.reserve("http://a.test/1") == 0.0
    assert polite.reserve("http://a.test/2") == 0.5
    assert polite.reserve("http://a.test/3") == 1.0
    assert polite.reserve("http://b.test/1") == 0.0  # another site is not delayed
    assert polite.ready_in("http://a.test/") == 1.5
    clock.advance(2.0)
    assert polite.reserve("http://a.test/4") == 0.0
    polite.set_delay("b.test:80", 3.0)
    polite.reserve("http://b.test/2")
    assert polite.reserve("http://b.test/3") == 3.0


def test_a_sites_crawl_delay_is_honoured_when_longer_than_ours(small_web):
    fetcher = SimulatedFetcher(small_web, latency=0.0, crawl_delay=2)
    site = fetcher.seed_urls()[0]
    for ours, spacing in ((0.0, 2.0), (0.5, 2.0), (3.0, 3.0)):
        polite = Politeness(ours, ManualClock(), site_delay=RobotsCache(fetcher).crawl_delay)
        assert polite.reserve(site) == 0.0
        assert polite.reserve(site) == spacing


def test_politeness_is_thread_safe():
    clock = ManualClock()
    polite = Politeness(0.1, clock)
    waits = []
    lock = threading.Lock()

    def worker():
        for _ in range(50):
            w = polite.reserve("http://a.test/x")
            with lock:
                waits.append(w)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    # every slot booked exactly once: waits are 0, 0.1, 0.2, ... with no duplicates
    assert sorted(round(w, 6) for w in waits) == [round(0.1 * i, 6) for i in range(400)]


def test_politeness_wait_sleeps_on_its_clock():
    clock = ManualClock()
    polite = Politeness(1.0, clock)
    polite.wait("http://a.test/")
    assert polite.wait("http://a.test/") == 1.0
    assert clock.now() == 1.0
