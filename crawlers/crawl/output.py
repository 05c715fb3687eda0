"""Crawl output that survives an interrupted run: one JSON line per page, an edge list.

``pages.jsonl`` gets one JSON object per fetch and ``edges.txt`` one ``source_url target_url``
pair per discovered link (the plain edge-list format every crawlab tool reads). Both are written
line by line and flushed after every page, so a crawl stopped by Ctrl-C, an error or a kill
loses at most the page being written. ``summary.json`` is written by :meth:`CrawlOutput.close`.

A resumed crawl continues the files of its earlier sessions. The BSP crawl knows where they
ended (``resume_at``, offsets in its journal); the threaded crawl knows which pages its journal
holds as fetched (``keep``): their lines are kept, and lines of any other page (fetched by a
session that died before its journal committed the page, so fetched again now) and a line cut
short by the kill are dropped, so each page is in the files once. A file larger than
:data:`MAX_KEPT_BYTES`, or with a line longer than :data:`MAX_KEPT_LINE`, is refused (a
ValueError, one line naming the file) before it is read or rewritten.
"""

from __future__ import annotations

import itertools
import json
import os
import stat
import tempfile
import threading
from pathlib import Path
from typing import Any

from crawlers.page.fetch import FetchResult

__all__ = ["MAX_KEPT_BYTES", "MAX_KEPT_LINE", "CrawlOutput"]

MAX_KEPT_BYTES = 2**30
"""The largest ``pages.jsonl`` or ``edges.txt`` a resumed crawl reads back to keep its pages
(1 GiB: some 15 million links); a larger file is refused before a byte of it is read."""
MAX_KEPT_LINE = 2**24
"""The longest line (16 MiB) a resumed crawl reads back from them, far beyond any the crawl
writes (its links are cut at ``--max-url-length``)."""


class CrawlOutput:
    """A thread-safe sink for :class:`~crawlers.crawl.crawler.Crawler` writing into ``directory``.

    Each ``page``/``edges`` call is O(size of what it writes) and holds one lock while it writes
    and flushes, so lines from different robots never interleave.
    """

    def __init__(self, directory: str | Path, resume_at: tuple[int, int] | None = None,
                 keep: set[str] | None = None) -> None:
        """``resume_at``: the :meth:`offsets` of an earlier session to continue from (what
        was written after them, by a session that died, is cut off); ``keep``: the page URLs
        whose lines to keep from earlier sessions (see the module docstring; :attr:`kept`
        counts the pages kept); neither: start afresh. O(size of the files kept)."""
        self.dir = Path(directory)
        self.kept = 0
        files: list[Any] = []  # closed again if a later file is refused
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            for name in ("pages.jsonl", "edges.txt", "summary.json"):
                path = self.dir / name  # a FIFO would block the crawl at its first write
                if path.exists() and not path.is_file():
                    raise ValueError(f"{path} is not a regular file (a FIFO, a device or a "
                                     "folder): the crawl writes its output there")
            for name, offset in zip(("pages.jsonl", "edges.txt"), resume_at or ()):
                size = (self.dir / name).stat().st_size if (self.dir / name).exists() else 0
                if offset > size:  # checked before either file is cut
                    raise ValueError(f"cannot continue {self.dir / name}: the journal says "
                                     f"{offset:,} bytes were written, the file has {size:,}")
            for name in ("pages.jsonl", "edges.txt") if keep is not None else ():
                _check_size(self.dir / name)  # both, before either is rewritten
            for name, offset in zip(("pages.jsonl", "edges.txt"), resume_at or (None, None)):
                if offset is not None:
                    os.truncate(self.dir / name, offset)
                elif keep is not None:
                    kept = _keep(self.dir / name, keep, page=name == "pages.jsonl")
                    if name == "pages.jsonl":
                        self.kept = kept
                mode = "w" if offset is None and keep is None else "a"
                files.append(open(self.dir / name, mode, encoding="utf-8"))
            self._pages, self._edges = files
        except OSError as exc:
            _close(files)
            raise ValueError(f"cannot write to {directory}: {exc.strerror}") from None
        except ValueError:
            _close(files)
            raise
        # _write_lock guards both files.
        self._write_lock = threading.Lock()

    def page(self, result: FetchResult) -> None:
        """Append one page record and flush."""
        record = {
            "url": result.url,
            "final_url": result.final_url,
            "status": result.status,
            "content_type": result.content_type,
            "size": result.size,
            "links": len(result.links),
            "error": result.error,
            "elapsed": round(result.elapsed, 6),
        }
        line = json.dumps(record, separators=(",", ":")) + "\n"
        with self._write_lock:
            self._pages.write(line)
            self._pages.flush()

    def edges(self, source: str, targets: list[str]) -> None:
        """Append ``source target`` for every link and flush."""
        if not targets:
            return
        text = "".join(f"{source} {t}\n" for t in targets)
        with self._write_lock:
            self._edges.write(text)
            self._edges.flush()

    def offsets(self) -> tuple[int, int]:
        """Where both files end now (a resumed crawl continues from there)."""
        with self._write_lock:
            return self._pages.tell(), self._edges.tell()

    def close(self, summary: dict[str, Any] | None = None) -> None:
        """Close the files, writing ``summary.json`` first if given. Idempotent."""
        with self._write_lock:
            if summary is not None:  # a new file renamed over the name: a FIFO put there
                # during the crawl is replaced, never opened (and waited on)
                with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=self.dir,
                                                 prefix=".summary-", delete=False) as f:
                    f.write(json.dumps(summary, indent=2) + "\n")
                os.chmod(f.name, 0o644)  # as any file the crawl writes, not the temp's 0600
                os.replace(f.name, self.dir / "summary.json")
            for f in (self._pages, self._edges):
                if not f.closed:
                    f.close()


def _close(files: list) -> None:
    for f in files:
        f.close()


def _check_size(path: Path, size: int | None = None) -> None:
    """A ValueError if ``path`` (of ``size`` bytes, else its size now; missing: 0) is larger
    than :data:`MAX_KEPT_BYTES`."""
    if size is None:
        size = path.stat().st_size if path.is_file() else 0
    if size > MAX_KEPT_BYTES:
        raise ValueError(f"{path}: {size:,} bytes, more than the {MAX_KEPT_BYTES:,} a resumed "
                         "crawl reads back; move it aside to resume")


def _keep(path: Path, urls: set[str], page: bool) -> int:
    """Rewrite ``path`` with only its whole lines that belong to a page in ``urls`` (a
    ``pages.jsonl`` record's ``url`` if ``page``, its first line per page; else an edge's
    source); returns how many pages (or edge lines) were kept. Written to a temporary file,
    then renamed over the file (a link's target, for a symbolic link): a kill leaves the old
    file or the new, never half of one. A missing file keeps nothing; anything but a regular
    file, a file of more than :data:`MAX_KEPT_BYTES` or a line of more than
    :data:`MAX_KEPT_LINE` bytes is a ValueError, and the file is left as it was. O(size of
    the file), in memory O(longest line)."""
    if not path.exists():
        return 0
    path = path.resolve()
    if not path.is_file():
        raise ValueError(f"{path} is not a regular file")
    kept, seen = 0, set()
    tmp = path.with_name(path.name + ".resume")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # replaced by a FIFO meanwhile: no hang
    with open(fd, "rb") as f, open(tmp, "w", encoding="utf-8") as out:
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise ValueError(f"{path} is not a regular file")
            _check_size(path, st.st_size)
            os.set_blocking(fd, True)
            read = 0
            for number in itertools.count(1):
                raw = f.readline(MAX_KEPT_LINE + 1)
                read += len(raw)
                if not raw:
                    break
                if len(raw) > MAX_KEPT_LINE:
                    raise ValueError(f"{path}:{number}: a line of more than {MAX_KEPT_LINE:,} "
                                     "bytes, which no crawl writes; move the file aside to "
                                     "resume")
                if read > MAX_KEPT_BYTES:  # grew while read
                    raise ValueError(f"{path}: more than the {MAX_KEPT_BYTES:,} bytes a "
                                     "resumed crawl reads back; move it aside to resume")
                if not raw.endswith(b"\n"):  # cut short by a kill
                    continue
                line = raw.decode("utf-8", errors="replace")
                if page:
                    try:
                        url = json.loads(line).get("url")
                    except (ValueError, AttributeError, RecursionError):
                        continue
                    if not isinstance(url, str) or url in seen:
                        continue
                    seen.add(url)
                else:
                    url = line.split(" ", 1)[0]
                if url in urls:
                    out.write(line)
                    kept += 1
        except BaseException:
            out.close()
            tmp.unlink(missing_ok=True)
            raise
    os.replace(tmp, path)
    return kept
