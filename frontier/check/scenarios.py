"""Small scenarios to run under a controlled scheduler, each with the invariant it checks.

A scenario builds a :class:`World` (a fresh frontier and one private log per thread), names its
threads (``P1``, ``C`` ...), gives each thread a few frontier calls, and states the invariant
that must hold once every thread is done. :func:`verdict` returns ``None`` when it holds, else
one line saying what broke.

Waiting is bounded by a *patience* of :data:`PATIENCE` seconds on the scheduler's virtual
clock, which advances only when no thread can run. A call that sleeps its whole patience was
therefore woken by nobody while nothing else could happen: with an untimed wait it would have
slept for ever. That is how a lost wake-up shows, for every strategy alike (a condition
variable, a semaphore or a poll), and why exploring never hangs.

The scenarios (:data:`SCENARIOS`):

* ``lost-update`` -- two producers put one URL each at the same time; every URL comes out
  exactly once (taken out after the run). Races between takers and putters are ``close``'s.
* ``counter`` -- the same two puts; the frontier's own count of puts (``stats.puts``) says
  two, and every URL comes out exactly once: a counter updated outside a lock loses a count
  the way a ring buffer loses a URL.
* ``lost-wakeup`` -- two consumers wait on an empty frontier, one producer puts two URLs
  (capacity 2); every thread finishes without sleeping out its patience. Capacity 2, not 1: at
  capacity 1 every put into an empty frontier is an "edge", so edge-only signals lose nothing.
* ``lost-wakeup-full`` -- bounded frontiers: a full frontier (capacity 2, two URLs in), two
  producers waiting for room, one consumer taking two; every thread finishes in time.
* ``close`` -- a consumer takes until ``None``, a producer puts (waiting for room on a bounded
  frontier, full with one URL), a third thread closes; every thread finishes in time, and
  every URL accepted comes out exactly once.
* ``order`` -- priority frontiers: ``x`` (2.0) and ``lo`` (0.0) are in, a producer puts ``hi``
  (5.0) while a consumer takes one without waiting; the consumer gets ``x`` or ``hi``, never
  ``lo``, and the rest comes out best first.

Thread-safety: a world is shared by its threads, each writing only its own log.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import frontier

__all__ = ["PATIENCE", "SCENARIOS", "Scenario", "World", "applicable", "get", "verdict"]

PATIENCE = 0.01
"""Seconds of virtual time a blocking call may wait before it counts as never woken."""


class World:
    """One run's shared state: the frontier, and per thread a log only that thread writes.

    A log entry is ``(operation, argument, outcome, waited_out)``; the last entry of a thread
    that finished is ``("done", None, None, False)``.
    """

    def __init__(self, name: str, threads: list[str], capacity: int | None) -> None:
        cls = frontier.info(name)
        self.frontier = (
            frontier.create(name, capacity=capacity)
            if capacity is not None and cls.bounded
            else frontier.create(name)
        )
        self.prefilled: list[str] = []
        self.logs: dict[str, list[tuple]] = {t: [] for t in threads}
        self.drained: list[str] | None = None  # what _drain took out after the run

    def prefill(self, *pairs: tuple[str, float]) -> None:
        """Put URLs before any thread starts (from the setup, single-threaded)."""
        for url, priority in pairs:
            self.frontier.put(url, priority)
            self.prefilled.append(url)


def _put(world: World, me: str, url: str, priority: float = 0.0) -> None:
    """``put`` with patience, logged: outcome ``"ok"``, ``"full"`` or ``"closed"``."""
    log = world.logs[me]
    start = time.monotonic()
    try:
        world.frontier.put(url, priority, timeout=PATIENCE)
        outcome = "ok"
    except frontier.Full:
        outcome = "full"
    except frontier.Closed:
        outcome = "closed"
    log.append(("put", url, outcome, time.monotonic() - start >= PATIENCE))


def _get(world: World, me: str, timeout: float | None = PATIENCE) -> str | None:
    """``get`` (with patience, or ``timeout=0`` for a try), logged: outcome the URL, ``None``
    (closed and drained) or ``"empty"``."""
    log = world.logs[me]
    start = time.monotonic()
    try:
        url = world.frontier.get(timeout=timeout)
    except frontier.Empty:
        log.append(("get", None, "empty", bool(timeout)))
        return None
    log.append(("get", None, url, bool(timeout) and time.monotonic() - start >= PATIENCE))
    return url


def _done(world: World, me: str) -> None:
    world.logs[me].append(("done", None, None, False))


# --------------------------------------------------------------------------------------------
# The scenarios


@dataclass(frozen=True)
class Scenario:
    """A scenario: its threads (name -> body), how to build its world, and what must hold."""

    name: str
    summary: str
    invariant: str
    threads: tuple[tuple[str, Callable[[World, str], None]], ...]
    capacity: int | None
    prepare: Callable[[World], None]
    applies: Callable[[type], bool]
    check: Callable[[World], str | None]

    @property
    def thread_names(self) -> list[str]:
        return [t for t, _ in self.threads]

    def world(self, name: str) -> World:
        """A fresh world for frontier ``name`` (setup: runs before any thread)."""
        w = World(name, self.thread_names, self.capacity)
        self.prepare(w)
        return w

    def workers(self) -> list[Callable[[World], None]]:
        """One callable per thread, each taking the world (the explorer's worker shape)."""

        def bind(me: str, body: Callable[[World, str], None]) -> Callable[[World], None]:
            def worker(world: World) -> None:
                body(world, me)
                _done(world, me)

            worker.__name__ = worker.__qualname__ = me
            return worker

        return [bind(me, body) for me, body in self.threads]


def _took(world: World) -> list[str]:
    """Every URL a thread's ``get`` returned, over all threads."""
    return [o for log in world.logs.values() for op, _, o, _ in log
            if op == "get" and o not in (None, "empty")]


def _accepted(world: World) -> list[str]:
    return world.prefilled + [a for log in world.logs.values() for op, a, o, _ in log
                              if op == "put" and o == "ok"]


def _drain(world: World) -> list[str]:
    """What is left, taken out single-threaded after the run (best first); once per world
    (a second call returns the same list)."""
    if world.drained is None:
        world.drained = list(world.frontier.get_many(1_000))
    return world.drained


def _exactly_once(went_in: list[str], came_out: list[str]) -> str | None:
    cin, cout = Counter(went_in), Counter(came_out)
    lost = sorted((cin - cout).elements())
    extra = sorted((cout - cin).elements())
    if lost:
        return f"{', '.join(lost)} went in but never came out (lost)"
    if extra:
        return f"{', '.join(extra)} came out more often than it went in"
    return None


def _liveness(world: World) -> str | None:
    for me, log in world.logs.items():
        if not log or log[-1][0] != "done":
            return f"{me} never finished"
        for op, arg, outcome, waited_out in log:
            if waited_out or outcome in ("full", "empty"):
                what = f"{op}({arg})" if arg else f"{op}()"
                return (f"{me}'s {what} slept its whole patience ({PATIENCE:g} s): nobody woke "
                        f"it though the others were done or asleep (a lost wake-up)")
    return None


def _check_lost_update(world: World) -> str | None:
    return _exactly_once(_accepted(world), _took(world) + _drain(world))


def _check_counter(world: World) -> str | None:
    counted = world.frontier.stats.as_dict()["puts"]
    done = len(_accepted(world)) - len(world.prefilled)
    if counted != done:
        return f"stats.puts says {counted}, but {done} puts went in (a count was lost)"
    return _check_lost_update(world)


def _check_waiting(world: World) -> str | None:
    return _liveness(world) or _exactly_once(_accepted(world), _took(world) + _drain(world))


def _check_close(world: World) -> str | None:
    broken = _liveness(world)
    if broken:
        return broken
    consumer = world.logs["C"]
    if consumer[-2][2] is not None:
        return "C's last get() returned a URL, not None, though the frontier was closed"
    left = _drain(world)
    if left:
        return f"{', '.join(left)} still in the frontier after C saw it closed and drained"
    return _exactly_once(_accepted(world), _took(world))


def _check_order(world: World) -> str | None:
    took = _took(world)
    if took and took[0] not in ("x", "hi"):
        return f"C took {took[0]} while a better URL was in the frontier"
    left = _drain(world)
    prio = {"x": 2.0, "lo": 0.0, "hi": 5.0}
    if [prio[u] for u in left] != sorted((prio[u] for u in left), reverse=True):
        return f"what was left came out as {left}, not best first"
    return _exactly_once(_accepted(world), took + left)


def _producer(*urls: str) -> Callable[[World, str], None]:
    def body(world: World, me: str) -> None:
        for url in urls:
            _put(world, me, url)

    return body


def _taker(n: int, timeout: float | None = PATIENCE) -> Callable[[World, str], None]:
    def body(world: World, me: str) -> None:
        for _ in range(n):
            _get(world, me, timeout)

    return body


def _until_closed(world: World, me: str) -> None:
    while _get(world, me) is not None:
        pass


def _closer(world: World, me: str) -> None:
    world.frontier.close()
    world.logs[me].append(("close", None, "ok", False))


def _put_hi(world: World, me: str) -> None:
    _put(world, me, "hi", 5.0)


def _nothing(world: World) -> None:
    pass


def _any(cls: type) -> bool:
    return True


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in [
        Scenario(
            "lost-update",
            "P1 and P2 put u1 and u2 at the same time",
            "every URL comes out exactly once (taken out after the run)",
            (("P1", _producer("u1")), ("P2", _producer("u2"))),
            capacity=2, prepare=_nothing, applies=_any, check=_check_lost_update,
        ),
        Scenario(
            "counter",
            "P1 and P2 put u1 and u2 at the same time; the frontier counts its puts",
            "stats.puts counts every put; every URL comes out exactly once",
            (("P1", _producer("u1")), ("P2", _producer("u2"))),
            capacity=2, prepare=_nothing, applies=_any, check=_check_counter,
        ),
        Scenario(
            "lost-wakeup",
            "C1 and C2 wait on an empty frontier; P puts u1 then u2 (capacity 2)",
            "every thread finishes without sleeping out its patience; each URL once",
            (("C1", _taker(1)), ("C2", _taker(1)), ("P", _producer("u1", "u2"))),
            capacity=2, prepare=_nothing, applies=_any, check=_check_waiting,
        ),
        Scenario(
            "lost-wakeup-full",
            "the frontier is full (u0, u1; capacity 2); P1 and P2 wait to put; C takes two",
            "every thread finishes without sleeping out its patience; each URL once",
            (("P1", _producer("p1")), ("P2", _producer("p2")), ("C", _taker(2))),
            capacity=2, prepare=lambda w: w.prefill(("u0", 0.0), ("u1", 0.0)),
            applies=lambda cls: cls.bounded, check=_check_waiting,
        ),
        Scenario(
            "close",
            "C takes until None; P puts u1 (full with u0 when bounded); X closes",
            "every thread finishes in time; every URL accepted comes out exactly once",
            (("C", _until_closed), ("P", _producer("u1")), ("X", _closer)),
            capacity=1,
            prepare=lambda w: w.prefill(("u0", 0.0)) if w.frontier.bounded else None,
            applies=_any, check=_check_close,
        ),
        Scenario(
            "order",
            "x (2.0) and lo (0.0) are in; P puts hi (5.0); C takes one without waiting",
            "C gets x or hi, never lo; the rest comes out best first; each URL once",
            (("P", _put_hi), ("C", _taker(1, timeout=0))),
            capacity=None, prepare=lambda w: w.prefill(("x", 2.0), ("lo", 0.0)),
            applies=lambda cls: cls.ordering == "priority", check=_check_order,
        ),
    ]
}


def get(scenario: str) -> Scenario:
    """The scenario named ``scenario``; :class:`ValueError` listing the names otherwise."""
    try:
        return SCENARIOS[scenario]
    except KeyError:
        raise ValueError(
            f"unknown scenario {scenario!r}; valid names: {', '.join(SCENARIOS)}"
        ) from None


def applicable(name: str) -> list[str]:
    """The scenarios that apply to frontier ``name``, in :data:`SCENARIOS` order."""
    cls = frontier.info(name)
    return [s.name for s in SCENARIOS.values() if s.applies(cls)]


def verdict(scenario: Scenario, world: World) -> str | None:
    """``None`` if the scenario's invariant holds on ``world`` after the run, else what broke."""
    return scenario.check(world)
