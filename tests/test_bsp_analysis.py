"""BSP analysis: the R_x prediction (crawlers.bsp.analysis.rx) and the dynamic partition
(crawlers.bsp.analysis.dynamic): hand-computed supersteps, the binary search, the coordinator's
assignments, and a worker killed mid-crawl."""

from __future__ import annotations

import numpy as np
import pytest

from crawlers.bsp.analysis import dynamic, rx
from crawlers.web import webgen


def hand_web() -> webgen.Web:
    """Six pages, two sites; links 0->1,3,4  1->2  2->5  3->4  4->5  5->0."""
    links = {0: [1, 3, 4], 1: [2], 2: [5], 3: [4], 4: [5], 5: [0]}
    src = np.array([s for s, ts in links.items() for _ in ts])
    dst = np.array([t for ts in links.values() for t in ts])
    return webgen.from_edges(np.array([0, 3, 6]), src, dst, np.zeros(6, dtype=np.int32),
                              seed=None, names=None)


# Q_x order 0, 1, ..., 5; pages 0-2 on processor 0, pages 3-5 on processor 1.
HAND = {"priority": np.arange(6, 0, -1, dtype=float), "owners": np.array([0, 0, 0, 1, 1, 1])}

# (beta, count_local) -> (superstep starts, B per superstep, A per superstep), worked by hand
# from the six steps (see docs/bsp.rst): e.g. beta=1: page 0 sends 1 message to P0 and 2 to
# P1; at page 1, M[1] = 2 > 1 cuts; page 2 was linked by page 1 in the same superstep (late);
# pages 2 and 3 bring M[1] to 2, so page 4 cuts; page 5 was linked by page 4 (late).
HAND_CASES = {
    (0, True): ([0, 1, 2, 3, 4, 5], [1] * 6, [0] * 6),
    (1, True): ([0, 1, 4], [1, 3, 2], [0, 1, 1]),
    (2, True): ([0, 3], [3, 3], [2, 2]),
    (5, True): ([0], [6], [5]),
    (0, False): ([0, 1, 3], [1, 2, 3], [0, 1, 2]),
}


@pytest.mark.parametrize("impl", [rx.predict, rx.predict_reference])
@pytest.mark.parametrize("case", list(HAND_CASES))
def test_rx_on_a_hand_made_graph(impl, case):
    beta, local = case
    starts, sizes, missed = HAND_CASES[case]
    r = impl(hand_web(), 2, beta, count_local=local, **HAND)
    r.check()
    assert r.starts.tolist() == starts
    assert r.sizes.tolist() == sizes
    assert r.missed.tolist() == missed
    assert r.counts.tolist() == [3, 3]
    assert r.supersteps == len(starts)
    assert r.rx == pytest.approx(3 / len(starts))
    assert r.mean_error == pytest.approx(np.mean(np.array(missed) / np.array(sizes)))


def test_vectorized_prediction_agrees_with_the_literal_steps():
    web = webgen.generate(800, 12, seed=5)
    for processors in (1, 3, 4):
        for beta in (0, 3, 40, 400, 10**6):
            for local in (True, False):
                a = rx.predict_reference(web, processors, beta, count_local=local)
                b = rx.predict(web, processors, beta, count_local=local)
                assert np.array_equal(a.starts, b.starts)
                assert np.array_equal(a.missed, b.missed)
                assert np.array_equal(a.counts, b.counts)


def test_prediction_on_a_web_loaded_from_an_edge_list(tmp_path):
    web = webgen.generate(400, 8, seed=6)
    web.export_edges(tmp_path / "edges.txt")
    loaded = webgen.Web.load_edges(tmp_path / "edges.txt")
    a, b = rx.predict(web, 3, 20), rx.predict(loaded, 3, 20)
    assert np.array_equal(a.starts, b.starts) and np.array_equal(a.missed, b.missed)
    assert np.array_equal(a.counts, b.counts)


def test_site_hash_keeps_each_site_on_one_processor():
    web = webgen.generate(600, 20, seed=2)
    owners = rx.page_owners(web, rx.make_assignment("site-hash", 4))
    for s in range(web.n_sites):
        assert len(set(owners[web.site_start[s]:web.site_start[s + 1]].tolist())) == 1
    assert len(set(owners.tolist())) > 1


def test_bad_tolerance_and_processors_are_one_line_errors():
    with pytest.raises(ValueError, match="beta"):
        rx.predict(hand_web(), 2, -1, **HAND)
    with pytest.raises(ValueError, match="processors"):
        rx.predict(hand_web(), 0, 1)


def test_binary_search_finds_the_largest_beta_of_a_monotone_error():
    """With an error that cannot decrease in beta (1 / supersteps: bigger tolerances never
    add supersteps), the search must return exactly the largest beta under the threshold."""
    web = webgen.generate(500, 10, seed=3)
    prepared = rx.RxModel(web, 3)
    scan = np.array([1 / prepared.run(b).supersteps for b in range(0, 301)])
    assert np.all(np.diff(scan) >= 0), "supersteps never increase with beta"
    for threshold in (0.01, 0.05, 0.2):
        found = rx.search_beta(web, 3, threshold, hi=300, error=lambda r: 1 / r.supersteps)
        below = np.flatnonzero(scan < threshold)
        assert found.beta == int(below.max())
        assert len(found.probes) <= 2 + int(np.ceil(np.log2(300)))


def test_binary_search_on_the_papers_error_brackets_the_threshold():
    """The paper's mean error is not monotone at small scale; the search still returns a beta
    under the threshold whose successor is not."""
    web = webgen.generate(1500, 15, seed=4)
    found = rx.search_beta(web, 4, 0.02, hi=2000)
    assert found.beta is not None and found.result.mean_error < 0.02
    assert rx.predict(web, 4, found.beta + 1).mean_error >= 0.02
    assert rx.search_beta(web, 4, 1e-9, lo=10**5).beta is None


# -- dynamic partition ----------------------------------------------------------------------


SIZES = {f"site{i}.test:80": size for i, size in enumerate(
    [500, 300, 250, 120, 100, 90, 80, 60, 50, 40, 30, 20, 10, 10, 5])}


@pytest.mark.parametrize("policy", dynamic.POLICIES)
def test_every_site_is_assigned_exactly_once(policy):
    run = dynamic.simulate(policy, SIZES, [4, 2, 2, 1], seed=7)
    handed = [s for mine in run.sites for s in mine]
    assert sorted(handed) == sorted(SIZES)
    if policy.startswith("static"):
        assert run.sites == dynamic.static_plan(policy, SIZES, [4, 2, 2, 1], seed=7)


def test_static_size_balances_pages_and_static_random_site_counts():
    plan = dynamic.static_plan("static-size", SIZES, [1, 1, 1])
    loads = [sum(SIZES[s] for s in mine) for mine in plan]
    assert max(loads) - min(loads) <= max(SIZES.values())
    counts = [len(m) for m in dynamic.static_plan("static-random", SIZES, [1, 1, 1, 1])]
    assert max(counts) - min(counts) <= 1


def test_dynamic_size_shares_work_in_proportion_to_capacity():
    sizes = {f"s{i}.test:80": 10 for i in range(40)}
    run = dynamic.simulate("dynamic-size", sizes, [3.0, 1.0])
    assert abs(len(run.sites[0]) - 30) <= 1 and abs(len(run.sites[1]) - 10) <= 1
    assert run.stdev < 0.05
    # the biggest site starts on the strongest worker
    run = dynamic.simulate("dynamic-size", SIZES, [1.0, 4.0, 2.0])
    assert run.sites[1][0] == "site0.test:80"
    static = dynamic.simulate("static-random", SIZES, [1.0, 4.0, 2.0], seed=1)
    assert run.makespan <= static.makespan and run.stdev < static.stdev


def test_a_link_into_a_finished_site_brings_it_back_without_its_fetched_pages():
    c = dynamic.Coordinator("dynamic-size", {"a:80": 2, "b:80": 1}, [1.0],
                            ["http://a/", "http://b/"])
    task = c.next_task(0)
    assert (task.site, task.urls) == ("a:80", ["http://a/"])
    c.pages(0, [("http://a/", ["http://a/x", "http://b/y"]), ("http://a/x", [])])
    c.task_done(0)
    c.check()
    task = c.next_task(0)
    assert (task.site, task.urls) == ("b:80", ["http://b/", "http://b/y"])
    c.pages(0, [("http://b/", []), ("http://b/y", ["http://a/z"])])
    c.task_done(0)
    task = c.next_task(0)
    assert (task.site, task.urls) == ("a:80", ["http://a/z"])
    assert task.skip == {"http://a/", "http://a/x"}
    c.pages(0, [("http://a/z", [])])
    c.task_done(0)
    c.check()
    assert c.finished and c.next_task(0) is None and c.inter_site_links == 2


def test_a_failed_workers_site_goes_back_to_the_head_of_s():
    c = dynamic.Coordinator("dynamic-size", {"a:80": 3, "b:80": 2, "c:80": 1}, [2.0, 1.0],
                            ["http://a/", "http://b/", "http://c/"])
    assert c.next_task(0).site == "a:80" and c.next_task(1).site == "b:80"
    c.pages(0, [("http://a/", ["http://a/1", "http://a/2"]), ("http://a/1", [])])
    c.worker_failed(0)
    c.check()
    c.task_done(1)
    task = c.next_task(1)
    assert task.site == "a:80" and task.urls == ["http://a/2"]
    assert task.skip == {"http://a/", "http://a/1"}


@pytest.mark.timeout(90)
def test_a_worker_killed_mid_crawl_loses_no_page():
    web = webgen.generate(1200, 12, seed=3, site_alpha=5.0)
    specs = [dynamic.WorkerSpec(3), dynamic.WorkerSpec(2), dynamic.WorkerSpec(1)]
    r = dynamic.run_crawl(web, "dynamic-size", specs, latency=0.003, seed=1, kill=(0, 30),
                          timeout=60)
    assert r.killed == 0 and len(r.reassigned) == 1
    assert r.coverage == 1.0 and r.unique == web.size
    assert r.fetches >= r.unique and r.reported >= r.unique
    assert r.quality[1.0] == 1.0
    # the dead worker's site was finished by another worker
    assert any(r.reassigned[0] in mine for w, mine in enumerate(r.sites) if w != 0)
    assert r.inter_site_links > 0 and 0 < r.communication < 10
