"""Where a frontier's CPU goes when a second thread shares it: perf profiles at 1 and 2 threads.

The micro-benchmark (``crawlab lab frontier-bench``) says *how much* a second thread makes each
put+get pair dearer (its CPU efficiency); this lab says *where*. It runs the benchmark's own
cells (the same loop, :func:`labs.lab_frontier_bench.measure`) for one frontier, at 1 and at 2
threads, each in a fresh interpreter under ``perf record`` (the Linux profiler: it samples which
function each thread is running, about a thousand times a CPU second), and keeps the samples of
the benchmark's worker threads only. A function's CPU per pair is its share of those samples
times the threads' CPU seconds (``time.thread_time``) over the pairs done. The functions whose
CPU per pair grows most from 1 to 2 threads are where the second thread costs: on a
free-threaded 3.13, reading an object that both threads hold writes its reference count
(``AtomicRef_Get``'s increment of the node it returns, ``_Py_DecRefShared``), and an object freed
by the other thread than the one that made it is handed back to its owner (``_Py_brc_*``, biased
reference counting).

Needs ``perf`` (Debian and Ubuntu: the ``linux-perf`` or ``linux-tools`` package) and leave to
sample one's own processes (``/proc/sys/kernel/perf_event_paranoid`` at most 2); without it the
lab says so and stops. Medians over the rounds, min-max shown. Run it on the interpreter whose
threads you want to see: ``PYTHON_GIL=0 crawlab lab ft-profile`` on a free-threaded build.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from crawlers.args import ascii_int
from labs.harness import Lab, LabError, add_frontier_flag, frontier_names, script

ROUNDS, QUICK_ROUNDS = 5, 3
SECONDS, QUICK_SECONDS = 2.0, 1.0  # one cell: the benchmark's loop for this long
FREQUENCY = 999  # samples per CPU second (odd, so it does not beat with a periodic timer)
DEFAULT = ("lockfree", "sliced")  # the shared list of nodes, and a slice per thread
TOP = 10  # functions shown in the table and the figure
PERF_TIMEOUT = 120  # seconds for one perf record or report, beyond any cell
# What the functions that grow at two threads do, for the table (CPython 3.13t and cereggii
# names; a function not listed is shown by name alone), and whether changing reference counts
# is their work (``counting``): the book adds those up.
ROLES = {
    "AtomicRef_Get": ("reads an AtomicRef: increments the count of the object it returns", True),
    "_Py_TryIncrefCompare": ("increments a count only if the object is still alive", True),
    "_Py_DecRefShared": ("decrements the count of an object another thread made", True),
    "_Py_brc_queue_object": ("queues an object for the thread that made it (biased counting)",
                             True),
    "_Py_brc_merge_refcounts": ("the owner merges counts handed back (biased counting)", True),
    "_Py_ExplicitMergeRefcount": ("merges an object's two counts (biased counting)", True),
    "_Py_MergeZeroLocalRefcount": ("merges an object's two counts (biased counting)", True),
    "PyMember_GetOne": ("reads a __slots__ attribute: increments its value's count", True),
    "_PyFrame_ClearLocals": ("drops a finished call's locals: decrements their counts", True),
    "_PyEval_EvalFrameDefault": ("the interpreter loop (it changes the counts of what it loads "
                                 "inline)", False),
    "AtomicRef_CompareAndSet": ("compare-and-set on an AtomicRef", False),
    "PyMember_SetOne": ("writes a __slots__ attribute", False),
    "_PyMutex_LockTimed": ("a lock that two threads want", False),
    "_PyParkingLot_Park": ("a thread parks on a lock", False),
    "take_gil": ("takes the GIL", False),
    "mi_free": ("frees memory", False),
    "_PyObject_MiMalloc": ("allocates memory", False),
}


def _flags(parser) -> None:
    add_frontier_flag(parser, " and ".join(DEFAULT))


def perf_path() -> str:
    """The ``perf`` executable, or :class:`LabError` saying how to get one."""
    path = shutil.which("perf")
    if path is None:
        raise LabError("perf is not installed: this lab samples with perf record (Debian and "
                       "Ubuntu: apt install linux-perf, or linux-tools-$(uname -r))")
    return path


def parse_script(text: str, tids: set[int]) -> dict[str, int]:
    """``{function: samples}`` of the threads ``tids`` from ``perf script -F tid,ip,sym``
    (one sample a line: ``  1807      55b7b3193580 _PyEval_EvalFrameDefault``; a sample with
    no symbol counts as ``[unknown]``). Kernel functions are kept: time in the kernel is time
    too. :class:`ValueError` on a line of another shape."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        parts = line.split(None, 2)
        tid = ascii_int(parts[0]) if len(parts) >= 2 else None
        if tid is None:
            raise ValueError(f"not a perf script line: {line!r}")
        if tid in tids:
            name = parts[2].strip() if len(parts) == 3 else "[unknown]"
            out[name] = out.get(name, 0) + 1
    return out


def cost_per_pair(samples: dict[str, int], cpu_seconds: float, pairs: int) -> dict[str, float]:
    """Nanoseconds of CPU per pair for each function: its share of the samples times the
    threads' CPU seconds over the pairs. The values add up to the CPU per pair."""
    total = sum(samples.values())
    if total == 0 or pairs == 0:
        raise ValueError("no samples or no pairs: nothing to attribute")
    return {f: n / total * cpu_seconds * 1e9 / pairs for f, n in samples.items()}


def _work(spec: str, threads: int, seconds: float) -> None:
    """The cell run under perf (a child process): print the pairs, CPU seconds and the
    native ids of the worker threads as one JSON line. ``spec`` is what ``--frontier`` said
    (a student's ``FILE.py:CLASS`` is loaded again here)."""
    from labs.lab_frontier_bench import measure

    ids: list[int] = []
    row = measure(frontier_names([spec], ())[0], threads, seconds, native_ids=ids)
    print(json.dumps({"pairs": row["pairs"], "cpu_seconds": row["cpu_seconds"], "tids": ids}))


def profile(spec: str, threads: int, seconds: float, perf: str, tmp: Path) -> dict[str, float]:
    """One cell under ``perf record``: ``{function: ns per pair}`` over the worker threads,
    plus ``"(all)"``, the whole CPU per pair. :class:`LabError` if perf fails."""
    data = tmp / f"{threads}.data"
    code = f"from labs.lab_ft_profile import _work; _work({spec!r}, {threads}, {seconds})"
    rec = subprocess.run([perf, "record", "-q", "-F", str(FREQUENCY), "-o", str(data), "--",
                          sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=PERF_TIMEOUT + seconds)
    if rec.returncode != 0:
        why = (rec.stderr.strip().splitlines() or ["no message"])[-1]
        raise LabError(f"perf record failed ({why}); /proc/sys/kernel/perf_event_paranoid "
                       "must be at most 2 to sample one's own processes")
    cell = json.loads(rec.stdout.strip().splitlines()[-1])
    rep = subprocess.run([perf, "script", "-i", str(data), "-F", "tid,ip,sym"],
                         capture_output=True, text=True, timeout=PERF_TIMEOUT)
    if rep.returncode != 0:
        raise LabError(f"perf script failed: {rep.stderr.strip()[-200:]}")
    cost = cost_per_pair(parse_script(rep.stdout, set(cell["tids"])), cell["cpu_seconds"],
                         cell["pairs"])
    cost["(all)"] = cell["cpu_seconds"] * 1e9 / cell["pairs"]
    return cost


def main(argv=None) -> int:
    lab = Lab("ft-profile", __doc__, argv, extra=_flags, replot=True)
    specs = lab.args.frontier or list(DEFAULT)
    names = frontier_names(specs, ())  # a bad name or class: one line, before any work
    rounds = QUICK_ROUNDS if lab.quick else ROUNDS
    seconds = QUICK_SECONDS if lab.quick else SECONDS

    def measure() -> list[dict]:
        perf = perf_path()
        rows = []
        with tempfile.TemporaryDirectory(prefix="ft-profile-") as tmp:
            for rep in range(rounds):
                for spec, name in zip(specs, names):
                    for threads in (1, 2):
                        cost = profile(spec, threads, seconds, perf, Path(tmp))
                        rows += [{"frontier": name, "threads": threads, "repeat": rep,
                                  "function": f, "ns_per_pair": ns} for f, ns in cost.items()]
        return rows

    rows = lab.rows("ft-profile", measure)
    names = list(dict.fromkeys(str(r["frontier"]) for r in rows))
    summary = [s for name in names
               for s in summarize([r for r in rows if r["frontier"] == name])]
    if not lab.args.replot:  # --replot: the committed growth.csv stays as it was measured
        lab.write_csv(summary, "growth")
    for name in names:
        mine = [s for s in summary if s["frontier"] == name]
        # the rounds of the rows (a --replot reads them back: not the flag's count)
        print(f"\n{name}: ns of CPU per put+get pair, median of {mine[0]['rounds']} rounds")
        lab.table([{"function": s["function"], "1 thread": f"{s['ns_1t']:.0f}",
                    "2 threads": f"{s['ns_2t']:.0f} ({s['ns_2t_min']:.0f}-{s['ns_2t_max']:.0f})",
                    "grew by": f"{s['growth_ns']:+.0f}", "what it does": s["role"]}
                   for s in mine[:TOP + 1]])
    _plot(lab, summary, names)
    return lab.done()


def summarize(rows: list[dict]) -> list[dict]:
    """Per function: the median ns per pair at 1 and 2 threads over the rounds (a round with no
    sample of it counts 0), the 2-thread min-max, and the growth (median 2 minus median 1);
    ``(all)`` first, then by growth, largest first."""
    rounds = {t: sorted({int(r["repeat"]) for r in rows if int(r["threads"]) == t})
              for t in (1, 2)}
    cost: dict[tuple[str, int, int], float] = {}
    for r in rows:
        cost[str(r["function"]), int(r["threads"]), int(r["repeat"])] = float(r["ns_per_pair"])
    out = []
    for f in sorted({k[0] for k in cost}):
        one = [cost.get((f, 1, k), 0.0) for k in rounds[1]]
        two = [cost.get((f, 2, k), 0.0) for k in rounds[2]]
        m1, m2 = statistics.median(one), statistics.median(two)
        role, counting = ROLES.get(f, ("", False))
        out.append({"frontier": rows[0]["frontier"], "function": f, "rounds": len(two),
                    "ns_1t": m1, "ns_2t": m2, "ns_2t_min": min(two), "ns_2t_max": max(two),
                    "growth_ns": m2 - m1, "role": role, "counting": counting})
    out.sort(key=lambda s: (s["function"] != "(all)", -s["growth_ns"]))
    return out


def _plot(lab: Lab, summary: list[dict], names: list[str]) -> None:
    fig, axes = lab.figure("CPU per put+get pair, by function, at 1 and 2 threads",
                           "ns of CPU per pair (median; min-max at 2 threads)", "",
                           ncols=len(names))
    for ax, name in zip(axes if len(names) > 1 else [axes], names):
        top = [s for s in summary if s["frontier"] == name and s["function"] != "(all)"][:TOP]
        ys = range(len(top))[::-1]
        ax.barh([y + 0.2 for y in ys], [s["ns_1t"] for s in top], height=0.4, label="1 thread")
        ax.barh([y - 0.2 for y in ys], [s["ns_2t"] for s in top], height=0.4,
                label="2 threads", xerr=[[s["ns_2t"] - s["ns_2t_min"] for s in top],
                                         [s["ns_2t_max"] - s["ns_2t"] for s in top]])
        ax.set_yticks(list(ys), [s["function"] for s in top])
        ax.set_title(name)
        ax.legend()
    lab.save(fig)


if __name__ == "__main__":
    raise SystemExit(script(main))
