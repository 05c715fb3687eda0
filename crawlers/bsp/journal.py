"""BSP journals: each worker's state at every barrier, so that a killed MPI job resumes.

A BSP crawl has a natural moment to save: the end of a superstep. After the exchange and the
closing ``allreduce`` no message is in flight, so the workers' states at the end of the same
superstep form a *consistent cut* (a coordinated checkpoint, as Chandy and Lamport's snapshot
is for asynchronous systems). ``crawlab bsp --backend mpi --state DIR`` makes each rank ``r``
write its state into ``DIR/rank-r.sqlite`` (SQLite, WAL, one transaction and one ``fsync`` per
superstep: the barrier is the group commit) before the next superstep starts.

**Which superstep to resume from.** A rank writes superstep ``k`` only after every rank took part
in superstep ``k``'s ``allreduce``, so when a rank dies the others are at most one snapshot
ahead of it. Each journal keeps its last two snapshots, and the job resumes from the newest
superstep *every* rank saved (:func:`common_superstep`). The pages fetched after it are fetched
again: **at most one superstep's pages, R per rank** (the report prints the bound beside the
measured count).

**Counting re-fetches.** As in :mod:`crawlers.crawl.journal`, each rank appends
``session<TAB>url`` to ``DIR/started-r.log`` before it fetches (one unbuffered write per
superstep, no ``fsync``); a URL started in two sessions was fetched again.

**Cost.** A snapshot is the rank's whole state (its frontier, what it fetched and claimed, its
OPIC cash), pickled: O(pages so far) per superstep, so O(pages² / R) over a crawl. Fine for the
crawls of this course; a crawl of millions of pages would journal each superstep's changes
instead, as :mod:`crawlers.crawl.journal` does for the threaded crawl.

**Whose journal.** A journal records, when it is created, the identity of its crawl
(:func:`crawl_identity`: the lasting command as ``DIR/command.json`` keeps it, the rank count and
the resolved ``--out`` folder), and a crawl opens only journals of its own identity
(:func:`check_journals`: exactly the ranks ``0..P-1``, each of this crawl). Without it, rank
journals of two crawls mixed in one folder resumed into one crawl (271 unique pages of a
240-page web were measured), and a ``command.json`` edited to name another ``--out``, or a
relative ``--out`` resumed from another folder, cut that folder's files to the journaled
offsets. A journal without an identity (made before it was recorded) cannot be
shown to belong, and is refused.

**One crawl at a time.** A journal folder is locked as a threaded crawl's is
(:func:`crawlers.crawl.journal.hold_folder`, ``DIR/crawl.lock``), by the process that
coordinates the job: the launcher (``crawlab bsp --state DIR`` or ``--resume DIR`` typed
without ``mpiexec``, :func:`hold`) for as long as its job runs, or rank 0 of a job started
with ``mpiexec`` directly. A second crawl given the folder meanwhile is refused at once, before
it writes anything there; the ranks themselves take no lock of their own.

A journal that cannot be read, or one made by another crawl or another ``--procs``, raises
:class:`BspJournalError` (a ``ValueError``: one line on the command line), never a silent start
from nothing. A journal is a file anyone could have handed over: a snapshot is unpickled with
only the classes a snapshot holds (:data:`SNAPSHOT_CLASSES`, beside the built-in containers
pickle needs no class for), so one naming any other class is refused before any of its code
could run. Thread-safety: a journal belongs to its worker's main thread.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import sqlite3
from pathlib import Path
from typing import Any

from crawlers.crawl.journal import (
    MAX_STARTED_LOG_BYTES,
    JournalError,
    code_in,
    count_refetched,
    hold_folder,
    release_folder,
    started_lines,
    started_log_problem,
)
from frontier.files import read_regular

__all__ = ["FORMAT", "BspJournal", "BspJournalError", "check_journals", "common_superstep",
           "crawl_identity", "hold", "is_count", "is_real", "read_command", "refetched",
           "saved_supersteps", "sessions", "write_command"]

FORMAT = "crawlab-bsp-journal-1"
#: set by the launcher for the ranks of the job it started: the absolute path of the journal
#: folder it holds the lock of (rank 0 then takes none of its own, see :func:`hold`)
HELD_BY_LAUNCHER = "CRAWLAB_BSP_HELD"
KEEP = 2  # snapshots kept per rank: the newest common one is among them (see the docstring)
#: The classes a snapshot may name (:meth:`Worker._snapshot <crawlers.bsp.engine.Worker>`: the
#: collector's error and limit counts and its superstep records); every other one is refused.
SNAPSHOT_CLASSES = frozenset({("collections", "Counter"),
                              ("crawlers.bsp.report", "SuperstepRecord")})


class BspJournalError(ValueError):
    """A BSP journal cannot be used: unreadable, foreign, or of another crawl."""


def is_count(value: Any) -> bool:
    """Whether a snapshot's ``value`` is a count: an integer >= 0 (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def is_real(value: Any) -> bool:
    """Whether a snapshot's ``value`` is a finite real number (an int or a float, not a bool,
    not NaN or an infinity)."""
    import math

    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def _path(directory: str | Path, rank: int) -> Path:
    return Path(directory) / f"rank-{rank}.sqlite"


def crawl_identity(command: list[str], procs: int, out: str | None) -> str:
    """The identity of a crawl, as its journals record it: its lasting ``command`` (the flags
    ``DIR/command.json`` keeps, without ``--state``), its ``procs`` ranks, and the absolute
    path of its ``out`` folder (``None``: it writes none). Canonical JSON, compared as text."""
    return json.dumps({"command": list(command), "procs": procs,
                       "out": None if out is None else os.path.abspath(out)},
                      sort_keys=True, separators=(",", ":"))


def _identity_of(db: sqlite3.Connection, path: Path) -> str | None:
    try:
        row = db.execute("SELECT value FROM meta WHERE key='crawl'").fetchone()
    except sqlite3.DatabaseError as exc:
        raise BspJournalError(f"{path} is not a readable BSP journal ({exc})") from None
    return None if row is None else row[0]


def _foreign(path: Path, kept: str | None, identity: str) -> str | None:
    """Why the journal at ``path``, which records the identity ``kept``, is not one of the
    crawl ``identity`` (``None``: it is)."""
    if kept == identity:
        return None
    if kept is None:
        return (f"{path} records no crawl identity (a journal of an older crawlab): it cannot "
                "be shown to belong to this crawl; start it afresh with another --state")
    try:
        was, now = json.loads(kept), json.loads(identity)
    except ValueError:
        was, now = None, None
    if (isinstance(was, dict) and isinstance(now, dict) and was.get("out") != now.get("out")
            and {k: v for k, v in was.items() if k != "out"}
            == {k: v for k, v in now.items() if k != "out"}):
        return (f"{path}: its crawl writes its output to {str(was.get('out'))[:300]!r}, this "
                f"one would write to {str(now.get('out'))[:300]!r}; a resume writes only to "
                "its own crawl's output: resume it from the folder it was started in")
    return (f"{path} is the journal of another crawl (other flags, web, --procs or --out than "
            "the crawl being run, as its command.json keeps it): the journals of a folder are "
            "all of one crawl")


def _open(path: Path, create: bool, identity: str | None = None) -> sqlite3.Connection:
    try:
        db = sqlite3.connect(path, isolation_level=None)
        if create:
            db.executescript(
                "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                "CREATE TABLE IF NOT EXISTS snapshot(superstep INTEGER PRIMARY KEY, "
                "state BLOB NOT NULL);"
                "CREATE TABLE IF NOT EXISTS session(id INTEGER PRIMARY KEY);")
        planted = code_in(db)  # before the crawl writes anything
        if planted is not None:
            raise BspJournalError(f"{path} is not a crawlab BSP journal: it holds {planted}, "
                                  "which no crawl makes")
        row = db.execute("SELECT value FROM meta WHERE key='format'").fetchone()
        if create and row is None:
            db.execute("BEGIN")
            db.execute("INSERT INTO meta VALUES ('format', ?)", (FORMAT,))
            if identity is not None:  # whose journal this is, from its creation on
                db.execute("INSERT INTO meta VALUES ('crawl', ?)", (identity,))
            db.execute("COMMIT")
        elif row is None or row[0] != FORMAT:
            raise BspJournalError(f"{path} is not a crawlab BSP journal ({FORMAT})")
        elif identity is not None:
            why = _foreign(path, _identity_of(db, path), identity)
            if why is not None:
                db.close()
                raise BspJournalError(why)
        if db.execute("PRAGMA journal_mode=WAL").fetchone()[0] != "wal":
            raise BspJournalError(f"{path}: cannot use write-ahead logging")
        db.execute("PRAGMA synchronous=FULL")  # each snapshot's commit fsyncs the WAL
        return db
    except sqlite3.DatabaseError as exc:
        raise BspJournalError(f"{path} is not a readable BSP journal ({exc})") from None


def hold(directory: str | Path, *, create: bool) -> int | None:
    """Lock the journal folder ``directory`` for this process (one crawl at a time, see the
    module docstring); returns the descriptor to give :func:`release`, or ``None`` when there
    is nothing to lock: ``directory`` is missing and not to be made (``create`` false: a
    ``--resume`` of no folder fails on its own), or this is rank 0 of a job whose launcher
    holds the folder already (:data:`HELD_BY_LAUNCHER`). A folder another crawl holds is a
    :class:`BspJournalError` (one line). O(1)."""
    path = Path(directory)
    if os.environ.get(HELD_BY_LAUNCHER) == os.path.abspath(path):
        return None
    if not path.is_dir():
        if not create:
            return None
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BspJournalError(f"cannot create {path}: {exc.strerror}") from None
    return hold_folder(path, BspJournalError)


def release(fd: int | None) -> None:
    """Release a lock :func:`hold` took (``None``: it took none)."""
    if fd is not None:
        release_folder(fd)


def saved_supersteps(directory: str | Path, size: int) -> list[list[int]]:
    """For each of the ``size`` ranks, the supersteps its journal holds snapshots of."""
    out = []
    for rank in range(size):
        path = _path(directory, rank)
        if not path.exists():
            raise BspJournalError(f"{path} is missing: the journals in {directory} are not "
                                  f"those of a {size}-worker crawl")
        db = _open(path, create=False)
        try:
            out.append([r[0] for r in db.execute("SELECT superstep FROM snapshot")])
        except sqlite3.DatabaseError as exc:
            raise BspJournalError(f"{path} is not a readable BSP journal ({exc})") from None
        finally:
            db.close()
    return out


def check_journals(directory: str | Path, size: int, identity: str) -> None:
    """Refuse (:class:`BspJournalError`, one line) the journals in ``directory`` unless every
    one is the journal of a rank ``0..size-1`` of the crawl ``identity``
    (:func:`crawl_identity`), and every rank's started log there is a regular file of at most
    :data:`~crawlers.crawl.journal.MAX_STARTED_LOG_BYTES`. No journal at all passes (a fresh
    crawl). O(ranks)."""
    import re

    directory = Path(directory)
    for rank in range(size):
        problem = started_log_problem(directory / f"started-{rank}.log")
        if problem is not None:
            raise BspJournalError(problem)
    found = sorted(p for p in directory.glob("rank-*.sqlite")
                   if re.fullmatch(r"rank-[0-9]+\.sqlite", p.name))
    for path in found:
        rank = int(path.name[len("rank-"):-len(".sqlite")])
        if rank >= size or path.name != _path(directory, rank).name:
            raise BspJournalError(f"{path} is not the journal of a rank of this {size}-worker "
                                  "crawl: the journals of a folder are all of one crawl")
        db = _open(path, create=False)
        try:
            why = _foreign(path, _identity_of(db, path), identity)
        finally:
            db.close()
        if why is not None:
            raise BspJournalError(why)


def common_superstep(directory: str | Path, size: int) -> int | None:
    """The newest superstep every one of the ``size`` ranks saved, or ``None`` if none was
    (the crawl died before its first barrier: it starts again from the seeds). Raises
    :class:`BspJournalError` if a rank's journal is missing or unreadable, or if the ranks
    share no snapshot (journals of different crawls)."""
    saved = saved_supersteps(directory, size)
    if not any(saved):
        return None
    common = set(saved[0]).intersection(*saved[1:])
    if not common:
        raise BspJournalError(f"the journals in {directory} share no superstep: they are not "
                              "of one crawl")
    return max(common)


class BspJournal:
    """Rank ``rank``'s journal in ``directory`` (created if new, recording ``identity``; an
    existing one of another identity is refused, if ``identity`` is given). :meth:`save` is one
    transaction (one ``fsync``), O(size of the state); :meth:`load` O(size of one state)."""

    def __init__(self, directory: str | Path, rank: int, session: int,
                 identity: str | None = None) -> None:
        self.dir = Path(directory)
        self.rank = rank
        self.session = session
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BspJournalError(f"cannot create {self.dir}: {exc.strerror}") from None
        self.path = _path(self.dir, rank)
        # a new journal records ``identity`` (crawl_identity); an existing one must hold it
        self._db = _open(self.path, create=True, identity=identity)
        self._log = os.open(self.dir / f"started-{rank}.log",
                            os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def begin(self) -> None:
        """Record that this session's worker starts crawling (one row per session: how many
        times the crawl was started, whatever each session got to fetch)."""
        self._db.execute("INSERT OR IGNORE INTO session VALUES (?)", (self.session,))

    def started(self, urls: list[str]) -> None:
        """This rank is about to fetch ``urls``: one write to its started log (no fsync)."""
        if urls:
            os.write(self._log, started_lines(self.session, urls))

    def save(self, superstep: int, state: Any) -> None:
        """Save ``state`` (built-in containers and :data:`SNAPSHOT_CLASSES`, which is all
        :meth:`load` takes back) as of the end of ``superstep``; keep the last two."""
        blob = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
        db = self._db
        db.execute("BEGIN")
        db.execute("INSERT OR REPLACE INTO snapshot VALUES (?, ?)", (superstep, blob))
        db.execute("DELETE FROM snapshot WHERE superstep <= ?", (superstep - KEEP,))
        db.execute("COMMIT")

    def load(self, superstep: int) -> Any:
        """The state saved at the end of ``superstep``."""
        try:
            row = self._db.execute("SELECT state FROM snapshot WHERE superstep = ?",
                                   (superstep,)).fetchone()
            if row is None:
                raise BspJournalError(f"{self.path} has no snapshot of superstep {superstep}")
            return _SnapshotUnpickler(io.BytesIO(row[0])).load()
        except BspJournalError:
            raise
        except Exception as exc:  # sqlite3's, or any of a damaged or forged pickle's
            raise BspJournalError(f"{self.path}: snapshot {superstep} is unreadable "
                                  f"({type(exc).__name__}: {' '.join(str(exc).split())})"
                                  ) from None

    def close(self) -> None:
        """Close the database and the log. Idempotent."""
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._log >= 0:
            os.close(self._log)
            self._log = -1


class _SnapshotUnpickler(pickle.Unpickler):
    """Unpickles what :meth:`BspJournal.save` pickled, and nothing else: a class outside
    :data:`SNAPSHOT_CLASSES` (a forged snapshot's ``os.system``) is refused, not looked up."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in SNAPSHOT_CLASSES:
            named = ascii(f"{module}.{name}")[1:-1]  # escapes: no terminal control codes
            raise pickle.UnpicklingError(f"it names {named[:100]}, which no snapshot holds; "
                                         "refused without loading it")
        return super().find_class(module, name)


def refetched(directory: str | Path, size: int) -> int:
    """Pages started in more than one session, from the ``size`` ranks' started logs (see
    :func:`crawlers.crawl.journal.count_refetched`); a log grown past
    :data:`~crawlers.crawl.journal.MAX_STARTED_LOG_BYTES` is a :class:`BspJournalError`."""
    try:
        return count_refetched((Path(directory) / f"started-{rank}.log" for rank in range(size)),
                               limit=MAX_STARTED_LOG_BYTES)
    except JournalError as exc:
        raise BspJournalError(str(exc)) from None


def sessions(directory: str | Path) -> int:
    """How many sessions began crawling, as rank 0's journal recorded them
    (:meth:`BspJournal.begin`)."""
    db = _open(_path(directory, 0), create=False)
    try:
        return db.execute("SELECT count(*) FROM session").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise BspJournalError(f"{_path(directory, 0)} is not a readable BSP journal "
                              f"({exc})") from None
    finally:
        db.close()


def write_command(directory: str | Path, argv: list[str]) -> None:
    """Keep the command's arguments in ``DIR/command.json`` (``--resume`` reads them)."""
    Path(directory).mkdir(parents=True, exist_ok=True)
    (Path(directory) / "command.json").write_text(json.dumps({"argv": argv}) + "\n")


COMMAND_BYTES = 2**20  # command.json holds one command line: far less than this


def read_command(directory: str | Path) -> list[str]:
    """The arguments :func:`write_command` kept in ``directory``: a regular file of at most
    :data:`COMMAND_BYTES` (a FIFO or a folder is refused, not waited on)."""
    path = Path(directory) / "command.json"
    if not path.exists() and not path.is_symlink():
        raise BspJournalError(f"{directory} holds no BSP crawl to resume (no command.json)")
    try:
        argv = json.loads(read_regular(path, COMMAND_BYTES, "a command file's"))["argv"]
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        raise BspJournalError(f"{path} is unreadable ({type(exc).__name__}: "
                              f"{' '.join(str(exc).split())[:200]})") from None
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        raise BspJournalError(f"{path} is unreadable (argv is not a list of strings)")
    return argv
