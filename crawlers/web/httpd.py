"""The asyncio HTTP engine of the lab web: one listening socket per site on 127.0.0.1.

A deliberately small HTTP/1.1 server (GET and HEAD, keep-alive, Content-Length or
close-delimited bodies) on :func:`asyncio.start_server`: one coroutine per connection, so
a thousand slow requests cost a thousand suspended coroutines, not a thousand threads.
Latency is injected with :func:`asyncio.sleep` and costs nothing while it runs.

Sites are of two kinds:

* a *generated* site serves the pages of a :class:`~crawlers.web.webgen.Web` (``/p17.html``),
  rendered on demand with links rewritten to the served addresses, its ``/robots.txt``,
  the fault plan's faults and the on-demand ``/_fault/<kind>`` pages;
* a *directory* site serves static files below a root, refusing path traversal: a
  ``..`` segment (also percent-encoded), an encoded ``/`` or ``\\`` or NUL get 403, and
  anything that resolves outside the root (a symlink) gets 403, and so do a file that is not
  a regular file (a FIFO, which would block the event loop, a device) and a file of more than
  :data:`MAX_FILE_BYTES`; missing files get 404.

Redirect faults use the query: ``?hop=k`` redirects to ``?hop=k-1`` and ``?hop=0`` serves
the page; ``?loop=1`` and ``?loop=2`` redirect to each other.

A connection holds a file descriptor and a coroutine for as long as it is open, so the client's
time is limited (:class:`ServerConfig`): it may keep the server waiting for the first byte of a
request (its first one, or the next on a kept-alive connection) at most ``idle_timeout``
seconds, and then for the rest of that request (line, headers, any body) at most
``request_timeout`` seconds in all, however slowly the bytes come; and once the server writes
an answer, the client must take each part of it within ``send_timeout`` seconds (a client that
asks for a large page and stops reading held a connection and a coroutine for ever). A
connection closed for any of these is counted (``closed_idle``, ``closed_slow``,
``closed_unread`` in :meth:`LabServer.stats`). The server's own waits (injected latency, a
``timeout`` fault's ``hold``, a dripped body's pauses) are not the client's and are not
limited.

Everything here runs on one event loop thread: no locks are needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import mimetypes
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

try:
    import resource
except ImportError:  # pragma: no cover - not Unix
    resource = None  # type: ignore[assignment]

from crawlers.args import ascii_int
from crawlers.page.clock import LatencyModel
from crawlers.page.faults import CHAIN_LENGTH, OVERSIZE_BYTES, Fault, FaultPlan, fault_in_path
from crawlers.web import render, traps
from crawlers.web.response import Response
from crawlers.web.webgen import Web

HOST = "127.0.0.1"
_REASONS = {200: "OK", 301: "Moved Permanently", 302: "Found", 400: "Bad Request",
            403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
            408: "Request Timeout", 429: "Too Many Requests", 500: "Internal Server Error",
            503: "Service Unavailable"}
_MAX_HEAD = 16384
_CHUNK = 65536

#: Seconds a connection may wait for the first byte of a request (its first one, or the next
#: on a kept-alive connection) before the server closes it, counted as ``closed_idle``. This is
#: nginx's ``keepalive_timeout`` and its default. It is above every pause the crawler makes on
#: purpose between two requests to one site (a robots.txt Crawl-delay of at most
#: ``Policy.max_crawl_delay`` = 60 s, a Retry-After of at most ``Policy.retry_after_cap`` =
#: 30 s), so a polite crawl's kept-alive connections are not closed under it, and far from
#: them: a close races a request only if the request is sent within about a millisecond of the
#: deadline, and then the crawler sends it again on a new connection (counted ``resent_stale``:
#: :class:`~crawlers.page.fetch.HttpFetcher`). A connection idle for longer (its site had no URL
#: for a while) is closed first; urllib3 sees the close when it takes the connection from its
#: pool and opens a new one, which costs the crawl a connect and nothing more.
IDLE_TIMEOUT = 75.0
#: Seconds receiving one request may take in all, from its first byte to the end of its headers
#: (and of the body it may carry, read and thrown away), before the server answers 408 and
#: closes the connection, counted as ``closed_slow``: a client dribbling its headers a byte at
#: a time (slowloris) ends here, since it resets no timer. Every client of this server is on
#: 127.0.0.1 and sends its request's head in one write (urllib3 does, and so do the labs'
#: clients), so it arrives within microseconds; 10 s leaves room for a machine paused under load.
#: nginx's ``client_header_timeout`` is 60 s, for the slow links of the open web.
REQUEST_TIMEOUT = 10.0
#: Seconds the server waits for the client to take the next part of an answer (its socket
#: buffer full, the server's write buffer over its high-water mark) before it aborts the
#: connection, counted as ``closed_unread``. This is nginx's ``send_timeout`` and its default:
#: like it, the time between two successive writes, not for the whole answer, so a large page
#: read slowly but steadily is served whole. A crawler reads what it asked for at once (or
#: closes the connection at its own byte limit, which ends the write at once).
SEND_TIMEOUT = 60.0
#: The most bytes of a file a directory site serves: it is read whole into memory (and sent in
#: one write), so a larger one is refused with 403 before it is read, not sent cut short. A page
#: of the web is far smaller (a crawler's ``Policy.max_bytes`` reads 2 MB of it); 64 MiB leaves
#: room for a large static file while a site of huge files cannot exhaust the server's memory.
MAX_FILE_BYTES = 64 << 20


def open_file_limit() -> str:
    """The process's open-file limit, said for an error (``ulimit -n``): each served site
    holds one listening socket, so a web of more sites than that cannot be served."""
    try:  # resource is imported with the module: no file can be opened here, a .so neither
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (AttributeError, OSError, ValueError):  # pragma: no cover - not Unix
        return "the open-file limit is reached"
    return f"the open-file limit ({soft}, ulimit -n) is reached"


FILES_PER_SITE = 2  # a served site's listening socket and at least one connection to it
FILES_SPARE = 32  # the process's own files: the interpreter, its pipes, logs, a few more


def room_for(n_sites: int) -> None:
    """Raise this process's soft open-file limit to its hard limit (to what is needed if the
    hard one is unlimited) if need be, then
    :class:`OSError` (EMFILE, one line) unless ``n_sites`` sites fit: a listening socket and a
    connection each, and :data:`FILES_SPARE`. Without that room the server binds every port,
    then cannot accept a connection, and asyncio logged a traceback at every retry."""
    if resource is None:  # pragma: no cover - not Unix
        return
    need = FILES_PER_SITE * n_sites + FILES_SPARE
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < need:
        # an unlimited hard limit: ask for what is needed (Linux refuses an unlimited soft one)
        raised = need if hard == resource.RLIM_INFINITY else hard
        with contextlib.suppress(OSError, ValueError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
    if soft != resource.RLIM_INFINITY and soft < need:
        raise OSError(errno.EMFILE, f"a served web of {n_sites} sites needs {need} open files "
                      f"(a listening socket and a connection per site); the open-file limit is "
                      f"{soft} (ulimit -n)")


def _quiet_about_files(loop: asyncio.AbstractEventLoop, context: dict) -> None:
    """The server loop's exception handler: a connection that could not be accepted for want
    of files is said once, in one line (asyncio retries the accept a second later, and its
    default handler printed a traceback at every retry, one per site); the rest as asyncio
    says it."""
    exc = context.get("exception")
    if "_start_serving" in repr(context.get("handle")) and isinstance(exc, (OSError, ValueError)):
        return  # the accept retry of a listener closed meanwhile (asyncio does not cancel it)
    if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE):
        if not getattr(loop, "_crawlab_said_files", False):
            loop._crawlab_said_files = True  # type: ignore[attr-defined]
            print(f"crawlab server: a connection waits: {open_file_limit()}", file=sys.stderr,
                  flush=True)
        return
    loop.default_exception_handler(context)


@dataclass
class ServerConfig:
    """Everything a server process needs (picklable, so it can cross a process spawn)."""

    web: Web | None = None
    dirs: list[str] = field(default_factory=list)
    latency: float = 0.0
    jitter: float = 0.0
    seed: int = 0
    faults: FaultPlan = field(default_factory=FaultPlan)
    disallow: tuple[str, ...] = ()
    crawl_delay: float | None = None
    port_base: int | None = None
    hold: float = 60.0  # how long a ``timeout`` fault keeps a request unanswered
    backlog: int = 2048
    traps: bool = False  # add the crawler traps of crawlers.web.traps to every generated site
    idle_timeout: float = IDLE_TIMEOUT  # a client's wait before a request's first byte
    request_timeout: float = REQUEST_TIMEOUT  # one request's line, headers and body, in all
    send_timeout: float = SEND_TIMEOUT  # a client's wait before it takes the next part of an answer

    def __post_init__(self) -> None:
        for name in ("idle_timeout", "request_timeout", "send_timeout"):
            if not getattr(self, name) > 0:  # refuses NaN too; math.inf means no limit
                raise ValueError(f"{name} must be > 0 seconds, got {getattr(self, name)!r}")

    @property
    def n_sites(self) -> int:
        """Generated sites plus directory sites."""
        return (self.web.n_sites if self.web is not None else 0) + len(self.dirs)


def _safe_file(root: Path, raw_path: str) -> tuple[int, Path | None, Path | None]:
    """Map a request path to a file under ``root``: ``(200, path, named)``, ``(403, None,
    None)`` for a traversal attempt, ``(404, None, None)`` when missing. ``path`` is resolved
    (links followed); ``named`` is the same file as the request names it, links unresolved,
    so that ``os.stat(named)`` follows them again. O(path length + depth)."""
    parts = []
    for raw in raw_path.split("/"):
        segment = unquote(raw)
        if segment in ("..", ".") or any(c in segment for c in "/\\\x00"):
            return 403, None, None
        if segment:
            parts.append(segment)
    candidate = root.joinpath(*parts)
    try:
        resolved = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        return 404, None, None
    if resolved != root and root not in resolved.parents:
        return 403, None, None  # e.g. a symlink pointing out of the tree
    if resolved.is_dir():
        index = resolved / "index.html"
        if index.is_file():
            return 200, index, candidate / "index.html"
    return 200, resolved, candidate


class Site:
    """One served site: answers a request path with a :class:`Response`."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.origin = ""  # set once the port is known

    def respond(self, path: str, query: str) -> Response:  # pragma: no cover - abstract
        raise NotImplementedError


class GeneratedSite(Site):
    """A site of the generated web (see the module docstring)."""

    def __init__(self, index: int, server: LabServer) -> None:
        super().__init__(index)
        self.server = server
        self.web = server.config.web
        assert self.web is not None
        self.traps = traps.TrapState() if server.config.traps else None

    def respond(self, path: str, query: str) -> Response:
        """Route ``path?query``: robots.txt, traps, on-demand faults, pages with their faults."""
        config = self.server.config
        if self.traps is not None:
            if path == "/robots.txt":
                return traps.robots(self.index, config.crawl_delay)
            origins = [site.origin for site in self.server.sites]
            trapped = traps.respond(self.index, origins, path, query, self.traps)
            if trapped is not None:
                return trapped
        if path == "/robots.txt":
            text = render.robots_txt(config.disallow, config.crawl_delay)
            return Response(body=text.encode(), content_type="text/plain; charset=utf-8")
        if path == "/":
            return Response(301, location="/p0.html")
        on_demand = fault_in_path(path)
        page = self.web.page_at(self.index, path)
        if on_demand is None and page is None:
            return Response(404, render.small_page("Not found"))
        fault = on_demand
        if fault is None and page != self.web.home(self.index):
            fault = config.faults.fault_for(page)
        elif fault is None:
            fault = config.faults.fixed.get(page)
        response = self._redirect(path, query, fault)
        if response is not None:
            return response
        if fault is not None and fault is not Fault.REDIRECT_CHAIN:
            return _fault_response(fault)
        if page is None:
            return Response(body=render.small_page("Fault page", ["/p0.html"]))
        body = render.page_html(self.server.addressing, page)
        if self.traps is not None and page == self.web.home(self.index):
            body = traps.home_link(body)
        return Response(body=body)

    @staticmethod
    def _redirect(path: str, query: str, fault: Fault | None) -> Response | None:
        if query.startswith("hop="):
            hops = ascii_int(query[4:])
            if hops:
                return Response(302, location=f"{path}?hop={hops - 1}")
            return None
        if query.startswith("loop=") or fault is Fault.REDIRECT_LOOP:
            return Response(302, location=f"{path}?loop={2 if query == 'loop=1' else 1}")
        if fault is Fault.REDIRECT_CHAIN:
            return Response(302, location=f"{path}?hop={CHAIN_LENGTH - 1}")
        return None


def _fault_response(fault: Fault) -> Response:
    """The response that realises ``fault`` (redirect faults are handled by the caller)."""
    if fault is Fault.NOT_FOUND:
        return Response(404, render.small_page("Not found"))
    if fault is Fault.SERVER_ERROR:
        return Response(500, render.small_page("Internal error"))
    if fault is Fault.TIMEOUT:
        return Response(hold=True)
    if fault is Fault.RESET:
        return Response(reset=True)
    if fault is Fault.MALFORMED:
        return Response(body=render.MALFORMED_BODY)
    if fault is Fault.NOT_HTML:
        return Response(body=render.NOT_HTML_BODY, content_type="application/pdf")
    if fault is Fault.OVERSIZE:
        return Response(stream=OVERSIZE_BYTES)
    raise ValueError(f"no response for {fault}")  # pragma: no cover


def _too_large(limit: int) -> Response:
    """The refusal of a file over ``limit`` bytes (:data:`MAX_FILE_BYTES`)."""
    return Response(403, render.small_page(f"Forbidden: a file of more than {limit:,} bytes"))


class DirectorySite(Site):
    """A directory of static files served as a site, traversal refused.

    Files of at most :attr:`cache_max_file` bytes are kept in memory once served (up to
    :attr:`cache_max_total` bytes in all), keyed by the request path, so a page asked again
    costs one ``stat`` instead of the path checks, ``realpath`` and a read (measured: 142 ->
    about 5 microseconds). Invariant: an entry maps a request path that passed the
    traversal checks to the file as the path names it (links unresolved), that file's
    ``(mtime_ns, size, inode)`` when it was read, and the response made of it; it is used only
    while ``stat`` of that name (following links again) still gives that key, so an edited,
    replaced or deleted file, one swapped for a link, or a link on the way pointed elsewhere,
    goes the slow way again (checks included). Event-loop thread only, like the server.
    """

    cache_max_file = 1 << 20
    cache_max_total = 64 << 20
    max_file_bytes = MAX_FILE_BYTES  # a larger file is refused (403), never read

    def __init__(self, index: int, root: str) -> None:
        super().__init__(index)
        self.root = Path(root).resolve(strict=True)
        self._cache: dict[str, tuple[str, tuple[int, int, int], Response]] = {}
        self._cached_bytes = 0

    def respond(self, path: str, query: str) -> Response:
        """Serve the file at ``path``, an index page for a directory, 403 or 404."""
        hit = self._cached(path)
        if hit is not None:
            return hit
        fault = fault_in_path(path)
        if fault is not None:
            return _fault_response(fault) if fault not in (
                Fault.REDIRECT_CHAIN, Fault.REDIRECT_LOOP) else Response(404)
        status, target, named = _safe_file(self.root, path)
        if target is None:
            return Response(status, render.small_page(_REASONS[status]))
        if target.is_dir():
            base = path if path.endswith("/") else path + "/"
            names = sorted(p.name + ("/" if p.is_dir() else "") for p in target.iterdir())
            return Response(body=render.small_page(f"Index of {path}",
                                                   [base + n for n in names]))
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if kind.startswith("text/"):
            kind += "; charset=utf-8"
        read = self._read(target)
        if isinstance(read, Response):
            return read
        body, info = read
        response = Response(body=body, content_type=kind)
        self._remember(path, str(named), (info.st_mtime_ns, info.st_size, info.st_ino),
                       response)
        return response

    def _read(self, target: Path) -> tuple[bytes, os.stat_result] | Response:
        """The bytes of file ``target`` and its ``fstat``, or the refusal to send instead: 403
        if it is not a regular file (a FIFO, whose ``open`` or read would block the event
        loop and with it every connection; a device, a socket) or holds more than
        :attr:`max_file_bytes` (checked on the open file, and again on what was read, so a file
        that grew meanwhile is refused, not cut short); 404 if it cannot be opened. Opened
        non-blocking, so no file makes the loop wait. O(size), at most ``max_file_bytes``."""
        try:
            fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            return Response(404, render.small_page("Not found"))
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return Response(403, render.small_page("Forbidden: not a regular file"))
            if info.st_size > self.max_file_bytes:
                return _too_large(self.max_file_bytes)
            with open(fd, "rb", closefd=False) as f:
                body = f.read(self.max_file_bytes + 1)
        except OSError:
            return Response(404, render.small_page("Not found"))
        finally:
            os.close(fd)
        if len(body) > self.max_file_bytes:  # grew while read
            return _too_large(self.max_file_bytes)
        return body, info

    def _cached(self, path: str) -> Response | None:
        """The cached response for ``path`` if its file is unchanged; drops a stale entry."""
        entry = self._cache.get(path)
        if entry is None:
            return None
        file, key, response = entry
        try:
            info = os.stat(file)
            if (info.st_mtime_ns, info.st_size, info.st_ino) == key:
                return response
        except OSError:
            pass
        del self._cache[path]
        self._cached_bytes -= len(response.body)
        return None

    def _remember(self, path: str, file: str, key: tuple[int, int, int],
                  response: Response) -> None:
        size = len(response.body)
        if size != key[1] or size > self.cache_max_file:
            return  # the file changed while being read, or is too large to keep
        if self._cached_bytes + size > self.cache_max_total:
            return
        self._cache[path] = (file, key, response)
        self._cached_bytes += size


_CLOSED_IDLE = "closed_idle"
_CLOSED_SLOW = "closed_slow"
_CLOSED_UNREAD = "closed_unread"
_TIMED_OUT = (b"HTTP/1.1 408 Request Timeout\r\nServer: crawlab\r\nConnection: close\r\n"
              b"Content-Length: 0\r\n\r\n")


class _ClientDeadline:
    """The time one connection's client has left, while the server reads from it.

    :meth:`arm` sets a deadline (replacing the one before) and names the counter of the limit
    it enforces; when it passes, the connection is aborted (a slow request first gets a 408)
    and :attr:`expired` names that counter. The coroutine's pending read then ends as at end of
    file, after the socket is closed, and a pending write's drain with ConnectionResetError.
    Only the client's part is ever under a deadline (a read, or the wait for it to take what
    was written): :meth:`disarm` comes before the server's own waits (latency, a held
    request, a drip's pause).

    One timer serves every deadline of the connection, never later than the deadline: moving
    the deadline later is two assignments, and a timer that fires before the current deadline is
    set again for it (on a busy connection, about twice per ``request_timeout``). Measured on a
    head already buffered: ``readuntil`` alone 1.0 microseconds, with the first-byte read and
    this deadline 2.2, with a fresh timer armed and cancelled at each step 7.5 (a whole request
    costs the server about 60). Event-loop thread only.
    """

    def __init__(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None  # pending, at or before self._when
        self._when: float | None = None  # loop time of the deadline; None: none
        self._counter = ""  # the counter of the limit of the current deadline
        self.expired: str | None = None  # the counter of the limit that ran out, once one did

    def arm(self, seconds: float, counter: str) -> None:
        """Give the client ``seconds`` from now (the limit counted as ``counter``)."""
        self._when = self._loop.time() + seconds
        self._counter = counter
        if self._timer is not None and self._timer.when() <= self._when:
            return  # the timer comes first, and will look at the deadline then
        if self._timer is not None:  # a shorter limit than the timer's (a request's first byte)
            self._timer.cancel()
        self._timer = self._loop.call_at(self._when, self._check)

    def disarm(self) -> None:
        """No deadline from now (the timer, if it fires, finds none)."""
        self._when = None

    def close(self) -> None:
        """No deadline and no timer: the connection is over."""
        self._when = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _check(self) -> None:
        self._timer = None
        if self._when is None:
            return
        if self._loop.time() < self._when:  # moved since the timer was set
            self._timer = self._loop.call_at(self._when, self._check)
            return
        self.expired = self._counter
        if self.expired == _CLOSED_SLOW and not self._transport.is_closing():
            self._transport.write(_TIMED_OUT)  # sent at once, unless a response waits unread
        self._transport.abort()  # not close(): it would wait for a client that never reads


class LabServer:
    """The sites of one :class:`ServerConfig` on one event loop.

    ``await start()`` binds every site (raising OSError, e.g. port in use, with nothing
    left bound) and returns the ports; ``await close()`` stops listening, cancels the
    open connections and returns within a bounded time. Not thread-safe: use it from
    its event loop only, but :meth:`stats`.
    """

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.latency = LatencyModel(config.latency, config.jitter, config.seed)
        self.sites: list[Site] = []
        if config.web is not None:
            self.sites += [GeneratedSite(s, self) for s in range(config.web.n_sites)]
        for root in config.dirs:
            self.sites.append(DirectorySite(len(self.sites), root))
        self._servers: list[asyncio.base_events.Server] = []
        self._tasks: set[asyncio.Task] = set()
        self.addressing = None
        # What the server did (for the labs and :meth:`stats`); the keys are fixed here, so a
        # copy taken by another thread never sees the dict change size.
        self.counts = {"connections": 0,  # accepted
                       "requests": 0,  # answered
                       _CLOSED_IDLE: 0,  # closed after idle_timeout without a request
                       _CLOSED_SLOW: 0,  # closed when a request took over request_timeout
                       _CLOSED_UNREAD: 0}  # closed when an answer waited send_timeout unread

    @property
    def requests(self) -> int:
        """Answered requests."""
        return self.counts["requests"]

    def stats(self) -> dict[str, int]:
        """A copy of :attr:`counts`. Safe from any thread; read without the event loop, so a
        count may lag by a connection in progress. A connection is counted closed once its
        socket is."""
        return dict(self.counts)

    async def start(self) -> list[int]:
        """Bind one listening socket per site on 127.0.0.1; return the ports in site order."""
        ports: list[int] = []
        room_for(len(self.sites))
        asyncio.get_running_loop().set_exception_handler(_quiet_about_files)
        try:
            for site in self.sites:
                port = 0 if self.config.port_base is None else self.config.port_base + site.index
                server = await asyncio.start_server(
                    self._connection_handler(site), HOST, port, backlog=self.config.backlog,
                    limit=_MAX_HEAD)
                self._servers.append(server)
                if not server.sockets:  # asyncio skips a socket it cannot create (EMFILE)
                    raise OSError(errno.EMFILE, f"no socket for site {site.index + 1} of "
                                  f"{len(self.sites)} (one port per site): {open_file_limit()}")
                ports.append(server.sockets[0].getsockname()[1])
                site.origin = f"http://{HOST}:{ports[-1]}"
        except OSError:
            await self.close()
            raise
        if self.config.web is not None:
            self.addressing = self.config.web.served(ports[: self.config.web.n_sites])
        return ports

    async def close(self, timeout: float = 2.0) -> None:
        """Stop listening and cancel every open connection; bounded by ``timeout``."""
        for server in self._servers:
            server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)
        for server in self._servers:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(server.wait_closed(), timeout)
        self._servers.clear()

    def _connection_handler(self, site: Site) -> Callable:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            assert task is not None
            self._tasks.add(task)
            self.counts["connections"] += 1
            deadline = _ClientDeadline(writer.transport)
            try:
                await self._serve_connection(site, reader, writer, deadline)
            except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                pass
            except asyncio.CancelledError:
                pass
            finally:
                deadline.close()
                self._tasks.discard(task)
                writer.close()
                if deadline.expired is not None:  # aborted: counted once its socket is closed
                    with contextlib.suppress(OSError):  # a reset that came first
                        await writer.wait_closed()  # closed by now, or in one loop turn
                    self.counts[deadline.expired] += 1
        return handle

    async def _serve_connection(self, site: Site, reader: asyncio.StreamReader,
                                writer: asyncio.StreamWriter, deadline: _ClientDeadline) -> None:
        while True:
            deadline.arm(self.config.idle_timeout, _CLOSED_IDLE)
            try:
                first = await reader.readexactly(1)
            except asyncio.IncompleteReadError:
                return  # the client closed the connection between requests (or idled out)
            deadline.arm(self.config.request_timeout, _CLOSED_SLOW)
            head = first + await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            request = lines[0].split(" ")
            headers = {}
            for line in lines[1:]:
                name, sep, value = line.partition(":")
                if sep:
                    headers[name.strip().lower()] = value.strip()
            length = ascii_int(headers.get("content-length", "0"), digits=4000)
            if (len(request) != 3 or not request[2].startswith("HTTP/1.") or length is None
                    or "transfer-encoding" in headers):  # a body this server does not read
                deadline.disarm()  # unreadable (or a body of unknown length): 400, then close
                await self._send(writer, Response(400, render.small_page("Bad request")), False,
                                 False, deadline)
                return
            method, target, version = request
            connection = headers.get("connection", "").lower()
            keep_alive = (connection != "close" if version == "HTTP/1.1"
                          else connection == "keep-alive")
            if length:
                await reader.readexactly(min(length, 1 << 20))
            deadline.disarm()  # the request is in: from here on the server takes its time
            if deadline.expired is not None:
                return  # it came as the deadline passed: the connection is aborted already
            if method not in ("GET", "HEAD"):
                response = Response(405, render.small_page("Method not allowed"))
            elif not target.startswith("/"):
                response = Response(400, render.small_page("Bad request"))
            else:
                path, _, query = target.partition("?")
                delay = self.latency.delay(f"{site.index}{target}")
                if delay > 0:
                    await asyncio.sleep(delay)
                response = site.respond(path, query)
            if response.reset:
                writer.transport.abort()
                return
            if response.hold:
                await asyncio.sleep(self.config.hold)
                return
            self.counts["requests"] += 1
            if not await self._send(writer, response, keep_alive, method == "HEAD", deadline):
                return

    async def _send(self, writer: asyncio.StreamWriter, response: Response, keep_alive: bool,
                    head_only: bool, deadline: _ClientDeadline) -> bool:
        """Write ``response``; return whether the connection stays open. Each wait for the
        client to take what was written is under ``send_timeout``."""

        async def drain() -> None:
            deadline.arm(self.config.send_timeout, _CLOSED_UNREAD)
            try:
                await writer.drain()
            finally:
                deadline.disarm()

        keep_alive = keep_alive and not response.stream
        head = [f"HTTP/1.1 {response.status} {_REASONS.get(response.status, 'Unknown')}",
                "Server: crawlab", f"Content-Type: {response.content_type}",
                "Connection: " + ("keep-alive" if keep_alive else "close")]
        if not response.stream:
            head.append(f"Content-Length: {len(response.body)}")
        if response.location is not None:
            head.append(f"Location: {response.location}")
        head += [f"{name}: {value}" for name, value in response.headers]
        head_bytes = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1")
        if head_only or response.drip:
            writer.write(head_bytes)
        else:  # one write, so the client can get the whole response in one receive
            writer.write(head_bytes + response.body)
        if response.drip and not head_only:  # one byte at a time: a crawler trap
            for i in range(len(response.body)):
                await drain()
                await asyncio.sleep(response.drip)
                writer.write(response.body[i:i + 1])
        if not head_only:
            if response.stream:
                remaining = response.stream
                while remaining > 0:
                    chunk = render.filler(min(_CHUNK, remaining))
                    writer.write(chunk)
                    remaining -= len(chunk)
                    await drain()
        await drain()
        return keep_alive
