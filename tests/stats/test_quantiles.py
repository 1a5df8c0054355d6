"""Private quantiles: the output law of the exact permute-and-flip over the public grid."""

import numpy as np
import pytest
from scipy import stats as sps

from skprivate import stats
from skprivate.accounting import BudgetAccountant
from tests.mechanisms.test_selection import _enumerated_pmf

pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")


def test_output_law_is_permute_and_flip_on_the_rank_utility():
    # Candidates 0..4; values 0.5, 1.5, 2.5; q = 0.5 so q n = 1.5. Utility
    # -max(#{x < c} - 1.5, 1.5 - #{x <= c}, 0), sensitivity max(q, 1 - q) = 0.5.
    utility = [-1.5, -0.5, -0.5, -1.5, -1.5]
    expected = _enumerated_pmf(utility, 1.0, 0.5)
    draws = np.array([float(stats.quantile([0.5, 1.5, 2.5], 0.5, bounds=(0, 4), epsilon=1.0,
                                           resolution=4, random_state=s))
                      for s in range(1500)])
    assert set(draws.tolist()) <= {0.0, 1.0, 2.0, 3.0, 4.0}
    observed = np.bincount(draws.astype(int), minlength=5)
    chi2 = np.sum((observed - 1500 * expected) ** 2 / (1500 * expected))
    assert sps.chi2.sf(chi2, 4) > 1e-4


def test_ties_at_a_candidate_have_the_best_utility():
    # Whole-year ages on a grid that holds the integers: the median is found exactly,
    # although the plain -|#{x < c} - q n| would be flat between 35 and 52.
    ages = np.array([23, 35, 41, 52, 67] * 200)
    got = {float(stats.median(ages, bounds=(0, 128), random_state=s)) for s in range(10)}
    assert got == {41.0}


def test_adult_median_within_one_year():
    from skprivate.datasets import load_adult

    age = load_adult(as_frame=True).frame["age"].to_numpy(float)
    med = float(stats.median(age, bounds=(0, 128), epsilon=1.0, random_state=0))
    assert abs(med - np.median(age)) <= 1.0


def test_shapes_percentile_and_nan_variants():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 10, size=(3000, 3))
    q = stats.quantile(X, [0.25, 0.75], axis=0, bounds=(0, 10), epsilon=3.0, random_state=0)
    assert q.shape == (2, 3)
    np.testing.assert_allclose(np.asarray(q), np.quantile(X, [0.25, 0.75], axis=0), atol=0.3)
    p = stats.percentile(X, [25, 75], axis=0, bounds=(0, 10), epsilon=3.0, random_state=0)
    np.testing.assert_array_equal(np.asarray(p), np.asarray(q))
    assert stats.median(X, axis=0, keepdims=True, bounds=(0, 10), random_state=0).shape \
        == (1, 3)
    X[rng.random(X.shape) < 0.5] = np.nan
    med = stats.nanmedian(X, axis=0, bounds=(0, 10), epsilon=3.0, random_state=0)
    np.testing.assert_allclose(np.asarray(med), np.nanmedian(X, axis=0), atol=0.4)
    assert float(stats.nanpercentile(X[:, 0], 50, bounds=(0, 10), random_state=1)) == \
        float(stats.nanquantile(X[:, 0], 0.5, bounds=(0, 10), random_state=1))
    with pytest.raises(ValueError, match="nanmedian"):
        stats.median(X, bounds=(0, 10))


def test_results_are_grid_points():
    x = np.random.default_rng(0).uniform(17, 90, 500)
    r = float(stats.quantile(x, 0.3, bounds=(17, 90), random_state=0))
    assert r in np.linspace(17, 90, 1025)


def test_quantiles_split_the_budget():
    # Four quantiles of two columns: eight releases sharing epsilon.
    result = stats.quantile(np.ones((10, 2)), [0.1, 0.2, 0.3, 0.4], axis=0, bounds=(0, 2),
                            epsilon=0.8, random_state=0)
    assert result.epsilon == 0.8
    assert "epsilon 0.1 for each of the 8" in result.mechanism


def test_accountant_and_errors():
    accountant = BudgetAccountant(epsilon=1.0)
    stats.median([1.0, 2.0], bounds=(0, 3), epsilon=0.6, accountant=accountant)
    assert accountant.spends[0].label == "stats.median"
    with pytest.raises(ValueError, match="q must lie in"):
        stats.quantile([1.0], 1.5, bounds=(0, 2))
    with pytest.raises(ValueError, match=r"q must lie in \[0, 100\]"):
        stats.percentile([1.0], 150, bounds=(0, 2))
    with pytest.raises(ValueError, match="q must lie in"):
        stats.quantile([1.0], np.nan, bounds=(0, 2))
    with pytest.raises(ValueError, match="resolution"):
        stats.median([1.0], bounds=(0, 2), resolution=0)
    with pytest.raises(ValueError, match="epsilon"):
        stats.median([1.0], bounds=(0, 2), epsilon=-1)


def test_bounds_wider_than_the_largest_double_give_a_finite_candidate():
    # The candidates are built in half units, as the preprocessors' are: linspace over
    # (-1.7e308, 1.7e308) overflowed and released inf.
    result = stats.median(np.arange(10.0), bounds=(-1.7e308, 1.7e308), epsilon=1.0,
                          random_state=0)
    assert np.isfinite(result.value) and -1.7e308 <= result.value <= 1.7e308
