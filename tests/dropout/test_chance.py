"""The public forecast of the release's noise, the chance warning, and the private choice."""

import math
import warnings

import dp_accounting
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from skprivate._row_count import COUNT_SHARE, release_row_count
from skprivate.accounting import BudgetAccountant
from skprivate.audit import epsilon_lower_bound
from skprivate.dropout import DPDropoutClassifier, DPDropoutRegressor
from skprivate.dropout._chance import (
    CHANCE_RATIO,
    candidate_counts,
    report_noisy_max,
    select_candidate,
)
from skprivate.exceptions import PrivacyLeakWarning, UtilityWarning
from skprivate.mechanisms import gaussian_sigma


def _fit_recording(est, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    chance = [str(w.message) for w in caught if issubclass(w.category, UtilityWarning)]
    leaks = [w for w in caught if w.category is PrivacyLeakWarning]
    assert len(leaks) <= 1
    return chance


def _dense(n, p, seed=0):
    """Features in {-1, 1}: every column at full scale in every row (the best case)."""
    rng = np.random.default_rng(seed)
    X = rng.choice([-1.0, 1.0], size=(n, p))
    y = (X @ np.linspace(1, -1, p) + rng.normal(scale=0.5, size=n) > 0).astype(int)
    return X, y


def _public(n):
    return release_row_count(n, 0.0, public=True, rng=None)


def test_forecast_matches_an_independent_computation():
    # n = 10,000 rows of 9 features in [-1, 1]: B_a = sqrt(9 + 1), u = 1, c = 1, alpha = 1,
    # Y = 1 (two classes), R = 2 Y / b = 2; epsilon 1 split 0.3 / 0.1 / 0.6.
    n, p, eps, delta = 10_000, 9, 1.0, 1e-5
    clf = DPDropoutClassifier(epsilon=eps, delta=delta, bounds=(-1, 1), n_samples_public=True)
    X, y = _dense(n, p)
    forecast = clf._forecast_before_fit(X, 1, 1.0, _public(n))
    margin = math.log(1 / (2 * 0.3 * delta)) / (0.3 * eps)
    ell = n - 1 - margin
    b_a = math.sqrt(p + 1)
    sensitivity = (b_a * (1 + b_a * 2) + 2) / (ell + 1)
    # the release's noise is the analytic Gaussian's (the rounded Gaussian is a
    # post-processing of the Gaussian mechanism): the noise multiplier the forecast's sigma
    # implies gives (0.6 eps, 0.7 delta) by dp_accounting's PLD accountant, an
    # implementation independent of skprivate's calibration (it was a zCDP calibration,
    # checked with a ZCDpEvent, before the rounded Gaussian)
    sigma = forecast["ratio"] / b_a
    accountant = dp_accounting.pld.PLDAccountant()
    accountant.compose(dp_accounting.GaussianDpEvent(sigma / sensitivity))
    assert accountant.get_epsilon(0.7 * delta) == pytest.approx(0.6 * eps, rel=1e-3)
    assert forecast["noise std"] == pytest.approx(sigma, rel=1e-12)
    assert forecast["sensitivity"] == pytest.approx(sensitivity, rel=1e-6)  # margin: 1 grid step
    assert sigma == pytest.approx(gaussian_sigma(sensitivity, 0.6 * eps, 0.7 * delta),
                                  rel=1e-6)
    assert not forecast["warned"]


def test_forecast_is_a_lower_bound_of_the_fit_and_tight_on_dense_features():
    X, y = _dense(20_000, 9)
    ratios, forecasts = [], []
    for seed in range(5):
        clf = DPDropoutClassifier(epsilon=2.0, bounds=(-1, 1), random_state=seed)
        _fit_recording(clf, X, y)
        ratios.append(clf.noise_to_signal_)
        forecasts.append(clf.forecast_noise_to_signal_)
        expected = clf.noise_std_ * math.sqrt(9 + 1)
        assert clf.privacy_report_["noise-to-signal ratio"] == pytest.approx(expected)
    # best case: dense features reach it up to the test's Laplace noise (a few rows)
    np.testing.assert_allclose(ratios, forecasts, rtol=0.01)
    # rare features make the fit's ratio far larger than the forecast, never smaller
    X[:, 0] = np.where(np.arange(len(X)) % 20 == 0, 1.0, 0.0)
    clf = DPDropoutClassifier(epsilon=2.0, bounds=(-1, 1), random_state=0)
    _fit_recording(clf, X, y)
    assert clf.noise_to_signal_ > 5 * clf.forecast_noise_to_signal_


def test_chance_warning_comes_before_the_data_are_read():
    X = np.full((300, 30), np.nan)  # would fail validation if it were read
    clf = DPDropoutClassifier(epsilon=1.0, bounds=(0, 1), n_samples_public=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="NaN"):
            clf.fit(X, np.zeros(300))
    (message,) = [str(w.message) for w in caught if issubclass(w.category, UtilityWarning)]
    for text in ("noise-to-signal ratio of at least", "before reading the data",
                 "DPLSSGDClassifier(epsilon=1)", "rows at this epsilon", "300 rows"):
        assert text in message


def test_rows_and_epsilon_named_by_the_warning_leave_the_chance_region():
    clf = DPDropoutClassifier(epsilon=1.0, bounds=(-1, 1))
    with pytest.warns(UtilityWarning, match="noise-to-signal"):
        forecast = clf._forecast_and_warn(_public(500), math.sqrt(30), 1.0, 1.0, 1)
    assert forecast["ratio"] > CHANCE_RATIO
    n_needed, eps_needed = forecast["rows needed"], forecast["epsilon needed"]
    at_rows = clf._forecast(n_needed, math.sqrt(30), 1.0, 1.0, 1)["ratio"]
    below = clf._forecast(int(n_needed * 0.99), math.sqrt(30), 1.0, 1.0, 1)["ratio"]
    assert at_rows <= CHANCE_RATIO < below
    other = DPDropoutClassifier(epsilon=eps_needed * 1.001, bounds=(-1, 1))
    assert other._forecast(500, math.sqrt(30), 1.0, 1.0, 1)["ratio"] <= CHANCE_RATIO


def test_learning_region_fits_without_a_utility_warning():
    X, y = _dense(20_000, 5)
    assert _fit_recording(DPDropoutClassifier(epsilon=1.0, bounds=(-1, 1)), X, y) == []


def test_breast_cancer_at_epsilon_4_warns_and_is_no_worse_than_the_majority_class():
    # The case: features in [0, 1], epsilon 4. The old code returned a model that
    # predicted only the minority class (accuracy 0.37) and said nothing.
    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)
    top = Xtr.max(axis=0)
    Xtr, Xte = Xtr / top, np.clip(Xte / top, 0, 1)
    majority = max(np.mean(yte), 1 - np.mean(yte))
    accuracies = []
    for seed in range(8):
        # breast cancer's size is published (569 rows): the exact count is public here
        clf = DPDropoutClassifier(epsilon=4.0, bounds=(0, 1), random_state=seed,
                                  n_samples_public=True)
        chance = _fit_recording(clf, Xtr, ytr)
        assert len(chance) == 1 and "noise-to-signal ratio of at least" in chance[0]
        assert "selection" in clf.privacy_report_
        predicted = clf.predict(Xte)
        if len(set(predicted)) == 1:  # a constant model predicts the majority class
            assert np.mean(predicted == yte) == pytest.approx(majority)
        accuracies.append(clf.score(Xte, yte))
    assert np.mean(accuracies) >= majority - 0.01
    assert min(accuracies) >= majority - 0.05


def test_a_noise_dominated_fit_without_forecast_warning_warns_when_it_returns_a_constant():
    # Dense public forecast, but one rare feature makes the release noise: warned after the
    # test, and the private choice falls back to the majority class.
    X, y = _dense(20_000, 5)
    y = (np.arange(len(y)) % 5 != 0).astype(int)  # 80% class 1, unrelated to X
    X[:, 0] = np.where(np.arange(len(X)) % 2000 == 0, 1.0, 0.0)
    constants = 0
    for seed in range(4):
        clf = DPDropoutClassifier(epsilon=1.0, bounds=(-1, 1), random_state=seed)
        chance = _fit_recording(clf, X, y)
        assert len(chance) == 1
        assert clf.forecast_noise_to_signal_ <= CHANCE_RATIO < clf.noise_to_signal_
        constants += clf.selection_.startswith("constant")
        assert clf.score(X, y) >= 0.8 - 0.02
    assert constants >= 2


def test_selection_spends_inside_the_budget():
    clf = DPDropoutClassifier(epsilon=1.0, delta=1e-5, selection_fraction=0.2)
    # The noisy count of the rows takes its share first; the fractions split the rest.
    eps1, delta1, eps2, delta2 = clf._budget_split()
    rest = 1.0 - COUNT_SHARE
    assert COUNT_SHARE + eps1 + eps2 + clf._selection_epsilon() <= 1.0
    assert eps1 == pytest.approx(0.3 * rest) and eps2 == pytest.approx(0.5 * rest)
    assert delta1 + delta2 <= 1e-5
    acc = BudgetAccountant(epsilon=2.0, delta=1e-4)
    X, y = _dense(5000, 5)
    clf = DPDropoutClassifier(epsilon=1.0, bounds=(-1, 1), accountant=acc, random_state=0)
    _fit_recording(clf, X, y)
    assert acc.total() == pytest.approx((1.0, 1e-5))
    assert clf.privacy_report_["selection epsilon"] == pytest.approx(0.1 * rest)


def test_fractions_that_leave_nothing_for_the_release_are_refused():
    X, y = _dense(500, 3)
    with pytest.raises(ValueError, match="test_fraction=0.5 and selection_fraction=0.5"):
        DPDropoutClassifier(test_fraction=0.5, selection_fraction=0.5).fit(X, y)


def test_no_selection_keeps_the_released_model():
    X, y = _dense(5000, 5)
    clf = DPDropoutClassifier(epsilon=1.0, bounds=(-1, 1), selection_fraction=0.0,
                              random_state=0)
    _fit_recording(clf, X, y)
    assert "selection" not in clf.privacy_report_
    assert clf.selection_.startswith("released coefficients")


def test_regressor_forecast_does_not_depend_on_the_target_scale():
    X = np.zeros((1000, 4))
    a = DPDropoutRegressor(bounds=(-1, 1), y_bound=1.0)._forecast_before_fit(
        X, 1, 1.0, _public(1000))
    b = DPDropoutRegressor(bounds=(-1, 1), y_bound=50.0)._forecast_before_fit(
        X, 1, 50.0, _public(1000))
    assert a["ratio"] == pytest.approx(b["ratio"])


def _selection_outputs(counts_case, epsilon, runs, seed):
    """Winners of the selection's Report Noisy Max on a small data set (model + 2 constants),
    ``runs`` independent choices at once (``select_candidate`` is checked to be the same)."""
    scores, y = counts_case
    counts = candidate_counts(scores, y, 2, np.zeros(1))
    one = select_candidate(scores, y, 2, np.zeros(1), epsilon, np.random.default_rng(seed))
    assert one == int(report_noisy_max(counts, epsilon, np.random.default_rng(seed)))
    return report_noisy_max(np.tile(counts, (runs, 1)), epsilon, np.random.default_rng(seed))


def test_selection_audit_on_neighbouring_data_sets():
    # D: four rows; D' adds a row of class 1 that the model classifies correctly, so the
    # model's and class 1's counts rise by one and class 0's does not: the event "class 0
    # wins" is where Report Noisy Max is least private. Monte Carlo against epsilon, and a
    # control with half the noise that the same audit catches.
    scores = np.array([1.0, 1.0, -1.0, -1.0])
    y = np.array([1, 0, 0, 1])
    D = (scores, y)
    D_prime = (np.append(scores, 1.0), np.append(y, 1))
    runs, eps = 20_000, 1.0
    for claimed, drawn, should_pass in ((eps, eps, True), (eps, 2 * eps, False)):
        out = _selection_outputs(D, drawn, runs, 1)
        out_prime = _selection_outputs(D_prime, drawn, runs, 2)
        hits, hits_prime = int(np.sum(out == 1)), int(np.sum(out_prime == 1))
        bound = epsilon_lower_bound(hits, runs, hits_prime, runs, confidence=0.99)
        assert (bound <= claimed) is should_pass, (hits, hits_prime, bound)


def test_three_classes_read_from_y_warn_once_with_their_own_forecast():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(300, 4))
    y = rng.integers(0, 3, size=300)
    clf = DPDropoutClassifier(epsilon=1.0, bounds=(0, 1), random_state=0,
                              n_samples_public=True)
    chance = _fit_recording(clf, X, y)
    assert len(chance) == 1
    public = dict(epsilon=1.0, bounds=(0, 1), n_samples_public=True)
    binary = DPDropoutClassifier(**public).forecast_noise_to_signal(300, 4)
    three = DPDropoutClassifier(**public).forecast_noise_to_signal(300, 4, n_classes=3)
    assert clf.forecast_noise_to_signal_ == pytest.approx(three) and three > binary


def test_forecast_refuses_what_fit_refuses():
    with pytest.raises(ValueError, match="selection_fraction"):
        DPDropoutClassifier(test_fraction=0.6, selection_fraction=0.4,
                            bounds=(-1, 1)).forecast_noise_to_signal(1000, 5)
    with pytest.raises(ValueError, match="public bounds"):
        DPDropoutClassifier().forecast_noise_to_signal(1000, 5)
    with pytest.raises(ValueError, match="n_classes"):
        DPDropoutRegressor(bounds=(-1, 1)).forecast_noise_to_signal(1000, 5, n_classes=2)


def test_selection_noise_is_integer_and_ties_go_to_the_first_candidate():
    # issue 29: the counts get exact discrete Laplace noise (integers), not floating-point
    # Laplace. With equal counts and tiny noise (scale 1/50: Z = 0 but for about 1e-22 of
    # draws) every choice is a tie, won by the first candidate; continuous noise never ties.
    scores = np.array([1.0, -1.0])
    y = np.array([1, 0])  # model right twice; each constant right once: counts [2, 1, 1]
    counts = candidate_counts(scores, y, 2, np.zeros(1))
    assert counts.dtype == np.int64 and counts.tolist() == [2, 1, 1]
    tied = np.tile([1, 1, 1], (2000, 1))
    assert np.all(report_noisy_max(tied, 50.0, np.random.default_rng(0)) == 0)
    winners = [select_candidate(np.array([-1.0, 1.0]), np.array([1, 0]), 2, np.zeros(1), 50.0,
                                np.random.default_rng(s)) for s in range(50)]
    assert winners == [1] * 50  # model right 0 times, constants 1 each: the first constant
