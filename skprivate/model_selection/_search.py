"""Private hyperparameter search: a random number of DP runs, noisy validation, best one released.

The public classes and their documentation. What they share is in ``_search_base``; the
candidate space is read in ``_candidates``; the per-run epsilon is solved for in
``_calibration``; the privacy argument is stated in ``_tuning_accounting``, next to the code
that computes it.
"""

from ..utils._deprecation import DEPRECATED
from ..utils._docstrings import SHARED_DOCS, Substitution
from ._candidates import RelativeToAuto, grid_support, random_support
from ._search_base import _BasePrivateSearch

__all__ = ["PrivateGridSearchCV", "PrivateRandomSearchCV", "RelativeToAuto"]


_COMMON_PARAMS = """
    epsilon : float, default=1.0
        Privacy budget of the whole search (all runs and the selection), > 0.
    delta : float, default=1e-5
        Delta of the whole search, in (0, 1); use well below ``1 / n_samples``.
    n_candidates_distribution : {"poisson", "geometric", "logarithmic"} or float, default="poisson"
        Distribution of the random number of runs (candidates trained); its mean is
        ``mean_candidates``. The number is random, not fixed as scikit-learn's ``n_iter``,
        because a random number that stays secret is what makes releasing the best run
        cheap (see Notes). ``"poisson"``: Poisson with mean
        ``mean_candidates`` (Papernot and Steinke 2022, Theorem 6; with probability
        ``exp(-mean_candidates)`` no run is drawn and ``fit`` raises without reading the
        data). ``"geometric"`` (the random stopping of Liu and Talwar 2019),
        ``"logarithmic"``, or a float ``eta > -1``: the truncated negative binomial with
        shape ``eta`` (Papernot and Steinke 2022, Theorem 2; geometric is ``eta = 1``,
        logarithmic ``eta = 0``).
    mean_candidates : float, default=10
        Expected number of runs, >= 1.
    scoring : str, callable or None, default=None
        Validation score, higher is better. ``None`` with a classifier: accuracy (each
        row's term 0 or 1); on a regressor ``None`` is refused (its ``score`` is ``r2``).
        It must be a mean over the validation rows of one term per row. The named scorers
        ``"accuracy"``, ``"neg_mean_absolute_error"``, ``"neg_mean_squared_error"``,
        ``"neg_brier_score"`` and ``"neg_log_loss"`` are computed row by row, each term
        clipped to ``score_range`` before the sum; any other name (an F1, an AUC, a
        balanced accuracy, ``r2``) is refused, since one row moves it by more than the
        noise covers. A callable is taken on trust to be such a mean, with a caveat in
        ``privacy_report_``.
    score_range : tuple of (float, float), default=None
        The interval ``(low, high)`` each validation row's term is clipped to (``(0, 1)``
        for accuracy; ``(-4 * B**2, 0)`` for the negated squared error, ``(-2 * B, 0)`` for
        the negated absolute error, of targets and predictions within ``[-B, B]``; ``(-1,
        0)`` for the Brier score of two classes). Each run releases the sum over the
        validation rows of ``clip(term, low, high) - (low + high) / 2`` with Gaussian
        noise; one row changes that sum by at most ``(high - low) / 2``, whatever it holds
        and whatever the number of validation rows. A row beyond the range counts as its
        end, and a term that is not a number as ``low``: a narrower range means less noise
        and more rows at its ends. Required unless the score is accuracy; for a callable
        scorer nothing is clipped and you vouch for the bound.
    validation_fraction : float, default=0.2
        The validation split: the probability with which each row is held out for
        validation (rows are assigned independently, so one row is in exactly one part);
        scikit-learn's name for a held-out fraction (``SGDClassifier``,
        ``HistGradientBoostingClassifier``). Unlike scikit-learn's searches, one split
        only: folds or a splitter (scikit-learn's ``cv``) are refused with an error, since
        training each candidate on several overlapping folds is outside the privacy
        argument. The sizes of the two parts are random and private: runs are planned on
        the expected training size ``round((1 - validation_fraction) * count)`` and scores
        shown per expected validation row, ``validation_fraction * count``, where
        ``count`` is the noisy count of the rows (the number of rows itself with
        ``n_samples_public=True``).
    score_epsilon : float, default=None
        Epsilon (at ``delta``) of the Gaussian noise on each run's validation score. ``None``:
        the same per-run epsilon as training, which costs almost nothing extra because a row
        is either in the training or in the validation part.
    %(n_samples_public)s

        In a search, the one count serves every run: the planned training size
        ``round((1 - validation_fraction) * count)`` and the expected validation size
        ``validation_fraction * count`` are
        read from it, and the runs and their selection share what it leaves of
        ``epsilon``.
    accountant : BudgetAccountant, default=None
        Budget shared with other fits: the whole search's ``(epsilon_, delta_)`` is
        reserved before any data is read. The estimator's own accountant must be None.
    n_jobs : int, default=None
        Runs fitted in parallel by joblib. Seeds are drawn before the runs, so results do
        not depend on ``n_jobs``.
    random_state : None, int or numpy.random.Generator, default=None
        Source of the split, the number of runs, the candidates and all noise. ``None``
        (the only choice that keeps the guarantee): seeded from the operating system. An
        int: reproducible, for tests and documentation only (a ``PrivacyLeakWarning`` says
        so).
    verbose : int, default=0
        0 prints nothing; 1 writes a line on stderr when the search starts and when it ends.
        Nothing shows the number of runs: the guarantee keeps it secret (see Notes), so the
        runs are trained with ``verbose=0`` whatever the estimator says.
    n_candidates : str or float, default="deprecated"
        The old name of ``n_candidates_distribution``.

        .. deprecated:: 0.1
           Renamed ``n_candidates_distribution`` (a count in scikit-learn); it warns and
           will be removed in 0.2.
    cv : float, default="deprecated"
        The old name of ``validation_fraction``. An int or a splitter (scikit-learn's
        folds) is refused with the reason.

        .. deprecated:: 0.1
           Renamed ``validation_fraction`` (scikit-learn's name for a held-out fraction;
           its ``cv`` is a number of folds or a splitter); it warns and will be removed in
           0.2.
"""

_COMMON_ATTRIBUTES = """
    best_estimator_ : estimator
        The released model: the run with the highest noisy validation score.
    best_params_ : dict
        Its hyperparameters.
    best_score_ : float
        Its noisy validation score, clipped to the score's range (``[0, 1]`` for accuracy,
        else ``score_range``): ``best_score_noisy_`` shown as a score.
    best_score_noisy_ : float
        The released statistic itself, unclipped: the noisy sum of the run's validation
        terms (less the range's midpoint), divided by the expected number of validation
        rows ``validation_fraction * count`` and added back to the midpoint. It can lie
        outside the score's range (noise, and the realised number of validation rows, which
        is private and so not used, differs from the expected one); the best of several
        noisy scores also tends to be above the model's true score.
    best_index_ : int
        Its position in ``cv_results_``: 0.
    cv_results_ : dict of arrays
        The released run only, in scikit-learn's layout: ``"params"``,
        ``"param_<name>"``, ``"mean_test_score"`` (its noisy score) and ``"rank_test_score"``,
        one entry each. The other runs, and how many there were, are not released (see
        Notes).
    per_run_epsilon_ : float
        Epsilon (at ``delta``) each run's training was calibrated to.
    score_noise_ : float
        Standard deviation of the (discrete, granular) Gaussian noise in
        ``best_score_noisy_`` (the noise on each run's sum, divided by the expected number of
        validation rows); fixed before the split, from public numbers only.
    epsilon_ : float
        Epsilon of the whole search, never above ``epsilon``. With
        ``n_samples_public=False``: the noisy count's share plus the rest of the budget,
        within which the runs and their selection were calibrated (``epsilon`` itself; the
        calibrated value of this fit's plan, chosen by the count, is in
        ``privacy_report_["epsilon_split"]``); with ``n_samples_public=True``: the
        calibrated value.
    delta_ : float
        Its delta.
    privacy_report_ : PrivacyReport
        Mechanism, budget split, references and caveats.
    classes_ : ndarray of shape (n_classes,)
        Classes of ``best_estimator_`` (classifiers only).
    n_features_in_ : int
        Number of features seen by ``best_estimator_``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when ``X`` had string column names.
"""

_NOTES = """
    Guarantee: the whole search, including the choice of the best run, is
    ``(epsilon_, delta_)``-DP for add/remove-one-row neighbouring datasets (one row of ``X``;
    one person only if each person has one row). Rows are assigned independently to a
    training part (fraction ``1 - validation_fraction``) and a validation part. One run
    draws hyperparameters uniformly at random (independently of the data), trains the estimator
    with per-run epsilon ``per_run_epsilon_`` on the training part and releases the sum of
    its validation terms (less the midpoint of their range) with Gaussian noise: the granular
    Gaussian (the sum rounded to a power-of-two grid, exact discrete Gaussian noise on it, no
    floating-point noise; :func:`~skprivate.mechanisms.granular_gaussian_mechanism`), whose
    Renyi divergence at every order is at most the continuous Gaussian's of the same noise
    (Canonne, Kamath and Steinke 2020, Theorem 14). A row is in
    one part only, so a run's Renyi-DP curve is, order by order, the larger of the training
    curve (largest over the candidates) and the Gaussian score's curve.

    The realised sizes of the two parts depend on the private rows (an added row lands in
    one of them), so nothing in a run is scaled by them: the score's noise is fixed before
    the split (the sum's sensitivity, half the range's width, does not depend on the number
    of rows), and a DP-SGD run plans its sampling rate, its steps and its noise, and divides
    its noisy gradient sums, by the expected training size
    ``round((1 - validation_fraction) * count)``; it samples each row of its training part with that rate, so its spend is exactly the
    planned one.

    The number of rows differs between neighbours too, so it is not read either: by default
    (``n_samples_public=False``) the search first releases a noisy count of the rows
    (discrete Laplace noise, 5 % of ``epsilon``: pure DP, the geometric mechanism) and plans
    every size on it. What follows is chosen from the count, so the two compose by basic
    composition (adaptive composition, Dwork, Rothblum and Vadhan 2010, Theorem III.3):
    the runs and their selection are calibrated within what the count leaves, whatever its
    value, and ``epsilon_`` adds the two. With ``n_samples_public=True`` the exact number is
    read, nothing is spent on it, and the report says it was treated as public. Estimators whose plan
    depends on the number of rows and that cannot be given a public one are refused.

    The number of runs is random and only the best run is released, which costs far less
    than the sum over runs: Papernot and Steinke [1]_, Theorem 6 (Poisson) or Theorem 2
    (truncated negative binomial; the geometric case is Liu and Talwar's [2]_ random
    stopping). The per-run epsilon is the largest (to 2 %) for
    which the total, converted from RDP with Canonne, Kamath and Steinke (2020), Prop. 12,
    stays within ``epsilon``.

    Public: the search space (and the number of rows with ``n_samples_public=True``). The
    estimator's plan must carry a Renyi-DP curve (a ``dp_accounting`` event) or be pure DP;
    estimators that state only ``(epsilon, delta)`` (PATE, propose-test-release) are
    refused. Private preprocessing steps (``skprivate.preprocessing``) before the
    estimator are part of each run: they read the run's training part, and the run's
    Renyi-DP curve is the sum of its steps' planned curves (adaptive composition, Mironov
    2017, Proposition 1), each planned from public numbers before any data is read; a step
    whose plan depends on the number of rows is refused. A scikit-learn preprocessing step
    fitted on the private rows (a ``StandardScaler``, an encoder that reads its categories)
    is outside the guarantee;
    the search names each such step, with its data-independent alternative, in
    ``privacy_report_["caveats"]`` and in the fit's one ``PrivacyLeakWarning``. Scale with
    public bounds and declare the categories. The caveats are decided from the whole
    candidate space, whether or not a candidate ran (stating a caveat only when a candidate
    that causes it ran would tell which ran, and so something about their number), plus
    those the released run states itself. ``sample_weight`` is refused: a weight above 1
    would scale one row's contribution beyond the bound the noise covers.
    Only the best run is covered by the theorems, and only it is kept: not the other runs'
    scores, nor their hyperparameters, nor their number. The random number of runs is what
    makes the search cheap, and it must stay secret: were it known to be ``k``, the search
    would be the best of ``k`` fixed runs, whose privacy loss can reach ``k`` times a run's
    (for a run that is epsilon-DP, the event "no run succeeds" has probability ratio
    ``e^(k epsilon)``). The wall-clock time of the search grows with the number of runs:
    do not publish it either.
"""

_REFERENCES = """
    .. [1] N. Papernot and T. Steinke, "Hyperparameter tuning with Renyi differential
       privacy", ICLR 2022 (arXiv:2110.03620).
    .. [2] J. Liu and K. Talwar, "Private selection from private candidates", STOC 2019.
    .. [3] C. Canonne, G. Kamath and T. Steinke, "The discrete Gaussian for differential
       privacy", NeurIPS 2020, Proposition 12.
"""

_DOCS = {
    "n_samples_public": SHARED_DOCS["n_samples_public"],
    "search_parameters": _COMMON_PARAMS,
    "search_attributes": _COMMON_ATTRIBUTES,
    "search_notes": _NOTES,
    "search_references": _REFERENCES,
}


@Substitution(**_DOCS)
class PrivateRandomSearchCV(_BasePrivateSearch):
    """Differentially private random search over the hyperparameters of a DP estimator.

    A random number of runs (Poisson or truncated negative binomial), each drawing
    hyperparameters at random, training the DP estimator on a training part and scoring it
    with noise on a held-out part of the private data; only the best run is released. The
    whole search, selection included, meets the one budget ``(epsilon, delta)``: the search
    calibrates each run's epsilon from it. Read the Notes for the guarantee.

    Parameters
    ----------
    estimator : estimator object
        A skprivate DP estimator (its plan must carry a Renyi-DP curve), or a Pipeline whose
        last step is one, possibly after private preprocessing steps
        (``skprivate.preprocessing``). The ``epsilon``, ``delta`` and ``random_state`` of
        every DP step are set by the search for every run: the run's budget is split as
        :func:`~skprivate.preprocessing.make_private_pipeline` splits one (20 % to the
        private preprocessing steps that spend, equally, the rest to the model).
    param_distributions : dict or list of dicts
        Parameter names (as for ``set_params``) mapped to finite lists of values. Each run
        picks a dict uniformly, then each value uniformly. Distributions (objects with
        ``rvs``) are refused: the privacy cost is bounded over every value a run can draw.
        Parameters left out keep the estimator's values, for skprivate's DP-SGD estimators
        the ``"auto"`` plan. A learning rate relative to the ``"auto"`` one, which depends on
        each run's calibrated epsilon, is written :class:`RelativeToAuto`:
        ``{"learning_rate": [RelativeToAuto(f) for f in (0.5, 1, 2)]}``.
    %(search_parameters)s

    Attributes
    ----------
    %(search_attributes)s

    See Also
    --------
    PrivateGridSearchCV : The same search, candidates drawn uniformly from a grid.
    RelativeToAuto : A learning rate as a multiple of the ``"auto"`` one.
    skprivate.accounting.total_privacy_cost : The naive total of a non-private search.

    Notes
    -----
    %(search_notes)s

    References
    ----------
    %(search_references)s

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from skprivate.linear_model import DPLSSGDClassifier
    >>> from skprivate.model_selection import PrivateRandomSearchCV, RelativeToAuto
    >>> X, y = load_digits(return_X_y=True)
    >>> X = X / 16.0  # pixel values lie in [0, 16]: a public bound
    >>> # learning rates as multiples of each run's "auto" rate; the rest stays "auto"
    >>> search = PrivateRandomSearchCV(
    ...     DPLSSGDClassifier(classes=range(10)),
    ...     {"learning_rate": [RelativeToAuto(f) for f in (0.5, 1, 2)], "alpha": [0.0, 1e-3]},
    ...     epsilon=2.0, mean_candidates=5, random_state=0,
    ... )
    >>> search = search.fit(X, y)
    >>> bool(0.95 * 2.0 <= search.epsilon_ <= 2.0)
    True
    >>> sorted(search.best_params_)
    ['alpha', 'learning_rate']
    >>> # the noisy score, and the same clipped to accuracy's range [0, 1]
    >>> bool(search.best_score_ == min(max(search.best_score_noisy_, 0.0), 1.0))
    True
    """

    _parameter_constraints = {
        **_BasePrivateSearch._parameter_constraints,
        "param_distributions": [dict, list],
    }

    # The two searches' __init__ repeat each other on purpose: scikit-learn reads an
    # estimator's parameters from its __init__ signature, and the space's name differs
    # (param_distributions, param_grid), as in scikit-learn's own searches.
    def __init__(
        self,
        estimator,
        param_distributions,
        *,
        epsilon=1.0,
        delta=1e-5,
        n_candidates_distribution="poisson",
        mean_candidates=10,
        scoring=None,
        score_range=None,
        validation_fraction=0.2,
        score_epsilon=None,
        n_samples_public=False,
        accountant=None,
        n_jobs=None,
        random_state=None,
        verbose=0,
        n_candidates=DEPRECATED,
        cv=DEPRECATED,
    ):
        self.estimator = estimator
        self.param_distributions = param_distributions
        self.epsilon = epsilon
        self.delta = delta
        self.n_candidates_distribution = n_candidates_distribution
        self.mean_candidates = mean_candidates
        self.scoring = scoring
        self.score_range = score_range
        self.validation_fraction = validation_fraction
        self.score_epsilon = score_epsilon
        self.n_samples_public = n_samples_public
        self.accountant = accountant
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.n_candidates = n_candidates
        self.cv = cv

    def _support(self):
        return random_support(type(self).__name__, self.param_distributions)


@Substitution(**_DOCS)
class PrivateGridSearchCV(_BasePrivateSearch):
    """Differentially private search over a parameter grid of a DP estimator.

    The grid's points are candidates; each of a random number of runs draws one uniformly,
    trains the DP estimator on a training part and scores it with noise on a held-out part
    of the private data; only the best run is released. A grid is not searched exhaustively:
    exhausting it would cost the sum over the points, while random runs with the best one
    released cost about one run plus a logarithmic term. The whole search meets the one
    budget ``(epsilon, delta)``. Read the Notes for the guarantee.

    Parameters
    ----------
    estimator : estimator object
        A skprivate DP estimator (its plan must carry a Renyi-DP curve), or a Pipeline whose
        last step is one, possibly after private preprocessing steps
        (``skprivate.preprocessing``). The ``epsilon``, ``delta`` and ``random_state`` of
        every DP step are set by the search for every run: the run's budget is split as
        :func:`~skprivate.preprocessing.make_private_pipeline` splits one (20 % to the
        private preprocessing steps that spend, equally, the rest to the model).
    param_grid : dict or list of dicts
        As for scikit-learn's ``GridSearchCV``: parameter names mapped to lists of values;
        every point of the grid (of every dict) is drawn with the same probability.
    %(search_parameters)s

    Attributes
    ----------
    %(search_attributes)s

    See Also
    --------
    PrivateRandomSearchCV : The same search with values drawn parameter by parameter.

    Notes
    -----
    %(search_notes)s

    References
    ----------
    %(search_references)s

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import MinMaxScaler
    >>> from skprivate.linear_model import DPLSSGDClassifier
    >>> from skprivate.model_selection import PrivateGridSearchCV
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> # MinMaxScaler fitted here learns bounds from the private rows, outside the
    >>> # guarantee; in a release, scale with public bounds (FunctionTransformer).
    >>> search = PrivateGridSearchCV(
    ...     make_pipeline(MinMaxScaler(clip=True), DPLSSGDClassifier(max_iter=5)),
    ...     {"dplssgdclassifier__learning_rate": [0.3, 1.0, 3.0]},
    ...     epsilon=2.0, n_candidates_distribution="geometric", mean_candidates=4, random_state=0,
    ... )
    >>> search = search.fit(X, y)
    >>> bool(search.epsilon_ <= 2.0), sorted(search.best_params_)
    (True, ['dplssgdclassifier__learning_rate'])
    >>> bool(search.score(X, y) > 0.75)
    True
    """

    _parameter_constraints = {
        **_BasePrivateSearch._parameter_constraints,
        "param_grid": [dict, list],
    }

    def __init__(
        self,
        estimator,
        param_grid,
        *,
        epsilon=1.0,
        delta=1e-5,
        n_candidates_distribution="poisson",
        mean_candidates=10,
        scoring=None,
        score_range=None,
        validation_fraction=0.2,
        score_epsilon=None,
        n_samples_public=False,
        accountant=None,
        n_jobs=None,
        random_state=None,
        verbose=0,
        n_candidates=DEPRECATED,
        cv=DEPRECATED,
    ):
        self.estimator = estimator
        self.param_grid = param_grid
        self.epsilon = epsilon
        self.delta = delta
        self.n_candidates_distribution = n_candidates_distribution
        self.mean_candidates = mean_candidates
        self.scoring = scoring
        self.score_range = score_range
        self.validation_fraction = validation_fraction
        self.score_epsilon = score_epsilon
        self.n_samples_public = n_samples_public
        self.accountant = accountant
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.n_candidates = n_candidates
        self.cv = cv

    def _support(self):
        return grid_support(type(self).__name__, self.param_grid)

