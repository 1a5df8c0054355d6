"""The DP network's forecast: rows x epsilon too small for its number of weights."""

import re
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("skorch")

from skprivate.exceptions import UtilityWarning  # noqa: E402
from skprivate.neural_network import (  # noqa: E402
    DPLSSGDNeuralNetClassifier,
    DPLSSGDNeuralNetRegressor,
)
from skprivate.neural_network._dplssgd_net import (  # noqa: E402
    _FORECAST_ROWS_EPSILON_PER_WEIGHT,
)

pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")

RNG = np.random.default_rng(0)
X = RNG.uniform(size=(2_000, 10)).astype(np.float32)
Y = (X[:, 0] > 0.5).astype(np.int64)
WEIGHTS = 10 * 16 + 16 + 16 * 2 + 2  # 210


def _module(n_out=2):
    return torch.nn.Sequential(torch.nn.Linear(10, 16), torch.nn.Tanh(),
                               torch.nn.Linear(16, n_out))


def _utility(estimator, n, y):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        estimator.fit(X[:n], y[:n])
    return [str(w.message) for w in record if issubclass(w.category, UtilityWarning)]


def _classifier(epsilon, **params):
    return DPLSSGDNeuralNetClassifier(_module(), epsilon=epsilon, classes=[0, 1],
                                      max_epochs=1, n_samples_public=True, random_state=0,
                                      **params)


def test_too_few_rows_times_epsilon_per_weight_warns_with_the_way_out():
    # 200 rows at epsilon 1 for 210 weights: 0.95 per weight
    (message,) = _utility(_classifier(1.0), 200, Y)
    assert "200 rows (the count planned on) x epsilon=1" in message
    assert "210 weights" in message and "DPLSSGDClassifier" in message
    rows = int(re.search(r"about ([\d,]+) rows at epsilon=1", message)[1].replace(",", ""))
    eps = float(re.search(r"epsilon of about ([\d.]+) on these rows", message)[1])
    assert rows == int(np.ceil(_FORECAST_ROWS_EPSILON_PER_WEIGHT * WEIGHTS / 1.0))  # 420
    assert eps == pytest.approx(_FORECAST_ROWS_EPSILON_PER_WEIGHT * WEIGHTS / 200, rel=1e-3)


def test_the_rows_named_leave_the_region():
    rows = int(np.ceil(_FORECAST_ROWS_EPSILON_PER_WEIGHT * WEIGHTS))
    assert _utility(_classifier(1.0), rows, Y) == []
    assert _utility(_classifier(1.0), rows - 1, Y) != []


def test_no_forecast_without_a_target_epsilon_or_for_the_regressor():
    noise = DPLSSGDNeuralNetClassifier(_module(), noise_multiplier=1.0,
                                       classes=[0, 1], max_epochs=1, random_state=0)
    assert _utility(noise, 200, Y) == []
    regressor = DPLSSGDNeuralNetRegressor(_module(1), epsilon=1.0, max_epochs=1,
                                          n_samples_public=True, random_state=0)
    assert _utility(regressor, 200, X[:, :1] * 1.0) == []
