"""``sliced``: its relaxed FIFO specification (each putter's URLs in its own order), stealing,
and its argument check. The contract, model, thread and explored suites run on it as on every
registered frontier."""

from __future__ import annotations

import gc
import threading
import weakref
from collections import deque

import pytest

import frontier
from frontier import Closed
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


class _EmptiedWhileLookedAt(deque):
    """A slice's deque that, the first time a scan looks at it, lets the "other threads" act
    (their put into an already scanned slice, their take of this slice's last URL) and then
    looks empty: the one interleaving that makes a non-atomic scan answer "empty" wrongly."""

    def __init__(self, urls, meanwhile):
        super().__init__(urls)
        self.meanwhile = meanwhile

    def __bool__(self):
        if self.meanwhile is not None:
            act, self.meanwhile = self.meanwhile, None
            act()
        return len(self) > 0


def test_an_empty_answer_is_true_at_some_instant_of_the_scan():
    f = SlicedFrontier(slices=2)
    first, second = f._slices
    f.put("mine")  # the calling thread's home is the first slice ...
    assert f.get(timeout=0) == "mine"  # ... and it is empty again

    def meanwhile():
        with first.lock:  # another thread's put into the slice already looked at
            first.urls.append("late")
            first.added += 1
        with second.lock:  # and a third thread's take of the second slice's only URL
            second.urls.popleft()

    with second.lock:
        second.urls = _EmptiedWhileLookedAt(["early"], meanwhile)
        second.added += 1
    # At no instant of this get was the frontier empty: "early" left only after "late" came.
    assert f.get(timeout=0) == "late"
    assert not first.urls and not second.urls


def test_a_batch_is_one_lock_acquisition_and_each_single_put_one():
    f = SlicedFrontier()
    f.put_many([(f"http://a.test/{i}", 0.0) for i in range(5)])
    assert (f.stats.puts, f.stats.lock_acquisitions) == (5, 1)
    f.put("http://a.test/x")
    assert (f.stats.puts, f.stats.lock_acquisitions) == (6, 2)


def test_each_thread_has_a_handle_of_its_own_on_its_own_home_slice():
    """``thread_handle`` gives the calling thread the same handle every time and another thread
    another one, on another slice; a handle's URLs reach a thread that must steal them; after
    close a handle's put is refused, as the frontier's is."""
    f = SlicedFrontier(slices=2)
    mine = frontier.thread_handle(f)
    assert frontier.thread_handle(f) is mine and f.handle() is mine
    theirs: list = []
    other = start_thread(lambda: (theirs.append(frontier.thread_handle(f)),
                                  theirs[0].put_many([("t1", 0.0), ("t2", 0.0)])))
    join_all([other], timeout=10)
    assert theirs[0] is not mine and theirs[0].slice is not mine.slice
    assert list(theirs[0].slice.urls) == ["t1", "t2"] and not mine.slice.urls
    assert mine.get(timeout=0) == "t1"  # stolen from the other thread's slice, in its order
    mine.put("m")
    assert list(mine.slice.urls) == ["m"] and f.get(timeout=0) == "m"  # the home slice first
    f.close()
    with pytest.raises(Closed):
        mine.put("late")
    with pytest.raises(Closed):
        theirs[0].put("late")  # its slice's flag too, read by a thread that is gone
    assert mine.get() == "t2" and mine.get() is None
    f._check()


def test_a_used_frontier_is_freed_as_soon_as_nothing_refers_to_it():
    """No cycle of references runs through a frontier and its handles: dropped, it is freed at
    once, without the cyclic collector (which, on 3.11, could deadlock when it freed the
    frontier's thread-local tables inside ``sys._current_frames``)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        f = SlicedFrontier(slices=2)
        h = frontier.thread_handle(f)
        h.put("a")
        f.put("b")
        assert h.get() == "a"
        gone = weakref.ref(f)
        del f, h
        assert gone() is None, "the frontier outlived its last reference: a cycle"
    finally:
        if enabled:
            gc.enable()


def test_a_frontier_without_handles_of_its_own_class_is_its_own_handle():
    """No ``handle`` on the class (a proxy's ``__getattr__`` does not count), or a subclass
    that overrides a method the handle would do in its stead: the frontier itself, so that
    its own methods run."""
    f = frontier.create("monitor", capacity=2)
    assert frontier.thread_handle(f) is f

    class Checked(SlicedFrontier):
        def put(self, url, priority=0.0, timeout=None):
            if not url.startswith("http"):
                raise ValueError(url)
            super().put(url, priority, timeout)

    checked = Checked()
    assert frontier.thread_handle(checked) is checked
    with pytest.raises(ValueError):
        frontier.thread_handle(checked).put("not-a-url")

    class Proxy:
        def __init__(self, inner):
            self.inner = inner

        def __getattr__(self, name):
            return getattr(self.inner, name)

    proxy = Proxy(SlicedFrontier())
    assert frontier.thread_handle(proxy) is proxy

    class HandleMeansSomethingElse(SlicedFrontier):
        def handle(self, request):  # as in socketserver
            return request

    other = HandleMeansSomethingElse()
    assert frontier.thread_handle(other) is other
