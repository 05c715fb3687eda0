"""The local web server: traversal refused, directories served, lifecycle, CLI errors."""

from __future__ import annotations

import argparse
import itertools
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest
import requests

import frontier
from crawlers.cli import serve
from crawlers.crawl.crawler import Crawler
from crawlers.crawl.targets import WebOptions, open_target
from crawlers.page.fetch import HttpFetcher
from crawlers.web.server import ServerError, WebServer
from crawlers.web.webgen import generate
from tests.helpers import raw_get, wait_until


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    base = tmp_path_factory.mktemp("site")
    root = base / "root"
    (root / "sub").mkdir(parents=True)
    (root / "index.html").write_text("<a href='sub/page.html'>p</a><a href='notes.txt'>n</a>")
    (root / "sub" / "page.html").write_text("<a href='../index.html'>home</a>")
    (root / "notes.txt").write_text("plain")
    (base / "secret.txt").write_text("TOP SECRET")
    os.symlink(base / "secret.txt", root / "escape.txt")
    os.symlink(base, root / "escape-dir")
    (root / "inside.html").symlink_to(root / "sub" / "page.html")
    return root


@pytest.fixture(scope="module")
def dir_server(tree):
    with WebServer(dirs=[str(tree)], mode="thread") as srv:
        yield srv


TRAVERSALS = [
    "/../secret.txt",
    "/sub/../../secret.txt",
    "/%2e%2e/secret.txt",
    "/%2E%2E/secret.txt",
    "/sub/%2e%2e/%2e%2e/secret.txt",
    "/..%2fsecret.txt",
    "/%2e%2e%2fsecret.txt",
    "/..%5csecret.txt",
    "/escape.txt",
    "/escape-dir/secret.txt",
    "/%00/etc/passwd",
    "/etc/passwd",
    "//etc/passwd",
    "/%2Fetc%2Fpasswd",
]


@pytest.mark.parametrize("target", TRAVERSALS)
def test_traversal_refused(dir_server, target):
    status, body = raw_get(dir_server.ports[0], target)
    assert status in (403, 404)
    assert b"TOP SECRET" not in body and b"root:" not in body


def test_absolute_form_target_refused(dir_server):
    status, _ = raw_get(dir_server.ports[0], "http://127.0.0.1/../secret.txt")
    assert status == 400


def test_directory_site_is_served_and_crawlable(dir_server):
    seed = dir_server.seed_urls[0]
    assert seed.endswith("/")
    with HttpFetcher() as fetcher:
        home = fetcher.fetch(seed)
        assert home.ok
        assert home.links == [seed + "sub/page.html", seed + "notes.txt"]
        assert fetcher.fetch(seed + "sub/page.html").links == [seed + "index.html"]
        assert fetcher.fetch(seed + "notes.txt").error == "not-html"
        assert fetcher.fetch(seed + "inside.html").ok  # a symlink inside the tree is fine
        assert fetcher.fetch(seed + "missing.html").error == "http-404"
        listing = fetcher.fetch(seed + "sub/")
        assert listing.ok and seed + "sub/page.html" in listing.links


def test_server_binds_loopback_only(dir_server):
    with pytest.raises(OSError):
        socket.create_connection((_outside_address(), dir_server.ports[0]), timeout=0.5)


def _outside_address() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET: no packet is sent
            address = s.getsockname()[0]
        except OSError:
            pytest.skip("no non-loopback interface")
    if address.startswith("127."):
        pytest.skip("no non-loopback interface")
    return address


def test_keep_alive_serves_many_requests_on_one_connection(dir_server):
    with requests.Session() as session:
        for _ in range(5):
            assert session.get(dir_server.seed_urls[0], timeout=3).status_code == 200


def test_context_manager_in_a_subprocess_starts_and_stops():
    web = generate(n_pages=50, n_sites=3, seed=2)
    start = time.monotonic()
    with WebServer(web, latency=0.01) as srv:
        assert srv.mode == "process" and srv.alive
        assert len(srv.ports) == 3 and len(set(srv.ports)) == 3
        assert srv._process.pid != os.getpid()
        with HttpFetcher() as fetcher:
            result = fetcher.fetch(srv.seed_urls[2])
        assert result.ok and result.links == srv.addressing.links(web.home(2))
        process = srv._process
    assert not process.is_alive()
    assert time.monotonic() - start < 30
    with pytest.raises(OSError):  # the ports are closed
        socket.create_connection(("127.0.0.1", srv.ports[0]), timeout=0.5)


def test_port_in_use_is_a_server_error():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        web = generate(n_pages=10, n_sites=1, seed=1)
        with pytest.raises(ServerError, match="port in use"):
            WebServer(web, port_base=port, mode="thread").start()
        with pytest.raises(ServerError, match="port in use"):
            WebServer(web, port_base=port, mode="process").start()


def _few_files() -> None:
    """In the child before exec: at most 200 open files (``ulimit -n 200``)."""
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (200, 200))


@pytest.mark.parametrize("command", [
    ["crawl", "--max-pages", "5", "--json"],
    ["bsp", "--max-pages", "5", "--json"],
    ["serve"],
])
def test_more_sites_than_open_files_is_one_line(command):
    """A served web holds one listening socket per site: with more sites than the process may
    open files, asyncio skipped the socket it could not create and the server's start-up died
    on an IndexError (a traceback; under ``crawlab bsp`` a second one, exit 1). Now: one line
    naming the site and the limit, exit 2, in every command that serves a web."""
    out = subprocess.run(
        [sys.executable, "-m", "crawlers", *command, "--pages", "300", "--sites", "300"],
        capture_output=True, text=True, timeout=120, preexec_fn=_few_files)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and len(lines) == 1, out.stderr
    assert "a served web of 300 sites needs 632 open files" in lines[0], lines[0]
    assert "the open-file limit is 200 (ulimit -n)" in lines[0], lines[0]


def _few_files_soft() -> None:
    """``ulimit -Sn 200``: the hard limit stays higher, as on most machines."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (200, hard))


def _crawl_under(limit, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "crawlers", "crawl", "--pages", "400", "--max-pages", "300",
         "--seconds", "30", "--json", *argv],
        capture_output=True, text=True, timeout=120, preexec_fn=limit)


def test_a_soft_open_file_limit_is_raised_for_the_served_web():
    """Under a soft limit of 200 files and a higher hard one, 100 sites were refused (or, near
    the limit, could not accept connections); the server raises its soft limit to the hard
    one, as it may, and serves them."""
    import resource

    if resource.getrlimit(resource.RLIMIT_NOFILE)[1] < 1000:
        pytest.skip("the hard open-file limit here is below 1000")
    out = _crawl_under(_few_files_soft, "--sites", "100")
    assert out.returncode == 0 and out.stderr == "", out.stderr[-2000:]
    assert json.loads(out.stdout)["pages_fetched"] == 300


def test_an_unlimited_hard_open_file_limit_raises_the_soft_one_to_what_is_needed(monkeypatch):
    """Linux refuses an unlimited soft open-file limit: with an unlimited hard one, raising the
    soft limit to the hard one failed silently and 100 sites were refused under ``ulimit -Sn
    200``. The soft limit is raised to what the web needs instead, the hard one kept."""
    import resource
    import types

    from crawlers.web import httpd

    limits = {"now": (200, resource.RLIM_INFINITY)}

    def setrlimit(which, pair):
        assert which == resource.RLIMIT_NOFILE
        if pair[0] == resource.RLIM_INFINITY:
            raise ValueError("not allowed to raise maximum limit")
        limits["now"] = pair

    fake = types.SimpleNamespace(RLIMIT_NOFILE=resource.RLIMIT_NOFILE,
                                 RLIM_INFINITY=resource.RLIM_INFINITY,
                                 getrlimit=lambda which: limits["now"], setrlimit=setrlimit)
    monkeypatch.setattr(httpd, "resource", fake)
    httpd.room_for(100)
    assert limits["now"] == (232, resource.RLIM_INFINITY)


def test_a_web_that_leaves_too_few_files_for_connections_is_said_once():
    """84 sites under 200 files fit with one connection each, but 32 robots open more: the
    server ran out of files accepting connections, and asyncio printed a traceback at every
    retry (105 MB of them in 20 s, found by an adversarial reading), then more as the closed
    listeners' retries fired. Now one line says it, whatever the crawl then reports."""
    out = _crawl_under(_few_files, "--sites", "84", "--threads", "32")
    assert "Traceback" not in out.stderr and len(out.stderr) < 1000, out.stderr[:3000]
    assert out.returncode == 0, out.stderr[-2000:]


def test_unknown_directory_is_a_server_error(tmp_path):
    with pytest.raises(ServerError, match="unknown directory"):
        WebServer(dirs=[str(tmp_path / "nope")])


def test_stop_is_bounded_with_held_requests():
    web = generate(n_pages=10, n_sites=1, seed=1)
    srv = WebServer(web, mode="thread", hold=60).start()
    with socket.create_connection(("127.0.0.1", srv.ports[0])) as s:
        s.sendall(b"GET /_fault/timeout HTTP/1.1\r\nHost: x\r\n\r\n")
        # a request sent after it is answered: the server's one event loop has read the held
        # request by then (a barrier on the server's own progress, not a sleep that hopes)
        assert raw_get(srv.ports[0], "/")[0] in (200, 301)
        start = time.monotonic()
        srv.stop()
        assert time.monotonic() - start < 5
    assert not srv.alive


# -- command line -----------------------------------------------------------------------

def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="crawlab serve")
    serve.add_arguments(parser)
    return parser.parse_args(list(argv))


@pytest.mark.parametrize("argv,message", [
    (["--dir", "/no/such/dir"], "unknown directory"),
    (["--pages", "many"], "--pages"),
    (["--pages", "5", "--sites", "10"], "--pages"),
    (["--sites", "0"], "--sites"),
    (["--latency", "-1"], "--latency"),
    (["--latency", "nan"], "--latency"),
    (["--faults", "2"], "--faults"),
    (["--fault-kinds", "404,teapot"], "unknown fault"),
    (["--port-base", "70000"], "--port-base"),
    (["--no-web"], "--no-web"),
])
def test_run_serve_bad_input(capsys, argv, message):
    assert serve.run(_args(*argv)) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("crawlab serve: error: ") and message in lines[0]
    assert captured.out == ""


def test_run_serve_port_in_use(capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert serve.run(_args("--pages", "10", "--sites", "1", "--port-base", str(port))) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "port in use" in lines[0]


def test_cli_serve_prints_seeds_and_stops_on_ctrl_c(tree):
    from tests.helpers import with_default_sigint

    process = subprocess.Popen(with_default_sigint(
        [sys.executable, "-m", "crawlers", "serve", "--pages", "40", "--sites", "3",
         "--dir", str(tree)]), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seeds = [process.stdout.readline().strip() for _ in range(4)]
        assert all(s.startswith("http://127.0.0.1:") for s in seeds)
        assert seeds[3].endswith("/") and seeds[0].endswith("/p0.html")
        assert requests.get(seeds[3], timeout=3).status_code == 200
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(5)


def test_cli_serve_limits_its_clients_by_its_flags_and_says_what_it_closed():
    """--idle-timeout and --request-timeout reach the server: a client that sends nothing is
    closed, one that stops half-way through its request line gets a 408 and is closed, and
    at Ctrl-C the server says what it did, those two counted."""
    from tests.helpers import with_default_sigint

    process = subprocess.Popen(with_default_sigint(
        [sys.executable, "-m", "crawlers", "serve", "--pages", "10", "--sites", "1",
         "--idle-timeout", "0.3", "--request-timeout", "0.3"]),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seed = process.stdout.readline().strip()
        port = int(seed.split(":")[2].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as idle, \
                socket.create_connection(("127.0.0.1", port), timeout=5) as slow:
            slow.sendall(b"GET /p1.html HTTP/1.1\r\n")  # and nothing more
            assert idle.recv(1024) == b"", "the idle client was not closed"
            answer = b""
            while chunk := slow.recv(65536):
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 408"), answer[:80]
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(5)
    assert process.returncode == 0, err
    assert err.strip().splitlines()[-1] == (
        "crawlab serve: stopped; 2 connections, 0 requests; "
        "closed 1 idle, 1 slow and 0 non-reading clients")


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_process_mode_server_outlives_a_signal_to_the_whole_process_group(sig):
    """Ctrl-C in a terminal reaches every process of the group: the server process stopped at
    once, and the crawl's fetches still in flight failed as pages with a connection error
    (a resumed crawl took them as done: pages lost). It now serves on until its parent
    stops it."""
    web = generate(n_pages=10, n_sites=1, seed=1)
    server = WebServer(web, mode="process").start()
    child = server._process
    try:
        os.kill(child.pid, getattr(signal, sig))
        for _ in range(3):  # each answered after the signal: it was not stopping
            assert requests.get(server.seed_urls[0], timeout=5).status_code == 200
        assert child.is_alive()
    finally:
        server.stop()
    assert not child.is_alive()


def test_a_signal_in_the_server_process_first_moments_neither_kills_it_nor_prints(monkeypatch,
                                                                                 capfd):
    """Sent as the server process starts (here: as soon as it exists, long before it has
    imported anything), Ctrl-C killed it with a KeyboardInterrupt traceback, and the crawl
    failed: 'server process died during start-up'. It now waits, and is ignored."""
    from multiprocessing.process import BaseProcess

    start = BaseProcess.start

    def start_then_signal(process):
        start(process)
        os.kill(process.pid, signal.SIGINT)
        os.kill(process.pid, signal.SIGTERM)

    monkeypatch.setattr(BaseProcess, "start", start_then_signal)
    server = WebServer(generate(n_pages=10, n_sites=1, seed=1), mode="process").start()
    try:
        assert requests.get(server.seed_urls[0], timeout=5).status_code == 200
    finally:
        server.stop()
    assert "Traceback" not in capfd.readouterr().err


# -- how long a client may keep a connection ----------------------------------------------------
# A client may keep the server waiting for a request's first byte at most idle_timeout, and for the
# rest of it at most request_timeout in all. Every socket operation below has a timeout and every
# loop a deadline: without the limits a test fails in seconds, it does not hang.

def _limited(**settings) -> WebServer:
    """A started thread-mode server of a one-site web with the given limits and settings."""
    web = generate(n_pages=10, n_sites=1, seed=1)
    return WebServer(web, mode="thread", **settings).start()


def _get(s: socket.socket, path: str = "/p1.html", pause: float = 0.0) -> bytes:
    """One keep-alive GET on ``s`` (its request line and its headers ``pause`` seconds apart),
    its whole response read (Content-Length bodies only); returns the response's head."""
    s.sendall(f"GET {path} HTTP/1.1\r\n".encode())
    if pause:
        time.sleep(pause)  # the client's pace, the behaviour under test
    s.sendall(b"Host: x\r\n\r\n")
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        assert chunk, f"the connection closed before a response, after {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
    while len(body) < length:
        chunk = s.recv(65536)
        assert chunk, "the connection closed in the middle of a body"
        body += chunk
    return head


def test_the_limits_have_defaults_that_outlast_every_pause_the_crawler_takes_on_purpose():
    """IDLE_TIMEOUT's note: a close races a request sent within a millisecond of the deadline,
    so the default is kept above every deliberate pause of a polite crawl (Crawl-delay and
    Retry-After, capped by the policy); and both limits refuse what is not a positive time."""
    from crawlers.page.policy import Policy
    from crawlers.web.httpd import IDLE_TIMEOUT, REQUEST_TIMEOUT, ServerConfig

    policy = Policy()
    assert IDLE_TIMEOUT > max(policy.max_crawl_delay, policy.retry_after_cap)
    assert 0 < REQUEST_TIMEOUT <= IDLE_TIMEOUT
    config = WebServer(generate(n_pages=10, n_sites=1, seed=1), mode="thread").config
    assert (config.idle_timeout, config.request_timeout) == (IDLE_TIMEOUT, REQUEST_TIMEOUT)
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="idle_timeout"):
            ServerConfig(idle_timeout=bad)
        with pytest.raises(ValueError, match="request_timeout"):
            ServerConfig(request_timeout=bad)


@pytest.mark.parametrize("requests_first", [0, 1], ids=["silent", "after-a-request"])
def test_an_idle_connection_is_closed_after_the_idle_timeout(requests_first):
    """A client that opens a connection and sends nothing, or gets an answer and then sends
    nothing, held a socket and a coroutine for ever; it is closed after idle_timeout (an end
    of file, no response) and counted as closed_idle."""
    srv = _limited(idle_timeout=0.2, request_timeout=30)
    try:
        with socket.create_connection(("127.0.0.1", srv.ports[0]), timeout=5) as s:
            for _ in range(requests_first):
                assert _get(s).startswith(b"HTTP/1.1 200")
            quiet_since = time.monotonic()
            assert s.recv(1) == b""  # the server's end of file; a socket.timeout without it
            assert time.monotonic() - quiet_since >= 0.2 - 0.01  # not before the limit
        wait_until(lambda: srv.stats()["closed_idle"] == 1, 5, "the idle close being counted")
        assert srv.stats() == {"connections": 1, "requests": requests_first, "closed_idle": 1,
                               "closed_slow": 0,
                               "closed_unread": 0}
    finally:
        srv.stop()


def test_a_client_dribbling_its_headers_is_closed_after_the_request_timeout():
    """Slowloris: a request whose headers come a byte every 50 ms, for ever, reset no timer and
    held the connection for ever. request_timeout bounds the whole request from its first
    byte, however steadily the bytes come: 408, then the close, counted as closed_slow (the
    idle limit, 30 s here, plays no part)."""
    srv = _limited(idle_timeout=30, request_timeout=0.3)
    try:
        with socket.create_connection(("127.0.0.1", srv.ports[0]), timeout=5) as s:
            endless = itertools.chain(b"GET /p1.html HTTP/1.1\r\nHost: x\r\nX-Pad: ",
                                      itertools.repeat(ord("a")))
            started = time.monotonic()
            sent = 0
            while not select.select([s], [], [], 0.05)[0]:  # 50 ms between bytes
                assert time.monotonic() - started < 5, f"still open after {sent} bytes, 5 s"
                s.sendall(bytes([next(endless)]))
                sent += 1
            answer = b""
            while chunk := s.recv(65536):  # to the server's end of file
                answer += chunk
            took = time.monotonic() - started
        assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answer
        assert b"Connection: close" in answer
        assert sent >= 4 and took >= 0.3 - 0.01  # bytes kept coming, and the limit was whole
        wait_until(lambda: srv.stats()["closed_slow"] == 1, 5, "the slow close being counted")
        assert srv.stats() == {"connections": 1, "requests": 0, "closed_idle": 0,
                               "closed_slow": 1,
                               "closed_unread": 0}
    finally:
        srv.stop()


def test_requests_sent_within_the_limits_keep_the_connection_open():
    """The limits are per request, not per connection: a client sending a request every 50 ms,
    each in two writes 50 ms apart, keeps one connection for 1.2 s, over twice either limit
    (0.5 s), and nothing is counted closed."""
    srv = _limited(idle_timeout=0.5, request_timeout=0.5)
    try:
        with socket.create_connection(("127.0.0.1", srv.ports[0]), timeout=5) as s:
            started = time.monotonic()
            for _ in range(12):
                assert _get(s, pause=0.05).startswith(b"HTTP/1.1 200")
                time.sleep(0.05)  # the client's pace between requests
            assert time.monotonic() - started >= 2 * 0.5
        assert srv.stats()["connections"] == 1 and srv.stats()["requests"] == 12
        assert srv.stats()["closed_idle"] == srv.stats()["closed_slow"] == 0
    finally:
        srv.stop()


@pytest.mark.parametrize("settings,path", [
    ({"hold": 1.0}, "/_fault/timeout"),  # the timeout fault: no answer, then the close
    ({"latency": 1.0}, "/p1.html"),  # the injected latency: a late answer
], ids=["hold", "latency"])
def test_the_servers_own_waits_are_not_the_clients(settings, path):
    """A request the server holds (the ``timeout`` fault, ``hold`` seconds) or answers late
    (``latency``) keeps its connection open past both limits (0.2 s): the server is waiting,
    not the client."""
    srv = _limited(idle_timeout=0.2, request_timeout=0.2, **settings)
    try:
        with socket.create_connection(("127.0.0.1", srv.ports[0]), timeout=5) as s:
            started = time.monotonic()
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            first = s.recv(65536)
            assert time.monotonic() - started >= 1.0 - 0.01, "closed or answered too soon"
        if "hold" in settings:
            assert first == b""  # a held request is never answered: closed after the hold
        else:
            assert first.startswith(b"HTTP/1.1 200")
        assert srv.stats()["closed_idle"] == srv.stats()["closed_slow"] == 0
    finally:
        srv.stop()


def test_the_counts_come_from_the_server_process_and_outlive_its_stop():
    """In process mode (every crawl's) the counts are asked over the server's pipe, and the last
    ones are kept once it stops."""
    web = generate(n_pages=10, n_sites=1, seed=1)
    with WebServer(web, idle_timeout=0.2) as srv:
        with socket.create_connection(("127.0.0.1", srv.ports[0]), timeout=5) as s:
            assert _get(s).startswith(b"HTTP/1.1 200")
            assert s.recv(1) == b""
        wait_until(lambda: srv.stats()["closed_idle"] == 1, 5, "the idle close being counted")
    assert srv.stats() == {"connections": 1, "requests": 1, "closed_idle": 1, "closed_slow": 0,
                           "closed_unread": 0}


def test_a_connection_closed_while_idle_costs_the_fetcher_nothing():
    """The crawler's pool keeps connections; the server closes them when idle. urllib3 sees
    the close when it takes the connection from its pool and opens a new one: every fetch
    succeeds, nothing is counted, and the server saw one new connection per close."""
    srv = _limited(idle_timeout=0.1)
    urls = srv.addressing.seed_urls() + [srv.site_urls[0] + f"/p{i}.html" for i in (1, 2, 3)]
    try:
        with HttpFetcher() as fetcher:
            for n, url in enumerate(urls, start=1):
                result = fetcher.fetch(url)
                assert result.ok, (url, result.error)
                wait_until(lambda n=n: srv.stats()["closed_idle"] == n, 5,
                           "the server closing the pooled connection")
            assert not {k: v for k, v in fetcher.counters.as_dict().items()
                        if v and k != "bad_scheme"}  # no limit acted (links to mailto: aside)
        assert srv.stats() == {"connections": 4, "requests": 4, "closed_idle": 4,
                               "closed_slow": 0,
                               "closed_unread": 0}
    finally:
        srv.stop()


@pytest.mark.timeout(60)
def test_a_polite_crawl_loses_no_page_to_idle_closes():
    """A whole crawl (robots.txt, politeness 0.3 s per site, 3 threads) against a server that
    closes a connection idle for 0.1 s: the pooled connections are closed between the requests
    to a site, and every page is fetched without an error."""
    web = generate(n_pages=24, n_sites=3, seed=4)
    with WebServer(web, mode="thread", idle_timeout=0.1) as srv:
        opts = WebOptions(kind="urls", seed_urls=srv.seed_urls, politeness=0.3, threads=3)
        with open_target(opts) as target:
            report = Crawler(target.fetcher, frontier.create("monitor"), target.seeds,
                             threads=3, rules=target.rules, counters=target.counters,
                             robots_allowed=target.robots_allowed,
                             politeness_wait=target.politeness_wait).run(seconds=40)
        stats = srv.stats()
    assert report.stopped_by == "exhausted"
    assert report.unique_pages == web.size and report.errors == {}
    assert stats["closed_idle"] >= web.size - web.n_sites  # closed between a site's requests
    assert stats["connections"] >= stats["closed_idle"]


def test_a_client_that_stops_reading_an_answer_is_closed_after_the_send_timeout():
    """A client that asks for a large answer (here 20 MB) and reads none of it held a
    connection and a coroutine for as long as it stayed connected (nginx's send_timeout); the
    server now aborts it once the answer has waited send_timeout unread, counted closed_unread,
    and serves the next client."""
    srv = _limited(send_timeout=0.2, idle_timeout=30, request_timeout=30)
    try:
        with socket.create_connection(("127.0.0.1", srv.ports[0]), timeout=5) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(b"GET /_fault/oversize HTTP/1.1\r\nHost: x\r\n\r\n")
            wait_until(lambda: srv.stats()["closed_unread"] == 1, 10,
                       "the unread answer's connection being closed")
        with socket.create_connection(("127.0.0.1", srv.ports[0]), timeout=5) as s:
            assert _get(s).startswith(b"HTTP/1.1 200")
        assert srv.stats() == {"connections": 2, "requests": 2, "closed_idle": 0,
                               "closed_slow": 0, "closed_unread": 1}
    finally:
        srv.stop()


def test_a_request_that_races_the_idle_close_is_sent_again(monkeypatch):
    """urllib3 checks a pooled connection before reusing it, but time passes between that check
    and the request reaching the server (measured: of 123 fetches sent after pauses spread over
    5 ms either side of a 0.1 s idle limit, 7 failed, all in the last 5 ms before it). Here the
    check is made to miss the close, as it does in that window."""
    import urllib3.connectionpool

    srv = _limited(idle_timeout=0.1)
    try:
        with HttpFetcher() as fetcher:
            assert fetcher.fetch(srv.seed_urls[0]).ok
            wait_until(lambda: srv.stats()["closed_idle"] == 1, 5, "the idle close")
            monkeypatch.setattr(urllib3.connectionpool, "is_connection_dropped",
                                lambda conn: False)
            result = fetcher.fetch(srv.seed_urls[0])
            resent = fetcher.counters.get("resent_stale")
        assert result.ok, result.error
        assert resent == 1  # sent again once, on a new connection, and counted
    finally:
        srv.stop()


def test_a_request_dropped_on_a_new_connection_is_not_sent_again():
    """Only a request that went out on a kept-alive connection is sent again: a server that
    closes every new connection unanswered is a ``connection`` error at the first try (one
    connection, nothing resent), not a request sent twice."""
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    accepted = []

    def drop() -> None:
        listener.settimeout(10)
        try:
            while True:
                conn, _ = listener.accept()
                accepted.append(conn)
                conn.settimeout(5)
                conn.recv(65536)  # the request, read and not answered
                conn.close()
        except OSError:  # the listener closed (the test is over) or no client for 10 s
            pass

    t = threading.Thread(target=drop, daemon=True)
    t.start()
    try:
        with HttpFetcher() as fetcher:
            result = fetcher.fetch(f"http://127.0.0.1:{listener.getsockname()[1]}/")
            resent = fetcher.counters.get("resent_stale")
    finally:
        listener.close()
        t.join(15)
    assert result.error == "connection" and resent == 0
    assert len(accepted) == 1


def _raw(port: int, request: bytes) -> bytes:
    """Everything the server answers to ``request`` (bytes as given) before it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(request)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return data


@pytest.mark.parametrize("length", [b"\xb2", b"9" * 5000, b"-1", b"12x"])
def test_a_request_whose_content_length_is_not_a_number_is_answered_400(length):
    """Header bytes are read as Latin-1, where ``\\xb2`` is ``²``: a digit to str.isdigit, not
    to int, so the server's connection task once died on it without an answer."""
    srv = _limited()
    try:
        answer = _raw(srv.ports[0], b"GET /p1.html HTTP/1.1\r\nHost: x\r\nContent-Length: "
                      + length + b"\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 400"), answer[:80]
    finally:
        srv.stop()


def test_a_chunked_request_body_is_answered_400_not_read_as_the_next_request():
    srv = _limited()
    try:
        answer = _raw(srv.ports[0], b"GET /p1.html HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: "
                      b"chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 400") and answer.count(b"HTTP/1.1 ") == 1, answer
    finally:
        srv.stop()


@pytest.mark.parametrize("query", [b"hop=\xb2", b"hop=" + b"9" * 5000])
def test_a_hop_count_that_is_not_a_number_is_no_redirect(query):
    srv = _limited()
    try:
        answer = _raw(srv.ports[0], b"GET /p1.html?" + query
                      + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 200"), answer[:80]
    finally:
        srv.stop()


def test_a_calendar_trap_month_that_is_not_a_number_is_month_0():
    srv = _limited(traps=True)
    try:
        answer = _raw(srv.ports[0], b"GET /trap/calendar?m=\xb2 HTTP/1.1\r\nHost: x\r\n"
                      b"Connection: close\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 200") and b"Calendar, month 0" in answer
    finally:
        srv.stop()


@pytest.mark.parametrize("digits", [4400, 19])
def test_a_page_number_of_too_many_digits_is_not_found(digits):
    """int() refuses more than 4300 digits: the served web's connection task once died on
    such a path without an answer."""
    srv = _limited()
    try:
        answer = _raw(srv.ports[0], b"GET /p" + b"9" * digits + b".html HTTP/1.1\r\nHost: x\r\n"
                      b"Connection: close\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 404"), answer[:80]
    finally:
        srv.stop()
