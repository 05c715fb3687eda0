"""Regenerate every figure and every generated number of the course book, in one run.

Usage: ``python docs/regenerate_figures.py [--render-only] [LAB ...]``

Without ``--render-only``: run each lab (default: every lab) in quick mode into
``docs/results/``, which writes its CSVs (stamped: source, machine, date, commit, load) and its
plots; then render the generated text from the CSVs. With ``--render-only``: measure nothing,
only render the generated text from the committed CSVs -- ``docs/results/papers-table.inc``
(the papers' numbers beside ours, with computed verdicts), ``docs/results/numbers.inc``
(the numbers the prose quotes) and ``docs/results/gil-side-by-side/gil-side-by-side.inc`` (the
GIL against no GIL, from ``docs/gil_table.py``) and the tables of measurements
(``results/.../*.table.inc``, from ``docs/book_tables.py``). A test runs the render step and
compares.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
RESULTS = DOCS / "results"


def render(results: Path = RESULTS) -> dict[Path, str]:
    """``{file: text}`` of every generated text file, rendered from ``results``' CSVs."""
    sys.path.insert(0, str(DOCS))
    try:
        import book_numbers
        import book_tables
        import gil_table
        import papers_table
    finally:
        sys.path.remove(str(DOCS))
    texts = {results / "papers-table.inc": papers_table.render(results),
             results / "numbers.inc": book_numbers.render(results),
             results / gil_table.LAB / f"{gil_table.LAB}.inc": gil_table.render(results),
             **book_tables.render(results)}
    return {path: times_sign(text) for path, text in texts.items()}


RATIO = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)x\b")


def times_sign(text: str) -> str:
    """Every ratio the book prints is written with the multiplication sign: ``1.29x`` becomes
    ``1.29×`` (the renderers may write either)."""
    return RATIO.sub("\\1×", text)


def main(argv: list[str] | None = None) -> int:
    from labs.harness import LabError, lab_modules, run_lab

    parser = argparse.ArgumentParser(prog="regenerate_figures.py",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--render-only", action="store_true",
                        help="measure nothing: render the generated text from the committed CSVs")
    parser.add_argument("labs", nargs="*", metavar="LAB", help="labs to run (default: all)")
    args = parser.parse_args(argv)
    known = lab_modules()
    unknown = [n for n in args.labs if n.replace("_", "-") not in known]
    if unknown:
        parser.error(f"unknown lab {unknown[0]!r}; valid labs: {', '.join(known)}")
    if args.render_only and args.labs:
        parser.error("--render-only measures nothing: give no LAB")
    failed = []
    if not args.render_only:
        for name in args.labs or list(known):
            try:  # a lab that cannot run here (no free-threaded Python ...) stops no other
                status = run_lab(name, ["--quick", "--out", str(RESULTS)])
            except (LabError, ValueError) as e:
                print(f"regenerate_figures.py: {name}: {e}", file=sys.stderr)
                status = 2
            if status != 0:
                failed.append(name)
    try:
        for path, text in render().items():
            path.write_text(text)
            print(f"wrote {path.relative_to(DOCS.parent)}")
    except (FileNotFoundError, ValueError, KeyError) as e:
        print(f"regenerate_figures.py: cannot render: {e}", file=sys.stderr)
        return 2
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
