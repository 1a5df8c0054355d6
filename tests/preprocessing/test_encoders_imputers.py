"""Private category discovery and private imputation."""

import math
import warnings

import numpy as np
import pytest
from scipy.stats import binomtest

from skprivate.accounting import BudgetAccountant
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.mechanisms import discrete_laplace_noise
from skprivate.preprocessing import OneHotEncoder, SimpleImputer
from skprivate.preprocessing._encoders import histogram_threshold


def _quiet_fit(est, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return est.fit(*args)


def _tail(t, m):
    """P(Z >= m) for discrete Laplace of scale t, summed term by term (test's own)."""
    p = math.exp(-1.0 / t)
    z = np.arange(m, m + 20000)
    return float(np.sum((1 - p) / (1 + p) * p ** z))


@pytest.mark.parametrize("epsilon, delta, d", [(1.0, 1e-6, 1), (0.1, 1e-5, 8), (2.0, 0.3, 2)])
def test_threshold_keeps_a_one_row_value_with_probability_at_most_delta_per_feature(
    epsilon, delta, d
):
    threshold, t = histogram_threshold(d / epsilon, delta / d)
    released = _tail(t, threshold - 1)  # a value held by one row: 1 + Z >= threshold
    assert released <= delta / d
    assert _tail(t, threshold - 2) > delta / d  # the smallest such threshold


def test_monte_carlo_release_rate_of_a_one_row_value():
    """End to end with a large delta: the rate at which a value held by a single row
    becomes a column matches the exact probability, and stays below delta."""
    epsilon, delta = 1.0, 0.3
    threshold, t = histogram_threshold(1 / epsilon, delta)
    noise = np.asarray(discrete_laplace_noise(t, size=200000, random_state=0))
    rate = np.mean(1 + noise >= threshold)
    exact = _tail(t, threshold - 1)
    assert rate == pytest.approx(exact, abs=0.005) and exact <= delta
    X = np.array([["common"]] * 30 + [["unique"]], dtype=object)
    kept = sum(
        "unique" in _quiet_fit(OneHotEncoder(epsilon=epsilon, delta=delta, random_state=s),
                               X).categories_[0]
        for s in range(300)
    )
    assert binomtest(kept, 300, exact).pvalue > 1e-3


def test_discovery_keeps_frequent_values_and_drops_rare_ones():
    rng = np.random.default_rng(0)
    X = np.column_stack([
        rng.choice(["a", "b", "c"], p=[0.5, 0.4999, 0.0001], size=20000),
        rng.choice(["x", "y"], size=20000),
    ]).astype(object)
    X[0, 1] = None
    enc = _quiet_fit(OneHotEncoder(epsilon=0.5, sparse_output=False, random_state=0), X)
    assert [list(c) for c in enc.categories_] == [["a", "b"], ["x", "y"]]
    out = enc.transform(np.array([["c", "x"], ["a", None]], dtype=object))
    assert out.tolist() == [[0, 0, 1, 0], [1, 0, 0, 0]]
    assert enc.epsilon_ == 0.5 and enc.delta_ == 1e-6
    assert list(enc.get_feature_names_out(["f", "g"])) == ["f_a", "f_b", "g_x", "g_y"]


def test_declared_categories_cost_nothing_and_spend_nothing():
    acc = BudgetAccountant(epsilon=1.0)
    X = np.array([["a"], ["b"]], dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        enc = OneHotEncoder(categories=[["a", "b", "z"]], accountant=acc, random_state=0).fit(X)
    assert enc.epsilon_ == 0.0 and acc.spends == []
    assert enc.transform(X).toarray().tolist() == [[1, 0, 0], [0, 1, 0]]
    with pytest.raises(ValueError, match="one list of values per feature"):
        OneHotEncoder(categories=[["a"], ["b"]]).fit(X)


def test_imputer_mean_median_constant():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 10, size=(20000, 2))
    X[::3, 0] = np.nan
    X[::5, 1] = np.nan
    mean = _quiet_fit(SimpleImputer(epsilon=1.0, bounds=(0, 10), random_state=0), X)
    assert mean.statistics_ == pytest.approx(np.nanmean(X, axis=0), abs=0.05)
    assert not np.isnan(mean.transform(X)).any()
    median = _quiet_fit(SimpleImputer(strategy="median", epsilon=1.0, bounds=(0, 10),
                                      random_state=0), X)
    assert median.statistics_ == pytest.approx(np.nanmedian(X, axis=0), abs=0.1)
    assert median.delta_ == 0.0
    const = SimpleImputer(strategy="constant", fill_value=-1.0).fit(X)
    assert const.epsilon_ == 0.0 and const.transform([[np.nan, 1.0]]).tolist() == [[-1.0, 1.0]]


def test_imputer_mean_sensitivity_noise_off():
    """A row changes each feature's (count, clipped sum in [-1, 1]) by at most 1 each: L2
    sensitivity sqrt(2 d). The counts (sqrt(d), rounded Gaussian of variance S_c) and the
    sums (L grid steps, variance S) are one Gaussian mechanism of noise multiplier
    ``1 / sqrt(d / S_c + L**2 / S)``, from the plan's exact numbers; dp_accounting's PLD
    accountant on it gives epsilon_ (it was an RDP conversion of the discrete Gaussian's
    zCDP, ZCDpEvent, with 6 to 11 % more noise), never above it."""
    import dp_accounting

    from skprivate.preprocessing._common import counts_and_sums_plan

    X = np.random.default_rng(0).uniform(0, 10, size=(100, 3))
    imp = _quiet_fit(SimpleImputer(epsilon=0.5, delta=1e-6, bounds=(0, 10), random_state=0), X)
    assert imp.privacy_report_["l2_sensitivity"] == pytest.approx(math.sqrt(6))
    sigma = imp.privacy_report_["noise_std"]
    count_variance, plan = counts_and_sums_plan(sigma, math.sqrt(3), 3)
    z = 1 / math.sqrt(3 / float(count_variance)
                      + float(plan.lattice_sensitivity) ** 2 / float(plan.scale))
    assert z >= imp.privacy_report_["noise_multiplier"]
    accountant = dp_accounting.pld.PLDAccountant()
    accountant.compose(dp_accounting.GaussianDpEvent(z))
    assert 0.5 * 0.99 <= accountant.get_epsilon(1e-6) <= 0.5 + 1e-4
    event = imp._privacy_spend_record.event
    assert isinstance(event, dp_accounting.GaussianDpEvent)
    assert event.noise_multiplier == pytest.approx(sigma / math.sqrt(6))


def test_imputer_mean_releases_integer_counts_and_grid_sums():
    """No floating-point noise: the released counts are integers and the sums multiples of
    the rounded Gaussian's grid."""
    from skprivate.preprocessing._common import counts_and_sums_plan, release_counts_and_sums

    rng = np.random.default_rng(0)
    sigma, sens = 3.0, math.sqrt(2.0)
    counts, sums = release_counts_and_sums(np.array([5, 7]), np.array([0.3, -1.1]), sigma,
                                           sens, rng)
    gamma = counts_and_sums_plan(sigma, sens, 2)[1].gamma
    assert np.all(counts == np.round(counts)) and np.all((sums / gamma) % 1 == 0)
    assert not np.all(counts == [5, 7])  # noise was added


def test_counts_noise_is_the_rounded_gaussian():
    """The counts' noise is round(N(0, sigma**2)): its frequencies over many draws match
    ``Phi((m + 1/2) / sigma) - Phi((m - 1/2) / sigma)`` (chi-square at 1e-4)."""
    from scipy.stats import chi2, norm

    from skprivate.preprocessing._common import release_counts_and_sums

    sigma, draws = 2.5, 20000
    counts, _ = release_counts_and_sums(np.zeros(draws, np.int64), np.zeros(1), sigma, 1.0,
                                        np.random.default_rng(1))
    m = np.arange(-9, 10)
    observed = np.array([(counts == v).sum() for v in m])
    expected = draws * (norm.cdf((m + 0.5) / sigma) - norm.cdf((m - 0.5) / sigma))
    assert np.abs(counts).max() < 20
    stat = np.sum((observed - expected) ** 2 / expected)
    assert stat < chi2.ppf(1 - 1e-4, len(m) - 1)


def test_imputer_mean_draws_no_continuous_noise():
    """The fit's noise is integer: a generator that refuses continuous draws (the old
    path's Generator.normal) still fits."""
    from tests._doubles import NoContinuousNoiseGenerator

    X = np.random.default_rng(1).uniform(0, 10, size=(200, 2))
    X[::2, 0] = np.nan
    imp = _quiet_fit(SimpleImputer(epsilon=1.0, bounds=(0, 10),
                                   random_state=NoContinuousNoiseGenerator(np.random.PCG64(0))),
                     X)
    assert np.all(np.abs(imp.statistics_ - np.nanmean(X, axis=0)) < 2.0)
