"""``crawlab crawl`` flags that would mislead: a ``--state`` journal resumed with another web,
``--when-full`` on a frontier that is never full, empty paths, and folders made from the root.
Each is a one-line error naming the flag, exit 2, before anything is crawled or overwritten."""

from __future__ import annotations

import json
import sqlite3

import pytest

from crawlers.cli import main

WEB = ["--sim", "--pages", "200", "--sites", "4", "--latency", "0"]


def crawl(capsys, *argv: str, web: list[str] = WEB) -> tuple[int, str, str]:
    """Run ``crawlab crawl WEB ARGV --json``: the exit status, stdout and stderr."""
    try:
        status = main(["crawl", *web, "--json", *argv])
    except SystemExit as exc:  # argparse's error
        status = exc.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err


def refused(capsys, *argv: str, flag: str, web: list[str] = WEB) -> str:
    """Exit 2, one line on stderr naming ``flag``, nothing on stdout; returns the line."""
    status, out, err = crawl(capsys, *argv, web=web)
    lines = err.strip().splitlines()
    assert status == 2, err
    assert len(lines) == 1, err
    assert lines[0].startswith("crawlab crawl: error: ") and flag in lines[0], lines[0]
    assert out == ""
    return lines[0]


# -- 1. a journal resumed with another web ---------------------------------------------------

def test_a_journal_resumed_with_another_web_is_refused_naming_the_flags(capsys, tmp_path):
    state, out = str(tmp_path / "state"), tmp_path / "out"
    status, _, err = crawl(capsys, "--max-pages", "10", "--state", state, "--out", str(out))
    assert status == 0, err
    pages = (out / "pages.jsonl").read_bytes()
    line = refused(capsys, "--max-pages", "20", "--state", state, "--out", str(out),
                   "--seed", "7", flag="--state",
                   web=[("300" if x == "200" else x) for x in WEB])  # --pages 300
    assert "journal of another crawl" in line
    assert "--pages 200 then, 300 now" in line and "--seed 1 then, 7 now" in line
    assert "--sites" not in line and "--max-pages" not in line
    assert (out / "pages.jsonl").read_bytes() == pages  # the refused resume emptied nothing
    # the budget, the frontier and the threads may change: it resumes
    status, report, err = crawl(capsys, "--max-pages", "20", "--state", state,
                                "--frontier", "heap", "--threads", "2")
    assert status == 0, err
    report = json.loads(report)
    assert report["resumed"] == 10 and report["pages_fetched"] > 10


def test_a_journal_resumed_with_another_kind_of_web_is_refused(capsys, tmp_path):
    state = str(tmp_path / "state")
    assert crawl(capsys, "--max-pages", "5", "--state", state)[0] == 0
    try:
        status = main(["crawl", "--json", "--seed-url", "http://127.0.0.1:9/", "--politeness",
                       "0", "--max-pages", "5", "--state", state])
    except SystemExit as exc:
        status = exc.code
    lines = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(lines) == 1, lines
    assert "--sim given then, not given now" in lines[0]
    assert "--seed-url not given then, http://127.0.0.1:9/ now" in lines[0]


def test_an_old_journal_without_its_flags_resumes_with_a_note_and_records_them(capsys,
                                                                                tmp_path):
    state = tmp_path / "state"
    assert crawl(capsys, "--max-pages", "10", "--state", str(state))[0] == 0
    db = sqlite3.connect(state / "journal.sqlite")  # as an older crawlab left it
    db.execute("DELETE FROM meta WHERE key = 'crawl'")
    db.commit()
    db.close()
    status, report, err = crawl(capsys, "--max-pages", "20", "--state", str(state))
    assert status == 0, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("crawlab crawl: note: "), err
    assert "older crawlab" in lines[0] and str(state) in lines[0]
    assert json.loads(report)["resumed"] == 10
    # recorded from then on: another web is refused
    line = refused(capsys, "--max-pages", "30", "--state", str(state), "--seed", "3",
                   flag="--state")
    assert "--seed 1 then, 3 now" in line


# -- 2. --when-full on an unbounded frontier -------------------------------------------------

def test_when_full_on_an_unbounded_frontier_is_refused(capsys):
    line = refused(capsys, "--max-pages", "10", "--frontier", "lockfree", "--when-full", "drop",
                   flag="--when-full")
    assert "unbounded" in line
    assert crawl(capsys, "--max-pages", "10", "--frontier", "lockfree")[0] == 0
    assert crawl(capsys, "--max-pages", "10", "--when-full", "drop")[0] == 0  # bounded: acts


# -- 3. empty paths --------------------------------------------------------------------------

@pytest.mark.parametrize("flag", ["--timeline", "--out", "--state"])
def test_an_empty_path_is_refused(capsys, flag):
    line = refused(capsys, "--max-pages", "10", flag, "", flag=flag)
    assert "empty" in line


@pytest.mark.parametrize("name", ["", "."])
def test_a_timeline_that_names_a_folder_is_refused_before_the_crawl(capsys, tmp_path, name):
    line = refused(capsys, "--max-pages", "10", "--timeline", f"{tmp_path}/{name}",
                   flag="--timeline")
    assert "names a folder" in line


# -- 4. folders: the last one is made, never a chain from the root ---------------------------

@pytest.mark.parametrize("flag", ["--out", "--state"])
def test_a_chain_of_missing_folders_is_refused_and_not_made(capsys, tmp_path, flag):
    line = refused(capsys, "--max-pages", "10", flag, str(tmp_path / "a" / "b" / "c"),
                   flag=flag)
    assert f"no such folder {tmp_path / 'a' / 'b'}" in line
    assert not (tmp_path / "a").exists()


@pytest.mark.parametrize("flag", ["--out", "--state"])
def test_the_last_folder_is_made(capsys, tmp_path, flag):
    status, _, err = crawl(capsys, "--max-pages", "10", flag, str(tmp_path / "new"))
    assert status == 0, err
    assert (tmp_path / "new").is_dir() and any((tmp_path / "new").iterdir())


@pytest.mark.parametrize("flag", ["--out", "--state"])
def test_a_file_for_a_folder_is_refused_naming_the_flag(capsys, tmp_path, flag):
    path = tmp_path / "somefile"
    path.write_text("not a folder\n")
    line = refused(capsys, "--max-pages", "10", flag, str(path), flag=flag)
    assert "not a folder" in line
    assert path.read_text() == "not a folder\n"


@pytest.mark.parametrize("command", ["crawl", "bsp"])
@pytest.mark.parametrize("given", [["--latency", "0", "--jitter", "0.5"],
                                   ["--latency", "0.001", "--jitter", "0.5"]])
def test_a_jitter_larger_than_the_latency_is_refused(capsys, command, given):
    """With --latency 0 the jitter was dropped (a clock that never waits); above 0 its delays
    below 0 were cut at 0, and their mean was 125 times the latency asked for."""
    assert main([command, "--sim", "--pages", "40", "--sites", "2", *given]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--jitter" in err and "--latency" in err, err

