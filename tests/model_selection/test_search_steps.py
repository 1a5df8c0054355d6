"""A private search over a Pipeline with several DP steps (private preprocessing, then the
model), and learning rates relative to the "auto" plan (issue 16, item 6)."""

import math
import warnings

import pytest
from dp_accounting import dp_event, pld, rdp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler as SkStandardScaler

from skprivate.base import DPEstimatorMixin
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.model_selection import PrivateGridSearchCV, PrivateRandomSearchCV, RelativeToAuto
from skprivate.model_selection import _tuning_accounting as ta
from skprivate.preprocessing import DEFAULT_PREPROCESSING_SHARE, StandardScaler

DELTA = 1e-5


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X, y


def _pipe(X):
    # public bounds for the private scaler: a test uses the columns' maxima, a release
    # would use a codebook's ranges
    return make_pipeline(
        StandardScaler(bounds=(0, X.max(axis=0))), DPLSSGDClassifier(classes=[0, 1])
    )


def _quiet_fit(search, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return search.fit(X, y)


def test_a_private_scaler_and_a_model_share_each_runs_budget(cancer):
    X, y = cancer
    search = PrivateRandomSearchCV(
        _pipe(X), {"dplssgdclassifier__alpha": [0.0, 1e-4]}, epsilon=1.0,
        mean_candidates=3, random_state=1,
    )
    _quiet_fit(search, X, y)  # refused before: "DP steps found before the last"
    assert 0.97 <= search.epsilon_ <= 1.0
    scaler, model = search.best_estimator_[0], search.best_estimator_[-1]
    eps_run, share = search.per_run_epsilon_, DEFAULT_PREPROCESSING_SHARE
    # make_private_pipeline's rule: 20 % to the scaler, the rest to the model
    assert scaler.epsilon_ == pytest.approx(share * eps_run, rel=1e-12)
    assert scaler.delta_ == pytest.approx(share * DELTA, rel=1e-12)
    assert model.epsilon_ <= (1 - share) * eps_run * (1 + 1e-9)
    assert model.delta_ == pytest.approx((1 - share) * DELTA, rel=1e-12)
    # independent composition with dp-accounting: the scaler is one Gaussian mechanism
    # (rounded Gaussian noise, a post-processing of it, with the noise multiplier z of its
    # stated noise per unit of sensitivity), whose exact curve dp-accounting's PLD
    # accountant checks here, composed with the model's DP-SGD event; the whole search is
    # the tuning theorem over the run.
    z_scaler = scaler.noise_std_ / scaler.privacy_report_["l2_sensitivity"]
    scaler_event = dp_event.GaussianDpEvent(z_scaler)
    alone_scaler = pld.PLDAccountant()
    alone_scaler.compose(scaler_event)
    assert alone_scaler.get_epsilon(share * DELTA) == pytest.approx(share * eps_run, rel=0.01)
    train = dp_event.ComposedDpEvent([scaler_event, model._privacy_spend_record.event])
    z_score = search.score_noise_ / search.privacy_report_["score_sensitivity"]
    both = dp_event.ComposedDpEvent([train, dp_event.GaussianDpEvent(z_score)])

    def total(event):
        acc = rdp.RdpAccountant(list(ta.ORDERS))
        acc.compose(dp_event.RepeatAndSelectDpEvent(event, 3, math.inf))
        return acc.get_epsilon(DELTA)

    # a run's curve is max(training, score) <= their composition; training alone is below
    assert total(train) * (1 - 1e-9) <= search.epsilon_ <= total(both) * (1 + 1e-9)
    # the model alone would understate the run: the scaler's share is counted
    alone = total(model._privacy_spend_record.event)
    assert alone < total(train)
    assert search.score(X, y) > 0.85
    assert "standardscaler" in search.privacy_report_["run_steps"]


def test_a_private_pipeline_states_no_leak(cancer):
    X, y = cancer
    search = PrivateGridSearchCV(
        _pipe(X), {"dplssgdclassifier__alpha": [0.0]}, epsilon=1.0,
        n_candidates_distribution="geometric", mean_candidates=2, random_state=None,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X, y)
    assert not [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    assert search.privacy_report_["caveats"] == []
    # every step's generator is dropped from the released model
    assert all(step.random_state is None for _, step in search.best_estimator_.steps)


def test_scikit_learns_scaler_is_named_as_a_leak(cancer):
    X, y = cancer
    search = PrivateGridSearchCV(
        make_pipeline(SkStandardScaler(), DPLSSGDClassifier(classes=[0, 1])),
        {"dplssgdclassifier__alpha": [0.0]}, epsilon=1.0, n_candidates_distribution="geometric",
        mean_candidates=2, random_state=None,
    )
    with pytest.warns(PrivacyLeakWarning, match="standardscaler"):
        search.fit(X, y)
    assert any("standardscaler" in str(c) for c in search.privacy_report_["caveats"])


def test_private_scaler_without_bounds_is_a_caveat_of_the_space(cancer):
    X, y = cancer
    pipe = make_pipeline(StandardScaler(), DPLSSGDClassifier(classes=[0, 1]))
    search = PrivateGridSearchCV(
        pipe, {"dplssgdclassifier__alpha": [0.0]}, epsilon=1.0, n_candidates_distribution="geometric",
        mean_candidates=2, random_state=None,
    )
    with pytest.warns(PrivacyLeakWarning, match="bounds"):
        search.fit(X, y)
    codes = [c.code for c in search.privacy_report_["caveats"]]
    assert codes.count("bounds_from_data") == 1  # the space's and the run's: one sentence


class _RowCountingTransformer(DPEstimatorMixin, TransformerMixin, BaseEstimator):
    """A DP step whose plan depends on the number of rows: a search must refuse it."""

    _parameter_constraints = {**DPEstimatorMixin._dp_parameter_constraints}

    def __init__(self, epsilon=1.0, delta=1e-5, accountant=None, random_state=None):
        self.epsilon = epsilon
        self.delta = delta
        self.accountant = accountant
        self.random_state = random_state

    def _privacy_plan(self, n_samples):
        return self._privacy_spend(self.epsilon * (1 + 1 / n_samples), 0.0)

    def fit(self, X, y=None):  # pragma: no cover - refused before
        raise AssertionError("the search must refuse this step before fitting it")

    def transform(self, X):  # pragma: no cover
        return X


def test_steps_that_cannot_be_planned_from_public_numbers_are_refused(cancer):
    X, y = cancer
    pipe = make_pipeline(_RowCountingTransformer(), DPLSSGDClassifier(classes=[0, 1]))
    search = PrivateGridSearchCV(pipe, {}, epsilon=1.0, random_state=0)
    with pytest.raises(TypeError, match="_rowcountingtransformer.*number of rows"):
        search.fit(X, y)
    from skprivate.accounting import BudgetAccountant

    pipe = make_pipeline(
        StandardScaler(bounds=(0, 1), accountant=BudgetAccountant(epsilon=9, delta=1e-3)),
        DPLSSGDClassifier(),
    )
    with pytest.raises(ValueError, match="'standardscaler'.*accountant"):
        PrivateGridSearchCV(pipe, {}, random_state=0).fit(X, y)


def test_relative_learning_rates_are_multiples_of_each_runs_auto_rate():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    search = PrivateGridSearchCV(
        DPLSSGDClassifier(classes=range(10)),
        {"learning_rate": [RelativeToAuto(0.5)]}, epsilon=1.0,
        n_candidates_distribution="geometric", mean_candidates=2, random_state=0,
    )
    _quiet_fit(search, X, y)
    assert search.best_params_ == {"learning_rate": RelativeToAuto(0.5)}
    model = search.best_estimator_
    n_train = search.privacy_report_["planned_training_rows"]
    # the rule of docs/user_guide/dp_lssgd.rst, recomputed: a total step length
    # 0.13 n epsilon (plan's epsilon) in units of the clip 0.3, spread over the steps
    auto = 0.13 * n_train * model.epsilon_ / (model.n_steps_ * 0.3)
    assert model.learning_rate == pytest.approx(0.5 * auto, rel=1e-9)
    assert model.learning_rate_ == model.learning_rate
    assert search.score(X, y) > 0.6


def test_relative_learning_rates_are_checked():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match="factor"):
        RelativeToAuto(0)
    with pytest.raises(TypeError, match="RelativeToAuto.*learning_rate"):
        PrivateGridSearchCV(
            DPLSSGDClassifier(), {"alpha": [RelativeToAuto(1.0)]}, random_state=0
        ).fit(X, y)
    assert repr(RelativeToAuto(2)) == "RelativeToAuto(2)"
