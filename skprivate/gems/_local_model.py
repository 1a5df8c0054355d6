"""The local models GEMS accepts, and the feature map its parties share.

A party's model is a linear classifier or regressor, scikit-learn's ``MLPClassifier`` or a
skorch classifier, alone or as the last step of a Pipeline whose earlier steps learn
nothing from the party's rows (``split_pipeline``). Two parties' spaces combine only when
their preprocessing is one function (``_same_function``).
"""

import numpy as np
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.frozen import FrozenEstimator
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline

from ..utils._compat import get_tags
from ._skorch import is_skorch_net


# --- activations of scikit-learn's MLP -------------------------------------------------------

def _activate(name, z):
    if name == "relu":
        return np.maximum(z, 0.0)
    if name == "tanh":
        return np.tanh(z)
    if name == "logistic":
        return 0.5 * (1.0 + np.tanh(0.5 * z))
    return z  # identity


def _is_network(estimator):
    return isinstance(estimator, MLPClassifier) or is_skorch_net(estimator)


def split_pipeline(estimator):
    """``(preprocessing, model)``: a Pipeline's steps before its final one, and that step.

    GEMS combines weights, and weights of different parties can only be combined when they
    act on the same features: the feature map before the model must be one function, the
    same at every party. So each step before the model must learn nothing from a party's
    rows: ``"passthrough"``, a stateless transformer (scikit-learn's ``requires_fit`` tag is
    False: ``FunctionTransformer``, ``Normalizer``), or a transformer fitted once elsewhere
    (on public data) and wrapped in :class:`~sklearn.frozen.FrozenEstimator`. A step that
    each party would fit on its own rows (a ``StandardScaler``) is refused: the parties'
    weights would then live in different coordinates, and no point of weight space would
    be a model of all of them. ``preprocessing`` is None for anything but a Pipeline (or a
    Pipeline of the model alone).
    """
    if not isinstance(estimator, Pipeline):
        return None, estimator
    *steps, (last, model) = estimator.steps
    if model is None or isinstance(model, str):
        raise TypeError(
            f"GEMS: the Pipeline's final step {last!r} is {model!r}; it must be the model "
            "whose weights GEMS combines (a linear model, an MLPClassifier or a skorch "
            "classifier)."
        )
    for name, step in steps:
        if step is None or isinstance(step, str) or isinstance(step, FrozenEstimator):
            continue
        if not get_tags(step).requires_fit:
            continue
        kind = type(step).__name__
        raise ValueError(
            f"GEMS: the Pipeline step {name!r} ({kind}) would be fitted by each party on "
            "its own rows, so each party's model would act on differently transformed "
            "features and their weights could not be combined. Fit it once, on public data, "
            f"and freeze it: make_pipeline(FrozenEstimator({kind}(...).fit(X_public)), "
            "model) with sklearn.frozen.FrozenEstimator; or transform X before GEMS with a "
            "map every party shares."
        )
    if not steps:
        return None, model
    return Pipeline(steps), model


def fit_preprocessing(preprocessing, X, y):
    """Fit the shared feature map (stateless or frozen: nothing is learnt) and apply it."""
    if preprocessing is None:
        return None, X
    preprocessing = clone(preprocessing).fit(X, y)
    return preprocessing, preprocessing.transform(X)


def _check_estimator(estimator):
    name = type(estimator).__name__
    if isinstance(estimator, Pipeline):
        raise TypeError(
            f"GEMS: a Pipeline's final step must be the model itself; got a nested {name}. "
            "Flatten it into one Pipeline."
        )
    if is_skorch_net(estimator):
        return  # its layers are checked once the module exists, after fit
    if _is_network(estimator):
        sizes = np.atleast_1d(estimator.hidden_layer_sizes)
        if len(sizes) != 1:
            raise ValueError(
                f"GEMS: deep GEMS supports networks with one hidden layer; got "
                f"hidden_layer_sizes={estimator.hidden_layer_sizes!r}. Use a single int."
            )
        return
    if not (is_classifier(estimator) or is_regressor(estimator)):
        raise TypeError(
            f"GEMS: the estimator must be a linear classifier or regressor (with coef_ and "
            f"intercept_ after fit), an MLPClassifier or a skorch classifier; got {name}."
        )


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


def _label(value):
    return repr(value.item() if isinstance(value, np.generic) else value)


def check_party_classes(name, y, owner, parties, classes):
    """Every party holds two classes or more, and every class of the federation."""
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


def check_spaces_match(name, spaces):
    """The parties' spaces are of one kind and shape, on one feature map and class set."""
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
