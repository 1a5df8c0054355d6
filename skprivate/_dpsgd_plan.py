"""The public side of a DP-SGD fit: batch size, sampling rate, steps, noise and epsilon.

Shared by the numpy (``skprivate.linear_model``) and PyTorch (``skprivate.neural_network``)
DP-LSSGD estimators, which plan a fit the same way from public numbers alone.
"""

import functools
from collections import namedtuple
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .accounting import dpsgd_epsilon, dpsgd_event, dpsgd_noise_multiplier
from .exceptions import InfeasiblePrivacyError

__all__ = []

DPSGDPlan = namedtuple(
    "DPSGDPlan", "noise_multiplier sample_rate n_steps steps_per_epoch batch_size epsilon"
)


@functools.lru_cache(maxsize=256)
def _noise_and_epsilon(epsilon, delta, noise_multiplier, sample_rate, n_steps, accounting):
    # Calibration costs up to a second; the plan made before the data are read, the fit, and
    # the folds of a search of equal size all ask for the same numbers.
    if noise_multiplier is None:
        noise_multiplier = dpsgd_noise_multiplier(
            epsilon, sample_rate, n_steps, delta, accountant=accounting
        )
    spent = dpsgd_epsilon(noise_multiplier, sample_rate, n_steps, delta, accountant=accounting)
    return float(noise_multiplier), float(spent)


def plan_dpsgd(
    owner, n_samples, *, batch_size, auto_batch_size, epochs, epochs_name, epsilon, delta,
    noise_multiplier, accounting,
):
    """Plan a DP-SGD fit on ``n_samples`` rows from the estimator's parameters.

    ``batch_size`` is the expected Poisson batch size (``"auto"``: ``auto_batch_size``
    capped at ``n_samples``); one epoch is ``n_samples / batch_size`` expected steps, rounded
    half up and at least one. With ``noise_multiplier=None`` the noise is calibrated to
    ``epsilon``; otherwise ``epsilon`` is ignored and the plan's epsilon is computed from the
    given noise. ``owner`` and ``epochs_name`` only word the error message.
    """
    if batch_size == "auto":
        batch_size = min(auto_batch_size, n_samples)
    sample_rate = batch_size / n_samples
    steps_per_epoch = max(1, int(n_samples / batch_size + 0.5))
    n_steps = epochs * steps_per_epoch
    explicit = noise_multiplier is not None
    try:
        noise, spent = _noise_and_epsilon(
            None if explicit else float(epsilon),
            float(delta),
            float(noise_multiplier) if explicit else None,
            float(sample_rate),
            int(n_steps),
            accounting,
        )
    except InfeasiblePrivacyError as exc:
        raise InfeasiblePrivacyError(
            f"{owner}: epsilon={epsilon!r} (delta={delta!r}) cannot be reached in "
            f"{epochs_name}={epochs} epochs with batch_size={batch_size!r} on {n_samples} rows "
            f"({n_steps} steps at sample rate {sample_rate:.3g}): even the largest supported "
            f"noise multiplier spends more. Raise epsilon or delta, or lower {epochs_name} or "
            "batch_size (fewer and smaller batches cost less)."
        ) from exc
    return DPSGDPlan(noise, sample_rate, n_steps, steps_per_epoch, batch_size, spent)


class DPSGDPlanMixin:
    """The privacy plan of a DP-SGD estimator, from its parameters and the number of rows.

    Subclasses set ``_EPOCHS_PARAM`` (the name of their epochs parameter) and
    ``_AUTO_BATCH_SIZE``, and may extend ``_check_params`` (calling this one first).
    :attr:`_dpsgd_parameter_constraints` validates the parameters every DP-SGD estimator
    shares (smoothing, clipping, noise, batches, accounting).
    """

    _dpsgd_parameter_constraints = {
        "smoothing": [Interval(Real, 0, np.inf, closed="left")],
        "smoothing_order": [Interval(Integral, 1, None, closed="left")],
        "smoothing_blocks": [StrOptions({"per_tensor", "global"})],
        "max_grad_norm": [Interval(Real, 0, np.inf, closed="neither")],
        "noise_multiplier": [Interval(Real, 0, np.inf, closed="neither"), None],
        "batch_size": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "accounting": [StrOptions({"rdp", "pld"})],
    }

    def _check_params(self, n_samples):
        if self.batch_size != "auto" and self.batch_size > n_samples:
            raise ValueError(
                f"{type(self).__name__}: batch_size={self.batch_size} is larger than "
                f"n_samples={n_samples}. batch_size is the expected size of a Poisson-sampled "
                f"batch, so it can be at most n_samples; use batch_size <= {n_samples} "
                "(batch_size=n_samples uses every row at every step) or batch_size='auto'."
            )

    def _plan(self, n_samples):
        """Noise, sampling rate and steps of a fit on ``n_samples`` rows (public values only)."""
        self._check_params(n_samples)
        return plan_dpsgd(
            type(self).__name__,
            n_samples,
            batch_size=self.batch_size,
            auto_batch_size=self._AUTO_BATCH_SIZE,
            epochs=getattr(self, self._EPOCHS_PARAM),
            epochs_name=self._EPOCHS_PARAM,
            epsilon=self.epsilon,
            delta=self.delta,
            noise_multiplier=self.noise_multiplier,
            accounting=self.accounting,
        )

    def _privacy_plan(self, n_samples):
        plan = self._plan(n_samples)
        return self._privacy_spend(
            plan.epsilon,
            self.delta,
            event=dpsgd_event(plan.noise_multiplier, plan.sample_rate, plan.n_steps),
        )

    def _dpsgd_report(self, plan, *, gradients, steps, **extra):
        """Privacy-report entries of a DP-LSSGD fit; ``gradients`` names what is clipped."""
        report = {
            "mechanism": (
                "DP-SGD: Poisson-subsampled Gaussian mechanism on per-example gradients of "
                f"{gradients}, clipped to max_grad_norm; Laplacian smoothing of the noisy "
                "gradient (post-processing)"
            ),
            "accountant": f"{self.accounting.upper()} (dp-accounting), composed over steps",
            "noise_multiplier": plan.noise_multiplier,
            "sample_rate": plan.sample_rate,
            "expected_batch_size": plan.batch_size,
            "steps": steps,
            **extra,
            "max_grad_norm": float(self.max_grad_norm),
            "smoothing": (
                f"sigma={float(self.smoothing):g}, order={self.smoothing_order}, "
                f"blocks={self.smoothing_blocks}"
            ),
            "reference": (
                "Wang, Gu, Boedihardjo, Barekat and Osher, DP-LSSGD (2019); Mironov, Talwar "
                "and Zhang, Renyi DP of the sampled Gaussian mechanism (2019)"
            ),
        }
        if self.noise_multiplier is not None:
            report["note"] = (
                "noise_multiplier was given, so the epsilon parameter was not used; epsilon "
                "is what this noise achieves"
            )
        return report
