"""``crawlab bsp --backend mpi --state DIR`` typed without ``mpiexec``: start the MPI job and
watch it, so that a rank's death ends in one line that says what to do.

Under ``mpiexec`` a rank killed by a signal takes the whole job down: the launcher kills the
other ranks at once (they cannot print anything) and prints a banner of its own. So the
command, when it is not itself an MPI rank, starts ``mpiexec -n P`` (the one installed beside
the interpreter by the ``mpi`` extra, else the one on ``PATH``) with its own arguments, keeps
everything the job prints in ``DIR/mpiexec.log``, and afterwards either hands back rank 0's
report or finds the rank that died from every rank's wait status, which Hydra (MPICH's
``mpiexec``) prints when asked (``-print-all-exitcodes``). Its banner is not enough: it names
the first rank, in rank order, that a signal ended, and when Hydra reaps the dead rank before
it reads its closed PMI socket, it kills the others with SIGKILL too, not counted as clean
ends, so a killed rank 1 was once reported as rank 0. A rank is named only when it alone
ended badly; when several did, they are listed and none is named. ``--resume DIR`` starts the
same job again from the command kept in ``DIR/command.json``; the ranks then resume from
their journals (:mod:`crawlers.bsp.journal`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from crawlers.bsp.journal import (
    HELD_BY_LAUNCHER,
    BspJournalError,
    read_command,
    saved_supersteps,
    write_command,
)
from crawlers.bsp.transport import BspError
from crawlers.crawl.journal import LOCK

__all__ = ["Outcome", "crawl_command", "launch", "prepare", "without_state"]

# flags of one run only: kept out of DIR/command.json, so a resumed job does not die again
_ONE_RUN = {"--kill-worker": 1, "--kill-at": 1, "--json": 0}


@dataclass
class Outcome:
    """How the job ended: ``report`` (rank 0's JSON report) and/or ``error`` (one line) and
    the exit status to give (0 done, 1 a rank died, 2 bad input reported by the ranks; a
    report with an error and 2: a ``--kill-at`` the crawl never reached), or ``blamed``
    (``FILE:LINE: Error: message``, status 1): the student's frontier failed there."""

    status: int
    report: dict | None = None
    error: str | None = None
    blamed: str | None = None


def _lasting(argv: list[str]) -> list[str]:
    """``argv`` without the flags of one run."""
    out, skip = [], 0
    for a in argv:
        if skip:
            skip -= 1
            continue
        name = a.split("=", 1)[0]
        if name in _ONE_RUN:
            skip = 0 if "=" in a else _ONE_RUN[name]
            continue
        out.append(a)
    return out


def without_state(argv: list[str]) -> list[str]:
    """``argv`` without its ``--state`` flags: the crawl a command describes, wherever its
    journals are."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--state":
            skip = True
        elif not a.startswith("--state="):
            out.append(a)
    return out


def crawl_command(argv: list[str]) -> list[str]:
    """The crawl ``argv`` describes, as its journals' identity names it: without the flags of
    one run and without ``--state`` (the folder may move). A command and the one kept in
    ``DIR/command.json`` for it give the same list."""
    return without_state(_lasting(argv))


def prepare(argv: list[str], state: str | None, resume: str | None) -> tuple[list[str], str]:
    """The ranks' arguments and the journal directory, for a command given ``argv`` (starting
    with ``bsp``) and ``--state`` or ``--resume``. A fresh ``--state`` keeps its command in the
    directory (again, if the crawl kept there never started: its set-up failed); a
    ``--state`` whose directory holds another started crawl's command, and a
    ``--resume`` with other flags than ``--json``, raise :class:`BspError`, and an unreadable
    ``command.json`` a :class:`~crawlers.bsp.journal.BspJournalError` (both one line)."""
    _check_folder(resume if resume is not None else state)
    if resume is not None:
        extra = [a for a in argv[1:] if a not in ("--resume", resume, "--backend", "mpi",
                                                  "--backend=mpi", "--json")
                 and not a.startswith("--resume=")]
        if extra:
            raise BspError(f"--resume {resume} continues the crawl as it was started; give no "
                           f"other flags ({' '.join(extra)})")
        kept = read_command(resume)
        if kept[:1] != ["bsp"]:
            raise BspJournalError(f"{resume}/command.json holds no crawlab bsp command")
        # the journals are in DIR, wherever the crawl kept them before (a relative --state,
        # a copied folder): the kept --state gives way to DIR (every flag is given once)
        return [*without_state(kept), "--state", resume, "--json"], resume
    assert state is not None
    lasting = _lasting(argv)
    path = Path(state) / "command.json"
    if path.exists() and (Path(state) / "rank-0.sqlite").exists():  # a crawl that started
        kept = read_command(state)
        if without_state(kept) != without_state(lasting):  # the folder may have moved
            raise BspError(f"{state} holds the journals of another crawl ({' '.join(kept)}); "
                           f"continue it with --resume {state}, or give another --state")
    else:
        write_command(state, lasting)
    return [*argv, *([] if "--json" in argv else ["--json"])], state


# the files a journaled crawl writes in DIR (besides SQLite's -wal and -shm of each journal)
_WRITTEN = ("command.json", "mpiexec.log", "rank-*.sqlite*", "started-*.log", LOCK)


def _check_folder(directory: str | None) -> None:
    """Refuse a journal folder in which a file the crawl writes is anything but a regular file:
    a link (dangling too) would have the crawl write where it points, a FIFO would block it,
    a folder fail it mid-crawl (:class:`~crawlers.bsp.journal.BspJournalError`, one line).
    O(entries of the folder)."""
    import fnmatch
    import os

    if directory is None or not Path(directory).is_dir():
        return
    with os.scandir(directory) as entries:
        for entry in entries:
            if (any(fnmatch.fnmatchcase(entry.name, p) for p in _WRITTEN)
                    and (entry.is_symlink() or not entry.is_file(follow_symlinks=False))):
                raise BspJournalError(f"{entry.path} is not a regular file (a link, a folder "
                                      "or a FIFO): a journal folder holds only the files its "
                                      "crawl wrote")


# a rank: crawlab's main without the working folder on sys.path (as python -m would put it
# first), so that a folder the user stands in cannot shadow crawlers or a library it imports
_RANK = "import sys; del sys.path[0]; from crawlers.cli import main; sys.exit(main(sys.argv[1:]))"


def _mpiexec() -> str:
    beside = Path(sys.executable).parent / "mpiexec"
    found = str(beside) if beside.exists() else shutil.which("mpiexec")
    if found is None:
        raise BspError("--backend mpi needs mpiexec: install the mpi extra "
                       "(pip install 'crawlab[mpi]') or an MPI library")
    return found


def _every_status(mpiexec: str) -> list[str]:
    """The flag that has ``mpiexec`` print every rank's wait status, if it is Hydra's
    (``-print-all-exitcodes``); other launchers have none, and a death is then unnamed."""
    try:
        said = subprocess.run([mpiexec, "--version"], capture_output=True, text=True,
                              timeout=30)
    except (OSError, subprocess.SubprocessError):
        return []
    return ["-print-all-exitcodes"] if "HYDRA" in said.stdout else []


def launch(rank_argv: list[str], procs: int, state: str) -> Outcome:
    """Run ``mpiexec -n procs`` on ``python -m crawlers *rank_argv``; see the module
    docstring. Blocks until the job ends. The caller holds the lock of the folder ``state``
    (:func:`crawlers.bsp.journal.hold`) for the job's run."""
    mpiexec = _mpiexec()
    cmd = [mpiexec, *_every_status(mpiexec), "-n", str(procs), sys.executable, "-c", _RANK,
           *rank_argv]
    # the caller holds the folder's lock (crawlers.bsp.journal.hold): rank 0 takes none
    env = {**os.environ, HELD_BY_LAUNCHER: os.path.abspath(state)}
    run = subprocess.run(cmd, capture_output=True, text=True, env=env)
    log = Path(state) / "mpiexec.log"
    _write_new(log, f"$ {' '.join(cmd)}\n--- stdout\n{run.stdout}\n--- stderr\n{run.stderr}")
    if run.returncode == 0:
        report = _report(run.stdout)
        if report is not None:
            return Outcome(0, report=report)
        return Outcome(1, error=f"the MPI job printed no report (see {log})")
    blamed = _said(run.stderr, BLAMED)
    if blamed is not None:
        return Outcome(1, blamed=blamed)
    error = _said(run.stderr, ERROR)
    if error is not None:  # rank 0 may report a crawl, then that its --kill-at never came
        return Outcome(2, report=_report(run.stdout), error=error)
    return Outcome(1, error=_death(run.stdout + run.stderr, procs, state, log))


def _write_new(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` without following a link put there meanwhile."""
    import os

    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with open(fd, "w", encoding="utf-8") as f:
        f.write(text)


BLAMED = "crawlab bsp: your frontier failed at "  # a rank's line: the student's code failed
ERROR = "crawlab bsp: error: "  # a rank's line: the input was refused


def _report(stdout: str) -> dict | None:
    """Rank 0's JSON report: the last line of ``stdout`` that is one, if any."""
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return None


def _said(stderr: str, prefix: str) -> str | None:
    """What follows ``prefix`` on the first line of ``stderr`` that holds it, if any. Not only
    at the start of a line: mpiexec passes each rank's output on in chunks that can break
    anywhere, so a rank's one-line error (one write, its newline included) can land in the
    middle of a line another rank was printing (seen in 2 of 70 launcher runs whose student
    printed to standard error, which then read as a rank that died)."""
    for line in stderr.splitlines():
        at = line.find(prefix)
        if at >= 0:
            return line[at + len(prefix):]
    return None


def statuses(text: str, procs: int) -> list[int] | None:
    """Each rank's wait status (as ``waitpid`` gives it: 9 for SIGKILL, 768 for ``exit(3)``)
    from the line ``-print-all-exitcodes`` has Hydra print, in rank order; ``None`` when the
    line is missing, lists several hosts (whose order of ranks the line does not say), or
    counts other than ``procs`` ranks. O(len(text))."""
    found = re.search(r"Exit codes: \[[^\]]*\] ([0-9,]+)[ \t]*$", text, re.MULTILINE)
    if found is None:
        return None
    codes = [int(c) for c in found.group(1).split(",") if c]
    return codes if len(codes) == procs else None


def _ending(status: int) -> str:
    """A wait status in words: ``killed by SIGKILL, signal 9``; ``exit status 3``."""
    import os
    import signal

    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            return f"killed by signal {number}"
        return f"killed by {name}, signal {number}"
    if os.WIFEXITED(status):
        return f"exit status {os.WEXITSTATUS(status)}"
    return f"wait status {status}"


def _death(text: str, procs: int, state: str, log: Path) -> str:
    """The one line that says which rank died (only when the wait statuses show one rank
    alone ended badly: positive evidence), in which superstep, and where the journals are."""
    ended = statuses(text, procs)
    bad = [] if ended is None else [r for r, status in enumerate(ended) if status != 0]
    where = ""
    if len(bad) == 1:
        rank = bad[0]
        who = f"MPI rank {rank} died ({_ending(ended[rank])})"
        try:
            where = f" in superstep {max(saved_supersteps(state, procs)[rank], default=0)}"
        except BspJournalError:
            pass
    elif bad:
        who = ("an MPI rank died and mpiexec ended the others; which one died first it "
               "does not say: " + ", ".join(f"rank {r} {_ending(ended[r])}" for r in bad))
    else:
        who = "an MPI rank died (mpiexec did not say which)"
    return (f"{who}{where}; every rank's journal is in {state}: continue with "
            f"crawlab bsp --backend mpi --resume {state} (what mpiexec printed: {log})")
