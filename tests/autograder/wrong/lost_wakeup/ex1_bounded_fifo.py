"""A WRONG solution of exercise 1: it loses wake-ups. It signals only on the empty -> non-empty
and full -> non-full edges, as ``tanenbaum`` does, so with two sleepers one of them is never
woken. Everything but ``put`` and ``get`` is the reference solution's."""

from __future__ import annotations

import time

from frontier.contract import Closed, Empty, Full
from tests.autograder.wrong import reference_bounded_fifo


class BoundedFifo(reference_bounded_fifo()):
    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            self.stats.lock_acquisitions += 1
            while len(self._urls) >= self.capacity and not self._closed:
                if not self._wait(self._not_full, deadline):
                    raise Full
            if self._closed:
                raise Closed(self.name)
            self._urls.append(url)
            self.stats.puts += 1
            if len(self._urls) == 1:  # WRONG: signals only when the frontier stops being empty
                self._not_empty.notify()

    def get(self, timeout: float | None = None) -> str | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            self.stats.lock_acquisitions += 1
            while not self._urls:
                if self._closed:
                    return None
                if not self._wait(self._not_empty, deadline):
                    raise Empty
            url = self._urls.popleft()
            self.stats.gets += 1
            if len(self._urls) == self.capacity - 1:  # WRONG: only when it stops being full
                self._not_full.notify()
            return url
