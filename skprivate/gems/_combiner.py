"""GEMSCombiner: one model from the good-enough model spaces of separate parties.

The parties' side is in ``_space`` (with the local models it accepts in ``_local_model``),
the search for the loss threshold in ``_threshold``, the coordinator's combination in
``_coordinator``; this module holds the estimator and its answers.
"""

from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, MetaEstimatorMixin, _fit_context, clone, is_classifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, r2_score
from sklearn.neural_network import MLPClassifier
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, check_X_y, validate_data

from ..mechanisms import check_rng
from ..utils._compat import get_tags
from ..utils._deprecation import DEPRECATED, deprecated_option, renamed_value
from ..utils._docstrings import Substitution, fragment
from ..utils._linear import labels_from_scores
from ..utils._progress import parallel_progress
from ..utils._validation import explain_non_numeric, validate_numeric
from ._coordinator import _CoordinatorMixin
from ._local_model import (
    _activate,
    _is_network,
    check_party_classes,
    check_spaces_match,
    fit_preprocessing,
    split_pipeline,
)
from ._space import _SEED_MAX, GoodEnoughSpace, _make_party
from ._threshold import _first_model_spaces, _ThresholdSearchMixin

__all__ = ["GEMSCombiner"]

# Deep GEMS with epsilon=None: the rise of validation log loss one neuron may cause.
_DEEP_EPSILON = 0.02

#: The fine-tuning rows and the return value, the same for ``fit`` and ``combine``.
_PUBLIC_ROWS_RETURNS_DOC = fragment(
    """
    X_public : array-like of shape (n_public, n_features), default=None
        Public labelled rows for fine-tuning (with ``fine_tune=True``).
    y_public : array-like of shape (n_public,), default=None
        Their targets.

    Returns
    -------
    self : GEMSCombiner
        The fitted combiner.
    """
)


class GEMSCombiner(
    _CoordinatorMixin, _ThresholdSearchMixin, MetaEstimatorMixin, BaseEstimator
):
    """One model from models that separate parties trained, via good-enough model spaces.

    GEMS (Guha et al.) is **not differentially private**, and its ``epsilon`` is **not a
    privacy budget**: it is a loss threshold. A model is "good enough" for a party when its
    mean loss on the party's validation rows is at most ``epsilon``. GEMS moves no raw data,
    but the balls it sends are functions of each party's data and carry no privacy
    guarantee (paper, Section 3.3).

    Each party trains a clone of ``estimator`` on its own rows and approximates its
    good-enough set by a ball around its trained weights (one ball per hidden neuron for a
    network). A coordinator who sees only the balls returns a model in their intersection,
    optionally fine-tuned on a little public labelled data. :meth:`fit` simulates the
    parties on one machine (``groups`` says whose each row is); in a real federation each
    party runs :func:`~skprivate.gems.good_enough_space` and the coordinator
    :meth:`combine`.

    Parameters
    ----------
    estimator : estimator, default=None
        The local model. A linear classifier or regressor (shallow GEMS; classifiers are
        scored by the log loss of their linear scores, regressors by squared error), or a
        classifier network with one hidden layer (deep GEMS): an
        :class:`~sklearn.neural_network.MLPClassifier`, or a skorch ``NeuralNetClassifier``
        whose module has two ``Linear`` layers with a ReLU, Tanh or Sigmoid between them and
        returns logits (torch is seeded from ``random_state`` before each party's fit).
        None means ``LogisticRegression()``, or ``MLPClassifier(hidden_layer_sizes)`` when
        ``hidden_layer_sizes`` is given. A :class:`~sklearn.pipeline.Pipeline` ending in
        such a model is accepted when its other steps learn nothing from a party's rows
        (stateless, or fitted on public data and wrapped in
        :class:`~sklearn.frozen.FrozenEstimator`): see Notes.
    epsilon : float, default=None
        The good-enough loss threshold; not a privacy budget. Shallow GEMS: the largest
        mean validation loss (log loss for classifiers, squared error for regressors) a
        good-enough model may have, the same for every party; None means the smallest
        threshold at which the parties' balls intersect (the number the paper reports),
        found by doubling then bisection. Deep GEMS: the rise of a party's validation log
        loss that moving one neuron within its ball may cause (the parties' networks reach
        different losses, and one absolute threshold would give the better-trained party
        far larger balls); None means 0.02. A larger value merges more neurons.
    n_directions : int, default=None
        Directions sampled on the sphere (models on the ball's surface) at each probe of
        the radius search. None means ``max(100, 2 * n_dims)`` with ``n_dims`` the
        dimension of a ball. (It was called ``n_samples``, which in scikit-learn is the
        number of rows.)
    intersection : {"minimax", "hinge"}, default="minimax"
        ``"minimax"``: the point minimising the largest ratio of distance-to-centre over
        radius across parties, solved exactly through its dual. ``"hinge"``: the authors'
        gradient descent on the violations from the mean of the centres.
    hidden_layer_sizes : int, default=None
        Width of the default network (deep GEMS) when ``estimator`` is None.
    fine_tune : bool, default=True
        Fine-tune the combined model (the output layer of a network) on ``X_public``,
        ``y_public`` when they are passed to :meth:`fit` or :meth:`combine`.
    validation_fraction : float, default=0.2
        Share of each party's rows held out to compute its balls.
    n_jobs : int, default=None
        Parties processed in parallel by joblib.
    random_state : None, int, Generator or RandomState, default=None
        Seeds the parties' splits, initialisations and sampled directions: party ``k`` gets
        ``numpy.random.default_rng(random_state).integers(2**31 - 1, size=n_parties)[k]``,
        drawn before the parallel loop, so results do not depend on ``n_jobs``. An int
        makes the fit reproducible.
    verbose : int, default=0
        0 prints nothing; 1 shows progress bars on stderr (tqdm when installed): over the
        parties' training, over the parties' radius searches at a given ``epsilon``, and
        over the thresholds probed when ``epsilon=None``; 2 also prints each threshold
        tried, its margin, the parties' validation losses and the result.
    neuron_space : {"incoming_outgoing", "incoming"}, default="incoming_outgoing"
        Deep GEMS: a neuron's ball covers its incoming weights, bias and outgoing weights
        (the 2018 paper), or its incoming weights and bias only (the authors' 2019 code;
        the outgoing weights of a merged neuron are then averaged).
    n_samples : int or None, default="deprecated"
        The old name of ``n_directions``.

        .. deprecated:: 0.1
           Renamed ``n_directions``; it warns and will be removed in 0.2.

    Attributes
    ----------
    coef_ : ndarray of shape (n_outputs, n_features) or (n_features,)
        Shallow GEMS: the combined model's coefficients, shaped like the estimator's (on
        the features after ``preprocessing_``, if any).
    intercept_ : ndarray of shape (n_outputs,) or float
        Shallow GEMS: its intercepts.
    coefs_ : list of ndarray
        Deep GEMS: input-to-hidden and hidden-to-output weights.
    intercepts_ : list of ndarray
        Deep GEMS: hidden and output biases.
    n_hidden_ : int
        Deep GEMS: hidden width of the result, matched groups plus unmatched neurons.
    n_matched_ : int
        Deep GEMS: number of matched groups.
    groups_ : list of list of (int, int)
        Deep GEMS: each merged neuron's (party index, local neuron index) members, in the
        order of the first ``n_matched_`` hidden units; unmatched neurons follow, party by
        party.
    classes_ : ndarray of shape (n_classes,)
        Class labels (classifiers only).
    preprocessing_ : Pipeline or None
        The parties' common preprocessing (a Pipeline estimator's steps before the model),
        applied to ``X`` before the combined model; None without one.
    n_features_in_ : int
        Number of features (before any preprocessing).
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when all are strings.
    epsilon_ : float
        The threshold used.
    n_parties_ : int
        Number of parties.
    radii_ : ndarray of shape (n_parties,) or (n_parties, n_hidden_local)
        Radius of each party's ball used (shallow), or of each party's neurons (deep).
    intersection_margin_ : float
        ``1 - max_k ||w - c_k|| / r_k`` at the result: how deep inside every party's ball it
        lies (negative: no intersection). Deep GEMS: the smallest margin over the matched
        groups (nan when no neuron was matched).
    spaces_ : list of GoodEnoughSpace
        The parties' spaces, as a coordinator receives them.

    See Also
    --------
    skprivate.gems.good_enough_space : The party's side of a federated combination.
    skprivate.pate.PATEClassifier : Differentially private knowledge transfer from
        separate teachers.

    Notes
    -----
    Shallow GEMS: each party's good-enough set is approximated by the largest ball around
    its trained weights whose ``n_directions`` sampled models on the sphere all keep the
    validation loss at or below ``epsilon`` (doubling then bisection on the radius; all
    models of one radius are scored in one matrix product). The combined model is the
    weighted Chebyshev centre ``argmin_w max_k ||w - c_k|| / r_k``; for two parties it is
    ``(r_2 c_1 + r_1 c_2) / (r_1 + r_2)``, the authors' rule. If the balls do not meet at a
    fixed ``epsilon``, each party retrains from new initialisations (at most twice, and only
    where the solver depends on its seed) and its set becomes a union of balls, as in the
    paper; then :class:`~skprivate.gems.NoIntersectionError` is raised.

    Deep GEMS (one hidden layer): each hidden neuron is a ball; neurons of different parties
    whose balls meet are merged at their intersection point, the others are kept unchanged,
    the output bias is the mean of the parties', and the output layer is fine-tuned on the
    public data. Matching is an explicit assignment (Hungarian for two parties, greedy
    groups with a common point for more) instead of the paper's pairs or the authors'
    k-means.

    Pipelines: GEMS finds a point in the parties' weight spaces, and weights of different
    parties are comparable only if they act on the same features. A Pipeline's steps before
    its model are therefore one map shared by all parties, not a per-party part of each
    model: each step must be stateless (scikit-learn's ``requires_fit`` tag is False, as for
    ``FunctionTransformer``) or fitted once on public data and frozen
    (``make_pipeline(FrozenEstimator(StandardScaler().fit(X_public)), LogisticRegression())``).
    A step that each party would fit on its own rows, such as a bare ``StandardScaler``, is
    refused with an error: each party's weights would then live in its own coordinates.
    :meth:`combine` refuses spaces whose preprocessings differ (steps, parameters or fitted
    values). The combined model applies the shared map, then the combined weights.

    Privacy: no rows leave a party, but the centres are trained weights and the radii depend
    on the validation rows, so a space can reveal information about them. The paper states
    that the privacy cost of sharing the spaces is unknown (Section 3.3). Do not describe a
    GEMS model as differentially private.

    References
    ----------
    .. [1] N. Guha, Z. Wang, M. Wytock, A. Majumdar, "Knowledge Aggregation via Epsilon
       Model Spaces", arXiv:1805.07782v1, 2018.
    .. [2] N. Guha, V. Smith, "Model Aggregation via Good-Enough Model Spaces",
       arXiv:1805.07782, 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skprivate.gems import GEMSCombiner
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> groups = np.arange(len(y)) % 3  # three hospitals
    >>> gems = GEMSCombiner(random_state=0).fit(X[:450], y[:450], groups[:450])
    >>> gems.n_parties_, bool(gems.score(X[450:], y[450:]) > 0.9)
    (3, True)

    With a preprocessing the parties share, here a scaler fitted on public rows and frozen:

    >>> from sklearn.frozen import FrozenEstimator
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> X_raw, _ = load_breast_cancer(return_X_y=True)
    >>> scaler = FrozenEstimator(StandardScaler().fit(X_raw[450:]))
    >>> party_model = make_pipeline(scaler, LogisticRegression())
    >>> gems = GEMSCombiner(party_model, random_state=0)
    >>> gems = gems.fit(X_raw[:450], y[:450], groups[:450])
    >>> gems.coef_.shape, bool(gems.score(X_raw[450:], y[450:]) > 0.9)
    ((1, 30), True)
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit"]), None],
        "epsilon": [Interval(Real, 0, None, closed="neither"), None],
        "n_directions": [Interval(Integral, 1, None, closed="left"), None],
        "n_samples": [Interval(Integral, 1, None, closed="left"), None, deprecated_option()],
        "intersection": [StrOptions({"minimax", "hinge"})],
        "hidden_layer_sizes": [Interval(Integral, 1, None, closed="left"), tuple, None],
        "fine_tune": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_jobs": [Integral, None],
        "random_state": ["random_state", np.random.Generator],
        "verbose": ["verbose"],
        "neuron_space": [StrOptions({"incoming_outgoing", "incoming"})],
    }

    # Spelled out on purpose, like every estimator's here: scikit-learn reads an
    # estimator's parameters from its own __init__ signature.
    def __init__(
        self,
        estimator=None,
        epsilon=None,
        n_directions=None,
        intersection="minimax",
        hidden_layer_sizes=None,
        fine_tune=True,
        validation_fraction=0.2,
        n_jobs=None,
        random_state=None,
        verbose=0,
        neuron_space="incoming_outgoing",
        n_samples=DEPRECATED,
    ):
        self.estimator = estimator
        self.epsilon = epsilon
        self.n_directions = n_directions
        self.intersection = intersection
        self.hidden_layer_sizes = hidden_layer_sizes
        self.fine_tune = fine_tune
        self.validation_fraction = validation_fraction
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.neuron_space = neuron_space
        self.n_samples = n_samples

    # --- configuration ---------------------------------------------------------------------
    def _estimator(self):
        if self.estimator is not None:
            if self.hidden_layer_sizes is not None:
                raise ValueError(
                    "GEMSCombiner: hidden_layer_sizes sets the width of the default network "
                    f"only, but estimator={self.estimator!r} was given too. Set the width on "
                    "the estimator, or pass estimator=None."
                )
            return self.estimator
        if self.hidden_layer_sizes is None:
            return LogisticRegression()
        return MLPClassifier(hidden_layer_sizes=self.hidden_layer_sizes)

    def _log(self, message):
        # Losses and margins are the parties' own numbers, printed where the parties run;
        # GEMS makes no differential-privacy claim about them.
        if self.verbose >= 2:
            print(f"[GEMSCombiner] {message}")

    def _over_parties(self, tasks, n_parties, desc):
        return parallel_progress(tasks, n_jobs=self.n_jobs, total=n_parties, desc=desc,
                                 verbose=self.verbose)

    # --- fit: the whole federation simulated on one machine ------------------------------------
    @_fit_context(prefer_skip_nested_validation=False)
    @Substitution(public_rows_returns=_PUBLIC_ROWS_RETURNS_DOC)
    def fit(self, X, y, groups, X_public=None, y_public=None):
        """Train each party's model on its rows, compute its space, and combine them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            All parties' rows.
        y : array-like of shape (n_samples,)
            Their targets.
        groups : array-like of shape (n_samples,)
            The party of each row; at least two parties.
        %(public_rows_returns)s
        """
        name = type(self).__name__
        preprocessing, estimator = split_pipeline(self._estimator())
        if preprocessing is None:
            X, y = validate_numeric(self, X, y, dtype="numeric")
        else:
            # Names and width of the raw features; the shared map (nothing in it is learnt
            # from the rows, see split_pipeline) gives the features the parties train on.
            validate_data(self, X, reset=True, skip_check_array=True)
            preprocessing, X = fit_preprocessing(preprocessing, X, y)
            with explain_non_numeric(name, "the Pipeline's preprocessing must output numbers"):
                X, y = check_X_y(X, y, dtype="numeric")
        groups = np.asarray(groups)
        if groups.shape != (len(y),):
            raise ValueError(
                f"{name}: groups must have one entry per row of X ({len(y)}); got shape "
                f"{groups.shape}."
            )
        parties, owner = np.unique(groups, return_inverse=True)
        if len(parties) < 2:
            raise ValueError(
                f"{name}: groups names a single party {parties.tolist()}; GEMS combines the "
                "models of two or more parties. With one party, fit the estimator directly."
            )
        classifier = _is_network(estimator) or is_classifier(estimator)
        classes = None
        if classifier:
            check_classification_targets(y)
            classes = np.unique(y)
            check_party_classes(name, y, owner, parties, classes)
        rng = check_rng(self.random_state)
        # One seed per party, drawn before the loop: results do not depend on n_jobs.
        seeds = rng.integers(_SEED_MAX, size=len(parties))
        rows = [np.flatnonzero(owner == k) for k in range(len(parties))]
        n_directions = renamed_value(
            self.n_directions, self.n_samples, new="n_directions", old="n_samples",
            default=None, owner=name,
        )
        parallel = Parallel(n_jobs=self.n_jobs)
        tasks = (
            delayed(_make_party)(
                clone(estimator), X[r], y[r], classes, n_directions,
                self.validation_fraction, self.neuron_space, seed, 1,
            )
            for r, seed in zip(rows, seeds)
        )
        members = self._over_parties(tasks, len(parties), "GEMS parties")
        for member in members:
            member.preprocessing, member.n_features_in = preprocessing, self.n_features_in_
        losses = np.array([m.models[0]["loss"] for m in members])
        self._log(f"local validation losses {np.round(losses, 4).tolist()}")
        names = self.feature_names_in_ if hasattr(self, "feature_names_in_") else None
        if _is_network(estimator):
            epsilon = _DEEP_EPSILON if self.epsilon is None else float(self.epsilon)
            spaces = _first_model_spaces(members, epsilon, names, parallel)
        elif self.epsilon is None:
            spaces = self._smallest_epsilon(members, losses, names, parallel)
        else:
            spaces = self._fixed_epsilon(members, parties, names, parallel)
        self._combine(spaces, X_public, y_public)
        return self

    # --- combine: the coordinator's side -------------------------------------------------------
    @_fit_context(prefer_skip_nested_validation=True)
    @Substitution(public_rows_returns=_PUBLIC_ROWS_RETURNS_DOC)
    def combine(self, spaces, X_public=None, y_public=None):
        """Build the global model from the parties' good-enough spaces alone.

        This is the coordinator's step of a federated combination: each party runs
        :func:`~skprivate.gems.good_enough_space` on its own rows and sends the result. The
        thresholds are those the spaces were computed at; ``epsilon`` is not used here.

        Parameters
        ----------
        spaces : list of GoodEnoughSpace
            One space per party, at least two, all of the same kind and shape.
        %(public_rows_returns)s
        """
        name = type(self).__name__
        spaces = list(spaces)
        if len(spaces) < 2 or not all(isinstance(s, GoodEnoughSpace) for s in spaces):
            raise ValueError(
                f"{name}: combine needs a list of two or more GoodEnoughSpace objects (one "
                f"per party, from skprivate.gems.good_enough_space); got {len(spaces)} "
                "item(s)."
            )
        check_spaces_match(name, spaces)
        first = spaces[0]
        self.n_features_in_ = first.n_features_in
        if first.feature_names_in is not None:
            self.feature_names_in_ = np.asarray(first.feature_names_in, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self._combine(spaces, X_public, y_public)
        return self

    # --- the combined model answers ----------------------------------------------------------
    def _hidden(self, X):
        return _activate(self._activation, X @ self.coefs_[0] + self.intercepts_[0])

    def _model_input(self, X, y="no_validation", dtype=np.float64):
        """``X`` (and ``y``) checked against fit, through the shared preprocessing if any."""
        if self.preprocessing_ is None:
            return validate_numeric(self, X, y, reset=False, dtype=dtype)
        validate_data(self, X, reset=False, skip_check_array=True)
        Z = self.preprocessing_.transform(X)
        with explain_non_numeric(type(self).__name__,
                                 "the Pipeline's preprocessing must output numbers"):
            if isinstance(y, str):
                return check_array(Z, dtype=dtype)
            return check_X_y(Z, y, dtype=dtype)

    def _scores(self, X):
        check_is_fitted(self, "spaces_")
        X = self._model_input(X)
        if self._kind == "network":
            return self._hidden(X) @ self.coefs_[1] + self.intercepts_[1]
        coef = np.atleast_2d(self.coef_)
        return X @ coef.T + np.atleast_1d(self.intercept_)

    def _is_classifier(self):
        if hasattr(self, "classes_"):
            return True
        return is_classifier(self._estimator_or_default())

    def _estimator_or_default(self):
        if self.estimator is not None:
            return self.estimator
        return LogisticRegression()

    # A regressor has no decision function (scikit-learn's convention): its scores are
    # predict's values. The three prediction methods repeat the numpydoc form of their
    # own docstrings on purpose (the API reference renders each).
    @available_if(_is_classifier)
    def decision_function(self, X):
        """Scores of the combined model: log-odds (binary) or per-class logits.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input rows.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            The scores.
        """
        scores = self._scores(X)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X):
        """Predict with the combined model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input rows.

        Returns
        -------
        y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
            Predicted classes, or predicted targets for a regressor.
        """
        scores = self._scores(X)
        if scores.shape[1] == 1:
            scores = scores[:, 0]
        if not hasattr(self, "classes_"):
            return scores
        return labels_from_scores(self.classes_, scores)

    @available_if(_is_classifier)
    def predict_proba(self, X):
        """Class probabilities of the combined model, columns in the order of ``classes_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input rows.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            The probabilities.
        """
        scores = self._scores(X)
        if scores.shape[1] == 1:
            p1 = 0.5 * (1.0 + np.tanh(0.5 * scores[:, 0]))
            return np.column_stack([1.0 - p1, p1])
        scores = scores - scores.max(axis=1, keepdims=True)
        e = np.exp(scores)
        return e / e.sum(axis=1, keepdims=True)

    def score(self, X, y, sample_weight=None):
        """Accuracy (classifiers) or coefficient of determination R^2 (regressors).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Test rows.
        y : array-like of shape (n_samples,)
            True targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        score : float
            Accuracy, or R^2.
        """
        if hasattr(self, "classes_"):
            return accuracy_score(y, self.predict(X), sample_weight=sample_weight)
        return r2_score(y, self.predict(X), sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self._estimator_or_default() if self.hidden_layer_sizes is None
                         else MLPClassifier())
        tags.estimator_type = inner.estimator_type
        tags.classifier_tags = inner.classifier_tags
        tags.regressor_tags = inner.regressor_tags
        return tags
