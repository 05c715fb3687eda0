"""The BSP crawler: equivalence with the sequential crawl, routing, backends, faults, CLI.

Every crawl here is small (100-400 pages, simulated, zero latency). Worker processes are
started by the engine's coordinator, which waits on every pipe with a timeout and terminates
its workers in ``finally``; subprocesses of the CLI run with a timeout as well.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import frontier
from crawlers.bsp import BspConfig, run_bsp
from crawlers.bsp.engine import Ownership
from crawlers.crawl.crawler import Crawler
from crawlers.crawl.targets import WebOptions, open_target
from crawlers.partition.assignment import make_assignment
from crawlers.web.webgen import generate

WEB = dict(kind="sim", pages=300, sites=10, seed=3, latency=0.0)


def bsp(**kw) -> object:
    web = WebOptions(**{**WEB, **kw.pop("web", {})})
    kw.setdefault("timeout", 60.0)
    return run_bsp(BspConfig(web=web, **kw))


def sequential(max_pages: int | None = None, **web) -> list[str]:
    """URLs a one-thread crawl fetches, in order."""
    with open_target(WebOptions(**{**WEB, **web})) as target:
        crawler = Crawler(target.fetcher, frontier.create("cbt"), target.seeds, threads=1,
                          timeline=True)
        report = crawler.run(max_pages=max_pages)
    return [url for _, url in report.timeline]


def all_pages(**web) -> set[str]:
    opts = {**WEB, **web}
    w = generate(n_pages=opts["pages"], n_sites=opts["sites"], seed=opts["seed"])
    addressing = w.logical()
    return {addressing.url(p) for p in range(w.size)}


# -- the same pages as a sequential crawl ---------------------------------------------------

def test_one_worker_with_R_1_replays_the_sequential_crawl_exactly():
    """P=1, R=1, r=1 is the threaded crawler with one robot: same OPIC order, page by page."""
    report = bsp(procs=1, robots=1, R=1, max_pages=80)
    assert report.pages_fetched == 80
    assert report.fetched_urls == sequential(max_pages=80)


def test_one_worker_fetches_the_sequential_crawls_page_set():
    report = bsp(procs=1, robots=3, R=16)
    assert set(report.fetched_urls) == set(sequential()) == all_pages()
    assert report.pages_fetched == report.unique_pages == 300
    assert report.messages == report.urls_sent == 0


@pytest.mark.parametrize("procs", [2, 4])
@pytest.mark.parametrize("partition", ["site-hash", "page-hash"])
def test_more_workers_fetch_the_same_set_exactly_once(procs, partition):
    report = bsp(procs=procs, robots=2, R=8, partition=partition)
    assert report.stopped_by == "exhausted"
    assert set(report.fetched_urls) == all_pages()
    assert report.pages_fetched == report.unique_pages == 300  # no page fetched twice
    assert report.coverage == 1.0
    assert sum(report.pages_per_worker) == 300


@pytest.mark.parametrize("name", ["monitor", "fine", "heap", "quickheap"])
def test_any_frontier_works_even_a_small_bounded_one(name):
    report = bsp(procs=2, robots=2, R=8, frontier=name, capacity=10)
    assert report.pages_fetched == report.unique_pages == 300
    assert report.frontier == name
    if frontier.info(name).bounded:  # the overflow list was used, and lost nothing
        assert max(max(s.per_worker["spilled"]) for s in report.per_superstep) > 0


def test_a_crawl_is_deterministic_whatever_order_the_robots_finish_in():
    def run():
        r = bsp(procs=3, robots=4, R=8, web=dict(latency=0.001, jitter=0.001))
        keys = ("pages", "sent_to", "received_from", "page_messages", "failures", "frontier")
        return r.fetched_urls, [{k: s.per_worker[k] for k in keys} for s in r.per_superstep]

    assert run() == run()


# -- routing ------------------------------------------------------------------------------

def _expected_traffic(procs: int, partition: str) -> tuple[int, int]:
    """URLs sent and (page, other worker) pairs of an exhaustive crawl, from the graph."""
    w = generate(n_pages=WEB["pages"], n_sites=WEB["sites"], seed=WEB["seed"])
    addressing = w.logical()
    own = Ownership(make_assignment(partition, procs))
    owner = [own.owner(addressing.url(p)) for p in range(w.size)]
    urls = pairs = 0
    for p in range(w.size):
        remote = [owner[t] for t in w.out_links(p).tolist() if owner[t] != owner[p]]
        urls += len(remote)
        pairs += len(set(remote))
    return urls, pairs


@pytest.mark.parametrize("partition", ["site-hash", "page-hash"])
def test_routing_conserves_urls_and_matches_the_graph(partition):
    procs = 3
    report = bsp(procs=procs, robots=2, R=8, partition=partition)
    assert report.misrouted == 0  # every received URL is owned by its receiver
    for step in report.per_superstep:
        ranks = step.workers
        sent = dict(zip(ranks, step.per_worker["sent_to"]))
        received = dict(zip(ranks, step.per_worker["received_from"]))
        for src in ranks:
            assert sent[src][src] == 0  # nothing owned is sent away
            for dst in ranks:
                assert sent[src][dst] == received[dst][src]  # each URL received exactly once
        assert step.messages == sum(1 for r in ranks for d in ranks if sent[r][d])
    urls, pairs = _expected_traffic(procs, partition)
    assert report.urls_sent == urls
    assert report.page_messages == pairs
    assert report.communication_overhead == pytest.approx(urls / 300)


def test_site_hash_sends_fewer_urls_than_page_hash():
    site = bsp(procs=4, robots=2, R=16, partition="site-hash", max_supersteps=1000)
    page = bsp(procs=4, robots=2, R=16, partition="page-hash", max_supersteps=1000)
    assert site.urls_sent < page.urls_sent


def test_a_partition_file_decides_ownership_on_the_served_web(tmp_path):
    """Served URLs (127.0.0.1:PORT) are owned by their logical site names."""
    path = tmp_path / "parts.txt"
    lines = ["# parts=2"] + [f"site{s}.crawlab.test:80 {int(s == 0)}" for s in range(5)]
    path.write_text("\n".join(lines) + "\n")
    report = bsp(procs=2, robots=2, R=16, partition=str(path),
                 web=dict(kind="served", pages=100, sites=5))
    w = generate(n_pages=100, n_sites=5, seed=WEB["seed"])
    assert report.coverage == 1.0 and report.pages_fetched == 100
    assert report.pages_per_worker == [100 - int(w.site_sizes()[0]), int(w.site_sizes()[0])]


def test_budget_and_superstep_limits():
    report = bsp(procs=3, robots=2, R=8, max_pages=50)
    assert report.pages_fetched == 50 and report.stopped_by == "max-pages"
    report = bsp(procs=2, robots=2, R=8, max_supersteps=3)
    assert report.supersteps == 3 and report.stopped_by == "max-supersteps"
    assert report.pages_fetched <= 3 * 2 * 8


def test_the_workers_cpu_seconds_count_the_crawl_and_not_the_start_up():
    """Each worker reports its process's CPU time per superstep from the barrier that starts
    the crawl clock: a one-superstep crawl costs far less CPU than starting an interpreter and
    importing the crawler, which a count from the process's start would include."""
    import os

    report = bsp(procs=2, robots=2, R=4, max_supersteps=1)
    per_step = [c for rec in report.per_superstep for c in rec.per_worker["cpu_seconds"]]
    assert len(per_step) == 2 and all(c > 0 for c in per_step)
    assert report.workers_cpu_seconds == pytest.approx(sum(per_step), abs=1e-3)
    assert report.workers_cpu_seconds <= report.seconds * (os.cpu_count() or 1) + 0.05


# -- the CLI, both backends ---------------------------------------------------------------

def _cli(*args: str, timeout: float = 90, mpi: int | None = None
         ) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "crawlers", *args]
    if mpi:
        cmd = [str(Path(sys.executable).parent / "mpiexec"), "-n", str(mpi), *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def _main(capsys, *args: str) -> tuple[int, str]:
    """``crawlab ARGS`` in this process: (exit status, standard error)."""
    from crawlers.cli import main

    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    return code, capsys.readouterr().err


SMALL = ["--sim", "--pages", "300", "--sites", "10", "--seed", "3", "--latency", "0",
         "--R", "8", "--robots", "2", "--json"]


def _pages(directory: Path) -> list[str]:
    lines = (directory / "pages.jsonl").read_text().splitlines()
    return [json.loads(line)["url"] for line in lines]


def _counts(summary: dict) -> list[dict]:
    keys = ("pages", "messages", "urls_sent", "page_messages", "failures", "sent_to")
    return [{k: s["per_worker"][k] for k in keys} for s in summary["per_superstep"]]


def test_both_backends_fetch_the_same_pages_and_send_the_same_messages(tmp_path):
    pytest.importorskip("mpi4py")
    mpiexec = Path(sys.executable).parent / "mpiexec"
    if not mpiexec.exists():
        pytest.skip("no mpiexec next to the interpreter")
    a = _cli("bsp", "--procs", "2", "--out", str(tmp_path / "p"), *SMALL)
    b = _cli("bsp", "--backend", "mpi", "--procs", "2", "--out", str(tmp_path / "m"), *SMALL,
             mpi=2)
    assert a.returncode == 0, a.stderr
    assert b.returncode == 0, b.stderr
    pa, pm = json.loads(a.stdout), json.loads(b.stdout)
    assert pa["backend"] == "processes" and pm["backend"] == "mpi"
    assert _pages(tmp_path / "p") == _pages(tmp_path / "m")  # same pages, same order
    assert _counts(pa) == _counts(pm)
    assert pa["pages_fetched"] == pm["pages_fetched"] == 300
    assert json.loads((tmp_path / "m" / "summary.json").read_text())["supersteps"] == \
        pm["supersteps"]


def test_mpi_with_the_wrong_number_of_ranks_is_one_line_and_exit_2():
    pytest.importorskip("mpi4py")
    if not (Path(sys.executable).parent / "mpiexec").exists():
        pytest.skip("no mpiexec next to the interpreter")
    run = _cli("bsp", "--backend", "mpi", "--procs", "3", "--sim", "--pages", "100",
               "--sites", "5", mpi=2, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        "crawlab bsp: error: --procs 3 but mpiexec started 2 ranks (use mpiexec -n 3)"]


def test_mpi_set_up_failing_on_rank_0_only_fails_every_rank(tmp_path):
    """Rank 0 cannot open --out (a file is in the way): the other rank must not wait for it
    in the first collective forever; every rank reports the error and exits 2."""
    pytest.importorskip("mpi4py")
    if not (Path(sys.executable).parent / "mpiexec").exists():
        pytest.skip("no mpiexec next to the interpreter")
    blocker = tmp_path / "file"
    blocker.write_text("")
    run = _cli("bsp", "--backend", "mpi", "--procs", "2", "--sim", "--pages", "100",
               "--sites", "5", "--json", "--out", str(blocker), mpi=2, timeout=60)
    assert run.returncode == 2
    errors = [line for line in run.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and str(blocker) in errors[0], run.stderr
    assert "Traceback" not in run.stderr


def test_mpi_partition_file_missing_on_rank_0_only_fails_every_rank(tmp_path):
    """Several machines: the file exists where rank 1 runs, not where rank 0 runs. Only rank 0
    reads it, and rank 1 must not wait for it forever."""
    pytest.importorskip("mpi4py")
    mpiexec = Path(sys.executable).parent / "mpiexec"
    if not mpiexec.exists():
        pytest.skip("no mpiexec next to the interpreter")
    good = tmp_path / "good.part"
    good.write_text("# parts=2\nsite0.crawlab.test:80 1\n")
    args = ["-m", "crawlers", "bsp", "--backend", "mpi", "--procs", "2", "--sim", "--pages",
            "100", "--sites", "5", "--json", "--partition"]
    run = subprocess.run([str(mpiexec), "-n", "1", sys.executable, *args, str(tmp_path / "no"),
                          ":", "-n", "1", sys.executable, *args, str(good)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        f"crawlab bsp: error: partition file not found: {tmp_path / 'no'}"]


def test_a_killed_worker_loses_no_page(tmp_path):
    out = tmp_path / "out"
    run = _cli("bsp", "--procs", "3", "--kill-worker", "1", "--kill-at", "3",
               "--out", str(out), *SMALL)
    assert run.returncode == 0, run.stderr
    r = json.loads(run.stdout)
    assert r["killed"] == [{"rank": 1, "exitcode": -9, "superstep": 3}]
    assert r["coverage"] == 1.0 and r["unique_pages"] == 300
    assert r["pages_per_worker"][1] > 0  # it fetched before dying, and those pages count
    assert r["pages_fetched"] == r["unique_pages"] + r["duplicates"]
    assert r["overlap"] == pytest.approx(r["duplicates"] / r["unique_pages"])
    pages = _pages(out)
    assert len(pages) == r["pages_fetched"] and set(pages) == all_pages()
    assert all(s["workers"] == [0, 2] for s in r["per_superstep"][3:])
    promised = {"frontier", "procs", "robots", "R", "seconds", "pages_fetched", "unique_pages",
                "duplicates", "errors", "pages_per_second", "coverage", "quality", "supersteps",
                "messages", "urls_sent", "page_messages", "failures", "overlap",
                "communication_overhead", "load_imbalance", "backend", "partition",
                "per_superstep"}
    assert promised <= set(r)
    assert {"pages", "messages", "urls_sent", "page_messages", "failures", "frontier",
            "fetch_seconds", "exchange_seconds"} <= set(r["per_superstep"][0]["per_worker"])


def test_killing_a_worker_before_its_first_superstep_still_covers_the_web():
    report = bsp(procs=2, robots=2, R=8, kill_worker=0, kill_at=0)
    assert report.coverage == 1.0 and report.pages_per_worker[0] == 0
    assert report.pages_fetched == report.unique_pages == 300


@pytest.mark.parametrize("args, message", [
    (["--procs", "0"], "--procs"),
    (["--R", "0"], "--R"),
    (["--robots", "0"], "--robots"),
    (["--partition", "/no/such/file"], "partition file not found"),
    (["--backend", "mpi"], "mpiexec"),
    (["--kill-worker", "1"], "go together"),
    (["--kill-worker", "5", "--kill-at", "1"], "--kill-worker must be a rank"),
    (["--procs", "1", "--kill-worker", "0", "--kill-at", "1"], "at least 2 workers"),
    (["--frontier", "nope"], "unknown frontier"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, message):
    code, err = _main(capsys, "bsp", "--sim", "--pages", "100", "--sites", "5", *args)
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert message in err


def test_bad_input_in_a_real_process_has_no_traceback():
    run = _cli("bsp", "--backend", "mpi", "--sim", timeout=30)
    assert run.returncode == 2
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "mpiexec" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize("content, message", [
    ("site0.crawlab.test:80 x\n", "expected 'site part'"),
    ("# parts=2\nsite0.crawlab.test:80 0\nnowhere.test:80 1\n", "unknown site"),
    ("# parts=3\nsite0.crawlab.test:80 0\n", "has 3 parts"),
])
def test_bad_partition_files_are_one_line_and_exit_2(capsys, tmp_path, content, message):
    path = tmp_path / "p.txt"
    path.write_text(content)
    code, err = _main(capsys, "bsp", "--sim", "--pages", "100", "--sites", "5",
                      "--partition", str(path))
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert message in err


def test_the_time_slice_stops_every_worker_together():
    import time

    start = time.monotonic()
    report = bsp(procs=2, robots=2, R=4, seconds=0.3, web=dict(latency=0.01))
    took = time.monotonic() - start
    assert report.stopped_by == "time"
    assert 0 < report.pages_fetched < 300
    # the time taken: start-up, the crawl and the teardown after it, each measured, disjoint
    assert report.startup_seconds > 0 and report.teardown_seconds > 0
    assert report.startup_seconds + report.seconds + report.teardown_seconds <= took + 0.001


def test_a_ctrl_c_while_the_workers_start_is_the_interrupted_report(monkeypatch):
    """The coordinator starts its workers inside the try that catches KeyboardInterrupt: a
    Ctrl-C the moment they are started (before its own handler is installed) ends in the
    'interrupted' report, the workers stopped, not in a traceback out of ``run_bsp``."""
    from crawlers.bsp.transport import ProcessGroup

    start = ProcessGroup.start

    def start_then_interrupt(self, *args, **kwargs):
        start(self, *args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(ProcessGroup, "start", start_then_interrupt)
    try:
        report = bsp(procs=2, robots=2, R=4)
    except KeyboardInterrupt:  # out of run_bsp: a test failure, not pytest's own Ctrl-C
        pytest.fail("the KeyboardInterrupt escaped run_bsp")
    assert report.stopped_by == "interrupted" and report.pages_fetched == 0


def test_signals_to_a_worker_in_its_first_moments_wait_for_its_handlers(monkeypatch, capfd):
    """A terminal's Ctrl-C (to the group) or the coordinator's cut (SIGUSR1) that reached a
    worker before it had set its handlers killed it: a KeyboardInterrupt traceback, or
    SIGUSR1's default, and the crawl ended on a dead rank. Sent here the moment each worker
    exists, they now wait: SIGINT is ignored, the cut finds nothing in flight, and the crawl
    runs to its end."""
    import os
    import signal
    from multiprocessing.process import BaseProcess

    start = BaseProcess.start

    def start_then_signal(process):
        start(process)
        if process.name.startswith("bsp-worker"):
            os.kill(process.pid, signal.SIGINT)
            os.kill(process.pid, signal.SIGUSR1)

    monkeypatch.setattr(BaseProcess, "start", start_then_signal)
    report = bsp(procs=2, robots=2, R=4, max_pages=60)
    assert report.stopped_by == "max-pages", report
    assert report.pages_fetched == 60
    assert "Traceback" not in capfd.readouterr().err


def test_out_survives_ctrl_c(tmp_path):
    """Ctrl-C mid-crawl: the workers finish their superstep, and ``out`` holds every page of
    the report with a summary. Mid-crawl by construction: the server holds every request
    after the 20th until the signal is sent, then answers those and at most 500 more (of 3000
    pages), so the crawl can end neither before the signal nor without it."""
    import os
    import signal

    from tests.countserver import CountingWeb
    from tests.helpers import with_default_sigint

    out = tmp_path / "out"
    with CountingWeb(pages=3000, sites=4, latency=0.0) as web:
        web.hold(after=20)
        cmd = [sys.executable, "-m", "crawlers", "bsp", "--procs", "2", "--R", "4",
               "--robots", "2", "--politeness", "0.001", "--out", str(out), "--json"]
        for seed in web.seeds:
            cmd += ["--seed-url", seed]
        proc = subprocess.Popen(with_default_sigint(cmd), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            assert web.wait_requests(21, timeout=60), "the crawl never reached 21 requests"
            os.kill(proc.pid, signal.SIGINT)
            web.release(more=500)
            try:
                stdout, stderr = proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                pytest.fail("the crawl did not stop within 60 s of SIGINT")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    assert proc.returncode == 130, stderr  # interrupted: not a finished crawl
    assert stderr.strip().splitlines()[-1].startswith("crawlab bsp: interrupted")
    report = json.loads(stdout)
    summary = json.loads((out / "summary.json").read_text())
    assert report["stopped_by"] == summary["stopped_by"] == "interrupted"
    # the 20 pages answered before the hold, less one fetch per robot (2 x 2) that Ctrl-C may
    # cut while it reads its answer (a cut fetch is no page: it goes back to the frontier)
    assert 20 - 4 <= len(_pages(out)) == summary["pages_fetched"] <= 520


# -- the processes transport on its own -----------------------------------------------------

def _dying_worker(rank: int, conn) -> None:
    """Worker 1 sends its messages, then dies before the gather; the others carry on."""
    import os

    from crawlers.bsp.transport import ProcessTransport

    t = ProcessTransport(rank, 3, conn, timeout=30)
    t.barrier()
    inbox = t.alltoall([[(f"http://w{rank}-to-{d}.test/", 0.5)] if d != rank else []
                        for d in range(3)])
    if rank == 1:
        os._exit(3)
    t.gather(inbox)
    failover = t.take_failover()
    total = t.allreduce_sum((rank, 1))
    t.close(repr((sorted(failover.dead), failover.survivors, sorted(failover.reseed), total)))


def test_the_coordinator_notices_a_death_at_any_collective():
    from crawlers.bsp.transport import ProcessGroup

    group = ProcessGroup(3, timeout=30, seeds=["http://seed.test/"])
    gathered = []
    try:
        group.start(_dying_worker, lambda r: (r,))
        group.serve(gathered.append)
    finally:
        group.stop(timeout=10)
    assert group.dead == [(1, 3)]
    assert [sorted(g) for g in gathered] == [[0, 2]]
    # worker 0 received what 1 and 2 sent it, in rank order, nothing from itself
    assert gathered[0][0] == [[], [("http://w1-to-0.test/", 0.5)], [("http://w2-to-0.test/", 0.5)]]
    reseed = sorted([("http://seed.test/", 1.0), ("http://w0-to-1.test/", 0.5),
                     ("http://w2-to-1.test/", 0.5)])
    expected = repr(([1], (0, 2), reseed, (2, 2)))
    assert group.close_reasons == {0: expected, 2: expected}
    assert all(not p.is_alive() for p in group.procs)


# -- Ctrl-C: the first one finishes the superstep, so no fetched page is lost ---------------

class _OneWorkerTransport:
    """The transport of a single worker, in process; ``stop_after`` gathers it asks to stop."""

    rank, size = 0, 1

    def __init__(self, stop_after: int) -> None:
        self.stop_after = stop_after
        self.gathered: list = []

    def alltoall(self, objs):
        return list(objs)

    def allreduce_sum(self, value):
        return value

    def allgather(self, obj):
        return [obj]

    def gather(self, obj):
        self.gathered.append(obj)
        return [obj]

    def barrier(self):
        pass

    def take_failover(self):
        return None

    def stop_requested(self):
        return len(self.gathered) >= self.stop_after

    def close(self):
        pass


def test_a_stop_request_ends_the_crawl_after_the_superstep_in_progress():
    from crawlers.bsp.driver import BspConfig, _setup
    from crawlers.bsp.engine import Worker

    config = BspConfig(web=WebOptions(**WEB), procs=1, robots=2, R=8)
    assignment = make_assignment("site-hash", 1)
    with open_target(config.web) as target:
        setup = _setup(config, assignment, target)
        transport = _OneWorkerTransport(stop_after=3)
        worker = Worker(setup.settings, transport, Ownership(assignment), target.fetcher.fetch)
        assert worker.run() == "interrupted"
    assert [step.superstep for step in transport.gathered] == [0, 1, 2]
    assert sum(len(step.pages) for step in transport.gathered) == 3 * 8


def _stop_vote_worker(rank: int, conn) -> None:
    """Supersteps until a stop is requested; close with the superstep each worker saw it."""
    from crawlers.bsp.transport import ProcessTransport

    t = ProcessTransport(rank, 2, conn, timeout=30)
    t.barrier()
    for superstep in range(1000):
        t.alltoall([[], []])
        t.gather(superstep)
        if t.allreduce_sum(int(t.stop_requested())):
            break
    t.close(str(superstep))


def test_request_stop_reaches_every_worker_in_the_same_round():
    from crawlers.bsp.transport import ProcessGroup

    group = ProcessGroup(2, timeout=30)

    def on_gather(steps):
        if steps[0] == 5:
            group.request_stop()

    try:
        group.start(_stop_vote_worker, lambda r: (r,))
        group.serve(on_gather)
    finally:
        group.stop(timeout=10)
    assert group.close_reasons == {0: "5", 1: "5"}
    assert group.dead == []


def test_one_ctrl_c_in_process_keeps_every_page_of_the_last_superstep(tmp_path):
    """A SIGINT while workers run: the report says interrupted, every worker reported its
    last superstep, and ``out`` holds exactly the pages of the report. The signal is raised
    in the coordinator's own thread when the third superstep's pages are written, so it
    lands mid-crawl (3000 pages, 8 a superstep) on any machine; the test runs with Python's
    own SIGINT handler even if it was started with SIGINT ignored."""
    import signal

    out = tmp_path / "out"
    seen: list[int] = []
    config = BspConfig(web=WebOptions(**{**WEB, "pages": 3000, "latency": 0.0}), procs=2,
                       robots=2, R=4, out=str(out), timeout=60.0)

    class Sink:
        """CrawlOutput that raises one SIGINT in this process after the third superstep."""

        def __init__(self) -> None:
            from crawlers.crawl.output import CrawlOutput

            self.inner = CrawlOutput(str(out))

        def page(self, res):
            self.inner.page(res)

        def edges(self, url, links):
            self.inner.edges(url, links)
            seen.append(1)
            if len(seen) == 3 * 2 * 4:
                signal.raise_signal(signal.SIGINT)  # its handler runs before this returns

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        sink = Sink()
        try:
            report = run_bsp(config, sink=sink)
        finally:
            sink.inner.close()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored
    finally:
        signal.signal(signal.SIGINT, previous)
    assert report.stopped_by == "interrupted"
    # raised during superstep 3's gather, the stop is read in its closing allreduce
    assert report.supersteps == 3
    assert all(rec.workers == [0, 1] for rec in report.per_superstep)
    assert report.pages_fetched == len(_pages(out)) == len(seen) == 3 * 2 * 4


def test_the_last_pages_of_a_budget_go_to_a_worker_that_has_urls(tmp_path):
    """--max-pages with one page left and two workers gives it to one of them. Worker 0 owns
    one small site (crawled out early), worker 1 the rest: when worker 0 got the odd page
    every superstep, it fetched nothing and worker 1 nothing, for ever (a livelock seen under
    MPI as a hang). The budget's remainder now moves round the workers."""
    part = tmp_path / "p.txt"
    part.write_text("# parts=2\n" + "".join(
        f"site{s}.crawlab.test:80 {0 if s == 0 else 1}\n" for s in range(4)))
    report = bsp(procs=2, robots=2, R=8, max_pages=39, max_supersteps=60,
                 partition=str(part), web=dict(pages=40, sites=4))
    assert report.stopped_by == "max-pages"
    assert report.pages_fetched == report.unique_pages == 39
