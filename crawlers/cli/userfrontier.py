"""The student's frontier on ``crawlab``'s command line: ``--frontier FILE.py:CLASS``.

:mod:`frontier.userclass` loads and checks the class; this module adds what only the command
line may do (``frontier`` cannot import ``exercises``): it sets the grader's static check of the
source (:func:`exercises.static.check_source`) to run before an exercise's file is imported,
and turns the ``frontier`` argument of a subcommand into the registered name.
"""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["add_frontier_arguments", "install_source_check", "missing_frontier",
           "resolve_frontier_argument"]

FRONTIER_HELP = ("a registered frontier's name (see crawlab frontiers) or your own class as "
                 "FILE.py:CLASS")


class _OneFrontier(argparse.Action):
    """Store the frontier, refusing a second one: the positional ``FRONTIER`` and
    ``--frontier`` name the same thing, so a command line that gives both (or either twice)
    is an error (argparse's one line, exit 2), never one of them silently dropped."""

    def __call__(self, parser, namespace, values, option_string=None):
        shown = option_string or "FRONTIER"
        before = getattr(namespace, _GIVEN, None)
        if before is not None:
            raise argparse.ArgumentError(
                self, f"the frontier is given twice ({before[0]} {before[1]!r} and {shown} "
                      f"{values!r}): name it once, as FRONTIER or as --frontier")
        setattr(namespace, _GIVEN, (shown, values))
        setattr(namespace, self.dest, values)


_GIVEN = "_frontier_given"  # (form, value) of the frontier already parsed


def add_frontier_arguments(p: argparse.ArgumentParser) -> None:
    """The frontier of ``crawlab explore`` and ``crawlab linearize``: positional (``crawlab
    explore lockfree``) or ``--frontier NAME|FILE.py:CLASS``, the form every lab and the
    autograder take; either sets ``args.frontier`` (``None`` when neither is given), both at
    once is refused."""
    p.add_argument("frontier", nargs="?", default=argparse.SUPPRESS, metavar="FRONTIER",
                   action=_OneFrontier, help=FRONTIER_HELP)
    p.add_argument("--frontier", dest="frontier", default=None, action=_OneFrontier,
                   metavar="NAME|FILE.py:CLASS", help=f"the same: {FRONTIER_HELP}")


def missing_frontier(args: argparse.Namespace, command: str) -> bool:
    """``True``, after one line on stderr, when neither form named a frontier."""
    import sys

    if getattr(args, "frontier", None):
        return False
    print(f"crawlab {command}: error: name a frontier: NAME or --frontier FILE.py:CLASS",
          file=sys.stderr)
    return True


def install_source_check() -> bool:
    """Make :func:`frontier.userclass.load_spec` run the grader's static check
    (:func:`exercises.static.check_source`) on an exercise's file before importing it: the
    file and class an exercise asks for (:func:`exercises.policy.exercise_of`) must keep that
    exercise's rules. A class no exercise asks for has no rules to keep. ``False`` (and no
    check) where ``exercises`` has no static check."""
    from frontier import userclass

    try:
        from exercises.policy import exercise_of
        from exercises.static import SourceError, check_source
    except ImportError:
        return False

    def check(path: Path, class_name: str) -> list[str]:
        exercise = exercise_of(str(path), class_name)
        if exercise is None:
            return []
        try:
            return list(check_source(path, exercise, shown_as=str(path)))
        except SourceError as exc:
            return [str(exc)]

    userclass.set_source_check(check)
    return True


def resolve_frontier_argument(args: argparse.Namespace) -> None:
    """A subcommand's ``frontier`` given as ``FILE.py:CLASS`` is loaded, checked and replaced by
    the name it is registered under (:class:`frontier.userclass.BadFrontierSpec`, one line,
    when it cannot be); a registered name is left as it is for the subcommand to check."""
    from frontier import userclass

    value = getattr(args, "frontier", None)
    if isinstance(value, str) and userclass.is_spec(value):
        args.frontier = userclass.load_spec(value)
