"""DP-LSSGD linear models: DP-SGD with Laplacian smoothing of the noisy gradient.

The estimators here choose the public quantities of a fit (sampling rate, number of steps,
noise multiplier calibrated with :func:`skprivate.accounting.dpsgd_noise_multiplier`) and
report its cost with :func:`skprivate.accounting.dpsgd_epsilon`; the privacy argument itself
is stated next to the loop that relies on it, in ``skprivate._dpsgd._numpy_loop``.
"""

from numbers import Real

import numpy as np
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets

from .._dpsgd._distributed import fit_dask, is_dask_collection
from ..base import _resolve_classes
from ..utils._docstrings import SHARED_DOCS, Substitution
from ..utils._linear import labels_from_scores, linear_scores
from ..utils._validation import validate_numeric
from ._dplssgd_base import _BaseDPLSSGD

__all__ = ["DPLSSGDClassifier", "DPLSSGDRegressor"]


@Substitution(**SHARED_DOCS)
class DPLSSGDClassifier(_BaseDPLSSGD, ClassifierMixin, BaseEstimator):
    """Differentially private linear classifier trained by DP-LSSGD.

    DP-SGD (per-example clipping, Gaussian noise, Poisson-sampled batches) whose noisy
    gradient is Laplacian-smoothed before each step, as in Wang et al. [1]_. The smoothing
    damps the high-frequency part of the noise (see :func:`~skprivate.laplacian_smooth`) at
    no privacy cost; ``smoothing=0`` is plain DP-SGD. The privacy budget ``(epsilon,
    delta)`` is met by calibrating the noise; read the Notes for what it protects.

    Parameters
    ----------
    loss : {"log_loss", "hinge"}, default="log_loss"
        ``"log_loss"``: logistic regression; multinomial (softmax) for three or more classes,
        and for two classes the logistic loss of a single decision function (the softmax of
        two outputs with one held at zero). ``"hinge"``: linear SVM; for three or more
        classes the Weston-Watkins multiclass hinge
        ``sum_{j != y} max(0, 1 + f_j(x) - f_y(x))``, the loss of the SVM in [1]_, and for
        two classes the usual hinge ``max(0, 1 - y f(x))``. ``predict_proba`` exists for
        ``"log_loss"`` only.

    %(epsilon_dpsgd)s

    %(delta)s

    smoothing : float, default=0.0
        Strength ``sigma >= 0`` of the Laplacian smoothing
        ``(I + (-1)^n sigma L^n)^{-1}`` applied to the noisy gradient. ``0`` is plain DP-SGD.
        The authors use 0.1 to 1.5. Smoothing favours neighbouring coordinates of the
        gradient being alike, so it suits features whose order means something (pixels,
        time series); with tabular features in arbitrary order it is an arbitrary prior.
        The default 0 is measured: under the "auto" plan, ``smoothing=1`` lost 0.5 to 3.5
        points on digits, breast cancer and Adult subsets at epsilon 0.5 to 2, under both
        scalings (``benchmarks/dplssgd_utility.py``; the table is in the DP-LSSGD user
        guide).

    %(smoothing_order)s

    smoothing_blocks : {"per_tensor", "global"}, default="per_tensor"
        ``"per_tensor"``: ``coef_`` flattened row-major is one vector to smooth and the
        intercepts another (as the authors smooth each parameter tensor); ``"global"``: the
        two are concatenated and smoothed as one vector.

    max_grad_norm : float or "auto", default="auto"
        Each example's gradient of the whole parameter vector (all coefficients and
        intercepts) is scaled down to at most this Euclidean norm: the sensitivity ``C``.
        ``"auto"``: the rows are first centred by a private estimate of their mean and
        divided by a private estimate of their root mean squared norm (over 3), and the
        gradients of that model are clipped to 0.3. The two estimates are Gaussian
        releases composed with the training in ``epsilon_`` (about 12 % of the budget in
        Gaussian-DP terms); they make the fit the same whatever the scale and offset of
        the features (see Notes). A number: rows as given, clipped at that norm.

    %(noise_multiplier)s

    %(dpsgd_batch_size)s

    %(dpsgd_max_iter)s

    learning_rate : float or "auto", default="auto"
        Constant step size. The step direction is an average gradient over the expected batch,
        of norm at most about ``max_grad_norm``. ``"auto"``: the total step length
        ``learning_rate * n_steps * max_grad_norm`` is ``0.13 n epsilon`` (``0.15 n
        epsilon`` with a numeric ``max_grad_norm``), where ``epsilon`` is the plan's; it
        grows with ``n epsilon`` because the signal-to-noise ratio of a step does; a
        quarter of that for ``loss="hinge"``.
        Chosen from public numbers only (the noisy count of rows, ``epsilon``, ``delta``), measured
        on digits, breast cancer and Adult under two input scalings (see Notes).

    %(dpsgd_alpha)s

    fit_intercept : bool, default=True
        Whether to fit intercepts. They are part of the clipped gradient.

    %(dpsgd_average)s

    %(accounting)s

    %(accountant)s

    %(random_state)s

    %(verbose_steps)s

    %(classes_public)s

    %(n_samples_public)s

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.

    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Coefficients; one row for two classes (the decision function of ``classes_[1]``).

    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts (zeros when ``fit_intercept=False``).

    %(n_features_in_)s

    %(feature_names_in_)s

    epsilon_ : float
        The epsilon the fit achieved at ``delta_`` (at most ``epsilon`` when the noise was
        calibrated, and within 1 % of it).

    %(delta_)s

    %(dpsgd_training_attributes)s

    offset_ : ndarray of shape (n_features,)
        With ``max_grad_norm="auto"``: the private estimate of the mean row the model was
        trained relative to (None without an intercept). ``coef_`` and ``intercept_``
        apply to the raw rows.

    row_scale_ : float
        With ``max_grad_norm="auto"``: the rows were divided by this (a private estimate
        of their root mean squared centred norm, over 3) during training.

    %(privacy_report_)s

    See Also
    --------
    DPLSSGDRegressor : The regression counterpart.
    skprivate.laplacian_smooth : The smoothing operator.
    skprivate.accounting.dpsgd_epsilon : The accounting of a fit.
    sklearn.linear_model.SGDClassifier : The non-private analogue.

    Notes
    -----
    **Guarantee.** The fitted model (``coef_``, ``intercept_``) is ``(epsilon_, delta_)``-differentially private with respect to adding or
    removing one row of ``(X, y)``: the unit protected is one row, which is one person only
    if each person contributes one row.

    **Mechanism.** Each of the ``n_steps_`` steps draws a Poisson sample of the rows (rate
    ``sample_rate_``), clips each sampled row's gradient of the whole parameter vector to
    norm ``max_grad_norm`` and adds ``N(0, (noise_multiplier_ * max_grad_norm)^2 I)`` to
    their sum: the sampled Gaussian mechanism [2]_. The steps compose in Renyi DP (or PLD
    with ``accounting="pld"``) with dp-accounting, converted to ``(epsilon, delta)``.
    Dividing by the expected batch size, smoothing, the L2 penalty, averaging and the step
    only transform that noisy sum, so by post-processing [3]_ they leave the guarantee
    unchanged: for every ``smoothing`` the cost is exactly that of DP-SGD with the same
    noise, rate and steps. With ``max_grad_norm="auto"`` two Gaussian releases come
    first (a histogram of row norms; the sum of norm-clipped rows and of their squared
    norms), and the rows are centred and scaled with them (post-processing); they are
    composed with the steps in the same accountant, so ``epsilon_`` covers them.

    **How the defaults were chosen.** Every "auto" value is a function of public numbers
    only (the noisy count of rows, ``epsilon``, ``delta``; never a value read from the rows
    outside the accounted releases), so two tables of the same noisy count get the same
    plan. What
    decides accuracy is the total step length, and its best value grows with ``n
    epsilon``; the rule (batch ``max(128, n / 256)``, ten epochs within 2,000 to 5,000
    steps, total step length ``0.13 n epsilon`` in the units of the privately
    standardised rows, clip 0.3, the mean of the last half of the iterates, PLD) was
    measured on digits, breast cancer and Adult subsets of 1,000 to 30,000 rows, each
    with features standardised and with features divided by their maximum; the private
    centring is what makes the two scalings agree. The numbers are in the DP-LSSGD user
    guide and ``benchmarks/dplssgd_utility.py``.

    **The number of rows.** It differs between neighbours, so it is not read as public: the
    fit first releases ``n + Z`` with ``Z`` discrete Laplace noise (5 % of ``epsilon``) and
    plans everything on that count (batch and sampling rate, steps, the "auto" learning
    rate, the divisors of the private centring and of the step); the training is
    calibrated to the remaining ``0.95 epsilon``. The two compose by basic composition
    (the plan is chosen from the count), so ``epsilon_`` is their sum and the spend keeps
    no dp-accounting event. ``n_samples_public=True`` skips the count when the number of
    rows is known to everyone (the report then says "treated as public"). A fixed
    ``batch_size`` above the noisy count is capped at it. With an explicit
    ``noise_multiplier`` the training's epsilon depends on the noisy count, so the
    accountant is asked for the count's share first and for the training once planned.

    **What must be public.** The parameters, and every preprocessing: scale features with
    bounds known without looking at the data (for example ``X / 16`` for 4-bit pixels),
    not with a ``StandardScaler`` fitted on the private rows, which is outside the
    guarantee. With the defaults the scale and offset of the features need not be tuned
    (the private centring and scaling handle them). The set of classes: pass it as ``classes`` (known without looking at the
    data); with ``classes=None`` it is read from ``y`` and published as ``classes_`` without
    noise (a label only one row holds reveals that row), which the report and the fit's
    warning state as a caveat.

    **Forecast.** Before training, when the rows planned on times ``epsilon`` is under
    0.2 per coefficient (``n * epsilon < 0.2 * n_features * K``, ``K`` the outputs), where
    the measured accuracy was at or near the majority class's, ``fit`` emits a
    :class:`~skprivate.exceptions.UtilityWarning` with the rows and the epsilon needed
    (public numbers only; see the user guide's DP-LSSGD page).

    **random_state.** None draws the noise from the operating system's entropy; an int
    gives reproducible, and therefore not private, results.

    %(dpsgd_references_section)s

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.model_selection import train_test_split
    >>> from skprivate.linear_model import DPLSSGDClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> X = X / 16.0  # pixel values lie in [0, 16]: a public bound, not a data statistic
    >>> X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    >>> clf = DPLSSGDClassifier(epsilon=1.0, classes=range(10), random_state=0)
    >>> clf = clf.fit(X_train, y_train)  # the ten digits: a public label set
    >>> 0.99 <= clf.epsilon_ <= 1.0
    True
    >>> clf.score(X_test, y_test) > 0.7
    True
    """

    _parameter_constraints = {
        **_BaseDPLSSGD._parameter_constraints,
        "loss": [StrOptions({"log_loss", "hinge"})],
        "classes": ["array-like", None],
    }

    # The classifier's and the regressor's __init__ repeat each other on purpose:
    # scikit-learn reads an estimator's parameters from its own __init__ signature.
    def __init__(
        self,
        loss="log_loss",
        *,
        epsilon=1.0,
        delta=1e-5,
        smoothing=0.0,
        smoothing_order=1,
        smoothing_blocks="per_tensor",
        max_grad_norm="auto",
        noise_multiplier=None,
        batch_size="auto",
        max_iter="auto",
        learning_rate="auto",
        alpha=0.0,
        fit_intercept=True,
        average="auto",
        accounting="pld",
        accountant=None,
        random_state=None,
        verbose=0,
        classes=None,
        n_samples_public=False,
    ):
        self.loss = loss
        self.epsilon = epsilon
        self.delta = delta
        self.smoothing = smoothing
        self.smoothing_order = smoothing_order
        self.smoothing_blocks = smoothing_blocks
        self.max_grad_norm = max_grad_norm
        self.noise_multiplier = noise_multiplier
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.average = average
        self.accounting = accounting
        self.accountant = accountant
        self.random_state = random_state
        self.verbose = verbose
        self.classes = classes
        self.n_samples_public = n_samples_public

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the model with differentially private DP-LSSGD.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data, scaled with public bounds (see Notes). CSR matrices are used
            without densifying.
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : DPLSSGDClassifier
            The fitted classifier.
        """
        if is_dask_collection(X) or is_dask_collection(y):  # trained where the rows live
            return fit_dask(self, X, y, classifier=True)
        self._begin_private_fit(X)
        rng = self._noise_rng()
        # order="C": every step gathers a batch of rows, which on a column-major array
        # (ColumnTransformer's output, make_bounded_preprocessor's) reads each row's values
        # far apart: a fit on 200,000 x 50 rows took 52 s against 1.2 s (one thread).
        X, y = validate_numeric(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        count = self._row_count(X.shape[0], rng)  # the first draw, before any value is used
        check_classification_targets(y)
        self.classes_, y_index, caveats = _resolve_classes(
            type(self).__name__, self.classes, y
        )
        n_classes = len(self.classes_)
        if n_classes == 2:
            n_outputs, y_encoded = 1, y_index.astype(np.float64)
        else:
            n_outputs, y_encoded = n_classes, y_index
        coef, intercept = self._fit_linear(X, y_encoded, rng, n_outputs, count, caveats=caveats)
        self.coef_ = coef
        self.intercept_ = intercept
        return self

    def decision_function(self, X):
        """Confidence scores: the signed distance to the hyperplane of each class.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, the score of ``classes_[1]`` (positive: predicted).
        """
        return linear_scores(self, X, accept_sparse="csr")

    def predict(self, X):
        """Predict class labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The predicted class of each row.
        """
        scores = self.decision_function(X)  # checks the fit before classes_ is read
        return labels_from_scores(self.classes_, scores)

    def _has_log_loss(self):
        return self.loss == "log_loss"

    @available_if(_has_log_loss)
    def predict_proba(self, X):
        """Class probabilities (``loss="log_loss"`` only).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probabilities of the classes, in the order of ``classes_``.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            positive = expit(scores)
            return np.column_stack([1.0 - positive, positive])
        return softmax(scores, axis=1)

    @available_if(_has_log_loss)
    def predict_log_proba(self, X):
        """Logarithm of the class probabilities (``loss="log_loss"`` only).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Log-probabilities of the classes, in the order of ``classes_``.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            scores = np.column_stack([np.zeros_like(scores), scores])
        return scores - np.logaddexp.reduce(scores, axis=1, keepdims=True)


@Substitution(**SHARED_DOCS)
class DPLSSGDRegressor(_BaseDPLSSGD, RegressorMixin, BaseEstimator):
    """Differentially private linear regression trained by DP-LSSGD.

    DP-SGD (per-example clipping, Gaussian noise, Poisson-sampled batches) whose noisy
    gradient is Laplacian-smoothed before each step, as in Wang et al. [1]_. ``smoothing=0``
    is plain DP-SGD. The privacy budget ``(epsilon, delta)`` is met by calibrating the noise;
    read the Notes for what it protects.

    Parameters
    ----------
    loss : {"squared_error", "huber"}, default="squared_error"
        ``"squared_error"``: ``(y - f(x))^2 / 2``. ``"huber"``: quadratic for residuals up to
        ``huber_threshold`` in absolute value and linear beyond, which bounds the residual's
        influence before clipping.

    huber_threshold : float, default=1.0
        Residual size at which the Huber loss turns linear (used by ``loss="huber"`` only;
        not a privacy parameter).

    %(epsilon_dpsgd)s

    %(delta)s

    smoothing : float, default=0.0
        Strength ``sigma >= 0`` of the Laplacian smoothing
        ``(I + (-1)^n sigma L^n)^{-1}`` applied to the noisy gradient. ``0`` is plain DP-SGD.
        Smoothing favours neighbouring coefficients being alike, so it suits features whose
        order means something; with tabular features in arbitrary order it is an arbitrary
        prior. The default 0 is the classifier's measured choice (see
        :class:`DPLSSGDClassifier`).

    %(smoothing_order)s

    smoothing_blocks : {"per_tensor", "global"}, default="per_tensor"
        ``"per_tensor"``: ``coef_`` is one vector to smooth and the intercept another (a
        vector of length one, which smoothing leaves unchanged); ``"global"``: the two are
        concatenated and smoothed as one vector.

    max_grad_norm : float or "auto", default="auto"
        Each example's gradient of the whole parameter vector (coefficients and intercept) is
        scaled down to at most this Euclidean norm: the sensitivity ``C``. ``"auto"``: as
        for :class:`DPLSSGDClassifier`, the rows are centred and scaled by private
        estimates (accounted in ``epsilon_``) and the gradients clipped to 0.3 in those
        units. The targets are not rescaled: bring ``y`` to about unit range with public
        bounds.

    %(noise_multiplier)s

    %(dpsgd_batch_size)s

    %(dpsgd_max_iter)s

    learning_rate : float or "auto", default="auto"
        Constant step size. ``"auto"``: a total step length ``learning_rate * n_steps *
        max_grad_norm`` of ``0.13 n epsilon`` (``0.15 n epsilon`` with a numeric
        ``max_grad_norm``), the classifier's measured rule.

    %(dpsgd_alpha)s

    fit_intercept : bool, default=True
        Whether to fit an intercept. It is part of the clipped gradient.

    %(dpsgd_average)s

    %(accounting)s

    %(accountant)s

    %(random_state)s

    %(verbose_steps)s

    %(n_samples_public)s

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Coefficients.

    intercept_ : float
        Intercept (0.0 when ``fit_intercept=False``).

    %(n_features_in_)s

    %(feature_names_in_)s

    epsilon_ : float
        The epsilon the fit achieved at ``delta_``.

    %(delta_)s

    %(dpsgd_training_attributes)s

    offset_ : ndarray of shape (n_features,)
        With ``max_grad_norm="auto"``: the private estimate of the mean row (None without
        an intercept); ``coef_`` and ``intercept_`` apply to the raw rows.

    row_scale_ : float
        With ``max_grad_norm="auto"``: the rows were divided by this during training.

    %(privacy_report_)s

    See Also
    --------
    DPLSSGDClassifier : The classification counterpart.
    skprivate.laplacian_smooth : The smoothing operator.
    sklearn.linear_model.SGDRegressor : The non-private analogue.

    Notes
    -----
    **Guarantee.** The fitted model is ``(epsilon_, delta_)``-differentially private with
    respect to adding or removing one row of ``(X, y)``: the unit protected is one row.

    **Mechanism.** As for :class:`DPLSSGDClassifier`: ``n_steps_`` Poisson-subsampled
    Gaussian steps on per-example gradients of the whole parameter vector clipped to
    ``max_grad_norm`` [2]_, composed in PLD (or Renyi DP) with dp-accounting, after the
    two Gaussian releases of the private centring and scaling when
    ``max_grad_norm="auto"``; smoothing, penalty, averaging and the step are
    post-processing [3]_. The "auto" plan is the classifier's (see its Notes).

    **The number of rows** is released with noise and planned on, as for
    :class:`DPLSSGDClassifier` (``n_samples_public=True`` reads it exactly).

    **What must be public.** The parameters, and the scaling of ``X`` and of
    ``y``: bring both to about unit range with bounds known without looking at the data.
    Clipping bounds each row's influence whatever its values, but targets far from zero
    (say in the hundreds) make almost every gradient clipped and learning slow.

    **random_state.** None draws the noise from the operating system's entropy; an int
    gives reproducible, and therefore not private, results.

    %(dpsgd_references_section)s

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.linear_model import DPLSSGDRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(5000, 4))  # features with public bounds [-1, 1]
    >>> y = X @ np.array([0.5, -0.4, 0.3, 0.0]) + 0.1 * rng.normal(size=5000)
    >>> reg = DPLSSGDRegressor(epsilon=1.0, random_state=0).fit(X, y)
    >>> reg.coef_.shape
    (4,)
    >>> reg.score(X, y) > 0.8
    True
    """

    _parameter_constraints = {
        **_BaseDPLSSGD._parameter_constraints,
        "loss": [StrOptions({"squared_error", "huber"})],
        "huber_threshold": [Interval(Real, 0, np.inf, closed="neither")],
    }

    def __init__(
        self,
        loss="squared_error",
        *,
        huber_threshold=1.0,
        epsilon=1.0,
        delta=1e-5,
        smoothing=0.0,
        smoothing_order=1,
        smoothing_blocks="per_tensor",
        max_grad_norm="auto",
        noise_multiplier=None,
        batch_size="auto",
        max_iter="auto",
        learning_rate="auto",
        alpha=0.0,
        fit_intercept=True,
        average="auto",
        accounting="pld",
        accountant=None,
        random_state=None,
        verbose=0,
        n_samples_public=False,
    ):
        self.loss = loss
        self.huber_threshold = huber_threshold
        self.epsilon = epsilon
        self.delta = delta
        self.smoothing = smoothing
        self.smoothing_order = smoothing_order
        self.smoothing_blocks = smoothing_blocks
        self.max_grad_norm = max_grad_norm
        self.noise_multiplier = noise_multiplier
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.average = average
        self.accounting = accounting
        self.accountant = accountant
        self.random_state = random_state
        self.verbose = verbose
        self.n_samples_public = n_samples_public

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the model with differentially private DP-LSSGD.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data, scaled with public bounds (see Notes). CSR matrices are used
            without densifying.
        y : array-like of shape (n_samples,)
            Targets, scaled with public bounds.

        Returns
        -------
        self : DPLSSGDRegressor
            The fitted regressor.
        """
        if is_dask_collection(X) or is_dask_collection(y):  # trained where the rows live
            return fit_dask(self, X, y, classifier=False)
        self._begin_private_fit(X)
        rng = self._noise_rng()
        X, y = validate_numeric(self, X, y, accept_sparse="csr", dtype=np.float64,
                                y_numeric=True, order="C")  # row gathers: see the classifier
        count = self._row_count(X.shape[0], rng)  # the first draw, before any value is used
        coef, intercept = self._fit_linear(
            X, y.astype(np.float64, copy=False), rng, 1, count, self.huber_threshold
        )
        self.coef_ = coef.ravel()
        self.intercept_ = float(intercept[0])
        return self

    def predict(self, X):
        """Predict targets.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The predicted targets.
        """
        return linear_scores(self, X, accept_sparse="csr")
