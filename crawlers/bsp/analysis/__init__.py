"""Two analyses of bulk-synchronous crawling beside the engine they study: R_x, how much a
worker may download between two exchanges (:mod:`~crawlers.bsp.analysis.rx`), and a dynamic
coordinator that hands out whole sites (:mod:`~crawlers.bsp.analysis.dynamic`).

May import what :mod:`crawlers.bsp` may (``frontier``, ``page``, ``web``, ``crawl``,
``partition``).
"""
