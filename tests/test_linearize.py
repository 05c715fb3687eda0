"""crawlab linearize: the Wing-Gong/Lowe check on hand-made histories, recorded histories of
the correct frontiers, the timeline, the command's exit codes."""

from __future__ import annotations

import json

import pytest

import frontier
from crawlers.cli import main
from frontier import contract
from frontier.check.linearize import Op, check, record, spec_of


def op(thread, kind, url, start, end, priority=0.0):
    return Op(thread, kind, url, priority, start, end)


def test_sequential_fifo_history_is_linearizable():
    h = [op(0, "put", "a", 0, 1), op(0, "put", "b", 2, 3), op(1, "get", "a", 4, 5),
         op(1, "get", "b", 6, 7), op(1, "get", None, 8, 9)]
    assert check(h, "fifo").ok


def test_fifo_out_of_order_is_not_linearizable():
    h = [op(0, "put", "a", 0, 1), op(0, "put", "b", 2, 3), op(1, "get", "b", 4, 5)]
    r = check(h, "fifo")
    assert not r.ok and r.linearized == 2 and r.offending == [2]


def test_overlapping_puts_may_go_either_way():
    h = [op(0, "put", "a", 0, 10), op(1, "put", "b", 1, 9), op(2, "get", "b", 11, 12)]
    assert check(h, "fifo").ok


def test_empty_while_a_finished_put_is_in_is_not_linearizable():
    h = [op(0, "put", "a", 0, 1), op(1, "get", None, 2, 3)]
    assert not check(h, "fifo").ok
    h = [op(0, "put", "a", 0, 5), op(1, "get", None, 2, 3)]  # the put is still pending
    assert check(h, "fifo").ok


def test_a_url_handed_out_twice_is_not_linearizable():
    h = [op(0, "put", "a", 0, 1), op(1, "get", "a", 2, 5), op(2, "get", "a", 3, 4)]
    assert not check(h, "fifo").ok


def test_priority_spec_takes_the_best():
    h = [op(0, "put", "lo", 0, 1, 0.0), op(0, "put", "hi", 2, 3, 5.0), op(1, "get", "lo", 4, 5)]
    assert not check(h, "priority").ok
    h[2] = op(1, "get", "hi", 4, 5)
    assert check(h, "priority").ok


def test_spec_of():
    assert spec_of("monitor") == "fifo" and spec_of("heap") == "priority"


# semaphore's try-get can answer "empty" while a finished put's URL is in (its full-slots count
# lags its buffer while another put is between push and V): see the book, "You are the scheduler".
LINEARIZABLE = ["lockfree", "optimistic", "monitor", "tanenbaum", "coarse", "fine", "heap",
                "cbt", "quickheap"]


@pytest.mark.parametrize("name", LINEARIZABLE)
def test_recorded_histories_of_correct_frontiers_are_linearizable(name):
    for seed in range(5):
        h = record(name, threads=4, ops=20, seed=seed)
        assert len(h) == 80
        r = check(h, spec_of(name))
        assert r.ok, r.reason


class _Lifo:
    """A frontier that hands out the newest URL: not linearizable to FIFO, even alone."""

    name = "lifo-test"
    description = "test only"
    ordering = "fifo"
    correct = True
    bounded = False

    def __init__(self):
        self._items = []
        self.capacity = None

    def put(self, url, priority=0.0, timeout=None):
        self._items.append(url)

    def get(self, timeout=None):
        if not self._items:
            raise frontier.Empty
        return self._items.pop()


def test_the_command_draws_a_bad_history_and_exits_1(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(contract._REGISTRY, "lifo-test", _Lifo)
    assert main(["linearize", "lifo-test", "--runs", "3", "--json", "--out", str(tmp_path)]) == 1
    row = json.loads(capsys.readouterr().out)
    assert row["linearizable"] is False and row["run"] == 1
    png = tmp_path / "linearize-lifo-test.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_command_passes_a_correct_frontier(capsys):
    assert main(["linearize", "monitor", "--runs", "3", "--ops", "10"]) == 0
    assert "all 3 histories linearizable" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["linearize", "nope"], ["linearize", "monitor", "--runs", "0"],
                                  ["linearize", "monitor", "--out", "/no/such/dir"]])
def test_bad_input_exits_2(argv, capsys):
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code
    assert status == 2
    assert capsys.readouterr().err.count("\n") == 1
