"""One private quantile of one column: permute-and-flip over public candidates, exactly.

The shared core of :mod:`skprivate.stats`' quantiles and of the private preprocessors'
(``RobustScaler``, ``SimpleImputer(strategy="median")``). The utility of candidate ``c`` is
``u(c) = -max(#{x_i < c} - q n, q n - #{x_i <= c}, 0)`` over the ``n`` present values: 0
exactly when ``c`` is a ``q``-quantile of the data, so that tied values do not flatten it
around the answer. Its sensitivity under add/remove one row is ``max(q, 1 - q)``: adding a
row makes ``q n -> q n + q`` and adds 0 or 1 to each count, so each term of the maximum
moves by at most ``max(q, 1 - q)`` and the maximum with 0 is 1-Lipschitz (``n`` changing
with the row is covered: no noisy count is needed). With ``q = a / b`` an exact fraction,
``b u(c)`` is an integer of sensitivity ``max(a, b - a)``, which
:func:`~skprivate.mechanisms._selection.permute_and_flip` takes: epsilon-DP (McKenna and
Sheldon 2020, Theorem 1), sampled with integer arithmetic only.
"""

import numpy as np

from ._selection import permute_and_flip

__all__ = []


def quantile_candidates(lower, upper, resolution):
    """The ``resolution + 1`` evenly spaced candidates of each feature's public range.

    Returns an array of shape ``(resolution + 1, n_features)``: ``lower + (upper - lower) i /
    resolution`` for ``i = 0..resolution``, computed in half units (``lower / 2 + (upper / 2
    - lower / 2) i / resolution``, then doubled) so that bounds beyond ``+-9e307``, whose
    width exceeds the largest double, give finite candidates; the doubling can overflow only
    at the top end, which the clip to ``[lower, upper]`` brings back. Public: a function of
    the bounds alone.
    """
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    t = np.arange(resolution + 1)[:, None] / resolution
    half = lower[None, :] / 2.0 + (upper[None, :] / 2.0 - lower[None, :] / 2.0) * t
    with np.errstate(over="ignore"):
        return np.clip(2.0 * half, lower, upper)


def rank_quantile_index(values, candidates, q, epsilon, rng):
    """Index of the private ``q``-quantile among ``candidates`` (``epsilon``-DP).

    Parameters
    ----------
    values : ndarray of shape (n,)
        The column's present values, sorted, within the candidates' range.
    candidates : ndarray of shape (m,)
        Public candidates, increasing.
    q : fractions.Fraction
        The quantile, an exact fraction in [0, 1].
    epsilon : float
    rng : numpy.random.Generator

    Returns
    -------
    index : int
    """
    a, b, n = q.numerator, q.denominator, len(values)
    below = np.searchsorted(values, candidates, side="left").astype(object)
    at_or_below = np.searchsorted(values, candidates, side="right").astype(object)
    # b u(c) in exact Python ints (b may be up to 2**60 for a percentile like 2 %)
    excess = np.maximum(below * b - a * n, a * n - at_or_below * b)
    return permute_and_flip(-np.maximum(excess, 0), epsilon, max(a, b - a), random_state=rng)
