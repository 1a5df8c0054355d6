"""HistGradientBoostingClassifier: binning, routing, the leaf release, accounting and API.

The release is tested in parts against independent computations: the bins against
hand-worked values, the routing against a row-by-row walk, the leaf sums with the noise made
negligible against ``np.add.at``, the noise against its claimed standard deviation, the
sensitivity against random gradients, and the composition against dp-accounting's RDP
accountant. The audit of the whole fit is in ``test_audit.py``.
"""

import collections
import math
import warnings

import dp_accounting
import numpy as np
import pytest
from scipy.special import expit, softmax

from skprivate.accounting import BudgetAccountant
from skprivate.accounting._zcdp import zcdp_epsilon
from skprivate.ensemble import HistGradientBoostingClassifier
from skprivate.ensemble._binning import (
    GRID_CELLS,
    grid_counts,
    public_bins,
    quantile_edges,
    uniform_edges,
)
from skprivate.ensemble._gradient_boosting import auto_depth, auto_max_iter
from skprivate.ensemble._random_trees import (
    draw_trees,
    leaf_index,
    noisy_leaf_sums,
    row_sensitivity,
)
from skprivate.exceptions import BudgetExceededError, PrivacyLeakWarning

pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")


def _interaction(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, 4))
    return X, (X[:, 0] * X[:, 1] > 0).astype(int)


# --- binning -------------------------------------------------------------------------------


def test_numeric_bins_come_from_the_declared_range():
    X = np.array([[-1.0], [0.0], [0.25], [0.999], [1.0], [5.0], [np.nan]])
    bins, n_bins = public_bins(X, np.array([0.0]), np.array([1.0]), np.array([False]), [], 4)
    assert bins[:, 0].tolist() == [0, 0, 1, 3, 3, 3, 4]  # clipped; NaN in its own bin
    assert n_bins.tolist() == [5]


def test_categorical_bins_follow_the_declared_order():
    X = np.array([[3.0], [7.0], [10.0], [5.0], [np.nan]])
    bins, n_bins = public_bins(X, np.zeros(1), np.ones(1), np.array([True]),
                               [np.array([10.0, 3.0, 7.0])], 8)
    assert bins[:, 0].tolist() == [1, 2, 0, 3, 3]  # undeclared and NaN share the last bin
    assert n_bins.tolist() == [4]


def test_a_rows_bin_depends_on_that_row_alone():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=40), rng.integers(0, 4, size=40)]).astype(float)
    X[::7, 0] = np.nan
    args = (np.array([-1.0, 0.0]), np.array([1.0, 1.0]), np.array([False, True]),
            [np.array([0.0, 1.0, 2.0])], 16)
    together, _ = public_bins(X, *args)
    alone = np.vstack([public_bins(X[i:i + 1], *args)[0] for i in range(len(X))])
    np.testing.assert_array_equal(together, alone)


# --- routing and the leaf release ----------------------------------------------------------


def test_leaf_index_matches_a_row_by_row_walk():
    rng = np.random.default_rng(1)
    n_bins = np.array([9, 4, 17])
    categorical = np.array([False, True, False])
    bins = np.column_stack([rng.integers(0, b, size=60) for b in n_bins])
    features, go_right = draw_trees(rng, 3, 3, n_bins, categorical)
    for t in range(3):
        leaves = leaf_index(np.ascontiguousarray(bins.T), features[t], go_right[t])
        for i, row in enumerate(bins):
            node = 0
            while node < 7:
                node = 2 * node + 1 + int(go_right[t, node, row[features[t, node]]])
            assert leaves[i] == node - 7


def test_random_splits_send_bins_both_ways():
    rng = np.random.default_rng(2)
    n_bins = np.array([33, 5])
    features, go_right = draw_trees(rng, 200, 2, n_bins, np.array([False, False]))
    for f, right in zip(features.ravel(), go_right.reshape(-1, go_right.shape[-1])):
        used = right[: n_bins[f] - 1]  # the value bins; the missing-value bin goes right
        assert used.any() and not used.all()
        assert right[n_bins[f] - 1] and not right[n_bins[f]:].any()


@pytest.mark.parametrize("n_scores", [1, 3, 5, 10])
def test_row_sensitivity_bounds_every_rows_gradient_and_hessian(n_scores):
    rng = np.random.default_rng(n_scores)
    scores = rng.normal(scale=rng.choice([0.1, 3.0, 30.0], size=(20_000, 1)),
                        size=(20_000, n_scores))
    if n_scores == 1:
        p = expit(scores)
        y = rng.integers(0, 2, size=(20_000, 1))
    else:
        p = softmax(scores, axis=1)
        y = np.eye(n_scores)[rng.integers(0, n_scores, size=20_000)]
    norm = np.sqrt(np.sum((p - y) ** 2, axis=1) + np.sum((p * (1 - p)) ** 2, axis=1))
    assert norm.max() <= row_sensitivity(n_scores)
    assert norm.max() >= 0.9  # and is not loose by much: a confident wrong row reaches ~1


def test_leaf_sums_with_negligible_noise_are_the_exact_sums():
    rng = np.random.default_rng(3)
    leaves = rng.integers(0, 8, size=(500, 2))
    g, h = rng.uniform(-1, 1, size=(500, 2)), rng.uniform(0, 0.25, size=(500, 2))
    G, H = noisy_leaf_sums(leaves, g, h, 8, 1.5, 1e-9, rng)
    G_exact, H_exact = np.zeros((2, 8)), np.zeros((2, 8))
    for k in range(2):
        np.add.at(G_exact[k], leaves[:, k], g[:, k])
        np.add.at(H_exact[k], leaves[:, k], h[:, k])
    np.testing.assert_allclose(G, G_exact, atol=1e-8)
    np.testing.assert_allclose(H, H_exact, atol=1e-8)


def test_leaf_sum_noise_has_the_claimed_standard_deviation():
    rng = np.random.default_rng(4)
    leaves = np.zeros((1, 1), dtype=int)
    draws = np.concatenate([
        np.concatenate(noisy_leaf_sums(leaves, np.zeros((1, 1)), np.zeros((1, 1)), 64,
                                       1.0, 3.0, rng)).ravel()
        for _ in range(40)
    ])  # 40 releases x 128 coordinates
    assert np.mean(draws) == pytest.approx(0.0, abs=5 * 3.0 / np.sqrt(draws.size))
    assert np.std(draws) == pytest.approx(3.0, rel=5 / np.sqrt(2 * draws.size))


# --- the plan and the accounting -----------------------------------------------------------


def test_auto_plan_from_public_numbers():
    assert [auto_depth(n) for n in (100, 4_000, 16_000, 10**6)] == [2, 2, 4, 4]
    rounds = [auto_max_iter(n, 4, 0.2, 1.03) for n in (1_000, 10_000, 30_000, 10**6)]
    assert rounds == sorted(rounds) and rounds[0] == 20 and rounds[-1] == 1000


def pld_epsilon(noise_multipliers, delta):
    """Epsilon of Gaussian releases ``{noise multiplier: count}`` by dp-accounting's PLD."""
    accountant = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4)
    for multiplier, count in noise_multipliers.items():
        accountant.compose(dp_accounting.GaussianDpEvent(multiplier), count)
    return accountant.get_epsilon(delta)


@pytest.mark.parametrize("n_samples_public", [False, True])
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_spend_is_within_epsilon_by_an_independent_accountant(epsilon, n_samples_public):
    X, y = _interaction(3_000, 0)
    clf = HistGradientBoostingClassifier(
        epsilon=epsilon, bounds=(-1, 1), classes=[0, 1], n_samples_public=n_samples_public,
        random_state=0).fit(X, y)
    assert clf.epsilon_ == epsilon and clf.delta_ == 1e-5
    report = clf.privacy_report_
    # mu recomputed from the released plan: the rounds' noise, the start's 2 % share and
    # the bin histograms' 10 % (4 numeric features: sensitivity 2), released at epsilon 2
    # only: at 0.5 their noise would leave 3,000 rows' edges equal-width anyway
    bins_noise = report["noise std (bin histograms)"]
    assert (bins_noise is None) == (epsilon == 0.5)
    bins_share = 0.0 if bins_noise is None else 0.1
    sensitivity = math.sqrt(1 + 1 / 16)
    mu = report["mu (GDP, starting scores and rounds)"]
    assert mu**2 == pytest.approx(
        clf.n_iter_ * (sensitivity / clf.noise_std_) ** 2 / (0.98 - bins_share), rel=1e-9)
    releases = {clf.noise_std_ / sensitivity: clf.n_iter_,
                report["noise std (starting scores)"]: 1}
    if bins_noise is not None:
        assert (2 / bins_noise) ** 2 == pytest.approx(0.1 * mu**2)
        releases[bins_noise / 2] = 1
    count_epsilon = 0.0 if n_samples_public else 0.05 * epsilon
    # dp-accounting's PLD accountant on the same Gaussian releases (the rounded Gaussian
    # is their post-processing): within the budget, and the budget is used
    independent = pld_epsilon(releases, 1e-5)
    assert count_epsilon + independent <= epsilon * (1 + 1e-3)
    assert count_epsilon + independent >= epsilon * (1 - 1e-2)
    # the zCDP conversion of the same noise would have claimed more
    assert count_epsilon + zcdp_epsilon(mu**2 / 2, 1e-5) > epsilon * 1.05
    assert ("treated as public" in report["number of rows"]) == n_samples_public


def test_the_accountant_is_charged_before_any_value_is_read():
    X, y = _interaction(500, 1)
    accountant = BudgetAccountant(epsilon=1.5, delta=1e-4)
    HistGradientBoostingClassifier(epsilon=1.0, bounds=(-1, 1), classes=[0, 1],
                                   accountant=accountant).fit(X, y)
    X_bad = X.astype(object)
    X_bad[0, 0] = "not a number"
    with pytest.raises(BudgetExceededError):
        HistGradientBoostingClassifier(epsilon=1.0, bounds=(-1, 1), classes=[0, 1],
                                       accountant=accountant).fit(X_bad, y)


def test_tree_shapes_do_not_depend_on_the_rows():
    X, y = _interaction(2_000, 2)
    X_other, y_other = _interaction(2_000, 3)
    # (on the bins of the declared ranges; quantile bins are a release, and the splits are
    # drawn among them without the rows: test_quantile_bins_are_a_post_processing)
    fits = [HistGradientBoostingClassifier(bounds=(-1, 1), classes=[0, 1], random_state=7,
                                           binning="uniform", n_samples_public=True).fit(A, b)
            for A, b in ((X, y), (X_other, y_other))]
    np.testing.assert_array_equal(fits[0]._features, fits[1]._features)
    np.testing.assert_array_equal(fits[0]._go_right, fits[1]._go_right)
    assert not np.array_equal(fits[0].leaf_values_, fits[1].leaf_values_)


# --- learning ------------------------------------------------------------------------------


def test_learns_an_interaction_a_linear_model_cannot():
    X, y = _interaction(20_000, 4)
    X_test, y_test = _interaction(5_000, 5)
    clf = HistGradientBoostingClassifier(epsilon=1.0, bounds=(-1, 1), classes=[0, 1],
                                         random_state=0).fit(X, y)
    assert clf.score(X_test, y_test) > 0.8
    assert 0.4 < np.mean(clf.predict(X_test)) < 0.6  # probabilities on the right side of 0.5


def test_probabilities_give_a_sensible_share_of_positives():
    rng = np.random.default_rng(6)
    X = rng.uniform(0, 1, size=(20_000, 3))
    y = (rng.uniform(size=20_000) < expit(6 * X[:, 0] - 5)).astype(int)  # about 25 % ones
    clf = HistGradientBoostingClassifier(epsilon=1.0, bounds=(0, 1), classes=[0, 1],
                                         random_state=0).fit(X, y)
    proba = clf.predict_proba(X)[:, 1]
    assert abs(np.mean(proba) - np.mean(y)) < 0.03
    np.testing.assert_array_equal(clf.predict(X), (proba > 0.5).astype(int))


def test_multiclass_with_declared_categories():
    rng = np.random.default_rng(7)
    X = np.column_stack([rng.uniform(0, 10, 6_000), rng.integers(0, 3, 6_000)]).astype(float)
    y = np.where(X[:, 1] == 2, "c", np.where(X[:, 0] > 5, "b", "a"))
    clf = HistGradientBoostingClassifier(
        epsilon=2.0, bounds=(0, 10), categorical_features=[1], categories=[[0, 1, 2]],
        classes=["a", "b", "c"], max_iter=40, random_state=0).fit(X, y)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert clf.leaf_values_.shape[1] == clf.n_trees_per_iteration_ == 3
    assert clf.score(X, y) > 0.9


# --- parameters ----------------------------------------------------------------------------


def test_without_bounds_the_ranges_are_released_privately():
    # bounds=None: each numeric feature's range comes from its noisy histogram on the
    # grid of binary exponents (10 % of the trees' mu**2, composed exactly with them): no
    # caveat, the range within a factor of two of where the rows are (one extreme row
    # does not stretch it), and the spend within epsilon by dp-accounting's PLD.
    rng = np.random.default_rng(8)
    X = np.column_stack([rng.uniform(17, 90, 20_000), rng.uniform(-3, 3, 20_000)])
    X[0, 0] = 1e300
    y = (X[:, 0] > 50).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = HistGradientBoostingClassifier(epsilon=1.0, classes=[0, 1]).fit(X, y)
    assert not [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    assert clf.privacy_report_.caveat_codes == []
    (low_age, low_x), (high_age, high_x) = clf.bounds_
    assert (low_age, high_age) == (16.0, 128.0) and (low_x, high_x) == (-4.0, 4.0)
    report = clf.privacy_report_
    sensitivity = math.sqrt(2)  # two numeric features
    releases = collections.Counter({clf.noise_std_ / math.sqrt(1 + 1 / 16): clf.n_iter_,
                                    report["noise std (starting scores)"]: 1})
    releases[report["noise std (range histograms)"] / sensitivity] += 1
    if report["noise std (bin histograms)"] is not None:  # (the same share: the same key)
        releases[report["noise std (bin histograms)"] / sensitivity] += 1
    mu = report["mu (GDP, starting scores and rounds)"]
    assert (sensitivity / report["noise std (range histograms)"]) ** 2 == pytest.approx(
        0.1 * mu**2)
    assert 0.99 <= 0.05 + pld_epsilon(releases, 1e-5) <= 1.001
    assert clf.score(X, y) > 0.9


def test_the_linear_model_alone_needs_no_range():
    # On a small table without bounds the linear model alone reads the features unscaled
    # (its own private row scaling): no range is released or published.
    rng = np.random.default_rng(9)
    X = rng.normal(50.0, 10.0, size=(500, 3))
    y = (X[:, 0] > 50).astype(int)
    clf = HistGradientBoostingClassifier(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    assert clf.n_iter_ == 0 and clf.bounds_ is None
    assert clf.privacy_report_["noise std (range histograms)"] is None
    np.testing.assert_array_equal(clf._linear_features(X), X)
    assert clf.score(X, y) > 0.8


@pytest.mark.parametrize("params, match", [
    ({"categorical_features": [1]}, "categories must list"),
    ({"categorical_features": [1], "categories": [[0, 1], [2]]}, "categories must list"),
    ({"categories": [[0, 1]]}, "categorical_features"),
    ({"categorical_features": [9], "categories": [[0]]}, "column indices"),
    ({"categorical_features": [1], "categories": [[0, 0]]}, "distinct"),
])
def test_bad_categorical_declarations_are_refused(params, match):
    X, y = _interaction(100, 9)
    with pytest.raises(ValueError, match=match):
        HistGradientBoostingClassifier(bounds=(-1, 1), classes=[0, 1], **params).fit(X, y)


def test_in_a_pipeline_its_spend_and_leaks_are_totalled():
    from sklearn.pipeline import make_pipeline

    from skprivate.accounting import leaking_steps, total_privacy_cost
    from skprivate.preprocessing import BoundedScaler

    X, y = _interaction(1_000, 10)
    declared = make_pipeline(BoundedScaler(bounds=(-1, 1)), HistGradientBoostingClassifier(
        epsilon=0.7, bounds=(0, 1), classes=[0, 1], random_state=0)).fit(X, y)
    cost = total_privacy_cost(declared)
    assert (cost.epsilon, cost.delta) == (0.7, 1e-5)
    assert leaking_steps(declared) == []
    # bounds=None: the ranges are released privately, nothing leaks; classes=None reads
    # the labels
    private = make_pipeline(HistGradientBoostingClassifier(classes=[0, 1])).fit(X, y)
    assert leaking_steps(private) == []
    read = make_pipeline(HistGradientBoostingClassifier()).fit(X, y)
    assert [step.name for step in leaking_steps(read)] == ["HistGradientBoostingClassifier"]


def test_leaf_values_are_newton_steps_of_the_leaf_sums():
    # With negligible noise (epsilon 1e4), each leaf value is the Newton step computed here
    # from the exact sums over the rows the fitted tree sends to that leaf.
    X, y = _interaction(400, 11)
    clf = HistGradientBoostingClassifier(
        epsilon=1e4, bounds=(-1, 1), classes=[0, 1], max_iter=1, max_depth=2,
        learning_rate=0.5, l2_regularization=3.0, n_samples_public=True, binning="uniform",
        random_state=0).fit(X, y)
    p = expit(np.full(len(y), clf.baseline_prediction_[0]))
    assert clf.baseline_prediction_[0] == pytest.approx(np.log(y.sum() / (len(y) - y.sum())),
                                                        abs=1e-3)
    bins, _ = public_bins(X, np.full(4, -1.0), np.ones(4), np.zeros(4, bool), [], 16)
    leaves = leaf_index(np.ascontiguousarray(bins.T), clf._features[0, 0],
                        clf._go_right[0, 0])
    G = np.bincount(leaves, p - y, minlength=4)
    H = np.bincount(leaves, p * (1 - p), minlength=4)
    expected = 0.5 * np.clip(-G / (H + clf.noise_std_ + 3.0), -2, 2)
    # the noise left moves a value by at most 5 sigma * learning_rate / (H + sigma + 3)
    assert clf.noise_std_ < 0.05
    np.testing.assert_allclose(clf.leaf_values_[0, 0], expected,
                               atol=5 * clf.noise_std_ * 0.5 / 3.0)
    assert np.max(np.abs(expected)) > 20 * clf.noise_std_ * 0.5 / 3.0  # the test can fail


def test_only_categorical_features_need_no_bounds():
    rng = np.random.default_rng(12)
    X = rng.integers(0, 3, size=(500, 2)).astype(float)
    y = (X[:, 0] == 2).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)  # nothing read from the rows
        clf = HistGradientBoostingClassifier(
            categorical_features=[True, True], categories=[[0, 1, 2], [0, 1, 2]],
            classes=[0, 1]).fit(X, y)
    assert clf.privacy_report_.caveat_codes == []


# --- private quantile bins -----------------------------------------------------------------


def test_grid_counts_count_each_cell_and_a_row_moves_one_cell_per_feature():
    rng = np.random.default_rng(13)
    X = np.column_stack([rng.uniform(-2, 2, 500), rng.exponential(3.0, 500)])
    X[::9, 1] = np.nan
    counts = grid_counts(X, np.array([-1.0, 0.0]), np.array([1.0, 10.0]))
    assert counts.shape == (2, GRID_CELLS)
    for j, (low, high) in enumerate([(-1.0, 1.0), (0.0, 10.0)]):
        values = np.clip(X[:, j][~np.isnan(X[:, j])], low, high)
        expected, _ = np.histogram(values, bins=np.linspace(low, high, GRID_CELLS + 1))
        np.testing.assert_array_equal(counts[j], expected)
    # removing any one row changes the vector by at most sqrt(2) (the release's sensitivity)
    for i in (0, 9, 100):
        change = counts - grid_counts(np.delete(X, i, axis=0), np.array([-1.0, 0.0]),
                                      np.array([1.0, 10.0]))
        assert np.sum(change**2) == (1 if np.isnan(X[i, 1]) else 2)


def test_quantile_edges_follow_the_rows_and_give_a_point_mass_its_own_bin():
    # 90 % of the rows at 0 (capital gain), the rest spread over [2000, 6000], range 0 to 1e5
    rng = np.random.default_rng(14)
    values = np.where(rng.uniform(size=20_000) < 0.9, 0.0, rng.uniform(2000, 6000, 20_000))
    counts = grid_counts(values[:, None], np.zeros(1), np.array([1e5]))[0]
    edges = quantile_edges(counts, 0.0, 1e5, 16, noise_std=1.0)
    cell = 1e5 / GRID_CELLS
    assert edges[0] == pytest.approx(cell)  # the point mass at 0: one bin
    # most of the other edges where the rows are (a few in the empty tail: the uniform
    # prior mass of quantile_edges)
    assert np.sum((edges > 2000 - cell) & (edges < 6000 + cell)) >= 10
    # equal-width bins put every nonzero value in one bin
    assert np.unique(np.searchsorted(uniform_edges(0.0, 1e5, 16), values[values > 0])).size \
        == 1


def test_quantile_edges_fall_back_to_equal_widths_when_the_noise_dominates():
    counts = np.zeros(GRID_CELLS)
    counts[:8] = 5.0  # a few rows, under the empty-cell threshold of noise 100
    edges = quantile_edges(counts, 0.0, 1.0, 16, noise_std=100.0)
    np.testing.assert_allclose(edges, uniform_edges(0.0, 1.0, 16), atol=1 / GRID_CELLS)


def test_quantile_bins_are_released_and_the_trees_route_on_them():
    # bin_edges_ holds each feature's range and released inner edges; the trees' splits
    # are drawn among the bins they define, and prediction bins by the same edges.
    X, y = _interaction(2_000, 15)
    clf = HistGradientBoostingClassifier(bounds=(-1, 1), classes=[0, 1], random_state=3,
                                         n_samples_public=True).fit(X, y)
    for j in range(4):
        assert clf.bin_edges_[j][0] == -1 and clf.bin_edges_[j][-1] == 1
        assert np.all(np.diff(clf.bin_edges_[j]) > 0)
    bins, n_bins = public_bins(X, np.full(4, -1.0), np.ones(4), np.zeros(4, bool), [], 16,
                               edges=[e[1:-1] for e in clf.bin_edges_])
    assert np.all(n_bins == [len(e) for e in clf.bin_edges_])  # and the NaN bin
    assert clf._go_right.shape[-1] == np.max(n_bins)
    leaves = leaf_index(np.ascontiguousarray(bins.T), clf._features[0, 0],
                        clf._go_right[0, 0])
    assert leaves.max() < 2**clf.max_depth_
    np.testing.assert_array_equal(clf.predict(X), clf.predict(X.copy()))
    with pytest.raises(ValueError, match="binning"):
        HistGradientBoostingClassifier(binning="kmeans", bounds=(-1, 1)).fit(X, y)


def test_quantile_bins_find_a_threshold_inside_a_heavy_tail():
    # A capital-gain-like feature: 0 for most rows, the label set by a threshold at 3,000
    # inside a range declared as (0, 100,000): equal-width bins cannot resolve it.
    rng = np.random.default_rng(16)
    n = 20_000
    gain = np.where(rng.uniform(size=n) < 0.6, 0.0, rng.uniform(1000, 5000, n))
    X = np.column_stack([gain, rng.uniform(0, 1, n)])
    y = (gain > 3000).astype(int)
    scores = {binning: HistGradientBoostingClassifier(
        bounds=(0, 1e5), classes=[0, 1], binning=binning, random_state=0).fit(X, y).score(X, y)
        for binning in ("quantile", "uniform")}
    assert scores["quantile"] > 0.95 and scores["uniform"] < 0.85
