"""The noisy symmetric second-moment matrix ``sum_i w_i w_i^T``, and a private norm radius.

Both are shared by :class:`skprivate.decomposition.PCA` and the AdaSSP regressions of
:mod:`skprivate.linear_model`: one release each, in one place.

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

from .mechanisms import discrete_laplace_noise, granular_gaussian_mechanism

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


def private_norm_quantile(norms, top, q, epsilon, rng, n_total=None, *, bins_per_octave=4,
                          octaves=12):
    """A radius below which about ``q n`` of ``norms`` lie, ``epsilon``-DP.

    Why. A Gaussian release on rows of norm at most ``R`` has noise proportional to ``R``
    (or ``R**2``), and the public bound ``top`` is usually far above the typical row: a
    radius near a quantile of the norms, chosen privately, clips few rows and cuts the noise.

    The bins are public: edges ``top * 2**(-j / bins_per_octave)`` for
    ``j = 0 .. octaves * bins_per_octave``; a norm above
    ``top`` counts in the last bin. Each row adds 1 to exactly one count, so the vector of
    counts has L1 sensitivity 1 under add/remove and exact discrete Laplace noise of scale
    ``1 / epsilon`` on each count makes it ``epsilon``-DP (the geometric mechanism, Ghosh,
    Roughgarden and Sundararajan 2012; histograms: Dwork and Roth 2014, Section 3.3). The
    radius is the first edge whose noisy cumulative count reaches ``q * n_total``
    (post-processing; ``top`` if none does). ``n_total=None`` uses the histogram's own
    noisy total, so that no exact count is read.

    Parameters
    ----------
    norms : ndarray of shape (n_samples,)
        The rows' norms (a function of each row and of public or released values only).
    top : float
        Public upper end of the bins, ``> 0``.
    q : float
        The quantile, in (0, 1].
    epsilon : float
        Privacy loss of the release, ``> 0``.
    rng : numpy.random.Generator
        The fit's generator.
    n_total : float or None, default=None
        A released (noisy) or public number of rows.
    bins_per_octave, octaves : int, default=4, 12
        The public bins. Fewer bins accumulate less noise in the cumulative counts (each
        adds a discrete Laplace draw), at the price of a coarser radius.

    Returns
    -------
    radius : float
        One of the public edges.
    """
    n_bins = octaves * bins_per_octave + 1
    edges = top * 2.0 ** (-np.arange(n_bins)[::-1] / bins_per_octave)
    index = np.minimum(np.searchsorted(edges, norms, side="left"), n_bins - 1)
    counts = np.bincount(index, minlength=n_bins).astype(np.int64)
    noisy = counts + np.asarray(
        discrete_laplace_noise(1.0 / epsilon, size=n_bins, random_state=rng), np.int64
    )
    cumulative = np.cumsum(noisy)
    total = cumulative[-1] if n_total is None else n_total
    reached = np.flatnonzero(cumulative >= q * total)
    return float(edges[reached[0]]) if reached.size else float(top)
