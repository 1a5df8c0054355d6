"""Metadata routing of the private searches (issue 18, item 7), and sample_weight refused."""

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import MinMaxScaler

from skprivate.accounting import BudgetAccountant
from tests._doubles import NoisyMajorityClassifier
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.model_selection import PrivateGridSearchCV, PrivateRandomSearchCV


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return MinMaxScaler().fit_transform(X), y  # a test: in a release, scale with public bounds


class _Majority(NoisyMajorityClassifier):
    """Report-noisy-max of the class counts (epsilon-DP); records its ``extra`` argument."""

    seen = []


def _search(estimator=None):
    return PrivateGridSearchCV(
        _Majority() if estimator is None else estimator, {}, n_candidates_distribution="geometric",
        mean_candidates=2, random_state=0,
    )


def _fit(search, X, y, **params):
    _Majority.seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return search.fit(X, y, **params)


def test_without_routing_fit_arguments_pass_as_given(cancer):
    # scikit-learn's default: no routing; nothing is split by guessing from its length (a
    # net's extra forward argument is the same for every example, whatever its length)
    X, y = cancer
    extra = np.arange(len(y))
    _fit(_search(), X, y, extra=extra)
    assert _Majority.seen and all(
        n < len(y) and got is extra for n, got in _Majority.seen
    )


def test_with_routing_requested_metadata_is_split_with_the_rows(cancer):
    X, y = cancer
    extra = np.arange(len(y))
    with sklearn.config_context(enable_metadata_routing=True):
        search = _search(_Majority().set_fit_request(extra=True))
        routing = search.get_metadata_routing()
        assert routing.consumes("fit", ["extra"]) == {"extra"}
        _fit(search, X, y, extra=extra)
        for n, got in _Majority.seen:  # the training part's rows, in order
            assert len(got) == n < len(y) and np.all(np.diff(got) > 0)
        # metadata nobody requested is refused by scikit-learn's routing, before the
        # accountant is charged
        acc = BudgetAccountant()
        with pytest.raises(Exception, match="extra"):
            _fit(_search().set_params(accountant=acc), X, y, extra=extra)
        assert acc.spends == []


@pytest.mark.parametrize("routing", [False, True])
def test_sample_weight_is_refused_with_its_privacy_reason(cancer, routing):
    X, y = cancer
    search = PrivateRandomSearchCV(DPLSSGDClassifier(), {"learning_rate": [1.0]})
    with sklearn.config_context(enable_metadata_routing=routing):
        with pytest.raises(ValueError, match="sample_weight.*beyond the bound"):
            search.fit(X, y, sample_weight=np.ones(len(y)))
    assert not hasattr(search, "best_estimator_")
