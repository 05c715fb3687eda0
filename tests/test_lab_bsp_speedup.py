"""The bsp-speedup lab's accounting: CPU seconds per kind of process, the 2-core bound drawn
from them, and the model of larger P."""

from __future__ import annotations

import os

import pytest

from labs import lab_bsp_speedup as lab


def _times(user=0.0, system=0.0, cuser=0.0, csystem=0.0):
    return os.times_result((user, system, cuser, csystem, 0.0))


def test_cpu_seconds_splits_workers_coordinator_and_server():
    before = (_times(1.0, 0.5, 2.0, 0.0), 10.0, 3.0)
    after = (_times(1.2, 0.6, 2.5, 0.1), 11.5, 3.4)
    got = lab.cpu_seconds(before, after, pages=100, workers=1.6, seconds=1.0)
    assert got["workers_cpu_s"] == pytest.approx(1.6)  # the workers' own count of the crawl
    assert got["workers_lifetime_cpu_s"] == pytest.approx(0.6 + 1.5)  # children + forkserver's
    assert got["coordinator_cpu_s"] == pytest.approx(0.3)
    assert got["server_cpu_s"] == pytest.approx(0.4)
    assert got["workers_cpu_ms_per_page"] == pytest.approx(16.0)
    assert got["server_cpu_ms_per_page"] == pytest.approx(4.0)
    assert got["cores_busy"] == pytest.approx(1.6 + 0.3 + 0.4)
    unknown = lab.cpu_seconds((_times(), 0.0, None), (_times(), 0.0, 3.0), pages=10,
                              workers=1.0, seconds=2.0)
    assert unknown["server_cpu_s"] != unknown["server_cpu_s"]  # nan: not read
    assert unknown["cores_busy"] == pytest.approx(0.5)  # an unknown server counts nothing


def _cpu(p, workers, coordinator, server, pages=200, steps=5, rate=250.0):
    return {"P": p, "workers_cpu_ms_per_page": workers,
            "coordinator_cpu_ms_per_page": coordinator, "server_cpu_ms_per_page": server,
            "pages": pages, "supersteps": steps, "pages_per_s": rate}


def test_the_2_core_bound_counts_every_process_at_p2_over_what_p1_reached():
    cpu = [_cpu(1, 4.0, 0.1, 0.4), _cpu(2, 4.0, 0.2, 0.8)]
    # P=2: 2 cores for 5 ms a page, 400 pages/s at most; P=1 reached 250 pages/s
    assert lab.cpu_bound(cpu) == pytest.approx(400 / 250)
    no_server = [_cpu(1, 4.0, 0.1, float("nan")), _cpu(2, 4.0, 0.0, float("nan"))]
    assert lab.cpu_bound(no_server) == pytest.approx(500 / 250)
    # a P=1 that used more than one core (lxml parses outside the GIL) leaves less to gain
    busy_one = [_cpu(1, 4.0, 0.1, 0.4, rate=330.0), _cpu(2, 4.0, 0.2, 0.8)]
    assert lab.cpu_bound(busy_one) == pytest.approx(400 / 330)


def test_the_model_stops_at_the_sites_and_at_the_server():
    cpu = [_cpu(1, 4.0, 0.1, 0.5), _cpu(2, 4.0, 0.1, 0.5)]
    overhead = [{"P": 1, "ms_per_superstep": 1.0}, {"P": 2, "ms_per_superstep": 1.0}]
    rows = {r["P"]: r for r in lab.model_rows(cpu, overhead, sites=4, cores=2)}
    assert [rows[p]["busy_workers"] for p in (1, 2, 4, 8, 16)] == [1, 2, 4, 4, 4]
    assert rows[8]["pages_per_s"] == pytest.approx(rows[4]["pages_per_s"])  # no site left
    assert rows[2]["pages_per_s"] > 1.9 * rows[1]["pages_per_s"]
    # two cores shared by workers, server and coordinator: 2000 / 4.6 pages/s at most
    assert rows[16]["pages_per_s_on_cores"] == pytest.approx(2000 / 4.6)
    split = {r["P"]: r for r in lab.model_rows(cpu, overhead, sites=0, cores=2)}
    assert split[16]["busy_workers"] == 16
    # one server process serves every worker: 0.5 ms a page caps the crawl at 2,000 pages/s
    assert split[16]["pages_per_s"] == pytest.approx(2000.0)
