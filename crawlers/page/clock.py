"""Clocks and the latency model: how simulated time passes.

A *clock* has two operations, ``now()`` (seconds, monotonic) and ``sleep(seconds)``.
The labs swap clocks to change what a crawl measures:

* :class:`RealClock` sleeps for real with :func:`time.sleep`, which releases the GIL, so
  threads overlap their waits exactly as they overlap network latency.
* :class:`NullClock` never sleeps (zero-latency mode): a crawl then measures the frontier
  and the bookkeeping alone.
* :class:`ManualClock` is a fake clock for tests: ``sleep`` advances time instantly.

:class:`LatencyModel` turns a key (a URL) into a delay: mean plus uniform jitter, a pure
function of ``(seed, key)`` so that a run can be replayed.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass
from typing import Protocol


class Clock(Protocol):
    """What a fetcher or a politeness policy needs from time."""

    def now(self) -> float:
        """Current time in seconds (monotonic, arbitrary origin)."""

    def sleep(self, seconds: float) -> None:
        """Block the calling thread for ``seconds`` (of this clock's time)."""


class RealClock:
    """Wall-clock time; ``sleep`` releases the GIL. Thread-safe (stateless)."""

    def now(self) -> float:
        """``time.monotonic()``."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        """``time.sleep(seconds)`` if positive."""
        if seconds > 0:
            time.sleep(seconds)


class NullClock(RealClock):
    """Real ``now()`` but ``sleep`` returns at once: the zero-latency mode. Thread-safe."""

    def sleep(self, seconds: float) -> None:
        """Do nothing."""


class ManualClock:
    """A fake clock for deterministic tests: ``sleep(s)`` advances time by ``s`` at once.

    Thread-safe (a lock protects the time), but it models one timeline: concurrent sleeps
    add up instead of overlapping, so use it with one thread.
    """

    def __init__(self, start: float = 0.0) -> None:
        self._lock = threading.Lock()  # protects _now
        self._now = start

    def now(self) -> float:
        """The current fake time."""
        with self._lock:
            return self._now

    def sleep(self, seconds: float) -> None:
        """Advance the fake time by ``seconds`` (ignored if negative)."""
        if seconds > 0:
            self.advance(seconds)

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds``."""
        with self._lock:
            self._now += seconds


def unit_hash(seed: int, key: str, salt: str = "") -> float:
    """A uniform number in [0, 1) that is a pure function of ``(seed, key, salt)``.

    O(len(key)); thread-safe. Used wherever the lab web must behave the same way on every
    run (latency, fault assignment) without sharing a random generator between threads.
    """
    digest = hashlib.blake2b(f"{seed}|{salt}|{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0**64


def jitter_problem(latency: float, jitter: float, flags: tuple[str, str] = ("jitter",
                   "latency")) -> str | None:
    """Why a ``jitter`` (half-width) cannot go with a mean ``latency``, or ``None``: a jitter
    larger than the latency draws delays below 0, which are cut at 0, and the delays' mean is
    then more than the latency asked for (``--latency 0.001 --jitter 0.5`` waited 0.125 s a
    request on average, 125 times the latency)."""
    if jitter > latency:
        return (f"{flags[0]} {jitter:g} is more than {flags[1]} {latency:g}: delays below 0 "
                f"would be cut at 0, and their mean would not be {flags[1]}; give a jitter of "
                f"at most the latency")
    return None


@dataclass(frozen=True)
class LatencyModel:
    """Per-request delay: ``mean`` plus uniform jitter in ``[-jitter, +jitter]``, with
    ``jitter <= mean`` (:func:`jitter_problem`), so never below 0 and of mean ``mean``.

    The delay of a key is deterministic from ``(seed, key)``; immutable, so thread-safe.
    """

    mean: float = 0.0
    jitter: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.mean < 0 or self.jitter < 0:
            raise ValueError("latency and jitter must be >= 0")
        problem = jitter_problem(self.mean, self.jitter)
        if problem is not None:
            raise ValueError(problem)

    def delay(self, key: str) -> float:
        """Seconds to wait before answering ``key``. O(len(key))."""
        if self.jitter == 0:
            return self.mean
        u = unit_hash(self.seed, key, "latency")
        return max(0.0, self.mean + self.jitter * (2.0 * u - 1.0))
