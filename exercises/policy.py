"""The grader's policy: for each exercise, what it checks, what it allows and what it forbids.

One table, :data:`EXERCISES`; everything else in the grader reads it. A row says

* what the student writes (the file and the object in it) and, for a frontier, what the
  exercise says it must be (``kind``: its ordering and whether it is bounded; never read from
  the student's class);
* which modules and names the file may use (``allowed``: a module, then the names that may be
  taken from it; checked on the source before anything of it runs, :mod:`exercises.static`);
  ``forbidden`` names the exercise's own rules (ex2: no ``Condition``);
* which checks grade it: ``public`` suites the student's ``grade.py`` runs, ``hidden`` suites
  that only the instructor's grading runs (they live in ``tests/autograder/hidden/``, which the
  student kit does not hold);
* its limits: seconds for the whole exercise, seconds without an answer before a check counts as
  hung.

The same builtins and dunders are allowed for every exercise (:data:`BUILTINS`,
:data:`DUNDERS`); a name outside them (``open``, ``exec``, ``getattr``, ``__import__``,
``__builtins__`` ...) is refused wherever it appears, bound or read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STARTERS = ROOT / "exercises" / "starters"
HIDDEN = ROOT / "tests" / "autograder" / "hidden"

INSTALL = "pip install -e '.[test]'"
"""The README's install command, named wherever the grading finds a dependency missing."""

BUILTINS = frozenset("""
    abs all any bool callable dict divmod enumerate filter float frozenset hash int isinstance
    issubclass iter len list map max min next object print property range repr reversed round
    set slice sorted staticmethod classmethod str sum super tuple zip
    Exception ValueError TypeError RuntimeError KeyError IndexError StopIteration
    NotImplementedError AssertionError ArithmeticError OverflowError LookupError
""".split())
"""Builtins every exercise may use. Others (``open``, ``exec``, ``eval``, ``compile``,
``getattr``, ``setattr``, ``vars``, ``globals``, ``type``, ``SystemExit`` ...) are refused."""

DUNDERS = frozenset("""
    __init__ __len__ __enter__ __exit__ __repr__ __str__ __iter__ __next__ __bool__
    __contains__ __all__ __slots__ __future__
""".split())
"""Dunder names a file may define or use; any other (``__class__``, ``__globals__``,
``__builtins__``, ``__import__``, ``__subclasses__`` ...) is refused."""

FRAME_ATTRIBUTES = ("f_", "tb_", "gi_", "cr_", "ag_", "co_")
"""Attribute prefixes that walk frames, tracebacks, generators and code objects (a way out of
the file's own names into the grader's); refused."""

REFUSED_ATTRIBUTES = frozenset({"mro", "format", "format_map", "vformat"})
"""Attributes refused wherever they appear. ``C.mro()`` lists the classes ``C`` is built on,
so a subclass of ``threading.Condition`` would hand the shared class over as a value.
``str.format`` and ``format_map`` (and ``string.Formatter.vformat``) evaluate attribute and
item paths written *inside a string*: ``"{0.__init__.__globals__[threading]}".format(self)``
walks to any name while the syntax tree shows only a string, so neither may be named (an
f-string's fields are parsed as code and checked like any other). The other ways to turn a
string into an attribute path (``getattr``, ``operator.attrgetter``, ``string.Formatter``,
``%`` with ``__dict__``) are already out: their names or modules are not allowed."""

SYNTAX = frozenset("""
    Module Expr Assign AugAssign AnnAssign Pass Break Continue Return Delete Raise Assert
    If While For With withitem Try ExceptHandler FunctionDef ClassDef Lambda arguments arg
    keyword Import ImportFrom alias Global Nonlocal Yield YieldFrom
    BoolOp And Or BinOp Add Sub Mult Div FloorDiv Mod Pow LShift RShift BitOr BitXor BitAnd
    MatMult UnaryOp Invert Not UAdd USub Compare Eq NotEq Lt LtE Gt GtE Is IsNot In NotIn
    Call IfExp NamedExpr Attribute Subscript Slice Starred Name Load Store Del Constant
    JoinedStr FormattedValue List Tuple Set Dict ListComp SetComp DictComp GeneratorExp
    comprehension
""".split())
"""The syntax a file may be written in: names of :mod:`ast` node classes. The static check
knows where each of these binds or reads a name; anything else (``match`` and its patterns,
whose ``case C(__globals__=g)`` reads an attribute written as a bare word; ``async``; the
3.12 ``type`` statement and type parameters; whatever a later Python adds) is refused rather
than passed unread."""

VALUES = frozenset({"Lock", "RLock", "monotonic", "deque", "DEFAULT_CAPACITY"})
"""Imported names a file may use as values (store, pass, return): built-in functions and
immutable types or constants, which nobody can change (a function written in Python, such as
``check_r``, and ``__future__.annotations`` take attributes: kept in a local, either could carry
state from one check to the next, so they may only be called or imported). Every other
imported name (a class such as ``threading.Condition``, ``Closed`` or ``FrontierStats``, a
``typing`` form) is an object the grader's own code in the same process uses too: it may be
called, subclassed, raised, caught, compared, used in ``isinstance``/``issubclass``,
subscripted or written in an annotation, never bound to a name, passed, returned or put in a
container (through which ``Condition.wait = ...`` would change the grader's own threading)."""

_TYPING = ("Any Optional Union Iterable Iterator Callable Generic TypeVar ClassVar Deque "
           "List Dict Tuple Set").split()
_CONTRACT = ("DEFAULT_CAPACITY Closed Empty Full FrontierStats Frontier check_capacity check_r "
             "check_priority").split()
_COMMON = {
    "__future__": ["annotations"],
    "typing": _TYPING,
    "collections": ["deque"],
    "collections.abc": ["Iterable", "Iterator", "Callable"],
}
_LOCKS = ["Lock", "RLock", "Semaphore", "BoundedSemaphore"]


@dataclass(frozen=True)
class Exercise:
    """One row of the table (see the module docstring)."""

    key: str
    title: str
    file: str
    obj: str
    kind: str | None
    allowed: dict[str, list[str]]
    public: list[str]
    hidden: list[str] = field(default_factory=list)
    forbidden: dict[str, str] = field(default_factory=dict)
    seconds: float = 300.0
    patience: float = 25.0
    needs: tuple[str, ...] = ()  # modules its checks need beyond pytest and pytest-timeout

    @property
    def frontier_name(self) -> str | None:
        """The name the graded class is registered under (the exercise's, not the class's)."""
        return f"{self.key}-{self.file[4:-3].replace('_', '-')}" if self.kind else None

    @property
    def starter(self) -> Path:
        return STARTERS / self.file


FRONTIER_SUITES = [
    "tests/test_frontier_contract.py",
    "tests/test_frontier_model.py",
    "tests/test_frontier_threads.py",
    "tests/autograder/test_frontier_judge.py",
]

EXERCISES: dict[str, Exercise] = {
    e.key: e for e in [
        Exercise(
            "ex1", "a bounded FIFO monitor", "ex1_bounded_fifo.py", "BoundedFifo",
            "fifo,bounded",
            {**_COMMON, "threading": [*_LOCKS, "Condition"], "time": ["monotonic"],
             "frontier.contract": _CONTRACT},
            public=FRONTIER_SUITES, hidden=["test_hidden_frontier.py"],
            needs=("hypothesis", "frontrun"),
        ),
        Exercise(
            "ex2", "a monitor built from semaphores", "ex2_semaphore_monitor.py",
            "SemMonitorFrontier", "fifo,bounded",
            {**_COMMON, "threading": _LOCKS, "time": ["monotonic"],
             "frontier.contract": _CONTRACT},
            public=[*FRONTIER_SUITES, "tests/autograder/test_ex2_condition.py"],
            hidden=["test_hidden_frontier.py"],
            forbidden={"Condition": "ex2 builds its condition from semaphores: no Condition",
                       "Event": "ex2 builds its condition from semaphores: no Event",
                       "Barrier": "ex2 builds its condition from semaphores: no Barrier"},
            needs=("hypothesis", "frontrun"),
        ),
        Exercise(
            "ex3", "a termination detector", "ex3_termination.py", "TerminationDetector",
            None,
            {**_COMMON, "threading": [*_LOCKS, "Condition"], "frontier.contract": ["Frontier"]},
            public=["tests/autograder/test_ex3_termination.py"],
            hidden=["test_hidden_ex3.py"], needs=("frontrun",),
        ),
        Exercise(
            "ex4", "a BSP exchange", "ex4_bsp_exchange.py", "Exchange", None,
            {**_COMMON, "threading": [*_LOCKS, "Condition", "Barrier"]},
            public=["tests/autograder/test_ex4_bsp_exchange.py"],
        ),
    ]
}


def exercise_of(file: str, obj: str) -> Exercise | None:
    """The exercise whose file (any directory) and object are ``file`` and ``obj``."""
    name = Path(file).name
    for e in EXERCISES.values():
        if (e.file, e.obj) == (name, obj):
            return e
    return None
