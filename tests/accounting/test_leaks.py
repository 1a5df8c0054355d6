"""leaking_steps names every step fitted on the private rows outside a guarantee."""

import numpy as np
import pytest
from sklearn.compose import ColumnTransformer, TransformedTargetRegressor, make_column_transformer
from sklearn.decomposition import PCA
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import FeatureUnion, Pipeline, make_pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    OneHotEncoder,
    OrdinalEncoder,
    StandardScaler,
)
from sklearn.base import BaseEstimator, TransformerMixin

from skprivate.accounting import LeakingStep, leaking_steps
from skprivate.linear_model import DPLSSGDClassifier


class _Custom(TransformerMixin, BaseEstimator):
    def fit(self, X, y=None):
        self.mean_ = np.mean(X, axis=0)
        return self

    def transform(self, X):
        return np.asarray(X) - self.mean_


class _DeclaredIndependent(_Custom):
    _skprivate_data_independent = True


def _paths(est):
    return [s.path for s in leaking_steps(est)]


def test_issue_pipeline_names_the_scaler_and_the_auto_encoder():
    pipe = make_pipeline(
        ColumnTransformer([
            ("num", make_pipeline(SimpleImputer(), StandardScaler()), [0, 1]),
            ("cat", OneHotEncoder(), [2]),
        ]),
        DPLSSGDClassifier(epsilon=1.0, classes=[0, 1]),
    )
    steps = leaking_steps(pipe)
    assert [s.path for s in steps] == [
        "columntransformer/num/simpleimputer",
        "columntransformer/num/standardscaler",
        "columntransformer/cat",
    ]
    assert all(isinstance(s, LeakingStep) and not s.fitted for s in steps)
    assert "make_bounded_preprocessor" in steps[1].remedy
    assert "categories" in steps[2].remedy
    assert "columntransformer/num/standardscaler" in steps[1].caveat


def test_silent_steps():
    pipe = make_pipeline(
        make_column_transformer(
            (FunctionTransformer(np.log1p), [0]),
            (OneHotEncoder(categories=[["a", "b"]]), [1]),
            (OrdinalEncoder(categories=[["x", "y"]]), [2]),
            (SimpleImputer(strategy="constant", fill_value=0.0), [3]),
            (_DeclaredIndependent(), [4]),
            ("passthrough", [5]),
            remainder="drop",
        ),
        DPLSSGDClassifier(classes=[0, 1]),
    )
    assert leaking_steps(pipe) == []
    assert leaking_steps("passthrough") == [] and leaking_steps(None) == []


def test_unknown_transformers_and_plain_models_leak():
    pipe = Pipeline([("mine", _Custom()), ("pca", PCA()), ("clf", LogisticRegression())])
    assert _paths(pipe) == ["mine", "pca", "clf"]
    # declared categories with a frequency threshold still count the rows
    assert _paths(OneHotEncoder(categories=[["a"]], min_frequency=5)) == ["onehotencoder"]


def test_feature_union_remainder_and_target_transformer():
    union = FeatureUnion([("a", StandardScaler()), ("b", FunctionTransformer())])
    assert _paths(union) == ["a"]
    ct = ColumnTransformer([("f", FunctionTransformer(), [0])], remainder=StandardScaler())
    assert _paths(ct) == ["remainder"]
    ttr = TransformedTargetRegressor(regressor=LogisticRegression(), transformer=StandardScaler())
    assert _paths(ttr) == ["regressor", "transformer"]


def test_fitted_pipeline_is_marked_fitted():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 3)), rng.integers(0, 2, 200)
    pipe = make_pipeline(StandardScaler(),
                         DPLSSGDClassifier(epsilon=1.0, random_state=0, classes=[0, 1]))
    with pytest.warns(Warning):  # the seed caveat of the DP step
        pipe.fit(X, y)
    [step] = leaking_steps(pipe)
    assert step.fitted and step.estimator is pipe.steps[0][1]
    assert step.caveat.code == "preprocessing_learned"


def test_sklearn_search_is_itself_a_leak_and_its_candidates_are_walked():
    search = GridSearchCV(make_pipeline(StandardScaler(), DPLSSGDClassifier(classes=[0, 1])),
                          {"dplssgdclassifier__epsilon": [0.5, 1.0]})
    assert _paths(search) == ["gridsearchcv", "estimator/standardscaler"]


def test_private_search_candidates_are_walked():
    from skprivate.model_selection import PrivateRandomSearchCV

    search = PrivateRandomSearchCV(
        make_pipeline(StandardScaler(), DPLSSGDClassifier(classes=[0, 1])),
        {"dplssgdclassifier__learning_rate": [0.5, 1.0]},
    )
    assert _paths(search) == ["estimator/standardscaler"]
    from skprivate.preprocessing import StandardScaler as PrivateScaler

    assert leaking_steps(make_pipeline(PrivateScaler(bounds=(0, 1)),
                                       DPLSSGDClassifier(classes=[0, 1]))) == []
    # a private step that reads its bounds, inside the candidates: named once, at the step
    search = PrivateRandomSearchCV(
        make_pipeline(PrivateScaler(), DPLSSGDClassifier(classes=[0, 1])),
        {"dplssgdclassifier__learning_rate": [0.5, 1.0]},
    )
    [step] = leaking_steps(search)
    assert step.path == "estimator/standardscaler" and step.caveat.code == "bounds_from_data"


# --- finding 4: a private step whose guarantee is void is a leak -------------------------------
rng = np.random.default_rng(0)
X = rng.normal(size=(300, 3))
y = (X[:, 0] > 0).astype(int)


def _fit_quiet(est, *args):
    with pytest.warns(Warning):  # the caveats of the fit itself
        return est.fit(*args)


def _codes(est):
    return [(s.path, s.caveat.code) for s in leaking_steps(est)]


def test_private_preprocessors_reading_bounds_from_the_rows_are_leaks():
    """The issue: skprivate.preprocessing.StandardScaler() with the default bounds=None reads
    min and max from the rows, yet no leak was listed; before its fit (from its parameters)
    and after (from its report's caveat codes)."""
    from skprivate.preprocessing import RobustScaler
    from skprivate.preprocessing import SimpleImputer as PrivateImputer
    from skprivate.preprocessing import StandardScaler as PrivateScaler

    pipe = make_pipeline(PrivateScaler(), DPLSSGDClassifier(classes=[0, 1]))
    assert _codes(pipe) == [("standardscaler", "bounds_from_data")]
    [step] = leaking_steps(pipe)
    assert not step.fitted and "bounds=(lower, upper)" in step.caveat
    assert "standardscaler" in step.caveat and "epsilon_" in step.caveat
    _fit_quiet(pipe, X, y)
    [step] = leaking_steps(pipe)
    assert step.fitted and step.caveats == tuple(pipe[0].privacy_report_["caveats"])
    assert _codes(make_pipeline(RobustScaler(), PrivateImputer(), PrivateScaler(bounds=(0, 1)),
                                DPLSSGDClassifier(classes=[0, 1]))) == [
        ("robustscaler", "bounds_from_data"), ("simpleimputer", "bounds_from_data")]
    # a constant fill reads nothing, whatever its bounds
    assert leaking_steps(PrivateImputer(strategy="constant")) == []


def test_a_fitted_step_is_judged_by_its_report_codes_not_its_parameters():
    from skprivate.preprocessing import StandardScaler as PrivateScaler

    scaler = _fit_quiet(PrivateScaler(), X)
    scaler.set_params(bounds=(-5, 5))  # declared now, but the fitted bounds_ were read
    assert _codes(scaler) == [("standardscaler", "bounds_from_data")]
    scaler = PrivateScaler(bounds=(-5, 5), random_state=0)
    _fit_quiet(scaler, X)  # the seed caveat qualifies the guarantee but does not void it
    assert scaler.privacy_report_.caveat_codes == ["seed_fixed"]
    assert leaking_steps(scaler.set_params(bounds=None)) == []


def test_classes_read_from_the_labels_are_a_leak():
    clf = DPLSSGDClassifier(epsilon=1.0)
    assert _codes(clf) == [("dplssgdclassifier", "labels_from_data")]
    assert "will be read" in leaking_steps(clf)[0].caveat
    _fit_quiet(clf, X, y)
    [step] = leaking_steps(clf)
    assert step.fitted and "[0, 1]" in step.caveat

