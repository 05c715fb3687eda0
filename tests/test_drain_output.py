"""``drain_output``: an aborting MPI rank waits until the launcher has read what it wrote,
since MPICH's Hydra drops what is still in a rank's pipe when it handles ``MPI_Abort`` (the
line that blames a student's frontier was lost so in CI). A pipe stands in for the launcher's;
the test plays the launcher, reading while the rank waits."""

from __future__ import annotations

import os
import time
import types

import pytest

from crawlers.bsp import transport
from crawlers.bsp.transport import drain_output


@pytest.fixture
def pipe():
    r, w = os.pipe()
    yield r, w
    for fd in (r, w):
        try:
            os.close(fd)
        except OSError:
            pass


def test_a_pipe_nobody_reads_is_not_drained_and_keeps_its_bytes(pipe):
    r, w = pipe
    os.write(w, b"crawlab bsp: your frontier failed\n")
    t0 = time.monotonic()
    assert drain_output(w, patience=0.05) is False
    assert time.monotonic() - t0 >= 0.05  # it waited its patience out, no less
    assert os.read(r, 100) == b"crawlab bsp: your frontier failed\n"


def test_an_empty_pipe_is_drained_at_once(pipe):
    _, w = pipe
    assert drain_output(w, patience=0.0) is True


def test_it_waits_until_the_reader_has_read_everything(pipe, monkeypatch):
    """The launcher reads only after the rank has begun to wait (the rank's first pause),
    and in two parts: drained only after the second."""
    r, w = pipe
    os.write(w, b"x" * 1000)
    reads = []

    def launcher_reads(_seconds):  # stands in for the rank's pause: the launcher reads then
        reads.append(os.read(r, 600))

    monkeypatch.setattr(transport, "time", types.SimpleNamespace(
        monotonic=time.monotonic, sleep=launcher_reads))
    assert drain_output(w, patience=60) is True
    assert [len(part) for part in reads] == [600, 400]


def test_what_is_no_pipe_has_nothing_to_wait_for(tmp_path):
    with open(tmp_path / "log", "w") as f:
        f.write("unflushed")
        assert drain_output(f.fileno(), patience=60) is True
    assert drain_output(10_000, patience=60) is True  # a closed descriptor
