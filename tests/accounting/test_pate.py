"""PATE accounting against independent computations: the 2017 paper's published numbers,
dp-accounting's Gaussian mechanism, the exact Renyi divergences of the noisy arg max on
small histograms (which every bound must dominate), and high-precision evaluations."""

import math
import time

import dp_accounting
import mpmath
import numpy as np
import pytest
from dp_accounting import rdp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from skprivate.accounting._pate import (
    DEFAULT_PATE_ORDERS,
    PATEPrivacy,
    _rdp_theorem6,
    pate_epsilon,
)

DELTA = 1e-5

# 100 queries to 250 teachers, about 90% of whom vote for class 0 and the rest uniformly for
# the nine others: np.random.default_rng(0).multinomial(250, [0.9] + [0.1 / 9] * 9, size=100).
# Written out so that the reference numbers do not depend on NumPy's random streams.
_VOTES_2017 = """
223 2 1 0 6 6 3 4 2 3 218 5 0 6 1 5 2 6 3 4 228 2 0 1 4 3 3 3 0 6 215 5 4 4 3 2 5 4 5 3 225
5 5 2 2 1 3 2 3 2 219 2 4 1 6 5 2 5 5 1 227 1 2 4 2 1 3 2 6 2 224 2 4 2 6 2 1 3 1 5 226 5 2
2 3 6 3 1 0 2 225 3 4 2 4 3 4 0 2 3 218 7 0 5 7 5 1 5 0 2 221 3 2 5 6 2 3 2 1 5 233 3 2 0 3
0 3 2 1 3 232 3 0 1 2 5 2 1 3 1 219 2 2 3 4 4 5 4 4 3 226 4 3 5 1 2 2 4 2 1 226 5 0 4 2 4 0
2 5 2 223 2 4 6 1 4 1 3 3 3 225 6 3 1 2 4 4 2 2 1 212 3 3 7 6 4 7 5 1 2 220 2 2 4 5 2 3 6 3
3 224 1 3 3 1 7 3 0 3 5 215 4 3 2 5 3 5 5 2 6 232 2 3 1 2 0 3 1 3 3 220 3 6 4 5 1 1 1 3 6
223 3 1 4 2 4 3 3 2 5 231 2 1 3 2 6 0 4 0 1 225 4 3 3 5 0 4 2 2 2 212 6 4 4 6 1 5 5 2 5 227
4 1 2 2 3 1 3 7 0 222 5 1 4 4 6 3 1 0 4 215 4 5 6 3 5 4 2 2 4 224 1 3 1 3 3 3 4 6 2 218 4 5
5 3 1 4 4 2 4 225 4 7 1 1 2 3 2 2 3 230 3 1 1 4 2 2 4 3 0 223 2 2 4 2 3 6 2 3 3 234 1 3 3 2
1 2 0 1 3 222 4 3 1 2 4 3 8 0 3 230 2 3 1 2 3 4 1 3 1 221 3 3 2 1 1 5 3 2 9 231 2 2 1 3 3 3
0 3 2 225 2 0 2 6 1 5 4 3 2 226 4 3 4 3 3 3 2 2 0 222 1 3 3 2 7 1 0 6 5 213 3 6 2 5 8 4 6 1
2 214 6 5 6 4 2 3 2 3 5 230 2 2 3 3 1 3 2 2 2 223 3 4 3 3 2 2 4 2 4 229 5 2 2 3 2 2 1 3 1
222 5 4 2 3 3 5 2 3 1 219 6 1 2 4 5 4 2 5 2 225 4 1 1 3 2 1 6 2 5 226 2 2 2 3 3 2 4 2 4 224
2 3 3 2 2 4 4 3 3 227 3 6 2 3 0 4 3 1 1 235 1 1 4 3 3 1 1 0 1 223 2 6 2 4 2 1 2 4 4 230 0 2
4 3 2 3 2 0 4 221 5 2 1 2 3 4 3 3 6 220 2 3 4 4 2 3 5 3 4 219 3 3 3 2 5 3 6 4 2 223 3 3 5 1
1 2 2 5 5 230 3 0 2 2 1 2 2 5 3 218 3 3 4 4 4 1 5 3 5 221 3 1 1 3 7 3 6 3 2 222 3 4 2 5 2 0
5 3 4 223 4 3 1 4 0 2 4 5 4 231 2 2 2 3 1 1 4 2 2 226 1 3 4 1 4 2 5 1 3 228 5 0 1 2 4 3 2 3
2 222 1 2 5 3 5 3 4 4 1 227 2 2 2 4 1 5 4 3 0 235 1 1 4 0 3 1 0 3 2 227 1 2 2 6 2 5 0 4 1
234 2 1 2 3 1 1 3 2 1 230 0 3 4 4 2 1 1 3 2 220 4 2 5 3 7 2 4 3 0 222 3 3 2 6 2 3 3 2 4 226
4 2 5 3 4 3 2 1 0 230 3 1 2 1 4 4 1 2 2 226 4 2 3 3 5 1 5 1 0 229 3 1 3 3 1 0 7 1 2 230 4 1
1 3 3 3 1 1 3 225 2 4 4 2 1 7 3 1 1 221 1 6 4 2 2 4 3 3 4 224 2 3 0 1 2 4 1 4 9 228 1 2 5 2
2 2 5 2 1 231 3 3 1 1 2 2 6 0 1 224 1 4 4 1 3 2 4 3 4 229 2 6 0 2 2 2 4 2 1 219 4 3 2 5 4 2
2 6 3 219 3 5 5 2 1 2 6 6 1 224 1 4 3 3 2 3 1 3 6 219 5 3 5 0 4 5 2 2 5 240 1 1 1 0 1 2 1 2
1 219 6 3 4 3 4 4 3 3 1 234 2 1 3 3 1 1 2 1 2 223 5 3 3 3 4 2 4 1 2 231 2 1 2 4 1 2 3 1 3
"""
VOTES_2017 = np.array(_VOTES_2017.split(), dtype=np.int64).reshape(100, 10)


def _single(votes, **kwargs):
    """Per-query data-dependent RDP curve of one histogram."""
    kwargs.setdefault("delta", DELTA)
    cost = pate_epsilon(np.atleast_2d(votes), **kwargs)
    return cost.orders, cost.rdp_data_dependent, cost.rdp_data_independent


# --- the 2017 paper ----------------------------------------------------------------------


def test_vote_matrix_is_the_documented_draw():
    drawn = np.random.default_rng(0).multinomial(250, [0.9] + [0.1 / 9] * 9, size=100)
    if not np.array_equal(drawn, VOTES_2017):  # only NumPy's stream could have changed
        pytest.skip("NumPy's multinomial stream changed; the docstring example may differ")
    assert VOTES_2017.sum(axis=1).tolist() == [250] * 100


def test_2017_published_numbers():
    # The 2017 analysis: gamma = 0.05 (Laplace scale 20), delta = 1e-5, moments l = 1..8.
    cost = pate_epsilon(
        VOTES_2017,
        mechanism="laplace",
        noise_scale=20,
        delta=DELTA,
        orders=range(2, 10),
        conversion="classic",
        noise="continuous",
    )
    assert round(cost.epsilon_data_dependent, 4) == 1.4513
    assert round(cost.epsilon_data_independent, 4) == 5.3026
    assert cost.epsilon == cost.epsilon_data_dependent
    # 5.3026 = 0.5 (l + 1) + log(1e5) / l at l = 5 (Renyi order 6); the data-dependent
    # minimum sits at the largest moment, l = 8, as the 2017 script warns it may.
    assert cost.epsilon_data_independent == pytest.approx(3 + math.log(1e5) / 5, rel=1e-12)
    assert cost.order_data_independent == 6 and cost.order == 9
    assert (cost.n_queries, cost.n_answered) == (100, 100)


def _moments_2017(counts, gamma, l):
    """The 2017 moments for one histogram, written as the paper states them (scalar code)."""
    winner = int(np.argmax(counts))
    q = sum(
        (2 + gamma * (counts[winner] - c)) / (4 * math.exp(gamma * (counts[winner] - c)))
        for j, c in enumerate(counts)
        if j != winner
    )
    eps = 2 * gamma
    independent = min(2 * gamma**2 * l * (l + 1), 2 * gamma * l)
    if q < (math.exp(eps) - 1) / (math.exp(2 * eps) - 1):
        t = (1 - q) * ((1 - q) / (1 - math.exp(eps) * q)) ** l + q * math.exp(eps * l)
        return min(independent, math.log(t))
    return independent


@pytest.mark.parametrize("gamma", [0.02, 0.05, 0.2])
def test_2017_matches_scalar_transcription(gamma):
    rng = np.random.default_rng(3)
    votes = np.vstack(
        [
            rng.multinomial(100, [0.8, 0.1, 0.1], size=20),
            rng.multinomial(100, [0.4, 0.35, 0.25], size=10),
            [[50, 50, 0], [100, 0, 0]],
        ]
    )
    cost = pate_epsilon(
        votes, mechanism="laplace", noise_scale=1 / gamma, delta=DELTA, orders=range(2, 10),
        conversion="classic", noise="continuous",
    )
    moments = np.array(
        [sum(_moments_2017(row, gamma, l) for row in votes) for l in range(1, 9)]
    )
    expected = min((moments - math.log(DELTA)) / np.arange(1, 9))
    # LNMax is also (2 gamma)-DP per query: basic composition caps the total (it wins at 0.02).
    expected = min(expected, len(votes) * 2 * gamma)
    assert cost.epsilon_data_dependent == pytest.approx(expected, rel=1e-9)
    np.testing.assert_allclose(cost.rdp_data_dependent * np.arange(1, 9), moments, rtol=1e-9)


def test_lnmax_never_exceeds_basic_composition():
    # One query at b = 2 costs epsilon = 1 from order 2 on; RDP alone would give 80.009 for
    # 80 queries, basic composition of the pure guarantee gives 80.
    cost = pate_epsilon(np.zeros((80, 2), dtype=int), mechanism="laplace", noise_scale=2.0,
                        delta=DELTA)
    assert cost.epsilon_data_independent == 80.0 and cost.order_data_independent == math.inf
    assert cost.epsilon_data_dependent == 80.0


# --- the 2018 paper: data-independent curves against dp-accounting -------------------------


@pytest.mark.parametrize("sigma, n", [(40.0, 100), (5.0, 1000), (150.0, 3)])
def test_gnmax_independent_is_gaussian_mechanism_of_sensitivity_sqrt2(sigma, n):
    # GNMax on a histogram with l2 sensitivity sqrt(2) is the Gaussian mechanism with noise
    # multiplier sigma / sqrt(2) (2018, Proposition 8).
    votes = np.zeros((n, 4), dtype=int)
    cost = pate_epsilon(votes, mechanism="gaussian", noise_scale=sigma, delta=DELTA,
                        data_dependent=False, accounting="rdp")
    accountant = rdp.RdpAccountant(list(cost.orders))
    accountant.compose(dp_accounting.GaussianDpEvent(sigma / math.sqrt(2)), n)
    np.testing.assert_allclose(cost.rdp_data_independent, accountant._rdp, rtol=1e-12)
    assert cost.epsilon_data_independent == pytest.approx(accountant.get_epsilon(DELTA))
    assert cost.epsilon_data_dependent is None and cost.rdp_data_dependent is None
    assert cost.epsilon == cost.epsilon_data_independent


def test_confident_gnmax_independent_against_dp_accounting():
    rng = np.random.default_rng(0)
    votes = rng.multinomial(250, [0.7, 0.2, 0.1], size=300)
    answered = rng.random(300) < 0.4
    sigma1, sigma2 = 150.0, 40.0
    cost = pate_epsilon(votes, mechanism="gaussian", noise_scale=sigma2, delta=DELTA,
                        threshold=200, threshold_noise_scale=sigma1, answered=answered,
                        accounting="rdp")
    accountant = rdp.RdpAccountant(list(cost.orders))
    accountant.compose(dp_accounting.GaussianDpEvent(sigma1), 300)  # max count: sensitivity 1
    accountant.compose(dp_accounting.GaussianDpEvent(sigma2 / math.sqrt(2)), int(answered.sum()))
    assert cost.epsilon_data_independent == pytest.approx(accountant.get_epsilon(DELTA))
    assert cost.n_answered == int(answered.sum())


# --- soundness: every data-dependent bound dominates the exact Renyi divergence ------------


def _neighbours(votes):
    """Histograms one teacher away: a vote moved between classes, added or removed."""
    votes = np.asarray(votes)
    out = []
    for j in range(votes.size):
        for k in range(votes.size):
            if j != k and votes[j] > 0:
                moved = votes.copy()
                moved[j] -= 1
                moved[k] += 1
                out.append(moved)
        for step in (-1, 1):
            if votes[j] + step >= 0:
                changed = votes.copy()
                changed[j] += step
                out.append(changed)
    return out


def _argmax_probabilities(votes, noise):
    """Pr[arg max (votes + iid noise) = j] for each j: the integral over x of
    pdf(x - n_j) prod_k cdf(x - n_k), by 20-point Gauss-Legendre on pieces of a quarter of the
    noise's standard deviation between the kinks at the counts."""
    votes = np.asarray(votes, dtype=float)
    width = noise.std()
    edges = np.unique(np.concatenate([votes, [votes.min() - 40 * width,
                                              votes.max() + 40 * width]]))
    pieces = [np.linspace(a, b, int(np.ceil((b - a) / (width / 4))) + 1)
              for a, b in zip(edges[:-1], edges[1:])]
    grid = np.unique(np.concatenate(pieces))
    nodes, weights = np.polynomial.legendre.leggauss(20)
    half = np.diff(grid)[:, None] / 2
    x = (grid[:-1, None] + half * (nodes + 1)).ravel()
    w = (half * weights).ravel()
    log_cdf = noise.logcdf(x[:, None] - votes[None, :])
    probs = np.array([
        w @ np.exp(noise.logpdf(x - votes[j]) + log_cdf.sum(axis=1) - log_cdf[:, j])
        for j in range(votes.size)
    ])
    return probs / probs.sum()


def _renyi(p, p_prime, order):
    p, p_prime = np.asarray(p, dtype=float), np.asarray(p_prime, dtype=float)
    return math.log(np.sum(p**order * p_prime ** (1 - order))) / (order - 1)


@pytest.mark.parametrize(
    "votes, mechanism, scale",
    [
        ([30, 8, 2], "gaussian", 5.0),
        ([20, 4, 0], "gaussian", 4.0),
        ([12, 3], "gaussian", 2.0),
        ([40, 5, 5], "laplace", 2.0),
        ([25, 0, 0], "laplace", 1.5),
    ],
)
def test_data_dependent_dominates_exact_divergence(votes, mechanism, scale):
    noise = stats.norm(scale=scale) if mechanism == "gaussian" else stats.laplace(scale=scale)
    orders = np.array([1.5, 2.0, 3.0, 5.0, 8.0, 12.0])
    lambdas, dependent, independent = _single(votes, mechanism=mechanism, noise_scale=scale,
                                              orders=orders, noise="continuous")
    assert np.any(dependent < 0.9 * independent)  # the data-dependent branch is exercised
    p = _argmax_probabilities(votes, noise)
    for neighbour in _neighbours(votes):
        p_prime = _argmax_probabilities(neighbour, noise)
        for order, bound in zip(lambdas, dependent):
            assert _renyi(p, p_prime, order) <= bound * (1 + 1e-9) + 1e-12


@pytest.mark.parametrize("top, threshold, sigma1", [(240, 150, 20.0), (30, 200, 40.0),
                                                      (200, 200, 10.0)])
def test_threshold_step_dominates_exact_divergence(top, threshold, sigma1):
    # With the query unanswered, the whole cost is the threshold step: a Bernoulli outcome
    # whose probability moves with the largest count, which one teacher shifts by 1.
    votes = np.array([[top, 0]])  # the largest count is top
    orders = np.array([1.5, 2.0, 4.0, 10.0, 30.0, 80.0])
    cost = pate_epsilon(votes, mechanism="gaussian", noise_scale=40.0, delta=DELTA,
                        threshold=threshold, threshold_noise_scale=sigma1,
                        answered=[False], orders=orders, noise="continuous")
    assert cost.n_answered == 0

    def bernoulli(m):
        log_p = stats.norm.logsf(threshold, loc=m, scale=sigma1)
        log_not = stats.norm.logcdf(threshold, loc=m, scale=sigma1)
        return np.array([log_p, log_not])

    log_p = bernoulli(top)
    for m in (top - 1, top + 1):
        log_p_prime = bernoulli(m)
        for order, bound in zip(cost.orders, cost.rdp_data_dependent):
            exact = float(
                mpmath.log(sum(mpmath.exp(order * a + (1 - order) * b)
                               for a, b in zip(log_p, log_p_prime)))
            ) / (order - 1)
            assert exact <= bound * (1 + 1e-9) + 1e-15
    if top - threshold > 3 * sigma1:  # a confident step: the low orders cost far less
        low = cost.orders <= 10
        assert np.all(cost.rdp_data_dependent[low] < 0.01 * cost.rdp_data_independent[low])


def _theorem6_mpmath(logq, sigma, order):
    """2018 Theorem 6 with Proposition 10's orders, evaluated with 50 significant digits."""
    mpmath.mp.dps = 50
    q = mpmath.exp(mpmath.mpf(logq))
    sigma = mpmath.mpf(sigma)
    mu2 = sigma * mpmath.sqrt(-mpmath.log(q))
    mu1 = mu2 + 1
    eps1, eps2 = mu1 / sigma**2, mu2 / sigma**2
    a = (1 - q) / (1 - (q * mpmath.exp(eps2)) ** ((mu2 - 1) / mu2))
    b = mpmath.exp(eps1) / q ** (1 / (mu1 - 1))
    lam = mpmath.mpf(order)
    value = mpmath.log((1 - q) * a ** (lam - 1) + q * b ** (lam - 1)) / (lam - 1)
    return float(min(value, lam / sigma**2))


@pytest.mark.parametrize("logq, sigma", [(-20.0, 40.0), (-60.0, 10.0), (-400.0, 3.0),
                                         (-9.0, 100.0)])
def test_theorem6_numerics_against_mpmath(logq, sigma):
    orders = np.array([1.1, 2.0, 7.5, 20.0, 45.0])
    ours = _rdp_theorem6(np.array([logq]), sigma, orders)[0]
    mu1 = sigma * math.sqrt(-logq) + 1
    for order, value in zip(orders, ours):
        if order < mu1:
            assert value == pytest.approx(_theorem6_mpmath(logq, sigma, order), rel=1e-9)
        else:
            assert value == order / sigma**2


# --- properties --------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n_queries=st.integers(1, 30),
    n_classes=st.integers(2, 12),
    n_teachers=st.integers(0, 300),
    mechanism=st.sampled_from(["laplace", "gaussian", "confident"]),
    scale=st.floats(0.3, 300.0),
    conversion=st.sampled_from(["improved", "classic"]),
)
def test_data_dependent_never_exceeds_data_independent(
    seed, n_queries, n_classes, n_teachers, mechanism, scale, conversion
):
    rng = np.random.default_rng(seed)
    weights = rng.dirichlet(np.full(n_classes, rng.choice([0.05, 0.5, 5.0])), size=n_queries)
    votes = np.vstack([rng.multinomial(n_teachers, w) for w in weights])
    kwargs = {}
    if mechanism == "confident":
        kwargs = dict(threshold=float(rng.uniform(0, n_teachers + 1)),
                      threshold_noise_scale=float(rng.uniform(0.5, 200)),
                      answered=rng.random(n_queries) < 0.5)
    cost = pate_epsilon(votes, mechanism="laplace" if mechanism == "laplace" else "gaussian",
                        noise_scale=scale, delta=DELTA, conversion=conversion, **kwargs)
    assert np.all(cost.rdp_data_dependent <= cost.rdp_data_independent)
    assert np.all(cost.rdp_data_dependent >= 0)
    assert 0 <= cost.epsilon_data_dependent <= cost.epsilon_data_independent
    assert math.isfinite(cost.epsilon_data_independent)


@pytest.mark.parametrize("mechanism, scale", [("laplace", 20.0), ("gaussian", 40.0)])
def test_unanimous_votes_cost_much_less(mechanism, scale):
    votes = np.tile([250] + [0] * 9, (100, 1))
    cost = pate_epsilon(votes, mechanism=mechanism, noise_scale=scale, delta=DELTA)
    assert cost.epsilon_data_dependent < 0.2 * cost.epsilon_data_independent


@pytest.mark.parametrize("mechanism, scale", [("laplace", 20.0), ("gaussian", 40.0),
                                              ("laplace", 0.5), ("gaussian", 2.0)])
@pytest.mark.parametrize("tie", [[125, 125, 0], [100, 100, 50], [0, 0, 0]])
def test_tie_gives_no_data_dependent_saving(mechanism, scale, tie):
    cost = pate_epsilon(np.tile(tie, (50, 1)), mechanism=mechanism, noise_scale=scale,
                        delta=DELTA)
    np.testing.assert_array_equal(cost.rdp_data_dependent, cost.rdp_data_independent)
    assert cost.epsilon_data_dependent == cost.epsilon_data_independent


def test_confident_gnmax_without_answers_costs_only_the_threshold_steps():
    votes = np.tile([100, 90, 60], (40, 1))
    none = pate_epsilon(votes, mechanism="gaussian", noise_scale=40, delta=DELTA,
                        threshold=200, threshold_noise_scale=150, answered=np.zeros(40, bool))
    np.testing.assert_allclose(none.rdp_data_independent, 40 * none.orders / (2 * 150**2))
    assert none.n_answered == 0
    assert none.epsilon_data_dependent <= none.epsilon_data_independent
    every = pate_epsilon(votes, mechanism="gaussian", noise_scale=40, delta=DELTA,
                         threshold=200, threshold_noise_scale=150)
    assert every.n_answered == 40
    assert every.epsilon_data_independent > none.epsilon_data_independent
    assert every.epsilon_data_dependent > none.epsilon_data_dependent


def test_improved_conversion_is_never_looser():
    for mechanism, scale in (("laplace", 20.0), ("gaussian", 40.0)):
        args = dict(mechanism=mechanism, noise_scale=scale, delta=DELTA)
        improved = pate_epsilon(VOTES_2017, **args)
        classic = pate_epsilon(VOTES_2017, conversion="classic", **args)
        assert improved.epsilon_data_independent <= classic.epsilon_data_independent
        assert improved.epsilon_data_dependent <= classic.epsilon_data_dependent


def test_result_is_immutable_and_orders_default():
    cost = pate_epsilon(VOTES_2017[:5], mechanism="gaussian", noise_scale=40, delta=DELTA)
    assert isinstance(cost, PATEPrivacy)
    np.testing.assert_array_equal(cost.orders, DEFAULT_PATE_ORDERS)
    assert cost.orders.min() > 1 and cost.orders.max() == pytest.approx(500)
    with pytest.raises(AttributeError):
        cost.epsilon = 0.0
    with pytest.raises(ValueError):
        cost.rdp_data_independent[0] = 0.0
    assert "rdp_data_independent" not in repr(cost)


def test_accepts_abstentions_float_counts_and_lists():
    # Teachers may abstain: rows need not sum to the same total; integral floats are counts.
    a = pate_epsilon([[10, 2, 0], [7, 7, 1], [0, 0, 0]], mechanism="laplace", noise_scale=2,
                     delta=DELTA)
    b = pate_epsilon(np.array([[10.0, 2, 0], [7, 7, 1], [0, 0, 0]]), mechanism="laplace",
                     noise_scale=2, delta=DELTA)
    assert a.epsilon == b.epsilon and a.n_queries == 3


def test_placeholder_votes_give_the_data_independent_cost():
    # The estimator prices a plan with an all-zero vote matrix of the right shape.
    cost = pate_epsilon(np.zeros((500, 2), dtype=np.int64), mechanism="gaussian",
                        noise_scale=40, delta=DELTA, data_dependent=False, threshold=200,
                        threshold_noise_scale=150)
    assert cost.epsilon == cost.epsilon_data_independent > 0


def test_speed_10000_queries():
    rng = np.random.default_rng(0)
    votes = np.vstack([rng.multinomial(250, rng.dirichlet(np.full(10, 0.3))) for _ in
                       range(10_000)])
    for kwargs in (dict(mechanism="laplace", noise_scale=20),
                   dict(mechanism="gaussian", noise_scale=40),
                   dict(mechanism="gaussian", noise_scale=40, threshold=200,
                        threshold_noise_scale=150, answered=rng.random(10_000) < 0.5)):
        best = math.inf
        for _ in range(3):
            start = time.perf_counter()
            pate_epsilon(votes, delta=DELTA, **kwargs)
            best = min(best, time.perf_counter() - start)
        assert best < 1.0, (kwargs, best)


# --- errors name the parameter -----------------------------------------------------------

GOOD = dict(mechanism="gaussian", noise_scale=40.0, delta=DELTA)


@pytest.mark.parametrize(
    "votes, kwargs, error, match",
    [
        ([[5, -1, 0]], {}, ValueError, r"votes must be non-negative.*votes\[0, 1\] = -1"),
        ([5, 1, 0], {}, ValueError, r"votes must be 2-D.*shape \(3,\)"),
        ([[5.5, 1, 0]], {}, ValueError, r"votes must be integer counts.*5\.5"),
        ([[np.nan, 1]], {}, ValueError, r"votes must be finite"),
        ([["a", "b"]], {}, TypeError, r"votes must be an array of non-negative integer"),
        ([[True, False]], {}, TypeError, r"votes must be an array"),
        (np.zeros((0, 3)), {}, ValueError, r"votes must have at least one query"),
        ([[5], [3]], {}, ValueError, r"two classes"),
        ([[5, 1]], dict(mechanism="exponential"), ValueError, r"'mechanism' parameter"),
        ([[5, 1]], dict(noise_scale=0.0), ValueError, r"'noise_scale' parameter"),
        ([[5, 1]], dict(noise_scale=-2.0), ValueError, r"'noise_scale' parameter"),
        ([[5, 1]], dict(noise_scale=np.inf), ValueError, r"'noise_scale' parameter"),
        ([[5, 1]], dict(delta=0.0), ValueError, r"'delta' parameter"),
        ([[5, 1]], dict(delta=1.0), ValueError, r"'delta' parameter"),
        ([[5, 1]], dict(mechanism="laplace", threshold=3.0, threshold_noise_scale=1.0),
         ValueError, r"threshold \(Confident-GNMax\) requires mechanism='gaussian'"),
        ([[5, 1]], dict(threshold=3.0), ValueError,
         r"threshold was given but threshold_noise_scale is None"),
        ([[5, 1]], dict(threshold_noise_scale=3.0), ValueError,
         r"threshold_noise_scale was given but threshold is None"),
        ([[5, 1]], dict(threshold=np.inf, threshold_noise_scale=1.0), ValueError,
         r"'threshold' parameter"),
        ([[5, 1]], dict(threshold_noise_scale=0.0, threshold=1.0), ValueError,
         r"'threshold_noise_scale' parameter"),
        ([[5, 1], [4, 2]], dict(threshold=3.0, threshold_noise_scale=1.0, answered=[True]),
         ValueError, r"answered must be a boolean array of shape \(n_queries,\) = \(2,\)"),
        ([[5, 1]], dict(threshold=3.0, threshold_noise_scale=1.0, answered=[2]),
         ValueError, r"answered must be boolean"),
        ([[5, 1]], dict(answered=[False]), ValueError,
         r"answered marks 1 unanswered queries but threshold is None"),
        ([[5, 1]], dict(orders=[1.0, 2.0]), ValueError, r"orders must be finite Renyi orders > 1"),
        ([[5, 1]], dict(orders=[[2.0]]), ValueError, r"orders must be a non-empty 1-D"),
        ([[5, 1]], dict(conversion="tight"), ValueError, r"'conversion' parameter"),
        ([[5, 1]], dict(data_dependent="yes"), ValueError, r"'data_dependent' parameter"),
    ],
)
def test_bad_inputs_name_the_parameter(votes, kwargs, error, match):
    with pytest.raises(error, match=match):
        pate_epsilon(votes, **{**GOOD, **kwargs})


def test_answered_may_be_all_true_without_threshold():
    cost = pate_epsilon([[5, 1], [4, 2]], answered=[True, True], **GOOD)
    assert cost.n_answered == 2
