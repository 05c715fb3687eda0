"""BSP under MPI with ``--state DIR``: a rank killed mid-crawl ends the job with one line that
names it and the journals; ``--resume DIR`` finishes the crawl with no page lost and at most one
superstep re-fetched, counted by a server that knows nothing of the crawler."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.countserver import CountingWeb

pytestmark = pytest.mark.skipif(not (Path(sys.executable).parent / "mpiexec").exists(),
                                reason="no mpiexec next to the interpreter (the mpi extra)")

PAGES, SITES, R, PROCS = 240, 4, 8, 2


def bsp_cmd(web: CountingWeb, *flags: str, r: int = R) -> list[str]:
    cmd = [sys.executable, "-m", "crawlers", "bsp", "--backend", "mpi", "--procs", str(PROCS),
           "--robots", "2", "--R", str(r), "--frontier", "monitor", "--politeness", "0.001",
           "--timeout", "60", *flags]
    for s in web.seeds:
        cmd += ["--seed-url", s]
    return cmd


def run(cmd: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=cwd)


def resume(state: Path) -> dict:
    out = run([sys.executable, "-m", "crawlers", "bsp", "--backend", "mpi", "--resume",
               str(state), "--json"])
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def said_who_died(died: subprocess.CompletedProcess, rank: int, at: int, state: Path) -> None:
    """The killed ``rank`` is named with its superstep ``at``, or, when every rank ended
    badly (Hydra reaped the dead rank first and SIGKILLed the others uncounted), listed with
    the others and none named (tests/test_bsp_launcher.py); never another rank named."""
    assert died.returncode == 1, died.stderr
    said = died.stderr.strip().splitlines()[-1]
    assert said.startswith("crawlab bsp: error: ") and f"--resume {state}" in said
    if "and mpiexec ended the others" in said:
        assert f"rank {rank} killed by SIGKILL" in said and " died (" not in said
    else:
        assert said.startswith(f"crawlab bsp: error: MPI rank {rank} died (killed by SIGKILL")
        assert f"in superstep {at}" in said


@pytest.mark.parametrize("rank, at", [(1, 3), (0, 5), (1, 0)])
def test_a_killed_rank_is_named_and_the_resumed_crawl_loses_nothing(tmp_path, rank, at):
    state, out = tmp_path / "state", tmp_path / "out"
    with CountingWeb(pages=PAGES, sites=SITES, seed=rank + at) as web:
        died = run(bsp_cmd(web, "--state", str(state), "--out", str(out),
                           "--kill-worker", str(rank), "--kill-at", str(at)))
        assert died.returncode == 1, died.stderr
        said_who_died(died, rank, at, state)
        assert "Traceback" not in died.stderr and "BAD TERMINATION" not in died.stderr
        before = web.counts
        report = resume(state)
        counts = web.counts
    # no page lost: every page of the web fetched, each once in the crawl's own output
    assert set(counts) == web.urls
    assert report["unique_pages"] == report["pages_fetched"] == PAGES
    pages = [json.loads(line)["url"] for line in open(out / "pages.jsonl")]
    assert len(pages) == len(set(pages)) == PAGES
    # re-fetches, as the server counted them, within one superstep of every rank
    assert set(before.values()) <= {1} and set(counts.values()) <= {1, 2}
    again = {u for u in before if counts[u] == 2}
    extra = sum(n - 1 for n in counts.values())
    assert extra == len(again)  # only pages of the killed session were fetched twice
    assert report["refetch_bound"] == PROCS * R
    assert extra <= report["refetched"] <= report["refetch_bound"], (extra, report["refetched"])
    # resumed: the pages of the snapshot, which are those the killed session fetched and the
    # resumed one did not fetch again
    assert report["resumed"] == len(before) - len(again)
    assert report["stopped_by"] == "exhausted"
    assert report["coverage_basis"] == "discovered" and report["coverage"] == 1.0


def test_two_kills_then_resume_lose_nothing_and_stay_within_two_supersteps(tmp_path):
    """Killed, started again with the same --state (it resumes) and killed again, then
    resumed: two restarts, so the re-fetch bound is two supersteps of every rank."""
    state, out = tmp_path / "state", tmp_path / "out"
    with CountingWeb(pages=PAGES, sites=SITES, seed=11) as web:
        for rank, at in ((1, 2), (0, 7)):
            died = run(bsp_cmd(web, "--state", str(state), "--out", str(out),
                               "--kill-worker", str(rank), "--kill-at", str(at)))
            said_who_died(died, rank, at, state)
        report = resume(state)
        counts = web.counts
    assert set(counts) == web.urls
    assert report["unique_pages"] == report["pages_fetched"] == PAGES
    pages = [json.loads(line)["url"] for line in open(out / "pages.jsonl")]
    assert len(pages) == len(set(pages)) == PAGES
    extra = sum(n - 1 for n in counts.values())
    assert report["refetch_bound"] == 2 * PROCS * R
    assert extra <= report["refetched"] <= report["refetch_bound"], (extra, report["refetched"])
    assert report["stopped_by"] == "exhausted"


def test_an_uninterrupted_journaled_crawl_and_a_rerun_fetch_each_page_once(tmp_path):
    state = tmp_path / "state"
    with CountingWeb(pages=PAGES, sites=SITES) as web:
        first = run(bsp_cmd(web, "--state", str(state), "--json"))
        assert first.returncode == 0, first.stderr
        report = json.loads(first.stdout)
        assert report["refetched"] == 0 and report["refetch_bound"] == 0
        assert set(web.counts) == web.urls and set(web.counts.values()) == {1}
        again = resume(state)  # a finished crawl resumes with nothing left to fetch
        assert set(web.counts.values()) == {1}
    assert again["resumed"] == again["unique_pages"] == PAGES


@pytest.mark.timeout(300)  # two crawls of up to 120 s each: their own timeouts fire first
def test_real_site_coverage_under_mpi_is_against_every_url_some_rank_reached():
    """The ranks own disjoint URLs, so the sum of what each claimed is every URL the crawl
    reached: the processes backend's coordinator, which sees every message, counts the same."""
    with CountingWeb(pages=PAGES, sites=SITES) as web:
        flags = ["--max-pages", "60", "--json"]
        mpi = run([str(Path(sys.executable).parent / "mpiexec"), "-n", str(PROCS),
                   *bsp_cmd(web, *flags)])
        procs = run([c if c != "mpi" else "processes" for c in bsp_cmd(web, *flags)])
    assert mpi.returncode == 0 and procs.returncode == 0, (mpi.stderr, procs.stderr)
    m, p = json.loads(mpi.stdout), json.loads(procs.stdout)
    assert m["backend"] == "mpi" and p["backend"] == "processes"
    assert m["coverage_basis"] == p["coverage_basis"] == "discovered"
    assert m["unique_pages"] == p["unique_pages"] == 60
    assert m["coverage"] == pytest.approx(p["coverage"]) and 0 < m["coverage"] < 1


def _bad(cmd: list[str], message: str, cwd: Path | None = None) -> None:
    out = run(cmd, cwd)
    assert out.returncode == 2, out.stderr
    err = out.stderr.strip().splitlines()
    assert err and err[-1].startswith("crawlab bsp: error: ") and message in err[-1], out.stderr
    assert "Traceback" not in out.stderr


def test_bad_journals_and_flags_are_one_line_and_exit_2(tmp_path):
    state = tmp_path / "state"
    with CountingWeb(pages=60, sites=2) as web:
        died = run(bsp_cmd(web, "--state", str(state), "--kill-worker", "1", "--kill-at", "2"))
        assert died.returncode == 1, died.stderr
        # another crawl's flags on the same journal
        _bad(bsp_cmd(web, "--state", str(state), r=3), "another crawl")
        # a started log grown past what is read back (sparse: no byte of it written)
        log = state / "started-0.log"
        kept = log.read_bytes()
        with open(log, "ab") as f:
            f.truncate(2 * 2**30)
        _bad([sys.executable, "-m", "crawlers", "bsp", "--resume", str(state)],
             f"{log}: 2,147,483,648 bytes or more")
        log.write_bytes(kept)
        # --resume takes no other flags
        _bad([sys.executable, "-m", "crawlers", "bsp", "--resume", str(state), "--R", "4"],
             "give no other flags")
        # a journal overwritten with garbage
        (state / "rank-1.sqlite").write_bytes(b"not a database" * 100)
        for wal in state.glob("rank-1.sqlite-*"):
            wal.unlink()
        _bad([sys.executable, "-m", "crawlers", "bsp", "--resume", str(state)], "rank-1.sqlite")
        # a directory with no crawl in it
        _bad([sys.executable, "-m", "crawlers", "bsp", "--resume", str(tmp_path)],
             "no BSP crawl to resume")
    # --state with the processes backend
    _bad([sys.executable, "-m", "crawlers", "bsp", "--sim", "--pages", "50", "--state",
          str(tmp_path / "s2")], "--backend mpi")


def test_a_snapshot_is_a_consistent_cut_every_rank_can_resume_from(tmp_path):
    """The journals keep two snapshots each and agree on the newest common one."""
    from crawlers.bsp.journal import BspJournal, common_superstep

    for rank, upto in ((0, 5), (1, 4)):  # rank 0 one barrier ahead of rank 1
        j = BspJournal(tmp_path, rank, session=1)
        for k in range(1, upto + 1):
            j.save(k, {"k": k, "rank": rank})
        j.close()
    assert common_superstep(tmp_path, 2) == 4
    with sqlite3.connect(tmp_path / "rank-0.sqlite") as db:
        assert [r[0] for r in db.execute("SELECT superstep FROM snapshot")] == [4, 5]
    j = BspJournal(tmp_path, 0, session=2)
    assert j.load(4) == {"k": 4, "rank": 0}
    j.close()


def test_a_crawl_whose_set_up_failed_can_be_started_again_with_other_flags(tmp_path):
    state = tmp_path / "state"
    with CountingWeb(pages=60, sites=2) as web:
        _bad(bsp_cmd(web, "--state", str(state), "--reference", str(tmp_path / "none.txt")),
             "cannot read it")
        ok = run(bsp_cmd(web, "--state", str(state), "--json"))
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["unique_pages"] == 60


def _forge(state: Path, rank: int, change) -> None:
    """Rewrite every snapshot of ``rank``'s journal with ``change(snapshot)``."""
    import pickle

    db = sqlite3.connect(state / f"rank-{rank}.sqlite", isolation_level=None)
    try:
        for step, blob in db.execute("SELECT superstep, state FROM snapshot").fetchall():
            snap = pickle.loads(blob)
            change(snap)
            db.execute("UPDATE snapshot SET state = ? WHERE superstep = ?",
                       (pickle.dumps(snap), step))
    finally:
        db.close()


def _resume_cmd(state: Path) -> list[str]:
    return [sys.executable, "-m", "crawlers", "bsp", "--resume", str(state)]


def test_a_handed_over_journal_runs_no_code_and_a_forged_one_is_one_line(tmp_path):
    """A journal folder is a file anyone could hand over. Its command naming FILE.py:CLASS is
    refused before the file runs (it would write ``ran``); a command that is not a crawl's, a
    snapshot of the wrong shape on either rank, ranks that disagree on the pages fetched,
    output offsets past the end of the files, and a log that is a link to another file are
    each one line and exit 2, never a job
    left waiting for a rank that gave up (run() times out at 120 s), and the output files
    are left as they were. A copy of the folder resumes in the copy, not where the command
    it keeps says (a relative --state)."""
    planted = tmp_path / "planted.py"
    planted.write_text("import pathlib\npathlib.Path(__file__).with_name('ran').write_text('x')\n")
    with CountingWeb(pages=PAGES, sites=SITES) as web:
        died = subprocess.run(bsp_cmd(web, "--state", "kept", "--out", str(tmp_path / "out"),
                                      "--kill-worker", "1", "--kill-at", "2"),
                              capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert died.returncode == 1, died.stderr
        kept = tmp_path / "kept"
        pages = (tmp_path / "out" / "pages.jsonl").read_bytes()

        def forged(name: str, rank: int | None = None, change=None, argv=None) -> Path:
            import shutil

            copy = tmp_path / name
            shutil.copytree(kept, copy)
            if change is not None:
                _forge(copy, rank, change)
            if argv is not None:
                command = json.loads((copy / "command.json").read_text())
                (copy / "command.json").write_text(json.dumps({"argv": argv(command["argv"])}))
            return copy

        code = forged("code", argv=lambda a: [f"{planted}:Planted" if x == "monitor" else x
                                              for x in a])
        _bad(_resume_cmd(code), "type it to resume: crawlab bsp --backend mpi")
        assert not (tmp_path / "ran").exists()
        _bad(_resume_cmd(forged("nope", argv=lambda a: [*a, "--nope"])), "does not parse")
        _bad(_resume_cmd(forged("twice", argv=lambda a: [*a, "--robots", "1"])),
             "does not parse (argument --robots: given twice (--robots 2 and --robots 1)")
        _bad(_resume_cmd(forged("other", argv=lambda a: ["explore", "x"])),
             "holds no crawlab bsp command")
        _bad(_resume_cmd(forged("extra", 0, lambda s: s.update(extra=None))),
             "holds no collector")
        _bad(_resume_cmd(forged("visited", 1, lambda s: s.update(visited="abc"))),
             "its 'visited' is not what a worker keeps there")
        _bad(_resume_cmd(forged("total", 1, lambda s: s.update(total_fetched=0))),
             "disagree on the pages fetched")
        _bad(_resume_cmd(forged("offsets", 0,
                                lambda s: s["extra"].update(offsets=(10**12, 0)))),
             "the journal says 1,000,000,000,000 bytes were written")
        assert (tmp_path / "out" / "pages.jsonl").read_bytes() == pages
        for name, target in (("linked", tmp_path / "victim"), ("dangling", tmp_path / "new")):
            linked = forged(name)
            if name == "linked":
                target.write_text("mine")
            (linked / "mpiexec.log").unlink(missing_ok=True)
            (linked / "mpiexec.log").symlink_to(target)  # the job's log would write there
            _bad(_resume_cmd(linked), "mpiexec.log is not a regular file")
        assert (tmp_path / "victim").read_text() == "mine" and not (tmp_path / "new").exists()
        # resumed from a folder holding a package named crawlers, through the console script
        # (python -m would put the folder first on sys.path itself): the ranks do not run it
        (tmp_path / "crawlers").mkdir()
        (tmp_path / "crawlers" / "__init__.py").write_text(
            "import pathlib\npathlib.Path(__file__).parent.with_name('shadowed').touch()\n")
        crawlab = str(Path(sys.executable).parent / "crawlab")
        elsewhere = forged("elsewhere")

        def logged(folder: Path) -> int:
            return sum(p.stat().st_size for p in folder.glob("started-*.log"))
        before = logged(kept), logged(elsewhere)
        out = subprocess.run([crawlab, "bsp", "--resume", str(elsewhere), "--json"],
                             capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        report = json.loads(out.stdout)
        assert report["resumed"] > 0 and report["stopped_by"] == "exhausted"
        # the copy was resumed, not the folder its command names ("kept", here too)
        assert logged(kept) == before[0] and logged(elsewhere) > before[1]
        assert not (tmp_path / "shadowed").exists()


def test_journals_of_another_crawl_are_refused_and_no_other_output_is_cut(tmp_path):
    """Each journal records whose crawl it is (its lasting flags, --procs, the resolved --out)
    and a resume opens only journals of the crawl its command.json describes, all ranks
    0..P-1 of it. Before, a rank's journal of another crawl (another web) resumed into a
    mixed crawl (a coverage of 1.137 was measured), and a command.json edited to name another
    --out, or a relative --out resumed from another folder, cut that folder's files to the
    journaled offsets. Each is now one line and exit 2, the other output left as it was; the
    crawl's own folder still resumes."""
    import shutil

    def killed(web: CountingWeb, name: str) -> Path:
        died = subprocess.run(bsp_cmd(web, "--state", name, "--out", f"out-{name}",
                                      "--kill-worker", "1", "--kill-at", "2"),
                              capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert died.returncode == 1, died.stderr
        return tmp_path / name

    def copy(name: str, also: Path | None = None, ranks: tuple[int, ...] = (1,)) -> Path:
        """A copy of crawl a's folder, with ``also``'s journals of ``ranks`` put in it."""
        folder = tmp_path / name
        shutil.copytree(a, folder)
        for rank in ranks if also is not None else ():
            for f in folder.glob(f"rank-{rank}.sqlite*"):
                f.unlink()
            for f in also.glob(f"rank-{rank}.sqlite*"):
                shutil.copy(f, folder / f.name)
        return folder

    def edited(name: str, change) -> Path:
        folder = copy(name)
        argv = json.loads((folder / "command.json").read_text())["argv"]
        (folder / "command.json").write_text(json.dumps({"argv": change(argv)}))
        return folder

    with CountingWeb(pages=PAGES, sites=SITES, seed=3) as web:
        with CountingWeb(pages=PAGES, sites=SITES, seed=4) as other:
            b = killed(other, "b")
        a = killed(web, "a")
        outputs = {p: p.read_bytes() for p in tmp_path.glob("out-*/*")}
        # rank 1's journal of another crawl (another web), beside rank 0's of this one
        _bad(_resume_cmd(copy("mixed", b)), "rank-1.sqlite is the journal of another crawl",
             tmp_path)
        # a third rank's journal in a 2-worker crawl's folder
        extra = copy("extra")
        shutil.copy(b / "rank-1.sqlite", extra / "rank-2.sqlite")
        _bad(_resume_cmd(extra), "rank-2.sqlite is not the journal of a rank", tmp_path)
        # command.json edited: other flags, another --out
        _bad(_resume_cmd(edited("flags", lambda v: [
            "3" if i and v[i - 1] == "--R" else x for i, x in enumerate(v)])),
             "is the journal of another crawl", tmp_path)
        _bad(_resume_cmd(edited("out", lambda v: [x.replace("out-a", "out-b") for x in v])),
             "is the journal of another crawl", tmp_path)
        # journals that record no crawl (made before the identity was kept)
        old = copy("old")
        for rank in range(PROCS):
            with sqlite3.connect(old / f"rank-{rank}.sqlite") as db:
                db.execute("DELETE FROM meta WHERE key = 'crawl'")
        _bad(_resume_cmd(old), "records no crawl identity", tmp_path)
        assert {p: p.read_bytes() for p in tmp_path.glob("out-*/*")} == outputs
        # the relative --out resolved in another folder, whose own files are larger
        elsewhere = tmp_path / "elsewhere" / "out-a"
        elsewhere.mkdir(parents=True)
        mine = b"mine\n" * 100_000
        for name in ("pages.jsonl", "edges.txt"):
            (elsewhere / name).write_bytes(mine)
        _bad(_resume_cmd(a), "resume it from the folder it was started in", elsewhere.parent)
        assert all((elsewhere / n).read_bytes() == mine for n in ("pages.jsonl", "edges.txt"))
        # the crawl's own folder, resumed where it was started, finishes it
        done = run([*_resume_cmd(a), "--json"], tmp_path)
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
    assert report["unique_pages"] == report["pages_fetched"] == PAGES
    assert report["coverage"] == 1.0
