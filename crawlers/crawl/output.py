"""Crawl output that survives an interrupted run: one JSON line per page, an edge list.

``pages.jsonl`` gets one JSON object per fetch and ``edges.txt`` one ``source_url target_url``
pair per discovered link (the plain edge-list format every crawlab tool reads). Both are written
line by line and flushed after every page, so a crawl stopped by Ctrl-C, an error or a kill
loses at most the page being written. ``summary.json`` is written by :meth:`CrawlOutput.close`.
"""

from __future__ import annotations

import json
import os
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

    def __init__(self, directory: str | Path, resume_at: tuple[int, int] | None = None) -> None:
        """``resume_at``: the :meth:`offsets` of an earlier session to continue from (what
        was written after them, by a session that died, is cut off); default: start afresh."""
        self.dir = Path(directory)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            files = []
            for name, offset in zip(("pages.jsonl", "edges.txt"), resume_at or (None, None)):
                if offset is None:
                    files.append(open(self.dir / name, "w", encoding="utf-8"))
                else:
                    os.truncate(self.dir / name, offset)
                    files.append(open(self.dir / name, "a", encoding="utf-8"))
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
            if summary is not None:
                (self.dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
            for f in (self._pages, self._edges):
                if not f.closed:
                    f.close()
