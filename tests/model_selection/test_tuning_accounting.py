"""The tuning theorems, checked against dp-accounting and against exact Renyi divergences.

Three independent routes: dp-accounting's own ``RepeatAndSelectDpEvent`` (a second
implementation of Papernot and Steinke's Theorems 2 and 6), the exact Renyi divergence of
"best of K runs" for small discrete mechanisms (computed from the probability generating
function of K, no theorem involved), and Monte-Carlo draws of the number of runs.
"""

import math

import numpy as np
import pytest
from dp_accounting import dp_event, rdp
from dp_accounting.rdp import rdp_privacy_accountant as rdp_module
from scipy.special import logsumexp

from skprivate.accounting import dpsgd_event
from skprivate.model_selection import _tuning_accounting as ta
from skprivate.utils._compat import rdp_curve

SHAPES = [("poisson", np.inf), (1.0, 1.0), (0.0, 0.0), (0.5, 0.5), (3.0, 3.0)]


def _dp_accounting_curve(event):
    accountant = rdp.RdpAccountant(list(ta.ORDERS))
    accountant.compose(event)
    return np.asarray(accountant._rdp)


@pytest.mark.parametrize("z, q, steps", [(1.0, 0.01, 100), (3.0, 0.2, 40), (0.8, 1.0, 5)])
def test_sampled_gaussian_curve_matches_dp_accounting(z, q, steps):
    ours = ta.event_rdp(dpsgd_event(z, q, steps))
    ref = _dp_accounting_curve(dpsgd_event(z, q, steps))
    np.testing.assert_allclose(ours, ref, rtol=1e-9)


def test_rdp_to_delta_matches_dp_accounting():
    curve = ta.event_rdp(dpsgd_event(1.2, 0.05, 200))
    for eps in (0.5, 1.0, 3.0):
        ref, _ = rdp_module.compute_delta(ta.ORDERS, curve, eps)
        ours = ta.rdp_to_delta(curve, eps)
        assert ours >= ref * (1 - 1e-12)  # ours omits dp-accounting's extra KL bound only
        assert ours == pytest.approx(ref, rel=1e-9)


@pytest.mark.parametrize("distribution, shape", SHAPES)
@pytest.mark.parametrize("mean", [1.5, 10, 60])
def test_repeat_and_select_matches_dp_accounting(distribution, shape, mean):
    event = dpsgd_event(1.1, 0.05, 300)
    ref_accountant = rdp.RdpAccountant(list(ta.ORDERS))
    ref_accountant.compose(dp_event.RepeatAndSelectDpEvent(event, mean, shape))
    curve = ta.repeat_and_select_rdp(ta.event_rdp(event), distribution, mean)
    reference = ref_accountant.get_epsilon
    if distribution == "poisson":
        # dp-accounting applies Theorem 6 with K = 0 allowed; a released search has K >= 1,
        # which adds -log(1 - exp(-mean)) / (lambda - 1) to the curve (_poisson_rdp).
        retry = -math.log(-math.expm1(-mean)) / (ta.ORDERS - 1)
        conditioned = ta._monotone(rdp_curve(ref_accountant) + retry)

        def reference(delta):
            return ta.rdp_to_epsilon(conditioned, delta)

    for delta in (1e-5, 1e-8):
        ours = ta.rdp_to_epsilon(curve, delta)
        assert ours >= ref_accountant.get_epsilon(delta) * (1 - 1e-9)
        assert ours == pytest.approx(reference(delta), rel=1e-8)


@pytest.mark.parametrize(
    "seed, eps, mean", [(0, 1.0, 1.0), (1, 0.3, 1.2), (2, 3.0, 2.0), (3, 2.0, 0.5)]
)
def test_a_poisson_search_released_only_when_it_ran_is_bounded(seed, eps, mean):
    """The search refuses K = 0 and asks for another fit: the released output is the best of
    K ~ Poisson(mean) conditioned on K >= 1. Its exact divergence exceeds Theorem 6's bound
    for small means, and stays within the conditioned bound the search charges."""
    rng = np.random.default_rng(seed)
    p, q = _random_pair(rng, m=6, eps=eps)
    orders = ta.ORDERS
    base = np.array([max(_renyi(p, q, a), _renyi(q, p, a)) for a in orders])
    pa, qa = _best_of_k(p, "poisson", mean)[1:], _best_of_k(q, "poisson", mean)[1:]
    pa, qa = pa / pa.sum(), qa / qa.sum()  # conditioned on K >= 1
    exact = np.array([max(_renyi(pa, qa, a), _renyi(qa, pa, a)) for a in orders])
    assert np.all(exact <= ta.repeat_and_select_rdp(base, "poisson", mean) + 1e-9)
    # Theorem 6 as stated (K = 0 allowed), which the search charged before: exceeded here
    unconditioned = ta._monotone(np.array([
        base[i] + mean * ta.rdp_to_delta(base, math.log1p(1 / (a - 1))) + math.log(mean) / (a - 1)
        for i, a in enumerate(orders)
    ]))
    if mean <= 1.0:
        assert np.any(exact > unconditioned + 1e-9)


# --- the exact Renyi divergence of "best of K" for discrete mechanisms -------------------------
def _pgf(s, distribution, mean):
    """E[s^K] (K = 0 allowed for Poisson), written from the distributions' definitions."""
    if distribution == "poisson":
        return np.exp(mean * (s - 1.0))
    eta = float(distribution)
    gamma = ta.tnb_gamma(mean, eta)
    if eta == 0:
        return np.log1p(-(1 - gamma) * s) / math.log(gamma)
    return ((1 - (1 - gamma) * s) ** (-eta) - 1) / (gamma ** (-eta) - 1)


def _best_of_k(p, distribution, mean):
    """Distribution of the best of K draws from p (outputs ordered by index), plus K = 0."""
    cdf = np.concatenate([[0.0], np.cumsum(p)])
    cdf[-1] = 1.0
    g = _pgf(cdf, distribution, mean)
    # P[best <= j] = E[F(j)^K]; the atom at "no run" (Poisson only) is g(0).
    return np.concatenate([[g[0]], np.diff(g)])


def _renyi(p, q, alpha):
    keep = p > 0
    return logsumexp(alpha * np.log(p[keep]) + (1 - alpha) * np.log(q[keep])) / (alpha - 1)


def _random_pair(rng, m, eps):
    """Two distributions on m ordered outputs whose log ratio is at most eps everywhere."""
    base = rng.dirichlet(np.ones(m))
    tilt = rng.uniform(-eps / 2, eps / 2, size=m)
    other = base * np.exp(tilt)
    return base, other / other.sum()


@pytest.mark.parametrize("distribution", ["poisson", 1.0, 0.0, 0.5, 3.0, -0.5])
@pytest.mark.parametrize("seed, eps, mean", [(0, 1.0, 5.0), (1, 0.3, 1.2), (2, 3.0, 20.0)])
def test_theorems_bound_the_exact_divergence_of_the_best_of_k(distribution, seed, eps, mean):
    rng = np.random.default_rng(seed)
    p, q = _random_pair(rng, m=6, eps=eps)
    orders = ta.ORDERS
    # the exact RDP curve of the base mechanism, both directions
    base = np.array([max(_renyi(p, q, a), _renyi(q, p, a)) for a in orders])
    # both theorems may be applied at any lambda; check a good part of the curve
    bound = ta.repeat_and_select_rdp(base, distribution, mean)
    pa, qa = _best_of_k(p, distribution, mean), _best_of_k(q, distribution, mean)
    np.testing.assert_allclose(pa.sum(), 1.0, rtol=1e-9)
    exact = np.array([max(_renyi(pa, qa, a), _renyi(qa, pa, a)) for a in orders])
    assert np.all(exact <= bound + 1e-9)
    # the bound is not vacuous: selection costs more than one run, and the bound is finite
    assert np.all(np.isfinite(bound[orders <= 64]))
    assert exact[orders == 2][0] > 0


def test_pgf_matches_the_pmf_used_for_sampling():
    for eta in (1.0, 0.0, 0.5, 3.0, -0.5):
        gamma = ta.tnb_gamma(7.0, eta)
        k = np.arange(1, 4000)
        pmf = ta.tnb_pmf(k, gamma, eta)
        assert pmf.sum() == pytest.approx(1.0, rel=1e-9)
        assert (k * pmf).sum() == pytest.approx(ta.tnb_mean(gamma, eta), rel=1e-9)
        assert (k * pmf).sum() == pytest.approx(7.0, rel=1e-9)
        s = 0.7
        assert (pmf * s**k).sum() == pytest.approx(_pgf(s, eta, 7.0), rel=1e-9)


@pytest.mark.parametrize("distribution", ["poisson", 1.0, 0.0, 0.5, -0.5])
def test_sampled_number_of_runs_has_the_stated_distribution(distribution):
    rng = np.random.default_rng(0)
    draws = np.array([ta.sample_n_runs(rng, distribution, 6.0) for _ in range(10000)])
    mean = ta.expected_runs(distribution, 6.0)
    sem = draws.std() / math.sqrt(draws.size)
    assert abs(draws.mean() - mean) < 5 * sem
    if distribution != "poisson":
        assert draws.min() >= 1
        eta = float(distribution)
        expected = ta.tnb_pmf(np.arange(1, 4), ta.tnb_gamma(6.0, eta), eta)
        observed = np.array([(draws == k).mean() for k in (1, 2, 3)])
        np.testing.assert_allclose(observed, expected, atol=5 * math.sqrt(0.25 / draws.size))


def test_geometric_is_liu_talwar_and_three_epsilon_for_pure_dp():
    # Liu and Talwar (2019), Theorem 3.1: random stopping over an eps-DP mechanism is
    # 3 eps-DP. Theorem 2 with eta = 1 recovers it as lambda -> infinity.
    eps = 0.2
    curve = np.full(ta.ORDERS.size, eps)
    out = ta.repeat_and_select_rdp(curve, 1.0, 20.0)
    lam = ta.ORDERS[-1]
    limit = 3 * eps + 2 * math.log(20) / lam + math.log(20) / (lam - 1) - 2 * eps / lam
    assert out[-1] == pytest.approx(limit, rel=1e-9)
    assert ta.tnb_gamma(20.0, 1.0) == 1 / 20


def test_pure_dp_curve_bounds_randomized_response():
    eps = 0.7
    p = np.array([math.exp(eps), 1.0]) / (1 + math.exp(eps))
    exact = np.array([_renyi(p, p[::-1], a) for a in ta.ORDERS])
    assert np.all(exact <= ta.pure_dp_rdp(eps) + 1e-12)


def test_gaussian_noise_multiplier_never_overshoots():
    for eps, delta in [(0.1, 1e-5), (1.0, 1e-6), (5.0, 1e-3)]:
        z = ta.gaussian_noise_multiplier(eps, delta)
        got = ta.rdp_to_epsilon(ta.gaussian_rdp(z), delta)
        assert 0.99 * eps <= got <= eps


def test_theorem_monotone_in_the_base_curve():
    small = ta.event_rdp(dpsgd_event(2.0, 0.05, 100))
    large = ta.event_rdp(dpsgd_event(1.0, 0.05, 100))
    for dist in ("poisson", 1.0, 0.0):
        a = ta.rdp_to_epsilon(ta.repeat_and_select_rdp(small, dist, 10), 1e-5)
        b = ta.rdp_to_epsilon(ta.repeat_and_select_rdp(large, dist, 10), 1e-5)
        assert a < b
