"""Private GaussianNB: sensitivity by brute force, the budget, the noise and the utility."""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler

from skprivate.accounting import BudgetAccountant
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.mechanisms import granular_laplace_plan
from skprivate.mechanisms._rng import check_rng
from skprivate.naive_bayes import GaussianNB
from skprivate.naive_bayes import _gaussian as G

quiet = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")


def _grid_max(weight, offset):
    # a fine grid, plus the points where the maximum can be: the ends and |u| = 1 / (2 w)
    u = np.r_[np.linspace(-1.0, 1.0, 20_001), 1 / (2 * weight), -1 / (2 * weight)]
    return float(np.max(np.abs(u) + weight * np.abs(u * u - offset)))


@pytest.mark.parametrize("weight", [Fraction(1, 2), Fraction(3, 4), 1, 2, 3, Fraction(3, 2)])
def test_feature_sensitivity_is_the_maximum_over_the_interval(weight):
    # The closed form against a brute-force maximum over a fine grid of u in [-1, 1].
    t = G.square_offset(weight)
    g = float(G.feature_sensitivity(weight))
    grid = _grid_max(float(weight), float(t))
    assert grid <= g + 1e-12
    assert grid == pytest.approx(g, abs=1e-9)
    assert g == pytest.approx((1 + float(weight) + 1 / (4 * float(weight))) / 2, abs=1e-6)
    # The offset minimises the maximum: any other offset does worse.
    for other in np.linspace(0.0, 1.0, 41):
        assert _grid_max(float(weight), other) >= g - 1e-3


def _stats(X01, y_index, n_classes):
    """The exact statistic the mechanism releases, in units of u: counts, then the vector."""
    U_int = np.rint(np.clip(X01, -1, 1) * 2.0**G.U_BITS)
    offset = int(G.square_offset() * 2 ** (2 * G.U_BITS))
    counts, sums, squares = G.moment_statistics(U_int, y_index, n_classes, offset)
    vector = np.concatenate([sums.ravel() / 2.0**G.U_BITS,
                             squares.sum(axis=0) / 2.0 ** (2 * G.U_BITS)])
    return counts, vector


def test_removing_any_row_moves_the_statistics_by_at_most_the_sensitivity():
    # Brute force over neighbours: rows at the corners of the box (where the bound is
    # attained) and random rows; remove each one and measure the L1 change.
    rng = np.random.default_rng(0)
    d, k = 4, 3
    corners = np.array([[1, -1, 0.5, 1 / 2 / float(G.VARIANCE_WEIGHT)], [-1, 1, 1, 0.0]])
    X01 = np.vstack([corners, rng.uniform(-1, 1, size=(40, d))])
    y_index = rng.integers(0, k, size=len(X01))
    counts, vector = _stats(X01, y_index, k)
    bound = d * float(G.feature_sensitivity())
    worst = 0.0
    for i in range(len(X01)):
        keep = np.arange(len(X01)) != i
        counts_i, vector_i = _stats(X01[keep], y_index[keep], k)
        assert np.abs(counts - counts_i).sum() == 1
        change = np.abs(vector - vector_i).sum()
        assert change <= bound
        worst = max(worst, change)
    # The first corner row attains the per-feature maximum in its first feature and the
    # interior maximum in its last (u = 1/(2w)): the bound is nearly tight.
    assert worst > 0.9 * bound


def test_epsilon_is_the_claim_and_the_parts_compose_exactly():
    X, y = np.random.default_rng(1).uniform(0, 1, (200, 7)), np.arange(200) % 2
    accountant = BudgetAccountant(epsilon=0.3)
    clf = GaussianNB(epsilon=0.3, bounds=(0, 1), classes=[0, 1], accountant=accountant)
    clf.fit(X, y)
    assert clf.epsilon_ == 0.3 and clf.delta_ == 0.0
    report = clf.privacy_report_
    parts = report["epsilon (class counts)"], report["epsilon (sums and squares)"]
    assert Fraction(parts[0]) + Fraction(parts[1]) <= Fraction(0.3)
    assert parts[0] == pytest.approx(0.3 * G.count_share(7))
    assert report["l1_sensitivity (sums and squares)"] == 7.0  # d: the squares cost nothing (w = 1/2, t = 1)
    assert accountant.total() == (0.3, 0.0)
    assert report.caveat_codes == []


def test_released_sums_lie_on_the_grid_with_the_planned_laplace_noise():
    # The release minus the exact statistic, in grid steps: integers, with the variance of
    # discrete Laplace noise of the plan's scale (2 p / (1 - p)**2, p = exp(-1 / scale)).
    rng = np.random.default_rng(2)
    d, k, epsilon = 10, 2, 0.7
    X01 = rng.uniform(-1, 1, size=(300, d))
    y_index = rng.integers(0, k, size=300)
    counts, vector = _stats(X01, y_index, k)
    eps_counts = epsilon * G.count_share(d)
    eps_moments = epsilon - eps_counts
    plan = granular_laplace_plan(G._float_up(d * G.feature_sensitivity()), eps_moments,
                                 vector.size)
    steps, count_noise = [], []
    generator = check_rng(3)
    for _ in range(150):
        noisy_counts, sums, squares, _ = G._release(X01, y_index, k, epsilon, generator)
        released = np.concatenate([sums.ravel(), squares.ravel()])
        steps.append((released - vector) / plan.gamma)
        count_noise.append(noisy_counts - counts)
    steps, count_noise = np.concatenate(steps), np.concatenate(count_noise)
    assert np.all(np.abs(steps - np.round(steps)) <= 0.5)  # the exact value's rounding
    assert np.all(count_noise == np.round(count_noise))
    p = np.exp(-1.0 / float(plan.scale))
    expected = 2 * p / (1 - p) ** 2
    assert np.var(steps) == pytest.approx(expected, rel=0.1)
    p_c = np.exp(-eps_counts)
    assert np.var(count_noise) == pytest.approx(2 * p_c / (1 - p_c) ** 2, rel=0.25)


def test_every_released_moment_is_a_multiple_of_the_grid():
    rng = np.random.default_rng(4)
    X01 = rng.uniform(-1, 1, size=(100, 3))
    y_index = rng.integers(0, 2, size=100)
    _, sums, squares, _ = G._release(X01, y_index, 2, 1.0, check_rng(0))
    gamma = granular_laplace_plan(G._float_up(3 * G.feature_sensitivity()),
                                  1.0 - G.count_share(3), sums.size + squares.size).gamma
    for value in (sums, squares):
        assert np.all(np.mod(value / gamma, 1.0) == 0.0)


@quiet
def test_a_huge_epsilon_recovers_the_exact_model():
    # Noise negligible: the means per class, the pooled within-class variance and the
    # priors of the clipped rows, computed here independently.
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(2, 1, (3000, 2)), rng.normal(5, 2, (1000, 2))])
    y = np.r_[np.zeros(3000, int), np.ones(1000, int)]
    clf = GaussianNB(epsilon=1e5, bounds=(-5, 15), classes=[0, 1], random_state=0).fit(X, y)
    Xc = np.clip(X, -5, 15)
    means = np.array([Xc[y == c].mean(axis=0) for c in (0, 1)])
    pooled = sum(((Xc[y == c] - means[c]) ** 2).sum(axis=0) for c in (0, 1)) / len(y)
    np.testing.assert_allclose(clf.theta_, means, atol=5e-3)
    np.testing.assert_allclose(clf.var_, np.vstack([pooled, pooled]), rtol=5e-3)
    np.testing.assert_allclose(clf.class_prior_, [0.75, 0.25], atol=1e-3)
    np.testing.assert_array_equal(clf.class_count_, [3000, 1000])
    assert clf.score(X, y) > 0.85


def test_breast_cancer_at_epsilon_one_is_well_above_the_majority():
    X, y = load_breast_cancer(return_X_y=True)
    X = MinMaxScaler().fit_transform(X)  # a test: the bounds (0, 1) stand for public ones
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    majority = max(np.mean(yte), 1 - np.mean(yte))  # 0.63
    scores = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # the seed caveat
        for seed in range(5):
            clf = GaussianNB(epsilon=1.0, bounds=(0, 1), classes=[0, 1], random_state=seed)
            scores.append(clf.fit(Xtr, ytr).score(Xte, yte))
    assert np.mean(scores) > majority + 0.15, scores


def test_priors_are_used_and_checked():
    X, y = np.random.default_rng(6).uniform(0, 1, (100, 2)), np.arange(100) % 2
    clf = GaussianNB(priors=[0.9, 0.1], bounds=(0, 1), classes=[0, 1]).fit(X, y)
    np.testing.assert_array_equal(clf.class_prior_, [0.9, 0.1])
    with pytest.raises(ValueError, match="priors must hold one probability per class"):
        GaussianNB(priors=[1.0], bounds=(0, 1), classes=[0, 1]).fit(X, y)
    with pytest.raises(ValueError, match="sum to 1"):
        GaussianNB(priors=[0.5, 0.6], bounds=(0, 1), classes=[0, 1]).fit(X, y)


def test_bounds_and_classes_read_from_the_data_void_the_guarantee_once():
    X, y = np.random.default_rng(7).uniform(0, 1, (100, 2)), np.arange(100) % 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = GaussianNB().fit(X, y)
    leaks = [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    assert len(leaks) == 1
    assert set(clf.privacy_report_.caveat_codes) == {"labels_from_data", "bounds_from_data"}


def test_declared_bounds_must_be_ordered():
    X, y = np.ones((10, 2)), np.arange(10) % 2
    with pytest.raises(ValueError, match="lower bound must be below"):
        GaussianNB(bounds=(1, 0), classes=[0, 1]).fit(X, y)


def test_the_variance_floor_is_public_and_holds():
    X, y = np.zeros((50, 2)), np.arange(50) % 2  # no spread at all
    clf = GaussianNB(bounds=(-1, 1), classes=[0, 1], var_smoothing=1e-3).fit(X, y)
    assert np.all(clf.var_ >= clf.var_floor_)
    expected = 1e-3 + np.sqrt(2) * clf.privacy_report_["l1_sensitivity (sums and squares)"] / (
        clf.privacy_report_["epsilon (sums and squares)"] * float(G.VARIANCE_WEIGHT)
    ) / clf.class_count_.sum()
    np.testing.assert_allclose(clf.var_floor_, expected)
    assert np.all(np.isfinite(clf.predict_log_proba(X)))


def test_the_report_lists_what_is_public_and_not_the_number_of_rows():
    # The class counts are released with noise: the exact number of rows is read into
    # nothing published, so the report does not take it as public.
    X, y = np.random.default_rng(8).uniform(0, 1, (60, 2)), np.arange(60) % 2
    clf = GaussianNB(bounds=(0, 1), classes=[0, 1]).fit(X, y)
    public = {item.name for item in clf.privacy_report_["public"]}
    assert public == {"columns", "bounds", "classes"}


def test_bounds_too_wide_for_a_finite_variance_still_give_probabilities():
    X = np.random.default_rng(9).normal(size=(200, 2))
    y = (X[:, 0] > 0).astype(int)
    clf = GaussianNB(bounds=(-1e300, 1e300), classes=[0, 1]).fit(X, y)
    assert np.all(np.isinf(clf.var_))
    proba = clf.predict_proba(X[:5])
    np.testing.assert_allclose(proba, np.tile(clf.class_prior_, (5, 1)))
