"""SafePoints: signal handlers run where the main thread says, not between any two bytecodes."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from crawlers.crawl.interrupts import SafePoints


@pytest.fixture
def handlers():
    """SIGINT raises KeyboardInterrupt and SIGTERM calls a recorder, as in a crawlab run;
    both put back afterwards."""
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    seen: list[int] = []
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
    yield seen
    for s, handler in before.items():
        signal.signal(s, handler)


def _spin() -> None:
    """Bytecodes and calls, where a handler set by ``signal.signal`` would run at once."""
    sum(len(str(i)) for i in range(2000))


def test_a_signal_waits_for_the_safe_point_and_runs_its_own_handler_there(handlers):
    with SafePoints() as points:
        os.kill(os.getpid(), signal.SIGINT)
        _spin()  # not raised here
        assert [s for s, _ in points.noted] == [signal.SIGINT]
        with pytest.raises(KeyboardInterrupt):
            points.poll()
        assert points.noted == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_handler_that_does_not_raise_runs_at_the_safe_point_and_the_block_goes_on(handlers):
    with SafePoints() as points:
        os.kill(os.getpid(), signal.SIGTERM)
        _spin()
        assert handlers == []
        points.poll()
        assert handlers == [signal.SIGTERM]


def test_a_signal_noted_after_the_last_safe_point_is_handled_at_the_end_of_the_block(handlers):
    with pytest.raises(KeyboardInterrupt):
        with SafePoints():
            os.kill(os.getpid(), signal.SIGINT)
            _spin()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_second_signal_is_not_kept_waiting(handlers):
    with SafePoints() as points:
        os.kill(os.getpid(), signal.SIGTERM)
        _spin()
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            _spin()  # raised here, by the second signal, before any safe point
        assert [s for s, _ in points.noted] == [signal.SIGTERM]  # the first still waits
        points.poll()
    assert handlers == [signal.SIGTERM]


def test_signals_without_a_python_handler_are_left_alone(handlers):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with SafePoints() as points:
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        os.kill(os.getpid(), signal.SIGTERM)  # ignored, as before
        _spin()
        assert points.noted == []
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN


def test_outside_the_main_thread_nothing_is_changed(handlers):
    seen = {}

    def other() -> None:
        with SafePoints() as points:
            seen["inside"] = signal.getsignal(signal.SIGINT)
            points.poll()  # nothing noted: nothing to run

    t = threading.Thread(target=other)
    t.start()
    t.join(timeout=10)
    assert not t.is_alive()
    assert seen["inside"] is signal.default_int_handler


def test_an_action_that_needs_a_lock_the_interrupted_thread_holds_does_not_deadlock_it():
    """A BSP worker cuts its fetches on SIGUSR1; the handler runs in the thread the signal
    interrupted, which may hold a lock the cut needs (its fetcher's stop event, in a
    politeness wait). Run there, the cut waited for its own thread for ever. Here the
    interrupted thread holds the lock when its handler runs: the handler returns at once, and
    the action completes as soon as the lock is let go."""
    from crawlers.crawl.interrupts import in_a_thread_of_its_own

    held = threading.Lock()  # guards nothing: the lock the action needs
    done = threading.Event()

    def cut() -> None:
        with held:
            done.set()

    handler = in_a_thread_of_its_own(cut)
    returned = threading.Event()

    def interrupted_thread() -> None:
        with held:
            handler(signal.SIGUSR1, None)  # as Python runs it, in the holding thread
            returned.set()

    t = threading.Thread(target=interrupted_thread, daemon=True)
    t.start()
    t.join(10)
    assert returned.is_set(), "the handler waited for a lock its own thread held"
    assert done.wait(10), "the action never ran once the lock was let go"



def test_while_held_even_a_second_signal_waits_for_the_end_of_the_block(handlers):
    """A teardown that must not be cut (robots joined, a journal closed) holds the signals:
    neither poll() nor a second signal runs a handler; the block's end does."""
    with pytest.raises(KeyboardInterrupt):
        with SafePoints() as points:
            points.hold()
            os.kill(os.getpid(), signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGINT)
            _spin()
            points.poll()
            assert handlers == [] and len(points.noted) == 2
    assert handlers == [signal.SIGTERM]  # run first, then SIGINT's raised
