"""Propose-test-release for dropout least squares: the statistic, its test, the sensitivity.

This module is the one place that states the privacy argument of
:class:`~skprivate.dropout.DPDropoutRegressor` and :class:`~skprivate.dropout.DPDropoutClassifier`.
It follows Jain, Kulkarni, Thakurta and Williams, "To drop or not to drop" (arXiv:1503.02031,
2015), section 4.1.1 and Appendix B, re-derived here for **add/remove-one-row** neighbours
(the relation of every skprivate guarantee) with sums instead of means, so that no constant
depends on the number of rows ``n`` (which differs between neighbours). The dropout page of
the user guide lists where these constants differ from the paper's ("Corrections to the
paper").

Notation. Rows are clipped (row-locally, so neighbours stay neighbours) to ``|x_j| <= b`` (the
coordinate bound, ``b = feature bound``) and ``||x||_2 <= B``; an intercept is the public
constant column ``b``, so the augmented rows have ``||x||_2 <= B_a = sqrt(B^2 + b^2)``. Each
row's target vector ``y`` (one entry per output) has ``||y||_2 <= Y``. ``u = b^2`` is the
largest contribution of one row to a column's sum of squares. The released minimiser is that
of the summed objective ``F_D(Theta) = sum_{i in D} h_i(Theta) + alpha ||Theta||_F^2`` with
``h_i(Theta) = sum_k (y_ik - <x_i, theta_k>)^2 + c sum_jk x_ij^2 theta_kj^2`` (see
``_regression``) over the public ball ``C = {||Theta||_F <= R}``.

**Statistic.** ``Lambda(D) = min_j (S_j(D) - max_i x_ij^2) / u`` with ``S_j = sum_i x_ij^2``:
the leave-one-out smallest column second moment, in units of ``u`` (an "effective number of
rows" of the rarest feature).

*Lemma 1 (sensitivity of Lambda; corrects the paper's B/n).* Let
``D' = D + {z}``. For each column ``j`` with ``a = z_j^2 <= u`` and ``M = max_{i in D} x_ij^2``:
if ``a <= M`` the leave-one-out value grows by ``a``; otherwise it grows by ``M < a``. So
``0 <= Lambda(D') - Lambda(D) <= 1`` (a minimum of coordinates that each move by ``[0, 1]``
moves by ``[0, 1]``). Moreover both ``Lambda(D)`` and ``Lambda(D')`` are at most
``min_j S_j(D) / u`` (``S_j(D) + a - max(M, a) <= S_j(D)``): whichever of the two data sets is
"safe", the *smaller* one has every column sum at least ``u`` times that value. This is why
the leave-one-out form is needed.

*Lemma 2 (sensitivity of the minimiser).* Let ``D' = D + {z}`` and ``0 <= l <= max(Lambda(D),
Lambda(D'))``. Then ``||Theta(D) - Theta(D')||_F <= Delta(l)`` with

    Delta(l) = [B_a (Y + B_a R) + c u R] / (c u l + alpha).

Proof. By Lemma 1, ``F_D`` has Hessian ``>= 2 (c min_j S_j(D) + alpha) I >= 2 mu I`` with
``mu = c u l + alpha``. Write ``T = Theta(D)``, ``T' = Theta(D')`` and ``F_{D'} = F_D + h_z``.
The first-order conditions on the convex set ``C`` give ``<grad F_D(T), T' - T> >= 0`` and
``<grad F_D(T') + grad h_z(T'), T - T'> >= 0``; strong monotonicity of ``grad F_D`` gives
``2 mu ||T' - T||^2 <= <grad F_D(T') - grad F_D(T), T' - T> <= <grad h_z(T'), T - T'>
<= ||grad h_z(T')|| ||T - T'||`` (the argument of Chaudhuri, Monteleoni and Sarwate 2011,
valid on any convex domain and needing only one of the two objectives strongly convex).
Finally ``grad_k h_z = -2 r_k x + 2 c (x * x) * theta_k`` with ``r = y - Theta^T x``, so on
``C``: ``||(r_k x)_k||_F = ||r|| ||x|| <= B_a (Y + B_a R)`` and ``||((x*x) * theta_k)_k||_F
<= u R``. Dividing ``2 [B_a (Y + B_a R) + c u R]`` by ``2 mu`` gives ``Delta(l)``. QED.

For one output with ``alpha = 0`` and a fixed ``l = Lambda_0`` this is the
add/remove variant ``[B (BR + Y) + c B_inf^2 R] / (c Lambda_0)``, checked again here (without
relying on it) by the random and adversarial searches in
``tests/dropout/test_ptr.py``.

**Mechanism.** With ``(eps1, delta1)`` for the test and ``(eps2, delta2)`` for the release:

1. ``lambda_noisy = gamma (round(Lambda(D) / gamma) + Z)``, ``Z`` exact discrete Laplace
   (:func:`~skprivate.mechanisms.granular_laplace_mechanism` with sensitivity 1, Lemma 1;
   released): ``eps1``-DP for the float released, not only in real arithmetic, so Mironov's
   attack on the floating-point Laplace does not apply. Its pmf ratio at
   neighbours is at most ``e^eps1`` (module docstring of ``skprivate.mechanisms._secure``).
2. ``l = lambda_noisy - margin``, a lower confidence bound with
   ``P(l > Lambda(D)) <= delta1`` (:func:`lower_confidence_margin`: the discrete Laplace
   tail; ``margin`` is ``ln(1/(2 delta1))/eps1`` up to one grid step).
   Clamp ``l`` at 0. If ``c u l + alpha = 0`` (no dropout credit and no ridge floor), stop:
   the test failed (:class:`~skprivate.exceptions.PrivacyTestFailed`).
3. Release ``Theta(D)`` with Gaussian noise of parameter ``s`` per coordinate, without
   floating-point noise: the rounded Gaussian
   (:func:`~skprivate.mechanisms.rounded_gaussian_mechanism` with noise multiplier
   ``s / Delta(l)``: ``Theta(D)`` rounded to a power-of-two grid, where its L2 sensitivity
   is at most ``L`` grid steps, plus ``round(N(0, S))`` per coordinate with ``S >= (L s /
   Delta(l))**2``), which is a post-processing of the continuous Gaussian mechanism with
   noise multiplier at least ``s / Delta(l)`` on the rounded statistic (module docstrings
   of ``skprivate.mechanisms._secure`` and ``_rounded``). ``s`` is the analytic Gaussian's
   (Balle and Wang 2018, Theorem 8; :func:`~skprivate.mechanisms.gaussian_sigma`) for
   ``(eps2, delta2)`` at sensitivity ``Delta(l)``, so the release is ``(eps2, delta2)``-DP
   for neighbours whose minimisers differ by at most ``Delta(l)``. Projecting it back onto
   ``C`` is post-processing.

*Theorem.* The output ``(lambda_noisy, released Theta or failure)`` is
``(eps1 + eps2, delta1 + delta2)``-DP for add/remove-one-row neighbours.

Proof. Fix neighbours ``D, D'`` and ``L* = max(Lambda(D), Lambda(D'))``; let ``G`` be the
values of ``lambda_noisy`` with ``l <= L*``. Under either data set ``G`` has probability at
least ``1 - delta1`` (step 2 applied to that data set, whose own ``Lambda`` is at most
``L*``). On ``G`` the release is either a failure (the same for both) or Gaussian noise
calibrated to ``Delta(l)``, which bounds the sensitivity by Lemma 2, so conditionally on
``lambda_noisy`` it is ``(eps2, delta2)``-indistinguishable; the density of
``lambda_noisy`` changes by at most ``e^eps1``. So for any event ``S``, ``P_D(S) <= delta1 +
int_G p_D(v) (e^eps2 P_{D'}(S | v) + delta2) dv <= e^{eps1 + eps2} P_{D'}(S) + delta1 +
delta2``, and symmetrically. QED.

This is propose-test-release (Dwork and Lei 2009) with the noise calibrated to the released lower bound ``l``
instead of a fixed proposed threshold ``Lambda_0`` (so the noise shrinks as the data grow and
no threshold has to be guessed), at the price of ``delta1 + delta2`` instead of
``max(delta1, delta2)``. The failure probability of step 2 is checked by Monte Carlo in the
tests. A failed test releases only ``lambda_noisy``, whose density ratio is at most ``e^eps1``
everywhere: the accountant is charged ``(eps1, delta1)`` for it.

**Term-by-term audit of the released noise.** ``s = sigma(Delta(l), eps2,
delta2)`` with ``Delta(l) = [B_a (Y + B_a R) + c u R] / (c u l + alpha)``. Each factor
against what the proof allows:

* *Gaussian calibration*: the analytic Gaussian (Balle and Wang 2018, Theorem 8), the
  exact (epsilon, delta) curve of the Gaussian mechanism, which the rounded Gaussian
  inherits as a post-processing (the discrete Gaussian used before has only its zCDP,
  whose calibration cost 7 to 10 % more noise for ``eps2`` in [0.5, 3] at ``delta2 =
  1e-6``). The rounding adds at most a relative ``2**-10`` of noise plus the grid's
  ``ceil(sqrt(p K))`` steps of lattice sensitivity. Tight.
* *Test tail*: the margin is the exact one-sided tail of the discrete Laplace noise
  (:func:`lower_confidence_margin`), within one grid step of the continuous
  ``ln(1/(2 delta1))/eps1``, not a two-sided or sub-exponential bound. Nothing to gain.
* *Sensitivity of Lambda*: 1 (units of ``u``), attained by a row at full scale in the
  rarest column. Tight.
* *Gradient of one row*: ``grad h_z / 2 = -x y^T + (x x^T + c diag(x * x)) Theta``, so
  ``||grad h_z|| / 2 <= B_a Y + ||x x^T + c diag(x * x)||_op R <= B_a Y + (B_a^2 + c u) R``,
  which is the numerator; for ``x = b (1, ..., 1)`` (``B_a^2 = p b^2``) ``x`` is an
  eigenvector with eigenvalue ``B_a^2 + c u``, so the operator norm is attained. Tight.
* *Feature norms*: ``B`` is ``data_norm``, else the norm of the public per-feature bounds
  (``sqrt(sum_j max(|lower_j|, |upper_j|)^2)``), never ``sqrt(p)`` times the largest; ``u``
  is the square of the largest coordinate bound, which the dropout term needs
  (``max_j x_j^2 <= u``). The intercept column ``b`` adds ``b^2`` to ``B^2``.
* *Strong convexity*: ``c u l + alpha`` from ``Hessian >= 2 (c min_j S_j + alpha)``;
  crediting ``X^T X`` would need a private test of ``lambda_min`` whose sensitivity is
  ``B_a^2 + c u`` instead of ``u`` (on Adult mapped to ``2x - 1`` it would credit about
  ``n - 4000`` rows instead of about ``n - 40``). Not a gain.
* *Leave-one-out statistic*: the stability step needs only one of ``F_D``, ``F_{D'}``
  strongly convex, and run on the larger data set (``F_{D'} = F_D + h_z``, monotonicity of
  ``grad F_{D'}`` and the first-order condition of ``F_D``) it holds with the full column
  sums ``min_j S_j / u``, also of sensitivity 1. That gains at most one effective row in
  ``l`` (``max_i x_ij^2 <= u``), against a margin of tens of rows: not taken, to keep the
  statistic of the paper and of the specification.
* *Boosting step*: none; the minimiser is exact (``_regression``), so no boosting
  probability or SGD error enters ``Delta``.
* *Radius* ``R``: a public choice, not a constant of the proof; the noise is about linear
  in it (``B_a^2 R`` dominates the numerator). Its default holds the unconstrained
  minimiser when each feature's mean square is at least ``b^2 / 4``; for features at full
  scale in every row (``+-1``) ``R = Y / (b sqrt(c))`` already holds it and halves the
  noise (dropout user guide, "Choosing parameters").

So no constant of the release can be tightened further without a new argument; the one
new spend, the classifier's private choice, is stated and audited in ``_chance``.

**The number of rows (issue: no n assumed public).** ``n`` differs between add/remove
neighbours, so it is private. No constant above reads it: ``Lambda`` (Lemma 1) and
``Delta(l)`` (Lemma 2) are written with sums and the lower bound ``l`` comes from the
released ``lambda_noisy`` alone, and the Theorem holds for any neighbours whatever their
sizes. So the release needs neither a noisy ``n`` nor a lower confidence bound on it (no
extra delta). ``n`` enters only public-facing choices made before the data are read: the
forecast of the noise (``_chance``: its warning, ``forecast_noise_to_signal_``, the
report) and the refusal of ``alpha=0`` on too few rows. Those read the noisy count of
:mod:`skprivate._row_count` (``epsilon_n``, released first unless ``n_samples_public``),
post-processing of it; the test and the release are calibrated to ``epsilon - epsilon_n``
and the whole is ``(epsilon, delta)``-DP by basic composition (Dwork and Roth 2014,
Theorem 3.16; the count is pure DP, and the choices made from it are covered by the
adaptive form proved in :mod:`skprivate._row_count`).
"""

import math

import numpy as np

from ..mechanisms import (
    discrete_laplace_rational_scale,
    granular_laplace_mechanism,
    granular_laplace_plan,
)

__all__ = [
    "leave_one_out_statistic",
    "lower_confidence_margin",
    "minimiser_sensitivity",
    "release_test_statistic",
]


def leave_one_out_statistic(X, unit):
    """``Lambda = min_j (sum_i x_ij^2 - max_i x_ij^2) / unit`` (Lemma 1; sensitivity 1)."""
    sq = np.square(X)
    loo = sq.sum(axis=0) - sq.max(axis=0, initial=0.0)
    return float(loo.min(initial=np.inf) / unit)


def release_test_statistic(statistic, epsilon_test, random_state):
    """Step 1: ``lambda_noisy``, the granular Laplace release of ``Lambda`` (sensitivity 1).

    On the grid of :func:`~skprivate.mechanisms.granular_laplace_plan` ``(1, eps1)``, with
    exact discrete Laplace noise: ``eps1``-DP for the value the computer releases.
    """
    return granular_laplace_mechanism(statistic, 1.0, epsilon_test, random_state=random_state)


def lower_confidence_margin(epsilon_test, delta_test):
    """Step 2's margin: ``P(lambda_noisy - margin > Lambda) <= delta1``.

    About ``ln(1/(2 delta1))/eps1``.

    With ``gamma``, ``b`` the grid and the exact rational discrete Laplace scale of step 1,
    ``p = exp(-1/b)``, the margin is ``gamma (j - 1/2)`` for the least integer ``j`` with
    ``P(Z >= j) = p**j / (1 + p) <= delta1``. Because ``gamma round(Lambda / gamma) <=
    Lambda + gamma / 2``, ``lambda_noisy - margin > Lambda`` implies ``gamma Z > gamma (j -
    1)``, i.e. ``Z >= j``. ``j`` is rounded up (with a safety of ``1e-9`` grid steps against the
    floating-point logarithm), so the tail is never above ``delta1``; the margin exceeds
    the continuous ``ln(1/(2 delta1))/eps1`` by about ``gamma``, at most ``2**-10 / eps1``
    rows.
    """
    plan = granular_laplace_plan(1.0, epsilon_test)
    b = float(discrete_laplace_rational_scale(plan.scale))  # the scale the sampler uses
    p = math.exp(-1.0 / b)
    x = b * (math.log(1.0 / delta_test) - math.log1p(p))
    j = max(math.ceil(x * (1.0 + 1e-12) + 1e-9), 1)
    return plan.gamma * (j - 0.5)


def minimiser_sensitivity(ell, *, row_norm, target_norm, coef_bound, unit, c, alpha):
    """``Delta(l)`` of Lemma 2: the L2 (Frobenius) sensitivity of the constrained minimiser."""
    numerator = row_norm * (target_norm + row_norm * coef_bound) + c * unit * coef_bound
    denominator = c * unit * max(float(ell), 0.0) + alpha
    if denominator <= 0:
        return math.inf
    return numerator / denominator
