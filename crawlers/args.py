"""The command-line parsing every entry point shares: the one-line-error parser and the
argument types.

:class:`OneLineParser` is ``crawlab``'s parser (:mod:`crawlers.cli`) and each lab's
(:mod:`labs.harness`). Each type raises :class:`argparse.ArgumentTypeError`, which the parser
turns into ``crawlab CMD: error: ...`` and exit status 2.

Imports only the standard library, so that any layer may use it (the lowest of the
``crawlers`` layers).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_USAGE",
    "MAX_CAPACITY",
    "MAX_COMMIT_EVERY",
    "MAX_LATENCY",
    "MAX_PAGES",
    "MAX_PROCS",
    "MAX_R",
    "MAX_RETRIES",
    "MAX_RUNS",
    "MAX_SECONDS",
    "MAX_SEED",
    "MAX_SUPERSTEPS",
    "MAX_THREADS",
    "OneLineParser",
    "ascii_int",
    "at_most",
    "interrupted_status",
    "non_negative",
    "non_negative_int",
    "positive",
    "positive_int",
    "probability",
]

#: The exit status of bad input.
EXIT_USAGE = 2
#: The exit status of a command interrupted by Ctrl-C (128 + SIGINT, as a shell reports it).
EXIT_INTERRUPTED = 130


def interrupted_status(command: str, stopped_by: str) -> int:
    """The exit status of a crawl that ended with its report printed: 0, or
    :data:`EXIT_INTERRUPTED` after one line on standard error when the user stopped it (Ctrl-C
    or SIGTERM: ``stopped_by == "interrupted"``), so that ``crawlab crawl ... && next`` does not
    go on as if it had finished. The pages it fetched are kept all the same."""
    if stopped_by != "interrupted":
        return 0
    print(f"crawlab {command}: interrupted (the report is of the pages fetched until then)",
          file=sys.stderr)
    return EXIT_INTERRUPTED

#: The longest duration a flag in seconds takes (a year): far beyond any crawl or search here,
#: far below what the time functions and threading waits take (``threading.TIMEOUT_MAX``,
#: about 292 years), so that no sum or product of such flags overflows them.
MAX_SECONDS = 365 * 24 * 3600

#: The longest latency of one simulated request (``--latency``, ``--jitter``; ``crawlab serve``
#: and the labs take it too): an hour.
MAX_LATENCY = 3600.0

#: The largest frontier ``--capacity`` (``crawlab crawl``'s and the labs'): a bounded frontier
#: allocates its slots at once (8 bytes each).
MAX_CAPACITY = 10_000_000

#: The most pages (and sites) of a generated web: 2 000 000 is the largest any lab uses, and
#: a web is built in memory (about 10**9 pages do not fit; 10**19 overflow numpy). Also the
#: largest page budget (``crawl``'s and ``bsp``'s ``--max-pages``): more never binds on a
#: generated web, and a crawl of real sites that wants more goes on in another session of its
#: ``--state``.
MAX_PAGES = 5_000_000

#: The most URLs a BSP worker extracts per superstep (``bsp --R``): the largest generated web
#: in one superstep, far above the paper's 12 000; a larger R takes no more (a worker fetches
#: what its frontier holds), and the URLs extracted wait in memory for their fetch.
MAX_R = MAX_PAGES

#: The most supersteps of a BSP crawl (``bsp --max-supersteps``): the largest generated web
#: crawled one page a superstep (one worker, R = 1); each superstep keeps a row of the report
#: in memory.
MAX_SUPERSTEPS = MAX_PAGES

#: The largest seed KaHyPar takes (a C ``int``): ``crawlab partition --seed`` and the labs'.
MAX_SEED = 2**31 - 1

#: The most robot threads a crawl starts (``crawl --threads``, ``bsp --robots``): each is an OS
#: thread with its own stack and connection, and a crawl of 16 already saturates two cores.
MAX_THREADS = 1024

#: The most pages a journal groups into one commit (``crawl --commit-every``): they wait in
#: memory until it.
MAX_COMMIT_EVERY = 2**31 - 1

#: The most times a limit lets one thing be tried again (``--max-retries``,
#: ``--robots-retries``): each retry waits, so more would keep a crawl alive for ever.
MAX_RETRIES = 1000

#: The most worker processes of a BSP crawl (``bsp --procs``): each is a Python process.
MAX_PROCS = 256

#: The most runs (or rounds) a search or a lab's ``--runs`` makes: a day's work at the least.
MAX_RUNS = 1_000_000

_T = TypeVar("_T", int, float)


class OneLineParser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line (no usage dump) and exit status 2.

    Two more rules for every parser of crawlab (the subcommands' and the labs'), whoever adds
    the flags: an option that takes one value (argparse's ``store``, the default action)
    refuses a second one (``--threads 4 --threads 2`` is an error, not 2: :class:`_StoreOnce`;
    ``append`` options stay repeatable), and a ``type=Path`` argument refuses the empty
    string, which ``Path`` would silently turn into ``.`` (:func:`_path`)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)  # argparse's default action
        self.register("action", "store", _StoreOnce)
        for kind in {Path, type(Path())}:
            self.register("type", kind, _path)
        self._given: dict[str, tuple[str, object]] = {}  # dest -> (flag, value): this parse's

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        self._given = {}
        return super().parse_known_args(args, namespace)

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


class _StoreOnce(argparse._StoreAction):
    """argparse's ``store`` that refuses an option given twice, in whichever form (``--threads
    4 --thr=2``): one line naming the flag and both values, never the last silently kept.
    Positional arguments are stored once by argparse already."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = getattr(parser, "_given", None)
        if self.option_strings and given is not None:
            if self.dest in given:
                flag, before = given[self.dest]
                raise argparse.ArgumentError(
                    self, f"given twice ({flag} {_shown(before)} and {option_string} "
                          f"{_shown(values)}): give it once")
            given[self.dest] = (option_string, values)
        super().__call__(parser, namespace, values, option_string)


def _shown(value: object) -> str:
    """``value`` as an error shows it: quoted text (control characters escaped), at most 60
    characters; numbers as they are."""
    if isinstance(value, (list, tuple)):
        return " ".join(_shown(v) for v in value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    text = repr(str(value))
    return text if len(text) <= 60 else text[:57] + "..."


def _path(text: str) -> Path:
    """``type=Path`` on a crawlab parser: a path, never the empty one (``Path("")`` is ``.``,
    the working folder, which no one asked for)."""
    if not text:
        raise argparse.ArgumentTypeError("the path is empty (for the working folder, say .)")
    return Path(text)


def ascii_int(text: str, digits: int = 18) -> int | None:
    """The integer ``text`` spells in ASCII digits, at most ``digits`` of them, or None.

    For numbers that come from outside (an HTTP header, a query, a tool's output), where
    ``str.isdigit`` then ``int`` would raise on a ``²`` (a digit to ``isdigit``, not to
    ``int``) or on a number of more digits than ``int`` converts. O(len(text)).

    >>> ascii_int("120"), ascii_int("²"), ascii_int("１２"), ascii_int("-1"), ascii_int("9" * 19)
    (120, None, None, None, None)
    """
    if not (0 < len(text) <= digits and text.isascii() and text.isdigit()):
        return None
    return int(text)


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None


def positive_int(text: str) -> int:
    """An integer >= 1."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """An integer >= 0."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


def non_negative(text: str) -> float:
    """A finite number >= 0 (NaN and infinity refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):  # NaN first: it is neither negative nor not
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {text}")
    return value


def positive(text: str) -> float:
    """A finite number > 0."""
    value = non_negative(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be positive, got 0")
    return value


def probability(text: str) -> float:
    """A number in [0, 1]."""
    value = non_negative(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be a probability in [0, 1], got {text}")
    return value


def at_most(kind: Callable[[str], _T], high: _T, what: str = "") -> Callable[[str], _T]:
    """The type ``kind`` (one of the above) with the explicit upper limit ``high``;
    ``what`` says in the error why the limit is where it is (``"a year"``)."""

    def bounded(text: str) -> _T:
        value = kind(text)
        if value > high:
            why = f" ({what})" if what else ""
            raise argparse.ArgumentTypeError(f"must be at most {high}{why}, got {text}")
        return value

    bounded.__name__ = kind.__name__
    return bounded
