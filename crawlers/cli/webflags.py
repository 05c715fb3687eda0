"""The web flags of ``crawlab crawl`` and ``crawlab bsp``: declared by
:func:`add_web_arguments`, turned into :class:`~crawlers.crawl.targets.WebOptions` by
:func:`web_options`, which refuses a flag given where it has no effect.
"""

from __future__ import annotations

import argparse

from crawlers.args import non_negative, positive_int

__all__ = ["add_web_arguments", "web_options"]


def add_web_arguments(p: argparse.ArgumentParser) -> None:
    """The web options of ``crawlab crawl`` and ``crawlab bsp`` (see
    :class:`crawlers.crawl.targets.WebOptions`). Their defaults are filled in by
    :func:`web_options`, which can then tell a value the user gave from a default."""
    g = p.add_argument_group("the web")
    g.add_argument("--sim", action="store_true",
                   help="simulated fetcher over the generated web (no sockets, no parsing)")
    g.add_argument("--seed-url", action="append", default=[], metavar="URL",
                   help="crawl these sites instead (repeatable; real sites politely)")
    g.add_argument("--pages", type=positive_int, help="generated web size")
    g.add_argument("--sites", type=positive_int, help="generated web sites")
    g.add_argument("--seed", type=int, help="generated web seed (default: 1)")
    g.add_argument("--latency", type=non_negative, metavar="S",
                   help="mean injected latency per page (default: 0.02 s)")
    g.add_argument("--jitter", type=non_negative, metavar="S",
                   help="latency jitter half-width (default: latency / 2)")
    g.add_argument("--parser", choices=("lxml", "bs4"),
                   help="link extractor for real HTML (default: lxml)")
    g.add_argument("--politeness", type=non_negative, metavar="S",
                   help="delay between requests to one site, --seed-url only (default: 1 s; "
                   "0: none of ours; a site's robots.txt Crawl-delay, if longer, is kept)")


_GENERATED = ("pages", "sites", "seed", "latency", "jitter")  # flags of the generated web


def web_options(args: argparse.Namespace, threads: int):
    """The :class:`~crawlers.crawl.targets.WebOptions` that :func:`add_web_arguments`' flags
    describe, defaults filled in. A flag given where it has no effect is refused with a
    :class:`ValueError` (one line), never silently ignored: ``--sim`` with ``--seed-url``,
    a generated-web flag with ``--seed-url``, ``--politeness`` without it, ``--parser``
    with ``--sim``."""
    from crawlers.crawl.targets import WebOptions

    given = {name for name in (*_GENERATED, "parser", "politeness")
             if getattr(args, name) is not None}
    if args.seed_url:
        if args.sim:
            raise ValueError("--sim and --seed-url cannot go together: pick one web")
        for name in _GENERATED:
            if name in given:
                raise ValueError(f"--{name} describes the generated web; it has no effect "
                                 "with --seed-url")
        kind = "urls"
    else:
        if "politeness" in given:
            raise ValueError("--politeness applies to --seed-url sites only (the generated "
                             "web is served on 127.0.0.1 without a delay)")
        if args.sim and "parser" in given:
            raise ValueError("--parser has no effect with --sim (the simulated web is not "
                             "parsed)")
        kind = "sim" if args.sim else "served"
    defaults = WebOptions()
    values = {name: getattr(args, name) for name in given}
    return WebOptions(kind=kind, seed_urls=args.seed_url, threads=threads,
                      **{name: values.get(name, getattr(defaults, name))
                         for name in (*_GENERATED, "parser", "politeness")})


def add_reference_argument(g: argparse._ArgumentGroup) -> None:
    """``--reference FILE``: coverage against a list of URLs (``crawlab crawl`` and ``bsp``)."""
    g.add_argument("--reference", metavar="FILE",
                   help="measure coverage against the URLs listed in FILE (one per line): the "
                   "share of them fetched; for real sites, whose size nobody knows")


def reference_of(args: argparse.Namespace):
    """The :class:`~crawlers.crawl.report.ReferenceList` of ``--reference``, or ``None``
    (a bad file is a one-line :class:`ValueError`)."""
    if args.reference is None:
        return None
    from crawlers.crawl.targets import load_reference

    return load_reference(args.reference)
