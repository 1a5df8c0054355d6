"""zCDP conversion and calibration against independent computations."""

import math

import dp_accounting
import numpy as np
import pytest
from scipy.stats import norm

from skprivate.accounting._zcdp import (
    gaussian_rho, gaussian_sigma_for_rho, zcdp_epsilon, zcdp_rho,
)


def _rdp_accountant_epsilon(rho, delta):
    accountant = dp_accounting.rdp.RdpAccountant(
        orders=list(np.linspace(1.01, 10, 500)) + list(np.geomspace(10, 1e5, 2000)))
    accountant.compose(dp_accounting.ZCDpEvent(rho))
    return accountant.get_epsilon(delta)


def _gaussian_exact_delta(mu, epsilon):
    # The continuous Gaussian's exact curve (Balle and Wang 2018, Theorem 8), mu = Delta/sigma.
    return norm.cdf(mu / 2 - epsilon / mu) - math.exp(epsilon) * norm.cdf(-mu / 2 - epsilon / mu)


@pytest.mark.parametrize("rho", [1e-4, 0.01, 0.1, 0.5, 3.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-10])
def test_matches_dp_accounting_and_never_below_the_exact_gaussian(rho, delta):
    ours = zcdp_epsilon(rho, delta)
    theirs = _rdp_accountant_epsilon(rho, delta)
    # Same bound, minimised independently (ours continuously, theirs on a grid of orders).
    assert ours <= theirs * (1 + 1e-6)
    assert ours >= theirs * (1 - 2e-3)
    # zCDP is a relaxation of the Gaussian's exact curve: it may never claim less epsilon.
    mu = math.sqrt(2 * rho)
    assert _gaussian_exact_delta(mu, ours) <= delta


def test_zero_rho_and_invalid_input():
    assert zcdp_epsilon(0.0, 1e-5) == 0.0
    with pytest.raises(ValueError, match="rho"):
        zcdp_epsilon(-1.0, 1e-5)
    with pytest.raises(ValueError, match="delta"):
        zcdp_epsilon(0.1, 0.0)


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 1.0, 4.0, 20.0])
@pytest.mark.parametrize("delta", [1e-5, 1e-9])
def test_calibration_is_feasible_and_tight(epsilon, delta):
    rho = zcdp_rho(epsilon, delta)
    assert zcdp_epsilon(rho, delta) <= epsilon
    assert zcdp_epsilon(rho * (1 + 1e-6), delta) > epsilon * (1 - 1e-6)


def test_gaussian_rho_and_its_inverse():
    assert gaussian_rho(2.0, 4.0) == pytest.approx(2.0**2 / (2 * 16.0))
    for rho in [1e-3, 0.37, 5.0]:
        sigma = gaussian_sigma_for_rho(1.7, rho)
        assert gaussian_rho(1.7, sigma) <= rho
        assert gaussian_rho(1.7, sigma * (1 - 1e-9)) > rho * (1 - 1e-6)
