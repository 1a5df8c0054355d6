"""The constants of the dropout propose-test-release, checked without the derivation.

The sensitivity bound of the minimiser (Lemma 2 of ``skprivate.dropout._ptr``) on random
and adversarially searched add/remove neighbours, the sensitivity of the test statistic
(Lemma 1), and the failure probability of the released lower bound, by Monte Carlo.
"""

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from skprivate.dropout._ptr import (
    leave_one_out_statistic,
    lower_confidence_margin,
    minimiser_sensitivity,
    release_test_statistic,
)
from skprivate.dropout._regression import dropout_minimiser

B_INF = 1.0


def _setup(rng, n, p, K, design):
    X = rng.uniform(-B_INF, B_INF, size=(n, p))
    if design == "rank_one":
        X = np.outer(rng.uniform(-1, 1, n), rng.uniform(-1, 1, p)) * B_INF
    elif design == "rare":
        X[rng.random((n, p)) < 0.8] = 0.0
    elif design == "binary":
        X = (rng.random((n, p)) < 0.5) * B_INF
    X = np.hstack([X, np.full((n, 1), B_INF)])  # intercept column, dropped out too
    Y = rng.uniform(-1, 1, size=(n, K))
    Y /= max(1.0, np.linalg.norm(Y, axis=1).max())  # ||y|| <= 1 = target norm
    return X, Y


def _bound(X1, X2, *, c, alpha, radius, p):
    # Rows lie in the box [-b, b]^p plus the intercept column b: ||x|| <= b sqrt(p + 1).
    row_norm = B_INF * math.sqrt(p + 1)
    ell = max(leave_one_out_statistic(X1, B_INF**2), leave_one_out_statistic(X2, B_INF**2))
    return minimiser_sensitivity(
        ell, row_norm=row_norm, target_norm=1.0, coef_bound=radius, unit=B_INF**2,
        c=c, alpha=alpha,
    )


def _ratio(X, Y, z, yz, *, c, alpha, radius):
    p = X.shape[1] - 1
    X2, Y2 = np.vstack([X, z]), np.vstack([Y, yz])
    bound = _bound(X, X2, c=c, alpha=alpha, radius=radius, p=p)
    if not math.isfinite(bound):
        return 0.0
    gap = np.linalg.norm(
        dropout_minimiser(X, Y, c, alpha, radius) - dropout_minimiser(X2, Y2, c, alpha, radius)
    )
    return gap / bound


@pytest.mark.parametrize("design", ["uniform", "rank_one", "rare", "binary"])
def test_sensitivity_bound_holds_on_random_neighbours(design):
    rng = np.random.default_rng(abs(hash(design)) % 2**32)
    worst = 0.0
    for trial in range(150):
        n, p, K = rng.integers(2, 25), rng.integers(1, 5), rng.integers(1, 4)
        c = rng.choice([1.0, 0.25, 3.0])
        alpha = rng.choice([0.0, 0.0, 0.5])
        radius = rng.choice([0.5, 2.0, 10.0])
        X, Y = _setup(rng, n, p, K, design)
        z = np.append(rng.uniform(-B_INF, B_INF, p), B_INF)
        if rng.random() < 0.5:
            z[:-1] = np.sign(z[:-1]) * B_INF  # a corner: the largest row
        yz = rng.uniform(-1, 1, K)
        yz /= max(1.0, np.linalg.norm(yz))
        worst = max(worst, _ratio(X, Y, z, yz, c=c, alpha=alpha, radius=radius))
        # removing a row is the same relation read backwards
        worst = max(worst, _ratio(X[1:], Y[1:], X[0], Y[0], c=c, alpha=alpha, radius=radius))
    assert worst <= 1.0


@pytest.mark.parametrize("seed", range(4))
def test_sensitivity_bound_holds_on_adversarial_neighbours(seed):
    # Search the added row (features and target) that moves the minimiser most, relative
    # to the bound, from several starts, on small data sets where the bound is tightest.
    rng = np.random.default_rng(100 + seed)
    n, p, K = 6, 2, 1 + seed % 2
    X, Y = _setup(rng, n, p, K, "uniform" if seed < 2 else "rare")
    c, alpha, radius = 1.0, 0.0, [0.5, 3.0][seed % 2]

    def negative_ratio(v):
        z = np.append(np.clip(v[:p], -B_INF, B_INF), B_INF)
        yz = np.clip(v[p:], -1, 1)
        yz /= max(1.0, np.linalg.norm(yz))
        return -_ratio(X, Y, z, yz, c=c, alpha=alpha, radius=radius)

    worst = 0.0
    for _ in range(6):
        start = rng.uniform(-1, 1, p + K)
        res = minimize(negative_ratio, start, method="Nelder-Mead",
                       options={"maxiter": 300, "xatol": 1e-6, "fatol": 1e-9})
        worst = max(worst, -res.fun)
    assert 0.0 < worst <= 1.0


def test_statistic_moves_by_at_most_one_unit_and_bounds_the_smaller_data_set():
    rng = np.random.default_rng(3)
    for _ in range(500):
        n, p = rng.integers(1, 12), rng.integers(1, 5)
        X = rng.uniform(-1, 1, size=(n, p)) * (rng.random((n, p)) < rng.random())
        z = rng.uniform(-1, 1, p) * (rng.random(p) < 0.5)
        if rng.random() < 0.3:
            z = np.sign(rng.uniform(-1, 1, p))
        small = leave_one_out_statistic(X, 1.0)
        large = leave_one_out_statistic(np.vstack([X, z]), 1.0)
        assert -1e-12 <= large - small <= 1.0 + 1e-12
        col_min = np.min(np.sum(X**2, axis=0))
        assert max(small, large) <= col_min + 1e-12


def test_statistic_adversarial_row_never_moves_it_more_than_one():
    rng = np.random.default_rng(4)
    X = rng.uniform(-1, 1, size=(8, 3))
    base = leave_one_out_statistic(X, 1.0)
    res = minimize(
        lambda v: -abs(leave_one_out_statistic(np.vstack([X, np.clip(v, -1, 1)]), 1.0) - base),
        np.ones(3), method="Nelder-Mead",
    )
    assert -res.fun <= 1.0 + 1e-12


@pytest.mark.parametrize("epsilon1, delta1", [(0.5, 0.05), (1.0, 0.01), (0.2, 0.1)])
def test_lower_bound_exceeds_the_statistic_with_probability_delta1(epsilon1, delta1):
    # P(lambda_noisy - margin > Lambda) must be delta1 up to one grid step (Monte Carlo, 5
    # sigma), at the statistic whose rounding moves it up most (+gamma/2, the worst case).
    from skprivate.mechanisms import discrete_laplace_noise, granular_laplace_plan
    from skprivate.mechanisms._secure import _round_to_grid

    plan = granular_laplace_plan(1.0, epsilon1)
    statistic = plan.gamma * (1000 - 0.5)  # rounds up to 1000 gamma
    draws = 200_000
    z = discrete_laplace_noise(plan.scale, size=draws, random_state=5)
    released = plan.gamma * (_round_to_grid(statistic, plan.gamma) + z)
    single = release_test_statistic(statistic, epsilon1, np.random.default_rng(5))
    assert (single / plan.gamma) % 1 == 0  # the estimator's path releases on the same grid
    rate = np.mean(released - lower_confidence_margin(epsilon1, delta1) > statistic)
    assert abs(rate - delta1) <= 5 * math.sqrt(delta1 * (1 - delta1) / draws)
    # and exactly: the tail of the discrete Laplace at the margin is at most delta1, and
    # within one grid step of it
    b = float(plan.scale)
    p = math.exp(-1.0 / b)
    j = round(lower_confidence_margin(epsilon1, delta1) / plan.gamma + 0.5)
    assert p**j / (1 + p) <= delta1 < p ** (j - 1) / (1 + p)


def test_stability_step_of_lemma_2_is_nearly_tight():
    # The step ||T - T'|| <= ||grad h_z(T')|| / (2 mu), mu = c min_j S_j(D) + alpha, with
    # the triangle inequalities of the gradient bound left out: it must hold, and on
    # dropout-dominated problems (large c, equal column sums) it is nearly attained, so a
    # constant that were too small by even 20 % would be caught here.
    rng = np.random.default_rng(6)
    worst = 0.0
    for _ in range(300):
        n, p = rng.integers(3, 15), rng.integers(1, 4)
        c = rng.choice([1.0, 10.0, 100.0])
        X = np.sign(rng.uniform(-1, 1, size=(n, p)))  # every column sum equals n
        Y = rng.uniform(-1, 1, size=(n, 1))
        z = np.sign(rng.uniform(-1, 1, size=p))
        yz = rng.uniform(-1, 1, size=1)
        T = dropout_minimiser(X, Y, c, 0.0)
        T2 = dropout_minimiser(np.vstack([X, z]), np.vstack([Y, yz]), c, 0.0)
        r = yz - T2.T @ z
        grad = -2 * np.outer(z, r) + 2 * c * (z * z)[:, None] * T2
        mu = c * np.min(np.sum(X**2, axis=0))
        ratio = np.linalg.norm(T - T2) / (np.linalg.norm(grad) / (2 * mu))
        assert ratio <= 1.0 + 1e-9
        worst = max(worst, ratio)
    assert worst > 0.8
