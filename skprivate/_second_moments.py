"""The noisy symmetric second-moment matrix ``sum_i w_i w_i^T``: one release, one place.

Mechanism (Analyze Gauss: Dwork, Talwar, Thakurta and Zhang 2014, Algorithm 1). The rows
``w_i`` are bounded, ``||w_i||_2 <= R``; the matrix ``S = sum_i w_i w_i^T`` is symmetric, so
only its upper triangle is released, with Gaussian noise, and mirrored.

Sensitivity (why the off-diagonal entries are scaled by ``sqrt(2)``). Release the vector
``v(S) = (S_jj for all j, sqrt(2) S_jk for j < k)``. Adding or removing a row ``w`` changes
it by ``(w_j**2, sqrt(2) w_j w_k)``, whose squared norm is
``sum_j w_j**4 + 2 sum_{j<k} w_j**2 w_k**2 = (sum_j w_j**2)**2 = ||w||**4``: the L2
sensitivity is exactly ``R**2`` (the Frobenius norm of ``w w^T``). Dividing the released
off-diagonal entries by ``sqrt(2)`` afterwards (post-processing) leaves them with noise of
standard deviation ``sigma / sqrt(2)``: the same guarantee as noise ``sigma`` on every entry
of the plain upper triangle (whose sensitivity is also at most ``R**2``), with half the noise
variance where most of the entries are.

Guarantee. The vector is released by
:func:`~skprivate.mechanisms.granular_gaussian_mechanism` (exact discrete Gaussian noise on a
power-of-two grid), which is ``rho = R**4 / (2 sigma**2)``-zCDP (Canonne, Kamath and Steinke
2020, Theorem 14; :func:`skprivate.accounting._zcdp.gaussian_rho`), for add/remove-one-row
neighbours. Callers add this ``rho`` to their other Gaussian releases and convert once.
"""

import math

import numpy as np

from .mechanisms import granular_gaussian_mechanism

__all__ = []


def noisy_second_moment(W, sensitivity, sigma, random_state):
    """``sum_i w_i w_i^T`` of the rows of ``W``, released with Gaussian noise, symmetric.

    Parameters
    ----------
    W : ndarray of shape (n_samples, n_features)
        Rows already bounded: ``||w_i||_2**2 <= sensitivity`` for every row (the caller
        clips or normalises them; nothing here checks the data).
    sensitivity : float
        ``R**2``, the L2 sensitivity of the released vector (module docstring).
    sigma : float
        Standard deviation of the Gaussian noise on each released coordinate (before the
        off-diagonal entries are divided by ``sqrt(2)``); the release is
        ``sensitivity**2 / (2 sigma**2)``-zCDP.
    random_state : numpy.random.Generator
        The fit's generator.

    Returns
    -------
    S : ndarray of shape (n_features, n_features)
        The noisy matrix, exactly symmetric.
    """
    d = W.shape[1]
    rows, cols = np.triu_indices(d)
    scale = np.where(rows == cols, 1.0, math.sqrt(2.0))
    exact = (W.T @ W)[rows, cols] * scale
    released = np.asarray(
        granular_gaussian_mechanism(exact, sensitivity, sigma, random_state=random_state)
    ) / scale
    S = np.zeros((d, d))
    S[rows, cols] = released
    S[cols, rows] = released
    return S
