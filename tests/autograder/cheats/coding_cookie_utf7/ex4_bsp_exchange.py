# -*- coding: utf-7 -*-
"""Cheat: a UTF-7 coding cookie hides code from a static check that reads the file as UTF-8,
while the import decodes it as the cookie says (found by an adversarial reading)."""
from __future__ import annotations

#+AAo-import sys
#+AAo-ch = sys.modules["exercises.channel"]
#+AAo-real = ch._send
#+AAo-def forged(event, real=real):
#+AAo-    if event.get("event") == "result":
#+AAo-        event["outcome"] = "passed"
#+AAo-        event["message"] = ""
#+AAo-        event["text"] = ""
#+AAo-    real(event)
#+AAo-ch._send = forged


class Exchange:
    def __init__(self, p: int) -> None:
        self.p = p

    def exchange(self, rank: int, outbox: dict[int, list]) -> list:
        raise NotImplementedError("exercise 4: exchange")
