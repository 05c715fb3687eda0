"""``crawlab course``: what an instructor hands out.

``crawlab course student-kit DEST`` writes the repository a class receives (no instructor notes,
no reference solutions, no hidden checks or cheating submissions; the tests and book that still
apply); ``crawlab course gradescope DEST`` writes ``DEST/autograder.zip`` for Gradescope. Both
read the clone of crawlab this command runs from (an editable install): the work is done by
:mod:`exercises.kit`, which says what ships and why. Batch grading of a class is
``python exercises/grade.py EX ... --submissions DIR --out OUT`` (:mod:`exercises.batch`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["HELP", "add_arguments", "run"]

HELP = "write the student kit or Gradescope's autograder.zip"
ROOT = Path(__file__).resolve().parents[2]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("what", choices=["student-kit", "gradescope"],
                   help="student-kit: the repository a class receives; gradescope: "
                        "DEST/autograder.zip")
    p.add_argument("dest", type=Path, metavar="DEST",
                   help="student-kit: a new or empty folder; gradescope: the zip's folder")


def _kit():
    """:mod:`exercises.kit` of the clone this command runs from (``exercises`` is not an
    installed package: it lives next to ``crawlers/`` in a clone)."""
    if not (ROOT / "exercises" / "kit.py").is_file():
        raise ValueError(f"crawlab course needs a clone of crawlab installed with pip install -e;"
                         f" {ROOT} has no exercises/kit.py")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from exercises import kit

    return kit


def run(args: argparse.Namespace) -> int:
    """Write what ``args.what`` names; 0 when written, 2 (via ``ValueError``) when not."""
    _check_dest(args.dest)
    try:
        return _write(_kit(), args)
    except OSError as exc:  # a folder that cannot be written: one line, not a traceback
        raise ValueError(f"cannot write {args.dest}: {exc.strerror or exc}") from None


def _check_dest(dest: Path) -> None:
    """Refuse a DEST in a folder that does not exist, as ``crawlab crawl --out`` does: crawlab
    makes DEST itself, never a chain of folders above it (a typo would build it from /). The
    empty DEST is refused by the parser (:class:`~crawlers.args.OneLineParser`)."""
    if not dest.exists() and not dest.parent.is_dir():
        raise ValueError(f"DEST: cannot write to {dest}: no such folder {dest.parent} (crawlab "
                         "makes the last folder only)")


def _write(kit, args: argparse.Namespace) -> int:
    if args.what == "student-kit":
        kit.write_student_kit(args.dest)
        files = sum(1 for p in args.dest.rglob("*") if p.is_file())
        print(f"student kit: {files} files in {args.dest} (no instructor notes, reference "
              "solutions, hidden checks or cheating submissions)")
        return 0
    target = kit.write_gradescope_zip(args.dest)
    print(f"{target}: upload it as the Gradescope assignment's autograder "
          f"({target.stat().st_size // 1024} KiB; setup.sh, run_autograder, crawlab/)")
    return 0
