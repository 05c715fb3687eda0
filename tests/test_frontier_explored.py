"""The conformance suite, explored: every scenario that applies, for every registered frontier,
run under frontrun's scheduler (see frontier.check).

A correct frontier must *hold* on each scenario: the whole space of interleavings within the
default preemption bound explored, no violation (an inconclusive search fails the test; it is
never a pass). The known violations are searched with ``VIOLATION_BOUND`` preemptions until
the first one: they must be found. (Preemption-bounded DPOR is not complete within its bound:
a change of the code can move a violation from bound 1 to bound 2, as the put-after-close race
of ``lockfree`` did; searching at 2 keeps the test about the bug.)

The explorations are independent, so they run in worker processes (:data:`PROCESSES`, forked
so that a class registered by ``--frontier`` is there too), all of them when the first test
of this module needs one, longest first; each test then reads its own outcome. Skipped where
frontrun cannot be imported (it has no free-threaded wheel).
"""

from __future__ import annotations

import csv
import os
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import pytest

import frontier
from frontier.check.scenarios import SCENARIOS
from tests.helpers import kind

pytest.importorskip("frontrun", reason="frontrun (crawlab[explore]) is not installed here")

from frontier.check.explore import DEFAULT_BOUND, explore  # noqa: E402

VIOLATION_BOUND = 2
CI_INTERLEAVINGS = 40
"""Not used here any more (every exploration below covers the whole bound); the cap with which
tests/test_exercises.py explores the wrong exercise solutions, which must break within it."""
PROCESSES = max(1, min(4, len(os.sched_getaffinity(0))))
ALL_EXPLORED_SECONDS = 900  # the first test runs every exploration (a busy machine is slow)

# (frontier, scenario) pairs that break within the default bound, and what breaks.
VIOLATIONS = {
    ("unsynchronized", "lost-update"): "lost",
    ("unsynchronized", "counter"): "lost",
    ("unsynchronized", "lost-wakeup-full"): "lost",
    ("unsynchronized", "close"): "still in the frontier",
    ("tanenbaum", "lost-wakeup"): "lost wake-up",
    ("tanenbaum", "lost-wakeup-full"): "lost wake-up",
}

# Races that exploring found and that were then fixed: a put racing close() stored its URL
# after a consumer had seen "closed and drained" (the check for "closed" and the insertion were
# not one step). Each is explored again at VIOLATION_BOUND over about twice the interleavings
# the search took to find the old bug (251, 141 and 38): a prefix of the bound-2 space, so the
# claim is "no violation among them" (holds or inconclusive, never violated), and putting the
# race back fails here.
FIXED = {
    ("semaphore", "close"): 500,
    ("optimistic", "close"): 300,
    ("lockfree", "close"): 100,
}
HEAVY = ("lost-wakeup", "lost-wakeup-full", "close")  # three threads: run first
SPEED_PAIRS = Path(__file__).resolve().parent.parent / "docs/results/explore/speed-pairs.csv"


def _measured_seconds() -> dict[tuple[str, str], float]:
    """CPU seconds of each pair's whole-bound exploration, as docs/explore_speed.py last
    measured them (the largest over its rows: a busy machine only makes them longer); empty
    if there is no such file. Used only to order the work, never to decide a verdict."""
    cost: dict[tuple[str, str], float] = {}
    if SPEED_PAIRS.exists():
        with open(SPEED_PAIRS) as f:
            for row in csv.DictReader(f):
                key = (row["frontier"], row["scenario"])
                cost[key] = max(cost.get(key, 0.0), float(row["cpu_seconds"]))
    return cost


def _longest_first(jobs: list[tuple]) -> list[tuple]:
    """The jobs in decreasing expected cost (longest processing time first, the greedy
    schedule within 4/3 of the best for identical workers): a pair's measured seconds, or
    for a pair never measured (a class registered by --frontier), a guess by its scenario
    (three threads: 10 s, else 0.1 s) that puts it with the long ones."""
    cost = _measured_seconds()

    def expected(job: tuple) -> float:
        guess = 10.0 if job[1] in HEAVY else 0.1
        return cost.get((job[0], job[1]), guess) if job[3] is None else guess

    return sorted(jobs, key=expected, reverse=True)


def _applicable(name: str) -> list[str]:
    """The scenarios for ``name``: by its kind (for a graded class, what its exercise says it
    must be, so a class cannot skip ``lost-wakeup-full`` by calling itself unbounded). A
    scenario's ``applies`` reads ``bounded`` and ``ordering``, which a Kind has too."""
    return [s for s, sc in SCENARIOS.items() if sc.applies(kind(name))]


PAIRS = [(n, s) for n in frontier.names() for s in _applicable(n)]


def _job(name: str, scenario: str) -> tuple:
    """What a test asks: (frontier, scenario, bound, max_interleavings)."""
    if (name, scenario) in VIOLATIONS:
        return (name, scenario, VIOLATION_BOUND, None)
    return (name, scenario, DEFAULT_BOUND, None)


def _run(job: tuple) -> dict:
    """One exploration, in a worker process: the outcome as plain data."""
    name, scenario, bound, cap = job
    out = explore(name, scenario, bound, max_interleavings=cap)
    return {"status": out.status, "holds": out.holds, "broken": out.broken,
            "reason": out.reason, "interleavings": out.interleavings,
            "report": out.report() if out.status != "holds" else ""}


@pytest.fixture(scope="module")
def explored(request) -> dict:
    """Every exploration the selected tests of this module need, run in parallel once."""
    jobs = []
    for item in request.session.items:
        if item.module is not request.module or not hasattr(item, "callspec"):
            continue
        p = item.callspec.params
        if item.originalname == "test_explored":
            jobs.append(_job(p["name"], p["scenario"]))
        elif item.originalname == "test_a_fixed_race_stays_fixed":
            key = (p["name"], p["scenario"])
            jobs.append((*key, VIOLATION_BOUND, FIXED[key]))
    jobs = _longest_first(jobs)
    with ProcessPoolExecutor(PROCESSES, mp_context=get_context("fork")) as pool:
        return dict(zip(jobs, pool.map(_run, jobs)))


@pytest.mark.timeout(ALL_EXPLORED_SECONDS)
@pytest.mark.parametrize(("name", "scenario"), PAIRS)
def test_explored(name, scenario, explored):
    """Explored, so the verdict never depends on luck: a frontier that loses a wake-up or an
    update fails on every run, with the interleaving. A graded class must hold whatever its
    own ``correct`` says (its exercise says what it must be: tests.helpers.kind)."""
    expected = VIOLATIONS.get((name, scenario))
    must = kind(name)
    out = explored[_job(name, scenario)]
    if expected is not None:
        assert out["status"] == "violated" and expected in out["broken"], out["report"]
    elif must.correct and must.live:
        if out["status"] != "holds":
            # what crawlab explore prints: the interleaving, a column per thread, what broke;
            # or what an inconclusive search ran and why it stopped
            pytest.fail("\n" + out["report"], pytrace=False)
    else:  # the racy or wake-up-losing frontier elsewhere: the search covers the whole bound
        assert out["status"] != "inconclusive", out["reason"]


@pytest.mark.timeout(ALL_EXPLORED_SECONDS)
@pytest.mark.parametrize(("name", "scenario"), sorted(FIXED))
def test_a_fixed_race_stays_fixed(name, scenario, explored):
    out = explored[(name, scenario, VIOLATION_BOUND, FIXED[name, scenario])]
    assert out["status"] != "violated", out["report"]
    assert out["interleavings"] >= 1


def test_every_registered_frontier_has_an_explored_test():
    assert {n for n, _ in PAIRS} == set(frontier.names())
