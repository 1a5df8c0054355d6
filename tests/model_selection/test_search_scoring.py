"""The searches' validation scores are bounded by construction (issue, finding 2): every named
scorer is computed row by row and each row's term clipped to ``score_range`` before the sum,
so one row moves the released sum by at most half the range's width whatever it holds."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import get_scorer

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier, DPLSSGDRegressor
from skprivate.model_selection import PrivateGridSearchCV, PrivateRandomSearchCV
from skprivate.model_selection import _runs, _search_base


def _terms(name):
    return _runs.RowTerms(name, _runs.PER_ROW_TERMS[name])


@pytest.fixture(scope="module")
def regression():
    X, y = make_regression(n_samples=300, n_features=4, noise=5.0, random_state=0)
    return np.clip(X / 3, -1, 1), np.clip(y / 200, -1, 1)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("name", sorted(_search_base.PER_ROW_MEAN_SCORERS))
def test_the_terms_average_to_scikit_learns_score(name, n_classes):
    # scikit-learn's own scorer is the independent reference: the mean of the terms is it
    X, y = make_classification(n_samples=120, n_features=5, n_informative=3,
                               n_classes=n_classes, random_state=1)
    if name in ("neg_mean_absolute_error", "neg_mean_squared_error"):
        model = LinearRegression().fit(X, y.astype(float))
    else:
        model = LogisticRegression().fit(X, y)
    terms = _runs.PER_ROW_TERMS[name](model, X, y)
    assert terms.shape == (len(y),)
    assert terms.mean() == pytest.approx(get_scorer(name)(model, X, y), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("name, low, high", [
    ("neg_mean_squared_error", -4.0, 0.0), ("neg_mean_absolute_error", -2.0, 0.0),
])
def test_a_row_with_y_1000_moves_the_sum_by_at_most_half_the_width(regression, name, low, high):
    X, y = regression
    model = LinearRegression().fit(X, y)
    base = _runs._released_score(model, X[:60], y[:60], _terms(name), low, high)
    # neighbouring validation parts: the same 60 rows and one more, whose target is 1000
    X_more, y_more = np.vstack([X[:60], X[60:61]]), np.append(y[:60], 1000.0)
    more = _runs._released_score(model, X_more, y_more, _terms(name), low, high)
    assert abs(more - base) <= 0.5 * (high - low) + 1e-9
    # the row counts as the range's end: its clipped term low, less the midpoint
    assert more - base == pytest.approx(low - 0.5 * (low + high))
    # scikit-learn's mean, times the rows, is what was released before: moved by ~1e6
    old = len(y_more) * get_scorer(name)(model, X_more, y_more)
    assert abs(old - len(y[:60]) * get_scorer(name)(model, X[:60], y[:60])) > 500


def test_probability_scorers_are_bounded_for_any_row():
    X, y = make_classification(n_samples=80, n_features=4, random_state=2)
    model = LogisticRegression(C=1e6).fit(X, y)
    far = np.full((1, 4), 50.0)  # a confident prediction, whichever class it is
    wrong = 1 - model.predict(far)
    for name, low, high in (("neg_log_loss", -3.0, 0.0), ("neg_brier_score", -1.0, 0.0)):
        base = _runs._released_score(model, X, y, _terms(name), low, high)
        for label in (wrong[0], 7):  # the wrong class, and a label the model never saw
            more = _runs._released_score(
                model, np.vstack([X, far]), np.append(y, label), _terms(name), low, high
            )
            assert abs(more - base) <= 0.5 * (high - low) + 1e-9


def test_a_term_that_is_not_a_number_counts_as_the_low_end():
    class Diverged(LinearRegression):
        def predict(self, X):
            return np.full(len(X), np.nan)

    X, y = np.zeros((5, 1)), np.zeros(5)
    model = Diverged().fit(X, y)
    released = _runs._released_score(model, X, y, _terms("neg_mean_squared_error"), -1.0, 0.0)
    assert released == pytest.approx(5 * -0.5)


def _fit(search, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return search.fit(X, y)


def test_the_fit_releases_a_sum_that_one_row_with_y_1000_moves_by_at_most_the_width(
    regression, monkeypatch
):
    X, y = regression
    splits = []
    run = _search_base._BasePrivateSearch._run

    def recording(self, plan, *args):  # the split the search drew, read by the test only
        splits.append(plan.is_val.copy())
        return run(self, plan, *args)

    monkeypatch.setattr(_search_base._BasePrivateSearch, "_run", recording)
    low, high = -4.0, 0.0  # (prediction - target)^2 with both in [-1, 1]
    search = PrivateGridSearchCV(
        DPLSSGDRegressor(max_iter=3), {"learning_rate": [0.1, 0.3]}, epsilon=2.0,
        scoring="neg_mean_squared_error", score_range=(low, high), mean_candidates=3,
        random_state=0,
    )
    before = _fit(search, X, y).best_score_noisy_
    n_val = search.privacy_report_["expected_validation_rows"]
    changed = y.copy()
    changed[np.flatnonzero(splits[0])[0]] = 1000.0  # one validation row: same split, runs
    after = _fit(search, X, changed).best_score_noisy_
    assert np.array_equal(splits[0], splits[1])
    # the row replaced (removed, then added) moves every run's sum, so the best, by at most
    # the range's width; the sum of unclipped errors moved by about 1e6
    assert abs(after - before) * n_val <= (high - low) + 1e-9
    assert after != before


def test_r2_and_the_estimators_own_score_on_a_regressor_are_refused_with_the_fix(regression):
    X, y = regression
    search = PrivateRandomSearchCV(
        DPLSSGDRegressor(max_iter=2), {"learning_rate": [0.1]}, scoring="r2",
        score_range=(-1, 1), random_state=0,
    )
    with pytest.raises(ValueError, match=r"r2 is 1 - SSE / SST.*'neg_mean_squared_error'"):
        _fit(search, X, y)
    search.set_params(scoring=None)
    with pytest.raises(ValueError, match=r"scoring=None on a non-classifier.*r2"):
        _fit(search, X, y)
    search.set_params(scoring="neg_log_loss")
    with pytest.raises(ValueError, match=r"predict_proba, which DPLSSGDRegressor does not"):
        _fit(search, X, y)


def test_accuracy_is_bounded_without_a_score_range():
    X, y = make_classification(n_samples=200, n_features=4, random_state=3)
    X = X / np.abs(X).max()
    search = PrivateRandomSearchCV(
        DPLSSGDClassifier(classes=[0, 1], max_iter=2), {"learning_rate": [0.3]},
        scoring="accuracy", epsilon=2.0, mean_candidates=2, random_state=0,
    )
    _fit(search, X, y)
    assert search.privacy_report_["score_range"].startswith("[0, 1]")
    assert not any(c.code == "score_vouched" for c in search.privacy_report_["caveats"])


def test_a_run_releases_its_score_sum_on_the_granular_grid():
    """The noisy validation sum is a multiple of the granular grid (exact discrete Gaussian
    noise on it): no floating-point noise (a generator that refuses continuous draws is
    used), and the noise still varies between generators."""
    from sklearn.base import clone

    from skprivate.mechanisms import granular_gaussian_plan
    from tests._doubles import NoContinuousNoiseGenerator, NoisyMajorityClassifier

    X = np.random.default_rng(0).normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    noise_std = 3.0 * 0.5  # z = 3 on the sensitivity (high - low) / 2 = 0.5 of accuracy
    gamma = granular_gaussian_plan(0.5, noise_std).gamma
    sums = [
        _runs._fit_and_score(
            clone(NoisyMajorityClassifier(random_state=0)), X[:40], y[:40], X[40:], y[40:],
            {}, _terms("accuracy"), 0.0, 1.0, noise_std,
            NoContinuousNoiseGenerator(np.random.PCG64(seed)),
        )[1]
        for seed in range(5)
    ]
    assert all((s / gamma).is_integer() for s in sums)
    assert len(set(sums)) == 5
