"""The command line: ``crawlab`` (and ``python -m crawlers``), one module per subcommand.

Holds :mod:`crawlers.cli.app` (the one parser and its ``main``) and the subcommands
``frontiers``, ``lab``, ``crawl``, ``serve``, ``bsp``, ``partition``, ``explore`` and
``linearize``. The top layer: it may import everything (``frontier``, every ``crawlers``
package, ``labs``); nothing imports it but ``crawlers.__main__`` and the console script.

This module itself imports nothing heavy: :func:`main`, the console script's entry point,
imports the command line only when called, so that a Ctrl-C during those imports (they take
most of a second) ends in one line and status 130, as one during a command does.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``crawlab`` with ``argv`` (default: ``sys.argv[1:]``); returns the exit status
    (:func:`crawlers.cli.app.main`). A Ctrl-C before the command runs (while the command line
    is imported or parsed) prints ``crawlab: interrupted`` and returns 130."""
    try:
        from crawlers.cli import app

        return app.main(argv)
    except KeyboardInterrupt:
        from crawlers.args import EXIT_INTERRUPTED  # here: its import may be what was cut

        print("crawlab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
