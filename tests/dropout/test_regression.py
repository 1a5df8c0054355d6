"""The dropout least-squares identity and its exact ball-constrained minimiser."""

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize

from skprivate.dropout._regression import (
    dropout_minimiser,
    dropout_objective,
    dropout_penalty_factor,
)


@pytest.mark.parametrize("q", [0.5, 0.3, 0.8])
def test_expected_dropout_loss_by_exact_enumeration(q):
    # E_b (<x*b/q, theta> - y)^2 = (y - <x, theta>)^2 + c sum_j x_j^2 theta_j^2, c = (1-q)/q
    rng = np.random.default_rng(0)
    p = 5
    x, theta, y = rng.normal(size=p), rng.normal(size=p), rng.normal()
    expected = 0.0
    for mask in itertools.product([0, 1], repeat=p):
        b = np.array(mask)
        prob = np.prod(np.where(b == 1, q, 1 - q))
        expected += prob * (np.dot(x * b / q, theta) - y) ** 2
    c = dropout_penalty_factor(q)
    closed = (y - x @ theta) ** 2 + c * np.sum(x**2 * theta**2)
    assert expected == pytest.approx(closed, rel=1e-12)


@pytest.mark.parametrize("K", [1, 3])
@pytest.mark.parametrize("radius", [None, 0.3, 100.0])
def test_minimiser_matches_a_generic_solver(K, radius):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 4))
    X[:, 0] = 1.0  # an intercept-like column; rank-deficient copies below
    X = np.hstack([X, X[:, :1]])
    Y = rng.normal(size=(30, K)) if K > 1 else rng.normal(size=30)
    theta = dropout_minimiser(X, Y, 1.0, 0.5, radius=radius)
    shape = theta.shape

    def f(v):
        return dropout_objective(v.reshape(shape), X, Y, 1.0, 0.5)

    cons = () if radius is None else (
        {"type": "ineq", "fun": lambda v: radius**2 - v @ v},
    )
    ref = minimize(f, np.zeros(theta.size), constraints=cons, method="SLSQP",
                   options={"ftol": 1e-14, "maxiter": 1000}).x
    if radius is not None:
        # Trust SLSQP's point only once it is feasible: an SLSQP that ends slightly outside
        # the ball (which depends on the scipy version) could otherwise beat the true optimum.
        ref = ref * min(1.0, radius / max(np.linalg.norm(ref), 1e-300))
    assert f(theta.ravel()) <= f(ref) + 1e-7 * (1 + abs(f(ref)))
    if radius is not None:
        assert np.linalg.norm(theta) <= radius * (1 + 1e-12)


def test_minimiser_is_finite_with_an_all_zero_column():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(10, 3))
    X[:, 1] = 0.0
    theta = dropout_minimiser(X, rng.normal(size=10), 1.0, 0.0, radius=None)
    assert np.all(np.isfinite(theta)) and theta[1] == 0.0
