"""The judge's own checks of a graded frontier (ex1, ex2), beyond the conformance suites.

* ``test_history``: a plan the judge wrote (producers, consumers, a capacity, how ``close``
  comes) runs on the graded class with many threads and a one-microsecond switch interval; the
  log of every call goes to the judge, which verifies it itself (:mod:`exercises.evidence`:
  exactly once, capacity, FIFO, ``None`` only after close and drain, ``Closed`` after close,
  the counters). The check also verifies the log here, so that a failure reads the same when
  this file is run by hand.
* ``test_explored``: every scenario that applies, the explorer's (:mod:`frontier.check.
  scenarios`) and the grader's (:mod:`exercises.scenarios`), over the *whole* default
  preemption bound: a bug that any interleaving within it shows fails on every run. An
  exploration that could not conclude is a failure, never a pass.

Skipped unless a frontier is graded (``--frontier=FILE:CLASS``).
"""

from __future__ import annotations

import inspect
import json
import os

import pytest

import frontier
from exercises import evidence
from exercises.channel import send_evidence
from exercises.scenarios import SCENARIOS as GRADER
from frontier.check.scenarios import SCENARIOS as LIBRARY
from tests.helpers import GRADED, kind

_graded_kinds = list(GRADED.values())
EXPLORED = [s for s, sc in {**LIBRARY, **GRADER}.items()
            if _graded_kinds and sc.applies(_graded_kinds[0])]


@pytest.fixture
def graded(request: pytest.FixtureRequest) -> str:
    name = request.config.graded_frontier
    if not name:
        pytest.skip("a check of the judge: grade a frontier (--frontier=FILE:CLASS)")
    return name


def graded_files(name: str) -> set[str]:
    """The file of the graded class (where the noise goes)."""
    return {inspect.getsourcefile(frontier.info(name)) or ""}


def _plans() -> list[dict]:
    """The judge's plans (written next to the grading), or local ones when run by hand."""
    path = os.environ.get("CRAWLAB_GRADE_PLAN")
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    return evidence.make_plans("local")


def run_plan(graded: str, plan_id: int) -> None:
    """Run the judge's plan ``plan_id`` on the graded class, hand the log to the judge, and
    verify it here too (the public and the hidden histories alike)."""
    plans = _plans()
    plan = next(p for p in plans if p["id"] == plan_id)
    data = evidence.execute(plan, lambda c: frontier.create(graded, capacity=c),
                            files=graded_files(graded))
    send_evidence(data)
    problems = evidence.verify(data, plans, bounded=kind(graded).bounded)
    if problems:
        pytest.fail("\n".join(problems[:5]), pytrace=False)


@pytest.mark.parametrize("plan", range(evidence.PLANS))
def test_history(graded, plan):
    run_plan(graded, plan)


@pytest.mark.parametrize("scenario", EXPLORED)
def test_explored(graded, scenario):
    pytest.importorskip("frontrun", reason="frontrun (crawlab[explore]) is not installed here")
    from frontier.check.explore import DEFAULT_BOUND, ExploreError, explore

    try:
        out = explore(graded, GRADER.get(scenario) or scenario, DEFAULT_BOUND)
    except ExploreError as exc:
        pytest.fail(f"the exploration could not conclude ({exc}): inconclusive is not a pass",
                    pytrace=False)
    if out.status == "inconclusive":
        pytest.fail(f"the exploration could not conclude ({out.reason}, after "
                    f"{out.interleavings} interleavings): inconclusive is not a pass",
                    pytrace=False)
    if not out.holds:
        pytest.fail(f"{out.broken}\n{out.report()}", pytrace=False)


WAKES = {
    # case: (the sleepers' call, the waking call, what each sleeper must end with)
    "close-wakes-every-getter": ("get", "close", None),
    "close-wakes-every-putter": ("put", "close", "Closed"),
    "close-wakes-every-put-many": ("put_many", "close", "Closed"),
    "get-many-wakes-every-putter": ("put", "get_many", "ok"),
    "put-many-wakes-every-getter": ("get", "put_many", "a URL"),
}


@pytest.mark.parametrize("case", sorted(WAKES))
def test_wakes_every_sleeper(graded, case):
    """Three threads asleep in ``get`` (empty) or ``put``/``put_many`` (full, capacity 3); then
    one call that must wake all three: ``close()`` (notify_all, not notify), ``get_many(3)``
    (room for three) or ``put_many`` of three URLs (three getters served). Each sleeper must
    end as the contract says, in time."""
    from tests.helpers import join_all, start_thread, wait_until_asleep

    op, waker, expected = WAKES[case]
    f = frontier.create(graded, capacity=3)
    if op != "get":
        for i in range(3):
            f.put(f"u{i}")
    ended: dict[int, object] = {}

    def sleeper(i: int) -> None:
        try:
            if op == "get":
                ended[i] = f.get()
            elif op == "put":
                ended[i] = f.put(f"p{i}") or "ok"
            else:
                ended[i] = f.put_many([(f"p{i}", 0.0), (f"q{i}", 0.0)]) or "ok"
        except frontier.Closed:
            ended[i] = "Closed"

    threads = [start_thread(sleeper, i) for i in range(3)]
    wait_until_asleep(threads, timeout=5)
    if waker == "close":
        f.close()
    elif waker == "get_many":
        assert len(f.get_many(3)) == 3
    else:
        f.put_many([(f"n{i}", 0.0) for i in range(3)])
    join_all(threads, timeout=5)
    if expected == "a URL":
        assert sorted(ended.values()) == ["n0", "n1", "n2"], ended
    else:
        assert ended == {i: expected for i in range(3)}, (
            f"after {waker}() the sleepers ended {ended} (a missing one never woke: notify "
            "instead of notify_all/notify(n))")
    if waker == "close" and op != "get":
        left = f.get_many(100)
        assert sorted(left) == ["u0", "u1", "u2"], (
            f"after close() the frontier held {left}: a put blocked across close() went in")


@pytest.mark.parametrize("timeout", [0.05, 0.4])
def test_timeouts_are_kept(graded, timeout):
    """``get(timeout=T)`` on an empty open frontier raises Empty (never returns None), and
    ``put(timeout=T)`` on a full one raises Full, neither before T has passed."""
    import time

    f = frontier.create(graded, capacity=1)
    for call, error in ((lambda: f.get(timeout=timeout), frontier.Empty),
                        (lambda: f.put("v", timeout=timeout), frontier.Full)):
        if error is frontier.Full:
            f.put("u")
        start = time.monotonic()
        with pytest.raises(error):
            got = call()
            pytest.fail(f"returned {got!r} instead of raising {error.__name__} while the "
                        "frontier was open")
        waited = time.monotonic() - start
        assert waited >= timeout - 0.001, (
            f"{error.__name__} after {waited:.3f} s, before the timeout of {timeout} s")


@pytest.mark.parametrize("op", ["get", "put"])
def test_timeouts_are_kept_across_spurious_wake_ups(graded, op):
    """With every ``threading.Condition`` of the graded file woken every 5 ms (spurious
    wake-ups, which Mesa semantics allow: a woken waiter re-checks its predicate),
    ``get(timeout=0.2)`` on an empty frontier still raises Empty, and ``put(timeout=0.2)`` on a
    full one Full: the deadline is computed once, not restarted at each wake-up."""
    from tests.helpers import join_all, restless_conditions, start_thread

    # However the file reaches Condition or its wait (a name of its own, the plain function
    # called on the object): every Condition its code makes is notified every 5 ms.
    error, ended = (frontier.Empty if op == "get" else frontier.Full), []

    def call() -> None:
        try:
            ended.append(f.get(timeout=0.2) if op == "get" else f.put("v", timeout=0.2))
        except Exception as e:  # noqa: BLE001 - which exception it was is the check
            ended.append(e)

    with restless_conditions(graded_files(graded), period=0.005):
        f = frontier.create(graded, capacity=1)
        if op == "put":
            f.put("u")
        t = start_thread(call)
        t.join(10)  # a timeout restarted at every wake-up never ends: 10 s is fifty timeouts
        kept = not t.is_alive()
    f.close()  # frees a waiter that never timed out
    join_all([t], timeout=10)
    assert kept, (f"{op}(timeout=0.2) had not returned after 10 s of spurious wake-ups: the "
                  "timeout starts again at each wake-up (compute the deadline once)")
    assert ended and isinstance(ended[0], error), (
        f"{op}(timeout=0.2) ended with {ended[0]!r}, not {error.__name__}")


@pytest.mark.parametrize("op", ["get", "put"])
def test_a_wait_that_says_timed_out_is_not_taken_at_its_word(graded, op):
    """``Condition.wait(t)`` returns ``False`` when ``t`` ran out while the notifier held the
    lock, even if that notify then picked this waiter: the notify is spent on it. With every
    timed wait of the graded file answering ``False`` so: ``get(timeout=5)`` on an empty
    frontier, woken by a put, still takes the URL, and ``put(timeout=5)`` on a full one, woken
    by a get, still puts. A wait loop that raises Empty (Full) on ``False`` without looking at
    the frontier again loses that wake-up: the URL (the room) stays, and the thread it was for
    sleeps on.

    Then, with nothing injected any more, one more lone sleeper: a ``get()`` on the empty
    frontier (a ``put`` on the full one) and one put (get) for it, which must wake it within a
    bounded join. A monitor that notifies only while a count of sleepers says someone sleeps,
    and whose waiter takes *itself* off that count when its wait says False, counts the first
    sleeper off twice (the notifier took it off already): the count stays one too low, and the
    next lone sleeper is never notified (it sleeps beside the URL, or the room, until close)."""
    from tests.helpers import (
        asleep,
        join_all,
        start_thread,
        timed_waits_say_timed_out,
        wait_until,
    )

    ended = []

    def call() -> None:
        try:
            ended.append(f.get(timeout=5) if op == "get" else f.put("v", timeout=5) or "ok")
        except Exception as e:  # noqa: BLE001 - which exception it was is the check
            ended.append(e)

    with timed_waits_say_timed_out(graded_files(graded)):
        f = frontier.create(graded, capacity=1)
        if op == "put":
            f.put("u")
        t = start_thread(call)
        wait_until(lambda: not t.is_alive() or asleep(t), timeout=5, what=f"{op} to wait")
        if op == "get":
            f.put("u1")
        else:
            f.get()
        join_all([t], timeout=10)
    want = "u1" if op == "get" else "ok"
    assert ended == [want], (
        f"{op}(timeout=5), woken by a {'put' if op == 'get' else 'get'} that made its "
        f"{'URL' if op == 'get' else 'room'}, ended with {ended[0]!r}: a wait that returns False "
        "may have been notified all the same (its timeout ran out while the notifier held the "
        "lock); look at the frontier again before raising")

    # The next lone sleeper: untimed, so that only a notify (or close) can end it.
    later = []

    def second() -> None:
        try:
            later.append(f.get() if op == "get" else f.put("w") or "ok")
        except Exception as e:  # noqa: BLE001 - Closed, if only close() ended it
            later.append(e)

    t2 = start_thread(second)
    wait_until(lambda: not t2.is_alive() or asleep(t2), timeout=5,
               what=f"a second {op} to wait")
    took = f.put("u2") if op == "get" else f.get()
    t2.join(5)  # woken at once by a monitor that notifies; 5 s is a lost wake-up, not a delay
    woken, inside = not t2.is_alive(), len(f)
    f.close()  # frees a sleeper nobody woke
    join_all([t2], timeout=10)
    assert woken, (
        f"after that wake-up, a lone {op}() slept on the {'empty' if op == 'get' else 'full'} "
        f"frontier and a {'put' if op == 'get' else 'get'} made its "
        f"{'URL' if op == 'get' else 'room'} ({inside} inside, capacity 1), but it was still "
        "asleep 5 s later: the notify never came. A count of sleepers that decides whether to "
        "notify was decremented twice for the waiter whose wait said False (by the notifier "
        "that picked it, and by the waiter itself): notify unconditionally, or leave the "
        "count to one side only")
    assert later == (["u2"] if op == "get" else ["ok"]), (
        f"the second {op}() ended with {later!r}")
    if op == "put":
        assert took == "v", f"the get that made room took {took!r}, not v (FIFO)"


@pytest.mark.parametrize("op", ["get", "put"])
def test_a_wake_up_that_comes_after_the_deadline_is_looked_at(graded, op):
    """A notified waiter may run only after its deadline has passed (the scheduler ran others
    first). Here every timed wait of the graded file (``threading.Condition``, or ex2's
    ``SemCondition``) that is woken returns only once its timeout has run out: G1's
    ``get(timeout=0.3)``, woken by a put, must still take the URL, or leave it for G2, asleep
    in ``get()``, and wake it (``put`` alike, with room). A wait loop that reads the clock
    after the wait and raises Empty (Full) without looking at the frontier again loses that
    wake-up: the URL (the room) stays, and G2 sleeps on."""
    from tests.helpers import asleep, join_all, start_thread, wait_until, woken_waits_run_late

    ended: dict[str, object] = {}

    def call(me: str, timeout: float | None) -> None:
        try:
            ended[me] = (f.get(timeout=timeout) if op == "get"
                         else f.put(f"v{me}", timeout=timeout) or "ok")
        except Exception as e:  # noqa: BLE001 - which exception it was is the check
            ended[me] = e

    with woken_waits_run_late(graded_files(graded)):
        f = frontier.create(graded, capacity=1)
        if op == "put":
            f.put("u")
        g1 = start_thread(lambda: call("G1", 0.3))
        wait_until(lambda: not g1.is_alive() or asleep(g1), timeout=5, what=f"G1's {op}")
        g2 = start_thread(lambda: call("G2", None))
        wait_until(lambda: not g2.is_alive() or asleep(g2), timeout=5, what=f"G2's {op}")
        if op == "get":
            f.put("u1")
        else:
            f.get()
        wait_until(lambda: not g1.is_alive(), timeout=5, what="G1 to return")
        wait_until(lambda: "G2" in ended or asleep(g2), timeout=5, what="G2 to return or sleep")
        inside, before = len(f), dict(ended)
        f.close()  # frees G2 if nobody woke it (it may then drain the URL: too late)
        join_all([g1, g2], timeout=10)
    if op == "get":
        delivered = [me for me in ("G1", "G2") if before.get(me) == "u1"]
        lost = not delivered and inside == 1
    else:
        delivered = [me for me in ("G1", "G2") if before.get(me) == "ok"]
        lost = not delivered and inside == 0
    assert not lost, (
        f"G1's {op}(timeout=0.3) was woken by a {'put' if op == 'get' else 'get'} before its "
        f"deadline but ran after it, and ended with {ended.get('G1')!r}; G2 slept on with the "
        f"{'URL' if op == 'get' else 'room'} there: after a wait, look at the frontier again "
        "before deciding the time ran out (a wake-up that comes late is still a wake-up)")


def test_a_put_many_cut_by_close_counts_what_it_put(graded):
    """Capacity 2: ``put_many`` of three URLs puts two, then waits for room, and ``close()``
    ends it with Closed. The two URLs it put are inside and come out, and ``stats.puts``
    counts them: a put_many that counts its batch once, at its end, never counts them, and
    ``stats.puts - stats.gets`` is no longer what is inside."""
    from tests.helpers import asleep, join_all, start_thread, wait_until

    f = frontier.create(graded, capacity=2)
    ended = []

    def call() -> None:
        try:
            ended.append(f.put_many([("a", 0.0), ("b", 0.0), ("c", 0.0)]))
        except Exception as e:  # noqa: BLE001 - which exception it was is the check
            ended.append(e)

    t = start_thread(call)
    wait_until(lambda: not t.is_alive() or asleep(t), timeout=5,
               what="put_many to wait for room")
    f.close()
    join_all([t], timeout=5)
    assert len(ended) == 1 and isinstance(ended[0], frontier.Closed), (
        f"put_many waiting for room when the frontier was closed ended with {ended!r}, "
        "not Closed")
    assert f.stats.puts == 2, (
        f"put_many put a and b before close() cut it, but stats.puts is {f.stats.puts}: "
        "count each URL as it goes in")
    assert f.get_many(10) == ["a", "b"]
    assert f.stats.gets == 2
    f._check()


def test_put_many_waits_for_room_for_each_url(graded):
    """Capacity 3 with two URLs in: ``put_many`` of three URLs puts one, then waits; never
    more than the capacity inside, and the rest goes in, in order, as room is made."""
    from tests.helpers import asleep, join_all, start_thread, wait_until

    f = frontier.create(graded, capacity=3)
    f.put("u0")
    f.put("u1")
    t = start_thread(lambda: f.put_many([("a", 0.0), ("b", 0.0), ("c", 0.0)]))
    wait_until(lambda: not t.is_alive() or asleep(t), timeout=5,
               what="put_many to finish or wait for room")
    inside = f.get_many(10)
    assert inside == ["u0", "u1", "a"], (
        f"with room for one URL, put_many of three left {inside} inside (capacity 3): it must "
        "wait for room before each URL")
    join_all([t], timeout=5)
    assert f.get_many(10) == ["b", "c"]


def test_get_many_takes_at_most_r_for_every_r(graded):
    """For every ``r`` from 1 to one past a full frontier (and a huge one): ``get_many(r)``
    hands out ``min(r, len)`` URLs, the oldest first, and leaves the rest inside. Every ``r``,
    not a few: a ``get_many`` that takes one too many only from some ``r`` on is caught."""
    size = 24
    for r in [*range(1, size + 2), 10**6]:
        f = frontier.create(graded, capacity=size)
        urls = [f"u{i}" for i in range(size)]
        f.put_many([(u, 0.0) for u in urls])
        got = list(f.get_many(r))
        assert got == urls[:r], (
            f"get_many({r}) on a frontier holding {size} URLs returned {len(got)} URLs "
            f"({got[:3]}...): it must take min(r, len) of them, the oldest first")
        assert len(f) == size - len(got), f"after get_many({r}) len() is {len(f)}"


def test_put_on_a_full_closed_frontier_raises_closed_at_once(graded):
    """Full *and* closed: a new ``put`` (with or without a timeout) or ``put_many`` raises
    ``Closed`` at once; it does not sleep for room that, once closed, nobody promises."""
    from tests.helpers import join_all, start_thread

    f = frontier.create(graded, capacity=2)
    f.put("a")
    f.put("b")
    f.close()
    ended: list = []

    def call(what, fn) -> None:
        try:
            fn()
            ended.append((what, "returned"))
        except Exception as e:  # noqa: BLE001 - which exception it was is the check
            ended.append((what, type(e).__name__))

    threads = [start_thread(call, "put(c, timeout=20)", lambda: f.put("c", timeout=20)),
               start_thread(call, "put(d)", lambda: f.put("d")),
               start_thread(call, "put_many([e])", lambda: f.put_many([("e", 0.0)]))]
    import time

    deadline = time.monotonic() + 4  # "at once": long before the 20 s timeout, however busy
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    late, so_far = [t for t in threads if t.is_alive()], list(ended)
    while f.get_many(10):  # frees any put still asleep, so that no thread outlives the check
        pass
    join_all(threads, timeout=10)
    assert not late, (f"{len(late)} put(s) on a full, closed frontier were still asleep after "
                      f"4 s (ended by then: {so_far}): a put after close() must raise Closed "
                      "at once, full or not")
    wrong = [(what, how) for what, how in ended if how != "Closed"]
    assert not wrong, f"on a full, closed frontier {wrong[0][0]} {wrong[0][1]}, not Closed"


def test_a_poll_answers_like_a_wait(graded):
    """``timeout=0`` (a poll) gives the answers a wait would: ``Empty``/``Full`` while open;
    after ``close()``, ``Closed`` for a put even when full (``Full`` says "try again", and a
    producer that polls would retry for ever), the URLs left, then ``None`` (closed and
    drained), never ``Empty``."""
    f = frontier.create(graded, capacity=1)
    with pytest.raises(frontier.Empty):
        got = f.get(timeout=0)
        pytest.fail(f"get(timeout=0) on an empty open frontier returned {got!r}: Empty")
    f.put("a")
    with pytest.raises(frontier.Full):
        f.put("b", timeout=0)
    f.close()
    for timeout in (0, -1):
        try:
            f.put("c", timeout=timeout)
            said = "returned"
        except Exception as e:  # noqa: BLE001 - which exception it was is the check
            said = type(e).__name__
        assert said == "Closed", (f"put(c, timeout={timeout}) on a full, closed frontier "
                                  f"{said}, not Closed: a put after close() raises Closed, "
                                  "full or not, poll or wait")

    def answer(timeout: float):
        try:
            return f.get(timeout=timeout)
        except frontier.Empty:
            return "Empty"

    answers = [answer(t) for t in (0, 0, -1, 0.05)]
    assert answers == ["a", None, None, None], (
        f"after close() with one URL left, get(timeout=0), get(timeout=0), get(timeout=-1), "
        f"get(timeout=0.05) gave {answers}: the URL, then None (closed and drained) to each")
