"""The public side of a DP-SGD fit: batch size, sampling rate, steps, noise and epsilon.

Shared by the numpy (``skprivate.linear_model``) and PyTorch (``skprivate.neural_network``)
DP-LSSGD estimators, which plan a fit the same way from public numbers alone.
"""

import functools
import math
from collections import namedtuple
from numbers import Integral, Real

import numpy as np
from scipy.stats import norm
from sklearn.utils._param_validation import Interval, StrOptions

from .._row_count import (
    COUNT_SHARE,
    NoisyCount,
    count_report,
    release_row_count,
    rest_epsilon,
)
from ..accounting import dpsgd_epsilon, dpsgd_event, dpsgd_noise_multiplier
from ..accounting._calibrate import solve_monotone
from ..exceptions import InfeasiblePrivacyError

__all__ = []

DPSGDPlan = namedtuple(
    "DPSGDPlan",
    "noise_multiplier sample_rate n_steps steps_per_epoch batch_size epsilon "
    "stats_noise_multipliers",
    defaults=((),),
)

# --- the "auto" policy: every number below is a function of public values only ------------
#
# Measured (benchmarks/dplssgd_utility.py and the study in docs/user_guide/dp_lssgd.rst) on
# digits and breast cancer under two scalings and on 1,000-row subsets of Adult:
#
# * What decides accuracy is the total step length, learning rate x steps x clip norm (the
#   furthest the weights can travel), and its best value grows with n x epsilon: the
#   averaged clipped gradient is a signal of size about C against noise z C / B per step,
#   and z shrinks as n epsilon grows at a fixed batch and number of steps. At a fixed total,
#   batch size and noise multiplier (3 to 80) move accuracy by about a point. With the rows
#   privately centred and scaled to a root mean squared norm of 3 (``_AUTO_ROW_NORM``), a
#   total of 0.13 n epsilon in those units was best on every data set and scaling; 0.05 to
#   0.27 lose at most 1 to 3 points.
# * Steps: ten epochs, at least 2,000 and at most 5,000. More steps at the same total step
#   length helped on every small table (250 / 1,000 / 2,500 steps on the data sets above:
#   breast cancer 0.943 / 0.951 / 0.963 at epsilon 0.5, 1,000 Adult rows 0.769 / 0.790 /
#   0.802), and 5,000 keeps a default fit of 200,000 rows within a second or two.
# * Batch: max(128, n / 256), never above n: 128 keeps the noise per step small relative to
#   the signal on small tables; n / 256 keeps the number of steps of big tables bounded.
# * Clip: 0.3 in the units of the privately standardised rows (norm about 3, so most
#   per-example gradients are clipped: every row then counts the same, the regime where
#   DP-SGD's signal-to-noise ratio is best), measured against 0.1 and 1.
_AUTO_MIN_BATCH = 128
_AUTO_BATCH_FRACTION = 256
_AUTO_MIN_STEPS, _AUTO_MAX_STEPS, _AUTO_EPOCHS = 2000, 5000, 10
_AUTO_TOTAL_STEP = 0.13  # total step length / (n epsilon), standardised rows
_AUTO_TOTAL_STEP_RAW = 0.15  # the same for a numeric max_grad_norm (rows as given)
# The hinge loss wants a quarter of the log-loss's total step: its residuals (up to
# n_classes - 1 for the Weston-Watkins loss) keep every violated example's gradient at the
# clip, so it does not slow down near the optimum. Measured on digits, two scalings, two
# seeds, epsilon 0.5 / 1: factors 1 / 0.5 / 0.25 / 0.125 gave 0.79 / 0.83 / 0.85 / 0.83 and
# 0.86 / 0.89 / 0.91 / 0.90 (standardised), 0.82 / 0.87 / 0.88 / 0.84 (divided by max);
# breast cancer was flat within a point.
_AUTO_HINGE_FACTOR = 0.25
_AUTO_ROW_NORM = 3.0
_AUTO_CLIP = 0.3
# Share of the privacy budget taken by the private centring and scaling, as fractions of
# mu^2 in Gaussian differential privacy (Dong, Roth and Su 2022: Gaussian mechanisms
# compose as mu^2 = sum mu_i^2): 3 % for the histogram of row norms, 10 % for the mean row
# and mean squared norm. The training keeps sqrt(0.87) = 93 % of mu, so its noise grows by
# about 7 %; the calibration itself is exact (RDP or PLD of the whole composition).
_STATS_SHARES = (0.03, 0.10)


def auto_batch_size(n_samples):
    """The "auto" expected batch size: ``max(128, n / 256)``, at most ``n_samples``."""
    return int(min(n_samples, max(_AUTO_MIN_BATCH, round(n_samples / _AUTO_BATCH_FRACTION))))


# plan_dpsgd's keyword ``auto_batch_size`` hides the function's name inside it
auto_batch_size_of = auto_batch_size


def epoch_steps(n_samples, batch_size):
    """Steps of one epoch: ``n_samples / batch_size`` rounded half up, at least one."""
    return max(1, int(n_samples / batch_size + 0.5))


def auto_steps(n_samples, batch_size):
    """The "auto" number of steps: ten epochs, between 2,000 and 5,000."""
    epochs = _AUTO_EPOCHS * n_samples / batch_size
    return int(min(_AUTO_MAX_STEPS, max(_AUTO_MIN_STEPS, round(epochs))))


def auto_learning_rate(n_samples, epsilon, n_steps, max_grad_norm, standardised, hinge=False):
    """The "auto" learning rate: a total step length ``k n epsilon`` spread over the steps.

    ``k`` is 0.13 for privately standardised rows and 0.15 for rows as given (measured,
    see the comment above ``_AUTO_TOTAL_STEP``), a quarter of that for the hinge loss;
    ``epsilon`` is the plan's epsilon.
    """
    k = _AUTO_TOTAL_STEP if standardised else _AUTO_TOTAL_STEP_RAW
    if hinge:
        k *= _AUTO_HINGE_FACTOR
    return spread_total_step(k, n_samples, epsilon, n_steps, max_grad_norm)


def spread_total_step(k, n_samples, epsilon, n_steps, max_grad_norm):
    """The learning rate that spreads a total step length ``k n epsilon`` over ``n_steps``.

    The total step length is ``learning rate x steps x max_grad_norm``, the furthest the
    weights can travel (see the comment above ``_AUTO_TOTAL_STEP``).
    """
    return float(k * n_samples * epsilon / (n_steps * max_grad_norm))


@functools.lru_cache(maxsize=64)
def _gdp_mu(epsilon, delta):
    """The mu of the mu-GDP mechanism that is exactly (epsilon, delta)-DP.

    Dong, Roth and Su (2022), Corollary 2.13: mu-GDP is (epsilon, delta(epsilon))-DP with
    delta = Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2), increasing in mu.
    """

    def delta_of(mu):
        return norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(-epsilon / mu - mu / 2)

    # The largest mu within delta, by the package's one calibration solver.
    return float(solve_monotone(
        delta_of, delta, increasing=True, lower=1e-6, upper=100.0, start=1.0, xtol=1e-10,
    ))


def stats_noise_multipliers(epsilon, delta):
    """Noise multipliers of the two Gaussian releases of the private row statistics.

    A function of the public ``(epsilon, delta)`` only: each release gets a fixed share of
    ``mu^2`` (``_STATS_SHARES``), where ``mu`` is the GDP parameter of ``(epsilon, delta)``.
    The shares guide the split; the reported epsilon is the exact composition.
    """
    mu = _gdp_mu(float(min(epsilon, 50.0)), float(delta))
    return tuple(1.0 / (math.sqrt(share) * mu) for share in _STATS_SHARES)


@functools.lru_cache(maxsize=256)
def _noise_and_epsilon(
    epsilon, delta, noise_multiplier, sample_rate, n_steps, accounting, gaussians=()
):
    # Calibration costs up to a second; the plan made before the data are read, the fit, and
    # the folds of a search of equal size all ask for the same numbers.
    if noise_multiplier is None:
        noise_multiplier = dpsgd_noise_multiplier(
            epsilon, sample_rate, n_steps, delta, accounting=accounting,
            gaussian_noise_multipliers=gaussians,
        )
    spent = dpsgd_epsilon(
        noise_multiplier, sample_rate, n_steps, delta, accounting=accounting,
        gaussian_noise_multipliers=gaussians,
    )
    return float(noise_multiplier), float(spent)


def plan_dpsgd(
    owner, n_samples, *, batch_size, auto_batch_size, epochs, epochs_name, epsilon, delta,
    noise_multiplier, accounting, private_statistics=False,
):
    """Plan a DP-SGD fit on ``n_samples`` rows from the estimator's parameters.

    ``batch_size`` is the expected Poisson batch size (``"auto"``: ``auto_batch_size``
    capped at ``n_samples``, or :func:`auto_batch_size` when that is None); one epoch is
    ``n_samples / batch_size`` expected steps, rounded half up and at least one; ``epochs``
    ``"auto"`` is :func:`auto_steps` steps. With ``noise_multiplier=None`` the noise is
    calibrated to ``epsilon``; otherwise ``epsilon`` is ignored and the plan's epsilon is
    computed from the given noise. ``private_statistics``: two Gaussian releases of row
    statistics (:func:`stats_noise_multipliers`) are composed with the training. ``owner``
    and ``epochs_name`` only word the error message.
    """
    if batch_size == "auto":
        if auto_batch_size is None:
            batch_size = auto_batch_size_of(n_samples)
        else:
            batch_size = min(auto_batch_size, n_samples)
    sample_rate = batch_size / n_samples
    steps_per_epoch = epoch_steps(n_samples, batch_size)
    if epochs == "auto":
        n_steps = auto_steps(n_samples, batch_size)
    else:
        n_steps = epochs * steps_per_epoch
    gaussians = stats_noise_multipliers(epsilon, delta) if private_statistics else ()
    explicit = noise_multiplier is not None
    try:
        noise, spent = _noise_and_epsilon(
            None if explicit else float(epsilon),
            float(delta),
            float(noise_multiplier) if explicit else None,
            float(sample_rate),
            int(n_steps),
            accounting,
            gaussians,
        )
    except InfeasiblePrivacyError as exc:
        length = (
            f"{epochs_name}='auto'" if epochs == "auto" else f"{epochs_name}={epochs} epochs"
        )
        raise InfeasiblePrivacyError(
            f"{owner}: epsilon={epsilon!r} (delta={delta!r}) cannot be reached in "
            f"{length} with batch_size={batch_size!r} on {n_samples} rows "
            f"({n_steps} steps at sample rate {sample_rate:.3g}): even the largest supported "
            f"noise multiplier spends more. Raise epsilon or delta, or lower {epochs_name} or "
            "batch_size (fewer and smaller batches cost less)."
        ) from exc
    return DPSGDPlan(noise, sample_rate, n_steps, steps_per_epoch, batch_size, spent, gaussians)


PUBLIC_N_SAMPLES = "_public_n_samples"


def public_n_samples(estimator, n_samples):
    """The number of rows to plan on and divide by: the public one a private search set
    (:data:`PUBLIC_N_SAMPLES`, see ``skprivate.model_selection._search``), else ``n_samples``."""
    public = getattr(estimator, PUBLIC_N_SAMPLES, None)
    return n_samples if public is None else public


class DPSGDPlanMixin:
    """The privacy plan of a DP-SGD estimator, from its parameters and the number of rows.

    Subclasses set ``_EPOCHS_PARAM`` (the name of their epochs parameter), may set
    ``_AUTO_BATCH_SIZE`` (the expected batch of ``batch_size="auto"``; None, the default:
    :func:`auto_batch_size`), and may extend ``_check_params`` (calling this one first).
    :attr:`_dpsgd_parameter_constraints` validates the parameters every DP-SGD estimator
    shares (smoothing, clipping, noise, batches, accounting, ``n_samples_public``).

    The number of rows a fit plans on is released first (:meth:`_row_count`,
    :mod:`skprivate._row_count`) unless it is public; :meth:`_count_plan` plans on it and
    gives the call's spend.
    """

    _AUTO_BATCH_SIZE = None

    _dpsgd_parameter_constraints = {
        "smoothing": [Interval(Real, 0, np.inf, closed="left")],
        "smoothing_order": [Interval(Integral, 1, None, closed="left")],
        "smoothing_blocks": [StrOptions({"per_tensor", "global"})],
        "max_grad_norm": [Interval(Real, 0, np.inf, closed="neither")],
        "noise_multiplier": [Interval(Real, 0, np.inf, closed="neither"), None],
        "batch_size": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "accounting": [StrOptions({"rdp", "pld"})],
        "n_samples_public": ["boolean"],
    }

    def _check_params(self, n_samples):
        if self.batch_size != "auto" and self.batch_size > n_samples:
            raise ValueError(
                f"{type(self).__name__}: batch_size={self.batch_size} is larger than "
                f"n_samples={n_samples}. batch_size is the expected size of a Poisson-sampled "
                f"batch, so it can be at most n_samples; use batch_size <= {n_samples} "
                "(batch_size=n_samples uses every row at every step) or batch_size='auto'."
            )

    def _n_samples_known(self):
        """Whether the plan may read the number of rows: declared public, or the public
        planned size a private search set (:data:`PUBLIC_N_SAMPLES`)."""
        return bool(self.n_samples_public) or getattr(self, PUBLIC_N_SAMPLES, None) is not None

    def _row_count(self, n_samples, rng):
        """The number of rows this call plans on (:class:`skprivate._row_count.NoisyCount`).

        Call right after ``rng = self._noise_rng()``, before any value of ``X`` is read. A
        private search's planned size (:data:`PUBLIC_N_SAMPLES`) is public (the search
        released its own count); ``n_samples_public=True`` reads ``n_samples`` exactly;
        otherwise ``n_samples`` plus discrete Laplace noise, ``COUNT_SHARE * epsilon`` (with
        an explicit ``noise_multiplier``, ``epsilon`` still sets the count's share). With a
        public number nothing is drawn from ``rng``, so the fit is today's, bit for bit.
        """
        searched = getattr(self, PUBLIC_N_SAMPLES, None)
        if searched is not None:
            return NoisyCount(int(searched), 0.0, None, True)
        return release_row_count(
            n_samples, float(self.epsilon), public=bool(self.n_samples_public), rng=rng
        )

    def _count_report(self, count):
        """The report entry that says how the number of rows entered this call."""
        if getattr(self, PUBLIC_N_SAMPLES, None) is not None:
            return {"number of rows": (
                f"{count.n_plan}, the planned size of a private search's run (the search "
                "released its own noisy count and accounts for it)"
            )}
        return count_report(count)

    def _plan(self, n_samples, epsilon=None, batch_size=None):
        """Noise, sampling rate and steps of a fit planned on ``n_samples`` rows.

        ``n_samples`` must be public or released (a noisy count); ``epsilon`` is the budget
        the noise is calibrated to (default: the ``epsilon`` parameter; ignored with an
        explicit ``noise_multiplier``); ``batch_size`` replaces the parameter (a cap).
        """
        if batch_size is None:
            self._check_params(n_samples)
            batch_size = self.batch_size
        return plan_dpsgd(
            type(self).__name__,
            n_samples,
            batch_size=batch_size,
            auto_batch_size=self._AUTO_BATCH_SIZE,
            epochs=self._epochs(n_samples, batch_size),
            epochs_name=self._EPOCHS_PARAM,
            epsilon=self.epsilon if epsilon is None else epsilon,
            delta=self.delta,
            noise_multiplier=self.noise_multiplier,
            accounting=self.accounting,
            private_statistics=self._private_statistics(),
        )

    def _count_plan(self, count):
        """``(plan, spend)`` of a call that plans on ``count`` (from :meth:`_row_count`).

        Public count: the plan on that number and its spend with the dp-accounting event, as
        :meth:`_privacy_plan`. Released count: the plan on the noisy number, its noise
        calibrated to what the count left, ``epsilon - count.epsilon``; the spend is the
        basic composition ``count.epsilon + (epsilon - count.epsilon)``, the bound every
        count's plan meets (with an explicit ``noise_multiplier``, ``count.epsilon +
        plan.epsilon`` and the caveat ``epsilon_from_count``), with no event, because the
        plan was chosen from the count (the adaptive composition argument of
        :mod:`skprivate._row_count`: Dwork, Rothblum and Vadhan 2010, Theorem III.3). A fixed
        ``batch_size`` above the noisy count is capped at it (every row at every step), a
        decision on the released count only, so that no error tells whether ``n`` is below
        ``batch_size``.

        The count enters no sensitivity or noise scale here: each row's gradient is clipped
        to ``max_grad_norm`` whatever ``n``, and the Poisson rate applies to whatever rows
        there are, so the sampled Gaussian mechanism's guarantee holds for every count and
        no lower confidence bound (no added delta) is needed; the divisors that read the
        count (the expected batch size, the private row statistics) only rescale released
        sums: post-processing.
        """
        if count.public:
            plan = self._plan(count.n_plan)
            return plan, self._spend_of(plan)
        batch_size = self.batch_size
        if batch_size != "auto":
            batch_size = min(batch_size, count.n_plan)
        try:
            plan = self._plan(count.n_plan, self._rest_epsilon(count), batch_size)
        except InfeasiblePrivacyError as exc:
            raise InfeasiblePrivacyError(
                f"{exc} (The training gets epsilon={self.epsilon!r} less the "
                f"{count.epsilon:.3g} of the noisy count of rows it was planned on; pass "
                "n_samples_public=True if the number of rows is public.)"
            ) from exc
        if self.noise_multiplier is None:
            # Every count's plan is calibrated to at most epsilon - count.epsilon, so the
            # guarantee of the whole fit (the count plus the worst plan any count could have
            # chosen) is epsilon itself; this plan's own, smaller epsilon would understate it.
            spend = self._privacy_spend(count.epsilon + self._rest_epsilon(count), self.delta)
        else:
            # No bound over counts exists here: the caveat epsilon_from_count says so.
            spend = self._privacy_spend(count.epsilon + plan.epsilon, self.delta)
        return plan, spend

    def _rest_epsilon(self, count):
        """The budget left to the training after the count (None with a given noise)."""
        if self.noise_multiplier is not None:
            return None
        return rest_epsilon(self.epsilon, count.epsilon)

    def _reservation(self, n_samples):
        """What to reserve in the accountant before any value is read.

        With a public number of rows, the plan (:meth:`_privacy_plan`). Otherwise the plan
        must not read ``n_samples``: with ``epsilon`` as the target, the target itself (an
        upper bound of ``count.epsilon + plan.epsilon`` whatever the count), no event; with
        an explicit ``noise_multiplier`` the training's epsilon depends on the noisy count
        (its sampling rate and steps), which is not drawn yet, so only the count's share is
        reserved here and the training's epsilon once planned (:meth:`_reserve_rest`).
        """
        if self._n_samples_known():
            return self._privacy_plan(n_samples)
        if self.noise_multiplier is None:
            return self._privacy_spend(self.epsilon, self.delta)
        return self._privacy_spend(COUNT_SHARE * float(self.epsilon), 0.0)

    def _spend_bound(self, n_samples):
        """What a fit on ``n_samples`` rows is charged (``total_privacy_cost`` of a search).

        With a public number of rows, the plan with its event. Otherwise the fit planned on
        a noisy count and its spend has no event (basic composition): with ``epsilon`` as the
        target, the target (never exceeded, whatever the count); with an explicit
        ``noise_multiplier``, the count's share plus the plan on ``n_samples`` rows (the
        fit's own epsilon follows its count, within a few percent of this at the count's
        typical error).
        """
        if self._n_samples_known():
            return self._privacy_plan(n_samples)
        if self.noise_multiplier is None:
            return self._privacy_spend(self.epsilon, self.delta)
        plan = self._plan(n_samples)
        return self._privacy_spend(COUNT_SHARE * float(self.epsilon) + plan.epsilon, self.delta)

    def _reserve_rest(self, count, plan):
        """Reserve the training of a plan whose epsilon was unknown before the count (an
        explicit ``noise_multiplier`` with a private number of rows); the count's share was
        reserved before (:meth:`_reservation`). Refused by the accountant like any spend;
        the count stays charged, since it was released."""
        if count.public or self.noise_multiplier is None or self.accountant is None:
            return
        self.accountant.spend(self._privacy_spend(plan.epsilon, self.delta))

    def _epochs(self, n_samples, batch_size):
        """The epochs parameter as the plan uses it (a subclass may resolve an "auto")."""
        return getattr(self, self._EPOCHS_PARAM)

    def _private_statistics(self):
        """Whether the fit releases private row statistics first (none by default)."""
        return False

    def _average_from(self, plan):
        """The step after which the iterates are averaged (None: no averaging).

        ``average="auto"``: the mean of the second half of the iterates, which averages out
        most of the noise of the last steps and, unlike averaging from step 0, forgets the
        start. Averaging iterates is post-processing of the noisy steps: free.
        """
        if self.average == "auto":
            return plan.n_steps // 2
        return 0 if self.average else None

    def _spend_of(self, plan):
        return self._privacy_spend(
            plan.epsilon,
            self.delta,
            event=dpsgd_event(
                plan.noise_multiplier, plan.sample_rate, plan.n_steps,
                gaussian_noise_multipliers=plan.stats_noise_multipliers,
            ),
        )

    def _privacy_plan(self, n_samples):
        """The spend of a fit on ``n_samples`` rows taken as public (a private search's
        planned size, ``total_privacy_cost``); a fit that releases its count spends at most
        ``epsilon`` (see :meth:`_reservation`)."""
        # A private search's run trains on a random part of the rows whose realised size is
        # private; the search sets this public number (the part's expected size) to plan on.
        return self._spend_of(self._plan(public_n_samples(self, n_samples)))
