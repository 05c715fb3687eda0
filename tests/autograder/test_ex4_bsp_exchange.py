"""Exercise 4: the BSP exchange. Random messages over many supersteps, workers delayed at random
so that fast ones run ahead: every rank must get exactly what was sent to it in *that*
superstep, by sender in rank order, each sender's messages in the order it sent them (out of
order, repeated, not comparable with each other). A missing barrier shows up as mixed
supersteps; a deadlock as threads still alive at the deadline (with their stacks); a barrier of
the file's own that does not re-check its condition, under spurious wake-ups; one that spins,
as processor time used by workers that only wait. A received list must be the receiver's own
(a sender reusing its lists after the exchange does not change it, even as soon as its own
exchange returns while a slow receiver has not read yet), two exchanges at once (of the same
size too) must not mix their messages, and a bad destination is refused for any ``p`` and any
list."""

from __future__ import annotations

import functools
import gc
import inspect
import random
import sys
import threading
import time
import weakref
from contextlib import contextmanager

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
    only its own messages. In that superstep rank 0 sends nothing: a message the refused
    call left behind is then seen for every ``p``, not overwritten by rank 0's next one (with
    one worker, rank 0 sends only to itself)."""
    bad = p if bad is None else bad
    ex = Exchange(p)
    want = {r: [] if (r - 1) % p == 0 else [f"from {(r - 1) % p}"] for r in range(p)}

    def refused(outbox, result):
        try:
            result["returned"] = ex.exchange(0, outbox)
        except Exception as exc:  # judged below
            result["raised"] = exc

    def worker(rank, got):
        got[rank] = ex.exchange(rank, {} if rank == 0 else {(rank + 1) % p: [f"from {rank}"]})

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


_THREADING_FILE = threading.__file__


def _on_behalf_of(files: set[str], frame) -> bool:
    """Whether ``frame`` or one that called it is code of ``files``."""
    while frame is not None:
        if frame.f_code.co_filename in files:
            return True
        frame = frame.f_back
    return False


def _no_time_for(files: set[str]):
    """A profile function (:func:`sys.setprofile`, for the thread that sets it) that gives no
    time to every timed wait made on behalf of code of ``files`` (a frame of theirs on the
    stack): as a Condition's ``wait`` or ``wait_for``, an Event's or a Barrier's ``wait``, or
    a Semaphore's ``acquire`` of :mod:`threading` is entered with a ``timeout`` (a Barrier's
    own, given when it was made, reaches its Condition's ``wait_for``), the timeout is made 0:
    the wait looks once and, if it would have to wait, runs out at once, as if the worker it
    waits for were slower than any timeout. Untimed waits are left alone. Nothing of
    :mod:`threading` is replaced, so the file cannot tell (it has no clock either)."""
    def profile(frame, event, arg) -> None:
        code = frame.f_code
        if (event != "call" or code.co_filename != _THREADING_FILE
                or code.co_name not in ("wait", "wait_for", "acquire")):
            return
        local = frame.f_locals  # read once: written back to the frame when this returns
        if (local.get("timeout") is not None and local.get("blocking", True)
                and _on_behalf_of(files, frame.f_back)):
            local["timeout"] = 0
    return profile


def _no_time_works() -> bool:
    """Whether :func:`_no_time_for` gives a wait no time on this Python: a wait of a minute
    on behalf of this file, which nobody ends, returns at once (bounded by 10 s)."""
    said: list = []

    def probe() -> None:
        sys.setprofile(_no_time_for({__file__}))
        try:
            cond = threading.Condition()
            with cond:
                said.append(cond.wait_for(lambda: False, 60))
        finally:
            sys.setprofile(None)

    start_thread(probe).join(10)
    return said == [False]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("p", [2, 3])
def test_a_worker_slower_than_any_timeout_is_waited_for(Exchange, p):
    """A worker may compute longer than any timeout the file could choose: every timed wait
    the file makes (a Barrier made with ``timeout=``, ``wait(timeout)``, a Condition's or a
    Semaphore's) runs out at once here (:func:`_no_time_for`, nothing replaced), while in each
    superstep one rank in turn reaches the exchange only once every other rank is asleep in it
    or has left it. Every superstep must still deliver: the others wait for the slow one
    however long it takes, without a timeout (no real time passes and nothing sleeps: the late
    rank waits, bounded, for the others to block)."""
    assert _no_time_works(), "this Python does not let the check give a wait no time"
    files = {inspect.getsourcefile(Exchange) or ""}
    steps = 2 * p
    outboxes = plan(p, steps, seed=90 + p)
    got = [[None] * steps for _ in range(p)]
    errors: list[BaseException] = []
    threads: list[threading.Thread] = []
    started = threading.Event()

    def worker(rank):
        started.wait(10)
        sys.setprofile(_no_time_for(files))
        try:
            for step in range(steps):
                if rank == step % p:  # the slow one: the others are waiting, or gave up
                    _until_all_blocked([t for t in threads if t is not threads[rank]], 1.0)
                got[rank][step] = ex.exchange(rank, outboxes[step][rank])
        except Exception as exc:  # reported below, not lost in a thread
            errors.append(exc)
        finally:
            sys.setprofile(None)

    ex = Exchange(p)
    threads.extend(start_thread(worker, r) for r in range(p))
    started.set()
    join_all(threads, timeout=40)
    assert not errors, (
        f"a worker raised {errors[0]!r} while another computed longer than the file's timeout: "
        "a superstep waits for its slowest worker however long it takes (no timeout)")
    for rank in range(p):
        for step in range(steps):
            want = expected(outboxes, step, rank)
            assert got[rank][step] == want, (
                f"with a worker slower than any timeout, rank {rank}, superstep {step}: got "
                f"{got[rank][step]!r}, expected {want!r}")


class _Message:
    """A message an exchange may keep alive or not: :func:`weakref.ref` tells."""

    __slots__ = ("tag", "__weakref__")

    def __init__(self, tag) -> None:
        self.tag = tag

    def __repr__(self) -> str:
        return f"_Message({self.tag!r})"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("p", [1, 3])
def test_an_exchange_keeps_no_message_of_supersteps_long_over(Exchange, p):
    """A crawl runs for thousands of supersteps: the exchange must not keep what it delivered.
    Messages that can be weakly referenced, 10 supersteps, then the test drops its own
    references (what was sent and received) and collects garbage, while the ``Exchange``
    lives on: every message of the supersteps before the last two must be gone (the last
    two may still sit in mailboxes, double buffering for one). An exchange that gives each
    superstep a mailbox grid of its own and never drops one grows without bound."""
    steps, keep = 10, 2
    tags = plan(p, steps, seed=60 + p)
    refs: list[list] = [[] for _ in range(steps)]
    wrong: list[str] = []
    ex = Exchange(p)

    def worker(rank):
        for step in range(steps):
            outbox = {d: [_Message(t) for t in ts] for d, ts in tags[step][rank].items()}
            refs[step].extend(weakref.ref(m) for ms in outbox.values() for m in ms)
            received = [m.tag for m in ex.exchange(rank, outbox)]
            if received != expected(tags, step, rank):
                wrong.append(f"rank {rank}, superstep {step}: got {received!r}, expected "
                             f"{expected(tags, step, rank)!r}")
            del outbox

    work_together(worker, p, timeout=30)
    assert not wrong, wrong[0]
    gc.collect()
    for step in range(steps - keep):
        alive = [m for m in (r() for r in refs[step]) if m is not None]
        assert not alive, (
            f"after {steps} supersteps, {len(alive)} message(s) of superstep {step} are still "
            f"alive, e.g. {alive[0]!r}, though every rank received them long ago and nobody "
            "else holds them: the exchange keeps what it delivered, and a long crawl's memory "
            "grows without bound (reuse or drop the mailboxes of a finished superstep)")
    assert ex is not None  # the exchange lived through the collection


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


def _until_blocked(thread: threading.Thread, within: float = 5.0) -> None:
    """Give ``thread`` up to ``within`` seconds to block in a wait of :mod:`threading` (at its
    barrier). The schedule is forced only as far as that goes: the verdict never depends on
    it, only how surely the check finds what it looks for."""
    deadline = time.monotonic() + within
    while thread.is_alive() and not asleep(thread) and time.monotonic() < deadline:
        thread.join(0.001)


class _ReleasedThen:
    """A Condition's ``release`` (the lock's own, a bound built-in method kept on the instance)
    that runs ``then()`` after releasing; its repr, equality and hash are the lock's own."""

    __slots__ = ("_release", "_then")

    def __init__(self, release, then) -> None:
        self._release, self._then = release, then

    def __call__(self) -> None:
        self._release()
        self._then()

    def __repr__(self) -> str:
        return repr(self._release)

    def __eq__(self, other) -> bool:
        if isinstance(other, _ReleasedThen):
            other = other._release
        return self._release == other

    def __hash__(self) -> int:
        return hash(self._release)


_HELD_AFTER = {"wait", "acquire", "__enter__", "__exit__", "release"}


def _profiled_syncs(files: set[str], then):
    """A profile function (:func:`sys.setprofile`, for the thread that sets it) that runs
    ``then()`` when that thread has just come out of a synchronization that code of ``files``
    called: a :mod:`threading` function returning to a frame of theirs (a Barrier's or an
    Event's ``wait``, a Semaphore's ``acquire``, ``with`` too, a Condition's ``__exit__``; not
    a Condition's ``wait``, after which the thread holds its lock) or a lock's built-in
    ``release`` (a Condition's too) returning in one. Nothing of :mod:`threading` is replaced:
    the file reads exactly what it reads outside the check."""
    def profile(frame, event, arg) -> None:
        if event == "return":
            code, back = frame.f_code, frame.f_back
            if (code.co_filename == _THREADING_FILE and code.co_name in _HELD_AFTER
                    and back is not None and back.f_code.co_filename in files
                    and not (code.co_name == "wait"
                             and isinstance(frame.f_locals.get("self"), threading.Condition))):
                then()
        elif event == "c_return" and frame.f_code.co_filename in files:
            if getattr(arg, "__name__", None) == "release":
                then()
    return profile


def _until_all_blocked(threads: list[threading.Thread], within: float) -> None:
    """:func:`_until_blocked` for several threads at once, ``within`` seconds in all: each one
    asleep in a wait of :mod:`threading` or ended (the verdict never depends on the bound)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        going = [t for t in threads if t.is_alive() and not asleep(t)]
        if not going:
            return
        going[0].join(0.001)


@contextmanager
def _after_each_sync(files: set[str], then):
    """Inside the block, ``then()`` runs in a thread that has just come out of a
    synchronization on an object that code of ``files`` made (however the file names its
    class, a subclass of its own included): a :class:`threading.Barrier`'s ``wait``, a
    :class:`threading.Semaphore`'s ``acquire`` (``with`` too), or a
    :class:`threading.Condition` given back (``release`` or the end of ``with``: never inside
    ``wait``, where the thread holds its lock). Objects the standard library makes for
    itself (a Barrier's own Condition) are left alone. Each replacement carries the name,
    qualified name and module of the one it replaces (a Condition's ``release`` the repr,
    equality and hash of the lock's own), so that a file cannot tell this block from the plain
    library by what it may read of them (the static check refuses ``__wrapped__``, ``__code__``
    and the like); :func:`_profiled_syncs` holds a thread back without replacing anything.
    One block at a time per process."""
    made: list = []
    plain: dict = {}

    def mine(obj) -> bool:
        return any(o is obj for o in made)

    def recording(cls):
        init = cls.__init__

        @functools.wraps(init)  # its own name, qualified name and module: repr() tells nothing
        def recording_init(self, *args, **kwargs):
            init(self, *args, **kwargs)
            frame = sys._getframe(1)
            while frame is not None and frame.f_locals.get("self") is self:
                frame = frame.f_back  # the __init__ of a subclass: who made the object
            if frame is not None and frame.f_code.co_filename in files:
                made.append(self)
                if isinstance(self, threading.Condition):
                    # the lock's own, set on the instance: stood for by one that looks the same
                    self.release = _ReleasedThen(self.release, then)
        return recording_init

    def after(method):
        @functools.wraps(method)  # Barrier.wait of ..., as the plain one: repr() tells nothing
        def wrapped(self, *args, **kwargs):
            result = method(self, *args, **kwargs)
            if mine(self):
                then()
            return result
        return wrapped

    patches = [(cls, "__init__", recording(cls))
               for cls in (threading.Barrier, threading.Condition, threading.Semaphore)]
    patches += [(cls, name, after(getattr(cls, name))) for cls, name in (
        (threading.Barrier, "wait"), (threading.Semaphore, "acquire"),
        (threading.Semaphore, "__enter__"), (threading.Condition, "__exit__"))]
    for cls, name, _ in patches:
        plain[cls, name] = cls.__dict__[name]
    try:
        for cls, name, new in patches:
            setattr(cls, name, new)
        yield made
    finally:
        for (cls, name), old in plain.items():
            setattr(cls, name, old)


class _SlowReceiver:
    """The supersteps of the reuse check, but each sender clears and refills its lists as soon
    as *its own* exchange returns, while the last rank, each time it comes out of a
    synchronization of the file, is held back (:meth:`hold_back`) until every other rank has
    reused its lists or is asleep in a wait (for the last rank's reading, at a second barrier,
    say). How the last rank is made to call :meth:`hold_back` is the check's."""

    def __init__(self, p: int) -> None:
        self.p, self.slow = p, p - 1
        self.held: threading.Thread | None = None
        self.others: list[tuple[int, threading.Thread]] = []
        self.reused = [threading.Event() for _ in range(p)]
        self.errors: list[BaseException] = []

    def hold_back(self) -> None:
        if self.held is not threading.current_thread():
            return
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            going = [t for r, t in self.others
                     if not self.reused[r].is_set() and t.is_alive() and not asleep(t)]
            if not going:
                return  # every other rank has reused its lists, or waits for this one
            going[0].join(0.001)  # a bounded poll, no verdict rests on it

    def run(self, ex, profiled: set[str] | None = None) -> None:
        """Every superstep of :data:`REUSE_STEPS` on ``ex``; with ``profiled``, the last rank
        is held back by :func:`_profiled_syncs` of those files, set in its own thread."""
        p, slow, reused = self.p, self.slow, self.reused

        def worker(rank, mine, got):
            if profiled is not None and rank == slow:
                sys.setprofile(_profiled_syncs(profiled, self.hold_back))
            try:
                got[rank] = ex.exchange(rank, mine[rank])
                if rank != slow:
                    for messages in mine[rank].values():
                        messages.clear()
                        messages.append(("reused by", rank))
                    reused[rank].set()
            except Exception as exc:  # reported below, not lost in a thread
                self.errors.append(exc)
            finally:
                sys.setprofile(None)

        for name, make in REUSE_STEPS.items():
            sent = [make(r, p) for r in range(p)]
            mine = [{d: list(ms) for d, ms in sent[r].items()} for r in range(p)]
            got: dict[int, list] = {}
            for event in reused:
                event.clear()
            held = start_thread(worker, slow, mine, got)
            _until_blocked(held, within=2.0)  # the slow rank waits at the barrier first
            others = [(r, threading.Thread(target=worker, args=(r, mine, got), daemon=True))
                      for r in range(p) if r != slow]
            self.held, self.others = held, others  # before they start: no gap
            for _, t in others:
                t.start()
            try:
                join_all([held] + [t for _, t in others], timeout=20)
            finally:
                self.held = None
            assert not self.errors, f"superstep {name!r}: a worker raised {self.errors[0]!r}"
            want = [m for s in range(p) for m in sent[s].get(slow, [])]
            assert got[slow] == want, (
                f"superstep {name!r}: rank {slow}, held back after the barrier, received "
                f"{got[slow]!r}, but was sent {want!r}: the senders had returned and reused "
                "their lists (the contract allows it) before it read them; copy the messages "
                "when they are sent")
            for rank in range(p):
                want = [m for s in range(p) for m in sent[s].get(rank, [])]
                assert got[rank] == want, (
                    f"superstep {name!r}: rank {rank} received {got[rank]!r}, expected {want!r}")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("p", [2, 3])
def test_a_sender_may_reuse_its_lists_while_a_slow_receiver_has_not_read(Exchange,
                                                                          exercises_dir, p):
    """The supersteps of the reuse check, but each sender clears and refills its lists as soon
    as *its own* exchange returns, as the contract allows, while the last rank is held back
    every time it comes out of a wait of the file (a Barrier's ``wait``, a Semaphore's
    ``acquire``, a Condition given back), until every other rank has reused its lists or is
    asleep in a wait (for the last rank's reading, at a second barrier, say). A received list
    must be what was sent: an exchange that keeps the sender's list object (one barrier,
    no copy) hands the slow receiver the reused list. No sleeps: the held rank waits for
    events, bounded (2 s each time), and the verdict never depends on those bounds."""
    receiver = _SlowReceiver(p)
    with _after_each_sync({inspect.getsourcefile(Exchange) or ""}, receiver.hold_back):
        # imported again inside: objects made at import (class attributes) are seen too
        ex = load_exercise(exercises_dir, "ex4_bsp_exchange", "Exchange")(p)
        receiver.run(ex)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("p", [2, 3])
def test_a_receiver_held_back_unseen_reads_what_was_sent(Exchange, p):
    """The check above with nothing of :mod:`threading` replaced: the last rank is held back
    by a profile function of its own thread (:func:`sys.setprofile`, which a file cannot read)
    each time a synchronization the file called returns to it, as a thread descheduled there
    would be. A file that behaves well only when it sees the grader's hand in the library
    (the repr of a Barrier's ``wait``, say) is judged here as it runs for everyone."""
    _SlowReceiver(p).run(Exchange(p), profiled={inspect.getsourcefile(Exchange) or ""})


def _forced_outbox(name: str, rank: int, p: int) -> dict:
    """What ``rank`` of exchange ``name`` (of ``p`` ranks) sends in the forced schedule: rank 1
    (the late one) to rank ``2 % p`` only, every other rank to every rank (itself last)."""
    dests = [(rank + 1 + k) % p for k in range(p)]
    return {d: [f"{name}{rank}>{d}"] for d in dests if rank != 1 or d == 2 % p}


# Last: an exchange whose waits share one Condition across instances, and that does not
# re-check its predicate, can hang here, which ends the grading; the checks meant for that
# (spurious wake-ups, above) have run by then.
@pytest.mark.timeout(90)
@pytest.mark.parametrize("sizes", [(2, 3), (2, 2), (3, 3)], ids=["2-and-3", "2-and-2", "3-and-3"])
def test_two_exchanges_at_once_keep_their_messages_apart(Exchange, sizes):
    """Two exchanges of their own, A and B (p = 2 and 3, then two of the same size: 2 and 2,
    3 and 3), run at the same time (two BSP jobs in one process): each delivers exactly its
    own messages. First a forced schedule: A's ranks but rank 1 send and wait at A's barrier,
    then B's ranks but rank 1 send and wait, then A's rank 1 and B's rank 1 arrive (state
    shared between instances, a class attribute or a module global, mixes or overwrites their
    mailboxes; shared by instances of the same size, a cache keyed by ``p``, lets B's ranks
    pass A's barrier); then both run random plans of their own at once."""
    pa, pb = sizes
    a, b = Exchange(pa), Exchange(pb)
    early = [(ex, name, r, p) for ex, name, p in ((a, "A", pa), (b, "B", pb))
             for r in range(p) if r != 1]
    calls = [  # (exchange, its name, rank, outbox), started in this order
        *((ex, name, r, _forced_outbox(name, r, p)) for ex, name, r, p in early),
        (a, "A", 1, _forced_outbox("A", 1, pa)),
        (b, "B", 1, _forced_outbox("B", 1, pb)),
    ]
    want = {f"{name}{d}": [m for s in range(p) for m in _forced_outbox(name, s, p).get(d, [])]
            for name, p in (("A", pa), ("B", pb)) for d in range(p)}
    got, errors = {}, []

    def call(ex, name, rank, outbox):
        try:
            got[f"{name}{rank}"] = ex.exchange(rank, outbox)
        except Exception as exc:  # reported below, not lost in a thread
            errors.append(exc)

    threads = []
    for i, args in enumerate(calls):
        threads.append(start_thread(call, *args))
        if i < len(early):  # the early ones wait at their barrier before the next one starts
            _until_blocked(threads[-1])
    join_all(threads, timeout=20)
    assert not errors, f"a worker raised {errors[0]!r}"
    assert got == want, (
        f"two exchanges at once (p = {pa} and {pb}): received {got}, expected {want}: an "
        "Exchange's mailboxes and barriers must be its own (not a class attribute, a module "
        "global, or shared by the exchanges of the same size)")

    failures: list[BaseException] = []

    def job(name, p, seed):
        try:
            run(Exchange, p, 30, seed=seed,
                outboxes=plan(p, 30, seed=seed, tag=f"job {name} of {p}"))
        except BaseException as exc:  # an AssertionError of run() too: reported below
            failures.append(exc)

    join_all([start_thread(job, "A", pa, 70 + pa), start_thread(job, "B", pb, 80 + pb)],
             timeout=70)
    assert not failures, f"two exchanges at once: {failures[0]}"
