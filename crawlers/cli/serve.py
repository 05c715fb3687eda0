"""``crawlab serve``: serve the generated web (and directories) on 127.0.0.1 until Ctrl-C.

The server itself is :class:`crawlers.web.server.WebServer`; this module reads the flags. Its
numbers are read here rather than by argparse types so that each error names the flag the way
``crawlab serve`` always has (``--pages: not a valid number: 'x'``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from typing import Any

from crawlers.args import MAX_PAGES, MAX_SEED
from crawlers.cli.webflags import MAX_LATENCY
from crawlers.page.clock import jitter_problem
from crawlers.page.faults import Fault, FaultPlan, parse_faults
from crawlers.web.httpd import HOST, IDLE_TIMEOUT, REQUEST_TIMEOUT, SEND_TIMEOUT, LabServer
from crawlers.web.render import robots_path_problem
from crawlers.web.server import ServerError, WebServer, describe_os_error, serve
from crawlers.web.webgen import Web, generate

__all__ = ["HELP", "MIN_LIMIT", "add_arguments", "counts_line", "run"]

HELP = "serve the generated web (and directories) locally"
#: The shortest --idle-timeout, --request-timeout and --send-timeout (0 would close every client).
MIN_LIMIT = 0.01


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``crawlab serve``. Numbers are parsed by :func:`run`
    so that bad input gives one error line and exit status 2."""
    parser.add_argument("--pages", default=None, metavar="N",
                        help=f"pages of the generated web (default 3000, at most {MAX_PAGES})")
    parser.add_argument("--sites", default=None, metavar="N",
                        help="sites of the generated web (default 30, at most the pages)")
    parser.add_argument("--seed", default=None, metavar="N",
                        help="seed of the generated web, its faults and the --jitter of each "
                        "request (default 0)")
    parser.add_argument("--no-web", action="store_true",
                        help="serve only the --dir sites, no generated web")
    parser.add_argument("--dir", action="append", default=[], metavar="PATH",
                        help="serve a directory of static HTML as an extra site (repeatable)")
    parser.add_argument("--latency", default="0", metavar="SECONDS",
                        help="mean injected latency per request (default 0)")
    parser.add_argument("--jitter", default="0", metavar="SECONDS",
                        help="latency varies uniformly by +- this much, at most --latency "
                        "(default 0)")
    parser.add_argument("--faults", default=None, metavar="RATE",
                        help="fraction of generated pages (not home pages) that misbehave "
                        "(default 0)")
    parser.add_argument("--fault-kinds", default=None, metavar="LIST",
                        help="the faults of --faults, comma-separated (default all): "
                        + ",".join(f.value for f in Fault))
    parser.add_argument("--disallow", action="append", default=[], metavar="PREFIX",
                        help="path prefix (starting with /) disallowed by the generated "
                        "sites' robots.txt (repeatable)")
    parser.add_argument("--crawl-delay", default=None, metavar="SECONDS",
                        help="Crawl-delay announced in the generated sites' robots.txt")
    parser.add_argument("--port-base", default=None, metavar="PORT",
                        help="site i listens on PORT+i (default: ephemeral ports)")
    parser.add_argument("--hold", default="60", metavar="SECONDS",
                        help="how long a timeout fault (and /_fault/timeout on any site) "
                        "leaves a request unanswered (default 60)")
    parser.add_argument("--idle-timeout", default=str(IDLE_TIMEOUT), metavar="SECONDS",
                        help="close a connection that sends no request for this long "
                        f"(default {IDLE_TIMEOUT:g}, nginx's keep-alive default)")
    parser.add_argument("--request-timeout", default=str(REQUEST_TIMEOUT), metavar="SECONDS",
                        help="answer 408 and close a connection that takes longer than this to "
                        f"send a request (default {REQUEST_TIMEOUT:g}; a slowloris client)")
    parser.add_argument("--send-timeout", default=str(SEND_TIMEOUT), metavar="SECONDS",
                        help="close a connection whose client takes nothing of an answer for "
                        f"this long (default {SEND_TIMEOUT:g}, nginx's send_timeout)")
    parser.add_argument("--traps", action="store_true",
                        help="add crawler traps to every generated site, linked from its home "
                        "page under /trap/ (calendar, ever-deeper paths, growing queries, "
                        "session ids, a 1 byte/s page, a gzip bomb, Retry-After 3600, redirects "
                        "into paths robots.txt forbids, a 50 MB robots.txt on site 0)")


def _number(args: argparse.Namespace, name: str, kind: type, low: float,
            high: float | None = None) -> Any:
    text = getattr(args, name)
    if text is None:
        text = _DEFAULTS[name]
    option = "--" + name.replace("_", "-")
    try:
        value = kind(text)
    except (TypeError, ValueError):
        raise ValueError(f"{option}: not a valid number: {text!r}") from None
    if value < low or (high is not None and value > high) or value != value:
        bound = f"between {low} and {high}" if high is not None else f">= {low}"
        raise ValueError(f"{option}: must be {bound}, got {text.strip()}")
    return value


#: The values of the flags whose default is None, so that a value the user gave can be told
#: from a default (a flag given where it has no effect is refused: see _refuse_no_effect).
_DEFAULTS = {"pages": "3000", "sites": "30", "seed": "0", "faults": "0"}
#: Flags that describe only the generated web (its pages, their faults, its robots.txt).
_GENERATED = ("pages", "sites", "faults", "fault_kinds", "disallow", "crawl_delay")


def _given(args: argparse.Namespace, name: str) -> bool:
    value = getattr(args, name)
    return bool(value) if isinstance(value, list) else value is not None


def _refuse_without_web(args: argparse.Namespace) -> None:
    """With ``--no-web``, raise a one-line ValueError for a flag of the generated web
    (checked before their values, so that the message says why the flag is wrong)."""
    if args.traps:
        raise ValueError("--traps adds traps to the generated web: not with --no-web")
    for name in _GENERATED:
        if _given(args, name):
            flag = "--" + name.replace("_", "-")
            raise ValueError(f"{flag} describes the generated web: no effect with --no-web "
                             "(a --dir site serves its own files, robots.txt included)")


def _refuse_no_effect(args: argparse.Namespace, pages: int, sites: int, rate: float,
                      jitter: float) -> None:
    """Raise a one-line ValueError for a flag given where it has no effect."""
    if args.no_web:
        if _given(args, "seed") and jitter == 0:
            raise ValueError("--seed: with --no-web it only draws each request's --jitter; "
                             "no effect without --jitter")
        return
    if args.traps and args.disallow:
        raise ValueError("--traps writes its own robots.txt (Disallow: /private/): not with "
                         "--disallow")
    if _given(args, "fault_kinds") and rate == 0:
        raise ValueError("--fault-kinds picks the faults of --faults RATE: no effect without "
                         "--faults above 0 (the /_fault/<kind> pages need no flag)")
    if rate > 0 and pages == sites:
        raise ValueError("--faults: no effect when every generated page is a home page "
                         "(--pages = --sites) since home pages never fail; give more --pages")


def _config_from_args(args: argparse.Namespace) -> tuple[Web | None, dict[str, Any]]:
    for d in args.dir:
        if not os.path.isdir(d):
            raise ValueError(f"--dir: unknown directory: {d!r}")
    if args.no_web and not args.dir:
        raise ValueError("--no-web needs at least one --dir")
    if args.no_web:
        _refuse_without_web(args)
    sites = _number(args, "sites", int, 1, MAX_PAGES)
    pages = _number(args, "pages", int, sites, MAX_PAGES)
    seed = _number(args, "seed", int, 0, MAX_SEED)  # as crawl, bsp and explore take it
    n_sites = (0 if args.no_web else sites) + len(args.dir)
    rate = _number(args, "faults", float, 0.0, 1.0)
    try:
        kinds = parse_faults("all" if args.fault_kinds is None else args.fault_kinds)
    except ValueError as exc:
        raise ValueError(f"--fault-kinds: {exc}") from None
    if rate > 0 and not kinds:
        raise ValueError("--fault-kinds: no fault kind given (known: "
                         + ", ".join(f.value for f in Fault) + ")")
    for prefix in args.disallow:
        problem = robots_path_problem(prefix)
        if problem is not None:
            raise ValueError(f"--disallow {prefix!r}: {problem}")
    options: dict[str, Any] = {
        "dirs": args.dir,
        "latency": _number(args, "latency", float, 0.0, MAX_LATENCY),
        "jitter": _number(args, "jitter", float, 0.0, MAX_LATENCY),
        "seed": seed,
        "faults": FaultPlan(rate=rate, kinds=kinds, seed=seed),
        "disallow": args.disallow,
        "crawl_delay": (None if args.crawl_delay is None
                        else _number(args, "crawl_delay", float, 0.0, 3600.0)),
        "port_base": (None if args.port_base is None
                      else _number(args, "port_base", int, 1, 65535 - n_sites + 1)),
        "hold": _number(args, "hold", float, 0.0, 86400.0),
        "idle_timeout": _number(args, "idle_timeout", float, MIN_LIMIT, 86400.0),
        "request_timeout": _number(args, "request_timeout", float, MIN_LIMIT, 86400.0),
        "send_timeout": _number(args, "send_timeout", float, MIN_LIMIT, 86400.0),
        "traps": args.traps,
    }
    _refuse_no_effect(args, pages, sites, rate, options["jitter"])
    problem = jitter_problem(options["latency"], options["jitter"], ("--jitter", "--latency"))
    if problem is not None:
        raise ValueError(problem)
    web = None if args.no_web else generate(pages, sites, seed=seed)
    return web, options


def run(args: argparse.Namespace) -> int:
    """Run ``crawlab serve``: print each site's seed URL (one per line, stdout), serve
    until Ctrl-C or SIGTERM, say its counts (:func:`counts_line`, stderr), return 0. Bad
    input (unknown directory, port in use, invalid numbers) prints one line ``crawlab serve:
    error: ...`` and returns 2."""
    def fail(message: str) -> int:
        print(f"crawlab serve: error: {message}", file=sys.stderr)
        return 2

    try:
        web, options = _config_from_args(args)
        server = WebServer(web, mode="thread", **options)  # validation only; run below
    except (ValueError, ServerError) as exc:
        return fail(str(exc))

    def on_ready(ports: list[int]) -> None:
        server.ports = ports
        for url in server.seed_urls:
            print(url, flush=True)
        print(f"crawlab serve: {len(ports)} sites on {HOST}; Ctrl-C to stop",
              file=sys.stderr, flush=True)

    served: list[LabServer] = []  # the server that ran, for its counts

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                loop.add_signal_handler(sig, stop.set)
            except (NotImplementedError, RuntimeError):  # pragma: no cover - Windows
                pass
        served.append(LabServer(server.config))
        await serve(server.config, on_ready, stop, served[0])

    # asyncio puts Python's own SIGINT handler back when the loop closes, whatever was there
    # before (SIG_IGN in a process started in the background of a script): restore what was
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        asyncio.run(main())
    except OSError as exc:
        return fail(describe_os_error(exc, server.config))
    except KeyboardInterrupt:
        pass
    finally:
        for sig, handler in previous.items():
            if handler is not None:
                signal.signal(sig, handler)
    if server.ports and served:
        print(f"crawlab serve: stopped; {counts_line(served[0].stats())}", file=sys.stderr)
    return 0


def counts_line(c: dict[str, int]) -> str:
    """What a server did, in words: its connections and requests, and the clients it closed
    for their idleness, slowness or not reading (``--idle-timeout``, ``--request-timeout``,
    ``--send-timeout``)."""
    return (f"{c.get('connections', 0)} connections, {c.get('requests', 0)} requests; closed "
            f"{c.get('closed_idle', 0)} idle, {c.get('closed_slow', 0)} slow and "
            f"{c.get('closed_unread', 0)} non-reading clients")
