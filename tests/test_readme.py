"""The README's first screen: exactly two commands, and CI runs the second one word for word.

A README whose test command differs from what CI runs can be red for every user while CI is
green (it happened: CI installed the docs extra, the README did not, and the book tests errored).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def first_screen_commands() -> list[str]:
    """The shell commands of the README above its first horizontal rule."""
    text = (ROOT / "README.md").read_text()
    screen = text.split("\n---\n", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", screen, flags=re.S)]


def test_first_screen_has_a_main_command_and_a_test_command():
    commands = first_screen_commands()
    assert len(commands) == 2, commands
    assert all("\n" not in c for c in commands), "each is one line a user can paste"
    main, test = commands
    assert "crawlab lab" in main and main.startswith("python3 -m venv .venv")
    assert test.startswith("python3 -m venv .venv") and test.endswith("-m pytest")


def test_ci_runs_the_readme_test_command_exactly():
    test = first_screen_commands()[1]
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test in ci, f".ci/run must run the README's test command as written: {test}"
    # and nothing else installs into the venv beforehand (no extra the README lacks)
    installs = [line for line in ci if "pip install" in line and not line.startswith("#")]
    assert installs == [test], installs


def test_the_test_extra_brings_what_the_book_tests_need():
    """The book tests build the book: the README's install step must bring Sphinx."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    (own,) = [r for r in extras["test"] if r.startswith("crawlab[")]
    included = own[len("crawlab["):own.index("]")].split(",")
    assert "docs" in included, extras["test"]
    assert any(r.startswith("sphinx") for r in extras["docs"]), extras["docs"]
