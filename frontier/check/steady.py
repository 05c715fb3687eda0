"""Exploring that does not depend on how the operating system runs frontrun's threads.

frontrun (0.7) runs the scenario's threads one at a time *between scheduling points*, but a
thread that has just been given its turn names the next thread before it goes on, and then
runs frontrun's own bookkeeping alongside that next thread. A thread about to wait inside a
cooperative condition or lock flags itself blocked (``note_blocking_spin``) in that
bookkeeping: it looks at the condition's tickets or the lock, flags itself, looks again, and on
a second look that shows a wake-up it lowers the flag. If the thread that wakes it does so
*between* the first look and the flag, the wake-up's lowering (``note_spin_release``) comes
before the flag, which then stays up until the second look. A scheduling decision made in that
window sees a thread blocked that is not; when every other thread is done or asleep, frontrun's
virtual clock jumps to the next deadline, and the waiter's patience runs out though it was
woken. Decisions made on such passing states also make the search explore other interleavings
from run to run.

That is a lost wake-up the frontier never had, and CI saw it once, on ``semaphore``'s
``lost-wakeup`` (a correct frontier): "C2's get() slept its whole patience", with a schedule
whose replay reproduced it (the clock step it holds is replayed as recorded). It needs the
waiter to lose the CPU inside that window: the GIL is handed to a waiting thread when its
holder has kept it for the switch interval (5 ms), which on a busy machine happens to a thread
that the operating system has taken off the CPU. Two mends:

* **No forced switch.** While exploring, the interpreter's switch interval is
  :data:`SWITCH_INTERVAL` (``sys.setswitchinterval``), so the GIL changes hands only where a
  thread blocks (frontrun's turn-taking, a real lock, a sleep): frontrun's bookkeeping runs
  in program order whatever the machine's load. (It does nothing on a free-threaded build,
  where frontrun does not run.)
* **Flags from a fresh look.** Each resource (a condition or lock, by frontrun's id) remembers
  when it was last released, on one counter per scheduler, and each thread remembers the
  counter when it was last given its turn. A flag is refused when its resource was released
  after that: the waiter has not looked since, and its next look will see the release. A
  refused waiter stays runnable one step more (it asks for its turn again and flags itself
  then, if it must). A flag raised before the release is lowered by it, as before. This keeps
  the window shut where the GIL does change hands inside the bookkeeping (a real lock that is
  taken, or a delay that lets it go).

How the two were checked is in the chapter "You are the scheduler" (``docs/scheduler.rst``),
from ``docs/explore_steady.py``'s measurements.

:func:`steady_scheduling` installs both for the length of a search, a replay or a PCT run and
restores what was there after. O(1) per scheduling point and per flag.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["SWITCH_INTERVAL", "steady_scheduling"]

SWITCH_INTERVAL = 1.0
"""Seconds a thread may hold the GIL while another waits for it, while exploring: long enough
that only blocking hands it over (the default, 0.005, is what a descheduled thread overruns);
finite, so that a thread that spins without blocking still lets the others run."""


class _Releases:
    """One scheduler's memory: the release counter, each resource's last release, and each
    thread's counter at its last turn. Invariant: every value is at most ``count``.
    Thread-safety: a flag's check and a release's count are made under ``lock`` (a real lock:
    frontrun swaps ``threading.Lock`` while it runs), so a release counted after a check waits
    for that check's flag, and its lowering then comes after the flag; a turn is written only by
    the thread it belongs to (one dict store)."""

    __slots__ = ("count", "lock", "released_at", "seen")

    def __init__(self) -> None:
        from frontrun import _real_threading  # threading.Lock as it was before frontrun

        self.count = 0
        self.lock = _real_threading.lock()
        self.released_at: dict[int, int] = {}
        self.seen: dict[int, int] = {}

    def release(self, resource_id: int) -> None:
        with self.lock:
            self.count += 1
            self.released_at[resource_id] = self.count

    def turn(self, thread_id: int) -> None:
        self.seen[thread_id] = self.count

    def unseen_release(self, thread_id: int, resource_id: int) -> bool:
        """Whether ``resource_id`` was released after ``thread_id`` last had its turn (call
        with ``lock`` held)."""
        return self.released_at.get(resource_id, 0) > self.seen.get(thread_id, 0)

    def _check(self) -> None:
        assert all(v <= self.count for v in self.released_at.values())
        assert all(v <= self.count for v in self.seen.values())


def _releases(scheduler) -> _Releases:  # noqa: ANN001 - frontrun's scheduler
    mine = scheduler.__dict__.get("_crawlab_releases")
    if mine is None:
        mine = scheduler.__dict__.setdefault("_crawlab_releases", _Releases())
    return mine


@contextmanager
def steady_scheduling() -> Iterator[None]:
    """Set the switch interval and patch frontrun's DPOR and replay schedulers as the module
    docstring says; restore both on exit. Not re-entrant (like frontrun's own patching: one
    run per process)."""
    from frontrun._dpor_runtime.scheduler import DporScheduler, _ReplayDporScheduler

    saved = [(cls, name, cls.__dict__[name]) for cls, name in (
        (DporScheduler, "note_blocking_spin"),
        (DporScheduler, "note_spin_release"),
        (DporScheduler, "_report_and_wait"),
        (DporScheduler, "before_sync_retry"),
        (_ReplayDporScheduler, "_wait_for_turn"),
    )]
    flag, release, report, retry, replay_turn = (f for _, _, f in saved)

    def note_blocking_spin(self, thread_id, resource_id, waiting, *, timed_wait=False):  # noqa: ANN001
        if not waiting:
            return flag(self, thread_id, resource_id, waiting, timed_wait=timed_wait)
        mine = _releases(self)
        with mine.lock:
            if not mine.unseen_release(thread_id, resource_id):
                flag(self, thread_id, resource_id, waiting, timed_wait=timed_wait)
        return None

    def note_spin_release(self, resource_id):  # noqa: ANN001
        _releases(self).release(resource_id)
        return release(self, resource_id)

    def turned(wait):  # noqa: ANN001, ANN202
        def waited(self, *args):  # noqa: ANN001, ANN202
            went_on = wait(self, *args)
            _releases(self).turn(args[-1])  # each turn-taker's last argument is the thread
            return went_on
        return waited

    DporScheduler.note_blocking_spin = note_blocking_spin
    DporScheduler.note_spin_release = note_spin_release
    DporScheduler._report_and_wait = turned(report)
    DporScheduler.before_sync_retry = turned(retry)
    _ReplayDporScheduler._wait_for_turn = turned(replay_turn)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)
        for cls, name, original in saved:
            setattr(cls, name, original)
