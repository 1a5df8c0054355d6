"""PATE plans on a noisy count of the private rows unless the number is declared public."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression

from skprivate._row_count import COUNT_SHARE
from skprivate.accounting import BudgetAccountant
from skprivate.pate import PATEClassifier

pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")

X, y = make_classification(800, n_features=5, random_state=0)
X_public = X[400:]


def cheap(**params):
    # Teachers and student that cost nothing: only the plan and the accounting are tested.
    base = dict(teacher=DummyClassifier(strategy="stratified"), student=LogisticRegression(),
                classes=[0, 1], query_strategy="random", soft_labels=False, epsilon=2.0)
    return PATEClassifier(**(base | params))


def _teachers(n_rows, seeds, **params):
    return [
        cheap(random_state=s, **params).fit(X[:n_rows], y[:n_rows], X_public=X_public)
        .n_teachers_ for s in seeds
    ]


def test_n_teachers_no_longer_a_function_of_the_number_of_rows():
    # n_teachers="auto" read n exactly: 386 rows gave 29 teachers, 387 gave 30, so the
    # published n_teachers_ told whether a row was there. Now it reads the noisy count: at
    # 386 and at 387 rows it is spread over several values, the same ones.
    seeds = range(12)
    at_386, at_387 = _teachers(386, seeds), _teachers(387, seeds)
    assert len(set(at_386)) > 1 and len(set(at_387)) > 1
    assert set(at_386) & set(at_387)
    # Declared public, it is today's point mass.
    assert set(_teachers(386, seeds[:3], n_samples_public=True)) == {29}
    assert set(_teachers(387, seeds[:3], n_samples_public=True)) == {30}


def test_count_is_composed_into_epsilon_and_reported():
    clf = cheap(random_state=0).fit(X[:386], y[:386], X_public=X_public)
    assert clf.epsilon_ <= 2.0
    row = clf.privacy_report_["number of rows"]
    assert "discrete Laplace" in row
    # The queries were calibrated to what the count left: epsilon_ is the count's share
    # plus the bound every count's plan meets (basic composition; this plan's own bound
    # is at most that), and carries no event.
    queries = clf._data_independent_epsilon(clf.n_queries_)
    assert clf.epsilon_ == pytest.approx(2.0)
    assert 0.95 * 2.0 * (1 - COUNT_SHARE) <= queries <= 2.0 * (1 - COUNT_SHARE)
    assert clf._privacy_spend_record.event is None
    public = cheap(random_state=0, n_samples_public=True).fit(
        X[:386], y[:386], X_public=X_public)
    assert "treated as public" in public.privacy_report_["number of rows"]
    assert public.epsilon_ == public._data_independent_epsilon(public.n_queries_)


def test_n_samples_public_restores_the_exact_plan_bit_for_bit():
    # Recorded with the code before the count (same random_state, same data): with the
    # number of rows declared public, the fit is unchanged.
    clf = cheap(random_state=3, n_samples_public=True).fit(
        X[:386], y[:386], X_public=X_public)
    assert (clf.n_teachers_, clf.n_queries_) == (29, 30)
    assert clf.noise_scale_ == 15.477156391531217
    # to the accountant's last digits, which move with dp-accounting and scipy's releases
    assert clf.epsilon_ == pytest.approx(1.995209511159329, rel=1e-9)
    assert clf.student_.coef_.round(6).tolist() == [
        [-0.295178, -0.004013, 0.115623, -0.022523, -0.017289]]


def test_no_budget_count_reserved_then_the_rest():
    # epsilon=None: the count costs COUNT_SHARE of 1 and is reserved first; the queries'
    # epsilon, which follows from the teachers (hence from the count), is reserved next.
    accountant = BudgetAccountant()
    clf = cheap(epsilon=None, n_teachers=10, noise_scale=4.0, n_queries=40,
                accountant=accountant, random_state=0).fit(X[:386], y[:386], X_public=X_public)
    assert clf.epsilon_ == pytest.approx(COUNT_SHARE + clf._data_independent_epsilon(40))
    assert accountant.total()[0] == pytest.approx(clf.epsilon_)
    with pytest.warns(match="noisy count of the rows"):
        cheap(epsilon=None, n_teachers=10, noise_scale=4.0, n_queries=40,
              random_state=0).fit(X[:386], y[:386], X_public=X_public)


def test_budget_reserved_before_the_count_reads_no_n():
    accountant = BudgetAccountant(epsilon=2.0, delta=1e-5)
    cheap(accountant=accountant, random_state=0).fit(X[:300], y[:300], X_public=X_public)
    assert accountant.total() == pytest.approx((2.0, 1e-5))
    # Whatever the number of rows, the reservation is the target: nothing left here.
    with pytest.raises(Exception, match="epsilon"):
        cheap(accountant=accountant, random_state=0).fit(X[:301], y[:301], X_public=X_public)


def test_rows_per_teacher_check_reads_the_noisy_count():
    with pytest.raises(ValueError, match=r"private rows \(noisy count\) for n_teachers=100"):
        cheap(n_teachers=100, random_state=0).fit(X[:60], y[:60], X_public=X_public)
    with pytest.raises(ValueError, match="60 private rows for n_teachers=100"):
        cheap(n_teachers=100, n_samples_public=True, random_state=0).fit(
            X[:60], y[:60], X_public=X_public)
