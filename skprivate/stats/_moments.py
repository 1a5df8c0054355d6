"""Private sums, counts, means, variances and standard deviations (and their nan-variants).

Mechanisms (pure epsilon-DP under add/remove one row by default, ``delta = 0``):

- a count: exact discrete Laplace noise (the geometric mechanism; Ghosh, Roughgarden and
  Sundararajan 2012; Dwork and Roth 2014, Theorem 3.6), sensitivity 1 per output column;
- a sum of clipped values: the granular Laplace mechanism
  (:func:`~skprivate.mechanisms.granular_laplace_mechanism`, exactly epsilon-DP on its
  grid), on the exact sum of the values rounded to a fixed-point grid
  (:func:`skprivate.stats._common.exact_sums`), with the L1 sensitivity of one row;
- a mean or variance: a noisy count and noisy sums of values centred at the midpoint of the
  bounds, composed by adding epsilons (basic composition, Dwork and Roth 2014, Theorem 3.16),
  then post-processing (Dwork and Roth 2014, Proposition 2.1).

Gaussian option (``delta > 0``). The same parts with discrete Gaussian noise on the counts
and the granular Gaussian mechanism on the sums (exact discrete Gaussian noise on a grid):
each part is ``Delta_2**2 / (2 sigma**2)``-zCDP (Canonne, Kamath and Steinke 2020, Theorem 14;
:mod:`skprivate.mechanisms._secure`), the parts' rhos add up (Bun and Steinke 2016, Lemma 2.3)
to at most ``zcdp_rho(epsilon, delta)``, converted once to ``(epsilon, delta)``
(:mod:`skprivate.accounting._zcdp`). Not the continuous Gaussian's exact curve, which does not
hold for discrete noise. The noise does not depend on the data, so the spend carries
``dp_accounting.ZCDpEvent(rho)`` for Renyi composition in a
:class:`~skprivate.accounting.BudgetAccountant`. With ``k`` output columns the L2
sensitivity grows like ``sqrt(k)`` against ``k`` for L1: Gaussian noise pays off for many
columns.

Why centred sums for the mean. Under add/remove the number of rows is private, so a mean
needs a noisy count as well as a noisy sum; ``mean = m + sum(x_i - m) / n`` with ``m`` the
midpoint of ``[lower, upper]`` has sum sensitivity ``(upper - lower) / 2``, against
``max(|lower|, |upper|)`` for the plain sum (36.5 against 90 for ages in [17, 90]), and the
count's error is multiplied by ``|mean - m|``, not by ``|mean|``. Both noisy parts get half
of epsilon: the sum's error (at most ``h / epsilon_sum`` over ``n``) and the count's (at
most ``h / epsilon_count`` over ``n``, at a mean at either bound) have the same worst case,
with ``h`` the half-range. The variance splits epsilon into thirds between the count, the
centred sum and the centred sum of squares (sensitivity ``h**2``), for the same reason.
"""

import functools
import math
from fractions import Fraction

import numpy as np

from .. import _caveats
from ..accounting._zcdp import gaussian_sigma_for_rho, zcdp_rho
from ..mechanisms import (
    check_rng,
    discrete_gaussian_noise,
    discrete_laplace_noise,
    granular_gaussian_mechanism,
    granular_laplace_mechanism,
)
from ..utils._docstrings import Substitution
from ._common import (
    Rows,
    charge,
    check_accountant,
    check_delta_param,
    check_epsilon,
    exact_sums,
    finish,
    resolve_bounds,
    split_epsilon,
)
from ._docs import STATS_DOCS

__all__ = [
    "count_nonzero",
    "mean",
    "nanmean",
    "nanstd",
    "nansum",
    "nanvar",
    "std",
    "sum",
    "var",
]


class _Noise:
    """The noise of a call's parts: discrete Laplace and granular Laplace (``delta = 0``,
    epsilon split by basic composition), or discrete Gaussian and granular Gaussian
    (``delta > 0``: the budget's zCDP ``rho = zcdp_rho(epsilon, delta)`` split among the
    parts, whose rhos add up, Bun and Steinke 2016, Lemma 2.3; converted to
    ``(epsilon, delta)`` once, Canonne, Kamath and Steinke 2020, Proposition 12). Fixed
    from public numbers before the data are read."""

    def __init__(self, epsilon, delta, weights):
        self.gaussian = delta > 0
        self.event = None
        if self.gaussian:
            from ..utils._compat import zcdp_dp_event

            rho = _budget_rho(epsilon, delta)
            self.parts = split_epsilon(rho, weights)  # rhos, whose exact sum is <= rho
            self.event = zcdp_dp_event(rho)
            self.budget_text = f"rho split {', '.join(f'{p:.4g}' for p in self.parts)} (zCDP)"
        else:
            self.parts = split_epsilon(epsilon, weights)
            self.budget_text = (f"epsilon split {', '.join(f'{p:.4g}' for p in self.parts)} "
                                "(basic composition)")

    def counts(self, part, exact, rng):
        """``exact`` integer counts (one per column, a row adding 1 to each) with noise."""
        k = exact.size
        if self.gaussian:
            # Discrete Gaussian on an integer query of L2 sensitivity sqrt(k): rho-zCDP with
            # rho = k / (2 sigma**2) (Canonne, Kamath and Steinke 2020, Theorem 14).
            sigma = gaussian_sigma_for_rho(_sqrt_up(k), self.parts[part])
            noise = discrete_gaussian_noise(sigma, size=k, random_state=rng)
            return exact + noise, f"discrete Gaussian of sigma {sigma:.4g}"
        # Discrete Laplace of scale k / epsilon on a query of L1 sensitivity k: epsilon-DP
        # (the geometric mechanism, Dwork and Roth 2014, Theorem 3.6).
        scale = Fraction(k) / Fraction(self.parts[part])
        noise = discrete_laplace_noise(scale, size=k, random_state=rng)
        return exact + noise, f"discrete Laplace of scale {float(scale):.4g}"

    def sums(self, part, Y, extremes, present, rng):
        """Noisy exact column sums of ``Y`` and the text of their mechanism."""
        totals, (l1, l2) = exact_sums(Y, extremes, present, norm="both")
        if self.gaussian:
            sigma = gaussian_sigma_for_rho(l2, self.parts[part])
            noisy = granular_gaussian_mechanism(totals, l2, sigma, random_state=rng)
            text = f"granular Gaussian of sigma {sigma:.4g} (L2 sensitivity {l2:.6g})"
        else:
            noisy = granular_laplace_mechanism(totals, l1, self.parts[part], random_state=rng)
            text = f"granular Laplace (L1 sensitivity {l1:.6g})"
        return np.atleast_1d(noisy), text


# The same (epsilon, delta) recurs in a session (a summary at a fixed budget); solving for
# its rho takes ~10 ms, more than the release.
_budget_rho = functools.lru_cache(maxsize=128)(zcdp_rho)


def _sqrt_up(k):
    """A float ``>= sqrt(k)`` (the L2 norm of ``k`` unit changes), never below it."""
    root = math.sqrt(k)
    while Fraction(root) ** 2 < k:
        root = math.nextafter(root, math.inf)
    return root


def _start(name, a, axis, keepdims, epsilon, delta, accountant, nan, weights):
    """Validate, plan the noise, charge the accountant, then (only then) read the values."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta_param(delta)
    check_accountant(accountant)
    rows = Rows(a, axis, keepdims, name)
    noise = _Noise(epsilon, delta, weights)
    charge(accountant, name, epsilon, delta, noise.event)
    if not nan:
        rows.check_no_nan()
    return rows, epsilon, delta, noise


def _sum(name, a, axis, dtype, keepdims, bounds, epsilon, delta, random_state, accountant,
         nan):
    rows, epsilon, delta, noise = _start(name, a, axis, keepdims, epsilon, delta, accountant,
                                         nan, [1])
    lower, upper, caveats = resolve_bounds(bounds, rows)
    rng = check_rng(random_state)
    present = ~np.isnan(rows.X)
    Y = np.clip(rows.X, lower, upper)
    noisy, text = noise.sums(0, Y, np.vstack([lower, upper]), present, rng)
    mechanism = (f"{text} on the sum of values clipped to the bounds (one row's largest "
                 "|value| per output entry)")
    return finish(name, rows.shape_output(noisy, dtype), epsilon, delta, mechanism, caveats,
                  random_state, noise.event)


def _centred_moments(rows, lower, upper, noise, rng, nan, squares):
    """Noisy count, noisy sum of centred values (and of their squares) per column."""
    k = rows.n_outputs
    if nan:  # each column's count of present values: a row adds 1 to each
        counts, count_text = noise.counts(0, (~np.isnan(rows.X)).sum(axis=0), rng)
        count_text += " on each column's count of present values"
    else:  # one count, shared by the columns
        counts, count_text = noise.counts(0, np.array([rows.X.shape[0]]), rng)
        counts = np.full(k, counts[0])
        count_text += " on the row count"
    mid = (lower + upper) / 2.0
    present = ~np.isnan(rows.X)
    Y = np.clip(rows.X, lower, upper) - mid  # monotone in x: extremes at the bounds
    ends = np.vstack([lower - mid, upper - mid])
    s1, text1 = noise.sums(1, Y, ends, present, rng)
    texts = [count_text, text1 + " on the sum of centred values"]
    s2 = None
    if squares:
        # y -> y*y is monotone in |y|, so each square lies in [0, max of the ends' squares].
        with np.errstate(over="ignore"):  # an infinite square is refused by exact_sums
            squares_y, squares_ends = Y * Y, ends * ends
        s2, text2 = noise.sums(2, squares_y, squares_ends, present, rng)
        texts.append(text2 + " on the sum of squared centred values")
    mechanism = "; ".join(texts) + (f"; {noise.budget_text}; values clipped to the bounds "
                                    "and centred at their midpoint")
    return np.maximum(counts, 1), mid, s1, s2, mechanism


def _delta_caveat(delta, noisy_counts):
    """``delta >= 1/n`` protects no one; checked on the released (noisy) count, never on
    the exact one, whose value in the caveat's text would be a release of its own."""
    n = int(np.max(noisy_counts))
    if delta > 0 and delta >= 1.0 / n:
        return [_caveats.delta_protects_no_one(delta, n)]
    return []


def _mean(name, a, axis, dtype, keepdims, bounds, epsilon, delta, random_state, accountant,
          nan):
    rows, epsilon, delta, noise = _start(name, a, axis, keepdims, epsilon, delta, accountant,
                                         nan, [1, 1])
    lower, upper, caveats = resolve_bounds(bounds, rows)
    rng = check_rng(random_state)
    n, mid, s1, _, mechanism = _centred_moments(rows, lower, upper, noise, rng, nan, False)
    caveats += _delta_caveat(delta, n)
    value = np.clip(mid + s1 / n, lower, upper)  # post-processing
    return finish(name, rows.shape_output(value, dtype), epsilon, delta,
                  "mean = midpoint + noisy centred sum / noisy count: " + mechanism,
                  caveats, random_state, noise.event)


def _var(name, a, axis, dtype, keepdims, bounds, epsilon, delta, random_state, accountant,
         nan, root):
    rows, epsilon, delta, noise = _start(name, a, axis, keepdims, epsilon, delta, accountant,
                                         nan, [1, 1, 1])
    lower, upper, caveats = resolve_bounds(bounds, rows)
    rng = check_rng(random_state)
    n, _, s1, s2, mechanism = _centred_moments(rows, lower, upper, noise, rng, nan, True)
    caveats += _delta_caveat(delta, n)
    half = (upper - lower) / 2.0
    centred_mean = np.clip(s1 / n, -half, half)
    # Post-processing: a variance of values in [lower, upper] lies in [0, half**2].
    value = np.clip(s2 / n - centred_mean**2, 0.0, half**2)
    what = "variance = noisy sum of squares / noisy count - (noisy sum / noisy count)**2"
    if root:
        value = np.sqrt(value)
        what = "standard deviation = square root of the private variance; " + what
    return finish(name, rows.shape_output(value, dtype), epsilon, delta,
                  what + ": " + mechanism, caveats, random_state, noise.event)


_MEAN_NOTES = """
    Mechanism: a noisy row count (discrete Laplace) and the granular Laplace mechanism on
    the exact sum of the values clipped to ``bounds`` and centred at their midpoint, half
    of ``epsilon`` each (basic composition); the mean is the midpoint plus the noisy sum
    over the noisy count, clipped to the bounds (post-processing). The number of rows is
    not treated as public. With ``delta > 0`` the count and the sum get discrete and
    granular Gaussian noise instead, half of the budget's zCDP ``rho`` each, converted
    once to ``(epsilon, delta)``."""


@Substitution(**STATS_DOCS)
def sum(a, axis=None, dtype=None, keepdims=False, *, bounds=None, epsilon=1.0,
        delta=0.0, random_state=None, accountant=None):
    """Differentially private sum of values clipped to public bounds.

    Parameters
    ----------
    %(a)s
    %(axis)s
    %(dtype)s
    %(keepdims)s
    %(bounds)s
    %(epsilon)s
    %(delta)s
    %(random_state)s
    %(accountant)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    nansum : The same, leaving NaN out.
    mean : A private mean.

    Notes
    -----
    Each value is clipped to ``bounds``; one row then changes the sums by at most
    ``max(|lower|, |upper|)`` per output entry, added over the entries (L1). The granular
    Laplace mechanism (:func:`~skprivate.mechanisms.granular_laplace_mechanism`) releases
    the exact sums with exact discrete Laplace noise on a power-of-two grid: epsilon-DP.
    With ``delta > 0``, the granular Gaussian mechanism with the L2 sensitivity
    (:func:`~skprivate.mechanisms.granular_gaussian_mechanism`), calibrated in zCDP.
    The number of rows is not used. Raises on NaN (use :func:`nansum`).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import stats
    >>> hours = np.array([20, 40, 40, 45, 60] * 100)
    >>> result = stats.sum(hours, bounds=(0, 100), epsilon=1.0, random_state=0)
    >>> round(float(result))
    20415
    """
    return _sum("sum", a, axis, dtype, keepdims, bounds, epsilon, delta, random_state,
                accountant, False)


@Substitution(**STATS_DOCS)
def nansum(a, axis=None, dtype=None, keepdims=False, *, bounds=None, epsilon=1.0,
           delta=0.0, random_state=None, accountant=None):
    """Differentially private sum, treating NaN as absent (adds nothing).

    Parameters
    ----------
    %(a)s
    %(axis)s
    %(dtype)s
    %(keepdims)s
    %(bounds)s
    %(epsilon)s
    %(delta)s
    %(random_state)s
    %(accountant)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    sum : The same, refusing NaN.

    Notes
    -----
    As :func:`sum`, with missing values adding 0: the sensitivity is unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import stats
    >>> hours = np.array([20, 40, np.nan, 45, 60] * 100)
    >>> round(float(stats.nansum(hours, bounds=(0, 100), epsilon=1.0, random_state=0)))
    16415
    """
    return _sum("nansum", a, axis, dtype, keepdims, bounds, epsilon, delta,
                random_state, accountant, True)


@Substitution(**STATS_DOCS)
def count_nonzero(a, axis=None, *, keepdims=False, epsilon=1.0, random_state=None,
                  accountant=None):
    """Differentially private number of non-zero values.

    Parameters
    ----------
    %(a)s
    %(axis)s
    %(keepdims)s
    %(epsilon)s
    %(random_state)s
    %(accountant)s

    Returns
    -------
    result : PrivateResult
        The noisy count (int, or ndarray of int64), never below 0, with its guarantee.

    See Also
    --------
    sum : A private sum.

    Notes
    -----
    One row changes each output entry's count by at most 1, so ``k`` entries have L1
    sensitivity ``k``; exact discrete Laplace noise of scale ``k / epsilon`` on each (the
    geometric mechanism, Dwork and Roth 2014, Theorem 3.6) is epsilon-DP. Negative noisy
    counts are set to 0 (post-processing). NaN counts as non-zero, as in NumPy.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import stats
    >>> flags = np.array([0, 1, 1, 0, 1] * 100)
    >>> int(stats.count_nonzero(flags, epsilon=1.0, random_state=0))
    300
    """
    name = "count_nonzero"
    rows, epsilon, _, noise = _start(name, a, axis, keepdims, epsilon, 0.0, accountant, True,
                                     [1])
    k = rows.n_outputs
    noisy, text = noise.counts(0, (rows.X != 0).sum(axis=0), check_rng(random_state))
    value = rows.shape_output(np.maximum(noisy, 0).astype(np.int64))
    mechanism = f"{text} on each count (L1 sensitivity {k}); negative counts set to 0"
    return finish(name, value, epsilon, 0.0, mechanism, [], random_state)


@Substitution(**STATS_DOCS, notes=_MEAN_NOTES)
def mean(a, axis=None, dtype=None, keepdims=False, *, bounds=None, epsilon=1.0,
         delta=0.0, random_state=None, accountant=None):
    """Differentially private mean of values clipped to public bounds.

    Parameters
    ----------
    %(a)s
    %(axis)s
    %(dtype)s
    %(keepdims)s
    %(bounds)s
    %(epsilon)s
    %(delta)s
    %(random_state)s
    %(accountant)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    nanmean : The same, leaving NaN out.
    var : A private variance.

    Notes
    -----
    %(notes)s
    The error is about ``(upper - lower) / (epsilon n)``. Raises on NaN (use
    :func:`nanmean`).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import stats
    >>> ages = np.array([23, 35, 41, 52, 67] * 200)
    >>> round(float(stats.mean(ages, bounds=(17, 90), epsilon=1.0, random_state=0)), 1)
    43.6
    """
    return _mean("mean", a, axis, dtype, keepdims, bounds, epsilon, delta, random_state,
                 accountant, False)


@Substitution(**STATS_DOCS, notes=_MEAN_NOTES)
def nanmean(a, axis=None, dtype=None, keepdims=False, *, bounds=None, epsilon=1.0,
            delta=0.0, random_state=None, accountant=None):
    """Differentially private mean, leaving NaN out (the count of present values is private).

    Parameters
    ----------
    %(a)s
    %(axis)s
    %(dtype)s
    %(keepdims)s
    %(bounds)s
    %(epsilon)s
    %(delta)s
    %(random_state)s
    %(accountant)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    mean : The same, refusing NaN.

    Notes
    -----
    %(notes)s
    With NaN left out each output entry has its own count of present values, released
    with noise like the sums (L1 sensitivity ``k`` over ``k`` entries).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import stats
    >>> ages = np.array([23, 35, np.nan, 52, 67] * 200)
    >>> round(float(stats.nanmean(ages, bounds=(17, 90), epsilon=1.0, random_state=0)), 1)
    44.2
    """
    return _mean("nanmean", a, axis, dtype, keepdims, bounds, epsilon, delta,
                 random_state, accountant, True)


_VAR_NOTES = """
    Mechanism: a noisy row count (discrete Laplace) and the granular Laplace mechanism on
    the exact sums of the clipped values centred at the bounds' midpoint and of their
    squares, a third of ``epsilon`` each (basic composition); the variance is
    ``S2 / n - (S1 / n)**2``, clipped to ``[0, ((upper - lower) / 2)**2]``
    (post-processing). Population variance (``ddof=0``), as NumPy's default. With
    ``delta > 0`` the three parts get discrete and granular Gaussian noise instead, a third
    of the budget's zCDP ``rho`` each, converted once to ``(epsilon, delta)``."""


@Substitution(**STATS_DOCS, notes=_VAR_NOTES)
def var(a, axis=None, dtype=None, keepdims=False, *, bounds=None, epsilon=1.0,
        delta=0.0, random_state=None, accountant=None):
    """Differentially private variance of values clipped to public bounds.

    Parameters
    ----------
    %(a)s
    %(axis)s
    %(dtype)s
    %(keepdims)s
    %(bounds)s
    %(epsilon)s
    %(delta)s
    %(random_state)s
    %(accountant)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    std : Its square root.
    nanvar : The same, leaving NaN out.

    Notes
    -----
    %(notes)s

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import stats
    >>> ages = np.array([23, 35, 41, 52, 67] * 200)
    >>> round(float(stats.var(ages, bounds=(17, 90), epsilon=1.0, random_state=0)))
    226
    """
    return _var("var", a, axis, dtype, keepdims, bounds, epsilon, delta, random_state,
                accountant, False, False)


@Substitution(**STATS_DOCS, notes=_VAR_NOTES)
def nanvar(a, axis=None, dtype=None, keepdims=False, *, bounds=None, epsilon=1.0,
           delta=0.0, random_state=None, accountant=None):
    """Differentially private variance, leaving NaN out.

    Parameters
    ----------
    %(a)s
    %(axis)s
    %(dtype)s
    %(keepdims)s
    %(bounds)s
    %(epsilon)s
    %(delta)s
    %(random_state)s
    %(accountant)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    var : The same, refusing NaN.

    Notes
    -----
    %(notes)s
    Each output entry's count of present values is released with noise.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import stats
    >>> ages = np.array([23, 35, np.nan, 52, 67] * 200)
    >>> round(float(stats.nanvar(ages, bounds=(17, 90), epsilon=1.0, random_state=0)))
    281
    """
    return _var("nanvar", a, axis, dtype, keepdims, bounds, epsilon, delta,
                random_state, accountant, True, False)


@Substitution(**STATS_DOCS, notes=_VAR_NOTES)
def std(a, axis=None, dtype=None, keepdims=False, *, bounds=None, epsilon=1.0,
        delta=0.0, random_state=None, accountant=None):
    """Differentially private standard deviation: the square root of :func:`var`.

    Parameters
    ----------
    %(a)s
    %(axis)s
    %(dtype)s
    %(keepdims)s
    %(bounds)s
    %(epsilon)s
    %(delta)s
    %(random_state)s
    %(accountant)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    var : The private variance.
    nanstd : The same, leaving NaN out.

    Notes
    -----
    %(notes)s

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import stats
    >>> ages = np.array([23, 35, 41, 52, 67] * 200)
    >>> round(float(stats.std(ages, bounds=(17, 90), epsilon=1.0, random_state=0)), 1)
    15.1
    """
    return _var("std", a, axis, dtype, keepdims, bounds, epsilon, delta, random_state,
                accountant, False, True)


@Substitution(**STATS_DOCS, notes=_VAR_NOTES)
def nanstd(a, axis=None, dtype=None, keepdims=False, *, bounds=None, epsilon=1.0,
           delta=0.0, random_state=None, accountant=None):
    """Differentially private standard deviation, leaving NaN out.

    Parameters
    ----------
    %(a)s
    %(axis)s
    %(dtype)s
    %(keepdims)s
    %(bounds)s
    %(epsilon)s
    %(delta)s
    %(random_state)s
    %(accountant)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    std : The same, refusing NaN.

    Notes
    -----
    %(notes)s

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import stats
    >>> ages = np.array([23, 35, np.nan, 52, 67] * 200)
    >>> round(float(stats.nanstd(ages, bounds=(17, 90), epsilon=1.0, random_state=0)), 1)
    16.8
    """
    return _var("nanstd", a, axis, dtype, keepdims, bounds, epsilon, delta,
                random_state, accountant, True, True)

