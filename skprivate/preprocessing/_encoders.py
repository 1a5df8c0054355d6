"""One-hot encoding with declared categories, or with categories found privately."""

import math

import numpy as np
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from .._dpsgd._plan import PUBLIC_N_SAMPLES
from .._forecast import value_needed, warn_forecast
from ..utils._docstrings import Substitution
from ._common import _PARAM_DOCS, _PrivateTransformer, check_transform_input

__all__ = ["OneHotEncoder"]


def _missing(values):
    """Vectorised test for None, NaN and pandas.NA in an object array."""
    test = np.frompyfunc(
        lambda v: v is None or (isinstance(v, float) and v != v) or type(v).__name__ == "NAType",
        1, 1,
    )
    return test(values).astype(bool)


def histogram_threshold(scale, delta_per_feature):
    """Smallest integer count ``T`` a bin needs to be released, and the exact scale used.

    A bin held by one row only (count 1) is released when ``1 + Z >= T`` with ``Z``
    discrete Laplace of scale ``t``: ``P(Z >= m) = p**m / (1 + p)`` with ``p = exp(-1/t)``
    (Canonne, Kamath and Steinke 2020, Definition 3 summed over the tail), so
    ``T = 1 + ceil(t ln(1 / (delta (1 + p))))`` makes that probability at most ``delta``.
    """
    from ..mechanisms import discrete_laplace_rational_scale

    t = float(discrete_laplace_rational_scale(scale))  # the scale the sampler uses (>= scale)
    p = math.exp(-1.0 / t)
    return 1 + max(math.ceil(t * math.log(1.0 / (delta_per_feature * (1.0 + p)))), 0), t


# The way out the encoder's forecast names: declared categories cost nothing.
_DECLARE_CATEGORIES = (
    "declare the categories (categories=[[...], ...] from a codebook: no privacy cost), "
    "or give the encoder a larger share of epsilon, or encode fewer columns privately"
)


@Substitution(**_PARAM_DOCS)
class OneHotEncoder(_PrivateTransformer):
    """One-hot encode categories that are declared, or found with differential privacy.

    A counterpart of :class:`sklearn.preprocessing.OneHotEncoder` for private rows. With
    declared ``categories`` it learns nothing from the rows and costs nothing. With
    ``categories="auto"`` it keeps only the values that a noisy count shows to be frequent
    (a differentially private histogram with a threshold), so a rare value, which could
    identify the one person who has it, never becomes a column. Values not kept, missing
    values (None, NaN) and unseen values are encoded as all zeros in their feature's block
    (scikit-learn's ``handle_unknown="ignore"``).

    Parameters
    ----------
    categories : "auto" or list of array-like, default="auto"
        ``"auto"``: find the frequent values of each feature privately. A list (one list
        of values per feature, from a codebook): used as given, at no privacy cost.
    epsilon : float, default=0.1
        Privacy budget of the discovery, > 0 (unused with declared categories).
    delta : float, default=1e-6
        Delta of the discovery, in (0, 1): the chance that a value held by one row is
        kept is at most ``delta / n_features``.
    sparse_output : bool, default=True
        Return a CSR matrix, as scikit-learn's encoder does; False for a dense array (and
        for ``set_output(transform="pandas")``).
    dtype : numpy dtype, default=np.float64
        Output dtype.
    %(accountant)s
    %(random_state)s

    Attributes
    ----------
    categories_ : list of ndarray
        The values encoded for each feature (sorted), in output order; may be empty for a
        feature with no frequent value.
    threshold_ : int or None
        The noisy count a value needed to be kept (None with declared categories).
    epsilon_, delta_ : float
        Privacy spent (0 with declared categories).
    privacy_report_ : PrivacyReport
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    See Also
    --------
    make_bounded_preprocessor : Declared categories and ranges for a whole table.

    Notes
    -----
    Discovery is the stability-based histogram (Korolova, Kenthapadi, Mishra and Ntoulas
    2009; Vadhan 2017, Proposition 3.5; the thresholded Laplace of Gopi et al. 2020 for
    DP set union), with exact discrete Laplace noise. Each row holds one value per
    feature, so adding or removing it changes ``d`` counts by 1 (L1 sensitivity ``d``):
    the counts of values present in the rows get discrete Laplace noise of scale
    ``d / epsilon``, which is ``epsilon``-DP on the values present in both neighbours
    (Canonne, Kamath and Steinke 2020). A value present in one neighbour only has count 1
    there, and is kept only if its noisy count reaches ``threshold_``, which happens with
    probability at most ``delta / d`` per feature, ``delta`` in all. Only the set of kept
    values is released, never the counts (the report's ``delta >= 1/n`` check reads the

    A feature that keeps no category is announced by a
    :class:`~skprivate.exceptions.UtilityWarning` (read from the released categories; before
    any value is read when the number of rows is public and below ``threshold_``).
    largest sum of one feature's kept noisy counts: post-processing of that release).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from skprivate.preprocessing import OneHotEncoder
    >>> rng = np.random.default_rng(0)
    >>> X = rng.choice(["a", "b", "c"], p=[0.6, 0.4 - 1e-4, 1e-4], size=(50000, 1))
    >>> X[0, 0] = "only-one-person"
    >>> enc = OneHotEncoder(epsilon=0.5, sparse_output=False, random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the seed caveat: random_state=0
    ...     _ = enc.fit(X)
    >>> enc.categories_
    [array(['a', 'b'], dtype=object)]
    >>> enc.get_feature_names_out()
    array(['x0_a', 'x0_b'], dtype=object)

    Declared categories cost nothing:

    >>> enc = OneHotEncoder(categories=[["a", "b", "c"]], sparse_output=False).fit(X)
    >>> enc.epsilon_, enc.transform([["c"], ["zzz"]])
    (0.0, array([[0., 0., 1.],
           [0., 0., 0.]]))
    """

    _parameter_constraints = {
        **_PrivateTransformer._dp_parameter_constraints,
        "categories": ["array-like", StrOptions({"auto"})],
        "sparse_output": ["boolean"],
        "dtype": [type, np.dtype, str],
    }

    # Spelled out like every transformer's __init__ here (a repetition kept on purpose):
    # scikit-learn reads an estimator's parameters from its own __init__ signature.
    def __init__(self, categories="auto", epsilon=0.1, delta=1e-6, sparse_output=True,
                 dtype=np.float64, accountant=None, random_state=None):
        self.categories = categories
        self.epsilon = epsilon
        self.delta = delta
        self.sparse_output = sparse_output
        self.dtype = dtype
        self.accountant = accountant
        self.random_state = random_state

    def _declared(self):
        return not isinstance(self.categories, str)

    def _privacy_plan(self, n_samples):
        if self._declared():
            return self._privacy_spend(0.0, 0.0)
        return self._privacy_spend(self.epsilon, self.delta)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fix the categories: as declared, or the frequent ones found privately.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private data, any values comparable within a column.
        y : None
            Ignored.

        Returns
        -------
        self : OneHotEncoder
        """
        name = type(self).__name__
        declared = self._declared()
        X, plan = self._reserve_and_validate(
            X, free=declared, dtype=None, ensure_all_finite=False
        )
        X = np.asarray(X, dtype=object)
        d = X.shape[1]
        if declared:
            if len(self.categories) != d:
                raise ValueError(
                    f"{name}: categories has {len(self.categories)} lists but X has {d} "
                    "features; pass one list of values per feature."
                )
            self.categories_ = [np.asarray(list(c), dtype=object) for c in self.categories]
            self.threshold_ = None
            self._finish_free_fit("none: declared categories, nothing read from the rows")
            return self
        rng = self._noise_rng()
        from ..mechanisms import discrete_laplace_noise

        threshold, scale = histogram_threshold(d / self.epsilon, self.delta / d)
        forecast_warned = self._forecast_keeps_nothing(threshold, d)
        missing = _missing(X)
        self.categories_ = []
        released_n = 0  # the most rows any feature's kept noisy counts add up to
        for j in range(d):  # one histogram per feature; the rows are counted vectorised
            values = X[~missing[:, j], j]
            try:
                uniq, counts = np.unique(values, return_counts=True)
            except TypeError:
                raise TypeError(
                    f"{name}: the values of feature {j} cannot be compared with each other "
                    "(mixed types such as str and float); convert the column to one type."
                ) from None
            noise = discrete_laplace_noise(scale, size=len(uniq), random_state=rng)
            noisy = counts + np.asarray(noise, dtype=np.int64).reshape(-1)
            kept = noisy >= threshold
            self.categories_.append(np.asarray(uniq[kept], dtype=object))
            released_n = max(released_n, int(noisy[kept].sum()))
        self.threshold_ = int(threshold)
        empty = [j for j, cats in enumerate(self.categories_) if not len(cats)]
        if empty and not forecast_warned:
            # From the released categories only (post-processing): never a silent loss.
            names = getattr(self, "feature_names_in_", None)
            which = ", ".join(
                str(names[j]) if names is not None else f"x{j}" for j in empty[:5]
            ) + (", ..." if len(empty) > 5 else "")
            warn_forecast(
                self,
                f"kept no category in {len(empty)} of {d} features ({which}): at "
                f"epsilon={self.epsilon:g} over {d} features a value needs a noisy count "
                f"of at least threshold_={int(threshold):,} rows to be kept, so the model "
                "after it sees none of these columns",
                None,
                _DECLARE_CATEGORIES,
                epsilon=self.epsilon, rows_needed=int(threshold),
                source="read from the released categories only, at no privacy cost",
            )
        self._finish_private_fit(
            plan,
            {
                "mechanism": "thresholded discrete Laplace histogram per feature",
                "noise_scale": scale,
                "threshold": int(threshold),
                # From the released categories (post-processing): the report says what the
                # model after the encoder can see.
                "features with no category kept": len(empty),
                "reference": "Korolova et al. 2009; Vadhan 2017, Prop. 3.5; "
                             "Canonne, Kamath and Steinke 2020",
            },
            # not X.shape[0]: the delta caveat prints 1/n into the published report
            released_n,
        )
        return self

    def _forecast_keeps_nothing(self, threshold, n_features):
        """Warn before any value is read when no value can reach ``threshold``.

        Only where the number of rows is public (set by a private search that planned on
        it): a table of ``n`` rows has no value held by more than ``n`` rows, so with ``n``
        below the threshold every feature is kept empty with probability at least 1/2
        (the discrete Laplace noise is symmetric). The epsilon named is the one whose
        threshold a value held by half the rows reaches.
        """
        n_rows = getattr(self, PUBLIC_N_SAMPLES, None)
        if n_rows is None or int(n_rows) >= threshold:
            return False
        n_rows = int(n_rows)
        d, delta = n_features, self.delta

        def margin(epsilon):  # rows of the half-table value above the threshold
            return n_rows / 2 - histogram_threshold(d / epsilon, delta / d)[0]

        warn_forecast(
            self,
            f"at epsilon={self.epsilon:g} over {d} features a value needs a noisy count of "
            f"at least {int(threshold):,} rows to be kept, more than the {n_rows:,} rows "
            "of the table, so no category will be kept and the model after it will see "
            "none of these columns",
            None,
            _DECLARE_CATEGORIES,
            epsilon=self.epsilon, rows_needed=int(threshold),
            epsilon_needed=value_needed(margin, 0.0, float(self.epsilon)),
        )
        return True

    def transform(self, X):
        """One-hot encode ``X``; values not in ``categories_`` give all zeros.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Values to encode, compared with ``categories_`` by equality.

        Returns
        -------
        X_out : sparse matrix or ndarray of shape (n_samples, n_encoded)
        """
        X = np.asarray(
            check_transform_input(self, X, dtype=None, ensure_all_finite=False), dtype=object
        )
        rows, cols, offset = [], [], 0
        for j, cats in enumerate(self.categories_):
            if len(cats):
                hit = X[:, j][:, None] == cats[None, :]
                r, c = np.nonzero(hit)
                rows.append(r)
                cols.append(c + offset)
            offset += len(cats)
        rows = np.concatenate(rows) if rows else np.zeros(0, dtype=int)
        cols = np.concatenate(cols) if cols else np.zeros(0, dtype=int)
        out = sp.csr_matrix(
            (np.ones(len(rows), dtype=self.dtype), (rows, cols)), shape=(X.shape[0], offset)
        )
        return out if self.sparse_output else out.toarray()

    def get_feature_names_out(self, input_features=None):
        """``"<feature>_<category>"`` for every output column.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Input names; default ``feature_names_in_`` or ``x0, x1, ...``.

        Returns
        -------
        feature_names_out : ndarray of str
        """
        check_is_fitted(self)
        if input_features is None:
            input_features = getattr(
                self, "feature_names_in_", [f"x{i}" for i in range(self.n_features_in_)]
            )
        elif len(input_features) != self.n_features_in_:
            raise ValueError(
                f"input_features should have length {self.n_features_in_}; got "
                f"{len(input_features)}."
            )
        return np.asarray(
            [f"{f}_{c}" for f, cats in zip(input_features, self.categories_) for c in cats],
            dtype=object,
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags
