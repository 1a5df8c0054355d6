"""A point common to several balls: the weighted Chebyshev centre (minimax) or hinge descent.

Both work in the affine hull of the centres, through their Gram matrix only, so the cost
depends on the number of balls, not on the number of model parameters.
"""

import numpy as np
from scipy.optimize import minimize

from ..exceptions import NoIntersectionError

__all__ = ["NoIntersectionError", "ball_intersection"]

# The authors' hinge descent (neelguha/gems, utils/epsilon_space.py): plain gradient steps
# of this size from the mean of the centres, stopped when every violation is zero.
_HINGE_LEARNING_RATE = 1e-3
_HINGE_MAX_STEPS = 100_000


def _centred_gram(centers):
    # Shifting by the mean leaves distances unchanged and keeps the Gram entries small,
    # which avoids cancellation when the centres are far from the origin but close together.
    shifted = centers - centers.mean(axis=0)
    return shifted @ shifted.T


def _squared_distances(gram, beta):
    """Squared distance from ``sum_j beta_j c_j`` (sum(beta) == 1) to every centre."""
    g_beta = gram @ beta
    return np.maximum(np.diag(gram) - 2.0 * g_beta + beta @ g_beta, 0.0)


def _minimax_weights(gram, radii):
    """Barycentric weights of argmin_w max_k ||w - c_k|| / r_k.

    The problem min_{w, s} s subject to a_k ||w - c_k||^2 <= s, with a_k = 1 / r_k^2, is
    convex; its Lagrange dual is the concave program over the simplex

        max_lambda g(lambda) = sum_k a_k lambda_k ||c_k||^2 - ||sum_k a_k lambda_k c_k||^2 / A,

    with A = sum_k a_k lambda_k, and the primal solution is w = sum_k a_k lambda_k c_k / A.
    The gradient is dg/dlambda_k = a_k ||w - c_k||^2, so at the optimum every ball with
    lambda_k > 0 is at the same relative distance t* = sqrt(g*). Slater's condition holds,
    so there is no duality gap. Only the Gram matrix of the centres is needed.
    """
    n = len(radii)
    if n == 1:
        return np.ones(1)
    a = 1.0 / np.asarray(radii, dtype=float) ** 2
    # Scale so that the objective is of order one whatever the units of the weights.
    scale = float(np.max(np.diag(gram) * a)) or 1.0
    diag = np.diag(gram)

    def beta_of(lam):
        weights = a * lam
        return weights / weights.sum()

    def negative_dual(lam):
        lam = np.maximum(lam, 0.0)
        if lam.sum() <= 0:
            return 0.0, np.zeros(n)
        beta = beta_of(lam)
        d2 = _squared_distances(gram, beta)
        value = (a * lam) @ diag - beta @ gram @ beta * (a * lam).sum()
        return -value / scale, -(a * d2) / scale

    # Start at lambda proportional to 1 / a (the plain mean of the centres).
    start = (1.0 / a) / (1.0 / a).sum()
    result = minimize(
        negative_dual,
        start,
        jac=True,
        method="SLSQP",
        bounds=[(0.0, 1.0)] * n,
        constraints=[{"type": "eq", "fun": lambda lam: lam.sum() - 1.0,
                      "jac": lambda lam: np.ones_like(lam)}],
        options={"ftol": 1e-15, "maxiter": 500},
    )
    lam = np.maximum(result.x, 0.0)
    if lam.sum() <= 0:  # pragma: no cover - SLSQP keeps the simplex constraint
        lam = start
    return beta_of(lam / lam.sum())


def _hinge_weights(gram, radii):
    """Barycentric weights of the authors' hinge descent, run in the centres' affine hull.

    Gradient descent on sum_k max(0, ||w - c_k|| / r_k - 1) from the mean of the centres.
    A step on w is a combination of the vectors w - c_k, so w stays in the affine hull and
    the descent runs on its barycentric weights: N numbers instead of d.
    """
    n = len(radii)
    radii = np.asarray(radii, dtype=float)
    beta = np.full(n, 1.0 / n)
    eye = np.eye(n)
    for _ in range(_HINGE_MAX_STEPS):
        dist = np.sqrt(_squared_distances(gram, beta))
        violated = dist > radii
        if not violated.any():
            break
        coef = np.where(violated, 1.0 / (radii * np.maximum(dist, 1e-300)), 0.0)
        beta = beta - _HINGE_LEARNING_RATE * (coef.sum() * beta - coef @ eye)
    return beta


def ball_intersection(centers, radii, method="minimax"):
    """A point common to the balls ``||w - centers[k]|| <= radii[k]``, if there is one.

    Parameters
    ----------
    centers : array-like of shape (n_balls, n_dims)
        Centres of the balls.
    radii : array-like of shape (n_balls,)
        Their radii, all positive.
    method : {"minimax", "hinge"}, default="minimax"
        ``"minimax"``: the point minimising the largest ratio ``||w - c_k|| / r_k``, solved
        exactly through its dual over the simplex. ``"hinge"``: the authors' gradient descent
        on the violations, started at the mean of the centres; it stops at the first point
        inside every ball, usually on a boundary.

    Returns
    -------
    point : ndarray of shape (n_dims,)
        The point found.
    margin : float
        ``1 - max_k ||point - c_k|| / r_k``: positive when the point lies strictly inside
        every ball (the larger, the deeper), negative when the balls have no common point.

    Examples
    --------
    >>> from skprivate.gems._intersection import ball_intersection
    >>> point, margin = ball_intersection([[0.0, 0.0], [3.0, 0.0]], [1.0, 2.0])
    >>> point.round(6).tolist(), round(margin, 6)
    ([1.0, 0.0], 0.0)
    """
    centers = np.asarray(centers, dtype=float)
    radii = np.asarray(radii, dtype=float)
    gram = _centred_gram(centers)
    if method == "minimax":
        beta = _minimax_weights(gram, radii)
    else:
        beta = _hinge_weights(gram, radii)
    point = beta @ centers
    ratio = np.linalg.norm(point - centers, axis=1) / radii
    return point, float(1.0 - ratio.max())
