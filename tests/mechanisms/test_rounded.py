"""The exact rounded Gaussian sampler and release (skprivate.mechanisms._rounded)."""

from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chisquare, norm

import skprivate.mechanisms._rounded as rounded
from skprivate._dpsgd._release import SecureGaussianRelease
from skprivate.mechanisms import rounded_gaussian_mechanism, rounded_gaussian_plan
from skprivate.mechanisms._rounded import sample_rounded_gaussian


def _chi_square_pvalue(draws, S):
    # Against P(R = m) = Phi((m + 1/2) / s) - Phi((m - 1/2) / s), tails pooled.
    s = float(S) ** 0.5
    support = np.arange(int(-8 * s) - 2, int(8 * s) + 3)
    pmf = norm.cdf((support + 0.5) / s) - norm.cdf((support - 0.5) / s)
    observed = np.bincount(np.clip(draws, support[0], support[-1]) - support[0],
                           minlength=support.size)
    expected = pmf / pmf.sum() * draws.size
    big = expected >= 5
    observed = np.append(observed[big], observed[~big].sum())
    expected = np.append(expected[big], expected[~big].sum())
    keep = expected > 0
    return chisquare(observed[keep], expected[keep] * observed.sum() / expected[keep].sum()).pvalue


@pytest.mark.parametrize("S", [Fraction(1, 4), Fraction(2), Fraction(37, 3), Fraction(4001, 4)])
def test_pmf_is_the_rounded_gaussian(S):
    draws = sample_rounded_gaussian(S, 40_000, np.random.default_rng(7))
    assert draws.dtype == np.int64
    assert _chi_square_pvalue(draws, S) > 1e-4
    # The discrete Gaussian (variance below S) is a different law: the variance tells them
    # apart at this S (S + 1/12 for the rounded one).
    if S > 10:
        assert abs(draws.var() - (float(S) + 1 / 12)) < 0.05 * float(S)


def test_exact_path_alone_gives_the_same_law(monkeypatch):
    # Two-bit words make ties between lazy uniforms common and a margin of one half leaves
    # most first comparisons undecided: nearly every candidate goes through the exact
    # Python-integer path, which must give the same law.
    calls = []
    exact_rest = rounded._exact_rest
    monkeypatch.setattr(rounded, "_BITS", 2)
    monkeypatch.setattr(rounded, "_WORD", 4)
    monkeypatch.setattr(rounded, "_FAST_MARGIN", 0.5)
    monkeypatch.setattr(rounded, "_exact_rest", lambda *a: calls.append(1) or exact_rest(*a))
    S = Fraction(3)
    draws = sample_rounded_gaussian(S, 8_000, np.random.default_rng(3))
    assert len(calls) > 4_000
    assert _chi_square_pvalue(draws, S) > 1e-4


def test_large_scale_is_fast_enough_and_centred():
    draws = sample_rounded_gaussian(Fraction(2**24), 20_000, np.random.default_rng(0))
    assert abs(draws.mean()) < 5 * 2**12 / np.sqrt(20_000)
    assert draws.std() == pytest.approx(2**12, rel=0.03)


def test_release_lies_on_the_grid_and_keeps_the_plan():
    value = np.array([0.3, -7.25, 1e3])
    plan = rounded_gaussian_plan(2.0, 1.5, value.size)
    # The variance in grid units is at least (noise_multiplier * lattice sensitivity)^2:
    # the continuous Gaussian plan's noise multiplier on the rounded statistic.
    assert plan.scale >= (Fraction(3, 2) * plan.lattice_sensitivity) ** 2
    out = rounded_gaussian_mechanism(value, 2.0, 1.5, random_state=0)
    steps = out / plan.gamma
    np.testing.assert_array_equal(steps, np.round(steps))
    # The noise in real units: std noise_multiplier * sensitivity, within the grid's 2**-10.
    many = rounded_gaussian_mechanism(np.zeros(20_000), 2.0, 1.5, random_state=1)
    assert many.std() == pytest.approx(3.0, rel=0.03)


def test_batched_stream_matches_one_release_per_call_in_law():
    # The fit's stream draws repeated releases in batches; each release still lies on the
    # plan's grid and has the plan's noise.
    release = SecureGaussianRelease()
    rng = np.random.default_rng(5)
    outs = np.array([release(np.full(3, 0.5), 1.0, 2.0, rng) for _ in range(3000)])
    plan = rounded_gaussian_plan(1.0, 2.0, 3)
    np.testing.assert_array_equal(outs / plan.gamma, np.round(outs / plan.gamma))
    assert outs.std() == pytest.approx(2.0, rel=0.05)
    assert abs(outs.mean() - 0.5) < 0.1
    # Rows of the batch are independent: no two releases repeat the same noise.
    assert len({tuple(row) for row in outs}) == len(outs)
