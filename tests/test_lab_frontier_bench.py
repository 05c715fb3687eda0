"""frontier-bench: the nothing-shared baseline runs like a frontier, and the 2-thread scaling
table prints it as the machine's ceiling beside the frontiers' ratios, judges each against its
goal as a share of that ceiling, and refuses to judge when the ceiling says the machine was
too busy."""

from __future__ import annotations

import csv
import threading

import pytest

from labs import lab_frontier_bench as fb
from labs.harness import Lab


def test_a_deque_per_thread_is_measured_like_a_frontier():
    row = fb.measure(fb.PRIVATE, 2, 0.05)
    assert row["frontier"] == fb.PRIVATE and row["pairs"] > 0 and row["timeouts"] == 0
    assert row["cpu_seconds"] > 0 and row["pairs_per_cpu_second"] >= row["pairs_per_second"] / 2
    assert row["gc_collections"] >= 0


def test_lockfree_is_measured_beside_its_retaining_self_and_one_per_thread():
    row = fb.measure(fb.RETAINING, 2, 0.05)
    assert row["pairs"] > 0 and row["puts"] == row["gets"] == row["pairs"]
    row = fb.measure(fb.PER_THREAD, 2, 0.05)
    assert row["pairs"] > 0 and row["timeouts"] == 0 and "puts" not in row  # no shared stats


@pytest.mark.parametrize("name", [fb.HANDLED, fb.NO_TAIL])
def test_lockfree_through_a_handle_is_the_same_queue(name):
    """The handle diagnostics run lockfree's steps on a shared LockFreeFrontier: every pair's
    put and get is counted in the frontier's own stats, none is lost, and the list is in shape
    afterwards (the tail on the last node, though NO_TAIL's gets let it fall behind)."""
    row = fb.measure(name, 2, 0.05)
    assert row["pairs"] > 0 and row["timeouts"] == 0
    assert row["puts"] == row["gets"] == row["pairs"]


@pytest.mark.parametrize("read_tail", [True, False])
def test_a_lockfree_handle_hands_out_every_url_once_in_order(read_tail):
    """Two threads put distinct URLs and take as many through handles of their own: each URL
    comes out exactly once, each putter's URLs in its order (FIFO), and the frontier's
    invariant holds when they are done; closing through the frontier stops the handles' puts."""
    from frontier import Closed
    from frontier.lockfree import LockFreeFrontier
    from labs.lockfree_handles import Handle

    q, n = LockFreeFrontier(), 20000
    start = threading.Barrier(2)
    taken: list[list[str]] = [[], []]

    def work(i: int) -> None:
        h = Handle(q, read_tail=read_tail)
        start.wait(timeout=10)
        for k in range(n):
            h.put(f"{i}/{k}")
            taken[i].append(url := h.get(timeout=1))  # a lost URL: None after a second
            if url is None:
                return

    pool = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(2)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in pool)
    got = taken[0] + taken[1]
    assert sorted(got) == sorted(f"{i}/{k}" for i in range(2) for k in range(n))
    for seq in taken:  # what one thread took from each putter comes in that putter's order
        for i in range(2):
            ks = [int(u.split("/")[1]) for u in seq if u.startswith(f"{i}/")]
            assert ks == sorted(ks)
    q._check()
    assert q.stats.puts == q.stats.gets == 2 * n
    q.close()
    with pytest.raises(Closed):
        Handle(q, read_tail=read_tail).put("late")


def test_a_put_moves_a_tail_that_fell_behind_the_head():
    """A get that reads no tail can take the node a putter linked before that putter moved the
    tail (here: linked by hand, the putter paused), leaving the tail on a node out of the list;
    the next put moves the tail to the head and links after the last node."""
    from frontier.lockfree import _OFF_LIST, LockFreeFrontier, _Node
    from labs.lockfree_handles import Handle

    q = LockFreeFrontier()
    h = Handle(q, read_tail=False)
    dummy = q._tail.get()
    dummy.next.set(_Node("a"))  # a put paused between its link and its tail CAS
    q._counters.mine().puts += 1  # (its count, as it will make it)
    assert h.get() == "a"
    assert dummy.next.get() is _OFF_LIST and q._tail.get() is dummy  # fell behind the head
    h.put("b")
    assert h.get() == "b"
    q._check()


@pytest.mark.parametrize("name", [fb.SHARED_READ, fb.SHARED_CAS])
def test_the_shared_reference_baselines_read_and_write_one_atomic_ref(name, monkeypatch):
    """Each thread calls the shared reference's own methods (counted here), the CAS baseline
    a compare-and-set per put that succeeds, the read baseline none."""
    from cereggii import AtomicRef

    calls: dict[tuple[int, str], int] = {}  # (thread, method): each thread counts its own

    def count(method):
        key = (threading.get_ident(), method)
        calls[key] = calls.get(key, 0) + 1  # no other thread writes this key

    class Counted:  # AtomicRef's methods, counted (a C type cannot be patched in place)
        def __init__(self, value):
            self._ref = AtomicRef(value)

        def get(self):
            count("get")
            return self._ref.get()

        def compare_and_set(self, expected, new):
            count("cas")
            assert self._ref.compare_and_set(expected, new)
            return True

    def total(method):
        return sum(n for (_, m), n in calls.items() if m == method)

    shared = []
    monkeypatch.setattr(fb, "_make", lambda n, c: shared.append(Counted(object())) or shared[0])
    row = fb.measure(name, 2, 0.05)
    assert row["pairs"] > 0 and row["timeouts"] == 0 and len(shared) == 1
    assert total("get") == 2 * row["pairs"]  # put and get both read it
    assert total("cas") == (row["pairs"] if name == fb.SHARED_CAS else 0)


@pytest.mark.parametrize("judged, below, meets, diagnostics, goal, told, excuse", [
    ("lockfree", 0.95, 1.6, [(fb.SHARED_READ, 90.0, 0.95, 0.5), (fb.SHARED_CAS, 90.0, 0.76, 0.4)],
     0.74, "sharing alone: two threads that only read one shared AtomicRef reach 0.50 of the "
     "ceiling, that read and CAS it 0.40", fb.shared_floor),
    ("sliced", 1.5, 1.85,
     [(fb.SLICED_SHARED, 45.0, 1.1, 0.45), (fb.SHARED_OBJECT, 90.0, 1.2, 0.6)],
     0.95, "calls on a shared object: sliced with every call on the shared frontier reaches "
     "0.58 of the ceiling, two threads calling one shared object whose work is on a deque of "
     "each thread's own 0.63", fb.shared_object),
])
def test_a_frontier_below_its_goal_is_told_what_its_diagnostics_reach(
        tmp_path, capsys, monkeypatch, judged, below, meets, diagnostics, goal, told, excuse):
    """lockfree is told what one shared reference reaches, sliced what the shared object
    reaches; the diagnostics are never judged, and a frontier that meets its goal is told
    nothing."""
    spec = [(fb.PRIVATE, 100.0, 1.9, 1.0), (judged, 50.0, below, 0.5), *diagnostics]
    out = _scaling(tmp_path, _rows(spec), monkeypatch)
    assert out[judged]["verdict"] == f"is below the goal of {goal} of the ceiling"
    assert all(out[name]["verdict"] == "" for name, *_ in diagnostics)
    assert told in capsys.readouterr().out
    spec[1] = (judged, 50.0, meets, 0.9)  # meets its goal: no excuse printed
    assert excuse(list(_scaling(tmp_path, _rows(spec), monkeypatch).values())) is None


@pytest.mark.parametrize("name, through_handles", [("sliced", True), (fb.SLICED_SHARED, False)])
def test_each_thread_calls_sliced_through_its_own_handle(monkeypatch, name, through_handles):
    """``sliced`` is measured through one handle per worker thread, taken before the loop; the
    diagnostic beside it calls the shared frontier, which looks the handle up on every call."""
    from frontier.sliced import SlicedFrontier

    asked: list[int] = []
    real = SlicedFrontier._mine

    def home(self):
        asked.append(threading.get_ident())
        return real(self)

    monkeypatch.setattr(SlicedFrontier, "_mine", home)
    row = fb.measure(name, 2, 0.05)
    assert row["pairs"] > 0 and row["timeouts"] == 0
    assert len(set(asked)) == 2  # each worker thread has its own
    if through_handles:
        assert len(asked) == 2
    else:
        assert len(asked) >= 2 * row["pairs"]  # put and get each look it up


def test_a_frontier_that_fails_before_the_start_is_reported_not_waited_for(monkeypatch):
    """A worker that fails before the starting barrier (here in the frontier's ``handle``)
    breaks the barrier: the cell raises that error at once instead of waiting for a thread
    that will never arrive."""
    class HandleFails:
        def handle(self):
            raise TypeError("no handle for this request")

        def put(self, url):
            pass

        def get(self):
            return "u"

    monkeypatch.setattr(fb, "_make", lambda n, c: HandleFails())
    outcome: list = []

    def cell():
        try:
            fb.measure("queue.Queue", 2, 0.05)
        except TypeError as exc:
            outcome.append(exc)
    runner = threading.Thread(target=cell, daemon=True)
    runner.start()
    runner.join(timeout=30)
    assert not runner.is_alive(), "the cell waited for a thread that had failed"
    assert outcome and "request" in str(outcome[0])


def test_the_shared_object_baseline_shares_the_object_and_nothing_else(monkeypatch):
    """Both threads call the one object; each thread's URLs stay on a deque of its own, so
    every get returns the URL its own thread put (a shared deque would hand out the other's)."""
    made: list = []
    real = fb._make
    monkeypatch.setattr(fb, "_make", lambda n, c: made.append(real(n, c)) or made[0])
    seen: dict[int, set[str]] = {}
    original_get = fb._SharedObject.get

    def get(self):
        url = original_get(self)
        seen.setdefault(threading.get_ident(), set()).add(url)  # each thread its own key
        return url

    monkeypatch.setattr(fb._SharedObject, "get", get)
    row = fb.measure(fb.SHARED_OBJECT, 2, 0.05)
    assert row["pairs"] > 0 and row["timeouts"] == 0 and len(made) == 1
    assert len(seen) == 2 and all(len(urls) == 1 for urls in seen.values())
    assert len(set().union(*seen.values())) == 2  # two threads, two URLs, never crossed
    shared = fb._SharedObject()  # and, in a fixed order: another thread's URL stays its own
    other = threading.Thread(target=shared.put, args=("theirs",))
    other.start()
    other.join(timeout=10)
    shared.put("mine")
    assert not other.is_alive() and shared.get() == "mine"


def test_a_cell_counts_the_collections_that_ran_during_it(monkeypatch):
    """The collector's callbacks are counted while the cell runs, and removed after it."""
    import gc

    before = list(gc.callbacks)
    real = fb.deque

    class Collecting(real):  # a "frontier" whose every popleft starts a collection
        def popleft(self):
            gc.collect(0)
            return super().popleft()

    monkeypatch.setattr(fb, "deque", Collecting)
    row = fb.measure(fb.PRIVATE, 1, 0.05)
    assert row["gc_collections"] >= row["pairs"] > 0
    assert gc.callbacks == before


def _rows(spec, rounds=fb.JUDGED_ROUNDS):
    """Rows of ``rounds`` rounds: ``spec`` is (name, rate at 1, ratio at 2, cpu efficiency)."""
    return [{"frontier": name, "threads": t, "repeat": k, "seconds": 1.0, "gc_collections": 0,
             "cpu_seconds": 0.5 * t,
             "pairs_per_second": rate * (ratio if t == 2 else 1),
             "pairs_per_cpu_second": rate * (eff if t == 2 else 1)}
            for k in range(rounds) for name, rate, ratio, eff in spec for t in (1, 2)]


def _scaling(tmp_path, rows, monkeypatch, gil=False):
    monkeypatch.setattr(fb, "gil_enabled", lambda: gil)
    monkeypatch.setattr(fb.os, "cpu_count", lambda: 2)
    lab = Lab("frontier-bench", fb.__doc__, ["--out", str(tmp_path), "--no-plot"])
    names = list(dict.fromkeys(r["frontier"] for r in rows))
    return {r["frontier"]: r for r in fb.scaling(lab, rows, names)}


def test_the_scaling_table_prints_the_machines_ceiling(tmp_path, capsys, monkeypatch):
    out = _scaling(tmp_path, _rows([(fb.PRIVATE, 100.0, 1.9, 1.0), ("monitor", 80.0, 0.7, 0.9),
                                    ("lockfree", 50.0, 1.5, 0.98), ("sliced", 60.0, 1.7, 1.0)]),
                   monkeypatch)
    assert out[fb.PRIVATE]["median"] == pytest.approx(1.9)
    assert out["lockfree"]["of_ceiling"] == pytest.approx(1.5 / 1.9)
    assert out["lockfree"]["cpu_efficiency"] == pytest.approx(0.98)
    assert out["lockfree"]["verdict"] == "meets the goal of 0.74 of the ceiling"
    assert out["sliced"]["verdict"] == "is below the goal of 0.95 of the ceiling"  # 0.89
    assert out["monitor"]["verdict"] == "below 1.0x, as a single lock should be"
    assert out[fb.PRIVATE]["verdict"] == "" and out[fb.PRIVATE]["cpus_2t"] == 1.0
    assert f"the machine's ceiling ({fb.PRIVATE}, nothing shared): 1.90x" in \
        capsys.readouterr().out


@pytest.mark.parametrize("ceiling", [1.2, 1.59, 2.5])
def test_a_ceiling_out_of_range_is_too_busy_to_judge(tmp_path, monkeypatch, ceiling):
    """Below 1.6 the machine gave the lab less than two cores; above 2.2 on two cores the
    1-thread cells had less than a core: either way no verdict, whatever the frontiers read."""
    out = _scaling(tmp_path, _rows([(fb.PRIVATE, 100.0, ceiling, 1.0),
                                    ("lockfree", 50.0, ceiling, 1.0),
                                    ("monitor", 80.0, 0.5, 1.0)]), monkeypatch)
    assert out["lockfree"]["verdict"].startswith("too busy to judge")
    assert out["monitor"]["verdict"].startswith("too busy to judge")


def test_no_verdict_with_the_gil(tmp_path, monkeypatch):
    out = _scaling(tmp_path, _rows([(fb.PRIVATE, 100.0, 1.9, 1.0), ("lockfree", 50.0, 1.0, 1.0)]),
                   monkeypatch, gil=True)
    assert out["lockfree"]["verdict"] == ""


def test_the_ceiling_is_taken_round_by_round(tmp_path, monkeypatch):
    """A round where the machine was busy lowers both the ceiling and the frontier: their
    share stays what it is in the quiet rounds."""
    rows = _rows([(fb.PRIVATE, 100.0, 1.9, 1.0), ("lockfree", 50.0, 1.52, 1.0)])
    for r in rows:
        if r["repeat"] == 0 and r["threads"] == 2:
            r["pairs_per_second"] /= 2  # round 0: the second core was taken by someone else
    out = _scaling(tmp_path, rows, monkeypatch)
    assert out["lockfree"]["of_ceiling_min"] == pytest.approx(0.8)
    assert out["lockfree"]["of_ceiling_max"] == pytest.approx(0.8)


def test_fewer_rounds_than_the_medians_need_are_not_judged(tmp_path, monkeypatch):
    """Four rounds of numbers that would meet every goal: no verdict, and it says why."""
    out = _scaling(tmp_path, _rows([(fb.PRIVATE, 100.0, 1.9, 1.0), ("lockfree", 50.0, 1.8, 1.0),
                                    ("monitor", 80.0, 0.5, 1.0)], rounds=fb.JUDGED_ROUNDS - 1),
                   monkeypatch)
    assert out["lockfree"]["verdict"] == "cannot judge: 4 rounds, fewer than 5"
    assert out["monitor"]["verdict"] == "cannot judge: 4 rounds, fewer than 5"


def test_rounds_sets_the_sample_of_every_cell(tmp_path):
    """--rounds N measures every cell N times (the CSV's rows), whatever --quick says."""
    from labs.harness import run_lab

    assert run_lab("frontier-bench", ["--quick", "--no-plot", "--threads", "1", "--rounds", "2",
                                      "--frontier", "monitor", "--out", str(tmp_path)]) == 0
    with open(tmp_path / "frontier-bench" / "frontier-bench.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    cells = {(r["frontier"], r["threads"]) for r in rows}
    assert ("monitor", "1") in cells and len(rows) == 2 * len(cells)
    assert sorted({r["repeat"] for r in rows}) == ["0", "1"]


def test_a_ceiling_above_the_cores_says_which_cells_were_short(tmp_path, monkeypatch):
    """A ceiling of 2.5 on 2 cores: the verdict names each cause the ceiling's own CPU counts
    show (1-thread cells with less than a core; 2-thread cells doing more per CPU second, the
    cores' uneven speed), and says it cannot tell when they were not measured."""
    uneven = ("per CPU second its 2-thread cells did 1.25x the work of its 1-thread cells: "
              "the host ran the cores at different speeds")
    short = "its 1-thread cells had 0.50 of a core"

    def judged(efficiency, core):
        rows = _rows([(fb.PRIVATE, 100.0, 2.5, efficiency), ("lockfree", 50.0, 2.0, 1.0)])
        for r in rows:  # the ceiling's cells had `core` CPUs per thread
            if r["frontier"] == fb.PRIVATE:
                r["cpu_seconds"] = core * r["threads"]
        return _scaling(tmp_path, rows, monkeypatch)["lockfree"]["verdict"]
    assert judged(1.25, 1.0) == (
        f"too busy to judge (ceiling 2.50x: more than 2 cores give; {uneven})")
    assert judged(1.0, 0.5).endswith(f"; {short})")
    assert judged(1.25, 0.5).endswith(f"; {short}; {uneven})")
    assert "neither cause" in judged(1.0, 1.0)
    nan = float("nan")
    assert fb.verdict("lockfree", 2.0, 0.8, 2.5, False, 2, 5, nan, nan).endswith(
        "its CPU counts were not measured: cannot tell why)")


def test_a_thread_the_machine_starts_late_still_takes_part(monkeypatch):
    """A worker that a busy machine runs only after the cell's window has closed (the main
    thread has already set stop) still does one batch: a 2-thread cell never measures fewer
    threads than it says. Here every worker is held until stop is set."""
    import types

    stops: list[threading.Event] = []

    class Stop(threading.Event):
        def __init__(self):
            super().__init__()
            stops.append(self)

    main = threading.current_thread()

    class Late(threading.Barrier):
        def wait(self, timeout=None):
            index = super().wait(timeout)
            if threading.current_thread() is not main:
                assert stops[-1].wait(30), "the cell never closed"  # runs after the window
            return index

    monkeypatch.setattr(fb, "threading", types.SimpleNamespace(
        **{**vars(threading), "Barrier": Late, "Event": Stop}))
    row = fb.measure(fb.PRIVATE, 2, 0.01)
    assert row["pairs"] == 2 * fb._BATCH and row["pairs_per_second"] > 0
