"""Regenerate the plots of the course book: run every lab in quick mode into docs/results/.

Usage: ``python docs/regenerate_figures.py [LAB ...]`` (default: every lab).
"""

from __future__ import annotations

import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def main(argv: list[str]) -> int:
    from labs.harness import lab_modules, run_lab

    names = argv or list(lab_modules())
    failed = [n for n in names if run_lab(n, ["--quick", "--out", str(RESULTS)]) != 0]
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
