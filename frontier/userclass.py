"""A frontier the student wrote, named on the command line as ``FILE.py:CLASS``.

Wherever crawlab takes a frontier's name (``crawlab crawl``, ``bsp``, ``explore``,
``linearize``, the labs) it also takes ``FILE.py:CLASS`` (or ``MODULE:CLASS``), the form the
autograder uses::

    crawlab lab frontier-bench --quick --frontier exercises/ex1_bounded_fifo.py:BoundedFifo

:func:`load_spec` imports the file, checks that the class keeps the contract of
:class:`frontier.contract.Frontier` (its five class attributes, its seven methods and their
call shapes, a name that no other frontier has), registers it and returns the name it is
registered under; after that the class is a frontier like the built-in ones (``frontier.create
(name)``). :func:`frontier.info` falls back on it for any name with a ``:``, so a worker process
handed the spec (:func:`spec_of`) loads the class again by itself.

Every refusal is a :class:`BadFrontierSpec` (an :class:`~frontier.UnknownFrontier`, so a
``ValueError``) whose message is one line: the command line prints it and exits with status 2.

Before a file is imported, the check set with :func:`set_source_check` reads its source (the
command line sets the exercises' static check; this layer cannot import ``exercises``): a file
it finds fault with is refused without running a line of it.

A file runs its code when it is imported and when a frontier of its class is made (its
``__init__``): in the main thread each has :data:`START_SECONDS` to end (an alarm,
``signal.setitimer``), or it is refused in one line; a loop at module level or in ``__init__``
hung the command for ever. Past that, a method that never returns is the caller's to bound
(the crawl's ``STUCK_AFTER``). An alarm cannot interrupt one long C-level operation (``10 **
10 ** 9``), nor run outside the main thread.

Thread-safety: loading is meant for start-up, from one thread; a lock makes two concurrent
loads of one spec load it once.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import inspect
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from frontier import contract
from frontier.contract import UnknownFrontier, info, names, register

__all__ = ["MAX_NAME", "BadFrontierSpec", "blame", "broken_contract", "is_frontier_name",
           "is_spec", "load_spec", "loaded_name", "resolve", "set_source_check", "spec_of"]

ATTRIBUTES = {"name": str, "description": str, "ordering": str, "correct": bool, "bounded": bool}
ORDERINGS = ("fifo", "priority")
#: Each method and a call it must accept (``None`` stands for ``self``).
CALLS = {
    "put": ((None, "http://a.test/"), {"priority": 0.0, "timeout": None}),
    "get": ((None,), {"timeout": None}),
    "put_many": ((None, []), {}),
    "get_many": ((None, 1), {}),
    "close": ((None,), {}),
    "__len__": ((None,), {}),
}
USAGE = "a frontier is a registered name (see crawlab frontiers) or FILE.py:CLASS"
#: Seconds a file's import, and the making of one frontier of its class, may take (the same
#: bound as the crawl's ``STUCK_AFTER`` for a call that makes no progress).
START_SECONDS = 10.0


class BadFrontierSpec(UnknownFrontier):
    """``FILE.py:CLASS`` names no file, no class, or a class that breaks the contract."""


_lock = threading.RLock()  # re-entrant: a loaded file may name another spec
_loaded: dict[tuple[str, str], str] = {}  # (resolved file or module, class) -> registered name
_specs: dict[str, str] = {}  # registered name -> the absolute spec it was loaded from
_files: set[str] = set()  # the resolved paths of the files loaded
_source_check: Callable[[Path, str], list[str]] | None = None
_classes: set[type] = set()  # the classes loaded from files: made within START_SECONDS


class _OutOfTime(BaseException):
    """Raised by the alarm into code that ran past :data:`START_SECONDS` (a BaseException, so
    that the ``except Exception`` of the student's code does not swallow it)."""


@contextlib.contextmanager
def _in_time(seconds: float) -> Iterator[None]:
    """Inside: :class:`_OutOfTime` raised into the main thread once ``seconds`` have passed,
    and again every 0.1 s after (code that catches it once does not escape). Elsewhere than
    the main thread, or when SIGALRM is someone else's (a handler set), no limit."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGALRM) is not signal.SIG_DFL):
        yield
        return

    def ring(signum: int, frame: object) -> None:
        raise _OutOfTime

    signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.1)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


def _make(cls: type, **options: object) -> object:
    """``cls(**options)``; for a class loaded from a file, within :data:`START_SECONDS`."""
    if cls not in _classes:
        return cls(**options)
    try:
        with _in_time(START_SECONDS):
            return cls(**options)
    except _OutOfTime as exc:  # the frontier failed, as one whose put never returns does
        late = RuntimeError(f"making a {cls.__qualname__} (its __init__) did not end within "
                            f"{START_SECONDS:g} s")
        where = _where(exc)
        if where is not None:
            late.blamed = f"{where}: {_one_line(late)}"  # type: ignore[attr-defined]
        raise late from None


def set_source_check(check: Callable[[Path, str], list[str]] | None) -> None:
    """Run ``check(path, class_name)`` on every file before importing it; a non-empty answer
    (one-line violations) refuses the file. ``None`` removes the check."""
    global _source_check
    _source_check = check


def is_spec(text: str) -> bool:
    """Whether ``text`` names a class (``FILE.py:CLASS``, ``MODULE:CLASS``) rather than a
    registered frontier: registered names never contain ``:``."""
    return ":" in text


def resolve(text: str) -> str:
    """The registered name of ``text``: itself when it is a registered name, the name
    :func:`load_spec` registers when it is a spec, else :class:`UnknownFrontier`."""
    if is_spec(text):
        return load_spec(text)
    info(text)  # UnknownFrontier, listing the names
    return text


def spec_of(name: str) -> str | None:
    """The absolute spec the class registered as ``name`` was loaded from (``None`` for a
    built-in frontier): what to hand another process, which loads it again."""
    return _specs.get(name)


def load_spec(spec: str) -> str:
    """Import the class ``spec`` names, check it keeps the contract, register it; its name.

    Loading the same file and class again returns the same name without importing again."""
    where, sep, attr = spec.rpartition(":")
    if not sep or not where or not attr.isidentifier():
        raise BadFrontierSpec(f"{spec!r}: {USAGE}")
    with _lock:
        try:
            key, is_file = _key(where, attr)
        except (OSError, ValueError, RuntimeError) as exc:  # a NUL byte, a symlink loop
            raise BadFrontierSpec(f"{spec!r}: {_one_line(exc)}") from None
        if key in _loaded:
            return _loaded[key]
        module = (_import_file(spec, Path(where), attr) if is_file
                  else _import_module(spec, where))
        if is_file:  # from now on its code runs: blame() names it (a metaclass, a property)
            _files.add(key[0])
        cls = getattr(module, attr, None)
        if cls is None:
            raise BadFrontierSpec(f"{spec}: {where} defines no {attr!r}")
        _check_contract(spec, cls)
        if cls.name in names() and info(cls.name) is not cls:
            raise BadFrontierSpec(f"{spec}: the name {cls.name!r} is taken by another "
                                  f"frontier; give {attr} another name")
        register(cls)
        if is_file:
            _classes.add(cls)
        _loaded[key] = cls.name
        _specs[cls.name] = f"{key[0]}:{attr}"
        return cls.name


def loaded_name(spec: str) -> str | None:
    """The name the class ``spec`` names is registered under if :func:`load_spec` has loaded
    it already, else ``None``. Never imports: what a data file (a trace) names is compared
    with the frontier the user chose without running the file it names."""
    where, sep, attr = spec.rpartition(":")
    if not sep or not where:
        return None
    try:
        key = _key(where, attr)[0]
    except (OSError, ValueError, RuntimeError):  # a NUL byte, a symlink loop: never loaded
        return None
    with _lock:
        return _loaded.get(key)


def _key(where: str, attr: str) -> tuple[tuple[str, str], bool]:
    """The key of ``_loaded`` for the class ``attr`` of file or module ``where``, and whether
    ``where`` is a file."""
    is_file = where.endswith(".py") or "/" in where or Path(where).is_file()
    return (str(Path(where).resolve()) if is_file else where, attr), is_file


def blame(exc: BaseException) -> str | None:
    """``FILE:LINE: Error: message`` when ``exc`` was raised in a file loaded here (the
    innermost such frame of its traceback, or of the exception it was raised from), or the
    ``blamed`` it carries (the same, found in another process that loaded the file, such as a
    BSP worker); ``None`` when the user's code is not where it went wrong."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        carried = getattr(exc, "blamed", None)
        if isinstance(carried, str):
            return carried
        where = _where(exc)
        if where:
            return f"{where}: {_one_line(exc)}"
        exc = exc.__cause__ or exc.__context__
    return None


def _where(exc: BaseException) -> str | None:
    """``FILE:LINE`` of the innermost frame of ``exc``'s traceback in a file loaded here."""
    tb, where = exc.__traceback__, None
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if _is_loaded(name):
            where = f"{_shown(name)}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where


def broken_contract(obj: object, message: str) -> RuntimeError:
    """The error to raise when the frontier ``obj`` broke its contract where no line of its
    own raised (a ``get`` that returned neither a URL nor ``None``, a ``put`` that never
    returns): a ``RuntimeError`` whose :func:`blame` names the class's file and line when it
    was loaded from a file here, ``FILE:LINE: ClassName: message``."""
    exc = RuntimeError(message)
    cls = type(obj)
    try:
        path = inspect.getsourcefile(cls)
        line = inspect.getsourcelines(cls)[1]
    except (OSError, TypeError):
        return exc
    if path is not None and _is_loaded(path):
        exc.blamed = f"{_shown(path)}:{line}: {cls.__name__}: {message}"  # type: ignore[attr-defined]
    return exc


def _is_loaded(path: str) -> bool:
    """Whether ``path`` (a code object's file name, or a class's source file) is a file loaded
    here: as it was loaded, or a ``.py`` whose resolved path was."""
    return path in _files or (path.endswith(".py") and str(Path(path).resolve()) in _files)


def _shown(path: str) -> str:
    """``path`` relative to the working directory when it is under it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return path


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _import_file(spec: str, path: Path, attr: str) -> object:
    if path.is_dir():  # not "no such file": it is there, as a folder
        raise BadFrontierSpec(f"{spec}: {path} is a directory, not a Python file")
    if path.suffix != ".py":
        raise BadFrontierSpec(f"{spec}: {path} is not a .py file; {USAGE}")
    if not path.is_file():
        raise BadFrontierSpec(f"{spec}: no such file {str(path)!r}")
    if _source_check is not None:
        problems = _source_check(path, attr)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise BadFrontierSpec(f"{spec}: {' '.join(problems[0].split())}{more}")
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:8]
    mod_name = f"crawlab_user_{path.stem}_{digest}"
    loader = importlib.util.spec_from_file_location(mod_name, path)
    if loader is None or loader.loader is None:
        raise BadFrontierSpec(f"{spec}: cannot import {path}")
    module = importlib.util.module_from_spec(loader)
    sys.modules[mod_name] = module  # dataclasses and pickle look classes up here
    try:
        with _in_time(START_SECONDS):
            loader.loader.exec_module(module)
    except BaseException as exc:  # the student's module: any error is theirs, said in one line
        del sys.modules[mod_name]
        if isinstance(exc, KeyboardInterrupt):
            raise
        if isinstance(exc, _OutOfTime):
            raise BadFrontierSpec(f"{spec}: importing {path} did not end within "
                                  f"{START_SECONDS:g} s (code that runs at import: a loop at "
                                  "module level?)") from None
        raise BadFrontierSpec(f"{spec}: importing {path} failed: {_one_line(exc)}") from None
    return module


def _import_module(spec: str, dotted: str) -> object:
    try:
        return importlib.import_module(dotted)
    except ImportError as exc:
        raise BadFrontierSpec(f"{spec}: cannot import module {dotted!r} ({_one_line(exc)}); "
                              f"{USAGE}") from None
    except Exception as exc:
        raise BadFrontierSpec(f"{spec}: importing {dotted} failed: {_one_line(exc)}") from None


#: The longest name a class of the user's may register: a name is printed, and is part of the
#: files written about it (``crawlab explore``'s ``explore-NAME-...json``, ``linearize-NAME``).
MAX_NAME = 64
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


def is_frontier_name(name: str) -> bool:
    """Whether ``name`` is safe in a file name and on a terminal: ASCII letters, digits, ``-``
    and ``_``, starting with a letter or digit, at most :data:`MAX_NAME` characters (every
    built-in name is; ``../x`` would put files elsewhere, an ANSI escape would be printed
    raw)."""
    return len(name) <= MAX_NAME and _NAME.fullmatch(name) is not None


def _check_contract(spec: str, cls: object) -> None:
    """:class:`BadFrontierSpec` naming the first way ``cls`` breaks the frontier contract."""
    if not inspect.isclass(cls):
        raise BadFrontierSpec(f"{spec}: is a {type(cls).__name__}, not a class")
    missing = [a for a in ATTRIBUTES if not hasattr(cls, a)]
    if missing:
        raise BadFrontierSpec(f"{spec}: the class lacks the class attribute(s) "
                              f"{', '.join(missing)} (see frontier.contract.Frontier)")
    for attr, kind in ATTRIBUTES.items():
        value = getattr(cls, attr)
        if not isinstance(value, kind):
            raise BadFrontierSpec(f"{spec}: {attr} must be a {kind.__name__}, got {value!r}")
    if not is_frontier_name(cls.name):
        shown = (repr(cls.name) if len(cls.name) <= MAX_NAME
                 else f"{cls.name[:MAX_NAME]!r}... ({len(cls.name)} characters)")
        raise BadFrontierSpec(
            f"{spec}: its name {shown} is not a frontier's name: 1 to {MAX_NAME} ASCII "
            "letters, digits, '-' and '_', starting with a letter or digit (it names files)")
    if cls.ordering not in ORDERINGS:
        raise BadFrontierSpec(f"{spec}: ordering must be 'fifo' or 'priority', "
                              f"got {cls.ordering!r}")
    for method, (args, kwargs) in CALLS.items():
        fn = getattr(cls, method, None)
        if not callable(fn):
            raise BadFrontierSpec(f"{spec}: the class has no method {method}() "
                                  "(see frontier.contract.Frontier)")
        try:
            inspect.signature(fn).bind(*args, **kwargs)
        except TypeError:
            shown = ", ".join(["self", *map(repr, args[1:]),
                               *(f"{k}={v!r}" for k, v in kwargs.items())])
            raise BadFrontierSpec(f"{spec}: {method}() cannot be called as "
                                  f"{method}({shown})") from None
        except ValueError:  # no signature to read (a builtin): let the call decide
            pass
    if not hasattr(cls, "closed"):
        raise BadFrontierSpec(f"{spec}: the class has no 'closed' property "
                              "(see frontier.contract.Frontier)")


contract._spec_loader = load_spec  # frontier.info(FILE.py:CLASS) loads through here
contract._maker = _make  # frontier.create makes a loaded class's frontiers in time
