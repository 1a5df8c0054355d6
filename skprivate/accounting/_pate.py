"""Privacy of PATE's noisy aggregators, composed over the queries of one student.

Neighbouring datasets differ by adding or removing one private row. The rows are split into
disjoint partitions, one per teacher, so such a change alters one teacher's training set and
therefore at most one vote per query: a vote moves from one class to another (the vote
histogram changes by 1 in two coordinates: l1 change 2, l2 change sqrt(2)) or, where teachers
may abstain, one vote appears or disappears (change 1 in one coordinate). The largest count
changes by at most 1. The private votes are never released; only noisy labels are.

The bounds this module relies on; each is implemented by the function named after it below
(``_logq_laplace``, ``_rdp_theorem3``, ``_logq_gaussian``, ``_rdp_theorem6``):

LNMax (Papernot et al. 2017, Section 2.1, Eq. 1): Laplace(b) noise on every count, the
    arg max is released; ``gamma = 1/b``.

    - Data-independent. It is ``2 gamma``-DP per query (2017, Theorem 2, first part; the
      report-noisy-max argument of Dwork and Roth 2014, Claim 3.9, with counts that move in
      opposite directions). In the 2017 paper's moments ``alpha(l)`` (the log moment
      generating function of the privacy loss): ``alpha(l) <= 2 gamma^2 l (l + 1)`` (2017,
      Theorem 2, second part, from Bun and Steinke 2016) and ``alpha(l) <= 2 gamma l`` (the
      privacy loss never exceeds ``2 gamma``); the smaller one is used. With Renyi order
      ``lambda = l + 1``, ``RDP(lambda) = alpha(l) / l``.
    - Data-dependent. 2017, Lemma 4: with ``j*`` the plurality class and ``g_j = n_j* - n_j``,
      ``q = Pr[M(d) != j*] <= sum_{j != j*} (2 + gamma g_j) / (4 exp(gamma g_j))``; 2017,
      Theorem 3 (proof in Appendix A), for any ``(2 gamma)``-DP mechanism and
      ``q < (e^{2 gamma} - 1) / (e^{4 gamma} - 1)``:
      ``alpha(l) <= log((1 - q) ((1 - q) / (1 - e^{2 gamma} q))^l + q e^{2 gamma l})``. The
      proof shows the bound non-decreasing in ``q`` on that interval, so an upper bound on
      ``q`` may be used. Per query and per order the smaller of this and the
      data-independent value is kept, as the paper does.

GNMax (Papernot et al. 2018; privacy analysis in its Section 4): N(0, sigma^2) noise on
every count, the arg max is released.

    - Data-independent. 2018, Proposition 8: ``(lambda, lambda / sigma^2)``-RDP for every
      ``lambda > 1`` (the Gaussian mechanism on a histogram of l2 sensitivity ``sqrt(2)``).
    - Data-dependent. 2018, Proposition 7: ``q <= sum_{j != j*} Pr[N(0, 2 sigma^2) >= n_j* - n_j]
      = sum_{j != j*} erfc((n_j* - n_j) / (2 sigma)) / 2``. 2018, Theorem 6: if a mechanism
      is ``(mu_1, eps_1)``- and ``(mu_2, eps_2)``-RDP and ``q`` bounds the probability that it
      does not return ``i*`` on ``D``, then for ``1 < lambda <= mu_1`` and
      ``q <= e^{(mu_2 - 1) eps_2} / (mu_1 / (mu_1 - 1) * mu_2 / (mu_2 - 1))^{mu_2}``, for every
      neighbour ``D'``: ``D_lambda(M(D) || M(D')) <= log((1 - q) A^{lambda - 1}
      + q B^{lambda - 1}) / (lambda - 1)`` with ``A = (1 - q) / (1 - (q e^{eps_2})^{(mu_2 - 1)
      / mu_2})`` and ``B = e^{eps_1} / q^{1 / (mu_1 - 1)}``. The orders ``mu_2 = sigma
      sqrt(log(1/q))``, ``mu_1 = mu_2 + 1`` (``eps_i = mu_i / sigma^2`` by Proposition 8) are
      the 2018 paper's Proposition 10 choice. Every condition is checked per query and per
      order (also ``mu_2 > 1`` and ``q e^{eps_2} < 1``, without which ``A`` is undefined; and
      ``lambda < mu_1``, strictly, as in the authors' code); where one fails, the
      data-independent value is used. The smaller of the two is kept.

Confident-GNMax (2018, Algorithm 1): a query is answered only if its largest count
plus N(0, sigma_1^2) reaches a threshold ``T``; answered queries get GNMax.

    - The threshold step is paid on every query. Data-independent: the Gaussian mechanism on
      the largest count, of sensitivity 1, so ``RDP(lambda) = lambda / (2 sigma_1^2)``
      (the Gaussian mechanism's RDP, Mironov 2017); comparing with ``T`` is post-processing.
      Data-dependent: the step has two outcomes with ``p = Pr[answer] = Phi((n_max - T) /
      sigma_1)``; Theorem 6 applies with ``q = min(p, 1 - p)`` (exact, not a bound) and the
      data-independent guarantee above, i.e. with ``sigma`` replaced by ``sqrt(2) sigma_1``
      (the 2018 paper's analysis of the selection step; ``compute_rdp_threshold`` in the
      authors' code).
    - GNMax is paid only on the answered queries.

Discrete noise (the default of :func:`pate_epsilon`, what :class:`~skprivate.PATEClassifier`
draws): the same mechanisms with exact discrete Laplace and discrete Gaussian noise on the
integer counts. The data-independent curves are unchanged (the discrete Laplace on an l1
change of 2 is ``(2/b)``-DP; the discrete Gaussian has the Gaussian's Renyi bound for
integer shifts, Canonne, Kamath and Steinke 2020, Theorem 4), and the data-dependent
theorems take ``q`` bounds for the discrete noise, derived in ``_logq_laplace_gaps``,
``_logq_gaussian_gaps`` and ``_logq_threshold``.

Exact composition of the data-independent Gaussian bounds (``accounting="pld"``, the
default). GNMax releases the arg max of the vote histogram plus independent Gaussian noise
of standard deviation ``sigma`` on each count: post-processing of the Gaussian mechanism
on a histogram whose l2 change is at most ``sqrt(2)`` (two counts move by one, in opposite
directions; an abstaining teacher that starts to vote moves one count, which is the
projection of the two-count case, so no worse). For continuous noise, ``Q`` such queries
compose exactly to ``mu``-GDP with ``mu = sqrt(2 Q) / sigma`` (Dong, Roth and Su 2022,
Corollary 3.3), whose exact ``(epsilon, delta)`` is ``delta(epsilon) = Phi(-epsilon / mu +
mu / 2) - e^epsilon Phi(-epsilon / mu - mu / 2)`` (Dong, Roth and Su 2022, Corollary 2.13;
Balle and Wang 2018, Theorem 8, for the Gaussian mechanism itself): below the RDP
conversion of Proposition 8 (for 500 queries at sigma = 100 and delta = 1e-5, 1.20
against 1.31 with the improved conversion and 1.45 with the classic one). The noise drawn is
the discrete Gaussian, whose privacy loss is not exactly the continuous one, so the bound
computed is that of the noise actually drawn: a shift of one count is the one-dimensional
discrete Gaussian mechanism of sensitivity 1, a query is two of them on independent
coordinates, and ``Q`` answered queries (plus, for Confident-GNMax, ``n_queries``
threshold steps, each the discrete Gaussian of ``sigma_1`` on the largest count, of
sensitivity 1) are composed by the privacy-loss distribution (PLD) accountant of
``dp_accounting`` (Koskela, Jalko and Honkela 2020; Doroshenko et al. 2022), with its
pessimistic connect-the-dots discretisation, an upper bound at every step (``_pld_epsilon``),
at the parameters the exact sampler actually uses (``sigma^2`` rounded up to a rational).
Composition of privacy-loss distributions is exact for adaptively chosen queries (Zhu,
Dong and Wang 2022, dominating pairs), which the uncertainty strategy needs. It coincides
with the closed-form GDP value to the fourth digit at the noise levels PATE uses (the tests
check both against each other), and the smaller of it and the RDP bound is reported. The
RDP curves are still returned, for composition with other releases in RDP.

Composition over queries adds the RDP curves (Mironov 2017, Proposition 1; for the 2017
moments, Abadi et al. 2016, Theorem 2, restated as the 2017 paper's Theorem 1). Conversion
to ``(epsilon, delta)``: ``"classic"``, ``epsilon = min_lambda RDP(lambda) + log(1/delta) /
(lambda - 1)`` (Mironov 2017, Proposition 3), which is exactly the 2017 paper's
``min_l (alpha(l) + log(1/delta)) / l``; or ``"improved"``, Canonne, Kamath and Steinke
(2020), Proposition 12, as implemented by ``dp_accounting.rdp.compute_epsilon``. LNMax, being
pure DP, also has the basic-composition bound ``n (2/b)`` (Dwork and Roth 2014, Theorem 3.16);
the smaller epsilon is reported.
"""

import functools
import math
from dataclasses import dataclass, field
from numbers import Real

import numpy as np
from dp_accounting import rdp as dp_rdp
from scipy.special import log_ndtr, logsumexp
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from ..mechanisms import discrete_gaussian_rational_sigma2, discrete_laplace_rational_scale
from ..mechanisms._discrete import MAX_GAUSSIAN_SIGMA, MAX_LAPLACE_SCALE
from ._calibrate import NoFeasiblePointError, solve_monotone
from ._sgm import _quiet_dp_accounting

try:  # the PLD accountant of dp_accounting (a dependency of the package)
    from dp_accounting.pld import privacy_loss_distribution as _pld
except ImportError:  # pragma: no cover
    _pld = None

__all__ = ["DEFAULT_PATE_ORDERS", "PATEPrivacy", "pate_epsilon"]

# The authors' long list for the 2018 analysis (2 to 100 by 0.5, then 100 orders log-spaced
# to 500), plus 1.1 to 1.9: every order gives a valid bound, so more orders can only lower the
# minimum, and the low ones matter when the total cost is large.
#: Default Renyi orders of :func:`pate_epsilon`. They are 1.1 to 1.9 by 0.1, 2 to 100 by 0.5,
#: then 100 orders log-spaced from 100 to 500.
DEFAULT_PATE_ORDERS = tuple(
    np.unique(
        np.round(
            np.concatenate(
                [
                    np.arange(1.1, 2.0, 0.1),
                    np.arange(2.0, 100.5, 0.5),
                    np.logspace(2, math.log10(500), 100),
                ]
            ),
            10,
        )
    ).tolist()
)

# The PLD accountant for the discrete Gaussian is used from _PLD_MIN_SIGMA to
# _PLD_MAX_SIGMA, and only where the RDP bound is below _PLD_MAX_EPSILON: outside that range
# its grid grows large (seconds), and there the RDP bound is kept (valid, a little looser).
_PLD_MIN_SIGMA = 2.0
_PLD_MAX_SIGMA = 5000.0
_PLD_MAX_EPSILON = 30.0
_PLD_INTERVAL = 1e-4

# Relative slack added to log q by the discrete bounds (see _with_slack).
_LOGQ_SLACK = 1e-9
_CHUNK = 1024  # rows per block of the (distinct log q x orders) arrays: bounds the memory


@dataclass(frozen=True, eq=False)
class PATEPrivacy:
    """The privacy cost of a set of PATE queries, as returned by :func:`pate_epsilon`.

    Attributes
    ----------
    epsilon : float
        ``epsilon_data_dependent`` when it was computed, else ``epsilon_data_independent``.
        When data-dependent, it is a function of the private votes: see
        :func:`pate_epsilon`, Notes, before publishing it.
    epsilon_data_independent : float
        The bound that holds whatever the teachers voted: the one to publish.
    epsilon_data_dependent : float or None
        The tighter bound computed from the votes (None when ``data_dependent=False``).
        It is itself private.
    order : float
        The Renyi order at which ``epsilon`` is attained; ``inf`` where the basic composition
        of LNMax's pure ``(2/b)``-DP guarantee is the tighter bound.
    order_data_independent : float
        The same for ``epsilon_data_independent``.
    delta : float
        The delta of both epsilons.
    n_queries : int
        Number of queries (rows of ``votes``).
    n_answered : int
        Number of queries answered (all of them unless a threshold is used).
    orders : ndarray of shape (n_orders,)
        The Renyi orders ``lambda`` used. The 2017 moment of order ``l`` is
        ``alpha(l) = l * RDP(l + 1)``.
    rdp_data_independent : ndarray of shape (n_orders,)
        Total data-independent RDP of the queries at each order, ready to be added to the
        RDP curve of other releases (composition).
    rdp_data_dependent : ndarray of shape (n_orders,) or None
        Total data-dependent RDP at each order (None when ``data_dependent=False``).
    conversion : {"improved", "classic"}
        How RDP was converted to ``(epsilon, delta)``.
    accounting_data_independent : {"rdp", "pld", "basic"}
        Which bound gave ``epsilon_data_independent``: the RDP curve converted as set by
        ``conversion``, the exact composition of the discrete Gaussian by privacy-loss
        distributions (``accounting="pld"``, GNMax and Confident-GNMax), or LNMax's basic
        composition.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.accounting import pate_epsilon
    >>> votes = np.random.default_rng(0).multinomial(250, [0.9] + [0.1 / 9] * 9, size=100)
    >>> cost = pate_epsilon(votes, mechanism="gaussian", noise_scale=40, delta=1e-5)
    >>> cost
    PATEPrivacy(epsilon=0.339..., epsilon_data_independent=1.356...,
        epsilon_data_dependent=0.339..., order=30.5, order_data_independent=13.0,
        delta=1e-05, n_queries=100, n_answered=100, conversion='improved')

    The data-independent bound is the one to publish; the data-dependent one is tighter
    but a function of the votes:

    >>> round(cost.epsilon_data_independent, 3), round(cost.epsilon_data_dependent, 3)
    (1.356, 0.34)
    >>> cost.accounting_data_independent  # exact composition, tighter than RDP's 1.478
    'pld'

    The RDP curves, one value per order of ``cost.orders``, add up with those of other
    releases at the same orders:

    >>> cost.orders.shape, cost.rdp_data_independent.shape
    ((305,), (305,))
    """

    epsilon: float
    epsilon_data_independent: float
    epsilon_data_dependent: float | None
    order: float
    order_data_independent: float
    delta: float
    n_queries: int
    n_answered: int
    orders: np.ndarray = field(repr=False)
    rdp_data_independent: np.ndarray = field(repr=False)
    rdp_data_dependent: np.ndarray | None = field(repr=False)
    conversion: str = "improved"
    accounting_data_independent: str = field(default="rdp", repr=False)


# --- validation of the arrays (the scalars go through validate_params) ----------------------


def _check_votes(votes):
    array = np.asarray(votes)
    if array.dtype == bool or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise TypeError(
            "votes must be an array of non-negative integer vote counts, shape (n_queries, "
            f"n_classes); got dtype {array.dtype}. Count the teachers' labels per query, e.g. "
            "with np.bincount."
        )
    if array.ndim != 2:
        raise ValueError(
            "votes must be 2-D of shape (n_queries, n_classes), one vote histogram per row; "
            f"got an array of shape {array.shape}. For a single query pass "
            "np.asarray(votes).reshape(1, -1)."
        )
    n_queries, n_classes = array.shape
    if n_queries < 1 or n_classes < 2:
        raise ValueError(
            "votes must have at least one query (row) and two classes (columns); got shape "
            f"{array.shape}."
        )
    values = array.astype(np.float64)
    if not np.all(np.isfinite(values)):
        raise ValueError(
            "votes must be finite vote counts; got NaN or infinite values. Pass the number "
            "of teachers voting for each class."
        )
    if np.any(values < 0):
        row, col = np.argwhere(values < 0)[0]
        raise ValueError(
            f"votes must be non-negative counts; got votes[{row}, {col}] = {array[row, col]}. "
            "Pass the number of teachers voting for each class."
        )
    if np.any(values != np.round(values)):
        row, col = np.argwhere(values != np.round(values))[0]
        raise ValueError(
            f"votes must be integer counts; got votes[{row}, {col}] = {array[row, col]}. The "
            "bounds assume one teacher moves a count by 1; pass raw vote counts, not "
            "frequencies or scores."
        )
    return values


def _check_answered(answered, n_queries, threshold):
    if answered is None:
        return np.ones(n_queries, dtype=bool)
    mask = np.asarray(answered)
    if mask.shape != (n_queries,):
        raise ValueError(
            f"answered must be a boolean array of shape (n_queries,) = ({n_queries},), one "
            f"entry per row of votes; got shape {mask.shape}."
        )
    if mask.dtype != bool:
        if not (np.issubdtype(mask.dtype, np.number) and np.all(np.isin(mask, (0, 1)))):
            raise ValueError(
                "answered must be boolean (True where the query was answered); got values "
                f"of dtype {mask.dtype} other than 0 and 1."
            )
        mask = mask.astype(bool)
    if threshold is None and not mask.all():
        raise ValueError(
            f"answered marks {int((~mask).sum())} unanswered queries but threshold is None: "
            "without a threshold (Confident-GNMax) every query is answered. Pass threshold "
            "and threshold_noise_scale, or leave answered=None."
        )
    return mask


def _check_orders(orders):
    if orders is None:
        return np.asarray(DEFAULT_PATE_ORDERS, dtype=np.float64)
    try:
        array = np.asarray(orders, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"orders must be a 1-D array of Renyi orders > 1; got {orders!r}."
        ) from None
    if array.ndim != 1 or array.size == 0:
        raise ValueError(
            f"orders must be a non-empty 1-D array of Renyi orders > 1; got shape {array.shape}."
        )
    if not np.all(np.isfinite(array)) or np.any(array <= 1):
        raise ValueError(
            f"orders must be finite Renyi orders > 1; got {array.min()!r} to {array.max()!r}. "
            "Use orders=range(2, 10) for the 2017 paper's moments l = 1..8, or None."
        )
    return np.unique(array)


def _check_threshold(mechanism, threshold, threshold_noise_scale):
    if threshold is None and threshold_noise_scale is None:
        return
    if mechanism != "gaussian":
        raise ValueError(
            f"threshold (Confident-GNMax) requires mechanism='gaussian'; got mechanism="
            f"{mechanism!r}. Use mechanism='gaussian', or drop threshold and "
            "threshold_noise_scale for LNMax."
        )
    if threshold is None or threshold_noise_scale is None:
        given, missing = (
            ("threshold", "threshold_noise_scale")
            if threshold_noise_scale is None
            else ("threshold_noise_scale", "threshold")
        )
        raise ValueError(
            f"{given} was given but {missing} is None: Confident-GNMax needs both the "
            "threshold and the standard deviation of the noise added to the largest count. "
            "Pass both, or neither for plain GNMax."
        )


# --- the bounds, vectorised over (queries x orders) ------------------------------------------


def _log1mexp(x):
    """log(1 - exp(x)) for x < 0, accurate near 0 and for very negative x."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > -math.log(2), np.log(-np.expm1(x)), np.log1p(-np.exp(x)))


def _gaps(votes):
    """n_j* - n_j for every class, with +inf at one plurality class per row."""
    top = votes.argmax(axis=1)
    gaps = votes.max(axis=1, keepdims=True) - votes
    gaps[np.arange(votes.shape[0]), top] = np.inf
    return gaps


def _effective_scale(mechanism, scale, noise):
    """The noise parameter the sampler actually uses, as a float (see the discrete bounds).

    The exact samplers round the requested Laplace scale and ``sigma**2`` *up* to rationals
    with small terms (:func:`~skprivate.mechanisms.discrete_laplace_rational_scale`,
    :func:`~skprivate.mechanisms.discrete_gaussian_rational_sigma2`). More noise only lowers
    the data-independent cost, which therefore uses the requested value; but it raises the
    probability ``q`` of not returning the plurality, so ``q`` is bounded at the value used.
    """
    if noise == "continuous":
        return float(scale)
    if mechanism == "laplace":
        return float(discrete_laplace_rational_scale(scale))
    return math.sqrt(float(discrete_gaussian_rational_sigma2(scale)))


def _check_discrete_noise(mechanism, noise_scale, threshold_noise_scale):
    """The exact samplers take Laplace scales up to 2**52 and Gaussian sigmas up to 2**40."""
    limit = MAX_LAPLACE_SCALE if mechanism == "laplace" else MAX_GAUSSIAN_SIGMA
    for name, value, cap in (("noise_scale", noise_scale, limit),
                             ("threshold_noise_scale", threshold_noise_scale,
                              MAX_GAUSSIAN_SIGMA)):
        if value is not None and float(value) > cap:
            raise ValueError(
                f"{name}={value!r} is above {cap:.6g}, the largest parameter the exact "
                "discrete sampler takes: with that much noise the votes carry no signal. Use a "
                f"{name} below {cap:.6g}."
            )


def _with_slack(logq):
    """Round a computed ``log q`` up by a relative ``_LOGQ_SLACK``.

    The discrete bounds are closed forms evaluated once in float64 at a parameter that is
    itself the float nearest an exact rational: the rounding moves ``log q`` by a relative
    error of order 1e-15, far inside this slack.
    """
    logq = np.asarray(logq, dtype=np.float64)
    return np.minimum(logq + _LOGQ_SLACK * (1.0 + np.abs(logq)), 0.0)


def _logq_laplace(votes, scale, noise="continuous"):
    """log of a bound on Pr[LNMax != plurality], one per query (see _logq_laplace_gaps)."""
    return _logq_laplace_gaps(_gaps(votes), scale, noise)


def _logq_laplace_gaps(gaps, scale, noise="continuous"):
    """Bound on Pr[LNMax != plurality] from the gaps ``g = n_j* - n_j`` (last axis; +inf
    marks no class): the union bound ``q <= sum_j Pr[Z_j - Z_j* >= g_j]`` over the rivals.

    ``"continuous"``: Laplace(b) noise, ``Pr[Z - Z' >= g] = (2 + g/b) / (4 e^{g/b})``, the
    2017 paper's Lemma 4. ``"discrete"``: discrete Laplace noise with ``P(Z = z) = c p^|z|``,
    ``p = e^{-1/b}``, ``c = (1 - p)/(1 + p)`` (what :func:`discrete_laplace_noise` draws).
    Summing the pmf of ``Z'`` against the tail ``P(Z >= k) = p^k / (1 + p)`` (``k >= 0``) in
    three geometric pieces gives, exactly, for integer ``g >= 0``::

        Pr[Z - Z' >= g] = c p^g ((1 + p + p^2) / (1 + p)^2 + g / (1 + p) + p / (1 - p)),

    which tends to Lemma 4's value as ``b`` grows. A tie of the noisy counts counts as a
    loss for the plurality (``>=``), so the bound holds whatever breaks ties. The test suite
    checks it against the exact convolution of the two pmfs.
    """
    gaps = np.asarray(gaps, dtype=np.float64)
    b = _effective_scale("laplace", scale, noise)
    with np.errstate(invalid="ignore"):  # inf - inf at the excluded plurality class
        if noise == "continuous":
            scaled = gaps / b
            terms = np.log(2 + scaled) - math.log(4) - scaled
        else:
            log_p = -1.0 / b
            p = math.exp(log_p)
            one_minus_p = -math.expm1(log_p)
            log_c = math.log(one_minus_p) - math.log1p(p)
            constant = (1 + p + p * p) / (1 + p) ** 2 + p / one_minus_p
            terms = log_c + gaps * log_p + np.log(constant + gaps / (1 + p))
    terms[~np.isfinite(gaps)] = -np.inf
    logq = logsumexp(terms, axis=-1)
    return logq if noise == "continuous" else _with_slack(logq)


def _logq_gaussian(votes, sigma, noise="continuous"):
    """log of a bound on Pr[GNMax != plurality], one per query (see _logq_gaussian_gaps)."""
    return _logq_gaussian_gaps(_gaps(votes), sigma, noise)


def _log_theta_ratio(sigma):
    """log of ``1 + e_sigma`` with ``e_sigma = 2 e^{-pi^2 sigma^2} / (1 - e^{-pi^2 sigma^2})``.

    By Poisson summation, ``Z = sum_x e^{-x^2 / (2 sigma^2)} = sigma sqrt(2 pi) sum_k
    e^{-2 pi^2 sigma^2 k^2} >= sigma sqrt(2 pi)`` and ``sum_x e^{-(x + s)^2 / sigma^2}
    <= sigma sqrt(pi) (1 + e_sigma)`` for every shift ``s`` (all terms of the dual sum are at
    most ``e^{-pi^2 sigma^2 |k|}``).
    """
    decay = -(math.pi * sigma) ** 2
    return math.log1p(2 * math.exp(decay) / -math.expm1(decay))


def _logq_gaussian_gaps(gaps, sigma, noise="continuous"):
    """Bound on Pr[GNMax != plurality] from the gaps ``g = n_j* - n_j`` (last axis; +inf
    marks no class): ``q <= sum_j Pr[Z_j - Z_j* >= g_j]`` over the rivals.

    ``"continuous"``: 2018 Proposition 7, ``Pr[N(0, 2 sigma^2) >= g] = erfc(g / (2 sigma))
    / 2``. ``"discrete"``: discrete Gaussian noise, ``P(Z = z) = e^{-z^2 / (2 sigma^2)} / Z``
    (what :func:`discrete_gaussian_noise` draws). The difference ``D = Z - Z'`` of two
    independent draws has ``P(D = d) = e^{-d^2 / (4 sigma^2)} theta_d / Z^2`` with
    ``theta_d = sum_x e^{-(x + d/2)^2 / sigma^2}`` (complete the square), so, with the
    bounds of :func:`_log_theta_ratio` and a decreasing sum bounded by its first term plus
    the integral::

        Pr[D >= g] <= (1 + e_sigma) (e^{-g^2 / (4 sigma^2)} / (2 sigma sqrt(pi))
                                     + erfc(g / (2 sigma)) / 2),

    Proposition 7's term plus the mass of the tie ``D = g``; ties count as losses, so the
    bound holds whatever breaks them. The test suite checks it against the exact
    convolution of the two pmfs.
    """
    gaps = np.asarray(gaps, dtype=np.float64)
    s = _effective_scale("gaussian", sigma, noise)
    # Pr[N(0, 2 s^2) >= gap] = Phi(-gap / (sqrt(2) s)) = erfc(gap / (2 s)) / 2
    terms = log_ndtr(-gaps / (math.sqrt(2) * s))
    if noise == "continuous":
        return logsumexp(terms, axis=-1)
    tie = -np.square(gaps) / (4 * s * s) - math.log(2 * s * math.sqrt(math.pi))
    terms = np.logaddexp(terms, tie) + _log_theta_ratio(s)
    terms[~np.isfinite(gaps)] = -np.inf
    return _with_slack(logsumexp(terms, axis=-1))


def _logq_threshold(largest, threshold, sigma1, noise="continuous"):
    """log q for the threshold step of Confident-GNMax, one per query.

    The step releases whether ``n_max + Z >= T`` (``Z`` the threshold noise); with ``p`` its
    probability, Theorem 6 is applied to the likelier outcome with ``q = min(p, 1 - p)``.
    ``"continuous"``: ``p = Phi((n_max - T) / sigma_1)``, exact. ``"discrete"``: the counts
    and the noise are integers, so the step is ``Z >= k`` with ``k = ceil(T) - n_max``, and
    ``P(Z <= k - 1) = P(Z >= 1 - k)`` by symmetry; for ``j >= 1``, ``P(Z >= j) <=
    e^{-j^2 / (2 sigma_1^2)} / (sigma_1 sqrt(2 pi)) + Phi(-j / sigma_1)`` (the normaliser is
    at least ``sigma_1 sqrt(2 pi)``, see :func:`_log_theta_ratio`, and the sum is at most
    its first term plus the integral). ``q <= min(u(k), u(1 - k))`` with ``u`` that bound
    where its argument is at least 1 and 1 elsewhere.
    """
    largest = np.asarray(largest, dtype=np.float64)
    if noise == "continuous":
        margin = (largest - float(threshold)) / sigma1
        return np.minimum(log_ndtr(margin), log_ndtr(-margin))
    s = _effective_scale("gaussian", sigma1, noise)
    k = math.ceil(threshold) - largest

    def log_upper(j):
        with np.errstate(invalid="ignore", divide="ignore"):
            bound = np.logaddexp(
                -np.square(j) / (2 * s * s) - math.log(s * math.sqrt(2 * math.pi)),
                log_ndtr(-j / s),
            )
        return np.where(j >= 1, bound, 0.0)

    return _with_slack(np.minimum(log_upper(k), log_upper(1 - k)))


def _rdp_theorem3(logq, pure_eps, orders):
    """Per-query RDP of a ``pure_eps``-DP mechanism given log q: 2017 Theorem 3 and Theorem 2.

    Returns an array (n_queries, n_orders): the data-dependent bound where its condition
    holds, capped by the data-independent ``min(pure_eps^2 lambda / 2, pure_eps)``.
    """
    independent = np.minimum(0.5 * pure_eps**2 * orders, pure_eps)
    out = np.broadcast_to(independent, (logq.size, orders.size)).copy()
    # Theorem 3's condition q < (e^eps - 1) / (e^{2 eps} - 1) = 1 / (e^eps + 1)
    ok = logq < -np.logaddexp(0.0, pure_eps)
    if not ok.any():
        return out
    lq = logq[ok, None]
    l = orders[None, :] - 1  # the 2017 moment order l = lambda - 1
    log1q = _log1mexp(lq)
    first = log1q + l * (log1q - _log1mexp(pure_eps + lq))
    second = lq + pure_eps * l
    dependent = np.maximum(np.logaddexp(first, second) / l, 0.0)
    out[ok] = np.minimum(out[ok], dependent)
    return out


def _rdp_theorem6(logq, sigma, orders):
    """Per-query RDP of a mechanism with RDP(lambda) = lambda / sigma^2, given log q.

    2018 Theorem 6 with the orders of Proposition 10, every condition checked per query and
    order; elsewhere (and always as a cap) the data-independent ``lambda / sigma^2``.
    Returns an array (n_queries, n_orders).
    """
    variance = sigma * sigma
    independent = orders / variance
    out = np.broadcast_to(independent, (logq.size, orders.size)).copy()
    with np.errstate(invalid="ignore", divide="ignore"):
        mu2 = sigma * np.sqrt(-logq)
        mu1 = mu2 + 1
        eps1, eps2 = mu1 / variance, mu2 / variance
        bound_q = (mu2 - 1) * eps2 - mu2 * (np.log(mu1 / (mu1 - 1)) + np.log(mu2 / (mu2 - 1)))
        usable = (logq < 0) & (mu2 > 1) & (logq + eps2 < 0) & (logq <= bound_q)
    if not usable.any():
        return out
    lq = logq[usable, None]
    mu1, mu2 = mu1[usable, None], mu2[usable, None]
    eps1, eps2 = eps1[usable, None], eps2[usable, None]
    cols = orders < mu1.max()  # lambda < mu_1: higher orders keep the independent value
    lam = orders[None, cols]
    log1q = _log1mexp(lq)
    log_a = log1q - _log1mexp((lq + eps2) * (1 - 1 / mu2))
    log_b = eps1 - lq / (mu1 - 1)
    dependent = np.logaddexp(log1q + (lam - 1) * log_a, lq + (lam - 1) * log_b) / (lam - 1)
    dependent = np.where(lam < mu1, np.maximum(dependent, 0.0), np.inf)
    cells = np.ix_(np.flatnonzero(usable), np.flatnonzero(cols))
    out[cells] = np.minimum(out[cells], dependent)
    return out


def _summed(per_query, logq, weights, *args):
    """Sum over queries of ``per_query(logq, *args)`` rows times ``weights``.

    The bound depends on a query only through its ``log q``: equal values are computed once
    (the threshold step has at most n_teachers + 1 of them), the rest in blocks of rows.
    """
    keep = weights > 0
    if not keep.any():
        return 0.0
    values, where = np.unique(logq[keep], return_inverse=True)
    counts = np.bincount(where.ravel(), weights=weights[keep], minlength=values.size)
    total = 0.0
    for start in range(0, values.size, _CHUNK):
        block = slice(start, start + _CHUNK)
        total = total + counts[block] @ per_query(values[block], *args)
    return total


def gdp_epsilon(mu, delta):
    """Exact ``epsilon`` of a ``mu``-GDP mechanism at ``delta`` (continuous Gaussian noise).

    ``delta(epsilon) = Phi(-epsilon / mu + mu / 2) - e^epsilon Phi(-epsilon / mu - mu / 2)``
    (Dong, Roth and Su 2022, Corollary 2.13), decreasing in ``epsilon``, solved by bisection
    in log space. ``Q`` GNMax answers at noise ``sigma`` are ``sqrt(2 Q) / sigma``-GDP for
    continuous noise. Used by the calibration as a starting point and by the tests as the
    independent closed form; the epsilon reported for the discrete noise is
    :func:`_pld_epsilon`'s.
    """
    from scipy.special import ndtr

    mu = float(mu)
    if mu <= 0:
        return 0.0

    def excess(eps):
        return ndtr(-eps / mu + mu / 2) - math.exp(eps + log_ndtr(-eps / mu - mu / 2)) - delta

    if excess(0.0) <= 0:
        return 0.0
    # The smallest epsilon whose delta is within the target (the package's one calibration
    # solver: the returned point was evaluated and found within it, so never below the root).
    try:
        return float(solve_monotone(
            lambda eps: excess(eps) + delta, delta, increasing=False, lower=1e-12, upper=1e6,
            start=1.0, xtol=1e-12,
        ))
    except NoFeasiblePointError:  # beyond 1e6: report inf, never a number below the root
        return math.inf


def _pld_epsilon(scale, n_answered, sigma1, n_queries, delta):
    """Data-independent epsilon of discrete-Gaussian GNMax by the PLD accountant, or inf.

    ``2 n_answered`` one-dimensional discrete Gaussian mechanisms of parameter ``scale``
    and sensitivity 1 (each answer shifts two independent counts by one), plus, with a
    threshold (``sigma1`` not None), ``n_queries`` of parameter ``sigma1`` (the largest
    count, sensitivity 1), composed by ``dp_accounting``'s privacy-loss distributions with
    pessimistic connect-the-dots discretisation, an upper bound (see the module
    docstring). ``inf`` outside the range where it is computed quickly (the RDP bound then
    stands).
    """
    scales = [(float(scale), 2 * int(n_answered))]
    if sigma1 is not None:
        scales.append((float(sigma1), int(n_queries)))
    scales = [(s, k) for s, k in scales if k > 0]
    if _pld is None or not scales:
        return math.inf if _pld is None else 0.0
    if any(not _PLD_MIN_SIGMA <= s <= _PLD_MAX_SIGMA for s, _ in scales):
        return math.inf
    return _pld_epsilon_cached(tuple(scales), float(delta))


@functools.lru_cache(maxsize=512)
def _pld_epsilon_cached(scales, delta):
    total = None
    for s, k in scales:
        one = _pld.from_discrete_gaussian_mechanism(
            s, sensitivity=1, pessimistic_estimate=True,
            value_discretization_interval=_PLD_INTERVAL, use_connect_dots=True,
        ).self_compose(k)
        total = one if total is None else total.compose(one)
    return float(total.get_epsilon_for_delta(delta))


def _to_epsilon(orders, rdp_curve, delta, conversion):
    if conversion == "classic":
        values = rdp_curve + math.log(1 / delta) / (orders - 1)
        best = int(np.argmin(values))
        return float(max(values[best], 0.0)), float(orders[best])
    with _quiet_dp_accounting():
        eps, order = dp_rdp.compute_epsilon(orders, rdp_curve, delta)
    return float(eps), float(order)


@validate_params(
    {
        "votes": ["array-like"],
        "mechanism": [StrOptions({"laplace", "gaussian"})],
        "noise_scale": [Interval(Real, 0, np.inf, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "data_dependent": ["boolean"],
        "threshold": [Interval(Real, None, None, closed="neither"), None],
        "threshold_noise_scale": [Interval(Real, 0, np.inf, closed="neither"), None],
        "answered": ["array-like", None],
        "orders": ["array-like", None],
        "conversion": [StrOptions({"improved", "classic"})],
        "noise": [StrOptions({"discrete", "continuous"})],
        "accounting": [StrOptions({"pld", "rdp"})],
    },
    prefer_skip_nested_validation=True,
)
def pate_epsilon(
    votes,
    *,
    mechanism,
    noise_scale,
    delta,
    data_dependent=True,
    threshold=None,
    threshold_noise_scale=None,
    answered=None,
    orders=None,
    conversion="improved",
    noise="discrete",
    accounting="pld",
):
    """Privacy cost of labelling queries by a noisy vote of PATE teachers.

    Accounts LNMax (Papernot et al. 2017), GNMax and Confident-GNMax (Papernot et al. 2018)
    over all queries with Renyi differential privacy, both data-independently (a guarantee
    that holds whatever the votes) and data-dependently (the papers' tighter bounds, which
    depend on how strongly the teachers agreed).

    Parameters
    ----------
    votes : array-like of shape (n_queries, n_classes)
        Non-negative integer vote counts: ``votes[i, j]`` teachers voted for class ``j`` on
        query ``i``. Rows need not have the same total (teachers may abstain). Only the
        data-dependent bounds read the values; the data-independent one uses the shape.
    mechanism : {"laplace", "gaussian"}
        ``"laplace"``: LNMax, Laplace noise of scale ``noise_scale = b = 1/gamma`` on each
        count (2017). ``"gaussian"``: GNMax, Gaussian noise of standard deviation
        ``noise_scale = sigma`` on each count (2018).
    noise_scale : float > 0
        Laplace scale ``b`` or Gaussian standard deviation ``sigma``.
    delta : float in (0, 1)
        Target delta.
    data_dependent : bool, default=True
        Also compute the data-dependent bound (``epsilon_data_dependent``).
    threshold : float, default=None
        Confident-GNMax (``mechanism="gaussian"`` only): a query is answered when its largest
        count plus ``N(0, threshold_noise_scale^2)`` reaches ``threshold``. None means every
        query is answered (plain LNMax or GNMax).
    threshold_noise_scale : float > 0, default=None
        Standard deviation ``sigma_1`` of the threshold noise; required with ``threshold``.
    answered : array-like of bool of shape (n_queries,), default=None
        Which queries passed the threshold (and so also cost GNMax). None means all. Without
        a threshold it must be None or all True.
    orders : array-like of float > 1, default=None
        Renyi orders ``lambda``. None means :data:`DEFAULT_PATE_ORDERS` (1.1 to 1.9, 2 to
        100 by 0.5, then log-spaced to 500, as in the 2018 authors' analysis).
        ``range(2, 10)`` gives the 2017 paper's moments ``l = 1, ..., 8``.
    conversion : {"improved", "classic"}, default="improved"
        RDP to ``(epsilon, delta)``: ``"improved"`` is Canonne, Kamath and Steinke (2020),
        Proposition 12 (``dp_accounting.rdp.compute_epsilon``); ``"classic"`` is
        ``min RDP(lambda) + log(1/delta) / (lambda - 1)`` (Mironov 2017, Proposition 3), the
        conversion of both papers, needed to reproduce their numbers. Both are valid;
        ``"improved"`` is never larger.
    noise : {"discrete", "continuous"}, default="discrete"
        The noise on the integer counts. ``"discrete"``: the exact discrete Laplace and
        discrete Gaussian samplers of :mod:`skprivate.mechanisms`, which
        :class:`~skprivate.PATEClassifier` uses. ``"continuous"``: Laplace and Gaussian noise
        as in the papers (to reproduce their numbers). The data-independent bounds are the
        same for both; the data-dependent ones bound ``q`` for the noise used, the discrete
        one slightly larger (see Notes).
    accounting : {"pld", "rdp"}, default="pld"
        How the data-independent Gaussian bounds (GNMax, Confident-GNMax) compose over the
        queries. ``"pld"``: also compute the exact composition, by privacy-loss
        distributions for the discrete noise (``dp_accounting``, pessimistic) or the
        closed-form Gaussian DP for ``noise="continuous"``, and report the smaller of it and
        the RDP bound (8% below the improved RDP conversion at 500 queries and
        ``sigma = 100``). ``"rdp"``: the RDP
        bound only, as in the papers. LNMax and the data-dependent bounds always use RDP.

    Returns
    -------
    privacy : PATEPrivacy
        ``epsilon``, ``epsilon_data_independent``, ``epsilon_data_dependent``, the optimal
        ``order``, ``delta``, ``n_queries``, ``n_answered`` and the total RDP curves over
        ``orders`` (to compose with other releases).

    See Also
    --------
    PATEPrivacy : The result.
    pate_sanitized_epsilon : Publish the data-dependent bound privately.
    skprivate.accounting.dpsgd_epsilon : The same RDP conversion for DP-SGD.

    Notes
    -----
    Neighbouring datasets differ by one private row. Teachers are trained on disjoint
    partitions, so one row changes one teacher's training set and at most one vote per
    query: the histogram moves by at most 2 in l1 (sqrt(2) in l2) norm, its largest count by
    at most 1. The unit protected is a row; the public queries, the number of classes and
    the noise parameters are public.

    Bounds, per query (the module docstring states each in full, next to its code):

    - LNMax, data-independent: ``(2/b)``-DP (2017, Theorem 2); moments
      ``alpha(l) <= min(2 gamma^2 l (l + 1), 2 gamma l)`` with ``gamma = 1/b``, i.e.
      ``RDP(lambda) <= min(2 gamma^2 lambda, 2 gamma)``. The final epsilon is also capped by
      basic composition, ``n_queries * 2/b`` (pure DP, Dwork and Roth 2014, Theorem 3.16),
      which wins when ``2/b`` is large.
    - LNMax, data-dependent: 2017, Lemma 4 (bound ``q`` on the probability of not
      returning the plurality class) and Theorem 3 (moments from ``q``, valid for
      ``q < (e^{2 gamma} - 1)/(e^{4 gamma} - 1)``).
    - GNMax, data-independent: ``RDP(lambda) = lambda / sigma^2`` (2018, Proposition 8).
    - GNMax, data-dependent: 2018, Proposition 7 (``q``) and Theorem 6, with all its
      conditions checked per query and order.
    - Confident-GNMax: the threshold step on every query, ``RDP(lambda) = lambda /
      (2 sigma_1^2)`` data-independently, Theorem 6 on its two outcomes data-dependently;
      GNMax on the answered queries only.

    **Discrete noise** (``noise="discrete"``). The counts are integers, so exact integer
    noise can be added to them (Canonne, Kamath and Steinke 2020), leaving no floating-point
    sample anywhere. The data-independent bounds carry over unchanged: discrete Laplace of
    scale ``b`` on a histogram whose l1 change is 2 is ``(2/b)``-DP (ratio of pmfs at most
    ``e^{|shift| / b}`` per coordinate), and the discrete Gaussian gives the same Renyi
    divergence bound ``lambda Delta^2 / (2 sigma^2)`` for integer shifts as the continuous
    one (CKS 2020, Theorem 4; over independent coordinates Renyi divergences add, giving
    ``lambda ||Delta||_2^2 / (2 sigma^2)``), so Proposition 8 and the threshold step's curve
    hold as stated. The data-dependent theorems (2017 Theorem 3,
    2018 Theorem 6) need only the data-independent guarantee and an upper bound on ``q``;
    ``q`` is bounded for the discrete noise actually drawn (the sampler's rounded-up
    parameter), ties counting against the plurality (``_logq_laplace_gaps``,
    ``_logq_gaussian_gaps`` and ``_logq_threshold`` state and derive each bound).

    Where a data-dependent condition fails, the data-independent value is used, and per
    query and order the smaller value is kept, so ``epsilon_data_dependent <=
    epsilon_data_independent`` always. The RDP curves add up over queries (Mironov 2017,
    Proposition 1) and are converted as set by ``conversion``.

    **The data-dependent epsilon is private.** It is a function of the votes, hence of the
    private data (a strong consensus says something about the teachers' training sets), and
    publishing it is a release that no epsilon here covers. Publish
    ``epsilon_data_independent``, or a noisy version of the data-dependent one released by
    smooth sensitivity (2018 paper, Section 4.2 and Appendix C), whose own cost must be
    added: :func:`pate_sanitized_epsilon` does both.

    **Answered queries.** With a threshold, which queries are answered is decided by the
    noisy threshold step, so the realised count depends on the votes. Charging GNMax only
    on answered queries is what the 2018 paper reports. As a worst-case guarantee, use a cap
    on the number of answers fixed before querying (the student stops at its ``k``-th
    answer): the total RDP then never exceeds the curve computed with ``k`` answers at any
    order, and a Renyi filter (Feldman and Zrnic 2021) makes that curve a valid guarantee.
    Without such a cap, price every query as answered (``answered=None``).

    With ``orders=range(2, 10)`` and ``conversion="classic"`` the analysis is the 2017
    paper's moments accountant exactly (its script ``analysis.py`` computes the same
    quantities with ``--moments=8``), unless the basic-composition cap is smaller.

    References
    ----------
    .. [1] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
       "Semi-supervised Knowledge Transfer for Deep Learning from Private Training Data",
       ICLR 2017. arXiv:1610.05755.
    .. [2] N. Papernot, S. Song, I. Mironov, A. Raghunathan, K. Talwar and U. Erlingsson,
       "Scalable Private Learning with PATE", ICLR 2018. arXiv:1802.08908.
    .. [3] I. Mironov, "Renyi Differential Privacy", CSF 2017. arXiv:1702.07476.
    .. [4] C. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for Differential
       Privacy", NeurIPS 2020. arXiv:2004.00010.
    .. [5] V. Feldman and T. Zrnic, "Individual Privacy Accounting via a Renyi Filter",
       NeurIPS 2021. arXiv:2008.11193.

    Examples
    --------
    The 2017 setting: 100 queries to 250 teachers, about 90% of whom agree; Laplace scale
    20 (gamma = 0.05), delta = 1e-5, the moments l = 1, ..., 8 and continuous noise, as in
    the paper:

    >>> import numpy as np
    >>> from skprivate.accounting import pate_epsilon
    >>> votes = np.random.default_rng(0).multinomial(250, [0.9] + [0.1 / 9] * 9, size=100)
    >>> cost = pate_epsilon(votes, mechanism="laplace", noise_scale=20, delta=1e-5,
    ...                     orders=range(2, 10), conversion="classic", noise="continuous")
    >>> round(cost.epsilon_data_dependent, 4), round(cost.epsilon_data_independent, 4)
    (1.4513, 5.3026)

    The discrete Laplace noise that :class:`~skprivate.PATEClassifier` draws costs the same
    data-independently and a little more data-dependently:

    >>> cost = pate_epsilon(votes, mechanism="laplace", noise_scale=20, delta=1e-5,
    ...                     orders=range(2, 10), conversion="classic")
    >>> round(cost.epsilon_data_dependent, 4), round(cost.epsilon_data_independent, 4)
    (1.4516, 5.3026)

    GNMax with sigma = 40 on the same votes, default orders and conversion:

    >>> cost = pate_epsilon(votes, mechanism="gaussian", noise_scale=40, delta=1e-5)
    >>> round(cost.epsilon_data_dependent, 3), round(cost.epsilon_data_independent, 3)
    (0.34, 1.356)

    The data-independent 1.356 is the exact composition of the 100 discrete Gaussian
    answers (privacy-loss distributions); the papers' RDP bound gives more:

    >>> rdp = pate_epsilon(votes, mechanism="gaussian", noise_scale=40, delta=1e-5,
    ...                    accounting="rdp")
    >>> round(rdp.epsilon_data_independent, 3)
    1.478
    """
    values = _check_votes(votes)
    _check_threshold(mechanism, threshold, threshold_noise_scale)
    if noise == "discrete":
        _check_discrete_noise(mechanism, noise_scale, threshold_noise_scale)
    n_queries = values.shape[0]
    mask = _check_answered(answered, n_queries, threshold)
    lambdas = _check_orders(orders)
    scale = float(noise_scale)
    n_answered = int(mask.sum())

    # Data-independent: one constant curve per step, times the number of times it is paid.
    if mechanism == "laplace":
        pure_eps = 2.0 / scale
        per_answer = np.minimum(0.5 * pure_eps**2 * lambdas, pure_eps)
    else:
        per_answer = lambdas / scale**2
    independent = n_answered * per_answer
    if threshold is not None:
        sigma1 = float(threshold_noise_scale)
        independent = independent + n_queries * lambdas / (2 * sigma1**2)
    eps_ind, order_ind = _to_epsilon(lambdas, independent, delta, conversion)
    how = "rdp"
    if mechanism == "laplace" and n_answered * pure_eps < eps_ind:
        # Basic composition of the pure (2/b)-DP guarantee (Dwork and Roth 2014, Theorem
        # 3.16): n (2/b), even with delta = 0. RDP only approaches it as the order grows, so
        # it is tighter where one query already costs epsilon = 2/b at moderate orders.
        eps_ind, order_ind, how = n_answered * pure_eps, math.inf, "basic"
    if mechanism == "gaussian" and accounting == "pld" and 0 < eps_ind <= _PLD_MAX_EPSILON:
        # Exact composition (module docstring): GDP in closed form for continuous noise,
        # the PLD of the discrete Gaussian actually drawn otherwise.
        sigma1 = None if threshold is None else float(threshold_noise_scale)
        if noise == "continuous":
            mu2 = 2 * n_answered / scale**2 + (0 if sigma1 is None else n_queries / sigma1**2)
            exact = gdp_epsilon(math.sqrt(mu2), delta)
        else:
            # At the parameters the exact sampler actually uses (rounded up to rationals),
            # so the bound is that of the noise drawn, without a monotonicity argument.
            exact = _pld_epsilon(
                _effective_scale("gaussian", scale, noise), n_answered,
                None if sigma1 is None else _effective_scale("gaussian", sigma1, noise),
                n_queries, delta,
            )
        if exact < eps_ind:
            eps_ind, how = exact, "pld"

    dependent = eps_dep = None
    order = order_ind
    if data_dependent:
        weights = mask.astype(np.float64)
        if mechanism == "laplace":
            logq = _logq_laplace(values, scale, noise)
            dependent = _summed(_rdp_theorem3, logq, weights, pure_eps, lambdas)
        else:
            logq = _logq_gaussian(values, scale, noise)
            dependent = _summed(_rdp_theorem6, logq, weights, scale, lambdas)
        if threshold is not None:
            # The selection step releases whether max count + N(0, sigma_1^2) >= threshold.
            logq_step = _logq_threshold(values.max(axis=1), float(threshold), sigma1, noise)
            every = np.ones(n_queries)
            dependent = dependent + _summed(
                _rdp_theorem6, logq_step, every, math.sqrt(2) * sigma1, lambdas
            )
        dependent = np.broadcast_to(np.asarray(dependent, dtype=np.float64), lambdas.shape)
        dependent = np.minimum(dependent, independent)  # per order: never above the guarantee
        eps_dep, order = _to_epsilon(lambdas, dependent, delta, conversion)
        if eps_ind < eps_dep:  # a worst-case bound also holds for these votes
            eps_dep, order = eps_ind, order_ind

    for array in (lambdas, independent, dependent):
        if array is not None:
            array.setflags(write=False)
    return PATEPrivacy(
        epsilon=eps_dep if data_dependent else eps_ind,
        epsilon_data_independent=eps_ind,
        epsilon_data_dependent=eps_dep,
        order=order,
        order_data_independent=order_ind,
        delta=float(delta),
        n_queries=int(n_queries),
        n_answered=n_answered,
        orders=lambdas,
        rdp_data_independent=independent,
        rdp_data_dependent=dependent,
        conversion=conversion,
        accounting_data_independent=how,
    )
