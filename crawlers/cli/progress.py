"""The progress meter of ``crawlab explore``: a line on stderr once a search has run for
:data:`AFTER` seconds (interleavings done, rate, elapsed, and how far along when the total can
be estimated), refreshed in place on a terminal and every :data:`EVERY_LOG` seconds otherwise.

The estimate of the total is the count recorded for the same frontier, scenario and bound in
the book's ``docs/results/explore/explore.csv`` (a source checkout only): DPOR cannot know the
size of its tree before it has walked it, but the count of a whole bounded space does not vary
between runs of the same code, so a recorded count is a good guess until the code changes
(the meter then says "past the recorded count").

Not thread-safe: one meter per search, called from the search's thread.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TextIO

__all__ = ["AFTER", "EVERY_LOG", "Meter", "recorded_count"]

AFTER = 2.0
"""Seconds a search runs silently before the meter shows."""
EVERY_LOG = 5.0
"""Seconds between lines when stderr is not a terminal (a log file, CI)."""
EVERY_TTY = 0.25

_RECORDED = Path(__file__).resolve().parents[2] / "docs" / "results" / "explore" / "explore.csv"


def recorded_count(frontier: str, scenario: str, bound: int | None,
                   path: Path = _RECORDED) -> int | None:
    """The interleavings of the whole bounded space as recorded in ``path``, or ``None``."""
    try:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if (row.get("frontier"), row.get("scenario"), row.get("bound"),
                        row.get("verdict")) == (frontier, scenario, str(bound), "holds"):
                    return int(row["interleavings"])
    except (OSError, ValueError, KeyError):
        return None
    return None


class Meter:
    """Called with a :class:`frontier.check.explore.Progress` after each interleaving."""

    def __init__(self, label: str, expected: int | None, stream: TextIO, *,
                 after: float = AFTER, unit: str = "interleavings",
                 total: str = "recorded") -> None:
        """``expected``: the total to estimate the rest by (``None``: no estimate), which
        the line calls ``total`` (the count recorded, or the runs asked for); ``unit``: what
        is counted (interleavings, or the randomized schedulers' runs)."""
        self.label, self.expected, self.stream, self.after = label, expected, stream, after
        self.unit, self.total = unit, total
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.every = EVERY_TTY if self.tty else EVERY_LOG
        self.shown = 0  # lines written
        self._next = after
        self._last = None

    def line(self, done: int, elapsed: float) -> str:
        """The meter's text for ``done`` interleavings after ``elapsed`` seconds."""
        rate = done / elapsed if elapsed > 0 else 0.0
        text = f"{self.label}: {done} {self.unit}, {rate:.0f}/s, {elapsed:.0f} s elapsed"
        if self.expected:
            if done < self.expected:
                eta = (self.expected - done) / rate if rate else float("inf")
                text += (f", about {100 * done / self.expected:.0f}% of the {self.expected} "
                         f"{self.total}, about {eta:.0f} s left")
            else:
                text += f", past the {self.expected} {self.total}"
        return text

    def __call__(self, progress) -> None:
        self._last = progress
        if progress.elapsed < self._next:
            return
        self._next = progress.elapsed + self.every
        self._write(self.line(progress.interleavings, progress.elapsed))

    def _write(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r" + text + "\x1b[K")
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.shown += 1

    def close(self) -> None:
        """End the meter's line (a terminal) once the search is over, if it showed at all."""
        if self.shown and self.tty:
            self.stream.write("\n")
            self.stream.flush()
