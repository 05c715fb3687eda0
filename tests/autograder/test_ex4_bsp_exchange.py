"""Exercise 4: the BSP exchange. Random messages over many supersteps, workers delayed at random
so that fast ones run ahead: every rank must get exactly what was sent to it in *that*
superstep, by sender in rank order. A missing barrier shows up as mixed supersteps; a deadlock
as threads still alive at the deadline (with their stacks)."""

from __future__ import annotations

import random
import sys
import time

import pytest

from tests.conftest import load_exercise
from tests.helpers import join_all, start_thread


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
