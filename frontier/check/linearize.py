"""Linearizability: record real concurrent histories, check them against the sequential
specification.

A *history* is every operation's invocation and response, stamped with
:func:`time.monotonic_ns` by the thread that made it, under real scheduling (a one-microsecond
switch interval makes threads interleave often). It is *linearizable* if each operation can be
given one instant between its invocation and its response so that, in the order of those
instants, the operations do what the sequential specification says (Herlihy and Wing, 1990).

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
frontier), so all three priority frontiers take the ``priority`` specification.
"""

from __future__ import annotations

import random
import sys
import threading
import time
from dataclasses import dataclass, field

import frontier

__all__ = ["DEFAULT_OPS", "DEFAULT_RUNS", "DEFAULT_THREADS", "Check", "Op", "check", "record",
           "spec_of"]

DEFAULT_THREADS = 4
DEFAULT_OPS = 30
DEFAULT_RUNS = 100


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
    reason: str = ""
    linearized: int = 0  # operations in the longest prefix found
    offending: list[int] = field(default_factory=list)  # indices into the history


def spec_of(name: str) -> str:
    """``"fifo"`` or ``"priority"``: the sequential specification of frontier ``name``."""
    return frontier.info(name).ordering


def record(name: str, *, threads: int = DEFAULT_THREADS, ops: int = DEFAULT_OPS,
           seed: int = 0) -> list[Op]:
    """One history of ``threads`` threads doing ``ops`` random operations each on a fresh
    frontier ``name`` (half puts of distinct URLs and priorities, half non-blocking gets).
    Capacity ``threads * ops`` so no put waits."""
    cls = frontier.info(name)
    f = (frontier.create(name, capacity=threads * ops) if cls.bounded
         else frontier.create(name))
    rng = random.Random(seed)
    plans = [[(rng.random() < 0.5, rng.random()) for _ in range(ops)] for _ in range(threads)]
    logs: list[list[Op]] = [[] for _ in range(threads)]
    start = threading.Barrier(threads)
    clock = time.monotonic_ns

    def body(t: int) -> None:
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
        for w in workers:
            w.start()
        for w in workers:
            w.join(60)
        if any(w.is_alive() for w in workers):
            raise RuntimeError(f"{name}: a recording thread is still running after 60 s")
    finally:
        sys.setswitchinterval(old)
    return sorted((op for log in logs for op in log), key=lambda o: o.invoke)


def _apply(spec: str, state: tuple, op: Op, prio: dict[str, float]) -> tuple | None:
    """The state after ``op``, or ``None`` if the specification forbids its result."""
    if op.kind == "put":
        return state + (op.url,)
    if op.url is None:
        return state if not state else None
    if op.url not in state:
        return None
    if spec == "fifo":
        return state[1:] if state[0] == op.url else None
    best = max(prio[u] for u in state)
    if prio[op.url] != best:
        return None
    i = state.index(op.url)
    return state[:i] + state[i + 1:]


def check(history: list[Op], spec: str) -> Check:
    """Wing-Gong search with memoization over ``history`` (sorted by invocation)."""
    n = len(history)
    prio = {op.url: op.priority for op in history if op.kind == "put"}
    seen: set[tuple[int, tuple]] = set()
    best = Check(False, linearized=-1)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * n + 100))

    def key(state: tuple) -> tuple:
        return state if spec == "fifo" else tuple(sorted(state))

    def search(done: int, state: tuple, count: int) -> bool:
        if count == n:
            return True
        if (done, key(state)) in seen:
            return False
        seen.add((done, key(state)))
        pending = [i for i in range(n) if not done >> i & 1]
        first_response = min(history[i].response for i in pending)
        candidates = [i for i in pending if history[i].invoke <= first_response]
        for i in candidates:
            nxt = _apply(spec, state, history[i], prio)
            if nxt is not None and search(done | 1 << i, nxt, count + 1):
                return True
        if count > best.linearized:
            best.linearized, best.offending = count, candidates
            best.reason = _why(history, candidates, state, spec)
        return False

    if search(0, (), 0):
        return Check(True, linearized=n)
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
