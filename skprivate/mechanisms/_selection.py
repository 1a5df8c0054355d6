"""Private selection by permute-and-flip, sampled exactly with integer arithmetic.

Mechanism (McKenna and Sheldon 2020, Algorithm 1). Given candidates ``r = 1..m`` with
utilities ``u_r`` of sensitivity ``Delta`` and ``u* = max_r u_r``: visit the candidates in a
uniformly random order and return the first ``r`` for which a coin with probability
``p_r = exp(-epsilon (u* - u_r) / (2 Delta))`` comes up heads (the best candidate has
``p = 1``, so the walk always ends). It is epsilon-DP (their Theorem 1) and its expected
utility is never worse than the exponential mechanism's, with the same utility guarantee
(their Theorem 2 and Corollary 1).

Vectorised form. Draw every candidate's coin at once, independently, and an independent
uniform order. The sequential walk returns the first head in that order; the coins after it
are never looked at, so drawing them changes nothing. Because the order is uniform and
independent of the coins, the first head in it is a uniform choice among the heads. So the
output is: all coins, then one index drawn uniformly among those that came up heads; with
``k`` heads that index is ``rng.integers(0, k)``, an exact uniform integer.

Exactness. Utilities are integers (a rational utility is scaled to integers by the caller,
and its sensitivity with it) and ``epsilon``, ``Delta`` exact rationals, so each exponent
``gamma_r = epsilon (u* - u_r) / (2 Delta)`` is an exact rational ``num_r / den`` and the coin
is the exact Bernoulli(exp(-gamma)) sampler of :mod:`skprivate.mechanisms._discrete`
(Canonne, Kamath and Steinke 2020, Algorithm 1): integer comparisons only, no float enters a
decision. (The Gumbel-max form of the exponential mechanism needs real-valued Gumbel noise,
which floating point only approximates; this is why permute-and-flip is used here.)
"""

import math

import numpy as np

from ._discrete import _Q_CAP, _bernoulli_exp_neg
from ._rng import check_rng
from ._validation import EPSILON_HINT, check_positive, exact_fraction

__all__ = ["permute_and_flip", "permute_and_flip_probabilities"]

_INT64_MAX = 2**63 - 1


def _exponents(utility, epsilon, sensitivity):
    """``gamma_r = epsilon (u* - u_r) / (2 Delta)`` as integer parts and numerators over
    one common denominator: ``(q, r, den)`` with ``gamma_r = q_r + r_r / den``."""
    u = np.asarray(utility, dtype=object)
    if u.ndim != 1 or u.size == 0:
        raise ValueError(
            f"utility must be a non-empty 1-D array of integers; got shape {u.shape}. Pass "
            "one integer utility per candidate (scale rational utilities to integers)."
        )
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
               for v in u):
        raise TypeError(
            "utility must hold integers (Python or NumPy ints); scale rational utilities, "
            "and the sensitivity with them, to integers first."
        )
    check_positive(epsilon, "epsilon", hint=EPSILON_HINT)
    check_positive(sensitivity, "sensitivity", hint="Pass the utility's sensitivity, the "
                   "most one row can change any candidate's utility.")
    u = np.array([int(v) for v in u], dtype=object)
    eps = exact_fraction(epsilon)
    delta = exact_fraction(sensitivity)
    # gamma = (eps.n / eps.d) gap / (2 delta.n / delta.d) = eps.n delta.d gap / (2 eps.d delta.n)
    den = 2 * eps.denominator * delta.numerator
    num = (max(u) - u) * (eps.numerator * delta.denominator)  # Python ints, exact
    q = num // den
    r = num % den
    # floor(gamma) beyond 2**62 would need that many Bernoulli(exp(-1)) successes in a row:
    # such a coin is tails with certainty in any run, and the cap keeps q in int64.
    q = np.array([min(int(v), _Q_CAP) for v in q], dtype=np.int64)
    r = r.astype(np.int64) if den <= _INT64_MAX else r
    return q, r, den


def permute_and_flip(utility, epsilon, sensitivity, size=None, random_state=None):
    """Choose a candidate with epsilon-DP by permute-and-flip (exact integer sampling).

    Parameters
    ----------
    utility : array-like of int, shape (n_candidates,)
        Integer utility of each candidate (higher is better).
    epsilon : float
        Privacy loss ``> 0`` of one choice.
    sensitivity : float, int or fractions.Fraction
        The most one row can change any candidate's utility (``Delta > 0``, in the units of
        ``utility``).
    size : int or None, default=None
        Number of independent choices (``None``: one, returned as an int).
    random_state : None, int or numpy.random.Generator, default=None
        ``None`` (the only choice that keeps the guarantee) draws from a generator seeded
        from the operating system; an int is for tests and documentation.

    Returns
    -------
    index : int or ndarray of int64
        The chosen candidate's index (``size`` of them when ``size`` is given).

    See Also
    --------
    permute_and_flip_probabilities : The exact output distribution, for tests.

    Notes
    -----
    epsilon-DP: McKenna and Sheldon (2020), Theorem 1. The vectorised sampling and its
    exactness are explained in the module docstring of :mod:`skprivate.mechanisms._selection`.

    References
    ----------
    .. [1] R. McKenna and D. Sheldon, "Permute-and-Flip: A new mechanism for differentially
       private selection", NeurIPS 2020.

    Examples
    --------
    >>> from skprivate.mechanisms._selection import permute_and_flip
    >>> permute_and_flip([0, -3, -40], epsilon=1.0, sensitivity=1, random_state=0)
    0
    """
    q, r, den = _exponents(utility, epsilon, sensitivity)
    rng = check_rng(random_state)
    n_draws = 1 if size is None else int(size)
    m = q.size
    # All coins of all draws at once: row i holds draw i's m independent coins.
    heads = _bernoulli_exp_neg(np.tile(q, n_draws), np.tile(r, n_draws), den, rng)
    heads = heads.reshape(n_draws, m)
    n_heads = heads.sum(axis=1)  # >= 1: the best candidate's coin is Bernoulli(1)
    pick = rng.integers(0, n_heads)  # uniform among the heads (module docstring)
    # index of the (pick + 1)-th head of each row
    rank = np.cumsum(heads, axis=1)
    chosen = np.argmax(heads & (rank == (pick + 1)[:, None]), axis=1).astype(np.int64)
    return int(chosen[0]) if size is None else chosen


def permute_and_flip_probabilities(utility, epsilon, sensitivity):
    """Exact output probabilities of :func:`permute_and_flip` (float64).

    Parameters
    ----------
    utility : array-like of int, shape (n_candidates,)
        As in :func:`permute_and_flip`.
    epsilon : float
        As in :func:`permute_and_flip`.
    sensitivity : float, int or fractions.Fraction
        As in :func:`permute_and_flip`.

    Returns
    -------
    probabilities : ndarray of float64, shape (n_candidates,)
        ``P(r) = p_r sum_{S} |S|! (m - 1 - |S|)! / m! prod_{s in S} (1 - p_s)`` over the
        subsets ``S`` of the other candidates (those visited before ``r``), computed by a
        dynamic programme over the elementary symmetric polynomials of ``1 - p_s``.

    Examples
    --------
    >>> from skprivate.mechanisms._selection import permute_and_flip_probabilities
    >>> permute_and_flip_probabilities([0, 0], epsilon=1.0, sensitivity=1)
    array([0.5, 0.5])
    """
    q, r, den = _exponents(utility, epsilon, sensitivity)
    p = np.exp(-(q.astype(float) + np.array([int(v) / den for v in r])))
    m = p.size
    out = np.empty(m)
    for j in range(m):  # over candidates: a test helper for small m
        f = np.delete(1.0 - p, j)
        e = np.zeros(m)  # e[k]: elementary symmetric polynomial of degree k of f
        e[0] = 1.0
        for v in f:
            e[1:] = e[1:] + v * e[:-1]
        weights = np.array([math.factorial(k) * math.factorial(m - 1 - k)
                            for k in range(m)], dtype=float) / math.factorial(m)
        out[j] = p[j] * float(np.dot(weights, e))
    return out
