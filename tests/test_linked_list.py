"""frontier.storage.LinkedList (the storage of ``coarse`` and ``fine``): a popped dummy is
unlinked, so a reference to it (a thread that read ``head`` before it moved, or a node whose
free waits for the thread that made it, as free-threaded 3.13 does) keeps no later node alive."""

from __future__ import annotations

import frontier
from frontier.storage import LinkedList, _Node


def _reachable(node: _Node) -> int:
    n = 0
    while node.next is not None:
        node, n = node.next, n + 1
    return n


def test_a_popped_dummy_holds_no_later_node():
    s = LinkedList()
    old = s.head
    for i in range(300):
        s.push(f"u{i}")
        assert s.pop() == f"u{i}"
    assert _reachable(old) == 0
    s._check()


def test_a_popped_dummy_while_urls_wait():
    s = LinkedList()
    s.push_many([(f"u{i}", 0.0) for i in range(5)])
    old = s.head
    assert s.pop_many(2) == ["u0", "u1"]
    assert _reachable(old) == 0 and len(s) == 3 and _reachable(s.head) == 3
    s._check()


def test_both_frontiers_on_the_list_still_move_every_url_once():
    for name in ("coarse", "fine"):
        f = frontier.create(name)
        f.put_many([(f"u{i}", 0.0) for i in range(50)])
        assert [f.get() for _ in range(50)] == [f"u{i}" for i in range(50)]
        f._check()
