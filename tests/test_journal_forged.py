"""Forged crawl journals (``crawlab crawl --state DIR``): every value a resume reads from
``DIR/journal.sqlite`` and ``DIR/started.log`` is hostile until checked.

A forged journal is one line naming the file and exit status 2 (or :class:`JournalError`),
never a traceback, a hang, or a silent fresh start: the resume begins no session. A started log
that is not UTF-8 only counts re-fetches, so it never loses the crawl's report. A FIFO is only
ever opened by a child process with a timeout, so that a regression fails instead of hanging.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from crawlers.args import MAX_COMMIT_EVERY, MAX_THREADS
from crawlers.cli import main
from crawlers.crawl.journal import (
    DB,
    LOG,
    Journal,
    JournalError,
    count_refetched,
)

WEB = ["--sim", "--pages", "200", "--sites", "4", "--latency", "0"]
DEEP = "[" * 100_000 + "]" * 100_000  # JSON nested far deeper than the recursion limit


def crawl_argv(state, max_pages: int) -> list[str]:
    return ["crawl", *WEB, "--json", "--max-pages", str(max_pages), "--state", str(state)]


@pytest.fixture(scope="module")
def journal(tmp_path_factory):
    """A journal of a crawl stopped by its page budget (40 of 200 pages, more to resume)."""
    state = tmp_path_factory.mktemp("forged") / "state"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(crawl_argv(state, 40)) == 0
    return state


@pytest.fixture
def state(tmp_path, journal):
    """A copy of :func:`journal` to forge."""
    shutil.copytree(journal, tmp_path / "state")
    return tmp_path / "state"


def forge(state, *sql: str, params=()) -> None:
    with contextlib.closing(sqlite3.connect(state / DB)) as db, db:
        for statement in sql:
            db.execute(statement, params if "?" in statement else ())


def sessions(state) -> int:
    with contextlib.closing(sqlite3.connect(state / DB)) as db:
        return db.execute("SELECT count(*) FROM session").fetchone()[0]


def resume(capsys, state) -> tuple[int, str, str]:
    """Resume the crawl in-process: the exit status, stdout and stderr."""
    status = main(crawl_argv(state, 80))
    out, err = capsys.readouterr()
    return status, out, err


def assert_refused(capsys, state, named) -> str:
    """The resume is one line naming ``named``, exit 2, and begins no session."""
    before = sessions(state)
    status, out, err = resume(capsys, state)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1, err
    assert lines[0].startswith("crawlab crawl: error:") and str(named) in lines[0], err
    assert out == ""
    assert sessions(state) == before  # refused before any session began: no fresh start
    return lines[0]


# -- C1: the rows a resume reads ----------------------------------------------------------------

@pytest.mark.parametrize(("sql", "why"), [
    ("INSERT INTO url(url, priority) VALUES (NULL, 1.0)", "url is not text"),
    ("INSERT INTO url(url, priority, done) VALUES (NULL, 1.0, 1)", "url is not text"),
    ("INSERT INTO url(url, priority) VALUES (x'ff00', 1.0)", "url is not text"),
    ("INSERT INTO url(url, priority, done) VALUES (x'ff00', 1.0, 1)", "url is not text"),
    ("INSERT INTO url(url, priority) VALUES ('http://x/', 'abc')", "priority"),
    ("INSERT INTO url(url, priority) VALUES ('http://x/', x'00')", "priority"),
    ("INSERT INTO url(url, priority) VALUES ('http://x/', 9e999)", "priority"),
    ("INSERT INTO url(url, priority) VALUES ('http://x/', -9e999)", "priority"),
    ("UPDATE url SET done = 'yes' WHERE rowid = (SELECT min(rowid) FROM url)", "done flag"),
    ("UPDATE url SET done = 2 WHERE rowid = (SELECT min(rowid) FROM url)", "done flag"),
    ("UPDATE url SET done = 0.5 WHERE rowid = (SELECT min(rowid) FROM url)", "done flag"),
    ("UPDATE session SET threads = 9223372036854775807", "threads"),
    ("UPDATE session SET threads = 9e999, clean = 0", "threads"),
    ("UPDATE session SET threads = 0", "threads"),
    (f"UPDATE session SET threads = {MAX_THREADS + 1}", "threads"),
    ("UPDATE session SET threads = 'abc'", "threads"),
    ("UPDATE session SET commit_every = 9223372036854775807", "commit_every"),
    ("UPDATE session SET commit_every = -1", "commit_every"),
    ("UPDATE session SET clean = 'yes'", "clean flag"),
    # URLs no crawl writes: a resumed crawl fetched each (an adversarial reading)
    ("INSERT INTO url(url, priority) VALUES ('javascript:alert(1)', 1.0)", "http(s) URL"),
    ("INSERT INTO url(url, priority) VALUES ('', 1.0)", "http(s) URL"),
    ("INSERT INTO url(url, priority) VALUES ('http://', 1.0)", "http(s) URL"),
    ("INSERT INTO url(url, priority, done) VALUES ('file:///etc/passwd', 1.0, 1)", "http(s) URL"),
    ("INSERT INTO url(url, priority) VALUES ('http://x/a' || char(10) || 'b', 1.0)",
     "http(s) URL"),
    ("INSERT INTO url(url, priority) VALUES ('http://x/a b', 1.0)", "http(s) URL"),
    ("INSERT INTO url(url, priority) VALUES ('http://x/' || char(0), 1.0)", "http(s) URL"),
    # a URL of another web than the crawl's: the resumed crawl went there
    ("INSERT INTO url(url, priority) VALUES ('http://evil.test/', 1.0)", "outside the crawl"),
    ("INSERT INTO url(url, priority, done) VALUES ('http://evil.test/', 1.0, 1)",
     "outside the crawl"),
])
def test_a_forged_row_is_refused_in_one_line_naming_the_journal(capsys, state, sql, why):
    forge(state, sql)
    assert why in assert_refused(capsys, state, state / DB)


@pytest.mark.parametrize("sql", [
    "CREATE TRIGGER planted BEFORE UPDATE ON session BEGIN SELECT RAISE(ABORT, 'no'); END",
    "CREATE TRIGGER planted AFTER INSERT ON url BEGIN DELETE FROM url; END",
    "CREATE VIEW planted AS SELECT * FROM url",
], ids=["abort", "rewrite", "view"])
def test_a_journal_holding_a_trigger_or_view_is_refused_before_it_runs(capsys, state, sql):
    """A trigger runs its own SQL at the crawl's writes: RAISE(ABORT) failed the resume's
    close with a traceback (sqlite3.IntegrityError), after its pages; another could rewrite
    what the journal keeps. No crawl makes one: refused in one line before the resume."""
    forge(state, sql)
    assert "it holds a " in assert_refused(capsys, state, state / DB)


def test_a_journal_of_finite_numbers_and_flags_still_resumes(capsys, state):
    """What the checks accept: integer priorities (SQLite keeps 2 as 2.0), flags 0 and 1, a
    URL never linked to on a site of the crawl's web."""
    forge(state, "INSERT INTO url(url, priority) SELECT url || '?new', 2 FROM url LIMIT 1",
          f"UPDATE session SET threads = {MAX_THREADS}, commit_every = {MAX_COMMIT_EVERY}")
    status, out, err = resume(capsys, state)
    assert status == 0, err
    assert json.loads(out)["resumed"] == 40


# -- C2: meta records nested too deep to parse --------------------------------------------------

@pytest.mark.parametrize("key", ["seeds", "crawl"])
def test_a_meta_record_nested_too_deep_is_refused_in_one_line(capsys, state, key):
    forge(state, f"UPDATE meta SET value = ? WHERE key = '{key}'", params=(DEEP,))
    assert_refused(capsys, state, state / DB)


def test_a_crawl_record_nested_within_the_parser_s_reach_is_refused_too(capsys, state):
    """Parsed, but no flag's value is ever a nested list: showing it would recurse."""
    deep = "[" * 900 + "]" * 900
    forge(state, "UPDATE meta SET value = ? WHERE key = 'crawl'",
          params=('{"--sim": true, "--pages": ' + deep + "}",))
    assert "unreadable record of its crawl" in assert_refused(capsys, state, state / DB)


def test_a_forged_seed_with_a_newline_is_still_one_line(capsys, state):
    forge(state, "UPDATE meta SET value = ? WHERE key = 'seeds'",
          params=(json.dumps(["http://a/\nsecond line"]),))
    assert "journal of another crawl" in assert_refused(capsys, state, state / DB)


# -- C3: a journal that lost its seeds ----------------------------------------------------------

@pytest.mark.parametrize("also", [[], ["DELETE FROM url"], ["DELETE FROM session"]])
def test_a_journal_without_its_seeds_is_refused_not_started_afresh(capsys, state, also):
    forge(state, "DELETE FROM meta WHERE key = 'seeds'", *also)
    assert "no record of its seeds" in assert_refused(capsys, state, state / DB)


def test_a_journal_killed_before_its_first_session_still_starts_afresh(tmp_path):
    Journal(tmp_path).close()  # made, never begun: no seeds, no rows
    j = Journal(tmp_path)
    assert j.begin([("http://a/", 1.0)], threads=1) is None
    j.close()


# -- C4: the started log ------------------------------------------------------------------------

def test_a_started_log_that_is_a_directory_is_refused_in_one_line(capsys, state):
    (state / LOG).unlink()
    (state / LOG).mkdir()
    assert_refused(capsys, state, state / LOG)


def _resume_in_a_child(state) -> subprocess.CompletedProcess:
    """Resume in a child process, so that an open that blocks fails the test (timeout). On
    3.13t, lxml turns the GIL on with a warning (see tests/test_free_threaded.py): not ours."""
    quiet = "ignore:The global interpreter lock:RuntimeWarning"
    return subprocess.run([sys.executable, "-W", quiet, "-m", "crawlers", *crawl_argv(state, 80)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("reader", [False, True])
def test_a_started_log_that_is_a_fifo_is_refused_never_a_hang(state, reader):
    """Without a reader a blocking open would wait forever; with one, writes would fill the
    pipe and block. Either way: refused in one line."""
    (state / LOG).unlink()
    os.mkfifo(state / LOG)
    fd = os.open(state / LOG, os.O_RDONLY | os.O_NONBLOCK) if reader else -1
    try:
        out = _resume_in_a_child(state)
    finally:
        if fd >= 0:
            os.close(fd)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1, out.stderr
    assert str(state / LOG) in lines[0] and "not a regular file" in lines[0]
    assert out.stdout == ""


def test_a_started_log_that_is_not_utf8_keeps_the_report(capsys, state):
    """The log only counts re-fetches: undecodable lines are counted as bytes, and the resumed
    crawl ends with its report."""
    with open(state / LOG, "ab") as f:
        f.write(b"1\t\xff\xfe\n\xff\n9\t\xff\xfe\n")
    status, out, err = resume(capsys, state)
    assert status == 0 and "Traceback" not in err, err
    report = json.loads(out)
    assert report["resumed"] == 40
    assert report["refetched"] >= 1  # \xff\xfe, started in sessions 1 and 9


def test_count_refetched_compares_bytes_and_skips_what_is_not_a_file(tmp_path):
    (tmp_path / "a.log").write_bytes(b"1\t\xff\n2\t\xff\n1\thttp://a/\n2\thttp://a/\n3\t\xff")
    (tmp_path / "dir.log").mkdir()
    logs = [tmp_path / "a.log", tmp_path / "dir.log", tmp_path / "missing.log"]
    assert count_refetched(logs) == 2  # the torn last line is not counted


def test_count_refetched_of_a_fifo_is_no_hang(tmp_path):
    os.mkfifo(tmp_path / "fifo.log")
    code = ("import sys; from crawlers.crawl.journal import count_refetched; "
            "print(count_refetched([sys.argv[1]]))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "fifo.log")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout == "0\n", out.stderr


# -- what the journal writes, it reads back -----------------------------------------------------

def test_the_journal_never_writes_a_session_it_would_refuse(tmp_path):
    with pytest.raises(ValueError, match="commit_every"):
        Journal(tmp_path / "a", commit_every=MAX_COMMIT_EVERY + 1)
    j = Journal(tmp_path / "b")
    with pytest.raises(ValueError, match="threads"):
        j.begin([("http://a/", 1.0)], threads=MAX_THREADS + 1)
    j.close()
    with pytest.raises(JournalError) as refused:
        with sqlite3.connect(tmp_path / "b" / DB) as db:
            db.execute("INSERT INTO session(threads, commit_every) VALUES (0, 1)")
        db.close()
        Journal(tmp_path / "b")
    assert "session row" in str(refused.value)


def test_commit_every_beyond_what_a_journal_keeps_is_refused_as_the_flag(capsys, tmp_path):
    """The flag says its own limit (not a --state error from deeper down)."""
    argv = [*crawl_argv(tmp_path / "s", 10), "--commit-every", str(MAX_COMMIT_EVERY + 1)]
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--commit-every" in err and "at most" in err, err
