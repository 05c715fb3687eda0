"""Helpers shared by the tests: what each frontier must do, threads with bounded waits, and a
bounded wait for a thread to be asleep."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import frontier


@dataclass(frozen=True)
class Kind:
    """What a frontier must do, hence which tests apply to it: its ``ordering`` (``"fifo"`` or
    ``"priority"``), whether it is ``bounded``, ``correct`` (no race) and ``live`` (every
    wake-up arrives)."""

    ordering: str = "fifo"
    bounded: bool = True
    correct: bool = True
    live: bool = True

    @classmethod
    def parse(cls, text: str) -> Kind:
        """``"fifo,bounded"`` / ``"priority,unbounded"``: what an exercise asks for (a graded
        class must always be correct and live). :class:`ValueError` naming a bad word."""
        words = [w.strip() for w in text.split(",") if w.strip()]
        orderings = [w for w in words if w in ("fifo", "priority")]
        bounds = [w for w in words if w in ("bounded", "unbounded")]
        bad = [w for w in words if w not in (*orderings, *bounds)]
        if bad or len(orderings) != 1 or len(bounds) != 1:
            raise ValueError(f"expected 'fifo' or 'priority', then 'bounded' or 'unbounded' "
                             f"(e.g. fifo,bounded), got {text!r}")
        return cls(ordering=orderings[0], bounded=bounds[0] == "bounded")


# A frontier being graded: its name and what its exercise says it must do. A graded class's own
# attributes (``correct``, ``bounded``, ``live``, ``ordering`` ...) never choose its tests.
GRADED: dict[str, Kind] = {}


def kind(name: str) -> Kind:
    """What frontier ``name`` must do: the exercise's word for a graded class, the class's own
    attributes for a built-in one (ours, and tested as such)."""
    if name in GRADED:
        return GRADED[name]
    cls = frontier.info(name)
    return Kind(cls.ordering, bool(cls.bounded), bool(cls.correct), frontier.is_live(cls))


ALL: list[str] = []
# correct and live: safe, and every wake-up arrives (tanenbaum is safe but loses wake-ups)
CORRECT: list[str] = []
BOUNDED: list[str] = []
UNBOUNDED: list[str] = []
PRIORITY: list[str] = []


def _rebuild() -> None:
    """Fill the lists in place (test modules hold references to them)."""
    ALL[:] = frontier.names()
    CORRECT[:] = [n for n in ALL if kind(n).correct and kind(n).live]
    BOUNDED[:] = [n for n in ALL if kind(n).bounded]
    UNBOUNDED[:] = [n for n in ALL if not kind(n).bounded]
    PRIORITY[:] = [n for n in ALL if kind(n).ordering == "priority"]


def grade(name: str, what: Kind) -> None:
    """Test the registered frontier ``name`` as ``what`` says (called by the autograder before
    the test modules are imported), whatever its class says of itself."""
    GRADED[name] = what
    _rebuild()


_rebuild()


def make(name: str, capacity: int | None = None):
    """A fresh frontier; ``capacity`` is passed only to bounded ones."""
    if capacity is not None and kind(name).bounded:
        return frontier.create(name, capacity=capacity)
    return frontier.create(name)


def start_thread(target, *args) -> threading.Thread:
    """Start a daemon thread (a stuck one can never keep pytest alive)."""
    t = threading.Thread(target=target, args=args, daemon=True)
    t.start()
    return t


@contextmanager
def restless_conditions(files: set[str], period: float = 0.005):
    """Spurious wake-ups, which Mesa semantics allow: inside the block, every
    :class:`threading.Condition` made by code of ``files`` (however the file names the class, a
    subclass of its own included) is notified (``notify_all``) every ``period`` seconds, so a
    waiter that does not re-check its predicate in a loop goes on too early. Conditions the
    standard library makes for itself (a :class:`threading.Barrier`'s) are left alone. One
    block at a time per process (it replaces ``Condition.__init__``)."""
    stop = threading.Event()

    def shake(made) -> None:
        while not stop.wait(period):
            for c in list(made):
                if c.acquire(timeout=0.05):
                    try:
                        c.notify_all()
                    finally:
                        c.release()

    with _conditions_made_by(files) as made:
        shaker = start_thread(lambda: shake(made))
        try:
            yield made
        finally:
            stop.set()
            join_all([shaker], timeout=10)


@contextmanager
def timed_waits_say_timed_out(files: set[str]):
    """Inside the block, a timed ``wait`` on a :class:`threading.Condition` made by code of
    ``files`` returns ``False`` however it ended, as CPython's own does when the timeout runs
    out while the notifier holds the lock, even if that notifier then picks this waiter
    (``notify`` releases it and removes it from the queue): the notify is spent on a thread
    told "timed out". A waiter that takes that at its word without looking at its predicate
    leaves though its turn came, and the one the notify was for sleeps on. Untimed waits,
    and conditions of other files, are left alone. One block at a time per process."""
    def told_timed_out(wait, cond, timeout):
        wait(cond, timeout)
        return False

    with _timed_waits_of(files, told_timed_out) as made:
        yield made


@contextmanager
def woken_waits_run_late(files: set[str], late: float = 0.01):
    """Inside the block, a timed ``wait`` on a :class:`threading.Condition` made by code of
    ``files``, or on the ``SemCondition`` class those files define (ex2's), that was woken
    before its timeout returns only ``late`` seconds after the timeout ran out, with what the
    wait said: as when the scheduler runs a woken thread only after its deadline (the delay is
    the fault injected, in the monitor, not a synchronization of the test). A waiter that then
    reads the clock and gives up without looking at its predicate loses the wake-up. Untimed
    waits, waits that timed out, and conditions of other files are left alone. One block at a
    time per process."""
    def running_late(wait, cond, timeout):
        deadline = time.monotonic() + timeout
        woke = wait(cond, timeout)
        rest = deadline - time.monotonic()
        if woke and rest > -late:
            time.sleep(rest + late)
        return woke

    with _timed_waits_of(files, running_late, semcondition=True) as made:
        yield made


@contextmanager
def _timed_waits_of(files: set[str], changed, semcondition: bool = False):
    """Inside the block, each timed ``wait`` on a Condition made by code of ``files`` (and,
    with ``semcondition``, on the ``SemCondition`` class those files define) is
    ``changed(wait, cond, timeout)``, ``wait`` being the one it replaces; untimed waits and
    other conditions are left alone. Replaces ``Condition.__init__`` and ``wait`` (one block
    at a time per process); yields the list of the files' conditions, as they are made."""
    plain_wait = threading.Condition.wait
    own = [(cls, cls.wait) for mod in list(sys.modules.values()) if semcondition
           if getattr(mod, "__file__", None) in files
           for cls in [getattr(mod, "SemCondition", None)] if isinstance(cls, type)]

    with _conditions_made_by(files) as made:
        def patched(wait, mine):
            def wrapped(self, timeout=None):
                if timeout is None or not mine(self):
                    return wait(self, timeout)
                return changed(wait, self, timeout)
            return wrapped

        threading.Condition.wait = patched(  # type: ignore[method-assign]
            plain_wait, lambda c: any(c is m for m in made))
        for cls, wait in own:
            cls.wait = patched(wait, lambda c: True)
        try:
            yield made
        finally:
            threading.Condition.wait = plain_wait  # type: ignore[method-assign]
            for cls, wait in own:
                cls.wait = wait


@contextmanager
def _conditions_made_by(files: set[str]):
    """Inside the block, the list it yields gets every :class:`threading.Condition` that code
    of ``files`` makes (however the file names the class, a subclass of its own included)."""
    made: list = []
    plain_init = threading.Condition.__init__

    def recording_init(self, *args, **kwargs):
        plain_init(self, *args, **kwargs)
        if sys._getframe(1).f_code.co_filename in files:
            made.append(self)

    threading.Condition.__init__ = recording_init  # type: ignore[method-assign]
    try:
        yield made
    finally:
        threading.Condition.__init__ = plain_init  # type: ignore[method-assign]


def join_all(threads, timeout: float) -> None:
    """Join every thread within ``timeout`` seconds in all; fail (never hang) if one is stuck."""
    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    stuck = [t.name for t in threads if t.is_alive()]
    assert not stuck, f"threads still running after {timeout} s (deadlock?): {stuck}"


# Where a thread sleeps: a frame of the standard library's threading module in one of these
# functions (Condition.wait, Event.wait, Semaphore.acquire), or the polite backoff
# of the polling strategies (frontier.waiting.Backoff.pause, asleep in time.sleep).
_THREADING = Path(threading.__file__).resolve()
_SLEEPS_IN = {(_THREADING, "wait"), (_THREADING, "acquire")}


def _backoff_file() -> Path:
    import frontier.waiting

    return Path(frontier.waiting.__file__).resolve()


def current_frames() -> dict:
    """:func:`sys._current_frames`, with the cyclic collector paused while it runs (if it was on).
    On CPython 3.11 before 3.11.9 a collection inside it can free a ``threading.local``, whose
    clean-up takes the interpreter lock the call already holds: the process hangs where no
    timeout can reach it (python/cpython#106883; seen here in CI)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        return sys._current_frames()
    finally:
        if was_on:
            gc.enable()


def asleep(thread: threading.Thread, inside: str | None = None) -> bool:
    """Whether ``thread`` is asleep now: its innermost frame is a wait of :mod:`threading` or
    the backoff pause of :mod:`frontier.waiting` (a thread blocked in ``Condition.wait`` has
    already given its lock up and registered as a waiter, so a later notify reaches it; one
    whose waiter lock was released, notified but not yet running, is awake). With
    ``inside``, a frame of a function of that name must also be on its stack (e.g. ``"wait"`` of
    a home-made condition). A spinning thread is never asleep."""
    frame = current_frames().get(thread.ident)  # type: ignore[arg-type]
    if frame is None:
        return False
    where = (Path(frame.f_code.co_filename).resolve(), frame.f_code.co_name)
    if where not in _SLEEPS_IN and where != (_backoff_file(), "pause"):
        return False
    waiter = frame.f_locals.get("waiter") if where == (_THREADING, "wait") else None
    if waiter is not None and not waiter.locked():
        return False  # Condition.wait: notified already, not yet running again
    if inside is None:
        return True
    f = frame
    while f is not None:
        if f.f_code.co_name == inside and Path(f.f_code.co_filename).resolve() != _THREADING:
            return True
        f = f.f_back
    return False


def wait_until(predicate, timeout: float = 10.0, what: str = "the condition") -> None:
    """Poll ``predicate()`` until it holds; fail (never hang) after ``timeout`` seconds. A bounded
    poll on a real condition, not a sleep that hopes: the pause between polls only yields the
    processor, the verdict depends on the condition alone."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout} s"
        time.sleep(0.001)


def wait_until_asleep(threads, timeout: float = 10.0, inside: str | None = None) -> None:
    """Return once every thread of ``threads`` is :func:`asleep` at the same time (each one
    blocked in a wait, not spinning); fail after ``timeout`` seconds."""
    threads = list(threads)
    wait_until(lambda: all(asleep(t, inside) for t in threads), timeout,
               what=f"{len(threads)} thread(s) falling asleep in a wait"
                    + (f" inside {inside}()" if inside else ""))


def raw_get(port: int, target: str, timeout: float = 3.0) -> tuple[int, bytes]:
    """Status and body of one request sent exactly as written (no client-side normalization),
    on its own connection to 127.0.0.1, read until the server closes it."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


_DEFAULT_SIGINT = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                   "os.execv(sys.argv[1], sys.argv[1:])")


def with_default_sigint(cmd: list[str]) -> list[str]:
    """``cmd`` started with SIGINT at its default action, whatever this process does with it.

    A process started in the background of a non-interactive shell (``pytest &`` in a script,
    some CI runners) has SIGINT *ignored*, its children inherit that, and Python then installs
    no Ctrl-C handler: a test that sends SIGINT to a crawl would see it ignored and the crawl
    run to its end. A one-line ``exec`` wrapper puts the default back first."""
    return [sys.executable, "-c", _DEFAULT_SIGINT, *cmd]


def run_crawlab(argv, capsys) -> tuple[int, str]:
    """The exit status of ``crawlab ARGV`` run in this process (argparse's ``SystemExit``
    too) and what it wrote to stderr."""
    from crawlers.cli import main

    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().err


def one_line(err: str) -> str:
    """``err``, asserted to be one line and no traceback."""
    assert err.endswith("\n") and err.count("\n") == 1, repr(err)
    assert "Traceback" not in err
    return err


def run_child(code: str, *args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    """``code`` run by this interpreter in a child process (from the repository's root), its
    output captured; a child still running after ``timeout`` seconds is killed and fails the
    test: a deadlock after a signal can leave even pytest-timeout's alarm unanswered in the
    process it hangs, never in its parent."""
    import pytest

    try:
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                              text=True, timeout=timeout, cwd=Path(__file__).resolve().parents[1])
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the child still ran after {timeout} s (a deadlock?): {exc.stderr!r}")

