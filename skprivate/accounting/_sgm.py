"""Privacy of DP-SGD: the Poisson-subsampled Gaussian mechanism (SGM) composed over steps.

The accounting itself is Google's ``dp-accounting`` (its RDP and PLD accountants); this module
chooses the Renyi orders, validates the parameters, and calibrates the noise multiplier.

Guarantee (add/remove-one neighbouring datasets): one DP-SGD step that Poisson-samples each
row with probability ``q``, clips each per-example gradient to norm ``C`` and adds
``N(0, (z C)^2 I)`` to their sum is the sampled Gaussian mechanism of Mironov, Talwar and
Zhang, "Renyi Differential Privacy of the Sampled Gaussian Mechanism" (2019), Section 3.3.
``T`` steps compose (RDP: Mironov 2017, Proposition 1; PLD: Koskela et al. 2020 and Doroshenko
et al. 2022, as implemented by ``dp_accounting.pld``). RDP is converted to (epsilon, delta)
with Canonne, Kamath and Steinke (2020), Proposition 12 (``dp_accounting.rdp.compute_epsilon``).
"""

import contextlib
import logging
import math
from numbers import Integral, Real

import dp_accounting
import numpy as np
from dp_accounting import pld, rdp
from scipy.special import gammaln
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from ..exceptions import InfeasiblePrivacyError
from ..utils._deprecation import DEPRECATED, deprecated_option, renamed_value
from ..utils._docstrings import SHARED_DOCS, Substitution
from ._calibrate import NoFeasiblePointError, solve_monotone

__all__ = [
    "DEFAULT_RDP_ORDERS",
    "dpsgd_epsilon",
    "dpsgd_event",
    "dpsgd_noise_multiplier",
]

# dp-accounting's own default orders, plus integer orders between 64 and 4096: a superset can
# only lower the minimum over orders (every order gives a valid bound), and the high orders
# matter for small epsilon at small sampling rates.
#: Default Renyi orders of the DP-SGD accountant (``accounting="rdp"``) and of
#: :class:`BudgetAccountant`. They are 1.1 to 10.9 by 0.1, every integer from 11 to 63, 64
#: to 124 by 4, then 13 orders from 128 to 4096.
DEFAULT_RDP_ORDERS = tuple(
    sorted(
        {1 + x / 10.0 for x in range(1, 100)}
        | set(range(11, 64))
        | set(range(64, 128, 4))
        | {128, 160, 192, 256, 320, 384, 512, 768, 1024, 1536, 2048, 3072, 4096}
    )
)
_INTEGER_ORDERS = np.array([a for a in DEFAULT_RDP_ORDERS if float(a).is_integer()], dtype=float)

# Noise multipliers searched by the calibration. Below 0.01 no useful guarantee exists; above
# 1e5 the model learns nothing, and such a target is almost certainly a mistake.
_MIN_NOISE, _MAX_NOISE = 1e-2, 1e5
# Width of the privacy-loss grid of the PLD accountant. Its pessimistic estimate is an upper
# bound for every width, and the excess over the default width 1e-4 grows faster than the
# width: measured at 10,000 steps, q = 0.001, epsilon 0.25: +0.0001 at width 1.1e-4, +0.003
# at 3e-4, +0.04 at 1e-3; at epsilon about 1 (2,000 steps) +0.0003 at 3.7e-4, 6 times
# faster than 1e-4 (0.3 s against 2 s an evaluation on a busy machine). So the width follows
# the size of the answer: the (looser, cheap) RDP epsilon / 3000, between 1e-4 and 0.01
# (at 10,000 steps and epsilon 58, width 0.01 is within 0.3 % of 1e-4, and 0.02 within
# 0.9 %). It is a function of (z, q, steps, delta, other mechanisms) only, so every caller
# gets the same number for the same plan.
_PLD_DISCRETIZATION = 1e-4  # dp-accounting's default, also used by the networks' accounting
_PLD_WIDEST = 0.01
# Above this RDP epsilon (integer orders) the "pld" accountant reports the RDP bound: both are
# upper bounds (PLD the tighter), such a guarantee protects nothing whichever is reported,
# and a PLD over privacy losses in the thousands is slow to compute or overflows.
_PLD_MAX_EPSILON = 3000.0


class _DropAbslNoise(logging.Filter):
    # dp-accounting logs (through absl) every fractional order whose series fails to converge
    # and then excludes that order, which keeps the bound valid. The message says nothing
    # the user can act on, so it is dropped while our own calls run.
    def filter(self, record):
        return "failed to converge" not in record.getMessage()


@contextlib.contextmanager
def _quiet_dp_accounting():
    logger = logging.getLogger("absl")
    noise = _DropAbslNoise()
    logger.addFilter(noise)
    try:
        yield
    finally:
        logger.removeFilter(noise)


_NOISE = [Interval(Real, 0, None, closed="neither")]
_RATE = [Interval(Real, 0, 1, closed="right")]
_STEPS = [Interval(Integral, 1, None, closed="left")]
_DELTA = [Interval(Real, 0, 1, closed="neither")]
_ACCOUNTANT = [StrOptions({"rdp", "pld"})]
# The constraints of the plan shared by dpsgd_epsilon and dpsgd_noise_multiplier.
_PLAN_CONSTRAINTS = {
    "sample_rate": _RATE,
    "steps": _STEPS,
    "delta": _DELTA,
    "accounting": _ACCOUNTANT,
    "gaussian_noise_multipliers": ["array-like"],
    "accountant": [*_ACCOUNTANT, deprecated_option()],
}


def dpsgd_event(noise_multiplier, sample_rate, steps, *, gaussian_noise_multipliers=()):
    """The ``dp_accounting`` event of ``steps`` DP-SGD steps.

    Parameters
    ----------
    noise_multiplier : float
        Standard deviation of the Gaussian noise divided by the clipping norm.
    sample_rate : float
        Probability with which each row enters a batch (Poisson sampling).
    steps : int
        Number of steps.
    gaussian_noise_multipliers : tuple of float, default=()
        Noise multipliers (noise standard deviation over L2 sensitivity) of Gaussian
        mechanisms run once on the same rows besides the training, such as the private
        centring and scaling of :class:`~skprivate.linear_model.DPLSSGDClassifier`.

    Returns
    -------
    event : dp_accounting.DpEvent
        ``SelfComposedDpEvent(PoissonSampledDpEvent(sample_rate, GaussianDpEvent(z)), steps)``,
        composed (``ComposedDpEvent``) after one ``GaussianDpEvent`` per entry of
        ``gaussian_noise_multipliers`` when there are any.

    Examples
    --------
    Compose two DP-SGD trainings on the same data with a ``dp_accounting`` accountant:

    >>> from dp_accounting import rdp
    >>> from skprivate.accounting import DEFAULT_RDP_ORDERS, dpsgd_epsilon, dpsgd_event
    >>> event = dpsgd_event(noise_multiplier=1.0, sample_rate=0.01, steps=1000)
    >>> event
    SelfComposedDpEvent(event=PoissonSampledDpEvent(sampling_probability=0.01,
        event=GaussianDpEvent(noise_multiplier=1.0)), count=1000)
    >>> round(dpsgd_epsilon(1.0, 0.01, 1000, 1e-5), 2)  # one training
    2.1
    >>> accountant = rdp.RdpAccountant(list(DEFAULT_RDP_ORDERS))
    >>> _ = accountant.compose(event, count=2)
    >>> round(float(accountant.get_epsilon(2e-5)), 2)  # two: less than 2 * 2.1
    2.75

    Pass the event to a :class:`BudgetAccountant` (``budget.spend(epsilon, delta,
    event=event)``) and it composes such spends in the same way.
    """
    step = dp_accounting.PoissonSampledDpEvent(
        float(sample_rate), dp_accounting.GaussianDpEvent(float(noise_multiplier))
    )
    training = dp_accounting.SelfComposedDpEvent(step, int(steps))
    if not gaussian_noise_multipliers:
        return training
    once = [dp_accounting.GaussianDpEvent(float(s)) for s in gaussian_noise_multipliers]
    return dp_accounting.ComposedDpEvent([*once, training])


def _rdp_epsilon(event, delta, orders=DEFAULT_RDP_ORDERS):
    accountant = rdp.RdpAccountant(list(orders))
    with _quiet_dp_accounting():
        accountant.compose(event)
        return float(accountant.get_epsilon(delta))


def _pld_discretization(rdp_epsilon):
    return min(_PLD_WIDEST, max(_PLD_DISCRETIZATION, rdp_epsilon / 3000.0))


def _pld_epsilon(event, delta, discretization):
    accountant = pld.PLDAccountant(value_discretization_interval=discretization)
    accountant.compose(event)
    return float(accountant.get_epsilon(delta))


def _epsilon(
    noise_multiplier, sample_rate, steps, delta, accountant, gaussians=(), discretization=None
):
    event = dpsgd_event(noise_multiplier, sample_rate, steps, gaussian_noise_multipliers=gaussians)
    if accountant == "rdp":
        return _rdp_epsilon(event, delta)
    guide = _fast_rdp_epsilon(noise_multiplier, sample_rate, steps, delta, gaussians)
    if guide > _PLD_MAX_EPSILON:
        return _rdp_epsilon(event, delta)
    if discretization is None:
        discretization = _pld_discretization(guide)
    return _pld_epsilon(event, delta, discretization)


@Substitution(**SHARED_DOCS)
@validate_params(
    {"noise_multiplier": _NOISE, **_PLAN_CONSTRAINTS},
    prefer_skip_nested_validation=True,
)
def dpsgd_epsilon(
    noise_multiplier,
    sample_rate,
    steps,
    delta,
    accounting="rdp",
    *,
    gaussian_noise_multipliers=(),
    accountant=DEPRECATED,
):
    """Epsilon of ``steps`` compositions of the Poisson-subsampled Gaussian mechanism.

    This is the privacy loss of DP-SGD with per-example clipping to norm ``C``, Gaussian noise of
    standard deviation ``noise_multiplier * C`` added to the sum of clipped gradients, and
    batches drawn by Poisson sampling (each row independently with probability
    ``sample_rate``). Neighbouring datasets differ by adding or removing one row.

    Parameters
    ----------
    noise_multiplier : float > 0
        Noise standard deviation divided by the clipping norm.
    sample_rate : float in (0, 1]
        Poisson sampling rate ``q``: expected batch size divided by the number of rows.
    steps : int >= 1
        Number of noisy steps.
    delta : float in (0, 1)
        Target delta.
    accounting : {"rdp", "pld"}, default="rdp"
        The accounting method, as the estimators' ``accounting``. ``"rdp"``: Renyi DP
        (Mironov, Talwar and Zhang 2019) over the orders in
        ``skprivate.accounting.DEFAULT_RDP_ORDERS``, converted with Canonne, Kamath and
        Steinke (2020), Prop. 12; fast and slightly loose.
        ``"pld"``: privacy loss distributions (dp-accounting's pessimistic estimate, an
        upper bound; discretisation the RDP epsilon / 3000 between 1e-4 and 0.01, within
        0.5 % of dp-accounting's default 1e-4; where the RDP bound exceeds 3000 it is
        reported instead); tight, slower.
    gaussian_noise_multipliers : tuple of float, default=()
        Noise multipliers of Gaussian mechanisms run once on the same rows besides the
        training (see :func:`dpsgd_event`); they are composed with it.
    %(accountant_renamed)s

    Returns
    -------
    epsilon : float
        An upper bound on the privacy loss at ``delta``.

    See Also
    --------
    dpsgd_noise_multiplier : The inverse: the noise that meets a target epsilon.

    Examples
    --------
    >>> from skprivate.accounting import dpsgd_epsilon
    >>> round(dpsgd_epsilon(1.0, 0.01, 1000, 1e-5), 2)
    2.1
    >>> round(dpsgd_epsilon(1.0, 0.01, 1000, 1e-5, accounting="pld"), 2)
    1.83
    """
    accounting = renamed_value(
        accounting, accountant, new="accounting", old="accountant", default="rdp",
        owner="dpsgd_epsilon",
    )
    return _epsilon(
        noise_multiplier, sample_rate, steps, delta, accounting,
        _gaussians(gaussian_noise_multipliers),
    )


def _gaussians(values):
    values = tuple(float(v) for v in values)
    if any(not (v > 0 and math.isfinite(v)) for v in values):
        raise ValueError(
            f"gaussian_noise_multipliers must be finite and > 0, got {values!r}."
        )
    return values


def _integer_order_terms(orders):
    """Flat (order, k, log binomial) arrays over 0 <= k <= alpha for every integer order."""
    alphas = np.asarray(orders).astype(int)
    sizes = alphas + 1
    alpha = np.repeat(alphas, sizes).astype(float)
    k = np.concatenate([np.arange(s) for s in sizes]).astype(float)
    log_binom = gammaln(alpha + 1) - gammaln(k + 1) - gammaln(alpha - k + 1)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return alpha, k, log_binom, starts


_TERMS = _integer_order_terms(_INTEGER_ORDERS)


def _sampled_gaussian_rdp_integer(noise_multiplier, sample_rate, orders, terms):
    """RDP of one Poisson-subsampled Gaussian step at integer ``orders``, vectorised.

    Mironov, Talwar and Zhang (2019), Section 3.3: for integer alpha,
    ``A_alpha = sum_k C(alpha, k) (1-q)^(alpha-k) q^k exp((k^2 - k) / (2 z^2))`` and
    ``RDP(alpha) = log(A_alpha) / (alpha - 1)``; ``terms`` is
    ``_integer_order_terms(orders)``. All orders are one ragged array expression.
    """
    q, z = float(sample_rate), float(noise_multiplier)
    alpha, k, log_binom, starts = terms
    # (alpha - k) * log(1 - q) with 0 * log(0) = 0, so that q = 1 (no subsampling) works.
    if q < 1:
        rest = (alpha - k) * math.log1p(-q)
    else:
        rest = np.where(alpha == k, 0.0, -np.inf)
    values = log_binom + k * math.log(q) + rest + (k * k - k) / (2 * z * z)
    # log-sum-exp within each order's segment
    peak = np.maximum.reduceat(values, starts)
    spread = np.exp(values - np.repeat(peak, np.diff(np.append(starts, values.size))))
    log_a = peak + np.log(np.add.reduceat(spread, starts))
    return log_a / (np.asarray(orders, dtype=float) - 1)


def _fast_rdp_epsilon(noise_multiplier, sample_rate, steps, delta, gaussians=()):
    """RDP epsilon over the integer orders only, vectorised; used to search, never reported.

    For integer alpha the sampled Gaussian's Renyi divergence has the closed form of Mironov,
    Talwar and Zhang (2019), Section 3.3:
    ``A_alpha = sum_k C(alpha, k) (1-q)^(alpha-k) q^k exp((k^2 - k) / (2 z^2))`` and
    ``RDP(alpha) = log(A_alpha) / (alpha - 1)``. It is the quantity dp-accounting computes
    order by order in Python; here all orders are one ragged array expression (about 18,000
    terms), which makes the calibration search cheap. It uses a subset of
    ``skprivate.accounting.DEFAULT_RDP_ORDERS``, so it is never below :func:`dpsgd_epsilon`.
    """
    rdp_values = steps * _sampled_gaussian_rdp_integer(
        noise_multiplier, sample_rate, _INTEGER_ORDERS, _TERMS
    )
    # A Gaussian mechanism of noise multiplier s has RDP alpha / (2 s^2) at every order
    # (Mironov 2017, Proposition 7), and RDP adds under composition (Proposition 1).
    for s in gaussians:
        rdp_values = rdp_values + _INTEGER_ORDERS / (2.0 * s * s)
    with _quiet_dp_accounting():
        eps, _ = rdp.compute_epsilon(_INTEGER_ORDERS, rdp_values, delta)
    return float(eps)


@Substitution(**SHARED_DOCS)
@validate_params(
    {"target_epsilon": [Interval(Real, 0, None, closed="neither")], **_PLAN_CONSTRAINTS},
    prefer_skip_nested_validation=True,
)
# The signature repeats dpsgd_epsilon's on purpose: the two are public inverses of each
# other and take the same plan by the same names.
def dpsgd_noise_multiplier(
    target_epsilon,
    sample_rate,
    steps,
    delta,
    accounting="rdp",
    *,
    gaussian_noise_multipliers=(),
    accountant=DEPRECATED,
):
    """Smallest noise multiplier whose DP-SGD epsilon does not exceed ``target_epsilon``.

    The result ``z`` satisfies ``dpsgd_epsilon(z, ...) <= target_epsilon`` (never overshoots) and
    ``dpsgd_epsilon(z, ...) >= 0.99 * target_epsilon`` (within 1 %), with the same accounting.

    Parameters
    ----------
    target_epsilon : float > 0
        The privacy budget to meet.
    sample_rate : float in (0, 1]
        Poisson sampling rate.
    steps : int >= 1
        Number of noisy steps.
    delta : float in (0, 1)
        Target delta.
    accounting : {"rdp", "pld"}, default="rdp"
        The accounting method; see :func:`dpsgd_epsilon`.
    gaussian_noise_multipliers : tuple of float, default=()
        Gaussian mechanisms run once besides the training (see :func:`dpsgd_event`): the
        training's noise is calibrated so that the composition meets ``target_epsilon``.
    %(accountant_renamed)s

    Returns
    -------
    noise_multiplier : float

    Raises
    ------
    skprivate.exceptions.InfeasiblePrivacyError
        If even a noise multiplier of 1e5 does not reach ``target_epsilon``.

    Examples
    --------
    >>> from skprivate.accounting import dpsgd_epsilon, dpsgd_noise_multiplier
    >>> z = dpsgd_noise_multiplier(1.0, 0.01, 1000, 1e-5)
    >>> round(z, 2)
    1.51
    >>> 0.99 <= dpsgd_epsilon(z, 0.01, 1000, 1e-5) <= 1.0
    True
    """
    accounting = renamed_value(
        accounting, accountant, new="accounting", old="accountant", default="rdp",
        owner="dpsgd_noise_multiplier",
    )
    target = float(target_epsilon)
    gaussians = _gaussians(gaussian_noise_multipliers)

    def fast(z):
        return _fast_rdp_epsilon(z, sample_rate, steps, delta, gaussians)

    z = _search(fast, target)
    if z is None:
        raise InfeasiblePrivacyError(
            f"target_epsilon={target_epsilon!r} cannot be reached with sample_rate="
            f"{sample_rate!r}, steps={steps!r} and delta={delta!r}: even noise_multiplier="
            f"{_MAX_NOISE:g} gives epsilon {fast(_MAX_NOISE):.3g}. Raise target_epsilon or "
            "delta, or lower sample_rate or the number of steps."
        )
    if accounting == "rdp":
        exact = lambda s: _epsilon(s, sample_rate, steps, delta, "rdp", gaussians)  # noqa: E731
        return _refine(exact, fast, target, z)

    # PLD: the fast RDP curve is the guide; _refine corrects for the PLD/RDP ratio, which
    # changes slowly with the noise multiplier. The search runs on a PLD grid four times
    # coarser (an upper bound too, several times cheaper) to within 0.5 %; one evaluation on the
    # reported grid, never above the coarse one on these nested grids, then confirms the
    # answer, and only if it falls outside [0.99, 1] x target does the search rerun on the
    # reported grid.
    exact = lambda s: _epsilon(s, sample_rate, steps, delta, "pld", gaussians)  # noqa: E731
    if target > _PLD_MAX_EPSILON:  # reported with RDP (see _PLD_MAX_EPSILON)
        return _refine(exact, fast, target, z)
    width = min(_PLD_WIDEST, 4 * _pld_discretization(target))
    coarse = lambda s: _epsilon(  # noqa: E731
        s, sample_rate, steps, delta, "pld", gaussians, width
    )
    z = _refine(coarse, fast, target, z, rtol=0.005)
    if 0.99 * target <= exact(z) <= target:
        return z
    return _refine(exact, fast, target, z)


def _search(fun, target, start=1.0, known=None):
    """Smallest noise multiplier with fun <= target (to 0.2 % in fun), or None if none.

    Doubling or halving from ``start``, then geometric bisection: the package's one
    calibration solver, :func:`skprivate.accounting._calibrate.solve_monotone`.
    """
    try:
        return solve_monotone(
            fun, target, increasing=False, lower=_MIN_NOISE, upper=_MAX_NOISE, start=start,
            known=known, rtol=0.002, xtol=1e-10,
        )
    except NoFeasiblePointError:
        return None


def _refine(exact, guide, target, z, rtol=0.01):
    """Finish a calibration with the reported accountant ``exact``, starting near ``z``.

    ``guide`` is a cheap function close to ``exact`` in shape: one round re-targets the cheap
    search by the ratio ``exact / guide`` measured at ``z``. Then a bracketing secant search
    on ``log epsilon`` against ``log z`` (false position with the Illinois modification,
    :func:`~skprivate.accounting._calibrate.solve_monotone`) finishes with ``exact`` alone,
    reusing the values already measured. The result always satisfies ``exact(z) <= target``.
    """
    values = {}

    def measure(s):
        values[s] = exact(s)
        return values[s]

    def done(value):
        return (1 - rtol) * target <= value <= target

    if done(measure(z)):
        return z
    ratio = values[z] / max(guide(z), 1e-300)
    if math.isfinite(ratio) and ratio > 0:
        moved = _search(guide, (1 - rtol / 2) * target / ratio)
        if moved is not None and moved not in values and done(measure(moved)):
            return moved
    try:
        return solve_monotone(
            exact, target, increasing=False, lower=_MIN_NOISE, upper=_MAX_NOISE, known=values,
            rtol=rtol, xtol=1e-10, method="illinois", expand=1.25, max_steps=40,
        )
    except NoFeasiblePointError:
        raise InfeasiblePrivacyError(
            f"target_epsilon={target!r} is not reachable with noise_multiplier <= "
            f"{_MAX_NOISE:g}."
        ) from None
