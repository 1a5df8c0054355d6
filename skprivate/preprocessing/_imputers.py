"""Missing-value imputation with a differentially private fill value."""

from fractions import Fraction

import numpy as np
from sklearn.base import OneToOneFeatureMixin, _fit_context
from sklearn.utils._param_validation import StrOptions

from ..utils._docstrings import Substitution
from ._common import (
    _PARAM_DOCS,
    _PrivateTransformer,
    QUANTILE_RESOLUTION,
    check_transform_input,
    gaussian_event,
    gaussian_noise_multiplier,
    grid_quantiles,
    rank_utility_sensitivity,
    release_counts_and_sums,
    resolve_bounds,
)

__all__ = ["SimpleImputer"]


@Substitution(**_PARAM_DOCS)
class SimpleImputer(OneToOneFeatureMixin, _PrivateTransformer):
    """Replace missing values (NaN) by a private mean or median, or by a constant.

    A counterpart of :class:`sklearn.preprocessing.SimpleImputer` (numeric features,
    ``missing_values=np.nan``) whose fill values are differentially private.

    Parameters
    ----------
    strategy : {"mean", "median", "constant"}, default="mean"
        ``"mean"``: private mean of the non-missing values (rounded Gaussian noise).
        ``"median"``: private median (permute-and-flip over a public grid). ``"constant"``:
        ``fill_value``, at no privacy cost.
    fill_value : float, default=0.0
        The value for ``strategy="constant"``.
    epsilon : float, default=0.1
        Privacy budget of the fit, > 0 (unused with ``"constant"``).
    delta : float, default=1e-6
        Delta of the fit (used by ``"mean"``; ``"median"`` is pure DP).
    %(bounds)s
    %(accountant)s
    %(random_state)s

    Attributes
    ----------
    statistics_ : ndarray of shape (n_features,)
        The fill value of each feature.
    bounds_ : tuple of ndarray or None
        The clipping range used (None with ``"constant"``).
    epsilon_, delta_ : float
    privacy_report_ : PrivacyReport
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    See Also
    --------
    StandardScaler : Private standardization, after imputation.

    Notes
    -----
    ``"mean"``: releases, per feature, the number of non-missing values and the sum of their
    clipped values mapped to [-1, 1], with noise ``sigma = z sqrt(2 d)`` on each and no
    floating-point noise: exact rounded Gaussian noise ``round(N(0, sigma**2))`` on the
    integer counts, the rounded Gaussian on a power-of-two grid
    (:func:`~skprivate.mechanisms.rounded_gaussian_mechanism`) on the sums. A row changes
    each of the ``2 d`` coordinates by at most 1, so the L2 sensitivity is ``sqrt(2 d)``;
    the release is a post-processing of the continuous Gaussian mechanism with noise
    multiplier at least ``z``, the analytic Gaussian's for ``(epsilon, delta)`` (Balle and
    Wang 2018, Theorem 8), and the fit's event is ``GaussianDpEvent(z)``; the fill value is
    their ratio, clipped to the bounds.
    ``"median"``: the median of the non-missing values of each feature chosen by
    permute-and-flip (McKenna and Sheldon 2020, Theorem 1) among the 4097 evenly spaced
    points of its public range, with exact integer sampling (the fill value is one of those
    points: off by at most ``(upper - lower) / 8192`` from the best one), ``epsilon / d``
    each, composed by basic composition (Dwork and Roth 2014, Theorem 3.16); the rank
    utility ``-max(#{x_i < c} - n_j / 2, n_j / 2 - #{x_i <= c}, 0)`` moves by at most
    ``1/2`` when a row is added or removed, and the mechanism is calibrated to that
    sensitivity. Values are not clipped in ``transform``: only missing entries change.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from skprivate.preprocessing import SimpleImputer
    >>> X = np.random.default_rng(0).uniform(0, 10, size=(20000, 1))
    >>> X[::4] = np.nan
    >>> imputer = SimpleImputer(epsilon=0.5, bounds=(0, 10), random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the seed caveat: random_state=0
    ...     Xt = imputer.fit_transform(X)
    >>> np.round(imputer.statistics_, 1)
    array([5.])
    """

    _parameter_constraints = {
        **_PrivateTransformer._dp_parameter_constraints,
        "strategy": [StrOptions({"mean", "median", "constant"})],
        "fill_value": [float, int],
        "bounds": [tuple, list, None],
    }

    # Spelled out like every transformer's __init__ here (a repetition kept on purpose):
    # scikit-learn reads an estimator's parameters from its own __init__ signature.
    def __init__(self, strategy="mean", fill_value=0.0, epsilon=0.1, delta=1e-6, bounds=None,
                 accountant=None, random_state=None):
        self.strategy = strategy
        self.fill_value = fill_value
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.accountant = accountant
        self.random_state = random_state

    def _privacy_plan(self, n_samples):
        if self.strategy == "constant":
            return self._privacy_spend(0.0, 0.0)
        if self.strategy == "median":
            return self._privacy_spend(self.epsilon, 0.0)
        # One Gaussian mechanism of noise multiplier z whatever n (see Notes): an event the
        # accountants compose.
        z = gaussian_noise_multiplier(self.epsilon, self.delta)
        return self._privacy_spend(self.epsilon, self.delta, event=gaussian_event(z))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Compute the fill value of each feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private data, numeric; NaN marks a missing value.
        y : None
            Ignored.

        Returns
        -------
        self : SimpleImputer
        """
        constant = self.strategy == "constant"
        X, plan = self._reserve_and_validate(X, free=constant, ensure_all_finite="allow-nan")
        d = X.shape[1]
        if constant:
            self.statistics_ = np.full(d, float(self.fill_value))
            self.bounds_ = None
            self._finish_free_fit("none: a constant fill value")
            return self
        rng = self._noise_rng()
        lower, upper, caveats = resolve_bounds(self.bounds, X, type(self).__name__)
        Xc = np.clip(X, lower, upper)  # NaN stays NaN
        released_n = None  # pure DP (median): no delta to check against 1/n
        if self.strategy == "median":
            self.statistics_ = grid_quantiles(
                Xc, lower, upper, Fraction(1, 2), self.epsilon / d, rng
            )
            report = {
                "mechanism": "permute-and-flip median per feature over "
                             f"{QUANTILE_RESOLUTION + 1} evenly spaced candidates in the "
                             "bounds, exact integer sampling",
                "epsilon_per_feature": self.epsilon / d,
                "utility_sensitivity": rank_utility_sensitivity(0.5),
                "reference": "McKenna and Sheldon 2020, Theorem 1; "
                             "Dwork and Roth 2014, Theorem 3.16",
            }
        else:
            centre, half = (upper + lower) / 2.0, (upper - lower) / 2.0
            present = ~np.isnan(Xc)
            U = np.where(present, (Xc - centre) / half, 0.0)
            z = gaussian_noise_multiplier(self.epsilon, self.delta)
            sigma = z * np.sqrt(2.0 * d)
            # counts (L2 sensitivity sqrt(d)) and sums (sqrt(d)): one Gaussian mechanism of
            # noise multiplier >= z (release_counts_and_sums; Balle and Wang 2018, Thm 8)
            counts, sums = release_counts_and_sums(
                present.sum(axis=0), U.sum(axis=0), sigma, np.sqrt(float(d)), rng
            )
            mean_u = np.clip(sums / np.maximum(counts, 1.0), -1.0, 1.0)
            released_n = max(float(np.max(counts)), 1.0)  # post-processing: delta caveat
            self.statistics_ = centre + half * mean_u
            report = {
                "mechanism": "rounded Gaussian on the counts and, on a power-of-two "
                             "grid, on the clipped sums, per feature (exact integer "
                             "sampler: no floating-point noise)",
                "noise_std": float(sigma),
                "l2_sensitivity": float(np.sqrt(2.0 * d)),
                "noise_multiplier": float(z),
                "reference": "Balle and Wang 2018, Theorem 8 (analytic Gaussian); the "
                             "rounded Gaussian is a post-processing of the Gaussian "
                             "mechanism",
            }
        self.bounds_ = (lower, upper)
        self._finish_private_fit(plan, report, released_n, caveats)
        return self

    def transform(self, X):
        """Fill the missing values of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Values with NaN where one is missing; the others pass through unchanged.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_features)
        """
        X = check_transform_input(self, X, ensure_all_finite="allow-nan")
        return np.where(np.isnan(X), self.statistics_, X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags
