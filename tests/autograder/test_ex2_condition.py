"""Exercise 2: the condition variable built from semaphores.

The frontier suites run on ``SemMonitorFrontier`` through ``--frontier``; these tests check the
condition itself: wake-ups counted exactly, timeouts, no lost wake-up under a tiny switch
interval, and no :class:`threading.Condition` inside.
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager, suppress

import pytest

from tests.conftest import load_exercise
from tests.helpers import (
    asleep,
    current_frames,
    join_all,
    start_thread,
    wait_until,
    wait_until_asleep,
)


@contextmanager
def entered(monitor):
    """``with monitor:`` without trusting the monitor's ``__exit__`` (the file's own code): its
    answer is ignored, so an ``__exit__`` that returns True cannot swallow a failed check."""
    monitor.__enter__()
    try:
        yield monitor
    finally:
        monitor.__exit__(None, None, None)


@pytest.fixture
def mod(exercises_dir):
    load_exercise(exercises_dir, "ex2_semaphore_monitor", "SemCondition")
    return sys.modules["_graded_ex2_semaphore_monitor"]


def _sleepers(mod, n):
    """A monitor, a condition, and ``n`` threads asleep in its ``wait``; what they need."""
    m = mod.Monitor()
    cond = mod.SemCondition(m)
    woken: list[int] = []

    def sleeper(i):
        with entered(m):
            if cond.wait(timeout=10):
                woken.append(i)

    threads = [start_thread(sleeper, i) for i in range(n)]
    wait_until_asleep(threads, inside="wait")  # every one asleep in SemCondition.wait
    return m, cond, woken, threads


def _asleep_on_the_condition(t, m) -> bool:
    """``t`` sleeps in ``SemCondition.wait`` and not for the monitor's mutex (a woken waiter
    blocked re-entering the monitor is awake)."""
    if not asleep(t, inside="wait"):
        return False
    frame = current_frames().get(t.ident)
    while frame is not None:
        if frame.f_locals.get("self") is m.mutex:
            return False
        frame = frame.f_back
    return True


def test_not_built_on_threading_condition(mod):
    cond = mod.SemCondition(mod.Monitor())
    for value in vars(cond).values():
        assert not isinstance(value, threading.Condition | threading.Event), (
            "build it from semaphores, not from threading.Condition/Event")


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_notify_wakes_exactly_n(mod, n):
    """``notify(n)`` with ``n + 3`` waiters wakes ``n`` of them, for several ``n`` (one that
    wakes an extra waiter only from some ``n`` on is caught too)."""
    total = n + 3
    m, cond, woken, threads = _sleepers(mod, total)
    with entered(m):
        cond.notify(n)
    wait_until(lambda: len(woken) >= n and sum(t.is_alive() for t in threads) <= total - n,
               what=f"notify({n}) waking {n} waiters")
    # Quiescent now: the woken ones are gone and nobody holds the monitor, so one more
    # waiter that was woken too is running, or notified and not yet running: not asleep.
    rest = [t for t in threads if t.is_alive()]
    awake = [t.name for t in rest if not _asleep_on_the_condition(t, m)]
    assert len(woken) == n and not awake, (
        f"notify({n}) woke {len(woken) + len(awake)} of {total} waiters")
    with entered(m):
        cond.notify_all()
    join_all(threads, timeout=5)
    assert sorted(woken) == list(range(total))


def test_never_calls_a_threading_condition_event_or_barrier(mod):
    """No code of the file calls a method of :class:`threading.Condition`, ``Event`` or
    ``Barrier``, however the object was reached (one held inside a ``Semaphore`` included):
    every call made while waiters sleep, are notified and time out is watched."""
    import inspect

    graded = inspect.getsourcefile(mod)
    used: list[str] = []

    def watch(frame, event, arg):
        if event != "call" or frame.f_code.co_filename != threading.__file__:
            return
        caller = frame.f_back
        name = getattr(frame.f_code, "co_qualname", frame.f_code.co_name)
        if (caller is not None and caller.f_code.co_filename == graded
                and name.split(".")[0] in ("Condition", "Event", "Barrier")):
            used.append(f"{name} (line {caller.f_lineno})")

    threading.setprofile(watch)
    sys.setprofile(watch)
    try:
        m, cond, woken, threads = _sleepers(mod, 2)  # waits with a timeout
        with entered(m):
            cond.notify()
            cond.notify_all()
            cond.wait(timeout=0.01)
        join_all(threads, timeout=5)

        def sleeper():
            with entered(m):
                cond.wait()  # and without one

        threads = [start_thread(sleeper) for _ in range(2)]
        wait_until_asleep(threads, inside="wait")
        with entered(m):
            cond.notify_all()
        join_all(threads, timeout=5)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    assert not used, (f"the file calls {used[0]}: build the condition from semaphores, not "
                      "from threading.Condition/Event/Barrier")


def _picked_as_it_times_out(m, cond) -> list:
    """A waiter waits 0.2 s; the notifier enters the monitor, holds it until the waiter's
    timeout has run out (the waiter then waits for the monitor, still queued), and notifies:
    that notify picks it. The waiter's answers (one, once it has left)."""
    answer = []

    def waiter():
        with entered(m):
            answer.append(cond.wait(timeout=0.2))

    t = start_thread(waiter)
    wait_until_asleep([t], inside="wait")
    with entered(m):  # the waiter gave the monitor up; its timeout runs out while we hold it
        wait_until(lambda: asleep(t) and not _asleep_on_the_condition(t, m),
                   what="the waiter's timeout to run out (it then waits for the monitor)")
        cond.notify()  # it is still queued: this notify picks it
    join_all([t], timeout=5)
    return answer


def test_a_notify_that_picks_a_waiter_as_it_times_out_is_not_lost(mod):
    """A waiter whose timeout ran out while the notifier held the monitor, and whom the
    notifier then picked, was notified: its ``wait`` returns True (returning False loses
    that notify, as no other waiter got it)."""
    m = mod.Monitor()
    cond = mod.SemCondition(m)
    answer = _picked_as_it_times_out(m, cond)
    assert answer == [True], (
        "a waiter picked by notify() as its timeout ran out returned False: that notify "
        "was lost (nobody else was woken)")


def test_the_condition_counts_wake_ups_right_after_a_notify_picked_a_waiter_timing_out(mod):
    """After a notify picked waiter A as A's timeout ran out, the same condition is used on:
    B, C and D wait (none may return, nobody notified them), ``notify(2)`` wakes two of them;
    E and F wait, ``notify()`` wakes one of the three asleep, ``notify_all()`` the other two;
    G waits and ``notify()`` wakes it. Each wake-up must reach a waiter asleep. The notify
    that picked A is A's alone: left in A's place or semaphore (a semaphore pooled for reuse
    with that permit still in it) it lets a later waiter pass un-notified, and leaves a spent
    place in the queue that a later ``notify(2)`` wakes instead of a waiter (a lost
    wake-up)."""
    m = mod.Monitor()
    cond = mod.SemCondition(m)
    _picked_as_it_times_out(m, cond)  # its answer is the check above's
    answers: dict[str, bool] = {}
    threads: dict[str, threading.Thread] = {}
    try:
        def waits(name: str) -> None:
            """``name`` starts waiting (10 s); it must fall asleep on the condition."""
            threads[name] = t = _waiter(m, cond, answers, name, 10)
            wait_until(lambda: not t.is_alive() or _asleep_on_the_condition(t, m), timeout=5,
                       what=f"{name} falling asleep in wait()")
            assert t.is_alive(), (
                f"{name}'s wait returned {answers.get(name)!r} at once with nobody notifying "
                "it, after a notify had picked waiter A as its timeout ran out: that notify "
                "was still there (in A's place or semaphore) and woke a later waiter")

        def wakes(call: str, n: int) -> None:
            """``call`` (``"notify()"``, ``"notify(2)"``, ``"notify_all()"``), made inside the
            monitor, must wake ``n`` of the waiters asleep."""
            sleeping = [name for name, t in threads.items() if t.is_alive()]
            with entered(m):
                {"notify()": cond.notify, "notify(2)": lambda: cond.notify(2),
                 "notify_all()": cond.notify_all}[call]()

            def woken() -> list[str]:
                return [name for name in sleeping if not threads[name].is_alive()]

            with suppress(AssertionError):  # too few woken within 5 s: said just below
                wait_until(lambda: len(woken()) >= n, timeout=5)
            awake = [name for name in sleeping if threads[name].is_alive()
                     and not _asleep_on_the_condition(threads[name], m)]
            assert len(woken()) == n and not awake, (
                f"{call} woke {len(woken()) + len(awake)} of the {len(sleeping)} waiters "
                f"asleep ({', '.join(sleeping)}), not {n}, after a notify had picked a "
                "waiter as its timeout ran out" + (
                    " (a lost wake-up: it went to a spent place in the queue)"
                    if len(woken()) + len(awake) < n else ""))
            assert all(answers[name] is True for name in woken()), (
                f"a waiter woken by {call} returned False: {answers}")

        for name in "BCD":
            waits(name)
        wakes("notify(2)", 2)
        for name in "EF":
            waits(name)
        wakes("notify()", 1)
        wakes("notify_all()", 2)
        waits("G")
        wakes("notify()", 1)
    finally:
        with entered(m):  # whatever failed, nobody is left asleep for 10 s
            cond.notify_all()
    join_all(list(threads.values()), timeout=5)


def test_notify_with_nobody_waiting_is_not_remembered(mod):
    """A notify before anyone waits wakes nobody later (unlike a semaphore's V)."""
    m = mod.Monitor()
    cond = mod.SemCondition(m)
    with entered(m):
        cond.notify()
        cond.notify_all()
    with entered(m):
        t0 = time.monotonic()
        assert cond.wait(timeout=0.1) is False
        assert time.monotonic() - t0 >= 0.09


def test_wait_gives_the_monitor_up_and_takes_it_back(mod):
    m = mod.Monitor()
    cond = mod.SemCondition(m)
    inside = []

    def notifier():
        with entered(m):  # possible only if wait() released the monitor
            inside.append("notifier")
            cond.notify()

    with entered(m):
        t = start_thread(notifier)
        assert cond.wait(timeout=5) is True
        inside.append("waiter")
        # back inside: the monitor's semaphore is taken again
        assert not m.mutex.acquire(blocking=False), "wait() returned without the monitor"
    join_all([t], timeout=5)
    assert inside == ["notifier", "waiter"]


def test_timed_out_waiter_does_not_swallow_a_later_notify(mod):
    m = mod.Monitor()
    cond = mod.SemCondition(m)
    with entered(m):
        assert cond.wait(timeout=0.02) is False
    m2, cond2, woken, threads = m, cond, [], []

    def sleeper():
        with entered(m2):
            if cond2.wait(timeout=10):
                woken.append(1)

    threads.append(start_thread(sleeper))
    wait_until_asleep(threads, inside="wait")
    with entered(m2):
        cond2.notify()
    join_all(threads, timeout=5)
    assert woken == [1], "a notify was lost: it went to a waiter that had already timed out"


def _waiter(m, cond, answers: dict, name: str, timeout: float):
    """A thread that waits once on ``cond`` (``timeout`` seconds) and records the answer."""
    def wait_once():
        with entered(m):
            answers[name] = cond.wait(timeout=timeout)
    return start_thread(wait_once)


def test_a_notify_after_a_notify_all_wakes_the_new_waiter(mod):
    """T1 waits and ``notify_all`` wakes it; then T2 waits: the next ``notify`` is T2's. A
    ``notify_all`` that releases every waiter but leaves them queued hands that notify to T1's
    spent place, and T2 sleeps on (a lost wake-up)."""
    m = mod.Monitor()
    cond = mod.SemCondition(m)
    answers: dict[str, bool] = {}
    t1 = _waiter(m, cond, answers, "T1", 10)
    wait_until_asleep([t1], inside="wait")
    with entered(m):
        cond.notify_all()
    join_all([t1], timeout=5)
    t2 = _waiter(m, cond, answers, "T2", 10)
    wait_until_asleep([t2], inside="wait")
    with entered(m):
        cond.notify()
    wait_until(lambda: "T2" in answers, timeout=5,
               what="T2 woken by the notify after a notify_all (notify_all must empty the "
                    "queue of waiters it released)")
    join_all([t2], timeout=5)
    assert answers == {"T1": True, "T2": True}, answers


def test_a_waiter_that_times_out_behind_another_leaves_only_its_own_place(mod):
    """G1 waits with no end, G2 behind it with a short timeout that runs out: G2 leaves the
    queue, G1 stays in it, and the next ``notify`` wakes G1. Leaving by the head of the queue
    (the first waiter's place, not one's own) keeps G2's spent place and loses that notify."""
    m = mod.Monitor()
    cond = mod.SemCondition(m)
    answers: dict[str, bool] = {}
    g1 = _waiter(m, cond, answers, "G1", 10)
    wait_until_asleep([g1], inside="wait")
    g2 = _waiter(m, cond, answers, "G2", 0.05)
    join_all([g2], timeout=5)
    assert answers == {"G2": False}, f"G2 was not notified: its wait returns False ({answers})"
    with entered(m):
        cond.notify()
    wait_until(lambda: "G1" in answers, timeout=5,
               what="G1 woken by the notify after G2 timed out behind it (a waiter that times "
                    "out removes its own place from the queue, not the first one)")
    join_all([g1], timeout=5)
    assert answers == {"G1": True, "G2": False}, answers


@pytest.mark.timeout(60)
def test_no_lost_wakeup_under_a_tiny_switch_interval(mod):
    """Ping-pong 2,000 times between two threads: a lost wake-up leaves both asleep."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        m = mod.Monitor()
        cond = mod.SemCondition(m)
        state = {"turn": 0, "count": 0}
        rounds = 2000

        def player(me):
            for _ in range(rounds):
                with entered(m):
                    while state["turn"] != me:
                        cond.wait(timeout=5)
                    state["turn"] = 1 - me
                    state["count"] += 1
                    cond.notify_all()

        threads = [start_thread(player, 0), start_thread(player, 1)]
        join_all(threads, timeout=40)
        assert state["count"] == 2 * rounds
    finally:
        sys.setswitchinterval(old)


@pytest.mark.parametrize("timeout", [0.05, 0.3])
def test_a_timed_out_wait_waited_its_time(mod, timeout):
    """Nobody notifies: ``wait(timeout=T)`` returns False, and not before ``T`` has passed (a
    wait that gives up early says "timed out" before it did)."""
    m = mod.Monitor()
    cond = mod.SemCondition(m)
    with entered(m):
        start = time.monotonic()
        answer = cond.wait(timeout=timeout)
        waited = time.monotonic() - start
    assert answer is False, f"wait(timeout={timeout}) with nobody notifying returned {answer!r}"
    assert waited >= timeout - 0.002, (
        f"wait(timeout={timeout}) gave up after {waited:.3f} s, before its timeout")


def test_wait_with_no_time_left_returns_at_once(mod):
    """``wait(timeout=0)`` (or a negative timeout) does not sleep: it gives the monitor up and
    back and returns False at once (``if timeout:`` instead of ``is not None`` sleeps for
    ever)."""
    m = mod.Monitor()
    cond = mod.SemCondition(m)
    answers = []

    def waiter():
        with entered(m):
            answers.append(cond.wait(timeout=0))
            answers.append(cond.wait(timeout=-1))

    join_all([start_thread(waiter)], timeout=5)
    assert answers == [False, False]
