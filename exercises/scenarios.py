"""The grader's own explored scenarios: the textbook bugs of a bounded monitor, each made to show
within the default preemption bound, so that exploring finds it on every run.

They complete the scenarios of :mod:`frontier.check.scenarios` (lost update, lost wake-ups,
close) with the properties those do not look at:

* ``counters`` -- P1 and P2 put, C takes one: ``stats.puts``/``stats.gets`` equal what the
  threads saw (a counter updated outside the lock loses an update), and no ``get`` returns
  ``None`` while the frontier is open;
* ``bulk-counters`` -- three URLs in, C1 and C2 take two each with ``get_many`` while P puts:
  the counters again, for the bulk operations;
* ``capacity`` -- full (capacity 1), P1 and P2 put while C takes one: never more inside than the
  capacity (``if`` instead of ``while`` on the put side, a check-then-act split over two
  critical sections);
* ``get-if`` -- C1 and C2 wait on an empty frontier, P puts one URL: nobody raises or returns
  ``None`` while open (``if`` instead of ``while`` on the get side);
* ``both-kinds-wait`` -- capacity 1: C1 and C2 wait on an empty frontier, P puts u1 (and
  wakes C1), then u2 (and waits for room): every thread finishes (one condition for putters
  and getters with ``notify``: C1's get wakes C2, asleep longer than P, and P sleeps on with
  room to put);
* ``put-many-capacity`` -- ``capacity`` with one of the putters a ``put_many``, which counts
  what is inside as it returns (C takes two, so everyone ends): its wait for room needs
  ``while`` as much as ``put``'s (a put that gets in between the get that made room and the
  woken ``put_many``);
* ``woken-fifo`` -- C waits on an empty frontier, P puts u1 and then u2: C takes u1, the oldest
  (a woken getter that takes the newest URL breaks FIFO only when two URLs arrive before it
  runs: a real-thread history seldom shows that, one schedule always does);
* ``put-many-waits`` -- capacity 2: C waits on an empty frontier, P puts u1, u2 and u3 with
  one ``put_many``, which must wait for room before u3: nobody sleeps out its patience (a
  ``put_many`` that wakes the getters once, at its end, waits for room with C asleep beside
  the URLs it added: both sleep for ever);
* ``get-many-wakes`` -- full (capacity 2), P1 and P2 wait for room, C takes two with one
  ``get_many``: both putters get in (``notify`` instead of ``notify(n)``/``notify_all``);
* ``get-then-get-many`` -- full (capacity 2), P1 and P2 wait for room, C takes one with
  ``get`` and one more with ``get_many(1)``: both putters get in (a ``get_many`` that wakes
  putters only when it found the frontier full: the ``get`` made room and woke P1, which has
  not run yet, so the ``get_many`` finds room already and wakes nobody, and P2 sleeps on
  beside that room). C never blocks: the schedule that shows it needs no preemption;
* ``close-wakes-getters`` / ``close-wakes-putters`` -- two threads wait (empty / full), X
  closes: both wake, with ``None`` / ``Closed`` (``notify`` instead of ``notify_all``);
* ``put-then-close`` / ``get-then-close`` -- two threads wait (empty / full), then one thread
  puts one URL (takes one) and closes: nobody sleeps out its patience (a ``close()`` that
  wakes the getters only when the frontier is empty, or the putters only when it is full: the
  one woken by the put, or the get, has not run yet, and the other sleeps on a closed
  frontier). The put (get) and the close are one thread's, so the schedule that shows the
  bug needs no preemption at all.

Every call is logged with what it returned or raised; an exception the contract does not allow
is a violation. Waiting uses the explorer's patience (see :mod:`frontier.check.scenarios`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import frontier
from frontier.check.scenarios import PATIENCE, Scenario, World

__all__ = ["SCENARIOS"]


def _call(world: World, me: str, op: str, arg, fn: Callable) -> object:
    """Run one frontier call, logging ``(op, arg, outcome, waited_out)``; outcome is the
    result, or ``"full"``/``"empty"``/``"closed"``, or ``"raised X"``; ``waited_out``: the call
    lasted the whole patience on the explorer's clock (nobody woke it while nothing else
    could run, whatever it then answered)."""
    start = time.monotonic()
    try:
        outcome = fn()
    except frontier.Full:
        outcome = "full"
    except frontier.Empty:
        outcome = "empty"
    except frontier.Closed:
        outcome = "closed"
    except Exception as exc:  # a violation, named by the check
        outcome = f"raised {type(exc).__name__}: {exc}"
    world.logs[me].append((op, arg, outcome, time.monotonic() - start >= PATIENCE))
    return outcome


def _put(url: str) -> Callable[[World, str], None]:
    def body(world: World, me: str) -> None:
        _call(world, me, "put", url, lambda: world.frontier.put(url, timeout=PATIENCE) or "ok")
    return body


def _puts(*urls: str) -> Callable[[World, str], None]:
    def body(world: World, me: str) -> None:
        for url in urls:
            _put(url)(world, me)
    return body


def _put_many(*urls: str) -> Callable[[World, str], None]:
    def body(world: World, me: str) -> None:
        pairs = [(url, 0.0) for url in urls]
        _call(world, me, "put_many", urls, lambda: world.frontier.put_many(pairs) or "ok")
    return body


def _counted(body: Callable[[World, str], None]) -> Callable[[World, str], None]:
    """``body``, then a log entry ``("inside", None, len(frontier), False)``: what a thread
    sees inside the moment its call returned (never more than the capacity, at any moment)."""
    def counted(world: World, me: str) -> None:
        body(world, me)
        world.logs[me].append(("inside", None, len(world.frontier), False))
    return counted


def _gets(n: int) -> Callable[[World, str], None]:
    def body(world: World, me: str) -> None:
        for _ in range(n):
            _get(world, me)
    return body


def _then(*bodies: Callable[[World, str], None]) -> Callable[[World, str], None]:
    """Each of ``bodies`` in turn, in one thread."""
    def seq(world: World, me: str) -> None:
        for body in bodies:
            body(world, me)
    return seq


def _then_close(body: Callable[[World, str], None]) -> Callable[[World, str], None]:
    def both(world: World, me: str) -> None:
        body(world, me)
        _close(world, me)
    return both


def _get(world: World, me: str) -> None:
    _call(world, me, "get", None, lambda: world.frontier.get(timeout=PATIENCE))


def _get_many(n: int) -> Callable[[World, str], None]:
    def body(world: World, me: str) -> None:
        _call(world, me, "get_many", n, lambda: list(world.frontier.get_many(n)))
    return body


def _close(world: World, me: str) -> None:
    world.logs[me].append(("close-begins", None, None, False))
    _call(world, me, "close", None, lambda: world.frontier.close() or "ok")


def _entries(world: World):
    return [(me, *e) for me, log in world.logs.items() for e in log]


def _common(world: World) -> str | None:
    """What every grader scenario checks: no call raised, no ``None`` while open, the counters
    agree with what the threads saw, every URL accepted came out exactly once (what is left
    taken out after the run)."""
    closing = any(op == "close-begins" for _, op, *_ in _entries(world))
    taken = []
    for me, op, arg, outcome, _ in _entries(world):
        if isinstance(outcome, str) and outcome.startswith("raised "):
            return f"{me}'s {op}({'' if arg is None else arg}) {outcome}"
        if op == "get" and outcome is None and not closing:
            return f"{me}'s get() returned None while the frontier was open"
        if op == "get" and outcome not in (None, "empty"):
            taken.append(outcome)
        if op == "get_many" and isinstance(outcome, list):
            taken.extend(outcome)
    broken = _counters(world)
    if broken:
        return broken
    accepted = world.prefilled + _put_in(world)
    left = list(world.frontier.get_many(1_000))
    if sorted(accepted) != sorted(taken + left):
        lost = sorted(set(accepted) - set(taken + left))
        return (f"{', '.join(lost)} went in but never came out (lost)" if lost else
                f"came out {sorted(taken + left)} for {sorted(accepted)} put in")
    return None


def _put_in(world: World) -> list[str]:
    """The URLs of every ``put`` and ``put_many`` that returned, in log order."""
    urls: list[str] = []
    for _, op, arg, o, _ in _entries(world):
        if o == "ok" and op == "put":
            urls.append(arg)
        elif o == "ok" and op == "put_many":
            urls.extend(arg)
    return urls


def _counts(world: World) -> tuple[int, int]:
    """URLs that went in (prefilled, or a put that returned) and URLs handed out (by a get that
    returned one, or a get_many), as the threads saw them."""
    accepted = len(world.prefilled) + len(_put_in(world))
    taken = sum(1 for _, op, _, o, _ in _entries(world)
                if op == "get" and o not in (None, "empty") and not str(o).startswith("raised"))
    taken += sum(len(o) for _, op, _, o, _ in _entries(world)
                 if op == "get_many" and isinstance(o, list))
    return accepted, taken


def _counters(world: World) -> str | None:
    """``stats.puts``/``stats.gets`` against what the threads saw (read before the drain)."""
    stats = world.frontier.stats
    accepted, taken = _counts(world)
    if (stats.puts, stats.gets) != (accepted, taken):
        return (f"stats say puts={stats.puts}, gets={stats.gets} but the threads saw "
                f"{accepted} puts and {taken} gets: a counter updated outside the lock lost "
                "an update")
    return None


def _capacity(world: World) -> str | None:
    accepted, taken = _counts(world)
    cap = world.frontier.capacity
    if accepted - taken > cap:
        return (f"{accepted - taken} URLs were inside at the end, capacity {cap}: a put "
                "went in without room (`if` instead of `while`, or check and act in two "
                "critical sections)")
    return _common(world)


def _never_over(world: World) -> str | None:
    """No thread saw more URLs inside than the capacity (``_counted``), and ``_capacity``."""
    cap = world.frontier.capacity
    for me, op, _, o, _ in _entries(world):
        if op == "inside" and o > cap:
            return (f"{me} saw {o} URLs inside as its call returned, capacity {cap}: a "
                    "put_many went in without room (`if` instead of `while` in its wait: a "
                    "put got in between the get that made room and the woken put_many)")
    return _capacity(world)


def _all(outcome: str) -> Callable[[World], str | None]:
    def check(world: World) -> str | None:
        for me, op, arg, o, _ in _entries(world):
            if op in ("get", "put") and o != outcome and not (outcome is None and o is None):
                what = "None" if outcome is None else repr(outcome)
                return (f"{me}'s {op}({'' if arg is None else arg}) ended {o!r} instead of "
                        f"{what}: close() must wake every waiting thread (notify_all)")
        return _common(world)
    return check


def _wakes(world: World) -> str | None:
    for me, op, arg, o, _ in _entries(world):
        if op == "put" and o != "ok":
            return (f"{me}'s put({arg}) ended {o!r} though get_many made room for it: taking "
                    "n URLs must wake n putters (notify(n) or notify_all)")
    return _common(world)


def _oldest_first(world: World) -> str | None:
    """C is the only getter and P put u1 before u2: whenever C took one, it took u1."""
    for me, op, _, o, _ in _entries(world):
        if me == "C" and op == "get" and o == "u2":
            return ("C's get() took u2 while u1, put before it, was still inside: a getter "
                    "woken by a put must take the oldest URL, not the newest (FIFO)")
    return _common(world)


def _nobody_waited_out(why: str) -> Callable[[World], str | None]:
    """Every get and put ended with an answer, never with its patience run out (the explorer
    lets a timeout run out only when nothing else can run: with no timeout, a sleep for ever);
    ``why`` says which bug that is."""
    def check(world: World) -> str | None:
        for me, op, arg, o, waited_out in _entries(world):
            if waited_out or (op, o) in (("get", "empty"), ("put", "full")):
                return (f"{me}'s {op}({'' if arg is None else arg}) slept its whole patience "
                        f"({PATIENCE:g} s) while nothing else could run: {why}")
        return _common(world)
    return check


_ANNOUNCE_FIRST = ("put_many waited for room with URLs it had added but not announced: "
                   "before a batch waits, the getters must be woken for what it already put "
                   "in (notify as each URL goes in, or before every wait), or they sleep "
                   "beside it")
_GET_MANY_EDGE = ("the get made room and woke one putter, which had not run yet, and the "
                  "get_many after it, finding room already, woke nobody: taking n URLs must "
                  "wake n putters whatever was inside before (notify(n) whenever n > 0, not "
                  "only when the frontier was full)")
_CLOSE_WAKES_ALL = ("the frontier was closed, and close() must wake every waiting thread, "
                    "whatever is inside (notify_all, always)")
_ONE_CONDITION = ("a wake-up meant for one side went to the other (the get that made room "
                  "woke a getter, not the waiting putter): with putters and getters on one "
                  "condition, notify() must be notify_all(), or each side needs a condition of "
                  "its own")


def _full(*urls: str):
    return lambda w: w.prefill(*[(u, 0.0) for u in urls])


def _none(world: World) -> None:
    pass


def _bounded(cls) -> bool:
    return True  # every graded frontier here is a bounded FIFO (its exercise's word)


SCENARIOS: dict[str, Scenario] = {
    s.name: s for s in [
        Scenario("counters", "P1 and P2 put u1 and u2; C takes one",
                 "stats count every put and get; no None while open; each URL once",
                 (("P1", _put("u1")), ("P2", _put("u2")), ("C", _get)),
                 capacity=2, prepare=_none, applies=_bounded, check=_common),
        Scenario("bulk-counters", "u0, u1, u2 in; C1 and C2 take two each with get_many; P puts",
                 "stats count every URL get_many hands out; each URL once",
                 (("C1", _get_many(2)), ("C2", _get_many(2)), ("P", _put("p1"))),
                 capacity=4, prepare=_full("u0", "u1", "u2"), applies=_bounded, check=_common),
        Scenario("capacity", "full (u0, capacity 1); P1 and P2 put; C takes one",
                 "never more URLs inside than the capacity; each URL once",
                 (("P1", _put("p1")), ("P2", _put("p2")), ("C", _get)),
                 capacity=1, prepare=_full("u0"), applies=_bounded, check=_capacity),
        Scenario("put-many-capacity", "full (u0, capacity 1); W puts p1 with put_many and "
                 "counts what is inside, P puts p2; C takes two", "never more URLs inside "
                 "than the capacity; each URL once",
                 (("W", _counted(_put_many("p1"))), ("P", _put("p2")), ("C", _gets(2))),
                 capacity=1, prepare=_full("u0"), applies=_bounded, check=_never_over),
        Scenario("get-if", "C1 and C2 wait on an empty frontier; P puts u1",
                 "no get raises or returns None while open; each URL once",
                 (("C1", _get), ("C2", _get), ("P", _put("u1"))),
                 capacity=2, prepare=_none, applies=_bounded, check=_common),
        Scenario("both-kinds-wait", "C1 and C2 wait on an empty frontier (capacity 1); P puts "
                 "u1, then u2", "every thread finishes without sleeping out its patience; each "
                 "URL once", (("C1", _get), ("C2", _get), ("P", _puts("u1", "u2"))),
                 capacity=1, prepare=_none, applies=_bounded,
                 check=_nobody_waited_out(_ONE_CONDITION)),
        Scenario("woken-fifo", "C waits on an empty frontier; P puts u1, then u2",
                 "C takes u1, the oldest; each URL once",
                 (("C", _get), ("P", _puts("u1", "u2"))),
                 capacity=2, prepare=_none, applies=_bounded, check=_oldest_first),
        Scenario("put-many-waits", "C waits on an empty frontier (capacity 2); P puts u1, "
                 "u2, u3 with one put_many", "C takes u1 and u3 gets in: nobody sleeps out "
                 "its patience; each URL once",
                 (("C", _get), ("P", _put_many("u1", "u2", "u3"))),
                 capacity=2, prepare=_none, applies=_bounded,
                 check=_nobody_waited_out(_ANNOUNCE_FIRST)),
        Scenario("get-many-wakes", "full (u0, u1; capacity 2); P1 and P2 wait; C get_many(2)",
                 "both putters get in; each URL once",
                 (("P1", _put("p1")), ("P2", _put("p2")), ("C", _get_many(2))),
                 capacity=2, prepare=_full("u0", "u1"), applies=_bounded, check=_wakes),
        Scenario("get-then-get-many", "full (u0, u1; capacity 2); P1 and P2 wait; C takes "
                 "one with get, then one with get_many(1)", "both putters get in: nobody "
                 "sleeps out its patience; each URL once",
                 (("P1", _put("p1")), ("P2", _put("p2")), ("C", _then(_get, _get_many(1)))),
                 capacity=2, prepare=_full("u0", "u1"), applies=_bounded,
                 check=_nobody_waited_out(_GET_MANY_EDGE)),
        Scenario("close-wakes-getters", "C1 and C2 wait on an empty frontier; X closes",
                 "both gets return None", (("C1", _get), ("C2", _get), ("X", _close)),
                 capacity=2, prepare=_none, applies=_bounded, check=_all(None)),
        Scenario("put-then-close", "C1 and C2 wait on an empty frontier; P puts u1, closes",
                 "nobody sleeps through the close; each URL once",
                 (("C1", _get), ("C2", _get), ("P", _then_close(_put("u1")))),
                 capacity=2, prepare=_none, applies=_bounded,
                 check=_nobody_waited_out(_CLOSE_WAKES_ALL)),
        Scenario("get-then-close", "full (u0, capacity 1); P1 and P2 wait; C takes one, closes",
                 "nobody sleeps through the close; each URL once",
                 (("P1", _put("p1")), ("P2", _put("p2")), ("C", _then_close(_get))),
                 capacity=1, prepare=_full("u0"), applies=_bounded,
                 check=_nobody_waited_out(_CLOSE_WAKES_ALL)),
        Scenario("close-wakes-putters", "full (u0, capacity 1); P1 and P2 wait; X closes",
                 "both puts raise Closed",
                 (("P1", _put("p1")), ("P2", _put("p2")), ("X", _close)),
                 capacity=1, prepare=_full("u0"), applies=_bounded, check=_all("closed")),
    ]
}
