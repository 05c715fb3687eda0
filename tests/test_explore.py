"""crawlab explore: the known bugs are found, a trace replays byte for byte, bad input exits 2.

Needs frontrun (the ``explore`` extra); skipped where it cannot be imported (it has no
free-threaded wheel).
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

pytest.importorskip("frontrun", reason="frontrun (crawlab[explore]) is not installed here")

from crawlers.cli import main  # noqa: E402
from frontier.check import scenarios, trace  # noqa: E402
from frontier.check.explore import explore, replay  # noqa: E402


def test_unsynchronized_loses_an_update():
    out = explore("unsynchronized", "lost-update")
    assert not out.holds
    assert "never came out (lost)" in out.broken
    assert out.schedule and out.events


@pytest.mark.parametrize("scenario", ["lost-wakeup", "lost-wakeup-full"])
def test_tanenbaum_loses_a_wake_up(scenario):
    out = explore("tanenbaum", scenario)
    assert not out.holds
    assert "lost wake-up" in out.broken


def test_the_monitor_does_not_lose_the_same_wake_up():
    assert explore("monitor", "lost-wakeup-full").holds


def test_a_replay_of_a_counterexample_breaks_the_same_way():
    out = explore("unsynchronized", "lost-update")
    again = replay("unsynchronized", "lost-update", out.schedule)
    assert again.broken == out.broken
    assert [(e.thread_id, e.filename, e.lineno, e.attr_name) for e in again.events] == [
        (e.thread_id, e.filename, e.lineno, e.attr_name) for e in out.events]


def test_the_table_shows_the_read_before_the_other_write_and_the_write_after():
    """The lost update, as the table tells it: P1 reads count, P2 runs its whole put, then P1
    writes its stale count back."""
    out = explore("unsynchronized", "lost-update")
    rows = trace.steps(out.events)
    counts = [(r.thread, r.accesses) for r in rows if r.where.startswith("frontier/storage.py")
              and "count" in r.source]
    first = counts[0][0]
    assert counts[0][1] == ["read RingBuffer.count"]
    assert counts[-1] == (first, ["write RingBuffer.count"])
    assert any(t != first for t, _ in counts[1:-1])


def _ev(tid, line):
    return SimpleNamespace(thread_id=tid, lineno=line)


def test_the_pending_step_of_a_preempted_thread_runs_when_it_resumes():
    events = [_ev(0, 1), _ev(0, 2), _ev(1, 10), _ev(1, 11), _ev(0, 3)]
    order = [(e.thread_id, e.lineno) for e in trace._executed_order(events)]
    assert order == [(0, 1), (1, 10), (0, 2), (0, 3), (1, 11)]


@pytest.mark.parametrize(("name", "scenario"),
                         [("unsynchronized", "lost-update"), ("tanenbaum", "lost-wakeup")])
def test_replay_prints_the_same_bytes_and_fails_the_same_way(name, scenario, tmp_path, capsys):
    assert main(["explore", name, "--scenario", scenario, "--out", str(tmp_path)]) == 1
    shown = capsys.readouterr().out
    path = tmp_path / f"explore-{name}-{scenario}.json"
    saved = json.loads(path.read_text())
    assert shown.startswith(saved["report"])
    assert "broken: " in saved["report"]
    for _ in range(2):
        assert main(["explore", name, "--replay", str(path)]) == 1
        captured = capsys.readouterr()
        assert captured.out == saved["report"]
        assert captured.err == ""


def test_holds_prints_the_count_and_the_bound(capsys):
    assert main(["explore", "monitor", "--scenario", "lost-update", "--bound", "2"]) == 0
    out = capsys.readouterr().out
    assert "holds over" in out and "interleavings (preemption bound 2)" in out


def test_json_output(capsys):
    assert main(["explore", "coarse", "--scenario", "lost-update", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["holds"] is True and rows[0]["interleavings"] >= 1


@pytest.mark.parametrize("argv", [
    ["explore", "no-such-frontier"],
    ["explore", "monitor", "--scenario", "no-such-scenario"],
    ["explore", "heap", "--scenario", "lost-wakeup-full"],
    ["explore", "monitor", "--bound", "-1"],
    ["explore", "monitor", "--out", "/no/such/dir"],
])
def test_bad_input_is_one_line_and_exit_2(argv, capsys):
    with pytest.raises(SystemExit) if "-1" in argv else _nothing():
        status = main(argv)
        assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err


def test_a_bad_trace_file_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "t.json"
    bad.write_text("{not json")
    assert main(["explore", "monitor", "--replay", str(bad)]) == 2
    other = tmp_path / "o.json"
    trace.save(other, frontier="tanenbaum", scenario="lost-wakeup", bound=1, schedule=[0],
               report_text="x")
    assert main(["explore", "monitor", "--replay", str(other)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all("error" in line for line in err)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_every_scenario_applies_where_it_should():
    assert "order" in scenarios.applicable("heap")
    assert "order" not in scenarios.applicable("monitor")
    assert "lost-wakeup-full" in scenarios.applicable("semaphore")
    assert "lost-wakeup-full" not in scenarios.applicable("fine")
