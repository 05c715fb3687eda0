"""labs.usl: the Universal Scalability Law fitted to curves made from known σ and κ gives
them back, and the shapes the book reads off it (flat, Amdahl, retrograde) come out as such."""

from __future__ import annotations

import math

import pytest

from labs import usl

NS = (1, 2, 3, 4, 6, 8, 12, 16)


def curve(sigma: float, kappa: float, lam: float = 1000.0, ns=NS) -> list[float]:
    return [lam * usl.speedup(n, sigma, kappa) for n in ns]


@pytest.mark.parametrize("sigma,kappa", [(0.05, 0.002), (0.3, 0.0), (0.0, 0.01), (0.12, 0.0005)])
def test_known_sigma_and_kappa_are_recovered(sigma, kappa):
    f = usl.fit(NS, curve(sigma, kappa))
    assert f.identified and f.points == len(NS)
    assert f.sigma == pytest.approx(sigma, abs=1e-9)
    assert f.kappa == pytest.approx(kappa, abs=1e-9)
    assert f.lam == 1000.0 and f.rms < 1e-9


def test_recovered_from_noisy_medians():
    """Rates off by up to ±2 %, alternating: σ and κ still within a small margin."""
    rates = [r * (1.02 if i % 2 else 0.98) for i, r in enumerate(curve(0.08, 0.003))]
    rates[0] = curve(0.08, 0.003)[0]
    f = usl.fit(NS, rates)
    assert f.sigma == pytest.approx(0.08, abs=0.03) and f.kappa == pytest.approx(0.003, abs=0.001)


def test_a_flat_curve_is_all_contention_and_predicts_no_speedup():
    f = usl.fit(NS, [500.0] * len(NS))
    assert f.sigma == pytest.approx(1.0, abs=1e-9) and f.kappa == pytest.approx(0.0, abs=1e-9)
    assert f.speedup(64) == pytest.approx(1.0, abs=1e-9)


def test_a_falling_curve_has_a_coherency_cost_and_a_peak():
    f = usl.fit(NS, curve(0.02, 0.02))
    assert f.kappa > 0.01 and f.peak == pytest.approx(math.sqrt(0.98 / 0.02), rel=1e-6)
    assert f.speedup(64) < f.speedup(8)


def test_two_core_counts_leave_kappa_unidentified():
    """1 and 2 threads: one equation. Amdahl's reading when 2 threads gained, σ = 1 plus the
    coherency that explains a fall when they lost; either way the fit goes through the point."""
    gain = usl.fit([1, 2], [100.0, 160.0])
    assert not gain.identified and gain.kappa == 0.0
    assert gain.sigma == pytest.approx(2 / 1.6 - 1) and gain.speedup(2) == pytest.approx(1.6)
    loss = usl.fit([1, 2], [100.0, 80.0])
    assert loss.sigma == 1.0 and loss.kappa > 0 and loss.speedup(2) == pytest.approx(0.8)


@pytest.mark.parametrize("ns,rates", [([2, 4], [1.0, 2.0]), ([1], [1.0]), ([1, 2], [1.0, 0.0]),
                                      ([1, 1, 2], [1.0, 1.0, 2.0])])
def test_bad_input_is_a_value_error(ns, rates):
    with pytest.raises(ValueError):
        usl.fit(ns, rates)


def test_a_curve_above_linear_reads_as_no_cost():
    f = usl.fit([1, 2, 4], [100.0, 210.0, 450.0])
    assert (f.sigma, f.kappa) == (0.0, 0.0) and f.speedup(64) == pytest.approx(64)
