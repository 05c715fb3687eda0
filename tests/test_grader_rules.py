"""The judge's own rules, in process and fast: the static check refuses every way out of a
submission's own names it is meant to refuse and allows what the solutions use; the evidence
verifier finds each broken property in a log made to break it, and nothing in a good log."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from exercises import evidence
from exercises.policy import EXERCISES
from exercises.static import SourceError, check_source

ROOT = Path(__file__).resolve().parent.parent
HEADER = "from __future__ import annotations\nimport threading\n"
TAIL = "\n\nclass BoundedFifo:\n    pass\n"


def problems(tmp_path: Path, body: str, exercise: str = "ex1") -> list[str]:
    ex = EXERCISES[exercise]
    text = HEADER + body + TAIL.replace("BoundedFifo", ex.obj)
    path = tmp_path / ex.file
    path.write_text(text)
    return check_source(path, ex)


REFUSED = {
    "import sys": "import of 'sys'",
    "import os.path": "import of 'os.path'",
    "from frontier.monitor import MonitorFrontier": "import of 'frontier.monitor'",
    "from frontier import contract": "import of 'frontier'",
    "from . import x": "import of '.'",
    "from .threading import Lock": "import of '.threading'",
    "from threading import excepthook": "'excepthook' from 'threading'",
    "from collections import *": "'*' from 'collections'",
    "x = threading.settrace": "threading.settrace is not allowed",
    "x = threading._sys": "threading._sys is not allowed",
    "x = eval('1')": "name 'eval'",
    "x = exec": "name 'exec'",
    "x = open": "name 'open'",
    "x = getattr(threading, 'Lock')": "name 'getattr'",
    "x = vars(threading)": "name 'vars'",
    "x = globals()": "name 'globals'",
    "x = type(1)": "name 'type'",
    "x = __builtins__": "'__builtins__'",
    "x = __import__": "'__import__'",
    "x = (1).__class__": "'__class__'",
    "x = [].__class__.__subclasses__": "'__subclasses__'",
    "def f():\n    eval = 1\n": "name 'eval'",
    "def f(g):\n    return g.gi_frame": "'gi_frame'",
    "def f(e):\n    return e.tb_frame.f_globals": "'tb_frame'",
    "threading.Lock = None": "assigning threading.Lock",
    "raise SystemExit(0)": "name 'SystemExit'",
    "x = KeyboardInterrupt": "name 'KeyboardInterrupt'",
    "def f(**__kw__): pass": "'__kw__'",
    # an allowed module used as a value, then walked (found by an adversarial reading)
    "_t = threading\nx = _t._sys": "module 'threading' may only be used",
    "x = [threading][0]": "module 'threading' may only be used",
    "x = '{0._sys}'.format(threading)": "module 'threading' may only be used",
    "f = lambda m=threading: m": "module 'threading' may only be used",
    "import frontier.contract\nx = frontier.monitor.MonitorFrontier": "frontier.monitor is not",
    "import typing\nx = typing.operator": "typing.operator is not allowed",
    "import collections.abc\nx = collections.abc": "module 'collections.abc' may only be used",
    "threading = 1": "module 'threading' may only be used",
    "from collections import deque\ndeque = list": "rebinding 'deque'",
    "def f(self):\n    return self.frontier._lock": "a private attribute may only be read",
    "from collections import deque\nx = deque._x": "a private attribute may only be read",
    # a class shared with the grader, changed or handed on (the second adversarial reading)
    "threading.Condition.wait = None": "assigning threading.Condition.wait changes",
    "del threading.Semaphore.acquire": "assigning threading.Semaphore.acquire changes",
    "C = threading.Condition": "'Condition' is shared with the grader",
    "from threading import Condition as C\nx = C": "'Condition' is shared with the grader",
    "from frontier.contract import FrontierStats\nS = [FrontierStats]": "'FrontierStats' is shared",
    "def f():\n    return threading.Semaphore": "'Semaphore' is shared with the grader",
    "def f(c=threading.Condition):\n    pass": "'Condition' is shared with the grader",
    "x = None or threading.Condition": "'Condition' is shared with the grader",
    "from frontier.contract import Closed\nd = {}\nd[Closed] = 1": "'Closed' is shared",
    "class C(threading.Condition):\n    pass\n\n\nx = C.mro()": "attribute 'mro'",
    # attribute paths written inside a string, which str.format evaluates (the third reading:
    # a file that looked at the grader's locks, stats and trace hook this way, unseen)
    "x = '{0}'.format(1)": "attribute 'format'",
    "x = str.format_map('{a}', {})": "attribute 'format_map'",
    "def f(self):\n    return '{0._lock}|{0.stats}'.format(self)": "attribute 'format'",
    "def f(self):\n    return ('{0.__init__.__globals__[threading]._trace_hook}'\n"
    "            .format(self))": "attribute 'format'",
    # a private attribute of a shared class, reached through its module
    "x = threading.Condition._is_owned": "'_is_owned': a private attribute",
    "import typing\nx = typing.Optional._getitem": "'_getitem': a private attribute",
    # syntax the check does not read: a class pattern names an attribute as a bare word (the
    # fourth reading: `case object(__globals__=g)` reached the grader's channel, graded PASS)
    "match threading.Condition.wait:\n    case object(__globals__=g):\n        pass":
        "'match' is not allowed",
    "match 1:\n    case eval:\n        pass": "'match' is not allowed",
    "async def f():\n    pass": "'async def' is not allowed",
    "f = lambda __globals__: 1": "'__globals__'",
    "f = lambda eval=1: eval": "name 'eval'",
    # state kept outside the instances (the sixth reading: the first frontier a process made
    # ignored its capacity, counted in a module-level list; a crawl makes one, a grading many)
    "_MADE = [0]": "_MADE is bound to a value that can change",
    "_SEEN = set()": "_SEEN is bound to a value that can change",
    "from collections import deque\n_Q = deque()": "_Q is bound to a value that can change",
    "class C:\n    made = []": "made is bound to a value that can change",
    "class C:\n    n = 0\n\n    def __init__(self):\n        C.n += 1": "assigning into C",
    "class C:\n    n = 0\n\n    def __init__(self):\n        self.n += 1\n        self.x = C":
        "'C' is a class or function of the",
    "def f():\n    pass\n\n\ndef g():\n    f.calls = 1": "assigning into f",
    "def f():\n    pass\n\n\nf.calls = 0": "an assignment at module or class level",
    "N = 0\n\n\ndef f():\n    global N\n    N += 1": "'global'",
    "def f():\n    n = 0\n\n    def g():\n        nonlocal n\n        n += 1": "'nonlocal'",
    "def f(self, seen=[]):\n    seen.append(self)": "a default argument that can change",
    "def f(self, seen={}):\n    pass": "a default argument that can change",
    "f = lambda seen=set(): seen": "a default argument that can change",
    "x = 0\nx += 1": "an assignment at module or class level other than NAME = constant",
    "if True:\n    _S = {}": "_S is bound to a value that can change",
    "x = len(_M := [])": "a name bound by ':=', 'for', 'with'",
    "for _M in [[]]:\n    pass": "a name bound by ':=', 'for', 'with'",
    "with threading.Lock() as _L:\n    pass": "a name bound by ':=', 'for', 'with'",
    # the seventh reading: state past that rule (a helper's 17 ways, each refused here)
    "_FIRST = threading.Lock().acquire": "_FIRST is bound to a value that can change",
    "_S = {}.setdefault": "_S is bound to a value that can change",
    "_NEXT = (i for i in range(9)).send": "_NEXT is bound to a value that can change",
    "import time\n_T0 = time.monotonic().real": "_T0 is bound to a value that can change",
    "class C:\n    pass\n\n\ndef f():\n    c = C\n    c.n = 1": "'C' is a class or function of the",
    "def g():\n    pass\n\n\ndef f(b=g):\n    b.n = 1": "'g' is a class or function of the",
    "class B:\n    pass\n\n\nclass C:\n    box = B": "'B' is a class or function of the",
    "class C:\n    class S:\n        n = 0": "a class defined inside a class",
    "if True:\n    class B:\n        n = 0": "a class defined inside another statement",
    "class C:\n    @staticmethod\n    def h():\n        pass": "a decorator other than property",
    "@(lambda f: [])\ndef seen():\n    pass": "a decorator other than property",
    "try:\n    pass\nexcept Exception as _e:\n    pass": "'except ... as' at module or class",
    "def f(self, frontier):\n    frontier.seen = 1": "assigning into frontier, which is not",
    "import typing\n\n\ndef f():\n    t = typing.Dict[str, int]\n    t._name = 'x'":
        "assigning into t, which is not",
    "def f():\n    a = annotations\n    a.stash = 1": "'annotations' is shared with the grader",
    "from frontier.contract import check_r\n\n\ndef f():\n    c = check_r\n    c.n = 1":
        "'check_r' is shared with the grader",
}
if sys.version_info >= (3, 12):  # syntax a 3.11 parser refuses by itself
    REFUSED.update({"type X = int": "the 'type' statement is not allowed",
                    "def f[T](x: T) -> T:\n    return x": "a type parameter is not allowed"})


@pytest.mark.parametrize("snippet", sorted(REFUSED))
def test_the_static_check_refuses(tmp_path, snippet):
    found = problems(tmp_path, snippet)
    assert any(REFUSED[snippet] in p for p in found), found
    assert all(p.startswith("ex1_bounded_fifo.py:") for p in found)


ALLOWED = [
    "from collections import deque\nfrom collections.abc import Iterable",
    "import collections.abc\n\n\ndef f():\n    return isinstance(1, collections.abc.Iterable)",
    "class C:\n    def f(self):\n        self.c = threading.Condition(threading.Lock())",
    "from frontier.contract import Closed, Empty, Full, FrontierStats, check_r",
    "class C:\n    def f(self):\n        self._lock = threading.Lock()\n"
    "        self.stats.puts += 1",
    "import frontier.contract\n\n\ndef f():\n    raise frontier.contract.Closed('x')",
    "def f(w):\n    return w._sem",
    "def __len__(self):\n    return len(self._urls)",
    "def f():\n    return sorted(min(1, 2) for _ in range(3))",
    "import time\n_ = (threading.Lock, time.monotonic)",
    "from frontier.contract import Closed, Empty\n\n\ndef f(x, d):\n"
    "    if isinstance(x, (Closed, Empty)) or x is Closed or d[Closed]:\n"
    "        raise Closed('x')\n    try:\n        pass\n    except (Closed, Empty):\n"
    "        raise Empty from None",
    "class C:\n    def f(self, c: threading.Condition) -> threading.Condition | None:\n"
    "        self.x: threading.Semaphore = threading.Semaphore(0)",
    "class C(threading.Condition):\n    pass",
    "def f(self, url):\n    return f'{url}: {self._lock!r} {len(self._urls):>4}'",
    # constants at module and class level, state in the instance and its locals
    "__all__ = ['BoundedFifo']\n_EMPTY = object()\nLIMIT = 2 ** 10\nPAIR = (1, -2.5, 'x')",
    "class C:\n    __slots__ = ('url', 'next')\n    name = 'c'\n    bounded: bool = True",
    "class C:\n    def f(self, url, timeout=None, r=1):\n        node = self._head\n"
    "        node.next = url\n        node = node.next\n        node.seen = True\n"
    "        box = [url]\n        box[0] = url\n        self._urls[0] = url\n"
    "        self.stats.puts += 1\n        del self._map[url]",
]


@pytest.mark.parametrize("snippet", ALLOWED)
def test_the_static_check_allows(tmp_path, snippet):
    assert problems(tmp_path, snippet) == []


def test_ex2_forbids_condition_however_named(tmp_path):
    for body in ("x = threading.Condition", "from threading import Condition",
                 "Condition = 1", "x = threading.Event"):
        assert problems(tmp_path, body, "ex2"), body


@pytest.mark.parametrize("cookie, refused", [("# -*- coding: utf-7 -*-", True),
                                             ("# coding: latin-1", True),
                                             ("# -*- coding: utf-8 -*-", False),
                                             ("\ufeff# a byte-order mark", False)])
def test_a_file_is_checked_as_the_import_will_read_it(tmp_path, cookie, refused):
    """The import decodes a file as its coding declaration says, the check reads UTF-8: any
    other declaration is refused (a UTF-7 file hid its code in comments and was graded PASS)."""
    path = tmp_path / "ex4_bsp_exchange.py"
    path.write_text(cookie + "\nclass Exchange:\n    pass\n", encoding="utf-8")
    found = check_source(path, EXERCISES["ex4"])
    assert bool(found) is refused and all("coding declaration" in p for p in found), found


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_the_starters_and_solutions_keep_their_rules(exercise):
    ex = EXERCISES[exercise]
    for folder in (ex.starter.parent, ROOT / "docs" / "instructor" / "solutions"):
        assert check_source(folder / ex.file, ex) == [], folder


@pytest.mark.parametrize("text, message", [
    ("\nclass BoundedFifo(:\n", "ex1_bounded_fifo.py:2: SyntaxError"),
    ("class Other:\n    pass\n", "no class BoundedFifo"),
    ("x = '\0'\n", "null bytes|cannot be parsed"),
    ("x = 0" + " + 1" * 1000 + "\n", "nested too deeply"),  # compiles; the walk recursed out
])
def test_a_file_that_cannot_be_graded_is_a_source_error(tmp_path, text, message):
    path = tmp_path / "ex1_bounded_fifo.py"
    path.write_text(text)
    with pytest.raises(SourceError, match=message):
        check_source(path, EXERCISES["ex1"])


# -- the evidence verifier -----------------------------------------------------------------

PLAN = {"id": 0, "mode": "orderly", "capacity": 2, "producers": [["a", "b", "c"]],
        "consumers": 1, "close_after": 3}


def log(*entries, stats=None, drained=(), length=0, stuck=()):
    """A log: entries ``(thread, op, arg, result, error, t0, t1)``; the stats default to what
    the entries show."""
    entries = [list(e) for e in entries]
    if drained:
        entries.append(["main", "drain", None, list(drained), None, 99.0, 99.5])
    puts = sum(1 for e in entries if e[1] == "put" and not e[4])
    gets = sum(len(e[3]) if e[1] in ("get_many", "drain") else 1 for e in entries
               if e[1] in ("get", "get_many", "drain") and e[3] is not None and not e[4])
    return {"plan": 0, "log": entries, "stuck": list(stuck), "len": length,
            "stats": stats or {"puts": puts, "gets": gets}, "check_error": None,
            "drained": list(drained)}


GOOD = [("P0", "put", "a", None, None, 0.0, 1.0), ("P0", "put", "b", None, None, 1.1, 2.0),
        ("C0", "get", None, "a", None, 2.1, 3.0), ("P0", "put", "c", None, None, 3.1, 4.0),
        ("C0", "get", None, "b", None, 4.1, 5.0), ("C0", "get", None, "c", None, 5.1, 6.0),
        ("X", "close", None, None, None, 7.0, 7.5), ("C0", "get", None, None, None, 8.0, 8.5)]


def test_a_good_log_holds():
    assert evidence.verify(log(*GOOD), [PLAN]) == []


def _with(i, entry):
    bad = list(GOOD)
    bad[i] = entry
    return bad


BROKEN = {
    "lost": (log(*GOOD[:5], GOOD[6], GOOD[7]), "never came out"),
    "twice": (log(*GOOD, ("C0", "get", None, "a", None, 6.2, 6.3)), "more often"),
    "invented": (log(*GOOD, ("C0", "get", None, "zz", None, 6.2, 6.3)), "nobody put"),
    "none-while-open": (log(*_with(7, ("C0", "get", None, None, None, 6.2, 6.5))), "while the"
                        " frontier was open"),
    "none-while-left": (log(*GOOD[:5], GOOD[6], GOOD[7], drained=["c"]), "still in the"),
    "capacity": (log(("P0", "put", "a", None, None, 0, 1), ("P0", "put", "b", None, None, 1, 2),
                     ("P0", "put", "c", None, None, 2.0, 2.05), *GOOD[2:3], *GOOD[4:]),
                 "capacity is 2"),
    "fifo": (log(*_with(2, ("C0", "get", None, "b", None, 2.1, 3.0))[:4],
                 ("C0", "get", None, "a", None, 4.1, 5.0), *GOOD[5:]), "not FIFO"),
    "closed-put": (log(*GOOD, ("P0", "put", "d", None, None, 8.0, 8.1), drained=["d"]),
                   "must raise Closed"),
    "raised": (log(*_with(4, ("C0", "get", None, None, "IndexError: x", 4.1, 5.0))),
               "raised IndexError"),
    "stats": (log(*GOOD, stats={"puts": 2, "gets": 3}), "stats.puts is 2"),
    "stuck": (log(*GOOD, stuck=[["C1", "get", None]]), "never returned"),
    "len": (log(*GOOD, length=1), "len() is 1"),
    "malformed": ({"plan": 0, "log": [["x"]]}, "malformed"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_the_verifier_finds(case):
    data, message = BROKEN[case]
    found = evidence.verify(data, [PLAN])
    assert any(message in p for p in found), found


def test_a_log_is_checked_against_the_judges_plan_not_its_own():
    """URLs no plan of the judge holds are invented, whatever the log claims its plan was."""
    data = log(*GOOD)
    other = dict(PLAN, producers=[["x", "y", "z"]])
    assert evidence.verify(data, [other]) == []  # the same URLs in and out: no invention
    data = log(*GOOD, ("C0", "get", None, "x", None, 6.2, 6.3))
    assert any("nobody put" in p for p in evidence.verify(data, [PLAN]))


def test_the_plans_carry_the_nonce_and_have_distinct_ids():
    plans = evidence.make_plans("n0nce")
    assert len({p["id"] for p in plans}) == len(plans) == evidence.PLANS + len(
        evidence.hidden_shapes()) > evidence.PLANS
    assert all("n0nce" in u for p in plans for urls in p["producers"] for u in urls)


def test_a_missing_dependency_is_an_error_of_the_grading_never_a_fail(monkeypatch, capsys,
                                                                      tmp_path):
    """Without frontrun (or any module the checks need) grading says which and how to install
    it, exits 2, and grades nothing: not a FAIL, not a skipped check read as a pass."""
    import importlib.util

    from exercises import grade, judge

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "frontrun" else real(name, *a))
    with pytest.raises(judge.GradingError, match=r"frontrun.*pip install -e '\.\[test\]'"):
        judge.dependencies(EXERCISES["ex1"])
    solution = ROOT / "docs" / "instructor" / "solutions"
    out_json = tmp_path / "r.json"
    assert grade.main(["ex1", "--dir", str(solution), "--json", str(out_json)]) == 2
    err = capsys.readouterr().err
    assert "ERROR: grading ex1 needs frontrun" in err and err.count("\n") == 1
    import json

    summary = json.loads(out_json.read_text())["crawlab"]["exercises"]["ex1"]
    assert summary["verdict"] == "error" and summary["total"] == 0


# -- the judge's reading of the child -------------------------------------------------------

def _run(*events, hung_in=None):
    from exercises.judge import ChildRun

    return ChildRun(list(events), "", hung_in, 1.0)


def _read(run, ids, plans=()):
    from exercises.judge import Check, _read, verdict

    checks = {i: Check(i) for i in ids}
    _read(run, checks, 12.0, list(plans))
    return checks, verdict(list(checks.values()))


def res(cid, outcome="passed", message=""):
    return {"event": "result", "id": cid, "outcome": outcome, "message": message, "text": "",
            "seconds": 0.1}


def test_pass_needs_every_expected_check_reported_passed():
    ids = ["tests/a.py::t1", "tests/a.py::t2"]
    checks, v = _read(_run(res(ids[0]), res(ids[1])), ids)
    assert v == "pass" and all(c.message == "" and c.seconds == 0.1 for c in checks.values())
    checks, v = _read(_run(res(ids[0])), ids)  # t2 never reported
    assert v == "fail" and checks[ids[1]].status == "not run"
    checks, v = _read(_run(res(ids[0]), res(ids[1], "skipped", "no frontrun")), ids)
    assert v == "fail" and "not a pass" in checks[ids[1]].message
    assert _read(_run(), [])[1] == "fail"  # no checks at all is no evidence of anything


def test_results_for_checks_nobody_asked_for_count_for_nothing():
    ids = ["tests/a.py::t1"]
    checks, v = _read(_run(res("tests/a.py::other"), res("tests/a.py::t1", "failed", "x")), ids)
    assert v == "fail" and list(checks) == ids


def test_a_hung_check_is_named_and_fails():
    ids = ["tests/a.py::t1", "tests/a.py::t2"]
    run = _run(res(ids[0]), {"event": "start", "id": ids[1]}, hung_in=ids[1])
    checks, v = _read(run, ids)
    assert v == "fail" and checks[ids[1]].status == "hung"
    assert "no answer in 12 s" in checks[ids[1]].message


def test_a_history_check_passes_only_on_the_judges_own_verification():
    cid = "tests/autograder/test_frontier_judge.py::test_history[0]"
    bad = log(*GOOD, stats={"puts": 2, "gets": 3})
    checks, v = _read(_run({"event": "evidence", "id": cid, "data": bad}, res(cid)), [cid],
                      [PLAN])
    assert v == "fail" and "stats.puts is 2" in checks[cid].message
    checks, v = _read(_run(res(cid)), [cid], [PLAN])  # passed, but sent nothing to verify
    assert v == "fail" and "no evidence" in checks[cid].message
    good = log(*GOOD)
    assert _read(_run({"event": "evidence", "id": cid, "data": good}, res(cid)), [cid],
                 [PLAN])[1] == "pass"


def test_a_check_stopped_by_its_time_limit_reads_as_hung():
    ids = ["tests/a.py::t1", "tests/a.py::t2"]
    run = _run(res(ids[0], "failed", "Failed: Timeout (>20.0s) from pytest-timeout."))
    checks, v = _read(run, ids)
    assert v == "fail" and checks[ids[0]].status == "hung"
    assert "no answer in 20.0 s" in checks[ids[0]].message
    assert checks[ids[1]].status == "not run"


def test_the_child_cannot_write_the_course_see_the_solutions_or_reach_the_network(tmp_path):
    """Where the machine allows namespaces (CI's does): in the graded child the course tree is
    read-only, and so is every other folder but its own work folder (the interpreter's, where a
    ``.pth`` file would run in the next grading; a folder beside the work folder, as other
    students' results are in a class's grading); the instructor's folder is empty, and there
    is no network, not even loopback."""
    from exercises.judge import isolation, run_child

    if "--pid" not in isolation():
        pytest.skip("this machine allows no PID and mount namespaces (unshare --pid --mount): "
                    "the book says what is then not enforced")
    solutions = ROOT / "docs" / "instructor" / "solutions"
    work = tmp_path / "work"
    work.mkdir()
    beside, prefix = tmp_path / "zz_beside", Path(sys.prefix) / "zz_probe"
    probe = work / "test_probe.py"
    probe.write_text(
        "import os\nimport socket\n\n"
        f"def test_write():\n    open({str(ROOT / 'zz_probe')!r}, 'w')\n\n"
        f"def test_beside():\n    open({str(beside)!r}, 'w')\n\n"
        f"def test_prefix():\n    open({str(prefix)!r}, 'w')\n\n"
        "def test_own():\n    open('zz_own', 'w').write('x')\n\n"
        "def test_unseal():\n    import subprocess\n"
        "    assert subprocess.run(['mount', '-o', 'remount,rw,bind', '/']).returncode == 0\n\n"
        f"def test_solutions():\n    assert os.listdir({str(solutions)!r})\n\n"
        f"def test_judge():\n    open('/proc/{os.getpid()}/root{solutions}/"
        "ex1_bounded_fifo.py')\n\n"
        "def test_network():\n    socket.create_connection(('127.0.0.1', 9), timeout=2)\n")
    run = run_child([str(probe)], EXERCISES["ex4"], work, seconds=120, patience=120)
    got = {e["id"].split("::")[-1]: e for e in run.events if e["event"] == "result"}
    assert set(got) == {"test_write", "test_beside", "test_prefix", "test_own", "test_unseal",
                        "test_solutions", "test_network", "test_judge"}, run.output[-2000:]
    if shutil.which("setpriv"):  # no capability left: the seal cannot be undone from inside
        assert got["test_unseal"]["outcome"] == "failed", got["test_unseal"]
    assert got["test_judge"]["outcome"] == "failed"  # the judge's /proc is not there
    for where in ("test_write", "test_beside", "test_prefix"):
        assert "Read-only file system" in got[where]["message"], (where, got[where])
    assert got["test_own"]["outcome"] == "passed", got["test_own"]
    assert not beside.exists() and not prefix.exists()
    assert got["test_solutions"]["outcome"] == "failed"  # nothing there to list
    assert "unreachable" in got["test_network"]["message"].lower()
    assert not (ROOT / "zz_probe").exists()


def test_anything_on_the_channel_that_is_not_an_event_is_ignored():
    from exercises.judge import _event

    for line in (b"[1]", b"1", b'"x"', b"{}", b'{"event": 3}', b'{"event": "result", "id": 5}',
                 b"not json", b"\xff\xfe"):
        assert _event(line) is None, line
    assert _event(b'{"event": "start", "id": "tests/a.py::t"}') == {
        "event": "start", "id": "tests/a.py::t"}
    ids = ["tests/a.py::t1"]
    run = _run({"event": "result", "id": ids[0], "outcome": ["passed"], "seconds": "x"})
    assert _read(run, ids)[1] == "fail"  # an outcome that is not "passed" is not a pass


# -- the counters, watched in every check (exercises/counters.py) ----------------------------


def _fifo(outside: bool, stats_class=None):
    """A small unbounded FIFO whose ``put`` counts inside its lock, or after it (racy)."""
    import threading
    from collections import deque

    from frontier.contract import FrontierStats

    class Fifo:
        def __init__(self) -> None:
            self._urls: deque[str] = deque()
            self._lock = threading.Lock()
            self.stats = (stats_class or FrontierStats)()

        def put(self, url: str, priority: float = 0.0) -> None:
            with self._lock:
                self._urls.append(url)
                if not outside:
                    self.stats.puts += 1
            if outside:
                seen = self.stats.puts
                self.stats.puts = seen + 1

        def put_many(self, pairs) -> None:
            for url, priority in pairs:
                self.put(url, priority)

        def get(self):
            with self._lock:
                if not self._urls:
                    return None
                self.stats.gets += 1
                return self._urls.popleft()

        def get_many(self, r: int) -> list[str]:
            with self._lock:
                out = [self._urls.popleft() for _ in range(min(r, len(self._urls)))]
                self.stats.gets += len(out)
                return out

    return Fifo


def _hammer(f, threads: int = 4, per: int = 300) -> None:
    import threading

    def work(t: int) -> None:
        for i in range(0, per, 3):
            f.put_many((f"u{t}-{i + k}", 0.0) for k in range(3))
            f.get()

    ts = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(30)
    f.get_many(10**6)


def test_the_tally_finds_a_counter_updated_outside_the_lock_in_any_check():
    """With the counters switching (as in every check of a grading), a ``put`` that counts
    after its lock loses updates under four threads, and the tally, counting the calls as they
    return (``put_many`` once, though it calls ``put``), says so; the same class counting
    inside its lock is clean."""
    from exercises.counters import watching

    for outside, clean in ((False, True), (True, False)):
        cls = _fifo(outside)
        plain = dict(cls.__dict__)
        with watching(cls) as tally:
            _hammer(cls())
            problems = tally.check()
        assert (problems == []) is clean, problems
        if not clean:
            assert "a counter updated outside the lock" in problems[0], problems
        assert dict(cls.__dict__) == plain  # the class has its own methods back


def test_the_tally_refuses_stats_of_a_class_of_the_files_own():
    """A ``FrontierStats`` subclass with counters of its own would not switch: refused."""
    from exercises.counters import watching
    from frontier.contract import FrontierStats

    class Stats(FrontierStats):
        puts = 0
        gets = 0

    cls = _fifo(False, Stats)
    with watching(cls) as tally:
        cls().put("a")
        assert any("not a frontier.contract.FrontierStats" in p for p in tally.check())


def test_switching_counters_look_the_same_and_are_put_back():
    """The switch is made on the class itself: the same class, repr and equality as ever, and
    the plain counters again after the block."""
    from exercises.counters import switching
    from frontier.contract import FrontierStats

    before = FrontierStats(puts=2)
    with switching():
        inside = FrontierStats(puts=2)
        assert type(inside) is FrontierStats and inside == before
        assert repr(inside) == repr(FrontierStats(puts=2)) and isinstance(
            FrontierStats.__dict__["puts"], property)
        inside.puts += 1
        assert inside.puts == 3
    assert FrontierStats.__dict__["puts"] == 0 and before.puts == 2 and inside.puts == 3


def test_the_judges_plan_urls_look_like_the_threaded_checks():
    """A file cannot tell the judge's plans from the threaded checks by their URLs: one shape,
    ``http://siteP.test/TOKEN/I``, a fresh 12-digit token each run."""
    import re
    import uuid

    from tests import test_frontier_threads as threads

    shape = re.compile(r"http://site\d+\.test/[0-9a-f]{12}/\d+")
    plans = evidence.make_plans(uuid.uuid4().hex[:12])
    assert all(shape.fullmatch(u) for p in plans for urls in p["producers"] for u in urls)

    class Bag:
        closed = False

        def __init__(self) -> None:
            self.urls: list[str] = []

        def put(self, url, priority=0.0):
            self.urls.append(url)

        def put_many(self, pairs):
            self.urls.extend(u for u, _ in pairs)

        def get(self, timeout=None):
            return None

        def close(self) -> None:
            self.closed = True

    bag = Bag()
    put, _ = threads._move(bag, 2, 1, 40)
    assert bag.urls and all(shape.fullmatch(u) for u in bag.urls), bag.urls[:3]
