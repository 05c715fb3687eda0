"""frontier-bench: the nothing-shared baseline runs like a frontier, and the 2-thread scaling
table prints it as the machine's ceiling beside the frontiers' ratios."""

from __future__ import annotations

from labs import lab_frontier_bench as fb
from labs.harness import Lab


def test_a_deque_per_thread_is_measured_like_a_frontier():
    row = fb.measure(fb.PRIVATE, 2, 0.05)
    assert row["frontier"] == fb.PRIVATE and row["pairs"] > 0 and row["timeouts"] == 0


def test_the_scaling_table_prints_the_machines_ceiling(tmp_path, capsys):
    lab = Lab("frontier-bench", fb.__doc__, ["--out", str(tmp_path), "--no-plot"])
    rows = [{"frontier": name, "threads": t, "repeat": k, "pairs_per_second": rate * t ** p}
            for k in range(3)
            for name, rate, p in ((fb.PRIVATE, 100.0, 0.9), ("monitor", 80.0, -0.5))
            for t in (1, 2)]
    out = fb.scaling(lab, rows, [fb.PRIVATE, "monitor"])
    ratio = {r["frontier"]: r["median"] for r in out}
    assert abs(ratio[fb.PRIVATE] - 2 ** 0.9) < 1e-9 and abs(ratio["monitor"] - 2 ** -0.5) < 1e-9
    assert f"the machine's ceiling ({fb.PRIVATE}, nothing shared): {2 ** 0.9:.2f}x" in \
        capsys.readouterr().out
