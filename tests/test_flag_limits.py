"""Every flag has explicit limits: a value past them (infinity, a number that overflows a C
integer, a web too big for memory, a seed KaHyPar cannot take, an ``--out`` that is a file) is
one line on stderr naming the flag and exit status 2, never a traceback or a hang.

Nothing here crawls or measures: where the unfixed code would have started the work, the work
is replaced by a stub that fails the test, so each test is fast whether the check is there or
not."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys

import pytest

from crawlers.args import (
    MAX_CAPACITY,
    MAX_COMMIT_EVERY,
    MAX_PAGES,
    MAX_RUNS,
    MAX_SECONDS,
    MAX_SEED,
    MAX_THREADS,
    at_most,
    non_negative,
    positive,
)
from crawlers.cli import main


def _started(*_args, **_kwargs):
    raise AssertionError("the work started: the flag was not refused")


def refused(capsys, argv: list[str], flag: str) -> str:
    """Run ``crawlab ARGV``; check exit status 2 and one line naming ``flag``, no traceback;
    return the line."""
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's error
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("crawlab ") and "error" in lines[0], lines[0]
    assert flag in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def no_crawl(monkeypatch):
    """``crawlab crawl`` and ``crawlab bsp`` fail the test instead of crawling."""
    import crawlers.bsp.driver as driver
    import crawlers.crawl.targets as targets

    monkeypatch.setattr(targets, "open_target", _started)
    monkeypatch.setattr(driver, "run_bsp", _started)
    monkeypatch.setattr(driver, "validate", _started)
    monkeypatch.setattr(driver, "check_launch", _started)


# -- 1. floats: no infinity, and seconds up to a year -----------------------------------------

@pytest.mark.parametrize("text", ["inf", "Infinity", "1e999"])
def test_float_types_refuse_non_finite_numbers(text):
    for kind in (non_negative, positive):
        with pytest.raises(argparse.ArgumentTypeError):
            kind(text)


@pytest.mark.parametrize("kind", [non_negative, positive])
def test_nan_is_called_not_finite(kind):
    """NaN was refused as "must not be negative, got nan"."""
    with pytest.raises(argparse.ArgumentTypeError, match="must be a finite number, got nan"):
        kind("nan")


def test_at_most_says_the_limit():
    kind = at_most(positive, MAX_SECONDS, "a year")
    assert kind("2.5") == 2.5
    with pytest.raises(argparse.ArgumentTypeError, match=f"at most {MAX_SECONDS} \\(a year\\)"):
        kind("1e308")


@pytest.mark.parametrize("flag, value", [
    ("--latency", "inf"), ("--jitter", "inf"), ("--latency", "1e308"), ("--jitter", "1e9"),
    ("--watchdog", "inf"), ("--watchdog", "1e308"), ("--seconds", "1e308"),
    ("--stop-grace", "1e308"),
])
def test_crawl_refuses_endless_times(capsys, no_crawl, flag, value):
    refused(capsys, ["crawl", "--sim", "--max-pages", "30", "--json", flag, value], flag)


def test_crawl_commit_ms_has_a_limit(capsys, no_crawl, tmp_path):
    refused(capsys, ["crawl", "--sim", "--max-pages", "30", "--json", "--state",
                     str(tmp_path / "state"), "--commit-ms", "1e308"], "--commit-ms")


def test_crawl_watchdog_inf_in_a_process():
    run = subprocess.run([sys.executable, "-m", "crawlers", "crawl", "--sim", "--max-pages", "30",
                          "--json", "--watchdog", "inf"],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip().splitlines() == [
        "crawlab crawl: error: argument --watchdog: must be a finite number, got inf"]


# -- 2, 3. crawlab explore: --bound and --depth -------------------------------------------------

@pytest.mark.parametrize("mode", [[], ["--outcomes"]])
def test_explore_bound_has_a_limit(capsys, mode):
    line = refused(capsys, ["explore", "monitor", *mode, "--bound", "9223372036854775807"],
                   "--bound")
    assert "at most 10000" in line


@pytest.mark.parametrize("depth", ["10", "1000000"])
def test_explore_depth_has_a_limit(capsys, monkeypatch, depth):
    import frontier.check.pct as pct

    monkeypatch.setattr(pct, "search", _started)
    line = refused(capsys, ["explore", "monitor", "--pct", "--depth", depth, "--runs", "1",
                            "--scenario", "lost-update"], "--depth")
    assert "at most 5" in line


# -- 4, 5. crawlab crawl/bsp/serve: --capacity, --pages, --sites --------------------------------

def test_crawl_capacity_has_a_limit(capsys, no_crawl):
    refused(capsys, ["crawl", "--sim", "--max-pages", "30", "--json",
                     "--capacity", "99999999999999999999999"], "--capacity")


@pytest.mark.parametrize("command", ["crawl", "bsp"])
@pytest.mark.parametrize("flag, value", [("--pages", "99999999999999999999"),
                                         ("--pages", "2000000000"),
                                         ("--sites", "99999999999999999999")])
def test_generated_web_has_a_size_limit(capsys, no_crawl, command, flag, value):
    line = refused(capsys, [command, "--sim", "--max-pages", "30", "--json", flag, value], flag)
    assert f"at most {MAX_PAGES}" in line


@pytest.mark.parametrize("flag, value", [("--pages", "99999999999999999999"),
                                         ("--pages", "2000000000"),
                                         ("--sites", "99999999999999999999")])
def test_serve_web_has_a_size_limit(capsys, monkeypatch, flag, value):
    import crawlers.cli.serve as serve

    monkeypatch.setattr(serve, "generate", _started)
    line = refused(capsys, ["serve", flag, value], flag)
    assert str(MAX_PAGES) in line


# -- 6. crawlab bsp --timeout -------------------------------------------------------------------

@pytest.mark.parametrize("flag, value", [("--timeout", "inf"), ("--timeout", "1e308"),
                                         ("--seconds", "inf"), ("--latency", "1e308")])
def test_bsp_refuses_endless_times(capsys, no_crawl, flag, value):
    refused(capsys, ["bsp", "--sim", "--max-pages", "50", flag, value], flag)


# -- 7. seeds KaHyPar takes ----------------------------------------------------------------------

@pytest.mark.parametrize("seed", [str(MAX_SEED + 1), "99999999999999999999", "-1"])
def test_partition_seed_fits_kahypar(capsys, tmp_path, seed):
    graph = tmp_path / "edges.txt"
    graph.write_text("http://a.example/1 http://b.example/1\n"
                     "http://b.example/1 http://c.example/1\n"
                     "http://c.example/1 http://a.example/1\n")
    refused(capsys, ["partition", "--graph", str(graph), "--parts", "2", "--seed", seed],
            "--seed")


@pytest.mark.parametrize("seed", [str(MAX_SEED + 1), "10" * 12])
def test_serve_seed_has_the_limit_of_the_other_commands(capsys, seed):
    """``crawl``, ``bsp`` and ``explore`` take a seed up to MAX_SEED; ``serve`` took any."""
    refused(capsys, ["serve", "--pages", "10", "--sites", "1", "--seed", seed], "--seed")


def test_lab_seed_fits_kahypar(capsys, monkeypatch, tmp_path):
    import labs.lab_partition as lab_partition

    monkeypatch.setattr(lab_partition, "_webs", _started)
    refused(capsys, ["lab", "partition", "--quick", "--out", str(tmp_path),
                     "--seed", "99999999999999999999"], "--seed")


# -- 8. crawlab linearize: --ops and --threads ----------------------------------------------------

@pytest.mark.parametrize("flag, value", [("--ops", "99999999999999999999"),
                                         ("--threads", "100000")])
def test_linearize_sizes_have_limits(capsys, monkeypatch, flag, value):
    import frontier.check.linearize as lin

    monkeypatch.setattr(lin, "record", _started)
    refused(capsys, ["linearize", "monitor", flag, value, "--runs", "1"], flag)


# -- 9. a lab's --out that is a file -------------------------------------------------------------

def test_lab_out_that_is_a_file(capsys, tmp_path):
    out = tmp_path / "somefile"
    out.write_text("not a folder\n")
    line = refused(capsys, ["lab", "pq-comparisons", "--quick", "--out", str(out)], "--out")
    assert "Not a directory" in line
    assert out.read_text() == "not a folder\n"


@pytest.mark.parametrize("seed", ["-1", str(MAX_SEED + 1)])
@pytest.mark.parametrize("command", ["crawl", "bsp"])
def test_generated_web_seed_is_named_when_refused(capsys, no_crawl, command, seed):
    """``--seed -1`` reached the web generator, whose message named no flag."""
    line = refused(capsys, [command, "--sim", "--seed", seed], "--seed")
    assert "argument --seed" in line


# -- threads, processes, runs and seeds ----------------------------------------------------------

@pytest.mark.parametrize("argv, flag, limit", [
    (["crawl", "--sim", "--max-pages", "30", "--json", "--threads", "100000"], "--threads",
     "MAX_THREADS"),
    (["bsp", "--sim", "--max-pages", "30", "--json", "--robots", "100000"], "--robots",
     "MAX_THREADS"),
    (["bsp", "--sim", "--max-pages", "30", "--json", "--procs", "100000"], "--procs",
     "MAX_PROCS"),
    (["crawl", "--sim", "--max-pages", "30", "--json", "--producers", "99999999999999999999"],
     "--producers", "MAX_THREADS"),
])
def test_threads_and_processes_have_a_limit(capsys, no_crawl, argv, flag, limit):
    """A crawl that would start a hundred thousand threads or processes is refused before it
    starts one."""
    import crawlers.args

    line = refused(capsys, argv, flag)
    assert f"at most {getattr(crawlers.args, limit)}" in line


@pytest.mark.parametrize("argv, flag, limit", [
    (["bsp", "--sim", "--json", "--R"], "--R", "MAX_R"),
    (["bsp", "--sim", "--json", "--max-pages"], "--max-pages", "MAX_PAGES"),
    (["bsp", "--sim", "--json", "--max-supersteps"], "--max-supersteps", "MAX_SUPERSTEPS"),
    (["bsp", "--sim", "--json", "--procs", "2", "--kill-worker", "1", "--kill-at"], "--kill-at",
     "MAX_SUPERSTEPS"),
    (["crawl", "--sim", "--json", "--max-pages"], "--max-pages", "MAX_PAGES"),
])
def test_budgets_and_supersteps_have_a_limit(capsys, no_crawl, argv, flag, limit):
    """These took any positive integer (a budget or an R of 10**20 went to the workers). The
    limit itself parses; one more is refused, naming the flag and the limit, before any work."""
    import crawlers.args
    from crawlers.cli.app import build_parser

    high = getattr(crawlers.args, limit)
    dest = "R" if flag == "--R" else flag[2:].replace("-", "_")
    assert getattr(build_parser().parse_args([*argv, str(high)]), dest) == high
    line = refused(capsys, [*argv, str(high + 1)], flag)
    assert f"at most {high}" in line


@pytest.mark.parametrize("argv, flag", [
    (["explore", "monitor", "--random", "--runs", "99999999999999", "--scenario",
      "lost-update"], "--runs"),
    (["explore", "monitor", "--random", "--seed", "99999999999999999999", "--runs", "1",
      "--scenario", "lost-update"], "--seed"),
    (["linearize", "monitor", "--runs", "99999999999999"], "--runs"),
    (["linearize", "monitor", "--seed", "99999999999999999999"], "--seed"),
    (["linearize", "monitor", "--seed", "-1"], "--seed"),
])
def test_searches_have_a_limit_on_runs_and_seeds(capsys, monkeypatch, argv, flag):
    import frontier.check.linearize as lin
    import frontier.check.pct as pct

    monkeypatch.setattr(pct, "search", _started)
    monkeypatch.setattr(lin, "record", _started)
    refused(capsys, argv, flag)


@pytest.mark.parametrize("lab", ["crawl-threads", "crawl-durability"])
def test_a_labs_runs_have_a_limit(capsys, lab):
    line = refused(capsys, ["lab", lab, "--runs", "99999999999999"], "--runs")
    assert "at most 1000000" in line


# -- the labs' own numbers: --capacity, --latency, --site-alpha, --repeats, --fit-up-to ----------

@pytest.fixture
def no_lab_work(monkeypatch):
    """The labs below fail the test where they would build a web, measure or probe an
    interpreter, instead of doing it."""
    import labs.lab_bsp_dynamic as bsp_dynamic
    import labs.lab_crawl_durability as crawl_durability
    import labs.lab_crawl_races as crawl_races
    import labs.lab_crawl_threads as crawl_threads
    import labs.lab_frontier_bench as frontier_bench
    import labs.lab_gil_side_by_side as gil_side_by_side
    import labs.lab_scaling as scaling

    for module in (crawl_races, crawl_durability, crawl_threads):
        monkeypatch.setattr(module, "make_web", _started)
    monkeypatch.setattr(frontier_bench, "measure", _started)
    monkeypatch.setattr(bsp_dynamic.webgen, "generate", _started)
    monkeypatch.setattr(scaling, "probe", _started)
    monkeypatch.setattr(gil_side_by_side, "probe", _started)


@pytest.mark.parametrize("lab", ["crawl-races", "frontier-bench"])
@pytest.mark.parametrize("value", ["99999999999999999999", str(MAX_CAPACITY + 1)])
def test_a_labs_capacity_has_a_limit(capsys, no_lab_work, tmp_path, lab, value):
    """A capacity past a C index overflowed, one past memory raised MemoryError: tracebacks."""
    line = refused(capsys, ["lab", lab, "--quick", "--out", str(tmp_path), "--capacity", value],
                   "--capacity")
    assert f"at most {MAX_CAPACITY}" in line


@pytest.mark.parametrize("lab, value", [
    ("bsp-dynamic", "inf"), ("bsp-dynamic", "nan"), ("bsp-dynamic", "-1"),
    ("bsp-dynamic", "1e308"),
    ("crawl-durability", "inf"), ("crawl-durability", "nan"), ("crawl-durability", "-1"),
    ("crawl-durability", "0"),
    ("crawl-threads", "inf"), ("crawl-threads", "nan"), ("crawl-threads", "-1"),
    ("crawl-threads", "0"),
])
def test_a_labs_latency_is_finite(capsys, no_lab_work, tmp_path, lab, value):
    """``inf`` overflowed a timestamp (a traceback) or crashed every worker; ``nan`` crawled
    with it in bsp-dynamic."""
    refused(capsys, ["lab", lab, "--quick", "--out", str(tmp_path), "--latency", value],
            "--latency")


@pytest.mark.parametrize("value", ["nan", "inf", "0", "1e308"])
def test_bsp_dynamic_site_alpha_is_finite(capsys, no_lab_work, tmp_path, value):
    """``nan`` reached numpy (its message named no flag); ``inf`` hung building the web."""
    refused(capsys, ["lab", "bsp-dynamic", "--quick", "--out", str(tmp_path),
                     "--site-alpha", value], "--site-alpha")


@pytest.mark.parametrize("lab", ["scaling", "gil-side-by-side"])
def test_gil_python_that_is_not_python(capsys, tmp_path, lab):
    """``/bin/true`` answers the probe with nothing: an IndexError traceback."""
    true = shutil.which("true")
    if true is None:
        pytest.skip("no true(1) on this machine")
    line = refused(capsys, ["lab", lab, "--quick", "--out", str(tmp_path), "--gil-python", true,
                            "--free-threaded-python", sys.executable], "--gil-python")
    assert "is not a Python interpreter" in line


@pytest.mark.parametrize("lab", ["scaling", "gil-side-by-side"])
def test_free_threaded_python_with_a_gil_names_its_flag(capsys, tmp_path, lab):
    """A GIL build given as the free-threaded one was refused without naming the flag."""
    import sysconfig

    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        pytest.skip("this interpreter is free-threaded: it is not a GIL build to give")
    line = refused(capsys, ["lab", lab, "--quick", "--out", str(tmp_path),
                            "--free-threaded-python", sys.executable], "--free-threaded-python")
    assert "is not a free-threaded build" in line


@pytest.mark.parametrize("lab, flag, limit", [
    ("crawl-races", "--reps", MAX_RUNS), ("crawl-durability", "--group", MAX_COMMIT_EVERY),
    ("crawl-parsers", "--mirrors", 1000), ("crawl-parsers", "--max-pages", MAX_PAGES),
    ("crawl-parsers", "--rounds", MAX_RUNS), ("pq-time", "--repeat", MAX_RUNS),
    ("bsp-speedup", "--repeats", MAX_RUNS),
])
def test_a_labs_counts_have_a_limit(capsys, monkeypatch, tmp_path, lab, flag, limit):
    """These counts took any positive integer: a run that never ends, or a port per mirror
    past what the machine has. Each is refused in parsing, before any work (the harness's
    first step after parsing fails the test instead of starting it)."""
    import labs.harness

    monkeypatch.setattr(labs.harness, "machine", _started)
    line = refused(capsys, ["lab", lab, "--quick", "--out", str(tmp_path), flag,
                            str(limit + 1)], flag)
    assert f"at most {limit}" in line


@pytest.mark.parametrize("flag, limit", [("--threads", MAX_THREADS), ("--max-pages", MAX_PAGES)])
def test_parse_ceiling_counts_have_a_limit(capsys, monkeypatch, tmp_path, flag, limit):
    import labs.lab_crawl_parsers
    from labs import parse_ceiling

    monkeypatch.setattr(labs.lab_crawl_parsers, "our_crawl", _started)

    with pytest.raises(SystemExit) as exit_:
        parse_ceiling.main(["--site-dir", str(tmp_path), "--seed", "http://127.0.0.1:1/",
                            flag, str(limit + 1)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and flag in err[0] and f"at most {limit}" in err[0]


@pytest.mark.parametrize("value", ["0", "1", "100000"])
def test_scaling_fit_up_to_is_never_replaced(capsys, no_lab_work, tmp_path, value):
    """``--fit-up-to 0`` was false, so the lab fitted its default instead, saying nothing."""
    refused(capsys, ["lab", "scaling", "--quick", "--out", str(tmp_path), "--fit-up-to", value],
            "--fit-up-to")


@pytest.mark.parametrize("lab", ["scaling", "gil-side-by-side"])
@pytest.mark.parametrize("value", ["0", "-1", "99999999999999999999"])
def test_a_labs_repeats_have_a_limit(capsys, no_lab_work, tmp_path, lab, value):
    refused(capsys, ["lab", lab, "--quick", "--out", str(tmp_path), "--repeats", value,
                     "--free-threaded-python", sys.executable], "--repeats")


@pytest.mark.parametrize("flag, value", [
    ("--max-pages", "0"), ("--max-pages", "99999999999999999999"), ("--concurrency", "0"),
    ("--concurrency", "-16"), ("--concurrency", "100000"),
])
def test_scrapy_helper_checks_its_numbers(capsys, monkeypatch, flag, value):
    """The parsers lab's Scrapy helper took any int (Scrapy with 0 or a negative concurrency)."""
    import labs.scrapy_crawl as scrapy_crawl

    monkeypatch.setattr(scrapy_crawl, "run", _started)
    argv = ["--seed", "http://a.example/", "--max-pages", "10", flag, value]
    with pytest.raises(SystemExit) as exc:
        scrapy_crawl.main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("python -m labs.scrapy_crawl: error:"), err
    assert flag in lines[0], lines[0]


@pytest.mark.parametrize("command", ["crawl", "bsp"])
@pytest.mark.parametrize("flag", ["--robots-retries", "--max-retries"])
def test_retry_counts_have_a_limit(capsys, no_crawl, command, flag):
    """Each retry waits (robots.txt asked again after --robots-unreachable-seconds, a URL
    after its Retry-After): a count without bound kept a crawl of a dead site alive for ever.
    1000 is allowed; one more is refused, naming the flag."""
    from crawlers.args import MAX_RETRIES

    line = refused(capsys, [command, "--seed-url", "http://127.0.0.1:9/", flag,
                            str(MAX_RETRIES + 1)], flag)
    assert f"at most {MAX_RETRIES}" in line


def test_crawl_parsers_mirrors_from_max_pages_have_the_same_limit(capsys, monkeypatch, tmp_path):
    """Without --mirrors the lab serves enough mirrors for --max-pages: on a small site a large
    --max-pages asked for millions of sites (1.5 GB, then "server did not start"). The derived
    count has the limit of --mirrors, said before anything is served."""
    import labs.lab_crawl_parsers

    monkeypatch.setattr(labs.lab_crawl_parsers, "WebServer", _started)
    site = tmp_path / "site"
    site.mkdir()
    for name in ("index.html", "a.html"):
        (site / name).write_text("<a href='a.html'>a</a>")
    line = refused(capsys, ["lab", "crawl-parsers", "--quick", "--only-ceiling", "--out",
                            str(tmp_path / "out"), "--site-dir", str(site), "--max-pages",
                            "5000000"], "--max-pages")
    assert "more than 1000" in line
