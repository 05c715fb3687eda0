"""The web flags of ``crawlab crawl`` and ``crawlab bsp``: declared by
:func:`add_web_arguments`, turned into :class:`~crawlers.crawl.targets.WebOptions` by
:func:`web_options`, which refuses a flag given where it has no effect.
"""

from __future__ import annotations

import argparse

from crawlers.args import (
    MAX_LATENCY,
    MAX_PAGES,
    MAX_RETRIES,
    MAX_SECONDS,
    MAX_SEED,
    at_most,
    non_negative,
    non_negative_int,
    positive,
    positive_int,
)

__all__ = ["MAX_LATENCY", "add_web_arguments", "web_options"]

_IN_MEMORY = "the generated web is built in memory"


def add_web_arguments(p: argparse.ArgumentParser) -> None:
    """The web options of ``crawlab crawl`` and ``crawlab bsp`` (see
    :class:`crawlers.crawl.targets.WebOptions`). Their defaults are filled in by
    :func:`web_options`, which can then tell a value the user gave from a default."""
    g = p.add_argument_group("the web")
    g.add_argument("--sim", action="store_true",
                   help="simulated fetcher over the generated web (no sockets, no parsing)")
    g.add_argument("--seed-url", action="append", default=[], metavar="URL",
                   help="crawl these sites instead (repeatable; real sites politely)")
    g.add_argument("--pages", type=at_most(positive_int, MAX_PAGES, _IN_MEMORY),
                   help=f"generated web size (at most {MAX_PAGES})")
    g.add_argument("--sites", type=at_most(positive_int, MAX_PAGES, _IN_MEMORY),
                   help="generated web sites")
    g.add_argument("--seed", type=at_most(non_negative_int, MAX_SEED),
                   help="generated web seed (default: 1)")
    g.add_argument("--latency", type=at_most(non_negative, MAX_LATENCY, "an hour"), metavar="S",
                   help="mean injected latency per page (default: 0.02 s)")
    g.add_argument("--jitter", type=at_most(non_negative, MAX_LATENCY, "an hour"), metavar="S",
                   help="latency jitter half-width, at most the latency (default: latency / 2)")
    g.add_argument("--parser", choices=("lxml", "bs4"),
                   help="link extractor for real HTML (default: lxml)")
    g.add_argument("--politeness", type=at_most(non_negative, MAX_SECONDS, "a year"),
                   metavar="S",
                   help="delay between requests to one site, --seed-url only (default: 1 s; "
                   "0: none of ours; a site's robots.txt Crawl-delay, if longer, is kept)")
    add_limit_arguments(p)


def add_limit_arguments(p: argparse.ArgumentParser) -> None:
    """One flag per limit of :data:`crawlers.page.policy.LIMITS` (``--max-url-length N`` ...),
    default None so that :func:`web_options` can tell a value given from a default."""
    from dataclasses import fields

    from crawlers.page.policy import LIMITS, MAY_BE_ZERO, Policy

    defaults = {f.name: f.default for f in fields(Policy)}
    g = p.add_argument_group("limits against a hostile web (each counted in the report)")
    for limit in LIMITS:
        default = defaults[limit.name]
        if isinstance(default, int):
            kind = non_negative_int if limit.name in MAY_BE_ZERO else positive_int
            if limit.unit == "retries":  # each one waits: a huge count never ends the crawl
                kind = at_most(kind, MAX_RETRIES, "each retry waits")
        else:  # seconds: at most a year, so that no wait overflows the clock
            kind = at_most(non_negative if limit.name in MAY_BE_ZERO else positive,
                           MAX_SECONDS, "a year")
        g.add_argument(limit.flag, type=kind, metavar=_METAVAR.get(limit.unit, "N"),
                       help=f"{limit.acts} (default: {default:g} {limit.unit})")


_GENERATED = ("pages", "sites", "seed", "latency", "jitter")  # flags of the generated web
_METAVAR = {"s": "S", "bytes": "BYTES"}
#: Limits that act on the served generated web too (its fetcher); the others act on links and
#: robots.txt, which only --seed-url crawls check. Every limit means nothing with --sim but
#: the stop grace.
_FETCH_LIMITS = ("fetch_seconds", "max_bytes", "max_redirects", "retry_after_cap",
                 "max_retries", "stop_grace")


def policy_of(args: argparse.Namespace, kind: str):
    """The :class:`~crawlers.page.policy.Policy` of the limit flags given (defaults for the
    others); a limit flag that has no effect on the ``kind`` of web is a :class:`ValueError`."""
    from crawlers.page.policy import LIMITS, Policy

    given = {limit.name: getattr(args, limit.name, None) for limit in LIMITS}
    given = {k: v for k, v in given.items() if v is not None}
    for name in given:
        flag = "--" + name.replace("_", "-")
        if kind == "sim" and name != "stop_grace":
            raise ValueError(f"{flag} has no effect with --sim (the simulated web has no "
                             "traps to limit)")
        if kind == "served" and name not in _FETCH_LIMITS:
            raise ValueError(f"{flag} applies to --seed-url sites (the generated web's links "
                             "and robots.txt need no limit); on the generated web only "
                             + ", ".join("--" + n.replace("_", "-") for n in _FETCH_LIMITS)
                             + " act")
    return Policy(**given)


def web_options(args: argparse.Namespace, threads: int):
    """The :class:`~crawlers.crawl.targets.WebOptions` that :func:`add_web_arguments`' flags
    describe, defaults filled in. A flag given where it has no effect is refused with a
    :class:`ValueError` (one line), never silently ignored: ``--sim`` with ``--seed-url``,
    a generated-web flag with ``--seed-url``, ``--politeness`` without it, ``--parser``
    with ``--sim``."""
    from crawlers.crawl.targets import WebOptions
    from crawlers.page.clock import jitter_problem

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
    if "jitter" in values:
        problem = jitter_problem(values.get("latency", defaults.latency), values["jitter"],
                                 ("--jitter", "--latency"))
        if problem is not None:
            raise ValueError(problem)
    return WebOptions(kind=kind, seed_urls=args.seed_url, threads=threads,
                      policy=policy_of(args, kind),
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
