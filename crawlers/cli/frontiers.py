"""``crawlab frontiers``: list the registered frontiers, one line each."""

from __future__ import annotations

import argparse

__all__ = ["HELP", "add_arguments", "run"]

HELP = "list the registered frontiers"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """No flags."""


def run(args: argparse.Namespace) -> int:
    """Print each frontier's name, description and tags; returns 0."""
    import frontier

    rows = frontier.describe()
    width = max(len(name) for name, _ in rows)
    for name, description in rows:
        cls = frontier.info(name)
        tags = [cls.ordering, "bounded" if cls.bounded else "unbounded"]
        if not cls.correct:
            tags.append("RACY")
        if not frontier.is_live(cls):
            tags.append("LOSES WAKE-UPS")
        print(f"{name:<{width}}  {description}  [{', '.join(tags)}]")
    return 0
