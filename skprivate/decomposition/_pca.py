"""Principal component analysis from a private second-moment matrix (Analyze Gauss).

One fit makes five releases from the rows, in this order, each a function of the rows and
of the releases before it:

1. the number of rows, ``n + Z`` with exact discrete Laplace noise, 5 % of ``epsilon``
   (:mod:`skprivate._row_count`; skipped with ``n_samples_public=True``);
2. the mean: the sum of the rows clipped to ``bounds`` (or to the ball of radius
   ``data_norm``), with granular Gaussian noise (L2 sensitivity ``||(upper - lower) / 2||``
   after shifting by the bounds' centre, or ``data_norm``), divided by the count;
3. the directions: the second-moment matrix of the centred rows *scaled to unit norm*,
   through :func:`skprivate._second_moments.noisy_second_moment` (L2 sensitivity 1); the
   components are its top eigenvectors (post-processing);
4. a clipping radius ``R``: the 90th percentile of the centred rows' norms, read from a
   histogram of the norms over public geometric bins with exact discrete Laplace noise on
   each count (each row is in one bin: L1 sensitivity 1, so ``epsilon_h``-DP: the geometric
   mechanism, Ghosh, Roughgarden and Sundararajan 2012; Dwork and Roth 2014, Section 3.3);
5. the variances: for the centred rows clipped to norm ``R``, the sums over the rows of the
   squared projection on each component and of the squared residual, one granular Gaussian
   release of ``k + 1`` numbers whose L2 sensitivity is at most their L1 sensitivity,
   ``||w||**2 <= R**2``.

Composition. The Gaussian releases (2, 3, 5) are ``rho_j``-zCDP each (Canonne, Kamath and
Steinke 2020, Theorem 14), with ``rho_j`` fixed before the fit, so together
``rho = sum rho_j``-zCDP under adaptive composition (Bun and Steinke 2016, Lemma 2.3), which
is ``(zcdp_epsilon(rho, delta), delta)``-DP (Canonne, Kamath and Steinke 2020,
Proposition 12). The pure releases (1, 4) add their epsilons to it (basic adaptive
composition, Dwork and Roth 2014, Theorem 3.16). ``rho`` is the largest whose conversion
fits in what the pure releases leave of ``epsilon``.

Why unit-norm rows for the directions. The Gaussian mechanism on the covariance needs a
bound on every row's norm, and the noise grows with its square: with digits' public bound
most of the budget is spent on a norm no row reaches. Scaling every centred row to norm 1
removes the radius altogether (sensitivity 1, nothing to choose from the rows); the matrix
is then the spatial-sign covariance, whose eigenvectors are the covariance's for elliptical
distributions (Visuri, Koivunen and Oja 2000; Locantore et al. 1999) and which is robust to
outlying rows. Measured while choosing it (digits, 10 components, epsilon 1, 3 seeds, the
same budget split) it captured 0.89 of non-private PCA's test-set variance against 0.82 to
0.84 for the centred rows clipped at a private quantile (25th to 75th percentile) of their
norms; with the noise of the plain upper triangle (no ``sqrt(2)`` scaling) it captured 0.82. The radius is
still needed for the variances (in the data's units), where a private quantile serves.
"""

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from .. import _caveats
from .._row_count import count_report, release_row_count, rest_epsilon
from .._second_moments import noisy_second_moment, private_norm_quantile
from ..accounting._zcdp import gaussian_sigma_for_rho, zcdp_epsilon, zcdp_rho
from ..base import DPEstimatorMixin
from ..mechanisms import granular_gaussian_mechanism
from ..preprocessing._common import resolve_bounds
from ..utils._docstrings import SHARED_DOCS, Substitution
from ..utils._validation import validate_numeric

__all__ = ["PCA"]

#: Share of epsilon for the norm histogram that sets the variances' clipping radius.
HISTOGRAM_SHARE = 0.05
#: Shares of the zCDP budget: mean, directions, variances (measured, see the class Notes).
RHO_SHARES = (0.2, 0.7, 0.1)
#: The radius is this quantile of the centred rows' norms (few rows are clipped).
RADIUS_QUANTILE = 0.9


def _split_rho(rho):
    """``RHO_SHARES`` of ``rho``, the last one stepped down until the sum is within ``rho``."""
    parts = [share * rho for share in RHO_SHARES]
    while sum(parts) > rho:
        parts[-1] = math.nextafter(parts[-1], 0.0)
    return parts


def _row_norms(X):
    return np.sqrt(np.einsum("ij,ij->i", X, X))  # one pass, no n-by-d temporary


def _clip_norms(X, radius):
    norms = _row_norms(X)
    return X * np.minimum(1.0, radius / np.maximum(norms, np.finfo(float).tiny))[:, None]


def _clip_rows(X, lower, upper, data_norm):
    """The rows the fit reads: scaled into the ball of radius ``data_norm``, *then* clipped
    to the box, so that every row lies in the box whatever the two declare (a ball first
    scaled towards 0 could leave a box that does not hold 0, and the mean's sensitivity
    ``||(upper - lower) / 2||`` would not hold)."""
    if data_norm is not None:
        X = _clip_norms(X, float(data_norm))  # a new array
        return X if lower is None else np.clip(X, lower, upper, out=X)
    return np.clip(X, lower, upper)  # a new array: the caller works on it in place


def _variance_sums(unit, lengths, components, radius):
    """``(sum_i p_ij**2 for each component j, sum_i residual_i**2)`` of the rows
    ``w_i = lengths_i * unit_i``, of norm ``lengths_i <= R`` (the centred rows clipped to R).

    Each row adds a non-negative vector whose entries sum to ``||w||**2 <= R**2`` (its
    squared projections and squared residual, for orthonormal components), so its L2 norm
    is at most its L1 norm, ``R**2``. The components are orthonormal up to rounding: each
    row's vector is scaled down to sum at most ``R**2`` so that the bound holds as computed.
    """
    squares = ((unit @ components.T) * lengths[:, None]) ** 2
    projected = squares.sum(axis=1)
    residual = np.maximum(lengths**2 - projected, 0.0)
    shrink = np.minimum(1.0, radius**2 / np.maximum(projected + residual,
                                                     np.finfo(float).tiny))
    return np.concatenate([shrink @ squares, [shrink @ residual]])


@Substitution(**SHARED_DOCS)
class PCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, DPEstimatorMixin, BaseEstimator):
    """Principal component analysis with differential privacy.

    A counterpart of :class:`sklearn.decomposition.PCA` whose mean, components and
    variances are released with differential privacy: the components are the top
    eigenvectors of a private second-moment matrix (Analyze Gauss, with exact discrete
    Gaussian noise), so ``transform``, ``inverse_transform`` and a Pipeline after it add no
    further privacy cost.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of components to keep, ``1 <= n_components <= n_features``. None keeps
        ``n_features``. Never chosen from the rows (a fraction of explained variance, or
        ``"mle"``, would read them without privacy).
    epsilon : float, default=1.0
        Privacy budget of the fit, > 0.
    delta : float, default=1e-5
        Delta of the fit, in (0, 1). The default is below ``1 / n`` for tables of up to
        100,000 rows (the usual rule) and is the delta of diffprivlib's examples; the
        Gaussian releases convert from zCDP at it.
    bounds : tuple (lower, upper) or None, default=None
        Public range of each feature: two numbers, or two arrays of length ``n_features``,
        known without looking at the data. Rows are clipped to it. With ``bounds=None`` and
        ``data_norm=None`` each feature's minimum and maximum are read from the data: the fit
        then has no privacy guarantee, a :class:`~skprivate.exceptions.PrivacyLeakWarning`
        says so, and every total lists the fit as not covered.
    data_norm : float or None, default=None
        Public bound on the L2 norm of each row (diffprivlib's name); rows are scaled down
        to it. Used for the mean when ``bounds`` is None; with both, the mean uses
        ``bounds``.
    whiten : bool, default=False
        Divide the projections by ``sqrt(explained_variance_)`` in ``transform``.
    %(accountant)s
    %(random_state)s
    %(n_samples_public)s

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Private principal axes, unit vectors, orthogonal to each other, in decreasing order
        of the private matrix's eigenvalues.
    explained_variance_ : ndarray of shape (n_components,)
        Private variance of the training rows along each component: noisy (Gaussian noise),
        and of the centred rows clipped to a private radius (the 90th percentile of their
        norms), so biased low by the clipping. At least 0.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        ``explained_variance_`` over the private total variance (also noisy).
    singular_values_ : ndarray of shape (n_components,)
        ``sqrt(explained_variance_ * (n_samples_ - 1))``.
    mean_ : ndarray of shape (n_features,)
        Private mean of the (clipped) training rows.
    n_components_ : int
    n_samples_ : int
        The number of rows the fit used: the noisy count, or the exact number with
        ``n_samples_public=True``.
    clip_radius_ : float
        The private radius the variances' rows were clipped to.
    bounds_ : tuple of ndarray or None
        The clipping range used (None when only ``data_norm`` was given).
    epsilon_ : float
        The epsilon of the guarantee (add/remove-one-row neighbours).
    %(delta_)s
    %(privacy_report_)s
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    sklearn.decomposition.PCA : The non-private estimator.
    skprivate.preprocessing.StandardScaler : A private scaler to put before it.

    Notes
    -----
    Guarantee: ``(epsilon, delta)``-DP for add/remove-one-row neighbours; the unit protected
    is a row. Public: the number and names of the columns, ``n_components``, ``bounds``,
    ``data_norm`` (and the number of rows with ``n_samples_public=True``).

    The fit releases, in order: a noisy count of the rows (5 %% of ``epsilon``, exact
    discrete Laplace), the mean (Gaussian), the second-moment matrix of the centred rows
    scaled to unit norm (Gaussian, Analyze Gauss of Dwork, Talwar, Thakurta and Zhang 2014
    with L2 sensitivity 1; the components are its top eigenvectors), a histogram of the
    centred rows' norms (5 %% of ``epsilon``, exact discrete Laplace) that sets the clipping
    radius of the variances, and the variances along the components (Gaussian). The three
    Gaussian releases use exact discrete Gaussian noise on a power-of-two grid and share
    the zCDP budget 20 %% / 70 %% / 10 %%; their total ``rho`` converts once to
    ``(epsilon', delta)`` and the pure releases add to ``epsilon'``. The full derivation,
    with each theorem, is in the module docstring of :mod:`skprivate.decomposition._pca`.

    Unit-norm rows give the spatial-sign covariance, whose eigenvectors are those of the
    covariance for elliptical data and which needs no clipping radius; on digits (pixels in
    [0, 16], 10 components, epsilon 1) the components capture about 88 %% of the test-set
    variance that non-private PCA captures. The shares were chosen by measurement on digits
    and breast cancer. diffprivlib's ``PCA`` draws the eigenvectors one at a time with an
    exponential mechanism (pure DP); Analyze Gauss is near-optimal for approximate DP
    (Dwork et al. 2014) and releases the whole matrix at once.

    The error grows with ``sqrt(n_features) / n`` and falls with ``epsilon``: declare tight
    ``bounds`` (the mean's noise grows with their width) and keep ``n_components`` small.

    References
    ----------
    .. [1] C. Dwork, K. Talwar, A. Thakurta and L. Zhang, "Analyze Gauss: optimal bounds
       for privacy-preserving principal component analysis", STOC 2014.
    .. [2] C. L. Canonne, G. Kamath and T. Steinke, "The discrete Gaussian for differential
       privacy", NeurIPS 2020.
    .. [3] S. Visuri, V. Koivunen and H. Oja, "Sign and rank covariance matrices", Journal
       of Statistical Planning and Inference, 2000.

    Examples
    --------
    >>> import warnings
    >>> from sklearn.datasets import load_digits
    >>> from skprivate.decomposition import PCA
    >>> X, _ = load_digits(return_X_y=True)
    >>> pca = PCA(n_components=2, epsilon=1.0, bounds=(0, 16), random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the seed caveat: random_state=0
    ...     Z = pca.fit_transform(X)
    >>> Z.shape, pca.components_.shape, pca.epsilon_
    ((1797, 2), (2, 64), 1.0)
    """

    _parameter_constraints = {
        **DPEstimatorMixin._dp_parameter_constraints,
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "bounds": [tuple, list, None],
        "data_norm": [Interval(Real, 0, np.inf, closed="neither"), None],
        "whiten": ["boolean"],
        "n_samples_public": ["boolean"],
    }

    def __init__(self, n_components=None, *, epsilon=1.0, delta=1e-5, bounds=None,
                 data_norm=None, whiten=False, accountant=None, random_state=None,
                 n_samples_public=False):
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.data_norm = data_norm
        self.whiten = whiten
        self.accountant = accountant
        self.random_state = random_state
        self.n_samples_public = n_samples_public

    def _privacy_plan(self, n_samples):
        # Pure parts and a zCDP part fitted within (epsilon, delta) whatever n (module
        # docstring); no dp_accounting event: basic composition of pure and zCDP parts.
        return self._privacy_spend(self.epsilon, self.delta)

    def _budget(self, count_epsilon):
        """``(epsilon_h, [rho_mean, rho_directions, rho_variances])`` after the count."""
        epsilon_h = HISTOGRAM_SHARE * float(self.epsilon)
        rest = rest_epsilon(self.epsilon, count_epsilon + epsilon_h)
        return epsilon_h, _split_rho(zcdp_rho(rest, self.delta))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the private mean, components and variances.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private data, numeric, without missing values.
        y : None
            Ignored.

        Returns
        -------
        self : PCA
        """
        self._fit(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit, then project ``X`` on the private components.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private data.
        y : None
            Ignored.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
        """
        return self.fit(X).transform(X)

    def _fit(self, X):
        plan = self._begin_private_fit(X)
        X = validate_numeric(self, X, reset=True, dtype=np.float64)
        if plan is None:  # pragma: no cover - X had no shape before validation
            plan = self._reserve_plan(X.shape[0])
        n_samples, n_features = X.shape
        k = n_features if self.n_components is None else int(self.n_components)
        if k > n_features:
            raise ValueError(
                f"PCA: n_components={self.n_components} is larger than the number of "
                f"features, {n_features}. Pass n_components <= {n_features}."
            )
        rng = self._noise_rng()
        count = release_row_count(n_samples, float(self.epsilon),
                                  public=bool(self.n_samples_public), rng=rng)
        epsilon_h, (rho_mean, rho_directions, rho_variances) = self._budget(count.epsilon)
        n_plan = float(count.n_plan)

        caveats = []
        if self.bounds is None and self.data_norm is None:
            lower, upper, _ = resolve_bounds(None, X, "PCA")
            caveats = [_caveats.bounds_from_data(["bounds", "data_norm"],
                                                 "bounds=(lower, upper) or data_norm")]
        elif self.bounds is not None:
            lower, upper, _ = resolve_bounds(self.bounds, X, "PCA")
        else:
            lower = upper = None
        Xc = _clip_rows(X, lower, upper, self.data_norm)

        # 2. The mean: sum of the clipped rows about a public centre (Gaussian mechanism).
        if lower is not None:
            centre = upper / 2.0 + lower / 2.0
            mean_sensitivity = float(np.linalg.norm(upper / 2.0 - lower / 2.0))
            top = float(np.linalg.norm(upper - lower))
        else:
            centre = np.zeros(n_features)
            mean_sensitivity = float(self.data_norm)
            top = 2.0 * float(self.data_norm)
        if self.data_norm is not None:
            top = min(top, 2.0 * float(self.data_norm))
        sigma_mean = gaussian_sigma_for_rho(mean_sensitivity, rho_mean)
        noisy_sum = granular_gaussian_mechanism(
            Xc.sum(axis=0) - n_samples * centre, mean_sensitivity, sigma_mean, random_state=rng
        )
        mean = centre + np.asarray(noisy_sum) / n_plan
        if lower is not None:
            mean = np.clip(mean, lower, upper)
        else:
            mean = _clip_norms(mean[None, :], float(self.data_norm))[0]

        # 3. The directions: unit-norm centred rows, Analyze Gauss with sensitivity 1.
        unit = Xc  # a copy of X already: centred and scaled in place (one n-by-d array)
        unit -= mean
        norms = _row_norms(unit)
        unit /= np.where(norms > 0, norms, 1.0)[:, None]
        sigma_directions = gaussian_sigma_for_rho(1.0, rho_directions)
        S = noisy_second_moment(unit, 1.0, sigma_directions, rng)
        eigenvalues, eigenvectors = np.linalg.eigh(S)
        order = np.argsort(eigenvalues)[::-1][:k]
        components = eigenvectors[:, order].T
        # A sign convention (largest entry positive), post-processing as in scikit-learn.
        largest = np.argmax(np.abs(components), axis=1)
        components *= np.sign(components[np.arange(k), largest])[:, None]

        # 4. The variances' radius, 5. the variances along the components and the rest.
        radius = private_norm_quantile(norms, top, RADIUS_QUANTILE, epsilon_h, rng, n_total=n_plan)
        sums = _variance_sums(unit, np.minimum(norms, radius), components, radius)
        sigma_variances = gaussian_sigma_for_rho(radius**2, rho_variances)
        noisy = np.maximum(np.asarray(granular_gaussian_mechanism(
            sums, radius**2, sigma_variances, random_state=rng)), 0.0)
        dof = max(n_plan - 1.0, 1.0)
        explained = noisy[:k] / dof
        total = max(noisy.sum() / dof, explained.sum(), np.finfo(float).tiny)

        self.mean_ = mean
        self.components_ = components
        self.n_components_ = k
        self.explained_variance_ = explained
        self.explained_variance_ratio_ = explained / total
        self.singular_values_ = np.sqrt(explained * dof)
        self.n_samples_ = int(count.n_plan)
        self.clip_radius_ = radius
        self.bounds_ = None if lower is None else (lower, upper)
        rho = rho_mean + rho_directions + rho_variances
        self._finish_private_fit(
            plan,
            {
                "mechanism": (
                    "Analyze Gauss on the unit-norm centred rows (components), Gaussian mean "
                    "and variances, discrete Laplace count and norm histogram"
                ),
                "zcdp_rho": rho,
                "epsilon_of_gaussian_parts": zcdp_epsilon(rho, self.delta),
                "epsilon_of_histogram": epsilon_h,
                "noise_std_directions": sigma_directions,
                "noise_std_mean": sigma_mean,
                "clip_radius": radius,
                **count_report(count),
                "reference": (
                    "Dwork, Talwar, Thakurta and Zhang 2014 (Analyze Gauss); Canonne, Kamath "
                    "and Steinke 2020, Theorem 14 and Proposition 12; Bun and Steinke 2016, "
                    "Lemma 2.3; Dwork and Roth 2014, Theorem 3.16"
                ),
            },
            count.n_plan,
            caveats,
        )

    def transform(self, X):
        """Project ``X`` on the private components.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data to project (not clipped: the fitted model is public).

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
        """
        check_is_fitted(self)
        X = validate_numeric(self, X, reset=False, dtype=np.float64)
        Z = (X - self.mean_) @ self.components_.T
        if self.whiten:
            Z /= self._whitening_scale()
        return Z

    def inverse_transform(self, X):
        """Map projections back to the feature space.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)
            Projections, as ``transform`` returns them.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
        """
        check_is_fitted(self)
        Z = np.asarray(X, dtype=np.float64)
        if self.whiten:
            Z = Z * self._whitening_scale()
        return Z @ self.components_ + self.mean_

    def _whitening_scale(self):
        # A noisy variance can be 0: floor it so that whitening never divides by zero.
        return np.sqrt(np.maximum(self.explained_variance_, 1e-12))

    @property
    def _n_features_out(self):
        return self.components_.shape[0]
