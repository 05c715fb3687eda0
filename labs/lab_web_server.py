"""The local web server is never the bottleneck: 1,000+ slow requests at once, and its pages/s.

Two measurements against the lab web served by :class:`crawlers.web.server.WebServer` (its own
process, one asyncio event loop, one 127.0.0.1 port per site):

``slow``
    C client connections at once (asyncio, keep-alive, this process), each asking for K pages
    with 200 ms of injected latency. By Little's law the concurrency the server sustained is
    L = throughput x mean response time; it should equal C, and the mean response time should
    stay near 200 ms.
``max``
    zero latency, 64 connections for a few seconds: the most pages/s the server delivers. It is
    compared with the fetch-and-parse rate of :class:`crawlers.page.fetch.HttpFetcher` (lxml, 1 and
    16 threads), an upper bound of any crawler built on it: the server must be at least twice as
    fast. (On 2 cores the load generator and the fetcher compete with the server for the CPU, so
    these are lower bounds of the server's capacity.)
"""

from __future__ import annotations

import asyncio
import random
import statistics
import threading
import time

from crawlers.page.fetch import HttpFetcher
from crawlers.web.server import WebServer
from crawlers.web.webgen import generate
from labs.harness import Lab, script
from labs.plotstyle import look


async def _client(port: int, paths: list[str], latencies: list[float], counts: list[int]
                  ) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    try:
        for path in paths:
            start = time.perf_counter()
            writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - start)
            counts[0] += length
    finally:
        writer.close()


async def load(ports: list[int], web, connections: int, per_connection: int, seed: int,
               limit: float) -> dict:
    """``connections`` concurrent keep-alive clients, ``per_connection`` pages each, over all
    sites; bounded by ``limit`` seconds. Returns throughput, latencies and Little's L."""
    rng = random.Random(seed)
    addressing = web.served(ports)
    latencies: list[float] = []
    counts = [0]
    tasks = []
    for c in range(connections):
        site = c % web.n_sites
        first, last = web.home(site), int(web.site_start[site + 1]) - 1
        paths = [web.path(rng.randint(first, last)) for _ in range(per_connection)]
        port = int(addressing.origins[site].rsplit(":", 1)[1])
        tasks.append(_client(port, paths, latencies, counts))
    start = time.perf_counter()
    results = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), limit)
    seconds = time.perf_counter() - start
    failures = sum(isinstance(r, BaseException) for r in results)
    throughput = len(latencies) / seconds
    mean = statistics.fmean(latencies) if latencies else float("nan")
    ordered = sorted(latencies)
    return {"connections": connections, "requests": len(latencies), "failed_clients": failures,
            "seconds": seconds, "requests_per_s": throughput,
            "mb_per_s": counts[0] / seconds / 1e6, "mean_latency_ms": mean * 1000,
            "p99_latency_ms": ordered[int(0.99 * (len(ordered) - 1))] * 1000 if ordered else 0,
            "littles_L": throughput * mean}


def fetcher_rate(urls: list[str], threads: int) -> float:
    """Pages/s of HttpFetcher (fetch + lxml extraction) with ``threads`` threads."""
    with HttpFetcher(pool_size=max(8, threads)) as fetcher:
        chunks = [urls[i::threads] for i in range(threads)]
        pool = [threading.Thread(target=lambda c=c: [fetcher.fetch(u) for u in c])
                for c in chunks]
        start = time.perf_counter()
        for t in pool:
            t.start()
        for t in pool:
            t.join(120)
        return len(urls) / (time.perf_counter() - start)


def main(argv=None) -> int:
    lab = Lab("web-server", __doc__, argv, replot=True)
    web = generate(n_pages=3000, n_sites=30, seed=lab.seed)
    latency = 0.2

    def measure() -> list[dict]:
        rows = []
        levels = (250, 1000, 2000) if lab.quick else (250, 500, 1000, 2000, 3000)
        with WebServer(web, latency=latency, seed=lab.seed) as server:
            for c in levels:
                row = asyncio.run(load(server.ports, web, c, 10 if lab.quick else 20, lab.seed, 90))
                rows.append({"test": "slow", "latency_ms": latency * 1000, **row})
                print(f"# slow: {c} connections -> L = {row['littles_L']:.0f}, "
                      f"mean {row['mean_latency_ms']:.0f} ms, {row['requests_per_s']:.0f} req/s")
        with WebServer(web, latency=0.0, seed=lab.seed) as server:
            seconds_target = 2000 if lab.quick else 6000
            row = asyncio.run(load(server.ports, web, 64, seconds_target // 64, lab.seed, 60))
            rows.append({"test": "max", "latency_ms": 0.0, **row})
            server_rate = row["requests_per_s"]
            rng = random.Random(lab.seed)
            urls = [server.addressing.url(rng.randrange(web.size))
                    for _ in range(600 if lab.quick else 2000)]
            for threads in (1, 16):
                rate = fetcher_rate(urls, threads)
                rows.append({"test": f"HttpFetcher lxml, {threads} thread(s)", "latency_ms": 0.0,
                             "requests": len(urls), "requests_per_s": rate,
                             "server_over_fetcher": server_rate / rate})
        return rows

    rows = lab.rows("web-server", measure)
    lab.table(rows, ["test", "connections", "requests", "requests_per_s", "mb_per_s",
                     "mean_latency_ms", "p99_latency_ms", "littles_L", "failed_clients",
                     "server_over_fetcher"])
    slow = [r for r in rows if r["test"] == "slow"]
    fig, ax = lab.figure(f"Concurrent slow requests ({latency * 1000:g} ms latency, 1 run)",
                         "client connections C", "sustained concurrency L = λW")
    ax.plot([r["connections"] for r in slow], [r["littles_L"] for r in slow],
            label="measured L", **look("measured L", ax))
    ax.plot([r["connections"] for r in slow], [r["connections"] for r in slow], "--",
            color="0.5", label="L = C")
    ax.legend()
    lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(script(main))
