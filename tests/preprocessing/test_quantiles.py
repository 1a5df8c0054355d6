"""The exponential-mechanism quantile: exact densities at neighbouring data sets.

The output density of :func:`exponential_quantiles` is piecewise constant between the data
points, so the privacy loss between two neighbours is computed exactly on the midpoints of
the merged breakpoints (and cross-checked on a fine grid): it must never exceed the charged
epsilon and, at the worst neighbours, reach it within 1 %.
"""

import numpy as np
import pytest
from scipy.special import logsumexp

from skprivate.preprocessing._common import exponential_quantiles, quantile_gaps

QS = (0.0, 0.02, 0.25, 0.5, 0.75, 0.9, 1.0)


def _log_density(z, q, epsilon, points, lower=0.0, upper=1.0):
    """The implementation's exact log density at ``points`` (inside gaps, not on a value)."""
    col = np.asarray(z, dtype=float)[:, None]
    Z, lengths, logw = quantile_gaps(col, np.array([lower]), np.array([upper]), q, epsilon)
    Z, lengths, logw = Z[:, 0], lengths[:, 0], logw[:, 0]
    gap = np.searchsorted(Z, points, side="right") - 1
    gap = np.minimum(gap, len(lengths) - 1)
    return logw[gap] - np.log(lengths[gap]) - logsumexp(logw)


def _own_log_density(z, q, epsilon, points, lower=0.0, upper=1.0):
    """The test's own: ``exp(epsilon u / (2 max(q, 1 - q)))`` (no 2 at q = 0 or 1),
    normalised by a sum over a fine grid of the interval (independent of skprivate)."""
    z = np.sort(np.asarray(z, dtype=float))
    delta_u = max(q, 1 - q)
    factor = 1.0 if q in (0.0, 1.0) else 0.5

    def logf(x):
        return factor * epsilon * -np.abs(np.searchsorted(z, x, side="left") - q * len(z)) / delta_u

    grid = lower + (np.arange(400000) + 0.5) * (upper - lower) / 400000
    return logf(points) - logsumexp(logf(grid)) - np.log((upper - lower) / 400000)


def _loss(z, z_other, q, epsilon):
    """max_x |log f_z(x) - log f_z_other(x)|, exact (on the midpoints of all gaps)."""
    edges = np.unique(np.concatenate([[0.0, 1.0], z, z_other]))
    mids = (edges[:-1] + edges[1:]) / 2
    return np.max(np.abs(_log_density(z, q, epsilon, mids)
                         - _log_density(z_other, q, epsilon, mids)))


def _worst_neighbours(q, n=60):
    """Neighbours at which both halves of the exponential mechanism's bound are attained.

    ``q <= 1/2``: every value at ``p`` near the top and the added row at the bottom: on the
    long gap ``[0, p]`` (below the quantile) the utility rises by ``1 - q``, on the short gap
    ``[p, 1]`` it falls by ``1 - q``. ``q > 1/2``: the mirror image. ``q = 0`` (monotone
    utility, no factor 2): the added row at ``p`` too, where it lowers the utility of the
    short gap above ``p`` by 1 and leaves the long gap below unchanged; ``q = 1``: mirror.
    """
    if q == 0.0:
        z = np.full(n, 1 - 1e-4)
        return z, np.append(z, 1 - 1e-4)
    if q == 1.0:
        z = np.full(n, 1e-4)
        return z, np.append(z, 1e-4)
    if q <= 0.5:
        z = np.full(n, 1 - 1e-4)
        return z, np.append(z, 0.0)
    z = np.full(n, 1e-4)
    return z, np.append(z, 1.0)


@pytest.mark.parametrize("q", QS)
def test_density_is_the_exponential_mechanism_of_the_rank_utility(q):
    z = np.random.default_rng(1).uniform(size=9)
    points = np.random.default_rng(2).uniform(size=200)
    assert _log_density(z, q, 0.7, points) == pytest.approx(
        _own_log_density(z, q, 0.7, points), abs=1e-4)


@pytest.mark.parametrize("q", QS)
@pytest.mark.parametrize("epsilon", [0.02, 1.0, 5.0])
def test_charged_epsilon_is_attained_within_one_percent(q, epsilon):
    """The calibration is tight: at the worst neighbours the exact loss is within 1 % of
    epsilon (the former calibration, sensitivity 1, reached only max(q, 1 - q) epsilon)."""
    z, z_other = _worst_neighbours(q)
    loss = _loss(z, z_other, q, epsilon)
    assert 0.99 * epsilon <= loss <= epsilon * (1 + 1e-9)


@pytest.mark.parametrize("q", QS)
def test_charged_epsilon_is_never_exceeded(q):
    """Random small data sets, ties included; every added or removed row (at the bounds,
    on a data point, between them): the exact loss never exceeds epsilon."""
    rng = np.random.default_rng(0)
    epsilon, worst = 1.0, 0.0
    for _ in range(6):
        z = np.round(rng.uniform(size=rng.integers(1, 12)), 1)  # ties on purpose
        for extra in (0.0, 1.0, z[0], 0.55, *rng.uniform(size=4)):
            worst = max(worst, _loss(z, np.append(z, extra), q, epsilon))
        worst = max(worst, _loss(z, z[1:], q, epsilon))  # removal
        # cross-check the exact loss on a fine grid
        grid = (np.arange(20000) + 0.5) / 20000
        grid_loss = np.max(np.abs(_log_density(z, q, epsilon, grid)
                                  - _log_density(np.append(z, 0.0), q, epsilon, grid)))
        assert grid_loss <= _loss(z, np.append(z, 0.0), q, epsilon) + 1e-9
    assert worst <= epsilon * (1 + 1e-9)


@pytest.mark.parametrize("q", [0.5, 0.75])
def test_sampler_matches_the_exact_density(q):
    """Many columns of the same data give independent draws: their histogram over the
    gaps between data points matches the exact probabilities, computed here."""
    rng = np.random.default_rng(0)
    z = np.array([1.0, 2.0, 2.5, 6.0, 9.0])
    X = np.repeat(z[:, None], 200000, axis=1)
    lower, upper = np.zeros(X.shape[1]), np.full(X.shape[1], 10.0)
    draws = exponential_quantiles(X, lower, upper, q, 1.0, rng)
    edges = np.array([0.0, *z, 10.0])
    counts = np.histogram(draws, bins=edges)[0] / len(draws)
    weights = np.diff(edges) * np.exp(-np.abs(np.arange(6) - q * 5) / (2 * max(q, 1 - q)))
    assert counts == pytest.approx(weights / weights.sum(), abs=0.005)


def test_missing_values_are_absent_not_counted():
    """A NaN row changes nothing: same density with or without it."""
    z = np.array([0.1, 0.4, 0.45, 0.8])
    mids = np.array([0.05, 0.3, 0.42, 0.6, 0.9])
    assert _log_density(np.append(z, np.nan), 0.5, 1.0, mids) == pytest.approx(
        _log_density(z, 0.5, 1.0, mids))
