"""The local web server of the labs: lifecycle (process or thread) and the CLI.

``with WebServer(web, latency=0.05) as srv:`` serves every site of ``web`` (and any
``dirs``) on its own 127.0.0.1 port and exposes ``srv.seed_urls`` and ``srv.site_urls``.

By default the server runs in a **separate process** (``mode="process"``, spawn start
method, safe whether or not the parent has threads): the crawler's threads run in the
calling process, and a server sharing their GIL would become the bottleneck the labs
are meant to measure elsewhere. ``mode="thread"`` runs the event loop in a daemon thread
of the calling process, for tests. Start-up reports the bound ports back to the parent
(or the bind error, raised as :class:`ServerError`); shutdown is bounded in time
(join, then terminate, then kill).

The command line ``crawlab serve`` is wired through :func:`add_serve_arguments` and
:func:`run_serve`.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from crawlers.faults import Fault, FaultPlan, parse_faults
from crawlers.httpd import HOST, LabServer, ServerConfig
from crawlers.webgen import Addressing, Web, generate


class ServerError(RuntimeError):
    """The server could not start (port in use, bad directory, start-up timeout)."""


async def _serve(config: ServerConfig, on_ready: Callable[[list[int]], None],
                 stop: asyncio.Event) -> None:
    """Bind, report the ports, serve until ``stop`` is set, close (bounded)."""
    server = LabServer(config)
    ports = await server.start()
    try:
        on_ready(ports)
        await stop.wait()
    finally:
        await server.close()


def _child_main(config: ServerConfig, conn: Any) -> None:
    """Entry point of the server process: report ``("ready", ports)`` or
    ``("error", message)`` on ``conn``; stop when the parent sends anything or dies."""
    async def main() -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()

        def wait_parent() -> None:
            try:
                conn.recv()
            except (EOFError, OSError):
                pass
            loop.call_soon_threadsafe(stop.set)

        try:
            await _serve(config, lambda ports: (
                conn.send(("ready", ports)),
                threading.Thread(target=wait_parent, daemon=True).start()), stop)
        except OSError as exc:
            conn.send(("error", _describe_os_error(exc, config)))

    try:
        asyncio.run(main())
    except KeyboardInterrupt:  # pragma: no cover - Ctrl-C in a terminal reaches the child too
        pass


def _describe_os_error(exc: OSError, config: ServerConfig) -> str:
    if exc.errno in (98, 48, 10048):  # EADDRINUSE on Linux, macOS, Windows
        return f"port in use (port base {config.port_base}): {exc.strerror}"
    return str(exc)


class WebServer:
    """The lab web served on 127.0.0.1, one port per site; a context manager.

    Sites are the generated web's (in site order) followed by one per directory of
    ``dirs``. ``latency``/``jitter`` are seconds (deterministic per URL from ``seed``),
    ``faults`` a :class:`FaultPlan`, ``disallow`` the path prefixes of every generated
    site's robots.txt, ``port_base`` fixes site ``i`` on port ``port_base + i`` (default:
    ephemeral ports), ``hold`` how long a ``timeout`` fault keeps a request unanswered.

    Not thread-safe to start/stop concurrently; the attributes are read-only once started.
    """

    def __init__(
        self,
        web: Web | None = None,
        *,
        dirs: Sequence[str] = (),
        latency: float = 0.0,
        jitter: float = 0.0,
        seed: int = 0,
        faults: FaultPlan | None = None,
        disallow: Sequence[str] = (),
        crawl_delay: float | None = None,
        port_base: int | None = None,
        hold: float = 60.0,
        mode: str = "process",
        start_timeout: float = 60.0,
    ) -> None:
        if mode not in ("process", "thread"):
            raise ValueError("mode must be 'process' or 'thread'")
        for d in dirs:
            if not os.path.isdir(d):
                raise ServerError(f"unknown directory: {d}")
        self.config = ServerConfig(
            web=web, dirs=[os.path.abspath(d) for d in dirs], latency=latency, jitter=jitter,
            seed=seed, faults=faults if faults is not None else FaultPlan(),
            disallow=tuple(disallow), crawl_delay=crawl_delay, port_base=port_base, hold=hold)
        if self.config.n_sites == 0:
            raise ValueError("nothing to serve: give a web or a directory")
        self.web = web
        self.mode = mode
        self.start_timeout = start_timeout
        self.ports: list[int] = []
        self._process: multiprocessing.process.BaseProcess | None = None
        self._conn: Any = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None

    # -- addresses ---------------------------------------------------------------------
    @property
    def site_urls(self) -> list[str]:
        """``http://127.0.0.1:PORT`` of every site, in site order."""
        return [f"http://{HOST}:{port}" for port in self.ports]

    @property
    def addressing(self) -> Addressing:
        """The served addressing of the generated web (page ids <-> served URLs)."""
        if self.web is None:
            raise ValueError("no generated web is served")
        return self.web.served(self.ports[: self.web.n_sites])

    @property
    def seed_urls(self) -> list[str]:
        """The seed URL of every site: home pages, then ``/`` of each directory."""
        seeds = self.addressing.seed_urls() if self.web is not None else []
        n_web = len(seeds)
        return seeds + [url + "/" for url in self.site_urls[n_web:]]

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> WebServer:
        """Start serving; return once every port is bound. Raises :class:`ServerError`."""
        if self.mode == "process":
            self._start_process()
        else:
            self._start_thread()
        return self

    def _start_process(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        self._process = ctx.Process(target=_child_main, args=(self.config, child),
                                    name="crawlab-server", daemon=True)
        self._process.start()
        child.close()
        self._conn = parent
        deadline = time.monotonic() + self.start_timeout
        while not parent.poll(0.05):  # wake up often to notice a child that died
            if not self._process.is_alive() or time.monotonic() > deadline:
                code = self._process.exitcode
                self.stop()
                raise ServerError("server process died during start-up" if code is not None
                                  else f"server did not start within {self.start_timeout} s")
        try:
            kind, payload = parent.recv()
        except EOFError:
            self.stop()
            raise ServerError("server process died during start-up") from None
        if kind != "ready":
            self.stop()
            raise ServerError(payload)
        self.ports = list(payload)

    def _start_thread(self) -> None:
        ready = threading.Event()
        outcome: dict[str, Any] = {}

        def run() -> None:
            async def main() -> None:
                self._loop = asyncio.get_running_loop()
                self._stop = asyncio.Event()
                await _serve(self.config, lambda ports: (outcome.update(ports=ports),
                                                         ready.set()), self._stop)
            try:
                asyncio.run(main())
            except OSError as exc:
                outcome["error"] = _describe_os_error(exc, self.config)
                ready.set()

        self._thread = threading.Thread(target=run, name="crawlab-server", daemon=True)
        self._thread.start()
        if not ready.wait(self.start_timeout):
            raise ServerError(f"server did not start within {self.start_timeout} s")
        if "error" in outcome:
            self._thread.join(1.0)
            raise ServerError(outcome["error"])
        self.ports = outcome["ports"]

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving and wait at most about ``timeout`` seconds. Idempotent."""
        if self._process is not None:
            try:
                self._conn.send("stop")
            except (OSError, BrokenPipeError):
                pass
            self._process.join(timeout)
            if self._process.is_alive():
                self._process.terminate()
                self._process.join(1.0)
            if self._process.is_alive():  # pragma: no cover
                self._process.kill()
                self._process.join(1.0)
            self._conn.close()
            self._process = None
        if self._thread is not None:
            if self._loop is not None and self._stop is not None:
                self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(timeout)
            self._thread = None

    @property
    def alive(self) -> bool:
        """Whether the server process or thread is running."""
        if self._process is not None:
            return self._process.is_alive()
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# -- command line ----------------------------------------------------------------------

def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``crawlab serve``. Numbers are parsed by :func:`run_serve`
    so that bad input gives one error line and exit status 2."""
    parser.add_argument("--pages", default="3000", metavar="N",
                        help="pages of the generated web (default 3000)")
    parser.add_argument("--sites", default="30", metavar="N",
                        help="sites of the generated web (default 30)")
    parser.add_argument("--seed", default="0", metavar="N", help="generator seed (default 0)")
    parser.add_argument("--no-web", action="store_true",
                        help="serve only the --dir sites, no generated web")
    parser.add_argument("--dir", action="append", default=[], metavar="PATH",
                        help="serve a directory of static HTML as an extra site (repeatable)")
    parser.add_argument("--latency", default="0", metavar="SECONDS",
                        help="mean injected latency per request (default 0)")
    parser.add_argument("--jitter", default="0", metavar="SECONDS",
                        help="latency varies uniformly by +- this much (default 0)")
    parser.add_argument("--faults", default="0", metavar="RATE",
                        help="fraction of generated pages that misbehave (default 0)")
    parser.add_argument("--fault-kinds", default="all", metavar="LIST",
                        help="comma-separated faults: " + ",".join(f.value for f in Fault))
    parser.add_argument("--disallow", action="append", default=[], metavar="PREFIX",
                        help="path prefix disallowed by robots.txt (repeatable)")
    parser.add_argument("--crawl-delay", default=None, metavar="SECONDS",
                        help="Crawl-delay announced in robots.txt")
    parser.add_argument("--port-base", default=None, metavar="PORT",
                        help="site i listens on PORT+i (default: ephemeral ports)")
    parser.add_argument("--hold", default="60", metavar="SECONDS",
                        help="how long a timeout fault leaves a request unanswered")


def _number(args: argparse.Namespace, name: str, kind: type, low: float,
            high: float | None = None) -> Any:
    text = getattr(args, name)
    option = "--" + name.replace("_", "-")
    try:
        value = kind(text)
    except (TypeError, ValueError):
        raise ValueError(f"{option}: not a valid number: {text!r}") from None
    if value < low or (high is not None and value > high) or value != value:
        bound = f"between {low} and {high}" if high is not None else f">= {low}"
        raise ValueError(f"{option}: must be {bound}, got {text}")
    return value


def _config_from_args(args: argparse.Namespace) -> tuple[Web | None, dict[str, Any]]:
    for d in args.dir:
        if not os.path.isdir(d):
            raise ValueError(f"unknown directory: {d}")
    if args.no_web and not args.dir:
        raise ValueError("--no-web needs at least one --dir")
    sites = _number(args, "sites", int, 1)
    pages = _number(args, "pages", int, sites)
    seed = _number(args, "seed", int, 0)
    n_sites = (0 if args.no_web else sites) + len(args.dir)
    options: dict[str, Any] = {
        "dirs": args.dir,
        "latency": _number(args, "latency", float, 0.0, 3600.0),
        "jitter": _number(args, "jitter", float, 0.0, 3600.0),
        "seed": seed,
        "faults": FaultPlan(rate=_number(args, "faults", float, 0.0, 1.0),
                            kinds=parse_faults(args.fault_kinds), seed=seed),
        "disallow": args.disallow,
        "crawl_delay": (None if args.crawl_delay is None
                        else _number(args, "crawl_delay", float, 0.0, 3600.0)),
        "port_base": (None if args.port_base is None
                      else _number(args, "port_base", int, 1, 65535 - n_sites + 1)),
        "hold": _number(args, "hold", float, 0.0, 86400.0),
    }
    web = None if args.no_web else generate(pages, sites, seed=seed)
    return web, options


def run_serve(args: argparse.Namespace) -> int:
    """Run ``crawlab serve``: print each site's seed URL (one per line, stdout), serve
    until Ctrl-C or SIGTERM, return 0. Bad input (unknown directory, port in use,
    invalid numbers) prints one line ``crawlab serve: error: ...`` and returns 2."""
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

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                loop.add_signal_handler(sig, stop.set)
            except (NotImplementedError, RuntimeError):  # pragma: no cover - Windows
                pass
        await _serve(server.config, on_ready, stop)

    try:
        asyncio.run(main())
    except OSError as exc:
        return fail(_describe_os_error(exc, server.config))
    except KeyboardInterrupt:
        pass
    return 0
