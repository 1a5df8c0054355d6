"""The party's side: vectorised losses, radius search, and the space it sends."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.linear_model import LogisticRegression, Ridge, SGDClassifier
from sklearn.metrics import log_loss
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler

from skprivate.gems import GoodEnoughSpace, good_enough_space
from skprivate.gems._radius import linear_scores, mean_loss, search_radii
from skprivate.gems._space import _make_party


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:600] / 16.0, y[:600]


def test_vectorised_log_loss_matches_sklearn(digits):
    X, y = digits
    rng = np.random.default_rng(0)
    weights = rng.normal(size=(4, 10 * 65)) * 0.1
    losses = mean_loss(linear_scores(X, weights, 10), y, "log_loss")
    for w, loss in zip(weights, losses):
        coef, intercept = w[:640].reshape(10, 64), w[640:]
        z = X @ coef.T + intercept
        p = np.exp(z - z.max(1, keepdims=True))
        assert loss == pytest.approx(log_loss(y, p / p.sum(1, keepdims=True)), rel=1e-10)
    binary = (y > 4).astype(int)
    w = rng.normal(size=(3, 65)) * 0.1
    losses = mean_loss(linear_scores(X, w, 1), binary, "log_loss")
    for wk, loss in zip(w, losses):
        p = 1 / (1 + np.exp(-(X @ wk[:64] + wk[64])))
        assert loss == pytest.approx(log_loss(binary, p), rel=1e-10)
    target = y.astype(float)
    losses = mean_loss(linear_scores(X, w, 1), target, "squared_error")
    assert losses[0] == pytest.approx(np.mean((X @ w[0, :64] + w[0, 64] - target) ** 2))


def test_search_finds_the_largest_passing_radius():
    # max loss r^2 per unit (scaled): the largest passing radius is sqrt(epsilon / scale).
    scale = np.array([1.0, 4.0, 0.01])
    calls = []

    def max_loss(units, radii):
        calls.append(len(units))
        return scale[units] * radii**2

    radii = search_radii(max_loss, np.ones(3), 2.0)
    np.testing.assert_allclose(radii, np.sqrt(2.0 / scale), rtol=1e-3)
    assert np.all(scale * radii**2 <= 2.0)
    assert len(calls) < 60


def test_empty_ball_has_radius_zero():
    radii = search_radii(lambda units, r: 1.0 + r, np.ones(1), 0.5)
    assert radii[0] == 0.0


def test_radius_grows_with_epsilon_and_every_sample_passes(cancer):
    X, y = cancer
    party = _make_party(LogisticRegression(), X[:300], y[:300], np.array([0, 1]), None, 0.3,
                        "incoming_outgoing", 3, 1)
    model = party.models[0]
    epsilons = model["loss"] + np.array([0.01, 0.03, 0.1, 0.3, 1.0])
    radii = [party.radii(e)[0] for e in epsilons]
    assert np.all(np.diff(radii) > 0)
    for epsilon, radius in zip(epsilons, radii):
        sampled = model["centers"][0] + radius * model["directions"][0]
        assert party._linear_losses(sampled, 1).max() <= epsilon
        beyond = model["centers"][0] + radius * 1.01 * model["directions"][0]
        assert party._linear_losses(beyond, 1).max() > epsilon


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_neuron_losses_match_a_plain_forward_pass(digits):
    X, y = digits
    party = _make_party(MLPClassifier(8, max_iter=100, random_state=0), X, y, np.arange(10),
                        20, 0.3, "incoming_outgoing", 0, 1)
    model = party.models[0]
    max_loss = party._neuron_max_loss(model)
    W1, W2 = model["network"]["coefs"]
    b1, b2 = model["network"]["intercepts"]
    units, radius = np.array([2, 5]), np.array([0.3, 0.7])
    got = max_loss(units, radius)
    for unit, r, value in zip(units, radius, got):
        worst = 0.0
        for u in model["directions"][unit]:  # a loop over samples, in a test only
            v = model["centers"][unit] + r * u
            A, B = W1.copy(), W2.copy()
            A[:, unit], B[unit] = v[:64], v[65:]
            c = b1.copy()
            c[unit] = v[64]
            z = np.maximum(party.X_val @ A + c, 0) @ B + b2
            p = np.exp(z - z.max(1, keepdims=True))
            worst = max(worst, log_loss(party.y_val, p / p.sum(1, keepdims=True),
                                        labels=np.arange(10)))
        assert value == pytest.approx(worst, rel=1e-4)


def test_space_holds_no_rows_and_pickles(cancer):
    X, y = cancer
    space = good_enough_space(LogisticRegression(), X[:200], y[:200], 0.4, random_state=0)
    assert isinstance(space, GoodEnoughSpace)
    assert space.centers.shape == (1, 31) and space.radii.shape == (1,)
    arrays = [v for v in vars(space).values() if isinstance(v, np.ndarray)]
    assert all(a.size < 100 for a in arrays)
    again = pickle.loads(pickle.dumps(space))
    np.testing.assert_array_equal(again.centers, space.centers)
    assert again.epsilon == 0.4 and again.n_validation == 40
    same = good_enough_space(LogisticRegression(), X[:200], y[:200], 0.4, random_state=0)
    np.testing.assert_array_equal(same.radii, space.radii)


def test_new_initialisations_add_balls_only_when_they_differ(cancer):
    X, y = cancer
    lr = good_enough_space(LogisticRegression(), X[:200], y[:200], 0.5, n_init=3,
                           random_state=0)
    assert lr.centers.shape[0] == 1  # lbfgs lands on the same optimum from every start
    sgd = good_enough_space(SGDClassifier(loss="log_loss", max_iter=20, tol=None), X[:200],
                            y[:200], 2.0, n_init=3, random_state=0)
    assert sgd.centers.shape[0] == 3 and np.all(sgd.radii > 0)


def test_regressor_space(cancer):
    X, _ = cancer
    target = X[:, 0] * 2 + X[:, 1] + 0.1 * np.random.default_rng(0).normal(size=len(X))
    space = good_enough_space(Ridge(), X[:, 2:], target, 2.0, random_state=0)
    assert space.loss == "squared_error" and space.classes is None
    assert space.radii[0] > 0


def test_party_errors(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="single class"):
        good_enough_space(LogisticRegression(), X[y == 1], y[y == 1], 0.5)
    with pytest.raises(ValueError, match="epsilon"):
        good_enough_space(LogisticRegression(), X, y, 1e-6, random_state=0)
    with pytest.raises(ValueError, match="one hidden layer"):
        good_enough_space(MLPClassifier((4, 4)), X, y, 0.1)


def test_space_of_a_pipeline_holds_the_shared_preprocessing(cancer):
    from sklearn.frozen import FrozenEstimator
    from sklearn.pipeline import make_pipeline

    X, y = cancer
    raw = X * 10.0 + 3.0  # the fixture is scaled; undo it with a known affine map
    scaler = StandardScaler().fit(raw[:100])
    pipe = make_pipeline(FrozenEstimator(scaler), LogisticRegression())
    space = good_enough_space(pipe, raw, y, 0.3, random_state=0)
    plain = good_enough_space(LogisticRegression(), scaler.transform(raw), y, 0.3,
                              random_state=0)
    np.testing.assert_array_equal(space.centers, plain.centers)
    np.testing.assert_array_equal(space.radii, plain.radii)
    assert space.n_features_in == X.shape[1]
    np.testing.assert_array_equal(space.preprocessing.transform(raw[:5]),
                                  scaler.transform(raw[:5]))
    assert plain.preprocessing is None
