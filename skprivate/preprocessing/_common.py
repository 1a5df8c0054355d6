"""What the private preprocessors share: public bounds, the private quantile, a free fit."""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .. import _caveats
from ..base import DPEstimatorMixin, PrivacyReport
from ..utils._validation import check_bounds_pair, validate_numeric

__all__ = [
    "_PrivateTransformer",
    "check_transform_input",
    "exponential_quantiles",
    "resolve_bounds",
]

# Docstring fragments of the parameters every private preprocessor shares, for
# ``@Substitution(**_PARAM_DOCS)`` (skprivate.utils._docstrings) on each class.
_PARAM_DOCS = {
    "bounds": """
    bounds : tuple (lower, upper) or None, default=None
        Public range of each feature: two numbers, or two arrays of length
        ``n_features``, known without looking at the data (a codebook, the instrument's
        range). Values are clipped to it in ``fit`` and ``transform``. ``None`` reads each
        feature's minimum and maximum from the data: the fit then has no privacy
        guarantee (the range is released exactly in ``bounds_``), and a
        :class:`~skprivate.exceptions.PrivacyLeakWarning` says so.""",
    "accountant": """
    accountant : BudgetAccountant, default=None
        Budget to spend from; the fit is refused before reading any value if it does not
        fit.""",
    "random_state": """
    random_state : None, int or numpy.random.Generator, default=None
        ``None`` (for releases) draws the noise from a generator seeded by the operating
        system; an int makes it reproducible (tests and documentation only: whoever
        knows the seed can remove the noise).""",
}


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
    lower, upper = check_bounds_pair(
        bounds, n_features, owner,
        "known without looking at the data, for example bounds=(17, 90) for ages or "
        "bounds=([0, 0], [16, 100]) for two features",
    )
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
    # Halved, so that no gap overflows: with bounds beyond +-9e307 a gap between two values
    # could exceed the largest double, and an infinite gap is drawn for sure and gives an
    # inf or NaN quantile, depending on where the rows lie. Half-lengths give the same
    # probabilities (a common factor 2).
    Z = np.vstack([lower[None, :], Z, upper[None, :]]) / 2.0  # (n + 2, d)
    lengths = np.diff(Z, axis=0)  # (n + 1, d); gaps beyond n_j have length 0
    rank = np.arange(n_samples + 1)[:, None]  # values below any point of gap k
    utility = -np.abs(rank - q * present[None, :])
    with np.errstate(divide="ignore"):
        logw = np.log(lengths) + 0.5 * epsilon * utility
    gap = np.argmax(logw + rng.gumbel(size=logw.shape), axis=0)
    cols = np.arange(n_features)
    return 2.0 * (Z[gap, cols] + rng.uniform(size=n_features) * lengths[gap, cols])


def check_transform_input(estimator, X, attributes=None, **check_params):
    """``X`` for ``transform`` of a fitted ``estimator``: fitted check, then validation.

    ``check_params`` go to :func:`~skprivate.utils._validation.validate_numeric` (float64
    unless told otherwise), with ``reset=False`` so that the columns must match the fit.
    """
    check_is_fitted(estimator, attributes)
    check_params.setdefault("dtype", np.float64)
    return validate_numeric(estimator, X, reset=False, **check_params)


class _PrivateTransformer(DPEstimatorMixin, TransformerMixin, BaseEstimator):
    """Shared fit plumbing: budget reserved before ``X`` is read; a zero-cost free fit."""

    def _reserve_and_validate(self, X, *, free=False, **check_params):
        """Reserve the planned spend, then validate ``X``; returns ``(X, plan)``.

        The order every private fit follows: the plan depends on the shape of ``X`` only,
        and a budget overrun raises before any value is read. ``free=True`` (a fit that
        reads nothing from the rows) reserves nothing and returns ``plan=None``.
        ``check_params`` go to :func:`~skprivate.utils._validation.validate_numeric`
        (float64 unless told otherwise).
        """
        plan = None if free else self._begin_private_fit(X)
        check_params.setdefault("dtype", np.float64)
        X = validate_numeric(self, X, reset=True, **check_params)
        if plan is None and not free:  # X had no shape before validation
            plan = self._reserve_plan(X.shape[0])
        return X, plan

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
