"""Signals in a crawl: SIGTERM made a Ctrl-C, and both held until the main thread reaches a
safe point.

:func:`terminate_is_interrupt`: SIGTERM (``kill``, ``timeout``, the end of a batch job) stops a
command as Ctrl-C does, so that a crawl still writes its report, summary and journal (it ended
with nothing written before). ``crawlab`` and a lab run as ``python -m labs.lab_NAME`` both
run inside it.

Python runs a signal's handler in the main thread between two bytecodes, any two: Ctrl-C's
``KeyboardInterrupt`` can be raised inside :mod:`threading`'s own Python code, half-way
through the bookkeeping of a lock. Seen on 3.13t in ``Thread.start``: the interrupt came as
``Condition.wait`` was about to take its lock back, and leaving ``with cond:`` then released a
lock nobody held (``RuntimeError: release unlocked lock`` instead of the crawl's
``interrupted`` report); one bytecode later the lock is held and never released, and every
later ``wait``/``set`` on it hangs. No code that starts, waits for or joins threads is safe
from a handler that raises.

:class:`SafePoints` replaces the Python handlers of SIGINT and SIGTERM, for the time of a
``with`` block, by one that only notes the signal (a list append: no lock, no raise). The
main thread runs the noted signals' own handlers at :meth:`SafePoints.poll`, where it holds
no lock; a ``KeyboardInterrupt`` then comes from there. A second signal, before the first
was polled or after, runs its handler at once: a user pressing Ctrl-C again is not kept
waiting by a program stuck short of its safe point, unless the program holds signals for a
teardown that must not be cut (:meth:`SafePoints.hold`). At the block's end
the handlers are put back and a signal still noted is run (never lost). Signals with no
Python handler (``SIG_DFL``, ``SIG_IGN``) are left alone, and so is everything outside the
main thread, where no handler can be set.

Thread-safety: main thread only (the handlers, :meth:`poll` and the blocks all run there).
"""

from __future__ import annotations

import _thread
import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType, TracebackType
from typing import Any

__all__ = ["SafePoints", "in_a_thread_of_its_own", "terminate_is_interrupt"]

HELD = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def terminate_is_interrupt() -> Iterator[None]:
    """Inside: SIGTERM raises ``KeyboardInterrupt`` as Ctrl-C does. Only in the main thread, and
    only where SIGTERM had its default action (``crawlab serve`` and the BSP coordinator set
    their own); put back on the way out."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def in_a_thread_of_its_own(act: Callable[[], object]) -> Callable[[int, Any], None]:
    """A signal handler that runs ``act()`` in a new thread and returns at once. A handler
    runs in the main thread between two of its bytecodes, maybe while that thread holds a lock
    ``act`` needs (a BSP worker fetching on its main thread holds its fetcher's stop event in
    a politeness wait): called there, ``act`` would wait for a lock its own thread holds, for
    ever. Started with :func:`_thread.start_new_thread`, which takes no lock of
    :mod:`threading`'s, the new thread waits for the lock while the main thread goes on and
    releases it."""
    def handler(signum: int, frame: Any) -> None:
        _thread.start_new_thread(act, ())
    return handler


class SafePoints:
    """Inside ``with SafePoints() as points:``, the Python handlers of ``signals`` run only at
    ``points.poll()`` (or, for a second signal, at once). Invariant: ``noted`` holds the signals
    received and not yet handled, oldest first; it is empty outside the block."""

    def __init__(self, signals: tuple[int, ...] = HELD) -> None:
        self.signals = signals
        self.noted: list[tuple[int, FrameType | None]] = []
        self.received = 0  # signals received in the block, handled or not
        self.holding = False  # set by hold(): even a second signal waits for the block's end
        self._previous: dict[int, Any] = {}  # signal -> its handler before the block

    def __enter__(self) -> SafePoints:
        if threading.current_thread() is not threading.main_thread():
            return self
        for signum in self.signals:
            handler = signal.getsignal(signum)
            if callable(handler):
                self._previous[signum] = handler
                signal.signal(signum, self._note)
        return self

    def _note(self, signum: int, frame: FrameType | None) -> None:
        self.received += 1
        if self.received > 1 and not self.holding:  # a second signal: no more waiting
            self._previous[signum](signum, frame)
            return
        self.noted.append((signum, frame))

    def hold(self) -> None:
        """From now to the block's end, every signal waits for it, a second one too, and
        :meth:`poll` runs none: for a teardown that must not be cut half-way (threads joined,
        a journal closed), which is bounded in time by its own limits."""
        self.holding = True

    def poll(self) -> None:
        """Run the noted signals' handlers, oldest first, here: a safe point (no lock held).
        O(signals noted). Whatever a handler raises (``KeyboardInterrupt``) is raised here."""
        while self.noted and not self.holding:
            signum, frame = self.noted.pop(0)
            self._previous[signum](signum, frame)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self.holding = False
        try:
            if kind is None:
                self.poll()  # a signal noted after the last safe point is handled, not dropped
        finally:
            self.noted.clear()
            self._previous.clear()
