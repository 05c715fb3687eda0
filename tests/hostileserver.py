"""A small hostile web server on 127.0.0.1 for the limit tests (its own ``http.server``, nothing
of the crawlers), so that what it saw is an independent witness of what a crawler did.

Paths:

* ``/drip``: headers at once, then a byte every ``interval`` seconds, for ever;
* ``/drip-head``: the status line itself, a byte every ``interval`` seconds;
* ``/to?URL``: a redirect to URL; ``/to-cafe``: a redirect to ``/café/``, its ``Location``
  in UTF-8 bytes;
* ``/robots.txt``: as ``robots`` says: ``"404"``, ``"429"``, ``"500"``, ``"503"``, ``"drip"``
  (a byte every ``interval`` s), ``"drip-once"`` (drips the first time, then ``Disallow: /no/``),
  ``"503-once"`` (503 the first time, then ``Disallow: /no/``) or ``"disallow-all"``
  (``Disallow: /``); anything else: ``Disallow: /no/``;
* ``/cal/N``: a calendar without end whose every day is linked twice (``/cal/N`` links to
  ``/cal/N+1`` and ``/cal/N+2``);
* ``/leaf/...``: a small page without links;
* ``/fan/K``: a page linking to ``/via/0`` .. ``/via/K-1`` and to ``/same``; each ``/via/I``
  redirects to ``/same``, a leaf;
* ``/chains/K``: a page linking to ``/chain/0/0`` .. ``/chain/K-1/0``; ``/chain/I/J``
  redirects to ``/chain/I/J+1`` up to ``J`` = 5, a leaf;
* ``/length?VALUE``: a small page sent with ``Content-Length: VALUE`` as given (``%C2%B2`` is
  ``²``), then the connection closed;
* anything else: a small page linking to ``/drip``.

The query is ignored (``/drip?1`` is ``/drip``, counted under ``/drip``).
``arrived(path, n, timeout)`` blocks until ``n`` requests for ``path`` have arrived (False on
timeout): the tests synchronize on it, never on a sleep. Thread-safe: one lock guards the
counts, a condition signals each request.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request, client_address) -> None:
        pass  # a cut fetch resets its connection: expected here


class HostileServer:
    """``with HostileServer(interval=0.2) as srv``: ``srv.url`` is ``http://127.0.0.1:PORT``."""

    def __init__(self, interval: float = 0.2, robots: str = "404") -> None:
        self.interval = interval
        self.robots = robots
        self._lock = threading.Lock()  # guards counts
        self._arrival = threading.Condition(self._lock)  # signalled on every request
        self.counts: Counter[str] = Counter()
        self._closing = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                path = self.path.split("?", 1)[0]
                with owner._lock:
                    owner.counts[path] += 1
                    n = owner.counts[path]
                    owner._arrival.notify_all()
                if path == "/drip-head":
                    self._drip(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>",
                               head=True)
                elif path == "/drip":
                    self._drip(b"<html><body>" + b" " * 100_000, head=False)
                elif path == "/robots.txt":
                    self._robots(n)
                elif path == "/to-cafe":  # UTF-8 bytes, sent as http.server sends (Latin-1)
                    self._redirect("/café/".encode().decode("latin-1"))
                elif path == "/to":  # /to?URL redirects to URL
                    self.send_response(302)
                    self.send_header("Location", self.path.split("?", 1)[1])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif path.startswith("/leaf/") or path == "/same":
                    self._send(200, b"<html><body>a leaf</body></html>")
                elif path.startswith("/fan/") and path[5:].isdigit():
                    links = "".join(f'<a href="/via/{i}">{i}</a>' for i in range(int(path[5:])))
                    self._send(200, f'<html><body>{links}<a href="/same">s</a></body></html>'
                               .encode())
                elif path.startswith("/via/"):
                    self._redirect("/same")
                elif path.startswith("/chains/") and path[8:].isdigit():
                    links = "".join(f'<a href="/chain/{i}/0">{i}</a>'
                                    for i in range(int(path[8:])))
                    self._send(200, f"<html><body>{links}</body></html>".encode())
                elif path.startswith("/chain/"):
                    chain, _, hop = path[7:].partition("/")
                    if hop.isdigit() and int(hop) < 5:
                        self._redirect(f"/chain/{chain}/{int(hop) + 1}")
                    else:
                        self._send(200, b"<html><body>a leaf</body></html>")
                elif path == "/length":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", unquote(self.path.split("?", 1)[1]))
                    self.send_header("Connection", "close")
                    self.end_headers()
                    self.wfile.write(b"<html><body>a leaf</body></html>")
                    self.close_connection = True
                elif path.startswith("/cal/") and path[5:].isdigit():
                    day = int(path[5:])
                    self._send(200, f'<html><body><a href="/cal/{day + 1}">next</a> '
                                    f'<a href="/cal/{day + 2}">after</a></body></html>'.encode())
                else:
                    self._send(200, b'<html><body><a href="/drip">slow</a></body></html>')

            def _redirect(self, location: str) -> None:
                self.send_response(302)
                self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _robots(self, n: int) -> None:
                mode = owner.robots
                if mode in ("404", "429", "500", "503") or (mode == "503-once" and n == 1):
                    self._send(int(mode[:3]), b"no")
                elif mode == "disallow-all":
                    self._send(200, b"User-agent: *\nDisallow: /\n", kind="text/plain")
                elif mode == "drip" or (mode == "drip-once" and n == 1):
                    self._drip(b"User-agent: *\nDisallow: /\n" * 1000, head=False,
                               kind="text/plain")
                else:
                    self._send(200, b"User-agent: *\nDisallow: /no/\n", kind="text/plain")

            def _send(self, status: int, body: bytes, kind: str = "text/html") -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _drip(self, data: bytes, head: bool, kind: str = "text/html") -> None:
                if not head:
                    self.send_response(200)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.flush()
                for i in range(len(data)):
                    if owner._closing.wait(owner.interval):
                        return
                    try:
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                    except OSError:
                        return  # the client cut the fetch
                self.close_connection = True

        self._server = _QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def arrived(self, path: str, n: int = 1, timeout: float = 10.0) -> bool:
        """Wait until ``n`` requests for ``path`` arrived; False after ``timeout`` s."""
        end = time.monotonic() + timeout
        with self._lock:
            while self.counts[path] < n:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._arrival.wait(left)
            return True

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5.0)
