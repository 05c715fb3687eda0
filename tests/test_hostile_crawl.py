"""Whole crawls against a hostile web: ``--seconds`` and Ctrl-C end within the stop grace
whatever the fetches are doing, and a crawl of the trapped lab web ends on its own, covers every
ordinary page, fetches nothing robots.txt forbids, prints no traceback and stays within a
memory bound (threaded crawler and BSP alike)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

import frontier
from crawlers.crawl.crawler import Crawler
from crawlers.crawl.targets import WebOptions, open_target
from crawlers.page.policy import Policy
from crawlers.web.server import WebServer
from crawlers.web.webgen import generate
from tests.helpers import with_default_sigint
from tests.hostileserver import HostileServer
from tests.test_hostile_web import deep_markup_is_truncated

CRAWLAB = [sys.executable, "-m", "crawlers"]
GRACE = 2.0  # Policy().stop_grace, the default the CLI runs with


def _drip_seeds(srv: HostileServer, n: int) -> list[str]:
    return [f"{srv.url}/drip?{i}" for i in range(n)]


# -- the stop: --seconds and Ctrl-C -----------------------------------------------------------

def test_the_time_slice_cuts_fetches_that_would_never_end():
    # every seed drips for ever (100 KB at 5 bytes/s) and the fetch budget is 10 minutes: only
    # the end of the slice can stop these fetches
    with HostileServer(interval=0.2) as srv:
        opts = WebOptions(kind="urls", seed_urls=_drip_seeds(srv, 4), politeness=0.0,
                          policy=Policy(fetch_seconds=600.0))
        with open_target(opts) as target:
            crawler = Crawler(target.fetcher, frontier.create("monitor", capacity=100),
                              target.seeds, threads=4, rules=target.rules,
                              counters=target.counters, robots_allowed=target.robots_allowed,
                              politeness_wait=target.politeness_wait, stop_grace=GRACE)
            start = time.monotonic()
            report = crawler.run(seconds=1.5)
            took = time.monotonic() - start
        started = srv.counts["/drip"]
    assert started >= 1  # something was in flight to cut
    assert report.stopped_by == "time"
    # without the cut the robots would sit in their fetches for 10 minutes (the join gives up
    # after the grace and says so in threads_unjoined); a busy machine may add a second
    assert took < 1.5 + GRACE + 1.0, f"the crawl took {took:.1f} s"
    assert report.seconds == pytest.approx(took, abs=0.5)  # the time taken, not the slice
    assert report.fetches_cut >= started and report.threads_unjoined == 0
    assert report.pages_fetched == 0  # a cut fetch is not a page
    assert report.limits["stop_grace"] == report.fetches_cut


def _crawl_of(srv: HostileServer, seed: str, **policy) -> tuple[object, dict[str, int]]:
    """A crawl of ``srv`` from ``seed`` to its end: the report, and the requests the server
    saw by path (robots.txt left out)."""
    opts = WebOptions(kind="urls", seed_urls=[srv.url + seed], politeness=0.0,
                      policy=Policy(**policy))
    with open_target(opts) as target:
        crawler = Crawler(target.fetcher, frontier.create("monitor", capacity=1000),
                          target.seeds, threads=4, rules=target.rules,
                          counters=target.counters, robots_allowed=target.robots_allowed,
                          politeness_wait=target.politeness_wait)
        report = crawler.run(seconds=60)
    return report, {p: n for p, n in srv.counts.items() if p != "/robots.txt"}


def test_a_page_many_redirects_lead_to_is_fetched_once():
    """20 links redirect to one page that is also linked: it was fetched 21 times while the
    report said overlap 0; a redirect's target is now claimed as a link is."""
    with HostileServer() as srv:
        report, seen = _crawl_of(srv, "/fan/20")
    assert report.stopped_by == "exhausted"
    assert seen["/same"] == 1
    assert sum(seen[f"/via/{i}"] for i in range(20)) == 20


def test_redirect_hops_spend_their_sites_page_budget():
    """Every link goes through 5 hops: with a budget of 10 the server got 6 times as many
    requests as the budget (hops claimed nothing). The seed, each link and each hop is a URL
    of the site: the server sees at most the budget."""
    with HostileServer() as srv:
        report, seen = _crawl_of(srv, "/chains/20", max_pages_per_site=10)
    assert sum(seen.values()) == 10, seen
    assert report.limits["max_pages_per_site"] > 0


def test_a_resumed_crawl_keeps_the_site_budget_it_spent(tmp_path, capsys):
    """A calendar without end under a budget of 10, crawled 3 pages at a time: each resumed
    session granted the site a fresh budget (228 pages for a budget of 100 were measured).
    The budget now holds across sessions: the server sees 10 pages in all."""
    from crawlers.cli import main

    with HostileServer() as srv:
        argv = ["crawl", "--seed-url", srv.url + "/cal/0", "--politeness", "0",
                "--max-pages-per-site", "10", "--state", str(tmp_path / "state"), "--json"]
        for _ in range(3):
            assert main([*argv, "--max-pages", "3"]) == 0
        assert main(argv) == 0
        capsys.readouterr()
        seen = {p: n for p, n in srv.counts.items() if p != "/robots.txt"}
    assert sum(seen.values()) == 10, seen
    assert max(seen.values()) == 1  # and no page twice


def _sigint_after(proc: subprocess.Popen, srv: HostileServer, fetches: int) -> float:
    """Send SIGINT once ``fetches`` drip requests are in flight; return when it was sent."""
    assert srv.arrived("/drip", fetches, timeout=60), "the crawl never started its fetches"
    proc.send_signal(signal.SIGINT)
    return time.monotonic()


def test_ctrl_c_cuts_the_fetches_in_flight_and_still_reports():
    with HostileServer(interval=0.2) as srv:
        cmd = [*CRAWLAB, "crawl", "--threads", "2", "--politeness", "0", "--json",
               "--fetch-seconds", "600"]
        for url in _drip_seeds(srv, 2):
            cmd += ["--seed-url", url]
        proc = subprocess.Popen(with_default_sigint(cmd), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        sent = _sigint_after(proc, srv, 2)
        out, err = proc.communicate(timeout=60)
        took = time.monotonic() - sent
    assert proc.returncode == 130, err.decode()  # interrupted: not a finished crawl
    assert b"Traceback" not in err
    assert took < GRACE + 4.0, f"exit {took:.1f} s after Ctrl-C"  # process exit included
    report = json.loads(out)
    assert report["stopped_by"] == "interrupted"
    assert report["fetches_cut"] == 2 and report["threads_unjoined"] == 0


def test_a_url_whose_robots_txt_was_cut_by_the_end_of_the_crawl_is_not_a_page(tmp_path):
    """robots.txt drips; the crawl's 1 s ends first. The URL waiting on it was neither fetched
    nor refused: it is a fetch cut (not a page with error "robots"), and a resumed crawl asks
    again instead of taking it as done (it was lost for good, found by an adversarial
    reading)."""
    state = tmp_path / "state"
    with HostileServer(interval=0.2, robots="drip-once") as srv:
        base = [*CRAWLAB, "crawl", "--threads", "2", "--politeness", "0", "--json",
                "--seed-url", srv.url + "/x1", "--state", str(state)]
        first = subprocess.run([*base, "--seconds", "1"], capture_output=True, timeout=60)
        assert first.returncode == 0, first.stderr.decode()[-2000:]
        report = json.loads(first.stdout)
        assert report["pages_fetched"] == 0 and report["fetches_cut"] >= 1, report
        assert "robots" not in report["errors"], report["errors"]
        # no answer is not an unreachable site either (it was counted as one, and retried)
        assert report["robots_unreachable"] == 0, report
        assert report["limits"]["robots_unreachable_seconds"] == 0, report["limits"]
        again = subprocess.run([*base, "--fetch-seconds", "1"], capture_output=True,
                               timeout=60)  # /x1 links to /drip, which never ends
        assert again.returncode == 0, again.stderr.decode()[-2000:]
        assert srv.counts["/x1"] == 1  # asked again, allowed (Disallow: /no/), fetched


def _leaf_crawl(srv: HostileServer, *flags: str, n: int = 3, command: str = "crawl") -> dict:
    """The ``--json`` report of ``crawlab crawl`` (or ``bsp``) of ``n`` pages of ``srv``
    without links."""
    width = ["--threads", "2"] if command == "crawl" else ["--procs", "2", "--robots", "2"]
    cmd = [*CRAWLAB, command, *width, "--politeness", "0", "--json", *flags]
    for i in range(n):
        cmd += ["--seed-url", f"{srv.url}/leaf/{i}"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    return json.loads(run.stdout)


@pytest.mark.parametrize("command", ["crawl", "bsp"])
def test_urls_robots_txt_refuses_are_neither_pages_nor_coverage(command):
    """robots.txt disallows the whole site: nothing is fetched and the report says so. It said
    3 pages fetched (error "robots"), coverage 1.0 and stopped_by "exhausted", a complete crawl
    with nothing fetched (found by an adversarial reading), in both crawls; and the refusals
    took the page budget (``--max-pages 1``: stopped by "max-pages")."""
    with HostileServer(robots="disallow-all") as srv:
        report = _leaf_crawl(srv, command=command)
        budgeted = _leaf_crawl(srv, "--max-pages", "1", command=command)
        fetched = sum(n for path, n in srv.counts.items() if path != "/robots.txt")
    assert fetched == 0
    for r in (report, budgeted):
        assert r["pages_fetched"] == 0 and r["unique_pages"] == 0, r
        assert r["stopped_by"] == "nothing-fetchable", r["stopped_by"]
        assert r["coverage"] == 0.0 and r["coverage_basis"] == "discovered"
        assert "robots" not in r["errors"], r["errors"]
        assert r["robots_refused"] == 3 and r["robots_unreachable"] == 0, r


def test_a_site_whose_robots_txt_never_answers_is_asked_again_then_counted_unreachable():
    """robots.txt answers 500 every time: it is asked 1 + ``robots_retries`` times, then the
    site's URLs are counted as unreachable, not as pages, and the crawl says nothing could be
    fetched. It was taken as 3 pages (error "robots"), coverage 1.0, "exhausted"."""
    with HostileServer(robots="500") as srv:
        report = _leaf_crawl(srv, "--robots-unreachable-seconds", "0")
        asked = srv.counts["/robots.txt"]
        fetched = sum(n for path, n in srv.counts.items() if path != "/robots.txt")
    assert report["pages_fetched"] == 0 and report["stopped_by"] == "nothing-fetchable", report
    assert report["robots_unreachable"] == 3 and fetched == 0, report
    retries = Policy().robots_retries
    assert retries >= 1 and asked == 1 + retries
    assert report["limits"]["robots_unreachable_seconds"] == 1 + retries
    assert report["limits"]["robots_retries"] == 1  # one site given up
    assert report["coverage"] == 0.0


def test_bsp_gives_a_site_whose_robots_txt_does_not_answer_up_as_unreachable():
    """The BSP crawl does not put a site off (its supersteps would spin until the site may
    be asked again): its URLs are counted unreachable at once, not pages (they were 3 pages
    of error "robots", coverage 1.0, "exhausted")."""
    with HostileServer(robots="500") as srv:
        report = _leaf_crawl(srv, command="bsp")
        fetched = sum(n for path, n in srv.counts.items() if path != "/robots.txt")
    assert fetched == 0 and report["pages_fetched"] == 0, report
    assert report["robots_unreachable"] == 3 and report["robots_refused"] == 0, report
    assert report["stopped_by"] == "nothing-fetchable" and report["coverage"] == 0.0, report


def test_urls_still_put_off_when_the_crawl_stops_are_in_its_report():
    """A time slice ends while the site's URLs wait for its robots.txt to be asked again: the
    report counts them put off. They were in no count: 0 pages, 0 refused, 0 unreachable, as
    if the site had nothing to crawl."""
    with HostileServer(robots="500") as srv:
        report = _leaf_crawl(srv, "--robots-unreachable-seconds", "3600", "--seconds", "1.5")
    assert report["stopped_by"] == "time" and report["pages_fetched"] == 0, report
    assert report["robots_put_off"] == 3, report
    assert report["robots_refused"] == report["robots_unreachable"] == 0, report


@pytest.mark.parametrize("kind", ["monitor", "heap"])  # FIFO, and a priority frontier
def test_one_503_on_robots_txt_puts_the_sites_urls_off_instead_of_dropping_them(kind):
    """robots.txt answers 503 once, then 200: the URLs taken meanwhile wait for it to be asked
    again (RFC 9309: assume complete disallow, try later) and are fetched. They were recorded
    as done without a fetch, the site's whole crawl lost to one 503."""
    with HostileServer(robots="503-once") as srv:
        report = _leaf_crawl(srv, "--frontier", kind, "--robots-unreachable-seconds", "0.5")
        fetched = {path: n for path, n in srv.counts.items() if path.startswith("/leaf/")}
        asked = srv.counts["/robots.txt"]
    assert fetched == {"/leaf/0": 1, "/leaf/1": 1, "/leaf/2": 1}, fetched
    assert asked == 2
    assert report["pages_fetched"] == 3 and report["robots_unreachable"] == 0, report
    assert report["stopped_by"] == "exhausted" and report["coverage"] == 1.0


@pytest.mark.parametrize("kind", ["crawl", "bsp"])
def test_sigterm_stops_a_crawl_as_ctrl_c_does(kind, tmp_path):
    """``kill PID``: the crawl stops as on Ctrl-C, with its report and ``summary.json``
    written (SIGTERM ended both commands with nothing written, found by an adversarial
    reading)."""
    out_dir = tmp_path / "out"
    with HostileServer(interval=0.2) as srv:
        cmd = [*CRAWLAB, kind, "--politeness", "0", "--json", "--fetch-seconds", "600",
               "--out", str(out_dir),
               *(["--threads", "2"] if kind == "crawl" else ["--procs", "2", "--robots", "2"])]
        for url in _drip_seeds(srv, 2):
            cmd += ["--seed-url", url]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert srv.arrived("/drip", 2, timeout=60), "the crawl never started its fetches"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err.decode()[-2000:]
    assert b"Traceback" not in err
    report = json.loads(out)
    assert report["stopped_by"] == "interrupted" and report["fetches_cut"] == 2, report
    assert (out_dir / "summary.json").exists()


def test_bsp_time_slice_cuts_a_superstep_of_endless_fetches():
    with HostileServer(interval=0.2) as srv:
        cmd = [*CRAWLAB, "bsp", "--procs", "2", "--robots", "2", "--politeness", "0",
               "--json", "--seconds", "1", "--fetch-seconds", "600"]
        for url in _drip_seeds(srv, 4):
            cmd += ["--seed-url", url]
        proc = subprocess.run(cmd, capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"Traceback" not in proc.stderr
    report = json.loads(proc.stdout)
    assert report["stopped_by"] == "time"
    # the superstep in flight ends when the slice does (its exchange and vote after)
    assert report["seconds"] < 1.0 + 2 * GRACE, report["seconds"]
    assert report["teardown_seconds"] < GRACE, report["teardown_seconds"]  # workers' exit
    assert report["fetches_cut"] >= 1 and report["pages_fetched"] == 0


def test_bsp_ctrl_c_cuts_the_workers_fetches():
    with HostileServer(interval=0.2) as srv:
        cmd = [*CRAWLAB, "bsp", "--procs", "2", "--robots", "2", "--politeness", "0",
               "--json", "--fetch-seconds", "600"]
        for url in _drip_seeds(srv, 2):
            cmd += ["--seed-url", url]
        proc = subprocess.Popen(with_default_sigint(cmd), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        sent = _sigint_after(proc, srv, 2)
        out, err = proc.communicate(timeout=60)
        took = time.monotonic() - sent
    assert proc.returncode == 130, err.decode()
    assert b"Traceback" not in err
    assert took < GRACE + 5.0, f"exit {took:.1f} s after Ctrl-C"  # workers' exit included
    report = json.loads(out)
    assert report["stopped_by"] == "interrupted" and report["fetches_cut"] == 2
    assert report["teardown_seconds"] < GRACE, report["teardown_seconds"]


# -- the page budget of a site, with every frontier ------------------------------------------


@pytest.mark.parametrize("cmd", [
    ["crawl", "--threads", "2", "--frontier", "heap"],
    ["crawl", "--threads", "2", "--frontier", "monitor"],
    ["bsp", "--procs", "1", "--robots", "2"],  # its default frontier ranks by OPIC cash
])
def test_a_calendar_ends_at_the_sites_page_budget_whatever_the_frontier(cmd):
    """A calendar whose every day is linked twice, ``--max-pages-per-site 10``: the server sees
    at most the seed and 10 more days. With a priority frontier a day the budget had refused
    came back on its second link (not fresh, never fetched, so its cash made it new) and the
    crawl went on without end (15,000 days in 40 s, found by an adversarial reading); the
    ``--seconds`` here only bounds a broken crawl."""
    from tests.hostileserver import HostileServer

    with HostileServer() as srv:
        run = subprocess.run([*CRAWLAB, *cmd, "--seed-url", srv.url + "/cal/0",
                              "--max-pages-per-site", "10", "--politeness", "0",
                              "--seconds", "20", "--json"], capture_output=True, text=True,
                             timeout=120)
        days = sum(n for path, n in srv.counts.items() if path.startswith("/cal/"))
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout)
    assert days <= 11 and report["pages_fetched"] <= 11, (days, report["pages_fetched"])
    assert report["stopped_by"] == "exhausted" and report["limits"]["max_pages_per_site"] >= 1


# -- a crawl of the trapped web ----------------------------------------------------------------

#: Limits small enough for a test to see every trap met in seconds (the defaults are the same
#: rules with more room: 30 s fetches, 5000 URLs per site, a 30 s Retry-After cap).
TEST_LIMITS = ["--fetch-seconds", "2", "--retry-after-cap", "1", "--max-pages-per-site", "150",
               "--politeness", "0"]
#: What the trapped crawl may add to the peak memory of the same crawl without traps. The
#: model: URLs kept are at most sites x max-pages-per-site (3 x 150) of at most 2083
#: characters (under 1 MB with the sets, frontier and counters that hold them), plus bodies in
#: flight, at most one per robot (8) of max-bytes (2 MB) each: 17 MB; the rest is slack for
#: the allocator. Measured on the 2-core lab machine: 10 MB.
RSS_BOUND_MB = 40


@pytest.fixture(scope="module")
def small_web():
    return generate(n_pages=90, n_sites=3, seed=3)


class _Wait4Popen(subprocess.Popen):
    """``Popen`` that reaps its child with ``wait4`` and keeps that child's peak RSS."""

    peak_rss_mb = 0.0

    def _try_wait(self, wait_flags):
        pid, status, usage = os.wait4(self.pid, wait_flags)
        if pid == self.pid:
            self.peak_rss_mb = usage.ru_maxrss / 1024
        return pid, status


def _crawl(kind: str, web, traps: bool, tmp_path, extra: list[str]):
    with WebServer(web, traps=traps) as srv:
        reference = tmp_path / f"ordinary-{kind}-{traps}.txt"
        reference.write_text("".join(srv.addressing.url(p) + "\n" for p in range(web.size)))
        out_dir = tmp_path / f"out-{kind}-{traps}"
        cmd = [*CRAWLAB, kind, "--json", "--reference", str(reference), "--out", str(out_dir),
               *extra]
        for url in srv.seed_urls:
            cmd += ["--seed-url", url]
        proc = _Wait4Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()[-2000:]
    fetched = [json.loads(line)["url"] for line in (out_dir / "pages.jsonl").open()]
    return json.loads(out), err, fetched, proc.peak_rss_mb


@pytest.mark.parametrize("kind,extra", [("crawl", ["--threads", "8"]),
                                        ("bsp", ["--procs", "2", "--robots", "4"])])
def test_a_crawl_of_the_trapped_web_ends_on_its_own_and_covers_every_ordinary_page(
        kind, extra, small_web, tmp_path):
    plain, _, _, plain_rss = _crawl(kind, small_web, False, tmp_path, [*extra, *TEST_LIMITS])
    report, err, fetched, rss = _crawl(kind, small_web, True, tmp_path, [*extra, *TEST_LIMITS])
    assert b"Traceback" not in err
    assert report["stopped_by"] == "exhausted"
    assert report["coverage_basis"] == "reference" and report["coverage"] == 1.0
    assert plain["coverage"] == 1.0
    assert not [u for u in fetched if "/private/" in u]  # robots.txt held, redirects included
    limits = report["limits"]
    for limit in ("fetch_seconds", "max_bytes", "max_url_length", "max_path_depth",
                  "max_segment_repeats", "max_query_params", "max_query_length",
                  "max_pages_per_site", "retry_after_cap", "redirect_refused", "session_id",
                  "odd_host", "robots_max_bytes", "parse_truncated"):
        if limit == "parse_truncated" and not deep_markup_is_truncated():
            continue  # this libxml2 reads the deep page whole: nothing to count
        assert limits[limit] >= 1, (limit, limits)
    # every site's calendar ends at the page budget: 150 URLs a site besides its seed
    assert report["pages_fetched"] <= 3 * (150 + 1)
    if kind == "crawl":  # one process: its peak is the crawl's (BSP's workers are children)
        assert rss - plain_rss < RSS_BOUND_MB, f"trapped {rss:.0f} MB vs {plain_rss:.0f} MB"
