"""Linear and ridge regression from private sufficient statistics (AdaSSP).

Mechanism: AdaSSP, Wang (2018), "Revisiting differentially private linear regression:
optimal and adaptive prediction & estimation in unbounded domain", Algorithm 2. The rows are
mapped to bounded ``z`` (features scaled by public ``bounds_X`` to [-1, 1], or clipped to the
ball of radius ``data_norm``), then clipped to a radius ``r`` chosen privately (below), a
constant 1 appended for the intercept, and the target to ``v`` in [-1, 1] by public
``bounds_y``. With ``B**2 = r**2 (+ 1)`` the bound on ``||z||**2``, four releases:

0. the radius ``r``: the median of the scaled rows' norms, read from a histogram over public
   geometric bins with exact discrete Laplace counts, ``HISTOGRAM_SHARE * epsilon``-DP
   (:func:`skprivate._second_moments.private_norm_quantile`). The public bound
   (``sqrt(n_features)`` after scaling, or ``data_norm``) is usually far above the typical
   row, and the noise of the releases below grows with ``B**2``; clipping at the median
   shrinks the noise by that factor, at the price of a bias (rows beyond ``r`` are scaled
   down, their targets are not). On diabetes it raised the test R2 at epsilon 1 from 0.02
   to 0.19 (``benchmarks/adassp.py``);

1. ``lambda_min(Z^T Z)`` with Gaussian noise. Adding or removing a row adds or subtracts
   ``z z^T``, a positive semi-definite matrix of norm ``||z||**2 <= B**2``, so every
   eigenvalue moves by at most ``B**2`` (Weyl's inequality): L2 sensitivity ``B**2``;
2. ``Z^T Z`` by :func:`skprivate._second_moments.noisy_second_moment` (L2 sensitivity
   ``B**2``, proved there);
3. ``Z^T v`` with Gaussian noise: a row adds ``z v``, of norm at most ``B``.

Each is released by :func:`~skprivate.mechanisms.granular_gaussian_mechanism` (exact discrete
Gaussian noise), ``rho / 3``-zCDP (Canonne, Kamath and Steinke 2020, Theorem 14); the three
compose to ``rho``-zCDP (Bun and Steinke 2016, Lemma 2.3, adaptively: their sensitivity
depends on the released radius, their ``rho`` does not), which is
``(zcdp_epsilon(rho, delta), delta)``-DP (Canonne, Kamath and Steinke 2020, Proposition 12),
and the pure histogram adds its epsilon (basic adaptive composition, Dwork and Roth 2014,
Theorem 3.16): ``rho = zcdp_rho(epsilon - epsilon_h, delta)``. No noise depends on the
number of rows, so no count is released (the radius's quantile is taken of the histogram's
own noisy total).

Post-processing: the ridge ``lambda = max(0, tau - lambda_min_low)``, where ``tau`` bounds
the spectral norm of the noise on ``Z^T Z`` with probability ``1 - beta`` (Wang 2018,
Algorithm 2: ``sigma sqrt(p log(2 p**2 / beta))``, a union bound over the ``p**2`` entries)
and ``lambda_min_low`` is the released eigenvalue minus a one-sided Gaussian tail bound, so
that the regularised noisy matrix is positive definite with high probability; the
coefficients solve ``(noisy Z^T Z + lambda I + A) theta = noisy Z^T v``, ``A`` the user's
``alpha`` carried to the scaled features.
"""

import math
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from .. import _caveats
from .._row_count import rest_epsilon
from .._second_moments import noisy_second_moment, private_norm_quantile
from ..accounting._zcdp import gaussian_sigma_for_rho, zcdp_rho
from ..base import DPEstimatorMixin
from ..mechanisms import granular_gaussian_mechanism
from ..preprocessing._common import resolve_bounds
from ..utils._docstrings import SHARED_DOCS, Substitution
from ..utils._validation import validate_numeric

__all__ = ["LinearRegression", "Ridge"]

#: Failure probability of AdaSSP's high-probability bounds (Wang 2018 uses 0.05).
BETA = 0.05
#: Share of epsilon for the norm histogram that sets the rows' clipping radius.
HISTOGRAM_SHARE = 0.1
#: The rows are clipped at this quantile of their norms (measured on diabetes: the median
#: beat the 75th and 90th percentiles at every epsilon, see ``benchmarks/adassp.py``).
RADIUS_QUANTILE = 0.5
# Coarse bins (2 per octave over 6 octaves below the public bound): on a few hundred rows the
# noise of 49 fine bins accumulates to more than half the rows (measured on diabetes).
_BINS = {"bins_per_octave": 2, "octaves": 6}


def _thirds(rho):
    """Three equal shares of ``rho`` whose sum stays within it in floating point."""
    share = rho / 3.0
    while 3 * share > rho or share + share + share > rho:
        share = math.nextafter(share, 0.0)
    return share


def _target_bounds(bounds_y, y, owner):
    """``(lower, upper, caveats)`` of the target: declared, or read from ``y`` (a caveat)."""
    if bounds_y is None:
        lower, upper = float(np.min(y)), float(np.max(y))
        if not upper > lower:
            upper = lower + 1.0
        return lower, upper, [_caveats.bounds_from_data(["bounds_y"],
                                                        "bounds_y=(lower, upper)")]
    try:
        lower, upper = (float(b) for b in bounds_y)
    except (TypeError, ValueError):
        raise ValueError(
            f"{owner}: bounds_y must be a pair (lower, upper) of numbers; got "
            f"{bounds_y!r}. Pass the target's public range, for example bounds_y=(0, 400)."
        ) from None
    if not (math.isfinite(lower) and math.isfinite(upper) and lower < upper):
        raise ValueError(
            f"{owner}: bounds_y must be finite with lower < upper; got {bounds_y!r}. "
            "Pass the target's public range, for example bounds_y=(0, 400)."
        )
    return lower, upper, []


_ADASSP_PARAMS = {
    "adassp_common": """
    epsilon : float, default=1.0
        Privacy budget of the fit, > 0.
    delta : float, default=1e-5
        Delta of the fit, in (0, 1): below ``1 / n`` for tables up to 100,000 rows.
    bounds_X : tuple (lower, upper) or None, default=None
        Public range of each feature (two numbers, or two arrays of length
        ``n_features``), known without looking at the data (diffprivlib's name). Features
        are clipped to it and scaled to [-1, 1]. With ``bounds_X=None`` and
        ``data_norm=None`` each feature's range is read from the data: the fit then has
        no privacy guarantee, a :class:`~skprivate.exceptions.PrivacyLeakWarning` says
        so, and every total lists it as not covered.
    bounds_y : tuple (lower, upper) or None, default=None
        Public range of the target; values are clipped to it. None reads it from ``y``,
        with the same warning.
    data_norm : float or None, default=None
        Public bound on each row's L2 norm, used when ``bounds_X`` is None: rows are
        scaled down to it (not rescaled otherwise).
    fit_intercept : bool, default=True
        Fit an intercept (a constant feature appended before the release).
    accountant : BudgetAccountant, default=None
        A budget shared by several fits. The fit checks its planned spend against it
        before reading any value of ``X`` and records ``(epsilon_, delta_)``.
    %(random_state)s""",
    "adassp_attributes": """
    coef_ : ndarray of shape (n_features,)
        Private coefficients, in the units of ``X`` and ``y``.
    intercept_ : float
        Private intercept (0.0 with ``fit_intercept=False``).
    noise_ridge_ : float
        AdaSSP's noise-aware ridge ``lambda`` added in the scaled space (see Notes).
    clip_radius_ : float
        The private radius the scaled rows were clipped to.
    bounds_ : tuple of ndarray or None
        The features' clipping range (None when ``data_norm`` was used).
    bounds_y_ : tuple of float
        The target's clipping range.
    epsilon_ : float
        The epsilon of the guarantee (add/remove-one-row neighbours).
    %(delta_)s
    %(privacy_report_)s
    %(n_features_in_)s
    %(feature_names_in_)s""",
    "adassp_notes": """
    Guarantee: ``(epsilon, delta)``-DP for add/remove-one-row neighbours. The features are
    scaled to [-1, 1] by ``bounds_X`` (or clipped to ``data_norm``), then clipped to a
    radius ``r``, the median of the rows' norms from a histogram with exact discrete
    Laplace counts (10 %% of ``epsilon``): the public bound is usually far above the
    typical row, and the noise below grows with the squared radius. With a constant 1
    for the intercept the rows ``z`` have ``||z||**2 <= B**2 = r**2 + 1``, and the target
    is scaled to [-1, 1] by ``bounds_y``. Three statistics are released: the smallest
    eigenvalue of ``Z^T Z`` (sensitivity ``B**2``, Weyl's inequality), ``Z^T Z``
    (sensitivity ``B**2``) and ``Z^T y`` (sensitivity ``B``), each with exact discrete
    Gaussian noise and a third of the zCDP budget ``rho``, the largest whose
    ``(epsilon', delta)`` conversion fits in the 90 %% of ``epsilon`` the histogram leaves.
    This is AdaSSP (Wang 2018, Algorithm 2) with a private clipping radius; clipping the
    rows and not their targets biases the coefficients where many rows are clipped.
    The coefficients solve the ridge system of the noisy statistics with a ridge
    ``noise_ridge_`` chosen from the noisy eigenvalue: large when the noise dominates
    the data's smallest eigenvalue, zero when the data are well conditioned. No noise
    depends on the number of rows, so none is released; the number of rows enters only
    the released ``Z^T Z`` (its intercept entry), with the noise. Public: the number and
    names of the columns, ``bounds_X`` or ``data_norm``, ``bounds_y``. The derivation is
    in the module docstring of :mod:`skprivate.linear_model._adassp`.

    The error falls as ``1 / n`` and grows with ``n_features`` and with the width of the
    bounds: declare them tight.""",
    "adassp_references": """
    .. [1] Y.-X. Wang, "Revisiting differentially private linear regression: optimal and
       adaptive prediction & estimation in unbounded domain", UAI 2018.
    .. [2] C. L. Canonne, G. Kamath and T. Steinke, "The discrete Gaussian for
       differential privacy", NeurIPS 2020.""",
}


class _AdaSSPRegressor(RegressorMixin, DPEstimatorMixin, BaseEstimator):
    """The fit shared by :class:`LinearRegression` and :class:`Ridge` (``_alpha``)."""

    # The number of rows enters only the released Z^T Z (with its noise): no count to list.
    _skprivate_row_count_unused = (
        "not published: it enters only the noisy second-moment matrix (its intercept entry)"
    )

    _parameter_constraints = {
        **DPEstimatorMixin._dp_parameter_constraints,
        "bounds_X": [tuple, list, None],
        "bounds_y": [tuple, list, None],
        "data_norm": [Interval(Real, 0, np.inf, closed="neither"), None],
        "fit_intercept": ["boolean"],
    }

    def _alpha(self):
        return 0.0

    def _centre_and_half(self, lower, upper):
        """The affine map of ``[lower, upper]`` onto [-1, 1] (a scaling only, onto a part of
        it, without an intercept: a shift would put one back in the original units)."""
        if self.fit_intercept:
            return upper / 2.0 + lower / 2.0, upper / 2.0 - lower / 2.0
        return 0.0 * lower, np.maximum(np.abs(lower), np.abs(upper))

    def _privacy_plan(self, n_samples):
        # A pure histogram and zCDP releases fitted within (epsilon, delta) whatever n, by
        # basic composition (module docstring): no dp_accounting event.
        return self._privacy_spend(self.epsilon, self.delta)

    def _budget(self):
        """``(epsilon_h, rho / 3)``: the histogram's epsilon and each Gaussian release's rho."""
        epsilon_h = HISTOGRAM_SHARE * float(self.epsilon)
        return epsilon_h, _thirds(zcdp_rho(rest_epsilon(self.epsilon, epsilon_h), self.delta))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the private coefficients.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private features, numeric, without missing values.
        y : array-like of shape (n_samples,)
            Private target.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        owner = type(self).__name__
        plan = self._begin_private_fit(X)
        X, y = validate_numeric(self, X, y, reset=True, dtype=np.float64, y_numeric=True)
        if plan is None:  # pragma: no cover - X had no shape before validation
            plan = self._reserve_plan(X.shape[0])
        rng = self._noise_rng()
        n_features = X.shape[1]

        caveats = []
        if self.bounds_X is not None or self.data_norm is None:
            lower, upper, read = resolve_bounds(self.bounds_X, X, owner)
            if read:  # the features' range was read from X: say which parameters to pass
                caveats.append(_caveats.bounds_from_data(
                    ["bounds_X", "data_norm"], "bounds_X=(lower, upper) or data_norm"))
            centre, half = self._centre_and_half(lower, upper)
            U = (np.clip(X, lower, upper) - centre) / half
            top = math.sqrt(n_features)  # every scaled feature in [-1, 1]
            bounds_ = (lower, upper)
        else:
            centre, half = np.zeros(n_features), np.ones(n_features)
            U, top, bounds_ = X, float(self.data_norm), None
        # The rows' radius: a private quantile of their norms (a pure release), far below
        # the public bound ``top`` on most tables; the rows are clipped to it.
        epsilon_h, share = self._budget()
        norms = np.linalg.norm(U, axis=1)
        radius = private_norm_quantile(np.minimum(norms, top), top, RADIUS_QUANTILE,
                                       epsilon_h, rng, **_BINS)
        U = U * np.minimum(1.0, radius / np.maximum(norms, np.finfo(float).tiny))[:, None]
        norm2 = radius**2
        y_lower, y_upper, y_caveats = _target_bounds(self.bounds_y, y, owner)
        caveats += y_caveats
        y_centre, y_half = self._centre_and_half(y_lower, y_upper)
        v = (np.clip(y, y_lower, y_upper) - y_centre) / y_half

        if self.fit_intercept:
            Z = np.hstack([U, np.ones((U.shape[0], 1))])
            norm2 += 1.0
        else:
            Z = U
        p = Z.shape[1]

        # 1. The smallest eigenvalue (sensitivity B**2 by Weyl's inequality), shifted down
        # by a one-sided Gaussian tail bound: below the true one with probability 1 - beta/3.
        sigma_min = gaussian_sigma_for_rho(norm2, share)
        lambda_min = granular_gaussian_mechanism(
            float(np.linalg.eigvalsh(Z.T @ Z)[0]), norm2, sigma_min, random_state=rng)
        lambda_low = max(lambda_min - sigma_min * math.sqrt(2.0 * math.log(3.0 / BETA)), 0.0)
        # 2. Z^T Z and 3. Z^T v.
        sigma_matrix = gaussian_sigma_for_rho(norm2, share)
        ZZ = noisy_second_moment(Z, norm2, sigma_matrix, rng)
        sigma_vector = gaussian_sigma_for_rho(math.sqrt(norm2), share)
        Zv = np.asarray(granular_gaussian_mechanism(
            Z.T @ v, math.sqrt(norm2), sigma_vector, random_state=rng))

        # Post-processing: AdaSSP's ridge (Wang 2018, Algorithm 2) and the user's alpha in
        # the scaled space: alpha ||w||**2 = alpha sum (y_half theta_j / half_j)**2, and the
        # objective is y_half**2 times the scaled one, so theta_j gets alpha / half_j**2.
        tau = sigma_matrix * math.sqrt(p * math.log(2.0 * p * p / BETA))
        noise_ridge = max(0.0, tau - lambda_low)
        penalty = np.full(p, noise_ridge)
        penalty[:n_features] += self._alpha() / half**2
        theta = np.linalg.lstsq(ZZ + np.diag(penalty), Zv, rcond=None)[0]

        self.coef_ = y_half * theta[:n_features] / half
        self.intercept_ = (float(y_centre + y_half * theta[-1] - centre @ self.coef_)
                           if self.fit_intercept else 0.0)
        self.noise_ridge_ = noise_ridge
        self.clip_radius_ = radius
        self.bounds_ = bounds_
        self.bounds_y_ = (y_lower, y_upper)
        self._finish_private_fit(
            plan,
            {
                "mechanism": (
                    "AdaSSP: Gaussian noise on the smallest eigenvalue of Z^T Z, on Z^T Z and "
                    "on Z^T y (exact discrete Gaussian), adaptive ridge"
                ),
                "zcdp_rho": 3 * share,
                "l2_sensitivity": {"lambda_min": norm2, "Z^T Z": norm2,
                                   "Z^T y": math.sqrt(norm2)},
                "noise_std": {"lambda_min": sigma_min, "Z^T Z": sigma_matrix,
                              "Z^T y": sigma_vector},
                "noise_ridge": noise_ridge,
                "clip_radius": radius,
                "epsilon_of_histogram": epsilon_h,
                "reference": (
                    "Wang 2018, Algorithm 2 (AdaSSP); Canonne, Kamath and Steinke 2020, "
                    "Theorem 14 and Proposition 12; Bun and Steinke 2016, Lemma 2.3"
                ),
            },
            # The delta >= 1/n check reads a released count, never the exact n: with an
            # intercept, the constant column's entry of the noisy Z^T Z is n plus noise.
            max(round(float(ZZ[-1, -1])), 1) if self.fit_intercept else None,
            caveats,
        )
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Calibrated noise on the 200 rows of scikit-learn's regression check makes its
        # R2 > 0.5 threshold a matter of chance, not of correctness.
        tags.regressor_tags.poor_score = True
        return tags

    def predict(self, X):
        """Predict with the private coefficients.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_numeric(self, X, reset=False, dtype=np.float64)
        return X @ self.coef_ + self.intercept_


@Substitution(**SHARED_DOCS, **_ADASSP_PARAMS)
class LinearRegression(_AdaSSPRegressor):
    """Ordinary least squares from differentially private sufficient statistics (AdaSSP).

    A counterpart of :class:`sklearn.linear_model.LinearRegression`: the coefficients
    solve the normal equations of noisy ``X^T X`` and ``X^T y``, with the small ridge
    AdaSSP adds only where the noise needs it.

    Parameters
    ----------
    %(adassp_common)s

    Attributes
    ----------
    %(adassp_attributes)s

    See Also
    --------
    Ridge : The same with a ridge penalty.
    DPLSSGDRegressor : Private gradient descent, for other losses and sparse data.

    Notes
    -----
    %(adassp_notes)s

    References
    ----------
    %(adassp_references)s

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from skprivate.linear_model import LinearRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(20000, 3))
    >>> y = X @ [1.0, -2.0, 0.5] + 3.0 + rng.normal(0, 0.1, size=20000)
    >>> reg = LinearRegression(epsilon=1.0, bounds_X=(-1, 1), bounds_y=(-2, 8),
    ...                        random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the seed caveat: random_state=0
    ...     _ = reg.fit(X, y)
    >>> round(reg.score(X, y), 2), round(reg.intercept_, 1)
    (0.99, 3.0)
    """

    def __init__(self, *, epsilon=1.0, delta=1e-5, bounds_X=None, bounds_y=None,
                 data_norm=None, fit_intercept=True, accountant=None, random_state=None):
        self.epsilon = epsilon
        self.delta = delta
        self.bounds_X = bounds_X
        self.bounds_y = bounds_y
        self.data_norm = data_norm
        self.fit_intercept = fit_intercept
        self.accountant = accountant
        self.random_state = random_state


@Substitution(**SHARED_DOCS, **_ADASSP_PARAMS)
class Ridge(_AdaSSPRegressor):
    """Ridge regression from differentially private sufficient statistics (AdaSSP).

    A counterpart of :class:`sklearn.linear_model.Ridge`: minimises
    ``||y - X w - b||**2 + alpha ||w||**2`` with noisy ``X^T X`` and ``X^T y`` in place of
    the exact ones, plus AdaSSP's noise-aware ridge.

    Parameters
    ----------
    alpha : float, default=1.0
        Ridge penalty on the coefficients in the units of ``X`` and ``y``, as in
        scikit-learn (the intercept is not penalised by it). AdaSSP's own ridge
        ``noise_ridge_``, chosen from the noise, is added on top in the scaled space.
    %(adassp_common)s

    Attributes
    ----------
    %(adassp_attributes)s

    See Also
    --------
    LinearRegression : The same without ``alpha``.

    Notes
    -----
    %(adassp_notes)s

    References
    ----------
    %(adassp_references)s

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from skprivate.linear_model import Ridge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(20000, 3))
    >>> y = X @ [1.0, -2.0, 0.5] + rng.normal(0, 0.1, size=20000)
    >>> reg = Ridge(alpha=10.0, epsilon=1.0, bounds_X=(-1, 1), bounds_y=(-4, 4),
    ...             random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the seed caveat: random_state=0
    ...     _ = reg.fit(X, y)
    >>> round(reg.score(X, y), 2)
    0.99
    """

    _parameter_constraints = {
        **_AdaSSPRegressor._parameter_constraints,
        "alpha": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, alpha=1.0, *, epsilon=1.0, delta=1e-5, bounds_X=None, bounds_y=None,
                 data_norm=None, fit_intercept=True, accountant=None, random_state=None):
        self.alpha = alpha
        self.epsilon = epsilon
        self.delta = delta
        self.bounds_X = bounds_X
        self.bounds_y = bounds_y
        self.data_norm = data_norm
        self.fit_intercept = fit_intercept
        self.accountant = accountant
        self.random_state = random_state

    def _alpha(self):
        return float(self.alpha)
