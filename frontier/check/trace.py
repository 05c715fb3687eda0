"""A violating interleaving as a table (one column per thread, one row per step), and the
trace file that ``crawlab explore --replay`` reads.

The steps come from a replay (:func:`frontier.check.explore.replay`): frontrun records an event
each time a thread reaches a bytecode that touches shared state, *before* the bytecode runs,
and then lets the scheduler pick who goes on. So the last event of each stretch of one thread
has not run yet when another thread takes over: it runs when its thread is next scheduled.
:func:`steps` moves it there, so the table reads in the order things happened. Consecutive
events of one thread on one source line make one row, listing the shared state read and written.

The *focused* view (:func:`focus`, the default) keeps only the steps that touch state the
threads share -- an attribute of one object that two threads touch, one of them writing -- or
call a synchronization method (wait, notify, acquire ...), and folds each stretch of other
steps into one line ("P1: 4 steps on its own data"): per-thread statistics, a
``threading.local``, reads of other methods. Which object an event touched comes from
the replay's recorder (labels in order of first touch, so the same on every replay).

The report is plain text with no addresses, times or absolute paths, so replaying a trace file
prints the very same bytes.
"""

from __future__ import annotations

import io
import json
import linecache
from dataclasses import dataclass, field
from pathlib import Path

from frontier.files import read_regular

__all__ = ["Fold", "Step", "focus", "load", "report", "save", "steps", "table"]

_ROOT = Path(__file__).resolve().parent.parent.parent  # the directory holding ``frontier``
_OWN = Path(__file__).resolve().parent  # frontier/check: the scenarios' own bookkeeping
FORMAT = 2


@dataclass
class Step:
    """One row: a thread ran one source line, touching this shared state."""

    thread: int
    where: str  # "frontier/storage.py:50"
    source: str  # the line's code
    accesses: list[str]  # "read RingBuffer.count", "write RingBuffer.count"
    number: int = 0  # its place in the full table (1-based)
    touches: set = field(default_factory=set)  # (object label, attribute, "read"|"write")
    events: list = field(default_factory=list)  # the replay's event steps merged in this row


@dataclass
class Fold:
    """Consecutive steps of one thread on state no other thread touches, shown as one line."""

    thread: int
    first: int  # number of the first step folded
    count: int


def _where(filename: str) -> str | None:
    """``file:line`` prefix relative to the repository, or ``None`` to leave the event out."""
    if filename.startswith("<"):
        return None
    path = Path(filename).resolve()
    if path.is_relative_to(_OWN):
        return None
    return str(path.relative_to(_ROOT)) if path.is_relative_to(_ROOT) else path.name


def _executed_order(events: list) -> list:
    """The events in the order their bytecodes ran (see the module docstring)."""
    runs: list[list] = []
    for ev in events:
        if runs and runs[-1][0].thread_id == ev.thread_id:
            runs[-1].append(ev)
        else:
            runs.append([ev])
    pending: dict[int, object] = {}
    out: list = []
    for run in runs:
        tid = run[0].thread_id
        if tid in pending:
            out.append(pending.pop(tid))
        if run is not runs[-1]:
            pending[tid] = run[-1]
            run = run[:-1]
        out.extend(run)
    out.extend(pending.values())
    return out


def steps(events: list, keys: dict | None = None) -> list[Step]:
    """Rows of the table from a replay's events (``keys``: event step -> object label)."""
    keys = keys or {}
    rows: list[Step] = []
    for ev in _executed_order(events):
        if ev.access_type is None:
            continue
        where = _where(ev.filename)
        if where is None:
            continue
        where = f"{where}:{ev.lineno}"
        what = f"{ev.access_type} {ev.obj_type_name}.{ev.attr_name}"
        label = keys.get(getattr(ev, "step_index", None))
        touch = {(label, ev.attr_name, ev.access_type)} if label else set()
        step = getattr(ev, "step_index", None)
        if rows and rows[-1].thread == ev.thread_id and rows[-1].where == where:
            if what not in rows[-1].accesses:
                rows[-1].accesses.append(what)
            rows[-1].touches |= touch
            rows[-1].events.append(step)
            continue
        source = linecache.getline(ev.filename, ev.lineno).strip()
        rows.append(Step(ev.thread_id, where, source, [what], len(rows) + 1, touch, [step]))
    return rows


def shared(rows: list[Step]) -> set[tuple[str, str]]:
    """The (object, attribute) pairs that two threads touch, one of them writing."""
    threads: dict[tuple[str, str], set[int]] = {}
    written: set[tuple[str, str]] = set()
    for r in rows:
        for label, attr, kind in r.touches:
            threads.setdefault((label, attr), set()).add(r.thread)
            if kind == "write":
                written.add((label, attr))
    return {k for k in written if len(threads[k]) > 1}


SYNC = frozenset({"wait", "wait_for", "wait_until", "sleep", "notify", "notify_all",
                  "acquire", "release", "P", "V"})
"""Methods whose call is a synchronization step (a thread falls asleep, wakes another, takes
or gives a lock): shown by the focused view although they write nothing themselves."""


def _syncs(r: Step) -> bool:
    return any(a.startswith("read ") and a.rsplit(".", 1)[-1] in SYNC for a in r.accesses)


def kinds(keys: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Shared (object, attribute) pairs as (type, attribute): object labels (``Type#n``)
    are numbered per run, types are the same in every run."""
    return {(label.split("#", 1)[0], attr) for label, attr in keys}


def focus(rows: list[Step], keep_kinds: set[tuple[str, str]] | None = None
          ) -> list[Step | Fold]:
    """The rows that touch shared state (:func:`shared`) or call a synchronization method
    (:data:`SYNC`), each other stretch of one thread's rows folded into a :class:`Fold`.
    ``keep_kinds`` ((type, attribute) pairs, :func:`kinds`) replaces this run's shared state,
    so that several runs are cut into the same steps."""
    keep = shared(rows)
    out: list[Step | Fold] = []
    for r in rows:
        if keep_kinds is not None:
            hit = any((label.split("#", 1)[0], attr) in keep_kinds
                      for label, attr, _ in r.touches)
        else:
            hit = any((label, attr) in keep for label, attr, _ in r.touches)
        if _syncs(r) or hit:
            out.append(r)
        elif out and isinstance(out[-1], Fold) and out[-1].thread == r.thread:
            out[-1].count += 1
        else:
            out.append(Fold(r.thread, r.number, 1))
    return out


def table(rows: list[Step | Fold], threads: list[str]) -> str:
    """The rows as a text table, one column per thread (rendered by rich, no colour); a
    :class:`Fold` is one cell naming the steps it folds."""
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    t = Table(show_lines=True, box=box.ASCII)
    t.add_column("step", justify="right")
    for name in threads:
        t.add_column(name, overflow="fold")
    for r in rows:
        if isinstance(r, Fold):
            number = ""  # the cell says which steps (keeps the column as narrow as before)
            which = str(r.first) if r.count == 1 else f"{r.first}-{r.first + r.count - 1}"
            step = "step" if r.count == 1 else "steps"
            cell = f"{threads[r.thread]}: {r.count} {step} on its own data ({which})"
        else:
            number = str(r.number)
            cell = f"{r.where}\n{r.source}\n" + "; ".join(r.accesses)
        t.add_row(number, *[Text(cell) if k == r.thread else "" for k in range(len(threads))])
    buf = io.StringIO()
    Console(file=buf, width=8 + 42 * len(threads), color_system=None, force_terminal=False,
            legacy_windows=False, soft_wrap=False).print(t)
    return "\n".join(line.rstrip() for line in buf.getvalue().splitlines()) + "\n"


def report(frontier: str, scenario: str, threads: list[str], invariant: str, events: list,
           broken: str | None, *, keys: dict | None = None, full: bool = False) -> str:
    """The text shown for a violation (and printed again, identical, by a replay): focused
    (:func:`focus`) unless ``full``."""
    rows = steps(events, keys)
    head = f"{frontier}, scenario {scenario}: {invariant}\n"
    if not full:
        shown = focus(rows)
        n = sum(isinstance(r, Step) for r in shown)
        head += (f"{n} of {len(rows)} steps touch state the threads share or synchronize; the "
                 f"others are folded (--full shows every step)\n")
        rows = shown
    verdict = f"broken: {broken}\n" if broken else "held on this interleaving\n"
    return head + table(rows, threads) + verdict


def save(path: Path, *, frontier: str, scenario: str, bound: int | None, schedule: list[int],
         report_text: str, full_text: str | None = None) -> None:
    """Write the trace file: what to replay, and the reports (focused and full) the replay
    must print again."""
    data = {"format": FORMAT, "frontier": frontier, "scenario": scenario, "bound": bound,
            "schedule": schedule, "report": report_text}
    if full_text is not None:
        data["full"] = full_text
    path.write_text(json.dumps(data, indent=1) + "\n")


def _int(value: object) -> bool:
    """A JSON integer (``true``/``false`` are not: ``bool`` is an ``int`` in Python)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value: object) -> str:
    """``value`` for a one-line message, cut short if long (a 4000-digit number ...)."""
    text = json.dumps(value) if not isinstance(value, float) else repr(value)
    text = text.replace("\n", " ")
    return text if len(text) <= 40 else text[:37] + "..."


MAX_BOUND = 10_000
"""The largest preemption bound (``crawlab explore --bound``, a trace file's ``bound``): frontrun
cuts a run at 10 000 steps, so a run has fewer points to preempt and a larger bound would
bound nothing (the scenarios' runs take under 1 000 steps)."""

MAX_BYTES = 64 * 2**20
"""The largest trace file read: :func:`save` writes a few kilobytes (a schedule of a few
thousand entries and its report); a file this large is not one of them."""


def load(path: Path, frontier: str) -> dict:
    """Read a trace file of ``frontier`` (the name or spec the user chose, loaded already);
    :class:`ValueError` (one line naming the file) if it is not one.

    Every field is checked against what :func:`save` writes: ``format`` is :data:`FORMAT`,
    ``frontier`` and ``scenario`` are names (the scenario one of
    :data:`frontier.check.scenarios.SCENARIOS` that applies to the frontier), ``schedule``
    not empty and each entry a thread of that scenario (``0 .. n-1``) or frontrun's virtual
    clock (``n``, for ``n`` threads), ``bound`` a preemption bound or ``null``, ``report``
    and ``full`` text. So a damaged or hand-edited file is refused here, before the replay (which
    would wait for a thread that does not exist until frontrun's timeout). The file's
    ``frontier`` must name ``frontier``, compared without importing what the file names: a
    trace naming ``FILE.py:CLASS`` never runs that file; only the user's choice is run."""
    try:
        data = json.loads(read_regular(path, MAX_BYTES, "a trace file's").decode())
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError, huge integers
        raise ValueError(f"cannot read trace file {path}: {exc}") from None
    except RecursionError:
        raise ValueError(f"cannot read trace file {path}: JSON nested too deeply") from None
    keys = {"format", "frontier", "scenario", "schedule"}  # "report": absent when exported
    if (not isinstance(data, dict) or not keys <= set(data) or not _int(data["format"])
            or data["format"] != FORMAT):
        raise ValueError(f"{path} is not a crawlab explore trace file (format {FORMAT})")
    for key in ("frontier", "scenario"):
        if not isinstance(data[key], str) or not data[key]:
            raise ValueError(f"{path}: {key} must be a name (a string), not "
                             f"{_shown(data[key])}")
    for key in ("report", "full"):
        if key in data and not isinstance(data[key], str):
            raise ValueError(f"{path}: {key} must be text (a string), not {_shown(data[key])}")
    bound = data.get("bound")
    if bound is not None and not (_int(bound) and 0 <= bound <= MAX_BOUND):
        raise ValueError(f"{path}: bound must be a preemption bound (an integer from 0 to "
                         f"{MAX_BOUND}) or null, not {_shown(bound)}")
    sched = data["schedule"]
    if not isinstance(sched, list):
        raise ValueError(f"{path}: schedule must be a list of thread indices, not "
                         f"{_shown(sched)}")
    if not sched:  # save() writes the run's choices, never none: the replay would be
        # frontrun's own interleaving, not the file's
        raise ValueError(f"{path}: schedule is empty; a trace holds the thread choices of "
                         "the run it recorded")
    from frontier.check import scenarios

    try:
        sc = scenarios.get(data["scenario"])
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    n = len(sc.thread_names)  # 0 .. n-1: the threads; n: frontrun's virtual clock
    for i, x in enumerate(sched):
        if not (_int(x) and 0 <= x <= n):
            raise ValueError(
                f"{path}: schedule entry {i} is {_shown(x)}, not a thread index of scenario "
                f"{sc.name!r} (0 to {n - 1} for its threads {', '.join(sc.thread_names)}; "
                f"{n} for the virtual clock)")
    from frontier.userclass import is_spec, loaded_name, resolve

    mine = resolve(frontier)  # loaded by the caller: no import here
    named = data["frontier"]
    if (loaded_name(named) if is_spec(named) else named) != mine:
        raise ValueError(f"{path} is a trace of {_shown(named)}, not {frontier!r}")
    takes = scenarios.applicable(mine)
    if sc.name not in takes:
        raise ValueError(f"{path}: scenario {sc.name!r} does not apply to "
                         f"{named!r}; it takes: {', '.join(takes)}")
    return data
