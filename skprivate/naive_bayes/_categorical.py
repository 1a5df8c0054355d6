"""Categorical naive Bayes from one pure-DP release of per-class category counts."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_non_negative

from .. import _caveats
from ..base import _resolve_classes
from ..mechanisms import discrete_laplace_noise
from ..utils._docstrings import SHARED_DOCS, Substitution
from ..utils._validation import validate_numeric
from ._base import _PrivateNB, check_priors, exact_scale

__all__ = ["CategoricalNB"]


def category_counts(X, y_index, n_classes, n_categories):
    """Exact counts: one ``(n_classes, n_categories[j])`` integer array per feature."""
    return [
        # a loop over features, each one vectorised count over all rows
        np.bincount(y_index * m + X[:, j], minlength=n_classes * m).reshape(n_classes, m)
        for j, m in enumerate(n_categories)
    ]


def _check_categories(min_categories, X, owner):
    """The number of categories of each feature, and the caveats if read from ``X``."""
    n_features = X.shape[1]
    if min_categories is None:
        # Read from the rows: the largest code of each feature is published exactly.
        n_categories = (X.max(axis=0) + 1 if X.shape[0] else np.ones(n_features)).astype(int)
        caveat = _caveats.bounds_from_data(
            ["min_categories"], "min_categories=[...] (the number of categories of each feature)"
        )
        return n_categories, [caveat]
    declared = np.asarray(min_categories)
    try:
        declared = np.broadcast_to(declared, (n_features,))
    except ValueError:
        raise ValueError(
            f"{owner}: min_categories must be one int or one per feature "
            f"(n_features={n_features}); got min_categories={min_categories!r}."
        ) from None
    if not np.issubdtype(declared.dtype, np.integer) or np.any(declared < 1):
        raise ValueError(
            f"{owner}: min_categories must hold ints >= 1, the number of categories of each "
            f"feature; got min_categories={min_categories!r}."
        )
    n_categories = declared.astype(int)
    beyond = np.flatnonzero(np.any(X >= n_categories, axis=0)) if X.shape[0] else []
    if len(beyond):
        raise ValueError(
            f"{owner}: features {list(beyond)[:5]!r} hold codes >= their declared number of "
            f"categories (min_categories={min_categories!r}). Declare every category of each "
            "feature in min_categories (codes 0 to min_categories - 1), without looking at "
            "the data, or drop those rows."
        )
    return n_categories, []


@Substitution(**SHARED_DOCS)
class CategoricalNB(_PrivateNB):
    """Categorical naive Bayes whose category counts are differentially private.

    A counterpart of :class:`sklearn.naive_bayes.CategoricalNB`: the number of rows of each
    class holding each category of each feature is released once with exact discrete
    Laplace noise, and the class counts, priors and category probabilities are computed
    from those noisy counts. The fit is ``epsilon``-DP (pure: ``delta_ = 0``) for
    add/remove-one-row neighbours; prediction is post-processing.

    Parameters
    ----------
    alpha : float, default=1.0
        Additive (Laplace/Lidstone) smoothing of the noisy counts, >= 0 (raised to 1e-10
        when smaller, as scikit-learn does: the noise can leave every count at 0).
    fit_prior : bool, default=True
        Whether to learn the class priors from the noisy counts; False: uniform.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes; when given, the counts do not set them.
    min_categories : int, array-like of shape (n_features,) or None, default=None
        The number of categories of each feature, known without looking at the data: the
        codes of feature ``j`` are ``0, ..., min_categories[j] - 1``, and a larger code in
        ``fit`` is an error (in prediction it counts as a category never seen). None reads
        each feature's largest code from the data: the fit then has no privacy guarantee
        (the codes are published in ``n_categories_``), and a
        :class:`~skprivate.exceptions.PrivacyLeakWarning` says so. scikit-learn's name,
        where the data may raise the number; here it is the number.
    epsilon : float, default=1.0
        Privacy budget of the fit, > 0.
    delta : float, default=1e-5
        Accepted for a uniform interface (pipelines and searches set it); the mechanism is
        pure, so ``delta_ = 0``.
    %(classes_public)s
    %(accountant)s
    %(random_state)s

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    category_count_ : list of ndarray of shape (n_classes, n_categories of feature j)
        Noisy count of each category of each feature per class (integers, at least 0).
    class_count_ : ndarray of shape (n_classes,)
        Noisy number of rows of each class: the mean over the features of the noisy
        category counts' sums (unclipped), at least 1.
    class_log_prior_ : ndarray of shape (n_classes,)
        Log-probability of each class.
    feature_log_prob_ : list of ndarray of shape (n_classes, n_categories of feature j)
        Log-probability of each category given the class, from the smoothed noisy counts.
    n_categories_ : ndarray of shape (n_features,)
        Number of categories of each feature.
    epsilon_ : float
        Privacy spent by the fit (add/remove-one-row neighbours).
    %(delta_)s
    %(privacy_report_)s
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    GaussianNB : Private naive Bayes for numeric features.
    sklearn.naive_bayes.CategoricalNB : The non-private estimator.

    Notes
    -----
    A row of class ``k`` adds 1 to exactly one count per feature (its category's, in class
    ``k``), so the vector of all counts has L1 sensitivity ``d`` (the number of features)
    under add/remove. Independent discrete Laplace noise of scale ``d / epsilon`` on every
    count is ``epsilon``-DP (the geometric mechanism: Ghosh, Roughgarden and Sundararajan
    2012; Dwork and Roth 2014, Theorem 3.6, whose ratio argument holds for integer noise).
    The classes' counts are not released separately: each feature's counts sum to the
    class count, so their mean over the features estimates it at no further cost
    (post-processing), with less noise than a separate release, which would have raised
    the sensitivity to ``d + 1``. Everything else is post-processing. The noise on each
    count is about ``d / epsilon``: it is small against classes of a few hundred rows for
    up to tens of features.

    References
    ----------
    .. [1] A. Ghosh, T. Roughgarden and M. Sundararajan, "Universally utility-maximizing
       privacy mechanisms", SIAM J. Comput. 2012.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from skprivate.naive_bayes import CategoricalNB
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, size=2000)
    >>> X = np.column_stack([(y + rng.integers(0, 2, size=2000)) % 3,
    ...                      rng.integers(0, 4, size=2000)])
    >>> clf = CategoricalNB(epsilon=1.0, min_categories=[3, 4], classes=[0, 1],
    ...                     random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the seed caveat: random_state=0
    ...     _ = clf.fit(X, y)
    >>> clf.epsilon_, clf.delta_
    (1.0, 0.0)
    >>> bool(clf.score(X, y) > 0.7)
    True
    """

    _parameter_constraints = {
        **_PrivateNB._dp_parameter_constraints,
        "alpha": [Interval(Real, 0, None, closed="left")],
        "fit_prior": ["boolean"],
        "class_prior": ["array-like", None],
        "min_categories": [Interval(Integral, 1, None, closed="left"), "array-like", None],
        "classes": ["array-like", None],
    }

    def __init__(self, *, alpha=1.0, fit_prior=True, class_prior=None, min_categories=None,
                 epsilon=1.0, delta=1e-5, classes=None, accountant=None, random_state=None):
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories
        self.epsilon = epsilon
        self.delta = delta
        self.classes = classes
        self.accountant = accountant
        self.random_state = random_state

    def _validate_X(self, X, y=None, reset=True):
        owner = type(self).__name__
        # As float first, for the clear error on a column that is not numeric; then the codes
        # as ints (truncated, as scikit-learn's CategoricalNB does).
        if y is None:
            X = validate_numeric(self, X, reset=reset, dtype=np.float64)
        else:
            X, y = validate_numeric(self, X, y, reset=reset, dtype=np.float64)
        check_non_negative(X, f"{owner} (input X)")
        return X.astype(np.int64), y

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Release the private category counts and derive the model from them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private training rows: each feature's categories coded ``0, 1, ...`` (an
            ``OrdinalEncoder`` with declared categories does this).
        y : array-like of shape (n_samples,)
            Their labels.

        Returns
        -------
        self : CategoricalNB
        """
        owner = type(self).__name__
        plan = self._begin_private_fit(X)  # reserved before any value is read
        X, y = self._validate_X(X, y)
        check_classification_targets(y)
        if plan is None:  # X had no shape before validation
            plan = self._reserve_plan(X.shape[0])
        rng = self._noise_rng()
        classes_, y_index, caveats = _resolve_classes(owner, self.classes, y)
        n_classes = len(classes_)
        class_prior = None if self.class_prior is None else check_priors(
            self.class_prior, n_classes, owner, "class_prior")
        n_categories, category_caveats = _check_categories(self.min_categories, X, owner)
        n_features = X.shape[1]

        exact = category_counts(X, y_index, n_classes, n_categories)
        sizes = [c.size for c in exact]
        # L1 sensitivity n_features (one count per feature moves by 1), discrete Laplace
        # noise of scale n_features / epsilon: epsilon-DP (geometric mechanism; see Notes).
        noise = discrete_laplace_noise(
            exact_scale(n_features, self.epsilon), size=sum(sizes), random_state=rng
        )
        noisy = [c + z.reshape(c.shape) for c, z in
                 zip(exact, np.split(noise, np.cumsum(sizes)[:-1]))]

        # Post-processing of the release: nothing below reads the rows.
        totals = np.mean([c.sum(axis=1) for c in noisy], axis=0)
        self.classes_ = classes_
        self.n_categories_ = n_categories
        self.class_count_ = np.maximum(totals.astype(float), 1.0)
        self.category_count_ = [np.maximum(c, 0).astype(float) for c in noisy]
        # Noise can leave a class with every count of a feature at 0: a positive alpha keeps
        # its probabilities defined (scikit-learn raises alpha to 1e-10 likewise).
        alpha = max(float(self.alpha), 1e-10)
        self.feature_log_prob_ = [
            np.log(counts + alpha) - np.log((counts + alpha).sum(axis=1, keepdims=True))
            for counts in self.category_count_
        ]
        if class_prior is not None:
            prior = class_prior
        elif self.fit_prior:
            prior = self.class_count_ / self.class_count_.sum()
        else:
            prior = np.full(n_classes, 1.0 / n_classes)
        with np.errstate(divide="ignore"):
            self.class_log_prior_ = np.log(prior)
        self._finish_private_fit(
            plan,
            {
                "mechanism": "discrete Laplace on the per-class category counts",
                "l1_sensitivity": n_features,
                "noise_scale": n_features / float(self.epsilon),
                "reference": "geometric mechanism (Ghosh, Roughgarden and Sundararajan 2012)",
            },
            None,  # pure DP: no delta to check against 1/n
            [*caveats, *category_caveats],
        )
        return self

    def _check_predict_X(self, X):
        X, _ = self._validate_X(X, reset=False)
        return X

    def _joint_log_likelihood(self, X):
        jll = np.tile(self.class_log_prior_, (X.shape[0], 1))
        for j, log_prob in enumerate(self.feature_log_prob_):
            codes = X[:, j]
            seen = codes < log_prob.shape[1]
            # A code never declared: no information about the class (a uniform term).
            jll[seen] += log_prob[:, codes[seen]].T
        return jll

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.positive_only = True
        return tags
