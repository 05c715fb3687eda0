"""Shared fixtures, and the autograder.

``name`` runs a test once for every registered frontier. The rest of this file turns the
frontier tests into an autograder for a class written outside the package (a student's)::

    pytest tests/test_frontier_contract.py tests/test_frontier_threads.py \\
        tests/test_frontier_model.py --frontier=exercises/ex1_bounded_fifo.py:BoundedFifo

or ``CRAWLAB_FRONTIER=module:Class pytest ...``. The class is registered in the frontier
registry before the test modules are imported, so every test parametrized over the registered
names (``tests.helpers.ALL``, ``CORRECT``, ``BOUNDED``, ``frontier.names()``) takes it too; the
tests of the built-in frontiers are then deselected (``--with-builtins`` keeps them).

Which tests apply to the graded class is decided by its *exercise*, never by the class:
``--frontier-kind=fifo,bounded`` (what ``exercises/grade.py`` passes; by default the kind the
exercise of that file and class asks for) says its ordering and whether it is bounded, and a
graded class is always tested as correct and live, whatever its ``correct``, ``bounded``,
``live`` or ``ordering`` attributes say (``test_class_attributes`` fails if they disagree).

``--exercises=DIR`` (or ``CRAWLAB_EXERCISES=DIR``) grades the exercises of ``exercises/`` found in
``DIR`` with the tests of ``tests/autograder/``; without it those tests are skipped.

Two aids make a concurrency failure readable instead of a hang:

* the *watchdog*: a test that fails while threads it started are still alive gets a report
  section, "threads still alive", with the stack of each (from :func:`sys._current_frames`), so a
  deadlock shows *where* every thread is blocked; when grading, a test that hangs in the main
  thread is stopped by pytest-timeout after ``--grade-timeout`` seconds, with every stack.
* race detection is the thread tests' own: multiset equality of what went in and what came out,
  under a one-microsecond :func:`sys.setswitchinterval`.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
import sysconfig
import threading
import traceback
from pathlib import Path

import pytest

import frontier
from tests import helpers
from tests.helpers import Kind

ROOT = Path(__file__).resolve().parent.parent
REQUIRED = ("name", "description", "ordering", "correct", "bounded")
GRADE_TIMEOUT = 30.0  # seconds a graded test may run before the watchdog stops it


# --------------------------------------------------------------------------------------------
# Options


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("crawlab autograder")
    group.addoption(
        "--frontier",
        metavar="MODULE:CLASS",
        default=os.environ.get("CRAWLAB_FRONTIER") or None,
        help="run the frontier tests on this class (a module name or a path to a .py file, "
        "then ':' and the class name); env CRAWLAB_FRONTIER",
    )
    group.addoption(
        "--frontier-kind",
        metavar="ORDERING,BOUND",
        default=os.environ.get("CRAWLAB_FRONTIER_KIND") or None,
        help="what the graded frontier must be, e.g. fifo,bounded or priority,unbounded "
        "(default: what its exercise asks for); env CRAWLAB_FRONTIER_KIND",
    )
    group.addoption(
        "--with-builtins",
        action="store_true",
        help="with --frontier, also run the tests of the built-in frontiers",
    )
    group.addoption(
        "--exercises",
        metavar="DIR",
        default=os.environ.get("CRAWLAB_EXERCISES") or None,
        help="grade the exercises found in DIR with tests/autograder; env CRAWLAB_EXERCISES",
    )
    group.addoption(
        "--grade-exercise",
        metavar="EXERCISE",
        default=None,
        help="the exercise being graded (ex1 ...): the graded class is registered under the "
        "exercise's name, not its own, so every grading has the same checks",
    )
    group.addoption(
        "--grade-timeout",
        type=float,
        default=GRADE_TIMEOUT,
        metavar="SECONDS",
        help=f"when grading, stop a test that runs longer than this (default {GRADE_TIMEOUT:g})",
    )


def load_object(spec: str, what: str = "--frontier") -> object:
    """Import ``MODULE:NAME`` where MODULE is a dotted module or a path to a ``.py`` file.

    Raises :class:`pytest.UsageError` with a one-line message when it cannot.
    """
    usage = f"{what} expects MODULE:NAME (e.g. exercises/ex1_bounded_fifo.py:BoundedFifo)"
    module_part, sep, attr = spec.rpartition(":")
    if not sep or not module_part or not attr:
        raise pytest.UsageError(f"{usage}, got {spec!r}")
    if module_part.endswith(".py") or os.sep in module_part:
        path = Path(module_part)
        if not path.is_absolute() and not path.exists():
            path = ROOT / path
        if not path.is_file():
            raise pytest.UsageError(f"{what}: no such file {module_part!r}; {usage}")
        mod_name = f"_graded_{path.stem}"
        loader_spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(loader_spec)  # type: ignore[arg-type]
        sys.modules[mod_name] = module
        try:
            loader_spec.loader.exec_module(module)  # type: ignore[union-attr]
        except Exception as exc:
            del sys.modules[mod_name]
            raise pytest.UsageError(f"{what}: importing {module_part} failed: {exc!r}") from None
    else:
        try:
            module = importlib.import_module(module_part)
        except ImportError as exc:
            raise pytest.UsageError(f"{what}: cannot import module {module_part!r} ({exc}); "
                                    f"{usage}") from None
        except Exception as exc:
            raise pytest.UsageError(f"{what}: importing {module_part} failed: {exc!r}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise pytest.UsageError(f"{what}: module {module_part!r} has no {attr!r}") from None


def register_graded_frontier(spec: str, exercise: str | None = None) -> str:
    """Load the class named by ``spec``, check its class attributes, register it; its name
    (the exercise's, when ``exercise`` is given)."""
    cls = load_object(spec)
    if not inspect.isclass(cls):
        raise pytest.UsageError(f"--frontier: {spec!r} is not a class")
    missing = [a for a in REQUIRED if not hasattr(cls, a)]
    if missing:
        raise pytest.UsageError(
            f"--frontier: class {cls.__name__} lacks the class attribute(s) {', '.join(missing)} "
            "(see frontier.contract.Frontier)")
    if exercise:
        from exercises.policy import EXERCISES

        cls.name = EXERCISES[exercise].frontier_name
    name = cls.name
    if not isinstance(name, str) or not name:
        raise pytest.UsageError(f"--frontier: {cls.__name__}.name must be a non-empty string")
    if name in frontier.names() and frontier.info(name) is not cls:
        raise pytest.UsageError(
            f"--frontier: the name {name!r} is taken by a built-in frontier; give "
            f"{cls.__name__} another name")
    frontier.register(cls)
    return name


def graded_kind(spec: str, given: str | None) -> Kind:
    """What the graded frontier of ``spec`` must be: ``given`` (``--frontier-kind``), else what
    the exercise asking for that file and class says. Never read from the class itself."""
    from exercises.policy import exercise_of

    file, _, cls = spec.rpartition(":")
    ex = exercise_of(file, cls)
    text = given or (ex.kind if ex else None)
    if text is None:
        raise pytest.UsageError(
            f"--frontier: {spec!r} is no exercise's frontier; say what it must be with "
            "--frontier-kind=ORDERING,BOUND (e.g. fifo,bounded)")
    try:
        return Kind.parse(text)
    except ValueError as exc:
        raise pytest.UsageError(f"--frontier-kind: {exc}") from None


def pytest_configure(config: pytest.Config) -> None:
    config.graded_frontier = None  # type: ignore[attr-defined]
    config.graded_kind = None  # type: ignore[attr-defined]
    spec = config.getoption("frontier")
    if spec:
        name = register_graded_frontier(spec, config.getoption("grade_exercise"))
        what = graded_kind(spec, config.getoption("frontier_kind"))
        helpers.grade(name, what)
        config.graded_frontier = name  # type: ignore[attr-defined]
        config.graded_kind = what  # type: ignore[attr-defined]
    exercises = config.getoption("exercises")
    if exercises and not Path(exercises).is_dir():
        raise pytest.UsageError(f"--exercises: no such directory {exercises!r}")


def pytest_report_header(config: pytest.Config) -> list[str]:
    lines = []
    if config.graded_frontier:  # type: ignore[attr-defined]
        lines.append(f"autograder: frontier {config.graded_frontier!r} "  # type: ignore[attr-defined]
                     f"from {config.getoption('frontier')}, tested as "
                     f"{config.graded_kind}")  # type: ignore[attr-defined]
    if config.getoption("exercises"):
        lines.append(f"autograder: exercises in {config.getoption('exercises')}")
    return lines


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """When grading a frontier, keep only the tests that run on it; give every graded test the
    grading timeout (pytest-timeout then stops a hang and prints every thread's stack)."""
    graded = config.graded_frontier  # type: ignore[attr-defined]
    grading = graded or config.getoption("exercises")
    if graded and not config.getoption("with_builtins"):
        keep, drop = [], []
        for item in items:
            params = getattr(getattr(item, "callspec", None), "params", {})
            on_graded = params.get("name") == graded
            is_frontier_test = "name" in getattr(item, "fixturenames", ())
            (keep if on_graded or not is_frontier_test and _is_autograder(item) else drop).append(
                item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    if grading:
        limit = config.getoption("grade_timeout")
        for item in items:
            mark = item.get_closest_marker("timeout")
            current = mark.args[0] if mark and mark.args else None
            if current is None or current > limit:
                item.add_marker(pytest.mark.timeout(limit), append=False)


def _is_autograder(item: pytest.Item) -> bool:
    parent = Path(str(item.fspath)).parent
    return parent.name == "autograder" or parent.parent.name == "autograder"


# --------------------------------------------------------------------------------------------
# The watchdog: stacks of the threads a failed test left behind


def thread_stacks(threads: list[threading.Thread]) -> str:
    """Where each thread is: the call it sleeps in, the last line of code outside the standard
    library that led there, and the stack (innermost call last), from
    :func:`sys._current_frames`."""
    stdlib = sysconfig.get_paths()["stdlib"]
    frames = helpers.current_frames()
    out = []
    for t in threads:
        frame = frames.get(t.ident)  # type: ignore[arg-type]
        if frame is None:
            continue
        stack = [f for f in traceback.extract_stack(frame)
                 if not (f.filename.startswith(stdlib) and f.name.startswith("_bootstrap"))]
        if not stack:
            continue
        inner = stack[-1]
        mine = [f for f in stack if not f.filename.startswith(stdlib)]
        line = f"--- thread {t.name!r} is in {_where(inner)}"
        if mine and mine[-1] is not inner:
            line += f", called from {_where(mine[-1])}"
        out.append(line + ":")
        out.extend(x.rstrip("\n") for x in traceback.format_list(stack[-8:]))
    return "\n".join(out)


def _where(f: traceback.FrameSummary) -> str:
    return f"{f.name}() ({Path(f.filename).name}:{f.lineno})"


EXPLANATION = (
    "These threads were still running when the test failed. A thread whose innermost frame is "
    "a wait() or an acquire() is asleep: if every thread is asleep, each waits for a signal or "
    "a lock that only another sleeper could give (a deadlock or a lost wake-up). Read each "
    "stack from the bottom: the last line of your own file is where it went to sleep."
)


@pytest.fixture(autouse=True)
def _thread_exceptions_fail_the_check(request: pytest.FixtureRequest):
    """When grading: an uncaught exception in any thread a check started fails that check, by
    name (it would otherwise only be printed, and the check could pass)."""
    if not (request.config.graded_frontier  # type: ignore[attr-defined]
            or request.config.getoption("exercises")):
        yield
        return
    caught: list[threading.ExceptHookArgs] = []
    old = threading.excepthook
    threading.excepthook = caught.append
    try:
        yield
    finally:
        threading.excepthook = old
    if caught:
        first = caught[0]
        who = first.thread.name if first.thread is not None else "a thread"
        pytest.fail(f"an uncaught exception in thread {who!r}: "
                    f"{first.exc_type.__name__}: {first.exc_value}", pytrace=False)


UNTALLIED = frozenset({"test_explored"})
"""Checks without the counters' watch: the explorer compares the counters with what its
threads saw in every scenario itself, and it must schedule the frontier's code alone (the
watch's bookkeeping would be scheduled too, and the explorations would not end in time)."""


@pytest.fixture(autouse=True)
def _counters_agree_in_every_check(request: pytest.FixtureRequest):
    """When grading a frontier, in every check: the counters offer a thread switch at each read,
    and at the end each frontier the check made (with no call still running) has
    ``stats.puts``/``stats.gets`` equal to the URLs that went in and came out, as the grader
    counted the calls (:func:`exercises.counters.watching`). No check is one where the counters
    go unwatched."""
    graded = request.config.graded_frontier  # type: ignore[attr-defined]
    if not graded or getattr(request.node, "originalname", "") in UNTALLIED:
        yield
        return
    from exercises.counters import watching

    with watching(frontier.info(graded)) as tally:
        yield
        problems = tally.check()
    if problems:
        pytest.fail(problems[0], pytrace=False)


@pytest.fixture(autouse=True)
def _signal_dispositions_are_left_as_found():
    """A test that calls a command's main() in-process must leave the process's signal
    dispositions as it found them. A SIGPIPE set back to its default kills the whole test run,
    silently, the next time any later test writes to a socket whose peer has gone (CI stopped
    with exit 141 in the middle of tests/test_journal.py that way)."""
    import signal

    names = [n for n in ("SIGPIPE", "SIGINT", "SIGTERM", "SIGUSR1") if hasattr(signal, n)]
    before = {n: signal.getsignal(getattr(signal, n)) for n in names}
    yield
    changed = [n for n in names if signal.getsignal(getattr(signal, n)) is not before[n]]
    for n in changed:
        signal.signal(getattr(signal, n), before[n])
    if changed:
        pytest.fail(f"the test changed the disposition of {', '.join(changed)} and left it so",
                    pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    item._threads_before = set(threading.enumerate())  # type: ignore[attr-defined]
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if call.when != "call" or not report.failed:
        return
    before = getattr(item, "_threads_before", set())
    alive = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    if alive:
        report.sections.append(
            ("threads still alive", EXPLANATION + "\n\n" + thread_stacks(alive)))


# --------------------------------------------------------------------------------------------
# Fixtures


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``name``: every registered frontier (the graded one too), unless the test parametrizes
    ``name`` itself."""
    explicit = set()
    for mark in metafunc.definition.iter_markers("parametrize"):
        argnames = mark.args[0] if mark.args else mark.kwargs.get("argnames", "")
        if isinstance(argnames, str):
            argnames = argnames.split(",")
        explicit.update(a.strip() for a in argnames)
    if "name" in metafunc.fixturenames and "name" not in explicit:
        metafunc.parametrize("name", frontier.names())


@pytest.fixture
def registry():
    """Leaves the registry and the loaded specs as it found them (for a test that loads a
    student's FILE.py:CLASS)."""
    from frontier import contract, userclass

    saved = (dict(contract._REGISTRY), dict(userclass._loaded), dict(userclass._specs))
    yield
    for live, old in zip((contract._REGISTRY, userclass._loaded, userclass._specs), saved):
        live.clear()
        live.update(old)


@pytest.fixture
def exercises_dir(request: pytest.FixtureRequest) -> Path:
    """The directory of exercises being graded (``--exercises``); skips when not grading."""
    value = request.config.getoption("exercises")
    if not value:
        pytest.skip("autograder test: pass --exercises=DIR (e.g. --exercises=exercises) "
                    "to grade the exercises in DIR")
    return Path(value).resolve()


def load_exercise(directory: Path, module: str, attr: str) -> object:
    """``attr`` of ``directory/module.py`` (fresh import)."""
    return load_object(f"{directory / (module + '.py')}:{attr}", what="--exercises")
