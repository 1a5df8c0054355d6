import pickle
import subprocess
import sys
import warnings

import joblib
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_validate

from skprivate.accounting import (
    BudgetAccountant,
    PrivacySpend,
    dpsgd_epsilon,
    dpsgd_event,
    total_privacy_cost,
)
from skprivate.exceptions import AccountantDetachedError, BudgetExceededError, PrivacyLeakWarning
from tests._doubles import NoisyMeanRegressor

rng = np.random.default_rng(0)
X = rng.normal(size=(200, 3))
y = rng.uniform(size=200)


def test_basic_composition_adds_up():
    acc = BudgetAccountant(epsilon=3.0, delta=1e-4)
    acc.spend(1.0, 1e-5)
    acc.spend(0.5)
    assert acc.total() == pytest.approx((1.5, 1e-5))
    assert acc.remaining() == pytest.approx((1.5, 9e-5))
    assert len(acc.spends) == 2


def test_refuses_a_spend_over_budget_and_records_nothing():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    acc.spend(0.8, 0.0)
    with pytest.raises(BudgetExceededError, match="over the budget epsilon=1"):
        acc.spend(0.3, 0.0)
    with pytest.raises(BudgetExceededError, match="delta"):
        acc.spend(0.1, 2e-5)
    assert acc.total() == (0.8, 0.0)


def test_a_spend_that_exactly_meets_the_budget_is_accepted():
    acc = BudgetAccountant(epsilon=1.0)
    for _ in range(10):
        acc.spend(0.1)
    assert acc.remaining()[0] == pytest.approx(0.0, abs=1e-12)


def test_rdp_composition_of_events_is_exact_and_tighter():
    # Two runs of 500 DP-SGD steps compose to exactly one run of 1000 steps: an independent
    # number for the accountant's RDP composition.
    z, q, delta = 1.0, 0.01, 1e-6
    acc = BudgetAccountant()
    for _ in range(2):
        acc.spend(dpsgd_epsilon(z, q, 500, delta), delta, event=dpsgd_event(z, q, 500))
    eps, total_delta = acc.total()
    assert total_delta == pytest.approx(2 * delta)
    assert eps == pytest.approx(dpsgd_epsilon(z, q, 1000, 2 * delta), rel=1e-9)
    assert eps < 2 * dpsgd_epsilon(z, q, 500, delta)
    basic = BudgetAccountant(composition="basic")
    for spend in acc.spends:
        basic.spend(spend)
    assert basic.total()[0] == pytest.approx(2 * dpsgd_epsilon(z, q, 500, delta))


def test_mixed_spends_add_the_rest_by_basic_composition():
    z, q, delta = 1.0, 0.01, 1e-6
    acc = BudgetAccountant()
    for _ in range(2):
        acc.spend(dpsgd_epsilon(z, q, 500, delta), delta, event=dpsgd_event(z, q, 500))
    acc.spend(0.25, 0.0)
    assert acc.total()[0] == pytest.approx(dpsgd_epsilon(z, q, 1000, 2 * delta) + 0.25)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(epsilon=0), "epsilon must be a number > 0"),
        (dict(epsilon=-1), "epsilon must be"),
        (dict(delta=0), "delta must be a number in"),
        (dict(delta=1.5), "delta must be"),
        (dict(composition="advanced"), "composition must be"),
    ],
)
def test_bad_budget_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        BudgetAccountant(**kwargs)


def test_bad_spends():
    with pytest.raises(ValueError, match="epsilon must be"):
        PrivacySpend(-1.0, 0.0)
    with pytest.raises(ValueError, match="delta must be"):
        PrivacySpend(1.0, 1.0)


def test_clone_and_deepcopy_share_the_accountant():
    acc = BudgetAccountant(epsilon=10)
    est = NoisyMeanRegressor(accountant=acc)
    assert clone(est).accountant is acc
    import copy

    assert copy.deepcopy(est).accountant is acc


def test_fit_checks_the_budget_before_reading_the_data():
    spent = NoisyMeanRegressor(random_state=None)._privacy_plan(200).epsilon
    acc = BudgetAccountant(epsilon=spent * 1.5, composition="basic")
    NoisyMeanRegressor(accountant=acc).fit(X, y)
    assert acc.total()[0] == pytest.approx(spent)
    X_nan = X.copy()
    X_nan[0, 0] = np.nan  # would fail validation, but the budget check comes first
    with pytest.raises(BudgetExceededError, match="NoisyMeanRegressor"):
        NoisyMeanRegressor(accountant=acc).fit(X_nan, y)
    assert len(acc.spends) == 1


def test_estimator_epsilon_matches_the_spend_recorded():
    acc = BudgetAccountant()
    est = NoisyMeanRegressor(accountant=acc).fit(X, y)
    assert acc.spends[0].epsilon == est.epsilon_
    assert acc.spends[0].delta == est.delta_
    assert est.epsilon_ == pytest.approx(dpsgd_epsilon(2.0, 0.1, 1, 1e-5))


def test_threaded_search_records_every_fit():
    acc = BudgetAccountant()
    search = GridSearchCV(
        NoisyMeanRegressor(accountant=acc), {"noise_multiplier": [1.0, 3.0]}, cv=3, n_jobs=2
    )
    with joblib.parallel_config(backend="threading"):
        search.fit(X, y)
    assert len(acc.spends) == 2 * 3 + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        assert acc.total() == pytest.approx(total_privacy_cost(search, X, y, composition="auto"))


def test_process_parallel_search_refuses_instead_of_under_counting():
    acc = BudgetAccountant()
    search = GridSearchCV(
        NoisyMeanRegressor(accountant=acc), {"noise_multiplier": [1.0, 3.0]}, cv=2, n_jobs=2,
        error_score="raise",
    )
    with pytest.raises(AccountantDetachedError, match="another process"):
        search.fit(X, y)
    assert acc.spends == []


def test_pickled_copy_in_another_process_is_detached_until_reattached(tmp_path):
    path = tmp_path / "ledger.pkl"
    acc = BudgetAccountant(epsilon=5)
    acc.spend(1.0)
    path.write_bytes(pickle.dumps(acc))
    script = (
        "import pickle, sys\n"
        "from skprivate.exceptions import AccountantDetachedError\n"
        f"acc = pickle.loads(open({str(path)!r}, 'rb').read())\n"
        "try:\n    acc.spend(1.0)\nexcept AccountantDetachedError:\n    print('refused')\n"
        "acc.reattach(); acc.spend(1.0); print(acc.total()[0])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["refused", "2.0"]
    # In the same process too, an unpickled accountant is a copy of the ledger.
    copy = pickle.loads(pickle.dumps(acc))
    with pytest.raises(AccountantDetachedError, match="pickled copy"):
        copy.spend(1.0)
    assert copy.reattach().total() == (1.0, 0.0)


def test_a_fitted_model_loaded_again_refuses_to_refit_on_a_stale_ledger():
    acc = BudgetAccountant()
    est = NoisyMeanRegressor(accountant=acc).fit(X, y)
    loaded = pickle.loads(pickle.dumps(est))
    assert loaded.predict(X[:2]).shape == (2,)  # using the model is fine
    with pytest.raises(AccountantDetachedError):
        loaded.fit(X, y)
    assert len(acc.spends) == 1


def test_a_fit_reserves_its_spend_and_concurrent_fits_cannot_overrun():
    one = NoisyMeanRegressor()._privacy_plan(200).epsilon
    acc = BudgetAccountant(epsilon=2.5 * one, composition="basic")
    results = joblib.Parallel(n_jobs=4, backend="threading")(
        joblib.delayed(_try_fit)(acc) for _ in range(8)
    )
    assert results.count("ok") == 2 and results.count("refused") == 6
    assert acc.total()[0] == pytest.approx(2 * one)


def _try_fit(acc):
    try:
        NoisyMeanRegressor(accountant=acc).fit(X, y)
    except BudgetExceededError:
        return "refused"
    return "ok"


def test_a_fit_that_fails_after_reading_data_keeps_its_reservation():
    acc = BudgetAccountant()
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        NoisyMeanRegressor(accountant=acc).fit(X_nan, y)
    assert len(acc.spends) == 1


def test_total_privacy_cost_of_a_parallel_grid_search_is_the_true_total():
    search = GridSearchCV(
        NoisyMeanRegressor(batch_size=30), {"noise_multiplier": [1.0, 2.0, 4.0]}, cv=4, n_jobs=2
    )
    search.fit(X, y)
    # The true total, computed independently: refit every candidate on every fold with the
    # estimators kept, and add their epsilon_, plus the refit on all rows.
    expected_eps = search.best_estimator_.epsilon_
    for z in [1.0, 2.0, 4.0]:
        cv = cross_validate(
            NoisyMeanRegressor(batch_size=30, noise_multiplier=z), X, y, cv=4,
            return_estimator=True,
        )
        expected_eps += sum(est.epsilon_ for est in cv["estimator"])
    with pytest.warns(PrivacyLeakWarning, match="not differentially private"):
        eps, delta = total_privacy_cost(search, X, y, composition="basic")
    assert eps == pytest.approx(expected_eps, rel=1e-12)
    assert delta == pytest.approx(13 * 1e-5)


def test_total_privacy_cost_of_cross_validate_and_lists():
    cv = cross_validate(NoisyMeanRegressor(), X, y, cv=3, return_estimator=True, n_jobs=2)
    eps, delta = total_privacy_cost(cv, composition="basic")
    assert eps == pytest.approx(sum(e.epsilon_ for e in cv["estimator"]))
    assert total_privacy_cost(list(cv["estimator"]), composition="basic") == (eps, delta)
    tighter, _ = total_privacy_cost(cv, composition="auto")
    assert tighter < eps
    with pytest.raises(ValueError, match="return_estimator=True"):
        total_privacy_cost(cross_validate(NoisyMeanRegressor(), X, y, cv=2))


def test_total_privacy_cost_errors_are_clear():
    search = GridSearchCV(NoisyMeanRegressor(), {"noise_multiplier": [1.0]}, cv=2).fit(X, y)
    with pytest.raises(ValueError, match="pass the data the search was fitted on"):
        total_privacy_cost(search)
    with pytest.raises(ValueError, match="not fitted"):
        total_privacy_cost(NoisyMeanRegressor())
    with pytest.raises(ValueError, match="not a skprivate estimator"):
        total_privacy_cost(object())


@pytest.mark.parametrize("runner", ["cross_validate", "grid_search"])
def test_process_parallel_runs_of_real_estimators_are_refused_with_default_error_score(runner):
    # With sklearn's default error_score=nan every fit in a worker process fails before
    # reading data, and sklearn then raises with our message: nothing is spent, none hidden.
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    from skprivate import DPLSSGDClassifier

    X_bc, y_bc = load_breast_cancer(return_X_y=True)
    X_bc = StandardScaler().fit_transform(X_bc)
    acc = BudgetAccountant()
    est = DPLSSGDClassifier(accountant=acc)
    with pytest.raises(ValueError, match="another process"):
        if runner == "cross_validate":
            cross_validate(est, X_bc, y_bc, cv=2, n_jobs=2)
        else:
            GridSearchCV(est, {"smoothing": [0.0, 1.0]}, cv=2, n_jobs=2).fit(X_bc, y_bc)
    assert acc.spends == []


def test_the_reservation_is_the_spend_of_record_and_is_never_refunded():
    # A fit that ends early (an early-stopping callback, a failed private test) chose when
    # from the data, so it released that too: the planned spend stays recorded. The old
    # accountant replaced the reservation by the smaller spend the fit reported (a refund).
    class StopsEarly(NoisyMeanRegressor):
        def fit(self, X, y):
            plan = self._begin_private_fit(X)
            self.mean_ = 0.0
            reported = self._privacy_spend(plan.epsilon / 3, plan.delta)  # "what ran"
            self._finish_private_fit(reported, {}, len(X))
            return self

    acc = BudgetAccountant()
    plan = StopsEarly()._privacy_plan(len(X))
    est = StopsEarly(accountant=acc).fit(X, y)
    assert acc.spends == [plan] and acc.total()[0] == pytest.approx(plan.epsilon)
    assert est.epsilon_ < plan.epsilon  # the subclass under-reports; the ledger does not
    assert not hasattr(acc, "_settle")  # no path that lowers a recorded spend


def test_a_fit_with_no_reservation_records_its_spend_when_it_ends():
    class NoReservation(NoisyMeanRegressor):
        def fit(self, X, y):
            self.mean_ = 0.0
            self._finish_private_fit(self._privacy_plan(len(X)), {}, len(X))
            return self

    acc = BudgetAccountant()
    est = NoReservation(accountant=acc).fit(X, y)
    assert [s.epsilon for s in acc.spends] == [est.epsilon_]
