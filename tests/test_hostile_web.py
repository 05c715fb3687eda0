"""The limits against a hostile web (crawlers/page/policy.py): each one acts, is counted, and
the crawl goes on; against local servers only (tests/hostileserver.py, the trapped lab web)."""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawlers.page import faults
from crawlers.page.clock import ManualClock
from crawlers.page.fetch import HttpFetcher, retry_after
from crawlers.page.policy import LIMITS, Counters, Policy
from crawlers.page.robots import Politeness, RobotsCache
from crawlers.page.rules import LinkGate, UrlRules, strip_session_ids
from crawlers.page.urls import Scope, normalize
from crawlers.web.server import WebServer
from crawlers.web.webgen import generate
from tests.hostileserver import HostileServer


def _in_thread(fn, *args):
    """Run ``fn(*args)`` in a thread; returns (thread, box) where box[0] is the result."""
    box: list = []
    t = threading.Thread(target=lambda: box.append(fn(*args)), daemon=True)
    t.start()
    return t, box


# -- the policy ------------------------------------------------------------------------------

def test_every_limit_is_a_policy_field_with_a_default_and_a_counter():
    policy = Policy()
    values = policy.values()
    assert [limit.name for limit in LIMITS] == list(values)
    counts = policy.counters.as_dict()
    for limit in LIMITS:
        assert counts[limit.name] == 0
        assert limit.flag.startswith("--")


@pytest.mark.parametrize("bad", [{"fetch_seconds": 0}, {"max_bytes": -1},
                                 {"max_url_length": 2.5}, {"stop_grace": float("nan")}])
def test_a_bad_limit_is_one_line_naming_its_flag(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match="--" + name.replace("_", "-")):
        Policy(**bad)


def test_counters_survive_threads_and_pickling():
    import pickle

    c = Counters()
    threads = [threading.Thread(target=lambda: [c.add("x") for _ in range(2000)])
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert c.get("x") == 8000
    copy = pickle.loads(pickle.dumps(c))
    copy.add("x")
    assert copy.get("x") == 8001 and c.get("x") == 8000
    assert c.take() == {"x": 8000} and c.get("x") == 0


# -- fetch: a budget on the whole fetch --------------------------------------------------------

@pytest.mark.parametrize("path", ["/drip", "/drip-head"])
def test_a_dripping_server_is_cut_at_the_fetch_budget(path):
    # a byte every 0.2 s never trips the 10 s read timeout; only the whole-fetch budget ends it
    with HostileServer(interval=0.2) as srv, HttpFetcher(policy=Policy(fetch_seconds=1.0)) as f:
        start = time.monotonic()
        t, box = _in_thread(f.fetch, srv.url + path)
        t.join(6.0)
        assert not t.is_alive(), "the fetch outlived its 1 s budget by 5 s"
        took = time.monotonic() - start
        result = box[0]
    assert result.error == faults.DEADLINE and result.links == []
    assert 0.9 <= took < 5.0
    assert f.counters.get("fetch_seconds") == 1


def test_the_budget_holds_after_a_hop_that_fetched_robots_txt_of_another_site():
    # the hop to the second site asks its robots.txt first: a fetch inside the fetch, after
    # which the outer fetch's socket must still be the one its budget can cut
    policy = Policy(fetch_seconds=1.0)
    with HostileServer(interval=0.2) as a, HostileServer(interval=0.2) as b, \
            HttpFetcher(policy=policy) as f:
        robots = RobotsCache(f, policy=policy)
        f.gate = LinkGate(UrlRules(policy, Scope([a.url + "/", b.url + "/"])), robots, None)
        t, box = _in_thread(f.fetch, f"{a.url}/to?{b.url}/drip")
        t.join(6.0)
        assert not t.is_alive(), "the hop's drip outlived the fetch budget"
        assert b.counts["/robots.txt"] == 1 and b.counts["/drip"] == 1
    assert box[0].error == faults.DEADLINE and box[0].redirects == 1


def test_cut_all_ends_the_fetches_in_flight_and_every_later_one():
    with HostileServer(interval=0.2) as srv, HttpFetcher(policy=Policy(fetch_seconds=600)) as f:
        runs = [_in_thread(f.fetch, srv.url + "/drip") for _ in range(3)]
        assert srv.arrived("/drip", 3)
        assert f.cut_all() == 3
        for t, _ in runs:
            t.join(3.0)
            assert not t.is_alive()
        assert {box[0].error for _, box in runs} == {faults.STOPPED}
        later = f.fetch(srv.url + "/page")
    assert later.error == faults.STOPPED
    assert srv.counts["/page"] == 0  # never sent
    assert f.fetches_cut == 4


def test_a_location_sent_in_utf8_is_followed_as_the_server_meant_it():
    """A Location of UTF-8 bytes was read as Latin-1: /café/ became /caf%C3%83%C2%A9/."""
    with HostileServer() as srv, HttpFetcher() as f:
        result = f.fetch(srv.url + "/to-cafe")
        assert result.final_url == srv.url + "/caf%C3%A9/"
        assert srv.counts["/caf%C3%A9/"] == 1


def test_retry_after_parses_seconds_and_dates():
    assert retry_after("3600") == 3600.0
    assert retry_after("Wed, 25 Nov 2026 08:00:10 GMT", now=1795593600.0) == 10.0
    assert retry_after("") is None and retry_after("-5") is None
    assert retry_after("\u00b2") is None  # a digit to str.isdigit, not to float
    assert retry_after("9" * 5000) == float("inf")  # held at the cap, as any long wait
    # a date whose year or offset overflows the date types: unreadable, not the fetcher's error
    assert retry_after("Mon, 01 Jan 2024 00:00:00 +99999999999999999999") is None
    assert retry_after("Mon, 01 Jan " + "9" * 30 + " 00:00:00 GMT") is None


@pytest.mark.parametrize("length", ["%C2%B2", "9" * 5000, "-1", "12x"])
def test_an_unreadable_content_length_is_read_as_none_was_sent(length):
    """``²`` is a digit to str.isdigit but not to int, and int refuses 5000 digits: the
    fetcher once failed such a page as its own internal error."""
    policy = Policy(max_bytes=1000)
    with HostileServer() as srv, HttpFetcher(policy=policy) as f:
        result = f.fetch(f"{srv.url}/length?{length}")
    assert srv.counts["/length"] == 1
    assert result.ok and result.size == len(b"<html><body>a leaf</body></html>")


# -- the trapped lab web -------------------------------------------------------------------

@pytest.fixture(scope="module")
def trapped():
    web = generate(n_pages=60, n_sites=3, seed=5)
    with WebServer(web, mode="thread", traps=True) as srv:
        yield srv


def _gate(srv, policy: Policy, fetcher: HttpFetcher, clock=None):
    robots = RobotsCache(fetcher, policy=policy)
    polite = Politeness(0.0, clock=clock, site_delay=robots.crawl_delay)
    rules = UrlRules(policy, Scope(srv.seed_urls))
    fetcher.gate = LinkGate(rules, robots, polite)
    return robots, polite


def test_a_redirect_into_a_disallowed_path_is_not_fetched(trapped):
    policy = Policy()
    with HttpFetcher(policy=policy) as f:
        _gate(trapped, policy, f)
        site = trapped.site_urls[1]
        result = f.fetch(site + "/trap/to-private")
        other = f.fetch(site + "/trap/to-other")  # into site 2's /private/, its robots.txt asked
    assert result.error == faults.ROBOTS and result.status == 302
    assert "/private/" not in result.final_url
    assert other.error == faults.ROBOTS and other.status == 302
    assert policy.counters.get("redirect_refused") == 2


def test_a_redirect_out_of_scope_is_not_followed(trapped):
    policy = Policy()
    with HttpFetcher(policy=policy) as f:
        robots = RobotsCache(f, policy=policy)
        rules = UrlRules(policy, Scope([trapped.seed_urls[1]]))  # site 1 only
        f.gate = LinkGate(rules, robots, None)
        result = f.fetch(trapped.site_urls[1] + "/trap/to-other")
    assert result.error == faults.OFF_SCOPE
    assert policy.counters.get("off_scope") == 1


def test_503_with_a_retry_after_over_the_cap_holds_the_site_without_waiting(trapped):
    policy = Policy(retry_after_cap=5.0)
    clock = ManualClock()
    with HttpFetcher(policy=policy) as f:
        _, polite = _gate(trapped, policy, f, clock=clock)
        url = trapped.site_urls[0] + "/trap/busy"
        start = time.monotonic()
        result = f.fetch(url)
        assert time.monotonic() - start < 3.0  # Retry-After: 3600 is not waited for
    assert result.error == "http-503" and result.retries == 0
    assert policy.counters.get("retry_after_cap") == 1
    assert polite.ready_in(url) == pytest.approx(5.0)  # ... but the site is left alone


def test_429_with_a_retry_after_within_the_cap_is_retried_after_it(trapped):
    policy = Policy(retry_after_cap=5.0, max_retries=1)
    clock = ManualClock()
    with HttpFetcher(policy=policy) as f:
        _gate(trapped, policy, f, clock=clock)
        result = f.fetch(trapped.site_urls[2] + "/trap/retry")
    assert result.ok and result.retries == 1
    assert clock.now() == pytest.approx(1.0)  # the Retry-After: 1 was waited (on the clock)
    assert policy.counters.get("retries") == 1


def test_retries_are_bounded(trapped):
    policy = Policy(retry_after_cap=5.0, max_retries=0)
    with HttpFetcher(policy=policy) as f:
        _gate(trapped, policy, f, clock=ManualClock())
        result = f.fetch(trapped.site_urls[0] + "/trap/retry?fresh=1")
    assert result.error == "http-429" and result.retries == 0
    assert policy.counters.get("max_retries") == 1


def test_a_gzip_bomb_is_cut_at_its_inflated_size(trapped):
    policy = Policy(max_bytes=1_000_000)
    with HttpFetcher(policy=policy) as f:
        result = f.fetch(trapped.site_urls[0] + "/trap/bomb")
    assert result.error == faults.TOO_LARGE
    assert 1_000_000 < result.size < 1_000_000 + 2 * 65536
    assert policy.counters.get("max_bytes") == 1


def test_a_50_mb_robots_txt_whose_rules_come_first_works(trapped):
    policy = Policy()
    with HttpFetcher(policy=policy) as f:
        robots = RobotsCache(f, policy=policy)
        start = time.monotonic()
        assert robots.allowed(trapped.site_urls[0] + "/p0.html")
        assert not robots.allowed(trapped.site_urls[0] + "/private/x.html")
        assert time.monotonic() - start < 10.0
    assert policy.counters.get("robots_max_bytes") == 1
    assert policy.counters.get("robots_unreachable_seconds") == 0


def deep_markup_is_truncated() -> bool:
    """Whether this lxml's libxml2 stops at a depth (2.14 does, past the 2048 levels we ask for;
    2.9, which a source build of lxml may link, reads 100,000 levels whole)."""
    from crawlers.page.extract import extract_lxml

    body = b"<div>" * 100_000 + b'<a href="/z">z</a>' + b"</div>" * 100_000
    return bool(extract_lxml(body, "http://127.0.0.1:1/").truncated)


def test_markup_nested_too_deep_is_counted_with_the_links_before_it_kept(trapped):
    """A link after 100,000 nested elements is never lost without a word: either the parser
    reads it (libxml2 2.9) or the page is counted as truncated with the links before kept."""
    policy = Policy()
    with HttpFetcher(policy=policy) as f:
        result = f.fetch(trapped.site_urls[0] + "/trap/nested")
    before = trapped.site_urls[0] + "/trap/"
    if deep_markup_is_truncated():
        assert result.ok and result.links == [before]
        assert policy.counters.get("parse_truncated") == 1
    else:
        assert result.ok and result.links == [before, before + "nested-end"]
        assert policy.counters.get("parse_truncated") == 0


def test_markup_nested_300_deep_keeps_every_link():
    from crawlers.page.extract import extract_lxml

    body = (b'<a href="/a">a</a>' + b"<div>" * 300 + b'<a href="/b">b</a>' + b"</div>" * 300
            + b'<a href="/c">c</a>')
    links = extract_lxml(body, SITE + "/")
    assert links == [SITE + "/a", SITE + "/b", SITE + "/c"] and not links.truncated


# -- robots.txt that hangs or fails ----------------------------------------------------------

def test_a_dripping_robots_txt_is_unreachable_for_a_while_then_asked_again():
    policy = Policy(robots_fetch_seconds=0.5, robots_unreachable_seconds=60.0)
    clock = ManualClock()
    with HostileServer(interval=0.1, robots="drip-once") as srv, \
            HttpFetcher(policy=policy) as f:
        robots = RobotsCache(f, policy=policy, clock=clock)
        start = time.monotonic()
        assert not robots.allowed(srv.url + "/page")  # unreachable: disallow all
        assert time.monotonic() - start < 3.0
        clock.advance(59.0)
        assert not robots.allowed(srv.url + "/page")
        assert srv.counts["/robots.txt"] == 1  # still within the while
        clock.advance(2.0)
        assert robots.allowed(srv.url + "/page")  # asked again: now it answers
        assert not robots.allowed(srv.url + "/no/x")
        assert srv.counts["/robots.txt"] == 2
    assert policy.counters.get("robots_unreachable_seconds") == 1
    assert policy.counters.get("robots_fetch_seconds") == 1


@pytest.mark.parametrize("mode,allowed", [("500", False), ("429", False), ("404", True)])
def test_robots_5xx_disallows_and_4xx_allows(mode, allowed):
    """429 is a 4xx that says "not now", not "no rules": Google reads it as unreachable, and
    so does a crawl, which took it as leave to fetch everything."""
    policy = Policy()
    with HostileServer(robots=mode) as srv, HttpFetcher(policy=policy) as f:
        assert RobotsCache(f, policy=policy).allowed(srv.url + "/page") is allowed
    assert policy.counters.get("robots_unreachable_seconds") == (0 if allowed else 1)


def test_stop_ends_a_politeness_wait_at_once():
    polite = Politeness(3600.0)  # the real clock: an hour between two requests to a site
    assert polite.wait(SITE + "/a") == 0.0  # the first is free
    t, box = _in_thread(polite.wait, SITE + "/b")
    deadline = time.monotonic() + 5.0
    # /a's booking alone puts the next slot an hour away; the thread's booking of /b puts it
    # two hours away. Polling for one hour raced the thread's start (CI, 3.13t: wait() ran
    # after stop() and returned 0.0): poll for two (a condition, not a synchronization).
    while polite.ready_in(SITE + "/c") < 6000 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert polite.ready_in(SITE + "/c") >= 6000, "the thread never booked its slot"
    polite.stop()
    t.join(3.0)
    assert not t.is_alive(), "a stopped crawl still waits an hour for politeness"
    assert box and box[0] > 3000  # it returned (the slot it had booked), it did not die
    assert polite.wait(SITE + "/c") == 0.0  # and later waits return at once


# -- URL rules ----------------------------------------------------------------------------

SITE = "http://a.test"


@pytest.mark.parametrize("url,rule", [
    (SITE + "/x?" + "q" * 3000, "max_url_length"),
    (SITE + "/" + "/".join(map(str, range(17))) + "/", "max_path_depth"),
    (SITE + "/trap/loop/a/b/a/b/a/b/", "max_segment_repeats"),
    (SITE + "/grow?" + "&".join(f"q={i}" for i in range(17)), "max_query_params"),
    (SITE + "/long?v=" + "x" * 600, "max_query_length"),
    ("http://b.test/p", "off_scope"),
])
def test_each_url_rule_rejects_its_trap_and_counts_it(url, rule):
    policy = Policy()
    rules = UrlRules(policy, Scope([SITE + "/"]))
    assert rules.reason(url) == rule
    assert rules.admit([url, SITE + "/ok.html"]) == [SITE + "/ok.html"]
    assert policy.counters.get(rule) == 1


def test_ordinary_urls_pass_every_rule():
    rules = UrlRules(Policy(), Scope([SITE + "/"]))
    for url in (SITE + "/", SITE + "/a/b/c/d.html", SITE + "/docs/api/v1/api.html",
                SITE + "/search?q=crawler&page=2", SITE + "/p17.html"):
        assert rules.reason(url) is None, url


def test_session_ids_are_removed_so_one_page_is_one_url():
    policy = Policy()
    rules = UrlRules(policy)
    links = [SITE + "/p?sid=0123456789abcdef", SITE + "/p?sid=fedcba9876543210",
             SITE + "/q;jsessionid=ABCDEF1234567"]
    assert rules.admit(links) == [SITE + "/p", SITE + "/q"]
    assert policy.counters.get("session_id") == 3
    assert strip_session_ids(SITE + "/p?sid=12&x=1") == SITE + "/p?sid=12&x=1"


def test_a_site_gets_at_most_its_page_budget():
    policy = Policy(max_pages_per_site=3)
    rules = UrlRules(policy)
    got = [rules.claim_site(f"{SITE}/p{i}") for i in range(5)]
    assert got == [True, True, True, False, False]
    assert rules.claim_site("http://b.test/p0")  # another site has its own budget
    assert policy.counters.get("max_pages_per_site") == 2


def test_a_redirect_target_is_a_new_url_of_the_crawl_and_of_its_site():
    """A redirect's target (``new``) is claimed in the crawl's visited set and against its
    site's budget, a retry of the same URL is not; once a site's budget is spent, its links
    are dropped before the visited set keeps them."""
    from crawlers.crawl.visited import VisitedSet

    policy = Policy(max_pages_per_site=2)
    rules = UrlRules(policy)
    gate = LinkGate(rules)
    gate.claim = VisitedSet().claim
    assert gate.hop(f"{SITE}/1", new=True) == (f"{SITE}/1", None)
    assert gate.hop(f"{SITE}/1", new=True) == (None, faults.REDIRECT_SEEN)
    assert gate.hop(f"{SITE}/1") == (f"{SITE}/1", None)  # a retry
    assert gate.hop(f"{SITE}/2", new=True) == (f"{SITE}/2", None)
    assert gate.hop(f"{SITE}/3", new=True) == (None, faults.SITE_BUDGET)
    assert rules.admit([f"{SITE}/4", "http://b.test/1", f"{SITE}/5"]) == ["http://b.test/1"]
    assert policy.counters.get("max_pages_per_site") == 3  # one hop, two links
    assert policy.counters.get("redirect_seen") == 1


def test_fullwidth_digit_hosts_are_not_quietly_made_an_ip_address():
    from crawlers.page.extract import extract_lxml

    fullwidth = "http://１２７.０.０.１:8000/p0.html"
    assert normalize(fullwidth) is None
    assert normalize("http://bücher.example/") == "http://xn--bcher-kva.example/"
    body = (f'<a href="{fullwidth}">x</a><a href="mailto:a@b.c">m</a>'
            '<a href="/ok">ok</a>').encode()
    links = extract_lxml(body, SITE + "/")
    assert links == [SITE + "/ok"] and links.dropped == 2 and links.odd_hosts == 1


# -- the flags -------------------------------------------------------------------------------

def test_bsp_refuses_the_stop_grace_it_has_no_use_for(capsys):
    from crawlers.cli import main

    assert main(["bsp", "--sim", "--stop-grace", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--stop-grace" in err[0]


@pytest.mark.parametrize("command", ["crawl", "bsp"])
@pytest.mark.parametrize("args,message", [
    (["--seed-url", "http://127.0.0.1:9/", "--fetch-seconds", "0"], "--fetch-seconds"),
    (["--seed-url", "http://127.0.0.1:9/", "--max-url-length", "x"], "--max-url-length"),
    (["--seed-url", "http://127.0.0.1:9/", "--max-retries", "-1"], "--max-retries"),
    (["--sim", "--max-pages-per-site", "10"], "no effect with --sim"),
    (["--max-path-depth", "3"], "applies to --seed-url"),
])
def test_a_bad_or_useless_limit_flag_is_one_line_and_status_2(command, args, message, capsys):
    from crawlers.cli import main

    try:  # argparse exits for a bad value; crawlab returns 2 for a flag with no effect
        status = main([command, *args])
    except SystemExit as exc:
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2
    assert message in err and len(err.strip().splitlines()) == 1, err


# -- crawlab serve --traps ---------------------------------------------------------------------

@pytest.mark.parametrize("argv,message", [
    (["--traps", "--no-web", "--dir", "."], "--traps"),
    (["--traps", "--disallow", "/x"], "--disallow"),
])
def test_serve_traps_refuses_what_it_cannot_honour(capsys, argv, message):
    import argparse

    from crawlers.cli import serve

    parser = argparse.ArgumentParser(prog="crawlab serve")
    serve.add_arguments(parser)
    assert serve.run(parser.parse_args(argv)) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_serve_traps_links_every_home_page_to_the_traps_on_loopback():
    import signal
    import subprocess
    import sys

    from tests.helpers import with_default_sigint

    proc = subprocess.Popen(with_default_sigint([sys.executable, "-m", "crawlers", "serve",
                                                 "--traps", "--pages", "20", "--sites", "2"]),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seeds = [proc.stdout.readline().strip() for _ in range(2)]
        assert all(s.startswith("http://127.0.0.1:") for s in seeds), seeds
        with HttpFetcher() as f:
            home = f.fetch(seeds[1])
            index = f.fetch(seeds[1].rsplit("/", 1)[0] + "/trap/")
        assert home.ok and seeds[1].rsplit("/", 1)[0] + "/trap/" in home.links
        assert index.ok and len(index.links) >= 13
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    assert proc.returncode == 0


# -- any markup, any encoding ------------------------------------------------------------------

_MARKUP = st.lists(st.sampled_from([
    b"<a href='/x'>", b"<a href=\"javascript:1\">", b"<base href='//evil.test/'>",
    b"<meta charset='x-nonsense'>", b"<meta charset='utf-16'>", b"\xff\xfe", b"\xef\xbb\xbf",
    b"<div>", b"</div>", b"<!--", b"-->", b"<![CDATA[", b"<script>", b"\x00", b"&#0;",
    b"<a href='http://[::1'>", b"<a href='http://\xef\xbc\x91/'>", b"<a href=%ZZ>",
    "<a href='/é'>".encode("latin-1"), "<a href='/ü'>".encode(), b"<svg><a xlink:href='/s'>",
]), max_size=40).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(body=st.one_of(st.binary(max_size=2048), _MARKUP))
def test_any_body_gives_links_or_malformed_never_another_exception(body):
    from crawlers.page.extract import MalformedPage, extract_lxml

    try:
        links = extract_lxml(body, SITE + "/page.html")
    except MalformedPage:
        return
    assert all(link.startswith(("http://", "https://")) for link in links)
