"""A search over getting started's pipeline: the refusal names the step that has no
Renyi-DP curve (the encoder), not the model, and the fix the docs give is accepted."""

import warnings

import numpy as np
import pytest
from sklearn.compose import ColumnTransformer

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.model_selection import PrivateGridSearchCV
from skprivate.pate import PATEClassifier
from skprivate.preprocessing import OneHotEncoder, StandardScaler, make_private_pipeline


@pytest.fixture(scope="module")
def table():
    # a small mixed table: one numeric column, one categorical column of 3 values
    rng = np.random.default_rng(0)
    n = 400
    cat = rng.integers(0, 3, size=n)
    num = rng.normal(size=n) + cat
    y = (num + rng.normal(scale=0.5, size=n) > 1).astype(int)
    return np.column_stack([num, cat]), y


def _pipe(encoder):
    # getting started's recipe: a ColumnTransformer of a private scaler and a private
    # encoder, then DP-LSSGD, all under one epsilon
    return make_private_pipeline(
        ColumnTransformer([
            ("num", StandardScaler(bounds=(-4, 6)), [0]),
            ("cat", encoder, [1]),
        ]),
        DPLSSGDClassifier(classes=[0, 1], max_iter=3),
        epsilon=1,
    )


def test_the_error_names_the_encoder_and_the_fix(table):
    X, y = table
    search = PrivateGridSearchCV(
        _pipe(OneHotEncoder(sparse_output=False)),
        {"dplssgdclassifier__alpha": [0.0, 1e-3]}, epsilon=1.0, random_state=0,
    )
    with pytest.raises(TypeError) as info:
        search.fit(X, y)
    message = str(info.value)
    # before: "DPLSSGDClassifier's privacy plan states only (...) ... Tune an estimator whose
    # plan has an event (DP-LSSGD linear models and nets)", naming the step that has one
    assert "'columntransformer/cat' (OneHotEncoder)" in message
    assert "not the cause" in message
    assert "categories=" in message and "categories_" in message
    assert not message.startswith("DPLSSGDClassifier")


def test_the_model_without_a_curve_is_named_as_the_estimator(table):
    X, y = table
    search = PrivateGridSearchCV(
        PATEClassifier(n_teachers=10, n_queries=20), {"n_teachers": [5, 10]},
        epsilon=1.0, random_state=0,
    )
    with pytest.raises(TypeError, match="the estimator PATEClassifier's privacy plan"):
        search.fit(X, y)


def test_declared_categories_are_tuned_as_the_docs_promise(table):
    X, y = table
    search = PrivateGridSearchCV(
        _pipe(OneHotEncoder(categories=[[0, 1, 2]], sparse_output=False)),
        {"dplssgdclassifier__alpha": [0.0, 1e-3]}, epsilon=1.0,
        n_candidates_distribution="geometric", mean_candidates=2, random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # random_state=0
        search.fit(X, y)
    assert search.epsilon_ <= 1.0
    encoder = search.best_estimator_[0].named_transformers_["cat"]
    assert [list(c) for c in encoder.categories_] == [[0, 1, 2]]
