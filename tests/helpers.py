"""Helpers shared by the tests: frontier lists, and threads with bounded waits."""

from __future__ import annotations

import threading

import frontier

ALL = frontier.names()
# correct and live: safe, and every wake-up arrives (tanenbaum is safe but loses wake-ups)
CORRECT = [n for n in ALL if frontier.info(n).correct and frontier.is_live(frontier.info(n))]
BOUNDED = [n for n in ALL if frontier.info(n).bounded]


def make(name: str, capacity: int | None = None):
    """A fresh frontier; ``capacity`` is passed only to bounded ones."""
    if capacity is not None and frontier.info(name).bounded:
        return frontier.create(name, capacity=capacity)
    return frontier.create(name)


def start_thread(target, *args) -> threading.Thread:
    """Start a daemon thread (a stuck one can never keep pytest alive)."""
    t = threading.Thread(target=target, args=args, daemon=True)
    t.start()
    return t


def join_all(threads, timeout: float) -> None:
    """Join every thread within ``timeout`` seconds in all; fail (never hang) if one is stuck."""
    import time

    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    stuck = [t.name for t in threads if t.is_alive()]
    assert not stuck, f"threads still running after {timeout} s (deadlock?): {stuck}"


def raw_get(port: int, target: str, timeout: float = 3.0) -> tuple[int, bytes]:
    """Status and body of one request sent exactly as written (no client-side normalization),
    on its own connection to 127.0.0.1, read until the server closes it."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body
