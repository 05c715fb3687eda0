"""Randomized scheduling past the preemption bound: PCT, and uniform random walks to compare.

PCT (probabilistic concurrency testing; Burckhardt, Kothari, Musuvathi and Nagarakatte,
ASPLOS 2010) gives each of the ``n`` threads a random priority, always runs the runnable thread
of highest priority, and at ``d - 1`` steps drawn uniformly from ``1..k`` (``k``: the steps of a
run) lowers the running thread's priority below every other. A bug of *depth* ``d`` (it shows
once ``d`` ordering constraints between steps hold) is then found by one run with probability
at least ``1 / (n * k**(d - 1))`` (:func:`lower_bound`), whatever the program; ``runs_for``
says how many runs give 95 %. The uniform walk picks a runnable thread uniformly at every step:
no such guarantee.

How it runs. Each run goes through frontrun's replay scheduler (the one that replays a
counterexample) with an empty schedule that this module extends one step at a time
(:class:`_Chooser`): when the scheduler needs the next thread, it appends the choice of the
strategy among the threads that are not done and not blocked on a lock or condition (frontrun
reports those) or asleep, or a step of the virtual clock when every thread is blocked or asleep
(the sleepers it wakes are runnable again). A run frontrun gives up on (its step cap or its
timeout) is recorded as unfinished: neither held nor broken. The steps taken are
the run's schedule: :func:`frontier.check.explore.replay` runs it again, so a run found by seed
``S`` is a trace file like any other. The same seed gives the same run.

Complexity: one run of the scenario per run asked for, plus one to measure ``k``; a
``deadline`` stops the runs early (:func:`search`).
Not re-entrant (frontrun patches ``threading`` process-wide while a run goes).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from frontier.check.explore import ExploreError, Progress, _frontrun, _scenario, _setup, untraced
from frontier.check.scenarios import Scenario, World, verdict
from frontier.check.steady import steady_scheduling

__all__ = ["DEPTHS", "PctRun", "default_depth", "lower_bound", "run", "runs_for", "search"]

CONFIDENCE = 0.95

DEPTHS: dict[str | tuple[str, str], int] = {"close": 3, ("monitor-if", "lost-wakeup"): 3}
"""The depth PCT seeks by default, where it is not 2: by scenario, or by (registered frontier
name, scenario) where one frontier's bug needs more than the scenario's others (the pair wins).

* ``close``: a ``put`` racing ``close`` breaks only when three orders hold at once (the putter
  checks "open" before the closer closes; the closer closes before the taker reads "closed";
  the taker finds the buffer empty before the putter stores), and the taker must not be asleep
  on its backoff then (a sleeper wakes only when no thread can run, and the putter can): PCT
  needs two priority changes besides its initial priorities, depth 3. At depth 2 it never
  broke ``unsynchronized`` there (``docs/explore_pct.py`` measures both).
* ``monitor-if`` (:class:`frontier.check.teaching.IfMonitor`, the monitor waiting with ``if``)
  in ``lost-wakeup``: a consumer must sleep before the put, the put must come before the other
  consumer's ``get``, and that ``get`` must take the URL before the sleeper wakes: three
  orders, depth 3 (at depth 2, 300 runs from seed 0 held)."""


def default_depth(scenario: str | Scenario, frontier: str | None = None) -> int:
    """The depth to seek in ``scenario`` (on ``frontier``, a registered name or a spec, when
    given) when none is asked for: :data:`DEPTHS` by the pair, else by the scenario, else 2."""
    name = scenario if isinstance(scenario, str) else scenario.name
    if frontier is not None:
        import frontier as registry

        pair = (registry.info(frontier).name, name)
        if pair in DEPTHS:
            return DEPTHS[pair]
    return DEPTHS.get(name, 2)


def lower_bound(n: int, k: int, d: int) -> float:
    """PCT's probability, per run, of finding a bug of depth ``d`` among ``n`` threads and
    ``k`` steps: ``1 / (n * k**(d - 1))``."""
    return 1.0 / (n * k ** (d - 1))


def runs_for(p: float, confidence: float = CONFIDENCE) -> int:
    """Runs after which a bug found with probability ``p`` per run has shown with probability
    ``confidence``: the least ``r`` with ``1 - (1 - p)**r >= confidence``."""
    if p >= 1.0:
        return 1
    # log1p: for p below the float spacing near 1, log(1 - p) is 0 (a division by zero)
    return math.ceil(math.log1p(-confidence) / math.log1p(-p))


@dataclass
class PctRun:
    """One randomized run: its seed, the schedule it took, and what broke (``None``: held,
    or did not finish). ``unfinished`` says why a run ended before every thread did (frontrun
    gave up on it): such a run neither held nor broke."""

    seed: int
    schedule: list[int] = field(default_factory=list)
    broken: str | None = None
    steps: int = 0
    unfinished: str | None = None


class _Chooser:
    """The strategy that extends the replay schedule: ``"pct"`` or ``"random"``."""

    def __init__(self, strategy: str, n: int, k: int, depth: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.strategy, self.n = strategy, n
        self.priority = dict(zip(range(n), self.rng.sample(range(depth, depth + n), n)))
        points = self.rng.sample(range(1, max(k, depth) + 1), depth - 1) if depth > 1 else []
        self.changes = {step: depth - 1 - i for i, step in enumerate(sorted(points))}
        self.step = 0
        self.last: int | None = None

    def choose(self, enabled: list[int]) -> int:
        self.step += 1
        if self.strategy == "random":
            self.last = self.rng.choice(enabled)
            return self.last
        if self.step in self.changes and self.last is not None:
            self.priority[self.last] = self.changes[self.step]  # below every initial priority
        self.last = max(enabled, key=self.priority.__getitem__)
        return self.last


def _scheduler_class(chooser: _Chooser):
    from frontrun._dpor_core.concurrency import ReplayExecution
    from frontrun._dpor_runtime.scheduler import _ReplayDporScheduler

    class Blocked(ReplayExecution):
        """Remembers which threads frontrun says are blocked (the replay's own forgets)."""

        def __init__(self) -> None:
            self.blocked: set[int] = set()

        def block_thread(self, thread_id: int) -> None:
            self.blocked.add(thread_id)

        def unblock_thread(self, thread_id: int) -> None:
            self.blocked.discard(thread_id)

    class Chosen(_ReplayDporScheduler):
        """frontrun's replay scheduler whose schedule is chosen step by step."""

        def _replay_advance_clock_to(self, target: float | None = None) -> None:
            """frontrun's replay advance, telling :class:`Blocked` whom it woke (the replay's
            own tells nobody: its execution forgets blocks anyway). Without it a thread that
            slept once stayed "blocked" after waking, and ran only when every other thread
            was blocked; then a thread waiting for the lock it held could outrank it and be
            chosen for ever (seed 369 of sliced's lost-wakeup spun to frontrun's step cap)."""
            if self.virtual_clock is not None:
                self._clock_port.advance_clock_to(self.virtual_clock, target, self._woken)

        def _woken(self, event) -> None:  # noqa: ANN001 - frontrun's WakeEvent
            self.execution.unblock_thread(event.actor_id)

        def _extend_schedule(self) -> bool:
            if not isinstance(self.execution, Blocked):  # frontrun's, set in __init__
                self.execution = Blocked()
            if len(self._replay_schedule) >= self._replay_max_ops:
                return False
            live = [t for t in range(self.num_threads) if t not in self._threads_done]
            if not live:
                return False
            enabled = [t for t in live if t not in self.execution.blocked]
            if not enabled:
                if self._clock_actor_id is not None and self._deadlines.has_pending():
                    self._replay_schedule.append(self._clock_actor_id)
                    return True
                enabled = live  # let frontrun's own deadlock detection see it
            self._replay_schedule.append(chooser.choose(enabled))
            return True

    return Chosen


def run(name: str, scenario: str | Scenario, *, strategy: str = "pct", depth: int = 2,
        k: int = 100, seed: int = 0) -> PctRun:
    """One run of ``scenario`` on ``name`` scheduled by ``strategy`` (``"pct"`` with ``depth``
    and ``k``, or ``"random"``) from ``seed``."""
    from unittest import mock

    from frontrun._deadlock import DeadlockError
    from frontrun._dpor_runtime import replay as replay_mod

    sc = _scenario(scenario)
    _, patch_locks, unpatch_locks = _frontrun()
    chooser = _Chooser(strategy, len(sc.thread_names), k, depth, seed)
    cls = _scheduler_class(chooser)
    made: list = []

    def build(*args, **kwargs):
        made.append(cls(*args, **kwargs))
        return made[-1]

    worlds: list[World] = []
    unfinished = broken = None
    patch_locks()
    try:
        with mock.patch.object(replay_mod, "_ReplayDporScheduler", build), untraced(), \
                steady_scheduling():
            try:
                replay_mod._run_dpor_schedule([], _setup(sc, name, worlds), sc.workers(),
                                              detect_io=False, clock="virtual")
                broken = verdict(sc, worlds[-1])
            except DeadlockError as exc:
                stuck = [t for t, log in worlds[-1].logs.items()
                         if not log or log[-1][0] != "done"]
                broken = (f"deadlock: {', '.join(stuck)} blocked for ever "
                          f"({exc.cycle_description})")
            except TimeoutError as exc:  # frontrun's replay cap: steps or seconds
                unfinished = f"frontrun stopped the run after {chooser.step} steps ({exc})"
    finally:
        unpatch_locks()
    schedule = list(made[-1]._replay_schedule) if made else []
    return PctRun(seed, schedule, broken, chooser.step, unfinished)


def steps_of(name: str, scenario: str | Scenario) -> int:
    """``k``: the scheduling steps of one run (threads by fixed priority, no change).
    Raises :class:`~frontier.check.explore.ExploreError` when that run does not finish."""
    first = run(name, scenario, strategy="pct", depth=1, seed=0)
    if first.unfinished:
        label = scenario if isinstance(scenario, str) else scenario.name
        raise ExploreError(f"{name}, scenario {label}: the run that measures k did not "
                           f"finish: {first.unfinished}")
    return max(1, first.steps)


def search(name: str, scenario: str | Scenario, *, strategy: str = "pct", depth: int = 2,
           runs: int = 100, seed: int = 0, k: int | None = None,
           deadline: float | None = None,
           progress: Callable[[Progress], None] | None = None) -> tuple[list[PctRun], int]:
    """Runs with seeds ``seed``, ``seed + 1`` ... until one breaks the invariant or does not
    finish (its ``unfinished`` says why), ``runs`` ran, or ``deadline`` (``time.monotonic``)
    passed: the runs, and the ``k`` used. A search cut by the deadline returns fewer than
    ``runs`` runs, none broken (at least one run, after the one that measures ``k``).
    ``progress`` is called after every run, as the DPOR search calls it after every
    interleaving."""
    start = time.monotonic()
    k = k or steps_of(name, scenario)
    done = []
    for i in range(runs):
        done.append(run(name, scenario, strategy=strategy, depth=depth, k=k, seed=seed + i))
        if progress is not None:
            progress(Progress(len(done), time.monotonic() - start))
        late = deadline is not None and time.monotonic() >= deadline
        if done[-1].broken or done[-1].unfinished or late:
            break
    return done, k
