"""Differentially private dropout least squares: DPDropoutRegressor and DPDropoutClassifier.

The privacy argument (statistic, sensitivities, test, noise) is stated once, in ``_ptr``;
this module resolves the public bounds, clips, and calls it in the order of
:mod:`skprivate.base`: plan -> reserve -> read data -> clip -> test -> release -> record.
"""

import copy
import math
import warnings
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import check_classification_targets

from .. import _caveats
from ..base import DPEstimatorMixin, _n_rows, _resolve_classes, _user_stacklevel
from ..accounting._calibrate import NoFeasiblePointError, solve_monotone
from ..exceptions import PrivacyTestFailed, UtilityWarning
from ..mechanisms import gaussian_noise, laplace_noise
from ._chance import (
    CHANCE_RATIO,
    INTERCEPT_SHIFTS,
    alternative_text,
    best_case_lambda,
    default_coef_bound,
    release_noise,
    select_candidate,
)
from ..utils._validation import check_bounds_pair, validate_numeric
from ._linear_output import (
    _LinearClassifierOutput,
    _LinearRegressorOutput,
    _one_vs_rest_targets,
)
from ._ptr import leave_one_out_statistic, lower_confidence_margin
from ._regression import dropout_minimiser, dropout_penalty_factor

__all__ = ["DPDropoutClassifier", "DPDropoutRegressor"]

_REFERENCE = (
    "Jain, Kulkarni, Thakurta and Williams 2015 (arXiv:1503.02031), section 4.1.1 and "
    "Appendix B, with explicit constants (skprivate.dropout._ptr)"
)


def _with_epsilon(estimator, epsilon):
    """A shallow copy with another ``epsilon``, for the forecast's search (no fit, no clone
    of the accountant)."""
    other = copy.copy(estimator)
    other.epsilon = epsilon
    return other


def _as_bounds(bounds, n_features, name):
    """``(lower, upper)`` broadcast to ``n_features`` floats, checked."""
    lower, upper = check_bounds_pair(
        bounds, n_features, name, "for example bounds=(0, 1) for min-max scaled data"
    )
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

    def _selection_share(self):
        """Fraction of ``epsilon`` for the private choice of the classifier (0: none)."""
        return 0.0

    def _selection_epsilon(self):
        return self._selection_share() * float(self.epsilon)

    def _budget_split(self):
        """``(eps1, delta1, eps2, delta2)``; no test (all to the release) when keep_prob=1.

        The classifier's selection takes ``eps_s = selection_fraction * epsilon`` first; then
        ``eps1 + eps2 + eps_s <= epsilon`` and ``delta1 + delta2 <= delta`` exactly.
        """
        eps, delta = float(self.epsilon), float(self.delta)
        eps_s = self._selection_epsilon()
        if self.keep_prob == 1:
            eps1, delta1 = 0.0, 0.0
        else:
            f = float(self.test_fraction)
            eps1, delta1 = f * eps, f * delta
        # Stepped down ulp by ulp until the sums are within the budget in floating point.
        eps2 = eps - eps1 - eps_s
        while eps1 + eps2 + eps_s > eps or eps2 + eps_s + eps1 > eps:
            eps2 = math.nextafter(eps2, 0.0)
        delta2 = delta - delta1 if delta1 else delta
        while delta1 + delta2 > delta:
            delta2 = math.nextafter(delta2, 0.0)
        return eps1, delta1, eps2, delta2

    def _check_params(self, n_samples):
        name = type(self).__name__
        if self.keep_prob == 1 and self.alpha == 0:
            raise ValueError(
                f"{name}: keep_prob=1 (no dropout) with alpha=0 leaves the objective without "
                "strong convexity, so the minimiser has no bounded sensitivity. Use "
                "keep_prob < 1 (for example 0.5) or a ridge floor alpha > 0."
            )
        share = self._selection_share()
        if share > 0 and self.keep_prob < 1 and self.test_fraction + share >= 1:
            raise ValueError(
                f"{name}: test_fraction={self.test_fraction!r} and selection_fraction="
                f"{share!r} add up to {self.test_fraction + share:.3g} >= 1, which leaves "
                "nothing of epsilon for the coefficients. Keep test_fraction + "
                "selection_fraction below 1 (the defaults spend 0.3 + 0.1)."
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

    # --- the forecast from public numbers ----------------------------------------------------
    def _public_norms(self, n_features):
        """``(row_norm, coord)`` from ``data_norm``/``bounds`` alone; None if read from data."""
        coord = norm_from_bounds = None
        if self.bounds is not None:
            lower, upper = _as_bounds(self.bounds, n_features, type(self).__name__)
            top = np.maximum(np.abs(lower), np.abs(upper))
            coord, norm_from_bounds = float(np.max(top)), float(np.linalg.norm(top))
        if self.data_norm is not None:
            row_norm = float(self.data_norm)
        elif norm_from_bounds is not None:
            row_norm = norm_from_bounds
        else:
            return None
        coord = row_norm if coord is None else min(coord, row_norm)
        return row_norm, coord

    def _forecast(self, n_samples, row_norm, coord, target_norm, n_outputs, ell=None):
        """The release's noise at the bound ``ell`` (None: the best case for ``n_samples``)."""
        c = dropout_penalty_factor(self.keep_prob)
        eps1, delta1, eps2, delta2 = self._budget_split()
        row_norm_aug = math.hypot(row_norm, coord) if self.fit_intercept else row_norm
        radius = (float(self.coef_bound) if self.coef_bound is not None
                  else default_coef_bound(target_norm, coord, c))
        if ell is None:
            ell = best_case_lambda(n_samples, eps1, delta1)
        sensitivity, sigma, ratio = release_noise(
            ell, row_norm_aug=row_norm_aug, target_norm=target_norm, n_outputs=n_outputs,
            radius=radius, unit=coord**2, c=c, alpha=float(self.alpha), eps2=eps2,
            delta2=delta2,
        )
        return {"ratio": ratio, "noise std": sigma, "sensitivity": sensitivity,
                "lambda": ell, "row_norm_aug": row_norm_aug}

    def forecast_noise_to_signal(self, n_samples, n_features, *, n_classes=None):
        """Forecast the release's noise-to-signal ratio from public numbers, without data.

        The ratio is the standard deviation of the noise that the release adds to the score
        of a row at the public norm bound, divided by the target scale (``1`` for the
        classifier's ``+-1`` targets, ``y_bound`` for the regressor). It is computed at the
        best case of the private test (every feature at full scale in every row), so it is
        a lower bound: a fit on data with rare or small features has a larger ratio
        (``noise_to_signal_``). Above 0.5 the model is at or near chance (``fit`` warns).

        Parameters
        ----------
        n_samples : int
            Number of training rows.
        n_features : int
            Number of features.
        n_classes : int, default=None
            Number of classes (classifier only); None means two, the smallest ratio.

        Returns
        -------
        ratio : float
            The forecast noise-to-signal ratio.

        Examples
        --------
        >>> from skprivate.dropout import DPDropoutClassifier
        >>> clf = DPDropoutClassifier(epsilon=1.0, bounds=(-1, 1))
        >>> round(clf.forecast_noise_to_signal(30_000, 105), 2)
        0.46
        >>> clf.forecast_noise_to_signal(1_000, 105) > 1  # at chance: fit would warn
        True
        """
        self._validate_params()
        name = type(self).__name__
        for label, value in (("n_samples", n_samples), ("n_features", n_features)):
            if not (isinstance(value, (int, np.integer)) and value >= 1):
                raise ValueError(f"{name}: {label} must be an integer >= 1; got {value!r}.")
        self._check_params(int(n_samples))
        classifier = isinstance(self, ClassifierMixin)
        if n_classes is not None and not classifier:
            raise ValueError(f"{name}: n_classes applies to classifiers only; pass None.")
        k = 2 if n_classes is None else int(n_classes)
        n_out = 1 if k <= 2 else k
        if classifier:
            target = math.sqrt(n_out)
        else:
            target = self.y_bound if self.y_bound is not None else 1.0
            if self.y_bound is None and self.coef_bound is not None:
                raise ValueError(
                    f"{name}: with coef_bound set the ratio depends on y_bound; pass the "
                    "public y_bound."
                )
        norms = self._public_norms(int(n_features))
        if norms is None:
            raise ValueError(
                f"{name}: the forecast needs the public bounds: pass data_norm or bounds."
            )
        return self._forecast(int(n_samples), *norms, target, n_out)["ratio"]

    def _forecast_before_fit(self, X, n_outputs, target_norm):
        """Forecast from ``X``'s shape and the public parameters; warn in the chance region.

        Returns the forecast (a dict for ``privacy_report_``), or None when the bounds must
        be read from the data (then ``_private_fit`` forecasts once they are known).
        """
        n_samples = _n_rows(X)
        shape = getattr(X, "shape", None)
        try:
            n_features = int(shape[1]) if shape is not None else len(X[0])
        except (TypeError, IndexError):
            return None
        if not n_samples or n_features < 1 or target_norm is None:
            return None
        norms = self._public_norms(n_features)
        if norms is None:
            return None
        return self._forecast_and_warn(n_samples, *norms, target_norm, n_outputs)

    def _forecast_and_warn(self, n_samples, row_norm, coord, target_norm, n_outputs):
        forecast = self._forecast(n_samples, row_norm, coord, target_norm, n_outputs)
        forecast["epsilon"] = float(self.epsilon)
        forecast["n_samples"] = int(n_samples)
        forecast["warned"] = False
        if forecast["ratio"] > CHANCE_RATIO:
            forecast.update(self._way_out(n_samples, row_norm, coord, target_norm, n_outputs))
            name = type(self).__name__
            classifier = isinstance(self, ClassifierMixin)
            outcome = (
                "accuracy at or near that of the majority class (the private choice of "
                "selection_fraction falls back to a constant predictor when the release "
                "does no better)" if classifier
                else "predictions dominated by noise"
            )
            warnings.warn(
                f"{name}: at epsilon={self.epsilon:g}, delta={self.delta:g}, "
                f"{n_samples:,} rows, data_norm={row_norm:.4g}, feature bound={coord:.4g} "
                f"and keep_prob={self.keep_prob:g}, the released coefficients will carry "
                f"Gaussian noise of std at least {forecast['noise std']:.3g} each: a "
                f"noise-to-signal ratio of at least {forecast['ratio']:.3g} in the score "
                f"of a full-norm row (computed from these public numbers only, before "
                f"reading the data), above {CHANCE_RATIO:g}, where this estimator gave "
                f"{outcome}. Instead, "
                + alternative_text(forecast, classifier) + ".",
                UtilityWarning,
                stacklevel=_user_stacklevel(),
            )
            forecast["warned"] = True
        return forecast

    def _way_out(self, n_samples, row_norm, coord, target_norm, n_outputs):
        """Rows (at this epsilon) and epsilon (at these rows) that bring the forecast to the
        chance threshold; None where none within a factor 2**20 does."""
        def ratio_at(n=n_samples, epsilon=None):
            est = self if epsilon is None else _with_epsilon(self, epsilon)
            return est._forecast(n, row_norm, coord, target_norm, n_outputs)["ratio"]

        out = {"rows needed": None, "epsilon needed": None}
        for key, start, fn in (
            ("rows needed", float(n_samples), lambda v: ratio_at(n=int(math.ceil(v)))),
            ("epsilon needed", float(self.epsilon), lambda v: ratio_at(epsilon=v)),
        ):
            # The ratio decreases in both: the smallest value at or above ``start`` (up to
            # 2**20 times it) that brings it to the threshold, by the package's one solver
            # (doubling, then geometric bisection).
            try:
                hi = solve_monotone(
                    fn, CHANCE_RATIO, increasing=False, lower=start, upper=start * 2**20,
                    start=start, xtol=1e-12,
                )
            except NoFeasiblePointError:
                continue
            out[key] = int(math.ceil(hi)) if key == "rows needed" else hi
        return out

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
            caveats.append(_caveats.bounds_from_data(
                read,
                "public bounds (data_norm or bounds"
                + (", and y_bound" if "y_bound" in read else "") + ")",
            ))
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
    def _private_fit(self, X, Y, target_norm_public, target_norm_data, rng, clip_targets,
                     forecast=None, choose=None, caveats=()):
        """Clip, test, solve, release; ``Y`` is (n, K). Returns coef (K, p) and intercept (K,).

        ``forecast`` is the public forecast made before the data were read (None: made here,
        once the bounds are known). ``choose(coef, intercept, report)``, if given, runs on
        the released model before the spend is recorded and returns the final model.
        """
        name = type(self).__name__
        n_samples, n_features = X.shape
        label_caveats = list(caveats)
        X, row_norm, coord, target_norm, caveats = self._resolve_bounds(
            X, target_norm_public, target_norm_data
        )
        Y = clip_targets(Y, target_norm)
        n_outputs = Y.shape[1]
        if forecast is None:  # bounds read from the data: forecast now, before the release
            forecast = self._forecast_and_warn(
                n_samples, row_norm, coord, target_norm, n_outputs
            )
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
            radius = default_coef_bound(target_norm, coord, c)  # public, see its docstring

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
            # The whole planned (epsilon, delta) stays spent, not only the test's share: the
            # PTR guarantee (Dwork and Lei 2009; Jain et al. 2015, App. B) is for test and
            # release together, and the release given a passed test is not (eps2, delta2)-DP
            # on its own (delta1 is the chance that the test passes wrongly), so the two do
            # not split into steps of a privacy filter whose charges could stop after the
            # test (Rogers, Roth, Ullman and Vadhan 2016). See BudgetAccountant's Notes.
            del self.lambda_noisy_, self.lambda_bound_
            raise PrivacyTestFailed(
                f"{name}: the private stability test failed: the noisy leave-one-out support "
                f"of the rarest feature, {lambda_noisy:.4g} rows (at full scale "
                f"{coord:.3g}), is not above the noise margin {margin:.4g} = "
                f"ln(1/(2 delta1))/epsilon1, so dropout alone does not make the minimiser "
                "stable. Likely causes: a rare or constant (all-zero) feature, bounds "
                "(data_norm/bounds) much wider than the values, or too few rows. Drop or merge "
                "rare features, tighten the public bounds, use more rows, raise epsilon or "
                "test_fraction, or set a ridge floor alpha > 0. The fit's planned cost "
                f"(epsilon={float(self.epsilon):.4g}, delta={float(self.delta):.3g}) has been "
                "spent and recorded: the test's outcome is a release."
            )

        # 3: the exact minimiser on the public ball, plus Gaussian noise.
        theta = dropout_minimiser(X, Y, c, alpha, radius=radius)
        sensitivity, sigma, ratio = release_noise(
            ell, row_norm_aug=row_norm_aug, target_norm=target_norm, n_outputs=n_outputs,
            radius=radius, unit=unit, c=c, alpha=alpha, eps2=eps2, delta2=delta2,
        )
        if ratio > CHANCE_RATIO and not forecast["warned"]:
            # From released values only (lambda_noisy_ and the public numbers), before the
            # coefficients are released: the data made l far below its best case.
            forecast.update({"rows needed": None, "epsilon needed": None})
            classifier = isinstance(self, ClassifierMixin)
            warnings.warn(
                f"{name}: the released coefficients carry Gaussian noise of std "
                f"{sigma:.3g} each, a noise-to-signal ratio of {ratio:.3g} in the score of "
                f"a full-norm row, above {CHANCE_RATIO:g}, where this estimator gave "
                + ("accuracy at or near that of the majority class" if classifier else
                   "predictions dominated by noise")
                + f". The public forecast was {forecast['ratio']:.3g}, but the private test "
                f"credited only l={ell:.4g} effective rows of the rarest feature out of "
                f"{n_samples:,} (a rare or small feature, or bounds much wider than the "
                "values; see the dropout user guide). Instead, "
                + alternative_text(forecast, classifier) + ".",
                UtilityWarning,
                stacklevel=_user_stacklevel(),
            )
            forecast["warned"] = True
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
            "noise-to-signal ratio": ratio,
            "forecast before the fit": (
                f"noise-to-signal ratio >= {forecast['ratio']:.4g} from public numbers "
                f"(chance region above {CHANCE_RATIO:g}"
                + ("; warned" if forecast["warned"] else "") + ")"
            ),
            "accountant": "basic composition: (eps1 + eps2, delta1 + delta2)",
        }
        self.noise_to_signal_ = ratio
        self.forecast_noise_to_signal_ = forecast["ratio"]
        if choose is not None:
            coef, intercept = choose(coef, intercept, report, forecast)
        # eps1 + eps2 (+ eps_s) <= epsilon and delta1 + delta2 <= delta (see _budget_split).
        self._finish_private_fit(
            self._privacy_spend(self.epsilon, self.delta), report, n_samples,
            label_caveats + caveats,
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
        # With the default coef_bound the ratio does not depend on y_bound (noise and
        # targets scale together), so it is forecast before reading y at y_bound=1.
        target = self.y_bound if self.y_bound is not None else (
            1.0 if self.coef_bound is None else None)
        forecast = self._forecast_before_fit(X, 1, target)
        rng = self._noise_rng()
        X, y = validate_numeric(self, X, y, dtype=np.float64, y_numeric=True)
        y = np.asarray(y, dtype=float)

        def clip(Y, bound):
            return np.clip(Y, -bound, bound)

        coef, intercept = self._private_fit(
            X, y[:, None], self.y_bound, float(np.max(np.abs(y), initial=0.0)), rng, clip,
            forecast=forecast,
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
        Noisy Max over their numbers of correctly classified training rows (pure
        epsilon-DP, Dwork and Roth 2014, Claim 3.9). It keeps a noise-dominated release
        from predicting worse than the most frequent class, and recentres the threshold of
        a shrunk one. ``0`` keeps the released model as it is. The default was measured on
        Adult, breast cancer and synthetic data (``benchmarks/dropout_regime.py``): it
        costs about a tenth more noise where the model learns.

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
    epsilon`` to the release's by basic composition: the total is still ``(epsilon,
    delta)``.

    For ``K`` one-vs-rest outputs the row's target vector has norm ``Y = sqrt(K)``
    (``Y = 1`` for two classes) and ``coef_bound`` bounds the Frobenius norm of the whole
    coefficient matrix, so the ``K`` regressions share one test and one Gaussian release.
    With ``classes=None`` the set of classes is read from ``y`` without noise (a caveat says
    so); pass ``classes``, known without looking at the data, to keep it out.

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
    )

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
        self._begin_private_fit(X)
        # Two classes unless the classes are known in public: the smallest ratio (Y = 1).
        public_classes = getattr(self, "classes", None)
        n_known = len(public_classes) if public_classes is not None else 2
        n_out = 1 if n_known <= 2 else n_known
        forecast = self._forecast_before_fit(X, n_out, math.sqrt(n_out))
        rng = self._noise_rng()
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
                again = self._forecast(X.shape[0], *self._public_norms(X.shape[1]),
                                       target_norm, Y.shape[1])
                forecast = {**forecast, **again}
            else:
                forecast = None

        def choose(coef, intercept, report, forecast):
            return self._choose(X, y_index, coef, intercept, report, forecast, rng)

        coef, intercept = self._private_fit(
            X, Y, target_norm, None, rng, lambda Y, bound: Y, forecast=forecast,
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
            f"predictors, Laplace(1/{eps_s:.4g}); Dwork and Roth 2014, Claim 3.9)"
        )
        report["selection epsilon"] = eps_s
        report["accountant"] = (
            "basic composition: (eps1 + eps2 + eps_selection, delta1 + delta2)"
        )
        return coef, intercept
