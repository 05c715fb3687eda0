"""One page's life: URL normalisation (:mod:`~crawlers.page.urls`) and the rules a link must
pass (:mod:`~crawlers.page.rules`), robots.txt and politeness (:mod:`~crawlers.page.robots`),
fetching (:mod:`~crawlers.page.fetch`) under whole-fetch deadlines
(:mod:`~crawlers.page.deadline`), link extraction (:mod:`~crawlers.page.extract`), the limits
against a hostile web with their counters (:mod:`~crawlers.page.policy`), the error vocabulary
and fault menu shared by fetchers and servers (:mod:`~crawlers.page.faults`), and time
(:mod:`~crawlers.page.clock`).

May import only ``frontier`` and :mod:`crawlers.args`; every other ``crawlers`` package builds
on it.
"""
