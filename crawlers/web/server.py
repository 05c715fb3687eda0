"""The local web server of the labs: lifecycle (process or thread) and the CLI.

``with WebServer(web, latency=0.05) as srv:`` serves every site of ``web`` (and any
``dirs``) on its own 127.0.0.1 port and exposes ``srv.seed_urls`` and ``srv.site_urls``.

By default the server runs in a **separate process** (``mode="process"``, spawn start
method, safe whether or not the parent has threads): the crawler's threads run in the
calling process, and a server sharing their GIL would become the bottleneck the labs
are meant to measure elsewhere. ``mode="thread"`` runs the event loop in a daemon thread
of the calling process, for tests. Start-up reports the bound ports back to the parent
(or the bind error, raised as :class:`ServerError`); shutdown is bounded in time
(join, then terminate, then kill). ``srv.stats()`` gives the server's counts in either mode
(connections, requests, connections closed for idleness or a slow request), the last ones
once stopped.

The command line ``crawlab serve`` is :mod:`crawlers.cli.serve`.
"""

from __future__ import annotations

import asyncio
import errno
import multiprocessing
import os
import random
import signal
import socket
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from crawlers.children import signals_blocked, unblock
from crawlers.page.faults import FaultPlan
from crawlers.web.httpd import (
    HOST,
    IDLE_TIMEOUT,
    REQUEST_TIMEOUT,
    SEND_TIMEOUT,
    LabServer,
    ServerConfig,
)
from crawlers.web.render import robots_txt
from crawlers.web.webgen import Addressing, Web


class ServerError(RuntimeError):
    """The server could not start (port in use, bad directory, start-up timeout)."""


#: What the parent sends the server process to ask for its counts; anything else stops it.
_STATS = "stats"


async def serve(config: ServerConfig, on_ready: Callable[[list[int]], None],
                 stop: asyncio.Event, server: LabServer | None = None) -> None:
    """Bind, report the ports, serve until ``stop`` is set, close (bounded). ``server``: the
    :class:`LabServer` of ``config`` to run (made here if None), for its counts."""
    server = LabServer(config) if server is None else server
    ports = await server.start()
    try:
        on_ready(ports)
        await stop.wait()
    finally:
        await server.close()


_GROUP_SIGNALS = {signal.SIGINT, signal.SIGTERM}  # what a terminal sends a whole process group


def _child_main(config: ServerConfig, conn: Any) -> None:
    """Entry point of the server process: report ``("ready", ports)`` or
    ``("error", message)`` on ``conn``; answer each ``"stats"`` with ``("stats", counts)``;
    stop when the parent sends anything else or dies.

    Ctrl-C in a terminal (SIGINT to the whole process group), or SIGTERM sent to the group,
    reaches this process too. It ignores both: stopping at once, it failed the parent's
    fetches still in flight with a connection error, pages a resumed crawl takes as done (the
    parent cuts them first, then stops this server). Its parent's word or death (the pipe
    closes) stops it; :meth:`WebServer.stop` ends with SIGKILL if it must."""
    for sig in _GROUP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    unblock(_GROUP_SIGNALS)  # blocked since its start: a Ctrl-C in its first second is dropped

    async def main() -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        server = LabServer(config)

        def wait_parent() -> None:
            try:
                while conn.recv() == _STATS:
                    conn.send((_STATS, server.stats()))
            except (EOFError, OSError):
                pass
            loop.call_soon_threadsafe(stop.set)

        try:
            await serve(config, lambda ports: (
                conn.send(("ready", ports)),
                threading.Thread(target=wait_parent, daemon=True).start()), stop, server)
        except OSError as exc:
            conn.send(("error", describe_os_error(exc, config)))

    asyncio.run(main())


def process_cpu_seconds(pid: int, children: bool = False) -> float | None:
    """User + system CPU seconds of process ``pid`` (``/proc/PID/stat``, Linux), or with
    ``children`` those of its children it has waited for; None when it cannot be read. O(1)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        first = 13 if children else 11  # cutime, cstime / utime, stime
        return (int(fields[first]) + int(fields[first + 1])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def first_taken(base: int, n: int) -> int | None:
    """The first of ports ``base`` .. ``base + n - 1`` of 127.0.0.1 that cannot be bound now,
    or ``None`` if the server can bind them all: each is bound and let go, with
    ``SO_REUSEADDR`` as the server binds (a port whose old connections wait in TIME-WAIT is
    free to it). Another program may still take one before the server does. O(n)."""
    for port in range(base, base + n):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind((HOST, port))
            except OSError:
                return port
    return None


def free_port_base(n: int, tries: int = 50, rng: random.Random | None = None) -> int:
    """A port base for ``n`` sites (``WebServer(port_base=...)``) whose ports are free now,
    drawn at random from 20000 up; :class:`ServerError` if ``tries`` draws find none, or if
    ``n`` ports do not fit. A crawl that must come back to the same addresses (a journal)
    serves on one: its URLs then name ports that the resumed crawl can serve on again."""
    if 20000 + n > 65536:
        raise ServerError(f"{n} sites do not fit on consecutive ports from 20000 to 65535")
    rng = rng or random.Random()
    for _ in range(tries):
        base = rng.randrange(20000, 65537 - n)
        if first_taken(base, n) is None:
            return base
    raise ServerError(f"no {n} free consecutive ports found on {HOST} in {tries} tries")


def describe_os_error(exc: OSError, config: ServerConfig) -> str:
    if exc.errno in (98, 48, 10048):  # EADDRINUSE on Linux, macOS, Windows
        return f"port in use (port base {config.port_base}): {exc.strerror}"
    if exc.errno == errno.EMFILE:  # LabServer.start says which site and the limit
        return exc.strerror or str(exc)
    return str(exc)


class WebServer:
    """The lab web served on 127.0.0.1, one port per site; a context manager.

    Sites are the generated web's (in site order) followed by one per directory of
    ``dirs``. ``latency``/``jitter`` are seconds (deterministic per URL from ``seed``),
    ``faults`` a :class:`FaultPlan`, ``disallow`` the path prefixes of every generated
    site's robots.txt, ``port_base`` fixes site ``i`` on port ``port_base + i`` (default:
    ephemeral ports), ``hold`` how long a ``timeout`` fault keeps a request unanswered,
    ``traps`` adds the crawler traps of :mod:`crawlers.web.traps` to every generated site.
    ``idle_timeout`` is how long a connection may wait for a request's first byte and
    ``request_timeout`` how long the rest of the request may take, and ``send_timeout`` how
    long an answer may wait for the client to take its next part, before the server closes
    it (see :data:`~crawlers.web.httpd.IDLE_TIMEOUT`,
    :data:`~crawlers.web.httpd.REQUEST_TIMEOUT` and :data:`~crawlers.web.httpd.SEND_TIMEOUT`
    for the defaults); :meth:`stats` counts those closes.

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
        traps: bool = False,
        idle_timeout: float = IDLE_TIMEOUT,
        request_timeout: float = REQUEST_TIMEOUT,
        send_timeout: float = SEND_TIMEOUT,
        mode: str = "process",
        start_timeout: float = 60.0,
    ) -> None:
        if mode not in ("process", "thread"):
            raise ValueError("mode must be 'process' or 'thread'")
        for d in dirs:
            if not os.path.isdir(d):
                raise ServerError(f"unknown directory: {d}")
        robots_txt(disallow, crawl_delay)  # a bad path is a ValueError now, not at each request
        self.config = ServerConfig(
            web=web, dirs=[os.path.abspath(d) for d in dirs], latency=latency, jitter=jitter,
            seed=seed, faults=faults if faults is not None else FaultPlan(),
            disallow=tuple(disallow), crawl_delay=crawl_delay, port_base=port_base, hold=hold,
            traps=traps, idle_timeout=idle_timeout, request_timeout=request_timeout,
            send_timeout=send_timeout)
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
        self._lab: LabServer | None = None  # the server of thread mode (its counts)
        self._stats_lock = threading.Lock()  # one question and its answer at a time on _conn
        self._last_stats: dict[str, int] = {}  # the counts last read (kept after stop)

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
        with signals_blocked(_GROUP_SIGNALS):  # until _child_main ignores them
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
                self._lab = LabServer(self.config)
                await serve(self.config, lambda ports: (outcome.update(ports=ports),
                                                         ready.set()), self._stop, self._lab)
            try:
                asyncio.run(main())
            except OSError as exc:
                outcome["error"] = describe_os_error(exc, self.config)
                ready.set()

        self._thread = threading.Thread(target=run, name="crawlab-server", daemon=True)
        self._thread.start()
        if not ready.wait(self.start_timeout):
            raise ServerError(f"server did not start within {self.start_timeout} s")
        if "error" in outcome:
            self._thread.join(1.0)
            raise ServerError(outcome["error"])
        self.ports = outcome["ports"]

    def stats(self, timeout: float = 5.0) -> dict[str, int]:
        """The server's counts: ``connections`` accepted, ``requests`` answered, and the
        connections it closed because the client sent no request for ``idle_timeout``
        (``closed_idle``), took over ``request_timeout`` to send one (``closed_slow``), or left
        an answer unread for ``send_timeout`` (``closed_unread``).
        A snapshot: a count may lag by a connection in progress. In process mode the server is
        asked over its pipe (at most ``timeout`` seconds); once stopped, the last counts.
        Thread-safe."""
        with self._stats_lock:
            if self._process is not None:
                try:
                    self._conn.send(_STATS)
                    if self._conn.poll(timeout):
                        kind, payload = self._conn.recv()
                        if kind == _STATS:
                            self._last_stats = payload
                except (OSError, EOFError):  # the server process is gone: the last counts
                    pass
            elif self._lab is not None:
                self._last_stats = self._lab.stats()
            return dict(self._last_stats)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving and wait at most about ``timeout`` seconds. Idempotent. :meth:`stats`
        then gives the counts read as it stopped."""
        if self._process is not None and self.ports:  # started: its last counts
            self.stats(timeout=min(timeout, 1.0))
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

    def cpu_seconds(self) -> float | None:
        """CPU seconds (user + system) the server process has used so far, read from
        ``/proc`` (Linux); None in thread mode, once stopped, or where ``/proc`` is missing.
        The labs read it before and after a crawl to give the server's share of the cores."""
        if self._process is None or self._process.pid is None:
            return None
        return process_cpu_seconds(self._process.pid)

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
