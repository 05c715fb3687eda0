"""The judge: grades one exercise of one submission from a process the submission cannot reach.

How a verdict is reached (:func:`grade`):

1. the source is checked against the exercise's allowlist (:mod:`exercises.static`); a file
   that breaks a rule is refused in one line and nothing of it runs;
2. the list of checks is taken from the pristine starter (pytest collects it in a child), so a
   submission cannot shorten it;
3. the checks run in a child process (pytest with the :mod:`exercises.channel` plugin) under
   limits: CPU seconds, address space, file size, processes, no network where the machine lets
   us make a network namespace, a private temporary HOME and working directory, a scrubbed
   environment. Each result comes back over a pipe as it happens;
4. the judge reads the results, verifies the evidence the frontier checks send (the operations
   it asked for and the answers received, :mod:`exercises.evidence`), and gives PASS only when
   every expected check was reported passed, by name. A check that did not run, was skipped,
   hung, or whose evidence does not hold is not a pass. A child that goes silent for the
   exercise's *patience* is stopped, and the check it was in fails with that.

The child's exit status and anything it writes to its stdout, stderr or files count for nothing.

Thread-safety: one grading per call; no shared state.
"""

from __future__ import annotations

import functools
import json
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from exercises import evidence
from exercises.policy import EXERCISES, HIDDEN, INSTALL, ROOT, Exercise
from exercises.static import check_source

__all__ = ["Check", "Grade", "GradingError", "grade", "isolation"]

MEMORY = 3 << 30  # bytes of address space for the child
FILE_SIZE = 64 << 20  # bytes the child may write to one file
PROCESSES = 256  # not enforced for root (RLIMIT_NPROC), see the book
CHANNEL_LINE = 8 << 20  # bytes: the longest line the channel may send (evidence included)
NEEDS = {"pytest": "pytest", "pytest_timeout": "pytest-timeout", "hypothesis": "hypothesis",
         "frontrun": "frontrun"}


class GradingError(Exception):
    """The grading itself could not be done (a missing dependency, a missing hidden suite):
    never the student's fault, never a FAIL. One line."""


@dataclass
class Check:
    """One expected check and what became of it."""

    id: str
    status: str = "not run"  # passed | failed | skipped | not run | hung
    message: str = ""
    text: str = ""
    seconds: float = 0.0
    hidden: bool = False

    @property
    def name(self) -> str:
        """A short name: ``test_file::test[param]`` without the ``tests/`` folders."""
        return self.id.split("/")[-1].replace(".py::", "::")

    @property
    def passed(self) -> bool:
        return self.status == "passed"


@dataclass
class Grade:
    """The verdict of one exercise: ``pass``, ``fail`` (a check failed, or the file was refused)
    or ``error`` (the grading could not be done)."""

    exercise: str
    verdict: str
    checks: list[Check] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0
    hidden_available: int = 0
    output: str = ""

    @property
    def first_failure(self) -> Check | None:
        return next((c for c in self.checks if not c.passed), None)

    @property
    def passed(self) -> int:
        return sum(c.passed for c in self.checks)


# --------------------------------------------------------------------------------------------
# The child


# In the child's own mount namespace ($0 is the course tree, the working directory the child's
# work folder): the work folder stays writable (bound on itself, then entered again: a working
# directory keeps the mount it was entered on), every other mount but /proc, /sys and /dev
# becomes read-only (the interpreter's site-packages, where a .pth file would run in the next
# grading; other students' results), the course tree must then be so, and the instructor's
# folder is an empty read-only tmpfs. Mount points come from /proc/self/mountinfo (octal
# escapes undone by printf %b). Then the child runs without any capability (setpriv empties the
# bounding set: root without CAP_SYS_ADMIN cannot remount or unmount what was sealed; found by
# an adversarial reading, which undid the seal from inside).
_SEAL = ('w=$(pwd -P) && mount --bind "$w" "$w" && cd "$w" && '
         'while read -r _ _ _ _ m _; do m=$(printf "%b" "$m"); case "$m" in '
         '/proc|/proc/*|/sys|/sys/*|/dev|/dev/*|"$w") continue;; esac; '
         'mount -o remount,ro,bind "$m" 2>/dev/null; done < /proc/self/mountinfo; '
         '[ ! -w "$0" ] && '
         '{ [ ! -d "$0/docs/instructor" ] || mount -t tmpfs -o ro,size=4k none '
         '"$0/docs/instructor"; } && '
         '{ ! command -v setpriv >/dev/null || '
         'exec setpriv --bounding-set=-all --inh-caps=-all "$@"; } && exec "$@"')


@functools.lru_cache(maxsize=1)
def isolation() -> tuple[str, ...]:
    """The command prefix that isolates the child, best first: its own network namespace (no
    network), mount namespace (every file system read-only but the child's work folder and
    /dev, /proc, /sys; the instructor's folder an empty, read-only tmpfs) and PID namespace
    (its own ``/proc``: no other process, the judge's included, can be seen or reached; when
    the child's first process dies, every process it left dies with it); else the network and
    mount namespaces; else the network namespace alone; else nothing (the book says what is
    then not enforced). Probed once per process, from an empty folder of its own."""
    unshare = shutil.which("unshare")
    if not unshare:
        return ()
    seal = ("sh", "-c", _SEAL, str(ROOT))
    tries = [(unshare, "--net", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc",
              *seal), (unshare, "--net", "--mount", *seal), (unshare, "--net")]
    with tempfile.TemporaryDirectory() as here:  # the seal keeps the working folder writable
        for prefix in tries:
            try:
                ok = subprocess.run([*prefix, "true"], capture_output=True, timeout=20,
                                    cwd=here)
            except (OSError, subprocess.TimeoutExpired):
                continue
            if ok.returncode == 0:
                return prefix
    return ()


def _limit(cpu_seconds: int) -> None:
    """In the child, before exec: its own process group and its limits."""
    os.setsid()
    for what, value in ((resource.RLIMIT_CPU, cpu_seconds), (resource.RLIMIT_AS, MEMORY),
                        (resource.RLIMIT_FSIZE, FILE_SIZE), (resource.RLIMIT_CORE, 0),
                        (resource.RLIMIT_NPROC, PROCESSES)):
        try:
            resource.setrlimit(what, (value, value))
        except (ValueError, OSError):
            pass


@dataclass
class ChildRun:
    events: list[dict]
    output: str
    hung_in: str | None
    seconds: float


def run_child(pytest_args: list[str], ex: Exercise, work: Path, *, seconds: float,
              patience: float, extra_env: dict[str, str] | None = None) -> ChildRun:
    """Run pytest with the channel plugin in a limited child; read its events as they come.
    Stops it when it is silent for ``patience`` s or runs past ``seconds``."""
    read_end, write_end = os.pipe()
    home = work / "home"
    home.mkdir(exist_ok=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "TMPDIR": str(work), "LANG": "C.UTF-8", "PYTHONPATH": str(ROOT),
           "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
           "CRAWLAB_GRADE_FD": str(write_end), "COLUMNS": "100"}
    env.update(extra_env or {})
    cmd = [*isolation(), sys.executable, "-m", "pytest", "-p", "exercises.channel",
           "-p", "no:cacheprovider", "-q", "--rootdir", str(ROOT), "-c",
           str(ROOT / "pyproject.toml"), *pytest_args]
    out_file = work / "child-output.txt"
    start = time.monotonic()
    with open(out_file, "wb") as out:
        child = subprocess.Popen(cmd, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=subprocess.STDOUT, pass_fds=(write_end,),
                                 preexec_fn=lambda: _limit(int(seconds) + 30))
    os.close(write_end)
    events: list[dict] = []
    buffer = bytearray()
    hung_in = None
    last = time.monotonic()
    try:
        while True:
            now = time.monotonic()
            if now - start > seconds or now - last > patience:
                started = [e["id"] for e in events if e["event"] == "start"]
                done = {e["id"] for e in events if e["event"] == "result"}
                hung_in = next((i for i in reversed(started) if i not in done), "") or ""
                break
            ready, _, _ = select.select([read_end], [], [], 0.5)
            if not ready:
                continue
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            last = time.monotonic()
            buffer += chunk
            if b"\n" not in chunk:
                if len(buffer) > CHANNEL_LINE:
                    break  # no line is this long: not the grader's channel talking
                continue
            *lines, rest = bytes(buffer).split(b"\n")
            buffer = bytearray(rest)
            new = [e for e in map(_event, lines) if e is not None]
            events += new
            if any(_timed_out(e) for e in new):
                break  # a check hung: the rest are not run (no minute per deadlock)
    finally:
        os.close(read_end)
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        child.wait()
    text = out_file.read_bytes()[-20_000:].decode("utf-8", "replace")
    return ChildRun(events, text, hung_in, time.monotonic() - start)


def _event(line: bytes) -> dict | None:
    """One channel line as an event, or ``None`` for anything that is not one."""
    try:
        event = json.loads(line)
    except ValueError:
        return None
    if not isinstance(event, dict) or not isinstance(event.get("event"), str):
        return None
    if "id" in event and not isinstance(event["id"], (str, type(None))):
        return None
    return event


def _timed_out(event: dict) -> bool:
    """A check stopped by its time limit (pytest-timeout): the submission hangs; stop there."""
    return event.get("event") == "result" and "Timeout (>" in str(event.get("message"))


# --------------------------------------------------------------------------------------------
# Grading


def dependencies(ex: Exercise) -> None:
    """:class:`GradingError` naming the install command if a module the checks need is
    missing."""
    import importlib.util

    needed = ["pytest", "pytest_timeout", *ex.needs]
    missing = [NEEDS[m] for m in needed if importlib.util.find_spec(m) is None]
    if missing:
        raise GradingError(
            f"grading {ex.key} needs {', '.join(missing)}, which this Python "
            f"({sys.executable}) lacks: install the course with  {INSTALL}")


def suites(ex: Exercise, hidden: bool) -> list[str]:
    paths = [str(ROOT / s) for s in ex.public]
    if hidden:
        missing = [h for h in ex.hidden if not (HIDDEN / h).is_file()]
        if missing:
            raise GradingError(f"the hidden checks of {ex.key} ({HIDDEN / missing[0]}) are not "
                               "in this copy of the course: grade with --hidden on the "
                               "instructor's copy")
        paths += [str(HIDDEN / h) for h in ex.hidden]
    return paths


def pytest_args(ex: Exercise, directory: Path, paths: list[str]) -> list[str]:
    """The pytest arguments that run ``paths`` on the exercise file found in ``directory``."""
    args = [*paths, f"--exercises={directory}", f"--grade-exercise={ex.key}"]
    if ex.kind:
        args += [f"--frontier={directory / ex.file}:{ex.obj}", f"--frontier-kind={ex.kind}"]
    return args


def expected_checks(ex: Exercise, paths: list[str]) -> list[str]:
    """The ids of every check of ``ex``, collected on its pristine starter (in a child too)."""
    with tempfile.TemporaryDirectory(prefix="crawlab-collect-") as tmp:
        work = Path(tmp)
        starter_dir = work / "starter"
        starter_dir.mkdir()
        shutil.copy(ex.starter, starter_dir / ex.file)
        run = run_child(["--collect-only", *pytest_args(ex, starter_dir, paths)], ex, work,
                        seconds=120, patience=120)
    ids = next((e["ids"] for e in run.events if e["event"] == "collected"), None)
    if not ids:
        last = run.output.strip().splitlines()[-1:] or ["no output"]
        raise GradingError(f"the checks of {ex.key} could not be collected: {last[0]}")
    return ids


def grade(key: str, directory: Path, *, hidden: bool = False, only: str | None = None,
          patience: float | None = None) -> Grade:
    """Grade exercise ``key`` of the files in ``directory``. ``only``: run just the checks
    whose id contains it (a rerun of one check). :class:`GradingError` for a grading that
    cannot be done."""
    ex = EXERCISES[key]
    start = time.monotonic()
    file = directory / ex.file
    if not file.is_file():
        raise FileNotFoundError(f"{ex.key}: no file {ex.file} in {directory}")
    refused = check_source(file, ex)
    hidden_count = len(ex.hidden)
    if refused:
        return Grade(key, "fail", refused=refused, seconds=time.monotonic() - start,
                     hidden_available=hidden_count)
    dependencies(ex)
    paths = suites(ex, hidden)
    ids = expected_checks(ex, paths)
    if only:
        ids = [i for i in ids if only in i]
        if not ids:
            raise GradingError(f"{ex.key} has no check matching {only!r}")
    hidden_prefix = str(HIDDEN.relative_to(ROOT))
    checks = {i: Check(i, hidden=i.startswith(hidden_prefix)) for i in ids}
    with tempfile.TemporaryDirectory(prefix="crawlab-grade-") as tmp:
        work = Path(tmp)
        graded = work / "submission"
        graded.mkdir()
        shutil.copy(file, graded / ex.file)
        plans = evidence.make_plans(uuid.uuid4().hex[:12]) if ex.kind else []
        (work / "plan.json").write_text(json.dumps(plans), encoding="utf-8")
        args = pytest_args(ex, graded, [f"{ROOT}/{i}" for i in ids])
        wait = patience or ex.patience
        args.append(f"--grade-timeout={max(1.0, wait - 5):g}")  # stacks before the judge stops it
        run = run_child(args, ex, work, seconds=ex.seconds, patience=wait,
                        extra_env={"CRAWLAB_GRADE_PLAN": str(work / "plan.json")}
                        if ex.kind else None)
    _read(run, checks, wait, plans)
    ordered = list(checks.values())
    return Grade(key, verdict(ordered), ordered, seconds=time.monotonic() - start,
                 hidden_available=0 if hidden else hidden_count, output=run.output)


def verdict(checks: list[Check]) -> str:
    """``pass`` only when there are checks and every one was reported passed, else ``fail``."""
    return "pass" if checks and all(c.passed for c in checks) else "fail"


def _key(node_id: str) -> str:
    """A node id with its path made relative to the course (``tests/...``)."""
    root = str(ROOT) + "/"
    return node_id[len(root):] if node_id.startswith(root) else node_id


def _read(run: ChildRun, checks: dict[str, Check], patience: float, plans: list[dict]) -> None:
    """Fill ``checks`` from the child's events; evidence is verified here, by the judge."""
    proofs: dict[str, list[dict]] = {}
    for e in run.events:
        cid = _key(str(e.get("id") or ""))
        if cid not in checks:
            continue
        if e["event"] == "evidence":
            proofs.setdefault(cid, []).append(e.get("data") or {})
        elif e["event"] == "result":
            c = checks[cid]
            outcome = e.get("outcome")
            c.status = outcome if outcome in ("passed", "failed") else "skipped"
            c.message, c.text = str(e.get("message", "")), str(e.get("text", ""))
            c.seconds = e["seconds"] if isinstance(e.get("seconds"), (int, float)) else 0.0
    for cid, c in checks.items():
        if evidence.needs_evidence(cid) and c.passed:
            problems = [p for data in proofs.get(cid, []) for p in evidence.verify(data, plans)]
            if not proofs.get(cid):
                c.status, c.message = "failed", "the check sent the judge no evidence"
            elif problems:
                c.status, c.message = "failed", problems[0]
                c.text = "\n".join(problems[:10])
        if c.status == "skipped":
            c.message = f"skipped ({c.message}): a skipped check is not a pass"
    if run.hung_in is not None:
        hung = _key(run.hung_in)
        c = checks.get(hung)
        if c is not None:
            c.status = "hung"
            c.message = (f"no answer in {patience:g} s: a deadlock or a lost wake-up? "
                         "(the check was stopped)")
    for c in checks.values():
        if c.status == "failed" and "Timeout (>" in c.message:
            c.status = "hung"
            c.message = (f"no answer in {c.message.split('(>')[1].split('s)')[0]} s: a "
                         "deadlock or a lost wake-up? (the check was stopped, with every "
                         "thread's stack; the checks after it were not run)")
        if c.status == "not run" and not c.message:
            c.message = "did not run (the grading stopped before it)"
