"""Evidence the judge checks itself: the operations it asked a frontier for, and the answers.

The judge writes a few *plans* (:func:`make_plans`: producers with URLs carrying a fresh nonce,
consumers, a capacity, how ``close`` comes); a check in the child runs one plan on the
submission's class with many threads and a one-microsecond switch interval (:func:`execute`),
timing every call, and sends the log back; the judge verifies it (:func:`verify`) against the
plan it holds. The properties, each decided from the log alone (sound: a correct frontier never
breaks one, whatever the machine's load):

* every thread finished (none blocked for ever);
* no call raised what the contract does not allow (``Closed`` only once ``close()`` began);
* a ``put`` that began after ``close()`` returned raised ``Closed``;
* every URL accepted came out exactly once, and nothing came out that was not put;
* ``get`` returned ``None`` only after ``close()`` began, and never while a URL was left;
* never more than ``capacity`` URLs inside: at the end of each put, the puts finished so far
  minus the URLs taken by calls begun so far is a lower bound of what is inside;
* FIFO in real time: if ``put(a)`` returned before ``put(b)`` began, ``b`` is not handed out by
  a call that returned before the one handing out ``a`` began;
* the counters: ``stats.puts`` and ``stats.gets`` equal what the log shows; ``_check()`` holds.

Complexity: :func:`verify` is O(n log n) plus O(n^2) for FIFO pairs, n the URLs of a plan (a few
hundred).
"""

from __future__ import annotations

import contextlib
import json
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable

from exercises.counters import switching
from exercises.noise import noise
from exercises.policy import HIDDEN

__all__ = ["PLANS", "execute", "hidden_shapes", "make_plans", "needs_evidence", "verify"]

PLANS = 6
"""Public plans per grading (the check ``test_history`` is parametrized over them): one per
row of :data:`PUBLIC`."""
HIDDEN_SHAPES = HIDDEN / "plans.json"
"""The shapes of the hidden plans (the instructor's copy only; the student kit has no such
file, so a student's copy of this module says nothing of them)."""
JOIN = 5.0
"""Seconds a thread of a plan may take before it counts as blocked for ever."""


def needs_evidence(check_id: str) -> bool:
    """Checks whose pass the judge decides from their evidence."""
    return "::test_history[" in check_id


def hidden_shapes() -> list[dict]:
    """The hidden plans' shapes, or ``[]`` where this copy of the course has none."""
    if not HIDDEN_SHAPES.is_file():
        return []
    return json.loads(HIDDEN_SHAPES.read_text(encoding="utf-8"))


PUBLIC = [
    # mode, capacity, noise, burst: consumers start once the producers are done or blocked
    ("orderly", 1, 0.0, False), ("racing", 2, 0.05, False), ("bulk", 3, 0.0, False),
    ("orderly", 64, 0.05, True), ("racing", 5, 0.0, False), ("bulk", 30, 0.05, True),
]


def make_plans(nonce: str) -> list[dict]:
    """The plans of one grading (public, then hidden where this copy has them); URLs carry
    ``nonce`` so no answer can be prepared ahead. In ``bulk`` plans the producers use
    ``put_many`` and the consumers ``get_many``; ``racing`` plans close while producers put;
    ``burst`` plans let the producers fill the frontier before any consumer starts."""
    shapes = []
    for k, (mode, capacity, shake, burst) in enumerate(PUBLIC):
        rng = random.Random(k)
        per = rng.randint(40, 80)
        shapes.append({
            "id": k, "mode": mode, "capacity": capacity, "producers": rng.randint(2, 4),
            "per": per, "consumers": rng.randint(1, 4), "close_after": rng.randint(5, per),
            "noise": shake, "burst": burst})
    return [_plan(shape, nonce) for shape in [*shapes, *hidden_shapes()]]


def _plan(shape: dict, nonce: str) -> dict:
    # the shape of the threaded checks' URLs (tests/test_frontier_threads.py), their token a
    # fresh one per run too: a file cannot tell the judge's plans by their URLs
    return {**shape, "producers": [[f"http://site{p}.test/{nonce}/{i}" for i in range(shape["per"])]
                                   for p in range(shape["producers"])]}


# --------------------------------------------------------------------------------------------
# In the child: run a plan


def execute(plan: dict, make, files: Iterable[str] = ()) -> dict:
    """Run ``plan`` on the frontier ``make(capacity)`` gives; the log the judge verifies. The
    counters offer a thread switch at their reads (:func:`exercises.counters.switching`, as in
    every check of a grading: at every read of a plan, which stays below its ``FULL``), and a
    plan with ``noise`` runs with switches offered at random bytecodes of ``files`` (the graded
    file: :mod:`exercises.noise`)."""
    f = make(plan["capacity"])
    logs: list[list] = []
    pending: dict[str, list] = {}
    lock = threading.Lock()
    clock = time.perf_counter
    closing = threading.Event()

    def call(thread: str, op: str, arg, fn):
        pending[thread] = [op, arg]
        t0 = clock()
        try:
            result, error = fn(), None
        except Exception as exc:  # the judge decides whether the contract allowed it
            result, error = None, f"{type(exc).__name__}: {str(exc)[:200]}"
        t1 = clock()
        pending.pop(thread, None)
        with lock:
            logs.append([thread, op, arg, result, error, t0, t1])
        return result, error

    def producer(p: int, urls: list[str]) -> None:
        if plan["mode"] == "bulk":  # put_many, three at a time
            for i in range(0, len(urls), 3):
                batch = urls[i:i + 3]
                _, error = call(f"P{p}", "put_many", batch,
                                lambda b=batch: f.put_many([(u, 0.0) for u in b]))
                if error:
                    return
            return
        for i, url in enumerate(urls):
            _, error = call(f"P{p}", "put", url, lambda u=url: f.put(u))
            if p == 0 and i + 1 == plan["close_after"]:
                closing.set()
            if error:
                return
        closing.set()

    producers_done = threading.Event()

    def consumer(c: int) -> None:
        me = f"C{c}"
        if plan.get("burst"):  # let the producers fill it (or block) first
            producers_done.wait(0.3)
        while True:
            if plan["mode"] == "bulk":
                batch, error = call(me, "get_many", 3, lambda: f.get_many(3))
                if error:
                    return
                if batch:
                    continue
            url, error = call(me, "get", None, f.get)
            if error or url is None:
                return

    def closer() -> None:
        closing.wait(JOIN)
        call("X", "close", None, f.close)

    shaken = (noise(files, plan["noise"], plan["id"]) if plan.get("noise")
              else contextlib.nullcontext())
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with switching(), shaken:
            producers = [threading.Thread(target=producer, args=(p, urls), daemon=True)
                         for p, urls in enumerate(plan["producers"])]
            consumers = [threading.Thread(target=consumer, args=(c,), daemon=True)
                         for c in range(plan["consumers"])]
            extra = ([threading.Thread(target=closer, daemon=True)]
                     if plan["mode"] == "racing" else [])
            # consumers first where they need not wait for a burst: they then find the
            # frontier empty and wait, and a woken getter meets the URLs put meanwhile (a
            # getter that took the newest after a wait passed 6 of 12 gradings otherwise)
            first = producers + consumers if plan.get("burst") else consumers + producers
            for t in first + extra:
                t.start()
            deadline = time.monotonic() + JOIN
            for t in producers:
                t.join(max(0.0, deadline - time.monotonic()))
            producers_done.set()
            for t in extra:
                t.join(max(0.0, deadline - time.monotonic()))
            if plan["mode"] != "racing":
                call("X", "close", None, f.close)
            for t in consumers:
                t.join(max(0.0, deadline - time.monotonic()))
    finally:
        sys.setswitchinterval(old)
    stuck = [[name, *what] for name, what in list(pending.items())]
    drained: list = []
    if not stuck:
        drained, _ = call("main", "drain", None, lambda: list(f.get_many(1_000_000)))
    stats = getattr(f, "stats", None)
    check_error = None
    if not stuck and hasattr(f, "_check"):
        try:
            f._check()
        except Exception as exc:
            check_error = f"{type(exc).__name__}: {exc}"
    return {"plan": plan["id"], "log": logs, "stuck": stuck,
            "stats": {"puts": getattr(stats, "puts", None), "gets": getattr(stats, "gets", None)},
            "len": None if stuck else _length(f), "check_error": check_error,
            "drained": drained or []}


def _length(f) -> int | None:
    try:
        return len(f)
    except Exception:
        return None


# --------------------------------------------------------------------------------------------
# In the judge: verify a log


def verify(data: dict, plans: list[dict] | None = None, *, bounded: bool = True) -> list[str]:
    """What the log ``data`` shows broken (empty: every property holds). ``plans``: the
    judge's own plans (the log's plan is looked up there, never taken from the log)."""
    try:
        return _verify(data, plans, bounded)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        return [f"the evidence is malformed ({type(exc).__name__}: {exc})"]


def _verify(data: dict, plans: list[dict] | None, bounded: bool) -> list[str]:
    plan = next((p for p in plans if p["id"] == data["plan"]), None) if plans else None
    log = [tuple(e) for e in data["log"]]
    problems: list[str] = []
    if data["stuck"]:
        who = ", ".join(f"{t}'s {op}({'' if a is None else a})" for t, op, a in data["stuck"])
        problems.append(f"{who} never returned within {JOIN:g} s while the other threads were "
                        "done or asleep (a deadlock or a lost wake-up)")
        return problems
    closes = [e for e in log if e[1] == "close"]
    close_t0 = min((e[5] for e in closes), default=float("inf"))
    close_t1 = min((e[6] for e in closes), default=float("inf"))
    planned = {u for urls in plan["producers"] for u in urls} if plan else None
    accepted, out = [], []
    takes: list[tuple[float, float, list[str]]] = []  # (t0, t1, urls) of calls that took
    put_time: dict[str, tuple[float, float]] = {}
    maybe: list[str] = []  # URLs of a put_many that raised: each may be in, or not
    for thread, op, arg, result, error, t0, t1 in log:
        if op == "put_many":
            if error:
                if not (error.startswith("Closed") and close_t0 < t1):
                    problems.append(f"{thread}'s put_many({arg}) raised {error}")
                maybe.extend(arg)
            else:
                for u in arg:
                    accepted.append(u)
                    put_time[u] = (t0, t1)
                if t0 > close_t1:
                    problems.append(f"{thread}'s put_many({arg}) began after close() had "
                                    "returned, yet it returned normally: it must raise Closed")
        elif op == "put":
            if error and not (error.startswith("Closed") and close_t0 < t1):
                problems.append(f"{thread}'s put({arg}) raised {error}")
            elif not error:
                accepted.append(arg)
                put_time[arg] = (t0, t1)
                if t0 > close_t1:
                    problems.append(f"{thread}'s put({arg}) began after close() had returned, "
                                    "yet it returned normally: it must raise Closed")
        elif error:
            problems.append(f"{thread}'s {op}() raised {error}")
        elif op == "get" and result is None:
            if t1 < close_t0:
                problems.append(f"{thread}'s get() returned None while the frontier was open "
                                "(close() was called only later): None means closed and "
                                "drained")
        elif op in ("get", "get_many", "drain"):
            urls = [result] if op == "get" else list(result)
            if op == "get_many" and arg is not None and len(urls) > arg:
                problems.append(f"{thread}'s get_many({arg}) returned {len(urls)} URLs")
            out.extend(urls)
            takes.append((t0, t1, urls))
    cin, cout = Counter(accepted), Counter(out)
    lost = sorted((cin - cout).elements())
    extra = sorted((cout - cin - Counter(set(maybe))).elements())
    if lost:
        problems.append(f"{len(lost)} URL(s) accepted by put() never came out (lost), "
                        f"e.g. {lost[0]}")
    if extra:
        what = "came out more often than they went in"
        if planned is not None and any(u not in planned for u in extra):
            what = "came out though nobody put them"
        problems.append(f"{len(extra)} URL(s) {what}, e.g. {extra[0]}")
    drained = [e for e in log if e[1] == "drain"]
    nones = [e for e in log if e[1] == "get" and e[3] is None and not e[4]]
    if plan and plan["mode"] != "racing" and nones and drained and drained[0][3]:
        problems.append(f"{nones[0][0]}'s get() returned None while {len(drained[0][3])} "
                        f"URL(s) were still in the frontier (e.g. {drained[0][3][0]}): None "
                        "means closed *and* drained")
    if bounded and plan:
        problems += _capacity(accepted, put_time, takes, plan["capacity"])
    problems += _fifo(put_time, takes)
    stats = data.get("stats") or {}
    in_maybe = sum(1 for u in set(maybe) if u in cout)
    if stats.get("puts") != len(accepted) + in_maybe and not (
            maybe and len(accepted) <= (stats.get("puts") or 0) <= len(accepted) + len(maybe)):
        problems.append(f"stats.puts is {stats.get('puts')} but {len(accepted)} puts returned "
                        "normally: a counter updated outside the lock loses updates")
    if stats.get("gets") != len(out):
        problems.append(f"stats.gets is {stats.get('gets')} but {len(out)} URLs were handed "
                        "out: a counter updated outside the lock loses updates")
    if data.get("len") not in (0, None):
        problems.append(f"len() is {data['len']} after everything was drained")
    if data.get("check_error"):
        problems.append(f"_check() failed after the run: {data['check_error']}")
    return problems


def _capacity(accepted, put_time, takes, capacity: int) -> list[str]:
    events = sorted([(put_time[u][1], 1) for u in accepted]
                    + [(t0, -len(urls)) for t0, _, urls in takes], key=lambda e: (e[0], e[1]))
    inside = worst = 0
    for _, delta in events:
        inside += delta
        worst = max(worst, inside)
    if worst > capacity:
        return [f"at least {worst} URLs were in the frontier at once, but its capacity is "
                f"{capacity} (a put that did not wait while full, or waited with `if` instead "
                "of `while`)"]
    return []


def _fifo(put_time, takes) -> list[str]:
    taken_by = {}
    for t0, t1, urls in takes:
        for i, u in enumerate(urls):
            taken_by.setdefault(u, (t0, t1, i))
    items = sorted((put_time[u][1], put_time[u][0], u) for u in taken_by if u in put_time)
    for i, (a_end, _, a) in enumerate(items):
        a_t0, _, a_pos = taken_by[a]
        for _, b_start, b in items[i + 1:]:
            if b_start <= a_end:
                continue
            b_t0, b_t1, b_pos = taken_by[b]
            same_call = b_t0 == a_t0 and b_t1 == taken_by[a][1]
            if (b_t1 < a_t0) or (same_call and b_pos < a_pos):
                return [f"{b} came out before {a}, though put({a}) had returned before "
                        f"put({b}) began: not FIFO"]
    return []
