"""A resumed ``crawlab crawl --state DIR --out OUT`` keeps its earlier sessions' pages in OUT.

A crawl never loses what it already fetched: the journal keeps which pages were fetched, and
the output folder keeps their lines. A resume keeps the lines of every page the journal holds
as fetched, drops the lines of pages it does not (fetched by a session that died before their
commit, so fetched again) and a line cut short by a kill, and appends: each page once."""

from __future__ import annotations

import json
import sqlite3

import pytest

from crawlers.cli import main
from crawlers.crawl.output import CrawlOutput

WEB = ["--sim", "--pages", "200", "--sites", "4", "--latency", "0"]


def crawl(capsys, *argv: str) -> tuple[int, str]:
    """Run ``crawlab crawl WEB ARGV --json``: the exit status and stderr."""
    status = main(["crawl", *WEB, "--json", *argv])
    _, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, err


def pages(out) -> list[str]:
    return [json.loads(line)["url"] for line in (out / "pages.jsonl").read_text().splitlines()]


def done(state) -> set[str]:
    with sqlite3.connect(state / "journal.sqlite") as db:
        return {u for (u,) in db.execute("SELECT url FROM url WHERE done")}


def test_a_resumed_crawl_keeps_the_pages_of_its_earlier_session(capsys, tmp_path):
    state, out = tmp_path / "state", tmp_path / "out"
    assert crawl(capsys, "--max-pages", "10", "--state", str(state), "--out", str(out))[0] == 0
    first, first_edges = pages(out), (out / "edges.txt").read_text().splitlines()
    assert len(first) == 10
    status, err = crawl(capsys, "--max-pages", "20", "--state", str(state), "--out", str(out))
    assert status == 0 and "note" not in err, err
    now = pages(out)
    assert now[:10] == first  # the earlier session's lines first, untouched
    assert len(now) == len(set(now)) == len(done(state)) > 10  # each fetched page once
    edges = (out / "edges.txt").read_text().splitlines()
    assert edges[:len(first_edges)] == first_edges
    assert {e.split(" ")[0] for e in edges} <= set(now)


def test_an_out_folder_without_the_earlier_pages_is_said(capsys, tmp_path):
    """The first session wrote no output: the resumed one says how many of the fetched pages
    its folder holds, and where all of them are."""
    state, out = tmp_path / "state", tmp_path / "out"
    assert crawl(capsys, "--max-pages", "10", "--state", str(state))[0] == 0
    status, err = crawl(capsys, "--max-pages", "5", "--state", str(state), "--out", str(out))
    assert status == 0
    assert f"{out} holds 0 of the 10 pages fetched in earlier sessions" in err
    assert f"the journal in {state} holds them all" in err


def test_lines_of_pages_the_journal_does_not_hold_are_dropped(tmp_path):
    """What a killed session left: lines of a committed page (kept), of a page whose commit
    never came (dropped: it is fetched again), and a line cut short (dropped); new lines are
    appended after the kept ones."""
    (tmp_path / "pages.jsonl").write_text(
        '{"url":"http://a/1","status":200}\n{"url":"http://a/2","status":200}\n{"url":"htt')
    (tmp_path / "edges.txt").write_text(
        "http://a/1 http://a/2\nhttp://a/1 http://a/3\nhttp://a/2 http://a/4\nhttp://a/1 http")
    sink = CrawlOutput(tmp_path, keep={"http://a/1"})
    sink.edges("http://a/2", ["http://a/5"])
    sink.close()
    assert sink.kept == 1
    assert (tmp_path / "pages.jsonl").read_text() == '{"url":"http://a/1","status":200}\n'
    assert (tmp_path / "edges.txt").read_text() == (
        "http://a/1 http://a/2\nhttp://a/1 http://a/3\nhttp://a/2 http://a/5\n")
    assert not list(tmp_path.glob("*.resume"))


def test_a_fresh_crawl_starts_its_folder_afresh(tmp_path):
    (tmp_path / "pages.jsonl").write_text('{"url":"http://a/1"}\n')
    CrawlOutput(tmp_path).close()
    assert (tmp_path / "pages.jsonl").read_text() == ""


# -- the served web: a --state crawl serves on ports a resume can serve on again -------------

SERVED = ["--pages", "200", "--sites", "3", "--latency", "0"]


def served(capsys, *argv: str) -> tuple[int, dict, str]:
    """``crawlab crawl SERVED ARGV --json`` (the default, served web): status, report, stderr."""
    status = main(["crawl", *SERVED, "--json", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, json.loads(out) if status == 0 else {}, err


def test_a_crawl_of_the_served_web_resumes_on_the_ports_its_journal_names(capsys, tmp_path):
    state, out = tmp_path / "state", tmp_path / "out"
    status, first, err = served(capsys, "--max-pages", "20", "--state", str(state),
                                "--out", str(out))
    assert status == 0, err
    seeds = json.loads(sqlite3.connect(state / "journal.sqlite").execute(
        "SELECT value FROM meta WHERE key='seeds'").fetchone()[0])
    status, report, err = served(capsys, "--state", str(state), "--out", str(out))
    assert status == 0, err
    assert report["resumed"] == 20 and report["unique_pages"] == 200
    assert sorted(pages(out)) == sorted(done(state)) and len(done(state)) == 200
    assert {u.split("/")[2] for u in pages(out)} == {s.split("/")[2] for s in seeds}


def test_a_resume_whose_ports_are_taken_is_refused_naming_them(capsys, tmp_path):
    import socket

    state = tmp_path / "state"
    assert served(capsys, "--max-pages", "5", "--state", str(state))[0] == 0
    seeds = json.loads(sqlite3.connect(state / "journal.sqlite").execute(
        "SELECT value FROM meta WHERE key='seeds'").fetchone()[0])
    base = int(seeds[0].split(":")[2].split("/")[0])
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", base + 1))
        status, _, err = served(capsys, "--state", str(state))
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert f"port {base + 1}, one of the ports {base}-{base + 2}" in err and "in use" in err
    assert "--state" in err


def test_a_journal_of_ports_that_cannot_be_served_again_is_refused(capsys, tmp_path):
    """A journal whose seed URLs name scattered ports (an older crawlab served on any free
    ports) cannot resume: one line says so, instead of 'another crawl'."""
    state = tmp_path / "state"
    assert served(capsys, "--max-pages", "5", "--state", str(state))[0] == 0
    with sqlite3.connect(state / "journal.sqlite") as db:
        db.execute("UPDATE meta SET value=? WHERE key='seeds'", (json.dumps(
            [f"http://127.0.0.1:{p}/p0.html" for p in (40001, 40007, 40003)]),))
    status, _, err = served(capsys, "--state", str(state))
    assert status == 2 and "name ports the served web cannot bind again" in err, err


def test_ports_in_time_wait_are_free_to_the_server():
    """A port whose closed connection waits in TIME-WAIT is free to a server that binds with
    SO_REUSEADDR, as the served web does: a resume right after a crawl is not refused."""
    import socket

    from crawlers.web.server import first_taken

    with socket.socket() as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        conn, _ = server.accept()
        conn.close()  # the server's side closes first: its end waits in TIME-WAIT
        client.close()
    assert first_taken(port, 1) is None
    with socket.socket() as holder:
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        holder.bind(("127.0.0.1", port))
        holder.listen()
        assert first_taken(port - 1, 3) in (port - 1, port)


@pytest.mark.parametrize("seeds, said", [
    ("[1, 2, 3]", "its seeds are not a list of URLs"),
    ("null", "its seeds are not a list of URLs"),
    ("not json", "its seeds are not a list of URLs"),
    ('["http://127.0.0.1:70000/p0.html"]', "journal of another crawl"),
    ('["http://site0.example/p0.html"]', "journal of another crawl"),
])
def test_hand_edited_seeds_are_one_line(capsys, tmp_path, seeds, said):
    state = tmp_path / "state"
    assert served(capsys, "--max-pages", "5", "--state", str(state))[0] == 0
    with sqlite3.connect(state / "journal.sqlite") as db:
        db.execute("UPDATE meta SET value=? WHERE key='seeds'", (seeds,))
    status, _, err = served(capsys, "--state", str(state))
    assert status == 2 and len(err.strip().splitlines()) == 1 and said in err, err


def test_many_sites_fit_on_consecutive_ports_or_are_refused(monkeypatch):
    """Bases are drawn so that every port fits below 65536 (the machine's ports are not asked:
    which of 12000 ports are free here is not this test's business)."""
    import random

    import crawlers.web.server as server
    from crawlers.web.server import ServerError, free_port_base

    monkeypatch.setattr(server, "first_taken", lambda base, n: None)
    bases = [free_port_base(12000, rng=random.Random(i)) for i in range(200)]
    assert all(20000 <= b <= 65536 - 12000 for b in bases)
    with pytest.raises(ServerError, match="do not fit"):
        free_port_base(50000)


def test_odd_lines_and_files_of_an_earlier_session(tmp_path):
    """A record whose url is not a string, JSON nested past the recursion limit and a page
    twice keep nothing odd and the page once; a file that is not a regular file is refused;
    a symbolic link keeps pointing where it did, at the rewritten file."""
    out = tmp_path / "out"
    out.mkdir()
    real = tmp_path / "real.jsonl"
    real.write_text('{"url":["x"]}\n{"url":{}}\n' + "[" * 200_000 + "\n"
                    + '{"url":"http://a/1"}\n{"url":"http://a/1"}\n')
    (out / "pages.jsonl").symlink_to(real)
    sink = CrawlOutput(out, keep={"http://a/1"})
    sink.close()
    assert sink.kept == 1 and real.read_text() == '{"url":"http://a/1"}\n'
    assert (out / "pages.jsonl").is_symlink()
    odd = tmp_path / "odd"
    odd.mkdir()
    (odd / "pages.jsonl").symlink_to("/dev/null")
    with pytest.raises(ValueError, match="is not a regular file"):
        CrawlOutput(odd, keep=set())


@pytest.mark.parametrize("command", ["crawl", "bsp"])
@pytest.mark.parametrize("name", ["pages.jsonl", "edges.txt", "summary.json"])
def test_an_output_file_that_is_a_fifo_is_refused_not_waited_on(command, name, tmp_path):
    """Opening a FIFO for writing waits for a reader: the crawl hung at its start (or, for
    summary.json, at its end, after the crawl). Refused at once instead: one line, exit 2.
    Run as a process with a bound, so that the old hang fails the test, not CI."""
    import os
    import subprocess
    import sys

    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / name)
    web = WEB if command == "crawl" else ["--sim", "--pages", "200", "--procs", "2"]
    try:
        done_ = subprocess.run([sys.executable, "-m", "crawlers", command, *web, "--max-pages",
                                "10", "--out", str(out)], capture_output=True, text=True,
                               timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"crawlab {command} waited on the FIFO {name}")
    assert done_.returncode == 2, done_.stderr
    lines = done_.stderr.strip().splitlines()
    assert "Traceback" not in done_.stderr
    assert lines[-1].startswith(f"crawlab {command}: error: ") and "not a regular file" in lines[-1]


def test_a_fifo_put_at_summary_json_during_the_crawl_is_replaced_not_waited_on(tmp_path):
    """summary.json is written at the end: a FIFO made there meanwhile was opened and waited
    on for ever. It is written beside and renamed over the name now. Bounded join."""
    import os
    import threading

    sink = CrawlOutput(tmp_path)
    os.mkfifo(tmp_path / "summary.json")
    closing = threading.Thread(target=sink.close, args=({"pages": 0},), daemon=True)
    closing.start()
    closing.join(timeout=30)
    assert not closing.is_alive(), "close() waited on the FIFO"
    assert (tmp_path / "summary.json").is_file()
    assert json.loads((tmp_path / "summary.json").read_text()) == {"pages": 0}
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".summary-")] == []
