"""What the journals promise on disk, checked where a crash would test it.

Both journals (:mod:`crawlers.crawl.journal`, :mod:`crawlers.bsp.journal`) open SQLite in WAL
mode with ``synchronous=FULL``: a commit appends to the write-ahead log and ``fsync``s it before
it returns, so a committed record survives a power loss, not only a killed process. These tests
read the pragmas back (the journal mode from a connection of their own: it is stored in the
file), count the ``fsync``\\s of the log per commit under ``strace`` (skipped where strace is
missing or not allowed), and SIGKILL a child process at a chosen point: just after a commit,
and inside one, between its writes and its ``COMMIT``. The child says where it is over a
pipe and then blocks; the kill never depends on timing.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from crawlers.bsp.journal import BspJournal, common_superstep
from crawlers.crawl.journal import DB, Journal

ROOT = Path(__file__).resolve().parent.parent
SYNCHRONOUS_FULL = 2  # PRAGMA synchronous: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA


# -- the pragmas ------------------------------------------------------------------------------

def _file_journal_mode(path: Path) -> str:
    """The journal mode stored in the database file, read by a connection of our own."""
    db = sqlite3.connect(path)
    try:
        return db.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        db.close()


def test_the_crawl_journal_is_wal_and_fsyncs_every_commit(tmp_path):
    with Journal(tmp_path, commit_every=4, commit_ms=1e6) as j:
        j.begin([("http://a.test/", 1.0)], threads=1)
        # FULL, not NORMAL: in WAL mode NORMAL skips the fsync at commit (a power loss can
        # drop the last commits), OFF never fsyncs at all
        assert j._db.execute("PRAGMA synchronous").fetchone()[0] == SYNCHRONOUS_FULL
        assert _file_journal_mode(tmp_path / DB) == "wal"
        j.record("http://a.test/", 200, None, [("http://a.test/b", 0.5)])
        j.flush()
        assert (tmp_path / (DB + "-wal")).exists()  # the commit went to the log


def test_the_bsp_journal_is_wal_and_fsyncs_every_commit(tmp_path):
    j = BspJournal(tmp_path, rank=0, session=1)
    try:
        assert j._db.execute("PRAGMA synchronous").fetchone()[0] == SYNCHRONOUS_FULL
        assert _file_journal_mode(j.path) == "wal"
        j.save(1, {"k": 1})
        assert Path(str(j.path) + "-wal").exists()
    finally:
        j.close()


# -- the fsyncs, counted ----------------------------------------------------------------------

def _strace_fsyncs(script: str, tmp_path: Path) -> tuple[dict, list[str]]:
    """Run ``script`` in a child under ``strace``; return what it printed last (JSON) and the
    paths of the files it ``fsync``\\ed or ``fdatasync``\\ed, one entry per call."""
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed: the fsyncs cannot be counted")
    trace = tmp_path / "strace.txt"
    run = subprocess.run([strace, "-f", "-qq", "-y", "-e", "trace=fsync,fdatasync", "-o",
                          str(trace), sys.executable, "-c", script],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    if run.returncode != 0 and "ptrace" in run.stderr:
        pytest.skip(f"strace cannot trace here: {run.stderr.strip().splitlines()[-1]}")
    assert run.returncode == 0, run.stderr
    synced = []
    for line in trace.read_text().splitlines():
        if "sync(" in line and "<" in line:
            synced.append(line.split("<", 1)[1].split(">", 1)[0])
    return json.loads(run.stdout.strip().splitlines()[-1]), synced


def test_each_crawl_journal_commit_fsyncs_the_write_ahead_log(tmp_path):
    script = textwrap.dedent(f"""
        import json, os
        from crawlers.crawl.journal import Journal
        j = Journal({str(tmp_path / 'state')!r}, commit_every=100, commit_ms=1e6)
        j.begin([("http://a.test/", 1.0)], threads=1)
        for i in range(5):
            j.record(f"http://a.test/{{i}}", 200, None, [(f"http://a.test/x{{i}}", 0.5)])
            j.flush()
        print(json.dumps({{"commits": j.commits}}), flush=True)
        os._exit(0)  # no close: no checkpoint, only what the commits did
    """)
    out, synced = _strace_fsyncs(script, tmp_path)
    assert out["commits"] == 6  # the session's row, then five batches
    wal = [p for p in synced if p.endswith(DB + "-wal")]
    assert len(wal) >= out["commits"], synced


def test_each_bsp_snapshot_fsyncs_the_write_ahead_log(tmp_path):
    script = textwrap.dedent(f"""
        import json, os
        from crawlers.bsp.journal import BspJournal
        j = BspJournal({str(tmp_path / 'state')!r}, 0, session=1)
        for k in range(1, 6):
            j.save(k, {{"k": k}})
        print(json.dumps({{"saves": 5}}), flush=True)
        os._exit(0)
    """)
    out, synced = _strace_fsyncs(script, tmp_path)
    wal = [p for p in synced if p.endswith("rank-0.sqlite-wal")]
    assert len(wal) >= out["saves"], synced


# -- kill -9 at a chosen point ----------------------------------------------------------------

def _run_until_ready_then_kill(script: str, *args: str) -> None:
    """Run ``script`` in a child; when it prints ``ready`` (it then blocks), SIGKILL it."""
    proc = subprocess.Popen([sys.executable, "-c", script, *args], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.strip() == "ready", (line, proc.stderr.read() if proc.poll() else "")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


# A child that opens a crawl journal of two seeds (commit 1), commits the records of a and b
# (each with its new links: commit 2), then queues c's record and either stops there
# ("after-commit") or flushes it and stops inside that commit, its rows written, its COMMIT not
# yet sent ("in-commit"). It prints "ready" where it stops, then blocks.
_CRAWL_CHILD = """
import sys
from crawlers.crawl.journal import Journal

class Stop:
    # The journal's connection; stops the process before its COMMIT number stop_at.
    def __init__(self, db, stop_at):
        self.db, self.stop_at, self.commits = db, stop_at, 1
    def execute(self, sql, *args):
        if sql == "COMMIT":
            self.commits += 1
            if self.commits == self.stop_at:
                print("ready", flush=True)
                sys.stdin.read()  # blocks until the parent kills us
        return self.db.execute(sql, *args)
    def executemany(self, sql, rows):
        return self.db.executemany(sql, rows)

where, state = sys.argv[1], sys.argv[2]
j = Journal(state, commit_every=100, commit_ms=1e6)
j.begin([("http://s.test/a", 1.0), ("http://s.test/b", 0.9)], threads=3)
j._db = Stop(j._db, stop_at=3 if where == "in-commit" else None)
j.record("http://s.test/a", 200, None, [("http://s.test/a1", 0.5), ("http://s.test/a2", 0.4)])
j.record("http://s.test/b", 404, None, [("http://s.test/b1", 0.3), ("http://s.test/a1", 0.6)])
j.flush()
j.record("http://s.test/c", 200, None, [("http://s.test/c1", 0.2), ("http://s.test/d", 0.1)])
if where == "in-commit":
    j.flush()
print("ready", flush=True)
sys.stdin.read()
"""


def _restored(state: Path):
    with Journal(state) as j:
        return j.begin([("http://s.test/a", 1.0), ("http://s.test/b", 0.9)], threads=1)


@pytest.mark.parametrize("where", ["after-commit", "in-commit"])
def test_a_killed_crawl_keeps_each_committed_batch_whole_and_nothing_after(tmp_path, where):
    """Killed after a commit, or inside the next one: a and b are done with every link they
    found (a1 with the best priority it was given); c, queued or half-written, is not done
    and none of its links survive (a page never done without its links, nor links without
    their page)."""
    state = tmp_path / "state"
    _run_until_ready_then_kill(_CRAWL_CHILD, where, str(state))
    r = _restored(state)
    assert r.done == ["http://s.test/a", "http://s.test/b"]
    assert r.frontier == [("http://s.test/a1", 0.6), ("http://s.test/a2", 0.4),
                          ("http://s.test/b1", 0.3)]
    assert r.refetch_bound == 3 + 100  # the killed session: its threads + commit_every


_BSP_CHILD = """
import sys
from crawlers.bsp.journal import BspJournal

class Stop:
    # The journal's connection; stops the process before its COMMIT number stop_at.
    def __init__(self, db, stop_at):
        self.db, self.stop_at, self.commits = db, stop_at, 0
    def execute(self, sql, *args):
        if sql == "COMMIT":
            self.commits += 1
            if self.commits == self.stop_at:
                print("ready", flush=True)
                sys.stdin.read()
        return self.db.execute(sql, *args)

stop_at, state = int(sys.argv[1]), sys.argv[2]
j = BspJournal(state, 0, session=1)
j.begin()
j._db = Stop(j._db, stop_at)  # save(k) is commit k
for k in (1, 2, 3):
    j.save(k, {"k": k, "queued": {f"u{k}": float(k)}})
print("ready", flush=True)
sys.stdin.read()
"""


@pytest.mark.parametrize("stop_at, kept", [(3, [1, 2]), (4, [2, 3])])
def test_a_bsp_rank_killed_keeps_exactly_its_committed_snapshots(tmp_path, stop_at, kept):
    """Killed inside superstep 3's save, the journal still holds 1 and 2 (the delete of 1 was
    part of the lost transaction); killed after it, 2 and 3."""
    state = tmp_path / "state"
    _run_until_ready_then_kill(_BSP_CHILD, str(stop_at), str(state))
    with sqlite3.connect(state / "rank-0.sqlite") as db:
        assert [r[0] for r in db.execute("SELECT superstep FROM snapshot ORDER BY 1")] == kept
    assert common_superstep(state, 1) == kept[-1]
    j = BspJournal(state, 0, session=2)
    try:
        assert j.load(kept[-1]) == {"k": kept[-1], "queued": {f"u{kept[-1]}": float(kept[-1])}}
    finally:
        j.close()
