"""How much of the machine other work took while a lab measured: CPU seconds of everything on
the machine (``/proc/stat``, the host's *steal* included) less the lab's own processes.

The 1-minute load average cannot say it: it is a decaying average over the last minutes, so
right after a 16-thread crawl it still counts that crawl's threads, and a round that follows
another reads "busy" from the lab's own work. Linux only; elsewhere the share is unknown
(``nan``), and a verdict that needs it is not given.
"""

from __future__ import annotations

import os
import time

__all__ = ["BUSY_SHARE", "busy_reason", "machine_cpu", "others_share"]

# /proc/stat's first line: user nice system idle iowait irq softirq steal guest guest_nice.
# Busy is all but idle and iowait; guest time is already inside user (not counted twice).
_BUSY = (0, 1, 2, 5, 6, 7)


def machine_cpu(path: str = "/proc/stat") -> tuple[float, float] | None:
    """The machine's busy CPU seconds so far (steal included) and a monotonic wall clock, or
    ``None`` where ``/proc/stat`` cannot be read."""
    try:
        with open(path) as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu" or len(fields) < 9:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    busy = sum(int(fields[1 + i]) for i in _BUSY) / ticks
    return busy, time.monotonic()


def others_share(before: tuple[float, float] | None, after: tuple[float, float] | None,
                 own_cpu_s: float, cores: int) -> float:
    """The share of the machine (``cores`` times the wall-clock seconds between the readings)
    that processes other than the lab's took: machine busy seconds less ``own_cpu_s`` (the
    CPU seconds of the lab's processes over the same span). ``nan`` if a reading is missing;
    clipped at 0 (the clocks tick at different rates, so a quiet machine can read a hair
    below)."""
    if before is None or after is None or own_cpu_s != own_cpu_s:
        return float("nan")
    wall = after[1] - before[1]
    if wall <= 0 or cores < 1:
        return float("nan")
    return max(0.0, (after[0] - before[0] - own_cpu_s) / (cores * wall))


BUSY_SHARE = 0.10  # other work above this share of the machine in a round voids its verdict


def busy_reason(shares: list[float]) -> str:
    """Why the rounds' ``others_share`` readings void a wall-clock verdict, or ``""`` when
    every round had the machine to itself within :data:`BUSY_SHARE`. Unknown is not quiet: a
    round with no reading voids it too."""
    if not shares or any(s != s for s in shares):
        return "cannot judge (the other work on the machine was not measured)"
    top = max(shares)
    if top > BUSY_SHARE:
        return (f"cannot judge (other work took {top:.0%} of the machine in a round, more than "
                f"{BUSY_SHARE:.0%}: the wall-clock share of the ceiling is no verdict)")
    return ""
