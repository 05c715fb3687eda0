"""What we crawl: the generated web (:mod:`~crawlers.web.webgen`, :mod:`~crawlers.web.topics`),
its HTML (:mod:`~crawlers.web.render`), the local servers (:mod:`~crawlers.web.httpd`,
:mod:`~crawlers.web.server`, :mod:`~crawlers.web.response`), the crawler traps they can add
(:mod:`~crawlers.web.traps`) and the simulated fetcher (:mod:`~crawlers.web.simfetch`).

May import :mod:`crawlers.page` (URL rules, fetch results, faults, the clock), ``frontier``
and :mod:`crawlers.args`; never a crawler.
"""
