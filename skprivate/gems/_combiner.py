"""GEMSCombiner: one model from the good-enough model spaces of separate parties."""

import itertools
import math
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
from ..utils._progress import parallel_progress, progress_counter
from ..utils._validation import explain_non_numeric, validate_numeric
from ._deep import assemble_network, match_neurons
from ._fine_tune import fine_tune_linear
from ._intersection import NoIntersectionError, ball_intersection
from ._space import (
    _SEED_MAX,
    GoodEnoughSpace,
    _activate,
    _check_epsilon_reachable,
    _is_network,
    _make_party,
    fit_preprocessing,
    split_pipeline,
)

__all__ = ["GEMSCombiner"]

# Retries with new initialisations when the sets do not meet (the paper retries without a
# bound; skprivate stops after this many, then raises).
_MAX_RETRIES = 2
# Searching the smallest threshold: relative precision, and bound on doubling steps.
_EPSILON_RTOL = 1e-3
_MAX_DOUBLINGS = 40
# Deep GEMS with epsilon=None: the rise of validation log loss one neuron may cause.
_DEEP_EPSILON = 0.02


def _party_radii(party, epsilon, indices):
    return [party.radii(epsilon, i) for i in indices]


def _first_model_spaces(members, epsilon, names, parallel):
    """Each party's space at ``epsilon``, from the balls of its first model only."""
    radii = parallel(delayed(_party_radii)(m, epsilon, [0]) for m in members)
    return [m.space(epsilon, r, names) for m, r in zip(members, radii)]


def _party_add_init(party):
    added = party.add_init()
    return party, added


class GEMSCombiner(MetaEstimatorMixin, BaseEstimator):
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
    n_samples : int, default=None
        Models sampled on the sphere at each probe of the radius search. None means
        ``max(100, 2 * n_dims)`` with ``n_dims`` the dimension of a ball.
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
    its trained weights whose ``n_samples`` sampled models on the sphere all keep the
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
        "n_samples": [Interval(Integral, 1, None, closed="left"), None],
        "intersection": [StrOptions({"minimax", "hinge"})],
        "hidden_layer_sizes": [Interval(Integral, 1, None, closed="left"), tuple, None],
        "fine_tune": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_jobs": [Integral, None],
        "random_state": ["random_state", np.random.Generator],
        "verbose": ["verbose"],
        "neuron_space": [StrOptions({"incoming_outgoing", "incoming"})],
    }

    def __init__(
        self,
        estimator=None,
        epsilon=None,
        n_samples=None,
        intersection="minimax",
        hidden_layer_sizes=None,
        fine_tune=True,
        validation_fraction=0.2,
        n_jobs=None,
        random_state=None,
        verbose=0,
        neuron_space="incoming_outgoing",
    ):
        self.estimator = estimator
        self.epsilon = epsilon
        self.n_samples = n_samples
        self.intersection = intersection
        self.hidden_layer_sizes = hidden_layer_sizes
        self.fine_tune = fine_tune
        self.validation_fraction = validation_fraction
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.neuron_space = neuron_space

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
        X_public : array-like of shape (n_public, n_features), default=None
            Public labelled rows for fine-tuning (with ``fine_tune=True``).
        y_public : array-like of shape (n_public,), default=None
            Their targets.

        Returns
        -------
        self : GEMSCombiner
            The fitted combiner.
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
            for k, party in enumerate(parties):
                held = np.unique(y[owner == k])
                if len(held) < 2:
                    raise ValueError(
                        f"{name}: party {_label(party)} holds a single class "
                        f"{held.tolist()}; each party's local model needs at least two. "
                        "Merge it with another party or drop it."
                    )
                missing = np.setdiff1d(classes, held)
                if missing.size:
                    raise ValueError(
                        f"{name}: party {_label(party)} holds no rows of the classes "
                        f"{missing.tolist()}, so its local model cannot score them and its "
                        "weights cannot be combined with the others'. Give every party "
                        "rows of every class, or merge parties."
                    )
        rng = check_rng(self.random_state)
        # One seed per party, drawn before the loop: results do not depend on n_jobs.
        seeds = rng.integers(_SEED_MAX, size=len(parties))
        rows = [np.flatnonzero(owner == k) for k in range(len(parties))]
        parallel = Parallel(n_jobs=self.n_jobs)
        tasks = (
            delayed(_make_party)(
                clone(estimator), X[r], y[r], classes, self.n_samples,
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

    def _fixed_epsilon(self, members, parties, names, parallel):
        epsilon = float(self.epsilon)
        for k, member in enumerate(members):
            _check_epsilon_reachable([m["loss"] for m in member.models], epsilon,
                                     f"party {_label(parties[k])}")
        radii = self._over_parties(
            (delayed(_party_radii)(m, epsilon, [0]) for m in members), len(members),
            "GEMS radius search",
        )
        for attempt in range(_MAX_RETRIES + 1):
            spaces = [m.space(epsilon, r, names) for m, r in zip(members, radii)]
            _, margin, _ = _best_linear_point(spaces, self.intersection)
            self._log(f"epsilon={epsilon:.6g}, attempt {attempt}: margin {margin:.4g}")
            if margin >= 0 or attempt == _MAX_RETRIES:
                break
            # The paper's retry: every party trains from a new initialisation and adds the
            # new ball to its set.
            out = parallel(delayed(_party_add_init)(m) for m in members)
            members = [m for m, _ in out]
            if not any(added for _, added in out):
                break
            radii = [
                r + (_party_radii(m, epsilon, [len(m.models) - 1]) if added else [])
                for (m, added), r in zip(out, radii)
            ]
        if margin < 0:
            raise NoIntersectionError(_no_intersection_message(spaces, parties, epsilon))
        return spaces

    def _smallest_epsilon(self, members, losses, names, parallel):
        with progress_counter(total=None, desc="GEMS epsilon search",
                              verbose=self.verbose) as bar:
            return self._search_epsilon(members, losses, names, parallel, bar)

    def _search_epsilon(self, members, losses, names, parallel, bar):
        def spaces_at(epsilon):
            spaces = _first_model_spaces(members, epsilon, names, parallel)
            bar.update()
            return spaces, _best_linear_point(spaces, self.intersection)[1]

        # Below the largest local loss some party's set is empty; above it the radii grow
        # with epsilon, so the margin does too and bisection applies.
        low = float(losses.max())
        gap = max(0.05 * low, 1e-6)
        for doublings in range(1, _MAX_DOUBLINGS + 1):
            high = low + gap
            spaces, margin = spaces_at(high)
            self._log(f"epsilon={high:.6g}: margin {margin:.4g}")
            if margin >= 0:
                break
            low, gap = high, 2 * gap
        else:
            raise NoIntersectionError(
                f"GEMSCombiner: the parties' balls do not meet even at epsilon={high:.4g}. "
                "The parties' models may be too different for one linear model; try a "
                "different estimator, or fewer, more similar parties."
            )
        # Bisection halves high - low until it is within _EPSILON_RTOL * high, and high
        # stays above low: that many steps at most.
        if low > 0:
            bisections = math.ceil(math.log2((high - low) / (_EPSILON_RTOL * low)))
            bar.set_total(doublings + max(bisections, 0))
        best = spaces
        while high - low > _EPSILON_RTOL * high:
            mid = 0.5 * (low + high)
            spaces, margin = spaces_at(mid)
            self._log(f"epsilon={mid:.6g}: margin {margin:.4g}")
            if margin >= 0:
                high, best = mid, spaces
            else:
                low = mid
        return best

    # --- combine: the coordinator's side -------------------------------------------------------
    @_fit_context(prefer_skip_nested_validation=True)
    def combine(self, spaces, X_public=None, y_public=None):
        """Build the global model from the parties' good-enough spaces alone.

        This is the coordinator's step of a federated combination: each party runs
        :func:`~skprivate.gems.good_enough_space` on its own rows and sends the result. The
        thresholds are those the spaces were computed at; ``epsilon`` is not used here.

        Parameters
        ----------
        spaces : list of GoodEnoughSpace
            One space per party, at least two, all of the same kind and shape.
        X_public : array-like of shape (n_public, n_features), default=None
            Public labelled rows for fine-tuning (with ``fine_tune=True``).
        y_public : array-like of shape (n_public,), default=None
            Their targets.

        Returns
        -------
        self : GEMSCombiner
            The fitted combiner.
        """
        name = type(self).__name__
        spaces = list(spaces)
        if len(spaces) < 2 or not all(isinstance(s, GoodEnoughSpace) for s in spaces):
            raise ValueError(
                f"{name}: combine needs a list of two or more GoodEnoughSpace objects (one "
                f"per party, from skprivate.gems.good_enough_space); got {len(spaces)} "
                "item(s)."
            )
        first = spaces[0]
        for k, s in enumerate(spaces[1:], start=1):
            same = (
                s.kind == first.kind
                and s.centers.shape[1] == first.centers.shape[1]
                and s.n_features_in == first.n_features_in
                and s.n_outputs == first.n_outputs
                and s.fit_intercept == first.fit_intercept
                and (s.classes is None) == (first.classes is None)
                and (s.classes is None or np.array_equal(s.classes, first.classes))
                and _same_function(s.preprocessing, first.preprocessing)
            )
            if not same:
                raise ValueError(
                    f"{name}: space {k} does not fit space 0 ({s!r} vs {first!r}, classes "
                    f"{s.classes} vs {first.classes}, preprocessing {s.preprocessing!r} vs "
                    f"{first.preprocessing!r}). All parties must train the same kind of model "
                    "on the same features and classes, after the same preprocessing (the same "
                    "fitted steps: a scaler fitted once and frozen, not one per party)."
                )
        self.n_features_in_ = first.n_features_in
        if first.feature_names_in is not None:
            self.feature_names_in_ = np.asarray(first.feature_names_in, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self._combine(spaces, X_public, y_public)
        return self

    def _combine(self, spaces, X_public, y_public):
        name = type(self).__name__
        first = spaces[0]
        for attr in ("coef_", "intercept_", "coefs_", "intercepts_", "n_hidden_",
                     "n_matched_", "groups_", "classes_"):
            if hasattr(self, attr):
                delattr(self, attr)
        self._loss = first.loss
        self._kind = first.kind
        self.preprocessing_ = first.preprocessing
        if first.classes is not None:
            self.classes_ = np.asarray(first.classes)
        self.n_parties_ = len(spaces)
        epsilons = np.array([s.epsilon for s in spaces])
        self.epsilon_ = float(epsilons[0]) if np.all(epsilons == epsilons[0]) else epsilons
        self.spaces_ = spaces
        if first.kind == "linear":
            point, margin, chosen = _best_linear_point(spaces, self.intersection)
            if margin < 0:
                raise NoIntersectionError(
                    _no_intersection_message(spaces, np.arange(len(spaces)), self.epsilon_)
                )
            self.radii_ = np.array([s.radii[i] for s, i in zip(spaces, chosen)])
            self.intersection_margin_ = margin
            # width of the model's input: the features after any preprocessing
            p = (first.centers.shape[1] - first.fit_intercept * first.n_outputs) // first.n_outputs
            coef = point[: first.n_outputs * p].reshape(first.n_outputs, p)
            intercept = point[first.n_outputs * p :]
            if not first.fit_intercept:
                intercept = np.zeros(first.n_outputs)
        else:
            groups, points, margins = match_neurons(
                [s.centers for s in spaces], [s.radii for s in spaces], self.intersection
            )
            self.coefs_, self.intercepts_ = assemble_network(spaces, groups, points)
            self._activation = first.network["activation"]
            self.n_hidden_ = self.coefs_[0].shape[1]
            self.n_matched_ = len(groups)
            self.groups_ = groups
            self.radii_ = np.array([s.radii for s in spaces])
            self.intersection_margin_ = float(min(margins)) if margins else float("nan")
            coef, intercept = self.coefs_[1].T, self.intercepts_[1]
        self._log(f"combined {self.n_parties_} parties, margin {self.intersection_margin_:.4g}")

        if X_public is not None and self.fine_tune:
            if y_public is None:
                raise ValueError(f"{name}: X_public was given without y_public; pass both.")
            X_public, y_public = self._model_input(X_public, y_public, dtype="numeric")
            if first.classes is not None:
                unseen = np.setdiff1d(np.unique(y_public), self.classes_)
                if unseen.size:
                    raise ValueError(
                        f"{name}: y_public holds classes {unseen.tolist()} that no party "
                        f"trained on (classes_: {self.classes_.tolist()}). Drop those rows "
                        "or give the parties rows of those classes."
                    )
                target = np.searchsorted(self.classes_, y_public)
            else:
                target = np.asarray(y_public, dtype=float)
            features = X_public if first.kind == "linear" else self._hidden(X_public)
            coef, intercept = fine_tune_linear(
                features.astype(float), target, coef, intercept, first.loss,
                fit_intercept=first.fit_intercept,
            )
        elif y_public is not None and X_public is None:
            raise ValueError(f"{name}: y_public was given without X_public; pass both.")

        if first.kind == "linear":
            self._set_linear(coef, intercept, first)
        else:
            self.coefs_[1] = coef.T
            self.intercepts_[1] = np.asarray(intercept)

    def _set_linear(self, coef, intercept, space):
        if space.classes is None and space.n_outputs == 1:
            # A single-target regressor: coef_ (n_features,), intercept_ a float, like Ridge.
            self.coef_, self.intercept_ = coef[0], float(intercept[0])
        else:
            self.coef_, self.intercept_ = coef, np.asarray(intercept)

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
    # predict's values.
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
        if not hasattr(self, "classes_"):
            return scores[:, 0] if scores.shape[1] == 1 else scores
        if scores.shape[1] == 1:
            return self.classes_[(scores[:, 0] > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

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


def _best_linear_point(spaces, method):
    """The best intersection over one ball per party (the sets may be unions of balls).

    The choice of balls, and whether they meet, is decided by the exact minimax problem;
    ``method="hinge"`` then finds its own point in the chosen balls.
    """
    choices = [np.flatnonzero(s.radii > 0) for s in spaces]
    best = (None, -np.inf, None)
    if any(c.size == 0 for c in choices):
        return best
    for combo in itertools.product(*choices):
        centers = np.array([s.centers[i] for s, i in zip(spaces, combo)])
        radii = np.array([s.radii[i] for s, i in zip(spaces, combo)])
        point, margin = ball_intersection(centers, radii)
        if margin > best[1]:
            best = (point, margin, combo)
    point, margin, combo = best
    if method == "hinge" and margin >= 0:
        centers = np.array([s.centers[i] for s, i in zip(spaces, combo)])
        radii = np.array([s.radii[i] for s, i in zip(spaces, combo)])
        point, margin = ball_intersection(centers, radii, "hinge")
    return point, margin, combo


def _no_intersection_message(spaces, parties, epsilon):
    # Name the pair of parties whose nearest balls are furthest apart, relative to radii.
    worst, pair = -np.inf, (0, 1)
    for i, j in itertools.combinations(range(len(spaces)), 2):
        a, b = spaces[i], spaces[j]
        ok_a, ok_b = a.radii > 0, b.radii > 0
        if not ok_a.any() or not ok_b.any():
            ratio = np.inf
        else:
            dist = np.linalg.norm(a.centers[ok_a][:, None] - b.centers[ok_b][None], axis=2)
            ratio = float((dist / (a.radii[ok_a][:, None] + b.radii[ok_b][None])).min())
        if ratio > worst:
            worst, pair = ratio, (i, j)
    i, j = pair
    return (
        f"GEMSCombiner: the parties' good-enough sets do not intersect at epsilon={epsilon}. "
        f"Parties {_label(parties[i])} and {_label(parties[j])} are furthest apart: the "
        f"distance between their balls' centres is {worst:.3g} times the sum of their radii "
        "(at most 1 is needed). Raise epsilon, use epsilon=None to find the smallest "
        "threshold at which the sets meet, or use an estimator whose training depends on "
        "random_state so that retries from new initialisations can find other balls."
    )


def _label(value):
    return repr(value.item() if isinstance(value, np.generic) else value)


def _same_function(a, b):
    """Whether two fitted preprocessings are the same map: same steps, parameters, state.

    Compares the objects' attributes recursively (arrays exactly). A function is the same
    only if it is the same object or the same importable name: two lambdas, or two local
    functions, cannot be told apart and are refused.
    """
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(
            a, b, equal_nan=a.dtype.kind in "fc"
        )
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_function(x, z) for x, z in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_function(a[k], b[k]) for k in a)
    if callable(a) and hasattr(a, "__qualname__"):  # a function or a class
        name = getattr(a, "__qualname__", "")
        return (
            "<" not in name
            and name == getattr(b, "__qualname__", None)
            and getattr(a, "__module__", None) == getattr(b, "__module__", None)
        )
    if hasattr(a, "__dict__"):
        return _same_function(vars(a), vars(b))
    try:
        return bool(a == b) or (a != a and b != b)  # noqa: PLR0124 - nan equals nan here
    except (TypeError, ValueError):
        return False
