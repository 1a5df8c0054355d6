"""scikit-learn's searches and cross_validate over a DP estimator are not silent: clones
fitted on overlapping rows without an accountant give one RepeatedFitWarning."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV, cross_validate

from skprivate import _repeated_fits
from skprivate.accounting import BudgetAccountant
from skprivate.exceptions import PrivacyLeakWarning, RepeatedFitWarning
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.model_selection import PrivateGridSearchCV
from skprivate.preprocessing import StandardScaler, make_private_pipeline


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X / X.max(axis=0), y  # the columns' maxima stand in for public bounds


def _model(**kwargs):
    return DPLSSGDClassifier(classes=[0, 1], max_iter=2, **kwargs)


def _repeated(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fit()
    return result, [w for w in caught if w.category is RepeatedFitWarning]


def test_grid_search_warns_once_with_the_total_and_the_fix(cancer):
    X, y = cancer
    search, found = _repeated(lambda: GridSearchCV(
        _model(epsilon=1.0), {"alpha": [0.0, 1e-3]}, cv=3
    ).fit(X, y))
    # before: no warning at all (only total_privacy_cost showed the total)
    assert len(found) == 1, [str(w.message) for w in found]
    message = str(found[0].message)
    assert "fitted 2 times on overlapping rows" in message
    assert "2 so far" in message  # two fits at epsilon 1 (basic composition)
    assert "total_privacy_cost" in message and "BudgetAccountant" in message
    assert found[0].filename == __file__  # the user's line, not joblib's or sklearn's


def test_cross_validate_over_a_private_pipeline_warns(cancer):
    X, y = cancer
    pipe = make_private_pipeline(StandardScaler(bounds=(0, 1)), _model(), epsilon=1.0)
    _, found = _repeated(lambda: cross_validate(pipe, X, y, cv=3))
    assert len(found) == 1
    assert "StandardScaler was fitted 2 times" in str(found[0].message)


def test_a_refit_of_the_same_estimator_warns(cancer):
    X, y = cancer
    model = _model()
    _, first = _repeated(lambda: model.fit(X, y))
    _, second = _repeated(lambda: model.fit(X[:300], y[:300]))  # rows it has read
    assert first == [] and len(second) == 1


def test_silent_where_the_spend_is_totalled_or_the_rows_differ(cancer):
    X, y = cancer
    # an accountant totals and caps the fits
    accountant = BudgetAccountant(epsilon=10.0)
    _, found = _repeated(lambda: cross_validate(_model(accountant=accountant), X, y, cv=3))
    assert found == []
    # disjoint rows, and two different models once each: nothing composes unseen
    _, found = _repeated(lambda: (_model().fit(X[:250], y[:250]), _model().fit(X[250:], y[250:]),
                                  _model(alpha=1e-3).fit(X[:250], y[:250])))
    assert found == []
    # a private search's runs are inside its own epsilon_
    _repeated_fits.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        search, found = _repeated(lambda: PrivateGridSearchCV(
            _model(), {"alpha": [0.0, 1e-3]}, epsilon=1.0,
            n_candidates_distribution="geometric", mean_candidates=4, random_state=0,
        ).fit(X, y))
    assert found == []
    # the released model refitted twice is the user's own fit again
    released = search.best_estimator_
    _, found = _repeated(lambda: (released.fit(X, y), released.fit(X, y)))
    assert len(found) == 1


def test_fingerprints_match_equal_rows_only():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(200, 12)).astype(float)  # one-hot-like rows
    prints = _repeated_fits.row_fingerprints(X)
    same = (X[:, None, :] == X[None, :, :]).all(axis=2)
    assert np.array_equal(prints[:, None] == prints[None, :], same)
    assert np.array_equal(_repeated_fits.row_fingerprints(X[50:]), prints[50:])
    assert _repeated_fits.row_fingerprints([[1.0, 2.0]]) is None  # lists are not read


def test_large_tables_keep_a_content_chosen_eighth_that_folds_share():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(_repeated_fits._SAMPLE_FROM * 2, 6))
    kept = _repeated_fits.row_fingerprints(X)
    assert len(X) / 12 < len(kept) < len(X) / 5
    # two overlapping folds (copies, as cross-validation makes them) share kept rows
    first = _repeated_fits.row_fingerprints(X[rng.permutation(6000)])
    second = _repeated_fits.row_fingerprints(X[3000:].copy())
    assert np.isin(first, second).any() and np.isin(first, kept).all()


def test_values_that_cannot_be_hashed_leave_the_fit_its_own_error():
    X = np.array([[{"a": 1}, 2.0], [{"b": 2}, 3.0]], dtype=object)
    assert _repeated_fits.row_fingerprints(X) is None


def test_pate_refitted_by_cross_validate_warns_too(cancer):
    # PATE plans outside _begin_private_fit (on its noisy count), and is noted there too.
    from sklearn.tree import DecisionTreeClassifier

    from skprivate.pate import PATEClassifier

    X, y = cancer
    y = y.copy()
    y[:150] = -1  # public unlabelled points
    pate = PATEClassifier(teacher=DecisionTreeClassifier(max_depth=3), classes=[0, 1],
                          epsilon=2.0)
    _, found = _repeated(lambda: cross_validate(pate, X, y, cv=3))
    # three folds' training sets overlap: the second fit warns, once for the group
    assert len(found) == 1
    assert "PATEClassifier was fitted 2 times" in str(found[0].message)
