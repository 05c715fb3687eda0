"""``crawlab``: the one parser of the command line (also ``python -m crawlers``).

Subcommands::

    crawlab frontiers            list the registered frontiers, one line each
    crawlab lab --list           list the labs
    crawlab lab NAME [FLAGS]     run a lab (FLAGS: --quick --out DIR --seed N, and its own)
    crawlab serve [FLAGS]        serve the generated web (and directories) on 127.0.0.1
    crawlab crawl [FLAGS]        crawl with r robot threads sharing one frontier
    crawlab bsp [FLAGS]          bulk-synchronous crawl: P worker processes, supersteps
    crawlab partition [FLAGS]    assign sites to K crawlers
    crawlab explore FRONTIER     explore its interleavings (DPOR); --replay a violation
    crawlab linearize FRONTIER   check recorded histories for linearizability
    crawlab course WHAT DEST     write the student kit or Gradescope's autograder.zip

Each subcommand is one module of :mod:`crawlers.cli` with the same three names: ``HELP`` (its
line in ``crawlab --help``), ``add_arguments(parser)`` and ``run(args) -> exit status``; the
parser below registers them all the same way. Bad input never ends in a traceback: it prints
one line ``crawlab: error: ...`` to standard error and exits with status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from crawlers.args import EXIT_INTERRUPTED, EXIT_USAGE, OneLineParser
from crawlers.cli import (
    bsp,
    course,
    crawl,
    explore,
    frontiers,
    lab,
    linearize,
    partition,
    serve,
)
from crawlers.cli.userfrontier import install_source_check, resolve_frontier_argument
from crawlers.crawl.interrupts import terminate_is_interrupt

__all__ = ["COMMANDS", "build_parser", "main"]

#: The subcommands, in the order of ``crawlab --help``: (name, module).
COMMANDS = (
    ("frontiers", frontiers),
    ("lab", lab),
    ("crawl", crawl),
    ("serve", serve),
    ("bsp", bsp),
    ("partition", partition),
    ("explore", explore),
    ("linearize", linearize),
    ("course", course),
)


def build_parser() -> argparse.ArgumentParser:
    """``crawlab``'s parser: one :class:`~crawlers.args.OneLineParser` per subcommand, each
    with its module's flags and ``run`` as the ``run`` default."""
    import frontier

    parser = OneLineParser(
        prog="crawlab",
        description="crawlab: a concurrency lab built around the URL frontier of a web crawler",
    )
    parser.add_argument("--version", action="version", version=f"crawlab {frontier.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    for name, module in COMMANDS:
        p = sub.add_parser(name, help=module.HELP)
        module.add_arguments(p)
        p.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``crawlab`` with ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    import frontier
    from crawlers.web.server import ServerError
    from labs.harness import LabError

    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # as typed (crawlab bsp relaunches)
    if not getattr(args, "run", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        install_source_check()  # a student's FILE.py:CLASS is checked before it is imported
        resolve_frontier_argument(args)
        with terminate_is_interrupt():
            return int(args.run(args) or 0)
    except KeyboardInterrupt:
        print(f"crawlab {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (crawlab crawl --json | head): no traceback
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the interpreter's last flush is quiet
        return 141  # as a shell reports a process ended by SIGPIPE
    except ServerError as exc:  # the served web could not start: no port, no socket left
        print(f"crawlab {args.command}: error: the served web did not start: {exc}",
              file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # a file it was told to write is a folder, the disk is full ...
        where = f": {exc.filename}" if exc.filename else ""
        print(f"crawlab {args.command}: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:
        # the student's frontier failed (a ValueError of theirs too): say where, in one line
        where = None if isinstance(exc, LabError) else frontier.userclass.blame(exc)
        if where is not None:
            print(f"crawlab {args.command}: your frontier failed at {where}", file=sys.stderr)
            return 1
        if isinstance(exc, (LabError, ValueError)):  # bad input (UnknownFrontier is one)
            print(f"crawlab {args.command}: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        raise
