"""The crawler side of crawlab, one package per part, in layers (each imports only the ones
below it; ``pyproject.toml``'s import-linter contract checks this):

======================  ====================================================================
``crawlers.cli``        the ``crawlab`` command: one parser, one module per subcommand
``crawlers.bsp``        the bulk-synchronous crawler (engine, transport, driver) and its analyses
``crawlers.crawl``      the threaded crawler (loop, targets, visited set, OPIC, output)
``crawlers.partition``  sites to crawlers: page/site hash, hypergraph (KaHyPar)
``crawlers.web``        what we crawl: the generated web, its server, the simulated fetcher
``crawlers.page``       one page's life: URL rules, robots, fetching, link extraction, faults
``crawlers.args``       the one-line-error parser and argument types every entry point uses
======================  ====================================================================

``crawl`` and ``partition`` are siblings that do not import each other; ``labs`` and
``exercises`` sit between ``bsp`` and ``cli``; ``frontier`` is below them all.
"""
