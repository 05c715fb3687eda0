"""``crawlab serve`` refuses a flag given where it has no effect, and a --disallow path that is
not a robots.txt path (a newline in it wrote rules of its own into robots.txt).

Every test goes through ``main([...])``; the server start is replaced by one that raises, so a
check that fails to refuse fails the test at once instead of serving for ever.
"""

from __future__ import annotations

import pytest

import crawlers.cli.serve as serve
from crawlers.cli import main
from crawlers.web import render
from crawlers.web.server import WebServer


class _Started(Exception):
    pass


@pytest.fixture(autouse=True)
def no_server(monkeypatch):
    """serve() would run until stopped: make it raise instead."""
    async def started(*args, **kwargs):
        raise _Started("the server would have started: the flag was accepted")

    monkeypatch.setattr(serve, "serve", started)


@pytest.fixture
def site(tmp_path):
    (tmp_path / "index.html").write_text("<html><body>hi</body></html>")
    return str(tmp_path)


def refused(capsys, argv: list[str], *needles: str) -> str:
    assert main(["serve", *argv]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("crawlab serve: error: "), lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert captured.out == ""
    return lines[0]


def accepted(argv: list[str]) -> None:
    with pytest.raises(_Started):
        main(["serve", *argv])


# -- 1. flags of the generated web with --no-web -------------------------------------------------

@pytest.mark.parametrize("flag, value", [
    ("--pages", "100"), ("--pages", "5"), ("--sites", "3"), ("--faults", "0.5"),
    ("--fault-kinds", "404"), ("--disallow", "/x"), ("--crawl-delay", "2"),
])
def test_generated_web_flags_are_refused_with_no_web(capsys, site, flag, value):
    refused(capsys, ["--no-web", "--dir", site, flag, value], flag, "--no-web")


def test_seed_with_no_web_is_refused_without_jitter(capsys, site):
    refused(capsys, ["--no-web", "--dir", site, "--seed", "3"], "--seed", "--jitter")


def test_seed_with_no_web_draws_the_jitter(site):
    accepted(["--no-web", "--dir", site, "--seed", "3", "--latency", "0.01", "--jitter",
              "0.01"])


@pytest.mark.parametrize("extra", [[], ["--latency", "0.01"],
                                   ["--latency", "0.01", "--jitter", "0.01"],
                                   ["--hold", "5"], ["--port-base", "40000"]])
def test_flags_that_act_on_directory_sites_are_accepted_with_no_web(site, extra):
    """--hold acts on every site: /_fault/timeout holds a request that long."""
    accepted(["--no-web", "--dir", site, *extra])


# -- 2. --fault-kinds without --faults ----------------------------------------------------------

@pytest.mark.parametrize("faults", [[], ["--faults", "0"]])
def test_fault_kinds_without_a_fault_rate_is_refused(capsys, faults):
    refused(capsys, ["--pages", "40", "--sites", "2", "--fault-kinds", "404", *faults],
            "--fault-kinds", "--faults")


def test_fault_kinds_with_a_fault_rate_is_accepted():
    accepted(["--pages", "40", "--sites", "2", "--faults", "0.2", "--fault-kinds", "404"])


def test_unknown_fault_kind_names_the_flag(capsys):
    refused(capsys, ["--pages", "40", "--sites", "2", "--faults", "0.2",
                     "--fault-kinds", "404,teapot"], "--fault-kinds", "teapot")


def test_empty_fault_kinds_with_a_rate_names_the_flag(capsys):
    refused(capsys, ["--pages", "40", "--sites", "2", "--faults", "0.2", "--fault-kinds", ","],
            "--fault-kinds")


def test_faults_on_a_web_of_home_pages_only_is_refused(capsys):
    """Home pages never fail, and with --pages = --sites every page is a home page."""
    refused(capsys, ["--pages", "30", "--sites", "30", "--faults", "0.5"], "--faults", "home")


def test_hold_without_a_timeout_fault_kind_is_accepted():
    """Not a no-effect flag: /_fault/timeout on any site holds a request for --hold."""
    accepted(["--pages", "40", "--sites", "2", "--hold", "5"])


# -- 3. --disallow is a robots.txt path ---------------------------------------------------------

@pytest.mark.parametrize("path", ["/x\nUser-agent: evil\nDisallow: /", "/x\rDisallow: /",
                                  "/x\x00", "/x\x1b[2J", "/x\u2028Disallow: /", "/x\x85",
                                  "/a b", "/a#b", "private/", "", "*"])
def test_disallow_that_is_not_a_robots_path_is_refused(capsys, path):
    refused(capsys, ["--pages", "40", "--sites", "2", "--disallow", path], "--disallow")


def test_disallow_path_is_accepted():
    accepted(["--pages", "40", "--sites", "2", "--disallow", "/private/",
              "--disallow", "/p1.html", "--disallow", "/caf\u00e9/*$"])


@pytest.mark.parametrize("path", ["/x\nUser-agent: evil", "/x\r\nDisallow: /", "/x\u2028",
                                  "x", "/#", "/ "])
def test_robots_txt_refuses_a_path_that_would_inject_lines(path):
    with pytest.raises(ValueError, match="Disallow"):
        render.robots_txt([path])
    assert render.robots_path_problem(path) is not None


@pytest.mark.parametrize("path", ["/x\nUser-agent: evil", "x"])
def test_web_server_refuses_a_bad_disallow_before_serving(path):
    """Not at each request for robots.txt, inside the event loop."""
    with pytest.raises(ValueError, match="Disallow"):
        WebServer(None, dirs=["."], disallow=[path], mode="thread")


def test_robots_txt_of_good_paths_is_unchanged():
    assert render.robots_txt() == "User-agent: *\nDisallow:\n"
    assert render.robots_txt(["/a/", "/p1.html"], 2) == (
        "User-agent: *\nDisallow: /a/\nDisallow: /p1.html\nCrawl-delay: 2\n")


# -- 3. the server's limits on its clients --------------------------------------------------------

@pytest.mark.parametrize("flag", ["--idle-timeout", "--request-timeout", "--send-timeout"])
@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "1e9", "x", ""])
def test_a_client_limit_out_of_range_is_refused_in_one_line(capsys, flag, value):
    """0 would close every client at once; the limits are seconds, at most a day."""
    refused(capsys, ["--pages", "40", "--sites", "2", flag, value], flag)


def test_the_client_limits_reach_the_server(monkeypatch):
    seen = {}

    async def started(config, *args, **kwargs):
        seen.update(idle=config.idle_timeout, request=config.request_timeout,
                    send=config.send_timeout)
        raise _Started("started")

    monkeypatch.setattr(serve, "serve", started)
    accepted(["--pages", "40", "--sites", "2", "--idle-timeout", "3.5",
              "--request-timeout", "0.25", "--send-timeout", "7"])
    assert seen == {"idle": 3.5, "request": 0.25, "send": 7.0}


# -- a jitter larger than the latency ----------------------------------------------------------

@pytest.mark.parametrize("given", [["--jitter", "1"], ["--latency", "0.001", "--jitter", "0.5"]])
def test_a_jitter_larger_than_the_latency_is_refused(capsys, given):
    """Delays below 0 were cut at 0: ``--latency 0.001 --jitter 0.5`` waited 0.125 s a request
    on average, and with ``--latency 0`` the jitter was dropped, both without a word."""
    refused(capsys, ["--pages", "40", "--sites", "2", *given], "--jitter", "--latency")
