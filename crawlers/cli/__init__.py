"""The command line: ``crawlab`` (and ``python -m crawlers``), one module per subcommand.

Holds :mod:`crawlers.cli.app` (the one parser and :func:`main`) and the subcommands
``frontiers``, ``lab``, ``crawl``, ``serve``, ``bsp`` and ``partition``. The top layer: it may
import everything (``frontier``, every ``crawlers`` package, ``labs``); nothing imports it
but ``crawlers.__main__`` and the console script.
"""

from crawlers.cli.app import main

__all__ = ["main"]
