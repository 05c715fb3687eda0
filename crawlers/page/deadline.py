"""Deadlines on whole fetches: a budget that a server dripping one byte a second cannot stretch.

A socket timeout bounds one ``recv``; a server that sends a byte every second never trips a
10-second read timeout and holds the fetch for as long as it likes. A :class:`Budget` bounds the
whole fetch instead: :class:`Deadlines` keeps every fetch in flight with its deadline, and one
watcher thread shuts down the socket of a fetch whose deadline passed (``shutdown(SHUT_RDWR)``
wakes a thread blocked in ``recv`` at once, whatever the library above it is doing). The same
switch ends a crawl: :meth:`Deadlines.cut_all` cuts every fetch in flight, and every fetch started
afterwards is cut as soon as it opens a socket.

How the socket is found: the fetching thread registers its budget in a thread-local before it
calls ``requests``; the connection classes here (:class:`BudgetHTTPConnection`, and the HTTPS
one) attach their socket to the thread's budget when they connect or send a request on a
kept-alive connection. :func:`mount` installs them in a ``requests`` adapter.

Thread-safety: a lock and a condition guard the set of budgets in flight; a budget's fields are
written under that lock (by the watcher, :meth:`Deadlines.cut_all`, or its own thread). Cost: O(1)
to register and unregister (the watcher is woken only when a new deadline comes before its next
look, never for the usual fetch whose budget is as long as the others'); the watcher looks at
the earliest deadline, at least every ``tick`` seconds while fetches are in flight, and scans
them, one per robot thread.
"""

from __future__ import annotations

import socket
import threading
import time

from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

__all__ = ["Budget", "Deadlines", "mount"]

DEADLINE = "deadline"  # why a budget was cut: its own time ran out
STOPPED = "stopped"  # ... or the crawl ended

_local = threading.local()  # .deadlines, .budget: the fetch this thread is running


class Budget:
    """The deadline of one fetch and the socket it is reading (fields under the owner's lock).

    ``cut`` is None while the fetch may go on, else :data:`DEADLINE` or :data:`STOPPED`.
    ``paused`` budgets (the fetch waits for politeness between redirect hops) are not cut for
    their time; :meth:`Deadlines.resume` moves the deadline by the time paused.
    """

    __slots__ = ("deadline", "sock", "cut", "paused_at", "outer")

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.sock: socket.socket | None = None
        self.cut: str | None = None
        self.paused_at: float | None = None
        # the thread's fetch this one runs inside (robots.txt asked in the middle of a
        # redirect), restored when this one ends
        self.outer: tuple[Deadlines | None, Budget | None] = (None, None)


def _shutdown(sock: socket.socket | None) -> None:
    """Wake every thread reading ``sock``: shut the plain socket down (an SSL socket's own
    ``shutdown`` would also tear its TLS state down under the reading thread)."""
    if sock is None:
        return
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except (OSError, TypeError, ValueError):
        pass  # already closed: nobody is reading it


class Deadlines:
    """The fetches in flight of one fetcher and the watcher that enforces their deadlines."""

    tick = 0.25  # the longest the watcher sleeps (it wakes earlier for an earlier deadline)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # signalled when a budget is added (the watcher may need to wake earlier) or on close
        self._changed = threading.Condition(self._lock)
        self._inflight: set[Budget] = set()
        self._stopped = False
        self._closed = False
        self._watcher: threading.Thread | None = None
        self._wake_at = float("inf")  # when the watcher will look next (under the lock)
        self.cut_deadline = 0  # fetches cut by their own deadline
        self.cut_stopped = 0  # fetches cut by cut_all (the crawl ended)

    @property
    def stopped(self) -> bool:
        """True once :meth:`cut_all` was called (every later fetch is cut at once)."""
        return self._stopped

    def begin(self, seconds: float) -> Budget:
        """Register this thread's fetch, due ``seconds`` from now; pair with :meth:`end`.
        Fetches nest (a redirect hop asks robots.txt of its site): the inner one is the
        thread's until it ends, then the outer one is again."""
        budget = Budget(time.monotonic() + seconds)
        budget.outer = (getattr(_local, "deadlines", None), getattr(_local, "budget", None))
        with self._lock:
            if self._stopped:
                budget.cut = STOPPED
                self.cut_stopped += 1
            self._inflight.add(budget)
            if self._watcher is None and not self._closed:
                self._watcher = threading.Thread(target=self._watch, name="fetch-deadlines",
                                                 daemon=True)
                self._watcher.start()
            if budget.deadline < self._wake_at:  # else the watcher looks in time anyway
                self._changed.notify()
        _local.deadlines, _local.budget = self, budget
        return budget

    def end(self, budget: Budget) -> None:
        """The fetch is over (its connection released or closed)."""
        _local.deadlines, _local.budget = budget.outer
        with self._lock:
            self._inflight.discard(budget)
            budget.sock = None

    def pause(self, budget: Budget) -> None:
        """The fetch waits outside the network (politeness before a hop): stop its clock."""
        with self._lock:
            budget.paused_at = time.monotonic()

    def resume(self, budget: Budget) -> None:
        """Start the clock again, the deadline moved by the time paused."""
        with self._lock:
            if budget.paused_at is not None:
                budget.deadline += time.monotonic() - budget.paused_at
                budget.paused_at = None
            if budget.deadline < self._wake_at:
                self._changed.notify()

    def attach(self, sock: socket.socket | None) -> None:
        """The calling thread's fetch now reads ``sock`` (called by the connection classes);
        a fetch already cut has its new socket shut down at once."""
        budget = getattr(_local, "budget", None)
        if budget is None or sock is None:
            return
        with self._lock:
            budget.sock = sock
            cut = budget.cut is not None
        if cut:
            _shutdown(sock)

    def cut_all(self) -> int:
        """Cut every fetch in flight and every later one; returns how many were in flight."""
        with self._lock:
            self._stopped = True
            victims = [b for b in self._inflight if b.cut is None]
            for b in victims:
                b.cut = STOPPED
            self.cut_stopped += len(victims)
            socks = [b.sock for b in victims]
        for sock in socks:
            _shutdown(sock)
        return len(victims)

    def close(self) -> None:
        """Stop the watcher thread (the fetcher is closed)."""
        with self._lock:
            self._closed = True
            self._changed.notify()

    def _watch(self) -> None:
        with self._lock:
            while not self._closed:
                now = time.monotonic()
                due = [b for b in self._inflight
                       if b.cut is None and b.paused_at is None and b.deadline <= now]
                for b in due:
                    b.cut = DEADLINE
                self.cut_deadline += len(due)
                socks = [b.sock for b in due]
                if socks:
                    self._lock.release()
                    try:
                        for sock in socks:
                            _shutdown(sock)
                    finally:
                        self._lock.acquire()
                    continue
                live = [b.deadline for b in self._inflight
                        if b.cut is None and b.paused_at is None]
                if not self._inflight:
                    self._wake_at = float("inf")
                    self._changed.wait()
                else:
                    wait = min(self.tick, max(0.001, min(live) - now)) if live else self.tick
                    self._wake_at = now + wait
                    self._changed.wait(wait)
                self._wake_at = 0.0  # looking now: every change is seen


# -- the connection classes: how a budget learns its socket --------------------------------

def _attach_current(sock: socket.socket | None) -> None:
    deadlines = getattr(_local, "deadlines", None)
    if deadlines is not None:
        deadlines.attach(sock)


def last_request_reused() -> bool:
    """Whether the calling thread's last request went out on a kept-alive socket, one that had
    carried a request before (a server may have closed it, idle, as the request was sent);
    :func:`forget_reuse` before a request that may fail before it goes out."""
    return getattr(_local, "reused", False)


def forget_reuse() -> None:
    """The calling thread's next :func:`last_request_reused` is False until a request goes out."""
    _local.reused = False


def _request(conn, plain_request, args, kwargs):  # noqa: ANN001, ANN202 - urllib3's
    """``plain_request`` on ``conn``, its socket attached to the calling thread's budget, and
    whether that socket had carried a request before noted for :func:`last_request_reused`."""
    if conn.sock is not None:  # a kept-alive connection: connect() is not called again
        _attach_current(conn.sock)
    _local.reused = conn.sock is not None and conn.sock is getattr(conn, "_carried", None)
    try:
        return plain_request(conn, *args, **kwargs)
    finally:
        conn._carried = conn.sock  # noqa: SLF001 - this class's own attribute


class BudgetHTTPConnection(HTTPConnection):
    """urllib3's HTTP connection, attaching its socket to the calling thread's budget."""

    def connect(self) -> None:
        super().connect()
        _attach_current(self.sock)

    def request(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201 - urllib3's signature
        return _request(self, HTTPConnection.request, args, kwargs)


class BudgetHTTPSConnection(HTTPSConnection):
    """urllib3's HTTPS connection, attaching its socket to the calling thread's budget."""

    def connect(self) -> None:
        super().connect()
        _attach_current(self.sock)

    def request(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201 - urllib3's signature
        return _request(self, HTTPSConnection.request, args, kwargs)


class _HTTPPool(HTTPConnectionPool):
    ConnectionCls = BudgetHTTPConnection


class _HTTPSPool(HTTPSConnectionPool):
    ConnectionCls = BudgetHTTPSConnection


def mount(adapter) -> None:  # noqa: ANN001 - a requests HTTPAdapter
    """Make ``adapter``'s connections attach their sockets to the calling thread's budget
    (registered by :meth:`Deadlines.begin`)."""
    adapter.poolmanager.pool_classes_by_scheme = {"http": _HTTPPool, "https": _HTTPSPool}
