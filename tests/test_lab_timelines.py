"""The timelines lab: three crawls drawn, shares of time that add up, and the cost of recording
measured with the same number of runs on both sides."""

from __future__ import annotations

import csv

from labs import lab_crawl_timelines


def test_the_lab_writes_its_timelines_and_a_fair_overhead_comparison(tmp_path):
    assert lab_crawl_timelines.main(["--quick", "--out", str(tmp_path), "--no-plot"]) == 0
    out = tmp_path / "crawl-timelines"
    rows = list(csv.DictReader((out / "crawl-timelines.csv").open()))
    assert [r["scenario"] for r in rows] == list(lab_crawl_timelines.SCENARIOS)
    for r in rows:
        shares = [float(v) for k, v in r.items() if k.startswith("share_")]
        assert abs(sum(shares) - 1.0) < 0.01, r
        assert int(r["pages_fetched"]) > 0
        assert (out / f"timeline-{r['scenario']}.json").stat().st_size > 0
    cost = list(csv.DictReader((out / "timeline-overhead.csv").open()))
    on = [c for c in cost if c["timeline"] == "True"]
    off = [c for c in cost if c["timeline"] == "False"]
    assert len(on) == len(off) >= 3
