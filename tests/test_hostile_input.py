"""Hostile and broken input, across every public estimator: a clear error or warning that
names the problem, never a crash deep inside numpy or torch, never a silent void guarantee."""

import warnings
from numbers import Integral

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import RegressorMixin, is_classifier, is_clusterer
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import MinMaxScaler
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import Interval

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.gems import GEMSCombiner
from skprivate.pate import PATEClassifier
from tests.test_common import CHECKED, NOT_PRIVATE, _quick_instance

X_all, y_all = load_breast_cancer(return_X_y=True)
X_all = MinMaxScaler().fit_transform(X_all)  # a test: in a release, scale with public bounds
X, y = X_all[:200], y_all[:200]
X_PUBLIC = X_all[400:]  # PATE's unlabelled public points

# Every public estimator; PATE and GEMS need more than (X, y) at fit, given by _fit.
# Predictors only: the transformers of skprivate.preprocessing have their own hostile-input
# tests in tests/preprocessing/test_hostile.py.
_PREDICTORS = [(n, c) for n, c in CHECKED if hasattr(c, "predict")]
EVERY = _PREDICTORS + [("PATEClassifier", PATEClassifier), ("GEMSCombiner", GEMSCombiner)]
PRIVATE_CHECKED = [(n, c) for n, c in _PREDICTORS if n not in NOT_PRIVATE]
PRIVATE = [(n, c) for n, c in EVERY if n not in NOT_PRIVATE]


def _make(name, cls, **params):
    if name == "PATEClassifier":  # small and quick: ten shallow trees, thirty queries
        base = dict(teacher=DecisionTreeClassifier(max_depth=2), n_teachers=10, n_queries=30)
        return PATEClassifier(**(base | params))
    return _quick_instance(cls, **params)


def _target(name, est):
    return y if is_classifier(est) else y * 1.0


def _fit(est, name, X_, y_, quiet=True):
    extra = {}
    if name == "PATEClassifier":
        X_public = X_PUBLIC[:, : np.shape(X_)[1]] if np.ndim(X_) == 2 else X_PUBLIC
        if isinstance(X_, pd.DataFrame):  # the public points come with the same names
            X_public = pd.DataFrame(X_public, columns=X_.columns)
        extra = {"X_public": X_public}
    elif name == "GEMSCombiner":
        extra = {"groups": np.arange(len(y_)) % 2}
    with warnings.catch_warnings():
        if quiet:
            warnings.simplefilter("ignore", PrivacyLeakWarning)
        return est.fit(X_, y_, **extra)


BAD_DATA = {
    "nan": (lambda: np.where(np.eye(200, 30, dtype=bool), np.nan, X), "NaN"),
    "inf": (lambda: np.where(np.eye(200, 30, dtype=bool), np.inf, X), "infinity"),
    "empty": (lambda: X[:0], "(0 sample|0 rows|n_samples=0)"),
}


@pytest.mark.parametrize("case", sorted(BAD_DATA))
@pytest.mark.parametrize("name, cls", EVERY)
def test_bad_values_get_a_clear_error(name, cls, case):
    make, words = BAD_DATA[case]
    est = _make(name, cls, random_state=0)
    X_bad = make()
    if case != "empty" and est.__sklearn_tags__().input_tags.allow_nan and case == "nan":
        pytest.skip(f"{name} accepts NaN")
    with pytest.raises(ValueError, match=f"(?i){words}"):
        _fit(est, name, X_bad, _target(name, est)[: len(X_bad)])


@pytest.mark.parametrize("name, cls", EVERY)
def test_wrong_number_of_features_at_predict_is_named(name, cls):
    est = _make(name, cls, random_state=0)
    _fit(est, name, X, _target(name, est))
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :5])


@pytest.mark.parametrize("name, cls", [(n, c) for n, c in EVERY
                                       if not issubclass(c, RegressorMixin)
                                       and not is_clusterer(_make(n, c))])  # no labels
def test_one_class_and_string_labels(name, cls):
    est = _make(name, cls, random_state=0)
    with pytest.raises(ValueError, match="(?i)class"):
        _fit(est, name, X, np.zeros(len(y), dtype=int))
    labels = np.where(y == 1, "benign", "malignant")
    est = _make(name, cls, random_state=0)
    try:
        _fit(est, name, X, labels)
    except ValueError as error:  # nets predict class indices: they must say how to encode
        assert "LabelEncoder" in str(error)
    else:
        assert set(est.predict(X[:20])) <= {"benign", "malignant"}


@pytest.mark.parametrize("name, cls", EVERY)
def test_one_row_is_refused_by_name_or_fitted(name, cls):
    est = _make(name, cls, random_state=0)
    try:
        _fit(est, name, X[:1], _target(name, est)[:1])
    except ValueError as error:  # our own message, not one from deep inside numpy or torch
        assert name in str(error) or "class" in str(error), str(error)
        assert is_classifier(est) or name.startswith("DPDropout")
    else:  # a regressor fitted on one row: a model and a guarantee, both finite
        assert not is_classifier(est)
        assert np.all(np.isfinite(est.predict(X[:5])))
        assert name in NOT_PRIVATE or 0 < est.epsilon_ <= est.epsilon


def _mixed():
    # Numeric columns beside a categorical one that was never encoded.
    return np.column_stack([X[:, :3].astype(object), np.where(y == 1, "yes", "no")])


@pytest.mark.parametrize("name, cls", EVERY)
def test_a_categorical_column_is_named_with_the_remedy(name, cls):
    est = _make(name, cls, random_state=0)
    # A search names the estimator it passes X to (it may be a Pipeline that encodes).
    named = type(est.estimator).__name__ if name.startswith("Private") else name
    with pytest.raises(ValueError, match=f"(?i){named}: (X|the teacher needs numeric X).*encode"):
        _fit(est, name, _mixed(), _target(name, est))


def test_pate_passes_categorical_columns_to_a_teacher_that_encodes_them():
    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    encode = make_column_transformer(
        (OneHotEncoder(categories=[["no", "yes"]]), [3]), remainder="passthrough"
    )
    teacher = make_pipeline(encode, DecisionTreeClassifier(max_depth=2))
    X_public = np.column_stack([X_PUBLIC[:, :3].astype(object),
                                np.where(X_PUBLIC[:, 0] > 0.3, "yes", "no")])
    clf = PATEClassifier(teacher, student=make_pipeline(encode, DecisionTreeClassifier()),
                         n_teachers=10, n_queries=30, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        clf.fit(_mixed(), y, X_public=X_public)
    assert set(clf.predict(X_public[:10])) <= {0, 1}


@pytest.mark.parametrize("name, cls", EVERY)
def test_sparse_input_is_fitted_alike_or_refused_by_name(name, cls):
    est = _make(name, cls, random_state=0)
    if not est.__sklearn_tags__().input_tags.sparse:
        with pytest.raises((TypeError, ValueError), match="(?i)sparse.*dense"):
            _fit(est, name, sp.csr_matrix(X), _target(name, est))
        return
    dense = _fit(_make(name, cls, random_state=0), name, X, _target(name, est))
    _fit(est, name, sp.csr_matrix(X), _target(name, est))
    np.testing.assert_allclose(est.predict(X), dense.predict(X), atol=1e-6)


def _frame(values, prefix):
    return pd.DataFrame(values, columns=[f"{prefix}{i}" for i in range(values.shape[1])])


@pytest.mark.parametrize("name, cls", EVERY)
def test_pandas_feature_names_are_kept_and_checked(name, cls):
    est = _make(name, cls, random_state=0)
    _fit(est, name, _frame(X, "f"), _target(name, est))
    assert list(est.feature_names_in_) == [f"f{i}" for i in range(30)]
    est.predict(_frame(X[:5], "f"))  # the same names: no complaint
    with pytest.raises(ValueError, match="feature names"):
        est.predict(_frame(X[:5], "g"))
    unnamed = _make(name, cls, random_state=0)
    _fit(unnamed, name, X, _target(name, est))
    with pytest.warns(UserWarning, match="feature names"):
        unnamed.predict(_frame(X[:5], "f"))


@pytest.mark.parametrize("value", [0.0, -1.0, np.inf, np.nan, "1.0"])
@pytest.mark.parametrize("name, cls", PRIVATE)
def test_bad_epsilon_is_refused_by_name(name, cls, value):
    est = _make(name, cls, random_state=0).set_params(epsilon=value)
    with pytest.raises((ValueError, TypeError), match="epsilon"):
        _fit(est, name, X, _target(name, est))


@pytest.mark.parametrize("name, cls", PRIVATE)
def test_a_huge_epsilon_is_warned_about(name, cls):
    # PATE spends what its queries cost, at most epsilon: a small noise makes that large.
    extra = {"noise_scale": 0.2} if name == "PATEClassifier" else {}
    est = _make(name, cls, epsilon=1e6, **extra)
    with pytest.warns(PrivacyLeakWarning, match=r"epsilon=.* > 10: .*protects little"):
        _fit(est, name, X, _target(name, est), quiet=False)
    assert 10 < est.epsilon_ <= 1e6


@pytest.mark.parametrize("value", [0.0, 1.0, 1.5, -1e-5])
@pytest.mark.parametrize("name, cls", PRIVATE)
def test_delta_outside_zero_one_is_refused_by_name(name, cls, value):
    est = _make(name, cls, random_state=0).set_params(delta=value)
    with pytest.raises((ValueError, TypeError), match="delta"):
        _fit(est, name, X, _target(name, est))


@pytest.mark.parametrize("name, cls", PRIVATE)
def test_a_delta_that_protects_no_one_is_warned_about(name, cls):
    est = _make(name, cls).set_params(delta=0.01)  # >= 1/200
    with pytest.warns(PrivacyLeakWarning, match="delta"):
        _fit(est, name, X, _target(name, est), quiet=False)


def _count_parameters(cls):
    """The parameters constrained to integers only: counts such as n_teachers or max_iter."""
    counts = []
    for param, constraints in getattr(cls, "_parameter_constraints", {}).items():
        intervals = [c for c in constraints if isinstance(c, Interval)]
        if Integral in constraints or (intervals and all(c.type is Integral for c in intervals)):
            counts.append(param)
    return sorted(counts)


COUNTS = [(n, c, p) for n, c in EVERY for p in _count_parameters(c)]


def test_the_count_table_covers_every_estimator_with_counts():
    # Only the DP dropout estimators, the AdaSSP regressions (closed-form solutions) and
    # GaussianNB (one release of counts and sums) take no count; a lost constraint would
    # show here.
    assert {n for n, _, _ in COUNTS} == {n for n, _ in EVERY if not n.startswith("DPDropout")
                                         and n not in ("LinearRegression", "Ridge",
                                                       "GaussianNB")}
    assert {("PATEClassifier", "n_teachers"), ("PATEClassifier", "n_queries"),
            ("DPLSSGDClassifier", "max_iter"), ("DPLSSGDNeuralNetClassifier", "max_epochs"),
            ("GEMSCombiner", "n_samples")} <= {(n, p) for n, _, p in COUNTS}


@pytest.mark.parametrize("name, cls, param", COUNTS)
def test_a_non_integer_count_is_refused_by_name(name, cls, param):
    est = _make(name, cls, random_state=0).set_params(**{param: 2.5})
    with pytest.raises((ValueError, TypeError), match=f"'{param}'.* (must be|an int)"):
        _fit(est, name, X, _target(name, est))


@pytest.mark.parametrize("name, cls", EVERY)
def test_silent_by_default_and_one_privacy_warning_per_fit(name, cls, capsys):
    est = _make(name, cls, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _fit(est, name, X, _target(name, est), quiet=False)
    assert capsys.readouterr() == ("", "")  # verbose=0: no line, no bar, on either stream
    privacy = [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    if name in NOT_PRIVATE:
        assert privacy == []
    else:  # the fixed seed voids the guarantee: said once, with the reason
        assert len(privacy) == 1 and "random_state=0" in str(privacy[0].message)
