"""``sliced``: its relaxed FIFO specification (each putter's URLs in its own order), stealing,
and its argument check. The contract, model, thread and explored suites run on it as on every
registered frontier."""

from __future__ import annotations

import threading

import pytest

from frontier.sliced import SlicedFrontier
from tests.helpers import join_all, start_thread

PRODUCERS, EACH = 4, 500


def test_each_putters_urls_come_out_in_its_order_to_a_thread_that_must_steal():
    f = SlicedFrontier(slices=PRODUCERS + 1)
    f.get_many(1)  # the test's thread takes its home (slice 0) first: the producers' are others
    start = threading.Barrier(PRODUCERS)

    def produce(k: int) -> None:
        start.wait(timeout=10)
        for i in range(EACH):
            f.put(f"p{k}-{i}")

    join_all([start_thread(produce, k) for k in range(PRODUCERS)], timeout=30)
    got = []
    while (url := f.get(timeout=0)) is not None:  # every URL is in another thread's slice
        got.append(url)
        if len(got) == PRODUCERS * EACH:
            break
    assert sorted(got) == sorted(f"p{k}-{i}" for k in range(PRODUCERS) for i in range(EACH))
    for k in range(PRODUCERS):
        mine = [int(u.split("-")[1]) for u in got if u.startswith(f"p{k}-")]
        assert mine == list(range(EACH)), f"producer {k}'s URLs out of its order"
    f._check()


def test_a_put_after_close_is_refused_and_what_was_put_drains():
    f = SlicedFrontier(slices=3)
    f.put("a")
    f.close()
    with pytest.raises(Exception, match="closed"):
        f.put("b")
    assert f.get() == "a" and f.get() is None


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_slices_must_be_a_positive_integer(bad):
    with pytest.raises(ValueError, match="slices must be a positive integer"):
        SlicedFrontier(slices=bad)
