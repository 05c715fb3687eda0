"""The crawl journal: a threaded crawl's state on disk, so that a killed crawl resumes.

``crawlab crawl --state DIR`` keeps in ``DIR/journal.sqlite`` (SQLite, WAL mode, the standard
library's ``sqlite3``) one row per URL the crawl discovered: its priority, and once it was
fetched, that it is done (with its status and error). The frontier's contents are the rows not
done. Started again with the same ``DIR``, the crawl resumes: done URLs are not fetched again,
the others go back into the frontier with their priorities.

**What a commit holds.** A fetched page's record (done, status) and the rows of the new links
it found go into the journal *in the same transaction*: a page is never marked done without its
links. So in every committed state each URL the crawl reached is either done, with its links
discovered, or discovered and not done (back in the frontier on resume), and by induction from
the seeds a resumed crawl reaches every page an uninterrupted one does: a crash loses no page,
whatever moment it strikes. (Robots hand the record over before they put the links into the
frontier, so records are committed in the order the crawl discovered them; this keeps the
journal easy to reason about, but no page would be lost without it.)

**Group commit.** Records wait in memory and are committed ``commit_every`` at a time (and at
least every ``commit_ms`` milliseconds, by a flusher thread); each commit is one ``fsync`` of
the write-ahead log (``PRAGMA synchronous=FULL``). Invariant: at most ``commit_every`` records
are ever uncommitted; a robot whose record would exceed that waits until the batch is
committed. After ``kill -9``, the pages fetched again on resume are the uncommitted records
(at most ``commit_every``) plus the pages whose fetch had started but whose record was not yet
queued (at most one per robot): **the re-fetch bound is threads + commit_every** per crash.

**Counting re-fetches.** Before each fetch, a robot appends ``session<TAB>url`` to
``DIR/started.log`` with one unbuffered ``write`` on an ``O_APPEND`` file, without ``fsync``:
the kernel keeps what a killed process wrote (only a power loss can drop its tail). The log is
not part of the crawl's state (deleting it changes no page); it only lets the report say how
many pages were fetched in more than one session (``refetched``). A started log larger than
:data:`MAX_STARTED_LOG_BYTES` when the journal opens is refused (one line, exit 2) before a byte
of it is read; at the end of a session it is read back only up to what was there at opening plus
what this session wrote.

**One crawl at a time.** While a journal is open its folder is locked: an exclusive
``fcntl.flock`` on ``DIR/crawl.lock`` (:func:`hold_folder`), taken before anything in the folder
is read and held until :meth:`Journal.close`. A second crawl given the same ``DIR`` meanwhile is
refused at once (:class:`JournalError`, one line): two crawls on one journal both fetched every
page the other had not committed yet (602 fetches for a 400-page web). The kernel drops the lock
when its holder's process ends, however it ends, so a ``kill -9`` leaves no stale lock; the
empty lock file stays and is not part of the crawl's state.

Bad journals never start a fresh crawl silently: an unreadable, truncated or foreign file, a
journal made for other seeds, one that holds pages or sessions but no seeds (its seeds' record
deleted), a row no crawl writes (a URL that is not text, a priority that is not a finite number,
a done or clean flag that is not 0 or 1, threads or commit grouping out of range), meta records
that are not the JSON this module writes (however deeply nested), or a started log that is not a
regular file (a directory, a FIFO) raise :class:`JournalError` (a ``ValueError``: one line,
exit 2 on the command line). Opening checks all of it, once, in O(rows). The started log is only
read back to count re-fetches, as bytes: a line that is not UTF-8 counts as it is, never an
error that would lose the crawl's report.

**What defines the crawl.** Given ``crawl`` (a dict, flag to value: ``crawlab crawl`` passes the
web, ``--sim``, ``--seed-url``, ``--pages``, ``--sites``, ``--seed``), the journal keeps it in
meta ``'crawl'`` when its first session begins, and refuses to resume with another one, naming
the flags that differ: the pages it holds belong to that web. Everything else (the frontier,
threads, budgets, latency, limits, commit grouping) may change from one session to the next.
A journal of an older crawlab that kept no such record is resumed on its seeds' check alone
(:attr:`Journal.unrecorded` says so, for the caller to tell the user) and records ``crawl``
from then on.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crawlers.args import MAX_COMMIT_EVERY, MAX_THREADS

__all__ = ["FORMAT", "LOCK", "Journal", "JournalError", "Restored", "code_in", "count_refetched",
           "MAX_STARTED_LOG_BYTES", "hold_folder", "release_folder", "started_lines",
           "started_log_problem"]

FORMAT = "crawlab-journal-1"  # meta 'format': the schema version this module reads and writes
DB, LOG = "journal.sqlite", "started.log"
LOCK = "crawl.lock"  # the journal folder's lock file (hold_folder), for BSP journals too
MAX_STARTED_LOG_BYTES = 2**30
"""The largest started log a resumed crawl reads back (1 GiB: some 15 million fetches of
60-byte lines); a larger one is refused when the journal opens, before a byte is read."""

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE url(
    url TEXT PRIMARY KEY,
    priority REAL NOT NULL,
    done INTEGER NOT NULL DEFAULT 0,
    status INTEGER,
    error TEXT,
    session INTEGER
);
CREATE TABLE session(
    id INTEGER PRIMARY KEY,
    threads INTEGER NOT NULL,
    commit_every INTEGER NOT NULL,
    clean INTEGER NOT NULL DEFAULT 0
);
"""


def started_lines(session: int, urls: Iterable[str]) -> bytes:
    """The started-log lines (``session<TAB>url``) of ``urls``, for one ``write``."""
    return "".join(f"{session}\t{u}\n" for u in urls).encode()


def count_refetched(logs: Iterable[str | Path], limit: int | None = None) -> int:
    """Pages started in more than one session, summed over the extra sessions, from started
    logs (missing ones skipped; a torn last line ignored). Lines are compared as bytes, so a
    line that is not UTF-8 counts as it is, never an error. A log of more than ``limit`` bytes
    (when given) is a :class:`JournalError`, before a byte of it is read. O(lines of the
    logs)."""
    sessions: dict[bytes, set[bytes]] = {}
    for path in logs:
        for line in _complete_lines(path, limit):
            session, _, url = line.partition(b"\t")
            sessions.setdefault(url, set()).add(session)
    return sum(len(s) - 1 for s in sessions.values())


def _complete_lines(path: str | Path, limit: int | None = None) -> Iterator[bytes]:
    """The lines of the started log ``path`` that end in a newline (without it), up to a torn
    last line; none if ``path`` is missing or not a regular file (opened non-blocking, so a
    FIFO there cannot hang the reader). More than ``limit`` bytes (when given), checked on the
    open file and again on what is read, is a :class:`JournalError`. O(lines)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        return
    if limit is not None and st.st_size > limit:
        os.close(fd)
        raise JournalError(_too_large(path, st.st_size, limit))
    os.set_blocking(fd, True)
    with open(fd, "rb") as f:
        for line in f if limit is None else _bounded(f, path, limit):
            if not line.endswith(b"\n"):
                return
            yield line[:-1]


def _bounded(f: Any, path: str | Path, limit: int) -> Iterator[bytes]:
    """The lines of binary file ``f`` within its first ``limit`` bytes; a file that grew past
    them while read is a :class:`JournalError` (no line longer than ``limit`` is held)."""
    read = 0
    while line := f.readline(limit - read + 1):
        read += len(line)
        if read > limit:
            raise JournalError(_too_large(path, read, limit))
        yield line


def started_log_problem(path: str | Path) -> str | None:
    """Why the started log ``path`` cannot be appended to and read back: not a regular file
    (a link, a folder, a FIFO), or larger than :data:`MAX_STARTED_LOG_BYTES`; None if it can,
    or is missing. One ``lstat``: for a check before the crawl begins (BSP's ranks open theirs
    later, each in its own process)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return (f"{path} is not a regular file (a link, a folder or a FIFO); a started log "
                "only counts re-fetches: remove it to resume")
    if st.st_size > MAX_STARTED_LOG_BYTES:
        return _too_large(path, st.st_size, MAX_STARTED_LOG_BYTES)
    return None


def _too_large(path: str | Path, size: int, limit: int) -> str:
    return (f"{path}: {size:,} bytes or more, more than the {limit:,} a journal's started log "
            "is read up to (it only counts re-fetches: remove it to resume)")


def _json(text: Any) -> Any:
    """The JSON value of a meta record, or ``None`` if it is not JSON (nested too deep to parse,
    or not text at all). O(len(text))."""
    try:
        return json.loads(text)
    except (ValueError, TypeError, RecursionError):
        return None


def _flat(value: Any) -> bool:
    """Whether a recorded flag's value is what :meth:`Journal._check_crawl` compares and shows:
    a JSON scalar or a list of scalars (never deeper). O(len(value))."""
    items = value if isinstance(value, list) else [value]
    return not any(isinstance(v, (list, dict)) for v in items)


def _printable(text: str) -> str:
    """``text`` with control characters (a newline) escaped: an error stays on one line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _in_range(value: Any, high: int) -> bool:
    """Whether ``value`` is an ``int`` (not a ``bool``) from 1 to ``high``."""
    return not isinstance(value, bool) and isinstance(value, int) and 1 <= value <= high


def _shown(value: Any) -> str:
    """A recorded flag's value as the user would read it (at most 100 characters)."""
    if value is None or value is False or value == []:
        return "not given"
    if value is True:
        return "given"
    text = " ".join(map(str, value)) if isinstance(value, list) else str(value)
    return _printable(text if len(text) <= 100 else text[:97] + "...")


def code_in(db: sqlite3.Connection) -> str | None:
    """The first trigger or view of a journal's database, described (``"a trigger 'x'"``), or
    None. No crawl makes one; a trigger runs SQL of its own at the crawl's writes (a
    ``RAISE(ABORT)`` failed the crawl's close with a traceback; others could rewrite what the
    crawl keeps), so a journal holding one is refused. Used by the BSP journal too. O(schema)."""
    row = db.execute("SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') "
                     "LIMIT 1").fetchone()
    return None if row is None else f"a {row[0]} {str(row[1])[:100]!r}"


class JournalError(ValueError):
    """The journal cannot be used: unreadable, corrupt, foreign, or made for another crawl."""


def hold_folder(directory: str | Path, error: type[ValueError] = JournalError) -> int:
    """Lock the journal folder ``directory`` (which exists) for this process: an exclusive,
    non-blocking ``flock`` on ``directory/LOCK`` (made if missing), held until the returned
    descriptor is closed (:func:`release_folder`) or the process ends, however it ends (the
    kernel drops it: a ``kill -9`` leaves no stale lock). A folder another crawl holds, or a
    lock file that is not a regular file (a link is not followed, a FIFO is not waited on), is
    ``error`` (one line). The descriptor is not inherited by child processes. O(1)."""
    path = Path(directory) / LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
                     | os.O_CLOEXEC, 0o644)
    except OSError as exc:  # ELOOP: a link; EISDIR: a folder
        why = "not a regular file" if exc.errno in (errno.ELOOP, errno.EISDIR) else exc.strerror
        raise error(f"cannot lock the journal folder {directory} ({path}: {why})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise error(f"cannot lock the journal folder {directory} ({path}: not a regular file)")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise error(f"{directory} is in use by another crawl (it holds the lock "
                        f"{LOCK}): wait for that crawl to end, or give another folder") from None
        raise error(f"cannot lock the journal folder {directory} ({exc.strerror})") from None
    return fd


def release_folder(fd: int) -> None:
    """Release a lock :func:`hold_folder` took (closing its descriptor drops it)."""
    os.close(fd)


# What every row a crawl writes satisfies (column check, what a row that fails it lacks), in
# SQL: :meth:`Journal._check_rows` refuses a journal with any other row.
_ROWS = {
    "url": (
        ("typeof(url) = 'text'", "its url is not text"),
        ("(url GLOB 'http://?*' OR url GLOB 'https://?*') AND instr(url, char(0)) = 0 AND NOT "
         "url GLOB '*[' || char(" + ", ".join(map(str, [*range(1, 33), 127])) + ") || ']*'",
         "its url is not an http(s) URL without spaces or control characters, as a crawl "
         "writes"),
        ("typeof(priority) IN ('integer', 'real') AND abs(priority) <= 1.7976931348623157e308",
         "its priority is not a finite number"),
        ("typeof(done) = 'integer' AND done IN (0, 1)", "its done flag is not 0 or 1"),
    ),
    "session": (
        (f"typeof(threads) = 'integer' AND threads BETWEEN 1 AND {MAX_THREADS}",
         f"its threads are not a number from 1 to {MAX_THREADS}"),
        (f"typeof(commit_every) = 'integer' AND commit_every BETWEEN 1 AND {MAX_COMMIT_EVERY}",
         f"its commit_every is not a number from 1 to {MAX_COMMIT_EVERY}"),
        ("typeof(clean) = 'integer' AND clean IN (0, 1)", "its clean flag is not 0 or 1"),
    ),
}


@dataclass
class Restored:
    """What a resumed crawl starts from: ``done`` URLs (fetched in earlier sessions), the
    ``frontier`` (discovered, not done, with priorities, in discovery order), and
    ``refetch_bound``: the re-fetches the earlier sessions may cost, threads + commit_every
    for each session that did not end cleanly (a crash), and threads for each that did (a
    ``--seconds`` or Ctrl-C stop cuts at most one fetch per robot, fetched again later)."""

    done: list[str]
    frontier: list[tuple[str, float]]
    refetch_bound: int


class Journal:
    """A crawl's journal in ``directory``; thread-safe. Opening locks the folder (one crawl at a
    time, :func:`hold_folder`) and checks the files (an existing
    journal must be readable and ours, every row one a crawl writes, the started log a regular
    file, see :class:`JournalError`), in O(rows); :meth:`begin` starts a session.
    :meth:`record` is O(links) and blocks only while ``commit_every`` records wait for a commit;
    a commit is O(records) plus one ``fsync``."""

    def __init__(self, directory: str | Path, *, commit_every: int = 64,
                 commit_ms: float = 1000.0, crawl: dict[str, Any] | None = None) -> None:
        if not _in_range(commit_every, MAX_COMMIT_EVERY):
            raise ValueError(f"commit_every must be an integer from 1 to {MAX_COMMIT_EVERY}, "
                             f"got {commit_every!r}")
        if not commit_ms > 0:
            raise ValueError(f"commit_ms must be positive, got {commit_ms!r}")
        self.dir = Path(directory)
        self.commit_every = commit_every
        self.commit_ms = commit_ms
        self.path = self.dir / DB
        if not self.dir.exists():
            try:
                self.dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise JournalError(f"cannot create {self.dir}: {exc.strerror}") from None
        # the folder is this crawl's before anything in it is read (see "One crawl at a time")
        self._lock_fd = hold_folder(self.dir)
        try:
            self._open(crawl)
        except BaseException:
            release_folder(self._lock_fd)
            raise
        self.session = 0
        self.commits = 0
        # _commit_lock serializes commits (one transaction at a time on the connection).
        self._commit_lock = threading.Lock()
        # _buffer_lock guards _buffer (records queued, not yet committed, in queue order);
        # _room is signalled when a commit removes records from it.
        self._buffer_lock = threading.Lock()
        self._room = threading.Condition(self._buffer_lock)
        self._buffer: list[tuple[str, int | None, str | None, list[tuple[str, float]]]] = []
        self._stop = threading.Event()
        self._flusher: threading.Thread | None = None
        # _log_lock guards _log_bytes: the started log's size at opening plus what was written.
        self._log_lock = threading.Lock()

    # -- opening ------------------------------------------------------------------------------

    def _open(self, crawl: dict[str, Any] | None) -> None:
        """Open and check the journal of the folder this crawl holds (see :meth:`__init__`)."""
        self.fresh = not self.path.exists()
        if self.fresh:
            leftovers = [p.name for p in (self.dir / LOG, self.dir / (DB + "-wal"))
                         if p.exists()]
            if leftovers:
                raise JournalError(f"{self.dir} holds {', '.join(leftovers)} but no {DB}: "
                                   "the journal is missing; remove the directory to start afresh")
        self.crawl = crawl
        # unrecorded: an existing journal that kept no record of what defines its crawl
        self.unrecorded = False
        self._db = self._connect()
        try:
            with self._readable():
                self._check_rows()
            self._check_crawl()
            self._log_fd = self._open_log()
        except BaseException:
            self._db.close()
            raise

    def _create(self) -> None:
        """Make an empty journal atomically: built beside, then renamed into place, so a kill
        during creation leaves no half-made journal behind (a fresh start, not an error)."""
        tmp = self.dir / (DB + ".new")
        tmp.unlink(missing_ok=True)
        db = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.executescript("BEGIN;" + _SCHEMA
                             + f"INSERT INTO meta VALUES ('format', '{FORMAT}'); COMMIT;")
        finally:
            db.close()
        os.replace(tmp, self.path)

    def _connect(self) -> sqlite3.Connection:
        where = f"{self.path}"
        try:
            if self.fresh:
                self._create()
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            check = db.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise JournalError(f"{where} is corrupt ({check}); remove it to start afresh")
            row = None
            tables = {r[0] for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type='table'")}
            if "meta" in tables:
                row = db.execute("SELECT value FROM meta WHERE key='format'").fetchone()
            if row is None or row[0] != FORMAT or not {"url", "session"} <= tables:
                raise JournalError(f"{where} is not a crawlab journal ({FORMAT})")
            planted = code_in(db)
            if planted is not None:
                raise JournalError(f"{where} is not a crawlab journal: it holds {planted}, "
                                   "which no crawl makes")
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode != "wal":
                raise JournalError(f"{where}: cannot use write-ahead logging ({mode})")
            db.execute("PRAGMA synchronous=FULL")  # every commit fsyncs the WAL
            return db
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{where} is not a readable crawl journal ({exc})") from None

    def _check_rows(self) -> None:
        """Refuse a journal with a row no crawl writes (see :data:`_ROWS`), naming the first
        one: one scan of each table, in SQL. O(rows)."""
        for table, checks in _ROWS.items():
            why = " ".join(f"WHEN NOT ({check}) THEN '{what}'" for check, what in checks)
            every = " AND ".join(f"({check})" for check, _ in checks)
            bad = self._db.execute(f"SELECT rowid, CASE {why} END FROM {table} "
                                   f"WHERE NOT ({every}) LIMIT 1").fetchone()
            if bad is not None:
                raise JournalError(f"{self.path} is not a readable crawl journal ({table} row "
                                   f"{bad[0]}: {bad[1]})")

    def _open_log(self) -> int:
        """Open the started log to append to (made if missing); anything there but a regular
        file is a :class:`JournalError`. Opened non-blocking, so that a FIFO cannot hang the
        crawl: without a reader it fails at once, with one it is refused."""
        path = self.dir / LOG
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o644)
        except OSError as exc:  # ENXIO: a FIFO without a reader (or a device)
            why = "not a regular file" if exc.errno == errno.ENXIO else exc.strerror
        else:
            st = os.fstat(fd)
            if stat.S_ISREG(st.st_mode) and st.st_size <= MAX_STARTED_LOG_BYTES:
                os.set_blocking(fd, True)
                self._log_bytes = st.st_size  # what refetched() reads back, with this session's
                return fd
            os.close(fd)
            if stat.S_ISREG(st.st_mode):
                raise JournalError(_too_large(path, st.st_size, MAX_STARTED_LOG_BYTES))
            why = "not a regular file"
        raise JournalError(f"cannot append to {path}, the journal's started log ({why}); it "
                           "only counts re-fetches: remove it to resume")

    @contextlib.contextmanager
    def _readable(self) -> Iterator[None]:
        """A database error in the ``with`` block (damage the opening check missed) is a
        :class:`JournalError`, never a traceback."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path} is not a readable crawl journal ({exc})") from None

    def _check_crawl(self) -> None:
        """Refuse an existing journal whose recorded crawl differs from ``self.crawl``, naming
        the flags that differ (see the module docstring); note one that recorded none."""
        if self.crawl is None:
            return
        with self._readable():
            began = self._seeds() is not None
            row = self._db.execute("SELECT value FROM meta WHERE key='crawl'").fetchone()
        if not began:  # fresh, or killed before its first session began: begin records it
            return
        if row is None:
            self.unrecorded = True
            return
        old = _json(row[0])
        if not isinstance(old, dict) or not all(map(_flat, old.values())):
            raise JournalError(f"{self.path} keeps an unreadable record of its crawl; remove "
                               "it to start afresh, or give another --state")
        differ = [k for k in {**old, **self.crawl} if old.get(k) != self.crawl.get(k)]
        if differ:
            # flags that only one of the crawls has follow from those both have (another web)
            both = [k for k in differ if k in old and k in self.crawl]
            shown = "; ".join(f"{k} {_shown(old.get(k))} then, {_shown(self.crawl.get(k))} now"
                              for k in both or differ)
            raise JournalError(f"{self.dir} holds the journal of another crawl ({shown}); "
                               "give the same flags to resume it, or another --state")

    def begin(self, seeds: Iterable[tuple[str, float]], threads: int) -> Restored | None:
        """See :meth:`_begin`; a database error (damage the opening check missed) is a
        :class:`JournalError`, never a traceback."""
        with self._readable():
            return self._begin(seeds, threads)

    def _begin(self, seeds: Iterable[tuple[str, float]], threads: int) -> Restored | None:
        """Start a session of ``threads`` robots. A fresh journal records ``seeds`` (URL,
        priority) and returns ``None``; an existing one must have been made for the same
        seeds (else :class:`JournalError`) and returns what to resume from. Starts the
        flusher thread. ``threads`` is at most ``MAX_THREADS`` (else ``ValueError``), as
        :meth:`_check_rows` wants it on resume."""
        if not _in_range(threads, MAX_THREADS):
            raise ValueError(f"threads must be an integer from 1 to {MAX_THREADS}, got "
                             f"{threads!r}")
        seeds = list(seeds)
        db = self._db
        fresh = not self._check_seeds([u for u, _ in seeds])
        record = None if self.crawl is None else json.dumps(self.crawl)
        if fresh:  # fresh, or killed before its first session began
            db.execute("BEGIN")
            db.execute("INSERT INTO meta VALUES ('seeds', ?)",
                       (json.dumps([u for u, _ in seeds]),))
            if record is not None:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('crawl', ?)", (record,))
            db.executemany("INSERT OR IGNORE INTO url(url, priority) VALUES (?, ?)", seeds)
            restored = None
        else:
            done = [r[0] for r in db.execute("SELECT url FROM url WHERE done ORDER BY rowid")]
            todo = [(u, p) for u, p in db.execute(
                "SELECT url, priority FROM url WHERE NOT done ORDER BY rowid")]
            bound = db.execute("SELECT coalesce(sum(threads + CASE WHEN clean THEN 0 ELSE "
                               "commit_every END), 0) FROM session").fetchone()[0]
            restored = Restored(done=done, frontier=todo,
                                refetch_bound=int(bound))
            db.execute("BEGIN")
            if record is not None and self.unrecorded:  # recorded from now on
                db.execute("INSERT OR REPLACE INTO meta VALUES ('crawl', ?)", (record,))
        cur = db.execute("INSERT INTO session(threads, commit_every) VALUES (?, ?)",
                         (threads, self.commit_every))
        self.session = int(cur.lastrowid)
        db.execute("COMMIT")
        self.commits += 1
        self._flusher = threading.Thread(target=self._flush_loop, name="journal-flusher",
                                         daemon=True)
        self._flusher.start()
        return restored

    def done_urls(self) -> set[str]:
        """The URLs fetched in committed earlier sessions (empty for a fresh journal): a
        resumed crawl's output keeps their lines (:class:`~crawlers.crawl.output.CrawlOutput`).
        O(URLs done)."""
        if self.fresh:
            return set()
        with self._readable():
            return {r[0] for r in self._db.execute("SELECT url FROM url WHERE done")}

    def check_seeds(self, urls: Iterable[str]) -> bool:
        """Whether the journal already began a crawl from ``urls`` (``False``: none began);
        seeds of another crawl are a :class:`JournalError`. Lets a caller refuse a journal
        before it opens anything else (an output folder it would overwrite)."""
        with self._readable():
            return self._check_seeds(list(urls))

    def check_scope(self, in_scope: Callable[[str], bool]) -> None:
        """Refuse (:class:`JournalError`) a journal holding a URL the crawl would never have
        reached (``in_scope`` false: another site than the crawl's web), before anything of it
        is fetched: a forged row would otherwise send the resumed crawl anywhere. O(rows)."""
        with self._readable():
            for rowid, url in self._db.execute("SELECT rowid, url FROM url"):
                if not in_scope(url):
                    shown = _printable(url[:200])
                    raise JournalError(f"{self.path} is not a readable crawl journal (url row "
                                       f"{rowid}: {shown} is outside the crawl's web)")

    def seeds(self) -> list[str] | None:
        """The seed URLs the journal's crawl began from (``None``: no crawl began yet). O(1)."""
        if self.fresh:
            return None
        with self._readable():
            return self._seeds()

    def _seeds(self) -> list[str] | None:
        """The recorded seeds; ``None`` only for a journal that began no crawl yet: one with
        pages or sessions but no seeds lost their record (a :class:`JournalError`, never a fresh
        start). O(seeds)."""
        row = self._db.execute("SELECT value FROM meta WHERE key='seeds'").fetchone()
        if row is None:
            began = self._db.execute("SELECT EXISTS (SELECT 1 FROM url) "
                                     "OR EXISTS (SELECT 1 FROM session)").fetchone()[0]
            if began:
                raise JournalError(f"{self.path} is not a readable crawl journal (it holds "
                                   "pages or sessions but no record of its seeds)")
            return None
        seeds = _json(row[0])
        if not isinstance(seeds, list) or not all(isinstance(u, str) for u in seeds):
            raise JournalError(f"{self.path} is not a readable crawl journal (its seeds are "
                               "not a list of URLs)")
        return seeds

    def _check_seeds(self, urls: list[str]) -> bool:
        old = self._seeds()
        if old is None:
            return False
        if old != urls:
            shown = _printable(", ".join(old)[:200])
            raise JournalError(f"{self.path} is the journal of another crawl (seeds: "
                               f"{shown}); give the same web, or another --state")
        return True

    # -- the robots' side ---------------------------------------------------------------------

    def started(self, url: str) -> None:
        """A robot is about to fetch ``url``: one ``write`` to the started log (no fsync)."""
        written = os.write(self._log_fd, started_lines(self.session, [url]))
        with self._log_lock:
            self._log_bytes += written

    def record(self, url: str, status: int | None, error: str | None,
               links: list[tuple[str, float]]) -> None:
        """Queue ``url`` as done with the new ``links`` (URL, priority) it found; commits when
        ``commit_every`` records wait. Call before putting the links into the frontier."""
        with self._buffer_lock:
            while len(self._buffer) >= self.commit_every:
                self._room.wait()
            self._buffer.append((url, status, error, links))
            full = len(self._buffer) >= self.commit_every
        if full:
            self.flush()

    def flush(self) -> None:
        """Commit every queued record (one transaction, one fsync). Records queued meanwhile
        wait for the next commit."""
        with self._commit_lock:
            with self._buffer_lock:
                batch = list(self._buffer)
            if not batch:
                return
            db = self._db
            db.execute("BEGIN")
            try:
                for url, status, error, links in batch:
                    db.executemany(
                        "INSERT INTO url(url, priority) VALUES (?, ?) ON CONFLICT(url) "
                        "DO UPDATE SET priority = max(priority, excluded.priority)", links)
                    db.execute(
                        "INSERT INTO url(url, priority, done, status, error, session) "
                        "VALUES (?, 0, 1, ?, ?, ?) ON CONFLICT(url) DO UPDATE SET done = 1, "
                        "status = excluded.status, error = excluded.error, "
                        "session = excluded.session", (url, status, error, self.session))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            self.commits += 1
            with self._buffer_lock:
                del self._buffer[: len(batch)]
                self._room.notify_all()

    def _flush_loop(self) -> None:
        while not self._stop.wait(self.commit_ms / 1000):
            self.flush()

    # -- the end ------------------------------------------------------------------------------

    def refetched(self) -> int:
        """Pages fetched in more than one session, summed over the extra sessions (from the
        started log; a torn last line is ignored). The log is read up to its size at opening
        plus what this session wrote: more is a :class:`JournalError`. O(lines of the log)."""
        with self._log_lock:
            limit = self._log_bytes
        return count_refetched([self.dir / LOG], limit)

    def close(self) -> None:
        """Commit what is queued, mark the session clean (its crawl stopped, nothing in
        flight), close, and release the folder's lock (last). Idempotent."""
        self._stop.set()
        if self._flusher is not None:
            self._flusher.join()
            self._flusher = None
        if self._db is None:
            return
        self.flush()
        if self.session:
            self._db.execute("UPDATE session SET clean = 1 WHERE id = ?", (self.session,))
        self._db.close()
        self._db = None
        if self._log_fd >= 0:
            os.close(self._log_fd)
            self._log_fd = -1
        if self._lock_fd >= 0:
            release_folder(self._lock_fd)
            self._lock_fd = -1

    def _check(self) -> None:
        """Assert the invariant: at most ``commit_every`` records uncommitted."""
        with self._buffer_lock:
            assert len(self._buffer) <= self.commit_every, (len(self._buffer), self.commit_every)

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

