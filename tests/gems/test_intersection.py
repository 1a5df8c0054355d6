"""The intersection of balls: minimax certified by weak duality and checked against a bounded
primal solve, hinge descent."""

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize

from skprivate.gems._intersection import ball_intersection


def _primal_minimax(centers, radii):
    """A feasible point of min_w max_k ||w - c_k|| / r_k from SLSQP in (w, t): no dual used.

    The problem is bounded (the minimiser lies in the convex hull of the centres, so in
    their bounding box, and 0 <= t <= the ratio at the mean), so no version of the solver
    can walk off to t = -inf as the unbounded squared formulation allowed (t -> -8.5e30
    under scipy 1.17.1). Its answer is only trusted as a point: the value returned is the
    true largest ratio at that point, whatever the solver reports.
    """
    n_dims = centers.shape[1]
    constraints = [
        {"type": "ineq", "fun": lambda x, k=k: (x[-1] * radii[k]) ** 2
         - np.sum((x[:n_dims] - centers[k]) ** 2)}
        for k in range(len(radii))
    ]
    mean = centers.mean(axis=0)
    t_mean = np.max(np.linalg.norm(mean - centers, axis=1) / radii)
    bounds = [*zip(centers.min(axis=0), centers.max(axis=0)), (0.0, t_mean)]
    result = minimize(lambda x: x[-1], np.r_[mean, t_mean], method="SLSQP", bounds=bounds,
                      constraints=constraints, options={"ftol": 1e-14, "maxiter": 2000})
    w = np.clip(result.x[:n_dims], centers.min(axis=0), centers.max(axis=0))
    w = np.where(np.isfinite(w), w, mean)  # a solver that broke down gives the mean back
    return w, np.max(np.linalg.norm(w - centers, axis=1) / radii)


def _dual_lower_bound(centers, radii, point):
    """A lower bound on min_w max_k ||w - c_k|| / r_k, valid for any multipliers.

    Weak duality: for lambda on the simplex and a_k = 1 / r_k^2,
    max_k a_k ||w - c_k||^2 >= min_w sum_k lambda_k a_k ||w - c_k||^2 for every w, and
    the right side is closed form. The multipliers are read off the KKT condition at the
    point (it is a convex combination of the centres of the balls it touches): for every
    subset of the balls, the affine least-squares weights that rebuild the point, clipped
    to the simplex. Each subset gives a valid bound (poor multipliers only loosen it); the
    largest is kept. Only LAPACK's least squares is used, no iterative solver (scipy's nnls
    changed algorithm, and accuracy, between 1.11 and 1.15).
    """
    a = 1.0 / radii**2
    best = 0.0
    for size in range(1, len(radii) + 1):
        for subset in itertools.combinations(range(len(radii)), size):
            c = centers[list(subset)]
            # beta with sum(beta) = 1 and beta @ c ~ point: c_0 + sum_j gamma_j (c_j - c_0)
            gamma = (np.linalg.lstsq((c[1:] - c[0]).T, point - c[0], rcond=None)[0]
                     if size > 1 else np.zeros(0))
            beta = np.maximum(np.r_[1.0 - gamma.sum(), gamma], 0.0)
            if beta.sum() <= 0:
                continue
            lam = np.zeros(len(radii))
            lam[list(subset)] = beta / beta.sum() / a[list(subset)]
            lam /= lam.sum()
            w = (a * lam) @ centers / (a * lam).sum()
            best = max(best, np.sqrt(lam @ (a * np.sum((w - centers) ** 2, axis=1))))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_minimax_is_certified_optimal_and_no_worse_than_a_primal_solve(seed):
    rng = np.random.default_rng(seed)
    n_balls, n_dims = rng.integers(2, 6), rng.integers(2, 12)
    centers = rng.normal(size=(n_balls, n_dims)) * 2 + 3
    radii = rng.uniform(0.5, 3.0, size=n_balls)
    point, margin = ball_intersection(centers, radii)
    value = 1 - margin
    lower = _dual_lower_bound(centers, radii, point)
    # Certified: lower <= optimum <= value, and the gap is below 1e-6 of the optimum.
    assert lower <= value * (1 + 1e-12)
    assert value <= lower * (1 + 1e-6)
    # The independent primal solve finds no better point (one-sided: a solver that stops
    # early cannot fail the test, one that finds a better point can).
    w, t = _primal_minimax(centers, radii)
    assert value <= t * (1 + 1e-6)
    assert lower <= t * (1 + 1e-12)
    # max_k a_k ||w - c_k||^2 is 2 min(a)-strongly convex, so both points lie within
    # sqrt((f - lower^2) / min a) of the unique minimiser.
    min_a = np.min(1.0 / radii**2)
    reach = np.sqrt(max(value**2 - lower**2, 0) / min_a) + np.sqrt(max(t**2 - lower**2, 0) / min_a)
    assert np.linalg.norm(point - w) <= reach + 1e-9 * (1 + np.abs(w).max())


def test_two_balls_give_the_radius_weighted_average():
    rng = np.random.default_rng(0)
    c = rng.normal(size=(2, 7))
    r = np.array([0.7, 2.1])
    point, margin = ball_intersection(c, r)
    np.testing.assert_allclose(point, (r[1] * c[0] + r[0] * c[1]) / r.sum(), atol=1e-7)
    assert 1 - margin == pytest.approx(np.linalg.norm(c[0] - c[1]) / r.sum(), rel=1e-7)


def test_margin_sign_says_whether_the_balls_meet():
    centers = np.array([[0.0, 0.0], [3.0, 0.0], [1.5, 2.0]])
    _, apart = ball_intersection(centers, [1.0, 1.0, 1.0])
    _, overlapping = ball_intersection(centers, [2.5, 2.5, 2.5])
    assert apart < 0 < overlapping


def test_far_from_the_origin_and_in_high_dimension():
    # Only the Gram matrix of the (shifted) centres is used: offsets and d do not matter.
    rng = np.random.default_rng(1)
    centers = rng.normal(size=(3, 5000)) * 0.01 + 1e4
    radii = np.array([0.5, 0.6, 0.7])
    point, margin = ball_intersection(centers, radii)
    ratios = np.linalg.norm(point - centers, axis=1) / radii
    assert ratios.max() == pytest.approx(1 - margin)
    # At the minimax point the active balls are at the same relative distance.
    assert np.ptp(ratios[ratios > ratios.max() - 1e-3]) < 1e-5


def test_hinge_stops_inside_every_ball():
    rng = np.random.default_rng(2)
    centers = rng.normal(size=(4, 6))
    radii = np.full(4, 2.5)
    point, margin = ball_intersection(centers, radii, method="hinge")
    assert margin >= 0
    assert np.all(np.linalg.norm(point - centers, axis=1) <= radii + 1e-12)
    # minimax goes deeper than the first feasible point
    assert ball_intersection(centers, radii)[1] >= margin


def test_one_ball_is_its_centre():
    point, margin = ball_intersection([[1.0, 2.0]], [0.5])
    np.testing.assert_array_equal(point, [1.0, 2.0])
    assert margin == 1.0
