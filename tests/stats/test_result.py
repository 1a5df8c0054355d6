"""PrivateResult behaves like its value and carries its guarantee."""

import math
import pickle

import numpy as np

from skprivate.stats import PrivateResult


def test_scalar_result_acts_as_a_number():
    r = PrivateResult(2.5, 1.0, 0.0, "granular Laplace", name="mean")
    assert float(r) == 2.5 and r + 1 == 3.5 and 1 + r == 3.5 and 2 * r == 5.0
    assert r - 0.5 == 2.0 and 5 / r == 2.0 and -r == -2.5 and r > 2 and abs(-r) == 2.5
    assert math.isclose(np.sqrt(r), math.sqrt(2.5))
    assert f"{r:.1f}" == "2.5" and round(r) == 2
    assert r + PrivateResult(1.0, 1.0, 0.0, "") == 3.5
    assert r == 2.5 and r != 2.0 and 2.5 == r
    text = repr(r)
    assert "mean" in text and "epsilon=1" in text and "pure DP" in text


def test_array_result_acts_as_an_array():
    r = PrivateResult(np.array([1.0, 2.0]), 0.5, 0.0, "m", name="sum")
    np.testing.assert_array_equal(np.asarray(r), [1.0, 2.0])
    np.testing.assert_array_equal(r * 2, [2.0, 4.0])
    np.testing.assert_array_equal(r == 2.0, [False, True])
    np.testing.assert_array_equal(np.array([1.0, 1.0]) + r, [2.0, 3.0])
    assert r[1] == 2.0 and len(r) == 2 and r.shape == (2,) and list(r) == [1.0, 2.0]
    assert np.asarray(r, dtype=np.float32).dtype == np.float32


def test_spend_and_pickle():
    r = PrivateResult(1, 0.3, 0.0, "m", name="count_nonzero")
    assert (r.spend.epsilon, r.spend.delta, r.spend.label) == (0.3, 0.0, "stats.count_nonzero")
    s = pickle.loads(pickle.dumps(r))
    assert (s.value, s.epsilon, s.name) == (1, 0.3, "count_nonzero")
