"""The base of the DP-LSSGD linear estimators: their parameters, "auto" rules and numpy fit.

:class:`_BaseDPLSSGD` resolves a plan into the numbers of the numpy loop (learning rate,
clip, averaging), runs the private row scaling of ``max_grad_norm="auto"`` and the loop
(``skprivate._dpsgd._numpy_loop``, where the privacy argument is stated), and ends the fit
with the DP-SGD core's :meth:`~skprivate._dpsgd._runs.DPSGDFitMixin._finish_dpsgd_fit`,
as the nets do. The public classes are in :mod:`._dplssgd`.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .._dpsgd._numpy_loop import residual_function, run_dplssgd, squared_row_norms
from .._dpsgd._plan import (
    _AUTO_CLIP,
    _AUTO_ROW_NORM,
    DPSGDPlanMixin,
    auto_learning_rate,
)
from .._dpsgd._private_scaling import private_row_statistics
from .._dpsgd._runs import DPSGDFitMixin
from ..base import DPEstimatorMixin
from ..mechanisms import gaussian_noise

__all__ = []


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
        before any value of ``X`` was read); returns ``(coef, intercept)``."""
        n_samples = X.shape[0]
        # Everything below plans on and divides by count.n_plan, never the realised n:
        # dividing a released sum by the released count is post-processing.
        plan, call_spend = self._count_plan(count)  # cached calibration
        self._reserve_rest(count, plan)
        public_n = count.n_plan
        learning_rate, clip, average = self._resolved(plan, public_n)
        offset, row_scale = None, 1.0
        if plan.stats_noise_multipliers:
            # Private centring and scaling (skprivate._dpsgd._private_scaling); its two
            # Gaussian releases are part of plan.epsilon, composed with the training.
            sigma_hist, sigma_mean = plan.stats_noise_multipliers
            offset, scale, _ = private_row_statistics(
                X, squared_row_norms(X), sigma_hist=sigma_hist, sigma_mean=sigma_mean,
                rng=rng, noise=gaussian_noise, n_public=public_n,
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
            noise=gaussian_noise,
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
