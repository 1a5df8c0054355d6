"""The granular mechanism: grid, exact noise distribution, accounting, and Mironov's attack.

The accounting is checked against an independent computation (exact rational rounding of
worst-case neighbours and the pmf ratios of the noise actually sampled); the attack shows the
floating-point Laplace leaking the exact value and the granular release not leaking it.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from skprivate.audit import audit_outcomes, audit_scores
from skprivate.mechanisms import (
    discrete_gaussian_pmf,
    discrete_gaussian_rational_sigma2,
    discrete_laplace_rational_scale,
    granular_gaussian_mechanism,
    granular_gaussian_plan,
    granular_laplace_mechanism,
    granular_laplace_plan,
)
from skprivate.mechanisms._secure import _round_to_grid


def _is_power_of_two(x):
    mantissa, _ = math.frexp(x)
    return mantissa == 0.5


def _exact_round(value, gamma):
    """floor(value / gamma + 1/2) in exact rational arithmetic (independent of _round_to_grid)."""
    return math.floor(Fraction(value) / Fraction(gamma) + Fraction(1, 2))


# --- the grid --------------------------------------------------------------------------------
@pytest.mark.parametrize("value", [0.3, -17.123456789, 1e6 / 3, [0.1, 0.2, 0.3, -4.0]])
@pytest.mark.parametrize("sensitivity, epsilon", [(1.0, 0.1), (0.3, 2.0), (7.5, 1.0)])
def test_laplace_releases_lie_on_the_grid(value, sensitivity, epsilon):
    d = np.asarray(value).size
    plan = granular_laplace_plan(sensitivity, epsilon, d)
    assert _is_power_of_two(plan.gamma)
    assert plan.gamma <= min(sensitivity / d, sensitivity / epsilon) / 1024
    out = np.asarray(granular_laplace_mechanism(value, sensitivity, epsilon, random_state=1))
    steps = out / plan.gamma
    assert np.all(steps == np.round(steps))


@pytest.mark.parametrize("value", [0.3, [1e3 / 7, -2.5, 0.0]])
def test_gaussian_releases_lie_on_the_grid(value):
    d = np.asarray(value).size
    plan = granular_gaussian_plan(2.0, 3.0, d)
    assert _is_power_of_two(plan.gamma) and plan.gamma <= 2.0 / math.sqrt(d) / 1024
    out = np.asarray(granular_gaussian_mechanism(value, 2.0, 3.0, random_state=1))
    steps = out / plan.gamma
    assert np.all(steps == np.round(steps))


def test_rounding_is_floor_half_up_of_the_real_quotient():
    gamma = 2.0**-10
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, math.nextafter(0.5, 0), 1e-300, -3.25])
    assert _round_to_grid(x * gamma, gamma).tolist() == [1, 2, 3, 0, -1, 0, 0, -3]
    rng = np.random.default_rng(0)
    values = rng.normal(0, 50, 2000) * rng.choice([1, 1e-3, 1e3], 2000)
    assert _round_to_grid(values, gamma).tolist() == [_exact_round(v, gamma) for v in values]


def test_refuses_values_beyond_exact_float_range():
    with pytest.raises(ValueError, match="too large for the grid"):
        granular_laplace_mechanism(1e20, 1.0, 1.0, random_state=0)
    with pytest.raises(ValueError, match="finite"):
        granular_laplace_mechanism(math.nan, 1.0, 1.0, random_state=0)


# --- the noise's distribution ----------------------------------------------------------------
def _chisquare(z, cdf, cuts):
    """Chi-square p-value of integer samples against a cdf on bins ``(cuts[i-1], cuts[i]]``."""
    cuts = np.unique(np.asarray(cuts, dtype=np.int64))
    observed = np.bincount(np.searchsorted(cuts, z, side="left"), minlength=cuts.size + 1)
    expected = np.diff(np.concatenate([[0.0], cdf(cuts), [1.0]])) * z.size
    return stats.chisquare(observed, expected * observed.sum() / expected.sum()).pvalue


_LEVELS = np.linspace(0, 1, 41)[1:-1]  # 40 bins of about equal mass


def _laplace_cdf(b):
    p = math.exp(-1.0 / b)

    def cdf(k):
        k = np.asarray(k, dtype=float)
        # P(Z <= k) = p^(-k)/(1+p) for k < 0, 1 - p^(k+1)/(1+p) for k >= 0
        return np.where(k < 0, p ** (-k) / (1 + p), 1 - p ** (k + 1) / (1 + p))

    return cdf


def _gaussian_cdf(s):
    support = np.arange(-math.ceil(40 * s + 50), math.ceil(40 * s + 50) + 1)
    cumulative = np.cumsum(discrete_gaussian_pmf(support, s))

    def cdf(k):
        index = np.clip(np.asarray(k) - support[0], -1, support.size - 1)
        return np.where(index < 0, 0.0, cumulative[np.maximum(index, 0)])

    return cdf


def test_laplace_integer_noise_matches_the_exact_pmf():
    d = 20_000
    value = np.random.default_rng(3).normal(0, 5, d)
    plan = granular_laplace_plan(1.0, 0.5, d)
    out = granular_laplace_mechanism(value, 1.0, 0.5, random_state=4)
    z = (out / plan.gamma).astype(np.int64) - _round_to_grid(value, plan.gamma)
    b = float(discrete_laplace_rational_scale(plan.scale))
    cuts = np.round(stats.laplace.ppf(_LEVELS, scale=b))
    assert _chisquare(z, _laplace_cdf(b), cuts) > 1e-4
    assert _chisquare(z, _laplace_cdf(1.05 * b), cuts) < 1e-4  # the test has power


def test_gaussian_integer_noise_matches_the_exact_pmf():
    d = 20_000
    value = np.random.default_rng(3).normal(0, 5, d)
    plan = granular_gaussian_plan(100.0, 1.0, d)
    out = granular_gaussian_mechanism(value, 100.0, 1.0, random_state=4)
    z = (out / plan.gamma).astype(np.int64) - _round_to_grid(value, plan.gamma)
    s = math.sqrt(float(discrete_gaussian_rational_sigma2(plan.scale)))
    cuts = np.round(stats.norm.ppf(_LEVELS, scale=s))
    assert _chisquare(z, _gaussian_cdf(s), cuts) > 1e-4
    assert _chisquare(z, _gaussian_cdf(1.05 * s), cuts) < 1e-4


# --- the accounting, computed independently --------------------------------------------------
def _laplace_log_pmf_ratio(k, b):
    """max_z log(pmf_b(z) / pmf_b(z - k)) from the pmf itself, on a window around 0 and k."""
    z = np.arange(-abs(k) - 50, abs(k) + 51)
    log_pmf = lambda x: -np.abs(x) / b  # the normaliser cancels
    return float(np.max(log_pmf(z) - log_pmf(z - k)))


@pytest.mark.parametrize("sensitivity", [1.0, 0.3, 7.5, 1e-3])
@pytest.mark.parametrize("epsilon", [0.1, 0.7, 3.0])
def test_laplace_charged_epsilon_is_the_worst_pmf_ratio(sensitivity, epsilon):
    plan = granular_laplace_plan(sensitivity, epsilon)
    gamma = plan.gamma
    # Worst neighbours: a just below a rounding edge, a' = a + sensitivity. Exact rounding
    # (Fractions) gives the largest difference of the rounded statistics.
    worst = 0
    for base in (math.nextafter(0.5 * gamma, 0.0), 0.5 * gamma, 12.25, -3.0 + 1e-9):
        for shift in (sensitivity, math.nextafter(sensitivity, 0.0)):
            a, a_prime = base, base + shift
            if Fraction(a_prime) - Fraction(a) > Fraction(sensitivity):
                continue
            worst = max(worst, abs(_exact_round(a_prime, gamma) - _exact_round(a, gamma)))
    rng = np.random.default_rng(0)
    a = rng.uniform(-10, 10, 5000)
    a_prime = a + rng.uniform(0, 1, 5000) * sensitivity * (1 - 1e-12)
    moved = np.abs(_round_to_grid(a_prime, gamma) - _round_to_grid(a, gamma))
    worst = max(worst, int(np.max(moved)))
    assert worst == plan.lattice_sensitivity  # the bound K is attained, never exceeded
    b = float(discrete_laplace_rational_scale(plan.scale))  # the scale actually sampled
    true_epsilon = _laplace_log_pmf_ratio(worst, b)
    assert true_epsilon <= epsilon * (1 + 1e-12)  # never above the charge
    assert true_epsilon >= epsilon * (1 - 1e-6)  # and the charge is not loose
    # Same epsilon as the continuous plan; the noise's std at most 0.1 % above its std.
    p = math.exp(-1.0 / b)
    std = gamma * math.sqrt(2 * p) / (1 - p)
    assert std <= math.sqrt(2) * sensitivity / epsilon * (1 + 2.0**-10)


def test_laplace_l1_lattice_sensitivity_in_several_dimensions():
    sensitivity, epsilon, d = 1.0, 1.0, 4
    plan = granular_laplace_plan(sensitivity, epsilon, d)
    gamma = plan.gamma
    # From just below a rounding edge, one coordinate moves by just under the whole
    # sensitivity and the others by a hair: each hair crosses an edge, so the sum reaches
    # K = ceil(D) + d - 1, more than the D of the real-valued statistic.
    a = np.full(d, math.nextafter(0.5 * gamma, 0.0))
    hair = 1e-6 * gamma
    a_prime = a + np.array([sensitivity - d * hair] + [hair] * (d - 1))
    assert sum(Fraction(v) for v in np.abs(a_prime - a)) <= Fraction(sensitivity)
    k = np.abs(_round_to_grid(a_prime, gamma) - _round_to_grid(a, gamma))
    assert k.sum() == plan.lattice_sensitivity == math.ceil(sensitivity / gamma) + d - 1
    b = float(discrete_laplace_rational_scale(plan.scale))
    total = sum(_laplace_log_pmf_ratio(int(ki), b) for ki in k)  # product pmf: logs add
    assert epsilon * (1 - 1e-6) <= total <= epsilon * (1 + 1e-12)


@pytest.mark.parametrize("sensitivity, sigma, d", [(1.0, 4.0, 1), (1.0, 0.8, 1), (2.0, 3.0, 3)])
def test_gaussian_renyi_divergence_at_most_the_continuous_plans(sensitivity, sigma, d):
    plan = granular_gaussian_plan(sensitivity, sigma, d)
    s = math.sqrt(float(discrete_gaussian_rational_sigma2(plan.scale)))
    # Worst lattice shift for d = 1 is ceil(Delta/gamma) (rounding from just below an edge);
    # for d > 1 spread the L2 bound L over the coordinates, ceil'd (an integer vector at
    # least as long as any reachable one's share per coordinate).
    if d == 1:
        shifts = [int(plan.lattice_sensitivity)]
    else:
        shifts = [math.ceil(float(plan.lattice_sensitivity) / math.sqrt(d))] * d
        assert math.hypot(*shifts) >= float(plan.lattice_sensitivity) - math.sqrt(d)
    support = np.arange(-math.ceil(40 * s + 50), math.ceil(40 * s + 50) + 1)
    energy = lambda z: -(z.astype(float) ** 2) / (2 * s * s)  # log pmf up to its normaliser
    log_norm = np.logaddexp.reduce(energy(support))
    log_p = energy(support) - log_norm
    for alpha in (2.0, 8.0):
        divergence = 0.0
        for k in shifts:  # independent coordinates: Renyi divergences add
            shifted = energy(support - k) - log_norm
            divergence += np.logaddexp.reduce(alpha * log_p + (1 - alpha) * shifted) / (alpha - 1)
        lattice_bound = alpha * float(plan.lattice_sensitivity) ** 2 / (2 * s * s)
        continuous = alpha * sensitivity**2 / (2 * sigma**2)
        assert lattice_bound <= continuous * (1 + 1e-12)
        if d == 1:
            assert divergence <= continuous * (1 + 1e-9)
            assert divergence >= 0.99 * continuous  # within 1 % of today's plan


# --- Mironov's attack -------------------------------------------------------------------------
_U_BITS = 20  # the simplified sampler's uniform grid (NumPy's has 53 bits; same mechanism)


def _textbook_laplace(value, scale, u):
    """Textbook inverse-CDF Laplace, ``value + scale * sign * -log(1 - 2|u - 1/2|)``, float64."""
    centred = u - 0.5
    return value + scale * (-np.sign(centred)) * np.log(1.0 - 2.0 * np.abs(centred))


def test_floating_point_laplace_leaks_and_the_granular_release_does_not():
    scale = 1.0  # epsilon = 1 for sensitivity 1
    epsilon, x, x_prime = 1.0, 0.0, 1.0
    u_grid = (np.arange(1, 2**_U_BITS) / 2.0**_U_BITS)  # every uniform the sampler can return
    reachable = np.unique(_textbook_laplace(x, scale, u_grid))  # every float it can release on x
    rng = np.random.default_rng(0)
    runs = 20_000

    def old(value):
        u = rng.integers(1, 2**_U_BITS, runs) / 2.0**_U_BITS
        return _textbook_laplace(value, scale, u)

    def reachable_from_x(out):  # the attacker's event: "this float is reachable from x"
        return np.isin(out, reachable)

    leak = audit_outcomes(reachable_from_x(old(x)), reachable_from_x(old(x_prime)))
    assert leak.epsilon_lower_bound > 5 * epsilon  # the old path breaks its claim
    # The same attack on the granular release: its reachable set from x is every grid point
    # in range, the same as from x' (the noise covers all integers), so the event is empty
    # of information; no threshold event exceeds the claim either.
    plan = granular_laplace_plan(1.0, epsilon)
    grid_reach = plan.gamma * (_round_to_grid(x, plan.gamma) + np.arange(-10**6, 10**6))

    def new(value):  # one release per run, the estimator's call, vectorised via its sampler
        from skprivate.mechanisms import discrete_laplace_noise

        z = discrete_laplace_noise(plan.scale, size=runs, random_state=rng)
        return plan.gamma * (_round_to_grid(value, plan.gamma) + z)

    out, out_prime = new(x), new(x_prime)
    assert granular_laplace_mechanism(x, 1.0, epsilon, random_state=1) / plan.gamma % 1 == 0
    attack = audit_outcomes(np.isin(out, grid_reach), np.isin(out_prime, grid_reach))
    assert attack.epsilon_lower_bound <= epsilon
    threshold = audit_scores(out_prime, out).epsilon_lower_bound
    assert 0.6 * epsilon <= threshold <= epsilon  # the audit has power, and finds no leak


def test_the_security_page_shows_the_secure_inventory():
    import pathlib

    from skprivate._noise_inventory import SECURE_RELEASES, SECURE_TITLE, render_table

    text = (pathlib.Path(__file__).parents[2] / "docs" / "security.rst").read_text()
    start, end = ".. secure-inventory-start\n\n", "\n.. secure-inventory-end"
    assert start in text and end in text
    shown = text.split(start, 1)[1].split(end, 1)[0]
    assert shown == render_table(SECURE_RELEASES, SECURE_TITLE), (
        "paste the second table of `python -m skprivate._noise_inventory` between the "
        "secure-inventory markers of docs/security.rst"
    )
