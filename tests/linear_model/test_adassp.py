"""AdaSSP regressions: the algebra against scikit-learn, each release's sensitivity against
an independent computation, the accounting against dp_accounting, the caveats."""

import warnings

import dp_accounting
import numpy as np
import pytest
from sklearn.linear_model import LinearRegression as SkLinearRegression
from sklearn.linear_model import Ridge as SkRidge

from skprivate.accounting import BudgetAccountant
from skprivate.accounting._leaks import parameter_caveats
from skprivate.accounting._zcdp import gaussian_rho, zcdp_epsilon
from skprivate.exceptions import BudgetExceededError, PrivacyLeakWarning
from skprivate.linear_model import LinearRegression, Ridge


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded noise in tests
        return est.fit(X, y)


def _sign_rows(n=3000, seed=0):
    """Rows whose scaled features are all +-1: every scaled row has the largest norm, so
    the private radius (the first public edge at or above the median norm) clips none,
    and a fit with little noise must be scikit-learn's."""
    rng = np.random.default_rng(seed)
    half = np.array([1.0, 2.0, 4.0])
    X = rng.choice([-1.0, 1.0], size=(n, 3)) * half + np.array([0.0, 1.0, -3.0])
    y = X @ np.array([1.5, -0.5, 0.25]) + 2.0 + rng.normal(0, 0.3, size=n)
    bounds_X = (np.array([-1.0, -1.0, -7.0]), np.array([1.0, 3.0, 1.0]))
    return X, y, bounds_X


@pytest.mark.parametrize("alpha", [None, 0.0, 50.0])
def test_little_noise_gives_scikit_learns_solution(alpha):
    X, y, bounds_X = _sign_rows()
    if alpha is None:
        est, reference = LinearRegression, SkLinearRegression()
        params = {}
    else:
        est, reference = Ridge, SkRidge(alpha=alpha)
        params = {"alpha": alpha}
    fitted = _fit(est(epsilon=1e5, bounds_X=bounds_X, bounds_y=(-20.0, 20.0),
                      random_state=0, **params), X, y)
    reference.fit(X, y)
    assert fitted.clip_radius_ == pytest.approx(np.sqrt(3.0))
    assert fitted.noise_ridge_ == 0.0
    np.testing.assert_allclose(fitted.coef_, reference.coef_, atol=2e-3)
    assert fitted.intercept_ == pytest.approx(reference.intercept_, abs=2e-3)


def test_without_intercept():
    X, y, bounds_X = _sign_rows()
    fitted = _fit(LinearRegression(epsilon=1e5, bounds_X=bounds_X, bounds_y=(-20.0, 20.0),
                                   fit_intercept=False, random_state=0), X, y)
    reference = SkLinearRegression(fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(fitted.coef_, reference.coef_, atol=2e-3)
    assert fitted.intercept_ == 0.0


def test_smallest_eigenvalue_moves_by_at_most_the_squared_norm():
    """Weyl's inequality, checked numerically: adding a row z moves lambda_min(Z^T Z) by a
    value in [0, ||z||**2], and a row along the bottom eigenvector attains ||z||**2."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        Z = rng.normal(size=(rng.integers(2, 8), 4))
        z = rng.normal(size=4)
        before = np.linalg.eigvalsh(Z.T @ Z)[0]
        after = np.linalg.eigvalsh(Z.T @ Z + np.outer(z, z))[0]
        assert -1e-9 <= after - before <= z @ z + 1e-9
    Z = np.diag([3.0, 1.0, 2.0])
    z = np.array([0.0, 0.5, 0.0])
    moved = np.linalg.eigvalsh(Z.T @ Z + np.outer(z, z))[0] - np.linalg.eigvalsh(Z.T @ Z)[0]
    assert moved == pytest.approx(z @ z)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 4.0])
def test_accounting_fits_within_epsilon_independently(epsilon):
    X, y, bounds_X = _sign_rows(n=300)
    est = _fit(LinearRegression(epsilon=epsilon, bounds_X=bounds_X, bounds_y=(-20, 20),
                                random_state=0), X, y)
    report = est.privacy_report_
    rho = report["zcdp_rho"]
    # each release's noise meets its third of rho for its stated sensitivity
    for key in ("lambda_min", "Z^T Z", "Z^T y"):
        assert gaussian_rho(report["l2_sensitivity"][key], report["noise_std"][key]) <= rho / 3
    assert report["l2_sensitivity"]["Z^T y"] ** 2 == pytest.approx(
        report["l2_sensitivity"]["Z^T Z"]) == pytest.approx(est.clip_radius_**2 + 1.0)
    pure = report["epsilon_of_histogram"]
    if hasattr(dp_accounting, "ZCDpEvent"):  # dp-accounting >= 0.5.1
        accountant = dp_accounting.rdp.RdpAccountant(orders=1.0 + np.logspace(-3, 4, 4000))
        accountant.compose(dp_accounting.ZCDpEvent(rho))
        assert pure + accountant.get_epsilon(1e-5) <= epsilon * (1 + 1e-4)
    assert epsilon * 0.99 <= pure + zcdp_epsilon(rho, 1e-5) <= epsilon
    assert (est.epsilon_, est.delta_) == (epsilon, 1e-5)


def test_useful_on_many_rows():
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, size=(20000, 5))
    y = X @ np.array([1.0, -1.0, 0.5, 0.0, 2.0]) + rng.normal(0, 0.2, size=20000)
    est = _fit(LinearRegression(epsilon=1.0, bounds_X=(-1, 1), bounds_y=(-5, 5),
                                random_state=0), X, y)
    assert est.score(X, y) > 0.97 * SkLinearRegression().fit(X, y).score(X, y)


def test_bounds_read_from_the_data_warn_and_name_the_parameters():
    X, y, bounds_X = _sign_rows(n=200)
    with pytest.warns(PrivacyLeakWarning, match="bounds_X, data_norm were None"):
        est = LinearRegression().fit(X, y)
    assert est.privacy_report_.caveat_codes.count("bounds_from_data") == 2  # X and y
    with pytest.warns(PrivacyLeakWarning, match="bounds_y was None"):
        LinearRegression(bounds_X=bounds_X).fit(X, y)
    quiet = LinearRegression(data_norm=10.0, bounds_y=(-20, 20)).fit(X, y)
    assert quiet.privacy_report_.caveat_codes == []
    assert quiet.bounds_ is None
    # unfitted: the leak machinery plans the same caveats from the parameters
    assert [c.code for c in parameter_caveats(LinearRegression())] == ["bounds_from_data"]
    assert "bounds_y" in parameter_caveats(LinearRegression(data_norm=1.0))[0]
    assert parameter_caveats(Ridge(bounds_X=bounds_X, bounds_y=(-1, 1))) == []


def test_budget_is_refused_before_reading_and_recorded():
    X, y, bounds_X = _sign_rows(n=200)
    accountant = BudgetAccountant(epsilon=1.5, delta=1e-4)
    _fit(Ridge(epsilon=1.0, bounds_X=bounds_X, bounds_y=(-20, 20), accountant=accountant,
               random_state=0), X, y)
    assert accountant.remaining()[0] == pytest.approx(0.5)
    with pytest.raises(BudgetExceededError):
        Ridge(epsilon=1.0, bounds_X=bounds_X, bounds_y=(-20, 20),
              accountant=accountant).fit(X, y)


def test_bounds_y_is_checked():
    X, y, bounds_X = _sign_rows(n=50)
    with pytest.raises(ValueError, match="bounds_y must be finite with lower < upper"):
        LinearRegression(bounds_X=bounds_X, bounds_y=(3, 1)).fit(X, y)
    with pytest.raises(ValueError, match="bounds_y must be a pair"):
        LinearRegression(bounds_X=bounds_X, bounds_y=(1, 2, 3)).fit(X, y)


def test_delta_is_checked_against_the_released_count():
    """The noisy Z^T Z's intercept entry is a released count: delta >= 1/n is caught without
    reading the exact number of rows."""
    X, y, bounds_X = _sign_rows(n=200)
    est = _fit(LinearRegression(delta=0.01, bounds_X=bounds_X, bounds_y=(-20, 20),
                                random_state=0), X, y)
    assert "delta_protects_no_one" in est.privacy_report_.caveat_codes
    est = _fit(LinearRegression(delta=1e-5, bounds_X=bounds_X, bounds_y=(-20, 20),
                                random_state=0), X, y)
    assert "delta_protects_no_one" not in est.privacy_report_.caveat_codes
