"""frontier.check.steady: frontrun's "blocked" flag is refused for a thread that has not
looked since its resource was released, so exploring never lets the virtual clock run out a
patience that a wake-up already ended (a lost wake-up the frontier never had).

The first tests drive the patched scheduler methods on a stand-in scheduler, one step at a
time, so that each ordering is made, not hoped for. The last two explore a correct frontier
with the window held open: each flag raised by a thread that has passed its turn on is put
off, once letting the GIL go (what the flag mend alone must withstand), once keeping it past
the default switch interval (what a busy machine does, and the switch interval undoes).
Without the mends these searches report a lost wake-up or explore another number of
interleavings in some runs, not all: ``docs/explore_steady.py`` measures how often.

Needs frontrun (the ``explore`` extra); skipped where it cannot be imported.
"""

from __future__ import annotations

import select
import sys
from unittest import mock

import pytest

pytest.importorskip("frontrun", reason="frontrun (crawlab[explore]) is not installed here")

from frontrun._dpor_runtime.scheduler import DporScheduler, _ReplayDporScheduler  # noqa: E402
from frontrun._virtual_clock import _real_monotonic  # noqa: E402

from frontier.check.steady import SWITCH_INTERVAL, _releases, steady_scheduling  # noqa: E402

LATE = 0.006  # seconds: past the default switch interval (0.005)

PATCHED = [(DporScheduler, "note_blocking_spin"), (DporScheduler, "note_spin_release"),
           (DporScheduler, "_report_and_wait"), (DporScheduler, "before_sync_retry"),
           (_ReplayDporScheduler, "_wait_for_turn")]


class _Port:
    """What frontrun's clock port is asked: flags raised, lowered and released, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def note_blocking_spin(self, thread, resource, waiting, *, timed_wait=False):  # noqa: ANN001
        self.calls.append(("flag" if waiting else "lower", thread, resource))

    def note_spin_release(self, resource):  # noqa: ANN001
        self.calls.append(("release", resource))


class _Scheduler:
    """A stand-in for frontrun's scheduler: only the port the patched methods reach."""

    def __init__(self) -> None:
        self._clock_port = _Port()


def _turn(s: _Scheduler, thread: int) -> None:
    """Give ``thread`` its turn through the patched turn-taker (frontrun's own, replaced by
    one that returns at once, so that the wrapper around it is what runs)."""
    DporScheduler._report_and_wait(s, None, thread)


@pytest.fixture
def patched():
    with mock.patch.object(DporScheduler, "_report_and_wait", lambda self, f, t: True), \
            mock.patch.object(DporScheduler, "before_sync_retry", lambda self, t: True), \
            mock.patch.object(_ReplayDporScheduler, "_wait_for_turn", lambda self, t: True), \
            steady_scheduling():
        yield


def test_a_flag_after_an_unseen_release_is_refused(patched):
    s = _Scheduler()
    _turn(s, 1)
    DporScheduler.note_spin_release(s, 7)  # woken after its last look ...
    DporScheduler.note_blocking_spin(s, 1, 7, True)  # ... so its flag would stay up: refused
    assert s._clock_port.calls == [("release", 7)]
    _releases(s)._check()


def test_a_flag_raised_after_a_look_stands_and_a_release_lowers_it(patched):
    s = _Scheduler()
    DporScheduler.note_spin_release(s, 7)
    _turn(s, 1)  # looked after the release
    DporScheduler.note_blocking_spin(s, 1, 7, True)
    DporScheduler.note_spin_release(s, 7)
    DporScheduler.note_blocking_spin(s, 1, 7, False)
    assert s._clock_port.calls == [("release", 7), ("flag", 1, 7), ("release", 7),
                                   ("lower", 1, 7)]
    _releases(s)._check()


def test_another_resource_and_another_thread_are_not_refused(patched):
    s = _Scheduler()
    _turn(s, 1)
    _turn(s, 2)
    DporScheduler.note_spin_release(s, 7)
    DporScheduler.note_blocking_spin(s, 1, 8, True)  # released: 7, not 8
    DporScheduler.note_blocking_spin(s, 2, 7, True)  # thread 2 has not looked either
    assert s._clock_port.calls == [("release", 7), ("flag", 1, 8)]


@pytest.mark.parametrize("turn", ["before_sync_retry", "replay"])
def test_every_turn_taker_records_the_look(patched, turn):
    s = _Scheduler()
    DporScheduler.note_spin_release(s, 7)
    if turn == "replay":
        _ReplayDporScheduler._wait_for_turn(s, 1)
    else:
        DporScheduler.before_sync_retry(s, 1)
    DporScheduler.note_blocking_spin(s, 1, 7, True)
    assert ("flag", 1, 7) in s._clock_port.calls


def test_frontrun_and_the_switch_interval_are_restored_on_exit():
    before = [cls.__dict__[name] for cls, name in PATCHED]
    interval = sys.getswitchinterval()
    with pytest.raises(RuntimeError), steady_scheduling():
        assert [cls.__dict__[name] for cls, name in PATCHED] != before
        assert sys.getswitchinterval() == SWITCH_INTERVAL > interval
        raise RuntimeError
    assert [cls.__dict__[name] for cls, name in PATCHED] == before
    assert sys.getswitchinterval() == interval


def _explore_with_late_flags(monkeypatch, name: str, scenario: str, late: str):  # noqa: ANN202
    """Explore with every flag raised by a thread that has passed its turn on put off by
    :data:`LATE` seconds: ``"select"`` waits, letting the GIL go to the others; ``"busy"`` spins
    holding it, as a thread that the operating system took off the CPU does. ``None``: as is."""
    import frontrun._cooperative as cooperative

    from frontier.check import explore as explorer

    record = cooperative._record_spin_scheduler

    def put_off(resource_id, thread_id, scheduler):  # noqa: ANN001, ANN202
        if scheduler._current_thread != thread_id:  # its turn already passed on
            if late == "select":
                select.select([], [], [], LATE)
            else:
                end = _real_monotonic() + LATE
                while _real_monotonic() < end:
                    pass
        return record(resource_id, thread_id, scheduler)

    with monkeypatch.context() as m:
        if late is not None:
            m.setattr(cooperative, "_record_spin_scheduler", put_off)
        m.setattr(explorer, "_UNTRACED", {*explorer._UNTRACED, __file__})  # as frontrun's own
        return explorer.explore(name, scenario)


# One exploration of lost-wakeup is about 20 s of CPU alone here (1168 interleavings): these
# bounds catch a hang, not slowness, and leave room for a machine shared four ways, where the
# old 120 s ran out (2026-11-29).
EXPLORATION_BOUND = 300  # seconds, per exploration


@pytest.mark.timeout(EXPLORATION_BOUND)
def test_a_woken_waiter_is_never_timed_out_by_a_late_flag(monkeypatch):
    """The window held open with the GIL let go: a correct frontier still holds."""
    out = _explore_with_late_flags(monkeypatch, "semaphore", "lost-wakeup", "select")
    assert out.status == "holds", out.broken


@pytest.mark.timeout(2 * EXPLORATION_BOUND)
def test_a_thread_taken_off_the_cpu_changes_nothing_explored(monkeypatch):
    """A late flag that keeps the GIL past the default switch interval: the same verdict over
    the same number of interleavings as a search left alone."""
    alone = _explore_with_late_flags(monkeypatch, "semaphore", "lost-wakeup", None)
    late = _explore_with_late_flags(monkeypatch, "semaphore", "lost-wakeup", "busy")
    assert alone.status == late.status == "holds", late.broken
    assert late.interleavings == alone.interleavings
