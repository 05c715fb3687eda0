"""Linearizability: record real concurrent histories, check them against the sequential
specification.

A *history* is every operation's invocation and response, stamped with
:func:`time.monotonic_ns` by the thread that made it, under real scheduling. Real scheduling
alone seldom switches threads *inside* a frontier's operation: under the GIL a thread lets go
only at a call or a backward jump, and a racy ``push`` of a few bytecodes has neither. So the
recorder adds *noise*, as IBM's ConTest does for Java: before each line the frontier's own code
runs, a thread yields its processor with probability ``noise`` (a seeded coin per thread). The
yields move no operation's result, only *when* threads run, so a correct frontier stays
linearizable and a racy one shows its races in a few runs instead of one in hundreds.

A history is *linearizable* if each operation can be given one instant between its invocation
and its response so that, in the order of those instants, the operations do what the
sequential specification says (Herlihy and Wing, 1990).

The check is Wing and Gong's search (1993) with Lowe's memoization (2017), as Porcupine does
it: repeatedly pick an operation that may go first (invoked before every pending operation
responded), apply it to the specification, and backtrack on a mismatch; a set of (operations
done, specification state) pairs already explored cuts the search. Worst case exponential in
the operations that overlap; a few threads of non-blocking operations stay small.

Specifications (:func:`spec_of`): ``fifo`` (a ``get`` returns the oldest URL, or "empty" only
when there is none) and ``priority`` (a ``get`` returns a URL of the largest priority present;
ties are allowed either way -- a weaker spec than the FIFO-among-equals the frontiers keep, which
the histories never need since their priorities are distinct). ``cbt`` and ``quickheap`` are
exact priority queues here (the relaxed MultiQueue of :mod:`frontier.slices` is not a registered
frontier), so all three priority frontiers take the ``priority`` specification. ``sliced``
promises less than FIFO and states it (its class's ``specification``): ``per-putter-fifo``, a
``get`` returns the oldest URL of *some* putter.

A search that needs more than ``budget`` steps gives up and says so (``undecided``): a history
whose operations all overlap can take exponential time, and a check must never hang.
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time
from dataclasses import dataclass, field

import frontier
from frontier.userclass import broken_contract

__all__ = ["DEFAULT_BUDGET", "DEFAULT_NOISE", "DEFAULT_OPS", "DEFAULT_RUNS", "DEFAULT_THREADS",
           "RECORD_PATIENCE", "Check", "Op", "check", "record", "spec_of"]

DEFAULT_THREADS = 4
DEFAULT_OPS = 30
DEFAULT_RUNS = 100
DEFAULT_NOISE = 0.05  # probability of a yield before each line of the frontier's code
DEFAULT_BUDGET = 200_000  # search steps per history before the verdict is "undecided"
#: Seconds one history's threads may take in all: a frontier whose put or non-blocking get
#: never returns fails the run, naming its file, instead of holding the check for ever.
RECORD_PATIENCE = 60.0

_FRONTIER_DIR = os.path.dirname(os.path.abspath(frontier.__file__)) + os.sep
_CHECK_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


@dataclass(frozen=True)
class Op:
    """One operation of a history. ``kind`` is ``"put"`` (``url``, ``priority`` given) or
    ``"get"`` (``url`` returned, ``None`` for "empty")."""

    thread: int
    kind: str
    url: str | None
    priority: float
    invoke: int  # ns, time.monotonic_ns
    response: int


@dataclass
class Check:
    """The verdict on one history: ``ok``, or why not and which operations could not go next."""

    ok: bool
    undecided: bool = False  # the search ran out of budget: neither verdict is shown
    reason: str = ""
    linearized: int = 0  # operations in the longest prefix found
    offending: list[int] = field(default_factory=list)  # indices into the history


def spec_of(name: str) -> str:
    """The sequential specification of frontier ``name``: its class's ``specification`` if it
    states one (``"per-putter-fifo"`` for ``sliced``), else its ``ordering`` (``"fifo"`` or
    ``"priority"``)."""
    cls = frontier.info(name)
    return getattr(cls, "specification", None) or cls.ordering


def _noise_tracer(noise: float, seed: int):
    """A :func:`threading.settrace` function: in the frontier package's code (not this
    checker's), yield the processor before a line with probability ``noise``; each thread
    draws from its own coin, seeded from ``seed`` and the order threads first enter."""
    coins = threading.local()
    entered = iter(range(1 << 30))
    sleep = time.sleep

    def line(frame, event, arg):
        if event == "line" and coins.rng.random() < noise:
            sleep(0)  # releases the GIL (or the core): another thread may run now
        return line

    def call(frame, event, arg):
        path = frame.f_code.co_filename
        if not path.startswith(_FRONTIER_DIR) or path.startswith(_CHECK_DIR):
            return None
        if not hasattr(coins, "rng"):
            coins.rng = random.Random(seed * 1000 + next(entered))
        return line

    return call


def record(name: str, *, threads: int = DEFAULT_THREADS, ops: int = DEFAULT_OPS,
           seed: int = 0, noise: float = DEFAULT_NOISE) -> list[Op]:
    """One history of ``threads`` threads doing ``ops`` random operations each on a fresh
    frontier ``name`` (half puts of distinct URLs and priorities, half non-blocking gets),
    with ``noise`` (0 for none; see the module docstring). Capacity ``threads * ops`` so no
    put waits."""
    if not 0 <= noise <= 1:
        raise ValueError(f"noise must be a probability in [0, 1], got {noise!r}")
    cls = frontier.info(name)
    f = (frontier.create(name, capacity=threads * ops) if cls.bounded
         else frontier.create(name))
    rng = random.Random(seed)
    plans = [[(rng.random() < 0.5, rng.random()) for _ in range(ops)] for _ in range(threads)]
    logs: list[list[Op]] = [[] for _ in range(threads)]
    start = threading.Barrier(threads)
    clock = time.monotonic_ns

    failures: list[BaseException] = []  # what a recording thread raised: the run fails

    def body(t: int) -> None:
        try:
            play(t)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            failures.append(exc)

    def play(t: int) -> None:
        log, n = logs[t], 0
        start.wait()
        for is_put, priority in plans[t]:
            if is_put:
                url = f"t{t}-{n}"
                n += 1
                a = clock()
                f.put(url, priority)
                log.append(Op(t, "put", url, priority, a, clock()))
            else:
                a = clock()
                try:
                    got = f.get(timeout=0)
                except frontier.Empty:
                    got = None
                log.append(Op(t, "get", got, 0.0, a, clock()))

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        workers = [threading.Thread(target=body, args=(t,), daemon=True) for t in range(threads)]
        if noise:
            threading.settrace(_noise_tracer(noise, seed))  # for the threads started next
        try:
            for w in workers:
                w.start()
        finally:
            threading.settrace(None)
        deadline = time.monotonic() + RECORD_PATIENCE  # for the whole history, not each
        for w in workers:
            w.join(max(0.0, deadline - time.monotonic()))
        if any(w.is_alive() for w in workers):
            raise broken_contract(f, f"a thread of a history still ran after "
                                  f"{RECORD_PATIENCE:g} s: its put, or its get(timeout=0), "
                                  "never returned (a lock never released?)")
    finally:
        sys.setswitchinterval(old)
    if failures:  # a history with a failed operation in it is no history of the frontier
        raise failures[0]
    return sorted((op for log in logs for op in log), key=lambda o: o.invoke)


def _apply(spec: str, state: tuple, op: Op, prio: dict[str, float],
           putter: dict[str, int]) -> tuple | None:
    """The state after ``op``, or ``None`` if the specification forbids its result."""
    if op.kind == "put":
        return state + (op.url,)
    if op.url is None:
        return state if not state else None
    if op.url not in state:
        return None
    i = state.index(op.url)
    if spec == "fifo" and i:
        return None
    if spec == "per-putter-fifo" and any(putter[u] == putter[op.url] for u in state[:i]):
        return None  # an older URL of the same putter is still in
    if spec == "priority" and prio[op.url] != max(prio[u] for u in state):
        return None
    return state[:i] + state[i + 1:]


def check(history: list[Op], spec: str, budget: int = DEFAULT_BUDGET) -> Check:
    """Wing-Gong search with memoization over ``history`` (sorted by invocation). After
    ``budget`` search steps without a verdict, gives up: ``undecided``."""
    n = len(history)
    prio = {op.url: op.priority for op in history if op.kind == "put"}
    putter = {op.url: op.thread for op in history if op.kind == "put"}
    # Which candidate to try first: a get by its response, a put by the response of the get
    # that took its URL (so puts go in in the order their URLs came out; never taken: last).
    taken = {op.url: op.response for op in history if op.kind == "get" and op.url is not None}
    order = [op.response if op.kind == "get" else taken.get(op.url, float("inf"))
             for op in history]
    seen: set[tuple[int, tuple]] = set()
    best = Check(False, linearized=-1)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * n + 100))

    class OutOfBudget(Exception):
        pass

    def key(state: tuple) -> tuple:
        return tuple(sorted(state)) if spec == "priority" else state

    def search(done: int, state: tuple, count: int) -> bool:
        if count == n:
            return True
        if (done, key(state)) in seen:
            return False
        if len(seen) >= budget:
            raise OutOfBudget
        seen.add((done, key(state)))
        pending = [i for i in range(n) if not done >> i & 1]
        first_response = min(history[i].response for i in pending)
        candidates = sorted((i for i in pending if history[i].invoke <= first_response),
                            key=order.__getitem__)
        for i in candidates:
            nxt = _apply(spec, state, history[i], prio, putter)
            if nxt is not None and search(done | 1 << i, nxt, count + 1):
                return True
        if count > best.linearized:
            best.linearized, best.offending = count, candidates
            best.reason = _why(history, candidates, state, spec)
        return False

    try:
        if search(0, (), 0):
            return Check(True, linearized=n)
    except OutOfBudget:
        return Check(False, undecided=True, linearized=best.linearized,
                     reason=f"undecided: no verdict within {budget:,} search steps")
    return best


def _why(history: list[Op], candidates: list[int], state: tuple, spec: str) -> str:
    ops = ", ".join(_label(history[i]) for i in candidates)
    content = ", ".join(state) if state else "nothing"
    return (f"after {spec} order explains the operations before them, none of [{ops}] can go "
            f"next (the frontier then holds {content})")


def _label(op: Op) -> str:
    if op.kind == "put":
        return f"put {op.url}"
    return f"get -> {op.url or 'empty'}"
