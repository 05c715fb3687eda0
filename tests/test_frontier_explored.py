"""The conformance suite, explored: every scenario that applies, for every registered frontier,
run under frontrun's scheduler (see frontier.check).

A correct frontier must hold on the first ``CI_INTERLEAVINGS`` interleavings of each scenario
within the default preemption bound (the whole bounded space takes minutes per frontier: run
``crawlab explore NAME`` for it). The known violations are searched with ``VIOLATION_BOUND``
preemptions until the first one: they must be found. (Preemption-bounded DPOR is not complete
within its bound: a change of the code can move a violation from bound 1 to bound 2, as the
put-after-close race of ``lockfree`` did; searching at 2 keeps the test about the bug.)
Skipped where frontrun cannot be imported (it has no free-threaded wheel).
"""

from __future__ import annotations

import pytest

import frontier
from frontier.check.scenarios import SCENARIOS
from tests.helpers import kind

pytest.importorskip("frontrun", reason="frontrun (crawlab[explore]) is not installed here")

from frontier.check.explore import DEFAULT_BOUND, explore  # noqa: E402

CI_INTERLEAVINGS = 40
VIOLATION_BOUND = 2

# (frontier, scenario) pairs that break within the default bound, and what breaks.
VIOLATIONS = {
    ("unsynchronized", "lost-update"): "lost",
    ("unsynchronized", "lost-wakeup-full"): "lost",
    ("unsynchronized", "close"): "still in the frontier",
    ("tanenbaum", "lost-wakeup"): "lost wake-up",
    ("tanenbaum", "lost-wakeup-full"): "lost wake-up",
}

# Races that exploring found and that were then fixed: a put racing close() stored its URL
# after a consumer had seen "closed and drained" (the check for "closed" and the insertion were
# not one step). Each is explored again at VIOLATION_BOUND over about twice the interleavings
# the search took to find the old bug (251, 141 and 38), so putting the race back fails here.
FIXED = {
    ("semaphore", "close"): 500,
    ("optimistic", "close"): 300,
    ("lockfree", "close"): 100,
}


def _applicable(name: str) -> list[str]:
    """The scenarios for ``name``: by its kind (for a graded class, what its exercise says it
    must be, so a class cannot skip ``lost-wakeup-full`` by calling itself unbounded). A
    scenario's ``applies`` reads ``bounded`` and ``ordering``, which a Kind has too."""
    return [s for s, sc in SCENARIOS.items() if sc.applies(kind(name))]


PAIRS = [(n, s) for n in frontier.names() for s in _applicable(n)]


@pytest.mark.parametrize(("name", "scenario"), PAIRS)
def test_explored(name, scenario):
    """Explored, so the verdict never depends on luck: a frontier that loses a wake-up or an
    update fails on every run, with the interleaving. A graded class must hold whatever its
    own ``correct`` says (its exercise says what it must be: tests.helpers.kind)."""
    expected = VIOLATIONS.get((name, scenario))
    must = kind(name)
    if expected is not None:
        out = explore(name, scenario, VIOLATION_BOUND)
        assert not out.holds and expected in out.broken, out.broken
    elif must.correct and must.live:
        out = explore(name, scenario, DEFAULT_BOUND, max_interleavings=CI_INTERLEAVINGS)
        if not out.holds:
            # what crawlab explore prints: the interleaving, a column per thread, what broke
            pytest.fail("\n" + out.report(), pytrace=False)
    else:  # the racy frontier: whatever it does, exploring it concludes
        explore(name, scenario, DEFAULT_BOUND, max_interleavings=CI_INTERLEAVINGS)


@pytest.mark.parametrize(("name", "scenario"), sorted(FIXED))
def test_a_fixed_race_stays_fixed(name, scenario):
    out = explore(name, scenario, VIOLATION_BOUND, max_interleavings=FIXED[name, scenario])
    assert out.holds, out.broken


def test_every_registered_frontier_has_an_explored_test():
    assert {n for n, _ in PAIRS} == set(frontier.names())
