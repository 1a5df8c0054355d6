"""Hostile and broken input, across every public estimator: a clear error or warning that
names the problem, never a crash deep inside numpy or torch, never a silent void guarantee."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import MinMaxScaler

from skprivate.exceptions import PrivacyLeakWarning
from tests.test_common import CHECKED, NOT_PRIVATE, _instance

X, y = load_breast_cancer(return_X_y=True)
X = MinMaxScaler().fit_transform(X)[:200]  # a test: in a release, scale with public bounds
y = y[:200]
PRIVATE_CHECKED = [(n, c) for n, c in CHECKED if n not in NOT_PRIVATE]


def _target(name, est):
    return y if "Classifier" in name or hasattr(est, "predict_proba") else y * 1.0


def _fit(est, name, X_, y_):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return est.fit(X_, y_)


BAD_DATA = {
    "nan": (lambda: np.where(np.eye(200, 30, dtype=bool), np.nan, X), "NaN"),
    "inf": (lambda: np.where(np.eye(200, 30, dtype=bool), np.inf, X), "infinity"),
    "empty": (lambda: X[:0], "(0 sample|0 rows|n_samples=0)"),
}


@pytest.mark.parametrize("case", sorted(BAD_DATA))
@pytest.mark.parametrize("name, cls", CHECKED)
def test_bad_values_get_a_clear_error(name, cls, case):
    make, words = BAD_DATA[case]
    est = _instance(cls, random_state=0)
    X_bad = make()
    if case != "empty" and est.__sklearn_tags__().input_tags.allow_nan and case == "nan":
        pytest.skip(f"{name} accepts NaN")
    with pytest.raises(ValueError, match=f"(?i){words}"):
        _fit(est, name, X_bad, _target(name, est)[: len(X_bad)])


@pytest.mark.parametrize("name, cls", CHECKED)
def test_wrong_number_of_features_at_predict_is_named(name, cls):
    est = _instance(cls, random_state=0)
    _fit(est, name, X, _target(name, est))
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :5])


@pytest.mark.parametrize("name, cls", [(n, c) for n, c in CHECKED if "Classifier" in n])
def test_one_class_and_string_labels(name, cls):
    est = _instance(cls, random_state=0)
    with pytest.raises(ValueError, match="(?i)class"):
        _fit(est, name, X, np.zeros(len(y), dtype=int))
    labels = np.where(y == 1, "benign", "malignant")
    est = _instance(cls, random_state=0)
    try:
        _fit(est, name, X, labels)
    except ValueError as error:  # nets predict class indices: they must say how to encode
        assert "LabelEncoder" in str(error)
    else:
        assert set(est.predict(X[:20])) <= {"benign", "malignant"}


@pytest.mark.parametrize("value", [0.0, -1.0, np.inf, np.nan, "1.0"])
@pytest.mark.parametrize("name, cls", PRIVATE_CHECKED)
def test_bad_epsilon_is_refused_by_name(name, cls, value):
    est = _instance(cls, random_state=0).set_params(epsilon=value)
    with pytest.raises((ValueError, TypeError), match="epsilon"):
        _fit(est, name, X, _target(name, est))


@pytest.mark.parametrize("value", [0.0, 1.0, 1.5, -1e-5])
@pytest.mark.parametrize("name, cls", PRIVATE_CHECKED)
def test_delta_outside_zero_one_is_refused_by_name(name, cls, value):
    est = _instance(cls, random_state=0).set_params(delta=value)
    with pytest.raises((ValueError, TypeError), match="delta"):
        _fit(est, name, X, _target(name, est))


@pytest.mark.parametrize("name, cls", PRIVATE_CHECKED)
def test_a_delta_that_protects_no_one_is_warned_about(name, cls):
    est = _instance(cls).set_params(delta=0.01)  # >= 1/200
    with pytest.warns(PrivacyLeakWarning, match="delta"):
        est.fit(X, _target(name, est))
