"""Exercise 4: the BSP exchange. Random messages over many supersteps, workers delayed at random
so that fast ones run ahead: every rank must get exactly what was sent to it in *that*
superstep, by sender in rank order. A missing barrier shows up as mixed supersteps; a deadlock
as threads still alive at the deadline (with their stacks); a barrier of the file's own that
does not re-check its condition, under spurious wake-ups; one that spins, as processor time
used by workers that only wait."""

from __future__ import annotations

import inspect
import random
import sys
import threading
import time

import pytest

from tests.conftest import load_exercise
from tests.helpers import join_all, restless_conditions, start_thread


@pytest.fixture
def Exchange(exercises_dir):  # noqa: N802 (a class)
    return load_exercise(exercises_dir, "ex4_bsp_exchange", "Exchange")


def plan(p: int, steps: int, seed: int):
    """outboxes[step][rank] = {dest: [messages]} with some destinations left out."""
    rng = random.Random(seed)
    return [
        [
            {d: [(step, r, d, k) for k in range(rng.randrange(4))]
             for d in range(p) if rng.random() < 0.7}
            for r in range(p)
        ]
        for step in range(steps)
    ]


def expected(outboxes, step: int, rank: int) -> list:
    return [m for sender in outboxes[step] for m in sender.get(rank, [])]


def run(Exchange, p: int, steps: int, seed: int):
    outboxes = plan(p, steps, seed)
    ex = Exchange(p)
    got = [[None] * steps for _ in range(p)]
    errors = []
    rng = random.Random(seed + 1)
    slow = [[rng.random() < 0.2 for _ in range(steps)] for _ in range(p)]

    def worker(rank):
        try:
            for step in range(steps):
                if slow[rank][step]:
                    time.sleep(0.001)  # a slow worker: the others reach the barrier first
                got[rank][step] = ex.exchange(rank, outboxes[step][rank])
        except Exception as exc:  # reported below, not lost in a thread
            errors.append(exc)

    threads = [start_thread(worker, r) for r in range(p)]
    join_all(threads, timeout=30)
    assert not errors, f"a worker raised {errors[0]!r}"
    for rank in range(p):
        for step in range(steps):
            want = expected(outboxes, step, rank)
            assert got[rank][step] == want, (
                f"rank {rank}, superstep {step}: got {got[rank][step]!r}, expected {want!r}")


def test_one_worker_sends_to_itself(Exchange):
    ex = Exchange(1)
    assert ex.exchange(0, {0: ["a", "b"]}) == ["a", "b"]
    assert ex.exchange(0, {}) == []


@pytest.mark.parametrize("bad", [2, -1, True, "1", 1.0])
def test_a_bad_destination_is_a_value_error_and_sends_nothing(Exchange, bad):
    """A call with a bad destination raises ValueError before it sends anything (and without
    entering the barrier); the next superstep carries only its own messages."""
    ex = Exchange(2)
    with pytest.raises(ValueError):
        ex.exchange(0, {0: ["early"], bad: ["x"]})
    got = {}

    def worker(rank):
        got[rank] = ex.exchange(rank, {1 - rank: [f"from {rank}"]})

    join_all([start_thread(worker, r) for r in range(2)], timeout=10)
    assert got == {0: ["from 1"], 1: ["from 0"]}, (
        f"after a refused call the next superstep delivered {got}: the refused call had "
        "already sent part of its messages")


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
