"""Frontier micro-benchmark: put+get pairs per second for every frontier at 1-16 threads.

Each of T threads repeats ``put(url); get()`` for a fixed slice of time; the lab counts the
pairs and divides by the time. ``queue.Queue`` (a monitor written in Python, bounded at the same
capacity) and ``queue.SimpleQueue`` (written in C) run in the same process, in the same way, as
the baselines every ratio is taken against. Each thread calls a frontier through a handle of its
own where the frontier offers one (:func:`frontier.thread_handle`). A third baseline shares
nothing: each thread puts and gets on a ``collections.deque`` of its own. Its 2-thread/1-thread
ratio is the most any shared frontier can scale *on this machine* (two virtual cores need not
give twice the work: the host decides), so the lab prints it beside the frontiers' ratios.

Every cell also records the CPU seconds its threads used (``time.thread_time``) and the cyclic
garbage collections that ran during it (``gc.callbacks``). Pairs per CPU second do not depend
on how much of the machine other work leaves to the lab: at 2 threads over 1 they say how much
each operation's cost grew because a second thread shares the structure (cache lines moving
between cores, retried CAS, a collector stopping both threads), where pairs per second say
how much the lab gained on this machine at this moment.

What to look for: with the GIL on, threads add no parallelism to pure-Python work, so no line
rises with T; the spread between lines is the cost of each synchronization in interpreter
instructions, and the lock/CAS counters show where contention begins. With a free-threaded
Python (3.13t and later) on a machine with more cores the lines can rise, and contention shows
up as lock waits and CAS retries instead.
"""

from __future__ import annotations

import gc
import os
import queue
import statistics
import threading
import time
from collections import deque
from collections.abc import Iterable
from pathlib import Path

import frontier
from crawlers.args import MAX_CAPACITY, MAX_THREADS, at_most, positive_int
from frontier.contract import check_capacity
from labs import plotstyle
from labs.harness import (
    Lab,
    LabError,
    add_frontier_flag,
    frontier_names,
    gil_enabled,
    script,
    series,
    summarize,
)
from labs.lockfree_handles import HANDLED, NO_TAIL, Handle
from labs.plotstyle import runs_note

THREADS = (1, 2, 4, 8, 16)
QUICK_THREADS = (1, 2, 4)
ROUNDS = 5  # rounds of every cell, quick or not (--rounds): medians of 5, min-max shown
JUDGED_ROUNDS = 5  # the "medians of at least 5 runs": fewer rounds are not judged
MAX_ROUNDS = 1000  # --rounds at most (a full round is about 25 s here)
PRIVATE = "deque per thread"  # nothing shared: the machine's own ceiling
BASELINES = ("queue.Queue", "queue.SimpleQueue", PRIVATE)
# lockfree as it was before its dequeued nodes were unlinked, measured beside it when lockfree
# runs: what a stale reference keeping the list alive costs (the book's free-threaded chapter)
RETAINING = "lockfree, nodes left linked"
# and lockfree with nothing shared: one queue per thread (what the same code costs when no other
# thread touches its objects)
PER_THREAD = "lockfree, one per thread"
# what lockfree's algorithm cannot do without: every put and get reads the shared head or tail
# (an AtomicRef) and CASes it. Each thread reads one shared AtomicRef (put and get both read
# it), or reads and CASes it (put CASes, get reads): the least a queue shared through atomic
# references pays for sharing, whatever else its code does
SHARED_READ = "one AtomicRef, read by all"
SHARED_CAS = "one AtomicRef, CAS by all"
# and lockfree's own steps with what its algorithm does not share taken out of the hot path
# (labs.lockfree_handles): through a handle of each thread's own, and with get reading no tail
# measured beside lockfree whenever it runs, never judged
LOCKFREE_DIAGNOSTICS = (RETAINING, PER_THREAD, HANDLED, NO_TAIL, SHARED_READ, SHARED_CAS)
# Every frontier is called through the calling thread's handle (frontier.thread_handle) where
# it offers one, as sliced does. Beside sliced: sliced with every call on the shared frontier
# object instead (as it was called before it had handles), and what calling a shared object
# costs a frontier whose threads share nothing else: both threads call the methods of one
# shared object, which finds the calling thread's own deque through a threading.local and does
# the least work there. Measured beside sliced, never judged
SLICED_SHARED = "sliced, every call on the shared frontier"
SHARED_OBJECT = "one shared object, a deque per thread behind it"
SLICED_DIAGNOSTICS = (SLICED_SHARED, SHARED_OBJECT)
_BATCH = 64  # pairs between two looks at the clock


def _make(name: str, capacity: int):
    if name in (PRIVATE, PER_THREAD):
        return None  # each worker makes its own
    if name == "queue.Queue":
        return queue.Queue(maxsize=capacity)
    if name == "queue.SimpleQueue":
        return queue.SimpleQueue()
    if name in (RETAINING, HANDLED, NO_TAIL):
        from frontier.lockfree import LockFreeFrontier

        return LockFreeFrontier(unlink=name != RETAINING)
    if name == SHARED_OBJECT:
        return _SharedObject()
    if name == SLICED_SHARED:
        return frontier.create("sliced")
    if name in (SHARED_READ, SHARED_CAS):
        from cereggii import AtomicRef

        return AtomicRef(object())  # the value read is shared too, as a queue's node is
    cls = frontier.info(name)
    return frontier.create(name, capacity=capacity) if cls.bounded else frontier.create(name)


def measure(name: str, threads: int, seconds: float, capacity: int = 30,
            native_ids: list[int] | None = None) -> dict:
    """Run ``threads`` threads of put+get pairs on a fresh ``name`` for ``seconds``.

    Returns pairs per second and the frontier's counters. Gets are bounded by a timeout, so a
    racy frontier that loses URLs cannot hang the lab; such gets count as ``timeouts``. Each
    worker thread appends its native thread id to ``native_ids`` if given (for a profiler).
    """
    q = _make(name, capacity)
    racy = name in frontier.names() and not frontier.info(name).correct
    start = threading.Barrier(threads + 1)
    stop = threading.Event()
    counts = [0] * threads
    timeouts = [0] * threads
    cpu = [0.0] * threads  # each thread's own CPU seconds (no other thread writes them)
    errors: list[BaseException] = []  # a frontier that raised in a thread (a student's)

    def worker(i: int) -> None:
        if native_ids is not None:
            native_ids.append(threading.get_native_id())
        try:
            pairs(i)
        except BaseException as exc:
            errors.append(exc)
            stop.set()
            start.abort()  # a thread that failed before the start must not hold the others
            if hasattr(q, "close"):
                q.close()  # wakes the threads blocked in get()

    def pairs(i: int) -> None:
        if name == PER_THREAD:  # a lockfree queue of this thread's own
            from frontier.lockfree import LockFreeFrontier

            own = LockFreeFrontier()
            put, get = own.put, own.get
        elif q is None:  # PRIVATE: a deque of this thread's own
            mine = deque()
            put, get = mine.append, mine.popleft
        elif name in (SHARED_READ, SHARED_CAS):  # one shared AtomicRef, nothing else
            put, get = _shared_ref(q, cas=name == SHARED_CAS)
        elif name in (HANDLED, NO_TAIL):  # lockfree's steps, the shared part read once
            own = Handle(q, read_tail=name == HANDLED)
            put, get = own.put, own.get
        elif name == SLICED_SHARED:  # no handle: each call on the object both threads hold
            put, get = q.put, q.get
        else:  # through this thread's own handle, where the frontier has one
            own = frontier.thread_handle(q)
            put, get = own.put, own.get
        # Closure variables copied into locals: on a free-threaded 3.13 reading a closure cell
        # locks the cell, and two threads reading the same one in this loop contend on it (it
        # once halved every frontier's 2-thread rate here).
        stopped, is_racy, batch = stop.is_set, racy, _BATCH
        url = f"http://site{i}.test/page"
        done = lost = 0
        start.wait()
        cpu0 = time.thread_time()
        while True:  # one batch at least: a thread the machine starts late still takes part
            for _ in range(batch):
                put(url)
                if is_racy:
                    try:
                        get(timeout=0.05)
                    except (frontier.Empty, queue.Empty):
                        lost += 1
                else:
                    get()
            done += batch
            if stopped():
                break
        cpu[i] = time.thread_time() - cpu0
        counts[i] = done
        timeouts[i] = lost

    collections = [0]

    def counted(phase: str, info: dict) -> None:  # runs in whichever thread collects
        if phase == "stop":
            collections[0] += 1

    pool = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(threads)]
    for t in pool:
        t.start()
    gc.callbacks.append(counted)
    try:
        t0 = time.perf_counter()  # before the release: every CPU second a worker counts from
        try:
            start.wait()          # the barrier on lies inside the wall time measured here
            time.sleep(seconds)
        except threading.BrokenBarrierError:  # a worker failed before the start: see errors
            pass
        stop.set()
        for t in pool:
            t.join(timeout=30)
        elapsed = time.perf_counter() - t0
    finally:
        gc.callbacks.remove(counted)
    if errors:
        raise errors[0]  # with its traceback: crawlab says where, in one line
    if any(t.is_alive() for t in pool):
        raise RuntimeError(f"{name} with {threads} threads did not finish: a deadlock?")
    row = {
        "frontier": name,
        "threads": threads,
        "pairs": sum(counts),
        "seconds": round(elapsed, 4),
        "pairs_per_second": sum(counts) / elapsed,
        "cpu_seconds": round(sum(cpu), 4),
        "pairs_per_cpu_second": sum(counts) / sum(cpu) if sum(cpu) > 0 else 0.0,
        "gc_collections": collections[0],
        "timeouts": sum(timeouts),
    }
    if hasattr(q, "stats"):
        row.update(q.stats.as_dict())
    return row


class _SharedObject:
    """:data:`SHARED_OBJECT`: ``put`` and ``get`` on one object both threads hold, each
    reaching a deque of the calling thread's own through a ``threading.local``, as
    :class:`frontier.sliced.SlicedFrontier` reaches a thread's home slice. Nothing but the
    object (and its ``threading.local``) is shared. Thread-safe; O(1)."""

    def __init__(self) -> None:
        self._local = threading.local()

    def put(self, url: str) -> None:
        try:
            mine = self._local.urls
        except AttributeError:
            mine = self._local.urls = deque()
        mine.append(url)

    def get(self) -> str:
        return self._local.urls.popleft()


def _shared_ref(ref, cas: bool):
    """``put`` and ``get`` for the shared-reference baselines, made by the thread that calls
    them (their defaults hold bound methods of its own, not a closure cell both threads read):
    ``get`` reads ``ref``; ``put`` reads it, and with ``cas`` compares-and-sets it to the value
    it read (which always succeeds: the cost is the write to a line the other core holds)."""
    read = ref.get

    if cas:
        def put(url, _read=read, _cas=ref.compare_and_set):
            value = _read()
            _cas(value, value)
    else:
        def put(url, _read=read):
            _read()
    return put, read


def _flags(parser) -> None:
    add_frontier_flag(parser, "all the registered ones")
    parser.add_argument("--from-csv", type=Path, metavar="CSV",
                        help="measure nothing: draw the figure again from this lab's CSV "
                        "(stamped with its machine, date and commit)")
    parser.add_argument(
        "--capacity", type=at_most(positive_int, MAX_CAPACITY), default=frontier.DEFAULT_CAPACITY,
        help=f"capacity of the bounded frontiers and of queue.Queue (default: 30, at most "
             f"{MAX_CAPACITY})",
    )
    parser.add_argument(
        "--threads", type=at_most(positive_int, MAX_THREADS), action="append", metavar="T",
        help=f"thread counts to measure (repeatable; default: {' '.join(map(str, THREADS))};"
             f" at most {MAX_THREADS})",
    )
    parser.add_argument(
        "--rounds", type=at_most(positive_int, MAX_ROUNDS), default=ROUNDS, metavar="N",
        help=f"rounds of every cell, the medians' sample (default {ROUNDS}, at most "
             f"{MAX_ROUNDS}); fewer than {JUDGED_ROUNDS} are measured but not judged",
    )


def _title(args) -> str:
    """The header's first line, with the thread counts this run measures."""
    counts = sorted(set(args.threads or (QUICK_THREADS if args.quick else THREADS)))
    return ("Frontier micro-benchmark: put+get pairs per second for every frontier at "
            f"{', '.join(map(str, counts))} thread{'s' if counts != [1] else ''}")


def main(argv=None) -> int:
    lab = Lab("frontier-bench", __doc__, argv, extra=_flags, title=_title)
    if lab.args.from_csv is not None:
        return _replot(lab, lab.args.from_csv)
    chosen = frontier_names(lab.args.frontier, frontier.names())
    capacity = check_capacity(lab.args.capacity)
    thread_counts = sorted(set(lab.args.threads or (QUICK_THREADS if lab.quick else THREADS)))
    seconds = 0.12 if lab.quick else 0.5
    repeats = lab.args.rounds
    names = [*BASELINES, *chosen]
    if "lockfree" in chosen:
        names[names.index("lockfree") + 1:names.index("lockfree") + 1] = LOCKFREE_DIAGNOSTICS
    if "sliced" in chosen:
        names[names.index("sliced") + 1:names.index("sliced") + 1] = SLICED_DIAGNOSTICS
    rows = []
    for rep in range(repeats):  # rounds outermost, so slow drift of the machine hits all alike
        # one name's thread counts back to back: its 2-thread over 1-thread ratio comes from
        # one short stretch of the machine's time, as does the ceiling's
        cells = {(name, t): measure(name, t, seconds, capacity)
                 for name in names for t in thread_counts}
        for (_, t), r in cells.items():
            base = cells["queue.Queue", t]["pairs_per_second"]  # same round, same thread count
            rows.append({**r, "repeat": rep, "ratio_vs_queue": r["pairs_per_second"] / base})
    lab.write_csv(rows)

    print(f"\npairs/s and ratio against queue.Queue in the same round: median of {repeats} "
          f"rounds of {seconds} s (min-max of the ratio)")
    rate = {(s["frontier"], s["threads"]): s
            for s in summarize(rows, ["frontier", "threads"], "pairs_per_second")}
    table = []
    for s in summarize(rows, ["frontier", "threads"], "ratio_vs_queue"):
        line = next((t for t in table if t["frontier"] == s["frontier"]), None)
        if line is None:
            line = {"frontier": s["frontier"]}
            table.append(line)
        line[f"T={s['threads']}"] = (
            f"{rate[(s['frontier'], s['threads'])]['median']:,.0f} ({s['median']:.2f}x, "
            f"{s['min']:.2f}-{s['max']:.2f})")
    lab.table(table)
    scaling(lab, rows, names)

    _plot(lab, rows, names)
    return lab.done()


#: The rows of the figure: frontiers that work alike side by side, each row with
#: ``queue.Queue`` (the reference of the ratios) drawn again; a frontier in none of them (a
#: student's) gets a row of its own kinds.
GROUPS = (
    ("baselines and no lock", (*BASELINES, SHARED_READ, SHARED_CAS, "unsynchronized")),
    ("a lock or semaphores", ("semaphore", "monitor", "tanenbaum", "coarse", "fine")),
    ("lock-free", ("lockfree", RETAINING, PER_THREAD, HANDLED, NO_TAIL, "optimistic", "sliced",
                   SLICED_SHARED, SHARED_OBJECT)),
    ("priority queues", ("heap", "cbt", "quickheap")),
)


def panels(names: list[str]) -> list[tuple[str, list[str]]]:
    """The figure's rows: ``(title, names)`` for each group of :data:`GROUPS` with a frontier
    measured, ``queue.Queue`` first in each; the names in no group last, as ``other``."""
    grouped = {n for _, group in GROUPS for n in group}
    rows = [(title, [n for n in names if n in group]) for title, group in GROUPS]
    rows.append(("other frontiers", [n for n in names if n not in grouped]))
    ref = ["queue.Queue"] if "queue.Queue" in names else []
    return [(title, [*ref, *(n for n in mine if n not in ref)]) for title, mine in rows
            if [n for n in mine if n not in ref]]


def _rate(v: float) -> str:
    for div, unit in ((1e6, "M"), (1e3, "k")):
        if v >= div:
            return f"{v / div:g}{unit}"
    return f"{v:g}"


def _log_ticks(ax, fmt) -> None:
    """Label a log y axis with plain numbers: at 1, 1.5, 2, 3, 4, 5, 6 and 8 of each decade
    when it spans a decade or less, at 1, 2 and 5 up to two decades, at the decades beyond."""
    import math

    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    low, high = ax.get_ylim()
    span = math.log10(high / low)
    subs = (1, 1.5, 2, 3, 4, 5, 6, 8) if span <= 1 else (1, 2, 5) if span <= 2 else (1,)
    ticks = [m * 10 ** e for e in range(math.floor(math.log10(low)),
                                        math.ceil(math.log10(high)) + 1) for m in subs]
    ax.yaxis.set_major_locator(FixedLocator([t for t in ticks if low <= t <= high]))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt(v)))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_ylim(low, high)


def _plot(lab: Lab, rows: list[dict], names: list[str]) -> None:
    """Small multiples: a row per group of frontiers (:func:`panels`), rates on the left and
    ratios against queue.Queue on the right, each row's y axis its own (``queue.Queue`` in
    every row is the common reference); each row's legend beside it."""
    thread_counts = sorted({r["threads"] for r in rows})
    repeats = sorted({len({r["repeat"] for r in rows if r["frontier"] == n}) for n in names})
    groups = panels(names)
    fig, _ = lab.figure("", "threads", "")  # the house style, then a grid of our own
    fig.clf()
    fig.set_size_inches(plotstyle.MAX_WIDTH, 1.3 + 2.2 * len(groups))
    axes = fig.subplots(len(groups), 2, squeeze=False, sharex=True)
    fig.suptitle(f"Frontier put+get throughput ({runs_note(repeats)})")
    for (title, mine), (ax, rax) in zip(groups, axes):
        series(ax, rows, "threads", "pairs_per_second", "frontier", order=mine)
        series(rax, rows, "threads", "ratio_vs_queue", "frontier", order=mine)
        ax.set_ylabel("pairs/s (log)")
        rax.set_ylabel("vs queue.Queue (log)")
        ax.set_title(f"{title}: pairs/s", fontsize=9)
        rax.set_title(f"{title}: vs queue.Queue, same round", fontsize=9)
        rax.axhline(1.0, color="0.3", linewidth=0.8)
        rax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)  # beside
        for a in (ax, rax):
            a.set_xscale("log", base=2)
            a.set_yscale("log")
            a.set_xticks(thread_counts, [str(t) for t in thread_counts])
        _log_ticks(ax, _rate)
        _log_ticks(rax, lambda v: f"{v:g}")  # ratios as 0.5, 2, 10: not 5x10^-1
    for a in axes[-1]:
        a.set_xlabel("threads")
    lab.save(fig)


def _replot(lab: Lab, path: Path) -> int:
    """Draw the figure again from ``path`` (this lab's CSV), stamped with its machine."""
    rows = lab.read_csv(path)
    if not rows or "ratio_vs_queue" not in rows[0]:
        raise LabError(f"--from-csv: {path} is not a frontier-bench CSV")
    lab.stamp_from({k: str(v) for k, v in rows[0].items()})
    _plot(lab, rows, list(dict.fromkeys(r["frontier"] for r in rows)))
    return lab.done()


# The goals (not a paper's) for 2 threads over 1 without the GIL: on a quiet day here
# (GOALS, read by the side-by-side lab) and as a share of the machine's ceiling measured in the
# same run (CEILING_GOALS, which scaling() judges). A frontier with one lock around everything
# should gain nothing: below 1.0x (SINGLE_LOCK_GOAL).
GOALS = {"sliced": 1.8, "lockfree": 1.4}
CEILING_GOALS = {"lockfree": 0.74, "sliced": 0.95}
SINGLE_LOCK_GOAL = 1.0
BUSY = 1.6  # a ceiling below this at 2 threads: the machine was too busy to judge
STARVED = 1.1  # a ceiling above this share of min(2, cores): more than the cores can give
UNEVEN = 1.1  # the ceiling's CPU efficiency above this: its 2-thread cells did more per CPU
# second than its 1-thread cells (the host ran the cores at different speeds)
SHORT = 0.9  # the ceiling's 1-thread cells had fewer CPUs than this: less than a core


def single_lock(name: str) -> bool:
    """Whether ``name`` is a registered frontier that puts one lock around every operation."""
    from frontier.locked import LockedFrontier

    return name in frontier.names() and issubclass(frontier.info(name), LockedFrontier)


def verdict(name: str, median: float, of_ceiling: float, ceiling: float | None,
            gil: bool, cores: int, rounds: int = ROUNDS,
            ceiling_cpu: float = float("nan"), ceiling_cpus_1t: float = float("nan")) -> str:
    """The computed verdict on one frontier's 2-thread over 1-thread ratio (empty: no goal),
    from the medians of ``rounds`` rounds. ``ceiling_cpu`` (the ceiling's CPU efficiency) and
    ``ceiling_cpus_1t`` (the CPUs its 1-thread cells had) tell why a ceiling is above the
    cores (NaN: not measured)."""
    goal = CEILING_GOALS.get(name)
    diagnostic = (*BASELINES, *LOCKFREE_DIAGNOSTICS, *SLICED_DIAGNOSTICS)
    if gil or name in diagnostic or (goal is None and not single_lock(name)):
        return ""
    if ceiling is None:
        return "no ceiling measured: cannot judge"
    if rounds < JUDGED_ROUNDS:
        return (f"cannot judge: {rounds} round{'s' if rounds != 1 else ''}, fewer than "
                f"{JUDGED_ROUNDS}")
    if ceiling < BUSY:
        return f"too busy to judge (ceiling {ceiling:.2f}x < {BUSY}x)"
    if ceiling > STARVED * min(2, cores):
        return (f"too busy to judge (ceiling {ceiling:.2f}x: more than {min(2, cores)} cores "
                f"give; {_why_above(ceiling_cpu, ceiling_cpus_1t)})")
    if goal is not None:
        return (f"{'meets' if of_ceiling >= goal else 'is below'} the goal of {goal} of the "
                f"ceiling")
    return (f"{'below' if median < SINGLE_LOCK_GOAL else 'not below'} "
            f"{SINGLE_LOCK_GOAL}x, as a single lock should be")


def _why_above(ceiling_cpu: float, cpus_1t: float) -> str:
    """What the ceiling's CPU counts show about a ceiling above the cores: each cause they
    show, or that they cannot tell."""
    if ceiling_cpu != ceiling_cpu or cpus_1t != cpus_1t:  # NaN: not measured
        return "its CPU counts were not measured: cannot tell why"
    causes = []
    if cpus_1t < SHORT:
        causes.append(f"its 1-thread cells had {cpus_1t:.2f} of a core")
    if ceiling_cpu > UNEVEN:
        causes.append(f"per CPU second its 2-thread cells did {ceiling_cpu:.2f}x the work of its "
                      "1-thread cells: the host ran the cores at different speeds")
    return ("; ".join(causes) or f"its CPU counts show neither cause (1-thread cells "
            f"{cpus_1t:.2f} of a core, CPU efficiency {ceiling_cpu:.2f})")


def _median(values: Iterable[float]) -> float:
    """The median of ``values``; NaN when there are none (not measured)."""
    values = list(values)
    return statistics.median(values) if values else float("nan")


def _cpus(cells: Iterable[dict]) -> float:
    """The median CPUs the threads of ``cells`` had between them (CPU seconds over wall
    seconds; 1.0: one free core); NaN for no cells."""
    return _median(r["cpu_seconds"] / r["seconds"] for r in cells)


def scaling(lab: Lab, rows: list[dict], names: list[str]) -> list[dict]:
    """Each frontier's rate at 2 threads over its rate at 1 thread, per round (so both come
    from the same stretch of the machine's time), median and min-max over the rounds; the same
    ratio over the ceiling's of that round (``of_ceiling``); pairs per CPU second at 2 threads
    over 1 (``cpu_efficiency``: 1.0 when a second thread makes no operation dearer); the
    collections per second at 2 threads. Written to ``scaling.csv`` with a computed verdict
    (:func:`verdict`) and printed."""
    cell = {(r["frontier"], r["threads"], r["repeat"]): r for r in rows}
    rounds = sorted({r["repeat"] for r in rows})

    def per_round(name: str, key: str) -> dict[int, float]:
        return {k: cell[name, 2, k][key] / cell[name, 1, k][key] for k in rounds
                if (name, 1, k) in cell and (name, 2, k) in cell and cell[name, 1, k][key]}

    ceil = per_round(PRIVATE, "pairs_per_second")
    ceiling = statistics.median(ceil.values()) if ceil else None
    ceiling_cpu = _median(per_round(PRIVATE, "pairs_per_cpu_second").values())
    cpus_1t = _cpus(cell[PRIVATE, 1, k] for k in rounds if (PRIVATE, 1, k) in cell)
    gil, cores = gil_enabled(), os.cpu_count() or 1
    out = []
    for name in names:
        ratio = per_round(name, "pairs_per_second")
        if not ratio:
            continue
        share = [x / ceil[k] for k, x in ratio.items() if k in ceil]
        two = [cell[name, 2, k] for k in ratio]
        row = {"frontier": name, "threads": "2 over 1", "rounds": len(ratio),
               "median": statistics.median(ratio.values()), "min": min(ratio.values()),
               "max": max(ratio.values()),
               "of_ceiling": _median(share),
               "of_ceiling_min": min(share, default=float("nan")),
               "of_ceiling_max": max(share, default=float("nan")),
               "cpu_efficiency": _median(per_round(name, "pairs_per_cpu_second").values()),
               "gc_per_second_2t": sum(r["gc_collections"] for r in two)
               / sum(r["seconds"] for r in two),
               # CPUs the two threads had between them (2.0: two free cores)
               "cpus_2t": _cpus(two),
               "ceiling": ceiling if ceiling is not None else float("nan")}
        row["verdict"] = verdict(name, row["median"], row["of_ceiling"], ceiling, gil, cores,
                                 len(ratio.keys() & ceil.keys()), ceiling_cpu, cpus_1t)
        out.append(row)
    if not out:
        return out
    lab.write_csv(out, "scaling")
    print(f"\n2 threads over 1 thread, per round (median, min-max), GIL {'on' if gil else 'off'}"
          + (f"; the machine's ceiling ({PRIVATE}, nothing shared): {ceiling:.2f}x"
             if ceiling is not None else "") + f"; 1-min load {lab.machine['load_1min']}"
          + "".join(f"; its 2 threads had {r['cpus_2t']:.2f} CPUs between them"
                    for r in out if r["frontier"] == PRIVATE) + ":")
    for r in out:
        print(f"  {r['frontier']:<18} {r['median']:.2f}x ({r['min']:.2f}-{r['max']:.2f}), "
              f"{r['of_ceiling']:.2f} of the ceiling, CPU efficiency {r['cpu_efficiency']:.2f}, "
              f"{r['gc_per_second_2t']:.0f} collections/s at 2 threads"
              + (f"  {r['verdict']}" if r["verdict"] else ""))
    for why in (shared_floor(out), shared_object(out)):
        if why:
            print(f"  {why}")
    return out


def shared_floor(rows: list[dict]) -> str | None:
    """When ``lockfree`` is judged below its goal and the shared-reference baselines were
    measured in the same run: what one shared AtomicRef alone reaches, as a share of the
    ceiling (``None`` otherwise). Every lockfree operation reads and CASes such a reference
    (head or tail); the rest of its work is its own thread's, so the baselines are the cost of
    the part that cannot run in parallel, not a bound on lockfree's share."""
    by = {r["frontier"]: r for r in rows}
    lf, read, cas = by.get("lockfree"), by.get(SHARED_READ), by.get(SHARED_CAS)
    if not (lf and read and cas) or not lf["verdict"].startswith("is below"):
        return None
    return (f"sharing alone: two threads that only read one shared AtomicRef reach "
            f"{read['of_ceiling']:.2f} of the ceiling, that read and CAS it "
            f"{cas['of_ceiling']:.2f}; every put and get of lockfree does both, on head or tail")


def shared_object(rows: list[dict]) -> str | None:
    """When ``sliced`` is judged below its goal and its diagnostics were measured in the same
    run: what calls on one shared object reach, as shares of the ceiling (``None`` otherwise):
    ``sliced`` itself with every call on the shared frontier, and the least work there is behind
    a shared object. ``sliced``'s threads call handles of their own, so neither is a bound on
    its share; they say what the handles were for."""
    by = {r["frontier"]: r for r in rows}
    sl, shared, obj = by.get("sliced"), by.get(SLICED_SHARED), by.get(SHARED_OBJECT)
    if not (sl and shared and obj) or not sl["verdict"].startswith("is below"):
        return None
    return (f"calls on a shared object: sliced with every call on the shared frontier reaches "
            f"{shared['of_ceiling']:.2f} of the ceiling, two threads calling one shared object "
            f"whose work is on a deque of each thread's own {obj['of_ceiling']:.2f}; sliced's "
            f"threads call handles of their own instead")


if __name__ == "__main__":
    raise SystemExit(script(main))
