"""public_inputs: what a fit's guarantee takes as known without the rows, in every report."""

import warnings

import numpy as np
import pytest

from skprivate._row_count import count_report, release_row_count
from skprivate.accounting import PublicInput, public_inputs
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.preprocessing import OneHotEncoder, RobustScaler, SimpleImputer, StandardScaler

rng = np.random.default_rng(0)
X = rng.normal(size=(200, 2))
y = (X[:, 0] > 0).astype(int)


def _names(est, report=None):
    return [item.name for item in public_inputs(est, report)]


def test_the_row_count_entry_is_read_as_count_report_writes_it():
    """The wording of skprivate._row_count.count_report is what public_inputs reads: a change
    there fails here rather than turning a public number of rows into a silent one."""
    est = DPLSSGDClassifier(classes=[0, 1])
    noisy = release_row_count(500, 1.0, public=False, rng=np.random.default_rng(0))
    public = release_row_count(500, 1.0, public=True, rng=None)
    assert "number of rows" not in _names(est, count_report(noisy))
    [item] = [i for i in public_inputs(est, count_report(public)) if i.name == "number of rows"]
    assert item.how == count_report(public)["number of rows"]
    # a report without the entry: the exact number was read, so it is public
    [item] = [i for i in public_inputs(est, {}) if i.name == "number of rows"]
    assert item.how.startswith("read exactly, so treated as public")


def test_declared_parameters_and_public_points():
    assert _names(DPLSSGDClassifier(), {}) == ["columns", "number of rows"]
    assert _names(DPLSSGDClassifier(classes=["a", "b"]), {})[-1] == "classes"
    assert str(public_inputs(StandardScaler(bounds=(np.zeros(9), np.ones(9))), {})[-1]) == (
        "bounds (declared: bounds=(array of 9, array of 9))")
    from skprivate.pate import PATEClassifier

    assert "public points" in _names(PATEClassifier(classes=[0, 1]), {})
    assert str(PublicInput("classes", "declared", step="clf")) == "clf: classes (declared)"


def test_every_private_preprocessor_report_says_what_it_takes_as_public():
    fits = [StandardScaler(bounds=(-5, 5)), RobustScaler(bounds=(-5, 5)),
            SimpleImputer(bounds=(-5, 5)), SimpleImputer(strategy="constant"),
            OneHotEncoder(categories=[[0.0, 1.0], [0.0, 1.0]])]
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        for est in fits:
            est.fit(X)
    # none computes a released value from the exact number of rows
    assert [[i.name for i in est.privacy_report_["public"]] for est in fits] == [
        ["columns", "bounds"], ["columns", "bounds"], ["columns", "bounds"], ["columns"],
        ["columns", "categories"]]
    assert "public" in str(fits[0].privacy_report_)


def test_a_private_search_lists_its_candidates_declared_inputs():
    from sklearn.pipeline import make_pipeline

    from skprivate.model_selection import PrivateRandomSearchCV

    search = PrivateRandomSearchCV(
        make_pipeline(StandardScaler(bounds=(-5, 5)), DPLSSGDClassifier(classes=[0, 1])),
        {"dplssgdclassifier__learning_rate": [0.5, 1.0]},
    )
    names = _names(search, {})
    assert "standardscaler: bounds" in names and "dplssgdclassifier: classes" in names


@pytest.mark.parametrize("classes", [None, [0, 1]])
def test_a_fitted_estimator_report_has_the_public_entry(classes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        clf = DPLSSGDClassifier(classes=classes, max_iter=5).fit(X, y)
    names = [item.name for item in clf.privacy_report_["public"]]
    assert names[0] == "columns" and ("classes" in names) == (classes is not None)
    assert clf.privacy_report_["neighbouring"] == "add/remove one row"
