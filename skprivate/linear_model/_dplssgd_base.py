"""The base of the DP-LSSGD linear estimators: their parameters, "auto" rules and numpy fit.

:class:`_BaseDPLSSGD` resolves a plan into the numbers of the numpy loop (learning rate,
clip, averaging), runs the private row scaling of ``max_grad_norm="auto"`` and the loop
(``skprivate._dpsgd._numpy_loop``, where the privacy argument is stated), and ends the fit
with the DP-SGD core's :meth:`~skprivate._dpsgd._runs.DPSGDFitMixin._finish_dpsgd_fit`,
as the nets do. The public classes are in :mod:`._dplssgd`.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions

from .._dpsgd._kernels import residual_function, squared_row_norms
from .._dpsgd._numpy_loop import run_dplssgd
from .._dpsgd._plan import (
    _AUTO_CLIP,
    _AUTO_ROW_NORM,
    DPSGDPlanMixin,
    auto_learning_rate,
)
from .._dpsgd._private_scaling import private_row_statistics
from .._dpsgd._release import describe_release, gaussian_release
from .._dpsgd._runs import DPSGDFitMixin
from .._forecast import warn_rows_epsilon
from ..base import DPEstimatorMixin
from ..utils._threads import bounded_threads

__all__ = []


# The forecast's threshold on rows x epsilon per coefficient, n epsilon / (d K) with d the
# number of features and K the outputs (1 for two classes, the number of classes
# otherwise). Measured with DPLSSGDClassifier defaults on subsets of the standardised
# breast cancer (d=30, K=1) and digits (d=64, K=10) tables, 2 to 3 seeds: below 0.2 the
# accuracy was at or below the majority class's (breast cancer, n=50 at epsilon 0.1 and
# n=100 at 0.05: 0.59 and 0.60 against 0.63) or near it (digits, 0.078: 0.15 against
# 0.10; 0.16: 0.24, against 0.97 without privacy); at 0.31 to 0.42 it was 8 to 10 points above it on breast cancer and
# 0.47 on digits, and from 0.6 clearly useful (breast cancer 0.84 to 0.91, digits 0.70 to
# 0.89). The product, not n or epsilon alone, decided it (digits: 400 rows at 0.5 and 800
# at 0.25 both gave 0.469). Every table of benchmarks/results/dplssgd_utility.md is above
# 0.7. The grid: benchmarks/dplssgd_forecast.py (results/dplssgd_forecast.md).
_FORECAST_ROWS_EPSILON = 0.2


def _forecast_rows_epsilon(estimator, n_plan, n_features, n_outputs):
    """Warn when rows x epsilon is too small for the dimension (:mod:`skprivate._forecast`).

    Reads the count planned on, the number of features, the released classes and
    ``epsilon``: post-processing, no privacy cost. No forecast without an ``epsilon`` or
    with an explicit ``noise_multiplier`` (the user chose the noise; ``epsilon`` is then
    not a target).
    """
    if estimator.epsilon is None or estimator.noise_multiplier is not None:
        return
    classes = "two classes" if n_outputs == 1 else f"{n_outputs} classes"
    epsilon = float(estimator.epsilon)
    warn_rows_epsilon(
        estimator, n_plan, epsilon, float(n_features * n_outputs), _FORECAST_ROWS_EPSILON,
        finding=(f"{{n_plan:,}} rows (the count planned on) x epsilon={epsilon:g} is "
                 f"{{ratio:.3g}} per coefficient for {n_features} features and {classes}, "
                 f"below {_FORECAST_ROWS_EPSILON:g}"),
        outcome="accuracy at or near the majority class's",
        alternative="use fewer features (declared categories, merged or dropped columns), "
        "or a constant predictor (sklearn.dummy.DummyClassifier), which does as well there",
    )


class _BaseDPLSSGD(DPSGDFitMixin, DPEstimatorMixin):
    """What the DP-LSSGD classifier and regressor share: the privacy plan and the loop."""

    _parameter_constraints = {
        **DPEstimatorMixin._dp_parameter_constraints,
        **DPSGDPlanMixin._dpsgd_parameter_constraints,
        "max_grad_norm": [Interval(Real, 0, np.inf, closed="neither"), StrOptions({"auto"})],
        "max_iter": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "learning_rate": [Interval(Real, 0, np.inf, closed="neither"), StrOptions({"auto"})],
        "alpha": [Interval(Real, 0, np.inf, closed="left")],
        "fit_intercept": ["boolean"],
        "average": ["boolean", StrOptions({"auto"})],
        "verbose": ["verbose"],
    }

    _EPOCHS_PARAM = "max_iter"

    def _private_statistics(self):
        # max_grad_norm="auto" clips in the units of privately centred and scaled rows.
        return self.max_grad_norm == "auto"

    def _plan(self, n_samples, epsilon=None, batch_size=None):
        plan = super()._plan(n_samples, epsilon, batch_size)
        learning_rate = self._resolved(plan, n_samples)[0]
        if self.alpha * learning_rate >= 2:
            raise ValueError(
                f"{type(self).__name__}: alpha * learning_rate = {self.alpha * learning_rate:.4g}"
                " >= 2, so the L2 penalty alone makes the coefficients grow in magnitude at "
                f"every step (alpha={self.alpha!r}, learning_rate={self.learning_rate!r}, "
                f"which is {learning_rate:.4g} in this plan). Lower alpha or learning_rate so "
                "that their product is below 2 (below 1 also avoids oscillation)."
            )
        return plan

    def _resolved(self, plan, n_samples):
        """``(learning_rate, max_grad_norm, average_from)`` of a plan, "auto" resolved.

        Public values only: the plan (itself a function of ``n_samples``, ``epsilon`` and
        ``delta``), ``n_samples`` (the number planned on: public or a noisy count) and the
        parameters. See the comment above ``_AUTO_TOTAL_STEP`` in
        ``skprivate._dpsgd._plan`` for how the rule was measured.
        """
        standardised = self.max_grad_norm == "auto"
        clip = _AUTO_CLIP if standardised else float(self.max_grad_norm)
        if self.learning_rate == "auto":
            learning_rate = auto_learning_rate(
                n_samples, plan.epsilon, plan.n_steps, clip, standardised,
                hinge=self.loss == "hinge",
            )
        else:
            learning_rate = float(self.learning_rate)
        return learning_rate, clip, self._average_from(plan)

    def _fit_linear(self, X, y, rng, n_outputs, count, huber_threshold=None, caveats=()):
        """Train on ``X``, ``y`` with the plan made on ``count`` (:meth:`_row_count`, drawn
        before any value of ``X`` was read); returns ``(coef, intercept)``.

        Every native pool (NumPy's and SciPy's BLAS, scikit-learn's OpenMP) runs one thread
        during the fit, restored after it: each step multiplies one small Poisson batch, too
        little work to share, and idle BLAS threads spin against other work on shared cores.
        Measured beside one busy process on 2 cores after a scikit-learn fit: the default
        Adult fit took 0.41 s against 0.84 s, a 200,000 x 50 fit 1.07 s against 1.44 s.
        """
        with bounded_threads(1):
            return self._fit_linear_bounded(X, y, rng, n_outputs, count, huber_threshold,
                                            caveats)

    def _fit_linear_bounded(self, X, y, rng, n_outputs, count, huber_threshold, caveats):
        n_samples = X.shape[0]
        # Everything below plans on and divides by count.n_plan, never the realised n:
        # dividing a released sum by the released count is post-processing.
        plan, call_spend = self._count_plan(count)  # cached calibration
        self._reserve_rest(count, plan)
        public_n = count.n_plan
        if isinstance(self, ClassifierMixin):  # calibrated on classifiers only
            _forecast_rows_epsilon(self, public_n, X.shape[1], n_outputs)
        learning_rate, clip, average = self._resolved(plan, public_n)
        release = gaussian_release()
        self._release_noise = describe_release(release)
        offset, row_scale = None, 1.0
        if plan.stats_noise_multipliers:
            # Private centring and scaling (skprivate._dpsgd._private_scaling); its two
            # Gaussian releases are part of plan.epsilon, composed with the training.
            sigma_hist, sigma_mean = plan.stats_noise_multipliers
            offset, scale, _ = private_row_statistics(
                X, squared_row_norms(X), sigma_hist=sigma_hist, sigma_mean=sigma_mean,
                rng=rng, release=release, n_public=public_n,
            )
            # scale / 3: the rows' root mean squared norm becomes 3 (see skprivate._dpsgd._plan); a
            # histogram too noisy to read leaves the rows as given (scale 1, no offset).
            row_scale = scale / _AUTO_ROW_NORM if offset is not None else 1.0
            if not self.fit_intercept:
                offset = None  # centring would add an intercept the model does not have
            self.offset_, self.row_scale_ = offset, row_scale
        coef, intercept = run_dplssgd(
            X,
            y,
            residual=residual_function(self.loss, n_outputs, huber_threshold),
            n_outputs=n_outputs,
            sample_rate=plan.sample_rate,
            n_steps=plan.n_steps,
            noise_multiplier=plan.noise_multiplier,
            max_grad_norm=clip,
            learning_rate=learning_rate,
            alpha=float(self.alpha),
            smoothing=float(self.smoothing),
            smoothing_order=int(self.smoothing_order),
            smoothing_blocks=self.smoothing_blocks,
            fit_intercept=bool(self.fit_intercept),
            average=average,
            rng=rng,
            release=release,
            verbose=self.verbose,
            name=type(self).__name__,
            expected_batch=plan.sample_rate * public_n,
            offset=offset,
            row_scale=row_scale,
        )
        self.batch_size_ = plan.batch_size
        self.learning_rate_ = learning_rate
        self.max_grad_norm_ = clip  # before the report, which reads it
        extra = {"learning_rate": learning_rate}
        if plan.stats_noise_multipliers and row_scale == 1.0 and offset is None:
            extra["private_scaling"] = (
                "the noisy histogram of row norms was too noisy to read (too few rows for "
                "the budget), so the rows were used as given; its releases are still "
                "counted in epsilon_"
            )
        elif plan.stats_noise_multipliers:
            extra["private_scaling"] = (
                "rows centred by a private mean and divided by a private root mean squared "
                f"norm (over {_AUTO_ROW_NORM:g}); max_grad_norm_ is in those units. Two "
                "Gaussian releases, noise multipliers "
                + ", ".join(f"{s:.4g}" for s in plan.stats_noise_multipliers)
                + " (histogram of row norms; sum of clipped rows and squared norms), composed "
                "with the training in epsilon_"
            )
        self._finish_dpsgd_fit(
            plan,
            n_samples,
            count=count,
            call_spend=call_spend,
            gradients="the whole parameter vector",
            n_steps=plan.n_steps,
            n_iter=-(-plan.n_steps // plan.steps_per_epoch),  # epochs, rounded up
            caveats=caveats,
            **extra,
        )
        return coef, intercept

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
