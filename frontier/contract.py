"""The frontier contract, its errors, its counters and the registry of strategies.

Every frontier in crawlab, whatever its synchronization, keeps the same small contract
(:class:`Frontier`), so the threaded crawler, the BSP engine, the labs and the tests can take any
of them by name::

    >>> import frontier
    >>> f = frontier.create("monitor", capacity=4)
    >>> f.put("http://a.test/"); f.put("http://b.test/")
    >>> f.get()
    'http://a.test/'
    >>> len(f)
    1

Blocking rules (the same for all frontiers, whatever they use to wait):

* ``put`` on a *bounded* frontier blocks while it is full; with ``timeout`` it raises :class:`Full`
  when the time is up. Unbounded frontiers never block in ``put``.
* ``get`` blocks while the frontier is empty and open; with ``timeout`` it raises :class:`Empty`
  when the time is up. Once the frontier is closed, ``get`` still drains what is left, then returns
  ``None`` at once instead of blocking: that is how a crawler shuts down.
* ``close()`` wakes every blocked thread. A ``put`` after (or blocked across) ``close`` raises
  :class:`Closed`.
* ``put_many`` / ``get_many`` are the BSP bulk operations (insert-many, extract-top(R)).
  ``get_many(r)`` never blocks: it returns up to ``r`` URLs, possibly none.
* ``len(f)`` read while other threads work is a snapshot that may already be stale.

Priorities: larger is better (OPIC cash). FIFO frontiers accept and ignore the priority; priority
frontiers reject NaN and non-numbers with :class:`ValueError`.
"""

from __future__ import annotations

import inspect
import numbers
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from typing import ClassVar, Protocol, runtime_checkable

__all__ = [
    "Closed",
    "Empty",
    "Frontier",
    "FrontierStats",
    "Full",
    "PerThreadStats",
    "Storage",
    "UnknownFrontier",
    "check_capacity",
    "check_priority",
    "check_r",
    "create",
    "describe",
    "info",
    "is_live",
    "names",
    "register",
    "thread_handle",
]

DEFAULT_CAPACITY = 30
"""The frontier size of the threading paper (``FRONTIER_SIZE=30``)."""


class Empty(Exception):
    """``get`` timed out on an empty frontier (as :class:`queue.Empty`)."""


class Full(Exception):
    """``put`` timed out on a full bounded frontier (as :class:`queue.Full`)."""


class Closed(RuntimeError):
    """``put`` was called on a closed frontier."""

    def __init__(self, name: str = "frontier") -> None:
        super().__init__(f"put on a closed {name} frontier: close() was already called")


class UnknownFrontier(ValueError):
    """The registry has no frontier of that name; the message lists the valid names."""


# --------------------------------------------------------------------------------------------
# Counters


@dataclass
class FrontierStats:
    """What a frontier did and what its synchronization cost.

    A field that a strategy has no use for stays 0 (a lock-free queue takes no locks).

    Thread-safety: each strategy updates its counters where they cannot race (inside its
    critical section, or per thread, see :class:`PerThreadStats`), so the numbers are exact,
    except for ``unsynchronized``, whose counters race like the rest of it.
    """

    puts: int = 0
    """URLs accepted by ``put``/``put_many``."""
    gets: int = 0
    """URLs handed out by ``get``/``get_many``."""
    lock_acquisitions: int = 0
    """Acquisitions of the frontier's locks (or P operations on its semaphores)."""
    lock_waits: int = 0
    """Acquisitions that found the lock taken and had to wait for it (contention)."""
    condition_waits: int = 0
    """Times a thread slept waiting for room or for a URL (condition/semaphore/backoff waits)."""
    cas_retries: int = 0
    """Compare-and-set attempts that failed and were retried (lock-free strategies)."""
    optimistic_aborts: int = 0
    """Transactions whose validation failed, so they were rolled back and retried."""
    races_detected: int = 0
    """Races caught red-handed by the unsynchronized frontier (both kinds below)."""
    duplicates_handed_out: int = 0
    """URLs handed out more than once (two threads read the same slot)."""
    urls_overwritten: int = 0
    """URLs lost because a slot was overwritten before anyone took it."""

    def as_dict(self) -> dict[str, int]:
        """The counters as a plain ``dict`` (for JSON and CSV)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def __iadd__(self, other: FrontierStats) -> FrontierStats:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))
        return self


class PerThreadStats:
    """Counters kept per thread and summed on demand.

    For strategies with no critical section to count in (lock-free, optimistic): each thread
    increments its own :class:`FrontierStats`, which no other thread writes, so no update is
    lost; :meth:`total` adds them up. Reading while threads work gives a recent snapshot.
    Cost: one thread-local attribute lookup per update.
    """

    def __init__(self) -> None:
        self._local = threading.local()
        self._all: list[FrontierStats] = []  # every thread's counters; list.append is atomic

    def mine(self) -> FrontierStats:
        """The calling thread's counters (created on first use)."""
        try:
            return self._local.stats
        except AttributeError:
            s = self._local.stats = FrontierStats()
            self._all.append(s)
            return s

    def total(self) -> FrontierStats:
        """The sum over all threads that ever touched the frontier."""
        total = FrontierStats()
        for s in list(self._all):
            total += s
        return total


# --------------------------------------------------------------------------------------------
# Argument checks shared by every strategy


def check_capacity(capacity: object, *, allow_none: bool = False) -> int | None:
    """Return ``capacity`` if it is a positive ``int`` (or ``None`` when allowed).

    Raises :class:`ValueError` naming the argument otherwise (zero, negative, float, string, bool).
    """
    if capacity is None and allow_none:
        return None
    if isinstance(capacity, bool) or not isinstance(capacity, int):
        raise ValueError(f"capacity must be a positive integer, got {capacity!r}")
    if capacity <= 0:
        raise ValueError(f"capacity must be a positive integer, got {capacity!r}")
    return capacity


def check_r(r: object) -> int:
    """Return ``r`` (the R of extract-top(R)) if it is a non-negative ``int``; else
    :class:`ValueError`."""
    if isinstance(r, bool) or not isinstance(r, int) or r < 0:
        raise ValueError(f"r must be a non-negative integer, got {r!r}")
    return r


def check_priority(priority: object) -> float:
    """Return ``priority`` as a float; :class:`ValueError` for NaN and non-numbers.

    Infinite priorities are allowed (``-inf`` is a handy "crawl last"). O(1); the common case
    (a ``float``) costs one type check and one comparison.
    """
    if type(priority) is not float:
        if isinstance(priority, bool) or not isinstance(priority, numbers.Real):
            raise ValueError(f"priority must be a real number, got {priority!r}")
        priority = float(priority)
    if priority != priority:  # only NaN is unequal to itself
        raise ValueError("priority must be a real number, got NaN")
    return priority


# --------------------------------------------------------------------------------------------
# The contract


@runtime_checkable
class Frontier(Protocol):
    """What every frontier offers. See the module docstring for the blocking rules.

    Class attributes describe the strategy to the registry, the labs and the tests:
    ``name`` (the registry key), ``description`` (one line), ``ordering`` (``"fifo"`` or
    ``"priority"``), ``correct`` (``False`` only for the deliberately racy strategy) and
    ``bounded`` (whether ``put`` can block for room). An optional ``live`` (read it with
    :func:`is_live`) is ``False`` for a strategy that can leave a thread asleep while there is
    work for it (``tanenbaum``'s lost wake-ups).

    Optional: ``handle()``, the calling thread's own way in (read it with
    :func:`thread_handle`).
    """

    name: ClassVar[str]
    description: ClassVar[str]
    ordering: ClassVar[str]
    correct: ClassVar[bool]
    bounded: ClassVar[bool]
    capacity: int | None
    stats: FrontierStats

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        """Add one URL; bounded frontiers block while full (``Full`` on timeout)."""

    def get(self, timeout: float | None = None) -> str | None:
        """Take the best URL; block while empty; ``None`` once closed and drained."""

    def put_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        """Insert-many: add every ``(url, priority)`` pair."""

    def get_many(self, r: int) -> list[str]:
        """Extract-top(R): take up to ``r`` best URLs without blocking."""

    def close(self) -> None:
        """Wake every blocked thread; later ``get``s drain then return ``None``."""

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""

    def __len__(self) -> int:
        """How many URLs are waiting (a snapshot when other threads are working)."""


class Storage(Protocol):
    """The storage half of a frontier: a plain, single-threaded container.

    As :class:`queue.Queue` keeps its locking apart from its ``_put``/``_get`` hooks, crawlab
    keeps synchronization strategies (``frontier.locked``, ``frontier.semaphore`` ...) apart
    from storage (``frontier.storage``, ``frontier.heap`` ...). Storage methods are not
    thread-safe: the strategy calls them with its lock held, or accepts the races on purpose.
    """

    def push(self, url: str, priority: float) -> None:
        """Add one URL."""

    def pop(self) -> str:
        """Remove and return the best URL; the caller has checked the storage is not empty."""

    def push_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        """Add every pair (a storage may do this faster than one push at a time)."""

    def pop_many(self, r: int) -> list[str]:
        """Remove and return up to ``r`` best URLs, best first."""

    def __len__(self) -> int:
        """Number of URLs held."""

    def _check(self) -> None:
        """Assert every invariant of the structure (for tests)."""


# --------------------------------------------------------------------------------------------
# Registry

_REGISTRY: dict[str, type] = {}
#: Loads ``FILE.py:CLASS`` and returns the name it registered (set by :mod:`frontier.userclass`,
#: which imports this module, so this one cannot import it).
_spec_loader: Callable[[str], str] | None = None
#: Makes one frontier of class ``cls`` with ``options`` (set by :mod:`frontier.userclass`: a
#: class it loaded is made within a time limit); ``None``: ``cls(**options)``.
_maker: Callable[..., Frontier] | None = None


def is_live(cls: type) -> bool:
    """Whether every wake-up of strategy ``cls`` arrives (its ``live`` attribute, default True)."""
    return bool(getattr(cls, "live", True))


def thread_handle(frontier: Frontier) -> Frontier:
    """The calling thread's own way in to ``frontier``: ``frontier.handle()`` where the
    strategy offers one (a method of its class that takes no argument), else ``frontier``
    itself.

    A handle has the frontier's ``put``, ``get``, ``put_many`` and ``get_many``, with the same
    meaning, and belongs to the thread that asked for it: no other thread may call it (its
    counters would race, and its URLs would join that thread's in that thread's order). It is
    there for free-threaded Python, where every call on an object writes that object's
    reference count: threads that all call one shared frontier write one count on every
    operation, even when their work is disjoint. A worker takes its handle once, before its
    loop. O(1); thread-safe (each thread is given its own).
    """
    if not callable(getattr(type(frontier), "handle", None)):  # the class's own, not a proxy's
        return frontier
    try:
        inspect.signature(frontier.handle).bind()
    except TypeError:  # a ``handle`` that needs arguments means something else
        return frontier
    except ValueError:  # no signature to read: call it
        pass
    return frontier.handle()


def register(cls: type) -> type:
    """Class decorator: make a frontier class available by its ``name`` attribute."""
    name = cls.name  # type: ignore[attr-defined]
    if name in _REGISTRY and _REGISTRY[name] is not cls:
        raise ValueError(f"frontier name {name!r} is already registered")
    _REGISTRY[name] = cls
    return cls


def names() -> list[str]:
    """Registered frontier names, in registration order (FIFO strategies, then priority).

    The built-in strategies are always registered: importing this module first imports the
    ``frontier`` package, whose ``__init__`` imports every strategy module."""
    return list(_REGISTRY)


def info(name: str) -> type:
    """The frontier class registered under ``name`` (:class:`UnknownFrontier` if none).

    A ``name`` with a ``:`` is a class the user wrote, ``FILE.py:CLASS``: it is loaded,
    checked and registered by :func:`frontier.userclass.load_spec` (once; importing the
    ``frontier`` package sets it up)."""
    try:
        return _REGISTRY[name]
    except KeyError:
        pass
    if isinstance(name, str) and ":" in name and _spec_loader is not None:
        return _REGISTRY[_spec_loader(name)]
    valid = ", ".join(_REGISTRY)
    raise UnknownFrontier(f"unknown frontier {name!r}; valid names: {valid} "
                          "(or your own class as FILE.py:CLASS)")


def create(name: str, **options: object) -> Frontier:
    """Build the frontier registered under ``name`` with ``options`` (e.g. ``capacity=30``).

    Unknown names raise :class:`UnknownFrontier` listing the valid names; bad options raise
    :class:`ValueError` naming the argument.
    """
    cls = info(name)
    try:
        return cls(**options) if _maker is None else _maker(cls, **options)
    except TypeError as exc:  # an option the strategy does not take
        raise ValueError(f"frontier {name!r}: {exc}") from None


def describe() -> list[tuple[str, str]]:
    """``(name, one-line description)`` for every registered frontier."""
    return [(n, info(n).description) for n in names()]

