import math
import time
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from skprivate.mechanisms import (
    discrete_gaussian_noise,
    discrete_gaussian_pmf,
    discrete_gaussian_rational_sigma2,
    discrete_laplace_noise,
    discrete_laplace_pmf,
    discrete_laplace_rational_scale,
)
from skprivate.mechanisms import _discrete

N = 200_000


def chisquare_pvalue(samples, pmf):
    """Chi-square goodness of fit of integer samples against a symmetric unimodal pmf.

    Every integer whose expected count is at least 5 is its own bin; the two tails beyond
    them are pooled into one bin each (merged into their neighbour if still below 5).
    """
    n = samples.size
    k_max = 0
    while n * pmf(k_max + 1) >= 5:
        k_max += 1
    core = np.arange(-k_max, k_max + 1)
    expected = n * pmf(core)
    observed = np.array([np.count_nonzero(samples == k) for k in core], dtype=float)
    tail = max((n - expected.sum()) / 2, 0.0)  # symmetric tails
    obs_left = np.count_nonzero(samples < -k_max)
    obs_right = np.count_nonzero(samples > k_max)
    if tail >= 5:
        expected = np.concatenate([[tail], expected, [tail]])
        observed = np.concatenate([[obs_left], observed, [obs_right]])
    else:
        expected[0] += tail
        expected[-1] += tail
        observed[0] += obs_left
        observed[-1] += obs_right
    expected *= n / expected.sum()
    if expected.size < 2:  # all mass on 0: nothing to test beyond that
        return 1.0
    return stats.chisquare(observed, expected).pvalue


# ------------------------------------------------------------------------ goodness of fit
@pytest.mark.parametrize("scale", [0.2, 0.5, 1.0, 3.7, 50.0])
def test_discrete_laplace_chisquare(scale):
    x = discrete_laplace_noise(scale, size=N, random_state=1)
    used = float(discrete_laplace_rational_scale(scale))
    assert chisquare_pvalue(x, lambda k: discrete_laplace_pmf(k, used)) > 1e-4


@pytest.mark.parametrize("sigma", [0.5, 0.7, 1.0, 1.5, math.sqrt(2.5), 7.3, 50.0])
def test_discrete_gaussian_chisquare(sigma):
    x = discrete_gaussian_noise(sigma, size=N, random_state=2)
    used = math.sqrt(discrete_gaussian_rational_sigma2(sigma))
    assert chisquare_pvalue(x, lambda k: discrete_gaussian_pmf(k, used)) > 1e-4


def test_chisquare_detects_wrong_scale():
    # the goodness-of-fit check has power: 3% too much noise is rejected
    x = discrete_gaussian_noise(10.0, size=N, random_state=3)
    assert chisquare_pvalue(x, lambda k: discrete_gaussian_pmf(k, 10.3)) < 1e-4
    y = discrete_laplace_noise(10.0, size=N, random_state=3)
    assert chisquare_pvalue(y, lambda k: discrete_laplace_pmf(k, 10.3)) < 1e-4


def test_discrete_laplace_fraction_scale_is_exact():
    assert discrete_laplace_rational_scale(Fraction(7, 3)) == Fraction(7, 3)
    x = discrete_laplace_noise(Fraction(7, 3), size=N, random_state=4)
    assert chisquare_pvalue(x, lambda k: discrete_laplace_pmf(k, 7 / 3)) > 1e-4


def test_int64_overflow_fallback_is_exact(monkeypatch):
    # Pretend that only |u| <= 1000 is safe in int64: most acceptance tests then run on
    # Python ints, which must give the same distribution.
    monkeypatch.setattr(_discrete, "_SQRT_INT64_MAX", 1000)
    x = discrete_gaussian_noise(4.0, size=50_000, random_state=5)
    assert chisquare_pvalue(x, lambda k: discrete_gaussian_pmf(k, 4.0)) > 1e-4


def test_big_denominator_path_is_exact(monkeypatch):
    # Pretend int64 ends at 2**40: the acceptance denominators 2 n d t^2 (about 2**54 here)
    # then need the multi-word uniform sampler and object arithmetic throughout.
    monkeypatch.setattr(_discrete, "_INT64_MAX", 2**40)
    sigma = 0.7
    n, d = discrete_gaussian_rational_sigma2(sigma).as_integer_ratio()
    assert 2 * n * d > 2**40
    x = discrete_gaussian_noise(sigma, size=50_000, random_state=6)
    used = math.sqrt(n / d)
    assert chisquare_pvalue(x, lambda k: discrete_gaussian_pmf(k, used)) > 1e-4


def test_large_sigma_python_int_path():
    # sigma = 1e5: 2 n d t^2 exceeds int64, so the whole acceptance test is exact big-int
    # arithmetic. Compare with the normal distribution on 20 equiprobable bins (the discrete
    # Gaussian equals the rounded normal to far below sampling error at this sigma).
    sigma = 1e5
    x = discrete_gaussian_noise(sigma, size=20_000, random_state=7)
    assert x.dtype == np.int64
    edges = np.round(stats.norm.ppf(np.linspace(0, 1, 21)[1:-1], scale=sigma)) + 0.5
    observed = np.bincount(np.searchsorted(edges, x), minlength=20)
    expected = np.diff(np.concatenate([[0.0], stats.norm.cdf(edges, scale=sigma), [1.0]]))
    assert stats.chisquare(observed, expected * x.size).pvalue > 1e-4


# ----------------------------------------------------------------- Bernoulli(exp(-gamma))
GAMMAS = [Fraction(0), Fraction(1, 3), Fraction(1, 2), Fraction(1), Fraction(7, 5), Fraction(2),
          Fraction(5, 2), Fraction(29, 10), Fraction(3)]  # fmt: skip


def _bernoulli_exp(gamma, m, rng, den=None):
    den = gamma.denominator if den is None else den
    q = gamma.numerator // gamma.denominator
    frac = gamma - q
    r = frac * den
    assert r.denominator == 1
    dtype = np.int64 if den < 2**63 else object
    r_arr = np.full(m, int(r), dtype=dtype)
    return _discrete._bernoulli_exp_neg(np.full(m, q, dtype=np.int64), r_arr, den, rng)


@pytest.mark.parametrize("gamma", GAMMAS, ids=str)
def test_bernoulli_exp_neg_mean(gamma):
    m = 200_000
    draws = _bernoulli_exp(gamma, m, np.random.default_rng(8))
    p = math.exp(-gamma)
    assert draws.dtype == bool
    assert abs(draws.mean() - p) <= 5 * math.sqrt(p * (1 - p) / m) + 1e-12


@pytest.mark.parametrize("gamma", [Fraction(1, 3), Fraction(29, 10)], ids=str)
def test_bernoulli_exp_neg_mean_huge_denominator(gamma):
    m = 50_000
    den = gamma.denominator * 3**50  # far beyond int64
    draws = _bernoulli_exp(gamma, m, np.random.default_rng(9), den=den)
    p = math.exp(-gamma)
    assert abs(draws.mean() - p) <= 5 * math.sqrt(p * (1 - p) / m)


def test_bernoulli_exp_minus_one_and_geometric():
    rng = np.random.default_rng(10)
    m = 200_000
    p = math.exp(-1)
    draws = _discrete._bernoulli_exp_minus_one(m, rng)
    assert abs(draws.mean() - p) < 5 * math.sqrt(p * (1 - p) / m)
    v = _discrete._geometric_exp_minus_one(m, rng)  # P(V >= k) = exp(-k)
    assert v.mean() == pytest.approx(p / (1 - p), abs=0.01)


def test_uniform_below_big():
    bound = 5 * 2**100 + 12345
    u = _discrete._uniform_below_big(bound, 20_000, np.random.default_rng(11))
    assert all(0 <= int(v) < bound for v in u)
    deciles = np.array([int(v) * 10 // bound for v in u])
    assert stats.chisquare(np.bincount(deciles, minlength=10)).pvalue > 1e-4


# ------------------------------------------------------------------- conservative rounding
@pytest.mark.parametrize(
    "scale",
    [1e-12, 1e-9, 0.1, 1 / 3, 0.5, 0.7, 1.0, 2.0 / 3.0, 12.34, 1e6 + 0.1, 2.0**40 / 3, 2.0**52],
)
def test_laplace_scale_rounding_is_conservative(scale):
    used = discrete_laplace_rational_scale(scale)
    exact = Fraction(scale)
    assert used >= exact
    assert used - exact <= Fraction(1, 2**30)
    assert used.denominator <= 2**30


@pytest.mark.parametrize(
    "sigma", [1e-6, 0.01, 0.3, 0.5, 0.7, 1.0, math.sqrt(2.5), 7.3, 1234.5678, 3e4 + 0.3, 1e9 / 3]
)
def test_gaussian_sigma2_rounding_is_conservative(sigma):
    used = discrete_gaussian_rational_sigma2(sigma)
    exact = Fraction(sigma) ** 2  # exact square of the float, no rounding
    assert used >= exact
    assert used - exact <= max(Fraction(1, 2**30), exact / 2**25)
    assert used.denominator <= 2**30


def test_exactly_representable_parameters_are_kept():
    assert discrete_laplace_rational_scale(0.5) == Fraction(1, 2)
    assert discrete_laplace_rational_scale(50) == 50
    assert discrete_gaussian_rational_sigma2(1.5) == Fraction(9, 4)
    assert discrete_gaussian_rational_sigma2(Fraction(1, 3)) == Fraction(1, 9)


# --------------------------------------------------------------------- output and pmfs
@pytest.mark.parametrize("sampler", [discrete_laplace_noise, discrete_gaussian_noise])
def test_output_types_and_shapes(sampler):
    assert type(sampler(2.0, random_state=0)) is int
    x = sampler(2.0, size=(3, 4), random_state=0)
    assert x.shape == (3, 4) and x.dtype == np.int64
    assert sampler(2.0, size=0, random_state=0).shape == (0,)


@pytest.mark.parametrize("sampler", [discrete_laplace_noise, discrete_gaussian_noise])
def test_tiny_parameter_gives_mostly_zero(sampler):
    x = sampler(0.05, size=10_000, random_state=0)
    assert np.count_nonzero(x) <= 5


@pytest.mark.parametrize("sampler", [discrete_laplace_noise, discrete_gaussian_noise])
def test_speed_1e5(sampler):
    start = time.perf_counter()
    sampler(10.0, size=100_000, random_state=0)
    assert time.perf_counter() - start < 3.0  # about 0.05-0.2 s on a laptop


@pytest.mark.parametrize("scale", [0.3, 1.0, 25.0])
def test_laplace_pmf(scale):
    k = np.arange(-5000, 5001)
    p = discrete_laplace_pmf(k, scale)
    assert p.sum() == pytest.approx(1.0, rel=1e-12)
    assert discrete_laplace_pmf(3, scale) == pytest.approx(
        math.exp(-3 / scale) / sum(math.exp(-abs(j) / scale) for j in range(-5000, 5001))
    )
    assert discrete_laplace_pmf(0.5, scale) == 0.0


@pytest.mark.parametrize("sigma", [0.3, 1.0, 25.0, 999.0, 1001.0, 5000.0])
def test_gaussian_pmf(sigma):
    k = np.arange(-int(45 * sigma) - 60, int(45 * sigma) + 61)
    p = discrete_gaussian_pmf(k, sigma)
    assert p.sum() == pytest.approx(1.0, rel=1e-12)
    assert np.all(p[:-1][k[:-1] >= 0] >= p[1:][k[:-1] >= 0])
    assert discrete_gaussian_pmf([1.5, math.nan], sigma).tolist() == [0.0, 0.0]


def test_pmf_variance_matches_samples():
    sigma = 0.5
    k = np.arange(-200, 201)
    var = np.sum(k**2 * discrete_gaussian_pmf(k, sigma))
    assert var < 0.9 * sigma**2  # the discrete Gaussian has variance below sigma^2
    x = discrete_gaussian_noise(sigma, size=N, random_state=12)
    assert x.var() == pytest.approx(var, rel=0.02)


# ---------------------------------------------------------------------------- validation
@pytest.mark.parametrize("bad", [0, -2.0, math.nan, math.inf, "2", None, True, 2.0**60])
def test_bad_parameters(bad):
    with pytest.raises((TypeError, ValueError), match="scale"):
        discrete_laplace_noise(bad)
    with pytest.raises((TypeError, ValueError), match="sigma"):
        discrete_gaussian_noise(bad)
    with pytest.raises((TypeError, ValueError), match="scale"):
        discrete_laplace_rational_scale(bad)
    with pytest.raises((TypeError, ValueError), match="sigma"):
        discrete_gaussian_rational_sigma2(bad)


def test_bad_parameter_message():
    with pytest.raises(ValueError) as info:
        discrete_gaussian_noise(-1.5)
    message = str(info.value)
    assert "sigma" in message and "-1.5" in message and "> 0" in message
    with pytest.raises(ValueError, match="random_state"):
        discrete_laplace_noise(1.0, random_state=-1)
    with pytest.raises((TypeError, ValueError), match="size"):
        discrete_laplace_noise(1.0, size=-1)
