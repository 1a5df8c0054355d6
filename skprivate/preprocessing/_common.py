"""What the private preprocessors share: public bounds, the private quantile, a free fit."""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .. import _caveats
from ..accounting._public import public_inputs
from ..base import DPEstimatorMixin, PrivacyReport
from ..mechanisms import (
    check_rng,
    gaussian_sigma,
    rounded_gaussian_mechanism,
    rounded_gaussian_plan,
)
from ..mechanisms._discrete import _GAUSSIAN_NUMERATOR_BITS, _round_up_rational
from ..mechanisms._rounded import sample_rounded_gaussian
from ..mechanisms._quantile import quantile_candidates as _quantile_candidates
from ..mechanisms._quantile import rank_quantile_index
from ..mechanisms._validation import exact_fraction
from ..utils._validation import check_bounds_pair, validate_numeric

__all__ = [
    "_PrivateTransformer",
    "QUANTILE_RESOLUTION",
    "check_transform_input",
    "counts_and_sums_plan",
    "gaussian_event",
    "gaussian_noise_multiplier",
    "grid_quantiles",
    "quantile_candidates",
    "rank_utility_sensitivity",
    "release_counts_and_sums",
    "resolve_bounds",
]

# Docstring fragments of the parameters every private preprocessor shares, for
# ``@Substitution(**_PARAM_DOCS)`` (skprivate.utils._docstrings) on each class.
_PARAM_DOCS = {
    "bounds": """
    bounds : tuple (lower, upper) or None, default=None
        Public range of each feature: two numbers, or two arrays of length
        ``n_features``, known without looking at the data (a codebook, the instrument's
        range). Values are clipped to it in ``fit`` and ``transform``. ``None`` reads each
        feature's minimum and maximum from the data: the fit then has no privacy
        guarantee (the range is released exactly in ``bounds_``), a
        :class:`~skprivate.exceptions.PrivacyLeakWarning` says so, and every total
        (:func:`~skprivate.accounting.leaking_steps`,
        :func:`~skprivate.accounting.total_privacy_cost`, :func:`make_private_pipeline`,
        the displays) lists the step as not covered.""",
    "accountant": """
    accountant : BudgetAccountant, default=None
        Budget to spend from; the fit is refused before reading any value if it does not
        fit.""",
    "random_state": """
    random_state : None, int or numpy.random.Generator, default=None
        ``None`` (for releases) draws the noise from a generator seeded by the operating
        system; an int makes it reproducible (tests and documentation only: whoever
        knows the seed can remove the noise).""",
}


def resolve_bounds(bounds, X, owner):
    """Public ``(lower, upper)`` per feature, and the caveats if they were read from ``X``.

    ``bounds=None`` reads each feature's minimum and maximum from ``X`` (ignoring NaN): the
    clipping range is then a function of the private rows, released exactly in ``bounds_``,
    and the fit's guarantee does not hold; the caveat says so.
    """
    n_features = X.shape[1]
    if bounds is None:
        with np.errstate(all="ignore"):
            lower = np.nanmin(X, axis=0) if X.shape[0] else np.zeros(n_features)
            upper = np.nanmax(X, axis=0) if X.shape[0] else np.ones(n_features)
        lower = np.where(np.isfinite(lower), lower, 0.0)
        upper = np.where(np.isfinite(upper), upper, lower + 1.0)
        upper = np.where(upper > lower, upper, lower + 1.0)
        caveat = _caveats.bounds_from_data(["bounds"], "bounds=(lower, upper)")
        return lower.astype(float), upper.astype(float), [caveat]
    lower, upper = check_bounds_pair(
        bounds, n_features, owner,
        "known without looking at the data, for example bounds=(17, 90) for ages or "
        "bounds=([0, 0], [16, 100]) for two features",
    )
    if np.any(lower >= upper):
        bad = np.flatnonzero(lower >= upper).tolist()
        raise ValueError(
            f"{owner}: every lower bound must be below its upper bound; features {bad} have "
            f"lower >= upper in bounds={bounds!r}. Widen the range of those features."
        )
    return lower, upper, []


def rank_utility_sensitivity(q):
    """Sensitivity ``max(q, 1 - q)`` of the rank utility of the ``q``-quantile.

    The utility of a candidate ``c`` is ``u(c) = -max(#{x_i < c} - q n, q n - #{x_i <= c},
    0)`` with ``n`` the realised number of values (0 exactly when ``c`` is a ``q``-quantile of
    the data, so that tied values do not flatten it around the answer). Adding one row ``z``
    (removing is the same with the roles swapped) makes ``n -> n + 1``, so ``q n -> q n +
    q``, and adds 0 or 1 to each count: ``#{x_i < c} - q n`` moves by ``1 - q`` or ``-q``
    and ``q n - #{x_i <= c}`` by ``q`` or ``q - 1``. The maximum with 0 is 1-Lipschitz in
    both, so ``|u(c) - u'(c)| <= max(q, 1 - q)`` at every ``c``, and the bound is attained
    (``z`` below or above every point). ``n`` entering the utility needs no noisy count:
    the bound above already accounts for it changing with the row. The same utility and
    argument as :mod:`skprivate.stats`' quantiles.
    """
    return max(float(q), 1.0 - float(q))


#: Number of equal steps of the public range whose ends are a quantile's candidates.
QUANTILE_RESOLUTION = 4096


def quantile_candidates(lower, upper, resolution=QUANTILE_RESOLUTION):
    """The public candidates of each feature's range (:func:`skprivate.mechanisms._quantile.
    quantile_candidates` at the preprocessors' resolution)."""
    return _quantile_candidates(lower, upper, resolution)


def grid_quantiles(X, lower, upper, q, epsilon, rng, resolution=QUANTILE_RESOLUTION):
    """One private ``q``-quantile per column of ``X``, each ``epsilon``-DP; NaN are absent.

    Permute-and-flip (McKenna and Sheldon 2020, Algorithm 1; epsilon-DP by their Theorem 1)
    over the public candidates of :func:`quantile_candidates`, with the rank utility of
    :func:`rank_utility_sensitivity` over the ``n_j`` non-missing values of column ``j``
    and its sensitivity ``max(q, 1 - q)`` under add/remove one row. With ``q = a / b`` an
    exact fraction, ``b u(c)`` is an integer with sensitivity ``max(a, b - a)``, and
    :func:`skprivate.mechanisms._selection.permute_and_flip` samples the choice with
    integer arithmetic only (exact Bernoulli(exp(-gamma)) coins, an exact uniform among the
    heads): no floating-point noise, and the released value is a candidate, a function of
    the bounds and the chosen index alone. Permute-and-flip is epsilon-DP with the
    exponential mechanism's sensitivity and its expected utility is never worse than the
    exponential mechanism's (their Theorem 2).

    Resolution. The release is off by at most half a step, ``(upper - lower) / (2
    resolution)``, from the best candidate, while the mechanism's rank error grows only with
    ``log(resolution)`` (the candidates far from the quantile are each chosen with
    probability at most ``exp(-epsilon gap / (2 max(q, 1 - q)))``): ``2**12`` puts the
    step at 0.024 % of the range for about 4 ms per quantile. Unlike the former continuous
    exponential mechanism, whose error grew only logarithmically with the width of the
    bounds, the step grows linearly with it: declare bounds within a few orders of
    magnitude of the values' spread.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Values, already clipped to the bounds; NaN marks a missing value.
    lower, upper : ndarray of shape (n_features,)
        Public bounds.
    q : fractions.Fraction
        The quantile, an exact fraction in [0, 1].
    epsilon : float
        Budget of each column's release.
    rng : numpy.random.Generator
    resolution : int, default=QUANTILE_RESOLUTION
        Number of steps of the public range (a power of two).

    Returns
    -------
    quantiles : ndarray of shape (n_features,)
    """
    candidates = quantile_candidates(lower, upper, resolution)
    Z = np.sort(X, axis=0)  # NaN sort last
    present = (~np.isnan(Z)).sum(axis=0)
    out = np.empty(X.shape[1])
    for j in range(X.shape[1]):  # over features, not rows
        pick = rank_quantile_index(Z[: present[j], j], candidates[:, j], q, epsilon, rng)
        out[j] = candidates[pick, j]
    return out


def check_transform_input(estimator, X, attributes=None, **check_params):
    """``X`` for ``transform`` of a fitted ``estimator``: fitted check, then validation.

    ``check_params`` go to :func:`~skprivate.utils._validation.validate_numeric` (float64
    unless told otherwise), with ``reset=False`` so that the columns must match the fit.
    """
    check_is_fitted(estimator, attributes)
    check_params.setdefault("dtype", np.float64)
    return validate_numeric(estimator, X, reset=False, **check_params)


class _PrivateTransformer(DPEstimatorMixin, TransformerMixin, BaseEstimator):
    """Shared fit plumbing: budget reserved before ``X`` is read; a zero-cost free fit.

    No private preprocessor plans on the number of rows (each plan depends on the
    parameters alone), and none reads the exact ``n`` into what it publishes: a mean divides
    by a count released with the sums, a quantile's utility accounts for ``n`` in its
    sensitivity. The ``n_samples`` each passes to ``_finish_private_fit`` (for the
    ``delta >= 1/n`` caveat, whose text prints ``1/n`` into the published report) is a
    released count too, or None for a pure-DP fit (the check needs ``delta > 0``): a
    function of the exact ``n`` in the report would be an unbounded loss under add/remove.
    """

    # No released value is computed from the exact number of rows: the scalers and the mean
    # imputer release their counts with the noisy sums, the quantiles use it only inside
    # permute-and-flip (whose utility's add/remove sensitivity covers it), the encoder's
    # threshold does not depend on it. So the reports do not list it as public
    # (skprivate.accounting.public_inputs reads this).
    _skprivate_row_count_unused = (
        "not published: released with noise with the sums, or used only inside a mechanism "
        "whose add/remove analysis covers it"
    )

    def _reserve_and_validate(self, X, *, free=False, **check_params):
        """Reserve the planned spend, then validate ``X``; returns ``(X, plan)``.

        The order every private fit follows: the plan depends on the shape of ``X`` only,
        and a budget overrun raises before any value is read. ``free=True`` (a fit that
        reads nothing from the rows) reserves nothing and returns ``plan=None``.
        ``check_params`` go to :func:`~skprivate.utils._validation.validate_numeric`
        (float64 unless told otherwise).
        """
        plan = None if free else self._begin_private_fit(X)
        check_params.setdefault("dtype", np.float64)
        X = validate_numeric(self, X, reset=True, **check_params)
        if plan is None and not free:  # X had no shape before validation
            plan = self._reserve_plan(X.shape[0])
        return X, plan

    def _finish_free_fit(self, mechanism):
        """Fitted privacy attributes of a fit that read nothing from the rows (cost 0)."""
        self.epsilon_ = 0.0
        self.delta_ = 0.0
        self._privacy_spend_record = self._privacy_spend(0.0, 0.0)
        self.privacy_report_ = PrivacyReport(
            estimator=type(self).__name__,
            epsilon=0.0,
            delta=0.0,
            neighbouring="add/remove one row",
            unit="one row of X (one person only if each person has one row)",
            scope="this fit only, which read nothing from the rows but their shape",
            mechanism=mechanism,
        )
        self.privacy_report_["public"] = public_inputs(self, self.privacy_report_)
        self.privacy_report_["caveats"] = []


def gaussian_noise_multiplier(epsilon, delta):
    """Noise multiplier ``z`` of one Gaussian release at ``(epsilon, delta)`` (sensitivity 1).

    The analytic Gaussian mechanism's calibration (Balle and Wang 2018, Theorem 8;
    :func:`~skprivate.mechanisms.gaussian_sigma`): the releases are rounded Gaussian
    (:func:`release_counts_and_sums`), a post-processing of the continuous Gaussian
    mechanism, so its exact curve holds for them; the zCDP calibration the discrete
    Gaussian needed cost 6 to 11 % more noise.
    """
    return gaussian_sigma(1.0, epsilon, delta)


def gaussian_event(noise_multiplier):
    """``dp_accounting.GaussianDpEvent(z)``: the event of a rounded Gaussian release.

    Exact for the release (a post-processing of the Gaussian mechanism with noise multiplier
    at least ``z``, :func:`release_counts_and_sums`), so a privacy-loss-distribution or RDP
    accountant composes it with the estimator's events.
    """
    import dp_accounting

    return dp_accounting.GaussianDpEvent(float(noise_multiplier))


def counts_and_sums_plan(sigma, sums_sensitivity, n_sums):
    """The public parameters of :func:`release_counts_and_sums`.

    Returns ``(count_variance, sums_plan)``: the exact rational variance ``S_c >=
    sigma**2`` of the counts' rounded Gaussian noise (grid 1: the counts are integers) and
    the :func:`~skprivate.mechanisms.rounded_gaussian_plan` of the ``n_sums`` sums, whose
    noise multiplier ``sigma / sums_sensitivity`` makes the noise at least ``sigma`` times
    their lattice sensitivity over ``sums_sensitivity``.
    """
    count_variance = _round_up_rational(exact_fraction(sigma) ** 2, _GAUSSIAN_NUMERATOR_BITS)
    plan = rounded_gaussian_plan(sums_sensitivity, sigma / sums_sensitivity, max(n_sums, 1))
    return count_variance, plan


def release_counts_and_sums(counts, sums, sigma, sums_sensitivity, rng):
    """Counts and clipped sums released with rounded Gaussian noise ``sigma``: one Gaussian
    mechanism's guarantee, no floating-point noise.

    The caller sets ``sigma`` for the joint vector; the counts' L2 sensitivity ``Delta_c``
    enters only through it. The integer ``counts`` get exact rounded Gaussian noise
    ``round(X)``, ``X ~ N(0, S_c)``, ``S_c >= sigma**2`` (:mod:`skprivate.mechanisms._rounded`):
    ``counts + round(X) = round(counts + X)`` is a post-processing of the Gaussian mechanism
    with noise multiplier ``sqrt(S_c) / Delta_c`` (Dwork and Roth 2014, Proposition 2.1). The
    real ``sums`` (L2 sensitivity ``Delta_s``) go through
    :func:`~skprivate.mechanisms.rounded_gaussian_mechanism` with noise multiplier ``sigma /
    Delta_s``: rounded to a power-of-two grid, where their L2 sensitivity is at most ``L``
    grid steps, plus ``round(N(0, S))`` with ``S >= (sigma L / Delta_s)**2`` (its plan).
    Dividing each part by its noise's standard deviation turns the pair into one Gaussian
    mechanism of unit noise on the joint vector, whose L2 sensitivity is at most
    ``sqrt(Delta_c**2 / S_c + L**2 / S) <= sqrt(Delta_c**2 + Delta_s**2) / sigma``: the whole
    release is a post-processing of the Gaussian mechanism with noise multiplier at least
    ``sigma / sqrt(Delta_c**2 + Delta_s**2)``, and has its exact (epsilon, delta) curve
    (Balle and Wang 2018, Theorem 8), which is what :func:`gaussian_event` states.

    Returns ``(noisy_counts, noisy_sums)``: integers (as float64) and multiples of the grid.
    """
    counts = np.asarray(counts, dtype=np.int64)
    sums = np.asarray(sums, dtype=float)
    count_variance, _ = counts_and_sums_plan(sigma, sums_sensitivity, sums.size)
    noise = sample_rounded_gaussian(count_variance, counts.size, check_rng(rng))
    noisy_counts = counts + noise.reshape(counts.shape)
    noisy_sums = rounded_gaussian_mechanism(sums, sums_sensitivity, sigma / sums_sensitivity,
                                            random_state=rng)
    return noisy_counts.astype(np.float64), np.asarray(noisy_sums, dtype=np.float64)
