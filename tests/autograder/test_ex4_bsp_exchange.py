"""Exercise 4: the BSP exchange. Random messages over many supersteps, workers delayed at random
so that fast ones run ahead: every rank must get exactly what was sent to it in *that*
superstep, by sender in rank order, each sender's messages in the order it sent them (out of
order, repeated, not comparable with each other). A missing barrier shows up as mixed
supersteps; a deadlock as threads still alive at the deadline (with their stacks); a barrier of
the file's own that does not re-check its condition, under spurious wake-ups; one that spins,
as processor time used by workers that only wait. A received list must be the receiver's own
(a sender reusing its lists after the exchange does not change it), two exchanges at once must
not mix their messages, and a bad destination is refused for any ``p`` and any list."""

from __future__ import annotations

import inspect
import random
import sys
import threading
import time

import pytest

from tests.conftest import load_exercise
from tests.helpers import asleep, join_all, restless_conditions, start_thread


@pytest.fixture
def Exchange(exercises_dir):  # noqa: N802 (a class)
    return load_exercise(exercises_dir, "ex4_bsp_exchange", "Exchange")


def plan(p: int, steps: int, seed: int, tag: str | None = None):
    """outboxes[step][rank] = {dest: [messages]} with some destinations left out; with ``tag``,
    every message starts with it (two plans whose messages differ)."""
    rng = random.Random(seed)
    head = () if tag is None else (tag,)
    return [
        [
            {d: [(*head, step, r, d, k) for k in range(rng.randrange(4))]
             for d in range(p) if rng.random() < 0.7}
            for r in range(p)
        ]
        for step in range(steps)
    ]


def plan_out_of_order(p: int, steps: int, seed: int, mixed: bool):
    """Like :func:`plan`, but each sender's list is in descending or shuffled order, with
    repeats, so that sorting it (or dropping repeats) changes it. ``mixed``: messages of
    several types that cannot be compared with each other (a str, an int, None, a tuple)."""
    rng = random.Random(seed)

    def messages(step: int, r: int, d: int) -> list:
        if mixed:
            ms = [f"{step}:{r}>{d}", step, None, (r, d), f"{step}:{r}>{d}", step]
            rng.shuffle(ms)
        else:
            ms = [f"{step}:{r}>{d} #{k}" for k in (5, 4, 4, 2, 1, 1, 0)]
            if rng.random() < 0.5:
                rng.shuffle(ms)
        return ms

    return [
        [{d: messages(step, r, d) for d in range(p) if rng.random() < 0.7} for r in range(p)]
        for step in range(steps)
    ]


def expected(outboxes, step: int, rank: int) -> list:
    return [m for sender in outboxes[step] for m in sender.get(rank, [])]


def work_together(worker, p: int, timeout: float) -> None:
    """Run ``worker(rank)`` in a thread of its own for each rank 0 .. p-1 and wait for all.
    Fail at once with the first exception a worker raises (the others may then wait at the
    barrier for ever: the error is the verdict, not the deadline), or, if some are still
    running after ``timeout`` seconds, with their names (a deadlock)."""
    errors: list[BaseException] = []
    # over: every worker is done, or one has raised
    over, left, lock = threading.Event(), [p], threading.Lock()

    def guarded(rank):
        try:
            worker(rank)
        except Exception as exc:  # reported below, not lost in a thread
            errors.append(exc)
        finally:
            with lock:
                left[0] -= 1
                if left[0] == 0 or errors:
                    over.set()

    threads = [start_thread(guarded, r) for r in range(p)]
    over.wait(timeout)
    assert not errors, f"a worker raised {errors[0]!r}"
    join_all(threads, timeout=1)


def run(Exchange, p: int, steps: int, seed: int, outboxes=None):
    """Every rank exchanges ``outboxes`` (by default ``plan(p, steps, seed)``), some late at
    random supersteps; what each receives must be what was sent to it."""
    outboxes = plan(p, steps, seed) if outboxes is None else outboxes
    ex = Exchange(p)
    got = [[None] * steps for _ in range(p)]
    rng = random.Random(seed + 1)
    slow = [[rng.random() < 0.2 for _ in range(steps)] for _ in range(p)]

    def worker(rank):
        for step in range(steps):
            if slow[rank][step]:
                time.sleep(0.001)  # a slow worker: the others reach the barrier first
            got[rank][step] = ex.exchange(rank, outboxes[step][rank])

    work_together(worker, p, timeout=30)
    for rank in range(p):
        for step in range(steps):
            want = expected(outboxes, step, rank)
            assert got[rank][step] == want, (
                f"rank {rank}, superstep {step}: got {got[rank][step]!r}, expected {want!r}")


def test_one_worker_sends_to_itself(Exchange):
    ex = Exchange(1)
    assert ex.exchange(0, {0: ["a", "b"]}) == ["a", "b"]
    assert ex.exchange(0, {}) == []


# the outboxes of refused calls, by the bad destination: with a message, or an empty list
BAD_OUTBOXES = [
    lambda bad: {0: ["early"], bad: ["x"]},
    lambda bad: {bad: []},
    lambda bad: {0: [], bad: []},
    lambda bad: {0: ["early"], bad: []},
]


@pytest.mark.parametrize("bad", [None, -1, True, "1", 1.0],
                         ids=["p", "minus-1", "bool", "str", "float"])
@pytest.mark.parametrize("p", [1, 2, 3])
def test_a_bad_destination_is_a_value_error_and_sends_nothing(Exchange, p, bad):
    """A call with a bad destination (``p`` itself, -1, a bool, a str, a float) raises
    ValueError before it sends anything (and without entering the barrier), whatever ``p``
    (one worker too) and whatever its list (an empty one too); the next superstep carries
    only its own messages."""
    bad = p if bad is None else bad
    ex = Exchange(p)
    want = {r: [f"from {(r - 1) % p}"] for r in range(p)}

    def refused(outbox, result):
        try:
            result["returned"] = ex.exchange(0, outbox)
        except Exception as exc:  # judged below
            result["raised"] = exc

    def worker(rank, got):
        got[rank] = ex.exchange(rank, {(rank + 1) % p: [f"from {rank}"]})

    for make in BAD_OUTBOXES:
        outbox, result = make(bad), {}
        call = start_thread(refused, outbox, result)  # a thread: a call that waits fails
        call.join(3)
        assert not call.is_alive(), (
            f"exchange(0, {outbox!r}) with p = {p} still waits after 3 s (at the barrier?) "
            "instead of raising ValueError at once")
        assert isinstance(result.get("raised"), ValueError), (
            f"exchange(0, {outbox!r}) with p = {p} "
            + (f"raised {result['raised']!r}" if "raised" in result
               else f"returned {result.get('returned')!r}") + ", not ValueError")
        got: dict[int, list] = {}
        join_all([start_thread(worker, r, got) for r in range(p)], timeout=10)
        assert got == want, (
            f"after the refused call exchange(0, {outbox!r}) with p = {p}, the next superstep "
            f"delivered {got}, expected {want}: the refused call had already sent part of "
            "its messages")


def test_a_slow_worker_is_waited_for(Exchange):
    """A worker that computes for seconds before it exchanges: the others wait for it at the
    barrier, however long (no timeout breaks the superstep)."""
    import threading

    ex = Exchange(2)
    computing = threading.Event()
    got = {}

    def worker(rank):
        if rank == 0:
            computing.wait(3.0)  # three seconds of work (nobody sets it)
        got[rank] = ex.exchange(rank, {1 - rank: [rank]})

    join_all([start_thread(worker, r) for r in range(2)], timeout=20)
    assert got == {0: [1], 1: [0]}


@pytest.mark.timeout(90)
@pytest.mark.parametrize("p", [2, 3, 5, 8])
def test_every_message_arrives_in_its_superstep(Exchange, p):
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        run(Exchange, p, steps=60, seed=p)
    finally:
        sys.setswitchinterval(old)


@pytest.mark.timeout(90)
@pytest.mark.parametrize("mixed", [False, True], ids=["descending-shuffled-repeated",
                                                      "not-comparable"])
@pytest.mark.parametrize("p", [1, 3])
def test_each_senders_messages_arrive_in_the_order_it_sent_them(Exchange, p, mixed):
    """Each sender's list arrives as it was sent: in its own order (here descending or
    shuffled), repeats kept, whatever the messages (here a str, an int, None and a tuple, which
    cannot be compared): "by sender in rank order" orders the senders, never the messages."""
    run(Exchange, p, steps=12, seed=40 + p,
        outboxes=plan_out_of_order(p, steps=12, seed=40 + p, mixed=mixed))


# the supersteps of the reuse check, each as the outbox of rank r of p (receivers with a single
# sender among them: each rank in the ring, every rank when rank 0 alone sends, itself)
REUSE_STEPS = {
    "ring": lambda r, p: {(r + 1) % p: [f"ring {r}>{(r + 1) % p} #{k}" for k in range(2)]},
    "all-to-all": lambda r, p: {d: [f"all {r}>{d}"] for d in range(p)},
    "rank-0-alone": lambda r, p: {d: [f"0>{d}", "again"] for d in range(p)} if r == 0 else {},
    "to-itself": lambda r, p: {r: [f"self {r}"]},
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("p", [1, 2, 3])
def test_a_sender_may_reuse_its_lists_once_exchange_returns(Exchange, p):
    """The list a receiver gets is its own: once every rank has returned from the exchange,
    each sender clears and refills the lists it passed in (the next superstep's, as a crawler
    would), and only then does each receiver look at what it received, which must still be
    what was sent. (An exchange that keeps the sender's list object, and returns it to a
    receiver that had only that sender, fails.) No sleeps: a barrier of the test's own
    separates returning, reusing and looking."""
    ex = Exchange(p)
    steps = [[make(r, p) for r in range(p)] for make in REUSE_STEPS.values()]
    returned, reused = threading.Barrier(p, timeout=20), threading.Barrier(p, timeout=20)
    wrong: list[str] = []

    def worker(rank):
        for step, name in enumerate(REUSE_STEPS):
            mine = {d: list(ms) for d, ms in steps[step][rank].items()}  # lists of its own
            received = ex.exchange(rank, mine)
            returned.wait()  # every rank has returned: nobody reads this superstep any more
            for messages in mine.values():
                messages.clear()
                messages.append(("reused by", rank))
            reused.wait()  # every sender has reused its lists
            want = expected(steps, step, rank)
            if received != want:
                wrong.append(f"superstep {name!r}, rank {rank} was sent {want!r}, but its "
                             f"received list read {received!r} once the senders had "
                             "reused theirs")

    work_together(worker, p, timeout=40)
    assert not wrong, (
        f"{wrong[0]}: a received list must be the receiver's own, not a sender's list (copy "
        "the messages when they are sent or read)")


@pytest.mark.timeout(90)
def test_supersteps_survive_spurious_wake_ups(Exchange, exercises_dir):
    """Every ``threading.Condition`` the file makes is notified every millisecond (a spurious
    wake-up, which Mesa semantics allow), while rank 0 reaches each exchange last: a waiter
    that goes on without re-checking its condition in a ``while`` loop reads its messages
    before everyone has sent them. (A :class:`threading.Barrier` is never shaken.)"""
    p, steps = 3, 25
    outboxes = plan(p, steps, seed=7)
    got = [[None] * steps for _ in range(p)]
    errors: list[BaseException] = []
    computing = threading.Event()  # nobody sets it: rank 0 computes 3 ms before each exchange

    def worker(rank):
        try:
            for step in range(steps):
                if rank == 0:
                    computing.wait(0.003)
                got[rank][step] = ex.exchange(rank, outboxes[step][rank])
        except Exception as exc:  # reported below, not lost in a thread
            errors.append(exc)

    with restless_conditions({inspect.getsourcefile(Exchange) or ""}, period=0.001):
        # imported again inside: a Condition made at import (a class attribute) is shaken too
        ex = load_exercise(exercises_dir, "ex4_bsp_exchange", "Exchange")(p)
        join_all([start_thread(worker, r) for r in range(p)], timeout=60)
    assert not errors, f"a worker raised {errors[0]!r} under spurious wake-ups"
    for rank in range(p):
        for step in range(steps):
            want = expected(outboxes, step, rank)
            assert got[rank][step] == want, (
                f"under spurious wake-ups, rank {rank}, superstep {step}: got "
                f"{got[rank][step]!r}, expected {want!r} (a woken waiter must re-check its "
                "condition: wait in a while loop)")


def test_workers_waiting_at_the_barrier_use_no_processor(Exchange):
    """Ranks 1 and 2 exchange while rank 0 is still computing: for the second they wait,
    they use (almost) no processor time, measured on their own threads' CPU clocks (a
    spinning barrier takes a core from the worker everyone waits for). A generous bound:
    a tenth of the wall time, in all, where a spinning wait uses most of it."""
    ex = Exchange(3)
    release, calling = threading.Event(), [threading.Event() for _ in range(3)]
    got = {}

    def worker(rank):
        if rank == 0:
            release.wait(30)
        calling[rank].set()
        got[rank] = ex.exchange(rank, {(rank + 1) % 3: [rank]})

    threads = [start_thread(worker, r) for r in range(3)]
    try:
        for rank in (1, 2):
            assert calling[rank].wait(10), f"rank {rank} never reached exchange()"
        clocks = [time.pthread_getcpuclockid(threads[r].ident) for r in (1, 2)]
        cpu0, wall0 = sum(time.clock_gettime(c) for c in clocks), time.monotonic()
        release.wait(1.0)  # the window measured (nobody sets it yet)
        cpu = sum(time.clock_gettime(c) for c in clocks) - cpu0
        wall = time.monotonic() - wall0
    finally:
        release.set()
        join_all(threads, timeout=20)
    assert got == {0: [2], 1: [0], 2: [1]}, got
    assert cpu < 0.1 * wall, (
        f"two workers waiting at the barrier used {cpu:.2f} s of processor in {wall:.2f} s: "
        "they spin (busy-wait) instead of blocking; wait on a Barrier, a Condition or a "
        "Semaphore")


# Last: an exchange whose waits share one Condition across instances, and that does not
# re-check its predicate, can hang here, which ends the grading; the checks meant for that
# (spurious wake-ups, above) have run by then.
def _until_blocked(thread: threading.Thread, within: float = 5.0) -> None:
    """Give ``thread`` up to ``within`` seconds to block in a wait of :mod:`threading` (at its
    barrier). The schedule is forced only as far as that goes: the verdict never depends on
    it, only how surely the check finds state shared between exchanges."""
    deadline = time.monotonic() + within
    while thread.is_alive() and not asleep(thread) and time.monotonic() < deadline:
        thread.join(0.001)


@pytest.mark.timeout(90)
def test_two_exchanges_at_once_keep_their_messages_apart(Exchange):
    """Two exchanges of their own, A (p = 2) and B (p = 3), run at the same time (two BSP jobs
    in one process): each delivers exactly its own messages. First a forced schedule: A's rank 0
    sends and waits at A's barrier, then B's ranks 0 and 2 send and wait, then A's rank 1 and
    B's rank 1 arrive (state shared between instances, a class attribute or a module global,
    mixes or overwrites their mailboxes); then both run random plans of their own at once."""
    a, b = Exchange(2), Exchange(3)
    calls = [  # (exchange, its name, rank, outbox), started in this order
        (a, "A", 0, {1: ["A0>1"], 0: ["A0>0"]}),
        (b, "B", 0, {1: ["B0>1"], 2: ["B0>2"], 0: ["B0>0"]}),
        (b, "B", 2, {1: ["B2>1"], 0: ["B2>0"]}),
        (a, "A", 1, {0: ["A1>0"]}),
        (b, "B", 1, {2: ["B1>2"]}),
    ]
    want = {"A0": ["A0>0", "A1>0"], "A1": ["A0>1"], "B0": ["B0>0", "B2>0"],
            "B1": ["B0>1", "B2>1"], "B2": ["B0>2", "B1>2"]}
    got, errors = {}, []

    def call(ex, name, rank, outbox):
        try:
            got[f"{name}{rank}"] = ex.exchange(rank, outbox)
        except Exception as exc:  # reported below, not lost in a thread
            errors.append(exc)

    threads = []
    for i, args in enumerate(calls):
        threads.append(start_thread(call, *args))
        if i < 3:  # the first three wait at their barrier before the next one starts
            _until_blocked(threads[-1])
    join_all(threads, timeout=20)
    assert not errors, f"a worker raised {errors[0]!r}"
    assert got == want, (
        f"two exchanges at once: received {got}, expected {want}: an Exchange's mailboxes "
        "must be its own (not a class attribute or a module global)")

    failures: list[BaseException] = []

    def job(p):
        try:
            run(Exchange, p, 30, seed=70 + p,
                outboxes=plan(p, 30, seed=70 + p, tag=f"job of {p}"))
        except BaseException as exc:  # an AssertionError of run() too: reported below
            failures.append(exc)

    join_all([start_thread(job, p) for p in (2, 3)], timeout=70)
    assert not failures, f"two exchanges at once: {failures[0]}"
