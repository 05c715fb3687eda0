"""The static check: a submission's source against its exercise's allowlist, before any of it runs.

:func:`check_source` parses the file with :mod:`ast` (nothing is imported or executed) and
returns one line per violation, ``FILE:LINE: what``. The rules, from
:mod:`exercises.policy`:

* imports: only ``import M`` / ``from M import N`` of a module of the exercise's ``allowed``
  table, and only its listed names (``M.N`` through an imported module likewise); no relative
  import;
* names: a builtin outside :data:`~exercises.policy.BUILTINS` is refused wherever it appears,
  bound or read (so rebinding ``eval`` in one function cannot make it look allowed in another);
* dunders: any ``__x__`` identifier outside :data:`~exercises.policy.DUNDERS`;
* frame walking: attributes starting ``f_``, ``tb_``, ``gi_``, ``cr_``, ``ag_``, ``co_``;
* no attribute of an imported module or name is assigned or deleted (``deque.append = ...``);
* the exercise's own ``forbidden`` names (ex2: ``Condition``), as a name or an attribute;
* the object the exercise asks for is defined at the top level.

What it cannot see is said in the book's autograder page: code that is allowed can still be
slow, wrong, or try to tell a grading run from another (it has no clock but ``time.monotonic``
and no way to name a thread or read the environment).

Complexity: one walk of the syntax tree, O(size of the file).
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

from exercises.policy import BUILTINS, DUNDERS, FRAME_ATTRIBUTES, Exercise

__all__ = ["check_source"]

_BUILTIN_NAMES = frozenset(dir(builtins)) | {"__builtins__"}


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


class _Checker(ast.NodeVisitor):
    def __init__(self, exercise: Exercise, file: str) -> None:
        self.ex = exercise
        self.file = file
        self.problems: list[str] = []
        self.modules: dict[str, str] = {}  # local name -> dotted module it is bound to
        self.imported: set[str] = set()  # local names bound by an import

    def bad(self, node: ast.AST, what: str) -> None:
        self.problems.append(f"{self.file}:{getattr(node, 'lineno', 0)}: {what}")

    # -- identifiers ------------------------------------------------------------------------
    def ident(self, node: ast.AST, name: str, kind: str) -> None:
        if name in self.ex.forbidden:
            self.bad(node, f"{kind} {name!r}: {self.ex.forbidden[name]}")
        elif _is_dunder(name) and name not in DUNDERS:
            self.bad(node, f"{kind} {name!r} is not allowed in {self.ex.key} (allowed dunders: "
                           f"{', '.join(sorted(DUNDERS))})")
        elif kind == "name" and name in _BUILTIN_NAMES and name not in BUILTINS:
            self.bad(node, f"name {name!r} is not allowed in {self.ex.key}")
        elif kind == "attribute" and name.startswith(FRAME_ATTRIBUTES):
            self.bad(node, f"attribute {name!r} is not allowed in {self.ex.key} (it reaches "
                           "frames, tracebacks or code objects)")

    def allowed_names(self, module: str) -> list[str] | None:
        return self.ex.allowed.get(module)

    def refuse_module(self, node: ast.AST, module: str) -> None:
        self.bad(node, f"import of {module!r} is not allowed in {self.ex.key} (allowed: "
                       f"{', '.join(sorted(self.ex.allowed))})")

    # -- imports ----------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if self.allowed_names(alias.name) is None:
                self.refuse_module(node, alias.name)
                continue
            if alias.asname:
                self.ident(node, alias.asname, "name")
                self.modules[alias.asname] = alias.name
                self.imported.add(alias.asname)
            else:
                top = alias.name.split(".")[0]
                self.modules.setdefault(top, top)
                self.imported.add(top)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level or self.allowed_names(module) is None:
            self.refuse_module(node, "." * node.level + module)
            return
        allowed = self.allowed_names(module) or []
        for alias in node.names:
            if alias.name == "*" or alias.name not in allowed:
                self.bad(node, f"{alias.name!r} from {module!r} is not allowed in "
                               f"{self.ex.key} (allowed: {', '.join(allowed)})")
                continue
            local = alias.asname or alias.name
            self.ident(node, alias.name, "name")
            self.ident(node, local, "name")
            self.imported.add(local)

    # -- names and attributes ---------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        self.ident(node, node.id, "name")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.ident(node, node.attr, "attribute")
        chain = _dotted(node)
        if chain is not None:
            root = chain.split(".")[0]
            if root in self.modules:
                self.module_attribute(node, self.modules[root] + chain[len(root):])
            if not isinstance(node.ctx, ast.Load) and root in self.imported:
                self.bad(node, f"assigning {chain} changes an imported module or name; "
                               f"not allowed in {self.ex.key}")
        self.generic_visit(node)

    def module_attribute(self, node: ast.Attribute, dotted: str) -> None:
        """``dotted`` = ``module.name``: allowed if some prefix is an allowed module and the
        next part one of its names (``collections.abc.Iterable``)."""
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            names = self.allowed_names(module)
            if names is None:
                continue
            if parts[cut] in names or ".".join(parts[: cut + 1]) in self.ex.allowed:
                return
            self.bad(node, f"{module}.{parts[cut]} is not allowed in {self.ex.key} (allowed "
                           f"from {module}: {', '.join(names)})")
            return

    # -- definitions ------------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.ident(node, node.name, "name")
        for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs,
                    *filter(None, [node.args.vararg, node.args.kwarg])]:
            self.ident(arg, arg.arg, "name")
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.ident(node, node.name, "name")
        self.generic_visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        if node.arg:
            self.ident(node, node.arg, "name")
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            self.ident(node, name, "name")

    visit_Nonlocal = visit_Global  # type: ignore[assignment]

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.ident(node, node.name, "name")
        self.generic_visit(node)

    def visit_alias(self, node: ast.alias) -> None:  # handled by the import visitors
        pass


def _dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for an attribute chain rooted at a plain name, else ``None``."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def check_source(path: Path, exercise: Exercise, shown_as: str | None = None) -> list[str]:
    """The violations of ``path`` against ``exercise``'s rules, one line each (empty: clean).
    A file that cannot be read or parsed is one violation. O(size of the file)."""
    shown = shown_as or path.name
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [f"{shown}: cannot be read ({exc.__class__.__name__}: {exc})"]
    try:
        tree = ast.parse(source, filename=shown)
    except SyntaxError as exc:
        return [f"{shown}:{exc.lineno or 0}: SyntaxError: {exc.msg}"]
    except ValueError as exc:  # e.g. a NUL byte
        return [f"{shown}: cannot be parsed ({exc})"]
    checker = _Checker(exercise, shown)
    checker.visit(tree)
    defined = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    if exercise.obj not in defined:
        checker.problems.append(f"{shown}: no class {exercise.obj} at the top level (the "
                                f"exercise asks for class {exercise.obj})")
    return checker.problems
