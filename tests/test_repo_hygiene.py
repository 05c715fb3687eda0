"""What the repository tracks: no file over 1 MB outside ``docs/results`` (measured data and
figures), and no packaged binaries (wheels, archives, compiled modules) anywhere.

A 10 MB wheel was once committed at the root; nothing else would have noticed. Checked on
``git ls-files``, so it applies to what a commit would carry, not to a work tree's clutter.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 1_000_000  # bytes
ALLOWED_BIG = ("docs/results/",)
BINARY_SUFFIXES = (".whl", ".egg", ".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".so",
                   ".dylib", ".dll", ".exe", ".pyc", ".pyd", ".o", ".a")


def tracked_files() -> list[str]:
    if shutil.which("git") is None:
        pytest.skip("git is not installed: cannot list the tracked files")
    run = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True,
                         timeout=60)
    if run.returncode != 0:
        pytest.skip(f"{ROOT} is not a git checkout: no tracked files to check")
    return [p for p in run.stdout.decode().split("\0") if p]


def oversized(paths: list[str], root: Path, limit: int = LIMIT) -> list[str]:
    """The ``paths`` (relative to ``root``) over ``limit`` bytes outside the allowed
    folders; files tracked but deleted from the work tree are skipped."""
    big = []
    for p in paths:
        if p.startswith(ALLOWED_BIG):
            continue
        try:
            size = (root / p).stat().st_size
        except FileNotFoundError:
            continue
        if size > limit:
            big.append(f"{p} ({size / 1e6:.1f} MB)")
    return big


def test_no_tracked_file_is_over_1_mb_outside_docs_results():
    big = oversized(tracked_files(), ROOT)
    assert not big, f"tracked files over 1 MB outside docs/results: {', '.join(big)}"


def test_no_packaged_binary_is_tracked():
    binaries = [p for p in tracked_files() if p.lower().endswith(BINARY_SUFFIXES)]
    assert not binaries, f"binaries tracked (keep them out of git): {', '.join(binaries)}"


def test_the_size_check_catches_a_big_file_and_spares_docs_results(tmp_path):
    (tmp_path / "docs" / "results").mkdir(parents=True)
    (tmp_path / "ruff-0.1-py3-none-any.whl").write_bytes(b"\0" * (LIMIT + 1))
    (tmp_path / "docs" / "results" / "big.csv").write_bytes(b"1\n" * LIMIT)
    (tmp_path / "small.py").write_bytes(b"x" * LIMIT)
    paths = ["ruff-0.1-py3-none-any.whl", "docs/results/big.csv", "small.py", "gone.txt"]
    assert oversized(paths, tmp_path) == ["ruff-0.1-py3-none-any.whl (1.0 MB)"]
