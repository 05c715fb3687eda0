"""The BSP journal taken up in process: a worker stopped at a barrier and resumed from its
snapshot goes on exactly as if it had never stopped, OPIC cash included.

The MPI tests (``test_bsp_resume.py``) kill real ranks, but crawl with the FIFO ``monitor``
frontier, whose order does not depend on the cash. Here one worker (a one-rank transport of
the test's own, no MPI needed) crawls the simulated web with the ``heap`` frontier under OPIC,
where which page comes next depends on the cash every fetched page handed on: a resume that
restored the frontier but not the cash ledger would fetch other pages after the resume.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crawlers.bsp.engine import Ownership, Worker, WorkerSettings, make_fetch
from crawlers.crawl.targets import WebOptions, open_target
from crawlers.partition.assignment import make_assignment

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


@pytest.mark.parametrize("priority", [float("nan"), float("inf"), True, "0.5"])
def test_a_snapshot_whose_priority_is_not_a_finite_number_is_refused(priority):
    """A NaN priority would pass to the frontier and fail there, naming no journal; the
    shape check names it first. A real snapshot's shape passes."""
    from crawlers.bsp.engine import snapshot_problem

    sound = {"queued": {"http://a.test/": 0.5}, "fetched": {"http://b.test/"}, "visited": {1},
             "ledger": None, "total_fetched": 1, "extra": None}
    assert snapshot_problem(sound) is None
    assert "'queued'" in snapshot_problem(dict(sound, queued={"http://a.test/": priority}))
