"""The searches do not read the number of rows (issue, finding 3): by default they release one
noisy count and plan every run's size on it; ``n_samples_public=True`` restores the exact
plan."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import MinMaxScaler

from skprivate import _caveats
from skprivate._row_count import COUNT_SHARE, count_report, release_row_count
from skprivate.accounting import BudgetAccountant
from skprivate.exceptions import BudgetExceededError, PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.mechanisms import check_rng, granular_gaussian_plan
from skprivate.model_selection import PrivateGridSearchCV, PrivateRandomSearchCV
from skprivate.model_selection import _tuning_accounting as ta
from tests._doubles import NoisyMajorityClassifier


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return MinMaxScaler().fit_transform(X), y  # a test: in a release, scale with public bounds


def _fit(search, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return search.fit(X, y)


def _dplssgd_search(**kwargs):
    return PrivateGridSearchCV(
        DPLSSGDClassifier(classes=[0, 1], max_iter=2), {"learning_rate": [0.1, 1.0]},
        epsilon=1.0, n_candidates_distribution="geometric", mean_candidates=3, **kwargs,
    )


def test_the_public_switch_restores_the_exact_plan_bit_for_bit(cancer):
    X, y = cancer
    search = _fit(_dplssgd_search(n_samples_public=True, random_state=0), X, y)
    # the values of the search before the noisy count existed (same code path, same seed)
    assert search.epsilon_ == 0.9917153941518428
    assert search.per_run_epsilon_ == 0.5055353622982856
    assert search.score_noise_ == 0.033357910261983356
    assert search.best_params_ == {"learning_rate": 0.1}
    # re-recorded when the score's noise became the granular Gaussian (the plan above is
    # unchanged: same RDP curve), then when DP-SGD's noise became the rounded Gaussian (the
    # runs' models changed, their plans did not), and when its sampler became the faster one
    # (same law, another use of the stream); the noisy sum is on its grid, a multiple of 2**-11
    assert search.best_score_noisy_ == pytest.approx(0.817979219299209, rel=1e-12)
    n_val = 0.2 * len(y)
    gamma = granular_gaussian_plan(0.5, search.score_noise_ * n_val).gamma
    steps = (search.best_score_noisy_ - 0.5) * n_val / gamma
    assert gamma == 2.0**-11 and steps == pytest.approx(round(steps), abs=1e-6)
    assert search.best_estimator_.intercept_[0] == pytest.approx(0.8216155483975885, rel=1e-9)
    report = search.privacy_report_
    assert report["planned_training_rows"] == round(0.8 * len(y))
    assert report["expected_validation_rows"] == 0.2 * len(y)
    assert "treated as public" in report["number of rows"]
    assert report["runs_epsilon"] == search.epsilon_


def test_every_planned_size_comes_from_one_noisy_count(cancer):
    X, y = cancer
    search = _fit(_dplssgd_search(random_state=0), X, y)
    # the count is the first draw of the search's generator
    count = release_row_count(len(y), 1.0, public=False, rng=check_rng(0))
    assert count.n_plan != len(y)  # this seed's count is off (the test would prove nothing)
    report = search.privacy_report_
    assert report["number of rows"] == count_report(count)["number of rows"]
    assert report["planned_training_rows"] == round(0.8 * count.n_plan)
    assert report["expected_validation_rows"] == pytest.approx(0.2 * count.n_plan)
    assert search.best_estimator_.sample_rate_ == (
        search.best_estimator_.batch_size_ / report["planned_training_rows"]
    )
    # basic composition: the count's share plus the rest, within which the runs were
    # calibrated (their own RDP accounting kept, on the planned sizes)
    assert search.epsilon_ == pytest.approx(COUNT_SHARE * 1.0 + (1.0 - COUNT_SHARE * 1.0))
    assert search.epsilon_ <= 1.0
    runs = report["runs_epsilon"]
    assert 0.97 * 0.95 <= runs <= 0.95
    z = search.score_noise_ / report["score_sensitivity"]
    curves = [
        ta.event_rdp(DPLSSGDClassifier(classes=[0, 1], max_iter=2, learning_rate=lr,
                                       epsilon=search.per_run_epsilon_)
                     ._privacy_plan(report["planned_training_rows"]).event)
        for lr in (0.1, 1.0)
    ]
    assert ta.tuning_epsilon(curves, ta.gaussian_rdp(z), 1.0, 3, 1e-5) == pytest.approx(runs)
    # the search's spend carries no event: the runs were chosen by the count
    assert search._privacy_spend_record.event is None
    assert "basic composition" in report["accountant"]


def test_n_and_n_plus_one_rows_no_longer_publish_the_number(cancer):
    X, y = cancer
    n = 300

    def planned(rows, seed, public):
        search = PrivateGridSearchCV(
            NoisyMajorityClassifier(), {}, epsilon=1.0, n_candidates_distribution="geometric",
            mean_candidates=2, n_samples_public=public, random_state=seed,
        )
        return _fit(search, X[:rows], y[:rows]).privacy_report_["expected_validation_rows"]

    # n declared public: the published size is a function of n, which tells n from n + 1
    assert {planned(n, s, True) for s in range(3)} == {0.2 * n}
    assert {planned(n + 1, s, True) for s in range(3)} == {0.2 * (n + 1)}
    # by default: random around n, the same law at n and n + 1 up to the count's epsilon
    private = [planned(rows, s, False) for rows in (n, n + 1) for s in range(6)]
    assert len(set(private)) > 4
    assert all(abs(v / 0.2 - n) < 200 for v in private)


def test_the_delta_check_names_the_count_not_the_number_of_rows(cancer):
    X, y = cancer
    search = _fit(PrivateGridSearchCV(
        NoisyMajorityClassifier(), {}, epsilon=1.0, delta=0.01,
        n_candidates_distribution="geometric", mean_candidates=2, random_state=3,
    ), X, y)
    count = release_row_count(len(y), 1.0, public=False, rng=check_rng(3))
    assert count.n_plan != len(y)
    caveats = search.privacy_report_["caveats"]
    assert _caveats.delta_protects_no_one(0.01, count.n_plan) in caveats
    assert _caveats.delta_protects_no_one(0.01, len(y)) not in caveats


def test_the_accountant_is_charged_the_bound_before_anything_the_count_chooses(
    cancer, monkeypatch
):
    X, y = cancer
    from skprivate.model_selection import _calibration

    calibrated = []
    calibrate = _calibration.calibrate
    monkeypatch.setattr(_calibration, "calibrate",
                        lambda *a, **k: calibrated.append(1) or calibrate(*a, **k))
    small = BudgetAccountant(epsilon=0.5, delta=1e-4)
    search = PrivateRandomSearchCV(
        NoisyMajorityClassifier(), {}, epsilon=1.0, mean_candidates=2, accountant=small,
        n_candidates_distribution="geometric", random_state=0,
    )
    with pytest.raises(BudgetExceededError):
        _fit(search, X, y)
    # refused for the bound, which no count changes, before the plan was calibrated on it
    assert small.total() == (0.0, 0.0) and not calibrated
    accountant = BudgetAccountant(epsilon=2.0, delta=1e-4)
    _fit(search.set_params(accountant=accountant), X, y)
    # the bound (epsilon, delta), whatever the count; epsilon_ is that bound
    assert accountant.total() == pytest.approx((1.0, 1e-5))
    assert search.epsilon_ == pytest.approx(1.0) and calibrated
    assert search.privacy_report_["runs_epsilon"] <= 1.0 - COUNT_SHARE
