"""The counters, checked in every check of a grading: no check is a place to be careless in.

A file that can tell the checks that look at its counters from those that do not (by the URLs a
check uses, by the explorer's locks, by a slow clock) could update ``stats.puts`` outside its
lock only where nobody counts, and pass. So, in the child that grades a frontier
(:mod:`tests.conftest` puts both in place for each check, :func:`watching`, when a frontier
is graded), every check counts:

* :func:`switching`: every :class:`~frontier.contract.FrontierStats` offers a thread switch at
  each read of ``puts`` and ``gets`` (the first :data:`FULL` of a check, then one in
  :data:`EVERY`), so ``stats.puts += 1`` outside the lock loses updates in
  any check with threads. It is done to the class itself: the same class, ``repr`` and
  equality as ever (a swapped-in subclass could be told apart).
* :class:`Tally`: the graded class's ``put``, ``put_many``, ``get`` and ``get_many`` are counted
  by the grader as they return. At the end of every check, each frontier the check made, with
  no call of it still running, must have ``stats.puts`` equal to the URLs accepted and
  ``stats.gets`` to the URLs handed out, and its ``stats`` must be a ``FrontierStats`` itself
  (a subclass's own class attributes would shadow the switching counters).

The explored checks have neither (``tests/conftest.py``'s ``UNTALLIED``): the explorer compares
the counters with what its threads saw in every scenario itself, and schedules every shared
access it sees, the grader's bookkeeping included (the explorations would take longer than a
check may). A file that tells them apart gains nothing there. What a file can still tell is
whether it is being graded at all (the counters are slower to read than in a plain run): the
book's autograder page says so.

Thread-safety: the tally appends to per-frontier lists (atomic), so it needs no lock of its
own (a lock would be one more thing for the explorer to schedule).
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from frontier.contract import FrontierStats

__all__ = ["Tally", "switching", "watching"]

COUNTERS = ("puts", "gets")
FULL = 2_000
"""Reads of the counters, from the start of each check, that all offer a thread switch; after
them one read in :data:`EVERY` does. A switch costs a trip through the operating system (0.2 ms
on a loaded machine): at every read, the 100,000 reads of the eight-by-eight check took 20 s
instead of 0.4 s. The judge's plans and the small checks stay far below ``FULL``; a check that
moves thousands of URLs has its race shown long before it is reached."""
EVERY = 32
_pause = time.sleep  # the real one (the explorer swaps time.sleep while it runs)
_reads = [0]  # reads since the check began (approximate: updated without a lock, on purpose)


def fresh() -> None:
    """A check begins: its first :data:`FULL` reads all switch again."""
    _reads[0] = 0


def _counter(name: str) -> property:
    """A counter whose reads offer a thread switch (between reading it and writing it back,
    another thread may run): every read of the first :data:`FULL` of a check, then one in
    :data:`EVERY`."""
    def read(self):
        value = self.__dict__[name]
        n = _reads[0] = _reads[0] + 1
        if n <= FULL or n % EVERY == 0:
            _pause(0)
        return value

    def write(self, value) -> None:
        self.__dict__[name] = value

    return property(read, write)


@contextmanager
def switching() -> Iterator[None]:
    """Within the block, every ``FrontierStats`` (made before or during it) offers a thread
    switch at reads of ``puts`` and ``gets`` (see :func:`_counter`). Nested blocks are one
    block; entering one starts the count of reads again."""
    if all(isinstance(FrontierStats.__dict__.get(n), property) for n in COUNTERS):
        fresh()
        yield
        return
    fresh()
    saved = {n: FrontierStats.__dict__[n] for n in COUNTERS}
    for n in COUNTERS:
        setattr(FrontierStats, n, _counter(n))
    try:
        yield
    finally:
        for n, value in saved.items():
            setattr(FrontierStats, n, value)


_BEGIN = ("begin", 0, 0)
_UNSURE = ("unsure", 0, 0)


class Tally:
    """Counts what the graded class ``cls`` accepted and handed out, per frontier, as the
    grader saw the calls return; :meth:`check` compares that with each frontier's ``stats``.
    Calls a frontier makes to itself (``put_many`` calling ``put``) count once, as the outer
    call. Made, it wraps the class's ``__init__`` and operations; :meth:`remove` puts them
    back (use :func:`watching`)."""

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.made: list[tuple[object, list]] = []  # (frontier, its log) made in this check
        self._logs: dict[int, list] = {}
        self._inside = threading.local()
        self._saved = {name: cls.__dict__.get(name) for name in (
            "__init__", "put", "put_many", "get", "get_many")}
        init = cls.__init__

        @functools.wraps(init)
        def counted_init(f, *args, **kwargs):
            init(f, *args, **kwargs)
            log: list = []
            self._logs[id(f)] = log
            self.made.append((f, log))

        cls.__init__ = counted_init
        for name in ("put", "put_many", "get", "get_many"):
            fn = getattr(cls, name, None)
            if callable(fn):
                setattr(cls, name, self._counted(name, fn))

    def remove(self) -> None:
        """Give the class its own methods back."""
        for name, value in self._saved.items():
            if value is None:
                if name in self.cls.__dict__:
                    delattr(self.cls, name)
            else:
                setattr(self.cls, name, value)

    def _counted(self, name: str, fn):
        tally = self

        @functools.wraps(fn)
        def counted(f, *args, **kwargs):
            log = tally._logs.get(id(f))
            if log is None or getattr(tally._inside, "depth", 0):
                return fn(f, *args, **kwargs)
            pulled = [0]
            if name == "put_many" and args:
                args = (_counting(args[0], pulled), *args[1:])
            tally._inside.depth = 1
            log.append(_BEGIN)
            outcome = _UNSURE
            try:
                result = fn(f, *args, **kwargs)
                if name == "put":
                    outcome = ("done", 1, 0)
                elif name == "put_many":
                    outcome = ("done", pulled[0], 0)
                elif name == "get":
                    outcome = ("done", 0, 0 if result is None else 1)
                else:
                    outcome = ("done", 0, len(result))
                return result
            except Exception:
                # a put or get that raised took nothing (Full, Empty, Closed); a put_many that
                # raised may have put some of its URLs: this frontier is not counted
                outcome = _UNSURE if name == "put_many" else ("done", 0, 0)
                raise
            finally:
                tally._inside.depth = 0
                log.append(outcome)

        return counted

    def check(self) -> list[str]:
        """What the counters of the frontiers made so far got wrong (empty: nothing). A
        frontier with a call still running, or a ``put_many`` that raised, is not judged."""
        problems = []
        for f, log in self.made:
            entries = list(log)
            if entries.count(_BEGIN) * 2 != len(entries) or _UNSURE in entries:
                continue
            stats = getattr(f, "stats", None)
            if type(stats) is not FrontierStats:
                problems.append(f"stats is a {type(stats).__name__}, not a "
                                "frontier.contract.FrontierStats (the contract's counters)")
                continue
            puts = sum(e[1] for e in entries)
            gets = sum(e[2] for e in entries)
            if (stats.puts, stats.gets) != (puts, gets):
                problems.append(
                    f"stats say puts={stats.puts}, gets={stats.gets}, but in this check "
                    f"{puts} URLs went in and {gets} came out: a counter updated outside the "
                    "lock loses updates")
        return problems


@contextmanager
def watching(cls: type) -> Iterator[Tally]:
    """One check: the counters switch (:func:`switching`) and the frontiers of ``cls`` made
    in the block are tallied; call ``check()`` on the tally before the block ends (when the
    check's threads are done). Everything is put back on exit."""
    tally = Tally(cls)
    try:
        with switching():
            yield tally
    finally:
        tally.remove()


def _counting(pairs, pulled: list[int]):
    for pair in pairs:
        pulled[0] += 1
        yield pair
