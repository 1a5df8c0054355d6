"""The sanitised PATE epsilon: GNSS's cost and the smooth-sensitivity bound, checked
against computations that do not share its code."""

import itertools
import math

import numpy as np
import pytest
from dp_accounting import rdp as dp_rdp
from scipy import stats

from skprivate.accounting import gnss_rdp, pate_epsilon, pate_sanitized_epsilon
from skprivate.accounting._pate_smooth import (
    _rounded_gnss,
    _sanitization_grid,
    _value_and_sensitivity,
)
from skprivate.mechanisms import check_rng


def _gaussian_renyi(alpha, mu, var_p, var_q):
    """D_alpha(N(mu, var_p) || N(0, var_q)), Gil, Alajaji and Linder (2013), Table 2."""
    mixed = alpha * var_q + (1 - alpha) * var_p
    if mixed <= 0:
        return math.inf
    return alpha * mu**2 / (2 * mixed) + (
        0.5 * math.log(mixed) - 0.5 * (1 - alpha) * math.log(var_p) - 0.5 * alpha * math.log(var_q)
    ) / (1 - alpha)


@pytest.mark.parametrize("alpha, beta, sigma", [(2, 0.1, 3.0), (10, 0.045, 15.8), (20, 0.02, 5.0),
                                                (5, 0.09, 1.0)])
def test_gnss_bound_covers_the_exact_divergence_of_the_two_gaussians(alpha, beta, sigma):
    # F(D) = f + S sigma Z; a neighbour has |f - f'| <= min(S, S') and S'/S in [e^-beta, e^beta].
    # In units of S sigma: means differ by at most min(1, s)/sigma, variances 1 and s^2.
    worst = 0.0
    for s in np.exp(np.linspace(-beta, beta, 2001)):
        mu = min(1.0, s) / sigma
        worst = max(worst, _gaussian_renyi(alpha, mu, 1.0, s * s),
                    _gaussian_renyi(alpha, mu, s * s, 1.0))
    claimed = float(gnss_rdp([alpha], beta, sigma)[0])
    assert worst <= claimed
    assert claimed <= worst + beta + 1e-3  # and a tight one: loose by at most beta


def test_gnss_is_infinite_where_its_bound_does_not_hold():
    assert np.isinf(gnss_rdp([10.0], 0.06, 1.0)[0])  # e^{2 beta} > alpha / (alpha - 1)
    assert np.isfinite(gnss_rdp([10.0], 0.05, 1.0)[0])


def _random_neighbour(votes, rng):
    """Change one teacher's vote on every query (a row added to or removed from its data)."""
    out = votes.copy()
    for i in range(out.shape[0]):
        src = rng.choice(np.flatnonzero(out[i] > 0))
        out[i, src] -= 1
        out[i, rng.integers(out.shape[1])] += 1
    return out


def _adversarial_neighbour(votes):
    """Move one vote from the plurality to the runner-up on every query."""
    out = votes.copy()
    order = np.argsort(out, axis=1)
    rows = np.arange(out.shape[0])
    out[rows, order[:, -1]] -= 1
    out[rows, order[:, -2]] += 1
    return out


@pytest.mark.parametrize("noise", ["discrete", "continuous"])
@pytest.mark.parametrize("mechanism, scale, threshold", [("gaussian", 3.0, None),
                                                          ("laplace", 2.0, None),
                                                          ("gaussian", 3.0, 9.0)])
def test_smooth_sensitivity_bounds_changes_and_is_beta_smooth(mechanism, scale, threshold,
                                                               noise):
    rng = np.random.default_rng(0)
    n, order, beta = 12, 6.0, 0.05
    sigma1 = 2.0 if threshold is not None else None
    for trial in range(30):
        agree = rng.uniform(0.4, 1.0)
        votes = rng.multinomial(n, [agree, (1 - agree) / 2, (1 - agree) / 2], size=6)
        mask = np.ones(len(votes), dtype=bool)
        f, s, cap = _value_and_sensitivity(votes.astype(float), mask, mechanism, scale, order,
                                           beta, n, threshold, sigma1, noise)
        assert 0 <= f <= cap + 1e-12
        # walk several steps: at distance k the change from D is at most sum_j<k S(D_j)
        current, current_s, current_f = votes, s, f
        for step in range(4):
            nxt = _random_neighbour(current, rng) if step % 2 else _adversarial_neighbour(current)
            if (nxt < 0).any():
                break
            f2, s2, _ = _value_and_sensitivity(nxt.astype(float), mask, mechanism, scale, order,
                                               beta, n, threshold, sigma1, noise)
            assert abs(f2 - current_f) <= current_s + 1e-12  # local sensitivity covered
            assert s2 <= math.exp(beta) * current_s + 1e-12  # beta-smooth
            assert current_s <= math.exp(beta) * s2 + 1e-12
            current, current_s, current_f = nxt, s2, f2


@pytest.mark.parametrize("noise", ["discrete", "continuous"])
def test_exhaustive_neighbours_of_a_small_histogram(noise):
    # One query, 6 teachers, 3 classes: every neighbour (one vote moved) enumerated.
    n, order, beta = 6, 4.0, 0.1
    mask = np.ones(1, dtype=bool)
    for counts in itertools.product(range(n + 1), repeat=3):
        if sum(counts) != n:
            continue
        votes = np.array([counts], dtype=float)
        f, s, _ = _value_and_sensitivity(votes, mask, "gaussian", 1.0, order, beta, n, None, None,
                                         noise)
        for src, dst in itertools.permutations(range(3), 2):
            if counts[src] == 0:
                continue
            other = votes.copy()
            other[0, src] -= 1
            other[0, dst] += 1
            f2, s2, _ = _value_and_sensitivity(other, mask, "gaussian", 1.0, order, beta, n,
                                               None, None, noise)
            assert abs(f - f2) <= s + 1e-12
            assert s2 <= math.exp(beta) * s + 1e-12


@pytest.mark.parametrize("noise", ["discrete", "continuous"])
def test_released_value_is_an_upper_bound_of_the_data_dependent_rdp_before_noise(noise):
    votes = np.random.default_rng(1).multinomial(250, [0.85, 0.1, 0.05], size=200)
    order = 9.0
    f, _, cap = _value_and_sensitivity(votes.astype(float), np.ones(200, dtype=bool),
                                       "gaussian", 40.0, order, 0.05, 250, None, None, noise)
    exact = pate_epsilon(votes, mechanism="gaussian", noise_scale=40.0, delta=1e-5,
                         orders=[order], noise=noise)
    assert exact.rdp_data_dependent[0] <= f + 1e-12
    assert f < cap  # and it still gains over the data-independent curve


def test_sanitised_epsilon_is_near_the_noiseless_value_and_random_around_it():
    votes = np.random.default_rng(0).multinomial(250, [0.9, 0.1], size=300)
    params = dict(mechanism="gaussian", noise_scale=40.0, delta=1e-5, order=8.0,
                  beta=0.45 / 8, sigma=5 * math.sqrt(8))
    draws = [pate_sanitized_epsilon(votes, random_state=seed, **params).epsilon
             for seed in range(40)]
    noiseless = pate_sanitized_epsilon(votes, random_state=0, **(params | {"sigma": 1e-9}))
    assert np.std(draws) > 0
    exact = pate_epsilon(votes, mechanism="gaussian", noise_scale=40.0, delta=1e-5)
    # the release costs something: its centre is above the exact data-dependent epsilon, and
    # far below the data-independent one in this high-consensus regime
    assert exact.epsilon_data_dependent < np.median(draws) < exact.epsilon_data_independent
    assert noiseless.sanitization_rdp > 0


def test_bad_order_and_beta_are_refused_with_the_fix():
    votes = np.array([[8, 2], [9, 1]])
    with pytest.raises(ValueError, match="no finite cost"):
        pate_sanitized_epsilon(votes, mechanism="gaussian", noise_scale=2.0, delta=1e-5,
                               order=10, beta=0.06, sigma=3.0)
    with pytest.raises(ValueError, match="n_teachers"):
        pate_sanitized_epsilon(votes, mechanism="gaussian", noise_scale=2.0, delta=1e-5,
                               order=4, beta=0.05, sigma=3.0, n_teachers=5)


# --- the release on a power-of-two grid with exact integer noise (no floating-point noise) --


def test_sanitised_rdp_lies_on_the_public_grid_and_its_cost_is_unchanged():
    votes = np.random.default_rng(0).multinomial(250, [0.9, 0.1], size=300)
    params = dict(mechanism="gaussian", noise_scale=40.0, delta=1e-5, order=8.0,
                  beta=0.45 / 8, sigma=5 * math.sqrt(8))
    for seed in range(5):
        out = pate_sanitized_epsilon(votes, random_state=seed, **params)
        gamma = _sanitization_grid(out.rdp_cap)
        assert gamma == 2.0 ** math.floor(math.log2(min(out.rdp_cap, 1.0) * 2.0**-20))
        # a multiple of gamma, or a clipping bound (0 or the public cap); the old
        # value + S sigma N(0, 1) in float64 lands on this grid with probability ~0
        on_grid = (out.rdp_sanitized / gamma) % 1 == 0
        assert on_grid or out.rdp_sanitized in (0.0, out.rdp_cap)
        # the cost of the release is the continuous GNSS's, and epsilon converts it as before
        assert out.sanitization_rdp == gnss_rdp([8.0], 0.45 / 8, 5 * math.sqrt(8))[0]
        expected, _ = dp_rdp.compute_epsilon([8.0], [out.rdp_sanitized + out.sanitization_rdp],
                                             1e-5)
        assert out.epsilon == pytest.approx(expected, rel=1e-12)


def _rounded_gaussian_pmf(m, std):
    return stats.norm.cdf((m + 0.5) / std) - stats.norm.cdf((m - 0.5) / std)


def test_rounded_gnss_has_the_law_of_the_rounded_continuous_gnss():
    # value off the grid; S = 2 gamma, so the smooth bound S' = S + gamma = 3 gamma and the
    # noise is round(N(0, (sigma S' / gamma)**2)) = round(N(0, 9)) grid steps, around
    # round(value / gamma): chi-square against that exact pmf (an independent computation)
    cap = 1.0
    gamma = _sanitization_grid(cap)
    assert gamma == 2.0**-20
    value, sigma = 0.5 + 0.3 * gamma, 1.0
    rng = check_rng(0)
    draws = np.array([_rounded_gnss(value, 2 * gamma, sigma, cap, rng) for _ in range(1500)])
    steps = draws / gamma - round(value / gamma)
    assert np.all(steps % 1 == 0)
    edges = np.arange(-7, 8)  # bins ..., -7], [-6], ..., [6], [7, ...
    observed = np.array([np.sum(steps <= -7)] + [np.sum(steps == m) for m in edges[1:-1]]
                        + [np.sum(steps >= 7)])
    std = sigma * 3.0
    probs = np.array([stats.norm.cdf(-6.5 / std)]
                     + [_rounded_gaussian_pmf(m, std) for m in edges[1:-1]]
                     + [stats.norm.sf(6.5 / std)])
    assert stats.chisquare(observed, probs / probs.sum() * observed.sum()).pvalue > 1e-3
    # a wrong scale (the smooth bound not raised by gamma: std 2) is told apart
    wrong = np.array([stats.norm.cdf(-6.5 / 2)] + [_rounded_gaussian_pmf(m, 2.0)
                                                  for m in edges[1:-1]]
                     + [stats.norm.sf(6.5 / 2)])
    assert stats.chisquare(observed, wrong / wrong.sum() * observed.sum()).pvalue < 1e-6


def test_rounded_gnss_with_a_vanishing_smooth_bound_keeps_at_least_one_grid_step():
    # S = 0 (every teacher agrees far beyond the gaps): S' = max(gamma, gamma / sigma), so
    # the integer noise's variance is max(sigma**2, 1) grid steps: never below 1, where the
    # exact sampler accepts often (below about 1/4 it would run for ever)
    cap = 3.0
    gamma = _sanitization_grid(cap)
    rng = check_rng(1)
    for sigma, variance in [(7.0, 49.0), (0.25, 1.0)]:
        draws = np.array([_rounded_gnss(1.0, 0.0, sigma, cap, rng) for _ in range(300)])
        steps = (draws - 1.0) / gamma
        assert np.all(steps % 1 == 0)
        # round(N(0, v)) has variance v + 1/12 - ... for v >= 1
        assert 0.7 * variance < steps.var() < 1.4 * variance
    assert _rounded_gnss(0.0, 0.0, 7.0, 0.0, rng) == 0.0  # nothing to release: cap 0
