"""Thread timelines: where each robot's time goes, as coloured bars and as a trace file.

Throughput says *that* a frontier is slow; a timeline says *why*. A :class:`Timeline` keeps, for
every thread that records into it, the intervals it spent in one of a few states:

* ``fetch``: inside the fetcher (the network, or the simulated latency);
* ``lock``: blocked acquiring a frontier's lock (it was held by another thread);
* ``not_empty`` / ``not_full``: asleep (or polling) in the frontier until a URL, or room, comes;
* ``polite``: sleeping for the politeness delay of a site;

and ``run`` is the rest of the thread's life (link filtering, the visited set, the frontier's own
work under its lock). The frontier's states come through :mod:`frontier.probe`, a hook that costs
nothing while no timeline is recording.

Recording is cheap: each thread appends ``(state, start, end)`` to its own buffer (no lock; the
buffers are gathered when the crawl is over), with :func:`time.perf_counter` stamps. A buffer is
a flat ``array('d')`` of (state number, start, end), not a list of tuples: a list would keep one
tuple alive per interval, and on a free-threaded 3.13, whose garbage collector is not
generational, every collection walks all of them again (measured: 1.7 µs per record instead of
0.2 µs, 8% of a CPU-bound crawl's time). Thread-safety:
:meth:`Timeline.record` may be called from any thread; :meth:`rows`, :meth:`trace_events`,
:meth:`write_trace` and :meth:`plot` are for after the recording threads have stopped.

Two outputs: :meth:`write_trace` writes the Trace Event Format (JSON) that Perfetto
(ui.perfetto.dev) and ``chrome://tracing`` open; :meth:`plot` draws one row per thread with the
states as coloured bars (matplotlib).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from array import array
from collections.abc import Iterator
from pathlib import Path

__all__ = ["COLOURS", "STATES", "Timeline", "dominant"]

STATES = ("run", "fetch", "lock", "not_empty", "not_full", "polite")
COLOURS = {
    "run": "#4c9f38",  # green: doing the crawl's own work
    "fetch": "#7fb3d5",  # light blue: waiting for the web
    "lock": "#e74c3c",  # red: blocked on a lock another thread holds
    "not_empty": "#f5b041",  # orange: asleep, no URL to take
    "not_full": "#8e44ad",  # purple: asleep, no room to put
    "polite": "#bdc3c7",  # grey: the politeness delay
}


_CODE = {state: float(i) for i, state in enumerate(STATES)}  # a state's number in a buffer


def _life(spans: list[tuple[str, float, float]]) -> tuple[float, float]:
    """A thread's row: from its first stamp to its last (``spans`` not empty)."""
    return min(a for _, a, _ in spans), max(b for _, _, b in spans)


def dominant(spans: list[tuple[str, float, float]], start: float, end: float, bins: int
             ) -> list[tuple[str, float, float]]:
    """A thread's row as drawn: ``(state, left, width)`` bars, one per run of the ``bins``
    equal columns of ``[start, end]`` in which one state took most of the thread's time
    (``run``: its life minus the other states); columns outside its life are left out.

    Drawing every interval instead shows whichever state is drawn last: at zero latency a
    crawl of one second records thousands of intervals per thread, each at least a pixel
    wide, and the picture said "fetch" where the thread spent 90 % of its time on a lock.
    O(intervals + bins)."""
    width = (end - start) / bins
    spent = [[0.0] * len(STATES) for _ in range(bins)]
    for state, a, b in spans:
        a, b = max(a, start), min(b, end)
        if state == "run" or b <= a:
            continue
        k, i, j = int(_CODE[state]), int((a - start) / width), int((b - start) / width)
        i, j = min(i, bins - 1), min(j, bins - 1)
        if i == j:
            spent[i][k] += b - a
            continue
        spent[i][k] += start + (i + 1) * width - a
        for m in range(i + 1, j):
            spent[m][k] += width
        spent[j][k] += b - (start + j * width)
    first, last = _life(spans)
    bars: list[tuple[str, float, float]] = []
    for m, column in enumerate(spent):
        left = start + m * width
        alive = min(last, left + width) - max(first, left)
        if alive <= 0:
            continue
        column[0] = max(alive - sum(column[1:]), 0.0)  # run: what the other states left
        state = STATES[max(range(len(STATES)), key=column.__getitem__)]
        if bars and bars[-1][0] == state and abs(bars[-1][1] + bars[-1][2] - left) < width / 2:
            bars[-1] = (state, bars[-1][1], bars[-1][2] + width)
        else:
            bars.append((state, left, width))
    return bars


class Timeline:
    """Per-thread intervals ``(state, start, end)`` in seconds of :func:`time.perf_counter`.

    Invariant (:meth:`_check`): within one thread, recorded intervals have ``start <= end``
    and a state from :data:`STATES`; a thread's row spans from its first to its last stamp.
    """

    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self._local = threading.local()
        self._threads_lock = threading.Lock()  # guards _threads (each buffer is its thread's)
        self._threads: list[tuple[str, array]] = []

    # -- recording (any thread) ---------------------------------------------------------------

    def _buffer(self) -> array:
        """The calling thread's buffer: (state number, start, end) after one another."""
        try:
            return self._local.buffer
        except AttributeError:
            buffer = array("d")
            self._local.buffer = buffer
            with self._threads_lock:
                self._threads.append((threading.current_thread().name, buffer))
            return buffer

    def record(self, state: str, start: float, end: float) -> None:
        """Record that the calling thread was in ``state`` from ``start`` to ``end``. O(1): one
        thread-local read and one append (the buffer is made on the thread's first record)."""
        try:
            buffer = self._local.buffer
        except AttributeError:
            buffer = self._buffer()
        buffer.append(_CODE[state])  # three appends: cheaper than extend with a tuple
        buffer.append(start)
        buffer.append(end)

    def mark(self, state: str = "run") -> None:
        """A zero-length interval: the calling thread is alive now (starts or ends its row)."""
        now = time.perf_counter()
        self._buffer().extend((_CODE[state], now, now))

    @contextlib.contextmanager
    def span(self, state: str) -> Iterator[None]:
        """Record the ``with`` block as ``state`` for the calling thread."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self._buffer().extend((_CODE[state], start, time.perf_counter()))

    # -- reading (after the threads stopped) --------------------------------------------------

    def rows(self) -> list[tuple[str, list[tuple[str, float, float]]]]:
        """``(thread name, intervals sorted by start)`` per thread, times relative to ``t0``."""
        with self._threads_lock:
            threads = list(self._threads)
        out = []
        for name, buffer in threads:
            flat = iter(buffer.tolist())
            spans = [(STATES[int(c)], a - self.t0, b - self.t0) for c, a, b in
                     zip(flat, flat, flat)]
            out.append((name, sorted(spans, key=lambda x: x[1])))
        return out

    def totals(self) -> dict[str, float]:
        """Seconds spent in each state, summed over threads (``run`` = life minus the rest)."""
        totals = dict.fromkeys(STATES, 0.0)
        for _, spans in self.rows():
            if not spans:
                continue
            first, last = _life(spans)
            life = last - first
            busy = 0.0
            for state, a, b in spans:
                if state != "run":
                    totals[state] += b - a
                    busy += b - a
            totals["run"] += max(0.0, life - busy)
        return totals

    def trace_events(self) -> dict:
        """The Trace Event Format: one complete event (``ph: X``) per interval, one ``tid`` per
        thread, microseconds; thread names as metadata events."""
        events: list[dict] = []
        for tid, (name, spans) in enumerate(self.rows(), start=1):
            events.append({"name": "thread_name", "ph": "M", "pid": 1, "tid": tid,
                           "args": {"name": name}})
            if not spans:
                continue
            first, last = _life(spans)
            events.append({"name": "run", "cat": "thread", "ph": "X", "pid": 1, "tid": tid,
                           "ts": round(first * 1e6, 3), "dur": round((last - first) * 1e6, 3)})
            for state, a, b in spans:
                if state == "run" or b <= a:
                    continue
                events.append({"name": state, "cat": "state", "ph": "X", "pid": 1, "tid": tid,
                               "ts": round(a * 1e6, 3), "dur": round((b - a) * 1e6, 3)})
        return {"traceEvents": events, "displayTimeUnit": "ms"}

    def write_trace(self, path: str | Path) -> Path:
        """Write :meth:`trace_events` as JSON to ``path``; returns the path."""
        path = Path(path)
        path.write_text(json.dumps(self.trace_events()))
        return path

    def plot(self, path: str | Path, title: str = "", window: tuple[float, float] | None = None
             ) -> Path:
        """One row per thread; each pixel column of a row has the colour of the state the
        thread spent most of that column's time in (:func:`dominant`; the exact shares are
        :meth:`totals`). ``window=(start, end)`` in seconds shows only that stretch. Writes a
        PNG readable at a page width of 800 px (10 inches at 100 dpi, no text under 9 points)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch

        rows = [r for r in self.rows() if r[1]]
        height = 0.3 * max(len(rows), 4) + 1.9
        fig, ax = plt.subplots(figsize=(10, height))
        start, end = window if window is not None else (
            min(_life(spans)[0] for _, spans in rows), max(_life(spans)[1] for _, spans in rows))
        for y, (_, spans) in enumerate(rows):
            by_state: dict[str, list[tuple[float, float]]] = {}
            for state, left, width in dominant(spans, start, end, bins=1000):
                by_state.setdefault(state, []).append((left, width))
            for state, bars in by_state.items():
                ax.broken_barh(bars, (y - 0.4, 0.8), color=COLOURS[state], linewidth=0)
        ax.set_yticks(range(len(rows)), [name for name, _ in rows], fontsize=9)
        ax.invert_yaxis()
        ax.set_xlabel("seconds since the crawl started")
        if window is not None:
            ax.set_xlim(*window)
        ax.set_title(title, fontsize=11)
        fig.legend(handles=[Patch(color=COLOURS[s], label=s) for s in STATES],
                   loc="lower center", ncol=len(STATES), fontsize=10, frameon=False)
        fig.tight_layout(rect=(0, 0.45 / height, 1, 1))  # room for the legend at the bottom
        path = Path(path)
        fig.savefig(path, dpi=100)
        plt.close(fig)
        return path

    def _check(self) -> None:
        """Assert the invariant (see the class docstring)."""
        for _, spans in self.rows():
            for state, a, b in spans:
                assert state in STATES, state
                assert a <= b, (state, a, b)
