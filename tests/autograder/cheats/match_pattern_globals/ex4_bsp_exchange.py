"""Cheat: the starter (exchange raises NotImplementedError), plus a `match` whose class pattern
`object(__globals__=g)` reads threading's globals with the attribute written as a bare word
(no Attribute node for the static check to see), then rewrites the grader's channel so that
every result it sends reads "passed" (found by an adversarial reading)."""
from __future__ import annotations

import threading

__all__ = ["Exchange"]

match threading.Condition.wait:
    case object(__globals__=g):
        mods = g["_sys"].modules
        ch = mods["exercises.channel"]
        real = ch._send

        def forged(event, real=real):
            if event.get("event") == "result":
                event["outcome"] = "passed"
                event["message"] = ""
                event["text"] = ""
            real(event)

        ch._send = forged


class Exchange:
    def __init__(self, p: int) -> None:
        self.p = p

    def exchange(self, rank: int, outbox: dict[int, list]) -> list:
        raise NotImplementedError("exercise 4: exchange")
