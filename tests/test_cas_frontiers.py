"""The two strategies built on compare-and-set, tested on the interleavings they exist for.

A stress test rarely hits the one interleaving that needs the CAS, so these force it: one thread
is held (by events, never by sleeping) between reading the shared state and its CAS while
another thread commits, then let go. ``optimistic`` must abort and redo its read phase (without
its validating CAS it writes into a full buffer or takes from an empty one); ``lockfree`` must
count the CAS it lost. And ``lockfree`` must take no lock on its put/get path, which a profiler
on every call checks.
"""

from __future__ import annotations

import _thread
import sys
import threading

import frontier
from frontier.lockfree import LockFreeFrontier
from frontier.optimistic import OptimisticFrontier
from tests.helpers import join_all, start_thread, wait_until

WAIT = 10.0  # seconds any handshake may take before the test fails (never hangs)


class Hold:
    """Holds the first call made by thread ``who`` until :meth:`release` (a handshake)."""

    def __init__(self) -> None:
        self.who: threading.Thread | None = None
        self.reached = threading.Event()
        self._go = threading.Event()

    def __call__(self) -> None:
        if threading.current_thread() is self.who and not self.reached.is_set():
            self.reached.set()
            assert self._go.wait(WAIT), "the held thread was never let go"

    def release(self) -> None:
        self._go.set()


def _run_held(hold: Hold, target) -> tuple[threading.Thread, list]:
    """Start ``target`` in a thread held by ``hold``; return it and a list of its outcome."""
    outcome: list = []

    def body() -> None:
        try:
            outcome.append(("returned", target()))
        except Exception as exc:  # the outcome is what the test checks
            outcome.append(("raised", type(exc)))

    t = threading.Thread(target=body, daemon=True)
    hold.who = t
    t.start()
    assert hold.reached.wait(WAIT), "the thread never reached the held point"
    return t, outcome


# --------------------------------------------------------------------------------------------
# optimistic: the validation


def test_optimistic_put_that_lost_the_race_for_the_last_slot_aborts():
    """A and B both see the one free slot; B commits first. A's validation must fail (one
    abort), its new read phase finds the buffer full: ``Full`` with ``timeout=0``. Without the
    validating CAS, A would write into the full buffer."""
    f = OptimisticFrontier(capacity=1)
    hold = f._before_validation = Hold()
    a, outcome = _run_held(hold, lambda: f.put("a", timeout=0))
    f.put("b")  # B: read phase, validation, write phase, while A waits before its validation
    hold.release()
    join_all([a], timeout=WAIT)
    assert outcome == [("raised", frontier.Full)]
    assert f.stats.optimistic_aborts == 1 and f.stats.puts == 1
    f._check()
    assert f.get_many(5) == ["b"]


def test_optimistic_get_that_lost_the_race_for_the_last_url_aborts():
    """A and B both see the one URL; B takes it first. A's validation must fail and its new
    read phase finds nothing. Without the validating CAS, A takes from an empty buffer."""
    f = OptimisticFrontier(capacity=4)
    f.put("only")
    hold = f._before_validation = Hold()
    a, outcome = _run_held(hold, lambda: f.get_many(1))
    assert f.get_many(1) == ["only"]  # B
    hold.release()
    join_all([a], timeout=WAIT)
    assert outcome == [("returned", [])]
    assert f.stats.optimistic_aborts == 1 and f.stats.gets == 1
    f._check()


def test_optimistic_waits_for_a_write_phase_in_flight():
    """A reader that finds the version odd (a write phase in flight) backs off and counts an
    abort; it proceeds once the writer publishes the next even version."""
    f = OptimisticFrontier(capacity=4)
    f._version.set(1)  # as if a writer were between its validation and its publication
    got: list = []
    reader = start_thread(lambda: got.append(f.get_many(1)))
    wait_until(lambda: f.stats.optimistic_aborts > 0 or not reader.is_alive(),
               what="the reader backing off from the write phase")
    assert reader.is_alive() and not got, "the reader did not wait for the write phase"
    f._buffer.push("x")  # the writer's write phase ...
    f._version.set(2)  # ... and its publication
    join_all([reader], timeout=WAIT)
    assert got == [["x"]]


# --------------------------------------------------------------------------------------------
# lockfree: CAS retries counted, no lock taken


class HeldRef:
    """Wraps one of the queue's atomic references; holds thread ``hold.who`` right after its
    first ``get`` (between its read and its CAS)."""

    def __init__(self, real, hold: Hold) -> None:
        self._real, self._hold = real, hold

    def get(self):
        value = self._real.get()
        self._hold()
        return value

    def compare_and_set(self, expected, desired) -> bool:
        return self._real.compare_and_set(expected, desired)

    def set(self, value) -> None:
        self._real.set(value)


def test_lockfree_put_that_lost_the_cas_retries_and_counts_it():
    """A reads the last node's empty ``next``; B links its node there first. A's CAS on
    ``next`` fails: it retries, behind B, and counts one retry."""
    f = LockFreeFrontier()
    hold = Hold()
    last = f._tail.get()
    last.next = HeldRef(last.next, hold)  # A is held after reading last.next (None)
    a, outcome = _run_held(hold, lambda: f.put("a"))
    f.put("b")
    hold.release()
    join_all([a], timeout=WAIT)
    assert outcome == [("returned", None)]
    assert f.stats.cas_retries == 1
    assert f.get_many(5) == ["b", "a"]
    f._check()


def test_lockfree_get_that_lost_the_cas_retries_and_counts_it():
    """A reads ``head``; B dequeues first. A's CAS on ``head`` fails: it retries and takes
    the next URL, counting one retry."""
    f = LockFreeFrontier()
    f.put_many([("u1", 0.0), ("u2", 0.0)])
    hold = Hold()
    f._head = HeldRef(f._head, hold)
    a, outcome = _run_held(hold, lambda: f.get_many(1))
    assert f.get_many(1) == ["u1"]  # B
    hold.release()
    join_all([a], timeout=WAIT)
    assert outcome == [("returned", ["u2"])]
    assert f.stats.cas_retries == 1
    assert len(f) == 0


LOCK_TYPES = (_thread.LockType, type(_thread.RLock()))


class LockCalls:
    """A profiler of the calling thread (:func:`sys.setprofile`) that records every call to a
    method of a lock (``acquire``, ``__enter__``, ``__exit__`` ...) and every call into
    :mod:`threading` (a ``Condition``, ``Semaphore`` or ``Event`` is made of locks)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def _profile(self, frame, event, arg) -> None:
        if event == "c_call" and isinstance(getattr(arg, "__self__", None), LOCK_TYPES):
            self.seen.append(f"{type(arg.__self__).__name__}.{arg.__name__}")
        elif event == "call" and frame.f_code.co_filename == threading.__file__:
            self.seen.append(f"threading.{frame.f_code.co_name}")

    def __enter__(self) -> LockCalls:
        sys.setprofile(self._profile)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(None)


def _put_and_get(f, k: int) -> None:
    for i in range(50):
        f.put(f"http://{k}.test/{i}")
    f.put_many((f"http://{k}.test/m{i}", 0.0) for i in range(10))
    for _ in range(30):
        f.get(timeout=WAIT)
    f.get_many(5)


def test_lockfree_takes_no_lock_on_its_put_and_get_path():
    """put, put_many, get, get_many from two threads at once, each profiled while it works
    (the barrier that starts them together is outside the profiled part): not one lock
    operation, not one call into :mod:`threading`."""
    f = LockFreeFrontier()
    start = threading.Barrier(2)
    seen: list[str] = []

    def worker(k: int) -> None:
        start.wait(WAIT)
        with LockCalls() as calls:
            _put_and_get(f, k)
        seen.extend(calls.seen)

    join_all([start_thread(worker, k) for k in range(2)], timeout=60)
    assert not seen, f"lock operations on the lock-free path: {sorted(set(seen))}"
    assert len(f) == 2 * (50 + 10 - 30 - 5)
    f._check()


def test_the_no_lock_check_sees_a_lock():
    """The same profiler on a monitor-based frontier sees its lock (the check can fail)."""
    f = frontier.create("coarse")
    with LockCalls() as calls:
        _put_and_get(f, 0)
    assert "lock.acquire" in calls.seen or "lock.__enter__" in calls.seen, calls.seen[:5]


def _reachable_from_a_stale_head(f: LockFreeFrontier) -> int:
    from frontier.lockfree import _Node

    stale = f._head.get()
    for i in range(400):
        f.put(f"http://a.test/{i}")
        assert f.get(timeout=WAIT) == f"http://a.test/{i}"
    reachable, node = 0, stale
    while isinstance(nxt := node.next.get(), _Node):
        reachable, node = reachable + 1, nxt
    f._check()
    return reachable


def test_lockfree_a_stale_node_keeps_nothing_alive():
    """A thread that still holds the node it read as ``head`` (descheduled before its CAS) must
    not keep alive the nodes linked after it: each dequeued node is unlinked. Without that
    (``unlink=False``, the queue as it was), the 400 nodes that pass through stay reachable
    from the stale one (on 3.13t the collector then runs full collections that free nothing)."""
    assert _reachable_from_a_stale_head(LockFreeFrontier()) == 0
    assert _reachable_from_a_stale_head(LockFreeFrontier(unlink=False)) == 400
