"""The command line: listings work, and bad input is one line on stderr with exit status 2."""

from __future__ import annotations

import subprocess
import sys

import pytest

import frontier
from crawlers.cli import main


def run(*args: str) -> subprocess.CompletedProcess:
    """``python -m crawlers ARGS`` in a subprocess (so exit codes and stderr are real)."""
    return subprocess.run(
        [sys.executable, "-m", "crawlers", *args], capture_output=True, text=True, timeout=120
    )


def test_frontiers_lists_every_name_with_a_description(capsys):
    assert main(["frontiers"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == frontier.names()
    assert "RACY" in out[frontier.names().index("unsynchronized")]


def test_lab_list_names_the_frontier_benchmark(capsys):
    assert main(["lab", "--list"]) == 0
    assert "frontier-bench" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["lab", "no-such-lab"], "unknown lab 'no-such-lab'; valid labs:"),
        (["lab", "frontier-bench", "--frontier", "nope"], "unknown frontier 'nope'; valid names:"),
        (["lab", "frontier-bench", "--capacity", "0"], "--capacity: must be a positive integer"),
        (["lab", "frontier-bench", "--capacity", "-4"], "--capacity: must be a positive integer"),
        (["lab", "frontier-bench", "--capacity", "ten"], "--capacity: not an integer: 'ten'"),
        (["lab", "frontier-bench", "--threads", "0"], "--threads: must be a positive integer"),
        (["lab", "frontier-bench", "--threads", "1025"], "--threads: must be at most 1024"),
        (["lab", "frontier-bench", "--rounds", "0"], "--rounds: must be a positive integer"),
        (["lab", "frontier-bench", "--rounds", "1001"], "--rounds: must be at most 1000"),
        (["lab", "frontier-bench", "--bogus"], "unrecognized arguments: --bogus"),
        (["lab", "crawl-parsers", "--mirrors", "0"], "--mirrors: must be a positive integer"),
        (["lab", "crawl-parsers", "--max-pages", "-3"], "--max-pages: must be a positive integer"),
        (["lab", "pq-time", "--repeat", "0"], "--repeat: must be a positive integer"),
        (["no-such-command"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message, tmp_path):
    result = run(*args, *(["--out", str(tmp_path)] if args[0] == "lab" and len(args) > 2 else []))
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert message in lines[0]
    assert "Traceback" not in result.stderr


def test_the_benchmark_runs_end_to_end(tmp_path):
    """A tiny run writes its CSV and PNG, and the baseline ratio column is there."""
    result = run(
        "lab", "frontier-bench", "--quick", "--out", str(tmp_path),
        "--frontier", "monitor", "--threads", "1", "--threads", "2",
    )
    assert result.returncode == 0, result.stderr
    csv = (tmp_path / "frontier-bench" / "frontier-bench.csv").read_text()
    assert "ratio_vs_queue" in csv and "machine_gil" in csv
    assert (tmp_path / "frontier-bench" / "frontier-bench.png").stat().st_size > 10_000
    assert "monitor" in result.stdout and "queue.SimpleQueue" in result.stdout


def test_a_reader_that_goes_away_ends_the_command_without_a_traceback():
    """``crawlab crawl --json | head -c 0``: the report's write fails with a broken pipe; the
    command ends as a process killed by SIGPIPE would (141), and says nothing more. The pipe's
    reading end is closed before the command starts, so every write fails, whatever the
    timing."""
    import os

    reader, writer = os.pipe()
    os.close(reader)
    try:
        done = subprocess.run([sys.executable, "-m", "crawlers", "crawl", "--sim",
                               "--max-pages", "20", "--latency", "0", "--json"],
                              stdout=writer, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(writer)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr


def test_a_file_to_write_that_is_a_folder_is_one_line_and_exit_2(tmp_path):
    """The crawl's timeline file is a folder: one line naming it, exit 2, before the crawl
    (no report: nothing was crawled). It ended in an IsADirectoryError traceback (found by an
    adversarial reading; so did explore's trace and the crawl's summary.json), then was found
    only after the crawl, and the report was lost with it (a later reading)."""
    (tmp_path / "t.json").mkdir()
    result = run("crawl", "--sim", "--pages", "100", "--json", "--timeline",
                 str(tmp_path / "t"))
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "t.json is there and is not a file" in lines[0], result.stderr
    assert result.stdout == ""  # refused before the crawl
