"""A frontier the crawler does not own (a student's) that blocks or answers nonsense ends the
crawl with an error that says so, never hangs it, and never keeps Ctrl-C from working.

The conductor (the thread that calls ``Crawler.run``) calls the frontier twice: to put the
seeds (``put(url, timeout=0)``) and to ``close()`` it at the end; both now run off the
conductor, which waits for them at its safe point (``STUCK_AFTER`` bounds a call that makes no
progress). Robots check what ``get`` hands them."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from crawlers.crawl import crawler as crawler_module
from crawlers.crawl.crawler import Crawler
from crawlers.web import webgen
from crawlers.web.simfetch import SimulatedFetcher
from frontier.monitor import MonitorFrontier

RELEASE = threading.Event()  # lets every blocked frontier call go at the end of each test


@pytest.fixture(autouse=True)
def released():
    RELEASE.clear()
    yield
    RELEASE.set()  # the calls left blocked in their threads return; nothing outlives the test


@pytest.fixture
def fast_stuck(monkeypatch):
    monkeypatch.setattr(crawler_module, "STUCK_AFTER", 0.5)


def _crawl(frontier, **kwargs):
    web = webgen.generate(n_pages=60, n_sites=3, seed=5)
    fetcher = SimulatedFetcher(web, latency=0.0, seed=1)
    return Crawler(fetcher, frontier, fetcher.seed_urls(), threads=2, when_full="spill",
                   **kwargs)


class PutWaitsAnyway(MonitorFrontier):
    """put(timeout=0) waits (here: until the test ends) instead of raising Full at once."""

    def put(self, url, priority=0.0, timeout=None):
        if self.entered is not None:
            self.entered.set()
        RELEASE.wait(60)


class CloseNeverReturns(MonitorFrontier):
    """close() waits for a lock it never gets."""

    def close(self):
        RELEASE.wait(60)


class GetAnswersNonsense(MonitorFrontier):
    def get(self, timeout=None):
        super().get(timeout)
        return 12345


class GetEndsTheProcess(MonitorFrontier):
    def get(self, timeout=None):
        raise SystemExit(3)


class PutAndCloseWait(PutWaitsAnyway):
    """Both wait (here: until the test ends), as when put took a lock it never releases and
    close() needs it; close() notes that it was called."""

    def close(self):
        self.close_called = True
        RELEASE.wait(60)


def test_a_seed_put_that_never_returns_fails_the_crawl_in_bounded_time(fast_stuck):
    """After STUCK_AFTER, once: the frontier found stuck, close() is not called to be waited
    for STUCK_AFTER more (it needs the lock the stuck put holds)."""
    f = PutAndCloseWait(30)
    f.entered, f.close_called = None, False
    with pytest.raises(RuntimeError, match=r"put\(url, timeout=0\) of a seed has not returned"):
        _crawl(f).run(seconds=30)
    assert not f.close_called


def test_a_close_that_never_returns_fails_the_crawl_after_its_pages(fast_stuck):
    crawler = _crawl(CloseNeverReturns(30))
    with pytest.raises(RuntimeError, match=r"close\(\) has not returned"):
        crawler.run(seconds=30)
    assert crawler._n == 60  # the crawl itself ran to its end first


def test_a_time_slice_that_ends_while_the_frontier_takes_the_seeds_ends_the_crawl_on_time():
    """The conductor waited for the seeding until STUCK_AFTER (10 s) whatever the slice: a
    0.3 s crawl reported 'time' after 3.4 s, or failed as stuck after 10 s."""
    f = PutWaitsAnyway(30)
    f.entered = None
    crawler = _crawl(f)
    report = crawler.run(seconds=0.3)
    assert report.stopped_by == "time"
    assert report.seconds < crawler_module.STUCK_AFTER / 2
    assert crawler._n == 0  # no robot started


def test_ctrl_c_while_the_frontier_blocks_the_seeding_ends_in_the_interrupted_report():
    """The conductor waits for the stuck put at its safe point, where Ctrl-C is handled:
    the 'interrupted' report, long before STUCK_AFTER."""
    f = PutWaitsAnyway(30)
    f.entered = threading.Event()

    def interrupt_once_blocked() -> None:
        if f.entered.wait(10):
            os.kill(os.getpid(), signal.SIGINT)

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    sender = threading.Thread(target=interrupt_once_blocked, daemon=True)
    sender.start()
    try:
        report = _crawl(f).run(seconds=30)
    except KeyboardInterrupt:
        pytest.fail("the KeyboardInterrupt escaped Crawler.run")
    finally:
        sender.join(10)
        signal.signal(signal.SIGINT, before)
    assert report.stopped_by == "interrupted"
    assert report.seconds < crawler_module.STUCK_AFTER


def test_a_get_that_hands_out_a_non_url_fails_the_crawl_saying_what_it_returned():
    with pytest.raises(RuntimeError, match=r"get\(\) returned 12345 \(int\), neither a URL"):
        _crawl(GetAnswersNonsense(30)).run(seconds=30)


def test_a_system_exit_in_the_frontier_is_a_failure_not_a_silent_exit_status():
    with pytest.raises(RuntimeError, match=r"SystemExit\(3\) raised in a crawl thread") as info:
        _crawl(GetEndsTheProcess(30)).run(seconds=30)
    assert isinstance(info.value.__cause__, SystemExit)


class CloseSendsCtrlC(MonitorFrontier):
    """close() takes a while, and a Ctrl-C comes meanwhile (here: from close() itself)."""

    def close(self):
        os.kill(os.getpid(), signal.SIGINT)
        RELEASE.wait(0.3)  # a slow close: the Ctrl-C waits the length of a safe-point turn
        super().close()


def test_a_ctrl_c_during_the_teardown_waits_until_it_is_done():
    """Raised inside the teardown (at the wait for a slow close()), Ctrl-C skipped the robots'
    join and the journal's close: robots fetched on after the journal was closed as clean,
    and a resumed crawl lost their pages. It is now raised once the teardown is done."""
    crawler = _crawl(CloseSendsCtrlC(30))
    ended = []
    end_threads = crawler._end_threads

    def recorded(*args):
        end_threads(*args)
        ended.append(True)

    crawler._end_threads = recorded
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            crawler.run(seconds=30)
    finally:
        signal.signal(signal.SIGINT, before)
    assert ended == [True], "the Ctrl-C cut the teardown short"
    assert crawler._unjoined == 0
