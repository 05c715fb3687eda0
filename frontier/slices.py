"""T slices: one priority queue cut into T independent queues (Section 3.1 and 4.3 of the paper).

:class:`Slices` keeps ``T`` storages (``heap``, ``cbt`` or ``quickheap``). *insert-many(M)*
shuffles the M keys and deals ``M/T`` to each slice; *extract-top(R)* takes ``R/T`` from each and
merges them best first. Nothing is shared between slices, so the ``T`` pieces of work can run at
once -- in processes (:func:`run_supersteps` with ``mode="process"``); threads
(``mode="thread"``) are the control that shows the GIL. The result of extract-top(R) is only an
approximation of the true top R: a slice may hold more than ``R/T`` of them.

Per-slice work counters (comparisons when the storages count them, and seconds) give the
*load-balance efficiency* of the paper's Table 1: summed over supersteps, the average work of a
slice divided by the maximum (1.0 = perfect balance).

Beyond the paper, ``policy="two-choice"`` is the MultiQueue relaxation (Rihani, Sanders and
Dementiev, 2015): each slice keeps a small buffer of its best keys, and every single deletion
looks at two random slices and takes from the one whose best key is better. It answers the
paper's open question the other way round: instead of forcing ``R/T`` out of each slice
whatever its keys are worth, it lets the better slices give more. :func:`rank_errors` measures
how far either policy is from an exact queue.

Ties: each slice keeps FIFO order among its own equal priorities (under two-choice, keys a
slice takes back from its buffer count as new arrivals); across slices the order of equal
priorities is unspecified.
"""

from __future__ import annotations

import multiprocessing as mp
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from frontier.cbt import ChunkedCBT
from frontier.heap import BinaryHeap
from frontier.pqcommon import check_int_option
from frontier.quickheap import Quickheap

__all__ = ["STORAGES", "Slices", "SliceWork", "make_storage", "rank_errors", "run_supersteps"]

STORAGES: dict[str, type] = {"heap": BinaryHeap, "cbt": ChunkedCBT, "quickheap": Quickheap}


def make_storage(kind: str, **options):
    """A fresh ``heap``/``cbt``/``quickheap`` storage with ``options``."""
    try:
        cls = STORAGES[kind]
    except KeyError:
        raise ValueError(f"kind must be one of {sorted(STORAGES)}, got {kind!r}") from None
    return cls(**options)


@dataclass
class SliceWork:
    """Work per superstep and slice, for one kind of operation (``insert`` or ``extract``)."""

    comparisons: list[list[int]] = field(default_factory=list)  # [step][slice]
    seconds: list[list[float]] = field(default_factory=list)

    @staticmethod
    def efficiency(rows: list[list[float]]) -> float:
        """Sum over steps of the mean over slices, divided by the sum of the maximum."""
        rows = [r for r in rows if max(r) > 0]
        if not rows:
            return 1.0
        a = np.asarray(rows, dtype=float)
        return float(a.mean(axis=1).sum() / a.max(axis=1).sum())


class Slices:
    """``T`` independent storages made by ``factory(i)``; see the module docstring.

    Not thread-safe (it is a storage: wrap it in a frontier, or drive it from one thread).
    ``push_many`` O(M + sum of the slices' insert-many); ``pop_many(r)`` O(r log T + sum of the
    slices' extract-top).
    """

    def __init__(self, factory: Callable[[int], object], T: int, seed: int = 0,
                 policy: str = "even") -> None:
        check_int_option("T", T, 1)
        if policy not in ("even", "two-choice"):
            raise ValueError(f"policy must be 'even' or 'two-choice', got {policy!r}")
        self.T, self.policy = T, policy
        self.slices = [factory(i) for i in range(T)]
        self._rng = random.Random(seed)
        self._np = np.random.default_rng(seed)
        self.insert = SliceWork()
        self.extract = SliceWork()
        # two-choice: per slice, keys and URLs already taken out of it, best first
        self._buf: list[tuple[np.ndarray, list[str], int]] = [(np.empty(0, complex), [], 0)] * T

    def _cmp(self, s) -> int:
        c = getattr(s, "comparisons", None)
        return c or 0

    def push_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        """Insert-many(M): deal ``M/T`` pairs, chosen at random, to each slice.

        Two-choice: each slice first takes back what is left of its buffer (re-inserted, so
        among equal priorities those keys now count as later arrivals), else a new key better
        than the buffered ones would stay hidden behind them until the buffer empties."""
        pairs = list(pairs)
        order = self._np.permutation(len(pairs))
        parts = np.array_split(order, self.T)
        comps, secs = [], []
        for q, (s, part) in enumerate(zip(self.slices, parts)):
            back: list[tuple[str, float]] = []
            ks, us, pos = self._buf[q]
            if pos < len(us):
                back = list(zip(us[pos:], (-ks[pos:].real).tolist()))
                self._buf[q] = (np.empty(0, complex), [], 0)
            c0, t0 = self._cmp(s), time.perf_counter()
            s.push_many(back + [pairs[i] for i in part.tolist()])
            secs.append(time.perf_counter() - t0)
            comps.append(self._cmp(s) - c0)
        self.insert.comparisons.append(comps)
        self.insert.seconds.append(secs)

    def pop_top(self, r: int) -> tuple[np.ndarray, list[str]]:
        """Extract-top(r), relaxed: ``(keys, urls)`` best first (keys are per slice)."""
        if self.policy == "two-choice":
            return self._two_choice(r)
        T = self.T
        share = [r // T + (1 if i < r % T else 0) for i in range(T)]
        self._rng.shuffle(share)
        keys, urls, comps, secs = [], [], [], []
        for s, k in zip(self.slices, share):
            c0, t0 = self._cmp(s), time.perf_counter()
            ks, us = s.pop_top(k)
            secs.append(time.perf_counter() - t0)
            comps.append(self._cmp(s) - c0)
            keys.append(ks)
            urls.extend(us)
        self.extract.comparisons.append(comps)
        self.extract.seconds.append(secs)
        return _merge(keys, urls)

    def _two_choice(self, r: int) -> tuple[np.ndarray, list[str]]:
        T = self.T
        batch = max(1, r // T)
        comps, secs = [0] * T, [0.0] * T
        out_k, out_u = [], []
        live = [i for i in range(T) if len(self.slices[i]) or len(self._buf[i][1])]
        for _ in range(r):
            live = [i for i in live
                    if len(self.slices[i]) or self._buf[i][2] < len(self._buf[i][1])]
            if not live:
                break
            i, j = (live[0], live[0]) if len(live) == 1 else self._rng.sample(live, 2)
            for q in (i, j):  # refill the buffers we look at
                ks, us, pos = self._buf[q]
                if pos >= len(us):
                    s = self.slices[q]
                    c0, t0 = self._cmp(s), time.perf_counter()
                    ks, us = s.pop_top(batch)
                    secs[q] += time.perf_counter() - t0
                    comps[q] += self._cmp(s) - c0
                    self._buf[q] = (ks, us, 0)
            ki, kj = self._buf[i], self._buf[j]
            q = i if ki[0][ki[2]] <= kj[0][kj[2]] else j
            ks, us, pos = self._buf[q]
            out_k.append(ks[pos])
            out_u.append(us[pos])
            self._buf[q] = (ks, us, pos + 1)
        self.extract.comparisons.append(comps)
        self.extract.seconds.append(secs)
        return _merge([np.array(out_k, dtype=complex)], out_u)

    def pop_many(self, r: int) -> list[str]:
        return self.pop_top(r)[1]

    def __len__(self) -> int:
        return sum(len(s) for s in self.slices) + sum(len(u) - p for _, u, p in self._buf)

    def _check(self) -> None:
        for s in self.slices:
            s._check()


def _merge(keys: list[np.ndarray], urls: list[str]) -> tuple[np.ndarray, list[str]]:
    k = np.concatenate(keys) if keys else np.empty(0, complex)
    order = np.argsort(k, kind="stable")
    return k[order], [urls[i] for i in order.tolist()]


def rank_errors(returned: np.ndarray, present: np.ndarray) -> np.ndarray:
    """For each returned priority (best first), its rank among ``present`` (all priorities held
    before the extraction) minus its position in the answer: 0 everywhere for an exact queue."""
    desc = np.sort(present)[::-1]
    ranks = np.searchsorted(-desc, -np.asarray(returned), side="left")
    return ranks - np.arange(len(returned))


# -- parallel supersteps ---------------------------------------------------------------------


def _pairs(rng: np.random.Generator, m: int, tag: str) -> list[tuple[str, float]]:
    return [(f"{tag}{i}", p) for i, p in enumerate(rng.random(m).tolist())]


def _slice_worker(kind, options, n0, steps, m, r, seed, barrier, out) -> None:
    """One slice's supersteps: extract-top(r) then insert-many(m), a barrier after each."""
    rng = np.random.default_rng(seed)
    s = make_storage(kind, **options)
    s.push_many(_pairs(rng, n0, f"s{seed}-init-"))
    batches = [_pairs(rng, m, f"s{seed}-{k}-") for k in range(steps)]
    ext, ins = [], []
    barrier.wait()
    t_start = time.perf_counter()
    for batch in batches:
        t0 = time.perf_counter()
        s.pop_many(r)
        t1 = time.perf_counter()
        s.push_many(batch)
        t2 = time.perf_counter()
        ext.append(t1 - t0)
        ins.append(t2 - t1)
        barrier.wait()
    out.put((seed, ext, ins, time.perf_counter() - t_start))


def run_supersteps(kind: str, T: int, n: int, r: int, steps: int, mode: str = "process",
                   options: dict | None = None, seed: int = 0) -> dict:
    """The paper's benchmark (Section 4.3): ``T`` slices of ``n/T`` keys each; every superstep
    each slice runs extract-top(r/T) then insert-many(r/T), then all meet at a barrier.

    ``mode``: ``"process"`` (one process per slice: real parallelism), ``"thread"`` (one thread
    per slice: the GIL serializes the Python parts) or ``"serial"`` (T slices one after the
    other in this process). Returns ``seconds`` (wall time of the supersteps) and per-slice,
    per-step ``extract``/``insert`` seconds.
    """
    options = options or {}
    m = r // T
    if mode == "serial":
        rngs = [np.random.default_rng(seed + i) for i in range(T)]
        stores = [make_storage(kind, **options) for _ in range(T)]
        for i, s in enumerate(stores):
            s.push_many(_pairs(rngs[i], n // T, f"s{i}-init-"))
        batches = [[_pairs(rngs[i], m, f"s{i}-{k}-") for i in range(T)] for k in range(steps)]
        ext = [[0.0] * steps for _ in range(T)]
        ins = [[0.0] * steps for _ in range(T)]
        t_start = time.perf_counter()
        for k in range(steps):
            for i, s in enumerate(stores):
                t0 = time.perf_counter()
                s.pop_many(m)
                t1 = time.perf_counter()
                s.push_many(batches[k][i])
                ext[i][k], ins[i][k] = t1 - t0, time.perf_counter() - t1
        wall = time.perf_counter() - t_start
        return {"seconds": wall, "extract": _by_step(ext), "insert": _by_step(ins)}
    if mode == "process":
        ctx = mp.get_context("fork")
        barrier, out = ctx.Barrier(T + 1), ctx.Queue()
        workers = [ctx.Process(target=_slice_worker,
                               args=(kind, options, n // T, steps, m, m, seed + i, barrier, out))
                   for i in range(T)]
    elif mode == "thread":
        import queue

        barrier, out = threading.Barrier(T + 1), queue.Queue()
        workers = [threading.Thread(target=_slice_worker, daemon=True,
                                    args=(kind, options, n // T, steps, m, m, seed + i, barrier,
                                          out))
                   for i in range(T)]
    else:
        raise ValueError(f"mode must be 'process', 'thread' or 'serial', got {mode!r}")
    for w in workers:
        w.start()
    barrier.wait()  # everyone built its slice
    t_start = time.perf_counter()
    for _ in range(steps):
        barrier.wait()  # the superstep's barrier
    wall = time.perf_counter() - t_start
    results = sorted(out.get(timeout=600) for _ in workers)
    for w in workers:
        w.join(timeout=60)
    return {
        "seconds": wall,
        "extract": _by_step([e for _, e, _, _ in results]),
        "insert": _by_step([i for _, _, i, _ in results]),
    }


def _by_step(per_slice: list[list[float]]) -> list[list[float]]:
    """[slice][step] -> [step][slice]."""
    return [list(col) for col in zip(*per_slice)]
