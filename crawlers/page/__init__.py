"""One page's life: URL rules and normalisation (:mod:`~crawlers.page.urls`), robots.txt and
politeness (:mod:`~crawlers.page.robots`), fetching (:mod:`~crawlers.page.fetch`), link
extraction (:mod:`~crawlers.page.extract`), the error vocabulary and fault menu shared by
fetchers and servers (:mod:`~crawlers.page.faults`), and time (:mod:`~crawlers.page.clock`).

May import only ``frontier`` and :mod:`crawlers.args`; every other ``crawlers`` package builds
on it.
"""
