"""The threaded crawler: R robot threads sharing one frontier (:mod:`~crawlers.crawl.crawler`),
its report and ground truth (:mod:`~crawlers.crawl.report`), the web it crawls
(:mod:`~crawlers.crawl.targets`), the visited set (:mod:`~crawlers.crawl.visited`), OPIC
priorities (:mod:`~crawlers.crawl.opic`), the crawl's files (:mod:`~crawlers.crawl.output`),
thread timelines (:mod:`~crawlers.crawl.timeline`) and the crash-safe journal
(:mod:`~crawlers.crawl.journal`).

May import ``frontier``, :mod:`crawlers.page`, :mod:`crawlers.web` and :mod:`crawlers.args`;
not its sibling :mod:`crawlers.partition`.
"""
