"""Link extraction and threads: lxml vs bs4 vs Scrapy's LinkExtractor, 1 and 16 threads.

BeautifulSoup on its lxml tree builder calls back into Python for every start tag, end tag
and text node, re-taking the GIL each time; ``lxml.html`` parses the whole page in C and we
then read a few ``href`` attributes. With threads, the first convoys on the GIL and the
second does not. The lab measures both, and Scrapy's ``LinkExtractor`` (if scrapy is
installed), on the same pages, in the same process, two ways:

``extract``
    extraction alone: pages already in memory, a pool of T threads, each extractor run on
    every page;
``crawl``
    the pages served locally (``crawlab serve --dir``, a separate process) and fetched by
    :class:`crawlers.page.fetch.HttpFetcher` with T threads: the real fetch-and-parse loop of a
    crawler, where the GIL is shared with ``requests``.

Reported: pages/s, CPU user and system seconds of this process (system time is where futex
contention shows), and each extractor's speed relative to lxml with one thread.

The pages are documentation-like HTML of about 96 KB (syntax-highlighted code blocks, long
navigation sidebars), generated deterministically into a temporary folder, or any local
tree of ``.html`` files given with ``--pages-dir`` (e.g. a Sphinx build).
"""

from __future__ import annotations

import queue
import random
import resource
import tempfile
import threading
import time
from pathlib import Path

from crawlers.page.extract import EXTRACTORS
from crawlers.page.fetch import HttpFetcher
from crawlers.web.server import WebServer
from labs.harness import Lab, script

THREADS = (1, 16)
_IDENT = ("frontier", "queue", "lock", "url", "page", "site", "crawler", "thread", "heap",
          "fetch", "parse", "robots", "delay", "seed", "self", "result", "links", "visited")


def _code_block(rng: random.Random, lines: int) -> str:
    out = ['<div class="highlight-python notranslate"><div class="highlight"><pre><span></span>']
    for _ in range(lines):
        tokens = []
        for _ in range(rng.randint(3, 9)):
            kind = rng.choice(("n", "o", "p", "k", "s2", "mi", "nb", "nf"))
            tokens.append(f'<span class="{kind}">{rng.choice(_IDENT)}</span>')
        out.append(" ".join(tokens) + "\n")
    out.append("</pre></div></div>")
    return "".join(out)


def make_doc_pages(folder: Path, count: int, seed: int, target_bytes: int = 96_000) -> list[Path]:
    """Write ``count`` Sphinx-like pages of about ``target_bytes`` each (deterministic)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    names = [f"page{i:03d}.html" for i in range(count)]
    sidebar = "".join(f'<li class="toctree-l2"><a class="reference internal" href="{n}">'
                      f"Section {i}</a></li>" for i, n in enumerate(names))
    paths = []
    for i, name in enumerate(names):
        parts = [f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
                 f"<title>Page {i}</title><link rel=\"stylesheet\" href=\"_static/a.css\">"
                 f'</head><body><div class="sidebar"><ul>{sidebar}</ul></div>'
                 f'<div class="body" role="main"><h1>Page {i}</h1>']
        size = sum(map(len, parts))
        while size < target_bytes:
            words = " ".join(rng.choice(_IDENT) for _ in range(rng.randint(20, 60)))
            link = rng.choice(names)
            para = (f'<p>{words} <code class="docutils literal"><span class="pre">'
                    f'{rng.choice(_IDENT)}()</span></code> see <a class="reference internal" '
                    f'href="{link}#sec-{rng.randint(0, 9)}"><span class="std">{link}</span></a>'
                    f' and <a href="https://docs.python.org/3/library/{rng.choice(_IDENT)}'
                    f'.html">docs</a>.</p>')
            block = _code_block(rng, rng.randint(4, 14))
            parts += [f'<section id="sec-{len(parts)}"><h2>Heading</h2>', para, block,
                      "</section>"]
            size += len(para) + len(block) + 40
        parts.append("</div></body></html>\n")
        path = folder / name
        path.write_text("".join(parts))
        paths.append(path)
    (folder / "index.html").write_text(
        "<html><body>" + "".join(f'<a href="{n}">{n}</a>' for n in names) + "</body></html>")
    return paths


def _cpu() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


def _run_pool(threads: int, items: list, work) -> float:
    """Run ``work(item)`` for every item on ``threads`` threads; return wall seconds."""
    jobs: queue.SimpleQueue = queue.SimpleQueue()
    for item in items:
        jobs.put(item)
    for _ in range(threads):
        jobs.put(None)

    def worker() -> None:
        while (item := jobs.get()) is not None:
            work(item)

    pool = [threading.Thread(target=worker, daemon=True) for _ in range(threads)]
    start = time.perf_counter()
    for t in pool:
        t.start()
    for t in pool:
        t.join(600)
    return time.perf_counter() - start


def measure(mode: str, parser: str, threads: int, items: list, work) -> dict:
    """One measurement: pages/s and CPU user/system seconds of this process."""
    user0, sys0 = _cpu()
    seconds = _run_pool(threads, items, work)
    user1, sys1 = _cpu()
    return {"mode": mode, "parser": parser, "threads": threads, "pages": len(items),
            "seconds": seconds, "pages_per_s": len(items) / seconds,
            "cpu_user_s": user1 - user0, "cpu_sys_s": sys1 - sys0}


def available_parsers() -> list[str]:
    """lxml, bs4, and scrapy when it is installed (with a message when it is not)."""
    parsers = ["lxml", "bs4"]
    try:
        import scrapy  # noqa: F401

        parsers.append("scrapy")
    except ImportError:
        print("# scrapy is not installed: its LinkExtractor is skipped "
              "(pip install scrapy to compare)")
    return parsers


def _measure_all(lab: Lab) -> list[dict]:
    """Every row of the lab: each parser at each thread count, extracting then crawling."""
    if lab.args.pages_dir is not None:
        root = lab.args.pages_dir
        if not root.is_dir():
            from labs.harness import LabError

            raise LabError(f"unknown directory: {root}")
        paths = sorted(root.rglob("*.html"))[: 60 if lab.quick else 400]
    else:  # generated pages live in a temporary folder, not among the results
        scratch = tempfile.TemporaryDirectory(prefix="crawlab-pages-")
        root = Path(scratch.name)
        paths = make_doc_pages(root, 40 if lab.quick else 150, lab.seed)
    bodies = [p.read_bytes() for p in paths]
    average = sum(map(len, bodies)) / len(bodies) / 1024
    print(f"# {len(bodies)} pages from {root}, average {average:.0f} KiB")
    parsers = available_parsers()
    reps = 1 if lab.quick else 3
    rows = []

    items = [(f"http://docs.test/{p.relative_to(root).as_posix()}", b)
             for p, b in zip(paths, bodies)] * reps
    for parser in parsers:
        extract = EXTRACTORS[parser]
        extract(items[0][1], items[0][0])  # warm up imports
        for threads in THREADS:
            rows.append(measure("extract", parser, threads, items,
                                lambda item, f=extract: f(item[1], item[0])))

    with WebServer(dirs=[str(root)]) as server:
        base = server.site_urls[0] + "/"
        urls = [base + p.relative_to(root).as_posix() for p in paths] * reps
        for parser in parsers:
            for threads in THREADS:
                with HttpFetcher(parser=parser, pool_size=max(threads, 8),
                                 max_bytes=10_000_000) as fetcher:
                    fetcher.fetch(urls[0])
                    errors = []
                    row = measure("crawl", parser, threads, urls,
                                  lambda u, f=fetcher, e=errors: e.append(f.fetch(u).error))
                    row["errors"] = sum(e is not None for e in errors)
                    rows.append(row)

    for mode in ("extract", "crawl"):
        ref = next(r for r in rows if r["mode"] == mode and r["parser"] == "lxml"
                   and r["threads"] == 1)["pages_per_s"]
        for r in rows:
            if r["mode"] == mode:
                r["vs_lxml_1_thread"] = r["pages_per_s"] / ref
    for mode_rows in ([r for r in rows if r["mode"] == m] for m in ("extract", "crawl")):
        for r in mode_rows:
            one = next(x for x in mode_rows if x["parser"] == r["parser"] and x["threads"] == 1)
            r["vs_own_1_thread"] = r["pages_per_s"] / one["pages_per_s"]
    return rows


def main(argv=None) -> int:
    def extra(parser):
        parser.add_argument("--pages-dir", type=Path, default=None,
                            help="a local tree of .html files to use instead of generated pages")

    lab = Lab("extractors", __doc__, argv, extra, replot=True)
    rows = lab.rows("extractors", lambda: _measure_all(lab))
    parsers = list(dict.fromkeys(r["parser"] for r in rows))
    lab.table(rows, ["mode", "parser", "threads", "pages_per_s", "cpu_user_s", "cpu_sys_s",
                     "vs_lxml_1_thread", "vs_own_1_thread"])

    fig, axes = lab.figure("Link extraction with threads (same pages, same process)",
                           "parser", "pages/s", ncols=2)
    for ax, mode in zip(axes, ("extract", "crawl")):
        width = 0.38
        for k, threads in enumerate(THREADS):
            mine = [r for r in rows if r["mode"] == mode and r["threads"] == threads]
            ax.bar([i + (k - 0.5) * width for i in range(len(mine))],
                   [r["pages_per_s"] for r in mine], width,
                   label=f"{threads} thread{'' if threads == 1 else 's'}")
        ax.set_xticks(range(len(parsers)), parsers)
        ax.set_title(mode)
        ax.legend(fontsize=8)
    lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(script(main))
