"""Differentially private dropout least squares: DPDropoutRegressor and DPDropoutClassifier.

The privacy argument (statistic, sensitivities, test, noise) is stated once, in ``_ptr``;
``_dp_base._BaseDPDropout`` resolves the public bounds, clips, and calls it in the order of
:mod:`skprivate.base`: plan -> reserve -> read data -> clip -> test -> release -> record.
This module holds the two public estimators: their targets and the classifier's choice.
"""

import math
import warnings
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import check_classification_targets

from ..base import _resolve_classes, _user_stacklevel
from ..exceptions import UtilityWarning
from ..utils._docstrings import SHARED_DOCS, Substitution
from ..utils._validation import validate_numeric
from ._chance import INTERCEPT_SHIFTS, alternative_text, select_candidate
from ._dp_base import _BaseDPDropout
from ._linear_output import (
    _LinearClassifierOutput,
    _LinearRegressorOutput,
    _one_vs_rest_targets,
)

__all__ = ["DPDropoutClassifier", "DPDropoutRegressor"]

_PARAMS_DOC = """
    epsilon : float, default=1.0
        Privacy budget, > 0, split between the noisy count of the rows (5 %, none with
        ``n_samples_public=True``), the test (``test_fraction`` of the rest) and the
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
        the data's stability; the rest is spent on the coefficients (and, for the
        classifier, on the private choice of ``selection_fraction``).

    fit_intercept : bool, default=True
        Whether to fit an intercept. It is a constant feature of value ``b`` that is
        dropped out like the others (so it is shrunk like them).

    accountant : BudgetAccountant, default=None
        A budget shared by several fits. The fit records ``(epsilon, delta)`` before reading
        any value of ``X``, and that record is final: a failed test costs the whole plan
        (its outcome is a release).

    random_state : None, int, or numpy.random.Generator, default=None
        Source of the noise. None (use this for a release): a generator seeded from the
        operating system. An int or a Generator makes the fit reproducible, for tests and
        documentation only; anyone who knows the seed can remove the noise, so the fit then
        emits a :class:`~skprivate.exceptions.PrivacyLeakWarning`.
"""

_N_PUBLIC_DOC = """
    %(n_samples_public)s
        Here the number of rows enters no constant of the release (the test's statistic and
        the sensitivity are sums, see Notes); the count sets only the forecast before the
        fit (its warning, ``forecast_noise_to_signal_``) and the refusal of ``alpha=0`` on
        too few rows. ``test_fraction`` and ``selection_fraction`` are then fractions of
        what the count leaves, ``0.95 * epsilon``.
"""

_ATTRS_DOC = """
    %(n_features_in_)s

    %(feature_names_in_)s

    epsilon_ : float
        The epsilon of the guarantee (``epsilon``).

    delta_ : float
        The delta of the guarantee (``delta``).

    lambda_noisy_ : float
        The released noisy test statistic: the leave-one-out sum of squares of the rarest
        feature (intercept column included), in units of ``b^2`` ("effective rows"), plus
        discrete Laplace noise on a power-of-two grid
        (:func:`~skprivate.mechanisms.granular_laplace_mechanism`: a multiple of the grid
        spacing, with no floating-point noise). NaN when ``keep_prob=1`` (no test).

    lambda_bound_ : float
        ``max(lambda_noisy_ - margin, 0)``, the lower bound on the statistic to which the
        noise was calibrated; ``margin`` is the discrete Laplace tail's, within one grid step
        of ``ln(1/(2 delta1))/epsilon1``.

    sensitivity_ : float
        L2 sensitivity bound of the minimiser that the noise was calibrated to.

    noise_std_ : float
        Standard deviation of the Gaussian noise added to each coefficient.

    noise_to_signal_ : float
        ``noise_std_`` times the norm bound of a row (intercept column included), divided by
        the target scale (1 for the classifier): the noise in the score of a full-norm row.
        Above 0.5 the model is at or near chance (see the user guide); the fit then warns.

    forecast_noise_to_signal_ : float
        The same ratio forecast before reading the data, from public numbers only (see
        :meth:`forecast_noise_to_signal`); a lower bound of ``noise_to_signal_`` up to the
        test's noise.

    data_norm_, feature_bound_, coef_bound_ : float
        The bounds ``B``, ``b`` and ``R`` used (read from the data when not given).

    %(privacy_report_)s
"""

_NOTES_DOC = """
    **Guarantee.** The fitted model (``coef_``, ``intercept_``) together with
    ``lambda_noisy_`` is ``(epsilon_, delta_)``-differentially private with respect to
    adding or removing one row of ``(X, y)``; the unit protected is one row. A fit that
    raises :class:`~skprivate.exceptions.PrivacyTestFailed` has released only the count of
    the rows and the test's outcome, at cost ``(epsilon_n + epsilon1, delta1)`` (see "The
    number of rows"), though the whole ``(epsilon, delta)`` stays recorded.

    **Mechanism** (Jain et al. [1]_, section 4.1.1 and Appendix B, with the constants
    re-derived in ``skprivate.dropout._ptr``). Dropout with keep probability ``q`` makes
    the expected squared loss strongly convex in every coordinate with curvature
    ``2 c sum_i x_ij^2``. (1) The leave-one-out sum of squares of the rarest feature,
    ``Lambda`` in units of ``b^2``, has sensitivity 1 and is released by the granular
    Laplace mechanism (rounded to a power-of-two grid, exact discrete Laplace noise on it,
    ``epsilon1 = test_fraction * (epsilon - epsilon_n)``-DP exactly, with no floating-point
    noise); its lower confidence bound ``l = lambda_noisy_ - margin`` (``margin`` about
    ``ln(1/(2 delta1))/epsilon1``, from the discrete tail) exceeds ``Lambda`` with
    probability at most ``delta1``. (2) If ``c b^2 l + alpha > 0`` the exact minimiser over
    the ball of radius ``coef_bound`` has L2 sensitivity at most
    ``[B (Y + B R) + c b^2 R] / (c b^2 l + alpha)`` (strong convexity and the argument of
    Chaudhuri et al. [2]_), and Gaussian noise calibrated to it is added without
    floating-point noise: the minimiser rounded to a power-of-two grid plus exact rounded
    Gaussian noise on it, a post-processing of the continuous Gaussian mechanism, so the
    analytic calibration of the Gaussian mechanism [3]_ makes it ``(epsilon2, delta2)``-DP.
    With the count, the steps compose to
    ``(epsilon_n + epsilon1 + epsilon2, delta1 + delta2) = (epsilon, delta)``.

    **Why it can fail.** A feature that is zero (or tiny) in almost every row gives
    ``Lambda`` near 0: dropout then does not stabilise that coordinate, and with
    ``alpha=0`` the test refuses (:class:`~skprivate.exceptions.PrivacyTestFailed`). With
    the default ``alpha > 0`` the fit falls back to the ridge floor, with more noise.

    **What must be public.** The bounds ``data_norm``/``bounds``, the target bound, all
    parameters, and every preprocessing (scale features with bounds known without looking
    at the data, not with a scaler fitted on the private rows).

    **The number of rows.** It differs between add/remove neighbours, so it is private.
    The release reads it nowhere: ``Lambda`` and the sensitivity are written with sums,
    not means (``skprivate.dropout._ptr``). The forecast before the fit and the refusal of
    ``alpha=0`` on too few rows read a noisy count, released first (exact discrete Laplace
    noise, ``epsilon_n = 0.05 epsilon``; ``privacy_report_["number of rows"]``); the test,
    the release (and the classifier's choice) share the rest, ``epsilon - epsilon_n``, and
    the whole composes by basic composition to ``(epsilon, delta)``.
    ``n_samples_public=True`` skips the count.
"""

_REFS_DOC = """
    %(dropout_reference)s
    .. [2] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially private empirical
       risk minimization", JMLR 12, 2011.
    .. [3] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for Differential
       Privacy: Analytical Calibration and Optimal Denoising", ICML 2018.
"""

_DOCS = {
    **SHARED_DOCS,
    "dp_dropout_parameters": _PARAMS_DOC,
    "dp_dropout_parameters_tail": _PARAMS_DOC_TAIL,
    "dp_dropout_n_samples_public": _N_PUBLIC_DOC,
    "dp_dropout_attributes": _ATTRS_DOC,
    "dp_dropout_notes": _NOTES_DOC,
    "dp_dropout_references": _REFS_DOC,
}


@Substitution(**_DOCS)
class DPDropoutRegressor(_BaseDPDropout, _LinearRegressorOutput, RegressorMixin, BaseEstimator):
    """Differentially private least squares regularised by dropout.

    Minimises the expected dropout squared loss exactly ("deterministic dropout") and
    releases the minimiser with Gaussian noise, after a private propose-test-release check
    that dropout makes the minimiser stable on these data (Jain et al. [1]_).

    Read more in the :ref:`User Guide <dropout>`.

    Parameters
    ----------
    %(dp_dropout_parameters)s

    y_bound : float, default=None
        Public bound ``Y`` on ``|y|``; targets are clipped to ``[-Y, Y]``. None: read from
        the data (with a :class:`~skprivate.exceptions.PrivacyLeakWarning`).

    %(dp_dropout_parameters_tail)s

    %(dp_dropout_n_samples_public)s

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Coefficients.

    intercept_ : float
        Intercept (0.0 when ``fit_intercept=False``).

    %(dp_dropout_attributes)s

    See Also
    --------
    DPDropoutClassifier : The one-vs-rest classifier built on the same release.
    DropoutSGDRegressor : Non-private dropout regression.

    Notes
    -----
    %(dp_dropout_notes)s

    References
    ----------
    %(dp_dropout_references)s

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

    _parameter_constraints = {
        **_BaseDPDropout._parameter_constraints,
        "y_bound": [Interval(Real, 0, None, closed="neither"), None],
    }

    # The regressor's and the classifier's __init__ repeat each other on purpose:
    # scikit-learn reads an estimator's parameters from its own __init__ signature.
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
        n_samples_public=False,
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
        self.n_samples_public = n_samples_public

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
        count, rng = self._begin_fit_on_count(X)
        # With the default coef_bound the ratio does not depend on y_bound (noise and
        # targets scale together), so it is forecast before reading y at y_bound=1.
        target = self.y_bound if self.y_bound is not None else (
            1.0 if self.coef_bound is None else None)
        forecast = self._forecast_before_fit(X, 1, target, count)
        X, y = validate_numeric(self, X, y, dtype=np.float64, y_numeric=True)
        y = np.asarray(y, dtype=float)

        def clip(Y, bound):
            return np.clip(Y, -bound, bound)

        coef, intercept = self._private_fit(
            X, y[:, None], self.y_bound, float(np.max(np.abs(y), initial=0.0)), rng, clip,
            count, forecast=forecast,
        )
        self.coef_ = coef[0]
        self.intercept_ = float(intercept[0])
        return self


@Substitution(**_DOCS)
class DPDropoutClassifier(
    _BaseDPDropout, _LinearClassifierOutput, ClassifierMixin, BaseEstimator
):
    """Differentially private one-vs-rest dropout least-squares classifier.

    Each class is a least-squares regression on ``+1`` (the class) / ``-1`` (the rest)
    targets (one regression for two classes), minimised exactly under the expected dropout
    loss; the coefficient matrix is released at once with Gaussian noise after the private
    stability test of :class:`DPDropoutRegressor` (Jain et al. [1]_).

    Read more in the :ref:`User Guide <dropout>`.

    Parameters
    ----------
    %(dp_dropout_parameters)s

    %(dp_dropout_parameters_tail)s

    classes : array-like of shape (n_classes,), default=None
        The class labels, known without looking at the data; ``classes_`` is their sorted
        set, and a label of ``y`` outside it is an error. None: the labels present in ``y``
        are read and published as ``classes_``, outside the guarantee (a caveat in
        ``privacy_report_`` and the fit's :class:`~skprivate.exceptions.PrivacyLeakWarning`
        say so).

    selection_fraction : float, default=0.1
        Fraction in [0, 1) of ``epsilon`` spent, after the release, on a private choice
        between the released model (for two classes with its intercept shifted by one of
        ``0, +-0.125, +-0.25, +-0.5``) and the constant predictor of each class: Report
        Noisy Max over their numbers of correctly classified training rows, with exact
        discrete Laplace noise (pure epsilon-DP, Dwork and Roth 2014, Claim 3.9, whose
        proof carries over to integer noise). It keeps a noise-dominated release
        from predicting worse than the most frequent class, and recentres the threshold of
        a shrunk one. ``0`` keeps the released model as it is. The default was measured on
        Adult, breast cancer and synthetic data (``benchmarks/dropout_regime.py``): it
        costs about a tenth more noise where the model learns.

    %(dp_dropout_n_samples_public)s

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.

    selection_ : str
        What the private choice returned: ``"released coefficients"`` (possibly with the
        intercept shift) or ``"constant: class ..."``; then ``coef_`` is zero and
        ``intercept_`` predicts that class for every row (and the fit warns, unless it
        already warned that the release would be at chance).

    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Coefficients; one row for two classes (the decision function of ``classes_[1]``).

    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts.

    %(dp_dropout_attributes)s

    See Also
    --------
    DPDropoutRegressor : The regression this classifier runs per class.
    DropoutSGDClassifier : Non-private dropout classification.

    Notes
    -----
    %(dp_dropout_notes)s

    **Where it learns.** The noise of the release does not depend on the data beyond the
    test's statistic, so its size is known before the fit: :meth:`forecast_noise_to_signal`
    computes it from ``n_samples``, the bounds, ``epsilon``, ``delta`` and ``keep_prob``.
    When the forecast is above 0.5 the fit emits one
    :class:`~skprivate.exceptions.UtilityWarning` before reading the data,
    naming the rows or epsilon that would leave the chance region and the alternative
    (:class:`~skprivate.DPLSSGDClassifier` at the same epsilon); when the private test
    credits far fewer rows than the forecast assumed (rare features), it warns after the
    test instead. The private choice of ``selection_fraction`` then returns a constant
    predictor rather than a silent coin toss. The guarantee adds ``selection_fraction *
    (epsilon - epsilon_n)`` to the release's by basic composition: the total is still
    ``(epsilon, delta)``.

    For ``K`` one-vs-rest outputs the row's target vector has norm ``Y = sqrt(K)``
    (``Y = 1`` for two classes) and ``coef_bound`` bounds the Frobenius norm of the whole
    coefficient matrix, so the ``K`` regressions share one test and one Gaussian release.
    With ``classes=None`` the set of classes is read from ``y`` without noise (a caveat says
    so); pass ``classes``, known without looking at the data, to keep it out.

    References
    ----------
    %(dp_dropout_references)s

    Examples
    --------
    >>> import warnings
    >>> from sklearn.datasets import load_breast_cancer
    >>> from skprivate.dropout import DPDropoutClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = X / X.max(axis=0)  # in a release, divide by public maxima instead
    >>> clf = DPDropoutClassifier(epsilon=2.0, bounds=(0, 1), classes=[0, 1],
    ...                           random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the warning says random_state=0 is not private
    ...     clf = clf.fit(X, y)
    >>> clf.epsilon_
    2.0
    >>> clf.coef_.shape
    (1, 30)
    """

    _parameter_constraints = {
        **_BaseDPDropout._parameter_constraints,
        "selection_fraction": [Interval(Real, 0, 1, closed="left")],
        "classes": ["array-like", None],
    }

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
        classes=None,
        selection_fraction=0.1,
        n_samples_public=False,
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
        self.n_samples_public = n_samples_public
        self.classes = classes
        self.selection_fraction = selection_fraction

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
        count, rng = self._begin_fit_on_count(X)
        # Two classes unless the classes are known in public: the smallest ratio (Y = 1).
        public_classes = getattr(self, "classes", None)
        n_known = len(public_classes) if public_classes is not None else 2
        n_out = 1 if n_known <= 2 else n_known
        forecast = self._forecast_before_fit(X, n_out, math.sqrt(n_out), count)
        X, y = validate_numeric(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, y_index, label_caveats = _resolve_classes(
            type(self).__name__, self.classes, y
        )
        Y = _one_vs_rest_targets(y_index, len(self.classes_), negative=-1.0)
        target_norm = math.sqrt(Y.shape[1])
        if forecast is not None and Y.shape[1] != n_out:
            # More classes than forecast: forecast again with their number (in _private_fit,
            # which warns), or here without a second warning if one was already given.
            if forecast["warned"]:
                again = self._forecast(count.n_plan, *self._public_norms(X.shape[1]),
                                       target_norm, Y.shape[1])
                forecast = {**forecast, **again}
            else:
                forecast = None

        def choose(coef, intercept, report, forecast):
            return self._choose(X, y_index, coef, intercept, report, forecast, rng)

        coef, intercept = self._private_fit(
            X, Y, target_norm, None, rng, lambda Y, bound: Y, count, forecast=forecast,
            choose=choose if self.selection_fraction > 0 else None, caveats=label_caveats,
        )
        if self.selection_fraction == 0:
            self.selection_ = "released coefficients (selection_fraction=0: no choice)"
        self.coef_ = coef
        self.intercept_ = intercept
        return self

    def _selection_share(self):
        return float(self.selection_fraction)

    def _choose(self, X, y_index, coef, intercept, report, forecast, rng):
        """Report Noisy Max between the released model (intercept shifts) and constants."""
        n_classes = len(self.classes_)
        scores = X @ coef.T + intercept
        if n_classes == 2:
            scores = scores[:, 0]
            shifts = np.asarray(INTERCEPT_SHIFTS)
        else:
            shifts = np.zeros(1)
        eps_s = self._selection_epsilon()
        winner = select_candidate(scores, y_index, n_classes, shifts, eps_s, rng)
        if winner < len(shifts):
            intercept = intercept + shifts[winner]
            self.selection_ = (
                "released coefficients" if shifts[winner] == 0 else
                f"released coefficients, intercept shifted by {shifts[winner]:+.4g}"
            )
        else:
            k = winner - len(shifts)
            label = self.classes_[k]
            self.selection_ = f"constant: class {label!r}"
            coef = np.zeros_like(coef)
            if n_classes == 2:
                intercept = np.array([1.0 if k == 1 else -1.0])
            else:
                intercept = np.where(np.arange(n_classes) == k, 1.0, -1.0)
            if not forecast["warned"]:
                warnings.warn(
                    f"{type(self).__name__}: the released coefficients classified the "
                    "training rows no better than a constant (private choice, Report Noisy "
                    f"Max at epsilon={eps_s:.3g}), so the model predicts class {label!r} for "
                    f"every row. The noise-to-signal ratio of the release was "
                    f"{self.noise_to_signal_:.3g} (lambda_noisy_={self.lambda_noisy_:.4g}: "
                    "rare features or too few rows). Instead, "
                    + alternative_text(forecast, True) + ".",
                    UtilityWarning,
                    stacklevel=_user_stacklevel(),
                )
        report["selection"] = (
            f"{self.selection_} (Report Noisy Max over the correct counts of "
            f"{len(shifts)} intercept shift(s) of the release and {n_classes} constant "
            f"predictors, exact discrete Laplace(1/{eps_s:.4g}) on the integer counts; Dwork "
            "and Roth 2014, Claim 3.9, with integer thresholds: skprivate.dropout._chance)"
        )
        report["selection epsilon"] = eps_s
        report["accountant"] = (
            "basic composition: (eps_n + eps1 + eps2 + eps_selection, delta1 + delta2)"
        )
        return coef, intercept
