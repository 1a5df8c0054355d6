"""Least-squares dropout objective and its exact (ball-constrained) minimiser.

With keep probability ``q`` and rescaling by ``1 / q``, the expected squared loss of one
row under dropout is (Jain et al. 2015, Lemma 4 / Corollary 9 for ``q = 1/2``; Wager et al.
2013 for general ``q``)::

    E_b (<x * b / q, theta> - y)^2 = (y - <x, theta>)^2 + c * sum_j x_j^2 theta_j^2,
    c = (1 - q) / q,

since ``E b_j / q = 1`` and ``Var(b_j / q) = (1 - q) / q``; ``tests/dropout`` checks it by
exact enumeration of the masks. Summed over rows, with a ridge term ``alpha ||theta||^2``
and one column per output, the objective is the quadratic
``F(Theta) = ||Y - X Theta||_F^2 + sum_k theta_k^T (c diag(X^T X) + alpha I) theta_k``,
whose Hessian ``2 (X^T X + c diag(X^T X) + alpha I)`` is at least
``2 (c min_j sum_i x_ij^2 + alpha) I``: dropout alone makes it strongly convex as soon as
every column is non-zero, whatever the rank of ``X``.
"""

import numpy as np
from scipy.optimize import brentq

__all__ = ["dropout_penalty_factor", "dropout_minimiser", "dropout_objective"]


def dropout_penalty_factor(keep_prob):
    """``c = (1 - q) / q``: the weight of ``sum_j x_j^2 theta_j^2`` in the expected loss."""
    return (1.0 - float(keep_prob)) / float(keep_prob)


def dropout_objective(theta, X, Y, c, alpha=0.0):
    """``F(Theta)`` above, summed over rows; ``theta`` is (p,) or (p, K), ``Y`` alike."""
    theta = np.asarray(theta, dtype=float)
    residual = Y - X @ theta
    col_sq = np.einsum("ij,ij->j", X, X)
    penalty = c * (col_sq @ (theta**2)) + alpha * (theta**2).sum(axis=0)
    return float(np.sum(residual**2) + np.sum(penalty))


def dropout_minimiser(X, Y, c, alpha=0.0, radius=None):
    """Exact minimiser of ``F`` over ``{||Theta||_F <= radius}`` (all of R^p if None).

    ``X`` is (n, p) and ``Y`` (n,) or (n, K). The problem is a strongly convex quadratic on
    a ball: its KKT point is ``(A + nu I)^{-1} X^T Y`` with ``A = X^T X + c diag(X^T X) +
    alpha I`` and the one multiplier ``nu >= 0`` (shared by all outputs) that is 0 when the
    unconstrained minimiser lies in the ball and otherwise puts it on the sphere; ``nu`` is
    found by a 1-D root search on the eigen-decomposition of ``A``.
    """
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    vector = Y.ndim == 1
    Y2 = Y[:, None] if vector else Y
    col_sq = np.einsum("ij,ij->j", X, X)
    A = X.T @ X
    A[np.diag_indices_from(A)] += c * col_sq + alpha
    eigval, eigvec = np.linalg.eigh(A)
    scale = max(float(eigval.max(initial=0.0)), 1.0)
    # Curvature below rounding is zero curvature; there the gradient is zero too (up to
    # rounding) when the column is all zero, and such directions stay at zero.
    eigval = np.where(eigval > 1e-12 * scale, eigval, 0.0)
    proj = eigvec.T @ (X.T @ Y2)
    flat = eigval[:, None] == 0.0
    proj = np.where(flat & (np.abs(proj) <= 1e-9 * (1.0 + np.abs(proj).max(initial=0.0))),
                    0.0, proj)

    def solve(nu):
        denom = eigval[:, None] + nu
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(proj == 0.0, 0.0, proj / denom)

    def norm(nu):
        return float(np.sqrt(np.sum(solve(nu) ** 2)))

    coords = solve(0.0)
    if radius is not None and not norm(0.0) <= float(radius):
        radius = float(radius)
        # norm(nu) <= ||proj|| / nu, so the root lies below ||proj|| / radius.
        hi = float(np.sqrt(np.sum(proj**2))) / radius * (1 + 1e-9)
        lo = 0.0
        if not np.isfinite(norm(0.0)):
            lo = hi
            while norm(lo) <= radius:
                lo /= 2.0
        nu = brentq(lambda v: norm(v) - radius, lo, hi, xtol=1e-15 * (1 + hi))
        coords = solve(nu)
        size = float(np.sqrt(np.sum(coords**2)))
        if size > radius:  # land inside the ball despite rounding of the root
            coords *= radius / size
    theta = eigvec @ coords
    return theta[:, 0] if vector else theta
