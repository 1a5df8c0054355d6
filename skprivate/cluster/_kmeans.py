"""Differentially private k-means: a private dense-cell initialisation, then noisy Lloyd."""

import math
from numbers import Integral

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.cluster import KMeans as _PublicKMeans
from sklearn.metrics import euclidean_distances
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._row_count import count_report, release_row_count, rest_epsilon
from ..accounting._zcdp import gaussian_sigma_for_rho, zcdp_epsilon, zcdp_rho
from ..base import DPEstimatorMixin
from ..preprocessing._common import _PARAM_DOCS, resolve_bounds
from ..utils._compat import zcdp_dp_event
from ..utils._docstrings import SHARED_DOCS, Substitution
from ..utils._validation import validate_numeric
from . import _lloyd

__all__ = ["KMeans"]

#: Shares of the zCDP budget: the tree of noisy counts, and (rows of more than
#: ``_lloyd.MAX_TREE_DIMENSION`` features, where a cell's centre is not a point of the
#: feature space) the noisy sums of the rows in its leaves; the rest goes to Lloyd.
TREE_SHARE = 0.3
LEAF_SHARE = 0.2
#: A tree cell survives when its noisy count is at least this many noise deviations.
THRESHOLD_STDS = 2.0
#: ``max_iter="auto"`` runs as many Lloyd iterations as keep the noise of a centre below
#: this fraction of the cube's half-width, and at most :data:`MAX_AUTO_ITER`.
AUTO_CENTRE_ERROR = 0.05
MAX_AUTO_ITER = 5
#: Restarts of the non-private k-means on the leaves (a few hundred weighted points: cheap).
N_INIT = 20


class LabelsNotReleasedError(AttributeError):
    """``labels_`` of a private k-means: not kept, since it is a function of every row."""


def _tree_depth(p, n_plan, rho_tree):
    """Levels of the tree on ``p`` coordinates, from public numbers and the noisy count.

    Every level costs the same share of ``rho_tree`` whether or not a cell survives, so the
    tree stops where cells could no longer clear the threshold: the deepest level ``D``
    with ``D <= log2(n / threshold(D))`` (``n`` rows spread evenly over ``2**D`` cells), at
    least ``p`` (one halving of each coordinate) and at most about 20 (up to 8 halvings of
    each coordinate). Clustered rows fill some cells far beyond ``n / 2**D``, but going 2
    or 4 levels deeper than this did worse on digits and breast cancer and no better on
    blobs (``benchmarks/kmeans.py``): the deeper levels' noise costs more than they find.
    """
    cap = p * max(2, min(8, 20 // p))
    for depth in range(cap, p, -1):
        sigma = gaussian_sigma_for_rho(math.sqrt(depth), rho_tree)
        if depth <= math.log2(n_plan / (THRESHOLD_STDS * sigma)):
            return depth
    return p


def _auto_iterations(n_plan, n_clusters, n_features, rho_lloyd, sum_share):
    """Lloyd iterations for ``max_iter="auto"``, from public numbers and the noisy count.

    With ``T`` iterations the sums of one iteration get ``rho_lloyd / T``, and the noise of
    a centre of ``n / k`` rows (in the cube ``[-1, 1]^d``) is about
    ``sqrt(d) sigma_sum / (n / k)`` with ``sigma_sum = sqrt(d T / (2 sum_share rho_lloyd))``:
    it grows as ``sqrt(T)``. The most iterations whose noise stays below
    :data:`AUTO_CENTRE_ERROR`, at least 1, at most :data:`MAX_AUTO_ITER`: a good start
    needs few (measured in ``benchmarks/kmeans.py``).
    """
    one = n_features * math.sqrt(1.0 / (2.0 * sum_share * rho_lloyd)) * n_clusters / n_plan
    return int(min(MAX_AUTO_ITER, max(1, math.floor((AUTO_CENTRE_ERROR / one) ** 2))))


_KMEANS_DOCS = {
    "bounds": """
    bounds : tuple (lower, upper) or None, default=None
        Public range of each feature: two numbers, or two arrays of length
        ``n_features``, known without looking at the data (a codebook, the instrument's
        range). Rows are clipped to it in ``fit``; the centres lie inside it. ``None``
        reads each feature's minimum and maximum from the data: the fit then has no
        privacy guarantee (the range is released exactly in ``bounds_``), a
        :class:`~skprivate.exceptions.PrivacyLeakWarning` says so, and every total
        (:func:`~skprivate.accounting.leaking_steps`,
        :func:`~skprivate.accounting.total_privacy_cost`) lists the fit as not covered.""",
    "accountant": SHARED_DOCS["accountant"],
    "random_state": _PARAM_DOCS["random_state"],
    "n_samples_public": SHARED_DOCS["n_samples_public"],
}


@Substitution(**_KMEANS_DOCS)
class KMeans(DPEstimatorMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin,
             BaseEstimator):
    """K-means clustering with differentially private cluster centres.

    A counterpart of :class:`sklearn.cluster.KMeans` (and of diffprivlib's ``KMeans``)
    whose centres are released with zero-concentrated differential privacy. The rows are
    clipped to public ``bounds``. The centres start from the dense regions a private tree of
    noisy counts finds (good initialisation matters more than iterations at small
    epsilon), then move by a few Lloyd iterations with noisy counts and sums.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters ``k``.
    epsilon : float, default=1.0
        Privacy budget of the fit, > 0.
    delta : float, default=1e-6
        Delta of the fit, in (0, 1). The Gaussian noise is accounted in zCDP, whose
        conversion to ``(epsilon, delta)`` costs only ``log(1 / delta)``: 1e-6 is well below
        ``1 / n`` for tables of up to about 100,000 rows, for 10 to 16 % more noise than
        1e-5 (at epsilon 4 to 0.1).
    %(bounds)s
    max_iter : int or "auto", default="auto"
        Number of noisy Lloyd iterations (all run: stopping when the centres settle would
        read the rows). ``"auto"`` plans it from the noisy number of rows, ``n_clusters``,
        the number of features and the budget (see Notes): 1 when the noise of a centre
        would be large, up to 5.
    %(n_samples_public)s
    %(accountant)s
    %(random_state)s

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        The private centres (inside ``bounds_``).
    n_iter_ : int
        The number of noisy Lloyd iterations run.
    bounds_ : tuple of ndarray
        The clipping range used.
    epsilon_, delta_ : float
        Privacy spent by the fit (add/remove-one-row neighbours).
    privacy_report_ : PrivacyReport
        Mechanisms, noise, budget shares, cost and caveats.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.

    See Also
    --------
    sklearn.cluster.KMeans : The non-private estimator.

    Notes
    -----
    **Guarantee.** Add/remove-one-row neighbours, one row of ``X`` protected. Each feature
    is clipped to ``bounds`` and mapped to ``[-1, 1]``, so a row has L2 norm at most
    ``sqrt(d)``. The fit first releases the number of rows with discrete Laplace noise
    (5 % of ``epsilon``, unless ``n_samples_public``); everything after it is
    ``rho``-zCDP with ``rho`` the largest value whose conversion (Canonne, Kamath and
    Steinke 2020, Proposition 12) stays within the rest of ``epsilon`` at ``delta``, and
    the two compose by basic composition (the plan reads the count; see
    :mod:`skprivate._row_count`). The zCDP releases, which compose by adding their ``rho``
    (Bun and Steinke 2016, Lemma 2.3), are:

    1. A tree of noisy counts (30 % of ``rho``): each level halves the surviving cells
       along one coordinate and releases the counts of all their children with exact
       discrete Gaussian noise; a row is in one child per level, so each level has L2
       sensitivity 1. Cells whose noisy count clears two noise deviations survive; the
       leaves are the dense regions at the finest scale the noise resolves. The number of
       levels is planned from the noisy count: the deepest at which rows spread evenly
       would still clear the threshold (at least one halving of each coordinate, at most
       about 20 levels), since every level costs its share whether a cell survives or not.
       With more than
       6 features the tree splits a random 6-dimensional projection (drawn from
       ``random_state``, independent of the rows), and the leaves' points are their noisy
       means (noisy sums, 20 % of ``rho``, L2 sensitivity ``sqrt(d)``).
    2. Non-private weighted k-means on the leaves (post-processing) gives the start.
    3. ``n_iter_`` Lloyd iterations, each with the rest of ``rho`` divided equally: the
       ``k`` counts with discrete Gaussian noise, the ``k x d`` sums with the granular
       Gaussian mechanism (Canonne, Kamath and Steinke 2020, Theorems 4 and 14), the
       iteration's ``rho`` split ``1 : sqrt(d)`` between them (the split that minimises the
       error of a centre). A cluster whose noisy count is below the noise of its sum keeps
       its centre.

    No value carries floating-point noise (:mod:`skprivate.mechanisms._secure`).

    **Labels.** ``labels_`` (which cluster each training row fell in) is a function of each
    private row, so it is not kept: reading it raises an error. ``predict(X)`` on new rows,
    or ``fit_predict(X)`` (the fit, then ``predict`` on the same rows: the user's own
    computation on their own data), give labels. ``inertia_`` is not released either;
    ``score(X)`` computes it for any rows.

    References
    ----------
    .. [1] D. Su, J. Cao, N. Li, E. Bertino and H. Jin, "Differentially private k-means
       clustering", CODASPY 2016.
    .. [2] A. Chang, B. Ghazi, R. Kumar and P. Manurangsi, "Locally private k-means in one
       round", ICML 2021 (the LSH-tree and coreset design of Google's differentially
       private clustering library).
    .. [3] C. L. Canonne, G. Kamath and T. Steinke, "The discrete Gaussian for
       differential privacy", NeurIPS 2020.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from sklearn.datasets import make_blobs
    >>> from skprivate.cluster import KMeans
    >>> X, _ = make_blobs(20000, centers=[[-5, -5], [0, 5], [5, -5]], random_state=0)
    >>> km = KMeans(n_clusters=3, epsilon=1.0, bounds=(-10, 10), random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the seed caveat: random_state=0
    ...     _ = km.fit(X)
    >>> np.round(km.cluster_centers_[np.argsort(km.cluster_centers_[:, 0])]) + 0.0
    array([[-5., -5.],
           [ 0.,  5.],
           [ 5., -5.]])
    >>> km.epsilon_ <= 1.0
    True
    """

    _parameter_constraints = {
        **DPEstimatorMixin._dp_parameter_constraints,
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "bounds": [tuple, list, None],
        "max_iter": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "n_samples_public": ["boolean"],
    }

    def __init__(self, n_clusters=8, *, epsilon=1.0, delta=1e-6, bounds=None, max_iter="auto",
                 n_samples_public=False, accountant=None, random_state=None):
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.max_iter = max_iter
        self.n_samples_public = n_samples_public
        self.accountant = accountant
        self.random_state = random_state

    # --- privacy plan -------------------------------------------------------------------

    def _privacy_plan(self, n_samples):
        """The spend of a fit whose number of rows is public: ``rho``-zCDP, all of it."""
        rho = zcdp_rho(self.epsilon, self.delta)
        # The noise does not depend on a noisy count here, so the event may be composed
        # with other fits' in RDP (a ZCDpEvent is exact for every zCDP release).
        return self._privacy_spend(zcdp_epsilon(rho, self.delta), self.delta,
                                   event=zcdp_dp_event(rho))

    def _reservation(self, n_samples):
        # With a private number of rows the plan reads the noisy count (not yet drawn):
        # reserve its bound, epsilon itself (count + rest), with no event (basic composition).
        if self.n_samples_public:
            return self._privacy_plan(n_samples)
        return self._privacy_spend(self.epsilon, self.delta)

    def _spend_bound(self, n_samples):
        return self._reservation(n_samples)

    # --- fit ------------------------------------------------------------------------------

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Compute the private cluster centres.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private rows, numeric, without missing values.
        y : None
            Ignored.

        Returns
        -------
        self : KMeans
            The fitted estimator.
        """
        plan = self._begin_private_fit(X)
        X = validate_numeric(self, X, reset=True, dtype=np.float64)
        if plan is None:
            plan = self._reserve_plan(X.shape[0])
        rng = self._noise_rng()
        lower, upper, caveats = resolve_bounds(self.bounds, X, type(self).__name__)
        count = release_row_count(X.shape[0], float(self.epsilon),
                                  public=bool(self.n_samples_public), rng=rng)
        rho = zcdp_rho(rest_epsilon(self.epsilon, count.epsilon), self.delta)

        # Halved before they are added: (upper - lower) overflows for bounds beyond +-9e307.
        centre, half = upper / 2.0 + lower / 2.0, upper / 2.0 - lower / 2.0
        U = (np.clip(X, lower, upper) - centre) / half
        k, d = self.n_clusters, X.shape[1]

        start, tree_report, rho_start = self._private_start(U, rho, count.n_plan, rng)
        rho_lloyd = rho - rho_start
        # A centre's squared error is about (d sigma_sum**2 + |mu|**2 sigma_count**2) / n_j**2;
        # minimising it under d / (2 sigma_sum**2) + 1 / (2 sigma_count**2) = rho_iter
        # (Lagrange) puts rho on sums and counts in the ratio d : |mu|, with |mu| <= sqrt(d)
        # in the cube: sqrt(d) : 1 at the bound.
        sum_share = math.sqrt(d) / (math.sqrt(d) + 1.0)
        n_iter = (_auto_iterations(count.n_plan, k, d, rho_lloyd, sum_share)
                  if self.max_iter == "auto" else int(self.max_iter))
        rho_iter = rho_lloyd / n_iter
        sigma_count = gaussian_sigma_for_rho(1.0, (1.0 - sum_share) * rho_iter)
        sigma_sum = gaussian_sigma_for_rho(math.sqrt(d), sum_share * rho_iter)
        min_count = math.sqrt(d) * sigma_sum
        centres = start
        for _ in range(n_iter):
            centres, _counts = _lloyd.lloyd_step(U, centres, sigma_count, sigma_sum,
                                                 min_count, rng)

        self.bounds_ = (lower, upper)
        self.cluster_centers_ = centre + half * centres
        self.n_iter_ = n_iter
        self._n_features_out = k
        if count.public:
            spend = plan
        else:
            # basic composition of the count with the rest's zCDP (see _row_count)
            spend = self._privacy_spend(count.epsilon + rest_epsilon(self.epsilon,
                                                                     count.epsilon),
                                        self.delta)
        self._finish_private_fit(
            spend,
            {
                "mechanism": (
                    "tree of noisy counts (discrete Gaussian) for the start, then noisy "
                    "Lloyd iterations (discrete Gaussian counts, granular Gaussian sums)"
                ),
                "rho (zCDP)": float(rho),
                **tree_report,
                "lloyd iterations": n_iter,
                "lloyd count noise": float(sigma_count),
                "lloyd sum noise": float(sigma_sum),
                **count_report(count),
                "reference": (
                    "Canonne, Kamath and Steinke 2020, Theorems 4 and 14, Proposition 12; "
                    "Bun and Steinke 2016, Lemma 2.3"
                ),
            },
            count.n_plan,  # the released count: the report is published
            caveats,
        )
        return self

    def _private_start(self, U, rho, n_plan, rng):
        """The starting centres from the tree's leaves: ``(centres, report, rho_spent)``."""
        k, d = self.n_clusters, U.shape[1]
        V, basis = _lloyd.tree_coordinates(U, rng)
        p = V.shape[1]
        rho_tree = TREE_SHARE * rho
        depth = _tree_depth(p, n_plan, rho_tree)
        # depth levels of L2 sensitivity 1 each: depth / (2 sigma**2) <= rho_tree
        sigma_tree = gaussian_sigma_for_rho(math.sqrt(depth), rho_tree)
        codes, depths, counts, row_leaf = _lloyd.dense_cells(
            V, depth, sigma_tree, THRESHOLD_STDS * sigma_tree, max(8 * k, 64), rng
        )
        report = {"tree levels": depth, "tree count noise": float(sigma_tree),
                  "tree leaves": int(codes.size)}
        rho_spent = rho_tree
        if basis is None:
            points = 2.0 * _lloyd.cell_centres(codes, depths, p) - 1.0
        else:
            rho_leaf = LEAF_SHARE * rho
            sigma_leaf = gaussian_sigma_for_rho(math.sqrt(d), rho_leaf)
            sums = _lloyd.leaf_sums(U, row_leaf, codes.size, sigma_leaf, rng)
            points = np.clip(sums / np.maximum(counts, 1.0)[:, None], -1.0, 1.0)
            report["leaf sum noise"] = float(sigma_leaf)
            rho_spent += rho_leaf
        weights = np.maximum(counts, 1.0)
        if points.shape[0] < k:
            # Too few dense cells: the remaining starts are drawn independently of the rows.
            extra = rng.uniform(-1.0, 1.0, size=(k - points.shape[0], d))
            points = np.vstack([points, extra])
            weights = np.concatenate([weights, np.ones(extra.shape[0])])
        # Post-processing of released values: non-private k-means on the weighted leaves.
        seed = int(rng.integers(np.iinfo(np.int32).max))
        start = _PublicKMeans(k, n_init=N_INIT, random_state=seed).fit(
            points, sample_weight=weights
        ).cluster_centers_
        return start, report, rho_spent

    # --- using the centres ----------------------------------------------------------------

    @property
    def labels_(self):
        """Not kept: the cluster of each training row is a release of every row."""
        raise LabelsNotReleasedError(
            "KMeans does not keep labels_: the cluster of each training row is a function of "
            "that private row, not covered by epsilon_. Call predict(X) on the rows you want "
            "labelled, or fit_predict(X) to fit and label the same rows yourself."
        )

    def _check_input(self, X):
        check_is_fitted(self)
        return validate_numeric(self, X, reset=False, dtype=np.float64)

    def predict(self, X):
        """The index of the nearest private centre of each row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to label.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Index of the nearest centre.
        """
        X = self._check_input(X)
        return _lloyd.nearest(X, self.cluster_centers_)

    def fit_predict(self, X, y=None):
        """Fit on ``X``, then label the same rows with :meth:`predict`.

        The labels are computed from ``X`` after the fit, by the caller, on the caller's
        own rows: they are not part of the private release (``labels_`` is not kept).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private rows.
        y : None
            Ignored.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Index of the nearest centre.
        """
        return self.fit(X).predict(X)

    def transform(self, X):
        """The distance of each row to each private centre.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to transform.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_clusters)
            Euclidean distances to the centres.
        """
        X = self._check_input(X)
        return euclidean_distances(X, self.cluster_centers_)

    def fit_transform(self, X, y=None):
        """Fit on ``X``, then :meth:`transform` the same rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private rows.
        y : None
            Ignored.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_clusters)
            Euclidean distances to the centres.
        """
        return self.fit(X).transform(X)

    def score(self, X, y=None):
        """Opposite of the k-means cost of ``X`` on the private centres.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to score (computed exactly: this is not a private release).
        y : None
            Ignored.

        Returns
        -------
        score : float
            Minus the sum of squared distances of the rows to their nearest centre.
        """
        X = self._check_input(X)
        nearest = self.cluster_centers_[_lloyd.nearest(X, self.cluster_centers_)]
        return -float(((X - nearest) ** 2).sum())
