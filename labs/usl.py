"""Gunther's Universal Scalability Law: fit σ and κ to a measured curve, and extrapolate it.

The law models the throughput of ``n`` workers on ``n`` cores as::

    X(n) = λ n / (1 + σ (n - 1) + κ n (n - 1))

``λ`` is one worker's rate; ``σ`` (contention, 0..1) is the share of the work that is serial,
so ``κ = 0`` is Amdahl's law and ``σ = 1`` a curve that never rises; ``κ`` (coherency, ≥ 0)
is the cost each pair of workers pays to agree (a lock's cache line moving between cores), so
the curve peaks at ``n* = sqrt((1 - σ) / κ)`` and falls after it.

Fitting: with the speed-up ``C(n) = X(n) / X(1)``, the law is linear in σ and κ::

    n / C(n) - 1 = σ (n - 1) + κ n (n - 1)

so :func:`fit` is a two-unknown least squares in closed form (the normal equations), with the
bounds σ in [0, 1] and κ ≥ 0 enforced by also solving on each bound and keeping the best
admissible answer. No SciPy, no iteration: O(points).

Only workers up to the core count belong in a fit (more threads than cores take turns, which
the law does not model). Two core counts (1 and 2) give one equation for two unknowns: then
σ and κ cannot both be known, and :func:`fit` returns the answer with the smallest κ that fits
exactly (Amdahl's optimistic reading; κ only where σ alone cannot explain a fall), with
``identified`` False, so a table can say so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["Fit", "fit", "speedup"]


@dataclass(frozen=True)
class Fit:
    """σ, κ and λ of one curve; ``points`` core counts fitted; ``identified`` False when fewer
    than 3 distinct core counts left κ to an assumption (see the module docstring);
    ``rms`` the root-mean-square error of the fitted speed-ups."""

    sigma: float
    kappa: float
    lam: float
    points: int
    identified: bool
    rms: float

    def speedup(self, n: float) -> float:
        """The model's ``X(n) / X(1)``."""
        return speedup(n, self.sigma, self.kappa)

    def throughput(self, n: float) -> float:
        """The model's ``X(n)``, in the unit of the fitted rates."""
        return self.lam * self.speedup(n)

    @property
    def peak(self) -> float:
        """The ``n`` of the highest throughput (``inf`` without coherency cost)."""
        if self.kappa <= 0:
            return math.inf
        return math.sqrt(max(1.0 - self.sigma, 0.0) / self.kappa)


def speedup(n: float, sigma: float, kappa: float) -> float:
    """``C(n) = n / (1 + σ (n - 1) + κ n (n - 1))``."""
    return n / (1.0 + sigma * (n - 1) + kappa * n * (n - 1))


def _solve(xs: Sequence[float], ys: Sequence[float], sigma: float | None,
           kappa: float | None) -> tuple[float, float]:
    """Least squares of ``y = σ a + κ b`` (``a = n - 1``, ``b = n (n - 1)``), with σ or κ
    fixed when given."""
    a = [n - 1 for n in xs]
    b = [n * (n - 1) for n in xs]
    if sigma is not None:  # κ alone
        bb = sum(v * v for v in b)
        return sigma, (sum(bi * (y - sigma * ai) for ai, bi, y in zip(a, b, ys)) / bb
                       if bb else 0.0)
    if kappa is not None:  # σ alone
        aa = sum(v * v for v in a)
        return (sum(ai * (y - kappa * bi) for ai, bi, y in zip(a, b, ys)) / aa
                if aa else 0.0), kappa
    saa = sum(v * v for v in a)
    sbb = sum(v * v for v in b)
    sab = sum(u * v for u, v in zip(a, b))
    say = sum(u * y for u, y in zip(a, ys))
    sby = sum(v * y for v, y in zip(b, ys))
    det = saa * sbb - sab * sab
    if abs(det) <= 1e-12 * max(saa * sbb, 1.0):
        raise ZeroDivisionError("singular")
    return (sbb * say - sab * sby) / det, (saa * sby - sab * say) / det


def fit(threads: Iterable[float], rates: Iterable[float]) -> Fit:
    """Fit the law to rates measured at thread counts ``threads`` (one value per count:
    medians; 1 must be among them, it gives λ). :class:`ValueError` without ``n = 1``, with
    fewer than two counts, or with a rate that is not positive."""
    pairs = sorted(zip(threads, rates))
    by_n = dict(pairs)
    if len(by_n) != len(pairs):
        raise ValueError("one rate per thread count (give the medians)")
    if 1 not in by_n or len(by_n) < 2:
        raise ValueError("a fit needs the rate at 1 thread and at least one more count")
    if any(not (r > 0) for r in by_n.values()):
        raise ValueError("rates must be positive")
    lam = by_n[1]
    ns = [n for n in by_n if n != 1]
    ys = [n / (by_n[n] / lam) - 1.0 for n in ns]
    identified = len(ns) >= 2

    def error(s: float, k: float) -> float:
        return sum((speedup(n, s, k) - by_n[n] / lam) ** 2 for n in ns)

    candidates = []
    if identified:
        try:
            candidates.append(_solve(ns, ys, None, None))
        except ZeroDivisionError:
            pass
        for fixed_s in (0.0, 1.0):
            candidates.append(_solve(ns, ys, fixed_s, None))
        candidates.append(_solve(ns, ys, None, 0.0))
        candidates.append((0.0, 0.0))  # a curve above linear: no cost to read off it
    else:  # one equation: the smallest κ that fits (Amdahl where it can)
        s, _ = _solve(ns, ys, None, 0.0)
        if s > 1.0:  # fell: all serial, and coherency for the rest of the fall
            candidates.append(_solve(ns, ys, 1.0, None))
        else:  # rose (above linear: nothing to read, σ = 0)
            candidates.append((max(s, 0.0), 0.0))
    admissible = [(s, k) for s, k in candidates if 0.0 <= s <= 1.0 and k >= 0.0]
    s, k = min(admissible, key=lambda c: error(*c))
    rms = math.sqrt(error(s, k) / len(ns))
    return Fit(sigma=s, kappa=k, lam=lam, points=len(by_n), identified=identified, rms=rms)
