"""Names renamed in 0.1: each old name still works, warns (FutureWarning), gives the same result.

One test per rename (see "Names, compared with scikit-learn" in docs/api.rst); each would fail
if the old name were dropped (a TypeError) or silently ignored (a different result, or no
warning).
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from skprivate.accounting import dpsgd_epsilon, dpsgd_noise_multiplier
from skprivate.gems import GEMSCombiner, good_enough_space
from skprivate.model_selection import PrivateGridSearchCV, PrivateRandomSearchCV
from tests._doubles import NoisyMajorityClassifier


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _no_future_warning(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        return call()


@pytest.mark.parametrize("accounting", ["rdp", "pld"])
def test_dpsgd_epsilon_accountant_is_now_accounting(accounting):
    new = _no_future_warning(lambda: dpsgd_epsilon(1.0, 0.01, 300, 1e-5, accounting=accounting))
    with pytest.warns(FutureWarning, match="accountant= was renamed accounting="):
        old = dpsgd_epsilon(1.0, 0.01, 300, 1e-5, accountant=accounting)
    assert old == new
    # "rdp" and "pld" differ here, so the old keyword is not silently ignored
    assert dpsgd_epsilon(1.0, 0.01, 300, 1e-5, accounting="rdp") != dpsgd_epsilon(
        1.0, 0.01, 300, 1e-5, accounting="pld"
    )


def test_dpsgd_noise_multiplier_accountant_is_now_accounting():
    new = _no_future_warning(lambda: dpsgd_noise_multiplier(1.0, 0.01, 300, 1e-5, accounting="pld"))
    with pytest.warns(FutureWarning, match="accountant= was renamed accounting="):
        old = dpsgd_noise_multiplier(1.0, 0.01, 300, 1e-5, accountant="pld")
    assert old == new != dpsgd_noise_multiplier(1.0, 0.01, 300, 1e-5)


def test_positional_accounting_still_works_without_warning():
    value = _no_future_warning(lambda: dpsgd_epsilon(1.0, 0.01, 300, 1e-5, "pld"))
    assert value == dpsgd_epsilon(1.0, 0.01, 300, 1e-5, accounting="pld")


def test_both_names_at_once_are_refused():
    with pytest.raises(TypeError, match="both accounting='pld' and accountant='rdp'"):
        dpsgd_epsilon(1.0, 0.01, 300, 1e-5, accounting="pld", accountant="rdp")


def test_gems_combiner_n_samples_is_now_n_directions(cancer):
    X, y = cancer
    X, y = X[:300], y[:300]
    groups = np.repeat([0, 1], 150)
    new = _no_future_warning(
        lambda: GEMSCombiner(n_directions=20, random_state=0).fit(X, y, groups)
    )
    with pytest.warns(FutureWarning, match="n_samples= was renamed n_directions="):
        old = GEMSCombiner(n_samples=20, random_state=0).fit(X, y, groups)
    np.testing.assert_array_equal(old.coef_, new.coef_)


def test_good_enough_space_n_samples_is_now_n_directions(cancer):
    X, y = cancer

    def space(**kwargs):
        return good_enough_space(
            LogisticRegression(), X[:200], y[:200], epsilon=0.3, random_state=0, **kwargs
        )

    new = _no_future_warning(lambda: space(n_directions=30))
    with pytest.warns(FutureWarning, match="n_samples= was renamed n_directions="):
        old = space(n_samples=30)
    assert new.n_directions == old.n_directions == 30
    np.testing.assert_array_equal(old.radii, new.radii)
    # the record's field: the old attribute name reads the new one, with a warning
    with pytest.warns(FutureWarning, match="n_samples was renamed n_directions"):
        assert new.n_samples == 30


# random_state=0 makes every fit warn that the seed is public: expected here.
pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")


def _search(cls, **kwargs):
    space = {}
    space_name = "param_grid" if cls is PrivateGridSearchCV else "param_distributions"
    return cls(
        NoisyMajorityClassifier(), **{space_name: space}, epsilon=1.0, mean_candidates=3,
        random_state=0, **kwargs,
    )


@pytest.mark.parametrize("cls", [PrivateGridSearchCV, PrivateRandomSearchCV])
def test_search_n_candidates_is_now_n_candidates_distribution(cls, cancer):
    X, y = cancer
    new = _no_future_warning(
        lambda: _search(cls, n_candidates_distribution="geometric").fit(X, y)
    )
    with pytest.warns(FutureWarning, match="n_candidates= was renamed n_candidates_distribution="):
        old = _search(cls, n_candidates="geometric").fit(X, y)
    assert old.per_run_epsilon_ == new.per_run_epsilon_
    assert old.best_score_noisy_ == new.best_score_noisy_
    # the distribution matters to the calibration: the old name is not ignored
    other = _search(cls, n_candidates_distribution="logarithmic").fit(X, y)
    assert new.per_run_epsilon_ != other.per_run_epsilon_


@pytest.mark.parametrize("cls", [PrivateGridSearchCV, PrivateRandomSearchCV])
def test_search_cv_is_now_validation_fraction(cls, cancer):
    # scikit-learn's cv is a number of folds or a splitter; its name for a held-out
    # fraction is validation_fraction
    X, y = cancer
    # the exact number of rows declared public, so that the sizes below are exact
    geometric = {"n_candidates_distribution": "geometric", "n_samples_public": True}
    new = _no_future_warning(
        lambda: _search(cls, validation_fraction=0.5, **geometric).fit(X, y)
    )
    with pytest.warns(FutureWarning, match="cv= was renamed validation_fraction="):
        old = _search(cls, cv=0.5, **geometric).fit(X, y)
    assert old.best_score_noisy_ == new.best_score_noisy_
    assert old.privacy_report_["expected_validation_rows"] == pytest.approx(0.5 * len(y))
    default = _search(cls, **geometric).fit(X, y)
    assert default.privacy_report_["expected_validation_rows"] == pytest.approx(0.2 * len(y))
    with pytest.raises(TypeError, match="Pass validation_fraction= only"):
        _search(cls, validation_fraction=0.3, cv=0.5).fit(X, y)


@pytest.mark.parametrize("cv", [5, pytest.param("splitter", id="splitter")])
def test_search_cv_refuses_folds_with_the_reason(cv, cancer):
    from sklearn.model_selection import ShuffleSplit

    X, y = cancer
    value = ShuffleSplit(n_splits=1) if cv == "splitter" else cv
    with pytest.raises(ValueError, match="one random split.*pass validation_fraction="):
        _search(PrivateGridSearchCV, cv=value).fit(X, y)
