"""HttpFetcher's use of requests: what goes on the wire, and the body cap on every framing.

The fetcher prepares each request itself and hands it to the session's adapter (skipping
``Session.request``); these tests pin that the server sees what ``session.get`` would have
sent, that cookies never come back, and that the size cap holds whether the body has a
Content-Length, is close-delimited, chunked, or gzip-compressed.
"""

from __future__ import annotations

import gzip
import http.server
import threading

import pytest

from crawlers.page import faults
from crawlers.page.fetch import HttpFetcher

PAGE = b"<html><body>" + b"<a href='a.html'>a</a>" * 50 + b"</body></html>"


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Serves a few fixed paths and records every request's headers."""

    protocol_version = "HTTP/1.1"
    seen: list[dict[str, str]] = []

    def log_message(self, *args: object) -> None:  # keep pytest output quiet
        pass

    def _send(self, body: bytes, *, length: bool = True, chunked: bool = False,
              gzipped: bool = False, cookie: bool = False) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        if gzipped:
            body = gzip.compress(body)
            self.send_header("Content-Encoding", "gzip")
        if cookie:
            self.send_header("Set-Cookie", "session=abc; Path=/")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        elif length:
            self.send_header("Content-Length", str(len(body)))
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if chunked:
            for start in range(0, len(body), 4096):
                piece = body[start:start + 4096]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
        type(self).seen.append({k.lower(): v for k, v in self.headers.items()})
        size = 200_000
        big = b"<html><body>" + b"x" * size + b"</body></html>"
        routes = {
            "/page": lambda: self._send(PAGE),
            "/cookie": lambda: self._send(PAGE, cookie=True),
            "/big-length": lambda: self._send(big),
            "/big-close": lambda: self._send(big, length=False),
            "/big-chunked": lambda: self._send(big, chunked=True),
            "/big-gzip": lambda: self._send(big, gzipped=True),
            "/small-gzip": lambda: self._send(PAGE, gzipped=True),
            "/small-chunked": lambda: self._send(PAGE, chunked=True),
            "/small-close": lambda: self._send(PAGE, length=False),
        }
        route = routes.get(self.path)
        if route is None:
            self.send_error(404)
        else:
            route()


@pytest.fixture(scope="module")
def origin():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(5)


@pytest.fixture()
def fetcher():
    with HttpFetcher(timeout=(2.0, 2.0), max_bytes=100_000) as f:
        yield f


def _last_headers() -> dict[str, str]:
    return _Recorder.seen[-1]


def test_the_server_sees_what_session_get_would_send(origin, fetcher):
    assert fetcher.fetch(origin + "/page").ok
    ours = _last_headers()
    fetcher.session.get(origin + "/page", timeout=2.0).close()
    theirs = _last_headers()
    assert ours == theirs
    assert ours["user-agent"].startswith("crawlab/")
    assert "gzip" in ours["accept-encoding"]


def test_cookies_are_never_sent_back(origin, fetcher):
    assert fetcher.fetch(origin + "/cookie").ok
    assert fetcher.fetch(origin + "/page").ok
    assert "cookie" not in _last_headers()
    assert len(fetcher.session.cookies) == 0


def test_links_of_every_framing_are_the_same(origin, fetcher):
    plain = fetcher.fetch(origin + "/page")
    assert plain.ok and plain.links == [origin + "/a.html"]
    for path in ("/small-gzip", "/small-chunked", "/small-close"):
        result = fetcher.fetch(origin + path)
        assert result.ok, (path, result)
        assert result.links == plain.links
        assert result.size == len(PAGE)  # decompressed bytes are what count


@pytest.mark.parametrize("path", ["/big-length", "/big-close", "/big-chunked", "/big-gzip"])
def test_size_cap_on_every_framing(origin, fetcher, path):
    result = fetcher.fetch(origin + path)
    assert result.error == faults.TOO_LARGE, result
    assert result.links == []
    assert fetcher.fetch(origin + "/page").ok  # and fetching goes on


def test_gzip_counts_decompressed_bytes(origin):
    """The gzip body is about 1 KB on the wire but 200 KB decompressed: capped at 100 KB."""
    with HttpFetcher(max_bytes=100_000) as capped, HttpFetcher(max_bytes=300_000) as roomy:
        assert capped.fetch(origin + "/big-gzip").error == faults.TOO_LARGE
        assert roomy.fetch(origin + "/big-gzip").ok


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/x", "mailto:someone@example.test",
                                 "http://", "http://[::1/x"])
def test_urls_requests_refuses_are_invalid_not_raised(fetcher, url):
    result = fetcher.fetch(url)
    assert result.error == faults.INVALID_URL, result
    assert fetcher.fetch_text(url) == (None, "")
