"""Model-based tests: each frontier, used from one thread, behaves like a reference.

The reference is ``collections.deque`` for FIFO frontiers and a max-priority list for priority
frontiers (a URL handed out must carry the highest priority waiting). Hypothesis draws random
programs of put, get, put_many (insert-many) and get_many (extract-top R), including R = 0,
R larger than the size, equal priorities, and puts into a full bounded frontier.
"""

from __future__ import annotations

from collections import deque

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import frontier
from tests.helpers import ALL, kind

CAPACITY = 6
priorities = st.sampled_from([0.0, 1.0, 1.0, 2.5, -3.0, 10.0])
ops = st.lists(
    st.one_of(
        st.tuples(st.just("put"), priorities),
        st.tuples(st.just("get"), st.just(0)),
        st.tuples(st.just("put_many"), st.lists(priorities, max_size=8)),
        st.tuples(st.just("get_many"), st.integers(min_value=0, max_value=10)),
    ),
    max_size=60,
)


class Reference:
    """What any frontier should do, single-threaded."""

    def __init__(self, ordering: str, capacity: int | None) -> None:
        self.fifo = ordering == "fifo"
        self.capacity = capacity
        self.items: deque[tuple[str, float]] = deque()

    def room(self) -> int:
        return 10**9 if self.capacity is None else self.capacity - len(self.items)

    def check_taken(self, url: str) -> None:
        """Remove ``url``, asserting it was a right one to hand out."""
        if self.fifo:
            expected, _ = self.items.popleft()
            assert url == expected
        else:
            best = max(p for _, p in self.items)
            match = [i for i, (u, p) in enumerate(self.items) if u == url]
            assert match, f"{url} was never put"
            assert self.items[match[0]][1] == best, "a better URL was waiting"
            del self.items[match[0]]


@pytest.mark.parametrize("name", ALL)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=ops)
def test_behaves_like_the_reference(name, program):
    must = kind(name)  # the exercise's word for a graded class, never the class's own
    f = frontier.create(name, capacity=CAPACITY) if must.bounded else frontier.create(name)
    ref = Reference(must.ordering, CAPACITY if must.bounded else None)
    serial = 0
    for op, arg in program:
        if op == "put":
            url = f"u{serial}"
            serial += 1
            if ref.room() > 0:
                f.put(url, arg)
                ref.items.append((url, arg))
            else:
                with pytest.raises(frontier.Full):
                    f.put(url, arg, timeout=0)
        elif op == "get":
            if ref.items:
                ref.check_taken(f.get(timeout=0))
            else:
                with pytest.raises(frontier.Empty):
                    f.get(timeout=0)
        elif op == "put_many":
            batch = [(f"u{serial + i}", p) for i, p in enumerate(arg)][: ref.room()]
            serial += len(arg)
            f.put_many(batch)
            ref.items.extend(batch)
        else:
            taken = f.get_many(arg)
            assert len(taken) == min(arg, len(ref.items))
            for url in taken:
                ref.check_taken(url)
        assert len(f) == len(ref.items)
        f._check()
    assert f.stats.puts - f.stats.gets == len(ref.items)
