"""The private release shared by DPDropoutRegressor and DPDropoutClassifier.

``_BaseDPDropout`` resolves the public bounds, clips, forecasts the noise from public
numbers, and calls the privacy argument of ``_ptr`` (statistic, sensitivities, test, noise)
in the order of :mod:`skprivate.base`: plan -> reserve -> read data -> clip -> test ->
release -> record. The public estimators in ``_dp_estimators`` add only their targets.
"""

import copy
import math
import warnings
from numbers import Real

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils._param_validation import Interval

from .. import _caveats
from .._dpsgd._plan import PUBLIC_N_SAMPLES
from .._row_count import COUNT_SHARE, count_report, release_row_count, rest_epsilon
from .._forecast import value_needed
from ..base import DPEstimatorMixin, _n_rows, _user_stacklevel
from ..exceptions import PrivacyTestFailed, UtilityWarning
from ..mechanisms import granular_laplace_plan, rounded_gaussian_mechanism
from ..utils._validation import check_bounds_pair
from ._chance import (
    CHANCE_RATIO,
    alternative_text,
    best_case_lambda,
    default_coef_bound,
    release_noise,
)
from ._ptr import leave_one_out_statistic, lower_confidence_margin, release_test_statistic
from ._regression import dropout_minimiser, dropout_penalty_factor


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
        "n_samples_public": ["boolean"],
    }

    def _selection_share(self):
        """Fraction of ``epsilon`` for the private choice of the classifier (0: none)."""
        return 0.0

    def _rows_public(self):
        """Whether the number of rows is public: declared so, or set by a private search
        (``_dpsgd._plan.PUBLIC_N_SAMPLES``, the public size it planned the run on)."""
        return bool(self.n_samples_public) or getattr(self, PUBLIC_N_SAMPLES, None) is not None

    def _count_epsilon(self):
        """What the noisy count of the rows costs: its share of ``epsilon`` (0 if public)."""
        return 0.0 if self._rows_public() else float(COUNT_SHARE * float(self.epsilon))

    def _rest_epsilon(self):
        """``epsilon`` less the count's share, stepped down ulp by ulp until ``count + rest
        <= epsilon`` in floating point (``epsilon`` itself when the rows are public)."""
        return rest_epsilon(self.epsilon, self._count_epsilon())

    def _selection_epsilon(self):
        return self._selection_share() * self._rest_epsilon()

    def _budget_split(self):
        """``(eps1, delta1, eps2, delta2)``; no test (all to the release) when keep_prob=1.

        The noisy count of the rows takes ``eps_n`` (:meth:`_count_epsilon`) first and the
        fractions apply to the rest ``epsilon - eps_n``: the classifier's selection takes
        ``eps_s = selection_fraction * rest``, the test ``test_fraction * rest``; then
        ``eps_n + eps1 + eps2 + eps_s <= epsilon`` and ``delta1 + delta2 <= delta`` exactly
        (the count is pure DP and adds no delta).
        """
        eps, delta = self._rest_epsilon(), float(self.delta)
        eps_s = self._selection_epsilon()
        if self.keep_prob == 1:
            eps1, delta1 = 0.0, 0.0
        else:
            f = float(self.test_fraction)
            eps1, delta1 = f * eps, f * delta
        # Stepped down ulp by ulp until the sums are within the rest in floating point (so
        # the count plus them is within epsilon: addition is monotone).
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
        if n_samples is not None:
            self._check_rows(n_samples, "")

    def _check_rows(self, n_samples, how):
        """With ``alpha=0``, refuse a number of rows on which the test cannot pass.

        ``n_samples`` is public: the user's, or the noisy count (``how`` says so).
        """
        name = type(self).__name__
        eps1, delta1, _, _ = self._budget_split()
        if self.alpha == 0 and eps1 > 0:
            margin = lower_confidence_margin(eps1, delta1)
            # Each row adds at most 1 to Lambda, so Lambda <= n - 1: with n - 1 <= margin the
            # test passes with probability below 1/2 whatever the data.
            if n_samples - 1 <= margin:
                raise ValueError(
                    f"{name}: with alpha=0 the private test cannot pass on {n_samples} "
                    f"rows{how}: it needs the rarest feature's leave-one-out support (at most "
                    f"n_samples - 1 = {n_samples - 1} rows at full scale) above "
                    f"the noise margin {margin:.1f} rows (about ln(1/(2 delta1))/epsilon1), "
                    "with epsilon1 = "
                    f"test_fraction * epsilon = {eps1:.3g} and delta1 = test_fraction * delta "
                    f"= {delta1:.3g}. Use more rows, a larger epsilon or test_fraction, or a "
                    "ridge floor alpha > 0 (which makes the release private without the test)."
                    + ("" if not how else
                       " The count of the rows was released first, so the fit's planned cost "
                       f"(epsilon={float(self.epsilon):.4g}, delta={float(self.delta):.3g}) "
                       "has been spent and recorded; with n_samples_public=True (if the "
                       "number of rows is public) the refusal comes before any spend.")
                )

    def _privacy_plan(self, n_samples):
        # n_samples=None: the plan of a fit that must not read n (a private count); the
        # spend is (epsilon, delta) whatever the number of rows.
        self._check_params(n_samples)
        return self._privacy_spend(self.epsilon, self.delta)

    def _begin_fit_on_count(self, X):
        """Reserve the plan and release the number of rows: ``(count, rng)``.

        ``count`` is the :class:`~skprivate._row_count.NoisyCount` the forecast and the
        refusal of :meth:`_check_rows` read (None when ``X`` has no rows: validation then
        raises). The number of rows differs between add/remove neighbours, and the forecast
        (its warning, ``forecast_noise_to_signal_``, the report) and the refusal are
        functions of it, so unless it is public it is released first with discrete Laplace
        noise (``eps_n``, :func:`~skprivate._row_count.release_row_count`). No constant of
        the release depends on it (``_ptr``, "The number of rows"), so the rest of the fit
        is unchanged, calibrated to ``epsilon - eps_n``; the whole is ``(epsilon,
        delta)``-DP by basic composition (:mod:`skprivate._row_count`).
        """
        rng = self._noise_rng()
        n_samples = _n_rows(X)
        if self._rows_public():
            self._begin_private_fit(X)  # the exact n: checked, then (epsilon, delta) reserved
        else:
            # The reservation reads no n: (epsilon, delta) bounds the fit whatever the count.
            self._reserve_plan(None)
        if not n_samples:
            return None, rng  # no shape: counted once validated (_private_fit)
        return self._release_count(n_samples, rng), rng

    def _release_count(self, n_samples, rng):
        """The :class:`~skprivate._row_count.NoisyCount` of ``n_samples`` rows (exact if
        public), with the refusal of :meth:`_check_rows` on the noisy one."""
        if self._rows_public():
            n_plan = getattr(self, PUBLIC_N_SAMPLES, None) or n_samples
            return release_row_count(n_plan, 0.0, public=True, rng=rng)
        count = release_row_count(n_samples, float(self.epsilon), public=False, rng=rng)
        self._check_rows(count.n_plan, " (noisy count)")
        return count

    def _rows_text(self, count):
        """How the warnings name the number of rows the forecast read."""
        if count.public:
            return f"{count.n_plan:,} rows"
        return f"a noisy count of {count.n_plan:,} rows"

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
        With ``n_samples_public=False`` the budget is what the fit's noisy count of the
        rows leaves (``0.95 * epsilon``), as in ``fit``.

        Parameters
        ----------
        n_samples : int
            Number of training rows (here a number you give: nothing is counted).
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
        0.49
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

    def _forecast_before_fit(self, X, n_outputs, target_norm, count):
        """Forecast from the count of rows, ``X``'s width and the public parameters; warn
        in the chance region.

        Returns the forecast (a dict for ``privacy_report_``), or None when the bounds must
        be read from the data (then ``_private_fit`` forecasts once they are known).
        """
        if count is None:
            return None
        n_samples = count.n_plan
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
        return self._forecast_and_warn(count, *norms, target_norm, n_outputs)

    def _forecast_and_warn(self, count, row_norm, coord, target_norm, n_outputs):
        n_samples = count.n_plan
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
                f"{self._rows_text(count)}, data_norm={row_norm:.4g}, "
                f"feature bound={coord:.4g} "
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

        # The ratio decreases in both: the smallest value at or above the current one that
        # brings it to the threshold (the shared forecast mechanism's search).
        return {
            "rows needed": value_needed(
                lambda n: ratio_at(n=n), CHANCE_RATIO, n_samples, increasing=False,
                integer=True,
            ),
            "epsilon needed": value_needed(
                lambda e: ratio_at(epsilon=e), CHANCE_RATIO, float(self.epsilon),
                increasing=False,
            ),
        }

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
                     count, forecast=None, choose=None, caveats=()):
        """Clip, test, solve, release; ``Y`` is (n, K). Returns coef (K, p) and intercept (K,).

        ``count`` is the number of rows released by :meth:`_begin_fit_on_count`: what the
        forecast, the warnings and the report read (never ``X``'s exact number of rows).
        ``forecast`` is the public forecast made before the data were read (None: made here,
        once the bounds are known). ``choose(coef, intercept, report)``, if given, runs on
        the released model before the spend is recorded and returns the final model.
        """
        name = type(self).__name__
        n_samples, n_features = X.shape
        if count is None:  # X had no shape before validation: count its rows now
            count = self._release_count(n_samples, rng)
        label_caveats = list(caveats)
        X, row_norm, coord, target_norm, caveats = self._resolve_bounds(
            X, target_norm_public, target_norm_data
        )
        Y = clip_targets(Y, target_norm)
        n_outputs = Y.shape[1]
        if forecast is None:  # bounds read from the data: forecast now, before the release
            forecast = self._forecast_and_warn(
                count, row_norm, coord, target_norm, n_outputs
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

        # 1-2: the test (granular discrete Laplace on Lambda, sensitivity 1; _ptr, step 1)
        # and the released lower bound.
        if eps1 > 0:
            statistic = leave_one_out_statistic(X, unit)
            lambda_noisy = release_test_statistic(statistic, eps1, rng)
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
                f"{coord:.3g}), is not above the noise margin {margin:.4g} (about "
                f"ln(1/(2 delta1))/epsilon1), so dropout alone does not make the minimiser "
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
                f"{self._rows_text(count)} (a rare or small feature, or bounds much wider "
                "than the values; see the dropout user guide). Instead, "
                + alternative_text(forecast, classifier) + ".",
                UtilityWarning,
                stacklevel=_user_stacklevel(),
            )
            forecast["warned"] = True
        # The rounded Gaussian: theta rounded to a power-of-two grid plus exact rounded
        # Gaussian noise, a post-processing of the Gaussian mechanism with noise multiplier
        # sigma / Delta(l) on the lattice: (eps2, delta2)-DP (_ptr, step 3).
        noisy = rounded_gaussian_mechanism(theta, sensitivity, sigma / sensitivity,
                                           random_state=rng)
        noisy = np.array(noisy, dtype=np.float64).reshape(theta.shape)
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
                "propose-test-release: granular discrete Laplace test of the leave-one-out "
                "feature support, "
                "then rounded Gaussian output perturbation (on a power-of-two grid, exact "
                "integer sampler) of the exact dropout least-squares minimiser" if eps1 > 0
                else "rounded Gaussian output perturbation (on a power-of-two grid, exact "
                "integer sampler) of the ridge least-squares minimiser (keep_prob=1: no "
                "dropout, no test)"
            ),
            "reference": _REFERENCE,
            "test epsilon, delta": (eps1, delta1),
            "release epsilon, delta": (eps2, delta2),
            "lambda_noisy": lambda_noisy,
            "test noise": (
                "granular discrete Laplace (skprivate.mechanisms.granular_laplace_mechanism): "
                f"grid {granular_laplace_plan(1.0, eps1).gamma!r}, exact integer noise"
                if eps1 > 0 else "none (no test)"
            ),
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
            "accountant": "basic composition: (eps_n + eps1 + eps2, delta1 + delta2)",
            **count_report(count),
        }
        self.noise_to_signal_ = ratio
        self.forecast_noise_to_signal_ = forecast["ratio"]
        if choose is not None:
            coef, intercept = choose(coef, intercept, report, forecast)
        # eps_n + eps1 + eps2 (+ eps_s) <= epsilon and delta1 + delta2 <= delta (see
        # _budget_split); pure-DP count, adaptive basic composition: no event. The delta >=
        # 1/n check reads the count, not the exact n.
        self._finish_private_fit(
            self._privacy_spend(self.epsilon, self.delta), report, count.n_plan,
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
