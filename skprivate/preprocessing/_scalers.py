"""Scalers whose fitted statistics are differentially private."""

import math
from fractions import Fraction
from numbers import Real

import numpy as np
from sklearn.base import OneToOneFeatureMixin, _fit_context
from sklearn.utils.validation import check_is_fitted

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
from ..mechanisms._validation import exact_fraction

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
    released with (rounded) Gaussian noise, so that a Pipeline of this scaler and a
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
    the count gets exact rounded Gaussian noise ``round(N(0, sigma**2))`` (an integer), the
    ``2 d`` sums are rounded to a power-of-two grid and get exact rounded Gaussian noise on
    it (:func:`~skprivate.mechanisms.rounded_gaussian_mechanism`, scaled to their lattice
    sensitivity). Both are post-processings of the continuous Gaussian mechanism, so the
    whole release is one Gaussian mechanism with noise multiplier at least ``z`` and has its
    exact curve: ``z`` is the analytic Gaussian's for ``(epsilon, delta)`` (Balle and Wang
    2018, Theorem 8), 6 to 11 % less noise than the zCDP calibration the discrete Gaussian
    needed. Equal noise on all coordinates minimises the summed squared error of the
    released sums for this sensitivity. Mean and variance are post-processing: ``mean = sum u / n``,
    ``var = sum u**2 / n - mean**2``, clipped to their possible ranges, the variance held at
    least at ``noise_std_ / n`` (a noise-level floor: a noisy near-zero variance would
    otherwise blow a feature up). The fit's ``dp_accounting`` event is
    ``GaussianDpEvent(z)``, exact for the release, so that its privacy loss composes with the
    estimator's in an RDP or privacy-loss-distribution accountant.

    The error shrinks as ``1 / n`` and grows with the width of the bounds and with
    ``sqrt(d)``: tight public bounds matter more than epsilon.

    References
    ----------
    .. [1] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for Differential
       Privacy: Analytical Calibration and Optimal Denoising", ICML 2018.

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
        # One Gaussian mechanism with noise multiplier z at (epsilon, delta), whatever n and
        # d: the sensitivity is absorbed in the noise (see Notes); the noise does not depend
        # on a noisy count, so the event may be composed with others.
        z = gaussian_noise_multiplier(self.epsilon, self.delta)
        return self._privacy_spend(self.epsilon, self.delta, event=gaussian_event(z))

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
        z = gaussian_noise_multiplier(self.epsilon, self.delta)
        sigma = z * _standard_sensitivity(d)
        moments = _standard_moments(U)
        # One Gaussian mechanism of noise multiplier >= z on the joint vector
        # (release_counts_and_sums): (epsilon, delta)-DP by Balle and Wang 2018, Theorem 8.
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
                "mechanism": "rounded Gaussian on the count and, on a power-of-two grid, "
                             "on the clipped sums and sums of squares (exact integer "
                             "sampler: no floating-point noise)",
                "noise_std": float(sigma),
                "l2_sensitivity": _standard_sensitivity(d),
                "noise_multiplier": float(z),
                "reference": "Balle and Wang 2018, Theorem 8 (analytic Gaussian); the "
                             "rounded Gaussian is a post-processing of the Gaussian "
                             "mechanism",
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
        Private quantile range of each feature (at least one step of the candidates' grid,
        ``1/4096`` of the bounds' width).
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
    Each quantile is chosen by permute-and-flip (McKenna and Sheldon 2020, Theorem 1:
    ``epsilon / (3 d)``-DP each) among the ``4097`` evenly spaced points of the public range
    of its feature, with exact integer sampling (no floating-point noise: the released value
    is one of those public points); the ``3 d`` releases compose by basic composition (Dwork
    and Roth 2014, Theorem 3.16) to ``epsilon``-DP. The utility of a candidate ``c`` for the
    ``q``-quantile is ``-max(#{x_i < c} - q n, q n - #{x_i <= c}, 0)``; adding or removing
    a row moves it by at most ``max(q, 1 - q)`` (``n`` moves too), and the mechanism is
    calibrated to that sensitivity: ``1/2`` for the median, ``3/4`` for the quartiles. The
    number of rows needs no noisy count (it enters only the utility, whose sensitivity
    accounts for it). A quantile is off by at most half a grid step, ``(upper - lower) /
    8192``, from the best candidate, and the mechanism's rank error grows only with the
    logarithm of the number of candidates: declare bounds within a few orders of magnitude
    of the values' spread (the grid step grows with the width of the bounds).

    References
    ----------
    .. [1] R. McKenna and D. Sheldon, "Permute-and-Flip: A new mechanism for differentially
       private selection", NeurIPS 2020.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from skprivate.preprocessing import RobustScaler
    >>> X = np.random.default_rng(0).standard_cauchy(size=(20000, 1))
    >>> scaler = RobustScaler(epsilon=1.0, bounds=(-100, 100), random_state=0)
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
        # exact fractions: the utilities are scaled to integers by their denominators
        return exact_fraction(q_min) / 100, exact_fraction(q_max) / 100

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
        lo = grid_quantiles(Xc, lower, upper, q_min, each, rng)
        mid = grid_quantiles(Xc, lower, upper, Fraction(1, 2), each, rng)
        hi = grid_quantiles(Xc, lower, upper, q_max, each, rng)
        self.bounds_ = (lower, upper)
        self.center_ = mid
        with np.errstate(over="ignore"):  # a spread beyond the largest double is kept at it
            spread = np.minimum(np.abs(hi - lo), np.finfo(np.float64).max)
        # At least one grid step (the quantiles' resolution): a range below it reads as 0
        # and would blow the feature up. Half units: the width may exceed the largest double.
        step = (upper / 2.0 - lower / 2.0) * (2.0 / QUANTILE_RESOLUTION)
        self.scale_ = np.maximum(spread, step)
        self._finish_private_fit(
            plan,
            {
                "mechanism": "permute-and-flip quantiles (3 per feature) over "
                             f"{QUANTILE_RESOLUTION + 1} evenly spaced candidates in the "
                             "bounds, exact integer sampling",
                "epsilon_per_quantile": float(each),
                "utility_sensitivity": [rank_utility_sensitivity(q) for q in
                                        (q_min, 0.5, q_max)],
                "composition": "basic (Dwork and Roth 2014, Theorem 3.16)",
                "reference": "McKenna and Sheldon 2020, Theorem 1",
            },
            None,  # pure DP: no delta to check against 1/n, and no count released
            caveats,
        )
        return self

    def _offset_and_scale(self):
        return self.center_, self.scale_
