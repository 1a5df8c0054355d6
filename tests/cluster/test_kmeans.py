"""Private k-means: its accounting against dp_accounting, its steps with the noise off."""

import warnings

import dp_accounting
import numpy as np
import pytest
from sklearn.cluster import KMeans as SkKMeans
from sklearn.datasets import make_blobs

from skprivate.accounting import BudgetAccountant
from skprivate.cluster import KMeans
from skprivate.cluster import _lloyd
from skprivate.exceptions import BudgetExceededError, PrivacyLeakWarning
from skprivate.mechanisms import check_rng


def _quiet_fit(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded noise in tests
        return est.fit(X)


def _blobs(n=6000, d=2, seed=0):
    centres = np.random.default_rng(seed).uniform(-8, 8, size=(4, d))
    X, _ = make_blobs(n, centers=centres, cluster_std=0.5, random_state=seed)
    return X


def _composed_epsilon(rhos, delta):
    """(epsilon, delta) of zCDP releases composed by dp_accounting's RDP accountant (on a
    dense grid of orders: its minimum over the grid is within 1e-5 of the continuous one)."""
    accountant = dp_accounting.rdp.RdpAccountant(
        orders=list(np.linspace(1.01, 10, 500)) + list(np.geomspace(10, 1e5, 2000)))
    for rho in rhos:
        accountant.compose(dp_accounting.ZCDpEvent(rho))
    return accountant.get_epsilon(delta)


@pytest.mark.parametrize("d, max_iter", [(2, "auto"), (9, 3)])
def test_the_released_noise_composes_within_epsilon(d, max_iter):
    """Every release's rho, recomputed from the noise in the report and the sensitivities
    (a level of the tree: 1; a leaf's or cluster's sum: sqrt(d); a count: 1), composed by
    dp_accounting's RDP accountant (an independent implementation), stays within epsilon_;
    and the count's share plus the rest is epsilon_ itself."""
    X = _blobs(d=d)
    km = _quiet_fit(KMeans(4, epsilon=0.7, delta=1e-6, bounds=(-10, 10), max_iter=max_iter,
                           random_state=0), X)
    report = km.privacy_report_
    rhos = [report["tree levels"] / (2 * report["tree count noise"] ** 2)]
    if d > _lloyd.MAX_TREE_DIMENSION:
        rhos.append(d / (2 * report["leaf sum noise"] ** 2))
    for _ in range(km.n_iter_):
        rhos.append(1 / (2 * report["lloyd count noise"] ** 2))
        rhos.append(d / (2 * report["lloyd sum noise"] ** 2))
    count_epsilon = 0.05 * 0.7
    assert sum(rhos) <= report["rho (zCDP)"] * (1 + 1e-12)
    assert count_epsilon + _composed_epsilon(rhos, 1e-6) <= km.epsilon_ * (1 + 1e-5)
    assert km.epsilon_ == pytest.approx(0.7) and km.epsilon_ <= 0.7
    assert km.delta_ == 1e-6
    assert km.n_iter_ == (3 if max_iter == 3 else km.n_iter_)


def test_public_number_of_rows_carries_a_zcdp_event():
    km = _quiet_fit(KMeans(3, epsilon=1.0, bounds=(-10, 10), n_samples_public=True,
                           random_state=0), _blobs())
    event = km._privacy_spend_record.event
    assert isinstance(event, dp_accounting.ZCDpEvent)
    # the event alone, converted by dp_accounting, is within the reported epsilon_
    assert _composed_epsilon([event.rho], km.delta_) <= km.epsilon_ * (1 + 1e-5)
    assert km.epsilon_ <= 1.0
    assert "treated as public" in km.privacy_report_["number of rows"]


def test_private_number_of_rows_is_released_not_read():
    km = _quiet_fit(KMeans(3, bounds=(-10, 10), random_state=0), _blobs())
    assert "discrete Laplace" in km.privacy_report_["number of rows"]
    assert km._privacy_spend_record.event is None  # the plan read the count: basic composition


def test_accountant_refuses_before_reading():
    accountant = BudgetAccountant(epsilon=0.5)
    with pytest.raises(BudgetExceededError):
        KMeans(3, epsilon=1.0, bounds=(-10, 10), accountant=accountant).fit(
            np.full((10, 2), np.nan))  # refused before the NaN is seen
    assert accountant.total() == (0.0, 0.0)


def test_labels_are_not_released():
    X = _blobs()
    km = _quiet_fit(KMeans(4, bounds=(-10, 10), random_state=0), X)
    with pytest.raises(AttributeError, match="predict"):
        km.labels_
    assert not hasattr(km, "labels_")
    labels = km.predict(X)
    assert labels.shape == (len(X),) and set(labels) <= set(range(4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = KMeans(4, bounds=(-10, 10), random_state=0).fit_predict(X)
    np.testing.assert_array_equal(again, labels)
    np.testing.assert_allclose(km.transform(X[:5]).min(axis=1) ** 2,
                               ((X[:5] - km.cluster_centers_[labels[:5]]) ** 2).sum(axis=1))
    assert km.score(X) == pytest.approx(-np.min(km.transform(X), axis=1) @ np.min(
        km.transform(X), axis=1))


def test_bounds_from_the_data_warn():
    with pytest.warns(PrivacyLeakWarning, match="bounds"):
        km = KMeans(3, random_state=None).fit(_blobs())
    assert "GUARANTEE_VOID" in " ".join(km.privacy_report_.caveat_codes).upper() or \
        km.privacy_report_.caveat_codes


@pytest.mark.parametrize("d", [2, 10])
def test_close_to_non_private_on_separated_blobs(d):
    """The issue's target in small: within 1.2x of non-private k-means at epsilon 1."""
    X = _blobs(n=20000, d=d, seed=1)
    km = _quiet_fit(KMeans(4, epsilon=1.0, bounds=(-10, 10), random_state=0), X)
    exact = SkKMeans(4, n_init=3, random_state=0).fit(X)
    assert -km.score(X) <= 1.2 * exact.inertia_


def test_lloyd_step_with_the_noise_off_is_lloyds():
    """Noise far below the grid: the step is exact Lloyd (clipped sums over counts)."""
    rng = np.random.default_rng(0)
    U = rng.uniform(-1, 1, size=(500, 3))
    centres = rng.uniform(-1, 1, size=(4, 3))
    new, counts = _lloyd.lloyd_step(U, centres, 1e-9, 1e-9, 0.5, check_rng(0))
    labels = np.argmin(((U[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
    for j in range(4):
        assert counts[j] == np.sum(labels == j)
        np.testing.assert_allclose(new[j], U[labels == j].mean(axis=0), atol=1e-9)


@pytest.mark.parametrize("p", [1, 3])
def test_tree_leaves_hold_their_rows_and_their_counts(p):
    """With the noise off: each row assigned to a leaf lies in that leaf's box (decoded
    independently from the code), the leaves are disjoint, and each leaf's count is the
    number of its rows (one row moves one count of each level by one: sensitivity 1)."""
    V = np.random.default_rng(1).beta(0.5, 0.5, size=(400, p))
    codes, depths, counts, row_leaf = _lloyd.dense_cells(V, 7 * p, 1e-9, 5, 64, check_rng(0))
    assert len(set(zip(codes.tolist(), depths.tolist()))) == codes.size
    assigned = row_leaf >= 0
    np.testing.assert_array_equal(counts, np.bincount(row_leaf[assigned],
                                                      minlength=codes.size))
    assert np.all(counts >= 5)
    centres = _lloyd.cell_centres(codes, depths, p)
    # the side of a cell along axis a: 2**-(levels below its depth that split axis a)
    splits = np.array([[len(range(a, depth, p)) for a in range(p)] for depth in depths])
    half = 2.0 ** -(splits + 1.0)
    leaf = row_leaf[assigned]
    assert np.all(np.abs(V[assigned] - centres[leaf]) <= half[leaf] + 1e-12)
    # the beta(0.5, 0.5) rows crowd the corners, which the tree keeps
    assert assigned.mean() > 0.5


def test_tree_finds_the_dense_cells_with_little_noise():
    U = np.clip(_blobs(d=2) / 10.0, -1, 1)
    V, basis = _lloyd.tree_coordinates(U, check_rng(0))
    assert basis is None
    codes, depths, counts, _ = _lloyd.dense_cells(V, 16, 0.01, 50, 64, check_rng(0))
    # leaves are disjoint and their counts sum to the rows of the dense cells kept
    assert counts.sum() <= len(U) + 1
    points = 2 * _lloyd.cell_centres(codes, depths, 2) - 1
    truth = SkKMeans(4, n_init=3, random_state=0).fit(U)
    start = SkKMeans(4, n_init=3, random_state=0).fit(points, sample_weight=counts)
    assert np.max(np.min(np.linalg.norm(
        truth.cluster_centers_[:, None] - start.cluster_centers_[None], axis=-1), axis=1)) < 0.1


def test_more_features_than_the_tree_uses_projects():
    U = np.random.default_rng(0).uniform(-1, 1, size=(50, 9))
    V, basis = _lloyd.tree_coordinates(U, check_rng(0))
    assert basis.shape == (9, _lloyd.MAX_TREE_DIMENSION)
    np.testing.assert_allclose(basis.T @ basis, np.eye(_lloyd.MAX_TREE_DIMENSION), atol=1e-12)
    assert V.min() >= 0 and V.max() <= 1


def test_lloyd_noise_has_the_stated_scale():
    """The released counts and sums carry noise of the deviations the accounting assumes
    (a release with less noise than accounted would be a privacy bug; more, a utility one)."""
    rng = np.random.default_rng(3)
    U = rng.uniform(-1, 1, size=(2000, 2))
    centres = np.array([[-0.5, 0.0], [0.5, 0.0]])
    labels = np.argmin(((U[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
    exact_counts = np.bincount(labels)
    exact_sums = np.stack([U[labels == j].sum(axis=0) for j in range(2)])
    generator = check_rng(0)
    count_noise, sum_noise = [], []
    for _ in range(400):
        new, counts = _lloyd.lloyd_step(U, centres, 20.0, 30.0, 0.0, generator)
        count_noise.append(counts - exact_counts)
        sum_noise.append(new * counts[:, None] - exact_sums)
    assert np.std(count_noise) == pytest.approx(20.0, rel=0.1)
    assert np.std(sum_noise) == pytest.approx(30.0, rel=0.1)
    assert abs(np.mean(count_noise)) < 2.0


def test_in_a_pipeline_and_a_search_with_the_cost_totalled():
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline

    from skprivate.accounting import total_privacy_cost
    from skprivate.preprocessing import BoundedScaler

    X = _blobs(n=3000)
    pipe = make_pipeline(BoundedScaler(bounds=(-10, 10)),
                         KMeans(4, epsilon=0.5, bounds=(0, 1), random_state=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labels = pipe.fit(X).predict(X)
        search = GridSearchCV(KMeans(bounds=(-10, 10), random_state=0),
                              {"n_clusters": [2, 4]}, cv=2).fit(X)
    assert labels.shape == (3000,)
    assert search.best_params_ == {"n_clusters": 4}
    # 2 candidates x 2 folds + the refit, each at epsilon 1 on overlapping rows
    assert total_privacy_cost(search, X)[0] == pytest.approx(5.0)
