"""Gaussian naive Bayes from one pure-DP release of class counts, sums and sums of squares."""

import math
from fractions import Fraction
from numbers import Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import check_classification_targets

from ..base import _resolve_classes
from ..mechanisms import discrete_laplace_noise, granular_laplace_mechanism
from ..preprocessing._common import resolve_bounds
from ..utils._docstrings import SHARED_DOCS, Substitution
from ..utils._validation import validate_numeric
from ._base import _PrivateNB, check_priors, exact_rest, exact_scale

__all__ = ["GaussianNB"]

# Each clipped value is mapped to u in [-1, 1] (centred at the bounds' midpoint) and rounded
# to a multiple of 2**-U_BITS, so that every sum below is a sum of integers, exact in
# float64 whatever the order of addition: the sensitivity is a bound on the statistic the
# computer releases, not only on its real-valued ideal. 2**-12 of the half-width is far
# below the noise (at epsilon 1 the noise on a mean is d / n of the half-width).
U_BITS = 12
# Sums of rounded squares are exact integers in float64 up to 2**53 / 2**(2 U_BITS) rows.
MAX_ROWS = 2 ** (53 - 2 * U_BITS)
# Weight w of the sums of squares against the sums in the one Laplace release, with the
# squares offset by t (square_offset): a row adds |u| + w |u**2 - t| per feature. At w = 1/2
# and t = 1 that is |u| + (1 - u**2) / 2 <= 1, attained at |u| = 1, the bound of the sums
# alone: the sums of squares cost no sensitivity at all, and carry twice the sums' noise
# (the pooled variance averages it over all n rows, the means over one class's). A larger
# w costs sensitivity, (1 + w + 1 / (4 w)) / 2 per feature. Measured among w = 1/2, 3/4, 1,
# 3/2, 2, 3 and 4 on the data of benchmarks/naive_bayes.py (four seeds, epsilon 0.1 to 4):
# w = 1/2 was best or within the seeds' spread everywhere; at epsilon 1, digits 0.60
# against 0.51 (w = 1) and 0.35 (w = 2), breast cancer scaled to [0, 1] 0.89 against 0.88
# and 0.85.
VARIANCE_WEIGHT = Fraction(1, 2)


def square_offset(weight=None):
    """The offset ``t`` subtracted from each ``u**2``: it minimises the row's L1 contribution.

    A row's contribution to a feature's (sum, weighted sum of squares) is
    ``h(u) = |u| + w |u**2 - t|`` for ``u`` in [-1, 1]. On ``u**2 >= t`` it grows with
    ``|u|`` up to ``h(1) = 1 + w (1 - t)``; on ``u**2 <= t`` it is concave with maximum
    ``1 / (4 w) + w t`` at ``|u| = 1 / (2 w)`` (inside that region for ``w >= 1/2`` and the
    ``t`` below). The larger of the two is smallest where they meet,
    ``t = (1 + w - 1 / (4 w)) / (2 w)`` (``t = 1`` at ``w = 1/2``); it is rounded to the
    grid of the rounded squares (``2**-(2 U_BITS)``), where the statistic is computed
    exactly.
    """
    weight = Fraction(VARIANCE_WEIGHT if weight is None else weight)
    t = (1 + weight - 1 / (4 * weight)) / (2 * weight)
    grid = 2 ** (2 * U_BITS)
    return Fraction(round(t * grid), grid)


def feature_sensitivity(weight=None, offset=None):
    """``max_u |u| + w |u**2 - t|`` over ``u`` in [-1, 1], exactly (see :func:`square_offset`).

    With ``t`` the optimum this is ``(1 + w + 1 / (4 w)) / 2``: 1 at ``w = 1/2`` (the
    bound of the sums alone), 1.5625 at ``w = 2``; uncentred squares (``t = 0``) would
    cost ``1 + w``.
    """
    weight = Fraction(VARIANCE_WEIGHT if weight is None else weight)
    t = square_offset(weight) if offset is None else Fraction(offset)
    if not (weight >= Fraction(1, 2) and 1 / (4 * weight**2) <= t <= 1):  # pragma: no cover
        raise ValueError(f"the bound needs w >= 1/2 and 1/(4 w**2) <= t <= 1; got {weight}, {t}")
    return max(1 + weight * (1 - t), 1 / (4 * weight) + weight * t, weight * t)


def _float_up(value):
    """The smallest float ``>= value`` (a Fraction): a sensitivity may be rounded up only."""
    out = float(value)
    return out if Fraction(out) >= value else math.nextafter(out, math.inf)


def count_share(n_features, weight=None):
    """Share of ``epsilon`` for the class counts: ``1 / (1 + (d g)**(2/3))``.

    The counts (L1 sensitivity 1) and the sums (L1 sensitivity ``d g``, ``g`` from
    :func:`feature_sensitivity`) each enter a mean as ``(sum + noise) / (count + noise)``;
    the summed squared error ``1 / eps_c**2 + (d g)**2 / eps_s**2`` under
    ``eps_c + eps_s = epsilon`` is least at ``eps_c / eps_s = (d g)**(-2/3)``. With
    ``g = 1``: 9 % of epsilon with 30 features, 23 % with 5.
    """
    dg = n_features * float(feature_sensitivity(weight))
    return 1.0 / (1.0 + dg ** (2.0 / 3.0))


def moment_statistics(U_int, y_index, n_classes, offset_int, weight=None):
    """The exact per-class statistics, in integer grid units (floats holding integers).

    ``U_int`` holds ``round(u * 2**U_BITS)``; returns ``(counts, sums, squares)`` with
    ``counts[k]`` the rows of class ``k``, ``sums[k, j] = sum u_int`` and
    ``squares[k, j] = w * sum (u_int**2 - offset_int)`` over the rows of class ``k``
    (``offset_int = t * 2**(2 U_BITS)``). Integers below ``2**53``: exact in any order.
    """
    weight = VARIANCE_WEIGHT if weight is None else weight
    n_features = U_int.shape[1]
    counts = np.bincount(y_index, minlength=n_classes).astype(float)
    sums = np.zeros((n_classes, n_features))
    squares = np.zeros((n_classes, n_features))
    for k in range(n_classes):  # a loop over classes, each a vectorised pass over its rows
        rows = U_int[y_index == k]
        sums[k] = rows.sum(axis=0)
        squares[k] = (rows * rows).sum(axis=0)
    squares = (squares - counts[:, None] * float(offset_int)) * float(weight)
    return counts, sums, squares


def _release(X01, y_index, n_classes, epsilon, rng):
    """Noisy class counts, per-class sums and pooled weighted sums of squares.

    ``X01`` holds the rows mapped to [-1, 1]^d. Returns ``(counts, sums, squares, info)``:
    ``counts`` of shape ``(n_classes,)`` (integers), ``sums`` of shape
    ``(n_classes, d)`` in units of ``u``, ``squares`` of shape ``(d,)``, the sums over all
    rows of ``w (u**2 - t)``; ``info`` the budget split and noise scales for the report.
    """
    n_features = X01.shape[1]
    U_int = np.rint(np.clip(X01, -1.0, 1.0) * 2.0**U_BITS)
    t = square_offset()
    offset_int = int(t * 2 ** (2 * U_BITS))
    counts, sums, squares = moment_statistics(U_int, y_index, n_classes, offset_int)
    eps_counts = float(epsilon) * count_share(n_features)
    eps_moments = exact_rest(epsilon, eps_counts)
    # Class counts: L1 sensitivity 1 under add/remove (a row is in one class), exact
    # discrete Laplace noise of scale 1 / eps_counts: the geometric mechanism (Ghosh,
    # Roughgarden and Sundararajan 2012; Dwork and Roth 2014, Theorem 3.6 with
    # integer noise), eps_counts-DP.
    noisy_counts = counts + discrete_laplace_noise(
        exact_scale(1, eps_counts), size=n_classes, random_state=rng
    )
    # Sums of all classes and pooled weighted sums of squares in one vector: a row changes
    # only its own class's d sums and the d pooled squares, by at most g per feature
    # (feature_sensitivity), so the whole vector's L1 sensitivity is d g, the classes'
    # disjointness (parallel composition) being counted in the sensitivity. The granular
    # Laplace mechanism (skprivate.mechanisms._secure, module docstring) releases it
    # eps_moments-DP exactly; with the counts, eps_counts + eps_moments <= epsilon by basic
    # composition (Dwork and Roth 2014, Theorem 3.16).
    sensitivity = n_features * feature_sensitivity()
    scale = Fraction(2**U_BITS)  # the statistic in units of u (exact: a power of two)
    # The sums of squares are pooled over the classes (d numbers, not K d): each rests on all
    # n rows instead of one class's, so the pooled within-class variance carries about K
    # times less noise than per-class variances. Measured (at w = 2) on the data of
    # benchmarks/naive_bayes.py, four seeds: breast cancer 0.68 / 0.82 at epsilon 1 / 4
    # against 0.63 / 0.68 per class, Adult and digits alike within the seeds' spread.
    squares = squares.sum(axis=0)
    vector = np.concatenate([sums.ravel(), squares.ravel() / float(2**U_BITS)]) / float(scale)
    released = granular_laplace_mechanism(
        vector, _float_up(sensitivity), eps_moments, random_state=rng
    )
    noisy_sums = released[: sums.size].reshape(sums.shape)
    noisy_squares = released[sums.size:].reshape(squares.shape)
    laplace_scale = float(sensitivity) / eps_moments
    info = {
        "epsilon_counts": eps_counts,
        "epsilon_moments": eps_moments,
        "l1_sensitivity_moments": float(sensitivity),
        "count_noise_scale": 1.0 / eps_counts,
        "sum_noise_scale": laplace_scale,
        "square_noise_scale": laplace_scale / float(VARIANCE_WEIGHT),
        "offset": float(t),
    }
    return noisy_counts, noisy_sums, noisy_squares, info


_DOCS = {
    **SHARED_DOCS,
    "bounds": """
    bounds : tuple (lower, upper) or None, default=None
        Public range of each feature: two numbers, or two arrays of length
        ``n_features``, known without looking at the data (a codebook, the instrument's
        range). Values are clipped to it in ``fit`` and in prediction. The noise grows with
        the width of the range: declare it tight. ``None`` reads each feature's minimum
        and maximum from the data: the fit then has no privacy guarantee (the range is
        released exactly in ``bounds_``), a
        :class:`~skprivate.exceptions.PrivacyLeakWarning` says so, and every total
        (:func:`~skprivate.accounting.leaking_steps`,
        :func:`~skprivate.accounting.total_privacy_cost`) lists the step as not covered.""",
}


@Substitution(**_DOCS)
class GaussianNB(_PrivateNB):
    """Gaussian naive Bayes whose class counts, means and variances are differentially private.

    A counterpart of :class:`sklearn.naive_bayes.GaussianNB`: one release of noisy class
    counts (exact discrete Laplace noise) and of per-class sums and sums of squares of the
    clipped features (the granular Laplace mechanism), from which the means, variances and
    priors are computed. The fit is ``epsilon``-DP (pure: ``delta_ = 0``) for
    add/remove-one-row neighbours; prediction is post-processing.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes, in the order of ``classes_``. None: from the
        noisy class counts.
    var_smoothing : float, default=1e-9
        Fraction of the largest variance a feature can have inside its bounds,
        ``((upper - lower) / 2)**2``, added to every variance (scikit-learn takes it of the
        largest variance in the data, which is private here).
    epsilon : float, default=1.0
        Privacy budget of the fit, > 0.
    delta : float, default=1e-5
        Accepted for a uniform interface (pipelines and searches set it); the mechanism is
        pure, so ``delta_ = 0``.
    %(bounds)s
    %(classes_public)s
    %(accountant)s
    %(random_state)s

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    class_count_ : ndarray of shape (n_classes,)
        Noisy number of training rows of each class (integers, at least 1).
    class_prior_ : ndarray of shape (n_classes,)
        Probability of each class: ``priors``, or the noisy counts normalised.
    theta_ : ndarray of shape (n_classes, n_features)
        Private mean of each (clipped) feature per class.
    var_ : ndarray of shape (n_classes, n_features)
        Private within-class variance of each feature, pooled over the classes (the rows
        are equal), at least ``var_floor_``.
    var_floor_ : ndarray of shape (n_classes, n_features)
        The least variance: ``var_smoothing`` of the bounds' squared half-width plus the
        standard deviation of the pooled variance's noise (a noise-level floor: a noisy near-zero
        variance would otherwise decide every prediction). Public numbers and the noisy
        counts only.
    bounds_ : tuple of ndarray
        The clipping range used.
    epsilon_ : float
        Privacy spent by the fit (add/remove-one-row neighbours). Not scikit-learn's
        ``epsilon_`` (an absolute variance added), which is ``var_floor_`` here.
    %(delta_)s
    %(privacy_report_)s
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    CategoricalNB : Private naive Bayes for categorical features.
    sklearn.naive_bayes.GaussianNB : The non-private estimator.

    Notes
    -----
    Each feature ``x_j`` is clipped to ``[a_j, b_j]`` and mapped to
    ``u_j = (x_j - c_j) / r_j`` in [-1, 1] (``c`` the midpoint, ``r`` the half-width),
    rounded to a multiple of ``2**-12`` so that every sum is exact. The fit releases, in one
    go:

    - the count ``n_k`` of each class ``k``, with discrete Laplace noise of scale ``1 / epsilon_c``: a row is in
      one class, so the counts' L1 sensitivity is 1 and the release is ``epsilon_c``-DP
      (the geometric mechanism, Ghosh, Roughgarden and Sundararajan 2012);
    - the sums ``sum u_j`` of class ``k`` and, pooled over the classes, the sums
      ``sum (u_j**2 - 1) / 2``: a row changes its class's ``d`` sums and the ``d`` pooled
      sums, by ``|u| + (1 - u**2) / 2 <= 1`` per feature, so the vector of all classes has
      L1 sensitivity ``d``, no more than the sums alone (the classes are disjoint:
      parallel composition is in the sensitivity). The granular Laplace mechanism releases
      it ``epsilon_s``-DP exactly
      (:func:`~skprivate.mechanisms.granular_laplace_mechanism`); the squares carry twice
      the sums' noise, before it is averaged over all the rows.

    ``epsilon_c + epsilon_s <= epsilon`` in exact arithmetic (basic composition, Dwork and
    Roth 2014, Theorem 3.16); ``epsilon_c = epsilon / (1 + d**(2/3))`` balances the two noises' effect on the
    means. No noise and no plan depends on the number of rows, so it needs no
    separate count. The means ``sum u / n_k``, the variance
    ``sum u**2 / n - sum_k (n_k / n) mean_k**2`` (the within-class variance pooled over the
    classes, clipped to [0, 1] and floored at ``var_floor_``) and the priors are
    post-processing. Unlike scikit-learn's, ``var_`` is the same for every class: a
    variance per class would rest on one class's rows and carry about ``n_classes`` times
    the noise, which cost accuracy on every table measured at epsilon <= 1. The noise on a
    mean has a standard deviation of about ``1.5 d / (epsilon n_k)`` half-widths: tight
    bounds and a few informative features matter more than epsilon.

    References
    ----------
    .. [1] A. Ghosh, T. Roughgarden and M. Sundararajan, "Universally utility-maximizing
       privacy mechanisms", SIAM J. Comput. 2012.
    .. [2] J. Vaidya, B. Shafiq, A. Basu and Y. Hong, "Differentially private naive Bayes
       classification", WI-IAT 2013.

    Examples
    --------
    >>> import warnings
    >>> from sklearn.datasets import load_iris
    >>> from skprivate.naive_bayes import GaussianNB
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = GaussianNB(epsilon=1.0, bounds=(0, 8), classes=[0, 1, 2], random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the seed caveat: random_state=0
    ...     _ = clf.fit(X, y)
    >>> clf.epsilon_, clf.delta_
    (1.0, 0.0)
    >>> bool(clf.score(X, y) > 0.8)
    True
    """

    _parameter_constraints = {
        **_PrivateNB._dp_parameter_constraints,
        "priors": ["array-like", None],
        "var_smoothing": [Interval(Real, 0, None, closed="left")],
        "bounds": [tuple, list, None],
        "classes": ["array-like", None],
    }

    def __init__(self, *, priors=None, var_smoothing=1e-9, epsilon=1.0, delta=1e-5,
                 bounds=None, classes=None, accountant=None, random_state=None):
        self.priors = priors
        self.var_smoothing = var_smoothing
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.classes = classes
        self.accountant = accountant
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Release the private class counts, means and variances.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private training rows, numeric, without missing values.
        y : array-like of shape (n_samples,)
            Their labels.

        Returns
        -------
        self : GaussianNB
        """
        owner = type(self).__name__
        plan = self._begin_private_fit(X)  # reserved before any value is read
        X, y = validate_numeric(self, X, y, reset=True, dtype=np.float64)
        check_classification_targets(y)
        if plan is None:  # X had no shape before validation
            plan = self._reserve_plan(X.shape[0])
        if X.shape[0] > MAX_ROWS:
            raise ValueError(
                f"{owner}: at most {MAX_ROWS} rows per fit (the sums are computed exactly in "
                f"float64); got {X.shape[0]}. Fit on a sample of the rows."
            )
        rng = self._noise_rng()
        classes_, y_index, caveats = _resolve_classes(owner, self.classes, y)
        n_classes = len(classes_)
        priors = None if self.priors is None else check_priors(
            self.priors, n_classes, owner, "priors")
        lower, upper, bound_caveats = resolve_bounds(self.bounds, X, owner)
        # Halved before they are added: (upper - lower) overflows for bounds beyond +-9e307.
        centre, half = upper / 2.0 + lower / 2.0, upper / 2.0 - lower / 2.0
        U = (np.clip(X, lower, upper) - centre) / half
        counts, sums, squares, info = _release(U, y_index, n_classes, self.epsilon, rng)

        # Post-processing of the release: nothing below reads the rows.
        n = np.maximum(counts, 1.0)
        mean_u = np.clip(sums / n[:, None], -1.0, 1.0)
        weight, t = float(VARIANCE_WEIGHT), info["offset"]
        total = n.sum()
        second = np.clip(squares / (weight * total) + t, 0.0, 1.0)
        # Within-class variance pooled over the classes: E[u**2] - sum_k p_k mean_k**2.
        var_u = np.clip(second - (n[:, None] * mean_u**2).sum(axis=0) / total, 0.0, 1.0)
        # The variance's noise: Laplace of scale square_noise_scale on sum u**2, standard
        # deviation sqrt(2) times that, divided by the noisy count.
        floor_u = float(self.var_smoothing) + np.sqrt(2.0) * info["square_noise_scale"] / total
        var_u = np.broadcast_to(np.maximum(var_u, floor_u), mean_u.shape)
        floor_u = np.full(mean_u.shape, floor_u)

        self.classes_ = classes_
        self.class_count_ = n
        self.class_prior_ = priors if priors is not None else n / n.sum()
        self.bounds_ = (lower, upper)
        self.theta_ = centre + half * mean_u
        with np.errstate(over="ignore"):  # a variance beyond the largest double is inf
            self.var_ = var_u * half**2
            self.var_floor_ = floor_u * half**2
        self._finish_private_fit(
            plan,
            {
                "mechanism": (
                    "discrete Laplace on the class counts; granular Laplace on the per-class "
                    "sums and weighted sums of squares of the clipped features"
                ),
                "epsilon (class counts)": info["epsilon_counts"],
                "epsilon (sums and squares)": info["epsilon_moments"],
                "l1_sensitivity (sums and squares)": info["l1_sensitivity_moments"],
                "composition": "basic (Dwork and Roth 2014, Theorem 3.16)",
                "reference": (
                    "geometric mechanism (Ghosh, Roughgarden and Sundararajan 2012); "
                    "granular Laplace (skprivate.mechanisms.granular_laplace_mechanism)"
                ),
            },
            None,  # pure DP: no delta to check against 1/n
            [*caveats, *bound_caveats],
        )
        return self

    def _check_predict_X(self, X):
        X = validate_numeric(self, X, reset=False, dtype=np.float64)
        return np.clip(X, *self.bounds_)

    def _joint_log_likelihood(self, X):
        # A variance beyond the largest double (bounds wider than about 1e154) is the same
        # for every class (pooled): its feature shifts every class's term alike and is left
        # out, instead of turning every probability into NaN.
        var = np.where(np.isfinite(self.var_), self.var_, np.inf)
        used = np.isfinite(var)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            log_det = -0.5 * np.sum(np.where(used, np.log(2.0 * np.pi * var), 0.0), axis=1)
            jll = np.empty((X.shape[0], len(self.classes_)))
            for k in range(len(self.classes_)):  # a loop over classes, not samples
                terms = np.where(used[k], (X - self.theta_[k]) ** 2 / var[k], 0.0)
                jll[:, k] = log_det[k] - 0.5 * np.sum(terms, axis=1)
        with np.errstate(divide="ignore"):
            return jll + np.log(self.class_prior_)
