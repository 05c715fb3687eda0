"""Hidden checks of the frontier exercises (the instructor's grading only): more plans, with
their own shapes, verified by the judge like the public ones."""

from __future__ import annotations

import pytest

import frontier
from exercises import evidence
from exercises.channel import send_evidence
from tests.autograder.test_frontier_judge import _plans, graded  # noqa: F401 (a fixture)
from tests.helpers import kind


@pytest.mark.parametrize("plan", evidence.HIDDEN_PLANS)
def test_history(graded, plan):  # noqa: F811
    plans = _plans()
    data = evidence.execute(next(p for p in plans if p["id"] == plan),
                            lambda c: frontier.create(graded, capacity=c))
    send_evidence(data)
    problems = evidence.verify(data, plans, bounded=kind(graded).bounded)
    if problems:
        pytest.fail("\n".join(problems[:5]), pytrace=False)
