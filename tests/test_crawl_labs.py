"""The crawler's races, memory and parsers labs: the library code they rely on.

The race test forces the interleaving with a handshake (no sleeps, bounded waits); the memory
tests check the measurement against structures whose size is known; the parsers tests crawl a
three-page site served on 127.0.0.1.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
import time

import pytest

import frontier
from crawlers.cli import main as crawlab
from crawlers.crawl.visited import VisitedSet
from crawlers.web.server import WebServer
from labs import lab_crawl_parsers as parsers_lab
from labs import lab_crawl_races as races
from labs.crawlbench import make_web
from labs.lab_crawl_memory import realistic_urls, traced_bytes
from tests.helpers import run_child

WAIT = 10.0  # seconds any handshake may take before the test fails instead of hanging


# -- races ------------------------------------------------------------------------------------

def test_a_switch_inside_pop_hands_one_url_out_twice_and_loses_the_next(monkeypatch):
    f = races.WindowFrontier(capacity=4)
    f.put("http://a.test/1")
    f.put("http://a.test/2")
    inside, resume = threading.Event(), threading.Event()
    main_thread = threading.get_ident()

    def switch_point() -> None:  # the worker stops inside pop until the main thread popped
        if threading.get_ident() != main_thread:
            inside.set()
            assert resume.wait(WAIT)

    monkeypatch.setattr(races, "switch_point", switch_point)
    got = []
    worker = threading.Thread(target=lambda: got.append(f.get(timeout=WAIT)))
    worker.start()
    assert inside.wait(WAIT)
    mine = f.get(timeout=WAIT)  # reads the same head slot as the stalled worker
    resume.set()
    worker.join(WAIT)
    assert not worker.is_alive()
    assert got == [mine] == ["http://a.test/1"]
    assert f.stats.duplicates_handed_out == 1
    assert len(f) == 0  # the count drifted: URL 2 is still stored but can never be taken
    with pytest.raises(frontier.Empty):
        f.get(timeout=0.01)


def test_the_locked_control_crawls_every_page_once_at_every_switch_interval():
    web = make_web(pages=400, sites=4, seed=3)
    before = sys.getswitchinterval()
    for switch in (1e-4, 1e-6):
        row = races.crawl_to_the_end(web, races.CONTROL, 4, switch, capacity=30, seed=3)
        assert row["stopped_by"] == "exhausted"
        assert row["unique_pages"] == row["urls_discovered"] == row["pages_fetched"]
        assert row["fetched_twice"] == row["never_fetched"] == row["urls_lost"] == 0
    assert sys.getswitchinterval() == before  # restored


def test_the_races_lab_counts_agree_with_the_ground_truth():
    web = make_web(pages=400, sites=4, seed=3)
    row = races.crawl_to_the_end(web, races.WINDOW, 4, 1e-4, capacity=30, seed=3)
    dup, out, raced = row["fetched_twice"], row["handed_out_twice"], row["visited_races"]
    # a page fetched twice was handed out twice, or claimed new by two threads and stored twice
    # (whose second copy may be overwritten before anyone takes it: hence <=, as seen on 3.13t)
    assert out <= dup <= out + raced
    assert row["unique_pages"] + row["never_fetched"] == row["urls_discovered"]
    if row["stopped_by"] == "stalled":  # pending = claims - fetches, and claims = urls + races
        assert row["urls_lost"] == row["never_fetched"] - dup + raced
    assert races.counts_agree(row)


# The signal tests run in a child process of their own (tests.helpers.run_child), bounded by a
# timeout: a deadlock after a signal can leave even pytest-timeout's alarm unanswered (seen on
# 3.13t), and a hung test must fail, never hang the run.
_RACES_CHILD = """
import json, os, signal, sys, threading
from crawlers.cli import main as crawlab
from labs import lab_crawl_races as races
from labs.crawlbench import make_web
from labs.harness import script

how, name, out = sys.argv[1:4]
sig = getattr(signal, name)
crawls, lock = [], threading.Lock()  # lock: guards the count of fetches below


class Signalling(races.SimulatedFetcher):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fetches = 0
        crawls.append(self)

    def fetch(self, url):
        with lock:
            self.fetches += 1
            now = len(crawls) == 1 and self.fetches == 3
        if now:
            os.kill(os.getpid(), sig)  # as kill PID (or Ctrl-C) does
        return super().fetch(url)


races.SimulatedFetcher = Signalling
races.make_web = lambda pages, sites, seed: make_web(300, 4, seed)
signal.signal(signal.SIGINT, signal.default_int_handler)  # even if the parent ignored it
signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the same
argv = ["--quick", "--no-plot", "--out", out]
try:
    if how == "crawlab":
        status = crawlab(["lab", "crawl-races", *argv])
    else:
        status = script(races.main, argv)
except KeyboardInterrupt:
    status = "escaped"
print(json.dumps({"status": status, "crawls": len(crawls)}))
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("how, name", [("crawlab", "SIGTERM"), ("crawlab", "SIGINT"),
                                       ("directly", "SIGINT"), ("directly", "SIGTERM")])
def test_a_signal_mid_crawl_ends_the_races_lab(tmp_path, how, name):
    """Ctrl-C, or SIGTERM (``kill``, ``timeout``), in a crawl stopped that crawl alone: the lab
    went on with the next ones, counted the pages the cut crawl never fetched as lost, and
    wrote it all, status 0. Now it ends there as ``crawlab`` ends on Ctrl-C: one line,
    ``interrupted``, status 130, no CSV. The signal is sent by the first crawl's third fetch,
    so it lands mid-crawl on any machine (``crawlab lab`` or ``python -m
    labs.lab_crawl_races``, which runs ``script(main)``; run directly, SIGTERM killed the lab
    at once, status -15 and nothing said)."""
    proc = run_child(_RACES_CHILD, how, name, str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["status"] == 130, (got, proc.stderr)
    assert proc.stderr == (
        f"crawlab lab{' crawl-races' if how == 'directly' else ''}: interrupted\n")
    assert got["crawls"] == 1  # no crawl after the interrupted one
    assert not (tmp_path / "crawl-races" / "crawl-races.csv").exists()


# -- memory -----------------------------------------------------------------------------------

def test_traced_bytes_sees_a_list_of_pointers_as_8_bytes_each():
    items = [object() for _ in range(50_000)]
    start = time.perf_counter()
    held, seconds, result = traced_bytes(lambda: list(items))
    outer = time.perf_counter() - start
    assert len(result) == 50_000
    assert 0 < seconds <= outer  # the build's own time: within the call, never zero
    assert 8 <= held / 50_000 < 9


def test_traced_bytes_does_not_count_what_the_build_freed():
    held, _, _ = traced_bytes(lambda: len([str(i) * 10 for i in range(20_000)]))
    assert held < 10_000


def test_realistic_urls_are_distinct_deterministic_and_web_sized():
    urls = realistic_urls(5000, seed=2)
    assert urls == realistic_urls(5000, seed=2) != realistic_urls(5000, seed=3)
    assert len(set(urls)) == 5000
    assert 55 <= sum(map(len, urls)) / len(urls) <= 90


def test_the_visited_set_stays_under_150_bytes_per_url():
    urls = realistic_urls(50_000, seed=1)

    def fill():
        v = VisitedSet()
        for u in urls:
            v.claim(u)
        return v

    held, _, v = traced_bytes(fill)
    assert len(v) == 50_000
    assert held / 50_000 <= 150


# -- parsers ----------------------------------------------------------------------------------

@pytest.fixture
def little_site(tmp_path):
    """Three linked pages (one of them linked twice, once with a fragment) and a PNG."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(
        '<html><body><a href="a.html">a</a> <a href="b.html#x">b</a> '
        '<a href="pic.png">pic</a> <a href="http://elsewhere.test/c.html">out</a></body></html>')
    (site / "a.html").write_text('<html><body><a href="b.html">b</a></body></html>')
    (site / "b.html").write_text('<html><body><a href="index.html">home</a></body></html>')
    (site / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return site


def test_our_crawl_of_two_mirrors_fetches_each_page_once_and_times_parsing(little_site):
    with WebServer(dirs=[str(little_site)] * 2, mode="thread") as server:
        seeds = [u + "/index.html" for u in server.site_urls]
        for parser in ("lxml", "bs4"):
            before = os.times()
            row = parsers_lab.our_crawl(seeds, parser, threads=4, max_pages=100)
            after = os.times()
            assert row["pages"] == 6 and row["errors"] == 0  # 3 pages x 2 mirrors, no PNG
            assert row["parse_ms_per_page"] > 0
            # the crawl's own CPU time: part of what this process spent during the call
            assert 0 <= row["cpu_user_s"] <= after.user - before.user
            assert 0 <= row["cpu_sys_s"] <= after.system - before.system


@pytest.mark.skipif(importlib.util.find_spec("scrapy") is None, reason="scrapy not installed")
def test_the_scrapy_crawl_follows_the_same_scope(little_site):
    with WebServer(dirs=[str(little_site)]) as server:
        seed = server.site_urls[0] + "/index.html"
        proc = subprocess.run([sys.executable, "-m", "labs.scrapy_crawl", "--seed", seed,
                               "--max-pages", "2"], capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 0, proc.stderr[-500:]
        limited = json.loads(proc.stdout.strip().splitlines()[-1])
        row = parsers_lab.scrapy_crawl([seed], max_pages=100)
    assert limited["pages"] == 2
    assert row is not None and row["pages"] == 3 and row["errors"] == 0
    assert row["pages_per_s"] > 0 and row["threads"] == 16


def test_a_site_dir_without_html_is_one_line_and_status_2(tmp_path, capsys):
    status = crawlab(["lab", "crawl-parsers", "--quick", "--site-dir", str(tmp_path),
                      "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and "no .html files under" in err


def test_the_page_rule_keeps_html_paths_only():
    assert parsers_lab.is_page("http://127.0.0.1:8000/api/x.html")
    assert not parsers_lab.is_page("http://127.0.0.1:8000/_images/x.png")
    assert not parsers_lab.is_page("http://127.0.0.1:8000/_sources/x.rst.txt")


# -- crawl-threads: the frontier-bound panel ---------------------------------------------------

def test_the_frontier_bound_panel_runs_every_frontier_alike_and_scales_by_its_own_one_robot(
        tmp_path):
    import csv

    from labs import lab_crawl_threads as ct
    from labs.harness import Lab

    lab = Lab("crawl-threads", ct.__doc__, ["--quick", "--no-plot", "--runs", "3",
                                            "--out", str(tmp_path)], extra=ct._flags)
    web = make_web(pages=2000, sites=4, seed=1)
    names = ("monitor", "lockfree")
    rows = ct.frontier_bound(lab, web, names, seconds=0.2, warmup=0.05)
    cores = os.cpu_count() or 1
    assert sorted({r["threads"] for r in rows}) == sorted({1, 2, 2 * cores})
    for name in names:  # the same number of runs at every point, for every frontier
        for t in {1, 2, 2 * cores}:
            assert sorted(r["run"] for r in rows
                          if r["frontier"] == name and r["threads"] == t) == [0, 1, 2]
        ones = sorted(r["vs_one_robot"] for r in rows
                      if r["frontier"] == name and r["threads"] == 1)
        assert ones[1] == 1.0  # each frontier against its own 1-robot median
        assert all(r["latency"] == 0.0 for r in rows)
    with open(tmp_path / "crawl-threads" / "frontier-bound.csv") as f:
        written = list(csv.DictReader(f))
    assert len(written) == len(rows) and written[0]["source"] == "measured"


_SIM_CHILD = """
import json, os, signal, threading
from labs import crawlbench
from labs.crawlbench import make_web

lock = threading.Lock()  # guards fetches
fetches = [0]


class Signalling(crawlbench.SimulatedFetcher):
    def fetch(self, url):
        with lock:
            fetches[0] += 1
            now = fetches[0] == 3
        if now:
            os.kill(os.getpid(), signal.SIGINT)
        return super().fetch(url)


crawlbench.SimulatedFetcher = Signalling
signal.signal(signal.SIGINT, signal.default_int_handler)  # even if the parent ignored it
try:
    crawlbench.sim_crawl(make_web(300, 4, 1), "monitor", 4, latency=0.0, seconds=60)
    ended = "returned"
except KeyboardInterrupt:
    ended = "interrupted"
print(json.dumps({"ended": ended, "fetches": fetches[0]}))
"""


@pytest.mark.timeout(120)
def test_a_ctrl_c_mid_crawl_ends_the_crawl_labs_shared_crawl():
    """``sim_crawl`` (crawl-threads, crawl-capacity, crawl-timelines ...) raises Ctrl-C again
    instead of handing back the cut crawl's report as a measurement: the crawler turns Ctrl-C
    into a report that says ``interrupted``, and the lab's loop would go on to its next
    crawl. The signal comes from the third fetch, so it lands mid-crawl."""
    proc = run_child(_SIM_CHILD)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["ended"] == "interrupted" and got["fetches"] >= 3, got


@pytest.mark.parametrize("module", ["lab_bsp_failures", "lab_bsp_speedup", "lab_partition"])
def test_a_bsp_crawl_cut_by_ctrl_c_ends_the_bsp_labs(monkeypatch, tmp_path, module):
    """BSP's coordinator turns the first Ctrl-C into a report (``stopped_by`` says
    ``interrupted``) as the threaded crawler does; a BSP lab that kept it recorded a cut crawl
    as a measured one and went on to its next. Each lab's call of ``run_bsp`` now passes its
    report through ``to_the_end``, which raises Ctrl-C again (a report whose workers gave
    more than one reason lists them all)."""
    import importlib

    from crawlers.bsp import driver
    from crawlers.bsp.report import BspReport

    lab = importlib.import_module(f"labs.{module}")
    cut = BspReport(frontier="cbt", procs=2, robots=1, R=1, backend="processes",
                    partition="site-hash", stopped_by="exhausted,interrupted")
    calls = []

    def run_bsp(config, *args, **kwargs):
        calls.append(config)
        return cut

    monkeypatch.setattr(driver, "run_bsp", run_bsp)
    if hasattr(lab, "run_bsp"):
        monkeypatch.setattr(lab, "run_bsp", run_bsp)
    with pytest.raises(KeyboardInterrupt):
        if module == "lab_bsp_failures":
            lab.main(["--quick", "--no-plot", "--out", str(tmp_path)])
        elif module == "lab_bsp_speedup":
            lab._bsp_crawl(["http://127.0.0.1:9/a.html"], 2, tmp_path, "processes")
        else:
            lab._bsp_check(lab.Lab("partition", lab.__doc__,
                                   ["--quick", "--no-plot", "--out", str(tmp_path)]))
    assert len(calls) == 1  # no crawl after the cut one
    assert not list(tmp_path.rglob("*.csv"))

