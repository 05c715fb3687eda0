"""The command-line parsing every entry point shares: the one-line-error parser and the
argument types.

:class:`OneLineParser` is ``crawlab``'s parser (:mod:`crawlers.cli`) and each lab's
(:mod:`labs.harness`). Each type raises :class:`argparse.ArgumentTypeError`, which the parser
turns into ``crawlab CMD: error: ...`` and exit status 2.

Imports only the standard library, so that any layer may use it (the lowest of the
``crawlers`` layers).
"""

from __future__ import annotations

import argparse

__all__ = [
    "EXIT_USAGE",
    "OneLineParser",
    "non_negative",
    "non_negative_int",
    "positive",
    "positive_int",
    "probability",
]

#: The exit status of bad input.
EXIT_USAGE = 2


class OneLineParser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line (no usage dump) and exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None


def positive_int(text: str) -> int:
    """An integer >= 1."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """An integer >= 0."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


def non_negative(text: str) -> float:
    """A number >= 0 (NaN refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 0:  # also rejects NaN
        raise argparse.ArgumentTypeError(f"must not be negative, got {text}")
    return value


def positive(text: str) -> float:
    """A number > 0."""
    value = non_negative(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be positive, got 0")
    return value


def probability(text: str) -> float:
    """A number in [0, 1]."""
    value = non_negative(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be a probability in [0, 1], got {text}")
    return value
