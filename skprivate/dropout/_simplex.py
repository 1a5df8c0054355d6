"""Private selection of a simplex vertex by dropout (Jain et al. 2015, section 4.1, Algorithm 2).

For binary rows ``x_i`` in ``{0, 1}^p`` and the linear loss over the simplex, the minimiser is
the vertex ``e_j`` of the feature with the smallest count; dropout (keep probability 1/2)
perturbs the counts: ``f_j = sum_i x_ij b_ij`` with ``b_ij ~ Bernoulli(1/2)``, so the ``f_j``
are independent ``Binomial(S_j, 1/2)`` with ``S_j = sum_i x_ij``, and ``argmin_j f_j`` (ties
to the lowest index) is released.

**Lemma (local privacy; re-derived for add/remove).** Let ``D' = D + {x}``, so
``f'_j = f_j + x_j b_j``: a shift by ``z = x * b`` in ``{0, 1}^p``. Fix the other counts; then
``j`` wins iff ``f_j <= m`` for ``m = min(min_{k<j} f_k - 1, min_{k>j} f_k)`` and, after the
shift, iff ``f_j <= m''`` with ``m''`` in ``{m - 1, m, m + 1}``. So the two win probabilities
are averages of the binomial CDF ``F_j`` at points at most 1 apart. For a cut ``a_j`` with
``F_j(a_j) <= delta0`` and ``eps_j = ln(F_j(a_j + 1) / F_j(a_j))``: when ``m >= a_j``,
``F_j`` at the two points differ by a factor at most ``e^{eps_j}`` (the ratio
``F(m+1)/F(m)`` decreases in ``m`` because the binomial CDF is log-concave, so its largest
value above the cut is at ``a_j``); when ``m < a_j`` both are at most ``F_j(a_j) <=
delta0``. Averaging over the other counts and over ``z``, and summing over the winners in an
event, the released index under ``D`` and ``D'`` is ``(max_j eps_j, p delta0)``-
indistinguishable in both directions, provided every ``S_j(D) >= nu0`` where ``nu0`` is
the smallest count with ``sup_{nu >= nu0} eps_num(nu) <= eps_loc`` (``eps_num(nu)`` is
``eps_j`` at ``a = max{a : F_nu(a) <= delta0}``; it is not monotone in ``nu``, hence the
sup). Replace-one neighbours would cost ``(2 eps_loc, (1 + e^eps_loc) delta_loc)``; for
add/remove one shift suffices. ``tests/dropout/test_simplex.py`` checks this by exact
enumeration.

**Test.** ``Lambda = min_j (S_j - 1[S_j >= 1])`` moves by at most 1 when a row is added,
and both ``Lambda(D)`` and ``Lambda(D')`` are at most ``min_j S_j(D)``: if either data set
passes ``Lambda >= nu0``, the smaller one satisfies the lemma. ``Lambda`` is an integer, so
it gets exact discrete Laplace noise ``Z`` with ``P(Z = z) ~ e^{-eps1 |z|}``, which is
``eps1``-DP for a count of sensitivity 1 (ratio of pmfs at most ``e^{eps1}``; the sampler's
rounding only adds noise). ``Lambda + Z`` is compared with ``nu0 + m``, ``m = ln(1/(2
delta1))/eps1``; a data set with ``Lambda <= nu0 - 1`` passes only if ``Z >= floor(m) + 2``,
of probability ``p^{floor(m) + 2} / (1 + p) <= e^{-eps1 (m + 1)} / (1 + e^{-eps1}) = 2
delta1 / (e^{eps1} + 1) <= delta1`` with ``p = e^{-eps1}`` (continuous Laplace noise would
give ``delta1 e^{-eps1}``; the rounding of the scale moves ``p`` by a relative ``2**-30``
at most, far inside the factor ``2 / (e^{eps1} + 1)`` lost here). Hence (cases: one of the two data sets is safe, or neither)
the mechanism is ``(eps1 + eps_loc, max(delta1, p delta0))``-DP. This corrects the paper's
threshold ``2 log(1/delta)/(eps n)``, which does not reach the ``p exp(-eps^2 nu / 8)`` regime
of its Theorem 6 (dropout user guide, "Corrections to the paper").
"""

import math
from functools import lru_cache

import numpy as np
from scipy.special import ndtri
from scipy.stats import binom

from ..exceptions import PrivacyTestFailed
from ..mechanisms import check_rng, discrete_laplace_noise

__all__ = ["binomial_local_epsilon", "private_argmin_simplex", "simplex_threshold"]


def binomial_local_epsilon(nu, delta0):
    """``eps_num(nu)``: ``ln(F(a+1)/F(a))`` at the cut ``a = max{a : F_nu(a) <= delta0}``.

    ``nu`` is an int array of counts; ``inf`` where no cut exists (``2^-nu > delta0``).
    """
    nu = np.asarray(nu, dtype=np.int64)
    log_d = math.log(delta0)
    z = -float(ndtri(delta0))
    a = np.floor(nu / 2.0 - z * np.sqrt(nu) / 2.0).astype(np.int64)
    a = np.clip(a, -1, nu)
    for _ in range(64):  # the normal guess is within a few steps of the exact cut
        up = (a + 1 <= nu) & (binom.logcdf(a + 1, nu, 0.5) <= log_d)
        down = (a >= 0) & (binom.logcdf(a, nu, 0.5) > log_d)
        if not (up.any() or down.any()):
            break
        a = a + up.astype(np.int64) - down.astype(np.int64)
    else:  # pragma: no cover
        raise RuntimeError("binomial cut search did not converge")
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = binom.logcdf(a + 1, nu, 0.5) - binom.logcdf(a, nu, 0.5)
    return np.where(a < 0, np.inf, eps)


@lru_cache(maxsize=64)
def simplex_threshold(epsilon_local, delta0):
    """``nu0``: the smallest count with ``sup_{nu >= nu0} eps_num(nu) <= epsilon_local``.

    The sup is computed over ``nu <= cap`` with ``cap >= 64 * 8 ln(1/delta0)/eps^2`` (and at
    least ``2^16``); beyond it ``eps_num(nu)`` is about ``sqrt(8 ln(1/delta0)/nu)``, below an
    eighth of ``epsilon_local``, which the function checks on the last stretch.
    """
    guess = 8.0 * math.log(1.0 / delta0) / epsilon_local**2
    cap = int(max(2**16, 64 * guess))
    nu = np.arange(1, cap + 1)
    eps = binomial_local_epsilon(nu, delta0)
    tail = eps[cap // 2:]
    if not np.all(tail <= epsilon_local / 4):  # pragma: no cover - guarded by the cap
        raise RuntimeError("simplex_threshold: the numerical cap is too small")
    suffix_max = np.maximum.accumulate(eps[::-1])[::-1]
    ok = np.nonzero(suffix_max <= epsilon_local)[0]
    return int(nu[ok[0]])


def private_argmin_simplex(
    X, epsilon, delta, *, test_fraction=0.3, accountant=None, random_state=None
):
    """Privately select the feature with the smallest dropout-perturbed count.

    For binary data this is the minimiser of the linear loss ``<mean_i x_i, w>`` over the
    probability simplex, perturbed by dropout with keep probability 1/2 (Jain et al. [1]_,
    Algorithm 2), released after a private test that every feature is common enough for
    the perturbation to hide any one row.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Binary data: every value must be 0 or 1.
    epsilon : float
        Privacy budget, > 0: ``test_fraction * epsilon`` for the test, the rest for the
        selection.
    delta : float
        Privacy parameter delta in (0, 1); both the test and the selection are run at it.
    test_fraction : float, default=0.3
        Fraction in (0, 1) of ``epsilon`` spent on the test.
    accountant : BudgetAccountant, default=None
        If given, ``(epsilon, delta)`` is recorded before ``X`` is read, and that record is
        final: a failed test costs the whole plan (its outcome is a release, and the PTR
        guarantee covers test and selection together).
    random_state : None, int or numpy.random.Generator, default=None
        Source of the noise and of the dropout masks. None (use this for a release): seeded
        from the operating system. An int is reproducible and not private.

    Returns
    -------
    index : int
        The selected feature ``j`` (the simplex vertex ``e_j``).

    Raises
    ------
    PrivacyTestFailed
        If the noisy test says some feature is too rare (or constant zero) for the dropout
        perturbation to be private.
    ValueError
        If ``X`` is not binary, or a parameter is out of range.

    See Also
    --------
    DPDropoutRegressor : Dropout-based privacy for least squares.

    Notes
    -----
    **Guarantee.** The returned index (and the fact that the test passed) is
    ``(epsilon, delta)``-differentially private with respect to adding or removing one row
    of ``X``.

    **Mechanism.** The counts ``S_j`` are perturbed as independent ``Binomial(S_j, 1/2)``
    draws (dropout), and the index of the smallest is returned, ties to the lowest index.
    With ``epsilon_loc = (1 - test_fraction) epsilon`` and ``delta0 = delta / p``, the
    selection is ``(epsilon_loc, delta)``-DP whenever every count is at least ``nu0``,
    computed numerically from exact binomial CDFs (:func:`simplex_threshold`; about
    ``8 ln(p / delta) / epsilon_loc^2``). Propose-test-release checks it: the leave-one-out
    minimum count (sensitivity 1) plus ``Laplace(1/epsilon1)`` must exceed
    ``nu0 + ln(1/(2 delta))/epsilon1``. The test and the selection compose to
    ``(epsilon1 + epsilon_loc, max(delta, delta)) = (epsilon, delta)``; the derivation is in
    the module ``skprivate.dropout._simplex`` and corrects the paper's threshold, which is
    about ten times too small.

    **What must be public.** ``n_features`` and the parameters.

    References
    ----------
    .. [1] P. Jain, V. Kulkarni, A. Thakurta and O. Williams, "To drop or not to drop:
       robustness, consistency and differential privacy properties of dropout",
       arXiv:1503.02031, 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.dropout import private_argmin_simplex
    >>> rng = np.random.default_rng(0)
    >>> X = (rng.random((20000, 4)) < [0.5, 0.3, 0.6, 0.5]).astype(int)
    >>> private_argmin_simplex(X, epsilon=1.0, delta=1e-6, random_state=0)
    1
    """
    from ..accounting._budget import PrivacySpend

    for name, value, lo, hi in (
        ("epsilon", epsilon, 0.0, math.inf),
        ("delta", delta, 0.0, 1.0),
        ("test_fraction", test_fraction, 0.0, 1.0),
    ):
        if not (isinstance(value, (int, float, np.floating)) and lo < value < hi):
            raise ValueError(
                f"private_argmin_simplex: {name} must be a number in ({lo:g}, {hi:g}); "
                f"got {value!r}."
            )
    shape = getattr(X, "shape", None)
    eps1 = float(test_fraction) * float(epsilon)
    eps_loc = float(epsilon) - eps1
    plan = PrivacySpend(float(epsilon), float(delta), label="private_argmin_simplex")
    if accountant is not None:
        accountant.spend(plan)
    # From here the reservation stays, even if a value is refused: whether the values are
    # binary is read from the data, and a charge refunded after reading values would depend
    # on them (the rule of every skprivate fit; see BudgetAccountant's Notes).
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(
            "private_argmin_simplex: X must be a 2-D array with at least one row and one "
            f"column; got shape {shape if shape is not None else X.shape}."
        )
    if not np.all((X == 0) | (X == 1)):
        raise ValueError(
            "private_argmin_simplex: X must be binary (every value 0 or 1), as in the "
            "paper's setting; got other values. Binarise the features with a public "
            "rule (for example a one-hot encoding or a fixed threshold) first."
        )
    rng = check_rng(random_state)
    n, p = X.shape
    counts = X.sum(axis=0).astype(np.int64)
    statistic = int(np.min(counts - (counts >= 1)))
    nu0 = simplex_threshold(eps_loc, float(delta) / p)
    threshold = nu0 + math.log(1.0 / (2.0 * float(delta))) / eps1
    noisy = statistic + int(discrete_laplace_noise(1.0 / eps1, random_state=rng))
    if noisy <= threshold:
        # The whole plan stays spent: the PTR guarantee covers test and selection together
        # (the selection given a passed test is not DP on its own), so a failed test does not
        # refund the selection's share (see DPDropoutRegressor and BudgetAccountant's Notes).
        raise PrivacyTestFailed(
            f"private_argmin_simplex: the private test failed: the noisy smallest feature "
            f"count {noisy} is not above the threshold {threshold:.1f} = nu0 + "
            f"ln(1/(2 delta))/epsilon1 with nu0 = {nu0} (the count every feature needs for "
            f"the dropout perturbation to be ({eps_loc:.3g}, {delta:.3g})-DP). Some feature "
            "is rare or never 1, or there are too few rows: drop or merge rare features, use "
            "more rows, or raise epsilon or delta. The planned cost (epsilon="
            f"{float(epsilon):.4g}, delta={float(delta):.3g}) has been spent."
        )
    masks = rng.random((n, p)) < 0.5
    perturbed = np.sum(X.astype(bool) & masks, axis=0)
    return int(np.argmin(perturbed))
