"""The private OneHotEncoder never drops every category silently (issue 30's case)."""

import re
import warnings

import numpy as np
import pytest
from sklearn.compose import ColumnTransformer

from skprivate.exceptions import UtilityWarning
from skprivate.preprocessing import OneHotEncoder
from skprivate.preprocessing._encoders import histogram_threshold

pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")

# A credit-like table: 700 rows, 13 categorical columns of 2 to 5 values.
_rng = np.random.default_rng(0)
X_cat = np.column_stack([
    _rng.choice([f"v{k}" for k in range(2 + j % 4)], size=700) for j in range(13)
]).astype(object)


def _utility(record):
    return [str(w.message) for w in record if issubclass(w.category, UtilityWarning)]


def test_13_columns_at_epsilon_0_1_on_700_rows_say_nothing_was_kept():
    enc = OneHotEncoder(epsilon=0.1, random_state=0)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        enc.fit(X_cat)
    assert all(len(c) == 0 for c in enc.categories_) and enc.threshold_ == 2041
    (message,) = _utility(record)
    assert "kept no category in 13 of 13 features" in message
    assert "threshold_=2,041" in message and "declare the categories" in message
    assert enc.privacy_report_["features with no category kept"] == 13


def test_a_public_row_count_below_the_threshold_is_forecast_before_reading():
    enc = OneHotEncoder(epsilon=0.1, random_state=0)
    enc._public_n_samples = 700  # what a private search sets when it planned on the rows
    X_bad = X_cat.copy()
    X_bad[0, 0] = 1.5  # not comparable with str: reading the values would raise
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with pytest.raises(TypeError, match="cannot be compared"):
            enc.fit(X_bad)
    (message,) = _utility(record)
    assert "more than the 700 rows" in message
    eps = float(re.search(r"epsilon of about ([\d.]+) on these rows", message)[1])
    # at that epsilon (printed to 3 digits) a value held by half the rows reaches the
    # threshold; just below, not
    assert histogram_threshold(13 / (eps * 1.01), 1e-6 / 13)[0] <= 350
    assert histogram_threshold(13 / (eps * 0.99), 1e-6 / 13)[0] > 350


def test_no_warning_when_every_feature_keeps_a_category():
    enc = OneHotEncoder(epsilon=5.0, random_state=0)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        enc.fit(X_cat)
    assert all(len(c) for c in enc.categories_) and _utility(record) == []
    assert enc.privacy_report_["features with no category kept"] == 0


def test_inside_a_column_transformer_the_warning_reaches_the_user():
    enc = OneHotEncoder(epsilon=0.1, sparse_output=False, random_state=0)
    ct = ColumnTransformer([("cat", enc, slice(0, 13))])
    with pytest.warns(UtilityWarning, match="kept no category"):
        ct.fit(X_cat)


def test_getting_started_recipe_on_a_700_row_table_is_not_silent():
    # The replay: make_private_pipeline(ColumnTransformer([StandardScaler(bounds),
    # OneHotEncoder()]), DPLSSGDClassifier(...), epsilon=1) on 700 rows, 13 categorical and
    # 7 numeric columns: the encoder's share is epsilon 0.1 and it keeps nothing.
    from skprivate import DPLSSGDClassifier
    from skprivate.preprocessing import StandardScaler, make_private_pipeline

    rng = np.random.default_rng(1)
    X_num = rng.normal(size=(700, 7))
    X = np.column_stack([X_num, X_cat]).astype(object)
    y = (X_num[:, 0] + rng.normal(size=700) > 0).astype(int)
    preprocess = ColumnTransformer([
        ("numeric", StandardScaler(bounds=(-4.0, 4.0)), list(range(7))),
        ("categories", OneHotEncoder(sparse_output=False), list(range(7, 20))),
    ])
    model = make_private_pipeline(
        preprocess, DPLSSGDClassifier(classes=[0, 1], random_state=0), epsilon=1.0,
        delta=1e-6,
    )
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        model.fit(X, y)
    messages = _utility(record)
    assert any("kept no category in 13 of 13 features" in m for m in messages)
