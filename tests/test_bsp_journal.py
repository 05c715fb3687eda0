"""The BSP journal taken up in process: a worker stopped at a barrier and resumed from its
snapshot goes on exactly as if it had never stopped, OPIC cash included.

The MPI tests (``test_bsp_resume.py``) kill real ranks, but crawl with the FIFO ``monitor``
frontier, whose order does not depend on the cash. Here one worker (a one-rank transport of
the test's own, no MPI needed) crawls the simulated web with the ``heap`` frontier under OPIC,
where which page comes next depends on the cash every fetched page handed on: a resume that
restored the frontier but not the cash ledger would fetch other pages after the resume.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from crawlers.bsp.engine import Ownership, Worker, WorkerSettings, make_fetch
from crawlers.bsp.journal import BspJournalError, hold, release
from crawlers.crawl.journal import LOCK
from crawlers.crawl.targets import WebOptions, open_target
from crawlers.partition.assignment import make_assignment
from tests.test_journal_lock import child_holding, kill_9

WEB = WebOptions(kind="sim", pages=400, sites=8, seed=5, latency=0.0)


class OneRank:
    """The transport of a one-worker crawl: every collective answers with this rank's own
    value."""

    rank, size = 0, 1

    def alltoall(self, objs):
        return list(objs)

    def allreduce_sum(self, value):
        return value

    def allgather(self, obj):
        return [obj]

    def gather(self, obj):
        return [obj]

    def barrier(self):
        pass

    def take_failover(self):
        return None

    def stop_requested(self):
        return False

    def close(self):
        pass


def crawl(frontier: str, supersteps: int, state: Path | None = None, session: int = 1,
          resume_from: int | None = None) -> list[list[str]]:
    """The pages a one-worker crawl fetches in each superstep until ``supersteps``, in the
    order it took them from the frontier."""
    steps: list = []
    with open_target(WEB) as target:
        settings = WorkerSettings(
            procs=1, robots=2, R=4, frontier=frontier, priority=True,
            seeds=list(target.seeds), max_supersteps=supersteps,
            state=None if state is None else str(state), session=session,
            resume_from=resume_from)
        worker = Worker(settings, OneRank(), Ownership(make_assignment("site-hash", 1)),
                        make_fetch(target.fetcher, target.robots_allowed,
                                   target.politeness_wait),
                        in_scope=target.in_scope, on_gather=steps.extend)
        assert worker.run() == "max-supersteps"
    return [list(step.pages) for step in steps]


@pytest.mark.parametrize("frontier", ["heap", "cbt"])
def test_a_resumed_priority_crawl_fetches_what_an_uninterrupted_one_does(tmp_path, frontier):
    """Page for page and in the same order: the cash, the frontier's priorities, and among
    equal priorities the order they were queued in (FIFO ties), all come back."""
    whole = crawl(frontier, 40)
    before = crawl(frontier, 15, tmp_path, session=1)
    after = crawl(frontier, 40, tmp_path, session=2, resume_from=15)
    assert before == whole[:15]
    assert len(after) == 25
    assert after == whole[15:]


class _Planted:
    """What a forged snapshot would hold: unpickling it calls ``Path.write_text``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self):
        return (Path.write_text, (self.path, "ran"))


def test_a_snapshot_comes_back_as_it_was_saved(tmp_path):
    """The classes a worker's snapshot holds (the collector's Counters and superstep records)
    load back; SNAPSHOT_CLASSES is all load() takes."""
    from collections import Counter

    from crawlers.bsp.journal import BspJournal
    from crawlers.bsp.report import SuperstepRecord

    record = SuperstepRecord(superstep=1, workers=[0], pages=2, messages=0, urls_sent=0,
                             page_messages=0, failures=0, local_failures=0, misrouted=0,
                             frontier=3, load_imbalance=1.0, fetch_seconds=0.1,
                             exchange_seconds=0.0, elapsed=0.2, per_worker={"pages": [2]})
    state = {"queued": {"http://a.test/": 0.5}, "fetched": {"http://b.test/"},
             "visited": frozenset({1, 2}), "ledger": ({}, {}, {}), "total_fetched": 2,
             "extra": {"collector": {"records": [record], "errors": Counter(timeout=1)}}}
    journal = BspJournal(tmp_path, rank=0, session=1)
    try:
        journal.save(1, state)
        assert journal.load(1) == state
    finally:
        journal.close()


def test_a_forged_snapshot_is_refused_before_its_code_runs(tmp_path):
    """A journal is a file anyone could hand over: a snapshot naming a class outside
    SNAPSHOT_CLASSES is one BspJournalError naming it, and nothing it names has run."""
    from crawlers.bsp.journal import BspJournal, BspJournalError

    ran = tmp_path / "ran"
    journal = BspJournal(tmp_path / "state", rank=0, session=1)
    try:
        journal.save(1, {"queued": {}, "extra": _Planted(ran)})
        with pytest.raises(BspJournalError, match="snapshot 1 is unreadable.*write_text"):
            journal.load(1)
    finally:
        journal.close()
    assert not ran.exists()


def test_a_journal_holding_a_trigger_is_refused_before_it_runs(tmp_path):
    """A trigger runs its own SQL at the crawl's writes (here: every snapshot saved is
    deleted again); no crawl makes one, so the journal is refused when opened."""
    import sqlite3

    from crawlers.bsp.journal import BspJournal, BspJournalError

    journal = BspJournal(tmp_path, rank=0, session=1)
    journal.save(1, {"queued": {}})
    journal.close()
    (path,) = tmp_path.glob("rank-0.sqlite")
    with sqlite3.connect(path) as db:
        db.execute("CREATE TRIGGER planted AFTER INSERT ON snapshot BEGIN DELETE FROM snapshot; "
                   "END")
    db.close()
    with pytest.raises(BspJournalError, match="it holds a trigger 'planted'"):
        BspJournal(tmp_path, rank=0, session=2)


@pytest.mark.parametrize("priority", [float("nan"), float("inf"), True, "0.5"])
def test_a_snapshot_whose_priority_is_not_a_finite_number_is_refused(priority):
    """A NaN priority would pass to the frontier and fail there, naming no journal; the
    shape check names it first. A real snapshot's shape passes."""
    from crawlers.bsp.engine import snapshot_problem

    sound = {"queued": {"http://a.test/": 0.5}, "fetched": {"http://b.test/"}, "visited": {1},
             "refused": {"http://c.test/"}, "sites": {"c.test:80": 1}, "ledger": None,
             "total_fetched": 1, "extra": None}
    assert snapshot_problem(sound) is None
    assert "'queued'" in snapshot_problem(dict(sound, queued={"http://a.test/": priority}))


def site_crawl(web, frontier: str, state: Path, session: int,
               resume_from: int | None = None, supersteps: int = 100) -> list[str]:
    """The pages a one-worker crawl of the real site ``web`` (a CountingWeb) fetches under a
    per-site budget of 12 URLs, journaled in ``state``, until it stops."""
    from crawlers.page.policy import Policy

    opts = WebOptions(kind="urls", seed_urls=tuple(web.seeds), politeness=0.0,
                      policy=Policy(max_pages_per_site=12))
    steps: list = []
    with open_target(opts) as target:
        settings = WorkerSettings(
            procs=1, robots=2, R=4, frontier=frontier, priority=True,
            seeds=list(target.seeds), max_supersteps=supersteps, state=str(state),
            session=session, resume_from=resume_from)
        worker = Worker(settings, OneRank(), Ownership(make_assignment("site-hash", 1)),
                        make_fetch(target.fetcher, target.robots_allowed,
                                   target.politeness_wait),
                        in_scope=target.in_scope, rules=target.rules, on_gather=steps.extend)
        worker.run()
    return [u for step in steps for u in step.pages]


@pytest.mark.parametrize("frontier", ["heap", "monitor"])
def test_a_resumed_crawl_keeps_the_site_budget_it_spent(tmp_path, frontier):
    """The URLs a site's budget refused, and the budget each site spent, are in the snapshot:
    resumed, the crawl fetches what the uninterrupted one does, no URL it refused and no
    more of a site than its budget. Before, a resumed priority crawl queued a refused URL
    again on its next link, and every crawl had the whole budget of each site anew."""
    from tests.countserver import CountingWeb

    with CountingWeb(pages=60, sites=1, latency=0.0) as web:
        whole = site_crawl(web, frontier, tmp_path / "whole", session=1)
        assert len(whole) == 12  # the budget of 12, the seed one of them: not the web, ended it
        before = site_crawl(web, frontier, tmp_path / "cut", session=1, supersteps=2)
        after = site_crawl(web, frontier, tmp_path / "cut", session=2, resume_from=2)
    assert before + after == whole


def test_a_robots_txt_cut_by_the_stop_is_a_cut_fetch_not_a_page():
    """When the crawl's stop cuts the fetch of a site's robots.txt, the site's rules are not
    known: its URL is cut (back into the frontier, fetched by a resumed crawl), as the
    threaded crawler counts it, not a page refused by robots.txt."""
    from crawlers.page import faults
    from tests.countserver import CountingWeb

    with CountingWeb(pages=4, sites=1) as web:
        opts = WebOptions(kind="urls", seed_urls=tuple(web.seeds), politeness=0.0)
        with open_target(opts) as target:
            fetch = make_fetch(target.fetcher, target.robots_allowed, target.politeness_wait)
            target.fetcher.cut_all()  # the crawl ends before the site's robots.txt came
            assert fetch(web.seeds[0]).error == faults.STOPPED


def test_a_journal_keeps_whose_crawl_it_is_and_opens_for_no_other(tmp_path):
    """A journal records its crawl's identity when it is made; a crawl of another identity
    (other flags, --procs or --out) cannot open it, nor resume a folder holding it, a journal
    of a rank it does not have, or one that records no identity."""
    import sqlite3

    from crawlers.bsp.journal import BspJournal, BspJournalError, check_journals, crawl_identity

    mine = crawl_identity(["bsp", "--R", "4"], 2, "out")
    for rank in range(2):
        BspJournal(tmp_path, rank, session=1, identity=mine).close()
    check_journals(tmp_path, 2, mine)
    BspJournal(tmp_path, 0, session=2, identity=mine).close()
    for other, why in ((crawl_identity(["bsp", "--R", "5"], 2, "out"), "another crawl"),
                       (crawl_identity(["bsp", "--R", "4"], 3, "out"), "another crawl"),
                       (crawl_identity(["bsp", "--R", "4"], 2, "/elsewhere/out"),
                        "its own crawl's output")):
        with pytest.raises(BspJournalError, match=why):
            check_journals(tmp_path, 2, other)
        with pytest.raises(BspJournalError, match=why):
            BspJournal(tmp_path, 1, session=2, identity=other)
    BspJournal(tmp_path, 2, session=1, identity=mine).close()
    with pytest.raises(BspJournalError, match="rank-2.sqlite is not the journal of a rank"):
        check_journals(tmp_path, 2, mine)
    (tmp_path / "rank-2.sqlite").unlink()
    with sqlite3.connect(tmp_path / "rank-1.sqlite") as db:
        db.execute("DELETE FROM meta WHERE key = 'crawl'")
    with pytest.raises(BspJournalError, match="records no crawl identity"):
        check_journals(tmp_path, 2, mine)


# -- one crawl at a time in a journal folder (crawlers.bsp.journal.hold) ----------------------

HOLD_FOLDER = ("import sys; from crawlers.bsp.journal import hold; "
               "hold(sys.argv[1], create=True); print('held', flush=True); sys.stdin.read()")
BSP = [sys.executable, "-m", "crawlers", "bsp", "--backend", "mpi", "--procs", "2", "--sim",
       "--pages", "60", "--sites", "2", "--max-supersteps", "3"]


def test_a_held_bsp_folder_is_refused_and_taken_again_once_released(tmp_path):
    state = tmp_path / "state"
    held = hold(state, create=True)
    try:
        with pytest.raises(BspJournalError) as refused:
            hold(state, create=True)
        said = str(refused.value)
        assert "\n" not in said and str(state) in said and "in use by another crawl" in said
    finally:
        release(held)
    release(hold(state, create=True))
    assert hold(tmp_path / "none", create=False) is None  # a --resume of no folder: no lock
    assert not (tmp_path / "none").exists()


def test_a_bsp_folder_whose_holder_was_killed_is_taken_again(tmp_path):
    state = tmp_path / "state"
    holder = child_holding(HOLD_FOLDER, state)
    try:
        with pytest.raises(BspJournalError, match="in use by another crawl"):
            hold(state, create=True)
    finally:
        kill_9(holder)
    release(hold(state, create=True))


def test_a_bsp_crawl_on_a_held_folder_is_one_line_before_it_writes_anything(tmp_path):
    """``--state`` and ``--resume`` typed without mpiexec (the launcher holds the folder):
    refused at once, exit 2, before command.json is written or mpiexec started."""
    state = tmp_path / "state"
    held = hold(state, create=True)
    try:
        for cmd in ([*BSP, "--state", str(state)],
                    [sys.executable, "-m", "crawlers", "bsp", "--backend", "mpi", "--resume",
                     str(state)]):
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            assert done.returncode == 2, done.stderr
            lines = done.stderr.strip().splitlines()
            assert len(lines) == 1 and "Traceback" not in done.stderr
            assert str(state) in lines[0] and "in use by another crawl" in lines[0]
            assert sorted(p.name for p in state.iterdir()) == [LOCK]
    finally:
        release(held)


@pytest.mark.skipif(not (Path(sys.executable).parent / "mpiexec").exists(),
                    reason="no mpiexec next to the interpreter (the mpi extra)")
def test_rank_0_of_a_job_started_with_mpiexec_holds_the_folder(tmp_path):
    """Under ``mpiexec`` typed by the user there is no launcher: rank 0 takes the lock, and a
    held folder ends the job in one line before any journal is made."""
    state = tmp_path / "state"
    mpiexec = str(Path(sys.executable).parent / "mpiexec")
    held = hold(state, create=True)
    try:
        done = subprocess.run([mpiexec, "-n", "2", *BSP, "--state", str(state)],
                              capture_output=True, text=True, timeout=120)
    finally:
        release(held)
    assert done.returncode != 0
    assert f"{state} is in use by another crawl" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not list(state.glob("rank-*.sqlite"))
