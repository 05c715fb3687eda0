"""Where a thread waits inside a frontier: the hook that thread timelines record through.

``recorder`` is ``None`` (nothing is recorded) or a callable ``recorder(state, start, end)``
taking :func:`time.perf_counter` stamps, with ``state`` one of ``"lock"`` (blocked acquiring a
lock another thread held), ``"not_empty"`` (asleep or polling until a URL comes) and
``"not_full"`` (until there is room). The frontiers call it only on paths that wait anyway, so
while it is ``None`` the cost is one global lookup on a slow path, and nothing on the fast one.

Thread-safety: install a recorder before the threads start and remove it after they stop;
the recorder itself must be safe to call from any thread (:class:`crawlers` timelines append
to a per-thread buffer).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

__all__ = ["recording", "recorder", "now"]

Recorder = Callable[[str, float, float], None]

recorder: Recorder | None = None
now = time.perf_counter


@contextlib.contextmanager
def recording(fn: Recorder) -> Iterator[None]:
    """Install ``fn`` as the recorder for the ``with`` block (one recorder at a time)."""
    global recorder
    if recorder is not None:
        raise RuntimeError("a timeline is already recording")
    recorder = fn
    try:
        yield
    finally:
        recorder = None
