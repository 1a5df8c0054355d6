"""Publishing PATE's data-dependent epsilon privately: smooth sensitivity and GNSS.

PATE's data-dependent bound (``pate_epsilon(..., data_dependent=True)``) is a function of the
private votes, so the number itself leaks. Papernot et al. (2018), Section 4 and Appendix C,
release it through the Gaussian noise with smooth sensitivity (GNSS) mechanism:
``F(D) = f(D) + S_beta(D) * sigma_s * N(0, 1)``, where ``f(D)`` is the data-dependent RDP of
the answers at one Renyi order ``lambda`` and ``S_beta`` a beta-smooth upper bound on the
local sensitivity of ``f`` (Nissim, Raskhodnikova and Smith 2007, Definition 2.1).

The guarantee of the release, restated here with the pieces this module implements:

GNSS. If ``S`` is a beta-smooth upper bound on the local sensitivity of ``f``
    (``S(D) >= LS_f(D)`` and ``S(D) <= e^beta S(D')`` for neighbours), ``F`` is RDP with
    the curve of :func:`gnss_rdp`, derived there from the Renyi divergence of two
    Gaussians (a closed form in circulation for GNSS under-states it near its largest
    order, see that function); the test suite checks it against the exact divergence,
    maximised numerically.

The smooth bound (our construction, sound by the argument below; 2018 Appendix C does the
    same with tighter per-neighbour differences). One private row changes one teacher, so
    ``k`` changed rows move the vote histogram of every query by at most ``k`` teacher
    votes: each gap ``g_j = n_j* - n_j`` moves by at most ``2k`` and the largest count by at
    most ``k``. Write ``f = sum_i f_i`` over queries.

    - Answer step (LNMax or GNMax, answered queries): ``f_i = R(q_i)`` where ``q_i`` is the
      bound on Pr[answer != plurality] from the gaps (2017 Lemma 4, 2018 Proposition 7) and
      ``R`` is the per-query RDP of 2017 Theorem 3 / 2018 Theorem 6 (capped by the
      data-independent value) made monotone: ``q`` is first rounded *up* to a fixed grid
      (``log(-log q)`` in steps of ``_GRID_STEP``) and ``R`` is the running maximum of the
      bound over the grid points of smaller ``q``. Rounding ``q`` up and taking the maximum
      over smaller ``q`` both give values the theorems allow for a larger ``q``, so ``f``
      is still a valid data-dependent bound (slightly above the one of
      ``pate_epsilon``), and it is non-decreasing in ``q``, which the argument needs
      (the authors' code checks monotonicity numerically instead). At distance ``k``,
      ``q`` lies between the value at gaps ``min(g + 2k, n)`` and at ``g - 2k`` (a
      histogram whose plurality changed has its gaps dominated, up to a relabelling, by
      ``g + 2k``); where some ``g_j - 2k <= 0`` the plurality may change and the upper
      value is the data-independent cap.
    - Threshold step (Confident-GNMax, every query): ``f_i = h(n_max)``, 2018 Theorem 6 on
      the two outcomes; at distance ``k`` it lies between the minimum and the maximum of
      ``h`` over ``[n_max - k, n_max + k]``, computed exactly over the integers.

    With ``[lo_i(k), hi_i(k)]`` those intervals, every histogram at distance ``<= k`` has
    local sensitivity at most ``A(k) = sum_i max(hi_i(k+1) - lo_i(k), hi_i(k) - lo_i(k+1))``,
    and ``S(D) = max_k e^{-beta k} A(k)`` (with ``A(k) <= sum_i`` data-independent values
    for ``k`` beyond the number of teachers, where every histogram is reachable). ``A``
    computed at a neighbour is at most ``A(k + 1)`` here (its intervals are inside ours
    one step further), so ``S`` is beta-smooth.

The release is drawn on a power-of-two grid with exact integer noise (``_rounded_gnss``:
GNSS on the rounded statistic, with the smooth bound raised by one grid step, then rounded;
a post-processing of GNSS with the same cost). The released number adds the GNSS cost at
the same order and converts to ``(epsilon,
delta)`` at that one order. The order, beta and sigma_s must not depend on the private data;
:func:`_default_sanitization` chooses them from public quantities only.
"""

import math
from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral, Real

import numpy as np
from dp_accounting import rdp as dp_rdp
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from ._pate import (
    _check_answered,
    _check_threshold,
    _check_votes,
    _logq_gaussian_gaps,
    _logq_laplace_gaps,
    _logq_threshold,
    _rdp_theorem3,
    _rdp_theorem6,
    pate_epsilon,
)
from ._sgm import _quiet_dp_accounting

__all__ = ["PATESanitized", "gnss_rdp", "pate_sanitized_epsilon"]

_GRID_STEP = 1e-3  # grid of u = log(-log q) on which the answer step's bound is made monotone
_GRID_LOW = -30.0  # u below this is q > 1 - 1e-13: the data-independent value anyway
_CELLS = 1 << 22  # entries per block of the (centres x grid) arrays of _window_extremes


def gnss_rdp(orders, beta, sigma):
    """RDP of the Gaussian noise with smooth sensitivity (GNSS) mechanism.

    ``F(D) = f(D) + S(D) * sigma * N(0, 1)`` with ``S`` a beta-smooth upper bound on the
    local sensitivity of ``f`` (Papernot et al. 2018, Section 4.2 and Appendix C).

    Parameters
    ----------
    orders : array-like of float > 1
        Renyi orders ``alpha``.
    beta : float > 0
        Smoothness of the sensitivity bound.
    sigma : float > 0
        Noise multiplier ``sigma_s`` of the smooth sensitivity.

    Returns
    -------
    rdp : ndarray
        An upper bound on ``D_alpha(F(D) || F(D'))`` over neighbours, ``inf`` where no
        finite bound exists (``e^{2 beta} >= alpha / (alpha - 1)``).

    Notes
    -----
    Derived here from the Renyi divergence of two Gaussians (Gil, Alajaji and Linder
    2013): in units of ``sigma S(D')``, ``F(D)`` and ``F(D')`` are ``N(mu, s^2)`` and
    ``N(0, 1)`` with ``s = S(D) / S(D')`` in ``[e^-beta, e^beta]`` and ``|mu| <= min(s, 1) /
    sigma`` (both ``S`` bound the change of ``f``). With ``m(s) = alpha - (alpha - 1) s^2``,
    ``D_alpha = alpha mu^2 / (2 m(s)) - log m(s) / (2 (alpha - 1)) - log s``. For ``s >= 1``
    the first two terms grow with ``s`` and the last is at most 0; for ``s <= 1`` the first
    is at most ``alpha / (2 sigma^2)``, the second at most 0 and the last at most ``beta``.
    Hence::

        rdp(alpha) = max(alpha / (2 sigma^2 m+) - log(m+) / (2 (alpha - 1)),
                         alpha / (2 sigma^2) + beta),   m+ = alpha - (alpha - 1) e^{2 beta}.

    The test suite checks it against the exact divergence maximised over ``s``. The closed
    form ``alpha e^{2 beta} / sigma^2 + (beta alpha - log(1 - 2 alpha beta) / 2) / (alpha -
    1)``, which we recall from the 2018 paper's analysis code (check it against the paper
    before citing this), is below that exact divergence near ``alpha = 1 / (2 beta)`` (0.90
    against 1.80 at ``alpha = 20``, ``beta = 0.02``, ``sigma = 5``), so it is not used.

    Examples
    --------
    >>> from skprivate.accounting import gnss_rdp
    >>> [round(float(v), 4) for v in gnss_rdp([2, 20, 30], beta=0.02, sigma=5.0)]
    [0.0625, 1.8203, inf]
    """
    alpha = np.atleast_1d(np.asarray(orders, dtype=np.float64))
    out = np.full(alpha.shape, np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        m_plus = alpha - (alpha - 1) * math.exp(2 * beta)
    ok = (alpha > 1) & (m_plus > 0)
    a, m = alpha[ok], m_plus[ok]
    wider = a / (2 * sigma**2 * m) - np.log(m) / (2 * (a - 1))
    narrower = a / (2 * sigma**2) + beta
    out[ok] = np.maximum(wider, narrower)
    return out


@dataclass(frozen=True)
class PATESanitized:
    """A privately released data-dependent PATE epsilon (see :func:`pate_sanitized_epsilon`).

    Attributes
    ----------
    epsilon : float
        The sanitised data-dependent epsilon: the noisy data-dependent RDP of the answers at
        ``order``, plus the cost of releasing it, converted at that order. Safe to publish.
    delta : float
        Its delta.
    order : float
        The Renyi order ``lambda`` of the release (chosen without the private data).
    beta : float
        Smoothness of the sensitivity bound.
    sigma : float
        Noise multiplier of the smooth sensitivity.
    rdp_sanitized : float
        The released noisy data-dependent RDP at ``order`` (clipped to ``[0, rdp_cap]``).
    rdp_cap : float
        The data-independent RDP at ``order``: the noisy value is never above it.
    sanitization_rdp : float
        The RDP of the release itself at ``order`` (:func:`gnss_rdp`).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.accounting import pate_sanitized_epsilon
    >>> votes = np.random.default_rng(0).multinomial(250, [0.9] + [0.1 / 9] * 9, size=100)
    >>> released = pate_sanitized_epsilon(votes, mechanism="gaussian", noise_scale=40,
    ...                                   delta=1e-5, order=8, beta=0.05, sigma=14,
    ...                                   random_state=0)
    >>> round(released.epsilon, 2), released.delta, released.order  # safe to publish
    (1.39, 1e-05, 8.0)
    >>> round(released.rdp_sanitized, 4), released.rdp_cap, round(released.sanitization_rdp, 4)
    (0.0, 0.5, 0.1725)
    """

    epsilon: float
    delta: float
    order: float
    beta: float
    sigma: float
    rdp_sanitized: float
    rdp_cap: float
    sanitization_rdp: float


def _window_extremes(values, centres, reach, n_distances):
    """max of ``values`` over ``[c - reach k, c + reach k]`` for each centre c and k.

    Returns an array (n_centres, n_distances); ``values`` is indexed by the integers
    ``0 .. values.size - 1`` and the window is clipped to that range. Vectorised over the
    centres in blocks: the running maxima outwards from each centre, read at ``reach k``.
    """
    last = values.size - 1
    steps = np.arange(values.size)  # distances from a centre, in grid points
    at = np.minimum(reach * np.arange(n_distances), last)
    out = np.empty((centres.size, n_distances))
    block = max(1, _CELLS // values.size)  # bounds the (centres x grid) arrays
    for start in range(0, centres.size, block):
        c = centres[start : start + block, None]
        left = np.maximum.accumulate(values[np.maximum(c - steps, 0)], axis=1)
        right = np.maximum.accumulate(values[np.minimum(c + steps, last)], axis=1)
        out[start : start + block] = np.maximum(left[:, at], right[:, at])
    return out


def _one_step_change(h, reach):
    """delta(x) = max over |x' - x| <= reach of |h(x') - h(x)|, on the integer grid of h."""
    change = np.zeros(h.size)
    for shift in range(1, reach + 1):
        diff = np.abs(h[shift:] - h[:-shift])
        change[:-shift] = np.maximum(change[:-shift], diff)
        change[shift:] = np.maximum(change[shift:], diff)
    return change


def _answer_terms(votes, mechanism, scale, order, n_teachers, noise):
    """The answer step as a function of each query's plurality margin.

    Returns (h, margins, cap): ``h[g]`` is the per-query RDP at order ``order`` when the
    plurality leads the runner-up by ``g`` votes, from the union bound ``q <= (m - 1)
    term(g)`` (every rival at least ``g`` behind), which is monotone in ``g`` by
    construction of the term; ``margins`` are the queries' margins; ``cap`` the
    data-independent per-query RDP.
    """
    n_classes = votes.shape[1]
    grid = np.arange(n_teachers + 1, dtype=np.float64)[:, None]
    lam = np.array([float(order)])
    if mechanism == "laplace":
        pure = 2.0 / scale
        logq = _logq_laplace_gaps(grid, scale, noise) + math.log(n_classes - 1)
        h = _rdp_theorem3(logq, pure, lam)[:, 0]
        cap = float(min(0.5 * pure**2 * order, pure))
    else:
        logq = _logq_gaussian_gaps(grid, scale, noise) + math.log(n_classes - 1)
        h = _rdp_theorem6(logq, scale, lam)[:, 0]
        cap = float(order / scale**2)
    ordered = np.sort(votes, axis=1)
    margins = (ordered[:, -1] - ordered[:, -2]).astype(np.int64)
    return np.minimum(h, cap), margins, cap


def _threshold_terms(votes, sigma1, threshold, order, n_teachers, noise):
    """The threshold step as a function of each query's largest count (2018 Theorem 6)."""
    counts = np.arange(n_teachers + 1, dtype=np.float64)
    logq = _logq_threshold(counts, threshold, sigma1, noise)
    h = _rdp_theorem6(logq, math.sqrt(2) * sigma1, np.array([float(order)]))[:, 0]
    cap = float(order / (2 * sigma1**2))
    return np.minimum(h, cap), votes.max(axis=1).astype(np.int64), cap


def _profile(h, positions, reach, n_distances):
    """f = sum_i h(x_i) and A(k) = sum_i max over the distance-k window of the one-step change.

    ``reach`` is how far one changed teacher moves ``x`` (2 for a margin, 1 for a count).
    """
    centres, counts = np.unique(positions, return_counts=True)
    value = float(counts @ h[centres])
    change = _one_step_change(h, reach)
    profile = counts @ _window_extremes(change, centres, reach, n_distances)
    return value, profile


def _value_and_sensitivity(
    values, mask, mechanism, noise_scale, order, beta, n, threshold, threshold_noise_scale, noise
):
    """f(D), the beta-smooth sensitivity bound S(D), and the cap of f (see module docstring)."""
    n_distances = n + 1  # beyond n changed teachers every histogram is reachable
    value, profile, cap = 0.0, np.zeros(n_distances), 0.0
    if mask.any():
        h, margins, per_query = _answer_terms(
            values[mask], mechanism, noise_scale, order, n, noise
        )
        value, profile = _profile(h, margins, 2, n_distances)
        cap = per_query * int(mask.sum())
    if threshold is not None:
        sigma1 = float(threshold_noise_scale)
        h, largest, per_query = _threshold_terms(
            values, sigma1, float(threshold), order, n, noise
        )
        step_value, step_profile = _profile(h, largest, 1, n_distances)
        value += step_value
        profile = profile + step_profile
        cap += per_query * values.shape[0]
    decay = np.exp(-beta * np.arange(n_distances))
    # S = max_k e^{-beta k} A(k); for k > n, A(k) <= cap (any histogram is reachable)
    sensitivity = max(float((decay * profile).max()), math.exp(-beta * n_distances) * cap)

    return value, sensitivity, cap


@validate_params(
    {
        "votes": ["array-like"],
        "mechanism": [StrOptions({"laplace", "gaussian"})],
        "noise_scale": [Interval(Real, 0, np.inf, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "order": [Interval(Real, 1, np.inf, closed="neither")],
        "beta": [Interval(Real, 0, np.inf, closed="neither")],
        "sigma": [Interval(Real, 0, np.inf, closed="neither")],
        "n_teachers": [Interval(Integral, 1, None, closed="left"), None],
        "threshold": [Interval(Real, None, None, closed="neither"), None],
        "threshold_noise_scale": [Interval(Real, 0, np.inf, closed="neither"), None],
        "answered": ["array-like", None],
        "random_state": ["random_state", np.random.Generator],
        "noise": [StrOptions({"discrete", "continuous"})],
    },
    prefer_skip_nested_validation=True,
)
def pate_sanitized_epsilon(
    votes,
    *,
    mechanism,
    noise_scale,
    delta,
    order,
    beta,
    sigma,
    n_teachers=None,
    threshold=None,
    threshold_noise_scale=None,
    answered=None,
    random_state=None,
    noise="discrete",
):
    """Release PATE's data-dependent epsilon privately, by smooth sensitivity (GNSS).

    The data-dependent bound of :func:`pate_epsilon` depends on the private votes; this
    function releases a noisy version of it, at one Renyi order, with the Gaussian noise
    with smooth sensitivity mechanism of Papernot et al. (2018, Section 4 and Appendix C),
    and adds the cost of that release.

    Parameters
    ----------
    votes : array-like of shape (n_queries, n_classes)
        Integer vote counts per query, as for :func:`pate_epsilon`; every teacher votes on
        every query (rows sum to ``n_teachers``).
    mechanism : {"laplace", "gaussian"}
        LNMax or GNMax, with ``noise_scale`` its Laplace scale or Gaussian sigma.
    noise_scale : float > 0
        The aggregator's noise.
    delta : float in (0, 1)
        Target delta of the converted epsilon.
    order : float > 1
        The Renyi order at which the data-dependent RDP is released. Must be chosen
        without looking at the votes (a function of public quantities, such as the
        number of queries and teachers); choosing it from the votes is a leak no epsilon
        here covers.
    beta : float > 0
        Smoothness of the sensitivity bound; ``e^{2 beta} < order / (order - 1)`` is
        required (roughly ``order < 1 / (2 beta)``).
    sigma : float > 0
        Noise multiplier ``sigma_s``: the released RDP is ``f + S_beta * sigma_s * N(0, 1)``.
    n_teachers : int, default=None
        The number of teachers; None means the largest row sum of ``votes``.
    threshold, threshold_noise_scale : float, default=None
        Confident-GNMax's threshold step, as for :func:`pate_epsilon`.
    answered : array-like of bool of shape (n_queries,), default=None
        Which queries were answered (None: all).
    random_state : None, int or numpy.random.Generator, default=None
        The noise source; None draws from the operating system. A fixed seed voids the
        privacy of the release against whoever knows it.
    noise : {"discrete", "continuous"}, default="discrete"
        The aggregator's noise, as for :func:`pate_epsilon`. The release itself always
        adds exact integer noise on a power-of-two grid (see Notes).

    Returns
    -------
    result : PATESanitized
        The sanitised epsilon and the parameters of its release.

    See Also
    --------
    pate_epsilon : The data-independent and data-dependent bounds.
    gnss_rdp : The cost of the release.

    Notes
    -----
    Neighbouring data sets differ by one private row, hence by one teacher's votes. The
    module docstring of ``skprivate.accounting._pate_smooth`` gives the smooth-sensitivity
    bound used and why it is beta-smooth. The RDP is released on a power-of-two grid of
    about ``2**-20`` of the cap with exact rounded Gaussian integer noise of scale ``sigma``
    times a smooth bound raised by one grid step (a post-processing of GNSS, so the cost is
    unchanged; no floating-point noise, Mironov 2012), then clipped to ``[0, cap]``, cap
    being the data-independent RDP at ``order`` (post-processing); the cost of the release
    itself, :func:`gnss_rdp` at ``order``, is added before converting to ``(epsilon,
    delta)`` by Canonne, Kamath and Steinke (2020), Proposition 12, at that one order.

    The result is a *noisy estimate* of the data-dependent guarantee of the answers plus
    the cost of publishing it, not a worst-case bound: the noise can make it smaller than
    the true data-dependent value. The worst-case guarantee is the data-independent
    epsilon of :func:`pate_epsilon` composed with :func:`gnss_rdp`.

    References
    ----------
    .. [1] N. Papernot, S. Song, I. Mironov, A. Raghunathan, K. Talwar and U. Erlingsson,
       "Scalable Private Learning with PATE", ICLR 2018. arXiv:1802.08908.
    .. [2] K. Nissim, S. Raskhodnikova and A. Smith, "Smooth Sensitivity and Sampling in
       Private Data Analysis", STOC 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.accounting import pate_epsilon, pate_sanitized_epsilon
    >>> votes = np.random.default_rng(0).multinomial(250, [0.9] + [0.1 / 9] * 9, size=100)
    >>> exact = pate_epsilon(votes, mechanism="gaussian", noise_scale=40, delta=1e-5)
    >>> released = pate_sanitized_epsilon(votes, mechanism="gaussian", noise_scale=40,
    ...                                   delta=1e-5, order=8, beta=0.05, sigma=14,
    ...                                   random_state=0)
    >>> round(exact.epsilon_data_dependent, 2), round(released.epsilon, 2)
    (0.34, 1.39)
    """
    values = _check_votes(votes)
    _check_threshold(mechanism, threshold, threshold_noise_scale)
    mask = _check_answered(answered, values.shape[0], threshold)
    if not np.isfinite(gnss_rdp([order], beta, sigma)[0]):
        raise ValueError(
            f"order={order} and beta={beta} give the GNSS release no finite cost: "
            "e^(2 beta) must be below order / (order - 1), about order * beta < 1/2. Lower "
            f"beta below {0.5 * math.log(order / (order - 1)):.3g}, or the order."
        )
    n = int(values.sum(axis=1).max()) if n_teachers is None else int(n_teachers)
    if values.sum(axis=1).max() > n:
        raise ValueError(
            f"votes has a row with {int(values.sum(axis=1).max())} votes but n_teachers={n}: "
            "each teacher votes once per query. Pass the number of teachers."
        )
    value, sensitivity, cap = _value_and_sensitivity(
        values, mask, mechanism, noise_scale, order, beta, n, threshold,
        threshold_noise_scale, noise,
    )
    from ..mechanisms import check_rng

    noisy = _rounded_gnss(value, sensitivity, sigma, cap, check_rng(random_state))
    cost = float(gnss_rdp([order], beta, sigma)[0])
    with _quiet_dp_accounting():
        epsilon, _ = dp_rdp.compute_epsilon([float(order)], [noisy + cost], float(delta))
    return PATESanitized(
        epsilon=float(epsilon),
        delta=float(delta),
        order=float(order),
        beta=float(beta),
        sigma=float(sigma),
        rdp_sanitized=noisy,
        rdp_cap=float(cap),
        sanitization_rdp=cost,
    )


# The grid of the released RDP: 2**-GRID_BITS of the cap (at most of 1), a public number.
_GRID_BITS = 20


def _sanitization_grid(cap):
    """The grid ``gamma`` of the released RDP: a power of two from the public cap only."""
    scale = min(float(cap), 1.0) if math.isfinite(cap) and cap > 0 else 1.0
    mantissa, exponent = math.frexp(scale * 2.0**-_GRID_BITS)
    return math.ldexp(1.0, exponent - 1)


def _rounded_gnss(value, sensitivity, sigma, cap, rng):
    """GNSS on a power-of-two grid with exact integer noise, clipped to ``[0, cap]``.

    The release is ``gamma * (round(value / gamma) + R)``, ``R = floor(X + 1/2)`` with ``X ~
    N(0, (sigma S' / gamma)**2)`` drawn exactly by
    :func:`~skprivate.mechanisms._rounded.sample_rounded_gaussian`, then clipped to ``[0,
    cap]``: every value is a multiple of ``gamma`` or the public cap, and no floating-point
    noise is ever added to ``value`` (Mironov 2012). ``gamma`` is the largest power of two
    at most ``2**-20 min(cap, 1)`` (public), and

    ``S'(D) = max(S(D) + gamma, c)``, ``c = gamma / sigma``,

    computed exactly in rationals. Why the guarantee of :func:`gnss_rdp` still holds:

    1. The statistic released is ``f~ = gamma round(f / gamma)``. By bound (R) of
       :mod:`skprivate.mechanisms._secure`, ``|f~(D) - f~(D')| <= gamma ceil(|f(D) -
       f(D')| / gamma) < |f(D) - f(D')| + gamma``, so ``S(D) + gamma`` bounds the local
       sensitivity of ``f~`` wherever ``S`` bounds that of ``f``.
    2. ``S(D) + gamma`` is beta-smooth: ``S(D) <= e^beta S(D')`` gives ``S(D) + gamma <=
       e^beta S(D') + gamma <= e^beta (S(D') + gamma)``; and so is the maximum with the
       public constant ``c``: ``max(S(D) + gamma, c) <= max(e^beta (S(D') + gamma), c) <=
       e^beta max(S(D') + gamma, c)``. It is still an upper bound of the local sensitivity.
    3. ``f~ + sigma S'(D) N(0, 1)`` is therefore the GNSS mechanism of Papernot et al.
       (2018, Section 4.2 and Appendix C; the RDP of :func:`gnss_rdp`, which depends on
       beta and sigma only) on ``f~``, and ``gamma (round(f / gamma) + R) = gamma round((f~
       + sigma S' N(0, 1)) / gamma)`` (``f~ / gamma`` is an integer) is a post-processing
       of it (Dwork and Roth 2014, Proposition 2.1), as is the clipping to ``[0, cap]``.

    The cost is that of the continuous release, unchanged; the noise's scale grows by at
    most ``gamma``, a relative ``2**-20`` of the cap. ``c`` keeps the integer noise's
    variance at 1 or more: below a variance of about 1/4 the exact sampler's proposal is
    accepted too rarely to finish (a smooth sensitivity near 0, all teachers agreeing).
    """
    from ..mechanisms._rounded import sample_rounded_gaussian
    from ..mechanisms._secure import _release, _round_to_grid

    if cap == 0:  # no answered query and no threshold: f = 0 and S = 0, public
        return 0.0
    gamma = _sanitization_grid(cap)
    grid, noise_multiplier = Fraction(gamma), Fraction(float(sigma))
    smooth = max(Fraction(float(sensitivity)) + grid, grid / noise_multiplier)
    variance = (noise_multiplier * smooth / grid) ** 2
    noise = sample_rounded_gaussian(variance, 1, rng)
    released = float(_release(_round_to_grid(np.array([value]), gamma), noise, gamma)[0])
    return float(np.clip(released, 0.0, cap))


def _default_sanitization(
    n_queries, n_teachers, mechanism, noise_scale, delta, threshold, threshold_noise_scale
):
    """(order, beta, sigma) for the sanitised epsilon, from public quantities only.

    The order is the one that minimises the data-dependent epsilon of a reference vote
    matrix of the same size in which 90% of the teachers agree on every query (the regime
    where PATE pays), capped at 10: higher orders make the smooth sensitivity decay too
    slowly (beta must stay below 1 / (2 order)). beta = 0.45 / order keeps the GNSS bound
    finite up to about 1.1 times that order; sigma_s = 5 sqrt(order) keeps the release's
    own cost near 0.25 in RDP at that order. Chosen on simulated votes (250 teachers, 500
    queries, 80 to 95% agreement), where the sanitised epsilon came out at 1.5 to 2.2
    against 3.6 (GNMax) to 12.3 (LNMax) data-independently.
    """
    agree = int(math.ceil(0.9 * n_teachers))
    reference = np.tile([agree, n_teachers - agree], (max(int(n_queries), 1), 1))
    cost = pate_epsilon(
        reference,
        mechanism=mechanism,
        noise_scale=noise_scale,
        delta=delta,
        threshold=threshold,
        threshold_noise_scale=threshold_noise_scale,
    )
    order = cost.order if math.isfinite(cost.order) else cost.order_data_independent
    if not math.isfinite(order):
        order = float(cost.orders[np.argmin(cost.rdp_data_dependent)])
    order = float(min(max(order, 2.0), 10.0))
    return order, 0.45 / order, 5.0 * math.sqrt(order)
