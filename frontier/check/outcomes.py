"""Outcome tables, as jcstress prints them: every interleaving of a scenario within the bound,
its end state, how many interleavings ended there, and whether the invariant accepts it.

The end state of a run is what a student can check by hand: the URLs that came out (taken by
the threads, then drained), and which threads slept out their patience. Each distinct end state
is one row: ``ACCEPTABLE`` if the scenario's invariant holds there, ``FORBIDDEN`` (with what
broke) otherwise; an end state reached both ways (the invariant reads more than the state
shown) is two rows. The counts are interleavings of the DPOR search (each a class of equivalent
schedules), not frequencies on real hardware: a FORBIDDEN row with count 1 is as real as one
with count 100.

Complexity: one exploration of the whole bounded space (no stop at the first violation), or
less when a cap or a budget cuts it (the table is then inconclusive unless it shows a
FORBIDDEN row).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from frontier.check.explore import DEFAULT_BOUND, Progress, _scenario, _search
from frontier.check.scenarios import Scenario, World, _drain, _took, verdict

__all__ = ["Row", "end_state", "table", "tabulate"]


@dataclass
class Row:
    state: str
    count: int
    verdict: str  # "ACCEPTABLE" | "FORBIDDEN"
    broken: str | None


def end_state(world: World, counted: bool = False) -> str:
    """``URLs out: {u1, u2}`` (sorted, with repeats), the frontier's count of puts when
    ``counted`` (the ``counter`` scenario), then the threads that slept out."""
    out = sorted(_took(world) + _drain(world))
    slept = [t for t, log in world.logs.items() if any(e[3] for e in log)]
    text = "URLs out: {" + ", ".join(out) + "}"
    if counted:
        text += f"; stats.puts = {world.frontier.stats.as_dict()['puts']}"
    return text + (f"; slept out: {', '.join(slept)}" if slept else "")


def tabulate(name: str, scenario: str | Scenario, bound: int | None = DEFAULT_BOUND,
             cap: int | None = None, *, budget: float | None = None,
             progress: Callable[[Progress], None] | None = None,
             ) -> tuple[list[Row], int, str | None]:
    """The rows (most frequent first), the interleavings run, and why the search stopped
    early (``None``: the whole bounded space): ``cap`` interleavings, or ``budget`` seconds.
    ``progress`` is called after every interleaving (:class:`Progress`)."""
    sc = _scenario(scenario)
    start = time.monotonic()

    def on_run(n: int) -> None:
        if progress is not None:
            progress(Progress(n, time.monotonic() - start))

    seen: Counter = Counter()  # (end state, what broke or "") -> interleavings

    def record(world: World) -> bool:
        why = verdict(sc, world)  # drains first: end_state reads the same drained list
        seen[end_state(world, counted=sc.name == "counter"), why or ""] += 1
        return True

    result, cut = _search(sc, name, bound, cap, budget, on_run, stop_on_first=False,
                          invariant=record)
    rows = [Row(s, n, "FORBIDDEN" if why else "ACCEPTABLE", why or None)
            for (s, why), n in sorted(seen.items(), key=lambda kv: (-kv[1], kv[0]))]
    return rows, result.num_explored, cut


def table(rows: list[Row]) -> str:
    """The rows as text: count, verdict, end state (and what broke)."""
    width = max(len(str(r.count)) for r in rows)
    lines = []
    for r in rows:
        line = f"{r.count:>{width}}  {r.verdict:<10}  {r.state}"
        lines.append(line + (f"  ({r.broken})" if r.broken else ""))
    return "\n".join(lines) + "\n"
