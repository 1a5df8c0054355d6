"""Public binning: every bin edge from declared bounds and categories, none from the rows.

A numeric feature with declared range ``[lower, upper]`` gets ``max_bins`` equal-width bins
(values outside the range fall in the end bins) and one more bin for a missing value (NaN);
a categorical feature gets one bin per declared category and one more for a missing value
or a category not declared. The map from a value to its bin depends on that value and on
public parameters alone, so binning reads nothing from the other rows and costs no privacy.
"""

import numpy as np

__all__ = []


def bin_numeric(X, lower, upper, max_bins):
    """Bins ``0 .. max_bins - 1`` of each numeric column, ``max_bins`` for NaN.

    Equal widths over ``[lower_j, upper_j]``; a value outside is clipped first.
    """
    with np.errstate(invalid="ignore"):
        unit = (np.clip(X, lower, upper) - lower) / (upper - lower)
        bins = np.minimum(np.floor(unit * max_bins), max_bins - 1)
    return np.where(np.isnan(X), max_bins, bins).astype(np.intp)


def bin_categorical(column, categories):
    """Bin ``k`` for the ``k``-th declared category, ``len(categories)`` for anything else."""
    categories = np.asarray(categories, dtype=float)
    order = np.argsort(categories)
    ranked = categories[order]
    where = np.clip(np.searchsorted(ranked, column), 0, len(ranked) - 1)
    known = ranked[where] == column  # False for NaN and undeclared values
    return np.where(known, order[where], len(categories)).astype(np.intp)


def public_bins(X, lower, upper, categorical, categories, max_bins):
    """The bin of every value of ``X`` and the number of bins of each feature.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Numeric values, NaN for missing.
    lower, upper : ndarray of shape (n_features,)
        Declared ranges (entries of categorical features are not used).
    categorical : ndarray of bool of shape (n_features,)
        Which features are categorical.
    categories : list of ndarray
        The declared categories of each categorical feature, in the order of the features.
    max_bins : int
        Bins of each numeric feature, the missing-value bin not counted.

    Returns
    -------
    bins : ndarray of intp of shape (n_samples, n_features)
    n_bins : ndarray of int of shape (n_features,)
        Bins of each feature, its missing-value bin included.
    """
    bins = np.empty(X.shape, dtype=np.intp)
    n_bins = np.full(X.shape[1], max_bins + 1)
    numeric = ~categorical
    if np.any(numeric):
        bins[:, numeric] = bin_numeric(X[:, numeric], lower[numeric], upper[numeric], max_bins)
    for k, j in enumerate(np.flatnonzero(categorical)):
        bins[:, j] = bin_categorical(X[:, j], categories[k])
        n_bins[j] = len(categories[k]) + 1
    return bins, n_bins
