"""The profile lab (``crawlab lab ft-profile``): which samples it keeps, how it turns them into
CPU per pair, how it ranks the functions, and what it says without ``perf``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from crawlers.cli import main
from labs import lab_ft_profile as lab

SCRIPT = """\
  1804      55b7b32aaff6 type_ready
  1807      55b7b3193580 _PyEval_EvalFrameDefault
  1807      55b7b326619d _Py_DecRefShared
  1808      55b7b326619d _Py_DecRefShared
  1808  ffffffff81689095 mem_cgroup_from_task
  1808      7fa5bd37321d
"""


def test_only_the_worker_threads_samples_are_counted():
    """1804 is the main thread (imports, start-up): its samples are not the benchmark's."""
    counts = lab.parse_script(SCRIPT, {1807, 1808})
    assert counts == {"_PyEval_EvalFrameDefault": 1, "_Py_DecRefShared": 2,
                      "mem_cgroup_from_task": 1, "[unknown]": 1}
    assert lab.parse_script(SCRIPT, {1804}) == {"type_ready": 1}


@pytest.mark.parametrize("line", ["# a header", "1807", "\u00b2 55b7b3193580 f", "-1 55b7 f"])
def test_a_line_of_another_shape_is_refused(line):
    """A thread id of ASCII digits only: ``\u00b2`` is a digit to str.isdigit, not to int."""
    with pytest.raises(ValueError, match="not a perf script line"):
        lab.parse_script(line + "\n", {1})


def test_cpu_per_pair_is_shared_out_by_samples_and_adds_up():
    cost = lab.cost_per_pair({"a": 3, "b": 1}, cpu_seconds=2.0, pairs=1000)
    assert cost == pytest.approx({"a": 1.5e6, "b": 0.5e6})  # ns: 2 ms a pair, 3 to 1
    assert sum(cost.values()) == pytest.approx(2.0 * 1e9 / 1000)
    with pytest.raises(ValueError):
        lab.cost_per_pair({}, 1.0, 10)


def test_functions_are_ranked_by_growth_and_a_round_without_samples_counts_zero():
    rows = [{"frontier": "f", "threads": t, "repeat": k, "function": fn, "ns_per_pair": ns}
            for t, k, fn, ns in [
                (1, 0, "(all)", 100), (1, 1, "(all)", 110), (1, 2, "(all)", 90),
                (2, 0, "(all)", 300), (2, 1, "(all)", 200), (2, 2, "(all)", 250),
                (1, 0, "grows", 10), (1, 1, "grows", 10), (1, 2, "grows", 10),
                (2, 0, "grows", 90), (2, 1, "grows", 80), (2, 2, "grows", 70),
                (2, 0, "once", 500),  # sampled in one 2-thread round of three only
                (1, 0, "_Py_DecRefShared", 5), (1, 1, "_Py_DecRefShared", 5),
                (1, 2, "_Py_DecRefShared", 5)]]  # shrinks: last
    out = lab.summarize(rows)
    assert [s["function"] for s in out] == ["(all)", "grows", "once", "_Py_DecRefShared"]
    once = next(s for s in out if s["function"] == "once")
    assert (once["ns_1t"], once["ns_2t"], once["ns_2t_min"], once["ns_2t_max"]) == (0, 0, 0, 500)
    grows = next(s for s in out if s["function"] == "grows")
    assert grows["growth_ns"] == 70 and grows["rounds"] == 3 and not grows["counting"]
    assert out[-1]["counting"] and out[-1]["role"].startswith("decrements")
    assert out[0]["ns_1t"] == 100 and out[0]["ns_2t"] == 250


def test_without_perf_the_lab_says_so_in_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    assert main(["lab", "ft-profile", "--no-plot", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "perf is not installed" in err and err.count("\n") == 1, err


def _perf_works() -> str | None:
    perf = shutil.which("perf")
    if perf is None:
        return None
    probe = subprocess.run([perf, "record", "-q", "-o", "/dev/null", "--", sys.executable,
                            "-c", "pass"], capture_output=True, timeout=60)
    return perf if probe.returncode == 0 else None


def test_a_cell_under_perf_gives_the_worker_threads_cpu_by_function(tmp_path: Path):
    perf = _perf_works()
    if perf is None:
        pytest.skip("needs perf, allowed to sample this user's processes")
    cost = lab.profile("lockfree", 1, 0.3, perf, tmp_path)
    whole = cost.pop("(all)")
    assert whole > 0 and sum(cost.values()) == pytest.approx(whole)
    # the loop's thread runs Python: the interpreter is in its profile; the imports of the
    # main thread before it (the module finder, the unmarshaller) are not
    assert "_PyEval_EvalFrameDefault" in cost
    assert not any(f.startswith(("r_object", "PyMarshal")) for f in cost), sorted(cost)
