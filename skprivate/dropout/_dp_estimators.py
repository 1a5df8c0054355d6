"""Differentially private dropout least squares: DPDropoutRegressor and DPDropoutClassifier.

The privacy argument (statistic, sensitivities, test, noise) is stated once, in ``_ptr``;
this module resolves the public bounds, clips, and calls it in the order of
:mod:`skprivate.base`: plan -> reserve -> read data -> clip -> test -> release -> record.
"""

import math
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval

from ..base import DPEstimatorMixin
from ..exceptions import PrivacyTestFailed
from ..mechanisms import gaussian_noise, gaussian_sigma, laplace_noise
from ..utils._validation import validate_numeric
from ._linear_output import (
    _encode_classes,
    _LinearClassifierOutput,
    _LinearRegressorOutput,
    _one_vs_rest_targets,
)
from ._ptr import leave_one_out_statistic, lower_confidence_margin, minimiser_sensitivity
from ._regression import dropout_minimiser, dropout_penalty_factor

__all__ = ["DPDropoutClassifier", "DPDropoutRegressor"]

_REFERENCE = (
    "Jain, Kulkarni, Thakurta and Williams 2015 (arXiv:1503.02031), section 4.1.1 and "
    "Appendix B, with explicit constants (skprivate.dropout._ptr)"
)


def _as_bounds(bounds, n_features, name):
    """``(lower, upper)`` broadcast to ``n_features`` floats, checked."""
    try:
        lower, upper = bounds
        lower = np.broadcast_to(np.asarray(lower, dtype=float), (n_features,)).copy()
        upper = np.broadcast_to(np.asarray(upper, dtype=float), (n_features,)).copy()
    except (TypeError, ValueError):
        raise ValueError(
            f"{name}: bounds must be a pair (lower, upper) of floats or of arrays of length "
            f"n_features={n_features}; got {bounds!r}. Pass the public range of each "
            "feature, for example bounds=(0, 1) for min-max scaled data."
        ) from None
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ValueError(f"{name}: bounds must be finite; got {bounds!r}.")
    if np.any(lower > upper):
        raise ValueError(
            f"{name}: every lower bound must be <= its upper bound; got bounds={bounds!r}."
        )
    if not np.any(np.maximum(np.abs(lower), np.abs(upper)) > 0):
        raise ValueError(
            f"{name}: bounds=(0, 0) leaves every feature constant at zero, so no model can "
            "be fitted; pass the public range of the features."
        )
    return lower, upper


class _BaseDPDropout(DPEstimatorMixin):
    """The bounds, the plan and the private release shared by the regressor and classifier."""

    _parameter_constraints = {
        **DPEstimatorMixin._dp_parameter_constraints,
        "keep_prob": [Interval(Real, 0, 1, closed="right")],
        "data_norm": [Interval(Real, 0, None, closed="neither"), None],
        "bounds": [tuple, list, None],
        "coef_bound": [Interval(Real, 0, None, closed="neither"), None],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "test_fraction": [Interval(Real, 0, 1, closed="neither")],
        "fit_intercept": ["boolean"],
    }

    def _budget_split(self):
        """``(eps1, delta1, eps2, delta2)``; no test (all to the release) when keep_prob=1."""
        eps, delta = float(self.epsilon), float(self.delta)
        if self.keep_prob == 1:
            return 0.0, 0.0, eps, delta
        f = float(self.test_fraction)
        eps1, delta1 = f * eps, f * delta
        # One ulp down, so that eps1 + eps2 <= epsilon and delta1 + delta2 <= delta exactly.
        eps2 = math.nextafter(eps - eps1, 0.0)
        delta2 = math.nextafter(delta - delta1, 0.0)
        return eps1, delta1, eps2, delta2

    def _check_params(self, n_samples):
        name = type(self).__name__
        if self.keep_prob == 1 and self.alpha == 0:
            raise ValueError(
                f"{name}: keep_prob=1 (no dropout) with alpha=0 leaves the objective without "
                "strong convexity, so the minimiser has no bounded sensitivity. Use "
                "keep_prob < 1 (for example 0.5) or a ridge floor alpha > 0."
            )
        eps1, delta1, _, _ = self._budget_split()
        if self.alpha == 0 and eps1 > 0:
            margin = lower_confidence_margin(eps1, delta1)
            # Each row adds at most 1 to Lambda, so Lambda <= n - 1: with n - 1 <= margin the
            # test passes with probability below 1/2 whatever the data.
            if n_samples - 1 <= margin:
                raise ValueError(
                    f"{name}: with alpha=0 the private test cannot pass on {n_samples} rows: "
                    f"it needs the rarest feature's leave-one-out support (at most "
                    f"n_samples - 1 = {n_samples - 1} rows at full scale) above "
                    f"ln(1/(2 delta1))/epsilon1 = {margin:.1f} rows, with epsilon1 = "
                    f"test_fraction * epsilon = {eps1:.3g} and delta1 = test_fraction * delta "
                    f"= {delta1:.3g}. Use more rows, a larger epsilon or test_fraction, or a "
                    "ridge floor alpha > 0 (which makes the release private without the test)."
                )

    def _privacy_plan(self, n_samples):
        self._check_params(n_samples)
        return self._privacy_spend(self.epsilon, self.delta)

    # --- bounds ---------------------------------------------------------------------------
    def _resolve_bounds(self, X, target_norm_public, target_norm_data):
        """Public bounds, or bounds read from the data with a caveat; clip ``X`` to them."""
        name = type(self).__name__
        n_features = X.shape[1]
        caveats, read = [], []
        X = np.array(X, dtype=float, copy=True)
        if self.bounds is not None:
            lower, upper = _as_bounds(self.bounds, n_features, name)
            np.clip(X, lower, upper, out=X)
            coord = float(np.max(np.maximum(np.abs(lower), np.abs(upper))))
            norm_from_bounds = float(np.linalg.norm(np.maximum(np.abs(lower), np.abs(upper))))
        else:
            coord = norm_from_bounds = None
        if self.data_norm is not None:
            row_norm = float(self.data_norm)
        elif norm_from_bounds is not None:
            row_norm = norm_from_bounds
        else:
            row_norm = float(np.sqrt(np.max(np.einsum("ij,ij->i", X, X), initial=0.0)))
            read.append("data_norm")
        norms = np.sqrt(np.einsum("ij,ij->i", X, X))
        too_long = norms > row_norm
        if np.any(too_long):
            X[too_long] *= (row_norm / norms[too_long])[:, None]
        if coord is None:
            if self.data_norm is not None:
                coord = row_norm
            else:
                coord = float(np.max(np.abs(X), initial=0.0))
                read.append("bounds")
        coord = min(coord, row_norm)
        if target_norm_public is not None:
            target_norm = float(target_norm_public)
        else:
            target_norm = target_norm_data
            read.append("y_bound")
        if read:
            caveats.append(
                f"{', '.join(read)} {'was' if len(read) == 1 else 'were'} None, so the "
                "bounds were read from the private data; pass public bounds (data_norm or "
                "bounds" + (", and y_bound" if "y_bound" in read else "") + ") known "
                "without looking at the data"
            )
        if not (coord > 0 and row_norm > 0):
            raise ValueError(
                f"{name}: every feature value is zero after clipping (data_norm="
                f"{self.data_norm!r}, bounds={self.bounds!r}), so no model can be fitted."
            )
        if not target_norm > 0:
            raise ValueError(
                f"{name}: every target is zero (y_bound read as {target_norm!r}); pass "
                "y_bound > 0."
            )
        return X, row_norm, coord, target_norm, caveats

    # --- the private release ---------------------------------------------------------------
    def _private_fit(self, X, Y, target_norm_public, target_norm_data, rng, clip_targets):
        """Clip, test, solve, release; ``Y`` is (n, K). Returns coef (K, p) and intercept (K,)."""
        name = type(self).__name__
        n_samples, n_features = X.shape
        X, row_norm, coord, target_norm, caveats = self._resolve_bounds(
            X, target_norm_public, target_norm_data
        )
        Y = clip_targets(Y, target_norm)
        n_outputs = Y.shape[1]
        if self.fit_intercept:
            X = np.hstack([X, np.full((n_samples, 1), coord)])
            row_norm_aug = math.hypot(row_norm, coord)
        else:
            row_norm_aug = row_norm
        unit = coord**2
        c = dropout_penalty_factor(self.keep_prob)
        alpha = float(self.alpha)
        eps1, delta1, eps2, delta2 = self._budget_split()
        if self.coef_bound is not None:
            radius = float(self.coef_bound)
        else:
            # Public default: F(Theta) <= F(0) <= n Y^2 and F >= c min_j S_j ||Theta||^2 give
            # ||Theta|| <= Y / (b sqrt(c m)) when each feature's mean square is m b^2; m = 1/4
            # covers min-max or standardised features that are not rare.
            radius = 2.0 * target_norm / (coord * math.sqrt(min(c, 1.0) if c > 0 else 1.0))

        # 1-2: the test (Laplace on Lambda, sensitivity 1) and the released lower bound.
        if eps1 > 0:
            statistic = leave_one_out_statistic(X, unit)
            lambda_noisy = statistic + float(laplace_noise(1.0 / eps1, random_state=rng))
            margin = lower_confidence_margin(eps1, delta1)
            ell = max(lambda_noisy - margin, 0.0)
        else:
            lambda_noisy, margin, ell = math.nan, math.nan, 0.0
        self.lambda_noisy_ = lambda_noisy
        self.lambda_bound_ = ell
        if c * unit * ell + alpha <= 0:
            spent = self._privacy_spend(eps1, delta1)
            if self.accountant is not None:
                self.accountant._settle(getattr(self, "_reserved_spend", None), spent)
            del self.lambda_noisy_, self.lambda_bound_
            raise PrivacyTestFailed(
                f"{name}: the private stability test failed: the noisy leave-one-out support "
                f"of the rarest feature, {lambda_noisy:.4g} rows (at full scale "
                f"{coord:.3g}), is not above the noise margin {margin:.4g} = "
                f"ln(1/(2 delta1))/epsilon1, so dropout alone does not make the minimiser "
                "stable. Likely causes: a rare or constant (all-zero) feature, bounds "
                "(data_norm/bounds) much wider than the values, or too few rows. Drop or merge "
                "rare features, tighten the public bounds, use more rows, raise epsilon or "
                "test_fraction, or set a ridge floor alpha > 0. The test's cost "
                f"(epsilon={eps1:.4g}, delta={delta1:.3g}) has been spent and recorded."
            )

        # 3: the exact minimiser on the public ball, plus Gaussian noise.
        theta = dropout_minimiser(X, Y, c, alpha, radius=radius)
        sensitivity = minimiser_sensitivity(
            ell, row_norm=row_norm_aug, target_norm=target_norm, coef_bound=radius,
            unit=unit, c=c, alpha=alpha,
        )
        sigma = gaussian_sigma(sensitivity, eps2, delta2)
        noisy = theta + gaussian_noise(sigma, size=theta.shape, random_state=rng)
        size = float(np.linalg.norm(noisy))
        if size > radius:  # projection onto the public ball: post-processing
            noisy *= radius / size
        coef = noisy.T  # (K, p_aug)
        if self.fit_intercept:
            intercept = coef[:, -1] * coord
            coef = coef[:, :-1]
        else:
            intercept = np.zeros(n_outputs)
        self.data_norm_ = row_norm
        self.feature_bound_ = coord
        self.coef_bound_ = radius
        self.sensitivity_ = sensitivity
        self.noise_std_ = sigma
        report = {
            "mechanism": (
                "propose-test-release: Laplace test of the leave-one-out feature support, "
                "then Gaussian output perturbation of the exact dropout least-squares "
                "minimiser" if eps1 > 0 else
                "Gaussian output perturbation of the ridge least-squares minimiser "
                "(keep_prob=1: no dropout, no test)"
            ),
            "reference": _REFERENCE,
            "test epsilon, delta": (eps1, delta1),
            "release epsilon, delta": (eps2, delta2),
            "lambda_noisy": lambda_noisy,
            "lambda lower bound": ell,
            "strong convexity credited": (
                "dropout" if c * unit * ell > alpha else "ridge floor alpha"
            ),
            "sensitivity": sensitivity,
            "noise std": sigma,
            "bounds": f"data_norm={row_norm:.4g}, feature bound={coord:.4g}, "
            f"target norm={target_norm:.4g}, coef_bound={radius:.4g}",
            "accountant": "basic composition: (eps1 + eps2, delta1 + delta2)",
        }
        # eps1 + eps2 <= epsilon and delta1 + delta2 <= delta (see _budget_split).
        self._finish_private_fit(
            self._privacy_spend(self.epsilon, self.delta), report, n_samples, caveats
        )
        return coef, intercept

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Calibrated noise on the small data sets of scikit-learn's checks (20 to 300 rows)
        # makes the scores of those checks a matter of chance, not of correctness.
        if getattr(tags, "regressor_tags", None) is not None:
            tags.regressor_tags.poor_score = True
        if getattr(tags, "classifier_tags", None) is not None:
            tags.classifier_tags.poor_score = True
        return tags


_PARAMS_DOC = """
    epsilon : float, default=1.0
        Privacy budget, > 0, split between the test (``test_fraction * epsilon``) and the
        release of the coefficients.

    delta : float, default=1e-5
        Privacy parameter delta in (0, 1), split like ``epsilon``; use well below
        ``1 / n_samples``.

    keep_prob : float, default=0.5
        Probability ``q`` in (0, 1] of keeping each feature under dropout. The fit minimises
        the expected dropout loss exactly: squared loss plus
        ``c * sum_ij x_ij^2 coef_j^2`` with ``c = (1 - q) / q``. Smaller ``q`` is stronger
        regularisation and stronger stability (less noise). ``1`` is no dropout: then
        ``alpha > 0`` is required and the test is skipped.

    data_norm : float, default=None
        Public bound ``B`` on the Euclidean norm of each row of ``X``; longer rows are scaled
        down to it. None: taken from ``bounds`` if given, else read from the data (then the
        fit emits a :class:`~skprivate.exceptions.PrivacyLeakWarning`).

    bounds : tuple (lower, upper), default=None
        Public range of each feature (floats, or arrays of length ``n_features``); values
        are clipped to it. Its largest absolute value is the coordinate bound ``b`` that sets
        the noise of the test. None: ``b = data_norm`` if that is given, else read from the
        data (with a :class:`~skprivate.exceptions.PrivacyLeakWarning`).
"""

_PARAMS_DOC_TAIL = """
    coef_bound : float, default=None
        Public radius ``R`` of the ball ``||coef||_F <= R`` (intercept column included, in
        units of ``b``) over which the exact minimiser is taken; the noise grows with it.
        None: ``2 * target_norm / (b * sqrt(min(c, 1)))``, which contains the unconstrained
        minimiser whenever every feature's mean square is at least a quarter of ``b^2``.

    alpha : float, default=1.0
        Public ridge floor: ``alpha * ||coef||^2`` (summed-loss scale, as in
        :class:`sklearn.linear_model.Ridge`) is added to the objective. It makes the release
        private even when the dropout test gives no credit (tiny data, rare features), at
        the price of more noise there. ``0`` relies on dropout alone; then a failed test
        raises :class:`~skprivate.exceptions.PrivacyTestFailed`.

    test_fraction : float, default=0.3
        Fraction in (0, 1) of ``epsilon`` and of ``delta`` spent on the private test of
        the data's stability; the rest is spent on the coefficients.

    fit_intercept : bool, default=True
        Whether to fit an intercept. It is a constant feature of value ``b`` that is
        dropped out like the others (so it is shrunk like them).

    accountant : BudgetAccountant, default=None
        A budget shared by several fits. The fit reserves ``(epsilon, delta)`` before reading
        any value of ``X``; a failed test is settled at its own cost.

    random_state : None, int, or numpy.random.Generator, default=None
        Source of the noise. None (use this for a release): a generator seeded from the
        operating system. An int or a Generator makes the fit reproducible, for tests and
        documentation only; anyone who knows the seed can remove the noise, so the fit then
        emits a :class:`~skprivate.exceptions.PrivacyLeakWarning`.
"""

_ATTRS_DOC = """
    n_features_in_ : int
        Number of features seen during fit.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    epsilon_ : float
        The epsilon of the guarantee (``epsilon``).

    delta_ : float
        The delta of the guarantee (``delta``).

    lambda_noisy_ : float
        The released noisy test statistic: the leave-one-out sum of squares of the rarest
        feature (intercept column included), in units of ``b^2`` ("effective rows"), plus
        Laplace noise. NaN when ``keep_prob=1`` (no test).

    lambda_bound_ : float
        ``max(lambda_noisy_ - ln(1/(2 delta1))/epsilon1, 0)``, the lower bound on the
        statistic to which the noise was calibrated.

    sensitivity_ : float
        L2 sensitivity bound of the minimiser that the noise was calibrated to.

    noise_std_ : float
        Standard deviation of the Gaussian noise added to each coefficient.

    data_norm_, feature_bound_, coef_bound_ : float
        The bounds ``B``, ``b`` and ``R`` used (read from the data when not given).

    privacy_report_ : PrivacyReport
        The mechanism, its parameters, the guarantee and any caveats.
"""

_NOTES_DOC = """
    **Guarantee.** The fitted model (``coef_``, ``intercept_``) together with
    ``lambda_noisy_`` is ``(epsilon_, delta_)``-differentially private with respect to
    adding or removing one row of ``(X, y)``; the unit protected is one row. A fit that
    raises :class:`~skprivate.exceptions.PrivacyTestFailed` has released only the test's
    outcome, at cost ``(test_fraction * epsilon, test_fraction * delta)``.

    **Mechanism** (Jain et al. [1]_, section 4.1.1 and Appendix B, with the constants
    re-derived in ``skprivate.dropout._ptr``). Dropout with keep probability ``q`` makes
    the expected squared loss strongly convex in every coordinate with curvature
    ``2 c sum_i x_ij^2``. (1) The leave-one-out sum of squares of the rarest feature,
    ``Lambda`` in units of ``b^2``, has sensitivity 1 and is released with Laplace noise
    (``epsilon1 = test_fraction * epsilon``); its lower confidence bound
    ``l = lambda_noisy_ - ln(1/(2 delta1))/epsilon1`` exceeds ``Lambda`` with probability
    ``delta1``. (2) If ``c b^2 l + alpha > 0`` the exact minimiser over the ball of radius
    ``coef_bound`` has L2 sensitivity at most
    ``[B (Y + B R) + c b^2 R] / (c b^2 l + alpha)`` (strong convexity and the argument of
    Chaudhuri et al. [2]_), and Gaussian noise calibrated to it with the analytic Gaussian
    mechanism [3]_ is added. The two steps compose to
    ``(epsilon1 + epsilon2, delta1 + delta2) = (epsilon, delta)``.

    **Why it can fail.** A feature that is zero (or tiny) in almost every row gives
    ``Lambda`` near 0: dropout then does not stabilise that coordinate, and with
    ``alpha=0`` the test refuses (:class:`~skprivate.exceptions.PrivacyTestFailed`). With
    the default ``alpha > 0`` the fit falls back to the ridge floor, with more noise.

    **What must be public.** The bounds ``data_norm``/``bounds``, the target bound, all
    parameters, and every preprocessing (scale features with bounds known without looking
    at the data, not with a scaler fitted on the private rows).
"""

_REFS_DOC = """
    .. [1] P. Jain, V. Kulkarni, A. Thakurta and O. Williams, "To drop or not to drop:
       robustness, consistency and differential privacy properties of dropout",
       arXiv:1503.02031, 2015.
    .. [2] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially private empirical
       risk minimization", JMLR 12, 2011.
    .. [3] B. Balle and Y.-X. Wang, "Improving the Gaussian mechanism for differential
       privacy: analytical calibration and optimal denoising", ICML 2018.
"""


class DPDropoutRegressor(_BaseDPDropout, _LinearRegressorOutput, RegressorMixin, BaseEstimator):
    __doc__ = (
        """Differentially private least squares regularised by dropout.

    Minimises the expected dropout squared loss exactly ("deterministic dropout") and
    releases the minimiser with Gaussian noise, after a private propose-test-release check
    that dropout makes the minimiser stable on these data (Jain et al. [1]_).

    Read more in the :ref:`User Guide <dropout>`.

    Parameters
    ----------"""
        + _PARAMS_DOC
        + """
    y_bound : float, default=None
        Public bound ``Y`` on ``|y|``; targets are clipped to ``[-Y, Y]``. None: read from
        the data (with a :class:`~skprivate.exceptions.PrivacyLeakWarning`).
"""
        + _PARAMS_DOC_TAIL
        + """
    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Coefficients.

    intercept_ : float
        Intercept (0.0 when ``fit_intercept=False``).
"""
        + _ATTRS_DOC
        + """
    See Also
    --------
    DPDropoutClassifier : The one-vs-rest classifier built on the same release.
    DropoutSGDRegressor : Non-private dropout regression.

    Notes
    -----"""
        + _NOTES_DOC
        + """
    References
    ----------"""
        + _REFS_DOC
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.dropout import DPDropoutRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(5000, 3))
    >>> y = np.clip(X @ [0.5, -0.3, 0.2], -1, 1)
    >>> reg = DPDropoutRegressor(epsilon=1.0, bounds=(-1, 1), y_bound=1.0, random_state=0)
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the warning says random_state=0 is not private
    ...     reg = reg.fit(X, y)
    >>> reg.epsilon_, reg.delta_
    (1.0, 1e-05)
    >>> reg.score(X, y) > 0.5
    True
    """
    )

    _parameter_constraints = {
        **_BaseDPDropout._parameter_constraints,
        "y_bound": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-5,
        keep_prob=0.5,
        data_norm=None,
        bounds=None,
        y_bound=None,
        coef_bound=None,
        alpha=1.0,
        test_fraction=0.3,
        fit_intercept=True,
        accountant=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.keep_prob = keep_prob
        self.data_norm = data_norm
        self.bounds = bounds
        self.y_bound = y_bound
        self.coef_bound = coef_bound
        self.alpha = alpha
        self.test_fraction = test_fraction
        self.fit_intercept = fit_intercept
        self.accountant = accountant
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the private dropout regression.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, scaled with public bounds (see Notes).
        y : array-like of shape (n_samples,)
            Targets.

        Returns
        -------
        self : DPDropoutRegressor
            The fitted regressor.

        Raises
        ------
        PrivacyTestFailed
            When ``alpha=0`` and the private test finds the data not stable enough.
        """
        self._begin_private_fit(X)
        rng = self._noise_rng()
        X, y = validate_numeric(self, X, y, dtype=np.float64, y_numeric=True)
        y = np.asarray(y, dtype=float)

        def clip(Y, bound):
            return np.clip(Y, -bound, bound)

        coef, intercept = self._private_fit(
            X, y[:, None], self.y_bound, float(np.max(np.abs(y), initial=0.0)), rng, clip
        )
        self.coef_ = coef[0]
        self.intercept_ = float(intercept[0])
        return self


class DPDropoutClassifier(
    _BaseDPDropout, _LinearClassifierOutput, ClassifierMixin, BaseEstimator
):
    __doc__ = (
        """Differentially private one-vs-rest dropout least-squares classifier.

    Each class is a least-squares regression on ``+1`` (the class) / ``-1`` (the rest)
    targets (one regression for two classes), minimised exactly under the expected dropout
    loss; the coefficient matrix is released at once with Gaussian noise after the private
    stability test of :class:`DPDropoutRegressor` (Jain et al. [1]_).

    Read more in the :ref:`User Guide <dropout>`.

    Parameters
    ----------"""
        + _PARAMS_DOC
        + _PARAMS_DOC_TAIL
        + """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.

    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Coefficients; one row for two classes (the decision function of ``classes_[1]``).

    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts.
"""
        + _ATTRS_DOC
        + """
    See Also
    --------
    DPDropoutRegressor : The regression this classifier runs per class.
    DropoutSGDClassifier : Non-private dropout classification.

    Notes
    -----"""
        + _NOTES_DOC
        + """
    For ``K`` one-vs-rest outputs the row's target vector has norm ``Y = sqrt(K)``
    (``Y = 1`` for two classes) and ``coef_bound`` bounds the Frobenius norm of the whole
    coefficient matrix, so the ``K`` regressions share one test and one Gaussian release.
    The classes are read from ``y`` without noise: pass labels whose set is public.

    References
    ----------"""
        + _REFS_DOC
        + """
    Examples
    --------
    >>> import warnings
    >>> from sklearn.datasets import load_breast_cancer
    >>> from skprivate.dropout import DPDropoutClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = X / X.max(axis=0)  # in a release, divide by public maxima instead
    >>> clf = DPDropoutClassifier(epsilon=2.0, bounds=(0, 1), random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the warning says random_state=0 is not private
    ...     clf = clf.fit(X, y)
    >>> clf.epsilon_
    2.0
    >>> clf.coef_.shape
    (1, 30)
    """
    )

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-5,
        keep_prob=0.5,
        data_norm=None,
        bounds=None,
        coef_bound=None,
        alpha=1.0,
        test_fraction=0.3,
        fit_intercept=True,
        accountant=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.keep_prob = keep_prob
        self.data_norm = data_norm
        self.bounds = bounds
        self.coef_bound = coef_bound
        self.alpha = alpha
        self.test_fraction = test_fraction
        self.fit_intercept = fit_intercept
        self.accountant = accountant
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the private one-vs-rest dropout classifier.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, scaled with public bounds (see Notes).
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : DPDropoutClassifier
            The fitted classifier.

        Raises
        ------
        PrivacyTestFailed
            When ``alpha=0`` and the private test finds the data not stable enough.
        """
        self._begin_private_fit(X)
        rng = self._noise_rng()
        X, y = validate_numeric(self, X, y, dtype=np.float64)
        y_index = _encode_classes(self, y)
        Y = _one_vs_rest_targets(y_index, len(self.classes_), negative=-1.0)
        target_norm = math.sqrt(Y.shape[1])
        coef, intercept = self._private_fit(
            X, Y, target_norm, None, rng, lambda Y, bound: Y
        )
        self.coef_ = coef
        self.intercept_ = intercept
        return self
