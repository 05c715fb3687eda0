"""The fault menu of the lab web and the error vocabulary of fetchers, defined once.

Both the simulated fetcher and the local HTTP server inject the same :class:`Fault` kinds,
and every fetcher records what went wrong as one short *error kind*:

==========================  ==============================================================
error kind                  meaning
==========================  ==============================================================
``http-NNN``                the final response had status NNN >= 400 (``http-404``, ...)
``timeout``                 no connection or no answer within the fetcher's timeout
``connection``              refused, reset, unknown host, truncated body
``too-many-redirects``      more redirects than the fetcher's limit (chains and loops)
``not-html``                the content type is not HTML (the body is not read)
``too-large``               the body is larger than the fetcher's size cap
``malformed``               the body is not an HTML document (empty or binary)
``invalid-url``             the URL (or a redirect target) cannot be fetched
``internal``                an unexpected exception in the fetcher itself (a bug)
``deadline``                the whole fetch outlasted its budget (``fetch_seconds``) and was cut
``stopped``                 the crawl ended (``--seconds``, Ctrl-C) while the fetch ran: cut
``off-scope``               a redirect led out of the crawl's scope (not followed)
``url-rule``                a redirect target broke a URL rule (length, depth, traps)
==========================  ==============================================================

A fault is injected either by rate (:class:`FaultPlan`, deterministic per page from a
seed), for chosen pages (``FaultPlan(fixed={page: fault})``), or on demand by path:
``/_fault/<kind>`` on any site of the simulated or served web answers with that fault.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from crawlers.page.clock import unit_hash

TIMEOUT = "timeout"
CONNECTION = "connection"
TOO_MANY_REDIRECTS = "too-many-redirects"
NOT_HTML = "not-html"
TOO_LARGE = "too-large"
MALFORMED = "malformed"
INVALID_URL = "invalid-url"
INTERNAL = "internal"
ROBOTS = "robots"  # robots.txt disallows the URL (or a redirect target)
DEADLINE = "deadline"
STOPPED = "stopped"
OFF_SCOPE = "off-scope"
URL_RULE = "url-rule"
SITE_BUDGET = "site-budget"  # a redirect to a site whose page budget is spent
REDIRECT_SEEN = "redirect-seen"  # a redirect to a URL the crawl has already claimed

#: Every error kind except the ``http-NNN`` family.
ERROR_KINDS: frozenset[str] = frozenset(
    {TIMEOUT, CONNECTION, TOO_MANY_REDIRECTS, NOT_HTML, TOO_LARGE, MALFORMED, INVALID_URL,
     INTERNAL, ROBOTS, DEADLINE, STOPPED, OFF_SCOPE, URL_RULE, SITE_BUDGET, REDIRECT_SEEN}
)


def http_error(status: int) -> str:
    """The error kind of an HTTP status >= 400, e.g. ``http_error(404) == "http-404"``."""
    return f"http-{status}"


def is_error_kind(kind: str) -> bool:
    """True if ``kind`` belongs to the vocabulary (fixed kinds or ``http-NNN``)."""
    if kind in ERROR_KINDS:
        return True
    return kind.startswith("http-") and kind[5:].isdigit() and len(kind) == 8


class Fault(str, enum.Enum):
    """A misbehaviour a site of the lab web can show on a page."""

    NOT_FOUND = "404"
    SERVER_ERROR = "500"
    TIMEOUT = "timeout"            # never answer within the client's read timeout
    RESET = "reset"                # close the connection without answering
    MALFORMED = "malformed"        # text/html whose body is binary garbage
    REDIRECT_CHAIN = "redirect-chain"  # a few redirects, then the page (not an error)
    REDIRECT_LOOP = "redirect-loop"    # redirects forever
    NOT_HTML = "not-html"          # a PDF instead of HTML
    OVERSIZE = "oversize"          # a body larger than any sane cap

    @property
    def expected_error(self) -> str | None:
        """The error kind a fetcher records for this fault (None: the fetch succeeds)."""
        return _EXPECTED[self]


_EXPECTED: dict[Fault, str | None] = {
    Fault.NOT_FOUND: http_error(404),
    Fault.SERVER_ERROR: http_error(500),
    Fault.TIMEOUT: TIMEOUT,
    Fault.RESET: CONNECTION,
    Fault.MALFORMED: MALFORMED,
    Fault.REDIRECT_CHAIN: None,
    Fault.REDIRECT_LOOP: TOO_MANY_REDIRECTS,
    Fault.NOT_HTML: NOT_HTML,
    Fault.OVERSIZE: TOO_LARGE,
}

#: Path prefix of the on-demand fault pages: ``/_fault/404`` and so on.
FAULT_PREFIX = "/_fault/"
#: Default number of hops of a redirect chain (below every sane redirect limit).
CHAIN_LENGTH = 3
#: Size of an oversize body (bytes); fetchers are expected to cap far below this.
OVERSIZE_BYTES = 20_000_000


def fault_path(fault: Fault) -> str:
    """The path that answers with ``fault`` on any lab site, e.g. ``/_fault/404``."""
    return FAULT_PREFIX + fault.value


def fault_in_path(path: str) -> Fault | None:
    """The fault requested on demand by ``path`` (``/_fault/<kind>``), or None. O(len)."""
    if not path.startswith(FAULT_PREFIX):
        return None
    try:
        return Fault(path[len(FAULT_PREFIX):].split("/", 1)[0])
    except ValueError:
        return None


def parse_faults(text: str) -> tuple[Fault, ...]:
    """Parse a comma-separated list of fault kinds (``"404,500,timeout"``; ``"all"``).

    Raises ValueError naming the unknown kind.
    """
    if text.strip() == "all":
        return tuple(Fault)
    kinds = []
    for part in text.split(","):
        part = part.strip()
        if part:
            try:
                kinds.append(Fault(part))
            except ValueError:
                known = ", ".join(f.value for f in Fault)
                raise ValueError(f"unknown fault {part!r} (known: {known})") from None
    return tuple(kinds)


@dataclass(frozen=True)
class FaultPlan:
    """Which pages of a generated web misbehave, and how.

    A page in ``fixed`` gets its fault; otherwise, with probability ``rate``, a page gets
    one of ``kinds``. The draw is a pure function of ``(seed, page)``, so the simulated
    fetcher and the server agree on every page and every run. Home pages are spared by the
    callers so that every site stays reachable. Immutable, hence thread-safe.
    """

    rate: float = 0.0
    kinds: tuple[Fault, ...] = tuple(Fault)
    fixed: Mapping[int, Fault] = field(default_factory=dict)
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError("fault rate must be in [0, 1]")
        if self.rate > 0 and not self.kinds:
            raise ValueError("a positive fault rate needs at least one fault kind")

    @classmethod
    def only(cls, faults: Mapping[int, Fault] | Iterable[tuple[int, Fault]]) -> FaultPlan:
        """A plan with exactly the given ``{page: fault}`` and nothing random."""
        return cls(fixed=dict(faults))

    def fault_for(self, page: int) -> Fault | None:
        """The fault of global page id ``page`` (None: behaves). O(1); thread-safe."""
        fault = self.fixed.get(page)
        if fault is not None or self.rate == 0.0:
            return fault
        key = str(page)
        if unit_hash(self.seed, key, "fault") >= self.rate:
            return None
        index = int(unit_hash(self.seed, key, "kind") * len(self.kinds))
        return self.kinds[index]
