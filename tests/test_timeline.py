"""Thread timelines: each thread's intervals land in its own row, the trace file is the Trace
Event Format, and a crawl records where its robots' time went."""

from __future__ import annotations

import gc
import json
import threading
import time

import pytest

import frontier
from crawlers.crawl.timeline import STATES, Timeline, dominant
from frontier import waiting
from tests.helpers import current_frames, join_all, make, start_thread, wait_until


def test_each_thread_gets_its_own_row_with_its_own_intervals():
    tl = Timeline()
    barrier = threading.Barrier(3)

    def work(state: str) -> None:
        barrier.wait(timeout=10)  # all three record at once
        for _ in range(50):
            with tl.span(state):
                pass

    threads = [threading.Thread(target=work, args=(s,), name=f"t-{s}", daemon=True)
               for s in ("fetch", "lock", "not_empty")]
    for t in threads:
        t.start()
    join_all(threads, 10)
    rows = dict(tl.rows())
    assert set(rows) == {"t-fetch", "t-lock", "t-not_empty"}
    for name, spans in rows.items():
        assert len(spans) == 50
        assert {s for s, _, _ in spans} == {name[2:]}
        starts = [a for _, a, _ in spans]
        assert starts == sorted(starts)
    tl._check()


def test_trace_events_are_complete_events_one_tid_per_thread(tmp_path):
    tl = Timeline()
    tl.record("fetch", tl.t0 + 0.001, tl.t0 + 0.003)
    t = start_thread(lambda: tl.record("lock", tl.t0 + 0.002, tl.t0 + 0.0025))
    join_all([t], 5)
    path = tl.write_trace(tmp_path / "trace.json")
    events = json.loads(path.read_text())["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M"}
    assert len(names) == 2
    spans = [e for e in events if e["ph"] == "X" and e["cat"] == "state"]
    assert sorted((e["name"], e["ts"], e["dur"]) for e in spans) == [
        ("fetch", 1000.0, 2000.0), ("lock", 2000.0, 500.0)]
    assert {e["tid"] for e in spans} == set(names)


def test_totals_count_run_as_the_rest_of_a_threads_life():
    tl = Timeline()
    tl.record("run", tl.t0, tl.t0)
    tl.record("fetch", tl.t0 + 1.0, tl.t0 + 3.0)
    tl.record("run", tl.t0 + 4.0, tl.t0 + 4.0)
    totals = tl.totals()
    assert totals["fetch"] == 2.0 and totals["run"] == 2.0
    assert set(totals) == set(STATES)


def test_a_crawl_records_every_robots_fetches(tmp_path):
    from crawlers.crawl.crawler import Crawler
    from crawlers.web.simfetch import SimulatedFetcher
    from crawlers.web.webgen import generate

    web = generate(n_pages=200, n_sites=4, seed=3)
    fetcher = SimulatedFetcher(web, latency=0.001, jitter=0.0, seed=3)
    tl = Timeline()
    crawler = Crawler(fetcher, frontier.create("monitor", capacity=10),
                      fetcher.addressing.seed_urls(), threads=3, thread_timeline=tl)
    report = crawler.run()
    rows = dict(tl.rows())
    robots = {f"robot-{i}" for i in range(3)}
    assert robots <= set(rows)
    fetches = sum(1 for name in robots for s, _, _ in rows[name] if s == "fetch")
    assert fetches == report.pages_fetched
    assert tl.totals()["fetch"] > 0
    tl._check()
    png = tl.plot(tmp_path / "t.png", title="monitor")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- the frontiers report their waits through frontier.probe ----------------------------------


def _recorded(run) -> list[tuple[str, str]]:
    """``(thread name, state)`` of every wait the frontiers reported while ``run()`` ran."""
    from frontier import probe

    tl = Timeline()
    with probe.recording(tl.record):
        run()
    return [(name, state) for name, spans in tl.rows() for state, _, _ in spans]


def _past_the_try(thread: threading.Thread) -> bool:
    """Whether ``thread`` is in :func:`frontier.waiting.acquire_counted` past its non-blocking
    try, which failed: only that branch binds ``record``. (Inside the function is not enough:
    without the GIL the lock can be released before the try, which then succeeds.)"""
    frame = current_frames().get(thread.ident)
    while frame is not None:
        if frame.f_code is waiting.acquire_counted.__code__:
            return "record" in frame.f_locals
        frame = frame.f_back
    return False


def test_a_contended_lock_is_recorded_as_a_lock_wait():
    f = frontier.create("monitor", capacity=4)

    def run() -> None:
        f._mutex.acquire()  # hold the frontier's lock, so the put below must wait for it
        putter = threading.Thread(target=f.put, args=("http://a.test/",), name="putter",
                                  daemon=True)
        putter.start()
        try:
            wait_until(lambda: _past_the_try(putter), what="the putter's try of the lock failing")
        finally:
            f._mutex.release()
        join_all([putter], 10)

    assert ("putter", "lock") in _recorded(run)
    assert f.get(timeout=1) == "http://a.test/"


@pytest.mark.parametrize("name, op, state", [
    ("monitor", "get", "not_empty"),
    ("monitor", "put", "not_full"),
    ("semaphore", "get", "not_empty"),
    ("semaphore", "put", "not_full"),
    ("fine", "get", "not_empty"),
    ("lockfree", "get", "not_empty"),
    ("optimistic", "put", "not_full"),
])
def test_a_wait_in_the_frontier_is_recorded_with_what_it_waits_for(name, op, state):
    f = make(name, capacity=1)
    if op == "put":
        f.put("http://full.test/")

    def run() -> None:
        call = (lambda: f.put("http://more.test/", timeout=0.01)) if op == "put" else (
            lambda: f.get(timeout=0.01))
        with pytest.raises(frontier.Full if op == "put" else frontier.Empty):
            call()

    states = [s for _, s in _recorded(run)]
    assert states and set(states) == {state}, states


def test_nothing_is_recorded_without_a_recorder():
    from frontier import probe

    assert probe.recorder is None
    f = frontier.create("monitor", capacity=1)
    with pytest.raises(frontier.Empty):
        f.get(timeout=0.01)
    with probe.recording(lambda *a: None), pytest.raises(RuntimeError):
        with probe.recording(lambda *a: None):
            pass
    assert probe.recorder is None


def test_crawl_timeline_flag_writes_the_picture_and_the_trace(tmp_path, capsys):
    from crawlers.cli import main

    stem = tmp_path / "monitor"
    assert main(["crawl", "--sim", "--latency", "0.001", "--pages", "120", "--sites", "3",
                 "--threads", "3", "--capacity", "4", "--timeline", f"{stem}.png"]) == 0
    assert f"timeline: {stem}.png and {stem}.json" in capsys.readouterr().err
    assert stem.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    events = json.loads(stem.with_suffix(".json").read_text())["traceEvents"]
    threads = {e["args"]["name"] for e in events if e["ph"] == "M"}
    assert {"robot-0", "robot-1", "robot-2"} <= threads
    assert sum(1 for e in events if e["ph"] == "X" and e["name"] == "fetch") == 120


def test_crawl_timeline_in_a_missing_folder_is_one_line_and_exit_2(tmp_path, capsys):
    from crawlers.cli import main

    assert main(["crawl", "--sim", "--timeline", str(tmp_path / "no" / "t")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--timeline: no such folder" in err[0], err


def test_recording_keeps_no_object_for_the_collector_per_interval():
    """A buffer of tuples would give the cyclic collector one more object per interval to walk
    at every collection (on free-threaded 3.13, whose collector is not generational, that made
    a record cost 1.7 us instead of 0.2 us): intervals are kept unboxed."""
    tl = Timeline()
    tl.mark()  # the buffer exists
    gc.disable()
    try:
        before = len(gc.get_objects())
        start = time.perf_counter()
        for _ in range(10_000):
            tl.record("lock", start, time.perf_counter())
        grown = len(gc.get_objects()) - before
    finally:
        gc.enable()
    assert grown < 100, grown
    assert len(tl.rows()[0][1]) == 10_001


def test_each_column_shows_the_state_that_took_most_of_its_time():
    """Ten thousand intervals of 90 us on a lock, each followed by 10 us of fetch: drawn one
    by one, the fetch bars (at least a pixel each) covered the row; the columns say lock."""
    spans = []
    for i in range(10_000):
        t = i * 1e-4
        spans += [("lock", t, t + 9e-5), ("fetch", t + 9e-5, t + 1e-4)]
    bars = dominant(spans, 0.0, 1.0, bins=1000)
    assert [state for state, _, _ in bars] == ["lock"]
    assert bars[0][1] == 0.0 and abs(bars[0][2] - 1.0) < 1e-9


def test_run_is_the_life_the_other_states_leave_and_columns_outside_life_are_empty():
    spans = [("run", 0.2, 0.8), ("fetch", 0.2, 0.3), ("not_full", 0.7, 0.8)]
    bars = dominant(spans, 0.0, 1.0, bins=10)
    assert [(s, round(x, 6), round(w, 6)) for s, x, w in bars] == [
        ("fetch", 0.2, 0.1), ("run", 0.3, 0.4), ("not_full", 0.7, 0.1)]
