"""The student's frontier on ``crawlab``'s command line: ``--frontier FILE.py:CLASS``.

:mod:`frontier.userclass` loads and checks the class; this module adds what only the command
line may do (``frontier`` cannot import ``exercises``): it sets the grader's static check of the
source (``exercises.policy.check_source``, where it exists) to run before a file is imported,
and turns the ``frontier`` argument of a subcommand into the registered name.
"""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["install_source_check", "resolve_frontier_argument"]


def _exercise_of(path: Path) -> str | None:
    """The exercise whose frontier file is named like ``path`` (``None`` if none is)."""
    try:
        from exercises.grade import EXERCISES
    except ImportError:
        return None
    for key, entry in EXERCISES.items():
        frontier_class = entry[1]
        if frontier_class and frontier_class.split(":")[0] == path.name:
            return key
    return None


def install_source_check() -> bool:
    """Make :func:`frontier.userclass.load_spec` run the grader's static check on a file
    before importing it; ``False`` (and no check) where ``exercises.policy`` has none."""
    from frontier import userclass

    try:
        from exercises.policy import check_source
    except ImportError:
        return False
    userclass.set_source_check(lambda path: list(check_source(path, _exercise_of(path))))
    return True


def resolve_frontier_argument(args: argparse.Namespace) -> None:
    """A subcommand's ``frontier`` given as ``FILE.py:CLASS`` is loaded, checked and replaced by
    the name it is registered under (:class:`frontier.userclass.BadFrontierSpec`, one line,
    when it cannot be); a registered name is left as it is for the subcommand to check."""
    from frontier import userclass

    value = getattr(args, "frontier", None)
    if isinstance(value, str) and userclass.is_spec(value):
        args.frontier = userclass.load_spec(value)
