"""the starter (wrong: NotImplementedError) plus one line written to the judge's pipe
(through threading._os, an alias the static check does not follow) that is valid JSON but not an
object: the judge's _read calls e.get(...) on it and dies with a traceback (no verdict at all)."""
from __future__ import annotations

import threading

__all__ = ["Exchange"]

_t = threading
_fd = _t._os.environ.get("CRAWLAB_GRADE_FD")
if _fd is not None:
    _t._os.write(int(_fd), b"[1]\n")


class Exchange:
    def __init__(self, p: int) -> None:
        self.p = p

    def exchange(self, rank: int, outbox: dict[int, list]) -> list:
        raise NotImplementedError("exercise 4: exchange")
