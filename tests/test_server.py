"""The local web server: traversal refused, directories served, lifecycle, CLI errors."""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest
import requests

from crawlers.cli import serve
from crawlers.page.fetch import HttpFetcher
from crawlers.web.server import ServerError, WebServer
from crawlers.web.webgen import generate
from tests.helpers import raw_get


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
