"""The bulk-synchronous (BSP) parallel crawler of Marin, Paredes and Bonacic (2008), Section 2.

P workers each own the sites (or pages) an assignment gives them and keep them in a local
frontier. The crawl advances in *supersteps*: every worker extracts its top R URLs, its r
robots fetch them, links to its own sites go into its frontier, links to other workers' sites
are packed into one message per destination, and an all-to-all exchange with a barrier ends
the superstep. Modules:

``transport``  the :class:`~crawlers.bsp.transport.Transport` protocol; processes and MPI
``engine``     the worker (:class:`~crawlers.bsp.engine.Worker`), ownership, OPIC ledger
``report``     per-superstep records, the collector at the root, :class:`BspReport`
``driver``     :func:`run_bsp`: set up, start the workers on a backend, collect
``overhead``   the cost of one exchange on each backend (``python -m crawlers.bsp.overhead``)
``analysis``   models beside the engine: R_x (``rx``) and a dynamic coordinator (``dynamic``)

The command ``crawlab bsp`` is :mod:`crawlers.cli.bsp`. May import ``frontier``,
:mod:`crawlers.page`, :mod:`crawlers.web`, :mod:`crawlers.crawl` and
:mod:`crawlers.partition`; nothing below imports it.

From Python (a lab, a notebook)::

    from crawlers.bsp import BspConfig, run_bsp
    from crawlers.crawl.targets import WebOptions

    report = run_bsp(BspConfig(
        web=WebOptions(kind="sim", pages=2000, sites=20, seed=1, latency=0.0),
        procs=4, robots=4, R=64, frontier="cbt", partition="site-hash"))
    print(report.pages_fetched, report.coverage, report.communication_overhead)
    for step in report.per_superstep:      # SuperstepRecord: one per superstep
        print(step.superstep, step.pages, step.messages, step.page_messages, step.failures,
              step.load_imbalance, step.per_worker["pages"])

``partition`` is ``site-hash``, ``page-hash`` or a partition file (``crawlab partition``);
``kill_worker=1, kill_at=3`` SIGKILLs worker 1 at the start of superstep 3 (processes
backend): the coordinator notices, the survivors take over its sites and the crawl still
covers the whole web (re-fetches show as overlap).

From the shell::

    crawlab bsp --sim --pages 2000 --procs 4 --robots 4 --R 64 --json
    mpiexec -n 4 crawlab bsp --backend mpi --procs 4 --sim --pages 2000
    mpiexec -hosts a,b -n 8 crawlab bsp --backend mpi --procs 8 ...   # several machines

Determinism: with ``--sim`` (or any web whose fetches are repeatable) the same seed and
partition fetch the same pages in the same supersteps and send the same messages on both
backends: each worker processes its fetches in extraction order and its received messages in
rank order, whatever order the robots finish in.
"""

from crawlers.bsp.driver import BACKENDS, BspConfig, run_bsp
from crawlers.bsp.report import BspReport, SuperstepRecord
from crawlers.bsp.transport import BspError

__all__ = ["BACKENDS", "BspConfig", "BspError", "BspReport", "SuperstepRecord", "run_bsp"]
