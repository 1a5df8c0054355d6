"""PATE with exact discrete noise: the q bounds against exact convolutions of the pmfs, the
data-dependent RDP against the exact Renyi divergences of the discrete aggregators (ties
broken at random, enumerated exactly), and the aggregators' draws against those exact
output distributions."""

import math

import numpy as np
import pytest
from scipy import stats

from skprivate.accounting import pate_epsilon
from skprivate.accounting._pate import (
    _logq_gaussian_gaps,
    _logq_laplace_gaps,
    _logq_threshold,
)
from skprivate.mechanisms import (
    discrete_gaussian_rational_sigma2,
    discrete_laplace_rational_scale,
)
from skprivate.pate._aggregation import NO_ANSWER, confident_gnmax, noisy_argmax
from tests.accounting.test_pate import _neighbours, _renyi

DELTA = 1e-5


def _pmf(mechanism, scale):
    """Exact pmf of the noise the sampler draws, on a support whose tail mass is < 1e-30."""
    if mechanism == "laplace":
        t = float(discrete_laplace_rational_scale(scale))
        support = np.arange(-int(75 * t) - 5, int(75 * t) + 6)
        log_w = -np.abs(support) / t
    else:
        s2 = float(discrete_gaussian_rational_sigma2(scale))
        support = np.arange(-int(12 * math.sqrt(s2)) - 5, int(12 * math.sqrt(s2)) + 6)
        log_w = -(support.astype(float) ** 2) / (2 * s2)
    w = np.exp(log_w - log_w.max())
    return support, w / w.sum()


def _difference_tail(pmf):
    """Pr[Z - Z' >= g] for g = 0, 1, ... from the exact convolution."""
    diff = np.convolve(pmf, pmf[::-1])
    centre = pmf.size - 1
    return np.cumsum(diff[::-1])[::-1][centre:]


@pytest.mark.parametrize("scale", [0.4, 1.0, 2.5, 20.0, 0.1 + 1 / 3])
def test_laplace_q_is_the_exact_tail_of_the_difference(scale):
    _, pmf = _pmf("laplace", scale)
    exact = _difference_tail(pmf)
    gaps = np.arange(0, min(exact.size, 200))
    ours = np.exp(_logq_laplace_gaps(gaps[:, None], scale, "discrete"))
    keep = exact[gaps] > 1e-20  # far below, the truncated support (e^-75) would show
    assert np.all(ours[keep] >= exact[gaps][keep] * (1 - 1e-12))
    np.testing.assert_allclose(ours[keep], exact[gaps][keep], rtol=1e-7)


@pytest.mark.parametrize("sigma", [0.7, 1.0, 3.0, 10.0, 40.0, 7 / 3])
def test_gaussian_q_bounds_the_exact_tail_of_the_difference_closely(sigma):
    _, pmf = _pmf("gaussian", sigma)
    exact = _difference_tail(pmf)
    gaps = np.arange(0, int(12 * sigma) + 2)
    ours = np.exp(_logq_gaussian_gaps(gaps[:, None], sigma, "discrete"))
    assert np.all(ours >= exact[gaps] * (1 - 1e-12))
    assert np.all(ours <= 1.4 * exact[gaps])  # and loses little: first term + integral
    # The continuous bound, Proposition 7, is *not* a bound for discrete noise at every gap
    # (the tie D = g has positive mass): the discrete one is needed.
    continuous = np.exp(_logq_gaussian_gaps(gaps[:, None], sigma, "continuous"))
    assert np.any(continuous < exact[gaps])


@pytest.mark.parametrize("sigma1, threshold", [(2.0, 9.0), (2.0, 8.5), (7.0, 40.3),
                                               (0.8, 3.0)])
def test_threshold_q_bounds_the_exact_outcome_probability(sigma1, threshold):
    support, pmf = _pmf("gaussian", sigma1)
    largest = np.arange(0, int(threshold + 10 * sigma1) + 1)
    need = math.ceil(threshold) - largest  # pass iff Z >= need
    passes = support[None, :] >= need[:, None]
    # both outcomes summed from their own terms: 1 - p would lose the small ones to rounding
    exact = np.minimum(np.where(passes, pmf, 0).sum(axis=1), np.where(passes, 0, pmf).sum(axis=1))
    ours = np.exp(_logq_threshold(largest, threshold, sigma1, "discrete"))
    assert np.all(ours >= exact * (1 - 1e-12))


def _argmax_distribution(votes, mechanism, scale):
    """Exact output distribution of the discrete noisy arg max, ties split uniformly."""
    support, pmf = _pmf(mechanism, scale)
    keep = pmf > 1e-18  # the rest carries < 1e-15 in all: below the tolerance used
    support, pmf = support[keep], pmf[keep] / pmf[keep].sum()
    m = len(votes)
    grids = np.meshgrid(*[support + v for v in votes], indexing="ij")
    noisy = np.stack([g.ravel() for g in grids], axis=1)
    weight = np.ones(noisy.shape[0])
    for axis, g in enumerate(np.meshgrid(*[pmf] * m, indexing="ij")):
        weight = weight * g.ravel()
    is_max = noisy == noisy.max(axis=1, keepdims=True)
    share = is_max / is_max.sum(axis=1, keepdims=True)
    return weight @ share


@pytest.mark.parametrize(
    "votes, mechanism, scale",
    [
        ([30, 8, 2], "gaussian", 5.0),
        ([20, 4, 0], "gaussian", 4.0),
        ([12, 3], "gaussian", 2.0),
        ([9, 1], "gaussian", 1.3),
        ([40, 5, 5], "laplace", 2.0),
        ([25, 0, 0], "laplace", 1.5),
        ([14, 2], "laplace", 0.8),
    ],
)
def test_discrete_data_dependent_dominates_exact_divergence(votes, mechanism, scale):
    orders = np.array([1.5, 2.0, 3.0, 5.0, 8.0, 12.0])
    cost = pate_epsilon(np.atleast_2d(votes), mechanism=mechanism, noise_scale=scale,
                        delta=DELTA, orders=orders)  # noise="discrete" is the default
    assert np.any(cost.rdp_data_dependent < 0.9 * cost.rdp_data_independent)
    p = _argmax_distribution(votes, mechanism, scale)
    for neighbour in _neighbours(votes):
        p_prime = _argmax_distribution(neighbour, mechanism, scale)
        for order, bound in zip(cost.orders, cost.rdp_data_dependent):
            assert _renyi(p, p_prime, order) <= bound * (1 + 1e-9) + 1e-12


@pytest.mark.parametrize("top, threshold, sigma1", [(24, 15, 2.0), (3, 20, 4.0),
                                                      (20, 20, 1.0), (11, 9.5, 1.5)])
def test_discrete_threshold_step_dominates_exact_divergence(top, threshold, sigma1):
    votes = np.array([[top, 0]])  # the largest count is top
    orders = np.array([1.5, 2.0, 4.0, 10.0, 30.0])
    cost = pate_epsilon(votes, mechanism="gaussian", noise_scale=4.0, delta=DELTA,
                        threshold=threshold, threshold_noise_scale=sigma1,
                        answered=[False], orders=orders)
    support, pmf = _pmf("gaussian", sigma1)

    def outcome(m):
        passed = pmf[support >= math.ceil(threshold) - m].sum()
        return np.array([passed, 1 - passed])

    p = outcome(top)
    for m in (top - 1, top + 1):
        for order, bound in zip(cost.orders, cost.rdp_data_dependent):
            assert _renyi(p, outcome(m), order) <= bound * (1 + 1e-9) + 1e-12


@pytest.mark.parametrize("votes, mechanism, scale", [([3, 2, 2], "gaussian", 1.2),
                                                      ([4, 4], "laplace", 0.7),
                                                      ([5, 3, 0], "laplace", 1.5)])
def test_aggregator_draws_follow_the_exact_distribution(votes, mechanism, scale):
    # The sampler, the integer addition and the random tie-breaking together: a chi-square
    # test of 60,000 draws against the exact enumeration (ties are frequent at these scales).
    rng = np.random.default_rng(11)
    n = 60_000
    labels = noisy_argmax(np.tile(votes, (n, 1)), mechanism, scale, rng)
    observed = np.bincount(labels, minlength=len(votes))
    expected = n * _argmax_distribution(votes, mechanism, scale)
    assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_confident_gnmax_passes_at_the_exact_rate_with_integer_comparison():
    rng = np.random.default_rng(5)
    n, sigma1, threshold = 60_000, 1.5, 9.2  # passes iff 8 + Z >= 10
    labels = confident_gnmax(np.tile([8, 1], (n, 1)), threshold, sigma1, 0.5, rng)
    support, pmf = _pmf("gaussian", sigma1)
    p_pass = pmf[support >= 2].sum()
    passed = int((labels != NO_ANSWER).sum())
    assert abs(passed - n * p_pass) <= 5 * math.sqrt(n * p_pass * (1 - p_pass))
    assert set(np.unique(labels)) <= {NO_ANSWER, 0, 1}


@pytest.mark.parametrize("mechanism, scale", [("laplace", 20.0), ("gaussian", 40.0)])
def test_discrete_costs_a_little_more_than_continuous_data_dependently(mechanism, scale):
    votes = np.random.default_rng(0).multinomial(250, [0.9] + [0.1 / 9] * 9, size=100)
    discrete = pate_epsilon(votes, mechanism=mechanism, noise_scale=scale, delta=DELTA)
    continuous = pate_epsilon(votes, mechanism=mechanism, noise_scale=scale, delta=DELTA,
                              noise="continuous")
    # Data-independently the same up to the exact composition of each noise (PLD of the
    # discrete Gaussian against the closed-form Gaussian DP of the continuous one).
    assert discrete.epsilon_data_independent == pytest.approx(
        continuous.epsilon_data_independent, rel=1e-4)
    assert continuous.epsilon_data_dependent <= discrete.epsilon_data_dependent
    assert discrete.epsilon_data_dependent <= 1.05 * continuous.epsilon_data_dependent


@pytest.mark.parametrize("kwargs, name", [
    (dict(mechanism="gaussian", noise_scale=2.0**41), "noise_scale"),
    (dict(mechanism="laplace", noise_scale=2.0**53), "noise_scale"),
    (dict(mechanism="gaussian", noise_scale=40.0, threshold=10.0,
          threshold_noise_scale=2.0**41), "threshold_noise_scale"),
])
def test_noise_beyond_the_exact_samplers_is_refused_by_name(kwargs, name):
    with pytest.raises(ValueError, match=f"{name}=.*largest parameter"):
        pate_epsilon([[3, 1]], delta=DELTA, **kwargs)
    # the papers' continuous noise has no such limit
    pate_epsilon([[3, 1]], delta=DELTA, noise="continuous", **kwargs)


def test_the_classifier_refuses_it_before_training_teachers():
    from skprivate import PATEClassifier

    X = np.random.default_rng(0).normal(size=(100, 3))
    y = (X[:, 0] > 0).astype(int)
    clf = PATEClassifier(n_teachers=5, aggregator="gnmax", noise_scale=2.0**41)
    with pytest.raises(ValueError, match="noise_scale"):
        clf.fit(X[:80], y[:80], X_public=X[80:])
    assert not hasattr(clf, "classes_")
