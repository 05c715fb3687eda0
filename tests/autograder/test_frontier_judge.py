"""The judge's own checks of a graded frontier (ex1, ex2), beyond the conformance suites.

* ``test_history``: a plan the judge wrote (producers, consumers, a capacity, how ``close``
  comes) runs on the graded class with many threads and a one-microsecond switch interval; the
  log of every call goes to the judge, which verifies it itself (:mod:`exercises.evidence`:
  exactly once, capacity, FIFO, ``None`` only after close and drain, ``Closed`` after close,
  the counters). The check also verifies the log here, so that a failure reads the same when
  this file is run by hand.
* ``test_explored``: every scenario that applies, the explorer's (:mod:`frontier.check.
  scenarios`) and the grader's (:mod:`exercises.scenarios`), over the *whole* default
  preemption bound: a bug that any interleaving within it shows fails on every run. An
  exploration that could not conclude is a failure, never a pass.

Skipped unless a frontier is graded (``--frontier=FILE:CLASS``).
"""

from __future__ import annotations

import json
import os

import pytest

import frontier
from exercises import evidence
from exercises.channel import send_evidence
from exercises.scenarios import SCENARIOS as GRADER
from frontier.check.scenarios import SCENARIOS as LIBRARY
from tests.helpers import GRADED, kind

_graded_kinds = list(GRADED.values())
EXPLORED = [s for s, sc in {**LIBRARY, **GRADER}.items()
            if _graded_kinds and sc.applies(_graded_kinds[0])]


@pytest.fixture
def graded(request: pytest.FixtureRequest) -> str:
    name = request.config.graded_frontier
    if not name:
        pytest.skip("a check of the judge: grade a frontier (--frontier=FILE:CLASS)")
    return name


def _plans() -> list[dict]:
    """The judge's plans (written next to the grading), or local ones when run by hand."""
    path = os.environ.get("CRAWLAB_GRADE_PLAN")
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    return evidence.make_plans("local")


@pytest.mark.parametrize("plan", range(evidence.PLANS))
def test_history(graded, plan):
    plans = _plans()
    data = evidence.execute(plans[plan], lambda c: frontier.create(graded, capacity=c))
    send_evidence(data)
    problems = evidence.verify(data, plans, bounded=kind(graded).bounded)
    if problems:
        pytest.fail("\n".join(problems[:5]), pytrace=False)


@pytest.mark.parametrize("scenario", EXPLORED)
def test_explored(graded, scenario):
    pytest.importorskip("frontrun", reason="frontrun (crawlab[explore]) is not installed here")
    from frontier.check.explore import DEFAULT_BOUND, ExploreError, explore

    try:
        out = explore(graded, GRADER.get(scenario) or scenario, DEFAULT_BOUND)
    except ExploreError as exc:
        pytest.fail(f"the exploration could not conclude ({exc}): inconclusive is not a pass",
                    pytrace=False)
    if not out.holds:
        pytest.fail(f"{out.broken}\n{out.report()}", pytrace=False)
