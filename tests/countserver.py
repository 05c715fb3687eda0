"""A small web on 127.0.0.1 that counts the requests it gets per URL, for crash tests.

It knows nothing of the crawlers (its own ``http.server``, its own link graph), so its counts
are the independent witness of what a killed-and-resumed crawl fetched twice. ``sites`` ports,
``pages`` pages dealt round-robin over them; page ``i`` links to pages ``2i+1``, ``2i+2`` (a
tree: every page reachable from page 0) and to two pseudo-random others; each response waits
``latency`` seconds (so that pages are in flight when a crawler is killed).

``hold(after)`` makes every page request past the first ``after`` wait, unanswered, until the
test calls ``release(more)``: a crawl can then be interrupted while it provably has pages left
(it cannot finish while a request is held), whatever the machine's load.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        pass  # a killed crawler resets its connections: expected here


class CountingWeb:
    """``with CountingWeb(pages=300, sites=3) as web``: ``web.urls`` (every page),
    ``web.seeds`` (pages 0 .. sites-1), ``web.counts`` (a snapshot: URL -> requests), and
    ``web.wait_requests(n, timeout)``: block until ``n`` page requests arrived (False on
    timeout); ``hold``/``release`` (see the module docstring). Thread-safe: one lock guards
    the counter and the hold, a condition signals each request and each release."""

    def __init__(self, pages: int = 300, sites: int = 3, latency: float = 0.003,
                 seed: int = 0) -> None:
        self.n_pages, self.n_sites, self.latency = pages, sites, latency
        rng = random.Random(seed)
        self.links = [
            [j for j in (2 * i + 1, 2 * i + 2) if j < pages] + rng.sample(range(pages), 2)
            for i in range(pages)
        ]
        # _count_lock guards _counts and _total; _arrived is signalled on every page request.
        self._count_lock = threading.Lock()
        self._arrived = threading.Condition(self._count_lock)
        self._counts: Counter[str] = Counter()
        self._total = 0
        self._answer_upto: float = float("inf")  # requests numbered above this one wait
        self.hold_timeout = 120.0  # a held request is answered after this anyway
        self._servers: list[_QuietServer] = []
        self.ports: list[int] = []

    def url(self, i: int) -> str:
        return f"http://127.0.0.1:{self.ports[i % self.n_sites]}/p{i}.html"

    @property
    def urls(self) -> set[str]:
        return {self.url(i) for i in range(self.n_pages)}

    @property
    def seeds(self) -> list[str]:
        return [self.url(i) for i in range(self.n_sites)]  # one per site: the scope

    @property
    def counts(self) -> Counter[str]:
        with self._count_lock:
            return Counter(self._counts)

    @property
    def total(self) -> int:
        with self._count_lock:
            return self._total

    def wait_requests(self, n: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._arrived:
            while self._total < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._arrived.wait(left)
            return True

    def hold(self, after: int) -> None:
        """Page requests after the first ``after`` wait until :meth:`release`."""
        with self._arrived:
            self._answer_upto = after
            self._arrived.notify_all()

    def release(self, more: float = float("inf")) -> None:
        """Answer the held requests and ``more`` further ones (then hold again)."""
        with self._arrived:
            self._answer_upto = self._total + more
            self._arrived.notify_all()

    def _wait_turn(self, number: int) -> None:
        """Called with the lock held: wait while request ``number`` is held."""
        deadline = time.monotonic() + self.hold_timeout
        while number > self._answer_upto:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._arrived.wait(left)

    def _page(self, port: int, path: str) -> bytes | None:
        if not (path.startswith("/p") and path.endswith(".html")):
            return None
        try:
            i = int(path[2:-5])
        except ValueError:
            return None
        if not 0 <= i < self.n_pages or self.ports[i % self.n_sites] != port:
            return None
        body = "".join(f'<a href="{self.url(j)}">{j}</a>\n' for j in self.links[i])
        return f"<html><body><h1>{i}</h1>\n{body}</body></html>".encode()

    def _handler(self):
        web = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                port = self.server.server_address[1]
                body = web._page(port, self.path)
                if body is not None:
                    with web._arrived:
                        web._counts[f"http://127.0.0.1:{port}{self.path}"] += 1
                        web._total += 1
                        web._arrived.notify_all()
                        web._wait_turn(web._total)
                    time.sleep(web.latency)  # the page's latency, not synchronization
                status = 200 if body is not None else 404
                body = body if body is not None else b"not found"
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:  # the crawler was killed mid-response
                    pass

            def log_message(self, *args) -> None:
                pass

        return Handler

    def __enter__(self) -> CountingWeb:
        for _ in range(self.n_sites):
            srv = _QuietServer(("127.0.0.1", 0), self._handler())
            self._servers.append(srv)
            self.ports.append(srv.server_address[1])
            threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05},
                             daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        for srv in self._servers:
            srv.shutdown()
            srv.server_close()
