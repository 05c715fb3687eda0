"""Exercise 3: the termination detector, driven by a small threaded crawl of a random graph.

A robot may be switched out between any two lines of its loop: the harness sleeps at random
points to make that happen often. The crawl must fetch every reachable page exactly once (never
stop early) and the robots must all stop (never hang: a deadline, then a failure).
"""

from __future__ import annotations

import inspect
import random
import sys
import threading
import time

import pytest

import frontier
from exercises.noise import noise
from tests.conftest import load_exercise
from tests.helpers import join_all, start_thread


@pytest.fixture
def Detector(exercises_dir):  # noqa: N802 (a class)
    return load_exercise(exercises_dir, "ex3_termination", "TerminationDetector")


def random_graph(n: int, rng: random.Random) -> dict[int, list[int]]:
    """Pages 0..n-1; page k links to a few random pages; a chain keeps them all reachable
    from 0 (page k+1 is found only once page k was fetched: a long serial tail)."""
    graph = {k: rng.sample(range(n), rng.choice((0, 0, 1, 2, 5))) for k in range(n)}
    for k in range(n - 1):
        if k + 1 not in graph[k]:
            graph[k].append(k + 1)
    return graph


def crawl(Detector, graph, robots: int, rng: random.Random,  # noqa: N803 (a class)
          frontier_name: str = "coarse", shake: float = 0.0):
    """Crawl ``graph`` from page 0 with ``robots`` threads; return (fetched pages, detector,
    frontier). ``shake``: noise in the detector's code (:mod:`exercises.noise`), so that its
    races show under the GIL. The first robot to see ``is_over()`` stops them all, as in
    crawlers.crawl.crawler."""
    f = frontier.create(frontier_name)
    det = Detector(robots, f)
    claimed = {0}
    claim_lock = threading.Lock()
    fetched: list[int] = []
    delays = [rng.random() < 0.3 for _ in range(64)]

    def nap(k: int) -> None:
        if delays[k % 64]:
            time.sleep(0.0005)

    errors: list[BaseException] = []
    stop = threading.Event()

    def robot(i: int) -> None:
        try:
            run_robot(i)
        except Exception as exc:  # reported by the test, not lost in a thread
            errors.append(exc)

    def run_robot(i: int) -> None:
        k = i
        while not stop.is_set():
            if det.is_over():
                stop.set()  # as crawlers.crawl.crawler does: the crawl ends for every robot
                return
            try:
                page = f.get(timeout=0.002)
            except frontier.Empty:
                det.idle(i)
                continue
            k += 1
            nap(k)  # switched out between get() and took(): the frontier looks empty
            det.took(i)
            fetched.append(page)
            with claim_lock:
                new = [p for p in graph[int(page)] if p not in claimed]
                claimed.update(new)
            nap(k + 7)
            if new:
                det.will_put(len(new))
                for p in new:
                    f.put(str(p))
            nap(k + 13)
            det.finished(i)

    det.will_put(1)
    f.put("0")
    with noise({inspect.getsourcefile(Detector) or ""}, shake, seed=len(graph)):
        threads = [start_thread(robot, i) for i in range(robots)]
        join_all(threads, timeout=20)  # never late: a detector that never says "over" fails
    assert not errors, f"a robot raised {errors[0]!r}"
    return [int(p) for p in fetched], det, f


def test_over_only_when_everything_is_done(Detector):
    f = frontier.create("coarse")
    det = Detector(2, f)
    det.will_put(1)
    f.put("seed")
    assert not det.is_over(), "over with the seed still in the frontier"
    assert f.get(timeout=1) == "seed"
    det.took(0)
    det.idle(1)
    assert not det.is_over(), "over while robot 0 works on the seed"
    det.will_put(2)
    f.put("a")
    f.put("b")
    det.finished(0)
    assert not det.is_over(), "over with two URLs in the frontier"
    for robot in (0, 1):
        f.get(timeout=1)
        det.took(robot)
    for robot in (0, 1):
        assert not det.is_over()
        det.finished(robot)
        det.idle(robot)
    assert det.is_over(), "not over: every URL was finished and the frontier is empty"


def test_two_crawls_at_once_keep_their_detectors_apart(Detector):
    """Two crawls, X and Y, each with its own frontier and detector, run at the same time (two
    crawls in one process), their calls interleaved, one thread, in a fixed order: robot 0 of
    each takes its seed; Y's robot 0 finishes, so Y is over while X's robot 0 still works
    (state shared between detectors, a class attribute or a module global, says X is over
    too); then X's robot 0 puts one more link and finishes, its robot 1 does that link, and X
    is over. After every step each detector must answer for its own crawl alone."""
    fx, fy = frontier.create("coarse"), frontier.create("coarse")
    x, y = Detector(2, fx), Detector(2, fy)
    wrong: list[str] = []

    def expect(over: dict, step: str) -> None:
        for name, det in (("X", x), ("Y", y)):
            if name in over and det.is_over() != over[name]:
                wrong.append(f"after {step}, crawl {name}'s is_over() said {not over[name]}")

    def crawls() -> None:
        x.will_put(1)
        fx.put("x0")
        y.will_put(1)
        fy.put("y0")
        expect({"X": False, "Y": False}, "each crawl put its seed")
        assert fx.get(timeout=1) == "x0" and fy.get(timeout=1) == "y0"
        x.took(0)
        y.took(0)
        expect({"X": False, "Y": False}, "robot 0 of each crawl took its seed")
        y.finished(0)
        y.idle(0)
        y.idle(1)
        expect({"X": False, "Y": True},
               "Y's robot 0 finished y0 and Y's robots said idle (X's robot 0 works on x0)")
        x.will_put(1)
        fx.put("x1")
        x.finished(0)
        expect({"X": False, "Y": True}, "X's robot 0 put x1 and finished x0 (x1 waits)")
        assert fx.get(timeout=1) == "x1"
        x.took(1)
        expect({"X": False, "Y": True}, "X's robot 1 took x1")
        x.finished(1)
        x.idle(0)
        x.idle(1)
        expect({"X": True, "Y": True}, "X's robot 1 finished x1 and X's robots said idle")

    errors: list[BaseException] = []

    def guarded() -> None:
        try:
            crawls()
        except Exception as exc:  # reported below, not lost in a thread
            errors.append(exc)

    join_all([start_thread(guarded)], timeout=10)  # a call that blocks fails, never hangs
    assert not errors, f"two crawls at once: {errors[0]!r}"
    assert not wrong, (
        f"two crawls at once, each with its own detector: {wrong[0]}: a detector's state must "
        "be its own (not a class attribute or a module global)")


@pytest.mark.timeout(90)
@pytest.mark.parametrize("robots", [2, 4, 8])
def test_crawl_fetches_everything_once_and_stops(Detector, robots):
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        for trial in range(6):
            rng = random.Random(1000 * robots + trial)
            graph = random_graph(300, rng)
            fetched, det, f = crawl(Detector, graph, robots, rng, shake=0.05 * (trial % 2))
            missing = set(graph) - set(fetched)
            assert not missing, (
                f"trial {trial}: the crawl stopped early, {len(missing)} of {len(graph)} pages "
                f"never fetched ({len(f)} URLs still in the frontier)")
            assert len(fetched) == len(set(fetched)), "a page was fetched twice"
            assert det.is_over() and len(f) == 0
    finally:
        sys.setswitchinterval(old)


WINDOWS = ["get-took", "took-will_put", "will_put-put", "put-finished"]


def held_back(Detector, window: str, looks: int = 5_000,  # noqa: N803 (a class)
              idle_first: bool = False, seconds: float = 0.0, cap: float = 10.0) -> None:
    """Robot A takes the seed and is held at ``window`` of its loop (an event, not a sleep)
    until robot B has asked ``is_over()`` ``looks`` times (taking without waiting between two
    looks, and saying ``idle`` when there was nothing); B must never hear "over" meanwhile. A
    detector that guesses (looks, waits, looks again, or counts quiet looks) hears it here.
    ``idle_first``: robot A said ``idle`` once before its ``get`` (its previous get timed out
    just before the seed went in), so that a detector reading "every robot said idle" as
    "over" hears it too. ``seconds``: B also asks for at least that long (a detector that
    guesses after a quiet time hears "over" too); ``cap``: B stops after that long whatever
    it counted (a slow detector is asked fewer times; A is held 20 s at most)."""
    f = frontier.create("coarse")
    det = Detector(2, f)
    det.will_put(1)
    f.put("0")
    if idle_first:
        det.idle(0)
    asked = 0
    enough = threading.Event()
    wrong: list[str] = []
    page = f.get(timeout=5)  # robot A's get, before B runs

    def robot_a() -> None:
        if window == "get-took":
            enough.wait(20)
        det.took(0)
        if window == "took-will_put":
            enough.wait(20)
        det.will_put(1)
        if window == "will_put-put":
            enough.wait(20)
        f.put(str(int(page) + 1))
        if window == "put-finished":
            enough.wait(20)
        det.finished(0)

    def robot_b() -> None:
        nonlocal asked
        start = time.monotonic()
        while not enough.is_set():
            if det.is_over():
                wrong.append(f"is_over() said True while robot 0 was held between "
                             f"{window.replace('-', '() and ')}() with page 0 (robot 1's "
                             f"look {asked + 1:,}, {time.monotonic() - start:.2f} s in)")
                enough.set()
                return
            asked += 1
            if asked >= looks or asked % 1024 == 0:  # the clock read only now and then
                spent = time.monotonic() - start
                if (asked >= looks and spent >= seconds) or spent >= cap:
                    enough.set()
                    return
            got = f.get_many(1)
            if not got:
                det.idle(1)
                continue
            det.took(1)
            det.finished(1)  # page 1 has no links
            assert got == ["1"]

    threads = [start_thread(robot_a), start_thread(robot_b)]
    join_all(threads, timeout=30)
    assert not wrong, wrong[0]
    while not det.is_over():  # what is left: page 1, if B did not take it
        page = f.get(timeout=5)
        det.took(1)
        det.finished(1)


@pytest.mark.parametrize("window", WINDOWS)
def test_a_robot_held_back_never_reads_as_over(Detector, window):
    held_back(Detector, window)


@pytest.mark.parametrize("window", WINDOWS)
def test_a_robot_that_was_idle_held_back_never_reads_as_over(Detector, window):
    """The same, robot A having said ``idle`` before it took the seed: idleness is not
    termination while a robot holds a URL (it may have got one since it said idle)."""
    held_back(Detector, window, idle_first=True)


def test_a_robot_held_back_a_million_looks_never_reads_as_over(Detector):
    """A robot fetching one slow page: robot A is held between ``took`` and ``will_put`` while
    robot B asks ``is_over()`` 1,000,000 times and for at least a second (the reference takes
    about a second here; B stops after 10 s whatever it counted). A detector that says "over"
    after many quiet looks (a count of looks with no ``will_put``/``took``/``finished``
    between them) or after a quiet while hears it here, where 5,000 looks were too few."""
    held_back(Detector, "took-will_put", looks=1_000_000, seconds=1.0)


def test_explored_no_schedule_reads_as_over_while_work_is_left(Detector):
    """Under the explorer (every interleaving within the default bound): robots A and C each
    took a page; A announces and puts one more link while C finishes; B keeps asking. No
    schedule may let B hear "over", and once the last page is done the crawl must be over.
    Catches a count updated outside the lock and a ``took`` split over two critical sections
    however rarely real threads show them."""
    frontrun = pytest.importorskip("frontrun", reason="frontrun (crawlab[explore]) is not "
                                   "installed here")
    from frontrun._cooperative import patch_locks, unpatch_locks

    from frontier.check.explore import DEFAULT_BOUND

    def setup():
        f = frontier.create("coarse")
        det = Detector(3, f)
        det.will_put(2)
        f.put("0")
        f.put("1")
        assert f.get(timeout=1) == "0" and f.get(timeout=1) == "1"
        return {"f": f, "det": det, "heard": []}

    def robot_a(w):
        w["det"].took(0)
        w["det"].will_put(1)
        w["f"].put("2")
        w["det"].finished(0)

    def robot_c(w):
        w["det"].took(2)
        w["det"].finished(2)

    def robot_b(w):
        for _ in range(3):
            if w["det"].is_over():
                w["heard"].append("over")

    def holds(w) -> bool:
        if w["heard"]:
            return False
        det, f = w["det"], w["f"]
        if det.is_over():
            return False  # page 2 is still in the frontier
        page = f.get_many(1)
        det.took(1)
        det.finished(1)
        return page == ["2"] and det.is_over()

    patch_locks()
    try:
        result = frontrun.explore(setup=setup, workers=[robot_a, robot_b, robot_c],
                                  invariant=holds, preemption_bound=DEFAULT_BOUND,
                                  clock="virtual", detect_io=False, reproduce_on_failure=0,
                                  stop_on_first=True)
    finally:
        unpatch_locks()
    assert result.property_holds is not None, "the exploration could not conclude"
    assert result.property_holds, (
        "an interleaving let a robot hear 'over' while a page was being worked on or waited "
        f"in the frontier, or never ended the crawl (after {result.num_explored} "
        "interleavings)")
