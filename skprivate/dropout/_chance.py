"""Where dropout DP learns: the noise of the release forecast from public numbers, and the
private choice that keeps a noise-dominated classifier from predicting worse than a
constant.

**The forecast.** The release adds Gaussian noise of parameter ``s`` to each coordinate of the
minimiser (the rounded Gaussian of ``_ptr``, step 3), with ``s`` the analytic Gaussian's for
``(eps2, delta2)`` for the sensitivity ``Delta(l)`` of ``_ptr`` (Lemma 2).
For a row of the public norm bound ``B_a`` (intercept column included) the decision function
of each output then carries noise of standard deviation ``s B_a``; the targets of each
output have scale ``y_out`` (``1`` for the classifier's ``+-1`` targets, ``y_bound`` for the
regressor). The *noise-to-signal ratio* is ``s B_a / y_out``: the standard deviation of the
noise in a full-norm row's score, in units of the largest score a least-squares fit aims at.

Everything in it is public except ``l``, the released lower bound on the test statistic.
Before the fit it is replaced by its largest value: each row adds at most ``1`` to the
leave-one-out sum of squares of a column (in units of ``b^2``), so ``Lambda <= n - 1`` and
``l = Lambda + Lap - margin`` has median at most ``n - 1 - margin``. The forecast is the
ratio at that ``l``: a *lower bound* (at the median of the test's noise) on the ratio of the
fit, reached when every feature is at full scale in every row (for example one-hot features
mapped to ``2x - 1``); rare features make ``l``, hence the ratio of the fit, worse. For the
classifier with unknown classes the forecast takes two classes, which has the smallest ratio
(``Y = sqrt(K)`` grows with the number of one-vs-rest outputs).

**The chance region.** The forecast and its way out (the rows and the epsilon that bring the
ratio to the threshold) go through the package's one forecast mechanism,
:mod:`skprivate._forecast`, as PATE's, DP-LSSGD's and the encoder's do.
``CHANCE_RATIO`` comes from ``benchmarks/dropout_regime.py`` (Adult subsets, synthetic GLM
data): in every cell whose fits had a ratio of 1.2 or more the accuracy was within a point of the majority class or below it, in every cell below 0.4
it was within 2 points of the same model without privacy, and in between (0.65 to 1) it
was a few points above the majority class at best, at the majority class on the synthetic
data whose signal is weak. The warning threshold 0.5 therefore covers "at or near
chance". On breast cancer (features in [0, 1]) the ratio of the fits runs from
about a hundred (epsilon 16) to thousands (epsilon 1).

**The private choice (classifier).** After the release, candidates are formed from released
values only (post-processing): the released model with its intercept shifted by the public
values ``INTERCEPT_SHIFTS`` (two classes), and the constant predictors of each class. Each
candidate's number of correctly classified training rows is a counting query: adding a row
raises every count by 0 or 1. Report Noisy Max with noise of scale ``1/eps_s`` on such
monotone counts is ``eps_s``-DP (Dwork and Roth 2014, Claim 3.9, whose proof uses exactly
these two properties), whatever the number of candidates; the candidates depend on the
earlier release only, so basic composition (which holds for adaptively chosen mechanisms)
adds ``eps_s`` to the ``(eps1 + eps2, delta1 + delta2)`` of the release. Only the index of
the winner is released. ``tests/dropout/test_chance.py`` checks the ratio of its output
distributions on neighbouring data sets by Monte Carlo.

The noise is *discrete* Laplace (exact integer sampler: no floating-point noise),
ties going to the first index; Claim 3.9's proof carries over with integer thresholds. Fix
the other candidates' noise and let ``r*`` be the least integer noise with which candidate
``i`` wins on ``D`` (beats every earlier candidate strictly and every later one weakly); the
event is ``{Z_i >= r*}``. On ``D' = D + {row}`` each count rises by 0 or 1, so ``Z_i >= r* + 1``
makes ``c'_i + Z_i >= c_i + r* + 1`` beat every ``c'_j + Z_j <= c_j + Z_j + 1`` with the same
strictness: ``P_{D'}(i) >= P(Z >= r* + 1) >= e^{-eps_s} P(Z >= r*) = e^{-eps_s} P_D(i)``,
since the discrete Laplace of scale ``b`` has ``P(Z >= m + 1) / P(Z >= m) = e^{-1/b}`` for
``m >= 1`` and larger for ``m <= 0``. The other direction is the same argument with ``D``
and ``D'`` exchanged (``c_i + Z_i >= c'_i - 1 + Z_i``), as in the continuous proof.
"""

import math
from fractions import Fraction

import numpy as np

from .._forecast import way_out_text
from ..mechanisms import discrete_laplace_noise, gaussian_sigma
from ..mechanisms._validation import exact_fraction
from ._ptr import lower_confidence_margin, minimiser_sensitivity

__all__ = [
    "CHANCE_RATIO",
    "alternative_text",
    "best_case_lambda",
    "candidate_counts",
    "default_coef_bound",
    "release_noise",
    "report_noisy_max",
    "select_candidate",
]

# Calibrated by benchmarks/dropout_regime.py (see the module docstring and the dropout page).
CHANCE_RATIO = 0.5

# Public shifts of the released intercept (two classes), in units of the +-1 targets: enough
# to move the threshold of a shrunk but informative score; an offset of noise larger than
# these makes the model no better than a constant, which is then a candidate of its own.
INTERCEPT_SHIFTS = (0.0, -0.125, 0.125, -0.25, 0.25, -0.5, 0.5)


def default_coef_bound(target_norm, coord, c):
    """``2 Y / (b sqrt(min(c, 1)))``, the public default radius of the coefficient ball.

    ``F(Theta) <= F(0) <= n Y^2`` and ``F >= c min_j S_j ||Theta||^2`` give ``||Theta|| <=
    Y / (b sqrt(c m))`` when each feature's mean square is ``m b^2``; ``m = 1/4`` covers
    min-max or standardised features that are not rare.
    """
    return 2.0 * target_norm / (coord * math.sqrt(min(c, 1.0) if c > 0 else 1.0))


def best_case_lambda(n_samples, eps1, delta1):
    """The largest median of the released bound ``l``: ``max(n - 1 - margin, 0)``."""
    if eps1 <= 0:
        return 0.0
    return max(float(n_samples) - 1.0 - lower_confidence_margin(eps1, delta1), 0.0)


def release_noise(ell, *, row_norm_aug, target_norm, n_outputs, radius, unit, c, alpha,
                  eps2, delta2):
    """``(sensitivity, sigma, ratio)`` of the release calibrated to the bound ``ell``."""
    sensitivity = minimiser_sensitivity(
        ell, row_norm=row_norm_aug, target_norm=target_norm, coef_bound=radius, unit=unit,
        c=c, alpha=alpha,
    )
    if not math.isfinite(sensitivity):
        return sensitivity, math.inf, math.inf
    # (eps2, delta2) by the analytic Gaussian (Balle and Wang 2018, Theorem 8): the rounded
    # Gaussian release is a post-processing of the Gaussian mechanism (_ptr, step 3)
    sigma = gaussian_sigma(sensitivity, eps2, delta2)
    per_output = target_norm / math.sqrt(n_outputs)
    return sensitivity, sigma, sigma * row_norm_aug / per_output


def alternative_text(forecast, classifier):
    """The sentence of the chance warning that names the way out (worded by the shared
    forecast mechanism, :func:`skprivate._forecast.way_out_text`)."""
    other = "DPLSSGDClassifier" if classifier else "DPLSSGDRegressor"
    return way_out_text(
        f"use skprivate.{other}(epsilon={forecast['epsilon']:g}) at the same budget",
        rows_needed=forecast.get("rows needed"),
        epsilon_needed=forecast.get("epsilon needed"),
    )


def candidate_counts(scores, y_index, n_classes, shifts):
    """The number of correctly classified rows of each candidate (int64; monotone counts).

    Candidates, in order: the released model with each intercept shift in ``shifts`` (two
    classes; ``shifts=(0,)`` otherwise), then the constant predictor of each class.
    """
    if scores.ndim == 1:
        predicted = (scores[:, None] + np.asarray(shifts)[None, :] > 0).astype(np.intp)
        model_counts = np.sum(predicted == y_index[:, None], axis=0)
    else:
        model_counts = np.array([np.sum(np.argmax(scores, axis=1) == y_index)])
    class_counts = np.bincount(y_index, minlength=n_classes)
    return np.concatenate([model_counts, class_counts]).astype(np.int64)


def report_noisy_max(counts, epsilon, random_state):
    """Index of the largest of ``counts + Z`` along the last axis, ``Z`` discrete Laplace.

    ``Z`` has scale ``1 / epsilon`` (exact rational, rounded up by the sampler), ties go to
    the first index. ``epsilon``-DP for monotone counts of sensitivity 1 (module docstring);
    a 2-D ``counts`` runs one independent choice per row (for audits).
    """
    counts = np.asarray(counts, dtype=np.int64)
    scale = Fraction(1) / exact_fraction(epsilon)  # exact: never less noise than 1/epsilon
    noise = discrete_laplace_noise(scale, size=counts.shape, random_state=random_state)
    return np.argmax(counts + noise, axis=-1)


def select_candidate(scores, y_index, n_classes, shifts, epsilon, random_state):
    """Report Noisy Max over the correct-count of each candidate; returns the index only.

    Candidates as in :func:`candidate_counts`; the choice is :func:`report_noisy_max`.
    """
    counts = candidate_counts(scores, y_index, n_classes, shifts)
    return int(report_noisy_max(counts, epsilon, random_state))
