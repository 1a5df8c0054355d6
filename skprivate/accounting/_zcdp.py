"""Zero-concentrated DP: the guarantee of the granular Gaussian releases, and its (epsilon, delta).

Why zCDP. The granular Gaussian mechanism (:mod:`skprivate.mechanisms._secure`) adds exact
discrete Gaussian noise on a lattice. Its Renyi divergences equal the continuous Gaussian's
at every order for a lattice shift (Canonne, Kamath and Steinke 2020, Proposition 5 and the
product over coordinates), but its privacy-loss distribution is not the continuous one, so
the continuous Gaussian's exact curve (the analytic Gaussian, a PLD) does not apply to it.
A release with noise ``sigma`` and L2 sensitivity ``Delta`` is ``rho = Delta**2 / (2
sigma**2)``-zCDP; zCDP composes by adding ``rho`` (Bun and Steinke 2016, Lemma 2.3).

Conversion. rho-zCDP is Renyi DP of order ``alpha`` with ``rho * alpha`` for every
``alpha > 1``; such a mechanism is (epsilon, delta)-DP with

``epsilon = rho * alpha + log(1 - 1/alpha) - (log(delta) + log(alpha)) / (alpha - 1)``

for *every* ``alpha > 1`` (Canonne, Kamath and Steinke 2020, Proposition 12; the same bound
as Asoodeh et al. 2021 and as ``dp_accounting``'s RDP conversion). :func:`zcdp_epsilon`
minimises over ``alpha`` numerically; since each ``alpha`` gives a valid bound, an inexact
minimiser can only over-report, never under-report. :func:`zcdp_rho` is the largest ``rho``
whose :func:`zcdp_epsilon` is within a target: the bound at ``alpha`` is within ``epsilon``
iff ``rho <= (epsilon - log(1 - 1/alpha) + (log(delta) + log(alpha)) / (alpha - 1)) /
alpha``, maximised over ``alpha``, and the result is lowered until :func:`zcdp_epsilon`
itself confirms it (so it returns only a point evaluated as feasible).

``tests/accounting/test_zcdp.py`` checks both against ``dp_accounting``'s RDP accountant
composing a ``ZCDpEvent`` (an independent implementation) and against the continuous
Gaussian's exact curve (which zCDP must never undercut).
"""

import math

from scipy.optimize import minimize_scalar

from ..mechanisms._validation import EPSILON_HINT, check_delta, check_positive
from ._calibrate import NoFeasiblePointError

__all__ = []

# Each alpha's bound is valid, so the search range only affects tightness. The optimum is near
# 1 + sqrt(log(1/delta) / rho); below 1 + 1e-9 the log terms lose all precision.
_ALPHA_MIN = 1.0 + 1e-9
_ALPHA_MAX = 1e7
# The float evaluation of one alpha's bound may be off by a few ulps: round it up by far more.
_ROUND_UP = 1.0 + 1e-12


def _bound_at(alpha, rho, log_delta):
    return rho * alpha + math.log1p(-1.0 / alpha) - (log_delta + math.log(alpha)) / (alpha - 1.0)


def zcdp_epsilon(rho, delta):
    """The epsilon at which a rho-zCDP mechanism is (epsilon, delta)-DP.

    Parameters
    ----------
    rho : float
        The zCDP parameter, ``>= 0`` (0: no privacy loss).
    delta : float
        Target ``delta`` in ``(0, 1)``.

    Returns
    -------
    epsilon : float
        ``min over alpha > 1`` of the conversion bound (module docstring), never below it;
        ``0.0`` for ``rho = 0``.
    """
    rho = float(rho)
    if not math.isfinite(rho) or rho < 0:
        raise ValueError(f"rho must be a finite number >= 0; got {rho!r}.")
    check_delta(delta)
    if rho == 0:
        return 0.0
    log_delta = math.log(float(delta))
    guess = 1.0 + math.sqrt(-log_delta / rho)
    candidates = [min(max(guess, _ALPHA_MIN), _ALPHA_MAX)]
    # A bounded search on log(alpha - 1) around the closed-form guess; every point is valid.
    result = minimize_scalar(
        lambda t: _bound_at(1.0 + math.exp(t), rho, log_delta),
        bounds=(math.log(_ALPHA_MIN - 1.0), math.log(_ALPHA_MAX - 1.0)), method="bounded",
        options={"xatol": 1e-10},
    )
    candidates.append(1.0 + math.exp(float(result.x)))
    best = min(_bound_at(a, rho, log_delta) for a in candidates)
    return max(best * _ROUND_UP, 0.0)


def zcdp_rho(epsilon, delta):
    """The largest rho whose (epsilon, delta) conversion stays within ``epsilon``.

    Parameters
    ----------
    epsilon : float
        Target ``epsilon > 0``.
    delta : float
        Target ``delta`` in ``(0, 1)``.

    Returns
    -------
    rho : float
        A value with ``zcdp_epsilon(rho, delta) <= epsilon``, within a relative ``1e-9`` of
        the largest such.

    Raises
    ------
    InfeasiblePrivacyError
        If no ``rho >= 1e-300`` meets the target (an epsilon far below ``delta``'s reach).
    """
    check_positive(epsilon, "epsilon", hint=EPSILON_HINT)
    check_delta(delta)
    epsilon = float(epsilon)
    log_delta = math.log(float(delta))

    def largest_at(alpha):
        # The bound at alpha is rho * alpha + (terms free of rho): it is within epsilon iff
        # rho is at most this, so the largest feasible rho is the maximum over alpha (one
        # search instead of a search for rho around a search for alpha: the dropout
        # estimators' forecasts calibrate dozens of releases per fit).
        return (epsilon - math.log1p(-1.0 / alpha)
                + (log_delta + math.log(alpha)) / (alpha - 1.0)) / alpha

    start = epsilon**2 / (4.0 * -log_delta + 4.0 * epsilon)
    result = minimize_scalar(
        lambda t: -largest_at(1.0 + math.exp(t)),
        bounds=(math.log(_ALPHA_MIN - 1.0), math.log(_ALPHA_MAX - 1.0)), method="bounded",
        options={"xatol": 1e-10},
    )
    guess = min(max(1.0 + math.sqrt(-log_delta / start), _ALPHA_MIN), _ALPHA_MAX)
    rho = min(max(largest_at(1.0 + math.exp(float(result.x))), largest_at(guess)), 1e6)
    if not rho >= 1e-300:
        raise NoFeasiblePointError(
            f"No zCDP parameter meets epsilon={epsilon!r} at delta={delta!r}. Increase "
            "epsilon or delta."
        )
    # The float evaluation may land a few ulps high: step down until the conversion agrees.
    while zcdp_epsilon(rho, delta) > epsilon:
        rho *= 1.0 - 1e-10
    return rho


def gaussian_rho(sensitivity, sigma):
    """``Delta**2 / (2 sigma**2)``: the zCDP of (discrete or continuous) Gaussian noise.

    Canonne, Kamath and Steinke (2020): the discrete Gaussian on a lattice shift has the
    continuous Gaussian's Renyi divergence at every order (Proposition 5, then a product over
    coordinates), so both are ``Delta**2 / (2 sigma**2)``-zCDP.
    """
    check_positive(sensitivity, "sensitivity", hint="Pass the L2 sensitivity.")
    check_positive(sigma, "sigma", hint="Pass the noise's standard deviation.")
    return float(sensitivity) ** 2 / (2.0 * float(sigma) ** 2)


def gaussian_sigma_for_rho(sensitivity, rho):
    """The smallest ``sigma`` with ``gaussian_rho(sensitivity, sigma) <= rho``."""
    check_positive(sensitivity, "sensitivity", hint="Pass the L2 sensitivity.")
    check_positive(rho, "rho", hint="Pass a zCDP parameter > 0, for example from zcdp_rho.")
    sigma = float(sensitivity) / math.sqrt(2.0 * float(rho))
    # Round up until the rho it gives is within the target (float division may land low).
    while gaussian_rho(sensitivity, sigma) > rho:
        sigma = math.nextafter(sigma, math.inf)
    return sigma
