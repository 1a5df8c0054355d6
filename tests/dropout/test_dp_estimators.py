"""DPDropoutRegressor / DPDropoutClassifier: release, accounting, failure, errors."""

import math
import warnings

import dp_accounting
import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from skprivate.accounting import BudgetAccountant
from skprivate.accounting._zcdp import gaussian_sigma_for_rho, zcdp_epsilon, zcdp_rho
from skprivate.dropout import DPDropoutClassifier, DPDropoutRegressor
from skprivate.dropout import _dp_base
from skprivate.dropout._ptr import leave_one_out_statistic, minimiser_sensitivity
from skprivate.dropout._regression import dropout_minimiser
from skprivate.exceptions import BudgetExceededError, PrivacyLeakWarning, PrivacyTestFailed
from skprivate.mechanisms import gaussian_sigma


def _data(n=2000, p=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, p))
    y = np.clip(X @ np.linspace(0.5, -0.5, p) + 0.1 * rng.normal(size=n), -1, 1)
    return X, y


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        warnings.simplefilter("ignore", UserWarning)  # the chance warning (test_chance.py)
        return est.fit(X, y)


def test_release_is_the_exact_minimiser_when_the_noise_is_off(monkeypatch):
    # Clipping, augmentation and the solver checked with the noise switched off.
    monkeypatch.setattr(_dp_base, "rounded_gaussian_mechanism",
                        lambda value, sensitivity, noise_multiplier, random_state: value)
    X, y = _data()
    X[0] = [5.0, -5.0, 5.0]  # clipped to the bounds
    reg = _fit(DPDropoutRegressor(bounds=(-1, 1), y_bound=1.0, random_state=0), X, y)
    Xc = np.clip(X, -1, 1)
    Xa = np.hstack([Xc, np.ones((len(X), 1))])
    theta = dropout_minimiser(Xa, np.clip(y, -1, 1), 1.0, 1.0, radius=reg.coef_bound_)
    np.testing.assert_allclose(reg.coef_, theta[:-1], atol=1e-10)
    assert reg.intercept_ == pytest.approx(theta[-1], abs=1e-10)


def test_noise_is_calibrated_to_the_derived_sensitivity():
    X, y = _data()
    reg = _fit(DPDropoutRegressor(bounds=(-1, 1), y_bound=1.0, random_state=0,
                                  n_samples_public=True), X, y)
    eps1, delta1 = 0.3, 0.3e-5
    margin = math.log(1 / (2 * delta1)) / eps1
    assert reg.lambda_bound_ == pytest.approx(max(reg.lambda_noisy_ - margin, 0))
    expected = minimiser_sensitivity(
        reg.lambda_bound_, row_norm=math.sqrt(3 + 1), target_norm=1.0,
        coef_bound=reg.coef_bound_, unit=1.0, c=1.0, alpha=1.0,
    )
    assert reg.sensitivity_ == pytest.approx(expected)
    # The release is the rounded Gaussian (a post-processing of the Gaussian mechanism) with
    # the noise the plan draws: on the lattice, noise multiplier sqrt(S) / L. dp_accounting's
    # PLD accountant on that GaussianDpEvent gives (epsilon2, delta2) = (0.7, 0.7e-5), never
    # more (the zCDP calibration of the discrete Gaussian it replaced needed 1.0 to 1.12
    # times this noise).
    from skprivate.mechanisms import rounded_gaussian_plan

    assert reg.noise_std_ == gaussian_sigma(expected, 0.7, 0.7e-5)
    plan = rounded_gaussian_plan(expected, reg.noise_std_ / expected, 4)
    z = math.sqrt(float(plan.scale)) / float(plan.lattice_sensitivity)
    assert z >= reg.noise_std_ / expected
    accountant = dp_accounting.pld.PLDAccountant()
    accountant.compose(dp_accounting.GaussianDpEvent(z))
    assert 0.7 * 0.99 <= accountant.get_epsilon(0.7e-5) <= 0.7 + 1e-4
    zcdp_sigma = gaussian_sigma_for_rho(expected, zcdp_rho(0.7, 0.7e-5))
    assert zcdp_epsilon(expected**2 / (2 * zcdp_sigma**2), 0.7e-5) <= 0.7
    assert 1.0 < zcdp_sigma / reg.noise_std_ < 1.12
    # the statistic itself is near the true one (Laplace scale 1/eps1)
    Xa = np.hstack([X, np.ones((len(X), 1))])
    assert abs(reg.lambda_noisy_ - leave_one_out_statistic(Xa, 1.0)) < 60


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
def test_release_never_exceeds_its_share_with_the_noise_it_draws(epsilon):
    """The rounded Gaussian's effective noise multiplier (its exact variance over its
    lattice sensitivity, from the plan) never gives dp_accounting's PLD accountant more than
    (epsilon2, delta2); the zCDP calibration it replaced needed 6 to 10 % more noise."""
    from skprivate.mechanisms import rounded_gaussian_plan

    X, y = _data()
    reg = _fit(DPDropoutRegressor(epsilon=epsilon, bounds=(-1, 1), y_bound=1.0,
                                  random_state=0), X, y)
    _, _, eps2, delta2 = reg._budget_split()
    plan = rounded_gaussian_plan(reg.sensitivity_, reg.noise_std_ / reg.sensitivity_, 4)
    z = math.sqrt(float(plan.scale)) / float(plan.lattice_sensitivity)
    assert z >= reg.noise_std_ / reg.sensitivity_
    accountant = dp_accounting.pld.PLDAccountant()
    accountant.compose(dp_accounting.GaussianDpEvent(z))
    assert eps2 * 0.99 <= accountant.get_epsilon(delta2) <= eps2 + 1e-4
    zcdp_sigma = gaussian_sigma_for_rho(reg.sensitivity_, zcdp_rho(eps2, delta2))
    assert 1.06 < zcdp_sigma / reg.noise_std_ < 1.10


def test_lambda_noisy_is_released_on_the_secure_grid():
    # issue 29: the test statistic is released by the granular mechanism (exact discrete
    # Laplace on a power-of-two grid), never as a floating-point value + Laplace sample.
    from skprivate.dropout._ptr import lower_confidence_margin
    from skprivate.mechanisms import granular_laplace_plan

    X, y = _data()
    eps1, delta1 = 0.3, 0.3e-5
    gamma = granular_laplace_plan(1.0, eps1).gamma
    assert gamma == 2.0**-10
    for seed in range(3):
        reg = _fit(DPDropoutRegressor(bounds=(-1, 1), y_bound=1.0, random_state=seed,
                                      n_samples_public=True), X, y)
        assert (reg.lambda_noisy_ / gamma) % 1 == 0
        margin = lower_confidence_margin(eps1, delta1)
        assert reg.lambda_bound_ == max(reg.lambda_noisy_ - margin, 0)
    # the discrete tail's margin is the continuous one up to one grid step
    assert abs(lower_confidence_margin(eps1, delta1) - math.log(1 / (2 * delta1)) / eps1) <= gamma


def test_released_coefficients_lie_on_the_granular_grid():
    """No floating-point noise: the coefficients (no projection: a wide ball) are multiples
    of the granular grid of the release's plan, and the fit draws no continuous sample."""
    from skprivate.mechanisms import granular_gaussian_plan
    from tests._doubles import NoContinuousNoiseGenerator

    X, y = _data(n=300, p=2, seed=1)
    for seed in range(3):
        reg = _fit(DPDropoutRegressor(
            bounds=(-1, 1), y_bound=1.0, coef_bound=50.0, n_samples_public=True,
            random_state=NoContinuousNoiseGenerator(np.random.PCG64(seed))), X, y)
        gamma = granular_gaussian_plan(reg.sensitivity_, reg.noise_std_, 3).gamma
        coefs = np.append(reg.coef_, reg.intercept_)  # intercept: its coordinate times b = 1
        assert np.all((coefs / gamma) % 1 == 0)


def test_released_coefficients_have_the_stated_noise():
    # TF-Privacy style: noise tested by its statistics over many fits of the same data.
    # 2000 rows: no fit's noisy coefficients reach the ball's radius (at 300 rows about a
    # fifth of them did, and the projection, post-processing, shrank them below sigma).
    X, y = _data(n=2000, p=2, seed=1)
    fits = [
        _fit(DPDropoutRegressor(bounds=(-1, 1), y_bound=1.0, coef_bound=50.0, random_state=s),
             X, y) for s in range(300)
    ]
    Xa = np.hstack([X, np.ones((len(X), 1))])
    sigma = np.array([f.noise_std_ for f in fits])
    coefs = np.array([np.append(f.coef_, f.intercept_) for f in fits])
    theta = dropout_minimiser(Xa, y, 1.0, 1.0, radius=50.0)
    assert np.linalg.norm(coefs, axis=1).max() < 50.0  # none projected
    standardised = (coefs - theta) / sigma[:, None]
    assert abs(standardised.mean()) < 0.1
    assert standardised.std() == pytest.approx(1.0, rel=0.08)


def test_classifier_shares_one_test_and_one_release_over_classes():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    X = X / 8.0  # public bound: iris measurements are below 8 cm
    X = np.repeat(X, 20, axis=0)
    y = np.repeat(y, 20)
    clf = _fit(DPDropoutClassifier(epsilon=2.0, bounds=(0, 1), random_state=0), X, y)
    assert clf.coef_.shape == (3, 4) and clf.intercept_.shape == (3,)
    assert clf.epsilon_ == 2.0 and clf.delta_ == 1e-5
    assert clf.privacy_report_["bounds"].count("target norm=1.732") == 1
    assert set(clf.predict(X)) <= set(clf.classes_)


def test_binary_classifier_beats_chance_on_well_spread_features():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(20000, 5))
    y = (X @ [1, -1, 0.5, 0, 0.3] > 0).astype(int)
    clf = _fit(DPDropoutClassifier(epsilon=1.0, bounds=(-1, 1), random_state=0), X, y)
    assert clf.score(X, y) > 0.85
    assert clf.privacy_report_["strong convexity credited"] == "dropout"


def test_accountant_records_the_plan_of_a_passing_fit():
    acc = BudgetAccountant(epsilon=3.0, delta=1e-4)
    X, y = _data()
    _fit(DPDropoutRegressor(epsilon=1.0, bounds=(-1, 1), y_bound=1.0, accountant=acc,
                            random_state=0), X, y)
    assert acc.total() == pytest.approx((1.0, 1e-5))


def _failing_data(n=200):
    X, y = _data(n=n)
    X[:, 1] = 0.0  # a constant feature: Lambda = 0, dropout gives no stability
    return X, y


def test_failed_test_raises_and_keeps_the_planned_cost():
    # The old code refunded the release's share and recorded only the test's (0.4, 0.4e-5).
    acc = BudgetAccountant(epsilon=5.0, delta=1e-3)
    X, y = _failing_data()
    reg = DPDropoutRegressor(epsilon=1.0, delta=1e-5, alpha=0.0, bounds=(-1, 1), y_bound=1.0,
                             test_fraction=0.4, accountant=acc, random_state=0)
    with pytest.raises(PrivacyTestFailed, match="rare or constant") as info:
        _fit(reg, X, y)
    assert "alpha > 0" in str(info.value)
    assert acc.total() == pytest.approx((1.0, 1e-5))
    assert len(acc.spends) == 1
    assert not hasattr(reg, "coef_") and not hasattr(reg, "lambda_noisy_")


def test_failure_probability_on_a_data_set_below_the_threshold():
    # Lambda = 0 here, so a release happens only when the lower bound is wrongly above it:
    # probability delta1 exactly. Monte Carlo over fits (large delta so that it is visible).
    X, y = _failing_data(n=60)
    delta, fraction = 0.2, 0.5
    runs, passed = 1500, 0
    for seed in range(runs):
        reg = DPDropoutRegressor(epsilon=1.0, delta=delta, alpha=0.0, bounds=(-1, 1),
                                 y_bound=1.0, test_fraction=fraction, random_state=seed,
                                 n_samples_public=True)
        try:
            _fit(reg, X, y)
            passed += 1
        except PrivacyTestFailed:
            pass
    delta1 = fraction * delta
    assert abs(passed / runs - delta1) <= 5 * math.sqrt(delta1 * (1 - delta1) / runs)


def test_budget_is_checked_before_the_data_are_read():
    acc = BudgetAccountant(epsilon=0.5)
    X = np.full((10, 2), np.nan)  # would fail validation if it were read
    with pytest.raises(BudgetExceededError):
        DPDropoutRegressor(epsilon=1.0, accountant=acc).fit(X, np.zeros(10))
    assert acc.spends == []


def test_bounds_read_from_the_data_warn_once_naming_the_parameters():
    X, y = _data(n=500)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DPDropoutRegressor(random_state=0).fit(X, y)
    messages = [str(w.message) for w in caught if w.category is PrivacyLeakWarning]
    assert len(messages) == 1
    for name in ("data_norm", "bounds", "y_bound", "random_state=0"):
        assert name in messages[0]


def test_public_bounds_and_os_noise_emit_no_warning():
    X, y = _data(n=5000)  # enough rows that the noise does not dominate (no chance warning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reg = DPDropoutRegressor(bounds=(-1, 1), y_bound=1.0).fit(X, y)
    assert reg.privacy_report_["caveats"] == []


@pytest.mark.parametrize("keep_prob", [0.0, -0.1, 1.5])
def test_keep_prob_outside_the_unit_interval_is_refused(keep_prob):
    X, y = _data(n=50)
    with pytest.raises(InvalidParameterError, match="keep_prob"):
        DPDropoutRegressor(keep_prob=keep_prob).fit(X, y)


def test_no_dropout_needs_a_ridge_floor_and_skips_the_test():
    X, y = _data(n=500)
    with pytest.raises(ValueError, match="keep_prob=1"):
        DPDropoutRegressor(keep_prob=1.0, alpha=0.0).fit(X, y)
    reg = _fit(DPDropoutRegressor(keep_prob=1.0, alpha=50.0, bounds=(-1, 1), y_bound=1.0,
                                  random_state=0), X, y)
    assert math.isnan(reg.lambda_noisy_) and reg.epsilon_ == 1.0


def test_unpassable_test_is_refused_before_anything_is_spent():
    # With the number of rows public; a private one is refused on its noisy count, after
    # the reservation (tests/dropout/test_row_count.py).
    acc = BudgetAccountant(epsilon=5.0)
    X, y = _data(n=30)
    with pytest.raises(ValueError, match="test_fraction") as info:
        DPDropoutRegressor(alpha=0.0, accountant=acc, n_samples_public=True).fit(X, y)
    assert "cannot pass on 30 rows" in str(info.value)
    assert acc.spends == []


def test_bad_bounds_name_the_parameter():
    X, y = _data(n=50)
    with pytest.raises(ValueError, match="bounds"):
        DPDropoutRegressor(bounds=(1, -1)).fit(X, y)
    with pytest.raises(ValueError, match="bounds"):
        DPDropoutRegressor(bounds=(0, [1, 2])).fit(X, y)


def test_reproducible_with_a_seed_and_not_without():
    X, y = _data(n=500)
    a = _fit(DPDropoutRegressor(bounds=(-1, 1), y_bound=1.0, random_state=3), X, y)
    b = _fit(DPDropoutRegressor(bounds=(-1, 1), y_bound=1.0, random_state=3), X, y)
    c = _fit(DPDropoutRegressor(bounds=(-1, 1), y_bound=1.0), X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)
