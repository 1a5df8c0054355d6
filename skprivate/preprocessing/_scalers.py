"""Scalers whose fitted statistics are differentially private."""

import math
from numbers import Real

import numpy as np
from sklearn.base import OneToOneFeatureMixin, _fit_context
from sklearn.utils.validation import check_is_fitted

from ..utils._docstrings import Substitution
from ._common import (
    _PARAM_DOCS,
    _PrivateTransformer,
    check_transform_input,
    exponential_quantiles,
    rank_utility_sensitivity,
    release_counts_and_sums,
    resolve_bounds,
    zcdp_event,
    zcdp_noise_multiplier,
)

__all__ = ["RobustScaler", "StandardScaler"]


def _standard_moments(U):
    """The query: ``(n, sum_i u_i, sum_i (u_i**2 - 1/2))`` for rows of ``U`` in [-1, 1]^d."""
    return np.concatenate([[U.shape[0]], U.sum(axis=0), (U * U - 0.5).sum(axis=0)])


def _standard_sensitivity(n_features):
    """L2 sensitivity of :func:`_standard_moments` under add/remove of one row.

    A row adds ``(1, u, u**2 - 1/2)`` with ``|u_j| <= 1`` and ``|u_j**2 - 1/2| <= 1/2``, so
    the change has squared norm at most ``1 + d + d / 4``.
    """
    return math.sqrt(1.0 + 1.25 * n_features)


def _sums_sensitivity(n_features):
    """L2 sensitivity of the sums alone (``sum u``, ``sum (u**2 - 1/2)``): ``sqrt(1.25 d)``."""
    return math.sqrt(1.25 * n_features)


class _ClipAndScaleMixin:
    """``transform``: clip to ``bounds_``, subtract an offset, divide by a scale; and back.

    The fitted ``(offset, scale)`` per feature come from ``_offset_and_scale``.
    """

    def transform(self, X):
        """Clip to ``bounds_``, centre and scale with the private statistics.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Values to scale; each is clipped to ``bounds_`` first.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_features)
        """
        X = check_transform_input(self, X)
        offset, scale = self._offset_and_scale()
        return (np.clip(X, *self.bounds_) - offset) / scale

    def inverse_transform(self, X):
        """Undo the scaling (values stay within ``bounds_``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Scaled values, as ``transform`` returns them.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
        """
        check_is_fitted(self)
        offset, scale = self._offset_and_scale()
        return np.asarray(X, dtype=np.float64) * scale + offset


@Substitution(**_PARAM_DOCS)
class StandardScaler(_ClipAndScaleMixin, OneToOneFeatureMixin, _PrivateTransformer):
    """Standardize features with a differentially private mean and variance.

    A drop-in for :class:`sklearn.preprocessing.StandardScaler` whose statistics are
    released with (discrete) Gaussian noise, so that a Pipeline of this scaler and a
    differentially private estimator is private as a whole. Values are clipped to public
    ``bounds`` first.

    Parameters
    ----------
    epsilon : float, default=0.1
        Privacy budget of the fit, > 0. The default is a tenth of a typical model's
        budget: :func:`make_private_pipeline` sets it from one total.
    delta : float, default=1e-6
        Delta of the fit, in (0, 1).
    %(bounds)s
    with_mean : bool, default=True
        Centre the data in ``transform`` (the mean is released either way).
    with_std : bool, default=True
        Divide by the standard deviation in ``transform``.
    %(accountant)s
    %(random_state)s

    Attributes
    ----------
    mean_ : ndarray of shape (n_features,)
        Private mean of each (clipped) feature.
    var_ : ndarray of shape (n_features,)
        Private variance of each feature (never below the noise's own standard
        deviation, in the unit of the bounds; see Notes).
    scale_ : ndarray of shape (n_features,)
        ``sqrt(var_)``.
    n_samples_seen_ : float
        Private number of rows (the noisy count, an integer at least 1).
    bounds_ : tuple of ndarray
        The clipping range used.
    noise_std_ : float
        The Gaussian noise's ``sigma`` on the count and on each released sum, in units
        where every feature lies in [-1, 1].
    epsilon_, delta_ : float
        Privacy spent by the fit (add/remove-one-row neighbours).
    privacy_report_ : PrivacyReport
        Mechanism, noise, cost and caveats.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.

    See Also
    --------
    RobustScaler : Private median and quantiles, for heavy-tailed columns.
    make_private_pipeline : One budget for the scaler and the estimator.
    make_bounded_preprocessor : Scaling from declared ranges, at no privacy cost.

    Notes
    -----
    Each feature ``x_j`` is clipped to ``[a_j, b_j]`` and mapped to
    ``u_j = (x_j - c_j) / r_j`` in [-1, 1] (``c`` the centre and ``r`` the half-width of
    the bounds). The vector ``(n, sum u, sum (u**2 - 1/2))`` of length ``1 + 2 d``, whose
    L2 sensitivity under adding or removing a row is ``sqrt(1 + 1.25 d)``, is released with
    noise ``sigma = z sqrt(1 + 1.25 d)`` on every coordinate, without floating-point noise:
    the count gets exact discrete Gaussian noise (an integer), the ``2 d`` sums are rounded to
    a power-of-two grid and get exact discrete Gaussian noise on it
    (:func:`~skprivate.mechanisms.granular_gaussian_mechanism`). The whole release is
    ``1 / (2 z**2)``-zero-concentrated DP (Canonne, Kamath and Steinke 2020, Theorems 4 and
    14, composed by adding the two parts' rhos), and ``z`` is the smallest whose conversion
    to ``(epsilon, delta)`` (their Proposition 12) is within ``epsilon``; about 7 to 11 %
    more noise than the analytic calibration of continuous Gaussian noise (Balle and Wang
    2018), whose exact curve the discrete noise does not have. Equal noise on all
    coordinates minimises the summed squared error of the released sums for this
    sensitivity. Mean and variance are post-processing: ``mean = sum u / n``,
    ``var = sum u**2 / n - mean**2``, clipped to their possible ranges, the variance held at
    least at ``noise_std_ / n`` (a noise-level floor: a noisy near-zero variance would
    otherwise blow a feature up). The fit's ``dp_accounting`` event is its zCDP
    (``ZCDpEvent``), so that its privacy loss composes in Renyi DP with the estimator's.

    The error shrinks as ``1 / n`` and grows with the width of the bounds and with
    ``sqrt(d)``: tight public bounds matter more than epsilon.

    References
    ----------
    .. [1] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for Differential
       Privacy", NeurIPS 2020, arXiv:2004.00010.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.preprocessing import StandardScaler
    >>> X = np.random.default_rng(0).normal(50, 10, size=(10000, 2))
    >>> scaler = StandardScaler(epsilon=0.5, bounds=(0, 100), random_state=0)
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the seed caveat: random_state=0
    ...     Xt = scaler.fit_transform(X)
    >>> np.round(scaler.mean_, 0), np.round(scaler.scale_, 0)
    (array([50., 50.]), array([10., 10.]))
    >>> scaler.epsilon_, scaler.delta_
    (0.5, 1e-06)
    """

    _parameter_constraints = {
        **_PrivateTransformer._dp_parameter_constraints,
        "bounds": [tuple, list, None],
        "with_mean": ["boolean"],
        "with_std": ["boolean"],
    }

    # Spelled out like every transformer's __init__ here (a repetition kept on purpose):
    # scikit-learn reads an estimator's parameters from its own __init__ signature.
    def __init__(self, epsilon=0.1, delta=1e-6, bounds=None, with_mean=True, with_std=True,
                 accountant=None, random_state=None):
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.with_mean = with_mean
        self.with_std = with_std
        self.accountant = accountant
        self.random_state = random_state

    def _privacy_plan(self, n_samples):
        # One 1 / (2 z**2)-zCDP release at (epsilon, delta), whatever n and d: the
        # sensitivity is absorbed in the noise (see Notes); the noise does not depend on a
        # noisy count, so the zCDP event may be composed with others.
        z = zcdp_noise_multiplier(self.epsilon, self.delta)
        return self._privacy_spend(self.epsilon, self.delta, event=zcdp_event(z))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Compute the private mean and variance of each feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private data, numeric, without missing values (impute first).
        y : None
            Ignored.

        Returns
        -------
        self : StandardScaler
        """
        X, plan = self._reserve_and_validate(X)
        rng = self._noise_rng()
        lower, upper, caveats = resolve_bounds(self.bounds, X, type(self).__name__)
        # Halved before they are added: (upper - lower) overflows for bounds beyond +-9e307.
        centre, half = upper / 2.0 + lower / 2.0, upper / 2.0 - lower / 2.0
        U = (np.clip(X, lower, upper) - centre) / half
        d = X.shape[1]
        sigma = zcdp_noise_multiplier(self.epsilon, self.delta) * _standard_sensitivity(d)
        moments = _standard_moments(U)
        # (1 + 1.25 d) / (2 sigma**2) = 1 / (2 z**2)-zCDP in all (release_counts_and_sums).
        count, sums = release_counts_and_sums(
            moments[:1].astype(np.int64), moments[1:], sigma, _sums_sensitivity(d), rng
        )
        noisy = np.concatenate([count, sums])
        n = max(float(noisy[0]), 1.0)
        mean_u = np.clip(noisy[1:1 + d] / n, -1.0, 1.0)
        second = np.clip(noisy[1 + d:] / n + 0.5, 0.0, 1.0)
        var_u = np.clip(second - mean_u**2, sigma / n, 1.0)
        self.bounds_ = (lower, upper)
        self.mean_ = centre + half * mean_u
        self.scale_ = half * np.sqrt(var_u)  # not sqrt(var_): half**2 overflows from 1.3e154
        with np.errstate(over="ignore"):  # a variance beyond the largest double is inf
            self.var_ = self.scale_**2
        self.n_samples_seen_ = n
        self.noise_std_ = float(sigma)
        self._finish_private_fit(
            plan,
            {
                "mechanism": "discrete Gaussian on the count, granular Gaussian on the "
                             "clipped sums and sums of squares",
                "noise_std": float(sigma),
                "l2_sensitivity": _standard_sensitivity(d),
                "zcdp_rho": float(1.0 / (2.0 * (sigma / _standard_sensitivity(d)) ** 2)),
                "reference": "Canonne, Kamath and Steinke 2020, Theorems 4 and 14, "
                             "Proposition 12",
            },
            n,  # the released count, not X.shape[0]: the report is published
            caveats,
        )
        return self

    def _offset_and_scale(self):
        return (self.mean_ if self.with_mean else 0.0), (self.scale_ if self.with_std else 1.0)


@Substitution(**_PARAM_DOCS)
class RobustScaler(_ClipAndScaleMixin, OneToOneFeatureMixin, _PrivateTransformer):
    """Scale features by a private median and quantile range.

    A differentially private counterpart of :class:`sklearn.preprocessing.RobustScaler`
    for heavy-tailed columns: centre each feature at a private median and divide by the
    distance between two private quantiles. With ``quantile_range=(0, 100)`` minus a
    margin (for example ``(2, 98)``) it acts as a private min-max scaler that ignores
    the extreme rows.

    Parameters
    ----------
    epsilon : float, default=0.1
        Privacy budget of the fit, > 0, shared equally by the ``3 n_features`` quantiles.
    delta : float, default=1e-6
        Accepted for a uniform interface; the mechanism is pure (``delta_ = 0``).
    %(bounds)s
    quantile_range : tuple (q_min, q_max), default=(25.0, 75.0)
        Percentiles, ``0 <= q_min < q_max <= 100``, whose distance is the scale.
    %(accountant)s
    %(random_state)s

    Attributes
    ----------
    center_ : ndarray of shape (n_features,)
        Private median of each feature.
    scale_ : ndarray of shape (n_features,)
        Private quantile range of each feature (at least 1e-6 of the bounds' width).
    bounds_ : tuple of ndarray
    epsilon_, delta_ : float
    privacy_report_ : PrivacyReport
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    See Also
    --------
    StandardScaler : Private mean and variance.

    Notes
    -----
    Each quantile is released with the exponential mechanism over the public interval
    (Smith 2011; McSherry and Talwar 2007, Theorem 6), ``epsilon / (3 d)``-DP; the
    ``3 d`` releases compose by basic composition (Dwork and Roth 2014, Theorem 3.16) to
    ``epsilon``-DP. The utility of a point ``x`` for the ``q``-quantile is
    ``-|#{x_i < x} - q n|``; adding or removing a row moves it by at most
    ``max(q, 1 - q)`` (``n`` moves too), and the mechanism is calibrated to that
    sensitivity: ``1/2`` for the median, ``3/4`` for the quartiles (at ``q`` = 0 or 1 the
    utility is monotone and the mechanism's factor 2 is dropped). Each quantile's loss
    reaches its share of ``epsilon`` at the worst neighbours, and the number of rows
    needs no noisy count (it enters only the utility, whose sensitivity accounts for it).
    The error of a quantile grows with the width of the bounds only
    logarithmically, so loose bounds cost little here, unlike :class:`StandardScaler`.

    References
    ----------
    .. [1] A. Smith, "Privacy-preserving statistical estimation with optimal convergence
       rates", STOC 2011.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from skprivate.preprocessing import RobustScaler
    >>> X = np.random.default_rng(0).standard_cauchy(size=(20000, 1))
    >>> scaler = RobustScaler(epsilon=1.0, bounds=(-1e4, 1e4), random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the seed caveat: random_state=0
    ...     _ = scaler.fit(X)
    >>> np.round(scaler.center_, 1), np.round(scaler.scale_, 1)
    (array([0.]), array([2.]))
    """

    _parameter_constraints = {
        **_PrivateTransformer._dp_parameter_constraints,
        "bounds": [tuple, list, None],
        "quantile_range": [tuple],
    }

    # Spelled out like every transformer's __init__ here (a repetition kept on purpose):
    # scikit-learn reads an estimator's parameters from its own __init__ signature.
    def __init__(self, epsilon=0.1, delta=1e-6, bounds=None, quantile_range=(25.0, 75.0),
                 accountant=None, random_state=None):
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.quantile_range = quantile_range
        self.accountant = accountant
        self.random_state = random_state

    def _privacy_plan(self, n_samples):
        return self._privacy_spend(self.epsilon, 0.0)

    def _check_range(self):
        q_min, q_max = self.quantile_range
        if not (isinstance(q_min, Real) and isinstance(q_max, Real)
                and 0 <= q_min < q_max <= 100):
            raise ValueError(
                f"RobustScaler: quantile_range must be (q_min, q_max) with 0 <= q_min < q_max "
                f"<= 100; got {self.quantile_range!r}."
            )
        return q_min / 100.0, q_max / 100.0

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Compute the private median and quantile range of each feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private data, numeric, without missing values.
        y : None
            Ignored.

        Returns
        -------
        self : RobustScaler
        """
        q_min, q_max = self._check_range()
        X, plan = self._reserve_and_validate(X)
        rng = self._noise_rng()
        lower, upper, caveats = resolve_bounds(self.bounds, X, type(self).__name__)
        Xc = np.clip(X, lower, upper)
        each = self.epsilon / (3 * X.shape[1])
        lo = exponential_quantiles(Xc, lower, upper, q_min, each, rng)
        mid = exponential_quantiles(Xc, lower, upper, 0.5, each, rng)
        hi = exponential_quantiles(Xc, lower, upper, q_max, each, rng)
        self.bounds_ = (lower, upper)
        self.center_ = mid
        with np.errstate(over="ignore"):  # a spread beyond the largest double is kept at it
            spread = np.minimum(np.abs(hi - lo), np.finfo(np.float64).max)
        self.scale_ = np.maximum(spread, 2e-6 * (upper / 2.0 - lower / 2.0))
        self._finish_private_fit(
            plan,
            {
                "mechanism": "exponential mechanism quantiles (3 per feature)",
                "epsilon_per_quantile": float(each),
                "utility_sensitivity": [rank_utility_sensitivity(q) for q in
                                        (q_min, 0.5, q_max)],
                "composition": "basic (Dwork and Roth 2014, Theorem 3.16)",
                "reference": "Smith 2011; McSherry and Talwar 2007, Theorem 6",
            },
            None,  # pure DP: no delta to check against 1/n, and no count released
            caveats,
        )
        return self

    def _offset_and_scale(self):
        return self.center_, self.scale_
