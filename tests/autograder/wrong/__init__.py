"""Wrong solutions of exercise 1, kept to test the autograder: each is the reference solution
with only the method it gets wrong written again, so the mistake is all a reader sees and the
autograder must grade it FAIL on every run (``tests/test_exercises.py``)."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

REFERENCE = (Path(__file__).resolve().parents[3] / "docs" / "instructor" / "solutions"
             / "ex1_bounded_fifo.py")


@functools.cache
def reference_bounded_fifo() -> type:
    """The reference solution's ``BoundedFifo`` (loaded once by path: ``docs`` is no package)."""
    spec = importlib.util.spec_from_file_location("_ex1_reference_solution", REFERENCE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.BoundedFifo
