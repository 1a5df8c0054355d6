import math

import numpy as np
import pytest
from scipy import stats

from skprivate.mechanisms import (
    gaussian_mechanism,
    gaussian_noise,
    gaussian_sigma,
    laplace_mechanism,
    laplace_noise,
)


def balle_wang_delta(sigma, epsilon, sensitivity=1.0):
    """Independent evaluation of Balle and Wang (2018), Theorem 8, with scipy.stats."""
    a = sensitivity / (2 * sigma)
    b = epsilon * sigma / sensitivity
    return stats.norm.cdf(a - b) - math.exp(epsilon) * stats.norm.cdf(-a - b)


# ----------------------------------------------------------------------------- noise moments
def test_laplace_noise_moments():
    x = laplace_noise(2.0, size=200_000, random_state=0)
    assert x.dtype == np.float64 and x.shape == (200_000,)
    assert abs(x.mean()) < 5 * math.sqrt(8 / x.size)
    assert x.var() == pytest.approx(8.0, abs=5 * math.sqrt(320 / x.size))
    assert np.median(np.abs(x)) == pytest.approx(2.0 * math.log(2), rel=0.02)


def test_gaussian_noise_moments():
    x = gaussian_noise(3.0, size=200_000, random_state=1)
    assert abs(x.mean()) < 5 * 3 / math.sqrt(x.size)
    assert x.var() == pytest.approx(9.0, abs=5 * 9 * math.sqrt(2 / x.size))


def test_scalar_and_shapes():
    assert isinstance(laplace_noise(1.0, random_state=0), float)
    assert isinstance(gaussian_noise(1.0, random_state=0), float)
    assert laplace_noise(1.0, size=(2, 3), random_state=0).shape == (2, 3)
    assert gaussian_noise(1.0, size=0, random_state=0).shape == (0,)
    assert isinstance(laplace_mechanism(1.0, 1.0, 1.0, random_state=0), float)
    assert isinstance(gaussian_mechanism(1.0, 1.0, 1.0, 1e-5, random_state=0), float)
    v = np.arange(6.0).reshape(2, 3)
    assert laplace_mechanism(v, 1.0, 1.0, random_state=0).shape == (2, 3)
    assert gaussian_mechanism(v, 1.0, 1.0, 1e-5, random_state=0).shape == (2, 3)


def test_laplace_mechanism_scale():
    noise = laplace_mechanism(np.full(200_000, 5.0), 2.0, 0.5, random_state=2) - 5.0
    # scale 4: E|X| = 4
    assert np.abs(noise).mean() == pytest.approx(4.0, rel=0.02)


def test_gaussian_mechanism_uses_analytic_sigma():
    sigma = gaussian_sigma(2.0, 0.8, 1e-6)
    noise = gaussian_mechanism(np.zeros(200_000), 2.0, 0.8, 1e-6, random_state=3)
    assert noise.std() == pytest.approx(sigma, rel=0.01)


# ------------------------------------------------------------------- analytic Gaussian sigma
@pytest.mark.parametrize("epsilon", [0.01, 0.1, 0.5, 1.0, 3.0, 10.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-6, 1e-3, 0.2])
def test_gaussian_sigma_meets_balle_wang_bound_tightly(epsilon, delta):
    sigma = gaussian_sigma(1.0, epsilon, delta)
    assert balle_wang_delta(sigma, epsilon) <= delta
    assert balle_wang_delta(0.999 * sigma, epsilon) > delta


@pytest.mark.parametrize("sensitivity", [0.01, 1.0, 7.5, 1e4])
def test_gaussian_sigma_scales_with_sensitivity(sensitivity):
    sigma = gaussian_sigma(sensitivity, 1.0, 1e-5)
    assert sigma >= sensitivity * gaussian_sigma(1.0, 1.0, 1e-5) * (1 - 1e-15)
    assert balle_wang_delta(sigma, 1.0, sensitivity) <= 1e-5
    assert balle_wang_delta(0.999 * sigma, 1.0, sensitivity) > 1e-5


@pytest.mark.parametrize("epsilon", [0.05, 0.3, 0.9])
@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-9])
def test_gaussian_sigma_below_classical_bound(epsilon, delta):
    classical = math.sqrt(2 * math.log(1.25 / delta)) * 2.0 / epsilon
    assert gaussian_sigma(2.0, epsilon, delta) < classical


def test_gaussian_sigma_known_value():
    # Balle and Wang (2018): epsilon = 1, delta = 1e-5 needs sigma ~ 3.73 (classical: 4.84).
    assert gaussian_sigma(1.0, 1.0, 1e-5) == pytest.approx(3.7306, abs=1e-4)


def test_gaussian_sigma_large_epsilon_and_monotone():
    sigmas = [gaussian_sigma(1.0, eps, 1e-5) for eps in [0.5, 1, 2, 5, 20, 100, 500]]
    assert all(a > b > 0 for a, b in zip(sigmas, sigmas[1:]))


def test_gaussian_sigma_never_undershoots_high_precision():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50

    def delta_exact(sigma, eps):
        s, e = mpmath.mpf(sigma), mpmath.mpf(eps)
        return mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)

    for eps in [1e-4, 1e-2, 1.0, 50.0, 700.0]:
        for delta in [1e-15, 1e-8, 0.3]:
            sigma = gaussian_sigma(1.0, eps, delta)
            assert delta_exact(sigma, eps) <= delta
            assert delta_exact(sigma * (1 - 1e-6), eps) > delta


# ----------------------------------------------------------------- Monte-Carlo privacy check
def _log_ratios(release, n=400_000, seed=11):
    """|log| of the ratio of histograms of release(f(D)) and release(f(D')), f(D') = f(D) + 1."""
    rng = np.random.default_rng(seed)
    a = release(np.zeros(n), rng)
    b = release(np.ones(n), rng)
    edges = np.arange(-4.0, 5.0 + 1e-9, 0.25)
    c1, _ = np.histogram(a, edges)
    c2, _ = np.histogram(b, edges)
    ok = (c1 >= 400) & (c2 >= 400)
    assert ok.sum() >= 10
    log_ratio = np.abs(np.log(c1[ok] / c2[ok]))
    se = np.sqrt(1 / c1[ok] + 1 / c2[ok])  # delta-method standard error of the log ratio
    return log_ratio, se


def test_laplace_mechanism_privacy_monte_carlo():
    epsilon = 1.0
    def release(value, rng):
        return laplace_mechanism(value, 1.0, epsilon, random_state=rng)

    log_ratio, se = _log_ratios(release)
    assert np.all(log_ratio <= epsilon + 4.5 * se)
    # the bound is attained outside [0, 1], so the check has power
    assert log_ratio.max() > epsilon - 0.1


def test_monte_carlo_check_detects_too_little_noise():
    # scale 0.5 gives epsilon = 2 for sensitivity 1: the same check must fail for epsilon = 1
    log_ratio, se = _log_ratios(lambda v, rng: v + laplace_noise(0.5, v.shape, random_state=rng))
    assert np.any(log_ratio > 1.0 + 4.5 * se)


# ------------------------------------------------------------------------------ validation
BAD_POSITIVE = [0, -1.0, math.nan, math.inf, "1", None, True]


@pytest.mark.parametrize("bad", BAD_POSITIVE)
def test_noise_bad_scale(bad):
    with pytest.raises((TypeError, ValueError), match="scale"):
        laplace_noise(bad)
    with pytest.raises((TypeError, ValueError), match="sigma"):
        gaussian_noise(bad)


@pytest.mark.parametrize("bad", BAD_POSITIVE)
def test_mechanism_bad_sensitivity_and_epsilon(bad):
    with pytest.raises((TypeError, ValueError), match="sensitivity"):
        laplace_mechanism(1.0, bad, 1.0)
    with pytest.raises((TypeError, ValueError), match="epsilon"):
        laplace_mechanism(1.0, 1.0, bad)
    with pytest.raises((TypeError, ValueError), match="sensitivity"):
        gaussian_mechanism(1.0, bad, 1.0, 1e-5)
    with pytest.raises((TypeError, ValueError), match="epsilon"):
        gaussian_sigma(1.0, bad, 1e-5)


@pytest.mark.parametrize("bad", [0, 0.0, 1, 1.5, -1e-5, math.nan, "0.1", None])
def test_bad_delta(bad):
    with pytest.raises((TypeError, ValueError), match="delta"):
        gaussian_sigma(1.0, 1.0, bad)
    with pytest.raises((TypeError, ValueError), match="delta"):
        gaussian_mechanism(1.0, 1.0, 1.0, bad)


def test_error_message_says_what_was_received_and_how_to_fix():
    with pytest.raises(ValueError) as info:
        laplace_mechanism(1.0, 1.0, -2.0)
    message = str(info.value)
    assert "epsilon" in message and "-2.0" in message and "> 0" in message


@pytest.mark.parametrize("bad", [math.nan, [1.0, math.inf]])
def test_non_finite_value_rejected(bad):
    with pytest.raises(ValueError, match="value"):
        laplace_mechanism(bad, 1.0, 1.0)
    with pytest.raises(ValueError, match="value"):
        gaussian_mechanism(bad, 1.0, 1.0, 1e-5)


def test_non_numeric_value_rejected():
    with pytest.raises(TypeError, match="value"):
        laplace_mechanism("abc", 1.0, 1.0)


@pytest.mark.parametrize("bad", [-1, 2.5, (2, -1), "3"])
def test_bad_size(bad):
    with pytest.raises((TypeError, ValueError), match="size"):
        laplace_noise(1.0, size=bad)


def test_gaussian_sigma_extreme_epsilon():
    # epsilon -> 0: sigma tends to 1 / (2 Phi^-1((1 + delta) / 2)), finite for every delta
    limit = 1 / (2 * stats.norm.ppf((1 + 1e-5) / 2))
    assert gaussian_sigma(1.0, 1e-200, 1e-5) == pytest.approx(limit, rel=1e-6)
    assert gaussian_sigma(1.0, 1e-200, 1e-5) >= gaussian_sigma(1.0, 1e-3, 1e-5)
    with pytest.raises(ValueError, match="epsilon"):
        gaussian_sigma(1.0, 1e300, 1e-5)
