"""Reading a file the user names, as hostile input: a trace file, a partition file.

:func:`read_regular` refuses, before a byte is read, what is not a regular file (a folder, a
FIFO that would block the read for ever, a device such as ``/dev/zero`` that never ends) and a
file larger than the caller's limit, checked on the open file and again on what was read (a
file that grew while read is not cut short silently).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["read_regular"]


def read_regular(path: str | Path, limit: int, what: str) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes, else
    :class:`OSError` whose message says which (``what`` names the file's kind in it:
    ``"a trace file's"``). O(size); opened non-blocking, so no file makes it wait."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError("not a regular file (a folder, a FIFO or a device)")
        if st.st_size > limit:
            raise OSError(f"{st.st_size:,} bytes, more than {what} {limit:,}")
        with open(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:  # grew while read
        raise OSError(f"more than {what} {limit:,} bytes")
    return data
