"""The shared forecast mechanism (skprivate._forecast), and the dropout forecast through it.

The estimators' forecasts are tested in their families' folders (test_encoder_forecast,
test_pate_forecast, test_dplssgd_forecast); here the search for the way out and the text.
"""

import pytest
from sklearn.base import BaseEstimator

from skprivate._forecast import value_needed, warn_forecast, way_out_text
from skprivate.dropout import DPDropoutClassifier
from skprivate.dropout._chance import alternative_text
from skprivate.exceptions import UtilityWarning


def test_value_needed_finds_the_smallest_value_that_reaches_the_threshold():
    # rows x epsilon / 30 >= 0.2 needs 60 rows at epsilon 0.1, and epsilon 0.3 on 20 rows
    assert value_needed(lambda n: n * 0.1 / 30, 0.2, 10, integer=True) == 60
    assert value_needed(lambda e: 20 * e / 30, 0.2, 0.1) == pytest.approx(0.3, rel=1e-9)
    # decreasing quantities (a noise-to-signal ratio): the value at which it falls to 0.5
    assert value_needed(lambda n: 100.0 / n, 0.5, 10, increasing=False, integer=True) == 200
    # out of reach within 2**20 times the start: None, never a made-up number
    assert value_needed(lambda n: min(n, 5.0), 10.0, 1.0) is None


def test_warning_names_the_alternative_rows_and_epsilon():
    class Est(BaseEstimator):
        pass

    with pytest.warns(UtilityWarning) as record:
        text = warn_forecast(
            Est(), "3 rows x epsilon=0.1", "accuracy at chance", "use a constant",
            epsilon=0.1, rows_needed=1234, epsilon_needed=2.5,
        )
    assert str(record[0].message) == text
    assert text.startswith("Est: 3 rows x epsilon=0.1 (a forecast from public numbers only")
    assert "about 1,234 rows at epsilon=0.1" in text and "epsilon of about 2.5" in text
    assert way_out_text("x") == "x"


def test_dropout_way_out_goes_through_the_shared_mechanism():
    # The dropout chance warning's way out is the shared text, and its numbers are the
    # shared search's: at the rows it names the forecast ratio is at the threshold.
    forecast = {"epsilon": 1.0, "rows needed": 5000, "epsilon needed": 3.0}
    assert alternative_text(forecast, True) == way_out_text(
        "use skprivate.DPLSSGDClassifier(epsilon=1) at the same budget",
        rows_needed=5000, epsilon_needed=3.0,
    )
    clf = DPDropoutClassifier(epsilon=1.0, bounds=(0, 1), classes=[0, 1])
    norms = clf._public_norms(5)
    way_out = clf._way_out(200, *norms, 1.0, 1)
    rows, eps = way_out["rows needed"], way_out["epsilon needed"]
    assert rows > 200 and eps > 1.0
    assert clf._forecast(rows, *norms, 1.0, 1)["ratio"] <= 0.5
    assert clf._forecast(rows - 1, *norms, 1.0, 1)["ratio"] > 0.5
