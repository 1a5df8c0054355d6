"""Private histograms: discrete Laplace noise on counts over public edges."""

import numpy as np
import pytest
from scipy import stats as sps

from skprivate import stats
from skprivate.accounting import BudgetAccountant
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.mechanisms import discrete_laplace_pmf

pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")


def test_bin_noise_is_discrete_laplace_of_scale_one_over_epsilon():
    # 200 bins of 50 values each: every count is 50 plus discrete Laplace of scale
    # 1/epsilon (L1 sensitivity 1 over all bins, not 1 per bin).
    values = np.repeat(np.arange(200) + 0.5, 50)
    noise = np.concatenate([
        np.asarray(stats.histogram(values, bins=200, range=(0, 200), epsilon=0.5,
                                   random_state=s)[0]) - 50 for s in range(10)
    ])
    support = np.arange(-12, 13)
    pmf = discrete_laplace_pmf(support, 2.0)
    observed = np.array([(noise == z).sum() for z in support])
    expected = pmf * noise.size
    tails = noise.size - observed.sum(), noise.size - expected.sum()
    chi2 = np.sum((observed - expected) ** 2 / expected) + (tails[0] - tails[1]) ** 2 / tails[1]
    assert sps.chi2.sf(chi2, support.size) > 1e-4


def test_histogram_edges_and_counts():
    ages = np.array([23, 35, 41, 52, 67] * 400)
    hist, edges = stats.histogram(ages, bins=[0, 30, 60, 90], epsilon=2.0, random_state=0)
    np.testing.assert_array_equal(edges, [0, 30, 60, 90])
    np.testing.assert_allclose(np.asarray(hist), [400, 1200, 400], atol=10)
    assert np.asarray(hist).dtype == np.int64
    density, _ = stats.histogram(ages, bins=3, range=(0, 90), density=True, random_state=0)
    assert abs(np.sum(np.asarray(density) * 30) - 1.0) < 1e-12


def test_counts_are_never_negative():
    hist, _ = stats.histogram([], bins=50, range=(0, 1), epsilon=0.1, random_state=0)
    assert np.asarray(hist).min() >= 0


def test_histogram2d_is_histogramdd():
    rng = np.random.default_rng(0)
    x, y = rng.uniform(0, 1, 300), rng.uniform(0, 2, 300)
    h2, xe, ye = stats.histogram2d(x, y, bins=(4, 3), range=[(0, 1), (0, 2)], random_state=3)
    hd, edges = stats.histogramdd(np.column_stack([x, y]), bins=(4, 3),
                                  range=[(0, 1), (0, 2)], random_state=3)
    np.testing.assert_array_equal(np.asarray(h2), np.asarray(hd))
    np.testing.assert_array_equal(xe, edges[0])
    assert np.asarray(h2).shape == (4, 3)
    exact, _, _ = np.histogram2d(x, y, bins=(4, 3), range=[(0, 1), (0, 2)])
    assert np.abs(np.asarray(h2) - exact).max() < 20


def test_range_from_data_leaks_and_warns():
    with pytest.warns(PrivacyLeakWarning, match="range"):
        hist, edges = stats.histogram([1.0, 2.0, 5.0], bins=2)
    assert "bounds_from_data" in [c.code for c in hist.caveats]
    np.testing.assert_array_equal(edges, [1.0, 3.0, 5.0])
    hist, _ = stats.histogramdd(np.ones((5, 2)), bins=2, range=[(0, 2), None])
    assert "bounds_from_data" in [c.code for c in hist.caveats]
    hist, _ = stats.histogramdd(np.ones((5, 2)), bins=2, range=[(0, 2), (0, 2)])
    assert hist.caveats == []


def test_errors_name_the_parameter():
    with pytest.raises(ValueError, match="bins"):
        stats.histogram([1.0], bins="auto", range=(0, 1))
    with pytest.raises(ValueError, match="weights"):
        stats.histogram([1.0], range=(0, 1), weights=[2.0])
    with pytest.raises(ValueError, match="range"):
        stats.histogram([1.0], range=(1, 0))
    with pytest.raises(ValueError, match="bins"):
        stats.histogram([1.0], bins=[0, 2, 1])
    with pytest.raises(ValueError, match="epsilon"):
        stats.histogram([1.0], range=(0, 1), epsilon=0)
    with pytest.raises(ValueError, match="x and y"):
        stats.histogram2d([1.0, 2.0], [1.0])


def test_accountant_is_charged():
    accountant = BudgetAccountant(epsilon=1.0)
    stats.histogram([1.0], range=(0, 1), epsilon=0.25, accountant=accountant)
    stats.histogram2d([1.0], [1.0], range=[(0, 1), (0, 1)], epsilon=0.25,
                      accountant=accountant)
    assert [s.label for s in accountant.spends] == ["stats.histogram", "stats.histogram2d"]
    assert accountant.total() == (0.5, 0.0)
