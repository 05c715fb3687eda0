"""Hostile files where a file is expected: a FIFO, a folder, a huge or damaged file.

Each is refused, never read for ever or whole: a served folder's FIFO or oversized file gets
403 and the server goes on answering; ``--reference`` and a lab's ``--from-csv`` / ``--replot``
CSV that is not a regular file, too large or not a whole table is one line on stderr, exit
status 2. A FIFO that the old code opened blocked for ever, so those cases run in a subprocess
with a timeout, or against a server whose socket has one, and unblock the FIFO afterwards.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import one_line as _one_line
from tests.helpers import raw_get
from tests.helpers import run_crawlab as _run

ROOT = Path(__file__).resolve().parent.parent
CRAWLAB = [sys.executable, "-m", "crawlers"]
BENCH_CSV = ROOT / "docs" / "results" / "frontier-bench" / "frontier-bench.csv"
WAIT = 60  # seconds a subprocess may take before the test calls it hung


def _crawlab(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    """``crawlab ARGV`` in a subprocess, killed (and the test failed) after :data:`WAIT` s."""
    return subprocess.run([*CRAWLAB, *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=WAIT, env={**os.environ, "MPLBACKEND": "Agg"})


def _unblock(fifo: Path) -> None:
    """Open ``fifo`` for writing and close it: a reader blocked in ``open`` (the old server)
    gets end of file, so its thread can stop. Nothing happens if no reader waits."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass  # ENXIO: no reader has it open


# -- 1. a served folder ------------------------------------------------------------------------


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    root.mkdir()
    (root / "index.html").write_text("<p>home</p>")
    return root


def test_a_fifo_in_a_served_folder_is_refused_and_the_server_goes_on(site):
    from crawlers.web.server import WebServer

    fifo = site / "f.html"
    os.mkfifo(fifo)
    with WebServer(dirs=[str(site)], mode="thread") as srv:
        try:
            status, body = raw_get(srv.ports[0], "/f.html", timeout=10)
            assert status == 403, body
            assert raw_get(srv.ports[0], "/index.html", timeout=10) == (200, b"<p>home</p>")
        finally:
            _unblock(fifo)  # the old server's loop thread sat in open(): let it stop


def test_a_file_over_the_cap_is_refused_not_cut_short(site, monkeypatch):
    from crawlers.web.httpd import DirectorySite
    from crawlers.web.server import WebServer

    monkeypatch.setattr(DirectorySite, "max_file_bytes", 1000, raising=False)
    (site / "big.html").write_bytes(b"b" * 1001)
    (site / "edge.html").write_bytes(b"e" * 1000)
    with WebServer(dirs=[str(site)], mode="thread") as srv:
        status, body = raw_get(srv.ports[0], "/big.html", timeout=10)
        assert status == 403 and b"bbbb" not in body
        assert raw_get(srv.ports[0], "/edge.html", timeout=10) == (200, b"e" * 1000)
        assert raw_get(srv.ports[0], "/index.html", timeout=10) == (200, b"<p>home</p>")


# -- 2. --reference ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_reference_that_is_not_a_regular_file_is_one_line(kind, tmp_path):
    path = tmp_path / "ref"
    os.mkfifo(path) if kind == "fifo" else path.mkdir()
    run = _crawlab("crawl", "--sim", "--pages", "20", "--sites", "2", "--latency", "0",
                   "--reference", str(path), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    assert f"--reference {path}: not a regular file" in _one_line(run.stderr)


def test_a_reference_over_the_cap_is_refused_before_the_crawl(tmp_path, capsys, monkeypatch):
    from crawlers.crawl import targets

    monkeypatch.setattr(targets, "MAX_REFERENCE_BYTES", 1000, raising=False)
    listed = tmp_path / "urls.txt"
    listed.write_text("".join(f"http://a.test/{i}\n" for i in range(200)))  # 3,490 bytes
    code, err = _run(["crawl", "--sim", "--pages", "20", "--sites", "2", "--latency", "0",
                      "--reference", str(listed), "--out", str(tmp_path / "out")], capsys)
    assert code == 2
    assert f"--reference {listed}: 3,490 bytes, more than" in _one_line(err)


# -- 3. a lab's CSV ----------------------------------------------------------------------------


def _bench_rows(n: int = 8) -> list[str]:
    """The header and ``n`` rows of the committed frontier-bench CSV, as lines."""
    return BENCH_CSV.read_text().splitlines(keepends=True)[: n + 1]


def _with_cell(lines: list[str], row: int, column: str, text: str) -> str:
    header = lines[0].rstrip("\n").split(",")
    cells = lines[row].split(",")
    cells[header.index(column)] = text
    return "".join([*lines[:row], ",".join(cells), *lines[row + 1:]])


def _damaged(kind: str) -> str:
    lines = _bench_rows()
    if kind == "truncated":
        return "".join(lines[:-1]) + lines[-1][:60] + "\n"
    if kind == "renamed column":
        return "".join(lines).replace("source,frontier,", "source,frontier_name,", 1)
    if kind == "field over csv's limit":
        return _with_cell(lines, 1, "note", "x" * 200_000)
    if kind == "1e309":
        return _with_cell(lines, 2, "threads", "1e309")
    if kind == "inf":
        return _with_cell(lines, 2, "pairs_per_second", "inf")
    if kind == "nan where integers":
        return _with_cell(lines, 2, "threads", "nan")
    if kind == "integer of 400 digits":
        return _with_cell(lines, 2, "threads", "9" * 400)
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["truncated", "renamed column", "field over csv's limit",
                                  "1e309", "inf", "nan where integers",
                                  "integer of 400 digits"])
def test_a_damaged_from_csv_is_one_line_naming_the_file(kind, tmp_path, capsys):
    path = tmp_path / "bench.csv"
    path.write_text(_damaged(kind))
    code, err = _run(["lab", "frontier-bench", "--from-csv", str(path), "--out",
                      str(tmp_path / "out")], capsys)
    assert code == 2, err
    assert str(path) in _one_line(err)


def test_a_from_csv_over_the_cap_is_refused_before_it_is_read(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("labs.harness.MAX_CSV_BYTES", 1000, raising=False)
    path = tmp_path / "bench.csv"
    path.write_text("".join(_bench_rows()))  # about 3 KB: a whole, good table
    code, err = _run(["lab", "frontier-bench", "--from-csv", str(path), "--out",
                      str(tmp_path / "out")], capsys)
    assert code == 2, err
    assert f"cannot read {path}: " in _one_line(err) and "more than" in err


@pytest.mark.parametrize("lab", ["frontier-bench", "gil-side-by-side"])
def test_a_fifo_as_from_csv_is_one_line_not_a_hang(tmp_path, lab):
    """gil-side-by-side read its --from-csv with a reader of its own, which hung too."""
    fifo = tmp_path / "bench.csv"
    os.mkfifo(fifo)
    run = _crawlab("lab", lab, "--from-csv", str(fifo), "--out",
                   str(tmp_path / "out"), cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    assert f"cannot read {fifo}: not a regular file" in _one_line(run.stderr)


def test_a_truncated_csv_under_replot_is_one_line(tmp_path, capsys):
    """--replot reads through the same reader: a replotting lab's CSV cut mid-row."""
    shutil.copytree(ROOT / "docs" / "results" / "pq-time", tmp_path / "pq-time")
    path = tmp_path / "pq-time" / "by-N.csv"
    text = path.read_text()
    path.write_text(text[: text.rindex("\n", 0, -1) + 30] + "\n")
    code, err = _run(["lab", "pq-time", "--replot", "--quick", "--no-plot", "--out",
                      str(tmp_path)], capsys)
    assert code == 2, err
    assert f"{path} line " in _one_line(err) and "truncated" in err


def test_every_committed_csv_still_reads():
    """The checks refuse no CSV a lab wrote (nan where not measured, empty cells ...)."""
    from labs.harness import Lab

    paths = sorted((ROOT / "docs" / "results").rglob("*.csv"))
    assert paths
    for path in paths:
        Lab.read_csv(Lab.__new__(Lab), path)  # raises LabError if it refused one
