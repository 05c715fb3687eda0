"""Noise: a thread switch offered at random bytecodes of the graded file, so that its races show
under the GIL.

Under the GIL a thread is switched only at the interpreter's few check points, so a read and a
write of ``self.stats.puts += 1`` outside a lock practically never come apart, and a racy
submission passes real-thread checks (or behaves well only when it detects the explorer). With
:func:`noise`, every thread that runs code of the graded files gives up the GIL (``time.sleep(0)``)
before a random ``p`` of its bytecodes, as IBM's ConTest does with its noise makers: the race
shows in the judge's histories, whatever the submission does to look for an explorer.

Seeded: each thread draws from its own generator, seeded by ``seed`` and the thread's order of
arrival. Cost: a trace call per bytecode of the graded files (about 20 times slower there),
nothing elsewhere. Thread-safety: one :func:`noise` at a time per process (it sets the trace
function of every thread started inside it).
"""

from __future__ import annotations

import itertools
import random
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

__all__ = ["noise"]


@contextmanager
def noise(files: Iterable[str], p: float = 0.05, seed: int = 0) -> Iterator[None]:
    """Offer a switch before a random ``p`` of the bytecodes of ``files`` (code file names),
    in this thread and every thread started inside the block."""
    files = frozenset(files)
    arrivals = itertools.count()
    local = threading.local()
    pause = time.sleep

    def step(frame, event, arg):
        if event == "opcode":
            rng = getattr(local, "rng", None)
            if rng is None:
                rng = local.rng = random.Random(f"{seed}:{next(arrivals)}")
            if rng.random() < p:
                pause(0)
        return step

    def enter(frame, event, arg):
        if frame.f_code.co_filename not in files:
            return None
        frame.f_trace_opcodes = True
        return step

    old = sys.gettrace()
    threading.settrace(enter)
    sys.settrace(enter)
    try:
        yield
    finally:
        sys.settrace(old)
        threading.settrace(None)  # type: ignore[arg-type]
