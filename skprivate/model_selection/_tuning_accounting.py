"""Privacy of hyperparameter tuning: run a DP algorithm a random number of times, keep the best.

Setting (Papernot and Steinke, "Hyperparameter tuning with Renyi differential privacy", ICLR
2022, arXiv:2110.03620; Liu and Talwar, "Private selection from private candidates", STOC
2019). ``Q`` is a randomized algorithm whose output is totally ordered (here: a trained model
with its noisy validation score, ordered by the score). ``A`` draws a number of runs ``K``
independently of the data, runs ``Q`` ``K`` times independently, and releases only the best
output. Neighbouring datasets differ by adding or removing one row; if ``Q`` is
``(lambda, eps(lambda))``-RDP at every order, then:

Truncated negative binomial (Papernot and Steinke 2022, Theorem 2). ``K ~ D_{eta, gamma}``,
    ``P[K = k] = (1 - gamma)^k / (gamma^(-eta) - 1) * prod_{l=0}^{k-1} (l + eta) / (l + 1)``
    for ``k >= 1`` (their Definition 1; ``eta = 0`` is the logarithmic distribution
    ``P[K = k] = (1 - gamma)^k / (k log(1/gamma))``, ``eta = 1`` the geometric distribution
    ``P[K = k] = gamma (1 - gamma)^(k - 1)`` of Liu and Talwar 2019, whose random-stopping
    algorithm this is). For every ``lambda > 1`` and every ``lambda_hat >= 1``, ``A`` is
    ``(lambda, eps')``-RDP with
    ``eps' = eps(lambda) + (1 + eta) (1 - 1/lambda_hat) eps(lambda_hat)
    + (1 + eta) log(1/gamma) / lambda_hat + log(E[K]) / (lambda - 1)``,
    ``E[K] = eta (1 - gamma) / (gamma (1 - gamma^eta))`` (``eta != 0``) and
    ``(1/gamma - 1) / log(1/gamma)`` (``eta = 0``). ``lambda_hat`` is free, so the minimum
    over the orders is taken (:func:`_tnb_rdp`).

Poisson (Papernot and Steinke 2022, Theorem 6). ``K ~ Poisson(mu)`` (with ``K = 0``, ``A``
    outputs something independent of the data). If ``Q`` is also ``(eps_hat, delta_hat)``-DP
    with ``exp(eps_hat) <= 1 + 1/(lambda - 1)``, then ``A`` is ``(lambda, eps')``-RDP with
    ``eps' = eps(lambda) + mu delta_hat + log(mu) / (lambda - 1)``. We take
    ``eps_hat = log(1 + 1/(lambda - 1))`` (the largest allowed) and ``delta_hat`` from
    ``Q``'s RDP curve by Canonne, Kamath and Steinke (2020), Proposition 12
    (``dp_accounting.rdp.compute_delta``), which makes ``Q`` ``(eps_hat, delta_hat)``-DP
    (:func:`_poisson_rdp`).

Both results are followed by monotonicity in the order (van Erven and Harremoes 2014,
Theorem 3: the Renyi divergence is non-decreasing in its order), so the bound at an order may
be replaced by the smallest bound at any higher order. The total is converted to
``(epsilon, delta)`` with Canonne, Kamath and Steinke (2020), Proposition 12
(``dp_accounting.rdp.compute_epsilon``).

One run of the search (``Q``) is: pick hyperparameters uniformly from a finite set (data
independent), train the DP estimator on the training part, and release the sum over the
validation part of ``clip(term_i, low, high) - c`` plus Gaussian noise, where the score is the
mean of per-row terms, each computed and clipped row by row (``_runs._released_score``), and
``c = (low + high) / 2``. The noise is the granular Gaussian of
:mod:`skprivate.mechanisms._secure` (the sum rounded to a power-of-two grid ``gamma``, exact
discrete Gaussian noise on it, no floating-point noise): on the lattice its sensitivity is
``L = ceil(s / gamma)`` and its parameter ``z L`` (grid units), so its Renyi divergence at
every order is that of a discrete Gaussian on an integer shift, at most
``lambda L**2 / (2 (z L)**2) = lambda / (2 z^2)`` (Canonne, Kamath and Steinke 2020,
Proposition 5 and Theorem 14): the continuous Gaussian's curve below holds for it unchanged
(only RDP is used for the score; the continuous Gaussian's exact (epsilon, delta) curve or PLD,
which the discrete noise does not have, is not).

Neighbouring relation: datasets ``D`` and ``D' = D + {x}`` (add/remove one row). The number of
rows the search plans on, ``N``, is fixed before the runs: a noisy count of the rows (its
cost is added to this theorem's by basic composition, see ``_search_base`` and
``skprivate._row_count``; everything here holds for each value of ``N``), or the exact ``n``
declared public. The split is not fixed: each row goes to
validation independently with probability ``p``, so the realised sizes ``n_val`` and
``n_train`` are random and the added row ``x`` raises one of them by one. Nothing in ``Q`` may
therefore depend on them: (i) the score's noise has standard deviation ``z (high - low) / 2``,
fixed before the split, and the released sum changes by ``x``'s term minus ``c``, at most
``(high - low) / 2``, whatever ``n_val`` (a noisy *mean* would have sensitivity
``1 / n_val``: its variance would then differ between ``D`` and ``D'`` and the Renyi divergence
of two Gaussians with different variances exceeds ``lambda / (2 z^2)``, infinitely for orders
above about ``n_val / 2``; at a per-run budget of 1 and ``n_val = 100`` one such score cost 1.19,
not 1.00); (ii) a DP-SGD run's sampling rate ``q = b / m``, steps and noise multiplier come from
the planned ``m = round((1 - p) N)``, and its noisy gradient sums are divided by the planned
``q m``: it samples each row of its training part independently with rate ``q``, so on
neighbouring training parts it is the sampled Gaussian mechanism with the planned ``(q, z,
steps)`` whatever the realised ``n_train``, and its spend is exactly its plan (Mironov, Talwar
and Zhang 2019, whose add/remove analysis holds for any number of rows).

Conditionally on the other rows' split, ``Q`` on ``D`` and ``D'`` is then either the training
mechanism on neighbouring training parts (the noisy sum is post-processing: same validation
part, independent noise) or the Gaussian mechanism on neighbouring validation parts (the model
is unchanged). Renyi divergence is jointly quasi-convex (van Erven and Harremoes 2014,
Theorem 13), so mixing over the split and over the hyperparameters (same weights on both
neighbours) costs at most the largest component:
``eps_Q(lambda) = max(max_candidates eps_train(lambda), eps_score(lambda))``
(:func:`base_rdp`). The Gaussian mechanism of sensitivity ``s`` and standard deviation
``z s`` is ``(lambda, lambda / (2 z^2))``-RDP (Mironov 2017, Proposition 7); both directions
(``D`` against ``D'`` and back) have the same bound because the variance is the same. A pure
``eps``-DP mechanism is ``(lambda, min(eps, lambda eps^2 / 2))``-RDP (Mironov 2017,
Proposition 3 and Bun and Steinke 2016, Proposition 3.3).
"""

import math

import numpy as np
from dp_accounting import dp_event, rdp
from scipy.special import gammaln

from ..accounting._calibrate import solve_monotone
from ..accounting._sgm import (
    _integer_order_terms,
    _quiet_dp_accounting,
    _sampled_gaussian_rdp_integer,
)
from ..utils._compat import rdp_curve

__all__ = []

# Integer orders only: every order gives a valid bound (a subset can only raise the minimum a
# little), and for integer orders the sampled Gaussian has the closed form used below, which
# makes the calibration of a search (tens of curves) take seconds instead of minutes.
ORDERS = np.array(
    sorted(
        set(range(2, 64))
        | set(range(64, 128, 4))
        | {128, 160, 192, 256, 320, 384, 512, 768, 1024, 1536, 2048, 3072, 4096}
    ),
    dtype=float,
)


_TERMS = _integer_order_terms(ORDERS)


def sampled_gaussian_rdp(noise_multiplier, sample_rate):
    """RDP curve (over :data:`ORDERS`) of one Poisson-subsampled Gaussian step.

    Mironov, Talwar and Zhang (2019), Section 3.3, integer orders:
    ``A_alpha = sum_k C(alpha, k) (1 - q)^(alpha - k) q^k exp((k^2 - k) / (2 z^2))``,
    ``RDP(alpha) = log(A_alpha) / (alpha - 1)``. Tested against ``dp_accounting``.
    """
    return np.maximum(
        _sampled_gaussian_rdp_integer(noise_multiplier, sample_rate, ORDERS, _TERMS), 0.0
    )


def gaussian_rdp(noise_multiplier):
    """RDP curve of the Gaussian mechanism, std = noise_multiplier * sensitivity (Mironov 2017)."""
    return ORDERS / (2.0 * float(noise_multiplier) ** 2)


def pure_dp_rdp(epsilon):
    """RDP curve of an ``epsilon``-DP mechanism: ``min(eps, lambda eps^2 / 2)``."""
    eps = float(epsilon)
    return np.minimum(eps, ORDERS * eps * eps / 2.0)


def event_rdp(event):
    """RDP curve over :data:`ORDERS` of a ``dp_accounting`` event (add/remove neighbours)."""
    # DP-SGD's event has a closed form at integer orders (fast); anything else goes to
    # dp-accounting's RdpAccountant, whose curve is read through the compatibility module.
    if (
        isinstance(event, dp_event.SelfComposedDpEvent)
        and isinstance(event.event, dp_event.PoissonSampledDpEvent)
        and isinstance(event.event.event, dp_event.GaussianDpEvent)
    ):
        inner = event.event
        return event.count * sampled_gaussian_rdp(
            inner.event.noise_multiplier, inner.sampling_probability
        )
    accountant = rdp.RdpAccountant(list(ORDERS))
    with _quiet_dp_accounting():
        accountant.compose(event)
    return rdp_curve(accountant)


def rdp_to_epsilon(curve, delta):
    """``(epsilon, delta)`` from an RDP curve: Canonne, Kamath and Steinke (2020), Prop. 12."""
    with _quiet_dp_accounting():
        eps, _ = rdp.compute_epsilon(ORDERS, np.asarray(curve, dtype=float), float(delta))
    return float(eps)


def rdp_to_delta(curve, epsilon):
    """Delta at ``epsilon`` from an RDP curve: Canonne, Kamath and Steinke (2020), Prop. 12.

    ``delta = min_alpha exp((alpha - 1) (eps(alpha) - epsilon + log(1 - 1/alpha))) / alpha``,
    capped at 1 (the bound ``dp_accounting``'s ``compute_delta`` uses; tested against it).
    """
    curve = np.asarray(curve, dtype=float)
    with np.errstate(invalid="ignore"):
        log_delta = (ORDERS - 1) * (curve - epsilon + np.log1p(-1 / ORDERS)) - np.log(ORDERS)
    log_delta = np.where(np.isnan(log_delta), np.inf, log_delta)
    return float(min(math.exp(min(float(np.min(log_delta)), 0.0)), 1.0))


# --- the distribution of the number of runs -----------------------------------------------
def tnb_mean(gamma, eta):
    """``E[K]`` of the truncated negative binomial ``D_{eta, gamma}`` (Papernot-Steinke Def. 1)."""
    gamma, eta = float(gamma), float(eta)
    if eta == 0:
        return (1.0 / gamma - 1.0) / math.log(1.0 / gamma)
    # eta (1 - gamma) / (gamma (1 - gamma^eta)), with expm1 for accuracy near eta = 0
    return eta * (1.0 - gamma) / (gamma * -math.expm1(eta * math.log(gamma)))


def tnb_gamma(mean, eta):
    """The ``gamma`` whose ``D_{eta, gamma}`` has mean ``mean`` (>= 1 exactly, > 1 here)."""
    if eta == 1:
        return 1.0 / float(mean)
    # tnb_mean decreases in gamma, from +inf at 0 to 1 as gamma -> 1 (the two ends are known,
    # not evaluated): bisection to relative width 1e-15 by the package's one solver. The
    # smallest gamma with mean(gamma) <= mean; the accounting below uses tnb_mean(gamma).
    lo, hi = 1e-15, 1.0 - 1e-15
    return solve_monotone(
        lambda g: tnb_mean(g, eta), float(mean), increasing=False, lower=lo, upper=hi,
        known={lo: math.inf, hi: 1.0}, xtol=1e-15, scale="linear",
    )


def tnb_pmf(k, gamma, eta):
    """``P[K = k]`` for ``D_{eta, gamma}``, ``k >= 1`` (array), in log space."""
    k = np.asarray(k, dtype=float)
    log1mg = math.log1p(-gamma)
    if eta == 0:
        return np.exp(k * log1mg - np.log(k) - math.log(math.log(1.0 / gamma)))
    # prod_{l<k} (l + eta)/(l + 1) = Gamma(k + eta) / (Gamma(eta) Gamma(k + 1)); for
    # eta in (-1, 0) Gamma(eta) < 0 and gamma^-eta - 1 < 0, so the ratio stays positive.
    log_ratio = gammaln(k + eta) - gammaln(k + 1) - gammaln(eta)
    norm = math.log(abs(math.expm1(-eta * math.log(gamma))))
    return np.exp(k * log1mg + log_ratio - norm)


def sample_n_runs(rng, distribution, mean):
    """Draw the number of runs ``K`` (independent of the data)."""
    if distribution == "poisson":
        return int(rng.poisson(mean))
    eta = float(distribution)
    gamma = tnb_gamma(mean, eta)
    u = rng.random()
    # Inverse CDF: P[K = k + 1] = P[K = k] (1 - gamma) (k + eta) / (k + 1).
    p = float(tnb_pmf(1, gamma, eta))
    cumulative, k = p, 1
    while cumulative < u and k < 10**7:
        p *= (1.0 - gamma) * (k + eta) / (k + 1)
        k += 1
        cumulative += p
        if p == 0.0:
            break
    return k


def expected_runs(distribution, mean):
    """``E[K]`` of the distribution actually sampled."""
    if distribution == "poisson":
        return float(mean)
    eta = float(distribution)
    return tnb_mean(tnb_gamma(mean, eta), eta)


# --- the theorems ----------------------------------------------------------------------------
def _monotone(curve):
    """Replace each order's bound by the smallest bound at any order >= it."""
    return np.minimum.accumulate(np.asarray(curve, dtype=float)[::-1])[::-1]


def _tnb_rdp(curve, gamma, eta):
    """Papernot and Steinke (2022), Theorem 2 (truncated negative binomial, incl. geometric)."""
    curve = np.asarray(curve, dtype=float)
    lam = ORDERS
    mean = tnb_mean(gamma, eta)
    # the lambda_hat term, minimised over lambda_hat (any lambda_hat >= 1 is allowed)
    hat = (1.0 + eta) * np.min((1.0 - 1.0 / lam) * curve + math.log(1.0 / gamma) / lam)
    out = curve + hat + math.log(mean) / (lam - 1.0)
    return _monotone(out)


def _poisson_rdp(curve, mu):
    """Papernot and Steinke (2022), Theorem 6 (Poisson number of runs), given ``K >= 1``.

    Theorem 6 covers ``K ~ Poisson(mu)`` with ``K = 0`` releasing nothing. The search refuses
    ``K = 0`` (no data read) and asks for another fit, so a released model is the output
    conditioned on ``K >= 1``, an event of data-independent probability
    ``p = 1 - exp(-mu)``. Conditioning both neighbours on it divides each density by ``p``
    and drops the (positive) ``K = 0`` term of the Renyi sum, so the divergence grows by at
    most ``-log(p) / (lambda - 1)``; at ``mu = 1`` this is 2-3 % of epsilon, at the default
    ``mu = 10`` about 1e-5.
    """
    curve = np.asarray(curve, dtype=float)
    out = np.empty_like(curve)
    retry = -math.log(-math.expm1(-mu))  # -log(1 - exp(-mu)) >= 0
    for i, lam in enumerate(ORDERS):
        eps_hat = math.log1p(1.0 / (lam - 1.0))  # exp(eps_hat) = 1 + 1/(lambda - 1)
        delta_hat = rdp_to_delta(curve, eps_hat)
        out[i] = curve[i] + mu * delta_hat + (math.log(mu) + retry) / (lam - 1.0)
    return _monotone(out)


def repeat_and_select_rdp(curve, distribution, mean):
    """RDP curve of "run ``Q`` ``K`` times, release the best", ``Q`` with RDP ``curve``.

    Parameters
    ----------
    curve : ndarray over :data:`ORDERS`
        RDP of one run.
    distribution : "poisson" or float
        ``"poisson"``, or the shape ``eta > -1`` of the truncated negative binomial
        (1: geometric, 0: logarithmic).
    mean : float >= 1
        Expected number of runs.
    """
    if distribution == "poisson":
        return _poisson_rdp(curve, float(mean))
    eta = float(distribution)
    return _tnb_rdp(curve, tnb_gamma(mean, eta), eta)


def base_rdp(train_curves, score_curve):
    """RDP of one run: the largest training curve or the score's curve, order by order."""
    out = np.asarray(score_curve, dtype=float).copy()
    for curve in train_curves:
        out = np.maximum(out, curve)
    return out


def tuning_epsilon(train_curves, score_curve, distribution, mean, delta):
    """Epsilon at ``delta`` of the whole search (see the module docstring)."""
    total = repeat_and_select_rdp(base_rdp(train_curves, score_curve), distribution, mean)
    return rdp_to_epsilon(total, delta)


def gaussian_noise_multiplier(epsilon, delta):
    """Smallest noise multiplier (to 0.1 %) whose Gaussian mechanism is (epsilon, delta)-DP.

    Computed through the same RDP conversion as the rest of the search, never below target.
    """
    lo, hi = 1e-3, 1e6
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if rdp_to_epsilon(gaussian_rdp(mid), delta) <= epsilon:
            hi = mid
        else:
            lo = mid
        if hi / lo < 1.001:
            break
    return hi
