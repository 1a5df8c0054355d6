"""Soft labels: the student learns how sure each noisy answer is (skprivate.pate._soft_labels)."""

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from skprivate.pate import PATEClassifier
from skprivate.pate._soft_labels import _MIN_WEIGHT, plurality_posterior, weight_parameter

pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")

X_bc, y_bc = load_breast_cancer(return_X_y=True)
_perm = np.random.default_rng(0).permutation(len(y_bc))
X_bc, y_bc = X_bc[_perm], y_bc[_perm]
X_priv, y_priv = X_bc[:380], y_bc[:380]
X_pub, X_test, y_test = X_bc[380:480], X_bc[480:], y_bc[480:]


class WeightRecorder(DecisionTreeClassifier):
    """A tree that keeps what its fit received."""

    def fit(self, X, y, sample_weight=None):
        self.seen_ = (np.asarray(X).copy(), np.asarray(y).copy(),
                      None if sample_weight is None else np.asarray(sample_weight).copy())
        return super().fit(X, y, sample_weight=sample_weight)


def fit(**params):
    base = dict(teacher=DecisionTreeClassifier(max_depth=3), epsilon=2.0, random_state=0)
    return PATEClassifier(**(base | params)).fit(X_priv, y_priv, X_public=X_pub)


# --- the posterior ---------------------------------------------------------------------------
@pytest.mark.parametrize("mechanism", ["gaussian", "laplace"])
def test_posterior_is_calibrated_against_simulated_votes(mechanism):
    # Monte-Carlo check of the Bayes rule itself: true counts drawn from a wide uniform
    # prior (flat where it matters), noise added as the aggregator does; among answers
    # given posterior about p for a class, that class is the true plurality a fraction p of
    # the time.
    rng = np.random.default_rng(0)
    scale, n = 20.0, 200_000
    true = rng.uniform(0, 400, size=(n, 3))
    noise = (rng.normal(0, scale, true.shape) if mechanism == "gaussian"
             else rng.laplace(0, scale, true.shape))
    noisy = np.round(true + noise)
    keep = np.abs(np.sort(noisy, axis=1)[:, -1] - np.sort(noisy, axis=1)[:, -2]) < 3 * scale
    noisy, true = noisy[keep][:20_000], true[keep][:20_000]
    posterior = plurality_posterior(noisy, mechanism, scale, seed=1)
    np.testing.assert_allclose(posterior.sum(axis=1), 1.0)
    p, hit = posterior.ravel(), (true.argmax(axis=1)[:, None] == np.arange(3)).ravel()
    bins = np.digitize(p, np.linspace(0, 1, 11)[1:-1])
    for b in range(10):
        inside = bins == b
        if inside.sum() > 500:
            assert abs(hit[inside].mean() - p[inside].mean()) < 0.03, b


def test_two_class_gaussian_closed_form_matches_monte_carlo():
    # The closed form (two classes) against the Monte-Carlo path (a third class far below).
    counts = np.array([[30, 10], [10, 30], [20, 21], [0, 90], [55, 54]], dtype=float)
    closed = plurality_posterior(counts, "gaussian", 15.0, seed=0)
    mc = plurality_posterior(np.column_stack([counts, np.full(5, -1e6)]), "gaussian", 15.0,
                             seed=0)
    np.testing.assert_allclose(mc[:, :2], closed, atol=0.09)  # 256 draws: sd <= 0.031
    np.testing.assert_allclose(closed[:, 1], norm.cdf((counts[:, 1] - counts[:, 0])
                                                      / (np.sqrt(2) * 15.0)))


def test_laplace_posterior_matches_the_difference_of_two_laplace():
    # Two classes: P(plurality is 1 | n) = P(z0 - z1 < n1 - n0), z iid Laplace(b); that
    # difference has cdf 1 - exp(-d/b) (1 + d/(2b)) / 2 for d >= 0.
    b, d = 10.0, np.array([0.0, 5.0, 15.0, 40.0])
    counts = np.column_stack([np.zeros(4), d])
    mc = np.mean([plurality_posterior(counts, "laplace", b, seed=s)[:, 1] for s in range(8)],
                 axis=0)
    exact = 1 - np.exp(-d / b) * (1 + d / (2 * b)) / 2
    np.testing.assert_allclose(mc, exact, atol=0.02)


def test_weight_parameter_finds_the_route():
    assert weight_parameter(RandomForestClassifier()) == "sample_weight"
    assert weight_parameter(make_pipeline(StandardScaler(), LogisticRegression())) == \
        "logisticregression__sample_weight"
    assert weight_parameter(KNeighborsClassifier()) is None
    assert weight_parameter(make_pipeline(StandardScaler(), KNeighborsClassifier())) is None


# --- the classifier ------------------------------------------------------------------------
def test_student_gets_each_point_once_per_class_with_posterior_weights():
    clf = fit(student=WeightRecorder())
    assert clf.soft_labels_
    X_seen, y_seen, w = clf.student_.seen_
    assert w is not None and np.all((w >= _MIN_WEIGHT) & (w <= 1))
    # Each answered point's weights over the classes sum to one, less the classes below
    # _MIN_WEIGHT, which get no row; some points are not sure (both classes present).
    _, inverse, rows = np.unique(X_seen, axis=0, return_inverse=True, return_counts=True)
    totals = np.bincount(inverse.ravel(), weights=w)
    assert len(totals) == clf.n_answered_
    assert np.all(totals <= 1 + 1e-12)
    assert np.all(totals > 1 - _MIN_WEIGHT * (len(clf.classes_) - 1))
    assert np.any(rows == 2)  # some answers were unsure: both classes got a row
    assert set(y_seen) <= set(clf.classes_)
    assert "soft" in clf.privacy_report_["student labels"]


def test_soft_labels_change_neither_the_noise_nor_the_epsilon():
    soft, hard = fit(soft_labels=True), fit(soft_labels=False)
    assert soft.soft_labels_ and not hard.soft_labels_
    assert (soft.n_queries_, soft.noise_scale_, soft.epsilon_) == \
        (hard.n_queries_, hard.noise_scale_, hard.epsilon_)
    # The data-dependent bound covers the arg max only: with soft labels it is not claimed.
    assert soft.epsilon_data_dependent_ == soft.epsilon_
    assert hard.epsilon_data_dependent_ <= hard.epsilon_


def test_soft_labels_with_the_noisy_labels_agree():
    # Same seed, same noise: the hard labels are the arg max of the soft ones.
    soft = fit(student=WeightRecorder(), soft_labels=True)
    hard = fit(student=WeightRecorder(), soft_labels=False)
    X_soft, y_soft, w = soft.student_.seen_
    X_hard, y_hard, _ = hard.student_.seen_
    for x, label in zip(X_hard, y_hard):
        rows = np.all(X_soft == x, axis=1)
        if np.ptp(w[rows]) == 0:
            continue  # a tie of the noisy counts: the hard label broke it at random
        assert y_soft[rows][np.argmax(w[rows])] == label


@pytest.mark.parametrize("params, auto", [
    (dict(release_data_dependent=True), False),
    (dict(semi_supervised="self_training"), False),
    (dict(student=KNeighborsClassifier(3)), False),
    (dict(student=make_pipeline(StandardScaler(), LogisticRegression())), True),
    (dict(aggregator="lnmax"), True),
    (dict(aggregator="confident_gnmax", epsilon=4.0), True),
])
def test_auto_uses_soft_labels_where_they_apply(params, auto):
    clf = fit(**params)
    assert clf.soft_labels_ is auto
    assert clf.privacy_report_["student labels"].startswith("soft" if auto else "the noisy")
    assert set(clf.predict(X_test)) <= set(clf.classes_)


@pytest.mark.parametrize("params, words", [
    (dict(release_data_dependent=True), "release_data_dependent=True"),
    (dict(semi_supervised="label_spreading"), "semi_supervised='label_spreading'"),
    (dict(student=KNeighborsClassifier()), "sample_weight"),
])
def test_explicit_soft_labels_refuses_what_it_cannot_do(params, words):
    calls = []

    class Counting(DecisionTreeClassifier):
        def fit(self, X, y, sample_weight=None):
            calls.append(1)
            return super().fit(X, y, sample_weight=sample_weight)

    with pytest.raises(ValueError, match="soft_labels=True") as info:
        fit(teacher=Counting(max_depth=3), soft_labels=True, **params)
    assert words in str(info.value)
    assert not calls  # refused before any teacher is trained


def test_bad_soft_labels_value_is_refused():
    with pytest.raises(ValueError, match="soft_labels"):
        fit(soft_labels="yes")


# --- the default student ---------------------------------------------------------------------
@pytest.mark.parametrize("n_classes, n_queries, expected", [
    (2, 1000, "HistGradientBoostingClassifier"),
    (2, 999, "RandomForestClassifier"),
    (3, 1000, "RandomForestClassifier"),
])
def test_default_student_is_boosting_for_two_classes_and_many_queries(n_classes, n_queries,
                                                                      expected):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=2200, n_features=8, n_informative=5,
                               n_classes=n_classes, random_state=0)
    clf = PATEClassifier(n_teachers=4, noise_scale=1.0, n_queries=n_queries, epsilon=None,
                         random_state=0)
    with pytest.warns(UserWarning):  # no budget: the fit says what it reached
        clf.fit(X[:1200], y[:1200], X_public=X[1200:])
    assert type(clf.student_).__name__ == expected
    assert clf.privacy_report_["student"] == expected
    if expected == "RandomForestClassifier":
        # Leaves of at least 5 rows average neighbouring noisy answers (fully grown trees
        # fit each one's noise: _labelling._STUDENT_MIN_SAMPLES_LEAF).
        assert clf.student_.min_samples_leaf == 5
        tree = clf.student_.estimators_[0].tree_
        leaves = tree.children_left == -1
        assert tree.n_node_samples[leaves].min() >= 5
    # A teacher given: the student is its clone, whatever the number of queries.
    given = PATEClassifier(DecisionTreeClassifier(max_depth=4), n_teachers=4, noise_scale=1.0,
                           n_queries=n_queries, epsilon=None, random_state=0)
    with pytest.warns(UserWarning):
        given.fit(X[:1200], y[:1200], X_public=X[1200:])
    assert type(given.student_).__name__ == "DecisionTreeClassifier"
