"""Hidden checks of exercise 3 (the instructor's grading only): robots held back longer, and
more robots asking."""

from __future__ import annotations

import pytest

from tests.autograder.test_ex3_termination import (  # noqa: F401 (Detector: a fixture)
    WINDOWS,
    Detector,
    held_back,
)


@pytest.mark.parametrize("window", WINDOWS)
def test_held_back_for_long(Detector, window):
    held_back(Detector, window, looks=400)
