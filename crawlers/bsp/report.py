"""What a BSP crawl did: per-superstep records, collected at the root, and the final report.

The root of ``gather`` (the coordinator with processes, rank 0 under MPI) feeds every
superstep's :class:`~crawlers.bsp.engine.WorkerStep` list to a :class:`Collector`. The
collector counts every fetch as it is reported (a page a worker fetched before dying is
counted: it was reported at the end of its superstep), writes ``--out`` files as it goes, and
builds the :class:`BspReport`.

Definitions (Cho and Garcia-Molina's, as the threaded crawler's): ``pages_fetched`` N counts
every fetch, ``unique_pages`` I the distinct URLs, ``overlap`` (N - I) / I, ``coverage`` I / U;
``communication_overhead`` L / N with L the URLs sent between workers; ``load_imbalance``
max / mean - 1 of the pages per worker.

Not thread-safe: one thread (the root's) calls :meth:`Collector.add`. O(pages) per superstep.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from crawlers.bsp.engine import WorkerStep
from crawlers.crawl.report import overlap
from crawlers.page.policy import Counters

__all__ = ["BspReport", "Collector", "SuperstepRecord", "imbalance"]


def imbalance(loads: list[int] | list[float]) -> float:
    """``max / mean - 1`` (0 for an empty or all-zero list)."""
    if not loads:
        return 0.0
    mean = sum(loads) / len(loads)
    return max(loads) / mean - 1.0 if mean > 0 else 0.0


@dataclass
class SuperstepRecord:
    """One superstep over all reporting workers. ``per_worker`` holds lists indexed by the
    position in ``workers`` (the ranks that reported)."""

    superstep: int
    workers: list[int]
    pages: int
    messages: int
    urls_sent: int
    page_messages: int
    failures: int
    local_failures: int
    misrouted: int
    frontier: int
    load_imbalance: float
    fetch_seconds: float  # the slowest worker's
    exchange_seconds: float  # the slowest worker's wait in the all-to-all
    elapsed: float  # since the crawl started, when the root got the reports
    per_worker: dict[str, list[Any]]


def _sound_record(record: Any) -> bool:
    """Whether ``record`` is a :class:`SuperstepRecord` whose every field holds its type (a
    journal's forged record would fail only when the report is printed, the crawl done)."""
    from dataclasses import fields

    from crawlers.bsp.journal import is_count, is_real

    kinds = {"int": is_count, "float": is_real,
             "list[int]": lambda v: isinstance(v, list) and all(is_count(x) for x in v),
             "dict[str, list[Any]]": lambda v: isinstance(v, dict) and all(
                 isinstance(k, str) and isinstance(x, list) for k, x in v.items())}
    return (type(record) is SuperstepRecord
            and all(kinds[f.type](getattr(record, f.name, None)) for f in fields(record)))


@dataclass
class BspReport:
    """The outcome of a BSP crawl (``as_json()`` is ``crawlab bsp --json``)."""

    frontier: str
    procs: int
    robots: int
    R: int
    backend: str
    partition: str
    # seconds: the crawl, from the first round (every worker ready) to the last superstep's
    # end; startup_seconds before it (processes backend: the workers' start); teardown_seconds
    # after it (the workers' exit, the target closed, the counts of a failover), up to the
    # report: their sum is the time the run took, less opening the target and the interpreter
    seconds: float = 0.0
    startup_seconds: float = 0.0
    teardown_seconds: float = 0.0
    pages_fetched: int = 0
    unique_pages: int = 0
    duplicates: int = 0
    overlap: float = 0.0
    errors: dict[str, int] = field(default_factory=dict)
    pages_per_second: float = 0.0
    coverage: float | None = None
    coverage_basis: str | None = None  # "web": I / U; "discovered": I / URLs any worker reached;
    # "reference": listed pages fetched / pages listed (--reference FILE)
    quality: float | None = None
    web_size: int | None = None
    supersteps: int = 0
    # CPU seconds of the workers' processes (every thread) during the crawl, start-up excluded:
    # the sum of the reports' cpu_seconds (a dead worker's last superstep is not in it)
    workers_cpu_seconds: float = 0.0
    messages: int = 0
    urls_sent: int = 0
    page_messages: int = 0
    failures: int = 0
    local_failures: int = 0
    misrouted: int = 0
    communication_overhead: float = 0.0
    load_imbalance: float = 0.0
    pages_per_worker: list[int] = field(default_factory=list)
    stopped_by: str = ""
    killed: list[dict[str, Any]] = field(default_factory=list)
    # after a failover: pages the dead workers had started in their last, unreported superstep
    # (the most a survivor can fetch again, itself at most R per dead worker), and the pages
    # a survivor did fetch again (None without a death, or without the workers' started logs)
    # With --state (MPI): resumed = pages fetched by earlier sessions of the crawl (counted in
    # pages_fetched, not in pages_per_second); refetch_bound = R x procs per resume (one lost
    # superstep), refetched = pages started in more than one session
    refetch_bound: int | None = None
    refetched: int | None = None
    resumed: int = 0
    # fetches cut when the time slice or Ctrl-C ended the crawl (not pages), and each limit's
    # counter summed over the workers (crawlers.page.policy; empty for the simulated web)
    fetches_cut: int = 0
    # URLs robots.txt refused (its rules, or the site's robots.txt did not answer): not pages
    robots_refused: int = 0
    robots_unreachable: int = 0
    limits: dict[str, int] = field(default_factory=dict)
    per_superstep: list[SuperstepRecord] = field(default_factory=list)
    fetched_urls: list[str] = field(default_factory=list, repr=False)

    def as_json(self) -> dict[str, Any]:
        """A JSON-ready dict (without ``fetched_urls``)."""
        d = asdict(self)
        d.pop("fetched_urls")
        return d


_SUMMED = ("pages", "messages", "urls_sent", "page_messages", "failures", "local_failures",
           "misrouted", "frontier")


class Collector:
    """Accumulates the workers' reports at the root; see the module docstring.

    ``sink`` (a :class:`~crawlers.crawl.output.CrawlOutput`) gets every page and its links as they
    are reported (the workers must send results: ``keep_results``). ``truth`` enables
    coverage and quality; ``reference`` (a :class:`~crawlers.crawl.report.ReferenceList`)
    measures coverage against a list instead.
    """

    def __init__(self, procs: int, sink: Any = None, truth: Any = None,
                 reference: Any = None) -> None:
        self.procs = procs
        self.sink = sink
        self.truth = truth
        self.reference = reference
        self.records: list[SuperstepRecord] = []
        self.fetched: list[str] = []
        self.seen: set[str] = set()
        self.errors: Counter[str] = Counter()
        self.per_worker = [0] * procs
        self.t0 = time.monotonic()
        self.resumed = 0  # pages of earlier sessions (restored by a resumed crawl)
        self.claimed: dict[int, int] = {}  # rank -> URLs it claimed, as of its last report
        self.limits: Counter[str] = Counter()
        self.cut = 0
        self.refused: Counter[str] = Counter()  # robots_refused, robots_unreachable
        self.guarded = False  # the web has a policy: report every limit's counter, 0s too

    def state(self) -> dict[str, Any]:
        """What a resumed crawl needs to report the whole crawl (for a journal snapshot)."""
        return {"records": self.records, "fetched": self.fetched, "errors": self.errors,
                "per_worker": self.per_worker, "claimed": self.claimed,
                "limits": self.limits, "cut": self.cut, "refused": self.refused}

    def state_problem(self, state: Any) -> str | None:
        """What makes ``state`` unlike every :meth:`state` of a collector of this crawl
        (``None``: nothing): its keys, the types of what they hold, one count per worker.
        O(size). :meth:`restore` takes only a state this passed."""
        from crawlers.bsp.journal import is_count

        def counts(v: Any) -> bool:
            return isinstance(v, dict) and all(isinstance(k, str) and is_count(n)
                                               for k, n in v.items())
        checks = {
            "records": lambda v: isinstance(v, list) and all(_sound_record(r) for r in v),
            "fetched": lambda v: isinstance(v, list) and all(isinstance(u, str) for u in v),
            "errors": counts,
            "per_worker": lambda v: isinstance(v, list) and len(v) == self.procs
            and all(is_count(n) for n in v),
            "claimed": lambda v: isinstance(v, dict) and all(
                is_count(r) and r < self.procs and is_count(n) for r, n in v.items()),
            "limits": counts,
            "cut": is_count,
            "refused": counts,
        }
        if not isinstance(state, dict):
            return f"the collector's state is a {type(state).__name__}, not a mapping"
        for key, ok in checks.items():
            if key not in state or not ok(state[key]):
                return f"the collector's {key!r} is not what a collector keeps there"
        return None

    def restore(self, state: dict[str, Any]) -> None:
        """Take up a :meth:`state` snapshot: its pages count as resumed."""
        self.records = list(state["records"])
        self.fetched = list(state["fetched"])
        self.seen = set(self.fetched)
        self.errors = Counter(state["errors"])
        self.per_worker = list(state["per_worker"])
        self.claimed = dict(state["claimed"])
        self.limits = Counter(state.get("limits", {}))
        self.cut = state.get("cut", 0)
        self.refused = Counter(state["refused"])
        self.resumed = len(self.fetched)

    def start(self) -> None:
        """Start the clock (call when the workers start their first superstep)."""
        self.t0 = time.monotonic()

    def add(self, steps: list[WorkerStep | None] | dict[int, WorkerStep]) -> None:
        """One superstep's reports (a list by rank, or ``{rank: step}``)."""
        if isinstance(steps, dict):
            steps = [steps[r] for r in sorted(steps)]
        steps = [s for s in steps if s is not None]
        if not steps:
            return
        for st in steps:
            self.claimed[st.rank] = st.claimed
            self.per_worker[st.rank] += len(st.pages)
            self.fetched.extend(st.pages)
            self.seen.update(st.pages)
            self.errors.update(st.errors)
            self.limits.update(st.limits)
            self.cut += st.cut
            self.refused.update(st.refused)
            if self.sink is not None and st.results is not None:
                for res in st.results:
                    self.sink.page(res)
                    self.sink.edges(res.url, res.links)
        per = {k: [getattr(st, k) for st in steps] for k in (
            *_SUMMED[1:], "links", "sent_to", "received_from", "spilled", "fetch_seconds",
            "exchange_seconds", "apply_seconds", "cpu_seconds")}
        per["pages"] = [len(st.pages) for st in steps]
        self.records.append(SuperstepRecord(
            superstep=steps[0].superstep,
            workers=[st.rank for st in steps],
            **{k: sum(per[k]) for k in _SUMMED},
            load_imbalance=imbalance(per["pages"]),
            fetch_seconds=max(per["fetch_seconds"]),
            exchange_seconds=max(per["exchange_seconds"]),
            elapsed=time.monotonic() - self.t0,
            per_worker=per,
        ))

    def report(self, base: BspReport, seconds: float, stopped_by: str) -> BspReport:
        """Fill ``base`` with the totals."""
        r = base
        r.seconds = round(seconds, 4)
        r.pages_fetched = n = len(self.fetched)
        r.unique_pages = unique = len(self.seen)
        r.duplicates = n - unique
        r.overlap = overlap(n, unique)
        r.errors = dict(self.errors)
        r.fetches_cut = self.cut
        r.robots_refused = self.refused["robots_refused"]
        r.robots_unreachable = self.refused["robots_unreachable"]
        if stopped_by == "exhausted" and not n and (r.robots_refused or r.robots_unreachable):
            stopped_by = "nothing-fetchable"  # every URL refused: not a complete crawl
        if self.limits or self.guarded:
            r.limits = Counters(dict(self.limits)).as_dict()
        r.pages_per_second = (n - self.resumed) / seconds if seconds > 0 else 0.0
        r.resumed = self.resumed
        r.supersteps = len(self.records)
        r.workers_cpu_seconds = round(
            sum(sum(rec.per_worker["cpu_seconds"]) for rec in self.records), 4)
        for k in ("messages", "urls_sent", "page_messages", "failures", "local_failures",
                  "misrouted"):
            setattr(r, k, sum(getattr(rec, k) for rec in self.records))
        r.communication_overhead = r.urls_sent / n if n else 0.0
        r.pages_per_worker = list(self.per_worker)
        alive = [p for i, p in enumerate(self.per_worker)
                 if i not in {k["rank"] for k in r.killed}]
        r.load_imbalance = imbalance(alive)
        r.stopped_by = stopped_by
        r.per_superstep = self.records
        r.fetched_urls = list(self.fetched)
        if self.truth is not None:
            r.web_size = self.truth.size
            r.coverage = self.truth.coverage(unique)
            r.coverage_basis = "web"
            r.quality = self.truth.quality(self.seen)
        if self.reference is not None:
            r.web_size = self.reference.size
            r.coverage = self.reference.coverage(self.seen)
            r.coverage_basis = "reference"
        return r
