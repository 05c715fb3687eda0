"""The threaded crawler: exactly-once crawling, termination, the deadlock watchdog, output that
survives an interruption, and one-line errors for bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import frontier
from crawlers.crawl.crawler import Crawler
from crawlers.crawl.report import GroundTruth
from crawlers.page.fetch import FetchResult
from crawlers.web import webgen
from crawlers.web.simfetch import SimulatedFetcher
from frontier.monitor import MonitorFrontier
from tests.countserver import CountingWeb
from tests.helpers import CORRECT, run_child, wait_until, with_default_sigint


def _crawler(name: str, threads: int, web, latency: float = 0.0, **options) -> Crawler:
    cls = frontier.info(name)
    f = frontier.create(name, capacity=30) if cls.bounded else frontier.create(name)
    fetcher = SimulatedFetcher(web, latency=latency, seed=1)
    truth = GroundTruth(web.size, web.pagerank(), fetcher.addressing.page_of)
    options.setdefault("when_full", "spill")
    return Crawler(fetcher, f, fetcher.seed_urls(), threads=threads, ground_truth=truth, **options)


@pytest.fixture(scope="module")
def web():
    return webgen.generate(n_pages=400, n_sites=6, seed=3)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("threads", [1, 4, 16])
@pytest.mark.parametrize("name", CORRECT)
def test_every_reachable_page_is_fetched_exactly_once(name, threads, web):
    report = _crawler(name, threads, web).run(seconds=30)
    assert report.stopped_by == "exhausted"
    assert report.pages_fetched == report.unique_pages == web.size
    assert report.duplicates == 0 and report.coverage == 1.0
    assert sum(report.pages_per_thread) == web.size
    assert report.frontier_stats["puts"] == report.frontier_stats["gets"]


@pytest.mark.timeout(60)
def test_sixty_four_threads_on_a_ten_page_web_terminate():
    tiny = webgen.generate(n_pages=10, n_sites=2, seed=5)
    t0 = time.monotonic()
    report = _crawler("monitor", 64, tiny).run(seconds=30)
    assert report.stopped_by == "exhausted"
    assert report.unique_pages == 10
    assert time.monotonic() - t0 < 10


@pytest.mark.timeout(60)
def test_the_watchdog_reports_the_block_deadlock(web):
    """monitor + block with threads >= 2x capacity: every robot ends up blocked in put."""
    f = frontier.create("monitor", capacity=4)
    fetcher = SimulatedFetcher(web, latency=0.0, seed=1)
    crawler = Crawler(fetcher, f, fetcher.seed_urls(), threads=8, when_full="block",
                      watchdog=0.5)
    t0 = time.monotonic()
    report = crawler.run(seconds=30)
    assert report.deadlock and report.stopped_by == "deadlock"
    assert time.monotonic() - t0 < 10
    assert report.unique_pages < web.size


@pytest.mark.timeout(60)
@pytest.mark.parametrize("threads", [1, 4, 16])
@pytest.mark.parametrize("name", ["monitor", "semaphore", "optimistic"])
def test_producer_threads_make_block_deadlock_free(name, threads, web):
    """With the robots only consuming and two producer threads putting, ``block`` on a tiny
    frontier cannot deadlock (the wait-for graph is a chain): the whole web is crawled once,
    and what did not fit waited in the hand-off."""
    f = frontier.create(name, capacity=2)
    fetcher = SimulatedFetcher(web, latency=0.0, seed=1)
    crawler = Crawler(fetcher, f, fetcher.seed_urls(), threads=threads, when_full="block",
                      watchdog=0.5, producers=2)
    report = crawler.run(seconds=30)
    assert report.stopped_by == "exhausted" and not report.deadlock
    assert report.pages_fetched == report.unique_pages == web.size
    assert report.producers == 2 and report.handoff_peak > 2


@pytest.mark.timeout(60)
def test_the_same_crawl_without_producers_deadlocks(web):
    """The control for the test above: robots that put their own links close the cycle."""
    f = frontier.create("monitor", capacity=2)
    fetcher = SimulatedFetcher(web, latency=0.0, seed=1)
    report = Crawler(fetcher, f, fetcher.seed_urls(), threads=4, when_full="block",
                     watchdog=0.5).run(seconds=30)
    assert report.deadlock and report.deadlock_after is not None
    assert 0 <= report.deadlock_after < report.seconds


class _NeverWakes(MonitorFrontier):
    """A frontier whose getters sleep until ``close`` whatever it holds: every wake-up lost."""

    def get(self, timeout=None):
        with self._mutex:
            while not self._closed:
                self._not_empty.wait()
        return None


@pytest.mark.timeout(60)
def test_the_watchdog_reports_robots_asleep_beside_waiting_urls(web):
    """Untimed waits on a frontier that loses every wake-up: the crawl must not hang; the
    watchdog sees every robot idle while the frontier holds URLs."""
    fetcher = SimulatedFetcher(web, latency=0.0, seed=1)
    crawler = Crawler(fetcher, _NeverWakes(), fetcher.seed_urls(), threads=4, watchdog=0.3,
                      poll=None)
    t0 = time.monotonic()
    report = crawler.run()
    assert report.stopped_by == "lost-wakeup" and report.pages_fetched == 0
    assert time.monotonic() - t0 < 10


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", ["monitor", "semaphore"])
def test_the_watchdog_reports_the_block_deadlock_with_untimed_waits(name, web):
    """An untimed put never raises ``Full``: the robots asleep in it must still show as
    blocked, or the deadlock goes unreported and a crawl without a time slice never ends."""
    f = frontier.create(name, capacity=2)
    fetcher = SimulatedFetcher(web, latency=0.0, seed=1)
    t0 = time.monotonic()
    report = Crawler(fetcher, f, fetcher.seed_urls(), threads=4, when_full="block",
                     watchdog=0.3, poll=None).run(seconds=20)
    assert report.deadlock and report.stopped_by == "deadlock"
    assert time.monotonic() - t0 < 10


class _PuttersNeverWake(MonitorFrontier):
    """A frontier that never wakes a putter asleep on a full frontier: lost wake-ups in put."""

    def _taken(self, n):
        pass


@pytest.mark.timeout(60)
def test_the_watchdog_reports_producers_asleep_beside_free_room(web):
    """Producers asleep in an untimed put while the robots drained the frontier: nobody will
    wake them, so the watchdog must end the crawl (it used to wait for the time slice)."""
    fetcher = SimulatedFetcher(web, latency=0.0, seed=1)
    t0 = time.monotonic()
    report = Crawler(fetcher, _PuttersNeverWake(capacity=2), fetcher.seed_urls(), threads=2,
                     producers=2, when_full="block", watchdog=0.3, poll=None).run(seconds=20)
    assert report.stopped_by == "lost-wakeup" and not report.deadlock
    assert time.monotonic() - t0 < 10


class _SlowToSpill(MonitorFrontier):
    """A monitor whose putter, after ``Full`` and before it can spill, waits until a robot has
    drained the frontier and fallen asleep in ``get``: the window the test is about, opened
    every time instead of by a sleep that hopes the robot got there.

    The robot's first get after the seed waits until a put has met ``Full``: without the GIL
    it could take the first link before the second was put, and then nothing is ever full."""

    def __init__(self, capacity):
        super().__init__(capacity=capacity)
        self._gets = 0
        self._full_met = threading.Event()

    def get(self, timeout=None):
        self._gets += 1  # one robot: no race on the count
        if self._gets == 2:
            assert self._full_met.wait(30), "no put met a full frontier within 30 s"
        return super().get(timeout)

    def put(self, url, priority=0.0, timeout=None):
        try:
            super().put(url, priority, timeout)
        except frontier.Full:
            self._full_met.set()
            wait_until(lambda: self._not_empty.sleepers > 0 and len(self) == 0, timeout=30,
                       what="the robot falling asleep on an empty frontier")
            raise


class _TwoLinksFromTheSeed:
    def fetch(self, url):
        links = ["http://h/1", "http://h/2"] if url == "http://h/" else []
        return FetchResult(url=url, final_url=url, status=200, links=links)


@pytest.mark.timeout(60)
def test_a_url_spilled_while_the_robots_sleep_is_still_crawled():
    """A producer spills a URL after the robot emptied the frontier and fell asleep in an
    untimed get: the spill must reach the frontier (and wake the robot) all the same."""
    crawler = Crawler(_TwoLinksFromTheSeed(), _SlowToSpill(capacity=1), ["http://h/"],
                      threads=1, producers=1, when_full="spill", watchdog=0.3, poll=None)
    report = crawler.run(seconds=10)
    assert report.stopped_by == "exhausted" and report.unique_pages == 3
    assert report.urls_spilled == 1 and report.seconds < 5


class _SlowAfterTheLast(MonitorFrontier):
    """A monitor whose robot, having taken the web's last URL, is held before it can mark itself
    busy: what a robot descheduled at that moment looks like (the sleep is the thread's delay,
    not a synchronization; the test asserts what the watchdog makes of it)."""

    def get(self, timeout=None):
        url = super().get(timeout)
        if url == "http://h/2":
            time.sleep(1.0)
        return url


@pytest.mark.timeout(60)
def test_a_robot_held_with_the_last_url_is_not_a_stall():
    """Every thread idle on an empty frontier with a URL still pending looks like a lost URL,
    but so does a robot held between taking the last URL and marking itself busy: a stall is
    called only after ``watchdog`` seconds of it (it was called after half a second)."""
    report = Crawler(_TwoLinksFromTheSeed(), _SlowAfterTheLast(capacity=4), ["http://h/"],
                     threads=1, watchdog=5.0).run(seconds=30)
    assert report.stopped_by == "exhausted" and report.unique_pages == 3
    assert report.urls_lost == 0


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", ["monitor", "semaphore"])
def test_untimed_waits_crawl_everything_with_a_live_frontier(name, web):
    f = frontier.create(name, capacity=5)
    fetcher = SimulatedFetcher(web, latency=0.0, seed=1)
    report = Crawler(fetcher, f, fetcher.seed_urls(), threads=8, producers=4,
                     when_full="block", poll=None).run(seconds=60)
    assert report.stopped_by == "exhausted"
    assert report.pages_fetched == report.unique_pages == web.size


def test_producers_must_not_be_negative(web):
    fetcher = SimulatedFetcher(web, latency=0.0, seed=1)
    with pytest.raises(ValueError, match="producers"):
        Crawler(fetcher, frontier.create("monitor"), fetcher.seed_urls(), producers=-1)


@pytest.mark.timeout(60)
def test_drop_counts_what_it_drops(web):
    report = _crawler("monitor", 4, web, when_full="drop").run(seconds=30)
    assert report.urls_dropped > 0
    # every discovered URL was either crawled or dropped: nothing silently lost
    assert report.unique_pages + report.urls_dropped == report.urls_discovered
    assert report.stopped_by == "exhausted"


@pytest.mark.timeout(60)
def test_max_pages_is_a_strict_budget(web):
    report = _crawler("lockfree", 8, web, latency=0.001).run(max_pages=50)
    assert report.pages_fetched == 50 and report.stopped_by == "max-pages"


@pytest.mark.timeout(60)
def test_the_clock_covers_every_counted_page(web):
    """Pages still in flight when the budget ends the crawl land later and are counted; the
    reported seconds must run until the last of them, or pages per second is flattered."""
    report = _crawler("monitor", 8, web, latency=0.05, timeline=True).run(max_pages=20)
    assert report.pages_fetched == 20 and len(report.timeline) == 20
    assert report.seconds >= max(t for t, _ in report.timeline) - 1e-3  # seconds has 4 decimals


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", [n for n in frontier.names()
                                  if frontier.info(n).ordering == "priority"])
def test_priority_order_finds_important_pages_first(name):
    """With OPIC priorities and a page budget, a priority frontier beats FIFO on quality, and
    URLs re-queued with a higher priority are still fetched once."""
    big = webgen.generate(n_pages=3000, n_sites=20, seed=2)
    fifo = _crawler("coarse", 1, big).run(max_pages=300)
    best = _crawler(name, 1, big).run(max_pages=300)
    assert best.quality > fifo.quality
    assert best.duplicates == 0


def _cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "crawlers", *args], capture_output=True,
                          text=True, timeout=120, **kw)


def test_json_output_has_the_promised_keys():
    r = _cli("crawl", "--sim", "--latency", "0", "--pages", "200", "--sites", "4",
             "--threads", "4", "--frontier", "fine", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    for key in ("frontier", "threads", "seconds", "pages_fetched", "unique_pages", "duplicates",
                "errors", "pages_per_second", "coverage", "quality"):
        assert key in d
    assert d["frontier"] == "fine" and d["unique_pages"] == 200 and d["coverage"] == 1.0


@pytest.mark.timeout(120)
def test_out_survives_an_interrupted_run(tmp_path):
    """SIGINT mid-crawl: the pages and edges fetched so far are on disk, and so is a summary.

    Mid-crawl by construction: the server holds every request after the 40th, so the crawl
    cannot end before the signal is sent; then it answers the held requests and at most 500
    more (of 3000 pages), so a crawl that ignored the signal could not finish either."""
    out = tmp_path / "crawl"
    with CountingWeb(pages=3000, sites=3, latency=0.0) as web:
        web.hold(after=40)
        cmd = [sys.executable, "-m", "crawlers", "crawl", "--threads", "4", "--politeness",
               "0.001", "--out", str(out), "--json"]
        for seed in web.seeds:
            cmd += ["--seed-url", seed]
        proc = subprocess.Popen(with_default_sigint(cmd), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            assert web.wait_requests(41, timeout=60), "the crawl never reached 41 requests"
            proc.send_signal(signal.SIGINT)
            web.release(more=500)
            try:
                stdout, stderr = proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                pytest.fail("the crawl did not stop within 60 s of SIGINT")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    assert proc.returncode == 130, stderr  # interrupted: not a finished crawl
    assert stderr.strip().splitlines()[-1].startswith("crawlab crawl: interrupted")
    lines = (out / "pages.jsonl").read_text().splitlines()
    # the 40 pages answered before the hold, less one fetch per thread that the interrupt may
    # cut while it reads its answer (a cut fetch is no page: a resumed crawl fetches it again)
    assert 40 - 4 <= len(lines) <= 540 and all(json.loads(line)["url"] for line in lines)
    edges = (out / "edges.txt").read_text().splitlines()
    assert edges and all(len(e.split()) == 2 for e in edges)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stopped_by"] == json.loads(stdout)["stopped_by"] == "interrupted"
    assert summary["pages_fetched"] == len(lines)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("after", ["robot-0", "watchdog"])
def test_a_ctrl_c_while_the_threads_start_is_the_interrupted_report(web, monkeypatch, after):
    """A Ctrl-C that lands while the crawl starts its threads (here raised the moment the
    first robot, or the last thread, has started: the same KeyboardInterrupt a SIGINT
    raises in the main thread) ends in the 'interrupted' report with every started thread
    joined, not in a traceback out of ``run``."""
    import threading

    class StartThenInterrupt(threading.Thread):
        def start(self) -> None:
            super().start()
            if self.name == after:
                raise KeyboardInterrupt

    crawler = _crawler("monitor", 4, web, latency=0.01)
    monkeypatch.setattr(threading, "Thread", StartThenInterrupt)
    try:
        report = crawler.run(seconds=30)
    except KeyboardInterrupt:  # out of run: a test failure, not pytest's own Ctrl-C
        pytest.fail("the KeyboardInterrupt escaped Crawler.run")
    finally:
        monkeypatch.undo()
    assert report.stopped_by == "interrupted"
    assert report.threads_unjoined == 0
    assert report.pages_fetched < web.size


# The crawl of the test below, in a child process: the bug it catches can hang the process
# for good (a lock taken and never released), which only a child's timeout bounds.
_SIGNAL_INSIDE_THREADING = """
import json, os, signal, sys
from crawlers.crawl.crawler import Crawler
from crawlers.crawl.report import GroundTruth
from crawlers.web import webgen
from crawlers.web.simfetch import SimulatedFetcher
from frontier.monitor import MonitorFrontier

where, name = sys.argv[1:3]
sig = getattr(signal, name)
web = webgen.generate(n_pages=400, n_sites=6, seed=3)
fetcher = SimulatedFetcher(web, latency=0.01, seed=1)
truth = GroundTruth(web.size, web.pagerank(), fetcher.addressing.page_of)
crawler = Crawler(fetcher, MonitorFrontier(30), fetcher.seed_urls(), threads=4,
                  when_full="spill", ground_truth=truth)
sent = []


def hook(frame, event, arg):
    if sent:
        return
    if (where == "acquire-restore" and event == "call"
            and frame.f_code.co_name == "_acquire_restore"):
        sent.append(frame.f_back.f_code.co_name)
    elif (where == "enter" and event == "c_return" and frame.f_code.co_name == "__enter__"
            and frame.f_locals.get("self") is crawler._stop._cond):
        sent.append(frame.f_back.f_code.co_name)  # the lock is taken, the with not yet begun
    else:
        return
    os.kill(os.getpid(), sig)


signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGTERM, signal.default_int_handler)  # as crawlab makes it
sys.setprofile(hook)  # this thread only: the conductor
try:
    report = crawler.run(seconds=30)
except KeyboardInterrupt:
    print(json.dumps({"escaped": True}))
    raise SystemExit(0)
finally:
    sys.setprofile(None)
handlers = [signal.getsignal(s) is signal.default_int_handler
            for s in (signal.SIGINT, signal.SIGTERM)]
print(json.dumps({"sent_in": sent, "handlers_back": handlers, "stopped_by": report.stopped_by,
                  "unjoined": report.threads_unjoined, "pages": report.pages_fetched,
                  "size": web.size}))
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("where", ["acquire-restore", "enter"])
def test_a_signal_inside_threadings_own_lock_code_still_ends_in_the_interrupted_report(
        where, name):
    """A signal's handler runs in the main thread between any two bytecodes, threading's
    own included. Here SIGINT (or SIGTERM, which ``crawlab`` makes a Ctrl-C) is sent the
    moment the conductor enters ``Condition._acquire_restore`` (in ``Event.wait``,
    ``Thread.start``, ``join``), or has just taken the lock of its stop event's Condition
    in ``__enter__``. A handler that raised there left ``with cond:`` releasing a lock
    nobody held (``RuntimeError`` out of ``run``, seen on 3.13t), or kept the lock taken
    for good (a hang: the crawl's own ``_stop.set()`` waits for it). The crawler runs the
    handler at its safe point instead: the 'interrupted' report, every thread joined, the
    handlers put back."""
    proc = run_child(_SIGNAL_INSIDE_THREADING, where, name, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "escaped" not in got, "the KeyboardInterrupt escaped Crawler.run"
    assert got["sent_in"], "the conductor never took a Condition's lock"
    assert got["handlers_back"] == [True, True]
    assert got["stopped_by"] == "interrupted"
    assert got["unjoined"] == 0
    assert got["pages"] < got["size"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--frontier", "nope"], "unknown frontier 'nope'; valid names:"),
        (["--threads", "0"], "--threads: must be a positive integer"),
        (["--threads", "-3"], "--threads: must be a positive integer"),
        (["--capacity", "0"], "--capacity: must be a positive integer"),
        (["--capacity", "x"], "--capacity: not an integer"),
        (["--seed-url", "ftp://example.test/"], "invalid seed URL"),
        (["--seed-url", "not a url"], "invalid seed URL"),
        (["--seconds", "0"], "--seconds: must be positive"),
        (["--latency", "-1"], "--latency: must not be negative"),
        (["--when-full", "explode"], "invalid choice"),
        (["--producers", "-1"], "--producers: must not be negative"),
        (["--pages", "3", "--sites", "5", "--sim"], "need pages >= sites"),
        (["--out", "/proc/no/such/dir", "--sim"], "cannot write to"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message):
    r = _cli("crawl", *args, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr


def test_the_served_generated_web_is_crawled_whole_over_http():
    """The default target (the generated web served on 127.0.0.1, fetched over HTTP): every
    page once, coverage 1 against the generator's own truth."""
    from crawlers.crawl.targets import WebOptions, open_target

    with open_target(WebOptions(kind="served", pages=60, sites=3, latency=0.0)) as target:
        report = Crawler(target.fetcher, frontier.create("monitor"), target.seeds, threads=4,
                         ground_truth=target.truth).run()
    assert report.stopped_by == "exhausted"
    assert report.pages_fetched == report.unique_pages == 60 and report.coverage == 1.0


def test_crawl_output_is_on_disk_as_soon_as_each_call_returns(tmp_path):
    """Each record is flushed before ``page``/``edges`` return, so a crawl killed at any
    moment leaves every line it wrote readable (``out`` survives a kill)."""
    from crawlers.crawl.output import CrawlOutput

    out = CrawlOutput(tmp_path)
    out.page(FetchResult(url="http://a.test/", final_url="http://a.test/", status=200))
    out.edges("http://a.test/", ["http://a.test/b", "http://a.test/c"])
    try:
        pages = (tmp_path / "pages.jsonl").read_text().splitlines()
        assert [json.loads(line)["url"] for line in pages] == ["http://a.test/"]
        assert (tmp_path / "edges.txt").read_text() == (
            "http://a.test/ http://a.test/b\nhttp://a.test/ http://a.test/c\n")
    finally:
        out.close()


def test_a_refusal_answered_after_the_crawl_stopped_is_a_refusal_not_a_cut_fetch():
    """The robot asking robots.txt for page 1 gets its answer (a refusal) only once the crawl
    has stopped at --max-pages, while the other robot fetched 0, 2, 4, ...: that stop cuts
    nothing, so the URL is counted refused. It was counted as a fetch cut (any refusal
    after any stop was), found by a second reading; a robots.txt fetch the stop itself cut
    is still a cut (test_hostile_crawl)."""
    from crawlers.page.robots import Refusal

    class Chain:  # page n links to n+2; page 0 to 1 as well (refused)
        def fetch(self, url: str) -> FetchResult:
            n = int(url.rsplit("/", 1)[1])
            return FetchResult(url=url, final_url=url, status=200,
                               links=[f"http://a.test/{n + 2}"]
                               + (["http://a.test/1"] if n == 0 else []))

    crawler: Crawler | None = None

    def robots(url: str):
        if int(url.rsplit("/", 1)[1]) % 2 == 0:
            return True
        assert crawler is not None and crawler._stop.wait(timeout=60), "the crawl never stopped"
        return Refusal("robots_refused")

    crawler = Crawler(Chain(), frontier.create("monitor"), ["http://a.test/0"], threads=2,
                      robots_allowed=robots)
    r = crawler.run(max_pages=5)
    assert r.stopped_by == "max-pages" and r.pages_fetched == 5
    assert r.fetches_cut == 0 and r.robots_refused == 1, (r.fetches_cut, r.robots_refused)


@pytest.mark.parametrize("kind", ["monitor", "heap"])
def test_urls_released_as_the_crawl_stops_stay_put_off(kind):
    """The watchdog releases URLs whose robots.txt may be asked again while the stop closes the
    frontier: the first put raises Closed, and the URLs not yet put were dropped from every
    count (neither put off, nor in the frontier, nor spilled). They stay put off, counted."""
    class NoFetch:
        def fetch(self, url):
            raise AssertionError("nothing is fetched here")

    crawler = Crawler(NoFetch(), frontier.create(kind), ["http://a.test/"], threads=1)
    past = time.monotonic() - 1
    for n, url in enumerate(["http://a.test/1", "http://a.test/2", "http://a.test/3"]):
        crawler._later.append((past, n, url, 0.0))  # due: their site may be asked again
    crawler.frontier.close()  # the stop, as _end_threads closes it
    assert crawler._release_due() == 0
    assert crawler._report().robots_put_off == 3
    assert len(crawler.frontier) == 0 and not crawler._spill
