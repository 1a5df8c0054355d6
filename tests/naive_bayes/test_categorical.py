"""Private CategoricalNB: sensitivity by brute force, the noise, the budget, the utility."""

import warnings

import numpy as np
import pytest
from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.naive_bayes import CategoricalNB
from skprivate.naive_bayes._categorical import category_counts

quiet = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    X = np.column_stack([
        (y + (rng.random(n) < 0.2)) % 4,  # informative, 4 categories
        rng.integers(0, 5, size=n),  # noise, 5 categories
        (2 * y + rng.integers(0, 2, size=n)) % 6,  # informative, 6 categories
    ])
    return X, y


def test_removing_any_row_moves_the_counts_by_exactly_the_number_of_features():
    X, y = _data(60, seed=1)
    full = np.concatenate([c.ravel() for c in category_counts(X, y, 3, [4, 5, 6])])
    for i in range(len(X)):
        keep = np.arange(len(X)) != i
        less = np.concatenate([c.ravel() for c in category_counts(X[keep], y[keep], 3,
                                                                   [4, 5, 6])])
        assert np.abs(full - less).sum() == X.shape[1]  # the sensitivity used: d


def test_the_noise_is_discrete_laplace_of_scale_d_over_epsilon():
    # Many cells, several fits: integer noise whose variance is that of the discrete
    # Laplace of scale d / epsilon, 2 p / (1 - p)**2 with p = exp(-epsilon / d).
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.integers(0, 40, size=4000) for _ in range(3)])
    y = rng.integers(0, 2, size=4000)
    exact = np.concatenate([c.ravel() for c in category_counts(X, y, 2, [40, 40, 40])])
    noise = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # the seed caveat
        for seed in range(12):
            clf = CategoricalNB(epsilon=1.5, min_categories=40, classes=[0, 1],
                                random_state=seed).fit(X, y)
            released = np.concatenate([c.ravel() for c in clf.category_count_])
            kept = exact > 40  # far from the clip at 0
            noise.append((released - exact)[kept])
    noise = np.concatenate(noise)
    assert np.all(noise == np.round(noise))
    p = np.exp(-1.5 / 3)
    assert np.var(noise) == pytest.approx(2 * p / (1 - p) ** 2, rel=0.12)
    assert abs(np.mean(noise)) < 0.2


def test_epsilon_is_the_claim_and_pure():
    X, y = _data()
    clf = CategoricalNB(epsilon=0.5, min_categories=[4, 5, 6], classes=[0, 1, 2]).fit(X, y)
    assert (clf.epsilon_, clf.delta_) == (0.5, 0.0)
    assert clf.privacy_report_["l1_sensitivity"] == 3
    assert clf.privacy_report_.caveat_codes == []
    np.testing.assert_array_equal(clf.n_categories_, [4, 5, 6])


@quiet
def test_a_huge_epsilon_recovers_scikit_learns_model():
    X, y = _data()
    ours = CategoricalNB(epsilon=1e6, min_categories=[4, 5, 6], classes=[0, 1, 2],
                         random_state=0).fit(X, y)
    theirs = SkCategoricalNB(min_categories=[4, 5, 6]).fit(X, y)
    for a, b in zip(ours.feature_log_prob_, theirs.feature_log_prob_):
        np.testing.assert_allclose(a, b, atol=1e-3)
    np.testing.assert_allclose(ours.class_log_prior_, theirs.class_log_prior_, atol=1e-3)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_accuracy_at_epsilon_one_is_close_to_the_non_private_model():
    X, y = _data()
    Xte, yte = _data(2000, seed=9)
    baseline = SkCategoricalNB().fit(X, y).score(Xte, yte)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # the seed caveat
        scores = [CategoricalNB(epsilon=1.0, min_categories=[4, 5, 6], classes=[0, 1, 2],
                                random_state=s).fit(X, y).score(Xte, yte) for s in range(5)]
    assert np.mean(scores) > baseline - 0.02 and np.mean(scores) > 0.6


def test_codes_beyond_the_declared_categories_are_refused_by_name():
    X, y = _data(100)
    with pytest.raises(ValueError, match="min_categories"):
        CategoricalNB(min_categories=[3, 5, 6], classes=[0, 1, 2]).fit(X, y)


def test_categories_read_from_the_data_void_the_guarantee():
    X, y = _data(100)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = CategoricalNB(classes=[0, 1, 2]).fit(X, y)
    assert sum(issubclass(w.category, PrivacyLeakWarning) for w in caught) == 1
    assert clf.privacy_report_.caveat_codes == ["bounds_from_data"]


def test_class_prior_and_fit_prior():
    X, y = _data(300)
    clf = CategoricalNB(class_prior=[0.2, 0.3, 0.5], min_categories=[4, 5, 6],
                        classes=[0, 1, 2]).fit(X, y)
    np.testing.assert_allclose(np.exp(clf.class_log_prior_), [0.2, 0.3, 0.5])
    clf = CategoricalNB(fit_prior=False, min_categories=[4, 5, 6], classes=[0, 1, 2]).fit(X, y)
    np.testing.assert_allclose(np.exp(clf.class_log_prior_), [1 / 3] * 3)


def test_a_code_never_declared_predicts_without_error():
    X, y = _data(300)
    clf = CategoricalNB(min_categories=[4, 5, 6], classes=[0, 1, 2]).fit(X, y)
    proba = clf.predict_proba([[9, 9, 9], [0, 0, 0]])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(proba[0], np.exp(clf.class_log_prior_))


def test_the_report_lists_what_is_public_and_not_the_number_of_rows():
    X, y = _data(300)
    clf = CategoricalNB(min_categories=[4, 5, 6], classes=[0, 1, 2]).fit(X, y)
    public = {item.name for item in clf.privacy_report_["public"]}
    assert public == {"columns", "min_categories", "classes"}


def test_categories_left_to_the_data_are_a_leak_before_the_fit():
    # Totals of unfitted or refitted steps (a scikit-learn search) read the parameters.
    from skprivate.accounting import leaking_steps

    [step] = leaking_steps(CategoricalNB(classes=[0, 1]))
    assert [c.code for c in step.caveats] == ["bounds_from_data"]
    assert "min_categories" in step.caveats[0]
    assert leaking_steps(CategoricalNB(classes=[0, 1], min_categories=3)) == []


def test_alpha_zero_keeps_probabilities_defined_when_noise_empties_a_class():
    X, y = _data(30)
    emptied = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # the seed caveat
        for seed in range(10):
            clf = CategoricalNB(alpha=0.0, epsilon=0.01, min_categories=[4, 5, 6],
                                classes=[0, 1, 2], random_state=seed).fit(X, y)
            emptied += any(np.any(c.sum(axis=1) == 0) for c in clf.category_count_)
            assert all(np.all(np.isfinite(p)) for p in clf.feature_log_prob_)
            assert np.all(np.isfinite(clf.predict_proba(X)))
    assert emptied  # the case tested occurred
