"""Topical webs: the inter-site links of a generated web made to stay mostly within a topic.

:func:`crawlers.web.webgen.generate` draws the target of an inter-site link from the whole web (in
proportion to popularity), so no two sites are closer than any other two: a partition of the
sites has no structure to find, and every assignment sends about the same messages. Real webs
are not like that: a site links mostly to sites of its own language, country or subject (the
paper's de-fr crawl is two national webs). :func:`with_topics` adds that structure to a
generated web and changes nothing else:

* sites are split into ``topics`` runs of consecutive site numbers, of (nearly) equal counts;
  the heavy-tailed site sizes are independent of the site number, so topics hold different
  numbers of pages, as they would;
* each inter-site link whose target lies outside its source's topic is, with probability
  ``locality``, redrawn to a page of another site of the source's topic, in proportion to that
  page's in-degree + 1 (popular pages stay popular); intra-site links are untouched;
* every home page keeps a link from the previous site (site ``s - 1``), so all pages stay
  reachable from the home page of site 0, as :class:`~crawlers.web.webgen.Web` promises.

The result is a new :class:`~crawlers.web.webgen.Web` with the same pages, sites and sizes, the same
seed-determinism (same web, topics, locality and seed: same result), and :meth:`Web.check`
holding. O(pages + links log links), vectorized.
"""

from __future__ import annotations

import numpy as np

from crawlers.web.webgen import Web, from_edges

__all__ = ["site_topics", "with_topics"]


def site_topics(n_sites: int, topics: int) -> np.ndarray:
    """Topic of every site: ``topics`` runs of consecutive sites, sizes differing by <= 1."""
    if not 1 <= topics <= n_sites:
        raise ValueError(f"need 1 <= topics <= {n_sites} sites, got {topics}")
    return (np.arange(n_sites, dtype=np.int64) * topics) // n_sites


def with_topics(web: Web, topics: int, locality: float = 0.9, seed: int = 0) -> Web:
    """``web`` with its inter-site links kept within topics (see the module docstring).

    ``locality`` is the probability that a link leaving its topic is redrawn inside it;
    ``locality=0`` returns the same links (plus the home-page chain). Needs at least two sites
    per topic.
    """
    if not 0.0 <= locality <= 1.0:
        raise ValueError(f"locality must be in [0, 1], got {locality}")
    if topics * 2 > web.n_sites:
        raise ValueError(f"need at least 2 sites per topic: {web.n_sites} sites, {topics} topics")
    rng = np.random.default_rng(seed)
    n = web.size
    topic = site_topics(web.n_sites, topics)
    page_site = web.page_site.astype(np.int64)
    page_topic = topic[page_site]
    src = np.repeat(np.arange(n, dtype=np.int64), web.out_degrees())
    dst = web.targets.astype(np.int64)

    # Popularity proxy: in-degree + 1, cumulated over pages (pages are grouped by site, sites
    # by topic, so every topic owns one contiguous slice of the cumulative array).
    popularity = np.bincount(dst, minlength=n).astype(float) + 1.0
    cumulative = np.concatenate([[0.0], np.cumsum(popularity)])
    first_site = np.searchsorted(topic, np.arange(topics))
    topic_start = np.append(web.site_start[first_site], n)

    leaving = np.flatnonzero((page_topic[src] != page_topic[dst])
                             & (rng.random(len(src)) < locality))
    own_site = page_site[src[leaving]]
    t = page_topic[src[leaving]]
    lo, hi = cumulative[topic_start[t]], cumulative[topic_start[t + 1]]
    pending = np.arange(len(leaving))
    new = np.empty(len(leaving), dtype=np.int64)
    for _ in range(30):  # a draw on the source's own site is drawn again
        u = lo[pending] + rng.random(len(pending)) * (hi[pending] - lo[pending])
        pick = np.searchsorted(cumulative, u, side="right") - 1
        pick = np.clip(pick, topic_start[t[pending]], topic_start[t[pending] + 1] - 1)
        new[pending] = pick
        pending = pending[page_site[pick] == own_site[pending]]
        if len(pending) == 0:
            break
    if len(pending):  # a site holding most of its topic's popularity: any other page of the topic
        begin, end = topic_start[t[pending]], topic_start[t[pending] + 1]
        own_begin = web.site_start[own_site[pending]]
        own_size = web.site_start[own_site[pending] + 1] - own_begin
        pick = begin + np.floor(rng.random(len(pending)) * (end - begin - own_size)).astype(
            np.int64)
        new[pending] = np.where(pick >= own_begin, pick + own_size, pick)
    dst = dst.copy()
    dst[leaving] = new

    # The home-page chain: a random page of site s-1 links to the home page of site s.
    later = np.arange(1, web.n_sites)
    sizes = web.site_sizes()
    chain_src = web.site_start[later - 1] + np.floor(
        rng.random(len(later)) * sizes[later - 1]).astype(np.int64)
    src = np.concatenate([src, chain_src])
    dst = np.concatenate([dst, web.site_start[later]])
    return from_edges(web.site_start, src, dst, web.page_bytes, seed=web.seed, names=web.names)
