"""The security page lists every released value that carries continuous noise.

Each public estimator is fitted on the same rows with three different seeds, its number of
rows declared public where it has ``n_samples_public`` (so that what is planned from the
integer noisy count stays fixed). A fitted value that differs between the fits and is not
integer-valued carries continuous noise: integer noise (discrete Laplace and Gaussian)
leaves integers, and what else a seed changes (which rows a batch or a split holds, the
clock) is exempted below, each with its reason. Such a value must be in
``skprivate._noise_inventory.CONTINUOUS_RELEASES``, and every entry there must still vary,
so the list (and the page that shows it) can rot in neither direction.
"""

import pathlib
import re

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import MinMaxScaler
from sklearn.tree import DecisionTreeClassifier

from skprivate import get_config
from skprivate._noise_inventory import CONTINUOUS_RELEASES, render_table
from skprivate._noise_inventory import listed as inventory_for
from skprivate.utils import all_estimators
from tests.test_common import _quick_instance

pytestmark = pytest.mark.filterwarnings(
    "ignore::skprivate.exceptions.PrivacyLeakWarning",
    "ignore::skprivate.exceptions.UtilityWarning",
)

SECURITY_PAGE = pathlib.Path(__file__).parent.parent / "docs" / "security.rst"
SEEDS = (0, 1, 2)

_X, _Y = load_breast_cancer(return_X_y=True)
_ORDER = np.random.default_rng(0).permutation(len(_Y))[:400]
X = MinMaxScaler().fit_transform(_X)[_ORDER][:, :5]  # a test: scale with public bounds in use
Y = _Y[_ORDER]

# Estimators that draw no noise, with why. The test fails on a public estimator that is
# neither here nor in CONFIGS, so a new estimator cannot be missed.
NO_NOISE = {
    "BoundedScaler": "declared ranges only: it has no random_state and learns nothing",
    "BoundedKBinsDiscretizer": (
        "declared ranges or edges only: it has no random_state and learns nothing"
    ),
    "DropoutSGDClassifier": "not private: its randomness is dropout masks and batches",
    "DropoutSGDRegressor": "not private: its randomness is dropout masks and batches",
    "GEMSCombiner": (
        "not differentially private, adds no noise: a seed changes the parties' splits, "
        "initialisations and sampled directions"
    ),
}

# (estimator, parameters): every setting under which some listed value is released.
_NET_SMALL = {"max_epochs": 2}
_PATE = {
    "teacher": DecisionTreeClassifier(max_depth=3), "n_teachers": 10, "n_queries": 50,
    "noise_scale": 2.0, "epsilon": None,
}
CONFIGS = [
    ("DPLSSGDClassifier", {}),  # max_grad_norm="auto"
    ("DPLSSGDClassifier", {"max_grad_norm": 1.0}),
    ("DPLSSGDRegressor", {}),
    ("DPLSSGDRegressor", {"max_grad_norm": 1.0}),
    ("DPLSSGDNeuralNetClassifier", _NET_SMALL),
    ("DPLSSGDNeuralNetClassifier", {**_NET_SMALL, "optimizer__momentum": 0.9}),
    ("DPLSSGDNeuralNetRegressor", {**_NET_SMALL, "module__n_out": 1}),
    ("PATEClassifier", _PATE),
    # 50 teachers, noise 20: the sanitised epsilon's Gaussian sample mostly lands inside
    # its clip [0, cap] (with 10 teachers and noise 2 it sat on the cap for every seed)
    ("PATEClassifier", {**_PATE, "release_data_dependent": True, "n_teachers": 50,
                        "noise_scale": 20.0, "n_queries": 5}),
    # epsilon=20: the stability test's noisy statistic clears its margin, so the values
    # computed from it (lambda_bound_, the release's sensitivity and noise) vary too; at
    # the default epsilon on 400 rows the bound is 0 whatever the noise.
    ("DPDropoutClassifier", {"epsilon": 20.0}),
    ("DPDropoutRegressor", {"epsilon": 20.0}),
    ("PrivateGridSearchCV", {}),
    ("PrivateRandomSearchCV", {}),
    ("StandardScaler", {}),
    ("RobustScaler", {}),
    ("SimpleImputer", {"strategy": "mean"}),
    ("SimpleImputer", {"strategy": "median"}),
    ("OneHotEncoder", {}),  # integer noise only: nothing may be listed
    ("GaussianNB", {}),
    ("CategoricalNB", {}),
    ("KMeans", {"n_clusters": 3, "bounds": (0.0, 1.0)}),
    ("PCA", {"n_components": 3, "bounds": (0.0, 1.0)}),
    # epsilon 0.3: the noise ridge is positive and the radius varies between seeds
    ("LinearRegression", {"bounds_X": (0.0, 1.0), "bounds_y": (0.0, 1.0), "epsilon": 0.3}),
    ("Ridge", {"bounds_X": (0.0, 1.0), "bounds_y": (0.0, 1.0), "epsilon": 0.3}),
    # epsilon 20: enough for 400 rows' histograms to be released (quantile bin edges);
    # init="prior": the trees from the class counts (init="auto", the default, fits the
    # linear model alone on 400 rows); init="linear": the linear model and the trees
    # (declared bounds there: at epsilon 20 the private range is the same for every seed)
    ("HistGradientBoostingClassifier", {"epsilon": 20.0, "init": "prior", "bounds": (0, 1)}),
    ("HistGradientBoostingClassifier", {"binning": "uniform", "init": "prior"}),
    ("HistGradientBoostingClassifier", {}),
    ("HistGradientBoostingClassifier", {"epsilon": 40.0, "init": "linear", "bounds": (0, 1)}),
    ("HistGradientBoostingRegressor", {"epsilon": 20.0, "init": "prior", "bounds": (0, 1)}),
    ("HistGradientBoostingRegressor", {"epsilon": 2.0}),  # 400 rows: the linear model alone
]

# Fitted values a seed changes that are not noise.
NOT_NOISE = {
    'history_[*]["dur"]': "the nets' epoch durations (skorch's history): wall-clock time",
    # PATE's data-dependent epsilon is read from the private votes without noise (the report
    # says "do not publish", and a pickle leaves it behind); a seed changes it through the
    # random partition of the rows among the teachers.
    "epsilon_data_dependent_": "PATE's data-dependent epsilon: no noise, not for release",
    'privacy_report_["epsilon (data-dependent, do not publish)"]': "the same, in the report",
}
# Fitted sub-estimators that vary through integer noise only.
SUB_ESTIMATORS_WITHOUT_CONTINUOUS_NOISE = {
    ("PATEClassifier", "student_"): (
        "learns from the public points and the integer-noise votes (labels or soft labels "
        "computed from the noisy counts)"
    ),
}

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _leaves(value, path, out):
    """``out[path]`` = the list of leaf values under ``path`` (numbers, arrays, strings)."""
    if isinstance(value, BaseEstimator):
        # a fitted sub-estimator: walked if it is one of ours (a search's best_estimator_,
        # whose own releases are listed under its class); another library's must be
        # exempted below, with the reason it holds no continuous noise
        ours = type(value).__module__.startswith("skprivate")
        out.setdefault(path, []).append(("estimator", _fitted_values(value) if ours else None))
    elif isinstance(value, dict):
        for key, item in value.items():
            _leaves(item, f'{path}["{key}"]' if isinstance(key, str) else f"{path}[*]", out)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _leaves(item, f"{path}[*]", out)
    elif hasattr(value, "state_dict") and callable(value.state_dict):
        # a torch module or optimizer: its tensors, under the attribute's own name
        state = {}
        _leaves(value.state_dict(), "", state)
        out.setdefault(path, []).extend(leaf for leaves in state.values() for leaf in leaves)
    elif hasattr(value, "detach"):  # a torch tensor
        out.setdefault(path, []).append(value.detach().cpu().numpy())
    elif value is None or isinstance(value, (str, bool, int, float, np.generic, np.ndarray)):
        out.setdefault(path, []).append(value)
    elif type(value).__module__.startswith("skprivate"):
        # one of the package's own records (an item of a report): its fields
        slots = getattr(type(value), "__slots__", ())
        fields = getattr(value, "__dict__", None) or {
            name: getattr(value, name) for name in slots if hasattr(value, name)
        }
        _leaves(fields, path, out)
    elif callable(value) or type(value).__module__.startswith("skorch"):
        pass  # functions and skorch's callbacks hold no fitted number
    else:
        raise TypeError(f"{path}: the walk does not know {type(value)!r}; teach it")


def _fitted_values(est):
    out = {}
    for name in dir(est):
        if name.startswith("_") or not name.endswith("_") or name.endswith("__"):
            continue
        try:
            value = getattr(est, name)
        except AttributeError:  # a property that does not apply to this fit
            continue
        if not callable(value) or isinstance(value, BaseEstimator) or hasattr(value, "state_dict"):
            _leaves(value, name, out)
    return out


def _numbers(leaf):
    """The numbers of a leaf, as a float array (those written in a string for a string)."""
    if isinstance(leaf, str):
        return np.array([float(m) for m in _NUMBER.findall(leaf)])
    if leaf is None:
        return np.array([])
    try:
        return np.asarray(leaf, dtype=float).ravel()
    except (TypeError, ValueError):  # labels or categories that are not numbers
        return _numbers(" ".join(map(str, np.ravel(leaf))))


def _carries_continuous_noise(a, b):
    """Whether two fits' leaves differ, with a non-integer number among the differences."""
    if len(a) != len(b):
        return any(_non_integer(leaf) for leaf in a + b)
    for x, y in zip(a, b):
        if isinstance(x, tuple) and x[0] == "estimator":
            if x[1] is None or _varying(x[1], y[1]):
                return True
            continue
        if isinstance(x, str) and isinstance(y, str):
            nx, ny = sorted(_numbers(x)[~_integral(_numbers(x))]), sorted(
                _numbers(y)[~_integral(_numbers(y))])
            if nx != ny:
                return True
            continue
        nx, ny = _numbers(x), _numbers(y)
        if nx.shape != ny.shape:
            if _non_integer(x) or _non_integer(y):
                return True
        elif not np.array_equal(nx, ny, equal_nan=True):
            if _non_integer(x) or _non_integer(y):
                return True
    return False


def _integral(values):
    return np.isfinite(values) & (values == np.round(values))


def _non_integer(leaf):
    if isinstance(leaf, tuple):
        return True
    return not np.all(_integral(_numbers(leaf)))


def _varying(fit_a, fit_b):
    """The paths whose values carry continuous noise, from the leaves of two fits."""
    return {
        path for path in set(fit_a) | set(fit_b)
        if _carries_continuous_noise(fit_a.get(path, []), fit_b.get(path, []))
    }


def _fit(name, params, seed):
    est = _quick_instance(dict(all_estimators())[name], random_state=seed)
    if "n_samples_public" in est.get_params():
        # the number of rows exact: values planned from the noisy count (integer noise)
        # would otherwise vary too, and carry no continuous noise
        est.set_params(n_samples_public=True)
    est.set_params(**params)
    if name == "PATEClassifier":
        return est.fit(X[:300], Y[:300], X_public=X[300:])
    if name == "OneHotEncoder":
        return est.fit((X[:, :2] > 0.5).astype(int))
    if name == "CategoricalNB":
        return est.fit((X[:, :3] * 3).astype(int), Y)
    if name in ("StandardScaler", "RobustScaler", "SimpleImputer"):
        return est.fit(X)
    if "Regressor" in name:
        return est.fit(X.astype(np.float32), Y.astype(np.float32).reshape(-1, 1)
                       if "NeuralNet" in name else Y * 1.0)
    return est.fit(X.astype(np.float32) if "NeuralNet" in name else X, Y)


def _skip_without_torch(name):
    if "NeuralNet" in name:
        pytest.importorskip("torch")
        pytest.importorskip("skorch")


_SHOWN_PARAMS = {"max_grad_norm", "optimizer__momentum", "release_data_dependent", "strategy",
                 "init"}


def _config_id(name, params):
    shown = [f"{key}={value}" for key, value in params.items() if key in _SHOWN_PARAMS]
    return "-".join([name, *shown])


@pytest.mark.parametrize(
    "name, params", CONFIGS, ids=[_config_id(n, p) for n, p in CONFIGS]
)
def test_every_continuous_noise_release_is_listed(name, params):
    _skip_without_torch(name)
    fits = [_fit(name, params, seed) for seed in SEEDS]
    values = [_fitted_values(est) for est in fits]
    varying = set().union(*(_varying(values[0], other) for other in values[1:]))
    sub_estimators = {
        path for path, leaves in values[0].items()
        if any(isinstance(leaf, tuple) for leaf in leaves)
    }
    for path in sub_estimators - {"best_estimator_", "init_estimator_"}:
        assert (name, path) in SUB_ESTIMATORS_WITHOUT_CONTINUOUS_NOISE, (
            f"{name}.{path} is a fitted estimator: list what it releases"
        )
    exempt = set(NOT_NOISE) | {
        path for (owner, path) in SUB_ESTIMATORS_WITHOUT_CONTINUOUS_NOISE if owner == name
    }
    listed = inventory_for(name, fits[0].get_params())
    unlisted = varying - exempt - listed
    assert not unlisted, (
        f"{name}({params}) releases continuous noise in {sorted(unlisted)}, missing from "
        "skprivate._noise_inventory.CONTINUOUS_RELEASES (and so from the security page)"
    )
    stale = listed - varying
    assert not stale, (
        f"{name}({params}): the inventory lists {sorted(stale)}, which no longer vary "
        "between seeds (or no longer exist): remove or correct the entries"
    )


def test_every_estimator_is_inventoried():
    names = {name for name, _ in all_estimators()}  # the nets only where torch is installed
    configured = {name for name, _ in CONFIGS}
    assert names - set(NO_NOISE) <= configured, "a new estimator: add it to CONFIGS or NO_NOISE"
    assert configured | set(NO_NOISE) <= names | {"DPLSSGDNeuralNetClassifier",
                                                    "DPLSSGDNeuralNetRegressor"}
    assert not configured & set(NO_NOISE)
    for release in CONTINUOUS_RELEASES:
        assert set(release.estimators) <= configured, release


def test_estimators_without_noise_draw_none():
    # What NO_NOISE says of BoundedScaler: no seed to give, nothing that could vary.
    assert "random_state" not in _quick_instance(dict(all_estimators())["BoundedScaler"]
                                                  ).get_params()


def test_the_security_page_shows_the_inventory():
    text = SECURITY_PAGE.read_text()
    start, end = ".. noise-inventory-start\n\n", "\n.. noise-inventory-end"
    assert start in text and end in text, "docs/security.rst lost its noise-inventory markers"
    shown = text.split(start, 1)[1].split(end, 1)[0]
    assert shown == render_table(), (
        "docs/security.rst's table differs from skprivate._noise_inventory: paste the "
        "output of `python -m skprivate._noise_inventory` between the markers"
    )


def test_no_release_carries_continuous_noise_by_default():
    # The walking test above fails on any fitted value that varies between seeds and is in
    # neither list; this one keeps the continuous list empty: every release of every
    # estimator is drawn by an exact mechanism under the default configuration.
    assert get_config()["secure_noise"] is True
    assert CONTINUOUS_RELEASES == (), [r.estimators for r in CONTINUOUS_RELEASES]
