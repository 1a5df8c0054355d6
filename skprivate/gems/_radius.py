"""Radius of a good-enough ball: doubling then bisection, all sampled models at once.

A radius r passes when every one of the S sampled models on the sphere of radius r around
the centre has validation loss <= epsilon (Guha et al. 2018, Section 4.1). The S models of
one probe are evaluated together, in one matrix product, and the search runs in lockstep for
any number of balls (the neurons of a network), each at its own radius.

For a convex loss, the largest loss over a fixed set of directions is a convex function of
r, so "passes" holds on an interval [0, r_max]: the bisection is well founded and the
radius grows with epsilon. With the directions fixed by the party's seed, the search is
deterministic.
"""

import numpy as np
# Relative precision of the radius, and a floor below which a ball counts as empty.
_RTOL = 1e-3
_MAX_PROBES = 200
_EMPTY = 1e-12


def default_n_samples(n_dims):
    """Sampled models per probe: max(100, 2 d), our reading of the paper's "a function of d"."""
    return max(100, 2 * int(n_dims))


def sphere_directions(rng, n_units, n_samples, n_dims):
    """Uniform unit vectors: (n_units, n_samples, n_dims) normalised Gaussians."""
    u = rng.standard_normal((n_units, n_samples, n_dims))
    return u / np.linalg.norm(u, axis=-1, keepdims=True)


def search_radii(max_loss, start, epsilon, rtol=_RTOL):
    """Largest radius per unit whose sampled sphere stays within ``epsilon``.

    Parameters
    ----------
    max_loss : callable
        ``max_loss(units, radii)`` returns, for each unit index in ``units``, the largest
        validation loss over its sampled models at the given radius.
    start : ndarray of shape (n_units,)
        First radius tried per unit (positive).
    epsilon : float
        The threshold.
    rtol : float, default=1e-3
        Relative precision of the radius.

    Returns
    -------
    radii : ndarray of shape (n_units,)
        The last radius at which every sample passed; 0 where not even a tiny ball passes.
    """
    start = np.asarray(start, dtype=float)
    lo = np.zeros_like(start)
    hi = np.full_like(start, np.inf)
    probe = start.copy()
    floor = _EMPTY * np.maximum(start, 1.0)
    active = np.ones(len(start), dtype=bool)
    for _ in range(_MAX_PROBES):
        units = np.flatnonzero(active)
        if units.size == 0:
            break
        ok = max_loss(units, probe[units]) <= epsilon
        lo[units] = np.where(ok, probe[units], lo[units])
        hi[units] = np.where(ok, hi[units], probe[units])
        # Doubling while no failure was seen, halving while no success was seen, then
        # bisection; a unit stops at relative precision _RTOL or when its ball is empty.
        bracketed = np.isfinite(hi) & (lo > 0)
        probe = np.where(
            ~np.isfinite(hi), 2.0 * lo,
            np.where(lo > 0, 0.5 * (lo + hi), 0.5 * hi),
        )
        done = (bracketed & (hi - lo <= rtol * hi)) | ((lo == 0) & (hi <= floor))
        active = ~done
    return lo


# --- loss of many models at once --------------------------------------------------------------
# Scores are laid out (n_outputs, n_models, n_rows): reductions over the few outputs then run
# over contiguous slabs, many times faster than over a short last axis.

def linear_scores(X, weights, n_outputs):
    """Scores of many linear models: weights (S, n_outputs * (p + 1)) -> (n_outputs, S, n).

    A weight vector is ``coef.ravel()`` (shape (n_outputs, p)) followed by the intercepts,
    if the model has any.
    """
    n_models = weights.shape[0]
    p = X.shape[1]
    coef = weights[:, : n_outputs * p].reshape(n_models, n_outputs, p)
    coef = coef.transpose(1, 0, 2).reshape(n_outputs * n_models, p)
    scores = (coef @ X.T).reshape(n_outputs, n_models, X.shape[0])
    if weights.shape[1] > n_outputs * p:  # no intercepts when the model has none
        scores += weights[:, n_outputs * p :].T[:, :, None]
    return scores


def mean_loss(scores, y, loss):
    """Mean loss per model of scores (n_outputs, S, n) against y.

    ``loss="log_loss"``: y holds class indices; one output means the binary logistic model
    (scores are the log-odds of class 1), several mean softmax. ``loss="squared_error"``:
    y is (n,) or (n, n_outputs), averaged over rows and outputs.
    """
    n_out, n_models, n = scores.shape
    if loss == "squared_error":
        target = np.asarray(y, dtype=float).reshape(n, -1).T[:, None, :]
        return np.mean((scores - target) ** 2, axis=(0, 2))
    if n_out == 1:
        z = scores[0]
        return np.mean(np.logaddexp(0.0, z) - y[None, :] * z, axis=1)
    top = scores.max(axis=0)
    log_norm = top + np.log(np.exp(scores - top).sum(axis=0))
    picked = scores[y[None, :], np.arange(n_models)[:, None], np.arange(n)[None, :]]
    return np.mean(log_norm - picked, axis=1)
