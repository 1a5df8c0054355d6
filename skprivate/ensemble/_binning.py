"""Binning: every bin edge from declared bounds and categories or from a private release.

A numeric feature with declared range ``[lower, upper]`` gets ``max_bins`` equal-width bins
(values outside the range fall in the end bins) or, with ``edges``, the bins between given
inner edges (:func:`quantile_edges`: edges at the quantiles of a noisy histogram, released
once per fit), and one more bin for a missing value (NaN); a categorical feature gets one
bin per declared category and one more for a missing value or a category not declared. The
map from a value to its bin depends on that value and on public or already released
numbers alone, so binning itself reads nothing from the other rows and costs no privacy.

Private quantile edges. :func:`grid_counts` counts each numeric feature's values in
``GRID_CELLS`` equal cells of its declared range. Adding or removing one row changes one
cell of each numeric feature by 1 (a NaN changes none), so the vector of all features'
counts has L2 sensitivity ``sqrt(d)`` for ``d`` numeric features and is released once with
the Gaussian mechanism (rounded Gaussian noise, ``sqrt(d) / sigma``-GDP; Dong, Roth and Su
2022, Theorem 2.7). :func:`quantile_edges` is a post-processing of that release (Dwork and
Roth 2014, Proposition 2.1): it reads nothing else from the rows.
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


#: Cells of the public grid on which each numeric feature's histogram is released: fine
#: enough that a quantile edge lands within 1/256 of the declared range of where the rows
#: are (a threshold in capital gain at a few thousand, range 0 to 99,999, or in its
#: ``log1p``), coarse enough that the noise of the empty cells stays small (thresholded).
GRID_CELLS = 256
#: :func:`quantile_edges`: a noisy count under ``EMPTY_BELOW`` noise standard deviations is
#: taken as an empty cell (about 2 % of empty cells pass); ``PRIOR_MASS`` noise standard
#: deviations per bin of uniform mass; equal widths kept while no equal-width bin holds more
#: than ``BALANCED`` times its share.
EMPTY_BELOW, PRIOR_MASS, BALANCED = 2.0, 4.0, 2.0


def grid_counts(X, lower, upper, n_cells=GRID_CELLS):
    """Counts of each numeric column's values in ``n_cells`` equal cells of its range.

    Values outside the range count in the end cells, NaN in none. Returns an array of
    shape ``(n_features, n_cells)``: one row changes one count of each feature by 1.
    """
    cells = bin_numeric(X, lower, upper, n_cells)  # NaN -> n_cells, dropped below
    n_features = X.shape[1]
    offset = cells + (n_cells + 1) * np.arange(n_features)[None, :]
    counts = np.bincount(offset.ravel(), minlength=(n_cells + 1) * n_features)
    return counts.reshape(n_features, n_cells + 1)[:, :n_cells].astype(float)


def quantile_edges(noisy_counts, lower, upper, max_bins, noise_std):
    """Inner bin edges of one feature at the quantiles of its noisy grid counts.

    A post-processing of the released counts and public numbers only. Cells whose noisy
    count is under ``EMPTY_BELOW * noise_std`` are taken as empty (the noise of the many
    empty cells of a heavy-tailed feature would otherwise place edges where no row is); a
    uniform mass of ``max_bins * PRIOR_MASS * noise_std`` is added over the range, so that
    with few rows, or a large noise, the edges fall back to equal widths. A feature whose
    equal-width bins are balanced (none holds more than ``BALANCED`` times the average
    mass) keeps them: there quantile edges would only move the equal edges by the noise
    (on the interaction table, whose threshold 0 is an equal-width edge, that cost 2 points).
    Otherwise the cells are cut left to right, each bin closing once it holds ``remaining
    mass / remaining bins``: a heavy cell (a point mass such as a capital gain of 0)
    becomes a bin of its own and the other bins share the rest, and a feature whose mass
    lies on few values gets fewer bins (edges are cell boundaries, never inside a cell).

    Returns
    -------
    edges : ndarray
        Increasing inner edges (at most ``max_bins - 1``) inside ``(lower, upper)``.
    """
    n_cells = len(noisy_counts)
    mass = np.where(noisy_counts >= EMPTY_BELOW * noise_std, noisy_counts, 0.0)
    mass = mass + max_bins * PRIOR_MASS * noise_std / n_cells
    in_uniform_bin = np.bincount(
        np.minimum((np.arange(n_cells) + 0.5) * max_bins // n_cells, max_bins - 1).astype(int),
        weights=mass, minlength=max_bins)
    if np.max(in_uniform_bin) <= BALANCED * np.sum(mass) / max_bins:
        return uniform_edges(lower, upper, max_bins)
    grid = lower + (upper - lower) * np.arange(1, n_cells) / n_cells
    edges, held, remaining, bins_left = [], 0.0, float(np.sum(mass)), max_bins
    for c in range(n_cells - 1):  # a loop over the cells of the public grid, not the rows
        held += mass[c]
        if bins_left > 1 and held >= remaining / bins_left:
            edges.append(grid[c])
            remaining -= held
            held, bins_left = 0.0, bins_left - 1
    return np.asarray(edges, dtype=float)


def uniform_edges(lower, upper, max_bins):
    """The inner edges of ``max_bins`` equal bins of ``[lower, upper]``."""
    return lower + (upper - lower) * np.arange(1, max_bins) / max_bins


def bin_by_edges(column, edges):
    """Bin ``k`` for values in ``[edges[k-1], edges[k])``, ``len(edges) + 1`` for NaN."""
    bins = np.searchsorted(edges, column, side="right")
    return np.where(np.isnan(column), len(edges) + 1, bins).astype(np.intp)


def public_bins(X, lower, upper, categorical, categories, max_bins, edges=None):
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
    edges : list of ndarray or None, default=None
        The inner edges of each feature (entries of categorical features are not used):
        numeric feature ``j`` then has ``len(edges[j]) + 1`` bins and the missing-value bin.
        None: ``max_bins`` equal-width bins over each declared range.

    Returns
    -------
    bins : ndarray of intp of shape (n_samples, n_features)
    n_bins : ndarray of int of shape (n_features,)
        Bins of each feature, its missing-value bin included.
    """
    bins = np.empty(X.shape, dtype=np.intp)
    n_bins = np.full(X.shape[1], max_bins + 1)
    numeric = ~categorical
    if edges is not None:
        for j in np.flatnonzero(numeric):
            bins[:, j] = bin_by_edges(X[:, j], edges[j])
            n_bins[j] = len(edges[j]) + 2
    elif np.any(numeric):
        bins[:, numeric] = bin_numeric(X[:, numeric], lower[numeric], upper[numeric], max_bins)
    for k, j in enumerate(np.flatnonzero(categorical)):
        bins[:, j] = bin_categorical(X[:, j], categories[k])
        n_bins[j] = len(categories[k]) + 1
    return bins, n_bins
