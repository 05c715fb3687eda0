"""The central figure: every frontier's throughput against threads, GIL and no GIL, with a model.

The frontier micro-benchmark (T threads repeating ``put(url); get()`` on one shared frontier,
the cells of ``crawlab lab frontier-bench``) for every registered frontier and the baseline that
shares nothing (a deque per thread), on two interpreters of this machine in alternating rounds:
one with the GIL (the one running the lab) and a free-threaded one with ``PYTHON_GIL=0``
(``--free-threaded-python``, as ``crawlab lab gil-side-by-side`` finds it).

Each measured curve gets Gunther's Universal Scalability Law fitted to it (:mod:`labs.usl`:
σ, contention; κ, coherency) and drawn on to 64 cores, dashed and labelled *model*. Only thread
counts up to ``--fit-up-to`` are fitted (default: all the cores on a machine of 4 or fewer,
half of them on a bigger one); the measured points above it and up to the core count are the
model's check, and the table says how far the model was from them. Threads beyond the cores
take turns, which the law does not model: they are drawn, hollow, and never fitted.

On 2 cores a fit has two points (1 and 2 threads) and cannot tell σ from κ: the table says so,
and the model is Amdahl's (κ = 0) where the second thread gained. Run the same command on a
machine with 8 or 16 cores to see the model checked against your own curve.
"""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

import frontier
from crawlers.args import MAX_RUNS, MAX_THREADS, at_most, positive_int
from labs import plotstyle, usl
from labs.harness import Lab, LabError, add_frontier_flag, frontier_names, interpreter_line, script
from labs.lab_frontier_bench import BUSY, PRIVATE, _log_ticks, _rate, panels
from labs.lab_gil_side_by_side import _bench_round, _default_free_threaded, probe
from labs.plotstyle import runs_note

MODEL_CORES = (8, 16, 64)


def _flags(parser) -> None:
    parser.add_argument(
        "--free-threaded-python", metavar="PATH", default=_default_free_threaded(),
        help="a free-threaded interpreter with crawlab's dependencies (default: "
             "$CRAWLAB_FREE_THREADED_PYTHON, else .venv-ft/bin/python); without one, only the "
             "GIL panel is measured")
    parser.add_argument("--gil-python", metavar="PATH", default=sys.executable,
                        help="an interpreter with the GIL (default: the one running this lab)")
    add_frontier_flag(parser, "every registered one")
    parser.add_argument("--repeats", type=at_most(positive_int, MAX_RUNS), default=None,
                        help="rounds per interpreter (default: 5, quick or not: medians of 5)")
    parser.add_argument("--fit-up-to", type=at_most(positive_int, MAX_THREADS), default=None,
                        metavar="N",
                        help="fit the model to 1..N threads (default: the cores up to 4, "
                             "else half of them: the rest check the model)")
    parser.add_argument("--from-csv", type=Path, metavar="CSV",
                        help="measure nothing: fit and draw again from this lab's scaling.csv")


def default_fit_up_to(cores: int) -> int:
    """All the cores on a small machine; half of them on one with more than 4 (the other half
    is the model's check)."""
    return max(cores if cores <= 4 else cores // 2, 2)


def ceiling(rows: list[dict], interp: str) -> float | None:
    """The nothing-shared baseline's 2-thread over 1-thread ratio of medians on ``interp``:
    how much of a second core this run had (``None`` without both points)."""
    med = {r["threads"]: r["median"] for r in rows
           if r["interpreter"] == interp and r["frontier"] == PRIVATE}
    return med[2] / med[1] if 1 in med and 2 in med and med[1] > 0 else None


def fit_rows(rows: list[dict], fit_up_to: int, cores: int) -> list[dict]:
    """One model row per interpreter and frontier: σ, κ, the speed-ups the law gives at
    :data:`MODEL_CORES`, and how far it was from the measured points it was not fitted to.
    Without the GIL, a ceiling below :data:`~labs.lab_frontier_bench.BUSY` says the machine
    was too busy for the fits to describe the frontiers (with the GIL no curve can rise, and
    the ceiling says nothing)."""
    out = []
    keys = list(dict.fromkeys((r["interpreter"], r["frontier"]) for r in rows))
    for interp, name in keys:
        pts = {r["threads"]: r["median"] for r in rows
               if r["interpreter"] == interp and r["frontier"] == name}
        fitted = {n: x for n, x in pts.items() if n <= min(fit_up_to, cores)}
        if 1 not in fitted or len(fitted) < 2 or min(fitted.values()) <= 0:
            continue
        f = usl.fit(fitted, [fitted[n] for n in fitted])
        held = {n: x for n, x in pts.items() if min(fit_up_to, cores) < n <= cores}
        errors = [abs(f.throughput(n) - x) / x for n, x in held.items()]
        top = max(fitted)
        check = (f"n <= {top}; checked on n = {min(held)}-{max(held)}: "
                 f"up to {100 * max(errors):.0f} % off" if held
                 else f"n <= {top}; no core count left to check it")
        if not f.identified:
            check += "; 2 core counts: κ assumed as small as fits"
        c = ceiling(rows, interp)
        if interp != "gil" and (c is None or c < BUSY):
            check = (f"too busy to judge (ceiling {c:.2f}x); " if c is not None
                     else "no ceiling measured; ") + check
        out.append({"interpreter": interp, "frontier": name, "sigma": f.sigma,
                    "kappa": f.kappa, "identified": f.identified, "fit_points": f.points,
                    "rate_1": f.lam,
                    **{f"speedup_{n}": f.speedup(n) for n in MODEL_CORES},
                    "held_out_max_error": max(errors) if errors else float("nan"),
                    "fit": check})
    return out


def main(argv=None) -> int:
    lab = Lab("scaling", __doc__, argv, extra=_flags)
    cores = os.cpu_count() or 1
    fit_up_to = lab.args.fit_up_to
    if fit_up_to is None:
        fit_up_to = default_fit_up_to(cores)
    if fit_up_to < 2:
        raise LabError(f"--fit-up-to must be at least 2, got {fit_up_to}")
    if lab.args.from_csv is not None:
        return _replot(lab, lab.args.from_csv, fit_up_to)
    names = [PRIVATE, *frontier_names(lab.args.frontier, frontier.names())]
    repeats = lab.args.repeats if lab.args.repeats is not None else 5
    pythons = {"gil": (lab.args.gil_python, False)}
    if lab.args.free_threaded_python:
        pythons["free-threaded"] = (lab.args.free_threaded_python, True)
    else:
        print("# no free-threaded interpreter (--free-threaded-python): the GIL panel only")
    info = {k: probe(py, ft) for k, (py, ft) in pythons.items()}
    threads = list(range(1, (cores if lab.quick else 2 * cores) + 1))
    seconds = 0.15 if lab.quick else 0.5
    cells = [(n, t) for n in names for t in threads]
    runs: dict[tuple, list[float]] = {}
    for rnd in range(repeats):  # rounds outermost, the interpreters alternate inside each
        for interp, (py, ft) in pythons.items():
            print(f"# round {rnd + 1}/{repeats}: {interp}", flush=True)
            for (n, t), v in zip(cells, _bench_round(py, ft, cells, seconds)):
                runs.setdefault((interp, n, t), []).append(v)
    rows = []
    for (interp, n, t), values in runs.items():
        rows.append({"interpreter": interp, "python": info[interp]["python"],
                     "gil_enabled": info[interp]["gil"], "frontier": n, "threads": t,
                     "cores": cores, "fitted": t <= min(fit_up_to, cores),
                     "runs": len(values), "median": statistics.median(values),
                     "min": min(values), "max": max(values),
                     "values": ";".join(f"{v:.0f}" for v in values)})
    lab.write_csv(rows)
    return _fit_and_draw(lab, rows, fit_up_to, cores)


def _fit_and_draw(lab: Lab, rows: list[dict], fit_up_to: int, cores: int) -> int:
    models = fit_rows(rows, fit_up_to, cores)
    lab.write_csv(models, "usl", source="model")
    print(f"\nUniversal Scalability Law per curve (fitted to 1-{min(fit_up_to, cores)} threads; "
          "speed-ups are the model's):")
    lab.table(models, ["interpreter", "frontier", "sigma", "kappa", "speedup_8", "speedup_16",
                       "speedup_64", "fit"])
    if not lab.args.no_plot:
        _plot(lab, rows, models, cores)
    return lab.done()


def _replot(lab: Lab, path: Path, fit_up_to: int) -> int:
    rows = lab.read_csv(path)
    need = {"interpreter", "python", "gil_enabled", "frontier", "threads", "median", "cores"}
    if not rows or not need <= set(rows[0]):
        raise LabError(f"--from-csv: {path} is not a scaling CSV")
    lab.stamp_from({k: str(v) for k, v in rows[0].items()})
    for r in rows:
        r["frontier"] = str(r["frontier"])
    cores = int(rows[0]["cores"])
    return _fit_and_draw(lab, rows, fit_up_to, cores)


def _plot(lab: Lab, rows: list[dict], models: list[dict], cores: int) -> None:
    """Small multiples: a column per interpreter (GIL | no GIL), a row per group of frontiers
    (:func:`labs.lab_frontier_bench.panels`), one colour per frontier within a panel: measured
    medians (solid, min-max bars; hollow beyond the cores), the fitted model dashed from 1 to
    64 threads; each row's legend beside it."""
    from matplotlib.lines import Line2D

    interps = [i for i in ("gil", "free-threaded") if any(r["interpreter"] == i for r in rows)]
    names = list(dict.fromkeys(r["frontier"] for r in rows))
    groups = panels(names)
    fig, _ = lab.figure("", "threads", "")  # the house style, then a grid of our own
    fig.clf()
    fig.set_size_inches(plotstyle.MAX_WIDTH, 1.5 + 2.3 * len(groups))
    grid_axes = fig.subplots(len(groups), len(interps), squeeze=False, sharex=True)
    fig.suptitle(f"put+get pairs per second against threads, every frontier "
                 f"({runs_note(r['runs'] for r in rows)}); dashed: USL model")
    model = {(m["interpreter"], m["frontier"]): m for m in models}
    grid = [2 ** (k / 8) for k in range(0, 49)]  # 1 .. 64
    for (group, mine), axes in zip(groups, grid_axes):
        for ax, interp in zip(axes, interps):
            first = next(r for r in rows if r["interpreter"] == interp)
            title = interpreter_line("CPython", str(first["python"]), interp == "free-threaded",
                                     bool(first["gil_enabled"]))
            c = ceiling(rows, interp)
            if interp != "gil" and c is not None:
                title += f", ceiling {c:.2f}x" + (": too busy to judge" if c < BUSY else "")
            ax.set_title(f"{group}: {title}", fontsize=10)
            _draw(ax, rows, model, interp, mine, cores, grid)
            ax.set_ylabel("pairs/s (log)")
        handles, labels = axes[0].get_legend_handles_labels()
        handles.append(Line2D([], [], color="0.3", ls=(0, (4, 2)), lw=1.0))
        labels.append("model (USL fit)")
        axes[-1].legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                        borderaxespad=0, fontsize=9)
    for ax in grid_axes[-1]:
        ax.set_xlabel("threads (cores on the model's part)")
    interp_text = " and ".join(
        interpreter_line("CPython", str(r["python"]), r["interpreter"] == "free-threaded",
                         bool(r["gil_enabled"]))
        for r in [next(x for x in rows if x["interpreter"] == i) for i in interps])
    lab.save(fig, interpreter=interp_text)


def _draw(ax, rows: list[dict], model: dict, interp: str, names: list[str], cores: int,
          grid: list[float]) -> None:
    """One panel: the curves of ``names`` on ``interp``, colours distinct on the panel."""
    plotstyle.colours(ax, [n for n in names if any(r["interpreter"] == interp
                                                   and r["frontier"] == n for r in rows)])
    for name in names:
        pts = sorted((r for r in rows if r["interpreter"] == interp
                      and r["frontier"] == name), key=lambda r: r["threads"])
        if not pts:
            continue
        look = {**plotstyle.look(name, ax), "ls": "-"}  # solid: measured; dashed: the model
        inside = [r for r in pts if r["threads"] <= cores]
        (line,) = ax.plot([r["threads"] for r in inside], [r["median"] for r in inside],
                          label=name, **look)
        beyond = [r for r in pts if r["threads"] > cores]
        if beyond:
            ax.plot([r["threads"] for r in beyond], [r["median"] for r in beyond],
                    ls="none", marker=look["marker"], mfc="none", color=line.get_color())
        plotstyle.spread(ax, pts, "threads", line.get_color(), capsize=2, lw=0.8)
        m = model.get((interp, name))
        if m is not None:
            f = usl.Fit(m["sigma"], m["kappa"], m["rate_1"], int(m["fit_points"]),
                        bool(m["identified"]), 0.0)
            ax.plot(grid, [f.throughput(n) for n in grid], ls=(0, (4, 2)), lw=1.0,
                    marker="none", color=line.get_color(), alpha=0.8)
    ax.axvline(cores, color="0.4", lw=0.8, ls=":")
    ax.text(cores, 0.02, f" {cores} cores here", transform=ax.get_xaxis_transform(),
            fontsize=9, color="0.3")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ticks = [1, 2, 4, 8, 16, 64]
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.set_xlim(0.9, 70)
    _log_ticks(ax, _rate)


if __name__ == "__main__":
    raise SystemExit(script(main))
