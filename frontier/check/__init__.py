"""Checking frontiers beyond the unit tests: explored schedules and linearizability.

* :mod:`frontier.check.scenarios` -- small multi-threaded scenarios, each with the invariant
  that must hold at its end (``lost-update``, ``lost-wakeup``, ``close``, ``order``);
* :mod:`frontier.check.explore` -- runs a scenario under a controlled scheduler (frontrun's
  DPOR) over every meaningfully different interleaving within a preemption bound, and replays
  a counterexample exactly;
* :mod:`frontier.check.trace` -- a violating interleaving as a table, one column per thread,
  and the trace file that ``--replay`` reads;
* :mod:`frontier.check.linearize` -- records real concurrent histories and checks them
  against the sequential specification (Wing & Gong's search with Lowe's memoization);
* :mod:`frontier.check.timeline` -- draws a non-linearizable history.

``import frontier`` does not import this package, and this package imports frontrun only when
an exploration runs, so the frontiers never need it.
"""
