"""The URL frontier: one contract, many synchronization strategies.

>>> import frontier
>>> "monitor" in frontier.names()
True

Importing the package registers the built-in strategies, in the order the course book treats
them: the racy negative example, then the correct FIFO strategies, then the priority queues.
"""

__version__ = "0.1.0"

from frontier.contract import (  # noqa: E402
    DEFAULT_CAPACITY,
    Closed,
    Empty,
    Frontier,
    FrontierStats,
    Full,
    UnknownFrontier,
    create,
    describe,
    info,
    is_live,
    names,
    register,
    thread_handle,
)

# Registration order is the order of names(). Each import registers one strategy.
from frontier import unsynchronized, lockfree, optimistic, semaphore  # noqa: E402, F401, I001
from frontier import monitor, tanenbaum, coarse, fine  # noqa: E402, F401, I001
from frontier import sliced  # noqa: E402, F401, I001
from frontier import heap, cbt, quickheap  # noqa: E402, F401, I001
from frontier import userclass  # noqa: E402, F401, I001  (FILE.py:CLASS names)

__all__ = [
    "DEFAULT_CAPACITY",
    "Closed",
    "Empty",
    "Frontier",
    "FrontierStats",
    "Full",
    "UnknownFrontier",
    "create",
    "describe",
    "info",
    "is_live",
    "names",
    "register",
    "thread_handle",
]
