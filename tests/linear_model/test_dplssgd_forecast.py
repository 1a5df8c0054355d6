"""DP-LSSGD's forecast: rows x epsilon too small for the dimension (public numbers only)."""

import re
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

from skprivate.exceptions import UtilityWarning
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.linear_model._dplssgd_base import _FORECAST_ROWS_EPSILON

pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")

X_bc, y_bc = load_breast_cancer(return_X_y=True)
X_bc = StandardScaler().fit_transform(X_bc)


def _fit(n, epsilon, **params):
    clf = DPLSSGDClassifier(epsilon=epsilon, classes=[0, 1], random_state=0, **params)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        clf.fit(X_bc[:n], y_bc[:n])
    return [str(w.message) for w in record if issubclass(w.category, UtilityWarning)]


def test_too_few_rows_times_epsilon_for_the_dimension_warns_with_the_way_out():
    # 50 rows at epsilon 0.1 on breast cancer's 30 features: 50 x 0.1 / 30 = 0.17, where
    # the measured accuracy was below the majority class's.
    (message,) = _fit(50, 0.1, n_samples_public=True)
    assert "50 rows (the count planned on) x epsilon=0.1" in message
    assert "30 features" in message and "DummyClassifier" in message
    rows = int(re.search(r"about ([\d,]+) rows at epsilon=0.1", message)[1].replace(",", ""))
    eps = float(re.search(r"epsilon of about ([\d.]+) on these rows", message)[1])
    assert rows == int(np.ceil(_FORECAST_ROWS_EPSILON * 30 / 0.1))  # 60
    assert eps == pytest.approx(_FORECAST_ROWS_EPSILON * 30 / 50, rel=1e-6)


def test_the_rows_named_leave_the_region():
    assert _fit(60, 0.1, n_samples_public=True) == []
    assert _fit(400, 1.0) == []  # the benchmarks' breast cancer case: no false alarm


def test_the_dask_fit_forecasts_too():
    da = pytest.importorskip("dask.array")
    clf = DPLSSGDClassifier(epsilon=0.1, classes=[0, 1], n_samples_public=True, random_state=0)
    with pytest.warns(UtilityWarning, match="50 rows"):
        clf.fit(da.from_array(X_bc[:50], chunks=25), da.from_array(y_bc[:50], chunks=25))
