"""PATE's forecast from public numbers (issue 30's cases), before any teacher is trained."""

import re
import warnings

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from skprivate.exceptions import UtilityWarning
from skprivate.pate import PATEClassifier
from skprivate.pate._calibration import auto_n_teachers

pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")

_rng = np.random.default_rng(0)
X = _rng.normal(size=(1300, 5))
y = (X[:, 0] + _rng.normal(size=1300) > 0).astype(int)


class _Untrainable(DecisionTreeClassifier):
    """A teacher whose fit fails: a warning seen before the failure came before training."""

    def fit(self, X, y, sample_weight=None):
        raise RuntimeError("a teacher was trained")


def _utility(record):
    return [str(w.message) for w in record if issubclass(w.category, UtilityWarning)]


def test_default_pate_on_700_rows_forecasts_before_training():
    # The issue: PATEClassifier() at its default epsilon 1 on a 700-row table scored below
    # the majority class without a word.
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="a teacher was trained"):
            PATEClassifier(_Untrainable(), classes=[0, 1], random_state=0).fit(
                X[:700], y[:700], X_public=X[700:]
            )
    (message,) = _utility(record)
    assert "teachers sees about" in message and "fewer than 30" in message
    assert "DPLSSGDClassifier(epsilon=1)" in message
    rows = int(re.search(r"about ([\d,]+) rows at epsilon=1", message)[1].replace(",", ""))
    # The rows named leave the region: about 30 rows for each of the auto teachers.
    assert rows / auto_n_teachers(rows) >= 30 > (rows - 1) / auto_n_teachers(rows - 1)


def test_explicit_n_queries_cut_by_the_budget_is_announced():
    # The issue: noise_scale=20, n_queries=500 under epsilon=1 answered 10 queries silently.
    clf = PATEClassifier(
        DecisionTreeClassifier(max_depth=3), noise_scale=20, n_queries=500, classes=[0, 1],
        random_state=0,
    )
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        clf.fit(X[:700], y[:700], X_public=X[700:])
    cut = [m for m in _utility(record) if "pays for only" in m]
    assert len(cut) == 1
    asked = int(re.search(r"pays for only (\d+) of the n_queries=500", cut[0])[1])
    assert asked == clf.n_queries_ < 500
    # the epsilon it names pays for the 500 answers at that noise (count share included)
    eps = float(re.search(r"raise epsilon to about ([\d.]+)", cut[0])[1])
    assert eps > 1.0


def test_no_forecast_when_the_plan_is_in_the_useful_region():
    # 2,500 rows public (no count), epsilon 4: 75 teachers of 33 rows, many answers.
    big = np.repeat(X, 2, axis=0)[:2500]
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="a teacher was trained"):
            PATEClassifier(
                _Untrainable(), epsilon=4.0, classes=[0, 1], n_samples_public=True,
                random_state=0,
            ).fit(big, np.repeat(y, 2)[:2500], X_public=X[:600])
    assert _utility(record) == []
