"""One command prefix in the whole book: every command that runs crawlab is ``crawlab ...``.

The book's sources (``docs/**/*.rst`` and the generated ``.inc`` files) never spell the same
command another way: not ``python -m crawlers``, not a lab script run by path or as a module,
not a path to the ``crawlab`` script of some environment (``.venv/bin/crawlab``; activate the
environment instead, as the getting-started section says).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

OTHER_PREFIXES = re.compile(
    r"python[\d.t]*\s+-m\s+crawlers\b"  # python -m crawlers lab ...
    r"|python[\d.t]*\s+(?:-m\s+)?labs[/.]"  # python labs/lab_x.py, python -m labs.lab_x
    r"|[\w.~-]*/bin/crawlab\b"  # .venv/bin/crawlab, .venv-ft/bin/crawlab
)


def other_prefixes(text: str) -> list[str]:
    """Each command in ``text`` spelled with another prefix than ``crawlab``."""
    return [m.group(0) for m in OTHER_PREFIXES.finditer(text)]


def book_sources() -> list[Path]:
    return sorted(p for pattern in ("*.rst", "*.inc") for p in DOCS.rglob(pattern)
                  if "_build" not in p.parts)


def test_the_pattern_finds_each_other_prefix():
    text = ("run ``python -m crawlers lab x`` or python3 labs/lab_x.py, or\n"
            "    PYTHON_GIL=0 .venv-ft/bin/crawlab lab x; python3.13t -m labs.lab_x\n"
            "but crawlab lab x and mpiexec -n 2 crawlab bsp are fine, as is crawlers.cli.app")
    assert other_prefixes(text) == ["python -m crawlers", "python3 labs/",
                                    ".venv-ft/bin/crawlab", "python3.13t -m labs."]


def test_every_page_spells_crawlab_commands_one_way():
    pages = book_sources()
    assert len(pages) > 30  # the book was found
    found = {str(p.relative_to(DOCS)): other_prefixes(p.read_text()) for p in pages}
    assert {page: hits for page, hits in found.items() if hits} == {}
