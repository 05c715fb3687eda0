"""Run a scenario under a controlled scheduler: every meaningfully different interleaving
within a preemption bound (frontrun's DPOR), and exact replay of a counterexample.

>>> from frontier.check.explore import explore          # doctest: +SKIP
>>> explore("unsynchronized", "lost-update").holds       # doctest: +SKIP
False

How it works. frontrun runs the scenario's threads one at a time, switching between them only
where it chooses (at every bytecode that touches shared state, and at every lock, condition or
sleep, which it replaces by cooperative versions while it runs). DPOR (dynamic partial-order
reduction) skips an interleaving when it differs from one already run only in the order of
independent steps, so the count stays in the hundreds, not the millions. The *bound* is the
number of preemptions allowed per interleaving (switches away from a thread that could have
gone on): "holds" means "holds for every interleaving with at most that many preemptions", not
for every interleaving. Time is frontrun's virtual clock (see :mod:`frontier.check.scenarios`).

A counterexample is the list of thread indices frontrun chose at each scheduling point. Replaying
it (:func:`replay`) runs exactly that interleaving again and records each step for the table.
Replay goes through frontrun's own replay scheduler (``frontrun._dpor_runtime.replay``, not a
public API, so it is imported in one place: :func:`_replay_schedule`).

Complexity: one run of the scenario per interleaving explored. Not re-entrant: frontrun patches
``threading`` and ``time`` process-wide while it runs, so one exploration at a time per process.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from frontier.check import trace
from frontier.check.scenarios import Scenario, World, get, verdict

__all__ = ["DEFAULT_BOUND", "ExploreError", "Outcome", "explore", "replay"]

DEFAULT_BOUND = 1
"""Preemptions per interleaving by default: one preemption already finds the lost update and,
with the blocking switches (which are free), the lost wake-ups; two costs about five times as
many interleavings (measured on the scenarios, see the book's chapter "You are the scheduler")."""


class ExploreError(RuntimeError):
    """The exploration could not conclude (frontrun missing, a run timed out ...)."""


@dataclass
class Outcome:
    """What an exploration (or a replay) found."""

    frontier: str
    scenario: str
    bound: int | None
    holds: bool
    interleavings: int
    broken: str | None = None  # the invariant that broke, one line
    schedule: list[int] = field(default_factory=list)  # the counterexample
    events: list = field(default_factory=list)  # the replayed run's steps (frontrun TraceEvents)
    spec: Scenario | None = field(default=None, repr=False)  # a scenario given as an object


    def report(self) -> str:
        """The text shown for this run (:func:`frontier.check.trace.report`): the scenario and
        its invariant, the interleaving one column per thread, and what broke. A replay of the
        same schedule gives the same text."""
        sc = self.spec or get(self.scenario)
        return trace.report(self.frontier, sc.name, sc.thread_names, sc.invariant, self.events,
                            self.broken)


def _frontrun():
    try:
        import frontrun
        from frontrun._cooperative import patch_locks, unpatch_locks
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ExploreError(
            f"exploring needs frontrun ({exc}); install it with: pip install 'crawlab[explore]'"
        ) from None
    return frontrun, patch_locks, unpatch_locks


def _setup(sc: Scenario, name: str, worlds: list[World]):
    def setup() -> World:
        w = sc.world(name)
        worlds.append(w)
        return w

    return setup


def _scenario(scenario: str | Scenario) -> Scenario:
    """A scenario given by name (:data:`~frontier.check.scenarios.SCENARIOS`) or as an object
    (the grader's own, :mod:`exercises.scenarios`)."""
    return scenario if isinstance(scenario, Scenario) else get(scenario)


def explore(
    name: str,
    scenario: str | Scenario,
    bound: int | None = DEFAULT_BOUND,
    *,
    max_interleavings: int | None = None,
) -> Outcome:
    """Explore ``scenario`` on frontier ``name`` with at most ``bound`` preemptions per
    interleaving (``None``: unbounded). Stops at the first violation, which it replays once to
    record its steps. :class:`ExploreError` if frontrun cannot conclude."""
    import frontier

    frontier.info(name)  # UnknownFrontier before any work
    sc = _scenario(scenario)
    if not sc.applies(frontier.info(name)):
        raise ValueError(f"scenario {scenario!r} does not apply to frontier {name!r}")
    frontrun, patch_locks, unpatch_locks = _frontrun()
    worlds: list[World] = []
    patch_locks()
    try:
        result = frontrun.explore(
            setup=_setup(sc, name, worlds),
            workers=sc.workers(),
            invariant=lambda w: verdict(sc, w) is None,
            preemption_bound=bound,
            max_executions=max_interleavings,
            clock="virtual",
            detect_io=False,
            reproduce_on_failure=0,
            stop_on_first=True,
        )
    finally:
        unpatch_locks()
    if result.property_holds is None:
        raise ExploreError(result.inconclusive_reason or "frontrun could not conclude")
    if result.property_holds:
        return Outcome(name, sc.name, bound, True, result.num_explored, spec=sc)
    out = replay(name, sc, list(result.counterexample or []))
    out.bound, out.interleavings = bound, result.num_explored
    return out


def _replay_schedule(schedule, setup, workers, recorder):
    """Run exactly ``schedule`` once with frontrun's replay scheduler, recording its steps."""
    from frontrun._dpor_runtime.replay import _run_dpor_schedule

    return _run_dpor_schedule(
        schedule, setup, workers, detect_io=False, clock="virtual", trace_recorder=recorder
    )


def replay(name: str, scenario: str | Scenario, schedule: list[int]) -> Outcome:
    """Run ``schedule`` (a counterexample's thread choices) on ``scenario`` once; the outcome's
    ``events`` are its steps and ``broken`` what broke (``None`` if nothing did)."""
    import frontier

    frontier.info(name)
    sc = _scenario(scenario)
    _, patch_locks, unpatch_locks = _frontrun()
    from frontrun._deadlock import DeadlockError
    from frontrun._trace_format import TraceRecorder

    worlds: list[World] = []
    recorder = TraceRecorder()
    patch_locks()
    try:
        try:
            _replay_schedule(schedule, _setup(sc, name, worlds), sc.workers(), recorder)
            broken = verdict(sc, worlds[-1])
        except DeadlockError as exc:
            stuck = [t for t, log in worlds[-1].logs.items() if not log or log[-1][0] != "done"]
            broken = f"deadlock: {', '.join(stuck)} blocked for ever ({exc.cycle_description})"
    finally:
        unpatch_locks()
    return Outcome(name, sc.name, None, broken is None, 1, broken, list(schedule),
                   list(recorder.events), spec=sc)
