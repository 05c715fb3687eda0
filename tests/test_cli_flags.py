"""Flags do what they say, end to end through ``crawlab``: a value the user gave is used as given
(``--politeness 0`` means no delay), and a flag that would have no effect is refused with one
line and exit status 2 instead of being silently ignored or replaced by a default."""

from __future__ import annotations

import json

import pytest

from crawlers.cli import main
from crawlers.web.server import WebServer

PAGES = 6  # a chain of pages on one local site: index -> p1 -> ... -> p5


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """One directory site on 127.0.0.1 whose pages link in a chain; yields its seed URL."""
    root = tmp_path_factory.mktemp("chain")
    names = ["index.html", *(f"p{i}.html" for i in range(1, PAGES))]
    for here, there in zip(names, names[1:] + [None]):
        link = f"<a href='{there}'>next</a>" if there else "the end"
        (root / here).write_text(f"<html><body>{link}</body></html>")
    with WebServer(dirs=[str(root)], mode="thread") as server:
        (seed,) = server.seed_urls
        yield seed


def _status(argv: list[str]) -> int:
    """``crawlab ARGV``'s exit status, whether argparse or the command refused the input."""
    try:
        return main(argv)
    except SystemExit as exit_:
        return int(exit_.code)


def _crawl_json(capsys, *args: str) -> dict:
    assert main(["crawl", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_politeness_zero_means_no_delay(site, capsys):
    """``--politeness 0`` used to become 1 s per page; now no robot waits at all."""
    report = _crawl_json(capsys, "--seed-url", site, "--politeness", "0", "--threads", "1")
    assert report["unique_pages"] == PAGES
    assert report["politeness_waited"] == 0.0


def test_politeness_given_is_the_delay_used(site, capsys):
    """The control: a positive delay is honoured (one robot, one site: every fetch after the
    first waits for its slot), so the test above can tell no delay from a delay."""
    report = _crawl_json(capsys, "--seed-url", site, "--politeness", "0.02", "--threads", "1")
    assert report["unique_pages"] == PAGES
    assert report["politeness_waited"] > 0.0


def test_a_sites_crawl_delay_holds_with_politeness_zero(tmp_path, capsys):
    """robots.txt's ``Crawl-delay`` was parsed and never applied; ``--politeness 0`` removes
    our delay, not the one the site asked for (1 s)."""
    (tmp_path / "robots.txt").write_text("User-agent: *\nCrawl-delay: 1\n")
    (tmp_path / "index.html").write_text("<a href='p1.html'>next</a>")
    (tmp_path / "p1.html").write_text("the end")
    with WebServer(dirs=[str(tmp_path)], mode="thread") as server:
        (seed,) = server.seed_urls
        report = _crawl_json(capsys, "--seed-url", seed, "--politeness", "0", "--threads", "1")
    assert report["unique_pages"] == 2
    assert report["politeness_waited"] >= 0.5  # the second page waited for the site's slot


def test_bsp_politeness_zero_crawls_the_site(site, capsys):
    """``crawlab bsp`` takes the same web flags; with no delay the local site is crawled."""
    assert main(["bsp", "--procs", "1", "--robots", "1", "--seed-url", site,
                 "--politeness", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["unique_pages"] == PAGES


def test_web_options_keep_the_users_politeness():
    """The options the command builds carry 0 through, and the target's politeness hook then
    never waits (the site, unreachable here, has no Crawl-delay)."""
    from crawlers.cli.app import build_parser
    from crawlers.cli.webflags import web_options
    from crawlers.crawl.targets import open_target

    args = build_parser().parse_args(
        ["crawl", "--seed-url", "http://127.0.0.1:9/", "--politeness", "0"])
    opts = web_options(args, threads=1)
    assert opts.politeness == 0.0
    with open_target(opts) as target:
        assert [target.politeness_wait("http://127.0.0.1:9/") for _ in range(3)] == [0.0] * 3
    args = build_parser().parse_args(["crawl", "--seed-url", "http://127.0.0.1:9/"])
    assert web_options(args, threads=1).politeness == 1.0  # the documented default


@pytest.mark.parametrize("command", ["crawl", "bsp"])
@pytest.mark.parametrize(
    "args, message",
    [
        (["--seed-url", "http://127.0.0.1:9/", "--politeness", "-1"],
         "--politeness: must not be negative, got -1"),
        (["--sim", "--politeness", "0"], "--politeness applies to --seed-url sites only"),
        (["--politeness", "2"], "--politeness applies to --seed-url sites only"),
        (["--sim", "--seed-url", "http://127.0.0.1:9/"], "--sim and --seed-url cannot go"),
        (["--seed-url", "http://127.0.0.1:9/", "--pages", "50"], "--pages describes the gen"),
        (["--seed-url", "http://127.0.0.1:9/", "--latency", "0"], "--latency describes the"),
        (["--sim", "--parser", "bs4"], "--parser has no effect with --sim"),
    ],
)
def test_a_flag_without_effect_is_refused(command, args, message, capsys):
    assert _status([command, *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


def test_capacity_of_an_unbounded_frontier_is_refused(capsys):
    assert _status(["crawl", "--sim", "--frontier", "heap", "--capacity", "10"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'heap' is unbounded" in err[0], err


def test_lab_reps_zero_is_refused_not_replaced(capsys):
    """``crawl-races --reps 0`` used to run the default number of crawls."""
    assert _status(["lab", "crawl-races", "--reps", "0", "--no-plot"]) == 2
    assert "--reps: must be a positive integer" in capsys.readouterr().err


@pytest.mark.parametrize("argv, says", [
    (["--quick"], "at 1, 2, 4 threads"),
    (["--quick", "--threads", "1"], "at 1 thread"),
    ([], "at 1, 2, 4, 8, 16 threads"),
])
def test_the_frontier_bench_header_names_the_threads_it_runs(argv, says, tmp_path, capsys):
    from labs.harness import Lab
    from labs.lab_frontier_bench import _flags, _title

    Lab("frontier-bench", "doc", [*argv, "--out", str(tmp_path)], extra=_flags, title=_title)
    assert capsys.readouterr().out.splitlines()[0].endswith(says)


@pytest.mark.parametrize("bad", ["nosuch", "missing/file.py:Klass"])
def test_a_lab_refuses_a_bad_frontier_before_its_header(bad, tmp_path, capsys):
    """One line on stderr, exit 2, and nothing on stdout: not the '#' header first."""
    assert main(["lab", "frontier-bench", "--quick", "--no-plot", "--frontier", bad,
                 "--out", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, (out, err)
