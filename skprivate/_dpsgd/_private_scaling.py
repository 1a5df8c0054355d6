"""Private centring and scaling of the rows before a DP-SGD fit (``max_grad_norm="auto"``).

Why: the step that suits DP-SGD depends on the geometry of the rows. Measured on digits and
breast cancer (``benchmarks/dplssgd_utility.py``), the same plan loses 5 to 20 points when the
features are divided by their maximum (all positive, far from centred) rather than
standardised, and it is the offset, not the per-feature scale, that costs: with the rows
centred by their mean and divided by a typical centred row norm the two scalings give the
same accuracy within a point. Neither statistic is public, so both are released with the
Gaussian mechanism and their cost is composed with the training's (``privacy_report_``).

Two releases, each a Gaussian mechanism (Dwork and Roth 2014, Theorem A.1; composed in RDP
or PLD with the DP-SGD steps, see :mod:`skprivate._dpsgd._plan`), add/remove-one-row
neighbours:

1. A histogram of ``log2`` row norms in octave bins (one row changes one count by one:
   L2 sensitivity 1), plus ``N(0, sigma_h^2)`` per bin. Its fullest noisy bin gives ``R``,
   the norm at which rows are clipped in the second release (post-processing).
2. The sum over rows of ``(c_i x_i / R, ||c_i x_i||^2 / R^2)`` with ``c_i = min(1, R/||x_i||)``:
   each row's vector has L2 norm at most ``sqrt(2)``, so ``N(0, 2 sigma_m^2)`` per coordinate
   is the Gaussian mechanism with noise multiplier ``sigma_m``. Divided by the number of
   rows planned on (the fit's noisy count, :mod:`skprivate._row_count`, or a public ``n``)
   it gives the mean row ``offset`` and the mean squared norm, hence the root mean squared
   norm of the centred rows, ``scale`` (post-processing of two releases).
"""

import math

import numpy as np

from ._distributed import is_dask_collection
from ._kernels import clipped_row_sums

__all__ = []

# Octave bins of log2 ||x||: edges 2^k for k = -30 .. 30 (norms 1e-9 to 1e9); norms
# outside (and zero rows) fall into the end bins. Few, wide bins keep the largest of the
# bins that hold no row small (62 bins of pure noise exceed 3.5 sigma with probability
# about 1.4 %) and let the fullest bin hold most rows.
_EDGES = 2.0 ** np.arange(-30, 31).astype(float)
_SIGNIFICANT = 3.5


def private_row_statistics(X, sq_norms, *, sigma_hist, sigma_mean, rng, release, n_public=None):
    """Noisy ``(offset, scale, clip_norm)`` of the rows of ``X`` (see the module docstring).

    ``sq_norms`` are the squared row norms; ``release(value, sensitivity, noise_multiplier,
    rng)`` adds the Gaussian noise (:mod:`skprivate._dpsgd._release`); sums are divided by ``n_public``, the number of rows the fit planned on (its
    noisy count, a declared public ``n`` or a private search's planned size; default: the
    rows of ``X``). ``offset`` has shape
    ``(n_features,)``; ``scale > 0``. When the fullest noisy bin holds fewer than
    ``_SIGNIFICANT`` times ``sigma_hist`` (a table too small for its budget: pure noise in
    one of the 62 bins reaches 3.5 sigma with probability about 1.4 %), its position says
    nothing about the rows, and ``(None, 1.0, None)`` is returned: the rows are used as
    given (a decision on released values only, so post-processing; the second release is
    then not drawn, and it is still charged).
    """
    n_samples, n_features = X.shape
    if n_public is not None:
        n_samples = n_public
    if is_dask_collection(X):  # the same exact sums, computed where the rows live
        from ._distributed import dask_norm_counts

        counts = dask_norm_counts(sq_norms, _EDGES)
    else:
        norms = np.sqrt(sq_norms)
        counts = np.bincount(np.searchsorted(_EDGES, norms), minlength=_EDGES.size + 1)
    # One row lies in one bin: L2 sensitivity 1, noise multiplier sigma_hist.
    noisy = release(counts.astype(np.float64), 1.0, sigma_hist, rng)
    mode = int(np.argmax(noisy))
    if noisy[mode] < _SIGNIFICANT * sigma_hist:
        return None, 1.0, None
    clip_norm = float(_EDGES[min(max(mode, 1), _EDGES.size - 1)])  # upper edge of that bin
    if is_dask_collection(X):
        from ._distributed import dask_clipped_row_sums

        total, total_sq = dask_clipped_row_sums(X, clip_norm)
    else:
        total, total_sq = clipped_row_sums(X, clip_norm)
    # One row moves the clipped sum by <= 1 and the squared norms' sum by <= 1 (in units of
    # clip_norm): L2 sensitivity sqrt(2), noise std sqrt(2) sigma_mean.
    released = release(np.append(total, total_sq), math.sqrt(2.0), sigma_mean, rng)
    offset = clip_norm * released[:-1] / n_samples
    mean_sq = clip_norm**2 * released[-1] / n_samples
    # E||x - m||^2 = E||x||^2 - ||m||^2 for the clipped rows; the floor keeps a noisy release
    # that went negative from giving a zero or imaginary scale.
    centred_sq = mean_sq - float(offset @ offset)
    scale = math.sqrt(max(centred_sq, (0.05 * clip_norm) ** 2))
    return offset, scale, clip_norm
