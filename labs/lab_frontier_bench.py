"""Frontier micro-benchmark: put+get pairs per second for every frontier at 1-16 threads.

Each of T threads repeats ``put(url); get()`` for a fixed slice of time; the lab counts the pairs
and divides by the time. ``queue.Queue`` (a monitor written in Python, bounded at the same
capacity) and ``queue.SimpleQueue`` (written in C) run in the same process, in the same way,
as the baselines every ratio is taken against. A third baseline shares nothing: each thread
puts and gets on a ``collections.deque`` of its own. Its 2-thread/1-thread ratio is the most
any shared frontier can scale *on this machine* (two virtual cores need not give twice the
work: the host decides), so the lab prints it beside the frontiers' ratios.

What to look for: with the GIL on, threads add no parallelism to pure-Python work, so no line
rises with T; the spread between lines is the cost of each synchronization in interpreter
instructions, and the lock/CAS counters show where contention begins. With a free-threaded
Python (3.13t and later) on a machine with more cores the lines can rise, and contention shows
up as lock waits and CAS retries instead.
"""

from __future__ import annotations

import queue
import statistics
import threading
import time
from collections import deque
from pathlib import Path

import frontier
from frontier.contract import check_capacity
from labs.harness import (
    Lab,
    LabError,
    add_frontier_flag,
    frontier_names,
    gil_enabled,
    series,
    summarize,
)
from labs.plotstyle import runs_note

THREADS = (1, 2, 4, 8, 16)
PRIVATE = "deque per thread"  # nothing shared: the machine's own ceiling
BASELINES = ("queue.Queue", "queue.SimpleQueue", PRIVATE)
_BATCH = 64  # pairs between two looks at the clock


def _make(name: str, capacity: int):
    if name == PRIVATE:
        return None  # each worker makes its own
    if name == "queue.Queue":
        return queue.Queue(maxsize=capacity)
    if name == "queue.SimpleQueue":
        return queue.SimpleQueue()
    cls = frontier.info(name)
    return frontier.create(name, capacity=capacity) if cls.bounded else frontier.create(name)


def measure(name: str, threads: int, seconds: float, capacity: int = 30) -> dict:
    """Run ``threads`` threads of put+get pairs on a fresh ``name`` for ``seconds``.

    Returns pairs per second and the frontier's counters. Gets are bounded by a timeout, so a
    racy frontier that loses URLs cannot hang the lab; such gets count as ``timeouts``.
    """
    q = _make(name, capacity)
    racy = name in frontier.names() and not frontier.info(name).correct
    start = threading.Barrier(threads + 1)
    stop = threading.Event()
    counts = [0] * threads
    timeouts = [0] * threads
    errors: list[BaseException] = []  # a frontier that raised in a thread (a student's)

    def worker(i: int) -> None:
        try:
            pairs(i)
        except BaseException as exc:
            errors.append(exc)
            stop.set()
            if hasattr(q, "close"):
                q.close()  # wakes the threads blocked in get()

    def pairs(i: int) -> None:
        if q is None:  # PRIVATE: a deque of this thread's own
            mine = deque()
            put, get = mine.append, mine.popleft
        else:
            put, get = q.put, q.get
        # Closure variables copied into locals: on a free-threaded 3.13 reading a closure cell
        # locks the cell, and two threads reading the same one in this loop contend on it (it
        # once halved every frontier's 2-thread rate here).
        stopped, is_racy, batch = stop.is_set, racy, _BATCH
        url = f"http://site{i}.test/page"
        done = lost = 0
        start.wait()
        while not stopped():
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
        counts[i] = done
        timeouts[i] = lost

    pool = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(threads)]
    for t in pool:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for t in pool:
        t.join(timeout=30)
    elapsed = time.perf_counter() - t0
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
        "timeouts": sum(timeouts),
    }
    if hasattr(q, "stats"):
        row.update(q.stats.as_dict())
    return row


def _flags(parser) -> None:
    add_frontier_flag(parser, "all the registered ones")
    parser.add_argument("--from-csv", type=Path, metavar="CSV",
                        help="measure nothing: draw the figure again from this lab's CSV "
                        "(stamped with its machine, date and commit)")
    parser.add_argument(
        "--capacity", type=int, default=frontier.DEFAULT_CAPACITY,
        help="capacity of the bounded frontiers and of queue.Queue (default: 30)",
    )
    parser.add_argument(
        "--threads", type=int, action="append", metavar="T",
        help=f"thread counts to measure (repeatable; default: {' '.join(map(str, THREADS))})",
    )


def main(argv=None) -> int:
    lab = Lab("frontier-bench", __doc__, argv, extra=_flags)
    if lab.args.from_csv is not None:
        return _replot(lab, lab.args.from_csv)
    chosen = frontier_names(lab.args.frontier, frontier.names())
    capacity = check_capacity(lab.args.capacity)
    thread_counts = sorted(set(lab.args.threads or THREADS))
    if thread_counts[0] < 1:
        raise ValueError(f"threads must be at least 1, got {thread_counts[0]}")
    seconds = 0.4 if lab.quick else 1.0
    repeats = 2 if lab.quick else 3
    names = [*BASELINES, *chosen]
    rows = []
    for rep in range(repeats):  # rounds outermost, so slow drift of the machine hits all alike
        for threads in thread_counts:
            cell = [measure(name, threads, seconds, capacity) for name in names]
            base = cell[0]["pairs_per_second"]  # queue.Queue, same round, same thread count
            rows += [{**r, "repeat": rep, "ratio_vs_queue": r["pairs_per_second"] / base}
                     for r in cell]
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


def _plot(lab: Lab, rows: list[dict], names: list[str]) -> None:
    """Rates and ratios against queue.Queue, one line per frontier, legend beside the axes."""
    thread_counts = sorted({r["threads"] for r in rows})
    repeats = sorted({len({r["repeat"] for r in rows if r["frontier"] == n}) for n in names})
    fig, (ax, rax) = lab.figure(
        f"Frontier put+get throughput ({runs_note(repeats)})", "threads",
        "put+get pairs per second (log)", ncols=2, size=(10.5, 4.8))
    rax.set_ylabel("ratio against queue.Queue, same round (log)")
    series(ax, rows, "threads", "pairs_per_second", "frontier", order=names)
    series(rax, rows, "threads", "ratio_vs_queue", "frontier", order=names)
    for a in (ax, rax):
        a.set_xscale("log", base=2)
        a.set_yscale("log")
        a.set_xticks(thread_counts, [str(t) for t in thread_counts])
    rax.axhline(1.0, color="0.3", linewidth=0.8)
    rax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)  # beside
    lab.save(fig)


def _replot(lab: Lab, path: Path) -> int:
    """Draw the figure again from ``path`` (this lab's CSV), stamped with its machine."""
    rows = lab.read_csv(path)
    if not rows or "ratio_vs_queue" not in rows[0]:
        raise LabError(f"--from-csv: {path} is not a frontier-bench CSV")
    lab.stamp_from({k: str(v) for k, v in rows[0].items()})
    _plot(lab, rows, list(dict.fromkeys(r["frontier"] for r in rows)))
    return lab.done()


# The goals (not a paper's) for 2 threads over 1 without the GIL, checked by scaling().
GOALS = {"sliced": 1.8, "lockfree": 1.4}


def scaling(lab: Lab, rows: list[dict], names: list[str]) -> list[dict]:
    """Each frontier's rate at 2 threads over its rate at 1 thread, per round (so both come
    from the same stretch of the machine's time), median and min-max over the rounds; written
    to ``scaling.csv``. Without the GIL, prints a verdict computed against :data:`GOALS`."""
    rate = {(r["frontier"], r["threads"], r["repeat"]): r["pairs_per_second"] for r in rows}
    out = []
    for name in names:
        per_round = [rate[name, 2, k] / rate[name, 1, k] for (n, t, k) in rate
                     if n == name and t == 1 and (name, 2, k) in rate]
        if per_round:
            out.append({"frontier": name, "threads": "2 over 1", "rounds": len(per_round),
                        "median": statistics.median(per_round), "min": min(per_round),
                        "max": max(per_round)})
    if not out:
        return out
    lab.write_csv(out, "scaling")
    gil = gil_enabled()
    ceiling = next((r["median"] for r in out if r["frontier"] == PRIVATE), None)
    print(f"\n2 threads over 1 thread, per round (median, min-max), GIL {'on' if gil else 'off'}"
          + (f"; the machine's ceiling ({PRIVATE}, nothing shared): {ceiling:.2f}x"
             if ceiling is not None else "") + ":")
    for r in out:
        goal = GOALS.get(r["frontier"])
        verdict = ""
        if goal is not None and not gil:
            verdict = (f"  {'meets' if r['median'] >= goal else 'is below'} the goal of "
                       f"{goal}x (an issue's goal, without the GIL)")
        print(f"  {r['frontier']:<18} {r['median']:.2f}x ({r['min']:.2f}-{r['max']:.2f})"
              f"{verdict}")
    return out


if __name__ == "__main__":
    raise SystemExit(main())
