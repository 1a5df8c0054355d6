"""total_privacy_cost: one default with BudgetAccountant, steps named, leaks named."""

import warnings

import numpy as np
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder as SkOneHotEncoder
from sklearn.preprocessing import StandardScaler as SkStandardScaler

from skprivate.accounting import BudgetAccountant, PrivacyCost, total_privacy_cost
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.preprocessing import OneHotEncoder, StandardScaler, make_private_pipeline
from tests._doubles import NoisyMeanRegressor

rng = np.random.default_rng(0)
X = rng.normal(size=(300, 3))
y = (X[:, 0] + 0.3 * rng.normal(size=300) > 0).astype(int)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return fn(*args, **kwargs)


def test_default_matches_the_budget_accountant():
    """#15 item 8: the same fits gave 9.99 (total_privacy_cost, basic) and 3.12
    (BudgetAccountant, RDP). One default now: the accountant's."""
    acc = BudgetAccountant()
    fits = [NoisyMeanRegressor(batch_size=30, accountant=acc).fit(X, y) for _ in range(3)]
    cost = total_privacy_cost(fits)
    assert cost == pytest.approx(acc.total())
    assert cost.composition == "auto" == acc.composition
    assert cost.basic_epsilon == pytest.approx(sum(f.epsilon_ for f in fits))
    assert cost.epsilon < cost.basic_epsilon  # RDP is tighter here, and both are shown
    assert "basic composition" in repr(cost)
    assert total_privacy_cost(fits, composition="basic")[0] == pytest.approx(cost.basic_epsilon)


def test_the_pipeline_leak_is_named():
    """#15 item 5: the scaler and the encoder fitted on the private rows are named, with
    their alternative, in the result and in a warning."""
    Xc = np.column_stack([X, rng.choice(["a", "b"], size=300)]).astype(object)
    pipe = make_pipeline(
        ColumnTransformer([("num", SkStandardScaler(), [0, 1, 2]),
                           ("cat", SkOneHotEncoder(), [3])]),
        DPLSSGDClassifier(epsilon=1.0, classes=[0, 1]),
    )
    with pytest.warns(PrivacyLeakWarning, match="columntransformer/num") as record:
        pipe.fit(Xc, y)
        cost = total_privacy_cost(pipe)
    assert [s.path for s in cost.leaks] == ["columntransformer/num", "columntransformer/cat"]
    text = " ".join(str(w.message) for w in record)
    assert "skprivate.preprocessing.StandardScaler" in text and "categories" in text
    assert cost.report.caveat_codes == ["preprocessing_learned"] * 2
    assert "NOT covered" in repr(cost)


def test_private_pipeline_total_names_every_step_and_does_not_warn():
    pipe = make_private_pipeline(StandardScaler(bounds=(-5, 5)), DPLSSGDClassifier(classes=[0, 1]),
                                 epsilon=1.0, delta=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        pipe.fit(X, y)
        cost = total_privacy_cost(pipe)
    assert [s.label for s in cost.spends] == ["standardscaler", "dplssgdclassifier"]
    assert cost.basic_epsilon == pytest.approx(pipe[0].epsilon_ + pipe[1].epsilon_)
    assert 0.98 <= cost.basic_epsilon <= 1.0  # DP-SGD's calibration lands just below its share
    assert cost.epsilon <= 1.0 and cost.leaks == []
    # independently: an accountant given both records composes them the same way
    acc = BudgetAccountant()
    for step in (pipe[0], pipe[1]):
        acc.spend(step._privacy_spend_record)
    assert cost == pytest.approx(acc.total())


def test_column_transformer_parts_are_counted():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": rng.choice(["u", "v"], size=300)})
    ct = ColumnTransformer([
        ("num", StandardScaler(bounds=(-5, 5)), ["a", "b"]),
        ("cat", OneHotEncoder(sparse_output=False), ["c"]),
    ])
    pipe = make_private_pipeline(ct, DPLSSGDClassifier(classes=[0, 1]), epsilon=2.0)
    assert pipe[0].transformers[0][1].epsilon == pytest.approx(0.2)
    assert pipe[0].transformers[1][1].epsilon == pytest.approx(0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        pipe.fit(df, y)
        cost = total_privacy_cost(pipe)
    assert [s.label for s in cost.spends] == [
        "columntransformer/num", "columntransformer/cat", "dplssgdclassifier"]
    assert 1.96 <= cost.basic_epsilon <= 2.0


def test_grid_search_over_a_private_pipeline_totals_every_step():
    pipe = make_private_pipeline(StandardScaler(bounds=(-5, 5)), DPLSSGDClassifier(classes=[0, 1]),
                                 epsilon=1.0)
    grid = {"dplssgdclassifier__learning_rate": [0.5, 1.0]}
    search = _quiet(GridSearchCV(pipe, grid, cv=3).fit, X, y)
    cost = _quiet(total_privacy_cost, search, X, y, composition="basic")
    # independently: refit each candidate on each fold and add the fitted epsilons
    expected = search.best_estimator_[0].epsilon_ + search.best_estimator_[1].epsilon_
    for lr in (0.5, 1.0):
        cv = _quiet(cross_validate, pipe.set_params(dplssgdclassifier__learning_rate=lr),
                    X, y, cv=3, return_estimator=True)
        expected += sum(e[0].epsilon_ + e[1].epsilon_ for e in cv["estimator"])
    # 7 fits x (0.2 + at most 0.8): each fold's fit planned on its own noisy count of rows,
    # so the total charges each the bound it was calibrated under (the refit its own)
    assert expected <= cost.epsilon <= 7.0 + 1e-9
    assert cost.epsilon == pytest.approx(search.best_estimator_[0].epsilon_
                                         + search.best_estimator_[1].epsilon_ + 6 * 1.0)
    assert 6.8 < expected <= 7.0


def test_result_is_still_a_pair():
    cost = total_privacy_cost([])
    assert isinstance(cost, PrivacyCost) and cost == (0.0, 0.0)
    eps, delta = cost
    assert (eps, delta) == (cost.epsilon, cost.delta)
