"""Choosing PATE's noise, number of queries and number of teachers from public numbers.

Everything here is a function of public quantities only: the target ``(epsilon, delta)``,
the number of private rows ``n`` (the noisy count the fit released first, or the exact
number with ``n_samples_public=True``; see :mod:`skprivate._row_count`), the number of
teachers, of public points and of classes, and the user's explicit settings.
No private value is read, so the choices cost no privacy and an infeasible request is
known, and refused, before any teacher is trained.

The rule (derived here, measured in ``benchmarks/pate_adult.py`` and
``benchmarks/pate_small.py``):

- ``k`` GNMax answers at noise ``sigma`` are, for continuous noise, exactly the Gaussian
  mechanism composed ``k`` times on a histogram of l2 sensitivity ``sqrt(2)``: ``mu``-GDP
  with ``mu = sqrt(2 k) / sigma`` (Dong, Roth and Su 2022), whose epsilon is a function of
  ``k / sigma^2`` only (the papers' RDP bound, ``RDP(lambda) = k lambda / sigma^2``, 2018
  Proposition 8, is too). A target ``(epsilon, delta)`` therefore fixes the load ``L = k /
  sigma^2``: more queries cost exactly as much as proportionally more noise variance. The
  epsilon computed and reported is the exact composition of the discrete Gaussian actually
  drawn (privacy-loss distributions, :func:`skprivate.accounting.pate_epsilon` with
  ``accounting="pld"``), or the RDP bound where that is smaller; the search uses the
  closed form as a fast stand-in (:func:`_search_epsilon`) and the chosen plan is checked
  with the exact accountant. At epsilon 2 and delta 1e-5 the exact composition affords
  about 16% more answers than the RDP bound at the same noise (1,257 against 1,081 at
  ``sigma = 100``).
- The vote margin of an ensemble scales with the number of teachers ``T``: if a fraction
  ``a`` of the teachers agree, the gap between the top two counts is about ``(2a - 1) T``.
  A query is answered correctly with probability about ``Phi((2a - 1) T / (sqrt(2) sigma))``,
  a function of ``sigma / T`` only. So the noise is set relative to ``T``: ``sigma = s T``.
- At ``s = _NOISE_PER_TEACHER = 0.4`` a unanimous vote (gap ``T``) is answered correctly
  with probability ``Phi(1 / (sqrt(2) 0.4)) = 0.96`` and a three-quarter majority (gap
  ``T/2``) with 0.81. Measured on cached teacher votes (forest teachers, three noise draws
  each): on Adult with 250 teachers at epsilon 0.5 the student reached 0.818 at
  ``s = 0.4`` against 0.786 at 0.25 and 0.785 at 0.6; on 3,000 Adult rows (75 teachers) at
  epsilon 2, 0.800 at ``s = 0.5`` against 0.781 at 0.29 and 0.765 at 0.91. The calibration
  asks as many queries as the load allows at that noise (``k = L (s T)^2``), up to the
  number of public points; when that cap binds it lowers the noise instead
  (``sigma = sqrt(k / L)``), which only makes answers more accurate.
- When the load buys fewer than ``_ANSWERS_WANTED = 30`` answers (small ``T``, small
  epsilon), the noise is raised up to ``_MAX_NOISE_PER_TEACHER * T = T`` to buy 30: with
  two classes, a handful of accurate answers may name a single class (1,000 Adult rows at
  ``sigma = 0.25 T``: 17 answers, one class, 1 and 3 of 5 seeds failed in two runs; at
  the rule's 0.4 T, 44 answers, none failed in 20 noise draws). On breast cancer (28
  teachers, epsilon 2, 20 noise draws over 5 seeds) the choice hardly matters: 16 answers
  at 0.40 T gave 0.874, 20 at 0.45 T 0.893, 30 at 0.55 T (the rule) 0.871 to 0.890 (the
  same plan in four variants), 50 at 0.71 T 0.860. If even ``T`` buys fewer than
  ``max(_MIN_ANSWERS, _MIN_ANSWERS_PER_CLASS * C)`` answers (10; 20 for ten classes), the
  request is infeasible. These three numbers are policy constants chosen on the data sets
  of ``benchmarks/pate_small.py``, not derived.
- More than two classes (``C``): a query goes wrong when any of the ``C - 1`` other noisy
  counts overtakes the top one, so both the rule's noise and the ceiling to which it is
  raised are lowered (:func:`relative_noise`) until, by the union bound, a unanimous vote
  errs as rarely as with two classes: for ten classes ``0.4 T`` becomes ``0.27 T`` and
  ``T`` becomes ``0.37 T`` (only to reach the minimum is the noise raised further, up to
  ``T``). The number of answers wanted is 30 whatever ``C`` (not 15 per class): on digits
  (49 teachers, ten classes, epsilon 2, 15 to 20 noise draws over 5 seeds), 150 answers
  at 0.71 T (15 per class, the rule before) gave students of 0.32, 48 at 0.40 T 0.39, 40
  at 0.37 T 0.43, 30 at 0.32 T (this rule) 0.45 (0.483 in ``benchmarks/pate_small.py``)
  and 21 at 0.27 T 0.48; at epsilon 4, 74 answers at 0.27 T 0.63 against 137 at 0.37 T
  0.57. Fewer, more accurate answers did better throughout on ten classes; 30 is kept as
  the floor of the two-class case.
- LNMax uses the same rule with the Laplace scale ``b = sigma / sqrt(2)`` (equal variance).
  Confident-GNMax sets its threshold noise to ``_THRESHOLD_NOISE_RATIO`` times ``sigma`` and
  its threshold to ``_THRESHOLD_PER_TEACHER * T`` (the 2018 paper's MNIST ratios, 150/40 and
  200/250), and counts every query as answered, as the data-independent bound must.

Every solve keeps only points whose epsilon was computed and found within the target (an
integer bisection on the number of queries, a geometric one on the noise, both by
``skprivate.accounting._calibrate.solve_monotone``), so the plan never overshoots ``epsilon``.
"""

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from ..accounting._pate import _to_epsilon, gdp_epsilon, pate_epsilon
from ..accounting._pate_smooth import _default_sanitization, gnss_rdp
from ..accounting._calibrate import NoFeasiblePointError, solve_monotone
from ..accounting._sgm import _MAX_NOISE as _MAX_NOISE_SCALE
from ..accounting._sgm import _MIN_NOISE
from ..exceptions import InfeasiblePrivacyError

__all__ = []

MECHANISM = {"lnmax": "laplace", "gnmax": "gaussian", "confident_gnmax": "gaussian"}

# Relative noise sigma / T of the calibration (see the module docstring), and the largest
# relative noise worth paying for more answers; both for two classes, lowered for more
# (relative_noise).
_NOISE_PER_TEACHER = 0.4
_MAX_NOISE_PER_TEACHER = 1.0
# The answers the noise is raised to buy (15 per class of a two-class problem, whatever the
# number of classes), and the fewest a fit may ask: 10, and 2 per class with more classes.
# Policy constants chosen on data sets (benchmarks/pate_small.py; see the module docstring).
_ANSWERS_WANTED = 30
_MIN_ANSWERS = 10
_MIN_ANSWERS_PER_CLASS = 2
# n_teachers="auto": _TEACHERS_PER_SQRT_ROW * sqrt(n) teachers, 2 to _MAX_AUTO_TEACHERS.
_TEACHERS_PER_SQRT_ROW = 1.5
_MAX_AUTO_TEACHERS = 250
# Confident-GNMax, the 2018 paper's MNIST setting (250 teachers: T = 200, sigma_1 = 150,
# sigma_2 = 40) as ratios.
_THRESHOLD_PER_TEACHER = 200.0 / 250
_THRESHOLD_NOISE_RATIO = 150.0 / 40
# epsilon=None with n_queries=None: the number of queries when no budget limits it.
_QUERIES_WITHOUT_BUDGET = 500


def relative_noise(binary, n_classes):
    """The relative noise ``sigma / T`` for ``n_classes`` classes, from the binary one.

    With ``C`` classes a query goes wrong when any of the ``C - 1`` other noisy counts
    overtakes the top one. By the union bound a unanimous vote is then answered wrongly with
    probability at most ``(C - 1) Phi(-1 / (sqrt(2) s))``; this returns the ``s`` at which
    that equals the two-class probability ``Phi(-1 / (sqrt(2) binary))``, so a unanimous
    vote is as safe with ``C`` classes as with two. ``binary`` itself for two classes (or
    an unknown number); for ten, ``0.4`` becomes ``0.27`` and ``1.0`` becomes ``0.37``.
    """
    c = max(int(n_classes or 2), 2)
    if c == 2:
        return float(binary)
    z = norm.isf(norm.sf(1.0 / (math.sqrt(2.0) * binary)) / (c - 1))
    return float(1.0 / (math.sqrt(2.0) * z))


@dataclass(frozen=True)
class QueryPlan:
    """The public choices of one fit, and their data-independent epsilon."""

    n_teachers: int
    n_queries: int
    noise_scale: float
    threshold: float | None
    threshold_noise_scale: float | None
    epsilon: float
    calibrated: str  # what was chosen by the calibration, for the privacy report


def auto_n_teachers(n_private):
    """``n_teachers="auto"``: ``1.5 sqrt(n)`` teachers, between 2 and 250.

    More teachers give larger vote margins (the margin grows with ``T`` while the noise a
    budget requires does not), as long as each teacher still learns: both ``T`` and the
    rows per teacher (``sqrt(n) / 1.5``) grow with ``n``. Measured with forest teachers
    (``benchmarks/pate_small.py``): on breast cancer (341 private rows) 34 teachers of 10
    rows did better than 68 of 5; on 3,000 Adult rows 75 teachers of 40 rows matched 30
    of 100, while 250 of 12 voted the majority class only; on all of Adult (32,561 rows)
    the cap of 250 is the papers' setting.
    """
    n = max(int(n_private), 0)
    return int(np.clip(round(_TEACHERS_PER_SQRT_ROW * math.sqrt(n)), 2, _MAX_AUTO_TEACHERS))


@functools.lru_cache(maxsize=256)
def sanitization(n_queries, n_teachers, mechanism, scale, delta, threshold, sigma1):
    """(order, beta, sigma_s) of the sanitised data-dependent epsilon: public choices."""
    return _default_sanitization(
        n_queries, n_teachers, mechanism, scale, delta, threshold, sigma1
    )


def plan_epsilon(n_queries, aggregator, scale, threshold, sigma1, delta, n_teachers, release,
                 accounting="pld"):
    """Data-independent epsilon of ``n_queries`` answers (and of the sanitised release).

    Every asked query is counted as answered, so the bound holds whatever the votes. With
    ``release``, the sanitised epsilon's release (GNSS, ``gnss_rdp``) is composed in RDP.
    Without it, GNMax and Confident-GNMax are composed exactly (``accounting="pld"``, the
    privacy-loss distribution of the discrete Gaussian; see
    :mod:`skprivate.accounting._pate`), which is what ``epsilon_`` reports.
    """
    if n_queries == 0:
        return 0.0
    mechanism = MECHANISM[aggregator]
    placeholder = np.zeros((int(n_queries), 2), dtype=np.int64)
    cost = pate_epsilon(
        placeholder, mechanism=mechanism, noise_scale=scale, delta=delta,
        data_dependent=False, threshold=threshold, threshold_noise_scale=sigma1,
        accounting=accounting,
    )
    if not release:
        return float(cost.epsilon_data_independent)
    _, beta, sigma_s = sanitization(
        int(n_queries), int(n_teachers), mechanism, float(scale), float(delta), threshold,
        sigma1,
    )
    release_rdp = gnss_rdp(cost.orders, beta, sigma_s)
    epsilon, _ = _to_epsilon(
        cost.orders, cost.rdp_data_independent + release_rdp, delta, "improved"
    )
    if mechanism == "laplace":
        # LNMax is pure (2/b)-DP per query: basic composition plus the release's own
        # (epsilon, delta) (Dwork and Roth 2014, Theorem 3.16), when that is smaller.
        alone, _ = _to_epsilon(cost.orders, release_rdp, delta, "improved")
        epsilon = min(epsilon, n_queries * 2.0 / scale + alone)
    return float(epsilon)


def _search_epsilon(n_queries, aggregator, scale, threshold, sigma1, delta, n_teachers,
                    release):
    """A fast stand-in for :func:`plan_epsilon` while the calibration searches.

    The PLD accountant takes tens of milliseconds per call; a search makes dozens. For the
    Gaussian aggregators without the sanitised release, the search uses the smaller of the
    RDP bound and the closed-form Gaussian DP epsilon of the continuous noise, ``mu =
    sqrt(2 k / sigma^2 + k / sigma_1^2)`` (Dong, Roth and Su 2022), raised by 0.1% (the
    discrete noise's PLD agrees with it to about 1e-5 relative at the noise levels the
    calibration reaches). :func:`calibrate` then computes the chosen plan's epsilon with
    :func:`plan_epsilon` and, should it exceed the target, searches again with it: the
    stand-in only guides the search, the guarantee is always the exact accountant's.
    """
    rdp_only = plan_epsilon(n_queries, aggregator, scale, threshold, sigma1, delta,
                            n_teachers, release, accounting="rdp")
    if release or MECHANISM[aggregator] != "gaussian" or n_queries == 0:
        return rdp_only
    mu2 = 2.0 * n_queries / float(scale) ** 2
    if sigma1 is not None:
        mu2 += n_queries / float(sigma1) ** 2
    return min(rdp_only, 1.001 * gdp_epsilon(math.sqrt(mu2), delta))


class _Overshoot(Exception):
    """The stand-in of the search chose a plan whose exact epsilon exceeds the target."""


def affordable_queries(cost, epsilon, k_max):
    """Largest ``k <= k_max`` with ``cost(k) <= epsilon`` (0 if none); never overshoots.

    ``cost`` is non-decreasing in ``k``; only a ``k`` whose cost was computed and found
    within ``epsilon`` is returned (``cost(0) = 0``). Integer bisection by
    :func:`skprivate.accounting._calibrate.solve_monotone`, the package's one calibration
    solver, starting from ``k_max``.
    """
    if k_max <= 0:
        return 0
    return int(solve_monotone(
        cost, epsilon, increasing=True, lower=0, upper=int(k_max), start=int(k_max),
        known={0: 0.0}, scale="linear", integer=True,
    ))


def smallest_noise(cost, epsilon, start):
    """Smallest noise (to 0.2% in epsilon) with ``cost(noise) <= epsilon``; None if > 1e5.

    ``cost`` decreases with the noise. The search (doubling or halving from ``start``, then
    geometric bisection, :func:`skprivate.accounting._calibrate.solve_monotone`, the
    package's one calibration solver) returns only a noise whose cost was computed and
    found within ``epsilon``.
    """
    try:
        return float(solve_monotone(
            cost, epsilon, increasing=False, lower=_MIN_NOISE, upper=_MAX_NOISE_SCALE,
            start=start, rtol=0.002, xtol=1e-10,
        ))
    except NoFeasiblePointError:
        return None


def calibrate(**kwargs):
    """The fit's :class:`QueryPlan`, from public numbers only; raises if infeasible.

    Searches with the fast stand-in :func:`_search_epsilon`, then checks the plan with the
    exact accountant (:func:`plan_epsilon`); in the rare case the plan overshoots the
    target, searches again with the exact accountant. Keyword arguments as
    :func:`_calibrate`.
    """
    try:
        return _calibrate(**kwargs, fast=True)
    except _Overshoot:
        return _calibrate(**kwargs, fast=False)


def _calibrate(
    *, epsilon, delta, aggregator, n_teachers, n_public, n_classes, noise_scale, n_queries,
    threshold, threshold_noise_scale, release, name="PATEClassifier", fast=False,
):
    """:func:`calibrate`'s search; ``fast`` searches with :func:`_search_epsilon`.

    ``n_public`` may be None (a plan made before the public points are known, as the
    private searches do): the number of queries is then ``n_queries`` or, without a
    budget, ``_QUERIES_WITHOUT_BUDGET``; with a budget the plan's epsilon is ``epsilon``
    itself, an upper bound of any fit's.
    """
    T = int(n_teachers)
    mechanism = MECHANISM[aggregator]
    unit = T / math.sqrt(2) if mechanism == "laplace" else float(T)
    # The relative noise of the rule, lowered for more than two classes (relative_noise).
    target = relative_noise(_NOISE_PER_TEACHER, n_classes) * unit
    loudest = relative_noise(_MAX_NOISE_PER_TEACHER, n_classes) * unit
    confident = aggregator == "confident_gnmax"

    def sigma1_of(scale):
        if not confident:
            return None
        if threshold_noise_scale is not None:
            return float(threshold_noise_scale)
        return _THRESHOLD_NOISE_RATIO * scale

    thr = None
    if confident:
        thr = float(threshold) if threshold is not None else _THRESHOLD_PER_TEACHER * T

    def exact(k, scale):
        return plan_epsilon(k, aggregator, scale, thr, sigma1_of(scale), delta, T, release)

    def cost(k, scale):
        if not fast:
            return exact(k, scale)
        return _search_epsilon(k, aggregator, scale, thr, sigma1_of(scale), delta, T, release)

    def plan(k, scale, calibrated):
        scale = float(scale)
        eps = exact(k, scale)
        if fast and epsilon is not None and eps > float(epsilon):
            raise _Overshoot
        return QueryPlan(T, int(k), scale, thr, sigma1_of(scale), eps, calibrated)

    if n_public is None:
        k_cap = n_queries if n_queries is not None else _QUERIES_WITHOUT_BUDGET
    else:
        k_cap = int(n_public) if n_queries is None else min(int(n_queries), int(n_public))

    if epsilon is None:
        scale = noise_scale if noise_scale is not None else target
        k = k_cap if n_queries is not None or n_public is not None else _QUERIES_WITHOUT_BUDGET
        if n_queries is None:
            k = min(k, _QUERIES_WITHOUT_BUDGET)
        return plan(k, scale, "nothing (no epsilon)" if noise_scale is None else "nothing")

    epsilon = float(epsilon)
    k_need = max(_MIN_ANSWERS, _MIN_ANSWERS_PER_CLASS * max(int(n_classes or 2), 2))
    release_hint = (
        " With release_data_dependent=True, publishing epsilon_sanitized_ takes part of the "
        "budget; turn it off to leave all of it to the answers." if release else ""
    )

    if noise_scale is not None:
        scale = float(noise_scale)
        k = affordable_queries(lambda j: cost(j, scale), epsilon, k_cap)
        if k < 1:
            raise InfeasiblePrivacyError(
                f"{name}: epsilon={epsilon:g} (delta={delta:g}) affords no query at "
                f"noise_scale={scale:g} with {T} teachers (one query costs "
                f"epsilon={cost(1, scale):.3g}). Raise epsilon or noise_scale, or leave "
                "noise_scale=None to let the estimator choose it from epsilon." + release_hint
            )
        return plan(k, scale, "n_queries" if n_queries is None or k < k_cap else "nothing")

    if n_queries is not None:
        scale = smallest_noise(lambda s: cost(k_cap, s), epsilon, target)
        if scale is None:
            raise InfeasiblePrivacyError(
                f"{name}: epsilon={epsilon:g} cannot pay for n_queries={k_cap} at any noise "
                "the exact samplers take. Ask fewer queries (n_queries) or raise epsilon."
            )
        return plan(k_cap, scale, "noise_scale")

    # Both chosen here: the rule of the module docstring.
    k = affordable_queries(lambda j: cost(j, target), epsilon, k_cap)
    if k == k_cap:
        # Every public point is affordable: spend the rest of the budget on less noise.
        scale = smallest_noise(lambda s: cost(k_cap, s), epsilon, target)
        return plan(k_cap, min(scale, target), "noise_scale and n_queries")
    k_want = min(k_cap, max(_ANSWERS_WANTED, k_need))
    if k >= k_want:
        return plan(k, target, "noise_scale and n_queries")
    scale = smallest_noise(lambda s: cost(k_want, s), epsilon, target)
    if scale is not None and scale <= loudest:
        return plan(k_want, scale, "noise_scale and n_queries")
    k = affordable_queries(lambda j: cost(j, loudest), epsilon, k_want)
    k_min = min(k_need, k_cap)
    if k >= k_min:
        return plan(k, loudest, "noise_scale and n_queries")
    # Below the minimum even there (more than two classes): buy the minimum at a noise up
    # to the two-class ceiling, sigma = T.
    ceiling = _MAX_NOISE_PER_TEACHER * unit
    scale = smallest_noise(lambda s: cost(k_min, s), epsilon, loudest)
    if scale is not None and scale <= ceiling:
        return plan(k_min, scale, "noise_scale and n_queries")
    k = affordable_queries(lambda j: cost(j, ceiling), epsilon, k_min)
    answers = "answer" if k == 1 else "answers"
    raise InfeasiblePrivacyError(
        f"{name}: epsilon={epsilon:g} (delta={delta:g}) affords at most {k} {answers} "
        f"with {T} teachers, even at noise_scale={ceiling:.3g} (as large as the number "
        f"of teachers, where the noise drowns the votes); a student of {n_classes or 2} "
        f"classes needs at least {k_need}. Raise epsilon, or give more private rows or "
        "teachers (more teachers make the votes stand out from the noise; "
        "n_teachers='auto' uses 1.5 sqrt(n_private)), or set noise_scale and n_queries "
        "yourself." + release_hint
    )
