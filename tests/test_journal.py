"""The crawl journal (``crawlab crawl --state DIR``): kill -9 at a random moment, resume, and
compare with what the server saw; corrupt journals; the journal's own invariants.

The witness is :class:`tests.countserver.CountingWeb`, a server that counts requests per URL
and knows nothing of the crawler. Kills are timed by its request counter, never by a sleep.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading

import pytest

from crawlers.crawl.journal import DB, Journal, JournalError, release_folder
from tests.countserver import CountingWeb
from tests.helpers import join_all

PAGES, SITES = 300, 3


def crawl_cmd(web: CountingWeb, state, *, threads: int = 4, commit_every: int = 8,
              frontier: str = "monitor", seeds=None, out=None) -> list[str]:
    cmd = [sys.executable, "-m", "crawlers", "crawl", "--json", "--frontier", frontier,
           "--threads", str(threads), "--politeness", "0.001", "--state", str(state),
           "--commit-every", str(commit_every), *(["--out", str(out)] if out else [])]
    for s in seeds if seeds is not None else web.seeds:
        cmd += ["--seed-url", s]
    return cmd


def finish(cmd: list[str]) -> dict:
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def assert_each_page_once(out, urls: set[str]) -> None:
    """``--out`` of a crawl killed and resumed: every page of the web in ``pages.jsonl`` once,
    and each page's edges in ``edges.txt`` as many times as its record says it had links."""
    records = [json.loads(line) for line in (out / "pages.jsonl").read_text().splitlines()]
    assert sorted(r["url"] for r in records) == sorted(urls)
    edges: dict[str, int] = {}
    for line in (out / "edges.txt").read_text().splitlines():
        source = line.split(" ")[0]
        edges[source] = edges.get(source, 0) + 1
    assert edges == {r["url"]: r["links"] for r in records if r["links"]}


def kill_after(cmd: list[str], web: CountingWeb, requests: int) -> None:
    """Start the crawl and SIGKILL it once the server has had ``requests`` page requests."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert web.wait_requests(requests, timeout=60), "the crawl never got that far"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, "the crawl ended before the kill"


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_kill_minus_9_then_resume_loses_nothing_and_refetches_within_the_bound(tmp_path, seed):
    rng = random.Random(seed)
    threads, commit_every = rng.choice([2, 4, 8]), rng.choice([1, 8, 32])
    frontier = rng.choice(["monitor", "heap", "coarse"])
    at = rng.randrange(20, PAGES - 40)
    with CountingWeb(pages=PAGES, sites=SITES, seed=seed) as web:
        cmd = crawl_cmd(web, tmp_path / "state", threads=threads, commit_every=commit_every,
                        frontier=frontier, out=tmp_path / "out")
        kill_after(cmd, web, at)
        before = web.counts
        report = finish(cmd)
        counts = web.counts
    served_before = sum(before.values())
    extra = sum(n - 1 for n in counts.values())
    bound = threads + commit_every
    # no page lost: the resumed crawl ends with every page, as an uninterrupted one does
    assert set(counts) == web.urls
    assert report["unique_pages"] == PAGES and report["pages_fetched"] == PAGES
    # re-fetches (the server's count) within the stated bound, and reported
    assert report["refetch_bound"] == bound
    assert extra <= report["refetched"] <= bound, (extra, report["refetched"], bound)
    # what the first session fetched beyond its last commit is all that was redone
    assert report["resumed"] >= served_before - bound
    assert report["stopped_by"] == "exhausted"
    assert_each_page_once(tmp_path / "out", web.urls)  # and --out holds each page once


def test_two_kills_then_resume_stay_within_the_summed_bound(tmp_path):
    threads, commit_every = 4, 16
    with CountingWeb(pages=PAGES, sites=SITES, seed=7) as web:
        cmd = crawl_cmd(web, tmp_path / "state", threads=threads, commit_every=commit_every,
                        out=tmp_path / "out")
        kill_after(cmd, web, 80)
        kill_after(cmd, web, web.total + 80)
        report = finish(cmd)
        counts = web.counts
    extra = sum(n - 1 for n in counts.values())
    assert set(counts) == web.urls and report["unique_pages"] == PAGES
    assert_each_page_once(tmp_path / "out", web.urls)
    assert report["refetch_bound"] == 2 * (threads + commit_every)
    assert extra <= report["refetched"] <= report["refetch_bound"]


def test_uninterrupted_crawl_fetches_each_page_once_and_a_rerun_fetches_nothing(tmp_path):
    with CountingWeb(pages=PAGES, sites=SITES) as web:
        cmd = crawl_cmd(web, tmp_path / "state")
        first = finish(cmd)
        once = web.counts
        again = finish(cmd)
        twice = web.counts
    assert set(once) == web.urls and set(once.values()) == {1}
    assert first["resumed"] == 0 and first["refetch_bound"] is None
    # a real web (no ground truth): coverage against every URL the crawl reached
    assert first["coverage"] == 1.0 and first["coverage_basis"] == "discovered"
    assert twice == once  # the finished crawl is not fetched again
    assert again["resumed"] == PAGES and again["unique_pages"] == PAGES
    # a session that ended cleanly may have had one fetch per robot cut, fetched again later
    assert again["refetched"] == 0 and again["refetch_bound"] == 4


def test_fetches_cut_by_a_stop_are_within_the_refetch_bound(tmp_path):
    """A --seconds stop cuts the fetches in flight (here: held by the server, so there are
    some whatever the load), and the resumed crawl fetches them again: the report said
    'refetched 4 (<= 0)', a broken bound. A clean session now counts one fetch per robot."""
    threads = 4
    with CountingWeb(pages=PAGES, sites=SITES) as web:
        web.hold(after=20)
        cmd = crawl_cmd(web, tmp_path / "state", threads=threads)
        stopped = finish([*cmd, "--seconds", "1"])
        web.release(10 * PAGES)
        report = finish(cmd)
        counts = web.counts
    assert stopped["stopped_by"] == "time" and stopped["fetches_cut"] >= 1
    extra = sum(n - 1 for n in counts.values())
    assert set(counts) == web.urls
    assert report["refetch_bound"] == threads
    assert 1 <= extra <= report["refetched"] <= report["refetch_bound"], (
        extra, report["refetched"], report["refetch_bound"])


@pytest.fixture(scope="module")
def finished_journal(tmp_path_factory):
    """A journal of a finished crawl (and the seeds it was made for)."""
    state = tmp_path_factory.mktemp("finished") / "state"
    with CountingWeb(pages=60, sites=2) as web:
        finish(crawl_cmd(web, state))
        seeds = web.seeds
    return state, seeds


def _truncate(p):
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])


def _scribble(p):
    data = bytearray(p.read_bytes())
    page = 4096  # the second page on: the schema page stays readable, the data does not
    data[page: page + 2048] = random.Random(0).randbytes(2048)
    p.write_bytes(bytes(data))


def _scribble_url_table(p):
    db = sqlite3.connect(p)
    (root,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'url'").fetchone()
    (size,) = db.execute("PRAGMA page_size").fetchone()
    db.close()
    data = bytearray(p.read_bytes())
    start = (root - 1) * size  # the url table's root page: the schema stays intact
    data[start: start + size] = bytes([0xA5]) * size
    p.write_bytes(bytes(data))


def _empty(p):
    p.write_bytes(b"")


def _text(p):
    p.write_text("this is not a database\n")


def _foreign(p):
    p.unlink()
    db = sqlite3.connect(p)
    db.execute("CREATE TABLE t(x)")
    db.commit()
    db.close()


@pytest.mark.parametrize(
    "damage", [_truncate, _scribble, _scribble_url_table, _empty, _text, _foreign])
def test_a_damaged_journal_is_a_one_line_error_never_a_fresh_start(tmp_path, finished_journal,
                                                                   damage):
    src, seeds = finished_journal
    state = tmp_path / "state"
    shutil.copytree(src, state)
    damage(state / DB)
    kept = (state / DB).read_bytes()
    cmd = [sys.executable, "-m", "crawlers", "crawl", "--json", "--politeness", "0.001",
           "--state", str(state)] + [a for s in seeds for a in ("--seed-url", s)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("crawlab crawl: error:"), out.stderr
    assert str(state) in lines[0]
    assert out.stdout == ""
    assert (state / DB).read_bytes() == kept  # not replaced by a fresh journal


def test_the_journal_of_other_seeds_is_refused(tmp_path, finished_journal):
    src, seeds = finished_journal
    shutil.copytree(src, tmp_path / "state")
    with CountingWeb(pages=10, sites=1) as web:
        out = subprocess.run(crawl_cmd(web, tmp_path / "state"), capture_output=True,
                             text=True, timeout=60)
        assert web.total == 0
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "journal of another crawl" in out.stderr


def test_a_missing_database_beside_its_log_is_refused(tmp_path, finished_journal):
    src, _ = finished_journal
    shutil.copytree(src, tmp_path / "state")
    (tmp_path / "state" / DB).unlink()
    with pytest.raises(JournalError, match="journal is missing"):
        Journal(tmp_path / "state")


def test_concurrent_records_never_exceed_one_batch_and_all_commit(tmp_path):
    """Eight robots record at once: at most ``commit_every`` records ever wait uncommitted
    (checked while they run), and after close every record and link is in the journal."""
    j = Journal(tmp_path, commit_every=4, commit_ms=5.0)
    j.begin([("s", 1.0)], threads=8)
    stop = threading.Event()
    bad: list[AssertionError] = []

    def check() -> None:
        while not stop.is_set():
            try:
                j._check()
            except AssertionError as exc:
                bad.append(exc)
                return

    def robot(r: int) -> None:
        for k in range(150):
            j.record(f"u{r}-{k}", 200, None, [(f"l{r}-{k}", float(k))])

    checker = threading.Thread(target=check, daemon=True)
    checker.start()
    robots = [threading.Thread(target=robot, args=(r,), daemon=True) for r in range(8)]
    for t in robots:
        t.start()
    join_all(robots, timeout=60)
    stop.set()
    join_all([checker], timeout=10)
    j.close()
    assert not bad, bad[0]
    db = sqlite3.connect(tmp_path / DB)
    done = {u for (u,) in db.execute("SELECT url FROM url WHERE done")}
    todo = dict(db.execute("SELECT url, priority FROM url WHERE NOT done"))
    assert done == {f"u{r}-{k}" for r in range(8) for k in range(150)}
    assert todo == {"s": 1.0, **{f"l{r}-{k}": float(k) for r in range(8) for k in range(150)}}


def test_resume_keeps_priorities_and_discovery_order(tmp_path):
    j = Journal(tmp_path, commit_every=100)
    j.begin([("http://x/a", 0.5), ("http://x/b", 0.5)], threads=1)
    j.record("http://x/a", 200, None, [("http://x/c", 0.9), ("http://x/d", 0.75)])
    # a lower offer for c: the higher one is kept
    j.record("http://x/b", 200, None, [("http://x/c", 0.25)])
    j.flush()
    # a crash: the session never closes (its flusher is a daemon thread), and the kernel
    # drops the dead crawl's lock on the folder
    release_folder(j._lock_fd)
    j2 = Journal(tmp_path)
    restored = j2.begin([("http://x/a", 0.5), ("http://x/b", 0.5)], threads=1)
    j2.close()
    assert restored.done == ["http://x/a", "http://x/b"]
    assert restored.frontier == [("http://x/c", 0.9), ("http://x/d", 0.75)]
    assert restored.refetch_bound == 1 + 100


def test_real_site_coverage_is_against_the_urls_the_crawl_reached(tmp_path):
    with CountingWeb(pages=PAGES, sites=SITES) as web:
        cmd = crawl_cmd(web, tmp_path / "state") + ["--max-pages", "40"]
        report = finish(cmd)
    assert report["coverage_basis"] == "discovered"
    assert report["unique_pages"] == 40 < report["urls_discovered"]
    assert report["coverage"] == pytest.approx(40 / report["urls_discovered"])


def test_commit_flags_without_a_journal_are_refused(tmp_path):
    out = subprocess.run([sys.executable, "-m", "crawlers", "crawl", "--sim", "--pages", "50",
                          "--sites", "2", "--commit-every", "8"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "--state" in out.stderr
