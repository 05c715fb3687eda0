"""Child processes that a terminal's signals cannot kill while they start.

Ctrl-C in a terminal sends SIGINT to every process of the group, children included. A child
that is still starting (a fresh interpreter importing, a forkserver child unpickling its
arguments) has not yet said what it does with the signal, and dies of it with a traceback:
the crawl then fails with "died during start-up". :func:`signals_blocked` starts children with
the signals blocked (a blocked-signal mask is inherited through ``fork`` and ``exec``); the
child's entry point sets its handlers, then calls :func:`unblock`, and a signal that came
meanwhile is delivered to the handler it chose (or discarded, if it ignores it).

Only the calling thread's mask changes, and only for the ``with`` block: a signal meant for
this process is delivered by another thread or at the block's end. One trap: CPython's
``multiprocessing`` starts its resource tracker (a helper process) the first time a ``spawn``
or ``forkserver`` child is started, and *unblocks* SIGINT and SIGTERM in the calling thread
when it has (``resource_tracker.ensure_running`` blocks them around its own start, then
unblocks them rather than restoring the mask). Started inside the block, it would undo the
block for every child started after it; :func:`signals_blocked` therefore starts the tracker
before it blocks anything. Imports only the standard library, so that any layer may use it.
POSIX only.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterable, Iterator

__all__ = ["signals_blocked", "unblock"]


@contextlib.contextmanager
def signals_blocked(signals: Iterable[signal.Signals]) -> Iterator[None]:
    """Inside: ``signals`` blocked in this thread, and so in every child it starts (the
    resource tracker started first: see the module's docstring)."""
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()  # a no-op once it runs; starting it unblocks SIGINT
    old = signal.pthread_sigmask(signal.SIG_BLOCK, set(signals))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def unblock(signals: Iterable[signal.Signals]) -> None:
    """In the child, once its handlers are set: the signals blocked since its start delivered."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, set(signals))
