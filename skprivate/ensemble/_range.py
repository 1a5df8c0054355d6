"""A private range for each numeric feature, when none is declared.

The public grid covers every finite double: one cell for 0 and, for each sign and each
binary exponent ``e`` from -1074 to 1023, the cell of the values whose magnitude lies in
``[2**e, 2**(e + 1))``. Each numeric feature's histogram on that grid is released once:
adding or removing one row changes one cell of each of the ``d`` numeric features by 1 (a
missing value changes none), so the vector of all the features' counts has L2 sensitivity
``sqrt(d)``, and rounded Gaussian noise of standard deviation ``sigma`` makes the release
``sqrt(d) / sigma``-GDP (Dong, Roth and Su 2022, Theorem 2.7; the rounding is
post-processing). The range is a post-processing of that release (Dwork and Roth 2014,
Proposition 2.1): the cells whose noisy count reaches ``PRESENT_ABOVE`` noise standard
deviations are taken as holding rows, and the range runs from the lower edge of the first
of them to the upper edge of the last. A value held by a few rows (an outlier) does not
stretch it; values outside it fall in the end bins. The range is within a factor of two of
where the rows are; the quantile bins (:mod:`._binning`) then place the edges inside it.
"""

import numpy as np

__all__ = []

_MIN_EXPONENT, _MAX_EXPONENT = -1074, 1023  # floor(log2 |x|) of the finite doubles
N_EXPONENTS = _MAX_EXPONENT - _MIN_EXPONENT + 1
#: Cells per feature: the negative exponents (most negative values first), 0, the positive.
N_CELLS = 2 * N_EXPONENTS + 1
_ZERO = N_EXPONENTS
#: A noisy count of at least this many noise standard deviations marks a cell as holding
#: rows. Empty cells pass with probability about 1e-9 each (4,197 cells per feature: a
#: spurious cell in about 2 fits in 10,000 with 50 numeric features), while a cell needs
#: that many rows to count: at epsilon 1 about 160 rows with Adult's 5 numeric features.
PRESENT_ABOVE = 6.0


def cell_index(X):
    """Each value's cell on the public grid, -1 for a missing value.

    Exact: ``numpy.frexp`` returns the binary exponent of every finite double, subnormals
    included, so ``floor(log2 |x|)`` is computed without rounding.
    """
    X = np.asarray(X, dtype=float)
    _, exponent = np.frexp(np.abs(X))
    k = np.clip(exponent.astype(np.int64) - 1 - _MIN_EXPONENT, 0, N_EXPONENTS - 1)
    cells = np.where(X > 0, _ZERO + 1 + k, np.where(X < 0, _ZERO - 1 - k, _ZERO))
    return np.where(np.isnan(X), -1, cells)


def cell_counts(X):
    """Counts of each column's values in the ``N_CELLS`` cells, shape ``(d, N_CELLS)``."""
    cells = cell_index(X)
    n_features = cells.shape[1]
    flat = (cells + N_CELLS * np.arange(n_features)[None, :])[cells >= 0]
    return np.bincount(flat, minlength=n_features * N_CELLS).reshape(n_features, N_CELLS)


def _edges(cell):
    """``(lower, upper)`` edges of a cell (a value of the cell lies between them)."""
    if cell == _ZERO:
        return 0.0, 0.0
    k = abs(cell - _ZERO) - 1
    low = np.ldexp(1.0, _MIN_EXPONENT + k)
    high = np.ldexp(1.0, _MIN_EXPONENT + k + 1) if k + 1 < N_EXPONENTS else np.finfo(float).max
    return (low, high) if cell > _ZERO else (-high, -low)


#: Without a cell that clears the threshold (a small table or budget), the range is
#: symmetric, this many times the upper edge of the likeliest magnitude: the noisy
#: counts of each binary exponent, both signs added (post-processing), at their largest.
#: A policy choice: on standardised data (scikit-learn's 300-row check tables) the
#: likeliest magnitude is [0.5, 1) or [1, 2), and the range +-4 to +-8 keeps the rows
#: inside it, where one cell alone (+-1) clipped a third of them.
FALLBACK_FACTOR = 4.0


def private_range(noisy_counts, noise_std):
    """``(lower, upper)`` of one feature from its noisy counts on the grid (post-processing).

    The cells at or above ``PRESENT_ABOVE * noise_std`` hold rows; the range runs from the
    lower edge of the first to the upper edge of the last (a range of one point, every row
    0, becomes ``[0, 1]``). Without such a cell, ``+-FALLBACK_FACTOR`` times the upper edge
    of the likeliest magnitude.
    """
    noisy_counts = np.asarray(noisy_counts, dtype=float)
    present = np.flatnonzero(noisy_counts >= PRESENT_ABOVE * noise_std)
    if present.size == 0:
        magnitude = noisy_counts[_ZERO + 1:] + noisy_counts[_ZERO - 1::-1]
        if noisy_counts[_ZERO] >= magnitude.max():
            return -1.0, 1.0
        k = int(np.argmax(magnitude))
        upper = min(FALLBACK_FACTOR * np.ldexp(1.0, _MIN_EXPONENT + k + 1),
                    np.finfo(float).max)
        return -upper, upper
    lower, upper = _edges(int(present[0]))[0], _edges(int(present[-1]))[1]
    if upper <= lower:
        upper = lower + 1.0 if lower >= 0 else 0.0
    return lower, upper
