"""BSP failover without re-crawl: a worker SIGKILLed mid-superstep (at a moment chosen by the
server's request counter, not by the crawler) costs at most the pages of its unfinished
superstep, counted by a server that knows nothing of the crawler; no page is lost."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from tests.countserver import CountingWeb

PAGES, SITES, R = 400, 4, 16


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    return kids


def bsp_workers(pid: int, procs: int, timeout: float = 30.0) -> list[int]:
    """The worker processes of the ``crawlab bsp`` process ``pid``: the children of its
    forkserver, i.e. its grandchildren (bounded wait until all ``procs`` exist)."""
    deadline = time.monotonic() + timeout
    while True:
        kids = _children()
        workers = [g for c in kids.get(pid, []) for g in kids.get(c, [])]
        if len(workers) >= procs or time.monotonic() > deadline:
            return workers
        time.sleep(0.05)  # polling /proc with a deadline, not synchronization with the crawl


pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds workers in /proc")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_killed_worker_costs_at_most_its_unfinished_superstep(seed):
    rng = random.Random(seed)
    at = rng.randrange(60, PAGES - 120)
    victim = rng.randrange(2)
    with CountingWeb(pages=PAGES, sites=SITES, seed=seed) as web:
        cmd = [sys.executable, "-m", "crawlers", "bsp", "--json", "--procs", "2",
               "--R", str(R), "--robots", "4", "--frontier", "monitor",
               "--politeness", "0.001", "--timeout", "60"]
        for s in web.seeds:
            cmd += ["--seed-url", s]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert web.wait_requests(at, timeout=90), "the crawl never got that far"
            workers = bsp_workers(proc.pid, 2)
            assert len(workers) == 2, workers
            os.kill(sorted(workers)[victim], signal.SIGKILL)
            out, err = proc.communicate(timeout=110)
        finally:
            proc.kill()
            proc.wait(timeout=30)
        counts = web.counts
    assert proc.returncode == 0, err.decode()[-2000:]
    report = json.loads(out)
    assert [k["exitcode"] for k in report["killed"]] == [-signal.SIGKILL]
    extra = sum(n - 1 for n in counts.values())
    # nothing lost: every page, as in an uninterrupted crawl
    assert set(counts) == web.urls
    assert report["unique_pages"] == PAGES and report["stopped_by"] == "exhausted"
    # a real web (no ground truth): coverage against every URL a worker reached
    assert report["coverage"] == 1.0 and report["coverage_basis"] == "discovered"
    # re-fetched (the server's count) at most the dead worker's unfinished superstep
    assert extra <= report["refetched"] <= report["refetch_bound"] <= R, (
        extra, report["refetched"], report["refetch_bound"])
