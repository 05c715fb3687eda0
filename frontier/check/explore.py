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

Three outcomes, never two (:attr:`Outcome.status`):

* ``"holds"`` -- frontrun's search of the bounded space finished and no interleaving it ran
  broke the invariant (:attr:`Outcome.interleavings` says how many). Only then is
  :attr:`Outcome.holds` true. DPOR runs one interleaving per class of orders it judges
  equivalent, and it can judge wrongly (a known case: ``test_the_explorer_finds_a_close_
  between_a_wake_up_and_the_woken_getter`` in ``tests/test_exercises.py``).
* ``"violated"`` -- one interleaving broke it: :attr:`Outcome.broken` says what, and
  :attr:`Outcome.schedule` replays it.
* ``"inconclusive"`` -- the search stopped before the bounded space was covered (the
  ``max_interleavings`` cut, the ``budget`` of seconds, or frontrun could not finish a run):
  :attr:`Outcome.reason` says which, and :attr:`Outcome.interleavings` how many were run, none
  of them broken. It is never "holds".

frontrun itself reports a search cut by ``max_executions`` (or ``total_timeout``) as a pass:
its engine just says "no next execution" in both cases. So the explorer wraps the engine
(:class:`_Engine`) and asks the real engine for the next execution itself: a cut is recorded
only when the real engine *had* one more interleaving to run. The same wrapper counts the
interleavings for the progress callback.

Complexity: one run of the scenario per interleaving explored. Not re-entrant: frontrun patches
``threading`` and ``time`` process-wide while it runs, so one exploration at a time per process.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from frontier.check import trace
from frontier.check.scenarios import Scenario, World, get, verdict
from frontier.check.steady import steady_scheduling
from frontier.check.trace import MAX_BOUND  # the largest bound, a trace file's too

__all__ = ["DEFAULT_BOUND", "HOLDS", "INCONCLUSIVE", "MAX_BOUND", "VIOLATED", "ExploreError",
           "Outcome", "Progress", "explore", "replay"]

DEFAULT_BOUND = 1
"""Preemptions per interleaving by default: one preemption already finds the lost update and,
with the blocking switches (which are free), the lost wake-ups; two costs about five times as
many interleavings (measured on the scenarios, see the book's chapter "You are the scheduler")."""

HOLDS, VIOLATED, INCONCLUSIVE = "holds", "violated", "inconclusive"


class ExploreError(RuntimeError):
    """The exploration could not start (frontrun missing)."""


@dataclass
class Outcome:
    """What an exploration (or a replay) found.

    ``status`` is one of ``"holds"`` (the whole bounded space explored, no violation),
    ``"violated"`` (``broken`` and ``schedule`` say what and how) or ``"inconclusive"`` (the
    search stopped early: ``reason`` says why; ``interleavings`` were run and held). ``holds``
    is true only for ``"holds"``; an inconclusive outcome has ``holds`` false and ``broken``
    ``None``, so a caller that reads ``holds`` alone is never told "holds" when unsure.
    """

    frontier: str
    scenario: str
    bound: int | None
    holds: bool
    interleavings: int
    broken: str | None = None  # the invariant that broke, one line
    schedule: list[int] = field(default_factory=list)  # the counterexample
    events: list = field(default_factory=list)  # the replayed run's steps (frontrun TraceEvents)
    status: str = ""  # "holds" | "violated" | "inconclusive" (derived when left empty)
    reason: str | None = None  # why an inconclusive search stopped
    seconds: float = 0.0  # wall time of the search

    def __post_init__(self) -> None:
        if not self.status:
            self.status = HOLDS if self.holds else VIOLATED if self.broken else INCONCLUSIVE
        if self.status not in (HOLDS, VIOLATED, INCONCLUSIVE):
            raise ValueError(f"unknown status {self.status!r}")
        if self.holds != (self.status == HOLDS):
            raise ValueError(f"holds={self.holds} contradicts status {self.status!r}")

    spec: Scenario | None = field(default=None, repr=False)  # a scenario given as an object
    keys: dict = field(default_factory=dict, repr=False)  # event step -> object it touched
    values: dict = field(default_factory=dict, repr=False)  # event step -> value after it
    preemptions: int | None = None  # a shortest counterexample's preemptions (None: not sought)

    @property
    def inconclusive(self) -> bool:
        return self.status == INCONCLUSIVE

    def report(self, full: bool = False) -> str:
        """The text shown for this run (:func:`frontier.check.trace.report`): the scenario and
        its invariant, the interleaving one column per thread, and what broke; by default only
        the steps on the state the threads share (:func:`frontier.check.trace.focus`), ``full``
        for every step. A replay of the same schedule gives the same text. An inconclusive
        search has no interleaving to show: its text says what was run and why it stopped."""
        sc = self.spec or get(self.scenario)
        if self.status == INCONCLUSIVE:
            return (f"{self.frontier}, scenario {sc.name}: inconclusive ({self.reason}): "
                    f"{self.interleavings} interleavings run, none broken, but not the whole "
                    f"space within preemption bound {self.bound}\n")
        return trace.report(self.frontier, sc.name, sc.thread_names, sc.invariant, self.events,
                            self.broken, keys=self.keys, full=full)


@dataclass
class Progress:
    """Handed to a progress callback after each interleaving."""

    interleavings: int  # run so far
    elapsed: float  # seconds since the search began


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


class _Engine:
    """frontrun's DPOR engine, with the decision "is there a next interleaving" taken here.

    ``next_execution`` asks the real engine (built without a cap); when it has one more but
    ``limit`` interleavings were run or ``deadline`` (``time.monotonic``) has passed, it
    records why in ``cut`` and says no. Every other attribute is the real engine's.
    Not thread-safe beyond what frontrun's engine lock gives: frontrun calls
    ``next_execution`` from its driver loop only.
    """

    def __init__(self, real, limit: int | None, budget: float | None,
                 on_run: Callable[[int], None] | None, keep: bool = False) -> None:
        self._real = real
        self._limit, self._budget, self._on_run = limit, budget, on_run
        self._deadline = None if budget is None else time.monotonic() + budget
        self.runs = 0
        self.cut: str | None = None
        self._keep_schedules = keep
        self.schedules: list[list[int]] = []  # with keep: every interleaving run, replayable
        self._execution = None

    def begin_execution(self):
        self._execution = self._real.begin_execution()
        return self._execution

    def next_execution(self) -> bool:
        self.runs += 1
        if self._keep_schedules:
            self.schedules.append(list(self._execution.schedule_trace))
        if self._on_run is not None:
            self._on_run(self.runs)
        more = self._real.next_execution()
        if more and self._limit is not None and self.runs >= self._limit:
            self.cut = f"stopped at max_interleavings={self._limit}"
            return False
        if more and self._deadline is not None and time.monotonic() >= self._deadline:
            self.cut = f"the budget of {self._budget:g} s ran out"
            return False
        return more

    def __getattr__(self, name: str):
        """The real engine's attribute; a method is bound here once (the scheduler calls
        ``schedule`` and ``report_access`` at every step: a lookup through this method each
        time cost about 2% of an exploration's CPU)."""
        value = getattr(self._real, name)
        if callable(value):
            self.__dict__[name] = value
        return value


# The modules whose code runs inside frontrun's scheduler (this engine wrapper, the PCT
# chooser): never traced, or frontrun would schedule its own calls.
_UNTRACED = {str(Path(__file__).resolve().with_name(f)) for f in ("explore.py", "pct.py",
                                                                  "steady.py")}


@contextmanager
def untraced():
    """Keep frontrun's opcode tracing out of :data:`_UNTRACED` (frontrun's default filter
    otherwise, its answers memoized per file name: it is asked at every call of every
    function). Restores the filter on exit."""
    from frontrun import _tracing

    class _Filter(_tracing.TraceFilter):
        def __init__(self) -> None:
            super().__init__()
            self._seen: dict[str, bool] = dict.fromkeys(_UNTRACED, False)

        def should_trace_file(self, filename: str) -> bool:
            seen = self._seen.get(filename)
            if seen is None:
                seen = self._seen[filename] = super().should_trace_file(filename)
            return seen

    before = _tracing.get_active_trace_filter()
    _tracing.set_active_trace_filter(_Filter())
    try:
        yield
    finally:
        _tracing.set_active_trace_filter(None if before is _tracing._DEFAULT_FILTER else before)


KEEP_INSTRUCTIONS = True
"""Keep frontrun's disassembled instructions from one interleaving to the next. frontrun
clears its cache after every interleaving, a precaution from when the cache was keyed by
``id(code)`` (a freed code object's id could be reused); it is now keyed by the code object
itself, which the cache keeps alive, so an entry can never describe another code object and
clearing only costs a ``dis`` of every traced function again, every interleaving. False:
frontrun's own behaviour (``docs/explore_speed.py`` measures both)."""


def _keep() -> None:
    """Instead of frontrun's ``clear_instr_cache`` between interleavings: keep the cache."""


KEEP_IDS = True
"""Keep every object that frontrun gave a DPOR object id alive until the interleaving ends, so
that the same commit explores the same interleavings on every run. frontrun names the objects
a run touches by a counter (:class:`frontrun._opcode_observer.StableObjectIds`), looked up by
``id(obj)`` without holding the object: an object made during the run and freed (a list a
frontier builds inside a call, such as ``sliced``'s scan) leaves its address to the next one,
which then inherits its name and, with it, spurious dependencies on the dead object's
accesses. Whether an address is reused depends on the allocator's state, which frontrun's own
threads (waking and sleeping outside the schedule) change from run to run: ``sliced``'s
``lost-wakeup`` explored 1168 or 1169 interleavings (and 1186 at another commit) from run to
run. Held until the interleaving ends, an address is never reused within it, so an object's
name depends on the schedule alone. False: frontrun's own behaviour."""


def _kept_ids(base: type) -> type:
    """frontrun's ``StableObjectIds`` holding each object it names until
    ``reset_for_execution`` (:data:`KEEP_IDS`)."""

    class Kept(base):
        __slots__ = ("_kept",)

        def __init__(self) -> None:
            super().__init__()
            self._kept: list = []

        def get(self, obj: object) -> int:
            stable_id = self._map.get(id(obj))
            if stable_id is None:
                self._kept.append(obj)
                stable_id = self._map[id(obj)] = self._next_id
                self._next_id += 1
            return stable_id

        def reset_for_execution(self) -> None:
            super().reset_for_execution()
            self._kept.clear()

    return Kept


class _Unrecorded:
    """Instead of frontrun's ``TraceRecorder`` while searching: records nothing. frontrun
    records every shared access of every interleaving only to print the failing one's trace;
    the explorer replays a violation with its own recorder (:func:`replay`) and never reads
    frontrun's, so the search skips the recording (a ``record`` call per shared access)."""

    events: tuple = ()

    def record(self, *args, **kwargs) -> None:
        pass

    def record_io(self, *args, **kwargs) -> None:
        pass

    def __bool__(self) -> bool:
        return False


@contextmanager
def _engine_wrapped(limit, budget, on_run, keep=False):
    """Make frontrun's DPOR driver build :class:`_Engine` (frontrun's private
    ``_dpor_runtime.explore.make_dpor_engine``, patched here and only here), hold every
    object frontrun names until its interleaving ends (:data:`KEEP_IDS`), and keep
    frontrun's opcode tracing out of this module: traced, the wrapper's ``__getattr__`` would
    be scheduled inside frontrun's own engine calls and deadlock. Only this file: leaving the
    scenarios' bookkeeping untraced too was faster but made frontrun miss interleavings (the
    late lost update of tests/test_explore.py went unfound). Restores all of it on exit."""
    from frontrun._dpor_runtime import explore as driver

    made: list[_Engine] = []
    original = driver.make_dpor_engine

    def make(**kwargs):
        kwargs["max_executions"] = None
        made.append(_Engine(original(**kwargs), limit, budget, on_run, keep))
        return made[-1]

    clear, recorder, ids = driver.clear_instr_cache, driver.TraceRecorder, driver.StableObjectIds
    if KEEP_INSTRUCTIONS:
        driver.clear_instr_cache = _keep
    if KEEP_IDS:
        driver.StableObjectIds = _kept_ids(ids)
    driver.make_dpor_engine = make
    driver.TraceRecorder = _Unrecorded
    try:
        with untraced():
            yield made
    finally:
        driver.make_dpor_engine = original
        driver.clear_instr_cache = clear
        driver.TraceRecorder = recorder
        driver.StableObjectIds = ids


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
    budget: float | None = None,
    progress: Callable[[Progress], None] | None = None,
    shortest: bool = False,
) -> Outcome:
    """Explore ``scenario`` on frontier ``name`` with at most ``bound`` preemptions per
    interleaving (``None``: unbounded), stopping at the first violation, which it replays once
    to record its steps.

    ``max_interleavings`` and ``budget`` (seconds) stop the search early: the outcome is then
    ``"inconclusive"`` (never ``holds``) unless the space happened to end right there or a
    violation was found first. ``progress`` is called after every interleaving.
    ``shortest``: after a violation, return the shortest counterexample
    (:func:`shortest_counterexample`) instead of the first one found.
    :class:`ExploreError` if frontrun is missing.
    """
    import frontier

    frontier.info(name)  # UnknownFrontier before any work
    sc = _scenario(scenario)
    if not sc.applies(frontier.info(name)):
        raise ValueError(f"scenario {scenario!r} does not apply to frontier {name!r}")
    if max_interleavings is not None and max_interleavings < 1:
        raise ValueError(f"max_interleavings must be at least 1, got {max_interleavings}")
    _frontrun()
    start = time.monotonic()

    def on_run(n: int) -> None:
        if progress is not None:
            progress(Progress(n, time.monotonic() - start))

    result, cut = _search(sc, name, bound, max_interleavings, budget, on_run)
    seconds = time.monotonic() - start
    if result.property_holds is False:
        out = None
        if shortest:
            out = shortest_counterexample(name, sc, bound if bound is not None else 2)
        if out is None or out.holds:
            out = replay(name, sc, list(result.counterexample or []))
        out.bound, out.interleavings = bound, result.num_explored
        out.seconds = time.monotonic() - start
        return out
    if cut is not None:
        return Outcome(name, sc.name, bound, False, result.num_explored, status=INCONCLUSIVE,
                       reason=cut, seconds=seconds, spec=sc)
    return Outcome(name, sc.name, bound, True, result.num_explored, seconds=seconds, spec=sc)


def every_schedule(name: str, scenario: str | Scenario, bound: int | None = DEFAULT_BOUND,
                   cap: int | None = None) -> tuple[list[list[int]], str | None]:
    """The schedule of every interleaving of the bounded space (each replays with
    :func:`replay`), and why the search stopped early (``None``: it covered the space)."""
    sc = _scenario(scenario)
    engines: list[_Engine] = []
    result, cut = _search(sc, name, bound, cap, None, None, stop_on_first=False,
                          invariant=lambda w: True, engines=engines)
    return engines[0].schedules if engines else [], cut


def _search(sc: Scenario, name: str, bound: int | None, cap: int | None,
            budget: float | None, on_run, stop_on_first: bool = True, invariant=None,
            engines: list | None = None):
    """One frontrun DPOR search of ``sc`` on ``name``: frontrun's result, and why the search
    was cut short (``None``: it covered the bounded space or found a violation).
    ``invariant`` (world -> bool) replaces the scenario's verdict."""
    frontrun, patch_locks, unpatch_locks = _frontrun()
    worlds: list[World] = []
    patch_locks()
    try:
        with _engine_wrapped(cap, budget, on_run, keep=engines is not None) as made, \
                steady_scheduling():
            result = frontrun.explore(
                setup=_setup(sc, name, worlds),
                workers=sc.workers(),
                invariant=invariant or (lambda w: verdict(sc, w) is None),
                preemption_bound=bound,
                clock="virtual",
                detect_io=False,
                reproduce_on_failure=0,
                stop_on_first=stop_on_first,
            )
    finally:
        unpatch_locks()
    if engines is not None:
        engines.extend(made)
    if result.property_holds is False:
        return result, None
    cut = made[0].cut if made else "frontrun did not start its engine"
    if result.property_holds is None:
        cut = result.inconclusive_reason or "frontrun could not conclude"
    return result, cut


SHORTEST_CAP = 3000
"""Interleavings the shortest-counterexample search runs at each bound, at most."""


def shortest_counterexample(name: str, scenario: str | Scenario, bound: int,
                            cap: int = SHORTEST_CAP) -> Outcome | None:
    """The violating interleaving with the fewest preemptions, then the fewest scheduling
    steps, within ``bound`` (CHESS's iterative preemption bounding): every interleaving with
    0 preemptions, then 1, ... up to ``bound``, and at the first bound with violations, the
    one of them with the shortest schedule, replayed. ``None`` if none was found within
    ``cap`` interleavings per bound. Its ``preemptions`` says the bound it was found at
    (fewest when that bound's space was covered: ``reason`` says so otherwise).
    Cost: the interleavings of every bound below the answer's, plus up to ``cap`` at it."""
    sc = _scenario(scenario)
    for b in range(bound + 1):
        result, cut = _search(sc, name, b, cap, None, None, stop_on_first=False)
        if not result.failures:
            continue
        best = min((list(s) for _, s in result.failures), key=len)
        out = replay(name, sc, best)
        if out.holds:  # frontrun's schedule did not replay: keep looking at this bound
            continue
        out.preemptions = b
        if cut is not None:
            out.reason = f"shortest among the first {result.num_explored} at bound {b}"
        return out
    return None


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
    recorder = _keyed_recorder(TraceRecorder)()
    patch_locks()
    try:
        try:
            with untraced(), steady_scheduling():
                _replay_schedule(schedule, _setup(sc, name, worlds), sc.workers(), recorder)
            recorder.settle()
            broken = verdict(sc, worlds[-1])
        except DeadlockError as exc:
            stuck = [t for t, log in worlds[-1].logs.items() if not log or log[-1][0] != "done"]
            broken = f"deadlock: {', '.join(stuck)} blocked for ever ({exc.cycle_description})"
    finally:
        unpatch_locks()
    return Outcome(name, sc.name, None, broken is None, 1, broken, list(schedule),
                   list(recorder.events), spec=sc, keys=dict(recorder.keys),
                   values=dict(recorder.values))


def _keyed_recorder(base: type) -> type:
    """frontrun's trace recorder, also noting *which* object each event touched (a label,
    ``Type#n`` in order of first touch), so that :func:`frontier.check.trace.focus` can tell
    state the threads share from state each has its own copy of. A ``threading.local`` is
    each thread's own by definition: its events get no label."""
    import threading

    class Keyed(base):
        def __init__(self) -> None:
            super().__init__()
            self.keys: dict[int, str] = {}
            self.values: dict[int, str] = {}  # event step -> the attribute's value after it
            self._labels: dict[int, str] = {}
            self._alive: list = []  # keeps labelled objects alive, so no id is reused
            self._after: dict[int, list] = {}  # thread -> its events whose value is due

        def settle(self, thread_id=None) -> None:
            """Read the values after the events of ``thread_id`` (all threads: None). A
            thread's event has run by its next record: the thread ran in between, alone."""
            for t in [thread_id] if thread_id is not None else list(self._after):
                for step, obj, attr in self._after.pop(t, []):
                    try:
                        value = getattr(obj, attr)
                    except Exception:  # noqa: BLE001 - a value that cannot be read is left out
                        continue
                    if isinstance(value, (bool, int, float, str, type(None))):
                        self.values[step] = repr(value)
                    elif isinstance(value, (list, tuple)) and len(value) <= 8:
                        self.values[step] = repr([v if isinstance(v, (int, str, type(None)))
                                                  else type(v).__name__ for v in value])

        def record(self, thread_id, frame, opcode=None, access_type=None, attr_name=None,
                   obj=None, obj_type_name=None, call_chain=None):
            self.settle(thread_id)
            n = len(self.events)
            super().record(thread_id, frame, opcode=opcode, access_type=access_type,
                           attr_name=attr_name, obj=obj, obj_type_name=obj_type_name,
                           call_chain=call_chain)
            if obj is None or len(self.events) == n or isinstance(obj, threading.local):
                return
            label = self._labels.get(id(obj))
            if label is None:
                label = self._labels[id(obj)] = f"{type(obj).__name__}#{len(self._labels)}"
                self._alive.append(obj)
            self.keys[self.events[-1].step_index] = label
            self._after.setdefault(thread_id, []).append(
                (self.events[-1].step_index, obj, attr_name))

    return Keyed
