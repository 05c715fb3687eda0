"""``crawlab partition``: assign the sites of a crawl graph to K crawlers and report the cost.

::

    crawlab partition --graph edges.txt --parts 8 --method hypergraph --out sites.part
    crawlab bsp ... --partition sites.part

The graph is an edge list (``source_url target_url`` per line, as ``crawlab crawl --out`` writes
``edges.txt``). The report gives the load imbalance (pages), the messages of the exchange scheme
(:mod:`crawlers.partition.hypergraph`), the graph model's cut links, and the site hypergraph's size;
``--json`` prints it as one JSON object instead of a table. ``page-hash`` assigns pages, not
sites, so it writes no partition file (``--out`` is refused; crawl with ``--partition
page-hash``). Bad input is one line on standard error and exit status 2.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from crawlers.args import MAX_SEED, at_most, non_negative_int
from crawlers.partition import partitioners
from crawlers.partition.hypergraph import read_graph, site_hypergraph

__all__ = ["HELP", "add_arguments", "run"]

HELP = "assign sites to K crawlers (page-hash, site-hash, hypergraph)"

SEED, EPSILON = 1, 0.05  # --method hypergraph's defaults; the other methods take neither
PAGE_HASH_NOTE = ("page-hash assigns each page by MD5(url) mod K, not sites: it has no "
                  "partition file; crawl with --partition page-hash")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``crawlab partition``."""
    parser.description = __doc__.split("\n\n")[0]
    parser.add_argument("--graph", required=True, type=Path, metavar="FILE",
                        help="edge list: one 'source_url target_url' per line")
    parser.add_argument("--parts", "-k", required=True, type=int, metavar="K",
                        help="number of crawlers (at least 2; at most the sites for "
                             "site-based methods)")
    parser.add_argument("--method", choices=partitioners.METHODS, default="hypergraph",
                        help="assignment (default: hypergraph)")
    parser.add_argument("--out", type=Path, metavar="FILE",
                        help="write the partition file (site part per line) for crawlab bsp")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--seed", type=at_most(non_negative_int, MAX_SEED, "KaHyPar's C int"),
                        default=None,
                        help=f"hypergraph: KaHyPar seed, 0 to {MAX_SEED} (default: 1)")
    parser.add_argument("--epsilon", type=float, default=None,
                        help="hypergraph: allowed imbalance of pages (default: 0.05)")


def run(args: argparse.Namespace) -> int:
    """Partition, write ``--out``, print the report. ValueError (one line) on bad input."""
    for flag, value in (("--seed", args.seed), ("--epsilon", args.epsilon)):
        if value is not None and args.method != "hypergraph":
            raise ValueError(f"{flag} is for --method hypergraph (KaHyPar); {args.method} "
                             f"does not take it")
    if args.seed is None:
        args.seed = SEED
    if args.epsilon is None:
        args.epsilon = EPSILON
    if args.parts < 2:
        raise ValueError(f"the number of parts must be at least 2, got {args.parts}")
    if not 0.0 < args.epsilon < 1.0:
        raise ValueError(f"--epsilon must be in (0, 1), got {args.epsilon}")
    if args.out is not None and args.method == "page-hash":
        raise ValueError(PAGE_HASH_NOTE)
    if args.out is not None and not args.out.parent.is_dir():
        raise ValueError(f"cannot write {args.out}: no such directory {args.out.parent}")
    graph = read_graph(args.graph)
    partitioners.check_parts(graph, args.parts, args.method)
    hg = site_hypergraph(graph)
    part = partitioners.partition(graph, args.parts, args.method, epsilon=args.epsilon,
                                  seed=args.seed, hg=hg)
    report = partitioners.evaluate(graph, part, hg)
    report["graph"] = str(args.graph)
    report["partition_file"] = None
    if part.site_part is None:
        report["note"] = PAGE_HASH_NOTE
    if args.out is not None:
        try:
            partitioners.write(part, graph, args.out)
        except OSError as exc:
            raise ValueError(f"cannot write {args.out}: {exc.strerror}") from None
        report["partition_file"] = str(args.out)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print_table(report)
    return 0


def _print_table(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"crawlab partition: {report['method']}, K = {report['parts']}",
                  show_header=False)
    table.add_column(style="bold")
    table.add_column()
    rows = [
        ("graph", f"{report['graph']}: {report['pages']} pages, {report['sites']} sites, "
                  f"{report['links']} links ({report['intra_site_percent']} % intra-site)"),
        ("site hypergraph", f"{report['sites']} vertices, {report['nets']} nets, "
                            f"{report['pins']} pins"),
        ("load imbalance (pages)", f"{report['imbalance_percent']} %"),
    ]
    if report["bytes_imbalance_percent"] is not None:
        rows.append(("load imbalance (bytes)", f"{report['bytes_imbalance_percent']} %"))
    rows += [
        ("messages", f"{report['messages']}  (pages sending: {report['pages_sending']})"),
        ("cut links (graph model)", str(report["cut_links"])),
        ("partition file", report["partition_file"] or report.get("note", "not written")),
        ("seconds", str(report["seconds"])),
    ]
    for key, value in rows:
        table.add_row(key, value)
    Console().print(table)
