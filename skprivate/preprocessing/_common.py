"""What the private preprocessors share: public bounds, the private quantile, a free fit."""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .. import _caveats
from ..accounting._public import public_inputs
from ..accounting._zcdp import gaussian_rho, gaussian_sigma_for_rho, zcdp_rho
from ..base import DPEstimatorMixin, PrivacyReport
from ..mechanisms import discrete_gaussian_noise, granular_gaussian_mechanism
from ..utils._validation import check_bounds_pair, validate_numeric

__all__ = [
    "_PrivateTransformer",
    "check_transform_input",
    "exponential_quantiles",
    "quantile_gaps",
    "rank_utility_sensitivity",
    "release_counts_and_sums",
    "resolve_bounds",
    "zcdp_event",
    "zcdp_noise_multiplier",
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

    The utility is ``u(x) = -|#{i: x_i < x} - q n|`` with ``n`` the realised number of
    values. Adding one row ``z`` (removing is the same with the roles swapped) makes
    ``n -> n + 1``, so ``q n -> q n + q``, and: if ``z < x`` the count below ``x`` grows
    by 1, and ``#{x_i < x} - q n`` moves by ``1 - q``; if ``z >= x`` the count is
    unchanged and it moves by ``-q``. The absolute value is 1-Lipschitz, so
    ``|u(x) - u'(x)| <= max(q, 1 - q)`` at every ``x``, and both values are attained
    (``z`` below or above every point). ``n`` entering the utility needs no noisy count:
    the bound above already accounts for it changing with the row.
    """
    return max(float(q), 1.0 - float(q))


def quantile_gaps(X, lower, upper, q, epsilon):
    """The exponential mechanism's gaps between sorted values and their log-weights.

    Returns ``(Z, lengths, logw)``: ``Z`` of shape ``(n + 2, d)`` holds ``lower``, the
    sorted values (NaN replaced by ``upper``) and ``upper``; gap ``k`` is
    ``[Z[k], Z[k + 1]]`` with length ``lengths[k]``, on which the utility is constant
    (``k`` values lie below any of its points), and ``logw[k]`` is the log of its
    probability up to a constant: ``log length_k + epsilon u_k / (2 max(q, 1 - q))``
    (without the 2 at ``q`` = 0 or 1, where the utility is monotone).
    The output density at a point of gap ``k`` is ``exp(logw[k]) / length_k`` over the
    sum of ``exp(logw)``. Shared by :func:`exponential_quantiles` and its tests.
    """
    half, half_lengths, logw = _half_gaps(X, lower, upper, q, epsilon)
    return 2.0 * half, 2.0 * half_lengths, logw + np.log(2.0)


def _half_gaps(X, lower, upper, q, epsilon):
    """:func:`quantile_gaps` in half units (``Z / 2``, half-lengths), which never overflow;
    ``logw`` is that of the half-lengths (the same probabilities)."""
    n_samples = X.shape[0]
    present = (~np.isnan(X)).sum(axis=0)
    Z = np.sort(X, axis=0)  # NaN sort last
    Z = np.where(np.isnan(Z), upper, Z)
    # Halved, so that no gap overflows: with bounds beyond +-9e307 a gap between two values
    # could exceed the largest double, and an infinite gap is drawn for sure and gives an
    # inf or NaN quantile, depending on where the rows lie. Half-lengths give the same
    # probabilities (a common factor 2).
    half = np.vstack([lower[None, :], Z, upper[None, :]]) / 2.0  # (n + 2, d)
    half_lengths = np.diff(half, axis=0)  # (n + 1, d); gaps beyond n_j have length 0
    rank = np.arange(n_samples + 1)[:, None]  # values below any point of gap k
    utility = -np.abs(rank - q * present[None, :])
    # epsilon-DP: McSherry and Talwar 2007, Theorem 6 (Dwork and Roth 2014, Theorem 3.10)
    # with the utility's sensitivity Delta = max(q, 1 - q) (rank_utility_sensitivity).
    # For 0 < q < 1 the factor 2 stays: a row moves u up at some x and down at others
    # (below and above the quantile), and both halves of the bound are attained together
    # (the tests' exact densities reach epsilon within 1 %). For q = 0 or 1 the utility is
    # monotone (u = -#{x_i < x}, resp. -#{x_i >= x}: adding a row never raises it), and
    # exp(epsilon u / Delta) is epsilon-DP (McSherry and Talwar 2007, Theorem 6, monotone
    # case; Dwork and Roth 2014, remark after Theorem 3.10): the ratio of the weights and
    # that of the normalisers then lie on opposite sides of 1.
    monotone = q == 0.0 or q == 1.0
    scale = (1.0 if monotone else 0.5) * epsilon / rank_utility_sensitivity(q)
    with np.errstate(divide="ignore"):
        logw = np.log(half_lengths) + scale * utility
    return half, half_lengths, logw


def exponential_quantiles(X, lower, upper, q, epsilon, rng):
    """One private ``q``-quantile per column of ``X``, each ``epsilon``-DP; NaN are absent.

    The exponential mechanism over the interval ``[lower_j, upper_j]`` (Smith 2011,
    Section 3; McSherry and Talwar 2007, Theorem 6; Dwork and Roth 2014, Theorem 3.10)
    with utility ``u(x) = -|#{i: x_i < x} - q n_j|``, ``n_j`` the number of non-missing
    values: the output density is proportional to ``exp(epsilon u(x) / (2 Delta))`` with
    ``Delta = max(q, 1 - q)``, the utility's sensitivity under add/remove of one row
    (:func:`rank_utility_sensitivity`: ``n_j`` changes with the row, which ``Delta``
    accounts for). The density is with respect to the length on the public interval, so
    ``f_D(x) / f_D'(x) = exp(epsilon (u_D(x) - u_D'(x)) / (2 Delta)) Z_D' / Z_D`` and each
    factor is at most ``exp(epsilon / 2)``: the release is ``epsilon``-DP per column. At
    ``q`` = 0 or 1 the utility is monotone in the data and the density is proportional to
    ``exp(epsilon u(x) / Delta)`` (the two factors then pull in opposite directions).
    Between two consecutive sorted values the utility is constant, so the mechanism picks
    the gap ``k`` with probability proportional to ``length_k exp(epsilon u_k /
    (2 Delta))`` (:func:`quantile_gaps`; Gumbel-max sampling, exact) and a uniform point
    inside it: that is the continuous density above, not an approximation of it.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Values, already clipped to the bounds; NaN marks a missing value.
    lower, upper : ndarray of shape (n_features,)
        Public bounds.
    q : float
        The quantile, in [0, 1].
    epsilon : float
        Budget of each column's release.
    rng : numpy.random.Generator

    Returns
    -------
    quantiles : ndarray of shape (n_features,)
    """
    half, half_lengths, logw = _half_gaps(X, lower, upper, q, epsilon)
    gap = np.argmax(logw + rng.gumbel(size=logw.shape), axis=0)
    cols = np.arange(X.shape[1])
    return 2.0 * (half[gap, cols] + rng.uniform(size=X.shape[1]) * half_lengths[gap, cols])


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
    # imputer release their counts with the noisy sums, the quantiles use it only inside the
    # exponential mechanism (whose utility's add/remove sensitivity covers it), the encoder's
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


def zcdp_noise_multiplier(epsilon, delta):
    """Noise multiplier ``z`` of one Gaussian release at ``(epsilon, delta)`` (sensitivity 1).

    The releases are granular (exact discrete Gaussian noise, see
    :func:`release_counts_and_sums`), whose guarantee is zCDP, not the continuous Gaussian's
    exact curve: noise ``z`` per unit of L2 sensitivity is ``1 / (2 z**2)``-zCDP (Canonne,
    Kamath and Steinke 2020, Theorems 4 and 14), and ``z`` is the smallest whose
    conversion (their Proposition 12, :func:`~skprivate.accounting._zcdp.zcdp_epsilon`) is
    within ``epsilon`` at ``delta``. It is 6 to 11 % above the analytic Gaussian's
    (Balle and Wang 2018) for epsilon in [0.1, 3] and delta in [1e-6, 1e-5]: the price of a
    guarantee that holds for the values the computer releases.
    """
    return gaussian_sigma_for_rho(1.0, zcdp_rho(epsilon, delta))


def zcdp_event(noise_multiplier):
    """The ``dp_accounting`` event of a Gaussian release with this noise multiplier: zCDP.

    ``ZCDpEvent(1 / (2 z**2))``, not a ``GaussianDpEvent``: a privacy-loss-distribution
    accountant would read the latter as the continuous Gaussian's curve, which the discrete
    noise does not have; its Renyi divergences are the continuous ones' at most (Canonne,
    Kamath and Steinke 2020, Proposition 5), which is what this event states.
    """
    from ..utils._compat import zcdp_dp_event

    return zcdp_dp_event(gaussian_rho(1.0, noise_multiplier))


def release_counts_and_sums(counts, sums, sigma, sums_sensitivity, rng):
    """Counts and clipped sums released with the same Gaussian noise ``sigma``, no float noise.

    The integer ``counts`` get exact discrete Gaussian noise ``N_Z(0, sigma**2)`` (Canonne,
    Kamath and Steinke 2020, Algorithm 3): an integer query of L2 sensitivity ``Delta_c`` is
    then ``Delta_c**2 / (2 sigma**2)``-zCDP (their Theorems 4 and 14). The real ``sums``, of
    L2 sensitivity ``sums_sensitivity``, go through
    :func:`~skprivate.mechanisms.granular_gaussian_mechanism` (rounded to a power-of-two grid,
    exact discrete Gaussian on it), which is ``sums_sensitivity**2 / (2 sigma**2)``-zCDP
    (module docstring of :mod:`skprivate.mechanisms._secure`). The two compose by adding
    their rhos (Bun and Steinke 2016, Lemma 2.3): the whole release has the zCDP of one
    Gaussian mechanism of noise ``sigma`` on the joint vector, whose L2 sensitivity squared is
    ``Delta_c**2 + sums_sensitivity**2``.

    Returns ``(noisy_counts, noisy_sums)``: integers (as float64) and multiples of the grid.
    """
    counts = np.asarray(counts)
    noisy_counts = counts + discrete_gaussian_noise(sigma, size=counts.shape, random_state=rng)
    noisy_sums = granular_gaussian_mechanism(
        np.asarray(sums, dtype=float), sums_sensitivity, sigma, random_state=rng
    )
    return noisy_counts.astype(np.float64), np.asarray(noisy_sums, dtype=np.float64)
