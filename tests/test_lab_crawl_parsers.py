"""The crawl-parsers lab's comparison: rounds, per-round ratios, mirrors enough for the limit."""

from __future__ import annotations

import csv
import importlib.util
import math
import os
import subprocess
import sys

import pytest

from crawlers.cli import main as crawlab
from labs import lab_crawl_parsers as lab

HAVE_SCRAPY = importlib.util.find_spec("scrapy") is not None


def test_mirrors_are_enough_for_the_page_limit():
    assert lab.mirrors_for(400, 48) == 10  # 480 pages served, 20% to spare
    assert lab.mirrors_for(1000, 48) == 25
    assert lab.mirrors_for(10, 48) == 4  # never fewer than 4
    assert lab.mirrors_for(100, 0) == 120  # no file counted: one page per mirror


def test_spread_is_median_min_max():
    assert lab.spread([3.0, 2.5, 4.0]) == {"median": 3.0, "min": 2.5, "max": 4.0}
    assert lab.spread([2.0, 4.0]) == {"median": 3.0, "min": 2.0, "max": 4.0}
    assert all(math.isnan(v) for v in lab.spread([]).values())


@pytest.fixture()
def little_site(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text('<a href="a.html">a</a> <a href="b.html#x">b</a>')
    (site / "a.html").write_text('<a href="b.html">b</a>')
    (site / "b.html").write_text('<a href="index.html">home</a>')
    return site


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_every_round_crawls_at_1_and_16_threads_and_scrapy(little_site, tmp_path, capsys):
    out = tmp_path / "out"
    status = crawlab(["lab", "crawl-parsers", "--quick", "--site-dir", str(little_site),
                      "--mirrors", "2", "--max-pages", "5", "--rounds", "2", "--no-plot",
                      "--out", str(out)])
    assert status == 0
    printed = capsys.readouterr().out
    rows = _rows(out / "crawl-parsers" / "crawl-parsers.csv")
    lxml = [r for r in rows if r["parser"] == "lxml"]
    assert sorted((int(r["threads"]), int(r["round"])) for r in lxml) == [
        (1, 1), (1, 2), (2, 1), (4, 1), (8, 1), (16, 1), (16, 2)]
    assert all(int(r["pages"]) == 5 for r in lxml)
    assert sorted(int(r["threads"]) for r in rows if r["parser"] == "bs4") == [1, 2, 4, 8, 16]
    scrapy = [r for r in rows if r["parser"] == "scrapy"]
    if not HAVE_SCRAPY:
        assert scrapy == [] and "scrapy is not installed" in printed
        return
    assert sorted(int(r["round"]) for r in scrapy) == [1, 2]
    ratios = {int(r["round"]): float(r["vs_scrapy_same_round"]) for r in lxml
              if r["threads"] == "16"}
    by_round = {int(r["round"]): float(r["pages_per_s"]) for r in scrapy}
    for k, ratio in ratios.items():  # each 16-thread crawl against the Scrapy crawl of its round
        ours = next(float(r["pages_per_s"]) for r in lxml
                    if r["threads"] == "16" and int(r["round"]) == k)
        assert ratio == pytest.approx(ours / by_round[k], rel=1e-6)
    summary = _rows(out / "crawl-parsers" / "crawl-parsers-vs-scrapy.csv")[0]
    assert int(summary["rounds"]) == 2
    assert float(summary["ratio_median"]) == pytest.approx(sum(ratios.values()) / 2, rel=1e-6)
    assert float(summary["ratio_min"]) == pytest.approx(min(ratios.values()), rel=1e-6)
    assert "over 2 rounds" in printed


def test_zero_rounds_is_one_line_and_status_2(capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        crawlab(["lab", "crawl-parsers", "--rounds", "0", "--out", str(tmp_path)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--rounds: must be a positive integer" in err


def _ceiling_run(gil=True, **more):
    got = {"crawl_pages": 100, "crawl_errors": 0, "crawl_pages_per_s": 300.0,
           "crawl_cpu_user_s": 0.35, "crawl_cpu_sys_s": 0.05,  # 4 ms a page
           "one_thread_pages_per_s": 250.0, "ceiling_cpu_ms_per_page": 3.0,
           "parse_only_ms_per_page": 1.5, "python": "3.x", "free_threaded": not gil,
           "gil": gil}
    return {**got, **more}


def test_a_ceiling_row_gives_the_measured_ratio_and_the_bounds_of_cpu_seconds():
    row = lab.ceiling_row(_ceiling_run(), server_s=0.1, round_=1, load=0.5)
    assert row["ceiling_pages_per_s"] == 500.0  # twice one thread's rate
    assert row["of_ceiling"] == pytest.approx(0.6)
    assert row["server_cpu_ms_per_page"] == pytest.approx(1.0)
    # two cores of its own: 3 ms a page in the ceiling against 4 + 1 in the crawl
    assert row["cpu_of_ceiling"] == pytest.approx(3.0 / 5.0)
    # GIL on: 4 - 1.5 ms a page hold it, one core: 400 pages/s against the ceiling's 666.7
    assert row["gil_of_ceiling"] == pytest.approx(3.0 / 5.0)
    assert row["bound_of_ceiling"] == pytest.approx(0.6)
    free = lab.ceiling_row(_ceiling_run(gil=False), server_s=0.1, round_=1, load=0.5)
    assert math.isnan(free["gil_of_ceiling"]) and free["bound_of_ceiling"] == pytest.approx(0.6)
    idle = lab.ceiling_row(_ceiling_run(crawl_cpu_user_s=0.0, crawl_cpu_sys_s=0.0),
                           server_s=0.0, round_=1, load=0.5)
    assert math.isnan(idle["cpu_of_ceiling"])  # too short for the CPU clock: unknown, not 0


def test_the_ceiling_parses_the_pages_the_crawl_fetched(little_site):
    from labs.parse_ceiling import pages_of, parse_ceiling

    urls = ["http://127.0.0.1:1/index.html", "http://127.0.0.1:2/a.html",
            "http://127.0.0.1:1/missing.html", "http://127.0.0.1:2/"]
    pages = pages_of(urls, little_site)
    assert pages == [(urls[0], little_site / "index.html"), (urls[1], little_site / "a.html"),
                     (urls[3], little_site / "index.html")]
    got = parse_ceiling(pages)
    assert got["ceiling_pages"] == 3 and got["one_thread_pages_per_s"] > 0
    assert got["ceiling_cpu_ms_per_page"] >= 0 and got["parse_only_ms_per_page"] >= 0


def test_only_ceiling_writes_the_ceiling_csv_for_each_interpreter(little_site, tmp_path):
    out = tmp_path / "out"
    status = crawlab(["lab", "crawl-parsers", "--quick", "--only-ceiling", "--site-dir",
                      str(little_site), "--mirrors", "2", "--max-pages", "5", "--rounds", "2",
                      "--no-plot", "--out", str(out)])
    assert status == 0
    assert not (out / "crawl-parsers" / "crawl-parsers.csv").exists()
    rows = _rows(out / "crawl-parsers" / "crawl-ceiling.csv")
    assert [int(r["round"]) for r in rows] == [1, 2]
    assert all(int(r["pages"]) == 5 and int(r["threads"]) == 16 for r in rows)
    assert all(r["server_cpu_s"] not in ("", "nan") or not os.path.exists("/proc")
               for r in rows)
    # the share of the machine other processes took, read around each round (labs.othercpu)
    assert all(0.0 <= float(r["others_cpu_share"]) <= 1.0 or not os.path.exists("/proc/stat")
               for r in rows)


def test_a_missing_interpreter_is_one_line_and_status_2(little_site, tmp_path, capsys):
    status = crawlab(["lab", "crawl-parsers", "--quick", "--only-ceiling", "--site-dir",
                      str(little_site), "--mirrors", "2", "--max-pages", "5", "--rounds", "1",
                      "--interpreter", str(tmp_path / "nope"), "--out", str(tmp_path)])
    assert status == 2
    assert "not an executable file" in capsys.readouterr().err


def _few_files() -> None:
    """In the child before exec: at most 200 open files (``ulimit -n 200``)."""
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (200, 200))


def test_run_directly_a_served_web_that_cannot_start_is_one_line(little_site, tmp_path):
    """``python -m labs.lab_crawl_parsers`` ended in the ServerError's traceback (exit 1) where
    ``crawlab lab crawl-parsers`` says one line: 300 mirror sites cannot be served under
    ``ulimit -n 200``. Run directly, the lab says it in one line too, exit 2, before any
    crawl."""
    out = tmp_path / "out"
    run = subprocess.run(
        [sys.executable, "-m", "labs.lab_crawl_parsers", "--quick", "--only-ceiling",
         "--no-plot", "--site-dir", str(little_site), "--mirrors", "300", "--out", str(out)],
        capture_output=True, text=True, timeout=120, preexec_fn=_few_files)
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr and len(lines) == 1, run.stderr
    assert lines[0].startswith("crawlab lab crawl-parsers: error: the served web did not "
                               "start: a served web of 300 sites needs"), lines[0]
    assert "ulimit -n" in lines[0], lines[0]
    assert not (out / "crawl-parsers" / "crawl-ceiling.csv").exists()
