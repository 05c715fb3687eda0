"""The web generator: determinism, heavy tails, intra-site fraction, PageRank, edge lists."""

from __future__ import annotations

import numpy as np
import pytest

from crawlers.web.webgen import Web, generate


def _same(a: Web, b: Web) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f))
               for f in ("site_start", "offsets", "targets", "page_bytes"))


def test_same_seed_same_web():
    assert _same(generate(seed=7), generate(seed=7))


def test_other_seed_other_web():
    assert not _same(generate(seed=7), generate(seed=8))


def test_sizes_and_invariants():
    web = generate(n_pages=2000, n_sites=25, seed=1)
    web.check()
    assert web.size == 2000 and web.n_sites == 25
    assert web.site_sizes().sum() == 2000 and web.site_sizes().min() >= 1


@pytest.mark.parametrize("fraction", [0.5, 0.85, 0.95])
def test_intra_site_fraction_near_setting(fraction):
    web = generate(n_pages=5000, n_sites=40, seed=3, intra_fraction=fraction)
    assert abs(web.intra_fraction() - fraction) < 0.05


def test_heavy_tails():
    web = generate(n_pages=20000, n_sites=50, seed=2)
    degree = web.out_degrees()
    assert degree.max() > 10 * np.median(degree)  # a few pages with many links
    sizes = web.site_sizes()
    assert sizes.max() > 5 * np.median(sizes)  # a few big sites
    in_degree = np.bincount(web.targets, minlength=web.size)
    assert in_degree.max() > 20 * max(1, np.median(in_degree))


def test_every_page_reachable_from_site0_home():
    web = generate(n_pages=1500, n_sites=12, seed=5)
    seen = np.zeros(web.size, dtype=bool)
    stack = [web.home(0)]
    seen[web.home(0)] = True
    while stack:
        for t in web.out_links(stack.pop()).tolist():
            if not seen[t]:
                seen[t] = True
                stack.append(t)
    assert seen.all()


def test_pagerank_sums_to_one_and_favours_linked_pages():
    web = generate(seed=4)
    rank = web.pagerank()
    assert rank.sum() == pytest.approx(1.0)
    assert (rank > 0).all()
    in_degree = np.bincount(web.targets, minlength=web.size)
    top = np.argsort(-rank)[:30]
    assert in_degree[top].mean() > 3 * in_degree.mean()
    assert web.pagerank() is rank  # cached


def test_pagerank_of_a_known_graph(tmp_path):
    # a -> b, b -> a, c -> a: the classic fixed point with damping 0.85
    path = tmp_path / "edges.txt"
    path.write_text("http://x.test/a http://x.test/b\nhttp://x.test/b http://x.test/a\n"
                    "http://x.test/c http://x.test/a\n")
    web = Web.load_edges(path)
    rank = web.pagerank()
    c = 0.15 / 3
    a = (c + 0.85 * c + 0.85 * c) / (1 - 0.85**2)  # a = c + .85 (b + rc), b = c + .85 a
    assert rank[0] == pytest.approx(a, rel=1e-6)
    assert rank[2] == pytest.approx(c, rel=1e-6)


def test_edge_list_round_trip(tmp_path):
    web = generate(n_pages=800, n_sites=9, seed=6)
    path = tmp_path / "web.edges"
    web.export_edges(path)
    lines = path.read_text().splitlines()
    assert len(lines) == web.n_edges
    assert all(len(line.split()) == 2 for line in lines)
    back = Web.load_edges(path)
    for f in ("site_start", "offsets", "targets"):
        assert np.array_equal(getattr(back, f), getattr(web, f)), f
    assert np.allclose(back.pagerank(), web.pagerank())


def test_load_foreign_edge_list(tmp_path):
    path = tmp_path / "crawl.edges"
    path.write_text("# a crawl\nhttp://b.test/ http://A.test/x#f\n\n"
                    "http://a.test/x http://b.test/\nhttp://a.test/x http://a.test/x\n")
    web = Web.load_edges(path)
    web.check()
    assert web.size == 2 and web.n_sites == 2 and web.n_edges == 2
    addressing = web.logical()
    assert {addressing.url(p) for p in range(2)} == {"http://b.test/", "http://a.test/x"}
    assert addressing.page_of("http://a.test/x") is not None


def test_addressing_round_trip_and_translation():
    web = generate(n_pages=300, n_sites=5, seed=1)
    logical = web.logical()
    served = web.served([8000 + s for s in range(5)])
    for page in (0, 17, 299):
        url = logical.url(page)
        assert url.startswith("http://site") and ".crawlab.test/p" in url
        assert logical.page_of(url) == page
        assert served.page_of(served.url(page)) == page
        assert logical.translate(url, served) == served.url(page)
    assert logical.page_of("http://site0.crawlab.test/nope.html") is None
    assert logical.page_of("http://elsewhere.test/p0.html") is None


def test_large_web_generates(benchmark_size=100_000):
    web = generate(n_pages=benchmark_size, n_sites=300, seed=0)
    assert web.size == benchmark_size
    assert 4 < web.n_edges / web.size < 12


def test_bad_parameters():
    with pytest.raises(ValueError):
        generate(n_pages=3, n_sites=5)
    with pytest.raises(ValueError):
        generate(intra_fraction=1.5)


def test_an_edge_list_without_edges_is_a_value_error(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("# only a comment\n\n")
    with pytest.raises(ValueError, match="no edges"):
        Web.load_edges(path)
