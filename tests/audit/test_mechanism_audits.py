"""Monte-Carlo audits: on neighbouring inputs, the observed outputs never show more privacy
loss than each mechanism claims, and the audit has the power to catch a broken one."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import MinMaxScaler

from skprivate import DPLSSGDClassifier
from skprivate.accounting import pate_epsilon
from skprivate.audit import audit_outcomes, audit_scores, epsilon_lower_bound
from skprivate._dpsgd._numpy_loop import clipped_gradient_sum, residual_function
from skprivate.pate._aggregation import confident_gnmax, noisy_argmax

N_RUNS = 400_000


def _repeat(row, n=N_RUNS):
    return np.tile(np.asarray(row, dtype=np.int64), (n, 1))


def test_clopper_pearson_bound_holds_for_a_known_ratio():
    rng = np.random.default_rng(0)
    misses = 0
    for _ in range(200):  # P = 0.3, P' = 0.1: true epsilon log 3 = 1.0986
        hits, hits_prime = rng.binomial(2000, 0.3), rng.binomial(2000, 0.1)
        misses += epsilon_lower_bound(int(hits), 2000, int(hits_prime), 2000) > np.log(3)
    assert misses <= 200 * 0.05 + 5  # at most about 5% of bounds exceed the truth


def test_a_perfect_separation_gives_the_largest_bound_the_runs_allow():
    # A leak so strong that one side never produces the event: its empirical ratio is
    # infinite, but the audit must still pick it and bound epsilon from 500 runs per half.
    rng = np.random.default_rng(0)
    result = audit_scores(rng.uniform(10.0, 11.0, 1000), rng.uniform(0.0, 1.0, 1000))
    expected = epsilon_lower_bound(500, 500, 0, 500)  # all of one half, none of the other
    # (choosing by the empirical ratio skipped that event and gave 3.3 here)
    assert 4.5 < result.epsilon_lower_bound <= expected


def test_lnmax_per_query_claim_survives_an_audit_with_power():
    b = 2.0
    claimed = 2.0 / b  # 2017 Theorem 2: LNMax is 2/b-DP per query
    rng = np.random.default_rng(1)
    # one teacher moves its vote: gaps 6 and 4, where the tail ratio nears e^(2/b)
    out = noisy_argmax(_repeat([6, 0]), "laplace", b, rng)
    out_prime = noisy_argmax(_repeat([5, 1]), "laplace", b, rng)
    result = audit_outcomes(out, out_prime)
    assert result.epsilon_lower_bound <= claimed
    assert result.epsilon_lower_bound >= 0.6 * claimed  # the audit sees most of the loss


def test_gnmax_per_query_claim_survives_an_audit():
    sigma, delta = 1.0, 1e-5
    claimed = pate_epsilon(np.zeros((1, 2), dtype=int), mechanism="gaussian", noise_scale=sigma,
                           delta=delta, data_dependent=False).epsilon_data_independent
    rng = np.random.default_rng(2)
    out = noisy_argmax(_repeat([2, 0]), "gaussian", sigma, rng)
    out_prime = noisy_argmax(_repeat([1, 1]), "gaussian", sigma, rng)
    result = audit_outcomes(out, out_prime, delta=delta)
    assert 1.5 <= result.epsilon_lower_bound <= claimed


def test_soft_labels_read_nothing_the_gnmax_claim_does_not_cover():
    # The student's soft labels are a function of GNMax's noisy counts, not only of its arg
    # max; the data-independent claim (the Gaussian mechanism on the histogram) must cover
    # them. Audit the posterior the student is given, on the votes where one teacher moves.
    from skprivate.pate._soft_labels import plurality_posterior

    sigma, delta = 1.0, 1e-5
    claimed = pate_epsilon(np.zeros((1, 2), dtype=int), mechanism="gaussian", noise_scale=sigma,
                           delta=delta, data_dependent=False).epsilon_data_independent
    rng = np.random.default_rng(4)
    _, counts = noisy_argmax(_repeat([2, 0]), "gaussian", sigma, rng, return_counts=True)
    _, counts_prime = noisy_argmax(_repeat([1, 1]), "gaussian", sigma, rng, return_counts=True)
    soft = plurality_posterior(counts, "gaussian", sigma, seed=0)[:, 0]
    soft_prime = plurality_posterior(counts_prime, "gaussian", sigma, seed=0)[:, 0]
    result = audit_scores(soft, soft_prime, delta=delta)
    # More than the label alone shows (1.5 in the audit above), never more than claimed.
    assert 2.0 <= result.epsilon_lower_bound <= claimed


def test_confident_gnmax_claim_survives_an_audit():
    threshold, sigma1, sigma2, delta = 4.0, 1.0, 1.0, 1e-5
    claimed = pate_epsilon(np.zeros((1, 2), dtype=int), mechanism="gaussian", noise_scale=sigma2,
                           delta=delta, data_dependent=False, threshold=threshold,
                           threshold_noise_scale=sigma1).epsilon_data_independent
    rng = np.random.default_rng(3)
    out = confident_gnmax(_repeat([4, 0]), threshold, sigma1, sigma2, rng)
    out_prime = confident_gnmax(_repeat([3, 1]), threshold, sigma1, sigma2, rng)
    result = audit_outcomes(out, out_prime, delta=delta)
    assert 0.5 <= result.epsilon_lower_bound <= claimed


def _one_step_outputs(X, y, X_prime, y_prime, noise_multiplier, rng, clip=True):
    """Projected noisy clipped gradient sums of one full-batch DP-SGD step at coef = 0."""
    residual = residual_function("log_loss", 1)
    coef, intercept = np.zeros((1, X.shape[1])), np.zeros(1)
    C = 1.0 if clip else 1e12

    def gradient(A, b):
        g, g0 = clipped_gradient_sum(A, b, coef, intercept, residual, C, True)
        return np.concatenate([g.ravel(), g0])

    g, g_prime = gradient(X, y), gradient(X_prime, y_prime)
    u = (g_prime - g) / np.linalg.norm(g_prime - g)
    # the projection of isotropic noise N(0, (z C)^2 I) on a unit vector is N(0, (z C)^2)
    scale = noise_multiplier * 1.0
    return (u @ g + scale * rng.standard_normal(N_RUNS),
            u @ g_prime + scale * rng.standard_normal(N_RUNS))


def test_one_dp_sgd_step_survives_an_audit_and_an_unclipped_one_does_not():
    X, y = load_breast_cancer(return_X_y=True)
    X = MinMaxScaler().fit_transform(X)[:50]
    y = y[:50].astype(float)
    # the fitted estimator's own calibration: one full-batch step (q = 1) at epsilon 2
    clf = DPLSSGDClassifier(epsilon=2.0, delta=1e-5, batch_size=50, max_iter=1,
                            random_state=0, n_samples_public=True)
    with pytest.warns(Warning):
        clf.fit(X, y.astype(int))
    assert clf.sample_rate_ == 1.0 and clf.n_steps_ == 1
    canary = np.full((1, X.shape[1]), 5.0)  # far outside the data: a large raw gradient
    X_prime, y_prime = np.vstack([X, canary]), np.append(y, 0.0)
    rng = np.random.default_rng(4)
    out, out_prime = _one_step_outputs(X, y, X_prime, y_prime, clf.noise_multiplier_, rng)
    result = audit_scores(out_prime, out, delta=1e-5)
    assert 0.8 <= result.epsilon_lower_bound <= clf.epsilon_
    # the same noise without clipping leaks far more than claimed: the audit must see it
    out, out_prime = _one_step_outputs(X, y, X_prime, y_prime, clf.noise_multiplier_, rng,
                                       clip=False)
    assert audit_scores(out_prime, out, delta=1e-5).epsilon_lower_bound > clf.epsilon_
