"""make_private_pipeline: one budget split across the private steps, leaks named."""

import warnings

import numpy as np
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler as SkStandardScaler

from skprivate.accounting import BudgetAccountant, leaking_steps
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.preprocessing import (
    BoundedScaler,
    OneHotEncoder,
    SimpleImputer,
    StandardScaler,
    make_bounded_preprocessor,
    make_private_pipeline,
)

rng = np.random.default_rng(0)
X = rng.normal(size=(400, 3))
y = (X[:, 0] > 0).astype(int)


def test_split_follows_the_documented_share():
    pipe = make_private_pipeline(SimpleImputer(bounds=(-5, 5)), StandardScaler(bounds=(-5, 5)),
                                 DPLSSGDClassifier(classes=[0, 1]), epsilon=2.0, delta=1e-5)
    eps = [step.epsilon for _, step in pipe.steps]
    assert eps == pytest.approx([0.2, 0.2, 1.6])
    assert sum(step.delta for _, step in pipe.steps) == pytest.approx(1e-5)
    custom = make_private_pipeline(StandardScaler(bounds=(-5, 5)),
                                   DPLSSGDClassifier(classes=[0, 1]),
                                   epsilon=1.0, preprocessing_share=0.3)
    assert [s.epsilon for _, s in custom.steps] == pytest.approx([0.3, 0.7])


def test_free_steps_get_no_share_and_originals_are_untouched():
    scaler = StandardScaler(bounds=(-5, 5))
    pipe = make_private_pipeline(
        ColumnTransformer([("num", scaler, [0, 1]),
                           ("cat", OneHotEncoder(categories=[[0.0, 1.0]]), [2])]),
        DPLSSGDClassifier(classes=[0, 1]), epsilon=1.0,
    )
    assert pipe[0].transformers[0][1].epsilon == pytest.approx(0.2)
    assert pipe[-1].epsilon == pytest.approx(0.8)
    assert scaler.epsilon == 0.1 and pipe[0].transformers[0][1] is not scaler
    only_free = make_private_pipeline(BoundedScaler(bounds=(-5, 5)),
                                      DPLSSGDClassifier(classes=[0, 1]), epsilon=1.0)
    assert only_free[-1].epsilon == 1.0


def test_accountant_sees_every_step():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    pipe = make_private_pipeline(StandardScaler(bounds=(-5, 5)),
                                 DPLSSGDClassifier(classes=[0, 1]),
                                 epsilon=1.0, delta=1e-5, accountant=acc)
    pipe.fit(X, y)
    assert [s.label for s in acc.spends] == ["StandardScaler", "DPLSSGDClassifier"]
    assert acc.total()[0] <= 1.0
    with pytest.raises(Exception, match="budget"):
        pipe.fit(X, y)  # a second fit does not fit in the same budget


def test_a_leaking_step_is_named_at_construction():
    with pytest.warns(PrivacyLeakWarning, match="'standardscaler'"):
        make_private_pipeline(SkStandardScaler(), DPLSSGDClassifier(), epsilon=1.0)
    with pytest.raises(TypeError, match="last step"):
        make_private_pipeline(StandardScaler(), LogisticRegression())
    with pytest.raises(ValueError, match="preprocessing_share"):
        make_private_pipeline(DPLSSGDClassifier(), preprocessing_share=1.5)


def test_bounded_preprocessor_learns_nothing():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"age": [20.0, 95.0, np.nan], "gain": [0.0, 1e6, 10.0],
                       "sex": ["F", "M", "?"]})
    prep = make_bounded_preprocessor(
        numeric={"age": (17, 90), "gain": (0, 99999)}, categorical={"sex": ["F", "M"]},
        log1p=["gain"], fill_value={"age": 40.0},
    )
    assert leaking_steps(prep) == []
    out = prep.fit_transform(df)
    assert out[:, :2].tolist() == [[1, 0], [0, 1], [0, 0]]
    assert out[:, 2] == pytest.approx([3 / 73, 1.0, 23 / 73])
    assert out[:, 3] == pytest.approx([0.0, 1.0, np.log1p(10) / np.log1p(99999)])
    # the same transformer whatever rows it is fitted on
    other = make_bounded_preprocessor(
        numeric={"age": (17, 90), "gain": (0, 99999)}, categorical={"sex": ["F", "M"]},
        log1p=["gain"], fill_value={"age": 40.0},
    ).fit(df.iloc[:1])
    assert other.transform(df) == pytest.approx(out)
    with pytest.raises(ValueError, match="not in numeric"):
        make_bounded_preprocessor(numeric={"age": (17, 90)}, log1p=["sex"])


# --- finding 4: a step that overrides its share is refused; a void private step is a leak ------
class _NoData:
    """Fails the test if anything reads it: the refusal comes before any data."""

    shape = property(lambda self: pytest.fail("the data were read"))


def test_a_step_whose_parameters_override_its_share_is_refused_by_name():
    """The issue: make_private_pipeline(..., epsilon=1) whose last step was given
    noise_multiplier= silently totalled 576."""
    from skprivate.exceptions import InfeasiblePrivacyError

    original = DPLSSGDClassifier(classes=[0, 1], noise_multiplier=0.3)
    with pytest.raises(InfeasiblePrivacyError,
                       match=r"step 'dplssgdclassifier' \(DPLSSGDClassifier\) was given "
                             r"noise_multiplier=0.3.*leave it None"):
        make_private_pipeline(StandardScaler(bounds=(-5, 5)), original, epsilon=1.0)
    assert original.noise_multiplier == 0.3 and original.epsilon == 1.0  # untouched
    # an explicit budget that the split would replace without a word
    with pytest.raises(InfeasiblePrivacyError,
                       match=r"step 'columntransformer/num' \(StandardScaler\) was given "
                             r"epsilon=0.5, but the pipeline assigns it epsilon=0.4"):
        make_private_pipeline(
            ColumnTransformer([("num", StandardScaler(bounds=(-5, 5), epsilon=0.5), [0])]),
            DPLSSGDClassifier(classes=[0, 1]), epsilon=2.0)
    with pytest.raises(InfeasiblePrivacyError, match=r"given delta=0.001"):
        make_private_pipeline(DPLSSGDClassifier(classes=[0, 1], delta=1e-3), epsilon=1.0)
    # the default, or the very value assigned, is not an override
    pipe = make_private_pipeline(StandardScaler(bounds=(-5, 5), epsilon=0.2),
                                 DPLSSGDClassifier(classes=[0, 1], epsilon=1.0), epsilon=1.0)
    assert [s.epsilon for _, s in pipe.steps] == pytest.approx([0.2, 0.8])


def test_pate_without_a_budget_is_refused():
    from skprivate.exceptions import InfeasiblePrivacyError
    from skprivate.pate import PATEClassifier

    with pytest.raises(InfeasiblePrivacyError, match=r"'pateclassifier'.*epsilon=None"):
        make_private_pipeline(PATEClassifier(epsilon=None), epsilon=1.0)


def test_a_private_step_reading_its_bounds_is_named_at_construction():
    with pytest.warns(PrivacyLeakWarning, match="'standardscaler'") as record:
        pipe = make_private_pipeline(StandardScaler(), DPLSSGDClassifier(classes=[0, 1]),
                                     epsilon=1.0)
    assert "bounds=(lower, upper)" in str(record[0].message)
    assert [s.caveat.code for s in leaking_steps(pipe)] == ["bounds_from_data"]
    with pytest.warns(PrivacyLeakWarning, match="'dplssgdclassifier'.*classes=None"):
        make_private_pipeline(StandardScaler(bounds=(-5, 5)), DPLSSGDClassifier(), epsilon=1.0)


def test_a_step_that_fixes_its_loss_under_another_name_is_refused_by_its_plan():
    from skprivate.exceptions import InfeasiblePrivacyError
    from tests._doubles import NoisyMeanRegressor

    class FixedNoise(NoisyMeanRegressor):  # a user's own estimator: the noise is "sigma"
        def __init__(self, sigma=2.0, batch_size=20, epsilon=1.0, delta=1e-5,
                     accountant=None, random_state=None):
            super().__init__(sigma, batch_size, epsilon, delta, accountant, random_state)
            self.sigma = sigma

        def _privacy_plan(self, n_samples):
            self.noise_multiplier = self.sigma
            return super()._privacy_plan(n_samples)

    with pytest.raises(InfeasiblePrivacyError,
                       match=r"step 'fixednoise' \(FixedNoise\) plans to spend epsilon="):
        make_private_pipeline(StandardScaler(bounds=(-5, 5)), FixedNoise(sigma=1.0), epsilon=1.0)
