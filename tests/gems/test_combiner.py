"""GEMSCombiner: behaviour on real data, the federated path, errors, and the estimator API."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import InvalidParameterError

from skprivate.gems import GEMSCombiner, NoIntersectionError, good_enough_space

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


@pytest.fixture(scope="module")
def parity():
    """The paper's shallow experiment on digits: party 0 holds 0-4, party 1 holds 5-9."""
    X, digit = load_digits(return_X_y=True)
    X_train, X_test, d_train, d_test = train_test_split(
        X / 16.0, digit, test_size=0.3, random_state=0, stratify=digit
    )
    scaler = StandardScaler().fit(X_train)
    return (scaler.transform(X_train), d_train % 2, (d_train >= 5).astype(int),
            scaler.transform(X_test), d_test % 2)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    return X, y, np.arange(len(y)) % 3


def _party_seeds(random_state, n_parties):
    return np.random.default_rng(random_state).integers(2**31 - 1, size=n_parties)


# --- behaviour ---------------------------------------------------------------------------------

def test_parity_split_beats_local_models_and_nears_the_pooled_model(parity):
    X, y, groups, X_test, y_test = parity
    gems = GEMSCombiner(LogisticRegression(C=0.1), random_state=0).fit(X, y, groups)
    local = [LogisticRegression(C=0.1).fit(X[groups == k], y[groups == k]).score(X_test, y_test)
             for k in (0, 1)]
    gold = LogisticRegression(C=0.1).fit(X, y).score(X_test, y_test)
    score = gems.score(X_test, y_test)
    assert score > max(local) + 0.04
    assert score > gold - 0.06
    assert 0 <= gems.intersection_margin_ < 0.01  # the smallest threshold: just touching
    assert gems.n_parties_ == 2 and gems.radii_.shape == (2,)


def test_smallest_epsilon_is_the_smallest(parity):
    X, y, groups, _, _ = parity
    gems = GEMSCombiner(LogisticRegression(C=0.1), random_state=0).fit(X, y, groups)
    at = GEMSCombiner(LogisticRegression(C=0.1), epsilon=gems.epsilon_, random_state=0)
    np.testing.assert_allclose(at.fit(X, y, groups).coef_, gems.coef_)
    below = GEMSCombiner(LogisticRegression(C=0.1), epsilon=0.99 * gems.epsilon_,
                         random_state=0)
    with pytest.raises(NoIntersectionError, match="Parties 0 and 1"):
        below.fit(X, y, groups)


def test_federated_path_gives_the_fit_model(cancer):
    X, y, groups = cancer
    fitted = GEMSCombiner(epsilon=0.35, random_state=7).fit(X, y, groups)
    seeds = _party_seeds(7, 3)
    spaces = [good_enough_space(LogisticRegression(), X[groups == k], y[groups == k], 0.35,
                                random_state=seeds[k]) for k in range(3)]
    combined = GEMSCombiner().combine(spaces)
    np.testing.assert_array_equal(combined.coef_, fitted.coef_)
    np.testing.assert_array_equal(combined.intercept_, fitted.intercept_)
    np.testing.assert_array_equal(combined.radii_, fitted.radii_)
    assert combined.epsilon_ == fitted.epsilon_ == 0.35


def test_federated_path_with_the_searched_epsilon_and_public_data(cancer):
    X, y, groups = cancer
    public = slice(0, 60)
    private = np.arange(60, len(y))
    fitted = GEMSCombiner(random_state=1).fit(X[private], y[private], groups[private],
                                              X_public=X[public], y_public=y[public])
    seeds = _party_seeds(1, 3)
    spaces = [
        good_enough_space(LogisticRegression(), X[private][groups[private] == k],
                          y[private][groups[private] == k], fitted.epsilon_,
                          random_state=seeds[k])
        for k in range(3)
    ]
    combined = GEMSCombiner().combine(spaces, X[public], y[public])
    np.testing.assert_allclose(combined.coef_, fitted.coef_)


def test_results_do_not_depend_on_n_jobs(cancer):
    X, y, groups = cancer
    one = GEMSCombiner(epsilon=0.35, random_state=0, n_jobs=1).fit(X, y, groups)
    two = GEMSCombiner(epsilon=0.35, random_state=0, n_jobs=2).fit(X, y, groups)
    np.testing.assert_array_equal(one.coef_, two.coef_)


def test_five_non_iid_parties_multiclass():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0,
                                                        stratify=y)
    rng = np.random.default_rng(0)
    # Skewed class shares per party (Dirichlet 0.5); every party keeps two rows per class.
    share = rng.dirichlet(np.full(5, 0.5), size=10)
    groups = np.array([rng.choice(5, p=share[c]) for c in y_train])
    for c in range(10):
        for k in range(5):
            if np.sum((y_train == c) & (groups == k)) < 2:
                groups[np.flatnonzero(y_train == c)[2 * k:2 * k + 2]] = k
    gems = GEMSCombiner(LogisticRegression(C=0.1), n_directions=100, random_state=0)
    gems.fit(X_train, y_train, groups)
    assert gems.coef_.shape == (10, 64) and gems.n_parties_ == 5
    assert gems.intersection_margin_ >= 0
    local = [LogisticRegression(C=0.1).fit(X_train[groups == k], y_train[groups == k])
             .score(X_test, y_test) for k in range(5)]
    assert gems.score(X_test, y_test) > np.mean(local)


def test_hinge_intersection_lies_inside_every_ball(cancer):
    X, y, groups = cancer
    gems = GEMSCombiner(epsilon=0.4, intersection="hinge", random_state=0).fit(X, y, groups)
    minimax = GEMSCombiner(epsilon=0.4, random_state=0).fit(X, y, groups)
    assert 0 <= gems.intersection_margin_ <= minimax.intersection_margin_


def test_fine_tuning_on_public_data_helps(parity):
    X, y, groups, X_test, y_test = parity
    raw = GEMSCombiner(LogisticRegression(C=0.1), random_state=0).fit(X[100:], y[100:],
                                                                      groups[100:])
    tuned = GEMSCombiner(LogisticRegression(C=0.1), random_state=0).fit(
        X[100:], y[100:], groups[100:], X_public=X[:100], y_public=y[:100])
    assert tuned.score(X_test, y_test) >= raw.score(X_test, y_test)
    off = GEMSCombiner(LogisticRegression(C=0.1), fine_tune=False, random_state=0).fit(
        X[100:], y[100:], groups[100:], X_public=X[:100], y_public=y[:100])
    np.testing.assert_array_equal(off.coef_, raw.coef_)


# --- deep GEMS --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def permuted():
    """Party 0: original digits; party 1: the same kind of images with pixels permuted."""
    X, y = load_digits(return_X_y=True)
    X = X[:900] / 16.0
    y = y[:900]
    perm = np.random.default_rng(0).permutation(64)
    X = np.vstack([X[:450], X[450:, perm]])
    groups = np.r_[np.zeros(450, int), np.ones(450, int)]
    return X, y, groups


def test_deep_merges_matched_neurons_and_keeps_the_others(permuted):
    X, y, groups = permuted
    gems = GEMSCombiner(hidden_layer_sizes=10, epsilon=0.05, fine_tune=False,
                        random_state=0).fit(X, y, groups)
    assert gems.n_hidden_ == 20 - gems.n_matched_
    assert gems.coefs_[0].shape == (64, gems.n_hidden_)
    assert gems.coefs_[1].shape == (gems.n_hidden_, 10)
    spaces = gems.spaces_
    for i, group in enumerate(gems.groups_):
        merged = np.r_[gems.coefs_[0][:, i], gems.intercepts_[0][i], gems.coefs_[1][i]]
        for party, neuron in group:
            dist = np.linalg.norm(merged - spaces[party].centers[neuron])
            assert dist <= spaces[party].radii[neuron] * (1 + 1e-9)
    # Unmatched neurons are copied unchanged, party 0's first.
    matched0 = {h for g in gems.groups_ for k, h in g if k == 0}
    kept0 = [h for h in range(10) if h not in matched0]
    W1_party0 = spaces[0].network["coefs"][0]
    np.testing.assert_array_equal(
        gems.coefs_[0][:, gems.n_matched_:gems.n_matched_ + len(kept0)], W1_party0[:, kept0]
    )
    assert gems.predict_proba(X[:5]).shape == (5, 10)


def test_deep_larger_epsilon_merges_more_and_federated_matches(permuted):
    X, y, groups = permuted
    small = GEMSCombiner(hidden_layer_sizes=10, epsilon=0.002, random_state=0)
    large = GEMSCombiner(hidden_layer_sizes=10, epsilon=1.0, random_state=0)
    assert small.fit(X, y, groups).n_hidden_ >= large.fit(X, y, groups).n_hidden_
    seeds = _party_seeds(0, 2)
    spaces = [good_enough_space(MLPClassifier(10), X[groups == k], y[groups == k], 1.0,
                                random_state=seeds[k]) for k in range(2)]
    combined = GEMSCombiner().combine(spaces)
    for a, b in zip(combined.coefs_, large.coefs_):
        np.testing.assert_array_equal(a, b)


def test_deep_fine_tunes_the_output_layer_only(permuted):
    X, y, groups = permuted
    raw = GEMSCombiner(hidden_layer_sizes=10, fine_tune=False, random_state=0)
    raw.fit(X[100:], y[100:], groups[100:])
    tuned = GEMSCombiner(hidden_layer_sizes=10, random_state=0)
    tuned.fit(X[100:], y[100:], groups[100:], X_public=X[:100], y_public=y[:100])
    np.testing.assert_array_equal(raw.coefs_[0], tuned.coefs_[0])
    assert tuned.score(X[:100], y[:100]) > raw.score(X[:100], y[:100])


def test_incoming_only_neuron_space(permuted):
    X, y, groups = permuted
    gems = GEMSCombiner(hidden_layer_sizes=8, neuron_space="incoming", epsilon=0.5,
                        fine_tune=False, random_state=0).fit(X, y, groups)
    assert gems.spaces_[0].centers.shape == (8, 65)
    assert gems.n_hidden_ == 16 - gems.n_matched_


# --- errors ------------------------------------------------------------------------------------

def test_bad_input_errors(cancer):
    X, y, groups = cancer
    gems = GEMSCombiner(random_state=0)
    with pytest.raises(ValueError, match="single party"):
        gems.fit(X, y, np.zeros(len(y)))
    with pytest.raises(ValueError, match="one entry per row"):
        gems.fit(X, y, groups[:-1])
    single = groups.copy()
    single[(groups == 2) & (y == 0)] = 0
    with pytest.raises(ValueError, match="party 2 holds a single class"):
        gems.fit(X, y, single)
    with pytest.raises(ValueError, match=r"classes \[7\]"):
        GEMSCombiner(epsilon=0.4, random_state=0).fit(
            X, y, groups, X_public=X[:10], y_public=np.r_[y[:9], 7])
    with pytest.raises(ValueError, match="hidden_layer_sizes"):
        GEMSCombiner(LogisticRegression(), hidden_layer_sizes=5).fit(X, y, groups)
    with pytest.raises(InvalidParameterError):
        GEMSCombiner(intersection="centre").fit(X, y, groups)
    with pytest.raises(ValueError, match="validation loss"):
        GEMSCombiner(epsilon=1e-4, random_state=0).fit(X, y, groups)
    with pytest.raises(ValueError, match="without y_public"):
        GEMSCombiner(epsilon=0.4, random_state=0).fit(X, y, groups, X_public=X[:5])


def test_party_missing_a_class_is_refused():
    X, y = load_digits(return_X_y=True)
    groups = (np.arange(len(y)) % 2)
    groups[y == 3] = 0
    with pytest.raises(ValueError, match=r"party 1 holds no rows of the classes \[3\]"):
        GEMSCombiner(random_state=0).fit(X, y, groups)


def test_no_intersection_names_the_parties(parity):
    X, y, groups, _, _ = parity
    with pytest.raises(NoIntersectionError, match="epsilon=None"):
        GEMSCombiner(LogisticRegression(C=0.1), epsilon=0.26, random_state=0).fit(X, y, groups)


def test_combine_checks_its_spaces(cancer, parity):
    X, y, groups = cancer
    space = good_enough_space(LogisticRegression(), X[:200], y[:200], 0.4, random_state=0)
    with pytest.raises(ValueError, match="two or more"):
        GEMSCombiner().combine([space])
    other = good_enough_space(LogisticRegression(), X[:200, :10], y[:200], 0.4,
                              random_state=0)
    with pytest.raises(ValueError, match="does not fit"):
        GEMSCombiner().combine([space, other])


# --- the estimator API (scikit-learn's generic checks cannot call fit without groups) ------

def test_clone_params_pickle_and_fitted_state(cancer):
    X, y, groups = cancer
    gems = GEMSCombiner(epsilon=0.4, n_directions=50, random_state=0)
    assert clone(gems).get_params() == gems.get_params()
    assert gems.set_params(epsilon=0.45).epsilon == 0.45
    with pytest.raises(NotFittedError):
        gems.predict(X)
    gems.fit(X, y, groups)
    assert gems.n_features_in_ == 30 and list(gems.classes_) == [0, 1]
    assert gems.coef_.shape == (1, 30) and gems.intercept_.shape == (1,)
    proba = gems.predict_proba(X[:7])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(gems.predict(X[:7]), gems.classes_[proba.argmax(axis=1)])
    assert gems.decision_function(X[:7]).shape == (7,)
    again = pickle.loads(pickle.dumps(gems))
    np.testing.assert_array_equal(again.predict_proba(X), gems.predict_proba(X))
    assert not hasattr(clone(gems), "coef_")
    assert gems.get_params()["epsilon"] == 0.45  # fit never writes into parameters
    with pytest.raises(ValueError, match="features"):
        gems.predict(X[:, :5])


def test_feature_names_are_kept():
    pd = pytest.importorskip("pandas")
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = (X - X.mean()) / X.std()
    gems = GEMSCombiner(epsilon=0.4, random_state=0).fit(X, y, np.arange(len(y)) % 2)
    np.testing.assert_array_equal(gems.feature_names_in_, X.columns)
    assert isinstance(X, pd.DataFrame)
    assert gems.score(X, y) > 0.9


def test_regressor(cancer):
    X, y = load_diabetes(return_X_y=True)
    gems = GEMSCombiner(Ridge(alpha=1.0), random_state=0)
    gems.fit(X, y, np.arange(len(y)) % 2)
    assert gems.coef_.shape == (10,) and isinstance(gems.intercept_, float)
    assert not hasattr(gems, "classes_") and not hasattr(gems, "predict_proba")
    assert gems.score(X, y) > 0.3


def test_quiet_by_default_and_verbose_on_request(cancer, capsys):
    X, y, groups = cancer
    quiet = GEMSCombiner(epsilon=0.4, random_state=0).fit(X, y, groups)
    assert capsys.readouterr() == ("", "")
    bars = GEMSCombiner(epsilon=0.4, random_state=0, verbose=1).fit(X, y, groups)
    out = capsys.readouterr()
    assert out.out == ""  # verbose=1: bars only, on stderr
    assert "GEMS parties" in out.err and "GEMS radius search" in out.err
    loud = GEMSCombiner(epsilon=0.4, random_state=0, verbose=2).fit(X, y, groups)
    out = capsys.readouterr()
    assert "[GEMSCombiner]" in out.out and "attempt 0" in out.out
    for fitted in (bars, loud):  # the bars and lines change nothing
        np.testing.assert_array_equal(fitted.coef_, quiet.coef_)


def test_epsilon_search_shows_its_probes(cancer, capsys, request):
    X, y, groups = cancer
    quiet = GEMSCombiner(random_state=0).fit(X, y, groups)
    capsys.readouterr()
    request.getfixturevalue("without_tqdm")  # the line fallback prints every probe it counts
    searched = GEMSCombiner(random_state=0, verbose=2).fit(X, y, groups)
    out = capsys.readouterr()
    probes = out.out.count("epsilon=")  # verbose=2 prints one line per threshold tried
    counts = [line for line in out.err.splitlines() if line.startswith("GEMS epsilon search")]
    assert probes > 2 and counts
    assert counts[-1].split()[3].split("/")[0] == str(probes)  # the bar counted them all
    bound = int(counts[-1].split()[3].split("/")[1])
    assert probes <= bound < probes + 3  # the announced total bounds the search tightly
    assert searched.epsilon_ == quiet.epsilon_


def test_tags_follow_the_estimator():
    from sklearn.base import is_classifier, is_regressor

    assert is_classifier(GEMSCombiner())
    assert is_classifier(GEMSCombiner(hidden_layer_sizes=5))
    assert is_regressor(GEMSCombiner(Ridge()))


def test_retries_with_new_initialisations_before_giving_up(cancer, capsys):
    from sklearn.linear_model import SGDClassifier

    X, y, groups = cancer
    sgd = SGDClassifier(loss="log_loss", alpha=0.01, max_iter=20, tol=None)
    auto = GEMSCombiner(sgd, random_state=0).fit(X, y, groups)
    assert auto.intersection_margin_ >= 0
    below = GEMSCombiner(sgd, epsilon=0.97 * auto.epsilon_, random_state=0, verbose=2)
    try:
        below.fit(X, y, groups)
    except NoIntersectionError as error:
        assert "new initialisations" in str(error)
    else:  # a retry found balls that meet: the sets became unions of balls
        assert below.intersection_margin_ >= 0
        assert max(len(s.radii) for s in below.spaces_) > 1
    out = capsys.readouterr().out
    assert "attempt 0" in out and "attempt 1" in out


# --- Pipelines: a preprocessing every party shares ---------------------------------------------


@pytest.fixture(scope="module")
def raw_cancer():
    """Unscaled features; a scaler fitted on the last 100 rows stands for public data."""
    X, y = load_breast_cancer(return_X_y=True)
    public = slice(len(y) - 100, None)
    scaler = StandardScaler().fit(X[public])
    return X[:-100], y[:-100], np.arange(len(y) - 100) % 3, scaler, X[public], y[public]


def test_pipeline_with_a_frozen_scaler_is_gems_on_the_scaled_features(raw_cancer):
    from sklearn.frozen import FrozenEstimator
    from sklearn.pipeline import make_pipeline

    X, y, groups, scaler, X_test, y_test = raw_cancer
    pipe = make_pipeline(FrozenEstimator(scaler), LogisticRegression())
    gems = GEMSCombiner(pipe, random_state=0).fit(X, y, groups)
    plain = GEMSCombiner(random_state=0).fit(scaler.transform(X), y, groups)
    # the same parties, seeds and features: the same model, in the scaled coordinates
    np.testing.assert_array_equal(gems.coef_, plain.coef_)
    assert gems.epsilon_ == plain.epsilon_
    assert gems.n_features_in_ == X.shape[1] and gems.preprocessing_ is not None
    np.testing.assert_array_equal(gems.predict_proba(X_test),
                                  plain.predict_proba(scaler.transform(X_test)))
    assert gems.score(X_test, y_test) > 0.9
    # fine-tuning data go through the same map
    tuned = GEMSCombiner(pipe, random_state=0).fit(X, y, groups, X_test[:40], y_test[:40])
    assert not np.array_equal(tuned.coef_, gems.coef_)


def test_pipeline_federated_path_and_mismatched_preprocessing(raw_cancer):
    from sklearn.frozen import FrozenEstimator
    from sklearn.pipeline import make_pipeline

    X, y, groups, scaler, X_test, y_test = raw_cancer
    pipe = make_pipeline(FrozenEstimator(scaler), LogisticRegression())
    fitted = GEMSCombiner(pipe, random_state=3).fit(X, y, groups)
    seeds = _party_seeds(3, 3)
    spaces = [good_enough_space(pipe, X[groups == k], y[groups == k], fitted.epsilon_,
                                random_state=seeds[k]) for k in range(3)]
    combined = GEMSCombiner().combine(spaces)
    np.testing.assert_allclose(combined.coef_, fitted.coef_)
    assert combined.score(X_test, y_test) > 0.9
    # one party froze a scaler fitted on other rows: its weights are in other coordinates
    other = make_pipeline(FrozenEstimator(StandardScaler().fit(X[:50])), LogisticRegression())
    odd = good_enough_space(other, X[groups == 2], y[groups == 2], fitted.epsilon_,
                            random_state=seeds[2])
    with pytest.raises(ValueError, match="same preprocessing"):
        GEMSCombiner().combine(spaces[:2] + [odd])


def test_pipeline_with_a_stateless_step(raw_cancer):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    X, y, groups, _, X_test, y_test = raw_cancer
    pipe = make_pipeline(FunctionTransformer(np.log1p), LogisticRegression(max_iter=1000))
    gems = GEMSCombiner(pipe, random_state=0).fit(X, y, groups)
    plain = GEMSCombiner(LogisticRegression(max_iter=1000), random_state=0).fit(
        np.log1p(X), y, groups
    )
    np.testing.assert_allclose(gems.coef_, plain.coef_)
    np.testing.assert_array_equal(gems.predict(X_test), plain.predict(np.log1p(X_test)))


def test_pipeline_fitted_per_party_is_refused(raw_cancer):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import make_pipeline

    X, y, groups, *_ = raw_cancer
    per_party = make_pipeline(StandardScaler(), LogisticRegression())
    with pytest.raises(ValueError, match=r"'standardscaler' \(StandardScaler\).*FrozenEstimator"):
        GEMSCombiner(per_party).fit(X, y, groups)
    with pytest.raises(ValueError, match="FrozenEstimator"):
        good_enough_space(per_party, X, y, 0.3)
    with pytest.raises(TypeError, match="no coef_"):
        GEMSCombiner(RandomForestClassifier(n_estimators=2), epsilon=0.5,
                     random_state=0).fit(X, y, groups)


def test_total_privacy_cost_says_gems_is_not_differentially_private(cancer):
    from skprivate.accounting import total_privacy_cost

    X, y, groups = cancer
    gems = GEMSCombiner(epsilon=0.4, random_state=0).fit(X, y, groups)
    with pytest.raises(ValueError, match="GEMSCombiner is not differentially private"):
        total_privacy_cost(gems)
