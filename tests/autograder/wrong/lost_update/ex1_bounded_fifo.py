"""A WRONG solution of exercise 1: it loses updates. ``put`` holds the lock only to wait for
room, then copies the deque, appends and stores the copy back outside the lock: two puts that
copy the same deque lose one URL (a read-modify-write race). Everything but ``put`` is the
reference solution's."""

from __future__ import annotations

import time
from collections import deque

from frontier.contract import Closed, Full
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
        # WRONG: "the lock is only for waiting": take the deque, append, store it back outside
        # the lock (two puts that take the same deque: one append is lost)
        urls = list(self._urls)
        urls.append(url)
        self._urls = deque(urls)
        with self._lock:
            self.stats.puts += 1
            self._not_empty.notify()
