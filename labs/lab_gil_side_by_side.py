"""GIL vs no GIL, side by side: frontier put+get pairs and a CPU-bound crawl on both interpreters.

The same two workloads run on two interpreters of the same machine, in alternating rounds (so a
slow drift of the machine hits both alike), each cell in a fresh process:

* ``bench``: the frontier micro-benchmark of ``crawlab lab frontier-bench`` (T threads repeating
  ``put(url); get()`` on one shared frontier), in put+get pairs per second;
* ``crawl``: ``crawlab crawl --sim --latency 0`` (simulated fetches with no latency: the
  frontier and the crawler's own bookkeeping are all the work), in pages per second.

One interpreter has the GIL (by default the one running the lab); the other is a free-threaded
build (3.13t, 3.14t) run with ``PYTHON_GIL=0``, given by ``--free-threaded-python`` or
``$CRAWLAB_FREE_THREADED_PYTHON`` (see the book's chapter "Free-threaded Python";
``scripts/free-threaded-python`` builds one). Both must have crawlab's dependencies installed.
The lab checks, in each child, whether the GIL is really on or off, and refuses to mix them up.

What to look for: under the GIL no line rises with T (threads take turns); without it the
frontiers that do not serialize every operation (``lockfree``) can rise, the locked ones fall as
their lock is contended across cores. The lab prints each frontier's T=2 over T=1 ratio on each
interpreter and the free-threaded rate over the GIL rate at T=1 (scaling is not speed).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from crawlers.args import MAX_RUNS, at_most, positive_int
from labs import plotstyle
from labs.harness import Lab, LabError, add_frontier_flag, frontier_names, interpreter_line, script
from labs.lab_frontier_bench import BUSY, CEILING_GOALS, GOALS, PRIVATE
from labs.plotstyle import runs_note

ROOT = Path(__file__).resolve().parent.parent
FRONTIERS = ("lockfree", "sliced", "monitor", "coarse", "fine", "semaphore")
WORKLOADS = ("bench", "crawl")
GOAL_LOCKFREE = GOALS["lockfree"]  # the goal for lockfree, 2 threads / 1, no GIL


def lockfree_verdict(ratios: list[dict]) -> str | None:
    """The free-threaded put+get verdict on ``lockfree``: its 2-thread over 1-thread ratio as
    a share of the nothing-shared ceiling of the same run, or "too busy to judge" when that
    ceiling is below :data:`~labs.lab_frontier_bench.BUSY` (``None``: nothing to judge)."""
    ft = {r["frontier"]: r["t2_over_t1"] for r in ratios
          if r["workload"] == "bench" and r["interpreter"] == "free-threaded"}
    if "lockfree" not in ft:
        return None
    got, ceiling = ft["lockfree"], ft.get(PRIVATE)
    head = f"lockfree, free-threaded, put+get pairs: 2 threads / 1 thread = {got:.2f}x"
    if ceiling is None:
        return head + " (no ceiling measured: cannot judge)"
    if ceiling < BUSY:
        return head + f"; ceiling {ceiling:.2f}x < {BUSY}x: too busy to judge"
    goal = CEILING_GOALS["lockfree"]
    return (head + f", {got / ceiling:.2f} of the ceiling ({ceiling:.2f}x): "
            f"{'meets' if got / ceiling >= goal else 'is below'} the goal of {goal}")

_PROBE = (  # the first line before any import: a Python answers it even without crawlab
    "print('crawlab-probe', flush=True);"
    "import json, sys, sysconfig, frontier, cereggii, labs.lab_frontier_bench;"
    "print(json.dumps({'python': sys.version.split()[0],"
    " 'free_threaded_build': sysconfig.get_config_var('Py_GIL_DISABLED') == 1,"
    " 'gil': getattr(sys, '_is_gil_enabled', lambda: True)()}))"
)


def _env(free_threaded: bool) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if free_threaded:
        env["PYTHON_GIL"] = "0"
    else:
        env.pop("PYTHON_GIL", None)
    return env


def probe(python: str, free_threaded: bool) -> dict:
    """What ``python`` is, after importing the frontiers: version, build, GIL on or off.
    :class:`LabError` naming the flag when it is not a Python interpreter (it does not print
    the probe's first line) or cannot import crawlab."""
    flag = "--free-threaded-python" if free_threaded else "--gil-python"
    try:
        out = subprocess.run(
            [python, "-c", _PROBE], env=_env(free_threaded), capture_output=True, text=True,
            errors="replace", timeout=120, cwd=ROOT,
        )
    except OSError as e:
        raise LabError(f"{flag}: cannot run {python}: {e.strerror}") from None
    except subprocess.TimeoutExpired:
        raise LabError(f"{flag}: {python} did not answer a Python probe in 120 s") from None
    lines = out.stdout.splitlines()
    if "crawlab-probe" not in lines:
        raise LabError(f"{flag}: {python} is not a Python interpreter (it did not answer a "
                       "one-line Python probe)")
    if out.returncode != 0 or len(lines) < 2:
        last = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise LabError(f"{flag}: {python} cannot import crawlab: {last}")
    info = json.loads(lines[-1])
    if free_threaded and (not info["free_threaded_build"] or info["gil"]):
        raise LabError(f"{flag}: {python} is not a free-threaded build running without the GIL "
                       f"(Python {info['python']}, GIL {'on' if info['gil'] else 'off'})")
    if not free_threaded and not info["gil"]:
        raise LabError(f"{flag}: {python} runs without the GIL: give a GIL build")
    return info


def worker() -> None:
    """Child side of one ``bench`` round: ``argv[1]`` is a JSON list of (frontier, threads,
    seconds); prints one JSON list of pairs per second, in the same order."""
    from labs.lab_frontier_bench import measure

    cells = json.loads(sys.argv[1])
    print(json.dumps([measure(f, t, s)["pairs_per_second"] for f, t, s in cells]))


def _bench_round(python, free_threaded, cells, seconds) -> list[float]:
    spec = json.dumps([[_spec(f), t, seconds] for f, t in cells])
    code = "from labs.lab_gil_side_by_side import worker; worker()"
    out = subprocess.run([python, "-c", code, spec], env=_env(free_threaded), cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise LabError(f"bench round failed on {python}: {out.stderr.strip()[-300:]}")
    return json.loads(out.stdout.splitlines()[-1])


def _spec(name: str) -> str:
    """What to hand the child interpreter: a student's class as its FILE.py:CLASS."""
    from frontier.userclass import spec_of

    return spec_of(name) or name


def _crawl(python, free_threaded, frontier, threads, seconds, pages) -> float:
    cmd = [python, "-m", "crawlers", "crawl", "--sim", "--latency", "0", "--json",
           "--frontier", _spec(frontier), "--threads", str(threads), "--seconds", str(seconds),
           "--pages", str(pages)]
    out = subprocess.run(cmd, env=_env(free_threaded), cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    if out.returncode != 0:
        raise LabError(f"crawl failed on {python}: {out.stderr.strip()[-300:]}")
    return float(json.loads(out.stdout)["pages_per_second"])


def _default_free_threaded() -> str | None:
    env = os.environ.get("CRAWLAB_FREE_THREADED_PYTHON")
    if env:
        return env
    venv = ROOT / ".venv-ft" / "bin" / "python"
    return str(venv) if venv.exists() else None


def _flags(parser) -> None:
    parser.add_argument(
        "--free-threaded-python", metavar="PATH", default=_default_free_threaded(),
        help="a free-threaded interpreter with crawlab's dependencies (default: "
             "$CRAWLAB_FREE_THREADED_PYTHON, else .venv-ft/bin/python)",
    )
    parser.add_argument(
        "--gil-python", metavar="PATH", default=sys.executable,
        help="an interpreter with the GIL (default: the one running this lab)",
    )
    add_frontier_flag(parser, " ".join(FRONTIERS))
    parser.add_argument(
        "--from-csv", type=Path, metavar="CSV",
        help="measure nothing: draw the figure again from this lab's CSV (stamped with the "
        "machine, date and commit of its rows)")
    parser.add_argument(
        "--repeats", type=at_most(positive_int, MAX_RUNS), default=None,
        help="runs per cell and interpreter (default: 3 quick, 5 full)",
    )


def summarize(values: list[float]) -> dict:
    """Median, min and max of one cell's runs (the plot's point and its spread)."""
    return {"runs": len(values), "median": statistics.median(values), "min": min(values),
            "max": max(values), "values": ";".join(f"{v:.1f}" for v in values)}


def ratio_rows(rows: list[dict]) -> list[dict]:
    """Per workload, interpreter and frontier: median at T=2 over median at T=1, and the
    free-threaded over the GIL median at T=1."""
    med = {(r["workload"], r["interpreter"], r["frontier"], r["threads"]): r["median"]
           for r in rows}
    out = []
    for (w, interp, f, t), m in sorted(med.items()):
        if t != 1 or (w, interp, f, 2) not in med:
            continue
        row = {"workload": w, "frontier": f, "interpreter": interp,
               "t2_over_t1": med[(w, interp, f, 2)] / m}
        other = med.get((w, "gil", f, 1))
        row["vs_gil_at_t1"] = m / other if other else float("nan")
        out.append(row)
    return out


def main(argv=None) -> int:
    lab = Lab("gil-side-by-side", __doc__, argv, extra=_flags)
    if lab.args.from_csv is not None:
        return _replot(lab, lab.args.from_csv)
    chosen = frontier_names(lab.args.frontier, FRONTIERS)  # bad ones: one line, exit 2
    repeats = lab.args.repeats if lab.args.repeats is not None else (3 if lab.quick else 5)
    if not lab.args.free_threaded_python:
        raise LabError("no free-threaded interpreter: give --free-threaded-python PATH or set "
                       "CRAWLAB_FREE_THREADED_PYTHON (scripts/free-threaded-python builds one)")
    interpreters = {
        "gil": (lab.args.gil_python, False),
        "free-threaded": (lab.args.free_threaded_python, True),
    }
    info = {k: probe(py, ft) for k, (py, ft) in interpreters.items()}
    for k, i in info.items():
        print(f"# {k}: {interpreters[k][0]} · Python {i['python']} · "
              f"GIL {'on' if i['gil'] else 'off'}")
    cores = os.cpu_count() or 1
    thread_counts = list(range(1, 2 * cores + 1))
    bench_seconds = 0.3 if lab.quick else 1.0
    crawl_seconds, pages = (1.0, 20000) if lab.quick else (3.0, 50000)
    cells = [(f, t) for t in thread_counts for f in chosen]
    bench_cells = [(f, t) for t in thread_counts for f in (PRIVATE, *chosen)]  # + the ceiling

    runs: dict[tuple, list[float]] = {}
    for rnd in range(repeats):  # rounds outermost, interpreters alternate inside each
        for interp, (py, ft) in interpreters.items():
            print(f"# round {rnd + 1}/{repeats}: {interp}", flush=True)
            for (f, t), v in zip(bench_cells, _bench_round(py, ft, bench_cells, bench_seconds)):
                runs.setdefault(("bench", interp, f, t), []).append(v)
            for f, t in cells:
                v = _crawl(py, ft, f, t, crawl_seconds, pages)
                runs.setdefault(("crawl", interp, f, t), []).append(v)

    rows = []
    for (w, interp, f, t), values in runs.items():
        rows.append({
            "workload": w, "unit": "pairs/s" if w == "bench" else "pages/s",
            "interpreter": interp, "python": info[interp]["python"],
            "gil_enabled": info[interp]["gil"], "frontier": f, "threads": t,
            **summarize(values), "source": "measured",
        })
    lab.write_csv(rows)
    ratios = ratio_rows(rows)
    lab.write_csv(ratios, stem="ratios")
    print("\nT=2 over T=1 (medians), and the free-threaded rate over the GIL rate at T=1:")
    lab.table(ratios)
    verdict = lockfree_verdict(ratios)
    if verdict:
        print(verdict)

    if not lab.args.no_plot:
        _plot(lab, rows, chosen, thread_counts)
    return lab.done()


def _replot(lab: Lab, path: Path) -> int:
    """Draw the figure from ``path`` (a CSV this lab wrote) with the stamp of its rows; read
    by :meth:`~labs.harness.Lab.read_csv` (a FIFO, a truncated or out-of-range file: one
    line)."""
    try:
        rows = lab.read_csv(path)
    except LabError as exc:
        raise LabError(f"--from-csv: {exc}") from None
    need = {"workload", "interpreter", "python", "gil_enabled", "frontier", "threads", "runs",
            "median", "min", "max"}
    if not rows or not need <= set(rows[0]):
        raise LabError(f"--from-csv: {path} is not a gil-side-by-side CSV")
    try:
        for r in rows:
            r.update(threads=int(r["threads"]), runs=int(r["runs"]),
                     python=str(r["python"]), gil_enabled=str(r["gil_enabled"]) == "True",
                     **{k: float(r[k]) for k in ("median", "min", "max")})
    except (TypeError, ValueError) as exc:
        raise LabError(f"--from-csv: {path}: a row's number is not one: {exc}") from None
    lab.stamp_from(rows[0])
    chosen = list(dict.fromkeys(r["frontier"] for r in rows if r["frontier"] != PRIVATE))
    _plot(lab, rows, chosen, sorted({r["threads"] for r in rows}))
    return lab.done()


def _interpreter(rows: list[dict], interp: str) -> str:
    """The exact interpreter of ``interp``'s rows, e.g. ``CPython 3.13.1t · GIL off``."""
    r = next(r for r in rows if r["interpreter"] == interp)
    return interpreter_line("CPython", r["python"], interp == "free-threaded",
                            bool(r["gil_enabled"]))


def _plot(lab, rows, chosen, thread_counts) -> None:
    """One row of panels per frontier (put+get pairs | crawl pages), both interpreters in each
    panel; the legend names each interpreter exactly, and so does the stamp."""
    fig, _ = lab.figure("", "threads", "")
    fig.clf()
    fig.set_size_inches(plotstyle.MAX_WIDTH, 1.2 + 2.1 * len(chosen))
    axes = fig.subplots(len(chosen), 2, squeeze=False, sharex=True)
    interps = [i for i in ("gil", "free-threaded") if any(r["interpreter"] == i for r in rows)]
    label = {i: _interpreter(rows, i) for i in interps}
    runs = [r["runs"] for r in rows]
    height = fig.get_size_inches()[1]
    fig.suptitle(f"GIL against no GIL, per frontier ({runs_note(runs)})",
                 y=1 - 0.12 / height, va="top")
    for row, f in enumerate(chosen):
        for col, w in enumerate(WORKLOADS):
            ax = axes[row][col]
            mine = [{**r, "label": label[r["interpreter"]]} for r in rows
                    if r["workload"] == w and r["frontier"] == f]
            for interp in interps:
                pts = sorted((r for r in mine if r["interpreter"] == interp),
                             key=lambda r: r["threads"])
                look = plotstyle.look(interp, ax)
                (line,) = ax.plot([r["threads"] for r in pts], [r["median"] for r in pts],
                                  label=label[interp], **look)
                plotstyle.spread(ax, pts, "threads", line.get_color(), capsize=3, lw=1)
            ax.set_xticks(thread_counts)
            ax.set_ylim(bottom=0)
            ax.ticklabel_format(axis="y", style="sci", scilimits=(0, 0))
            unit = "put+get pairs/s" if w == "bench" else "crawl pages/s (sim, L = 0)"
            ax.set_title(f"{f}: {unit}")
            if row == len(chosen) - 1:
                ax.set_xlabel("threads")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncols=2,
               bbox_to_anchor=(0.5, 1 - 0.45 / height))
    fig.tight_layout(rect=(0, 0.3 / height, 1, 1 - 0.85 / height))
    lab.save(fig, interpreter=" and ".join(label[i] for i in interps), layout=False)


if __name__ == "__main__":
    raise SystemExit(script(main))
