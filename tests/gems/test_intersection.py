"""The intersection of balls: minimax against an independent primal solve, hinge descent."""

import numpy as np
import pytest
from scipy.optimize import minimize

from skprivate.gems._intersection import ball_intersection


def _primal_minimax(centers, radii):
    """min t s.t. ||w - c_k|| <= t r_k, solved by SLSQP in (w, t): independent of the dual."""
    n_dims = centers.shape[1]
    constraints = [
        {"type": "ineq", "fun": lambda x, k=k: (x[-1] * radii[k]) ** 2
         - np.sum((x[:n_dims] - centers[k]) ** 2)}
        for k in range(len(radii))
    ]
    x0 = np.r_[centers.mean(axis=0), 10.0 * np.max(np.ptp(centers, axis=0) + 1)]
    result = minimize(lambda x: x[-1], x0, method="SLSQP", constraints=constraints,
                      options={"ftol": 1e-14, "maxiter": 2000})
    return result.x[:n_dims], result.x[-1]


@pytest.mark.parametrize("seed", range(6))
def test_minimax_matches_a_primal_solve(seed):
    rng = np.random.default_rng(seed)
    n_balls, n_dims = rng.integers(2, 6), rng.integers(2, 12)
    centers = rng.normal(size=(n_balls, n_dims)) * 2 + 3
    radii = rng.uniform(0.5, 3.0, size=n_balls)
    point, margin = ball_intersection(centers, radii)
    w, t = _primal_minimax(centers, radii)
    assert 1 - margin == pytest.approx(t, rel=1e-6)
    np.testing.assert_allclose(point, w, atol=1e-4 * (1 + np.abs(w).max()))


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
