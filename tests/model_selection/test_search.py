"""PrivateRandomSearchCV and PrivateGridSearchCV: the budget, the estimators, bad input."""

import math
import warnings

import joblib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from dp_accounting import dp_event, rdp
from sklearn.datasets import load_breast_cancer, load_digits, make_regression
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, MinMaxScaler
from scipy.stats import loguniform

from skprivate.accounting import BudgetAccountant
from skprivate.utils._compat import rdp_curve
from tests._doubles import NoisyMajorityClassifier
from skprivate.exceptions import BudgetExceededError, InfeasiblePrivacyError, PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier, DPLSSGDRegressor
from skprivate.model_selection import PrivateGridSearchCV, PrivateRandomSearchCV
from skprivate.model_selection import _tuning_accounting as ta
from skprivate.pate import PATEClassifier


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return MinMaxScaler().fit_transform(X), y  # a test: in a release, scale with public bounds


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X / 16.0, y


def _quiet_fit(search, X, y, **fit_params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return search.fit(X, y, **fit_params)


def _recompute_bounds(search):
    """Independent totals from dp-accounting's RepeatAndSelectDpEvent at the same orders.

    One run's curve is max(training, score); composing both instead is an upper bound,
    training alone a lower bound.
    """
    dp = search.best_estimator_
    dp = dp.steps[-1][1] if hasattr(dp, "steps") else dp
    train = dp._privacy_spend_record.event
    report = search.privacy_report_
    z = search.score_noise_ / report["score_sensitivity"]
    shape = {"poisson": math.inf, "geometric": 1.0, "logarithmic": 0.0}[search.n_candidates_distribution]

    def eps(event):
        acc = rdp.RdpAccountant(list(ta.ORDERS))
        acc.compose(dp_event.RepeatAndSelectDpEvent(event, search.mean_candidates, shape))
        return acc.get_epsilon(search.delta)

    both = dp_event.ComposedDpEvent([train, dp_event.GaussianDpEvent(z)])
    return eps(train), eps(both)


@pytest.mark.parametrize("n_candidates", ["poisson", "geometric", "logarithmic"])
def test_total_meets_budget_and_matches_an_independent_computation(cancer, n_candidates):
    X, y = cancer
    search = PrivateGridSearchCV(
        DPLSSGDClassifier(max_iter=5),
        {"learning_rate": [0.3, 1.0]},
        epsilon=2.0,
        n_candidates_distribution=n_candidates,
        mean_candidates=4,
        random_state=0,
    )
    _quiet_fit(search, X, y)
    assert 0.97 * 2.0 <= search.epsilon_ <= 2.0
    assert search.delta_ == 1e-5
    lower, upper = _recompute_bounds(search)
    assert lower * (1 - 1e-9) <= search.epsilon_ <= upper * (1 + 1e-9)
    assert search.epsilon_ == search.privacy_report_["epsilon"]
    assert search.per_run_epsilon_ < search.epsilon_
    # only the released run is public: not the others, not their number
    assert not hasattr(search, "n_candidates_")
    assert search.best_index_ == 0 and search.cv_results_["params"] == [search.best_params_]
    assert search.cv_results_["mean_test_score"].tolist() == [search.best_score_]
    assert all(len(column) == 1 for column in search.cv_results_.values())
    assert "secret" in search.privacy_report_["mechanism"]
    assert search.score(X, y) > 0.6
    np.testing.assert_array_equal(search.predict(X), search.best_estimator_.predict(X))
    assert search.predict_proba(X).shape == (len(y), 2)
    np.testing.assert_array_equal(search.classes_, [0, 1])


def test_candidates_with_different_privacy_plans_use_the_largest(cancer):
    X, y = cancer
    # batch size and epochs change the training curve; the bound covers every candidate
    search = PrivateRandomSearchCV(
        DPLSSGDClassifier(),
        {"batch_size": [32, 128], "max_iter": [3]},
        epsilon=1.5,
        mean_candidates=3,
        score_epsilon=0.05,  # a quiet score, so that training dominates the run's curve
        n_samples_public=True,  # the runs' accounting alone (the count: test_search_row_count)
        random_state=1,
    )
    _quiet_fit(search, X, y)
    assert search.epsilon_ <= 1.5
    # planned on the public expected size of the training part, not its realised size
    n_train = search.privacy_report_["planned_training_rows"]
    assert n_train == round(0.8 * len(y))
    z = search.score_noise_ / search.privacy_report_["score_sensitivity"]
    curves = []
    for b in (32, 128):
        est = DPLSSGDClassifier(batch_size=b, max_iter=3, epsilon=search.per_run_epsilon_)
        curves.append(ta.event_rdp(est._privacy_plan(n_train).event))
    again = ta.tuning_epsilon(curves, ta.gaussian_rdp(z), "poisson", 3, 1e-5)
    assert again == pytest.approx(search.epsilon_, rel=1e-12)
    # the bound covers the largest curve at every order, never a cheaper candidate's
    singles = [ta.tuning_epsilon([c], ta.gaussian_rdp(z), "poisson", 3, 1e-5) for c in curves]
    assert again >= max(singles) and min(singles) < again


def test_works_with_a_pipeline_and_a_regressor():
    X, y = make_regression(n_samples=400, n_features=5, noise=5.0, random_state=0)
    X = np.clip(X / 3, -1, 1)
    y = np.clip(y / 200, -1, 1)
    pipe = make_pipeline(FunctionTransformer(), DPLSSGDRegressor(max_iter=5))
    space = {"dplssgdregressor__learning_rate": [0.1, 0.5]}
    search = PrivateRandomSearchCV(pipe, space, epsilon=3.0, mean_candidates=3, random_state=0)
    with pytest.raises(ValueError, match="score_range"):
        _quiet_fit(search, X, y)

    def clipped_mae(estimator, X, y):  # terms |clip(pred) - y| with both in [-1, 1]
        return -np.mean(np.abs(np.clip(estimator.predict(X), -1, 1) - y))

    search.set_params(scoring=clipped_mae, score_range=2.0)  # a width is not enough
    with pytest.raises(ValueError, match=r"score_range=2.0 is a single number.*\(low, high\)"):
        _quiet_fit(search, X, y)
    search.set_params(score_range=(-2.0, 0.0))
    _quiet_fit(search, X, y)
    assert search.epsilon_ <= 3.0
    report = search.privacy_report_
    # the noisy sum of terms minus the midpoint -1 moves by at most 1 per row, shown per
    # expected validation row (0.2 times the noisy count of the 400 rows)
    assert report["score_sensitivity"] == pytest.approx(1.0 / report["expected_validation_rows"])
    assert report["expected_validation_rows"] == pytest.approx(80, abs=0.2 * 300)
    assert -2.0 <= search.best_score_ <= 0.0
    assert search.best_estimator_.steps[-1][1].epsilon == search.per_run_epsilon_
    assert set(search.best_params_) == {"dplssgdregressor__learning_rate"}
    assert search.predict(X).shape == (400,)


def test_results_do_not_depend_on_n_jobs(cancer):
    X, y = cancer
    kwargs = dict(epsilon=2.0, mean_candidates=3, random_state=3)
    space = {"learning_rate": [0.1, 1.0], "max_iter": [3]}
    one = _quiet_fit(PrivateRandomSearchCV(DPLSSGDClassifier(), space, n_jobs=1, **kwargs), X, y)
    with joblib.parallel_config(backend="threading"):
        two = PrivateRandomSearchCV(DPLSSGDClassifier(), space, n_jobs=2, **kwargs)
        _quiet_fit(two, X, y)
    assert one.best_score_ == two.best_score_
    assert one.best_params_ == two.best_params_
    np.testing.assert_array_equal(one.best_estimator_.coef_, two.best_estimator_.coef_)


def test_one_privacy_warning_for_a_seed_and_none_without(cancer):
    X, y = cancer
    space = {"learning_rate": [1.0], "max_iter": [3]}
    for random_state, expected in ((0, 1), (None, 0)):
        search = PrivateGridSearchCV(  # declared classes: no label is read
            DPLSSGDClassifier(classes=[0, 1]), space, epsilon=2.0, n_candidates_distribution="geometric",
            mean_candidates=2, random_state=random_state,
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            search.fit(X, y)
        privacy = [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
        assert len(privacy) == expected
        if expected:
            assert "random_state=0" in str(privacy[0].message)


def test_accountant_reserves_the_whole_search_before_reading_data(cancer):
    X, y = cancer
    acc = BudgetAccountant(epsilon=2.5, delta=1e-4)
    space = {"learning_rate": [1.0], "max_iter": [3]}
    search = PrivateGridSearchCV(
        DPLSSGDClassifier(), space, epsilon=2.0, n_candidates_distribution="geometric", mean_candidates=2,
        accountant=acc, random_state=0,
    )
    _quiet_fit(search, X, y)
    assert len(acc.spends) == 1  # the runs spent nothing on their own
    assert acc.total() == pytest.approx((search.epsilon_, search.delta_))
    from skprivate.accounting import total_privacy_cost

    # a private search is one DP release, not a scikit-learn search over its fits
    assert total_privacy_cost(search, X, y) == pytest.approx((search.epsilon_, search.delta_))
    X_poisoned = np.full_like(X, np.nan)  # never read: the budget check comes first
    with pytest.raises(BudgetExceededError):
        _quiet_fit(search, X_poisoned, y)
    assert len(acc.spends) == 1
    # the estimator's own accountant would count each run separately: refused
    inner = PrivateGridSearchCV(DPLSSGDClassifier(accountant=acc), space, random_state=0)
    with pytest.raises(ValueError, match="accountant"):
        inner.fit(X, y)


def test_refuses_non_private_and_approximate_dp_estimators(cancer):
    X, y = cancer
    with pytest.raises(TypeError, match="not a differentially private estimator"):
        PrivateGridSearchCV(LogisticRegression(), {"C": [1.0]}).fit(X, y)
    with pytest.raises(TypeError, match="last step"):
        PrivateGridSearchCV(
            make_pipeline(DPLSSGDClassifier(), LogisticRegression()), {}
        ).fit(X, y)
    # PATE states only (epsilon, delta): the tuning theorems need a Renyi-DP curve
    pate = PATEClassifier(n_teachers=10, n_queries=20)
    search = PrivateGridSearchCV(pate, {"n_teachers": [10, 20]}, epsilon=5.0, random_state=0)
    with pytest.raises(TypeError, match="Renyi-DP curve"):
        search.fit(X[:400], y[:400], X_public=X[400:])


@pytest.mark.parametrize(
    "space, error, match",
    [
        ([], ValueError, "empty"),
        ({"learning_rate": []}, ValueError, "empty list"),
        ({"learning_rate": loguniform(1e-2, 1)}, TypeError, "finite list"),
        ({"epsilon": [1.0, 2.0]}, ValueError, "privacy parameters"),
        ({"no_such_param": [1]}, ValueError, "no_such_param"),
    ],
)
def test_bad_search_spaces(cancer, space, error, match):
    X, y = cancer
    with pytest.raises(error, match=match):
        PrivateRandomSearchCV(DPLSSGDClassifier(), space).fit(X, y)


def test_budget_too_small_for_one_candidate(cancer):
    X, y = cancer
    # the selection alone costs about log(mean_candidates) / (lambda - 1) > 1e-4
    search = PrivateGridSearchCV(DPLSSGDClassifier(), {"max_iter": [5]}, epsilon=1e-4)
    with pytest.raises(InfeasiblePrivacyError, match="too small to train even one"):
        search.fit(X, y)
    # a fixed noise multiplier that alone spends more than the budget
    search = PrivateGridSearchCV(
        DPLSSGDClassifier(noise_multiplier=0.5), {"max_iter": [5]}, epsilon=0.5
    )
    with pytest.raises(InfeasiblePrivacyError, match="too small to train even one"):
        search.fit(X, y)


def test_zero_poisson_runs_raises_before_reading_data(cancer, monkeypatch):
    X, y = cancer
    monkeypatch.setattr(ta, "sample_n_runs", lambda rng, dist, mean: 0)
    acc = BudgetAccountant()
    search = PrivateGridSearchCV(DPLSSGDClassifier(), {}, accountant=acc)
    with pytest.raises(ValueError, match="came out 0"):
        search.fit(np.full_like(X, np.nan), y)
    assert acc.spends == []


_PureDPClassifier = NoisyMajorityClassifier


def test_pure_dp_estimator_uses_the_pure_dp_curve(cancer):
    X, y = cancer
    search = PrivateGridSearchCV(
        _PureDPClassifier(), {}, epsilon=1.0, n_candidates_distribution="geometric", mean_candidates=3,
        n_samples_public=True, random_state=0,  # the runs' accounting alone
    )
    _quiet_fit(search, X, y)
    assert 0.97 <= search.epsilon_ <= 1.0
    z = search.score_noise_ / search.privacy_report_["score_sensitivity"]
    base = np.maximum(ta.pure_dp_rdp(search.per_run_epsilon_), ta.gaussian_rdp(z))
    again = ta.rdp_to_epsilon(ta.repeat_and_select_rdp(base, 1.0, 3), 1e-5)
    assert again == pytest.approx(search.epsilon_, rel=1e-12)


def test_digits_search_beats_chance(digits):
    X, y = digits
    search = PrivateRandomSearchCV(
        DPLSSGDClassifier(max_iter=5),
        {"learning_rate": [0.3, 1.0]},
        epsilon=2.0,
        mean_candidates=3,
        random_state=0,
    )
    _quiet_fit(search, X, y)
    assert search.epsilon_ <= 2.0
    assert search.score(X, y) > 0.6


class _GaussianCountClassifier(_PureDPClassifier):
    """Gaussian noise on the class counts (sensitivity sqrt(2)), calibrated to epsilon."""

    def _privacy_plan(self, n_samples):
        z = ta.gaussian_noise_multiplier(self.epsilon, self.delta)
        return self._privacy_spend(self.epsilon, self.delta, dp_event.GaussianDpEvent(z))


@settings(max_examples=15, deadline=None)
@given(
    epsilon=st.floats(0.2, 8.0),
    mean=st.floats(1.0, 40.0),
    distribution=st.sampled_from(["poisson", "geometric", "logarithmic", 0.5, -0.5, 3.0]),
    score_epsilon=st.sampled_from([None, 0.1, 1.0]),
)
def test_calibration_never_overshoots(epsilon, mean, distribution, score_epsilon):
    search = PrivateGridSearchCV(
        _GaussianCountClassifier(), {}, epsilon=epsilon, n_candidates_distribution=distribution,
        mean_candidates=mean, score_epsilon=score_epsilon,
    )
    if distribution != "poisson" and mean <= 1:  # one run for sure: refused, not divided by 0
        with pytest.raises(ValueError, match="mean_candidates"):
            search._calibrate([{}], n_train=1000)
        return
    try:
        eps_run, total, z, spends = search._calibrate([{}], n_train=1000)
    except InfeasiblePrivacyError:
        # only when the selection itself, or the fixed score noise, leaves no room
        return
    assert total <= epsilon
    assert total >= 0.97 * epsilon or eps_run == epsilon
    # second route: dp-accounting's RepeatAndSelectDpEvent over the composition of the
    # run's training and score events bounds the max-curve total from above
    shape = {"poisson": math.inf, "geometric": 1.0, "logarithmic": 0.0}.get(distribution)
    shape = float(distribution) if shape is None else shape
    if shape >= 0:  # dp-accounting supports shape >= 0
        (_, train), = spends[0]  # one DP step: its (path, planned spend)
        both = dp_event.ComposedDpEvent([train.event, dp_event.GaussianDpEvent(z)])
        acc = rdp.RdpAccountant(list(ta.ORDERS))
        acc.compose(dp_event.RepeatAndSelectDpEvent(both, mean, shape))
        bound = acc.get_epsilon(1e-5)
        if distribution == "poisson":
            # dp-accounting's Theorem 6 releases nothing when K = 0; the search conditions on
            # K >= 1 (it refuses K = 0), which adds -log(1 - e^-mu) / (lambda - 1) to the
            # curve (ta._poisson_rdp). Without it this route undercuts the search near mu = 1.
            retry = -math.log(-math.expm1(-mean)) / (np.asarray(ta.ORDERS) - 1.0)
            bound = ta.rdp_to_epsilon(rdp_curve(acc) + retry, 1e-5)
        assert total <= bound * (1 + 1e-8)


def test_candidate_probabilities():
    est = DPLSSGDClassifier()
    # random search: a dict uniformly, then each list uniformly
    search = PrivateRandomSearchCV(
        est, [{"learning_rate": [0.1, 1.0]}, {"max_iter": [3, 5, 7, 9]}]
    )
    support, probs = search._support()
    assert len(support) == 6
    np.testing.assert_allclose(probs, [0.25, 0.25, 0.125, 0.125, 0.125, 0.125])
    # grid search: every point of every grid equally likely
    grid = PrivateGridSearchCV(est, [{"learning_rate": [0.1, 1.0]}, {"max_iter": [3, 5]}])
    support, probs = grid._support()
    assert support == [
        {"learning_rate": 0.1}, {"learning_rate": 1.0}, {"max_iter": 3}, {"max_iter": 5}
    ]
    np.testing.assert_allclose(probs, 0.25)
    # an empty dict is one candidate: the estimator as given
    assert PrivateGridSearchCV(est, {})._support()[0] == [{}]


def test_a_class_missing_from_the_training_part_still_has_its_column(cancer):
    X, y = cancer
    y = y.copy()
    y[0] = 2  # one row of a third class: in the validation part half of the time
    for seed in range(4):
        search = _quiet_fit(PrivateGridSearchCV(
            DPLSSGDClassifier(), {"learning_rate": [1.0]}, epsilon=2.0, n_candidates_distribution="geometric",
            mean_candidates=2, validation_fraction=0.5, random_state=seed), X, y)
        assert search.classes_.tolist() == [0, 1, 2]
        proba = search.predict_proba(X[:5])
        assert proba.shape == (5, 3) and np.allclose(proba.sum(axis=1), 1)
        assert search.decision_function(X[:5]).shape == (5, 3)
        assert set(search.predict(X)) <= {0, 1, 2}


def test_nothing_shown_counts_the_runs(cancer, capsys):
    # Knowing the number of runs k turns the search into the best of k fixed runs, whose
    # loss can reach k times a run's: progress output must not count them.
    X, y = cancer
    space = {"learning_rate": [0.1, 1.0], "max_iter": [2]}
    search = PrivateRandomSearchCV(DPLSSGDClassifier(verbose=1), space, epsilon=2.0,
                                   mean_candidates=4, random_state=0, verbose=1)
    _quiet_fit(search, X, y)
    out = capsys.readouterr()
    assert out.out == ""
    lines = out.err.strip().splitlines()  # the runs' own step bars are silenced
    assert len(lines) == 2 and "secret number of runs" in lines[0] and "done" in lines[1]
    assert search.best_estimator_.verbose is False  # the run was trained silently


def test_the_released_model_keeps_no_generator_of_its_noise(cancer):
    # A generator left where the run's noise ended can be stepped back (PCG64 is an LCG
    # with a bijective output) and the noise replayed: it must not travel with the model.
    import pickle

    X, y = cancer
    space = {"learning_rate": [0.1, 1.0], "max_iter": [2]}
    # unseeded, as a release is; a geometric number of runs is never 0
    search = _quiet_fit(PrivateRandomSearchCV(DPLSSGDClassifier(), space, epsilon=2.0,
                                              n_candidates_distribution="geometric", mean_candidates=3),
                        X, y)
    assert search.best_estimator_.random_state is None
    blob = pickle.dumps(search)
    assert b"PCG64" not in blob and b"Generator" not in blob
