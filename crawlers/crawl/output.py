"""Crawl output that survives an interrupted run: one JSON line per page, an edge list.

``pages.jsonl`` gets one JSON object per fetch and ``edges.txt`` one ``source_url target_url``
pair per discovered link (the plain edge-list format every crawlab tool reads). Both are written
line by line and flushed after every page, so a crawl stopped by Ctrl-C, an error or a kill
loses at most the page being written. ``summary.json`` is written by :meth:`CrawlOutput.close`.

A resumed crawl continues the files of its earlier sessions. The BSP crawl knows where they
ended (``resume_at``, offsets in its journal); the threaded crawl knows which pages its journal
holds as fetched (``keep``): their lines are kept, and lines of any other page (fetched by a
session that died before its journal committed the page, so fetched again now) and a line cut
short by the kill are dropped, so each page is in the files once.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

from crawlers.page.fetch import FetchResult

__all__ = ["CrawlOutput"]


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
            files = []
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
            raise ValueError(f"cannot write to {directory}: {exc.strerror}") from None
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


def _keep(path: Path, urls: set[str], page: bool) -> int:
    """Rewrite ``path`` with only its whole lines that belong to a page in ``urls`` (a
    ``pages.jsonl`` record's ``url`` if ``page``, its first line per page; else an edge's
    source); returns how many pages (or edge lines) were kept. Written to a temporary file,
    then renamed over the file (a link's target, for a symbolic link): a kill leaves the old
    file or the new, never half of one. A missing file keeps nothing; anything but a regular
    file is a ValueError. O(size of the file)."""
    if not path.exists():
        return 0
    path = path.resolve()
    if not path.is_file():
        raise ValueError(f"{path} is not a regular file")
    kept, seen = [], set()
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.endswith("\n"):  # cut short by a kill
                continue
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
                kept.append(line)
    tmp = path.with_name(path.name + ".resume")
    with open(tmp, "w", encoding="utf-8") as f:
        f.writelines(kept)
    os.replace(tmp, path)
    return len(kept)
