"""Hidden checks of the frontier exercises (the instructor's grading only): more plans, with
their own shapes (``plans.json`` beside this file), verified by the judge like the public
ones."""

from __future__ import annotations

import pytest

from exercises import evidence
from tests.autograder.test_frontier_judge import graded, run_plan  # noqa: F401 (a fixture)


@pytest.mark.parametrize("plan", [shape["id"] for shape in evidence.hidden_shapes()])
def test_history(graded, plan):  # noqa: F811
    run_plan(graded, plan)
