"""Files a command reads back are bounded: an edge list (``crawlab partition --graph``), a
journal's ``started.log`` and a resumed crawl's ``--out`` files are refused past their byte
limit in one line naming the file and the limit (exit 2), before they are read or rewritten;
a partition file's numbers are ASCII digits, checked before ``int()``; a BSP journal folder's
started logs are checked before its crawl begins."""

from __future__ import annotations

import os

import pytest

from crawlers.cli import main
from crawlers.crawl import journal as crawl_journal
from crawlers.crawl import output as crawl_output
from crawlers.partition.assignment import PartitionFileError, read_partition_file
from crawlers.partition.hypergraph import read_graph

WEB = ["crawl", "--sim", "--pages", "50", "--sites", "2", "--latency", "0", "--json"]
EDGES = ("http://a.example/1 http://b.example/1\n"
         "http://b.example/1 http://c.example/1\n"
         "http://c.example/1 http://a.example/1\n")


def refused(capsys, argv: list[str], *words: str) -> str:
    """``argv`` exits 2 with one line on stderr holding every word; that line."""
    status = main(argv)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert out == ""
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def sparse(path, size: int) -> None:
    with open(path, "ab") as f:
        f.truncate(size)


# -- 1. the graph file ----------------------------------------------------------------------------

def test_a_graph_over_the_byte_limit_is_refused_before_it_is_read(capsys, tmp_path):
    graph = tmp_path / "sparse"
    sparse(graph, 256 * 2**20 + 1)
    refused(capsys, ["partition", "--graph", str(graph), "--parts", "2"],
            str(graph), "268,435,457 bytes", "268,435,456")


def test_a_graph_line_over_the_line_limit_is_refused_with_its_number(tmp_path):
    graph = tmp_path / "edges.txt"
    graph.write_text(EDGES + "http://a.example/" + "x" * 70_000 + " http://b.example/\n")
    with pytest.raises(ValueError, match=f"^{graph}:4: a line longer than 65,536 characters"):
        read_graph(graph)


def test_a_graph_within_its_limits_is_read(tmp_path):
    graph = tmp_path / "edges.txt"
    graph.write_text("# a comment\n\n" + EDGES)
    assert read_graph(graph).n_links == 3


# -- 2. started.log and the --out files of a resumed crawl ---------------------------------------

@pytest.fixture
def resumable(tmp_path, capsys):
    """A crawl journaled in ``state`` with its output in ``out``, stopped by its budget."""
    state, out = tmp_path / "state", tmp_path / "out"
    assert main([*WEB, "--max-pages", "10", "--state", str(state), "--out", str(out)]) == 0
    capsys.readouterr()
    return state, out


def test_a_started_log_over_its_limit_is_refused_on_resume(capsys, resumable, monkeypatch):
    state, _ = resumable
    log = state / "started.log"
    size = log.stat().st_size
    monkeypatch.setattr(crawl_journal, "MAX_STARTED_LOG_BYTES", size - 1, raising=False)
    refused(capsys, [*WEB, "--max-pages", "20", "--state", str(state)],
            str(log), f"{size:,} bytes", f"{size - 1:,}")
    assert log.stat().st_size == size  # no session began: nothing appended


def test_a_2gb_started_log_is_refused_before_a_byte_is_read(capsys, resumable):
    state, _ = resumable
    log = state / "started.log"
    sparse(log, 2 * 2**30)
    refused(capsys, [*WEB, "--max-pages", "20", "--state", str(state)],
            str(log), "2,147,483,648 bytes", "1,073,741,824")


def test_a_started_log_grown_behind_the_crawl_is_refused_at_the_count(tmp_path):
    """At the end of a session the log is read up to its size at opening plus what the
    session wrote: more was not written by this crawl."""
    j = crawl_journal.Journal(tmp_path)
    j.begin([("http://a/", 1.0)], threads=1)
    j.started("http://a/")
    assert j.refetched() == 0
    with open(tmp_path / "started.log", "ab") as f:
        f.write(b"9\thttp://a/\n")
    with pytest.raises(crawl_journal.JournalError, match="started.log: .* bytes or more"):
        j.refetched()
    j.close()


def test_a_2gb_edges_txt_is_refused_not_rewritten(capsys, resumable):
    state, out = resumable
    pages_before = (out / "pages.jsonl").read_bytes()
    sparse(out / "edges.txt", 2 * 2**30)
    refused(capsys, [*WEB, "--max-pages", "20", "--state", str(state), "--out", str(out)],
            str(out / "edges.txt"), "2,147,483,648 bytes", "1,073,741,824")
    assert (out / "edges.txt").stat().st_size == 2 * 2**30  # left as it was
    assert (out / "pages.jsonl").read_bytes() == pages_before
    assert not list(out.glob("*.resume"))


def test_an_output_line_over_the_line_limit_is_refused_with_its_number(tmp_path, monkeypatch):
    monkeypatch.setattr(crawl_output, "MAX_KEPT_LINE", 100, raising=False)
    edges = "http://a/1 http://a/2\n" + "http://a/1 http://a/" + "x" * 200 + "\n"
    (tmp_path / "edges.txt").write_text(edges)
    with pytest.raises(ValueError, match="edges.txt:2: a line of more than 100 bytes"):
        crawl_output.CrawlOutput(tmp_path, keep={"http://a/1"})
    assert (tmp_path / "edges.txt").read_text() == edges
    assert not list(tmp_path.glob("*.resume"))


# -- 3. partition files: ASCII digits ------------------------------------------------------------

@pytest.mark.parametrize("text, line", [
    ("site0.crawlab.test:80 0\nsite1.crawlab.test:80 \u00b2\n", 2),
    ("site0.crawlab.test:80 0\nsite1.crawlab.test:80 " + "1" * 5000 + "\n", 2),
    ("site0.crawlab.test:80 \u0661\n", 1),  # ARABIC-INDIC DIGIT ONE: int() would take it
    ("# crawlab partition: parts=" + "1" * 5000 + "\nsite0.crawlab.test:80 0\n", 1),
], ids=["superscript", "5000-digit-part", "arabic-digit", "5000-digit-parts"])
def test_a_part_that_is_not_ascii_digits_is_a_file_line_error(tmp_path, text, line):
    path = tmp_path / "sites.part"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PartitionFileError) as caught:
        read_partition_file(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:{line}: ") and "\n" not in message
    assert len(message) < 400  # a 5000-digit line is not echoed whole


def test_a_partition_file_of_ascii_parts_is_read(tmp_path):
    path = tmp_path / "sites.part"
    path.write_text("# crawlab partition: parts=3\nsite0.crawlab.test:80 2\n"
                    "site1.crawlab.test:80 0\n")
    table = read_partition_file(path)
    assert table.parts == 3 and table.table == {"site0.crawlab.test:80": 2,
                                                "site1.crawlab.test:80": 0}


# -- 3. a BSP journal folder's started logs ------------------------------------------------------

def test_a_bsp_started_log_over_its_limit_or_not_a_file_is_refused_before_the_crawl(tmp_path):
    from crawlers.bsp.journal import BspJournal, BspJournalError, check_journals

    for rank in (0, 1):
        journal = BspJournal(tmp_path, rank, session=1, identity="one crawl")
        journal.started([f"http://a.example/{rank}"])
        journal.close()
    check_journals(tmp_path, 2, "one crawl")  # as written: accepted
    sparse(tmp_path / "started-1.log", 2 * 2**30)
    with pytest.raises(BspJournalError, match="started-1.log: 2,147,483,648 bytes or more"):
        check_journals(tmp_path, 2, "one crawl")
    (tmp_path / "started-1.log").unlink()
    os.mkfifo(tmp_path / "started-0.log.fifo")
    (tmp_path / "started-0.log").unlink()
    (tmp_path / "started-0.log").symlink_to(tmp_path / "started-0.log.fifo")
    with pytest.raises(BspJournalError, match="started-0.log is not a regular file"):
        check_journals(tmp_path, 2, "one crawl")


def test_a_bsp_started_log_grown_past_its_limit_is_refused_at_the_count(tmp_path, monkeypatch):
    from crawlers.bsp import journal as bsp_journal

    journal = bsp_journal.BspJournal(tmp_path, 0, session=1)
    journal.started(["http://a.example/", "http://b.example/"])
    journal.close()
    assert bsp_journal.refetched(tmp_path, 1) == 0
    size = (tmp_path / "started-0.log").stat().st_size
    monkeypatch.setattr(bsp_journal, "MAX_STARTED_LOG_BYTES", size - 1)
    with pytest.raises(bsp_journal.BspJournalError, match=f"{size - 1:,} a journal's started"):
        bsp_journal.refetched(tmp_path, 1)
