"""Memory per discovered URL: the visited set and every frontier, at 10^5 and 10^6 URLs.

A crawl remembers every URL it has discovered (the visited set) and holds the ones not yet
fetched (the frontier). Both grow with the crawl, so bytes per URL decide how big a crawl fits
in memory. The lab fills each structure with ``n`` realistic URLs (about 70 characters, as on
the real web) and measures with :mod:`tracemalloc` what the filled structure allocated:

``visited``
    :class:`~crawlers.crawl.visited.VisitedSet` keeps an 8-byte BLAKE2b fingerprint per URL, as a
    Python ``int`` in a ``set``; compared with a ``set`` of the URL strings themselves and
    with the racy variant (which also keeps an owner ``dict``).
``frontier``
    every registered frontier (bounded ones with capacity ``n``) holding all ``n`` URLs.

Two numbers per structure: the **structure** alone (the strings were built before the
measurement, as the extractor builds them before the crawler sees them) and the **total**,
which adds the URL strings the structure keeps alive (``sys.getsizeof`` of each). The
fingerprint set keeps no string, so its total does not depend on the URL length; a set of
strings pays for every character.

The target: the visited set at most 150 bytes per URL at 10^6 URLs.
"""

from __future__ import annotations

import gc
import random
import sys
import time
import tracemalloc
from collections.abc import Callable

import frontier
from crawlers.crawl.visited import RacyVisitedSet, VisitedSet
from labs.crawlbench import make_frontier
from labs.harness import Lab, add_frontier_flag, frontier_names, script

TARGET = 150  # bytes per URL of the visited set at 10^6 URLs

_WORDS = ("docs", "news", "article", "product", "category", "user", "blog", "2023", "2024",
          "index", "search", "about", "help", "api", "reference", "guide", "item", "page",
          "tag", "archive", "en", "static", "download", "release", "wiki", "forum", "thread")
_TLDS = ("com", "org", "net", "de", "co.uk", "edu", "io", "fr")


def realistic_urls(n: int, seed: int = 1) -> list[str]:
    """``n`` distinct URLs shaped like the real web's (host, 1-4 path segments, an id, a
    query string on some): about 70 characters on average. Deterministic in ``seed``."""
    rng = random.Random(seed)
    hosts = [f"www.{rng.choice(_WORDS)}{k}.example.{rng.choice(_TLDS)}" for k in range(5000)]
    out = []
    for i in range(n):
        path = "/".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 4)))
        url = f"https://{rng.choice(hosts)}/{path}/{i}-{rng.choice(_WORDS)}.html"
        if rng.random() < 0.3:
            url += f"?id={rng.randrange(10**6)}&ref={rng.choice(_WORDS)}"
        out.append(url)
    return out


def traced_bytes(build: Callable[[], object]) -> tuple[int, float, object]:
    """``(bytes, seconds, result)``: what ``build()`` allocated and still holds when it
    returns (tracemalloc's current size, after a collection), and how long it took."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        start = time.perf_counter()
        result = build()
        seconds = time.perf_counter() - start
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    return held, seconds, result


def _fill_visited(kind, urls):
    def build():
        v = kind()
        for u in urls:
            v.claim(u)
        return v
    return build


def _fill_frontier(name: str, urls: list[str]):
    def build():
        f = make_frontier(name, capacity=len(urls))
        # priorities are made here, as the crawler makes them: a float per URL
        f.put_many((u, float(i % 1000)) for i, u in enumerate(urls))
        return f
    return build


def measure(name: str, kind: str, build, urls: list[str], keeps_strings: bool,
            string_bytes: float) -> dict:
    """One row: bytes per URL of the structure ``build()`` fills with ``urls``."""
    held, seconds, result = traced_bytes(build)
    n = len(urls)
    if len(result) != n:  # a structure that lost URLs would look cheaper than it is
        raise AssertionError(f"{name} holds {len(result)} of {n} URLs")
    structure = held / n
    strings = string_bytes if keeps_strings else 0.0
    return {"kind": kind, "structure": name, "urls": n,
            "bytes_per_url": structure, "string_bytes_per_url": strings,
            "total_bytes_per_url": structure + strings, "fill_seconds": seconds,
            "fill_us_per_url": seconds / n * 1e6}


def main(argv=None) -> int:
    def extra(parser):
        add_frontier_flag(parser, "all")

    lab = Lab("crawl-memory", __doc__, argv, extra)
    names = frontier_names(lab.args.frontier, frontier.names())
    sizes = (10**5, 10**6)
    frontier_sizes = (10**5,) if lab.quick else sizes
    rows = []
    for n in sizes:
        urls = realistic_urls(n, lab.seed)
        string_bytes = sum(map(sys.getsizeof, urls)) / n
        mean_len = sum(map(len, urls)) / n
        print(f"# {n:,} URLs, mean length {mean_len:.0f} characters, "
              f"{string_bytes:.0f} bytes per str object")
        rows.append(measure("VisitedSet (fingerprints)", "visited", _fill_visited(VisitedSet,
                            urls), urls, False, string_bytes))
        rows.append(measure("RacyVisitedSet", "visited", _fill_visited(RacyVisitedSet, urls),
                            urls, False, string_bytes))
        rows.append(measure("set of URL strings", "visited", lambda u=urls: set(u), urls,
                            True, string_bytes))
        if n in frontier_sizes:
            for name in names:
                rows.append(measure(name, "frontier", _fill_frontier(name, urls), urls, True,
                                    string_bytes))
        del urls
    lab.write_csv(rows)
    lab.table(rows, ["kind", "structure", "urls", "bytes_per_url", "total_bytes_per_url",
                     "fill_us_per_url"])
    big = next(r for r in rows if r["structure"].startswith("VisitedSet")
               and r["urls"] == max(sizes))
    verdict = "meets" if big["total_bytes_per_url"] <= TARGET else "MISSES"
    print(f"# visited set at {big['urls']:,} URLs: {big['total_bytes_per_url']:.0f} bytes/URL "
          f"({verdict} the target of <= {TARGET}); the papers give no memory figure")

    fig, axes = lab.figure("Bytes per URL (tracemalloc; hatched: the URL strings kept)",
                           "", "bytes per URL", ncols=2, size=(12.8, 5.2))
    for ax, kind in zip(axes, ("visited", "frontier")):
        mine = [r for r in rows if r["kind"] == kind]
        labels = [r["structure"] for r in mine if r["urls"] == mine[0]["urls"]]
        ns = sorted({r["urls"] for r in mine})
        width = 0.8 / len(ns)
        for k, n in enumerate(ns):
            at = {r["structure"]: r for r in mine if r["urls"] == n}
            xs = [i + (k - (len(ns) - 1) / 2) * width for i in range(len(labels))]
            own = [at[s]["bytes_per_url"] if s in at else 0 for s in labels]
            strs = [at[s]["string_bytes_per_url"] if s in at else 0 for s in labels]
            bars = ax.bar(xs, own, width, label=f"{n:,} URLs")
            ax.bar(xs, strs, width, bottom=own, color=bars.patches[0].get_facecolor(),
                   alpha=0.35, hatch="//")
        if kind == "visited":
            ax.axhline(TARGET, color="k", linestyle="--", linewidth=1,
                       label=f"target {TARGET} B at 10^6")
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=8)
        ax.set_title(kind)
        ax.set_ylim(0, ax.get_ylim()[1] * 1.2)  # room for the legend above the bars
        ax.legend(fontsize=8, loc="upper left")
    lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(script(main))
