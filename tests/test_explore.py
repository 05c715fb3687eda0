"""crawlab explore: the known bugs are found, a trace replays byte for byte, bad input exits 2.

Needs frontrun (the ``explore`` extra); skipped where it cannot be imported (it has no
free-threaded wheel).
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

pytest.importorskip("frontrun", reason="frontrun (crawlab[explore]) is not installed here")

import frontier  # noqa: E402
import frontier.coarse  # noqa: E402
from crawlers.cli import main  # noqa: E402
from frontier.check import scenarios, trace  # noqa: E402
from frontier.check.explore import explore, replay  # noqa: E402


@pytest.fixture(autouse=True)
def _registry_as_it_was():
    """A class loaded here by its spec (``frontier.check.teaching:IfMonitor``) is registered
    for the run; take it out after the test, so that later modules see only the library's
    frontiers (``test_every_registered_frontier_has_an_explored_test``)."""
    from frontier import userclass
    from frontier.contract import _REGISTRY

    before, loaded = dict(_REGISTRY), dict(userclass._loaded)
    yield
    _REGISTRY.clear()
    _REGISTRY.update(before)
    userclass._loaded.clear()  # and its memory of what it loaded, so a later load registers
    userclass._loaded.update(loaded)


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
    assert "holds over" in out and "within preemption bound 2" in out


def test_json_output(capsys):
    assert main(["explore", "coarse", "--scenario", "lost-update", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["holds"] is True and rows[0]["status"] == "holds"
    assert rows[0]["interleavings"] >= 1


@pytest.mark.parametrize("argv", [
    ["explore", "no-such-frontier"],
    ["explore", "monitor", "--scenario", "no-such-scenario"],
    ["explore", "heap", "--scenario", "lost-wakeup-full"],
    ["explore", "monitor", "--bound", "-1"],
    ["explore", "monitor", "--out", "/no/such/dir"],
    ["explore", "monitor", "--pct", "--random"],
    ["explore", "monitor", "--budget", "-1"],
    ["explore", "monitor", "--max-interleavings", "0"],
    ["explore", "monitor", "--pct", "--depth", "0"],
    # a flag the chosen mode would ignore is refused, never silently dropped
    ["explore", "monitor", "--outcomes", "--pct"],
    ["explore", "monitor", "--outcomes", "--random"],
    ["explore", "monitor", "--depth", "3"],
    ["explore", "monitor", "--random", "--depth", "3"],
    ["explore", "monitor", "--seed", "4"],
    ["explore", "monitor", "--seed", "0"],
    ["explore", "monitor", "--runs", "5"],
    ["explore", "monitor", "--outcomes", "--seed", "4"],
    ["explore", "monitor", "--pct", "--bound", "2"],
    ["explore", "monitor", "--random", "--bound", "0"],
    ["explore", "monitor", "--pct", "--max-interleavings", "5"],
])
def test_bad_input_is_one_line_and_exit_2(argv, capsys):
    try:
        status = main(argv)
    except SystemExit as exc:  # a flag argparse refuses
        status = exc.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err


@pytest.mark.parametrize("flag", [["--bound", "1"], ["--pct"], ["--budget", "5"], ["--json"],
                                  ["--max-interleavings", "3"]])
def test_replay_refuses_a_flag_it_would_ignore(flag, tmp_path, capsys):
    """A replay runs the trace file's one interleaving: a search flag beside it is an error
    naming the flag, not dropped (the same file replays without it)."""
    assert main(["explore", "unsynchronized", "--scenario", "lost-update",
                 "--out", str(tmp_path)]) == 1
    path = str(tmp_path / "explore-unsynchronized-lost-update.json")
    assert main(["explore", "unsynchronized", "--replay", path]) == 1  # replays, breaks again
    capsys.readouterr()
    assert main(["explore", "unsynchronized", "--replay", path, *flag]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and flag[0] in err and "--replay" in err


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


def test_an_object_freed_during_a_run_does_not_hand_its_dpor_name_to_the_next():
    """frontrun names the objects a run touches by ``id``; the explorer holds each named object
    until the interleaving ends, so a list freed mid-run cannot pass its name (and its
    accesses' dependencies) to a new list at the same address, as happened by the allocator's
    chance and made ``sliced``'s counts vary from run to run."""
    from frontrun._opcode_observer import StableObjectIds

    from frontier.check.explore import _kept_ids

    names = _kept_ids(StableObjectIds)()
    first = [1]
    named, address = names.get(first), id(first)
    del first
    second = [2]  # CPython's free list hands the same address out again, if it is free
    assert names.get(second) != named or id(second) != address
    names.reset_for_execution()
    assert names.get(second) == 0  # a new interleaving names from 0 again


def _interleavings(pair: tuple[str, str]) -> int:
    return explore(*pair).interleavings


@pytest.mark.slow
@pytest.mark.timeout(900)  # two whole explorations of sliced's largest space at once
def test_the_same_commit_explores_the_same_interleavings_every_run():
    """``sliced`` builds lists inside each get (its scan), freed as the call returns: its
    lost-wakeup count was 1168 or 1169 from one process to the next. Two processes at once
    (the load of frontrun's threads on the allocator differs) now agree."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    pair = ("sliced", "lost-wakeup")
    with ProcessPoolExecutor(2, mp_context=get_context("fork")) as pool:
        counts = list(pool.map(_interleavings, [pair] * 2))
    assert counts[0] == counts[1], counts


def test_every_scenario_applies_where_it_should():
    assert "order" in scenarios.applicable("heap")
    assert "order" not in scenarios.applicable("monitor")
    assert "lost-wakeup-full" in scenarios.applicable("semaphore")
    assert "lost-wakeup-full" not in scenarios.applicable("fine")


# --------------------------------------------------------------------------------------------
# Three outcomes: a search cut short is inconclusive, never "holds"

NOISE = 60  # shared writes after the racy store: the lost update is found at interleaving 122


class _LateLostUpdate(frontier.coarse.CoarseFrontier):
    """A lost update that depth-first DPOR reaches late: ``put`` copies, appends and stores a
    shared list without the lock (P1 reads, P2 stores, P1 stores its stale copy: P2's URL is
    lost), then makes ``NOISE`` racing writes. The search reverses those later races first, one
    interleaving or two each, before it reaches the preemption between the read and the store.
    Drained by ``get_many`` (the lost-update scenario's check)."""

    name = "test-late-lost-update"
    bounded = False

    def __init__(self) -> None:
        super().__init__()
        self.inbox: list[str] = []
        self.noise = [0] * NOISE

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        seen = list(self.inbox)
        seen.append(url)
        self.inbox = seen
        for i in range(NOISE):
            self.noise[i] += 1

    def get_many(self, r: int) -> list[str]:
        out, self.inbox = self.inbox[:r], self.inbox[r:]
        return out


@pytest.fixture
def late(monkeypatch):
    monkeypatch.setitem(frontier.contract._REGISTRY, _LateLostUpdate.name, _LateLostUpdate)
    return _LateLostUpdate.name


def test_a_bug_past_the_first_hundred_interleavings_is_found_by_the_whole_bound(late):
    out = explore(late, "lost-update")
    assert out.status == "violated" and not out.holds
    assert out.interleavings > 100
    assert "never came out (lost)" in out.broken


@pytest.mark.parametrize("cut", [55, 100])
def test_a_search_cut_before_the_bug_is_inconclusive_never_holds(late, cut):
    out = explore(late, "lost-update", max_interleavings=cut)
    assert out.status == "inconclusive"
    assert out.holds is False and out.broken is None
    assert out.interleavings == cut
    assert f"max_interleavings={cut}" in out.reason


def test_a_cut_that_falls_where_the_space_ends_is_holds():
    whole = explore("monitor", "lost-update")
    assert whole.status == "holds"
    assert explore("monitor", "lost-update", max_interleavings=whole.interleavings).holds
    short = explore("monitor", "lost-update", max_interleavings=whole.interleavings - 1)
    assert short.status == "inconclusive"


def test_a_spent_budget_is_inconclusive():
    out = explore("monitor", "close", budget=0)
    assert out.status == "inconclusive" and not out.holds
    assert out.interleavings == 1 and "budget of 0 s" in out.reason


def test_frontrun_inconclusive_verdict_is_inconclusive(monkeypatch):
    """frontrun's own "could not conclude" (``property_holds is None``: a run timed out, a
    budget expired before any run) is reported as inconclusive, with frontrun's reason."""
    import frontrun
    from frontrun.common import InterleavingResult

    def gave_up(**kwargs):
        return InterleavingResult(property_holds=None, num_explored=3,
                                  inconclusive_reason="DPOR execution 3 timed out")

    monkeypatch.setattr(frontrun, "explore", gave_up)
    out = explore("monitor", "lost-update")
    assert out.status == "inconclusive" and not out.holds
    assert out.reason == "DPOR execution 3 timed out" and out.interleavings == 3


def test_an_outcome_cannot_say_holds_and_inconclusive_at_once():
    from frontier.check.explore import Outcome

    with pytest.raises(ValueError):
        Outcome("monitor", "close", 1, True, 5, status="inconclusive")
    assert Outcome("monitor", "close", 1, False, 5).status == "inconclusive"


def test_the_command_exits_3_and_never_prints_holds_when_cut(capsys):
    argv = ["explore", "monitor", "--scenario", "close", "--max-interleavings", "5"]
    assert main(argv) == 3
    out = capsys.readouterr().out
    assert "INCONCLUSIVE" in out and "holds over" not in out
    assert main([*argv, "--json"]) == 3
    row = json.loads(capsys.readouterr().out)[0]
    assert row["status"] == "inconclusive" and row["holds"] is False


def test_the_command_budget_stops_every_scenario(capsys):
    assert main(["explore", "monitor", "--budget", "0", "--json"]) == 3
    rows = json.loads(capsys.readouterr().out)
    assert [r["scenario"] for r in rows] == scenarios.applicable("monitor")
    assert all(r["status"] == "inconclusive" for r in rows)


def test_the_progress_meter_speaks_after_its_delay():
    import io

    from crawlers.cli.progress import Meter
    from frontier.check.explore import Progress

    buf = io.StringIO()
    m = Meter("monitor, scenario close", 400, buf, after=2.0)
    m(Progress(10, 1.0))
    assert buf.getvalue() == ""
    m(Progress(100, 2.5))
    line = buf.getvalue()
    assert "100 interleavings" in line and "40/s" in line and "25% of the 400" in line
    m(Progress(500, 9.0))
    assert "past the 400 recorded" in buf.getvalue().splitlines()[-1]


def _quick_meter(monkeypatch):
    """The command's progress meter, speaking from the first step (not after 2 s)."""
    from crawlers.cli import progress

    class Quick(progress.Meter):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **{**kwargs, "after": 0.0})
            self.every = 0.0

    monkeypatch.setattr(progress, "Meter", Quick)


@pytest.mark.parametrize("mode", ["--pct", "--random", "--outcomes"])
def test_every_mode_honours_the_budget_and_never_says_holds(mode, capsys):
    """--pct, --random and --outcomes stop at --budget as the DPOR search does: inconclusive,
    exit 3, the budget named; a spent budget runs one run (or interleaving) per scenario, not
    the 300 runs or the whole space."""
    import time

    argv = ["explore", "monitor", "--scenario", "lost-wakeup", mode, "--budget", "0"]
    start = time.monotonic()
    assert main(argv) == 3
    assert time.monotonic() - start < 30
    out = capsys.readouterr().out
    assert "INCONCLUSIVE" in out and "budget of 0 s" in out and "holds over" not in out
    assert main([*argv, "--json"]) == 3
    row = json.loads(capsys.readouterr().out)[0]
    if mode == "--outcomes":
        assert row["interleavings"] == 1 and "budget of 0 s" in row["cut"]
    else:
        assert row["status"] == "inconclusive" and row["runs"] == 1
        assert "budget of 0 s" in row["reason"]


def test_the_budget_is_shared_by_the_scenarios_of_every_mode(capsys):
    assert main(["explore", "monitor", "--outcomes", "--budget", "0", "--json"]) == 3
    rows = json.loads(capsys.readouterr().out)
    assert [r["scenario"] for r in rows] == scenarios.applicable("monitor")
    assert all(r["cut"] and r["interleavings"] == 1 for r in rows)


@pytest.mark.parametrize(("mode", "unit"), [
    (["--pct", "--runs", "3"], "runs"), (["--random", "--runs", "3"], "runs"),
    (["--outcomes"], "interleavings")])
def test_every_mode_shows_the_progress_meter(mode, unit, monkeypatch, capsys):
    _quick_meter(monkeypatch)
    main(["explore", "monitor", "--scenario", "lost-update", *mode])
    err = capsys.readouterr().err
    assert "monitor, scenario lost-update" in err and f" {unit}, " in err, err
    if unit == "runs":
        assert "of the 3 asked for" in err or "past the 3 asked for" in err, err


# --------------------------------------------------------------------------------------------
# The shortest counterexample, focused on the shared state


def test_the_lost_update_prints_in_at_most_ten_focused_steps():
    out = explore("unsynchronized", "lost-update", shortest=True)
    rows = trace.focus(trace.steps(out.events, out.keys))
    shown = [r for r in rows if isinstance(r, trace.Step)]
    assert 4 <= len(shown) <= 10
    # every step shown touches the ring buffer's shared count or tail; the rest is folded
    assert all(any(a in ("RingBuffer.count", "RingBuffer.tail") for a in
                   (x.split(" ", 1)[1] for x in r.accesses)) for r in shown)
    folds = [r for r in rows if isinstance(r, trace.Fold)]
    assert folds and sum(f.count for f in folds) + len(shown) == len(trace.steps(out.events))
    assert "steps on its own data" in out.report()
    assert "P1: 4 steps on its own data (1-4)" in out.report()  # the per-thread stats set-up
    assert "\n|  step |" not in out.report() and "\n| step |" in out.report()


def test_per_thread_state_is_not_shared_state():
    """Each thread's FrontierStats has the same type and attributes: only the object labels
    tell them apart (two threads writing `puts` of two objects is no sharing)."""
    out = explore("unsynchronized", "lost-update")
    keep = trace.shared(trace.steps(out.events, out.keys))
    assert {attr for _, attr in keep} == {"count", "tail"}


def test_the_full_view_keeps_every_step():
    out = explore("unsynchronized", "lost-update")
    full = out.report(full=True)
    assert "own data" not in full
    assert full.count("frontier/storage.py:50") == 3  # P1 reads, P2 reads and writes, P1 writes


@pytest.mark.parametrize(("name", "scenario", "fewest"),
                         [("unsynchronized", "lost-update", 1), ("tanenbaum", "lost-wakeup", 0)])
def test_the_shortest_counterexample_has_the_fewest_preemptions(name, scenario, fewest):
    from frontier.check.explore import shortest_counterexample

    out = shortest_counterexample(name, scenario, 2)
    assert out.preemptions == fewest and out.broken
    first = explore(name, scenario, 2)
    assert len(out.schedule) <= len(first.schedule)
    again = replay(name, scenario, out.schedule)
    assert again.broken == out.broken


def test_replay_full_prints_the_full_table_again(tmp_path, capsys):
    assert main(["explore", "unsynchronized", "--scenario", "lost-update", "--full",
                 "--out", str(tmp_path)]) == 1
    shown = capsys.readouterr().out
    path = tmp_path / "explore-unsynchronized-lost-update.json"
    saved = json.loads(path.read_text())
    assert shown.startswith(saved["full"]) and saved["full"] != saved["report"]
    assert main(["explore", "unsynchronized", "--replay", str(path), "--full"]) == 1
    captured = capsys.readouterr()
    assert captured.out == saved["full"] and captured.err == ""


# --------------------------------------------------------------------------------------------
# PCT: randomized priority-change scheduling, and its guarantee


def test_the_pct_bound_and_the_runs_for_95_percent():
    import math

    from frontier.check import pct

    assert pct.lower_bound(2, 100, 1) == 0.5
    assert pct.lower_bound(3, 10, 3) == 1 / 300
    p = pct.lower_bound(2, 120, 2)
    r = pct.runs_for(p)
    assert 1 - (1 - p) ** r >= 0.95 > 1 - (1 - p) ** (r - 1)
    # frontrun's 10 000-step cap at depth 5: p below the float spacing near 1 (1 - p == 1)
    tiny = pct.lower_bound(3, 10_000, 5)
    assert 1 - tiny == 1.0
    assert pct.runs_for(tiny) == pytest.approx(-math.log(0.05) / tiny, rel=1e-9)


def test_pct_needs_the_priority_change_to_lose_the_update():
    """The lost update has depth 2: P1 must be overtaken between its read and its write of
    count, one priority change. Without it (depth 1) a run never breaks; with it, some run in
    100 does, and its seed gives the very same run again, which replays."""
    from frontier.check import pct

    held, _ = pct.search("unsynchronized", "lost-update", depth=1, runs=12)
    assert len(held) == 12 and not any(r.broken for r in held)
    runs, k = pct.search("unsynchronized", "lost-update", depth=2, runs=100)
    found = runs[-1]
    assert found.broken and "lost" in found.broken and k > 50
    again = pct.run("unsynchronized", "lost-update", depth=2, k=k, seed=found.seed)
    assert again.schedule == found.schedule and again.broken == found.broken
    assert replay("unsynchronized", "lost-update", found.schedule).broken == found.broken


def test_the_command_prints_the_guarantee_and_the_seed(tmp_path, capsys):
    argv = ["explore", "unsynchronized", "--scenario", "lost-update", "--pct", "--out",
            str(tmp_path)]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "1/(n*k^(d-1))" in out and "runs give 95%" in out
    seed = int(out.split("(seed ")[1].split(";")[0])
    assert main([*argv, "--seed", str(seed), "--runs", "1", "--json"]) == 1
    row = json.loads(capsys.readouterr().out)[0]
    assert row["seed"] == seed and row["runs"] == 1 and row["status"] == "violated"
    assert main(["explore", "unsynchronized", "--replay", row["trace"]]) == 1


def test_the_replay_hint_names_a_file_loaded_class_by_the_spec_to_type(
        registry, tmp_path, monkeypatch, capsys):
    """A violation of a class given as FILE.py:CLASS: the hint and the trace file name it by
    its absolute spec (what crawlab loads from anywhere), never by its registered name, and
    the replay from another directory, typed as the hint says, breaks the same way."""
    from frontier.userclass import spec_of

    work = tmp_path / "work"
    work.mkdir()
    (work / "mine.py").write_text(
        "from frontier.unsynchronized import UnsynchronizedFrontier\n\n\n"
        "class Mine(UnsynchronizedFrontier):\n    name = 'mine-unsynchronized'\n")
    monkeypatch.chdir(work)
    assert main(["explore", "mine.py:Mine", "--scenario", "lost-update"]) == 1
    out = capsys.readouterr().out
    spec = spec_of("mine-unsynchronized")
    assert spec == f"{work / 'mine.py'}:Mine"
    hint = out.split("replay it with: ")[1].strip()
    assert hint.startswith(f"crawlab explore {spec} --replay "), hint
    path = work / hint.split(" --replay ")[1]
    assert trace.load(path, spec)["frontier"] == spec
    monkeypatch.chdir(tmp_path)
    assert main(["explore", spec, "--replay", str(path)]) == 1
    assert "never came out (lost)" in capsys.readouterr().out


KNOWN_BUGS = [("unsynchronized", "lost-update", "lost"), ("unsynchronized", "counter", "lost"),
              ("unsynchronized", "lost-wakeup-full", "lost"),
              ("unsynchronized", "close", "still in the frontier"),
              ("tanenbaum", "lost-wakeup", "lost wake-up"),
              ("tanenbaum", "lost-wakeup-full", "lost wake-up"),
              # the play page's level 4: the monitor waiting with "if"; its bug needs depth 3
              ("frontier.check.teaching:IfMonitor", "lost-wakeup", "lost")]


@pytest.mark.parametrize(("name", "scenario", "broken"), KNOWN_BUGS)
def test_pct_finds_each_known_bug_within_the_default_runs(name, scenario, broken, tmp_path,
                                                           capsys):
    """What ``crawlab explore --pct`` does with no flags but the scenario: the depth of the
    scenario (3 for close) and the default runs from seed 0 find the bug, print the guarantee
    at that depth, and the run replays."""
    from frontier.check import pct

    argv = ["explore", name, "--scenario", scenario, "--pct", "--json", "--out", str(tmp_path)]
    assert main(argv) == 1
    row = json.loads(capsys.readouterr().out)[0]
    assert row["status"] == "violated" and broken in row["broken"], row
    assert row["depth"] == pct.default_depth(scenario, name) and row["runs"] <= 300
    n, k = row["threads"], row["k"]
    assert row["lower_bound"] == pct.lower_bound(n, k, row["depth"])
    assert row["runs_for_95"] == pct.runs_for(row["lower_bound"])
    assert main(["explore", name, "--replay", row["trace"]]) == 1
    assert broken in capsys.readouterr().out


def test_the_if_monitor_needs_depth_3():
    """The if-monitor's lost wake-up needs two priority changes: at depth 2 the first 300
    runs from seed 0 never break it (why DEPTHS says 3 for the pair, and --pct's default
    finds it: test_pct_finds_each_known_bug_within_the_default_runs)."""
    from frontier.check import pct
    from frontier.check.teaching import IF_MONITOR

    assert pct.default_depth("lost-wakeup", IF_MONITOR) == 3
    assert pct.default_depth("lost-wakeup", "monitor") == pct.default_depth("lost-wakeup") == 2
    runs, _ = pct.search(IF_MONITOR, "lost-wakeup", depth=2, runs=300)
    assert len(runs) == 300 and not any(r.broken for r in runs)


def test_the_close_race_needs_depth_3():
    """The put racing close needs two priority changes: at depth 2 the first 300 runs from
    seed 0 never break unsynchronized's close scenario (why DEPTHS says 3 for it)."""
    from frontier.check import pct

    runs, _ = pct.search("unsynchronized", "close", depth=2, runs=300)
    assert len(runs) == 300 and not any(r.broken for r in runs)


def _wrong_solutions(tmp_path):
    import sys
    from pathlib import Path

    docs = str(Path(__file__).resolve().parent.parent / "docs")
    sys.path.insert(0, docs)
    try:
        import explore_pct
    finally:
        sys.path.remove(docs)
    return explore_pct.wrong_solutions(tmp_path)


def test_pct_finds_each_wrong_exercise_solution_the_grader_explores(tmp_path):
    """The wrong solutions of exercise 1 that the grader catches by exploring (the table of
    docs/explore_pct.py): PCT at the scenario's depth finds each within 300 runs from seed 0."""
    from frontier.check import pct
    from frontier.contract import _REGISTRY

    bugs = _wrong_solutions(tmp_path)
    try:
        for label, name, sc in bugs:
            runs, _ = pct.search(name, sc, depth=pct.default_depth(sc), runs=300, seed=0)
            assert runs[-1].broken, f"{label}: {len(runs)} runs held"
    finally:
        for _, name, _ in bugs:
            _REGISTRY.pop(name, None)


def test_a_randomized_search_that_finds_nothing_is_inconclusive(capsys):
    assert main(["explore", "monitor", "--scenario", "lost-update", "--random", "--runs", "3"]) == 3
    assert "INCONCLUSIVE" in capsys.readouterr().out


def test_a_thread_woken_from_its_sleep_is_runnable_again_under_pct():
    """sliced polls, sleeping between looks. frontrun's replay wakes a sleeper without saying
    so; PCT kept the woken thread "blocked", so it ran only when every other thread was
    blocked, and seed 369 of this scenario chose a thread waiting for the lock the woken one
    held, for ever: the run never finished (frontrun's 10 000-step cap, then its timeout)."""
    from frontier.check import pct

    k = pct.steps_of("sliced", "lost-wakeup")
    run = pct.run("sliced", "lost-wakeup", depth=2, k=k, seed=369)
    assert run.unfinished is None and run.broken is None
    assert run.steps < 10_000


SPINS = """from frontier.monitor import MonitorFrontier


class Spin(MonitorFrontier):
    name = "spins-for-ever"

    def put(self, url, priority=0.0, timeout=None):
        while True:
            pass
"""


def test_a_pct_run_that_never_finishes_is_inconclusive_not_held(tmp_path):
    """A put that never returns: the run that measures k cannot finish, and the search says
    so (exit 3, the reason, no traceback). In a process of its own: Python cannot stop the
    spinning thread, which would slow every test after it."""
    import subprocess
    import sys

    (tmp_path / "spin.py").write_text(SPINS)
    argv = ["explore", f"{tmp_path / 'spin.py'}:Spin", "--scenario", "lost-update", "--pct",
            "--json", "--out", str(tmp_path)]
    done = subprocess.run([sys.executable, "-m", "crawlers", *argv], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 3 and "Traceback" not in done.stderr, done.stderr
    row = json.loads(done.stdout)[0]
    assert row["status"] == "inconclusive" and row["runs"] == 0
    assert "did not finish" in row["reason"] and "timed out" in row["reason"]


def test_a_pct_search_stops_at_a_run_that_did_not_finish(monkeypatch, capsys):
    """A run frontrun gives up on (seed 2 here) ends the search: what ran before it held, that
    run neither held nor broke, and the command says INCONCLUSIVE with its seed."""
    from frontier.check import pct

    real = pct.run

    def run(*args, seed, **kwargs):
        done = real(*args, seed=seed, **kwargs)
        if seed == 2:
            done.unfinished = "frontrun stopped the run after 9 steps (timed out)"
        return done

    monkeypatch.setattr(pct, "run", run)
    runs, _ = pct.search("monitor", "lost-update", runs=5)
    assert [r.seed for r in runs] == [0, 1, 2] and not any(r.broken for r in runs)
    argv = ["explore", "monitor", "--scenario", "lost-update", "--pct", "--runs", "5"]
    assert main(argv) == 3
    out = capsys.readouterr().out
    assert "INCONCLUSIVE: run 3 (seed 2) did not finish: frontrun stopped" in out
    assert "seeds 0..1 held" in out and "5 runs" not in out


# --------------------------------------------------------------------------------------------
# Outcome tables


def test_the_outcome_table_of_the_lost_update(capsys):
    from frontier.check import outcomes

    rows, runs, cut = outcomes.tabulate("unsynchronized", "lost-update")
    assert cut is None and sum(r.count for r in rows) == runs
    by = {r.state: r for r in rows}
    assert by["URLs out: {u1, u2}"].verdict == "ACCEPTABLE"
    assert by["URLs out: {u1}"].verdict == "FORBIDDEN" and "u2" in by["URLs out: {u1}"].broken
    assert by["URLs out: {u2}"].verdict == "FORBIDDEN"
    assert main(["explore", "unsynchronized", "--scenario", "lost-update", "--outcomes"]) == 1
    assert "FORBIDDEN   URLs out: {u1}" in capsys.readouterr().out


def test_a_correct_frontier_has_only_acceptable_outcomes(capsys):
    assert main(["explore", "monitor", "--scenario", "lost-update", "--outcomes",
                 "--json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert [o["verdict"] for o in row["outcomes"]] == ["ACCEPTABLE"]
    assert row["outcomes"][0]["count"] == row["interleavings"]


class _CountOutside(frontier.coarse.CoarseFrontier):
    """``coarse`` counting its puts after it lets the lock go: two puts can count one."""

    name = "test-count-outside"

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        self._lock()
        try:
            self._storage.push(url, priority)
            self._size += 1
            self._added(1)
        finally:
            self._mutex.release()
        self._stats.puts += 1


def test_a_counter_updated_outside_a_lock_has_a_forbidden_outcome(monkeypatch):
    """The end state shows the count, and a state reached both ways is two rows: the lost
    count is a FORBIDDEN row beside the ACCEPTABLE ones, not merged into them."""
    from frontier.check import outcomes

    monkeypatch.setitem(frontier.contract._REGISTRY, _CountOutside.name, _CountOutside)
    rows, runs, cut = outcomes.tabulate(_CountOutside.name, "counter")
    assert cut is None and sum(r.count for r in rows) == runs
    by = {(r.state, r.verdict): r for r in rows}
    assert by["URLs out: {u1, u2}; stats.puts = 2", "ACCEPTABLE"].count >= 1
    lost = by["URLs out: {u1, u2}; stats.puts = 1", "FORBIDDEN"]
    assert lost.count >= 1 and "a count was lost" in lost.broken
    rows, _, _ = outcomes.tabulate("coarse", "counter")
    assert [(r.state, r.verdict) for r in rows] == [
        ("URLs out: {u1, u2}; stats.puts = 2", "ACCEPTABLE")]


@pytest.mark.parametrize("mode, module, engine", [
    ([], "frontier.check.explore", "explore"),
    (["--pct"], "frontier.check.pct", "search"),
    (["--outcomes"], "frontier.check.outcomes", "tabulate")])
def test_ctrl_c_in_json_mode_keeps_the_scenarios_finished(mode, module, engine, monkeypatch,
                                                          capsys):
    """--json prints its rows at the end: Ctrl-C during the second scenario printed nothing,
    losing the first's finished result. Now the finished row and an "interrupted" row for
    the cut scenario are printed, and the command still ends interrupted (130)."""
    import importlib

    where = importlib.import_module(module)
    real, calls = getattr(where, engine), []

    def interrupted_the_second_time(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(where, engine, interrupted_the_second_time)
    names = scenarios.applicable("monitor")
    assert main(["explore", "monitor", *mode, "--budget", "0", "--json"]) == 130
    rows = json.loads(capsys.readouterr().out)
    assert [r["scenario"] for r in rows] == names[:2]
    assert rows[0]["frontier"] == "monitor" and rows[0].get("status") != "interrupted"
    assert rows[1]["status"] == "interrupted"
