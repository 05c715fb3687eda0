"""How the MPI launcher names a dead rank, from what Hydra printed (no MPI needed): a rank is
named only when the wait statuses show it alone ended badly. Hydra's banner names the first
rank that a signal ended, and when Hydra reaps the dead rank before reading its closed PMI
socket it SIGKILLs the others without counting them as clean ends: then every rank shows
signal 9, and naming rank 0 (as the banner does) was wrong once in CI when rank 1 was killed."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawlers.bsp.launcher import _death, statuses

BANNER = """
===================================================================================
=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES
=   PID 8035 RUNNING AT vm
=   EXIT CODE: 9
=   CLEANING UP REMAINING PROCESSES
=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES
===================================================================================
"""


def printed(codes: str) -> str:
    return f"{BANNER}[mpiexec@vm] Exit codes: [vm] {codes}\nYOUR APPLICATION TERMINATED\n"


@pytest.mark.parametrize("text, procs, expected", [
    (printed("0,9"), 2, [0, 9]),
    (printed("0,768,0"), 3, [0, 768, 0]),
    (printed("9,9"), 2, [9, 9]),
    (printed("0,9"), 3, None),  # another number of ranks than the job had
    (BANNER, 2, None),  # a Hydra that printed no statuses
    ("[mpiexec@a] Exit codes: [a] 0,9 [b] 0,0\n", 4, None),  # several hosts: order unknown
])
def test_the_wait_statuses_are_read_in_rank_order_or_not_at_all(text, procs, expected):
    assert statuses(text, procs) == expected


def line(tmp_path: Path, text: str, procs: int = 2) -> str:
    return _death(text, procs, str(tmp_path), tmp_path / "mpiexec.log")


def test_the_one_rank_that_ended_badly_is_named_with_how(tmp_path):
    said = line(tmp_path, printed("0,9"))
    assert said.startswith("MPI rank 1 died (killed by SIGKILL, signal 9)")
    assert f"--resume {tmp_path}" in said
    assert line(tmp_path, printed("0,768,0"), 3).startswith("MPI rank 1 died (exit status 3)")


def test_ranks_that_all_ended_badly_are_listed_and_none_is_named(tmp_path):
    said = line(tmp_path, printed("9,9"))
    assert "MPI rank 0 died" not in said and "MPI rank 1 died" not in said
    assert "rank 0 killed by SIGKILL, signal 9, rank 1 killed by SIGKILL, signal 9" in said
    assert "superstep" not in said  # no rank, so no superstep of its journal


def test_without_statuses_the_banner_does_not_name_a_rank(tmp_path):
    said = line(tmp_path, BANNER)
    assert said.startswith("an MPI rank died (mpiexec did not say which)")
