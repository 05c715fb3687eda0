"""``crawlab lab``: list the labs, or run one with its own flags (:mod:`labs.harness`)."""

from __future__ import annotations

import argparse

__all__ = ["HELP", "add_arguments", "run"]

HELP = "list or run the labs"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``--list``, the lab's name, and everything after it for the lab's own parser."""
    p.add_argument("--list", action="store_true", help="list the labs")
    p.add_argument("name", nargs="?", help="the lab to run (see --list)")
    p.add_argument("lab_args", nargs=argparse.REMAINDER, help="flags for the lab")


def run(args: argparse.Namespace) -> int:
    """List the labs (``--list`` or no name), or run one; returns its exit status."""
    from labs.harness import LabError, lab_modules, run_lab

    if args.list and (args.name is not None or args.lab_args):
        extra = " ".join([args.name or repr(args.name), *args.lab_args])
        raise LabError(f"--list lists the labs and takes nothing else, got {extra}")
    if args.name is not None and not args.name.strip():
        raise LabError(f"no lab is named {args.name!r}: name one (crawlab lab --list)")
    if args.list or not args.name:
        labs = lab_modules()
        width = max((len(n) for n in labs), default=0)
        for name, doc in labs.items():
            print(f"{name:<{width}}  {doc}")
        if not args.list and not args.name:
            print("\nrun one with: crawlab lab NAME [--quick] [--out DIR] [--seed N]")
        return 0
    return run_lab(args.name, args.lab_args)
