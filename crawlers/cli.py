"""``crawlab``: the single command-line entry (also ``python -m crawlers``).

Subcommands::

    crawlab frontiers            list the registered frontiers, one line each
    crawlab lab --list           list the labs
    crawlab lab NAME [FLAGS]     run a lab (FLAGS: --quick --out DIR --seed N, and its own)
    crawlab serve [FLAGS]        serve the generated web (and directories) on 127.0.0.1

Bad input never ends in a traceback: it prints one line ``crawlab: error: ...`` to standard
error and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

__all__ = ["OneLineParser", "main"]

EXIT_USAGE = 2


class OneLineParser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line (no usage dump) and exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _cmd_frontiers(args: argparse.Namespace) -> int:
    import frontier

    rows = frontier.describe()
    width = max(len(name) for name, _ in rows)
    for name, description in rows:
        cls = frontier.info(name)
        tags = [cls.ordering, "bounded" if cls.bounded else "unbounded"]
        if not cls.correct:
            tags.append("RACY")
        print(f"{name:<{width}}  {description}  [{', '.join(tags)}]")
    return 0


def _cmd_lab(args: argparse.Namespace) -> int:
    from labs.harness import lab_modules, run_lab

    if args.list or not args.name:
        labs = lab_modules()
        width = max((len(n) for n in labs), default=0)
        for name, doc in labs.items():
            print(f"{name:<{width}}  {doc}")
        if not args.list and not args.name:
            print("\nrun one with: crawlab lab NAME [--quick] [--out DIR] [--seed N]")
        return 0
    return run_lab(args.name, args.lab_args)


def _build_parser() -> argparse.ArgumentParser:
    import frontier

    parser = OneLineParser(
        prog="crawlab",
        description="crawlab: a concurrency lab built around the URL frontier of a web crawler",
    )
    parser.add_argument("--version", action="version", version=f"crawlab {frontier.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)

    p = sub.add_parser("frontiers", help="list the registered frontiers")
    p.set_defaults(run=_cmd_frontiers)

    p = sub.add_parser("lab", help="list or run the labs")
    p.add_argument("--list", action="store_true", help="list the labs")
    p.add_argument("name", nargs="?", help="the lab to run (see --list)")
    p.add_argument("lab_args", nargs=argparse.REMAINDER, help="flags for the lab")
    p.set_defaults(run=_cmd_lab)

    try:
        from crawlers import server
    except ImportError:  # the web side is optional until it lands
        server = None
    if server is not None and hasattr(server, "add_serve_arguments"):
        p = sub.add_parser("serve", help="serve the generated web (and directories) locally")
        server.add_serve_arguments(p)
        p.set_defaults(run=server.run_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``crawlab`` with ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    import frontier
    from labs.harness import LabError

    parser = _build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.run(args) or 0)
    except (LabError, frontier.UnknownFrontier, ValueError) as exc:
        print(f"crawlab {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"crawlab {args.command}: interrupted", file=sys.stderr)
        return 130
