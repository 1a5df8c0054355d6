"""What the private preprocessors share: public bounds, the private quantile, a free fit."""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from .. import _caveats
from ..base import DPEstimatorMixin, PrivacyReport

__all__ = ["_PrivateTransformer", "exponential_quantiles", "resolve_bounds"]


def resolve_bounds(bounds, X, owner):
    """Public ``(lower, upper)`` per feature, and the caveats if they were read from ``X``.

    ``bounds=None`` reads each feature's minimum and maximum from ``X`` (ignoring NaN): the
    clipping range is then a function of the private rows, released exactly in ``bounds_``,
    and the fit's guarantee does not hold; the caveat says so.
    """
    n_features = X.shape[1]
    if bounds is None:
        with np.errstate(all="ignore"):
            lower = np.nanmin(X, axis=0) if X.shape[0] else np.zeros(n_features)
            upper = np.nanmax(X, axis=0) if X.shape[0] else np.ones(n_features)
        lower = np.where(np.isfinite(lower), lower, 0.0)
        upper = np.where(np.isfinite(upper), upper, lower + 1.0)
        upper = np.where(upper > lower, upper, lower + 1.0)
        caveat = _caveats.bounds_from_data(["bounds"], "bounds=(lower, upper)")
        return lower.astype(float), upper.astype(float), [caveat]
    try:
        lower, upper = bounds
        lower = np.broadcast_to(np.asarray(lower, dtype=float), (n_features,)).copy()
        upper = np.broadcast_to(np.asarray(upper, dtype=float), (n_features,)).copy()
    except (TypeError, ValueError):
        raise ValueError(
            f"{owner}: bounds must be a pair (lower, upper) of numbers or of arrays of length "
            f"n_features={n_features}; got {bounds!r}. Pass the public range of each "
            "feature, known without looking at the data, for example bounds=(17, 90) for "
            "ages or bounds=([0, 0], [16, 100]) for two features."
        ) from None
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ValueError(f"{owner}: bounds must be finite; got {bounds!r}.")
    if np.any(lower >= upper):
        bad = np.flatnonzero(lower >= upper).tolist()
        raise ValueError(
            f"{owner}: every lower bound must be below its upper bound; features {bad} have "
            f"lower >= upper in bounds={bounds!r}. Widen the range of those features."
        )
    return lower, upper, []


def exponential_quantiles(X, lower, upper, q, epsilon, rng):
    """One private ``q``-quantile per column of ``X``, each ``epsilon``-DP; NaN are absent.

    The exponential mechanism over the interval ``[lower_j, upper_j]`` (Smith 2011,
    Section 3; McSherry and Talwar 2007, Theorem 6) with utility
    ``u(x) = -|#{i: x_i < x} - q n_j|``, ``n_j`` the number of non-missing values: the
    output density is proportional to ``exp(epsilon u(x) / 2)``. Adding or removing one row
    changes the count by at most 1 and ``q n_j`` by ``q``, so ``|u(x) - u'(x)| <=
    max(q, 1 - q) <= 1``, and the release is ``epsilon``-DP per column. Between two
    consecutive sorted values the utility is constant, so the mechanism picks the gap ``k``
    with probability proportional to ``length_k exp(epsilon u_k / 2)`` (Gumbel-max
    sampling, exact) and a uniform point inside it.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Values, already clipped to the bounds; NaN marks a missing value.
    lower, upper : ndarray of shape (n_features,)
        Public bounds.
    q : float
        The quantile, in [0, 1].
    epsilon : float
        Budget of each column's release.
    rng : numpy.random.Generator

    Returns
    -------
    quantiles : ndarray of shape (n_features,)
    """
    n_samples, n_features = X.shape
    present = (~np.isnan(X)).sum(axis=0)
    Z = np.sort(X, axis=0)  # NaN sort last
    Z = np.where(np.isnan(Z), upper, Z)
    Z = np.vstack([lower[None, :], Z, upper[None, :]])  # (n + 2, d)
    lengths = np.diff(Z, axis=0)  # (n + 1, d); gaps beyond n_j have length 0
    rank = np.arange(n_samples + 1)[:, None]  # values below any point of gap k
    utility = -np.abs(rank - q * present[None, :])
    with np.errstate(divide="ignore"):
        logw = np.log(lengths) + 0.5 * epsilon * utility
    gap = np.argmax(logw + rng.gumbel(size=logw.shape), axis=0)
    cols = np.arange(n_features)
    return Z[gap, cols] + rng.uniform(size=n_features) * lengths[gap, cols]


class _PrivateTransformer(DPEstimatorMixin, TransformerMixin, BaseEstimator):
    """Shared fit plumbing: a zero-cost fit when nothing is learned from the rows."""

    def _finish_free_fit(self, mechanism):
        """Fitted privacy attributes of a fit that read nothing from the rows (cost 0)."""
        self.epsilon_ = 0.0
        self.delta_ = 0.0
        self._privacy_spend_record = self._privacy_spend(0.0, 0.0)
        self.privacy_report_ = PrivacyReport(
            estimator=type(self).__name__,
            epsilon=0.0,
            delta=0.0,
            neighbouring="add/remove one row",
            unit="one row of X (one person only if each person has one row)",
            scope="this fit only, which read nothing from the rows but their shape",
            mechanism=mechanism,
            caveats=[],
        )


def split_gaussian_sigma(epsilon, delta):
    """Noise multiplier of one Gaussian release at ``(epsilon, delta)`` (sensitivity 1)."""
    from ..mechanisms import gaussian_sigma

    return gaussian_sigma(1.0, epsilon, delta)


def gaussian_event(noise_multiplier):
    """The ``dp_accounting`` event of a Gaussian mechanism with this noise multiplier."""
    import dp_accounting

    return dp_accounting.GaussianDpEvent(noise_multiplier)
