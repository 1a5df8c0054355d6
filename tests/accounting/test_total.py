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


# --- finding 4: a private step whose guarantee is void is not covered ---------------------------
def test_a_private_scaler_reading_its_bounds_from_the_rows_is_not_covered():
    """The issue: skprivate.preprocessing.StandardScaler() with the default bounds=None reads
    min and max from the rows, yet total_privacy_cost listed no leak and no caveat."""
    pipe = make_pipeline(StandardScaler(), DPLSSGDClassifier(classes=[0, 1]))
    _quiet(pipe.fit, X, y)
    with pytest.warns(PrivacyLeakWarning, match="'standardscaler'.*bounds=None|bounds was None"):
        cost = total_privacy_cost(pipe)
    assert [s.path for s in cost.leaks] == ["standardscaler"]
    assert "bounds_from_data" in cost.report.caveat_codes
    assert "NOT covered: 'standardscaler'" in repr(cost)
    # its epsilon_ is still added up: it spent it
    assert cost.basic_epsilon == pytest.approx(pipe[0].epsilon_ + pipe[1].epsilon_)


def test_a_fixed_seed_is_shown_but_is_not_a_leak():
    pipe = make_pipeline(StandardScaler(bounds=(-5, 5), random_state=0),
                         DPLSSGDClassifier(classes=[0, 1]))
    _quiet(pipe.fit, X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        cost = total_privacy_cost(pipe)
    assert cost.leaks == [] and [c.code for c in cost.caveats] == ["seed_fixed"]
    assert cost.caveats[0].startswith("standardscaler: random_state=0")
    assert cost.report.caveat_codes == ["seed_fixed"]


# --- finding 3, reporting: the neighbouring relation and what is assumed public -----------------
class _CountingMean(NoisyMeanRegressor):
    """A fit that plans on a released row count, as skprivate._row_count prescribes."""

    _parameter_constraints = {**NoisyMeanRegressor._parameter_constraints,
                              "n_samples_public": ["boolean"]}

    def __init__(self, noise_multiplier=2.0, batch_size=20, epsilon=1.0, delta=1e-5,
                 accountant=None, random_state=None, n_samples_public=False):
        super().__init__(noise_multiplier, batch_size, epsilon, delta, accountant,
                         random_state)
        self.n_samples_public = n_samples_public

    def fit(self, X, y):
        from skprivate._row_count import count_report, release_row_count

        count = release_row_count(len(X), self.epsilon, public=self.n_samples_public,
                                  rng=self._noise_rng())
        spend = self._privacy_spend(self.epsilon, self.delta)
        self.mean_ = float(np.mean(np.clip(y, 0, 1)))  # (not private: a test double)
        self._finish_private_fit(spend, {"mechanism": "test", **count_report(count)}, len(X))
        return self


def test_the_total_states_the_neighbouring_relation_and_what_each_fit_takes_as_public():
    fits = [_CountingMean().fit(X, y), _CountingMean(n_samples_public=True).fit(X, y),
            NoisyMeanRegressor().fit(X, y)]
    cost = total_privacy_cost(fits)
    assert cost.neighbouring == "add/remove one row" == cost.report["neighbouring"]
    rows = {i: item for i, fit in enumerate(fits) for item in fit.privacy_report_["public"]
            if item.name == "number of rows"}
    assert set(rows) == {1, 2}  # the noisy count keeps the number of rows private
    assert "treated as public" in rows[1].how and "n_samples_public=True" in rows[1].how
    assert rows[2].how.startswith("read exactly")  # no "number of rows" entry in its report
    assert [str(item) for item in cost.public] == [
        "columns (their number and names: the schema, not the rows)",
        f"_countingmean: number of rows ({rows[1].how})",
        f"noisymeanregressor: number of rows ({rows[2].how})",
    ]
    text = repr(cost)
    assert "neighbouring: add/remove one row" in text
    assert "public: columns, number of rows of '_countingmean', number of rows of " in text
    assert cost.report["public"] == cost.public
    assert str(cost.public[1]) in str(cost.report)
    import pickle

    again = pickle.loads(pickle.dumps(cost))
    assert again.public == cost.public and again.neighbouring == cost.neighbouring


def test_declared_bounds_classes_and_categories_are_listed_as_public():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": rng.choice(["u", "v"], size=300)})
    ct = ColumnTransformer([
        ("num", StandardScaler(bounds=(-5, 5)), ["a", "b"]),
        ("cat", OneHotEncoder(categories=[["u", "v"]], sparse_output=False), ["c"]),
    ])
    pipe = make_private_pipeline(ct, DPLSSGDClassifier(classes=[0, 1]), epsilon=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        cost = total_privacy_cost(pipe.fit(df, y))
    declared = [(item.step, item.name, item.how) for item in cost.public
                if item.how.startswith("declared")]
    assert declared == [
        ("columntransformer/num", "bounds", "declared: bounds=(-5, 5)"),
        ("columntransformer/cat", "categories", "declared: one list per feature"),
        ("dplssgdclassifier", "classes", "declared: classes=[0, 1]"),
    ]
    # the private preprocessors publish nothing computed from the exact number of rows
    assert [item.step for item in cost.public if item.name == "number of rows"] in (
        [], ["dplssgdclassifier"])
