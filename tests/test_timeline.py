"""Thread timelines: each thread's intervals land in its own row, the trace file is the Trace
Event Format, and a crawl records where its robots' time went."""

from __future__ import annotations

import json
import threading

import frontier
from crawlers.crawl.timeline import STATES, Timeline
from tests.helpers import join_all, start_thread


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
