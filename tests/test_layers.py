"""The layers of the house hold: import-linter's contract and no import cycle.

``pyproject.toml`` orders the packages (``crawlers.cli`` on top, ``frontier`` at the bottom) and
``lint-imports`` checks that no import goes up a layer or across independent siblings. A second,
independent check reads every module with :mod:`ast` and looks for a cycle in the import graph
(imports inside functions and under ``TYPE_CHECKING`` count: a cycle through a lazy import is
still a cycle in the design). Both are shown failing on a copy of the code with one bad import.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("frontier", "crawlers", "labs", "exercises")
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _lint_imports(root: Path) -> subprocess.CompletedProcess:
    """Run ``lint-imports`` on the packages under ``root`` with ``root``'s pyproject.toml."""
    if not LINT_IMPORTS.exists():
        pytest.fail(f"lint-imports is not installed next to {sys.executable}: "
                    "pip install -e '.[test]'")
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=110)


def _copy_tree(dest: Path) -> Path:
    """The packages and pyproject.toml copied under ``dest`` (sources only)."""
    for name in PACKAGES:
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    return dest


def test_the_layers_contract_is_kept():
    run = _lint_imports(ROOT)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "1 kept, 0 broken" in run.stdout


def test_an_import_of_the_cli_from_the_crawler_breaks_the_contract(tmp_path):
    tree = _copy_tree(tmp_path)
    targets = tree / "crawlers" / "crawl" / "targets.py"
    targets.write_text(targets.read_text() + "\nfrom crawlers.cli import main  # noqa\n")
    run = _lint_imports(tree)
    assert run.returncode != 0, run.stdout[-4000:]
    assert "BROKEN" in run.stdout and "crawlers.crawl.targets -> crawlers.cli" in run.stdout


# -- no import cycle, by ast --------------------------------------------------------------

def module_names(root: Path) -> dict[str, Path]:
    """``{dotted name: file}`` of every module of the packages under ``root``."""
    out = {}
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def import_graph(root: Path) -> dict[str, set[str]]:
    """``{module: project modules it imports}``, every import statement anywhere in the file.

    ``from a.b import c`` is an import of ``a.b.c`` when that is a module, else of ``a.b``;
    relative imports are resolved against the importing module's package. A package's parent
    packages (run on import by Python) are not edges, as in import-linter.
    """
    modules = module_names(root)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            for target in targets:
                while target and target not in modules:  # import a.b.c.func -> a.b.c
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle_among_the_project_modules():
    graph = import_graph(ROOT)
    assert len(graph) > 80  # every package was read
    assert "crawlers.page.urls" in graph["crawlers.page.extract"]  # imports are seen
    assert cycles(graph) == []


def test_the_cycle_check_finds_a_cycle_through_a_lazy_import(tmp_path):
    tree = _copy_tree(tmp_path)
    urls = tree / "crawlers" / "page" / "urls.py"
    urls.write_text(urls.read_text() + "\n\ndef _robots():\n"
                    "    from crawlers.page.robots import RobotsCache  # noqa\n"
                    "    return RobotsCache\n")
    found = cycles(import_graph(tree))
    assert any({"crawlers.page.robots", "crawlers.page.urls"} <= set(c) for c in found), found
