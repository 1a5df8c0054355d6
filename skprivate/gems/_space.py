"""What a party computes and sends: its good-enough model space (balls, no data).

A party trains its local model, keeps a validation split, and finds for each ball (the
whole linear model, or each hidden neuron of a network) the largest radius at which every
sampled model still has validation loss <= epsilon (Guha et al. 2018, Section 4).
"""

from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.model_selection import train_test_split
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    StrOptions,
    validate_params,
)
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_X_y
from threadpoolctl import threadpool_limits

from ..mechanisms import check_rng
from ..utils._deprecation import DEPRECATED, deprecated_option, renamed_value, warn_renamed
from ._local_model import (
    _activate,
    _check_estimator,
    _is_network,
    fit_preprocessing,
    split_pipeline,
)
from ._radius import (
    default_n_samples,
    linear_scores,
    mean_loss,
    search_radii,
    sphere_directions,
)
from ._skorch import fit_skorch, is_skorch_net, skorch_weights

__all__ = ["GoodEnoughSpace", "good_enough_space"]

# Elements of one (models x rows x outputs) score block; neurons are evaluated in chunks
# of about this size, so memory stays bounded whatever the width of the network.
_BLOCK = 500_000
_SEED_MAX = 2**31 - 1


@dataclass(eq=False)
class GoodEnoughSpace:
    """A party's good-enough model space: balls in weight space, and nothing about its rows.

    Returned by :func:`good_enough_space` and combined by
    :meth:`GEMSCombiner.combine`. It holds the centres and radii of the balls, the
    threshold, and what the coordinator needs to rebuild a model (class labels, number of
    features, network shape); it holds no row of the party's data. The centres are the
    party's trained weights, and the radii and ``local_loss`` are functions of its
    validation rows: sending a space is not differentially private.

    Parameters
    ----------
    kind : {"linear", "network"}
        ``"linear"``: each ball is a whole linear model, its vector being ``coef.ravel()``
        followed by the intercepts. ``"network"``: one ball per hidden neuron, its vector
        being the neuron's incoming weights and bias, followed by its outgoing weights when
        ``neuron_space == "incoming_outgoing"``.
    centers : ndarray of shape (n_balls, n_dims)
        Centres of the balls.
    radii : ndarray of shape (n_balls,)
        Their radii.
    epsilon : float
        The loss threshold the radii were computed for.
    loss : {"log_loss", "squared_error"}
        The validation loss compared with ``epsilon``.
    local_loss : ndarray of shape (n_models,)
        Validation loss of each trained local model (one per initialisation).
    n_outputs : int
        Rows of the coefficient matrix (1 for a binary classifier or a single target).
    n_features_in : int
        Number of features.
    classes : ndarray or None, default=None
        The class labels (all parties must hold the same set), None for a regressor.
    feature_names_in : ndarray of str or None, default=None
        Feature names seen at fit, if any.
    n_directions : int, default=0
        Directions sampled on the sphere per probe of the radius search.
    n_validation : int, default=0
        Rows of the party's validation split.
    network : dict or None, default=None
        For ``kind="network"``: ``coefs`` and ``intercepts`` (the local network's weights,
        as in :class:`~sklearn.neural_network.MLPClassifier`), ``activation``,
        ``out_activation`` and ``neuron_space``.
    fit_intercept : bool, default=True
        Whether the linear model has intercepts (part of the ball's vector).
    preprocessing : Pipeline or None, default=None
        The feature map applied before the model when the estimator was a
        :class:`~sklearn.pipeline.Pipeline`: its steps before the final one, fitted. The
        balls live in the space of the model's weights on the transformed features, so every
        party's map must be the same function; it travels with the space, fitted state
        included (a frozen scaler's means and scales), so it must hold nothing private.
        None without preprocessing.

    Examples
    --------
    Each of two parties computes its space on its own rows; the coordinator combines the
    spaces alone:

    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skprivate.gems import GEMSCombiner, good_enough_space
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> spaces = [
    ...     good_enough_space(LogisticRegression(), X[rows], y[rows], epsilon=0.3,
    ...                       random_state=0)
    ...     for rows in (slice(0, 250), slice(250, 500))
    ... ]
    >>> space = spaces[0]
    >>> space
    GoodEnoughSpace(kind='linear', n_balls=1, n_dims=31, epsilon=0.3)
    >>> space.centers.shape, space.radii.shape, space.classes.tolist(), space.n_validation
    ((1, 31), (1,), [0, 1], 50)
    >>> gems = GEMSCombiner().combine(spaces)
    >>> gems.n_parties_, bool(gems.score(X[500:], y[500:]) > 0.9)
    (2, True)
    """

    kind: str
    centers: np.ndarray
    radii: np.ndarray
    epsilon: float
    loss: str
    local_loss: np.ndarray
    n_outputs: int
    n_features_in: int
    classes: object = None
    feature_names_in: object = None
    n_directions: int = 0
    n_validation: int = 0
    network: dict = field(default=None)
    fit_intercept: bool = True
    preprocessing: object = None

    @property
    def n_samples(self):
        """The old name of ``n_directions`` (deprecated in 0.1, removed in 0.2)."""
        warn_renamed("n_samples", "n_directions", owner="GoodEnoughSpace")
        return self.n_directions

    def __repr__(self):
        return (
            f"GoodEnoughSpace(kind={self.kind!r}, n_balls={len(self.radii)}, "
            f"n_dims={self.centers.shape[1]}, epsilon={self.epsilon:.6g})"
        )


# --- the party ---------------------------------------------------------------------------------

class _Party:
    """One party's data split, local models and sampled directions (simulation side)."""

    def __init__(self, estimator, X, y, classes, n_samples, validation_fraction,
                 neuron_space, seed):
        _check_estimator(estimator)
        self.estimator = estimator
        self.network = _is_network(estimator)
        self.classifier = self.network or is_classifier(estimator)
        self.neuron_space = neuron_space
        self.n_samples_param = n_samples
        self.seed = np.random.SeedSequence(int(seed))
        self.classes = classes
        split_seed = int(np.random.default_rng(self.seed.spawn(1)[0]).integers(_SEED_MAX))
        stratify = None
        if self.classifier:
            _, counts = np.unique(y, return_counts=True)
            if counts.min() >= 2 and round(validation_fraction * len(y)) >= len(counts):
                stratify = y
        train, val = train_test_split(
            np.arange(len(y)), test_size=validation_fraction, random_state=split_seed,
            stratify=stratify,
        )
        if self.classifier:
            # A class with a single row goes to training: the model must know every class.
            missing = np.setdiff1d(np.unique(y[val]), y[train])
            moved = val[np.isin(y[val], missing)]
            train, val = np.concatenate([train, moved]), val[~np.isin(val, moved)]
        X_train, X_val, y_train, y_val = X[train], X[val], y[train], y[val]
        self.X_train, self.y_train, self.X_val = X_train, y_train, X_val
        if self.classifier:
            missing = np.setdiff1d(classes, np.unique(y_train))
            if missing.size:
                raise ValueError(
                    f"GEMS: a party's training split lacks the classes {missing.tolist()} "
                    f"that other parties hold (all classes: {classes.tolist()}). Every "
                    "party's local model must know every class: give each party rows of "
                    "every class, or merge the parties."
                )
            self.y_val = np.searchsorted(classes, y_val)
        else:
            self.y_val = np.asarray(y_val, dtype=float)
        self.models = []  # per initialisation: dict(center(s), directions, loss)
        # Set by the caller when the estimator was a Pipeline: the shared feature map, and
        # the number of features before it.
        self.preprocessing, self.n_features_in = None, None

    # --- local training ----------------------------------------------------------------------
    def add_init(self):
        """Train one more local model from a new initialisation (child seed of the party)."""
        index = len(self.models)
        child = np.random.SeedSequence(self.seed.entropy, spawn_key=(index + 1,))
        rng = np.random.default_rng(child)
        estimator = clone(self.estimator)
        if "random_state" in estimator.get_params():
            estimator.set_params(random_state=int(rng.integers(_SEED_MAX)))
        if is_skorch_net(estimator):
            # skorch has no random_state: torch's generator is seeded from the same child.
            fit_skorch(estimator, self.X_train, np.searchsorted(self.classes, self.y_train),
                       rng.integers(_SEED_MAX))
        else:
            estimator.fit(self.X_train, self.y_train)
        if self.network:
            model = self._network_model(estimator)
        else:
            model = self._linear_model(estimator)
        n_dims = model["centers"].shape[1]
        n_samples = self.n_samples_param or default_n_samples(n_dims)
        model["directions"] = sphere_directions(
            rng, model["centers"].shape[0], n_samples, n_dims
        )
        if self.models and not self.network and np.array_equal(
            model["centers"], self.models[0]["centers"]
        ):
            # A deterministic solver gives the same ball from every start: nothing to add.
            return False
        self.models.append(model)
        return True

    def _linear_model(self, estimator):
        if not (hasattr(estimator, "coef_") and hasattr(estimator, "intercept_")):
            raise TypeError(
                f"GEMS: {type(estimator).__name__} has no coef_ and intercept_ after fit, so "
                "it is no linear model whose weights GEMS could combine. Use a linear "
                "classifier or regressor, an MLPClassifier or a skorch classifier (as the "
                "final step of a Pipeline, if it needs preprocessing)."
            )
        coef = np.atleast_2d(np.asarray(estimator.coef_, dtype=float))
        intercept = np.broadcast_to(
            np.asarray(estimator.intercept_, dtype=float), (coef.shape[0],)
        )
        # Without a fitted intercept the intercepts are no parameters: the balls live in the
        # space of coefficients alone.
        self.fit_intercept = bool(getattr(estimator, "fit_intercept", True))
        parts = [coef.ravel(), intercept] if self.fit_intercept else [coef.ravel()]
        center = np.concatenate(parts)[None, :]
        model = {"centers": center, "n_outputs": coef.shape[0]}
        model["loss"] = float(self._linear_losses(center, model["n_outputs"])[0])
        return model

    def _linear_losses(self, weights, n_outputs):
        scores = linear_scores(self.X_val, weights, n_outputs)
        return mean_loss(scores, self.y_val, "log_loss" if self.classifier else
                         "squared_error")

    def _network_model(self, estimator):
        if is_skorch_net(estimator):
            (W1, W2), (b1, b2), activation = skorch_weights(estimator)
            out_activation = "softmax" if W2.shape[1] > 1 else "logistic"
        else:
            W1, W2 = (np.asarray(c, dtype=float) for c in estimator.coefs_)
            b1, b2 = (np.asarray(b, dtype=float) for b in estimator.intercepts_)
            activation, out_activation = estimator.activation, estimator.out_activation_
        parts = [W1.T, b1[:, None]]
        if self.neuron_space == "incoming_outgoing":
            parts.append(W2)
        hidden = _activate(activation, self.X_val @ W1 + b1)
        logits = hidden @ W2 + b2
        model = {
            "centers": np.hstack(parts),
            "n_outputs": W2.shape[1],
            "network": {
                "coefs": [W1, W2],
                "intercepts": [b1, b2],
                "activation": activation,
                "out_activation": out_activation,
                "neuron_space": self.neuron_space,
            },
            "hidden": hidden,
            "logits": logits,
        }
        model["loss"] = float(mean_loss(logits.T[:, None, :], self.y_val, "log_loss")[0])
        return model

    # --- radius search -----------------------------------------------------------------------
    def radii(self, epsilon, index=0):
        """Radii of model ``index``'s balls at threshold ``epsilon``."""
        model = self.models[index]
        centers, directions = model["centers"], model["directions"]
        if self.network:
            # Deep GEMS: epsilon is the rise of this party's validation loss that moving one
            # neuron may cause (see GEMSCombiner's epsilon).
            max_loss = self._neuron_max_loss(model)
            epsilon = model["loss"] + epsilon
        else:
            def max_loss(units, radii):
                weights = centers[0] + radii[0] * directions[0]
                return np.array([self._linear_losses(weights, model["n_outputs"]).max()])
        start = 0.5 * np.maximum(np.linalg.norm(centers, axis=1), 1e-3)
        # The products here are small and many: a multithreaded BLAS spends more time
        # synchronising than computing (10 to 50 times slower on a busy machine), and the
        # parties already run in parallel.
        with threadpool_limits(limits=1, user_api="blas"):
            # A neuron's radius only decides which neurons match: 1% is precise enough.
            return search_radii(max_loss, start, epsilon,
                                rtol=1e-2 if self.network else 1e-3)

    def _neuron_max_loss(self, model):
        net = model["network"]
        W1, W2 = net["coefs"]
        hidden, logits = model["hidden"], model["logits"]
        p = W1.shape[0]
        n_val, n_out = logits.shape
        S = model["directions"].shape[1]
        chunk = max(1, _BLOCK // max(S * n_val * n_out, 1))
        outgoing = self.neuron_space == "incoming_outgoing"

        # Single precision halves the memory traffic, which bounds the speed here; the
        # loss is still exact to about 1e-6, far below any useful threshold spacing.
        X_val = self.X_val.astype(np.float32)
        centers = model["centers"].astype(np.float32)
        directions = model["directions"].astype(np.float32)
        W2, hidden, logits = (a.astype(np.float32) for a in (W2, hidden, logits))

        def max_loss(units, radii):
            result = np.empty(len(units))
            radii = radii.astype(np.float32)
            for start in range(0, len(units), chunk):
                part = units[start:start + chunk]
                # (B, S, n_dims): every sampled version of every neuron in the chunk.
                V = centers[part, None, :] + (
                    radii[start:start + chunk, None, None] * directions[part]
                )
                B = len(part)
                pre = X_val @ V[:, :, :p].reshape(B * S, p).T + V[:, :, p].ravel()
                act = _activate(net["activation"], pre).T.reshape(B, S, n_val)
                if outgoing:
                    w_out = np.ascontiguousarray(V[:, :, p + 1:].transpose(2, 0, 1))
                else:
                    w_out = np.broadcast_to(W2[part].T[:, :, None], (n_out, B, S))
                # Replace the neuron's old contribution to the logits by the new one:
                # scores laid out (n_out, B, S, n_val), as mean_loss wants them.
                base = logits.T[:, None, :] - W2[part].T[:, :, None] * hidden[:, part].T[None]
                scores = act[None] * w_out[..., None]
                scores += base[:, :, None, :]
                losses = mean_loss(scores.reshape(n_out, B * S, n_val), self.y_val,
                                   "log_loss").reshape(B, S)
                result[start:start + chunk] = losses.max(axis=1)
            return result

        return max_loss

    # --- what is sent --------------------------------------------------------------------------
    def space(self, epsilon, radii, feature_names):
        """The GoodEnoughSpace of all models at ``epsilon`` (radii: one array per model)."""
        first = self.models[0]
        return GoodEnoughSpace(
            kind="network" if self.network else "linear",
            centers=np.vstack([m["centers"] for m in self.models]),
            radii=np.concatenate(radii),
            epsilon=float(epsilon),
            loss="log_loss" if self.classifier else "squared_error",
            local_loss=np.array([m["loss"] for m in self.models]),
            n_outputs=int(first["n_outputs"]),
            n_features_in=int(self.n_features_in or self.X_val.shape[1]),
            classes=None if self.classes is None else np.asarray(self.classes).copy(),
            feature_names_in=feature_names,
            n_directions=int(first["directions"].shape[1]),
            n_validation=int(self.X_val.shape[0]),
            network=first.get("network"),
            fit_intercept=getattr(self, "fit_intercept", True),
            preprocessing=self.preprocessing,
        )


def _feature_names(X):
    columns = getattr(X, "columns", None)
    if columns is None or not all(isinstance(c, str) for c in columns):
        return None
    return np.asarray(columns, dtype=object)


def _party_seed(random_state):
    """An int seed from ``random_state`` (None: from the operating system)."""
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        return int(random_state)
    return int(check_rng(random_state).integers(_SEED_MAX))


def _make_party(estimator, X, y, classes, n_samples, validation_fraction, neuron_space, seed,
                n_init):
    # Runs in a joblib worker during GEMSCombiner.fit; the party (with its rows) comes back
    # only because fit simulates every party on one machine.
    party = _Party(estimator, X, y, classes, n_samples, validation_fraction, neuron_space,
                   seed)
    for _ in range(n_init):
        if not party.add_init() and party.models:
            break
    return party


def _check_epsilon_reachable(party_losses, epsilon, who="The party"):
    worst = float(np.min(party_losses))
    if worst > epsilon:
        raise ValueError(
            f"GEMS: {who}'s own local model has validation loss {worst:.4g} > epsilon="
            f"{epsilon:.4g}, so its good-enough set is empty. Use epsilon > {worst:.4g}, or "
            "epsilon=None to find the smallest threshold at which the sets meet."
        )


@validate_params(
    {
        "estimator": [HasMethods(["fit"])],
        "X": ["array-like"],
        "y": ["array-like"],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "classes": ["array-like", None],
        "n_directions": [Interval(Integral, 1, None, closed="left"), None],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "neuron_space": [StrOptions({"incoming_outgoing", "incoming"})],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state", np.random.Generator],
        "n_samples": [Interval(Integral, 1, None, closed="left"), None, deprecated_option()],
    },
    prefer_skip_nested_validation=False,
)
def good_enough_space(estimator, X, y, epsilon, *, classes=None, n_directions=None,
                      validation_fraction=0.2, neuron_space="incoming_outgoing", n_init=1,
                      random_state=None, n_samples=DEPRECATED):
    """Train a local model and compute its good-enough model space, at one party.

    The party's rows are split into training and validation parts; ``n_init`` clones of
    ``estimator`` are trained from different initialisations; for each, the largest ball
    around its weights (around each hidden neuron's weights for a network) whose sampled
    models all keep the validation loss at or below ``epsilon`` is found by doubling then
    bisection. Only the balls and the model's shape leave the party.

    Parameters
    ----------
    estimator : estimator
        The local model: a linear classifier (scored by log loss of its linear scores, e.g.
        :class:`~sklearn.linear_model.LogisticRegression`), a linear regressor (scored by
        squared error), or a classifier network with one hidden layer (deep GEMS): an
        :class:`~sklearn.neural_network.MLPClassifier` or a skorch ``NeuralNetClassifier``
        whose module has two ``Linear`` layers and returns logits. It is cloned. Or a
        :class:`~sklearn.pipeline.Pipeline` ending in one, whose other steps learn nothing
        from the party's rows (stateless, or fitted on public data and wrapped in
        :class:`~sklearn.frozen.FrozenEstimator`); the space then holds that shared
        preprocessing, and the balls are in the weights on its output features.
    X : array-like of shape (n_samples, n_features)
        The party's rows.
    y : array-like of shape (n_samples,)
        Their targets.
    epsilon : float
        The loss threshold (not a privacy budget): mean validation log loss for
        classifiers, mean squared error for regressors.
    classes : array-like, default=None
        All class labels of the federation, which every party must hold. None means the
        labels present in ``y``.
    n_directions : int, default=None
        Directions sampled on the sphere (models on the ball's surface) per radius probe.
        None means ``max(100, 2 * n_dims)``.
    validation_fraction : float, default=0.2
        Share of the rows held out to compute the radii.
    neuron_space : {"incoming_outgoing", "incoming"}, default="incoming_outgoing"
        Deep GEMS only: a neuron's ball covers its incoming weights, bias and outgoing
        weights (Guha et al. 2018), or its incoming weights and bias only (the authors'
        2019 code).
    n_init : int, default=1
        Local models trained from different initialisations; the space is the union of
        their balls (linear models only; a deterministic solver gives one ball).
    random_state : None, int, Generator or RandomState, default=None
        Seeds the split, the initialisations and the sampled directions. An int makes the
        space reproducible; :class:`GEMSCombiner` gives party ``k`` the seed
        ``numpy.random.default_rng(random_state).integers(2**31 - 1, size=n_parties)[k]``.
    n_samples : int or None, default="deprecated"
        The old name of ``n_directions``.

        .. deprecated:: 0.1
           Renamed ``n_directions``; it warns and will be removed in 0.2.

    Returns
    -------
    space : GoodEnoughSpace
        Centres, radii and metadata; no rows of ``X``.

    See Also
    --------
    GEMSCombiner : Combines the parties' spaces into one model.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skprivate.gems import good_enough_space
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> space = good_enough_space(LogisticRegression(), X[:250], y[:250], epsilon=0.3,
    ...                           random_state=0)
    >>> space
    GoodEnoughSpace(kind='linear', n_balls=1, n_dims=31, epsilon=0.3)
    >>> bool(space.radii[0] > 0)
    True
    """
    feature_names = _feature_names(X)
    preprocessing, estimator = split_pipeline(estimator)
    n_features_in = None
    if preprocessing is not None:
        n_features_in = int(np.shape(X)[1])
        preprocessing, X = fit_preprocessing(preprocessing, X, y)
    X, y = check_X_y(X, y, dtype=None)
    _check_estimator(estimator)
    if _is_network(estimator) or is_classifier(estimator):
        check_classification_targets(y)
        classes = np.unique(y) if classes is None else np.unique(np.asarray(classes))
        present = np.unique(y)
        if len(present) < 2:
            raise ValueError(
                f"GEMS: the party holds a single class {present.tolist()}; a local model "
                "needs at least two. Merge it with another party or give it more rows."
            )
        unknown = np.setdiff1d(present, classes)
        if unknown.size:
            raise ValueError(f"GEMS: labels {unknown.tolist()} are not in classes.")
    else:
        classes = None
    if _is_network(estimator) and n_init > 1:
        raise ValueError(
            f"GEMS: n_init={n_init} applies to linear models only; a network's space is one "
            "ball per neuron of one trained network. Use n_init=1."
        )
    n_directions = renamed_value(
        n_directions, n_samples, new="n_directions", old="n_samples", default=None,
        owner="good_enough_space",
    )
    seed = _party_seed(random_state)
    party = _make_party(estimator, X, y, classes, n_directions, validation_fraction,
                        neuron_space, seed, n_init)
    party.preprocessing, party.n_features_in = preprocessing, n_features_in
    if not party.network:
        _check_epsilon_reachable([m["loss"] for m in party.models], epsilon)
    radii = [party.radii(epsilon, i) for i in range(len(party.models))]
    return party.space(epsilon, radii, feature_names)
