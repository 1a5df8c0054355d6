"""Hostile input to the private transformers: clear errors that name the problem."""

import warnings

import numpy as np
import pytest

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.preprocessing import (
    BoundedScaler,
    OneHotEncoder,
    RobustScaler,
    SimpleImputer,
    StandardScaler,
)

X = np.random.default_rng(0).uniform(size=(50, 3))
NUMERIC = [StandardScaler(bounds=(0, 1)), RobustScaler(bounds=(0, 1)),
           SimpleImputer(bounds=(0, 1)), BoundedScaler(bounds=(0, 1))]


@pytest.mark.parametrize("est", NUMERIC + [OneHotEncoder()], ids=type)
def test_empty_and_wrong_width(est):
    with pytest.raises(ValueError, match="0 sample"):
        est.fit(X[:0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        est.fit(X)
    with pytest.raises(ValueError, match="features"):
        est.transform(X[:, :2])


@pytest.mark.parametrize("est", NUMERIC, ids=type)
def test_infinity_and_text_are_refused_by_name(est):
    with pytest.raises(ValueError, match="(?i)infinity"):
        est.fit(np.where(np.eye(50, 3, dtype=bool), np.inf, X))
    with pytest.raises(ValueError, match="could not be read as a number"):
        est.fit(np.array([["a", 1.0]], dtype=object))


def test_nan_is_refused_where_it_cannot_be_handled():
    X_nan = np.where(np.eye(50, 3, dtype=bool), np.nan, X)
    for est in (StandardScaler(bounds=(0, 1)), RobustScaler(bounds=(0, 1))):
        with pytest.raises(ValueError, match="NaN"):
            est.fit(X_nan)


def test_mixed_types_in_a_category_column():
    bad = np.array([["a"], [1.5], ["b"]], dtype=object)
    with pytest.raises(TypeError, match="feature 0"):
        OneHotEncoder(epsilon=1.0).fit(bad)


@pytest.mark.parametrize("est", NUMERIC + [OneHotEncoder()], ids=type)
def test_pickle_keeps_output_and_privacy_and_no_generator(est):
    import pickle

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        est.fit(X)
    blob = pickle.dumps(est)
    copy = pickle.loads(blob)
    out, again = est.transform(X), copy.transform(X)
    out = out.toarray() if hasattr(out, "toarray") else out
    again = again.toarray() if hasattr(again, "toarray") else again
    np.testing.assert_array_equal(out, again)
    for attribute in ("epsilon_", "delta_"):
        assert getattr(copy, attribute, None) == getattr(est, attribute, None)
    assert b"PCG64" not in blob and b"numpy.random" not in blob
