"""Which crawler owns which page: page and site hashing and partition files
(:mod:`~crawlers.partition.assignment`), the crawl graph's site hypergraph
(:mod:`~crawlers.partition.hypergraph`) and the partitioners with KaHyPar
(:mod:`~crawlers.partition.partitioners`, preset ``kahypar_km1_kway.ini``).

May import ``frontier``, :mod:`crawlers.page`, :mod:`crawlers.web` and :mod:`crawlers.args`;
not its sibling :mod:`crawlers.crawl`.
"""
