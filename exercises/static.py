"""The static check: a submission's source against its exercise's allowlist, before any of it runs.

:func:`check_source` parses the file with :mod:`ast` (nothing is imported or executed) and
returns one line per violation, ``FILE:LINE: what``. The rules, from
:mod:`exercises.policy`:

* imports: only ``import M`` / ``from M import N`` of a module of the exercise's ``allowed``
  table, and only its listed names; an imported module may only be used as ``M.N`` with an
  allowed ``N`` (never as a value: no alias, no argument, no element of a list); no relative
  import;
* private attributes (``x._y``) only on a name of the file's own (``self._lock``), never on an
  imported name or on an attribute of something else (``self.frontier._lock``);
* names: a builtin outside :data:`~exercises.policy.BUILTINS` is refused wherever it appears,
  bound or read (so rebinding ``eval`` in one function cannot make it look allowed in another);
* dunders: any ``__x__`` identifier outside :data:`~exercises.policy.DUNDERS`;
* frame walking: attributes starting ``f_``, ``tb_``, ``gi_``, ``cr_``, ``ag_``, ``co_``;
* attribute paths written inside a string: ``format``, ``format_map`` (see
  :data:`~exercises.policy.REFUSED_ATTRIBUTES`);
* no attribute of an imported module or name is assigned or deleted (``deque.append = ...``);
* the exercise's own ``forbidden`` names (ex2: ``Condition``), as a name or an attribute;
* the object the exercise asks for is defined at the top level;
* syntax: only the kinds of statement and expression of :data:`~exercises.policy.SYNTAX`
  (no ``match``, whose class patterns read attributes written as bare words; no ``async``; no
  type parameters), so that no construct a later Python adds is passed unread.

What it cannot see is said in the book's autograder page: code that is allowed can still be
slow, wrong, or try to tell a grading run from another (it has no clock but ``time.monotonic``
and no way to name a thread or read the environment).

Complexity: one walk of the syntax tree, O(size of the file).
"""

from __future__ import annotations

import ast
import builtins
import io
import tokenize
from pathlib import Path

from exercises.policy import (
    BUILTINS,
    DUNDERS,
    FRAME_ATTRIBUTES,
    REFUSED_ATTRIBUTES,
    SYNTAX,
    VALUES,
    Exercise,
)

__all__ = ["SourceError", "check_source"]


class SourceError(ValueError):
    """The file cannot be graded at all: unreadable, not Python, or without the object the
    exercise asks for. One line (bad input, exit status 2), not a FAIL."""

_BUILTIN_NAMES = frozenset(dir(builtins)) | {"__builtins__"}
_SYNTAX_NAMES = {"Match": "'match'", "AsyncFunctionDef": "'async def'", "Await": "'await'",
                 "AsyncFor": "'async for'", "AsyncWith": "'async with'", "TryStar": "'except*'",
                 "TypeAlias": "the 'type' statement", "TypeVar": "a type parameter",
                 "ParamSpec": "a type parameter", "TypeVarTuple": "a type parameter"}


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


class _Checker(ast.NodeVisitor):
    def __init__(self, exercise: Exercise, file: str) -> None:
        self.ex = exercise
        self.file = file
        self.problems: list[str] = []
        self.modules: dict[str, str] = {}  # local name -> dotted module it is bound to
        self.imported: set[str] = set()  # local names bound by an import
        self.shared: dict[str, str] = {}  # local name -> imported name it stands for
        self.parents: dict[ast.AST, ast.AST] = {}
        self.own: set[str] = set()  # the file's top-level classes and functions

    def bad(self, node: ast.AST, what: str) -> None:
        self.problems.append(f"{self.file}:{getattr(node, 'lineno', 0)}: {what}")

    def visit(self, node: ast.AST) -> None:
        kind = type(node).__name__
        if kind not in SYNTAX:  # nothing under it is read: refused whole
            self.bad(node, f"{_SYNTAX_NAMES.get(kind, kind)} is not allowed in {self.ex.key} "
                           "(the grader reads only plain statements and expressions)")
            return
        super().visit(node)

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
        elif kind == "attribute" and name in REFUSED_ATTRIBUTES:
            why = ("it hands over the classes a class is built on" if name == "mro" else
                   "it reads attributes named inside a string; use an f-string")
            self.bad(node, f"attribute {name!r} is not allowed in {self.ex.key} ({why})")

    def shared_value(self, node: ast.expr, name: str) -> None:
        """``node`` stands for the imported object ``name``: unless it is one of the plain
        :data:`~exercises.policy.VALUES`, it may only be used where it cannot be kept or
        handed on (see :func:`_kept_safely`)."""
        if name not in VALUES and not _kept_safely(node, self.parents):
            self.bad(node, f"{name!r} is shared with the grader: it may be called, subclassed, "
                           "raised, caught, compared, used in isinstance() or an annotation, "
                           f"not stored or passed on, in {self.ex.key}")

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
            self.shared[local] = alias.name

    # -- names and attributes ---------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        self.ident(node, node.id, "name")
        if node.id in self.modules:
            self.bad(node, f"module {node.id!r} may only be used as {node.id}.NAME with an "
                           f"allowed NAME, not as a value, in {self.ex.key}")
        elif not isinstance(node.ctx, ast.Load) and node.id in self.imported:
            self.bad(node, f"rebinding {node.id!r}, an imported name, is not allowed in "
                           f"{self.ex.key}")
        elif node.id in self.shared:
            self.shared_value(node, self.shared[node.id])
        elif (node.id in self.own and isinstance(node.ctx, ast.Load)
              and not _kept_safely(node, self.parents)):
            self.bad(node, f"{node.id!r} is a class or function of the file, which takes "
                           "attributes: it may be called, subclassed, compared, used in "
                           f"isinstance() or an annotation, not stored or passed on, in "
                           f"{self.ex.key}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.ident(node, node.attr, "attribute")
        chain = _dotted(node)
        root = chain.split(".")[0] if chain else None
        if root in self.modules:  # the whole chain is checked here, once
            self.module_chain(node, self.modules[root], chain.split(".")[1:])
            return
        if node.attr.startswith("_") and not _is_dunder(node.attr) and not (
                isinstance(node.value, ast.Name) and node.value.id not in self.imported):
            self.bad(node, f"attribute {node.attr!r}: a private attribute may only be read "
                           f"on a name of your own (self.{node.attr}), in {self.ex.key}")
        if chain is not None and not isinstance(node.ctx, ast.Load) and root in self.imported:
            self.bad(node, f"assigning {chain} changes an imported module or name; "
                           f"not allowed in {self.ex.key}")
        self.generic_visit(node)

    def module_chain(self, node: ast.Attribute, module: str, parts: list[str]) -> None:
        """``module.parts...``: each part must be an allowed submodule or, once, an allowed
        name of the module reached (``collections.abc.Iterable``); a chain that ends at a
        module is a module used as a value."""
        for i, part in enumerate(parts):
            self.ident(node, part, "attribute")
            if f"{module}.{part}" in self.ex.allowed:
                module = f"{module}.{part}"
                continue
            names = self.allowed_names(module)
            if names is None or part not in names:
                shown = f"from {module}: {', '.join(names)}" if names else "none"
                self.bad(node, f"{module}.{part} is not allowed in {self.ex.key} (allowed "
                               f"{shown})")
            elif not isinstance(node.ctx, ast.Load):
                self.bad(node, f"assigning {'.'.join([module, *parts[i:]])} changes an "
                               f"imported module or class; not allowed in {self.ex.key}")
            elif i + 1 == len(parts):
                self.shared_value(node, part)
            else:
                for rest in parts[i + 1:]:
                    self.ident(node, rest, "attribute")
                    if rest.startswith("_") and not _is_dunder(rest):
                        self.bad(node, f"attribute {rest!r}: a private attribute may only be "
                                       f"read on a name of your own (self.{rest}), in "
                                       f"{self.ex.key}")
            return
        self.bad(node, f"module {module!r} may only be used as {module}.NAME with an allowed "
                       f"NAME, not as a value, in {self.ex.key}")

    # -- definitions ------------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.ident(node, node.name, "name")
        self.generic_visit(node)

    def visit_arg(self, node: ast.arg) -> None:  # a def's or a lambda's parameter
        self.ident(node, node.arg, "name")
        self.generic_visit(node)

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


def _constant(node: ast.expr | None, known: set[str]) -> bool:
    """Whether ``node`` makes a value nobody can change: a literal, a name of ``known`` (the
    file's imports and constants so far: the rules above decide what an import may be), an
    attribute path from one of those (no call anywhere in it), a tuple or arithmetic of such
    values, or ``object()``."""
    if node is None or isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id in known
    if isinstance(node, ast.Attribute):
        chain = _dotted(node)
        return chain is not None and chain.split(".")[0] in known
    if isinstance(node, ast.Tuple):
        return all(_constant(e, known) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        return _constant(node.operand, known)
    if isinstance(node, ast.BinOp):
        return _constant(node.left, known) and _constant(node.right, known)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "object" and not node.args and not node.keywords)


def _root(node: ast.expr) -> ast.expr:
    """The expression an attribute or subscript chain starts from (``self`` of self.a[0].b)."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node


_DECORATORS = ("setter", "getter", "deleter")


def _module_level(tree: ast.Module) -> list[ast.AST]:
    """Every node of ``tree`` outside a function or class body (the statements that run at
    import, in ``if``/``try``/loops too). O(nodes)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.Lambda):
            continue  # its name, decorators and defaults are read where it is defined
        todo.extend(ast.iter_child_nodes(node))
    return out


def _own_locals(fn: ast.FunctionDef | ast.Lambda, method: bool) -> set[str]:
    """The names of ``fn`` that hold objects of the function's own: ``self`` (a method's first
    parameter), and locals every assignment of which makes a new object (a call, a display, a
    comprehension, a literal) or reads one of these (``node = self._head``, ``node =
    node.next``). Other parameters are the caller's objects. O(size of ``fn``)."""
    own = {fn.args.args[0].arg} if method and fn.args.args else set()
    sources: dict[str, list[ast.expr | None]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        sources.setdefault(n.id, []).append(
                            node.value if isinstance(t, ast.Name) else None)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and isinstance(
                node.target, ast.Name):
            sources.setdefault(node.target.id, []).append(node.value)
        elif isinstance(node, ast.For | ast.comprehension | ast.withitem):
            target = node.optional_vars if isinstance(node, ast.withitem) else node.target
            for n in ast.walk(target) if target is not None else ():
                if isinstance(n, ast.Name):
                    sources.setdefault(n.id, []).append(None)

    def made(value: ast.expr | None) -> bool:
        if value is None:
            return False
        if isinstance(value, ast.Call | ast.List | ast.Dict | ast.Set | ast.ListComp
                      | ast.DictComp | ast.SetComp | ast.Constant | ast.Tuple):
            return True
        if isinstance(value, ast.Attribute | ast.Subscript | ast.Name):
            root = _root(value)
            return isinstance(root, ast.Name) and root.id in own
        if isinstance(value, ast.IfExp):
            return made(value.body) and made(value.orelse)
        if isinstance(value, ast.BoolOp):
            return all(made(v) for v in value.values)
        return False

    params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
    if fn.args.vararg is not None:
        params.add(fn.args.vararg.arg)
    if fn.args.kwarg is not None:
        params.add(fn.args.kwarg.arg)
    own |= {name for name in sources if name not in params}  # the largest set that holds:
    changed = True  # drop every name one of whose values is not made, until none is
    while changed:
        changed = False
        for name, values in sources.items():
            if name in own and name not in params and not all(made(v) for v in values):
                own.discard(name)
                changed = True
    return own


def _state_outside_instances(tree: ast.Module, imported: set[str]) -> list[tuple[ast.AST, str]]:
    """Where ``tree`` keeps state outside its objects: a file's state lives in the instances
    it makes. State that outlives an instance (a module-level list, a class attribute that is
    counted up, a function's attribute, a mutable default argument, ``global``) lets a file
    behave one way for the first object a process makes and another for the rest, or count
    the grader's checks; the grader makes many objects in one process and a crawl one. So:

    * at module and class level, a name is bound only to a value nobody can change
      (:func:`_constant`; ``__all__`` may be a list of strings), by ``=`` alone, and nothing
      else is assigned; classes are defined at module level, and decorators are ``property``
      and its ``setter``/``getter``/``deleter``;
    * the file's own classes and functions, objects anyone could change, may be called,
      subclassed and named in ``isinstance`` and annotations, never kept or handed on (the
      checker's :meth:`_Checker.visit_Name`);
    * in a function, an attribute or item is assigned or deleted only on an object of the
      function's own (:func:`_own_locals`), never on a module-level name, a parameter other
      than ``self``, or a call's result;
    * no ``global`` or ``nonlocal``, and default arguments are constants.
    """
    found: list[tuple[ast.AST, str]] = []
    level = _module_level(tree)
    known = set(imported)

    def binding(node: ast.AST) -> None:
        targets = (node.targets if isinstance(node, ast.Assign) else [node.target])
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if isinstance(node, ast.AugAssign) or len(names) < len(targets):
            found.append((node, "an assignment at module or class level other than "
                                "NAME = constant"))
        elif names == ["__all__"] and isinstance(node.value, ast.List | ast.Tuple) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str)
                for e in node.value.elts):
            pass
        elif not _constant(node.value, known):
            found.append((node, f"{names[0]} is bound to a value that can change, at "
                                "module or class level: it would be shared by every "
                                "object the file makes (keep state in the instance)"))
        else:
            known.update(names)

    def decorators(node: ast.FunctionDef | ast.ClassDef) -> None:
        for d in node.decorator_list:
            if not ((isinstance(d, ast.Name) and d.id == "property") or (
                    isinstance(d, ast.Attribute) and d.attr in _DECORATORS
                    and isinstance(d.value, ast.Name))):
                found.append((d, "a decorator other than property (and its setter, getter, "
                                 "deleter)"))

    def defaults(fn: ast.FunctionDef | ast.Lambda) -> None:
        for default in [*fn.args.defaults, *fn.args.kw_defaults]:
            if default is not None and not _constant(default, known):
                found.append((default, "a default argument that can change (shared by every "
                                       "call): use None and make the value in the call"))

    def inside(fn: ast.FunctionDef | ast.Lambda, method: bool) -> None:
        defaults(fn)
        own = _own_locals(fn, method)
        for node in ast.walk(fn):
            if isinstance(node, ast.Global | ast.Nonlocal):
                found.append((node, f"'{type(node).__name__.lower()}': keep state in the "
                                    "instance"))
            elif isinstance(node, ast.Attribute | ast.Subscript) and not isinstance(
                    node.ctx, ast.Load):
                root = _root(node)
                if not isinstance(root, ast.Name) or root.id not in own:
                    shown = root.id if isinstance(root, ast.Name) else "an expression"
                    found.append((node, f"assigning into {shown}, which is not an object of "
                                        "the function's own (self, or a local it made): "
                                        "state shared beyond the instance, or the caller's"))
            elif node is not fn and isinstance(node, ast.ClassDef):
                found.append((node, "a class defined inside a function: define it at module "
                                    "level"))
            elif node is not fn and isinstance(node, ast.FunctionDef | ast.Lambda):
                defaults(node)
                if isinstance(node, ast.FunctionDef):
                    decorators(node)

    for node in sorted(level, key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset",
                                                                             0))):
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            binding(node)
        elif isinstance(node, ast.Attribute | ast.Subscript) and not isinstance(node.ctx,
                                                                               ast.Load):
            found.append((node, "an attribute or item assigned at module or class level"))
        elif isinstance(node, ast.NamedExpr | ast.For | ast.With) or (
                isinstance(node, ast.ExceptHandler) and node.name):
            found.append((node, "a name bound by ':=', 'for', 'with' or 'except ... as' "
                                "at module or class level (only NAME = constant there)"))
        elif isinstance(node, ast.Lambda):
            inside(node, method=False)
        elif isinstance(node, ast.FunctionDef):
            decorators(node)
            inside(node, method=False)
        elif isinstance(node, ast.ClassDef):
            decorators(node)
            if node not in tree.body:
                found.append((node, "a class defined inside another statement: define it at "
                                    "the top level"))
            for stmt in node.body:
                if isinstance(stmt, ast.FunctionDef):
                    decorators(stmt)
                    inside(stmt, method=True)
                elif isinstance(stmt, ast.ClassDef):
                    found.append((stmt, "a class defined inside a class: define it at the "
                                        "top level"))
                elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
                    binding(stmt)
                elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                    pass  # the docstring
                elif not isinstance(stmt, ast.Pass):
                    found.append((stmt, "a statement in a class body other than NAME = "
                                        "constant, def, a docstring or pass"))
    return found


def _kept_safely(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether the expression ``node`` is used where its value cannot be kept or handed on:
    called, an attribute read on it, a base class, raised, caught, compared, an argument of
    ``isinstance``/``issubclass``, subscripted, or inside an annotation or a subscript."""
    parent = parents.get(node)
    while isinstance(parent, ast.Tuple):  # (Closed, Empty) in except / isinstance
        node, parent = parent, parents.get(parent)
    if isinstance(parent, ast.Call):
        if parent.func is node:
            return True
        return (isinstance(parent.func, ast.Name) and parent.func.id in ("isinstance",
                "issubclass") and node in parent.args[1:])
    if isinstance(parent, ast.Attribute | ast.Compare | ast.Raise | ast.ExceptHandler):
        return True
    if isinstance(parent, ast.ClassDef):
        return node in parent.bases
    if isinstance(parent, ast.Subscript) and (parent.value is node
                                              or isinstance(parent.ctx, ast.Load)):
        return True  # C[...] makes a new object; x[C] only looks up (never stores C)
    while parent is not None:  # an annotation anywhere above
        if isinstance(parent, ast.arg | ast.AnnAssign) and parent.annotation is node:
            return True
        if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef) and parent.returns is node:
            return True
        if isinstance(parent, ast.Subscript) and parent.slice is node and isinstance(
                parent.ctx, ast.Load):
            return True
        node, parent = parent, parents.get(parent)
    return False


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
    :class:`SourceError` for a file that cannot be read or parsed, or lacks the exercise's
    class. O(size of the file)."""
    shown = shown_as or path.name
    try:
        raw = path.read_bytes()
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        source = raw.decode("utf-8-sig")  # a byte-order mark is read as the import reads it
    except (OSError, UnicodeDecodeError, SyntaxError) as exc:
        raise SourceError(f"{shown}: cannot be read ({exc.__class__.__name__}: {exc})") from None
    if encoding not in ("utf-8", "utf-8-sig"):  # the import would decode another text than
        return [f"{shown}:1: the coding declaration {encoding!r} is not allowed in "  # this one
                f"{exercise.key}: write the file in UTF-8 (its import would read other code "
                "than the grader checks)"]
    try:
        tree = ast.parse(source, filename=shown)
    except SyntaxError as exc:
        raise SourceError(f"{shown}:{exc.lineno or 0}: SyntaxError: {exc.msg}") from None
    except ValueError as exc:  # e.g. a NUL byte
        raise SourceError(f"{shown}: cannot be parsed ({exc})") from None
    except (RecursionError, MemoryError):
        raise SourceError(f"{shown}: nested too deeply to be parsed") from None
    checker = _Checker(exercise, shown)
    checker.parents = {child: parent for parent in ast.walk(tree)
                       for child in ast.iter_child_nodes(parent)}
    checker.own = {n.name for n in _module_level(tree) if isinstance(n, ast.FunctionDef
                                                                      | ast.ClassDef)}
    try:
        checker.visit(tree)
    except RecursionError:  # the walk is recursive; so is compiling, in the child
        raise SourceError(f"{shown}: nested too deeply to be checked") from None
    for node, what in _state_outside_instances(tree, checker.imported):
        checker.bad(node, f"{what}, in {exercise.key}")
    defined = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    if exercise.obj not in defined:
        raise SourceError(f"{shown}: no class {exercise.obj} at the top level (the exercise "
                          f"asks for class {exercise.obj})")
    return checker.problems
