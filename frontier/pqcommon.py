"""What the priority storages ``heap``, ``cbt`` and ``quickheap`` share: keys, URLs, options.

The key of a URL
----------------
Every URL put into a priority storage gets a *key*, the complex number ::

    key = complex(-priority, seq)

where ``seq`` is the storage's arrival counter (0, 1, 2 ...). NumPy orders complex numbers
lexicographically (real part first, then imaginary part), so the *smallest* key is the URL with
the *largest* priority and, among equal priorities, the one that arrived first. Keys are unique,
so the order is total: **all three storages hand URLs out in exactly the same order**, largest
priority first and first-in first-out among equal priorities (``0.0`` and ``-0.0`` are equal).
That one decision is what makes the tests simple to state (every storage equals ``heapq`` fed
``(-priority, seq, url)``), the comparison-counting twins provably identical, and disk mode
identical to RAM mode.

A key is 16 bytes (two float64): what the disk mode writes to its blocks. ``seq`` is exact up to
2**53 arrivals. The URL strings themselves stay in a RAM table ``seq -> url``
(:class:`UrlTable`), as a real crawler keeps them in its URL database.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from frontier.contract import check_priority

__all__ = [
    "KEY_DTYPE",
    "UrlTable",
    "check_int_option",
    "check_disk_options",
    "keys_of",
]

KEY_DTYPE = np.complex128
"""One key: real part ``-priority``, imaginary part the arrival number (see module docstring)."""


def check_int_option(name: str, value: object, minimum: int = 1) -> int:
    """Return ``value`` if it is an ``int`` >= ``minimum``; :class:`ValueError` naming it else."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def check_disk_options(disk: object, cache_blocks: object, block_size: object) -> None:
    """Validate the secondary-memory options shared by the three storages."""
    if disk is not None and not isinstance(disk, (str, os.PathLike)):
        raise ValueError(f"disk must be None or a path (file or directory), got {disk!r}")
    if disk is not None and not Path(disk).parent.exists():
        raise ValueError(f"disk: folder {Path(disk).parent} does not exist")
    check_int_option("cache_blocks", cache_blocks, 1)
    check_int_option("block_size", block_size, 1)


def _priorities(pairs: list[tuple[str, float]]) -> np.ndarray:
    """The priorities of ``pairs`` as float64, every one checked by ``check_priority``'s rules.

    Fast path: when every priority is a Python ``float``, one NumPy conversion and one NaN test.
    """
    prios = [p for _, p in pairs]
    if all(type(p) is float for p in prios):
        arr = np.array(prios, dtype=np.float64)
        if np.isnan(arr).any():
            raise ValueError("priority must be a real number, got NaN")
        return arr
    return np.array([check_priority(p) for p in prios], dtype=np.float64)


def keys_of(priorities: np.ndarray, seq0: int) -> np.ndarray:
    """Keys for ``priorities`` arriving as numbers ``seq0, seq0+1, ...``. O(m)."""
    keys = np.empty(len(priorities), dtype=KEY_DTYPE)
    keys.real = -priorities
    keys.imag = np.arange(seq0, seq0 + len(priorities), dtype=np.float64)
    return keys


class UrlTable:
    """The URLs of a storage, by arrival number, and the arrival counter itself.

    Invariant: ``urls`` maps the ``seq`` of every key held by the storage to its URL, and nothing
    else; ``next_seq`` exceeds every ``seq`` ever issued.
    """

    __slots__ = ("urls", "next_seq")

    def __init__(self) -> None:
        self.urls: dict[int, str] = {}
        self.next_seq = 0

    def key(self, url: str, priority: object) -> complex:
        """Check ``priority``, remember ``url`` and return its key. O(1)."""
        p = check_priority(priority)
        s = self.next_seq
        self.next_seq = s + 1
        self.urls[s] = url
        return complex(-p, s)

    def keys(self, pairs: Iterable[tuple[str, float]]) -> np.ndarray:
        """Check every priority first (nothing is stored if one is bad), then remember the
        URLs and return their keys in arrival order. O(m)."""
        pairs = pairs if isinstance(pairs, list) else list(pairs)
        prios = _priorities(pairs)
        s = self.next_seq
        self.next_seq = s + len(pairs)
        self.urls.update(zip(range(s, s + len(pairs)), [u for u, _ in pairs]))
        return keys_of(prios, s)

    def take(self, keys: np.ndarray) -> list[str]:
        """Forget and return the URLs of ``keys`` (in the order given). O(len(keys))."""
        pop = self.urls.pop
        return [pop(s) for s in keys.imag.astype(np.int64).tolist()]

    def take_one(self, key: complex) -> str:
        return self.urls.pop(int(key.imag))

    def __len__(self) -> int:
        return len(self.urls)

    def check(self, keys: np.ndarray) -> None:
        """Assert that the table holds exactly the URLs of ``keys``."""
        seqs = keys.imag.astype(np.int64)
        assert len(seqs) == len(self.urls), (len(seqs), len(self.urls))
        assert set(seqs.tolist()) == set(self.urls), "URL table and keys disagree"
        if len(seqs):
            assert seqs.max() < self.next_seq
