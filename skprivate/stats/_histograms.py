"""Private histograms: exact discrete Laplace noise on bin counts over public bin edges.

Mechanism. A row (one sample) falls in at most one bin, so adding or removing it changes the
vector of bin counts by at most 1 in L1 norm, however many bins there are (the bins
partition the space: parallel composition). Independent discrete Laplace noise of scale
``1 / epsilon`` on every count is then epsilon-DP (the geometric mechanism: Ghosh,
Roughgarden and Sundararajan 2012; Dwork and Roth 2014, Theorem 3.6, whose proof bounds the
L1 distance). Negative noisy counts are set to 0 and ``density`` divides by the noisy total
(post-processing, Dwork and Roth 2014, Proposition 2.1).

Bins. The edges must be public: a sequence of edges, or a number of bins with a declared
``range``. Without ``range`` the range is read from the data (as NumPy does): the release then
has no guarantee, a :class:`~skprivate.exceptions.PrivacyLeakWarning` says so and the result's
caveats record it. NumPy's bin-estimation rules (``bins="auto"``) read the data too and are
refused.
"""

from fractions import Fraction
from numbers import Integral

import numpy as np

from .. import _caveats
from ..mechanisms import check_rng, discrete_laplace_noise
from ..utils._docstrings import Substitution, fragment
from ._common import charge, check_accountant, check_epsilon, finish
from ._docs import STATS_DOCS

__all__ = ["histogram", "histogram2d", "histogramdd"]

_DENSITY_DOC = fragment("""
    density : bool, default=None
        If True, the noisy counts divided by their (noisy) total and the bin widths, as in
        NumPy (post-processing).""")
_WEIGHTS_DOC = fragment("""
    weights : None, default=None
        Not supported (only None): a weight is an unbounded contribution of one row. Kept
        so that code written for NumPy or diffprivlib fails with a clear message.""")
_HIST_NOTES = fragment("""
    One row falls in at most one bin, so the bin counts have L1 sensitivity 1 under
    add/remove one row; independent exact discrete Laplace noise of scale ``1 / epsilon``
    on every count is epsilon-DP (Dwork and Roth 2014, Theorem 3.6). Negative counts are
    set to 0 (post-processing). Values outside the edges, and NaN, are not counted. The
    edges must be public (see ``range``).""")
_SUBS = dict(STATS_DOCS, density=_DENSITY_DOC, weights=_WEIGHTS_DOC, notes=_HIST_NOTES)


def _check_weights(weights, name):
    if weights is not None:
        raise ValueError(
            f"{name}: weights must be None; got an array. A weight lets one row add an "
            "unbounded amount to a bin, which no noise calibrated to a count covers. Repeat "
            "rows, or clip the weights and release stats.sum per bin instead."
        )


def _edges(bins, bounds, column, name, what):
    """Public edges of one dimension, and whether they were read from the data."""
    if isinstance(bins, str):
        raise ValueError(
            f"{name}: bins={bins!r} estimates the bins from the private data; pass a number "
            f"of bins with range=(lower, upper), or the edges themselves."
        )
    if isinstance(bins, Integral) and not isinstance(bins, bool):
        if bins < 1:
            raise ValueError(f"{name}: bins must be >= 1; got {bins!r}.")
        leak = bounds is None
        if leak:
            finite = column[np.isfinite(column)]
            lower, upper = (float(finite.min()), float(finite.max())) if finite.size \
                else (0.0, 1.0)
            if lower == upper:  # NumPy's convention for an empty range
                lower, upper = lower - 0.5, upper + 0.5
        else:
            try:
                lower, upper = (float(b) for b in bounds)
            except (TypeError, ValueError):
                raise ValueError(
                    f"{name}: {what} must be a pair (lower, upper) of numbers; got "
                    f"{bounds!r}. Pass the public range, for example (0, 100)."
                ) from None
            if not (np.isfinite(lower) and np.isfinite(upper) and lower < upper):
                raise ValueError(
                    f"{name}: {what} must be finite with lower < upper; got {bounds!r}."
                )
        return np.linspace(lower, upper, int(bins) + 1), leak
    edges = np.asarray(bins, dtype=float)
    if edges.ndim != 1 or edges.size < 2 or not np.all(np.isfinite(edges)) \
            or np.any(np.diff(edges) <= 0):
        raise ValueError(
            f"{name}: bins must be an int or a 1-D increasing sequence of at least two "
            f"finite edges; got {bins!r}."
        )
    return edges, False


def _noisy_histogram(name, sample, edges, density, epsilon, random_state, leaked,
                     range_name):
    counts, _ = np.histogramdd(sample, bins=edges)
    scale = 1 / Fraction(epsilon)
    noise = discrete_laplace_noise(scale, size=counts.size, random_state=check_rng(
        random_state)).reshape(counts.shape)
    noisy = np.maximum(counts.astype(np.int64) + noise, 0)
    value = noisy
    if density:
        total = noisy.sum()
        widths = np.ones(counts.shape)
        for axis, e in enumerate(edges):
            shape = [1] * counts.ndim
            shape[axis] = -1
            widths = widths * np.diff(e).reshape(shape)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = noisy / total / widths
    caveats = [_caveats.bounds_from_data([range_name], f"{range_name}=(lower, upper)")] \
        if leaked else []
    mechanism = (
        f"discrete Laplace of scale {float(scale):.4g} on every bin count (L1 sensitivity 1: "
        "a row falls in one bin); negative counts set to 0"
    )
    return finish(name, value, epsilon, 0.0, mechanism, caveats, random_state)


def _start(name, weights, epsilon, accountant):
    _check_weights(weights, name)
    epsilon = check_epsilon(epsilon)
    check_accountant(accountant)
    return epsilon


@Substitution(**_SUBS)
def histogram(a, bins=10, range=None, density=None, weights=None, *, epsilon=1.0,
              random_state=None, accountant=None):
    """Differentially private histogram of the flattened ``a`` over public bins.

    Parameters
    ----------
    a : array-like
        The private values, flattened; each value is one row.
    bins : int or sequence of float, default=10
        Number of equal-width bins in ``range``, or the increasing bin edges (public).
    range : tuple (lower, upper) or None, default=None
        Public range of the bins when ``bins`` is an int. ``None`` reads it from the data,
        as NumPy does: the result then has no privacy guarantee (a
        :class:`~skprivate.exceptions.PrivacyLeakWarning` says so).
    %(density)s
    %(weights)s
    %(epsilon)s
    %(random_state)s
    %(accountant)s

    Returns
    -------
    hist : PrivateResult
        The noisy counts (ndarray of int64, or float densities), with their guarantee.
    bin_edges : ndarray of float64
        The public edges.

    See Also
    --------
    histogramdd : Several dimensions.

    Notes
    -----
    %(notes)s

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import stats
    >>> ages = np.array([23, 35, 41, 52, 67] * 200)
    >>> hist, edges = stats.histogram(ages, bins=4, range=(10, 90), random_state=0)
    >>> np.asarray(hist).tolist(), edges.tolist()
    ([199, 400, 401, 0], [10.0, 30.0, 50.0, 70.0, 90.0])
    """
    name = "histogram"
    epsilon = _start(name, weights, epsilon, accountant)
    values = np.asarray(a)
    if values.dtype.kind not in "biuf":
        raise TypeError(f"{name}: a must be numeric; got dtype {values.dtype}.")
    values = values.astype(float).ravel()
    charge(accountant, name, epsilon)
    edges, leaked = _edges(bins, range, values, name, "range")
    result = _noisy_histogram(name, values[:, None], [edges], density, epsilon, random_state,
                              leaked, "range")
    return result, edges


@Substitution(**_SUBS)
def histogramdd(sample, bins=10, range=None, density=None, weights=None, *, epsilon=1.0,
                random_state=None, accountant=None):
    """Differentially private multidimensional histogram over public bins.

    Parameters
    ----------
    sample : array-like of shape (n_samples, n_dims)
        The private points; each point (row) is the unit protected.
    bins : int or sequence, default=10
        Per dimension, or for all: a number of equal-width bins in ``range``, or the
        increasing bin edges (public).
    range : sequence of (lower, upper) pairs or None, default=None
        Public range of each dimension whose ``bins`` is a number. ``None`` (or a ``None``
        entry) reads it from the data, as NumPy does: the result then has no privacy
        guarantee (a :class:`~skprivate.exceptions.PrivacyLeakWarning` says so).
    %(density)s
    %(weights)s
    %(epsilon)s
    %(random_state)s
    %(accountant)s

    Returns
    -------
    hist : PrivateResult
        The noisy counts, of shape ``(n_bins_0, n_bins_1, ...)``, with their guarantee.
    edges : list of ndarray
        The public edges of each dimension.

    See Also
    --------
    histogram : One dimension.
    histogram2d : Two dimensions.

    Notes
    -----
    %(notes)s

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import stats
    >>> points = np.array([[20, 1], [40, 0], [60, 1], [40, 1]] * 100)
    >>> hist, edges = stats.histogramdd(points, bins=(3, 2), range=[(0, 90), (0, 2)],
    ...                                 random_state=0)
    >>> np.asarray(hist).tolist()
    [[0, 100], [98, 99], [2, 103]]
    """
    name = "histogramdd"
    epsilon = _start(name, weights, epsilon, accountant)
    points = _as_points(sample, name)
    charge(accountant, name, epsilon)
    return _histdd(name, points, bins, range, density, epsilon, random_state)


def _as_points(sample, name):
    points = np.asarray(sample)
    if points.ndim == 1:
        points = points[:, None]
    if points.ndim != 2 or points.dtype.kind not in "biuf":
        raise ValueError(
            f"{name}: sample must be a numeric array of shape (n_samples, n_dims); got shape "
            f"{points.shape} and dtype {points.dtype}."
        )
    return points.astype(float)


def _histdd(name, points, bins, range, density, epsilon, random_state):
    d = points.shape[1]
    per_dim_bins = [bins] * d if isinstance(bins, (Integral, str)) else list(bins)
    per_dim_range = [None] * d if range is None else list(range)
    if len(per_dim_bins) != d or len(per_dim_range) != d:
        raise ValueError(
            f"{name}: bins and range must have one entry per dimension ({d}); got bins={bins!r}"
            f", range={range!r}."
        )
    edges, leaked = [], False
    for j in np.arange(d):  # over dimensions
        e, leak = _edges(per_dim_bins[j], per_dim_range[j], points[:, j], name, "range")
        edges.append(e)
        leaked = leaked or leak
    result = _noisy_histogram(name, points, edges, density, epsilon, random_state, leaked,
                              "range")
    return result, edges


@Substitution(**_SUBS)
def histogram2d(x, y, bins=10, range=None, density=None, weights=None, *, epsilon=1.0,
                random_state=None, accountant=None):
    """Differentially private two-dimensional histogram over public bins.

    Parameters
    ----------
    x : array-like of shape (n_samples,)
        First coordinate of each private point.
    y : array-like of shape (n_samples,)
        Second coordinate; ``(x[i], y[i])`` is one row, the unit protected.
    bins : int or sequence, default=10
        As in :func:`histogramdd`, for the two dimensions.
    range : sequence of two (lower, upper) pairs or None, default=None
        As in :func:`histogramdd`.
    %(density)s
    %(weights)s
    %(epsilon)s
    %(random_state)s
    %(accountant)s

    Returns
    -------
    hist : PrivateResult
        The noisy counts, of shape ``(n_bins_x, n_bins_y)``, with their guarantee.
    xedges : ndarray of float64
        The public edges of ``x``.
    yedges : ndarray of float64
        The public edges of ``y``.

    See Also
    --------
    histogramdd : Any number of dimensions.

    Notes
    -----
    %(notes)s

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import stats
    >>> x = np.array([20, 40, 60, 40] * 100)
    >>> y = np.array([1, 0, 1, 1] * 100)
    >>> hist, xedges, yedges = stats.histogram2d(x, y, bins=(3, 2), range=[(0, 90), (0, 2)],
    ...                                          random_state=0)
    >>> np.asarray(hist).tolist()
    [[0, 100], [98, 99], [2, 103]]
    """
    name = "histogram2d"
    epsilon = _start(name, weights, epsilon, accountant)
    xs, ys = np.asarray(x), np.asarray(y)
    if xs.ndim != 1 or xs.shape != ys.shape:
        raise ValueError(
            f"{name}: x and y must be 1-D arrays of the same length; got shapes {xs.shape} "
            f"and {ys.shape}."
        )
    points = _as_points(np.column_stack([xs, ys]), name)
    charge(accountant, name, epsilon)
    result, edges = _histdd(name, points, bins, range, density, epsilon, random_state)
    return result, edges[0], edges[1]
