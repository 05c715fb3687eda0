"""Site hypergraph, message model, partitioners, partition files and ``crawlab partition``.

The small graphs here are worked out by hand in the docstrings; the hypergraph partitioner is
checked against a brute-force optimum, and the message model against the BSP engine's count.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections import deque
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawlers.cli import main
from crawlers.partition import partitioners
from crawlers.partition.assignment import PageHash, SiteHash, make_assignment, read_partition_file
from crawlers.partition.hypergraph import (
    CrawlGraph,
    cut_links,
    imbalance_percent,
    messages,
    messages_per_page,
    read_graph,
    site_hypergraph,
)
from crawlers.web.topics import with_topics
from crawlers.web.webgen import generate

try:  # only the hypergraph partitioner needs KaHyPar: the rest runs without it
    import kahypar  # noqa: F401

    HAS_KAHYPAR = True
except ImportError:
    HAS_KAHYPAR = False
needs_kahypar = pytest.mark.skipif(
    not HAS_KAHYPAR, reason="the hypergraph partitioner needs kahypar: pip install "
    "'crawlab[partition]'")


def graph_of(tmp_path, lines: list[str], name: str = "g.txt") -> CrawlGraph:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return read_graph(path)


def url(site: str, page: str) -> str:
    return f"http://{site}.example/{page}"


# The hand-made example (also the chapter's):  a1 links to b1, b2 (both on B) and c1, and to a2
# on its own site; b1 links back to a1; c1 links to b1.
SMALL = [
    f"{url('a', 'a1')} {url('b', 'b1')}",
    f"{url('a', 'a1')} {url('b', 'b2')}",
    f"{url('a', 'a1')} {url('c', 'c1')}",
    f"{url('a', 'a1')} {url('a', 'a2')}",
    f"{url('b', 'b1')} {url('a', 'a1')}",
    f"{url('c', 'c1')} {url('b', 'b1')}",
]


def site_parts(graph: CrawlGraph, by_site: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """(site_part, page_part) for a {'a': 0, ...} table keyed by the site's host letter."""
    site_part = np.array([by_site[name[0]] for name in graph.site_names], dtype=np.int64)
    return site_part, site_part[graph.page_site]


def page_index(graph: CrawlGraph, site: str, page: str) -> int:
    return graph.urls.index(url(site, page))


def test_small_graph_reads_pages_sites_and_links(tmp_path):
    g = graph_of(tmp_path, SMALL)
    assert g.n_pages == 5 and g.n_sites == 3 and g.n_links == 6
    assert sorted(g.site_names) == ["a.example:80", "b.example:80", "c.example:80"]
    assert dict(zip(g.site_names, g.site_pages().tolist())) == {
        "a.example:80": 2, "b.example:80": 2, "c.example:80": 1}
    assert g.intra_fraction() == pytest.approx(1 / 6)


def test_site_hypergraph_has_one_net_per_page_with_inter_site_links(tmp_path):
    g = graph_of(tmp_path, SMALL)
    hg = site_hypergraph(g)
    hg.check(g)
    site = {name[0]: i for i, name in enumerate(g.site_names)}
    nets = {g.urls[p]: {g.site_names[s][0] for s in hg.net_pins(j).tolist()}
            for j, p in enumerate(hg.net_page.tolist())}
    # a2 and b2 link nowhere: no net. Pins = own site + target sites.
    assert nets == {url("a", "a1"): {"a", "b", "c"}, url("b", "b1"): {"a", "b"},
                    url("c", "c1"): {"b", "c"}}
    assert hg.n_vertices == 3 and hg.n_pins == 7 and len(site) == 3


@pytest.mark.parametrize("table, expected_messages, expected_cut_links", [
    # A alone, B and C together: a1 -> {1} is 1 message for 3 cut links; b1 -> {0} is 1;
    # c1 -> b1 stays inside part 1.
    ({"a": 0, "b": 1, "c": 1}, 2, 4),
    # three parts: a1 -> {1, 2} is 2, b1 -> {0} is 1, c1 -> {1} is 1.
    ({"a": 0, "b": 1, "c": 2}, 4, 5),
    # A and B together: a1 -> {1} (c1) is 1; c1 -> {0} is 1.
    ({"a": 0, "b": 0, "c": 1}, 2, 2),
    ({"a": 0, "b": 0, "c": 0}, 0, 0),
])
def test_message_model_by_hand(tmp_path, table, expected_messages, expected_cut_links):
    g = graph_of(tmp_path, SMALL)
    site_part, page_part = site_parts(g, table)
    assert messages(g, page_part) == expected_messages
    assert cut_links(g, page_part) == expected_cut_links
    # for a site-based partition, messages are the site hypergraph's connectivity-1
    assert site_hypergraph(g).connectivity_minus_one(site_part) == expected_messages


def test_message_model_per_page_for_a_page_partition(tmp_path):
    """Pages of one site on different parts: a1 (part 0) sends to a2's part too."""
    g = graph_of(tmp_path, SMALL)
    page_part = np.zeros(g.n_pages, dtype=np.int64)
    page_part[page_index(g, "a", "a2")] = 1
    page_part[page_index(g, "b", "b1")] = 1
    page_part[page_index(g, "c", "c1")] = 2
    sent = messages_per_page(g, page_part)
    assert sent[page_index(g, "a", "a1")] == 2  # parts {1 (a2, b1), 2 (c1)}; b2 is local
    assert sent[page_index(g, "b", "b1")] == 1  # a1 on part 0
    assert sent[page_index(g, "c", "c1")] == 1  # b1 on part 1
    assert sent[page_index(g, "a", "a2")] == 0 and sent[page_index(g, "b", "b2")] == 0


def test_imbalance_percent():
    assert imbalance_percent(np.array([3.0, 1.0, 2.0, 2.0]), np.array([0, 1, 1, 0]), 2) == 25.0
    assert imbalance_percent(np.ones(4), np.array([0, 1, 0, 1]), 2) == 0.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), min_size=1, max_size=60),
       st.lists(st.integers(0, 3), min_size=4, max_size=4))
def test_messages_equal_connectivity_minus_one_for_any_site_partition(tmp_path_factory, links,
                                                                      parts):
    """12 pages on 4 sites (page i on site i % 4), random links, random site partition."""
    lines = [f"{url(f's{a % 4}', f'p{a}')} {url(f's{b % 4}', f'p{b}')}" for a, b in links]
    if all(a == b for a, b in links):
        return  # only self-loops: no link left
    g = graph_of(tmp_path_factory.mktemp("h"), lines)
    hg = site_hypergraph(g)
    hg.check(g)
    site_part = np.array([parts[int(n[1])] for n in g.site_names], dtype=np.int64)
    assert messages(g, site_part[g.page_site]) == hg.connectivity_minus_one(site_part)


# -- the partitioners ----------------------------------------------------------------------------

TWO_CLUSTERS = [
    # sites a0..a3 link each other, sites b0..b3 link each other; page a3/x also links to b0.
    *(f"{url(f'a{i}', 'x')} {url(f'a{j}', 'y')}" for i in range(4) for j in range(4) if i != j),
    *(f"{url(f'b{i}', 'x')} {url(f'b{j}', 'y')}" for i in range(4) for j in range(4) if i != j),
    f"{url('a3', 'x')} {url('b0', 'x')}",
]


def brute_force_km1(hg, parts: int, epsilon: float) -> int:
    """The minimum connectivity-1 over every balanced assignment of the (few) sites."""
    weights = hg.site_pages.astype(float)
    limit = (1 + epsilon) * weights.sum() / parts
    best = None
    for assignment in itertools.product(range(parts), repeat=hg.n_vertices):
        part = np.array(assignment, dtype=np.int64)
        if np.bincount(part, weights=weights, minlength=parts).max() > limit:
            continue
        cost = hg.connectivity_minus_one(part)
        best = cost if best is None else min(best, cost)
    return best


@needs_kahypar
def test_kahypar_finds_the_optimal_cut_of_a_small_hypergraph(tmp_path):
    g = graph_of(tmp_path, TWO_CLUSTERS)
    hg = site_hypergraph(g)
    assert hg.n_vertices == 8
    optimum = brute_force_km1(hg, 2, 0.05)
    assert optimum == 1  # the clusters apart; only a3/x crosses
    part = partitioners.hypergraph(g, 2, epsilon=0.05, seed=1, hg=hg)
    assert messages(g, part.page_part) == hg.connectivity_minus_one(part.site_part) == optimum
    a_parts = {int(part.site_part[i]) for i, n in enumerate(g.site_names) if n.startswith("a")}
    assert len(a_parts) == 1


@pytest.fixture(scope="module")
def topical():
    """A generated web with topics: 3000 pages on 200 sites, 10 topics."""
    web = generate(3000, 200, seed=3, site_alpha=2.0, intra_fraction=0.92)
    return CrawlGraph.from_web(with_topics(web, 10, locality=0.9, seed=3))


def test_hash_partitions_agree_with_the_crawl_assignments(topical):
    page = partitioners.page_hash(topical, 8)
    site = partitioners.site_hash(topical, 8)
    assert page.site_part is None
    for p, u in enumerate(topical.urls):
        assert page.page_part[p] == PageHash(8).owner(u)
        assert site.page_part[p] == SiteHash(8).owner(u)


@needs_kahypar
def test_hypergraph_is_balanced_deterministic_and_sends_fewer_messages(topical):
    hg = site_hypergraph(topical)
    first = partitioners.partition(topical, 8, "hypergraph", seed=5, hg=hg)
    again = partitioners.partition(topical, 8, "hypergraph", seed=5, hg=hg)
    assert np.array_equal(first.site_part, again.site_part)
    row = partitioners.evaluate(topical, first, hg)
    hashed = partitioners.evaluate(topical, partitioners.site_hash(topical, 8), hg)
    assert row["imbalance_percent"] <= 5.0 + 1e-9
    assert row["messages"] == row["km1"]
    assert row["messages"] * 2 < hashed["messages"]
    assert hashed["messages"] < partitioners.evaluate(
        topical, partitioners.page_hash(topical, 8), hg)["messages"]


@needs_kahypar
def test_graph_without_inter_site_links_packs_sites_for_balance(tmp_path):
    lines = [f"{url(f's{s}', f'p{i}')} {url(f's{s}', f'p{i + 1}')}"
             for s, n in enumerate([4, 4, 3, 3, 2, 2]) for i in range(n - 1)]
    g = graph_of(tmp_path, lines)
    part = partitioners.hypergraph(g, 3, hg=site_hypergraph(g))
    assert messages(g, part.page_part) == 0
    assert imbalance_percent(np.ones(g.n_pages), part.page_part, 3) == 0.0


@pytest.mark.parametrize("method", ["site-hash", pytest.param("hypergraph", marks=needs_kahypar)])
def test_partition_file_round_trips_and_assigns_every_site_once(topical, tmp_path, method):
    part = partitioners.partition(topical, 8, method)
    path = tmp_path / f"{method}.part"
    partitioners.write(part, topical, path)
    rows = [line.split() for line in path.read_text().splitlines() if not line.startswith("#")]
    assert sorted(site for site, _ in rows) == sorted(topical.site_names)  # each exactly once
    table = read_partition_file(path)
    assert table.parts == 8 and table.method == method
    owner = make_assignment(str(path), 8, known_sites=topical.site_names).owner
    assert [owner(u) for u in topical.urls] == part.page_part.tolist()


def test_page_hash_has_no_partition_file(topical, tmp_path):
    with pytest.raises(ValueError, match="no partition file"):
        partitioners.write(partitioners.page_hash(topical, 4), topical, tmp_path / "x")


def test_topics_keep_the_web_invariants_and_reachability():
    web = generate(2000, 100, seed=4)
    topical_web = with_topics(web, 10, locality=1.0, seed=4)
    topical_web.check()
    assert np.array_equal(topical_web.site_start, web.site_start)
    seen = np.zeros(topical_web.size, dtype=bool)
    seen[0] = True
    todo = deque([0])
    while todo:
        for t in topical_web.out_links(todo.popleft()).tolist():
            if not seen[t]:
                seen[t] = True
                todo.append(t)
    assert seen.all()
    topic = np.arange(100) * 10 // 100
    src = np.repeat(np.arange(topical_web.size), topical_web.out_degrees())
    s, t = topic[topical_web.page_site[src]], topic[topical_web.page_site[topical_web.targets]]
    # with locality 1 only the home-page chain leaves a topic: 9 links, one per topic border
    assert np.count_nonzero(s != t) == 9


# -- crawlab partition ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def edges(tmp_path_factory):
    path = tmp_path_factory.mktemp("web") / "edges.txt"
    web = generate(1500, 60, seed=2, site_alpha=2.0, intra_fraction=0.92)
    with_topics(web, 6, locality=0.9, seed=2).export_edges(path)
    return path


@needs_kahypar
def test_cli_json_report_and_partition_file(edges, tmp_path, capsys):
    out = tmp_path / "sites.part"
    assert main(["partition", "--graph", str(edges), "--parts", "4", "--method", "hypergraph",
                 "--out", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    for key in ("method", "parts", "imbalance_percent", "messages", "sites", "pages", "nets",
                "cut_links"):
        assert key in report
    assert report["method"] == "hypergraph" and report["parts"] == 4
    assert report["messages"] == report["km1"] and report["imbalance_percent"] <= 5.0
    assert read_partition_file(out).parts == 4 and report["partition_file"] == str(out)
    assert main(["partition", "--graph", str(edges), "--parts", "4", "--method", "page-hash",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["partition_file"] is None and "no partition file" in report["note"]


def test_cli_table(edges, capsys):
    assert main(["partition", "--graph", str(edges), "-k", "4", "--method", "site-hash"]) == 0
    out = capsys.readouterr().out
    assert "messages" in out and "load imbalance" in out


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "crawlers", "partition", *args],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("make_args, message", [
    (lambda e, t: ["--graph", str(t / "missing.txt"), "--parts", "4"], "graph file not found"),
    (lambda e, t: ["--graph", str(t / "bad.txt"), "--parts", "4"], "expected 'source target'"),
    (lambda e, t: ["--graph", str(t / "empty.txt"), "--parts", "4"], "no links"),
    (lambda e, t: ["--graph", str(e), "--parts", "1"], "at least 2"),
    (lambda e, t: ["--graph", str(e), "--parts", "61"], "only 60 sites"),
    (lambda e, t: ["--graph", str(e), "--parts", "4", "--method", "page-hash", "--out",
                   str(t / "p")], "no partition file"),
    (lambda e, t: ["--graph", str(e), "--parts", "4", "--method", "metis"], "invalid choice"),
], ids=["missing", "malformed", "empty", "K<2", "K>sites", "page-hash-out", "bad-method"])
def test_cli_bad_input_is_one_line_and_exit_2(edges, tmp_path, make_args, message):
    (tmp_path / "bad.txt").write_text("http://a.example/ http://b.example/ extra\n")
    (tmp_path / "empty.txt").write_text("# an edge list without an edge\n\n")
    result = run_cli(*make_args(edges, tmp_path))
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("crawlab partition: error: "), result.stderr
    assert message in lines[0]
    assert result.stdout == ""


# -- the prediction against the BSP engine's count -----------------------------------------------


@pytest.mark.parametrize("method", [pytest.param(m, marks=needs_kahypar) if m == "hypergraph"
                                    else m for m in partitioners.METHODS])
def test_bsp_page_messages_equal_the_predicted_messages(tmp_path, method):
    """A complete BSP crawl of the simulated web (each page fetched once) counts, for each
    fetched page, the distinct other workers its links go to: the model's messages."""
    bsp = pytest.importorskip("crawlers.bsp.driver")
    from crawlers.crawl.targets import WebOptions

    pages, sites, seed, procs = 1200, 30, 7, 3
    graph = CrawlGraph.from_web(generate(pages, sites, seed=seed))
    part = partitioners.partition(graph, procs, method)
    spec = method
    if part.site_part is not None and method == "hypergraph":
        spec = str(tmp_path / f"{method}.part")
        partitioners.write(part, graph, spec)
    report = bsp.run_bsp(bsp.BspConfig(
        web=WebOptions(kind="sim", pages=pages, sites=sites, seed=seed, latency=0.0),
        procs=procs, partition=spec, timeout=60.0))
    assert report.unique_pages == report.pages_fetched == pages, method
    assert report.page_messages == messages(graph, part.page_part), method


@pytest.mark.parametrize("kind", ["fifo", "device", "folder", "large"])
def test_a_partition_file_that_no_partitioner_writes_is_refused_at_once(kind, tmp_path,
                                                                        monkeypatch):
    """A FIFO with no writer would block the read for ever and /dev/zero never ends: each is
    one PartitionFileError before a byte is read (nothing ever writes the FIFO, so only a
    refusal returns), as is a file past the size limit."""
    import os

    from crawlers.partition import assignment

    path = tmp_path / "p.txt"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "device":
        path = Path("/dev/zero")
    else:
        monkeypatch.setattr(assignment, "MAX_PARTITION_BYTES", 10)
        path.write_text("# parts: 2\na.test 0\nb.test 1\n")
    why = "not a regular file" if kind != "large" else "more than a partition file's 10"
    with pytest.raises(assignment.PartitionFileError, match=why):
        assignment.read_partition_file(path)
