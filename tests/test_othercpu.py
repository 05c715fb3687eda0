"""labs.othercpu: the share of the machine other work took, read from /proc/stat less the
lab's own CPU, and the rule that voids a wall-clock verdict."""

from __future__ import annotations

import math
import os
import threading
import time

import pytest

from labs.othercpu import BUSY_SHARE, busy_reason, machine_cpu, others_share


def test_others_are_the_machines_busy_seconds_less_the_labs_own():
    # 2 cores for 10 s: 20 CPU seconds; 9 busy, 5 of them the lab's: others took 4 / 20
    assert others_share((100.0, 0.0), (109.0, 10.0), own_cpu_s=5.0, cores=2) == pytest.approx(0.2)
    assert others_share((100.0, 0.0), (104.9, 10.0), own_cpu_s=5.0, cores=2) == 0.0  # clipped
    assert math.isnan(others_share(None, (1.0, 1.0), 0.0, 2))
    assert math.isnan(others_share((1.0, 1.0), (2.0, 1.0), 0.0, 2))  # no time passed


def test_a_busy_round_or_an_unknown_one_voids_the_verdict():
    assert busy_reason([0.01, BUSY_SHARE]) == ""
    assert "other work took 30% of the machine" in busy_reason([0.02, 0.3])
    assert "not measured" in busy_reason([0.01, float("nan")])
    assert "not measured" in busy_reason([])


def test_busy_is_all_but_idle_and_iowait_with_steal(tmp_path):
    """user nice system idle iowait irq softirq steal guest guest_nice, in clock ticks."""
    hz = os.sysconf("SC_CLK_TCK")
    stat = tmp_path / "stat"
    stat.write_text(f"cpu  {hz} {2 * hz} {3 * hz} {1000 * hz} {500 * hz} {4 * hz} {5 * hz} "
                    f"{6 * hz} {7 * hz} 0\ncpu0 1 2 3 4 5 6 7 8 9 0\n")
    busy, _ = machine_cpu(str(stat))
    assert busy == pytest.approx(1 + 2 + 3 + 4 + 5 + 6)  # guest is inside user already
    stat.write_text("intr 1 2 3\n")
    assert machine_cpu(str(stat)) is None
    assert machine_cpu(str(tmp_path / "missing")) is None


@pytest.mark.skipif(machine_cpu() is None, reason="needs Linux's /proc/stat")
def test_cpu_this_process_burns_shows_in_the_machines_busy_seconds():
    """A thread spinning for 0.3 CPU seconds: the machine's busy seconds grow by at least
    most of it (other work can only add)."""
    stop = threading.Event()

    def spin():
        start = time.thread_time()
        while time.thread_time() - start < 0.3:
            pass
        stop.set()
    before = machine_cpu()
    worker = threading.Thread(target=spin)
    worker.start()
    assert stop.wait(timeout=60)
    worker.join(timeout=60)
    after = machine_cpu()
    assert after[0] - before[0] >= 0.25 and after[1] > before[1]
