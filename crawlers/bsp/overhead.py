"""The cost of a superstep's synchronization alone, on either backend.

A superstep of the engine ends with three collectives: the all-to-all exchange (with its
barrier), the gather of the reports and the allreduce that decides whether to stop. Here P
workers run ``rounds`` supersteps that do nothing else, each sending ``urls`` URLs to every
other worker, and the mean wall time per superstep is reported: the floor under any BSP
crawl's superstep on this machine.

Processes (from Python)::

    from crawlers.bsp.overhead import processes_overhead
    processes_overhead(procs=4, rounds=200, urls=0)   # seconds per superstep

MPI (every rank runs it; rank 0 prints one JSON line)::

    mpiexec -n 4 python -m crawlers.bsp.overhead --rounds 200 --urls 0
"""

from __future__ import annotations

import json
import time
from typing import Any

from crawlers.args import OneLineParser, non_negative_int, positive_int
from crawlers.bsp.transport import ProcessGroup, ProcessTransport, Transport

__all__ = ["mpi_overhead", "processes_overhead", "supersteps"]


def supersteps(t: Transport, rounds: int, urls: int) -> float:
    """Run ``rounds`` empty supersteps on ``t``; return seconds per superstep."""
    message = [(f"http://site{i}.crawlab.test/p0.html", 0.5) for i in range(urls)]
    out = [message if j != t.rank else [] for j in range(t.size)]
    t.barrier()
    t0 = time.perf_counter()
    for _ in range(rounds):
        t.alltoall(out)
        t.gather(None)
        t.allreduce_sum((0, 0, 0, 0))  # the engine's stop vote: four numbers
    return (time.perf_counter() - t0) / rounds


def _worker(rank: int, size: int, rounds: int, urls: int, conn: Any) -> None:
    t = ProcessTransport(rank, size, conn, timeout=60.0)
    supersteps(t, rounds, urls)
    t.close("done")


def processes_overhead(procs: int, rounds: int = 200, urls: int = 0) -> float:
    """Seconds per empty superstep with ``procs`` worker processes, timed at the coordinator
    from the first barrier to the last reply. Starts and stops its own processes."""
    group = ProcessGroup(procs, timeout=60.0)
    marks: list[float] = []
    try:
        group.start(_worker, lambda r: (r, procs, rounds, urls))
        group.serve(lambda steps: None, lambda: marks.append(time.perf_counter()))
        end = time.perf_counter()
    finally:
        group.stop()
    return (end - marks[0]) / rounds


def mpi_overhead(rounds: int = 200, urls: int = 0) -> float | None:
    """Seconds per empty superstep on ``COMM_WORLD`` (rank 0's measure; ``None`` elsewhere)."""
    from mpi4py import MPI

    from crawlers.bsp.transport import MpiTransport

    t = MpiTransport(MPI.COMM_WORLD.Get_size())
    seconds = supersteps(t, rounds, urls)
    return seconds if t.rank == 0 else None


def main() -> None:
    p = OneLineParser(prog="python -m crawlers.bsp.overhead",
                      description="time empty supersteps under MPI")
    p.add_argument("--rounds", type=positive_int, default=200)
    p.add_argument("--urls", type=non_negative_int, default=0)
    a = p.parse_args()
    seconds = mpi_overhead(a.rounds, a.urls)
    if seconds is not None:
        from mpi4py import MPI

        print(json.dumps({"backend": "mpi", "procs": MPI.COMM_WORLD.Get_size(),
                          "rounds": a.rounds, "urls": a.urls, "seconds": seconds}))


if __name__ == "__main__":
    main()
