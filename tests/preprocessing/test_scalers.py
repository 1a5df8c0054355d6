"""Private scalers: released statistics against independent computations."""

import math
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler as SkStandardScaler

from skprivate.accounting import BudgetAccountant
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.preprocessing import RobustScaler, StandardScaler, make_private_pipeline
from skprivate.preprocessing._scalers import (
    _standard_moments,
    _standard_sensitivity,
    _sums_sensitivity,
)
from skprivate.preprocessing._common import counts_and_sums_plan
from tests._doubles import NoContinuousNoiseGenerator


def _quiet_fit(est, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded noise in tests
        return est.fit(*args)


def _pld_epsilon(noise_multiplier, delta, count=1):
    """Epsilon of ``count`` Gaussian mechanisms with this noise multiplier at ``delta`` by
    dp_accounting's privacy-loss-distribution accountant (independent of skprivate's
    calibration; a pessimistic discretisation, so at most a little above the exact value)."""
    import dp_accounting

    accountant = dp_accounting.pld.PLDAccountant()
    accountant.compose(dp_accounting.GaussianDpEvent(noise_multiplier), count)
    return accountant.get_epsilon(delta)


def _exact_delta(noise_multiplier, epsilon):
    """The Gaussian mechanism's exact delta at ``epsilon`` (Balle and Wang 2018, Theorem 8),
    written out here with SciPy."""
    from scipy.stats import norm

    z = noise_multiplier
    return norm.cdf(0.5 / z - epsilon * z) - math.exp(epsilon) * norm.cdf(-0.5 / z - epsilon * z)


def _effective_noise_multiplier(sigma, count_sensitivity, sums_sensitivity, n_sums):
    """The noise multiplier of the rounded release as one Gaussian mechanism: counts of
    sensitivity ``Delta_c`` with variance ``S_c`` and sums of lattice sensitivity ``L``
    with variance ``S`` (grid units), from the plan's exact numbers:
    ``1 / sqrt(Delta_c**2 / S_c + L**2 / S)``."""
    count_variance, plan = counts_and_sums_plan(sigma, sums_sensitivity, n_sums)
    mu2 = (count_sensitivity**2 / float(count_variance)
           + float(plan.lattice_sensitivity) ** 2 / float(plan.scale))
    return 1.0 / math.sqrt(mu2)


@pytest.mark.parametrize("d", [1, 3, 20])
def test_standard_scaler_privacy_loss_at_worst_neighbours(d):
    """Noise off: the released vector moves by at most the stated sensitivity; with the
    noise the plan actually draws (rounded Gaussian, counts and grid sums), the release is
    one Gaussian mechanism whose exact curve and PLD give (epsilon_, delta_), tightly."""
    rng = np.random.default_rng(0)
    lower, upper = -np.ones(d) * 3, np.ones(d) * 5
    X = rng.uniform(-3, 5, size=(50, d))
    scaler = _quiet_fit(StandardScaler(epsilon=0.7, delta=1e-6, bounds=(lower, upper),
                                       random_state=0), X)
    centre, half = (upper + lower) / 2, (upper - lower) / 2
    worst = 0.0
    # rows at the corners and inside: the added row's effect on the released vector
    for row in [upper, lower, np.where(np.arange(d) % 2, upper, lower), centre,
                *rng.uniform(-3, 5, size=(20, d))]:
        U = (X - centre) / half
        U2 = (np.vstack([X, row]) - centre) / half
        shift = np.linalg.norm(_standard_moments(U2) - _standard_moments(U))
        worst = max(worst, shift)
    assert worst == pytest.approx(math.sqrt(1 + 1.25 * d))  # attained at a corner
    assert worst <= _standard_sensitivity(d) * (1 + 1e-12)
    # The count (sensitivity 1) and the 2 d sums (sqrt(1.25 d), L grid steps) with the
    # noise the plan draws: one Gaussian mechanism of this noise multiplier, never below
    # the one charged (the analytic Gaussian's for (epsilon_, delta_)).
    z = _effective_noise_multiplier(scaler.noise_std_, 1.0, _sums_sensitivity(d), 2 * d)
    assert z >= scaler.privacy_report_["noise_multiplier"]
    assert scaler.noise_std_ == pytest.approx(z * worst, rel=2e-3)
    # The exact curve: delta at epsilon_ within delta_; the PLD accountant: within
    # epsilon_ up to its pessimistic discretisation, and tight (within 1 %).
    assert _exact_delta(z, scaler.epsilon_) <= scaler.delta_
    eps = _pld_epsilon(z, scaler.delta_)
    assert scaler.epsilon_ * 0.99 <= eps <= scaler.epsilon_ + 1e-4


def test_standard_scaler_spend_event_is_the_gaussian_mechanism():
    """The rounded Gaussian is a post-processing of the Gaussian mechanism, so the spend's
    event is a GaussianDpEvent (it was a ZCDpEvent for the discrete Gaussian, with 6 to 11 %
    more noise), whose PLD epsilon is epsilon_."""
    import dp_accounting

    X = np.random.default_rng(0).uniform(size=(50, 2))
    scaler = _quiet_fit(StandardScaler(epsilon=0.5, delta=1e-6, bounds=(0, 1),
                                       random_state=0), X)
    event = scaler._privacy_spend_record.event
    assert isinstance(event, dp_accounting.GaussianDpEvent)
    assert event.noise_multiplier == scaler.privacy_report_["noise_multiplier"]
    assert scaler.noise_std_ == pytest.approx(event.noise_multiplier * math.sqrt(3.5))
    assert _pld_epsilon(event.noise_multiplier, 1e-6) == pytest.approx(0.5, rel=1e-3)


@pytest.mark.parametrize("epsilon, analytic, zcdp", [(0.5, 8.0576, 8.6766),
                                                   (1.0, 4.2247, 4.5309),
                                                   (4.0, 1.1935, 1.2678)])
def test_standard_scaler_noise_is_the_analytic_gaussians(epsilon, analytic, zcdp):
    """The noise per unit of sensitivity at delta 1e-6 is the analytic Gaussian's, 6 to 8 %
    below the zCDP calibration of the discrete Gaussian it replaced (``zcdp``, recorded from
    ``gaussian_sigma_for_rho(1, zcdp_rho(epsilon, 1e-6))``), and never below what the exact
    curve and the PLD accountant need for (epsilon, 1e-6)."""
    from skprivate.accounting._zcdp import gaussian_sigma_for_rho, zcdp_rho

    X = np.random.default_rng(0).uniform(size=(50, 1))
    scaler = _quiet_fit(StandardScaler(epsilon=epsilon, delta=1e-6, bounds=(0, 1),
                                       random_state=0), X)
    z = scaler.privacy_report_["noise_multiplier"]
    assert z == pytest.approx(analytic, abs=1e-4)
    assert gaussian_sigma_for_rho(1.0, zcdp_rho(epsilon, 1e-6)) == pytest.approx(zcdp, abs=1e-4)
    assert 1.05 < zcdp / z < 1.09
    assert _exact_delta(z, epsilon) <= 1e-6
    assert _pld_epsilon(z, 1e-6) <= epsilon + 1e-4


def test_standard_scaler_releases_no_floating_point_noise():
    """The count is an integer and the sums lie on the granular grid: the fit draws no
    continuous sample (the old path drew Generator.normal), and ``mean_ * n`` (the noisy
    sum, with bounds (-1, 1)) is a multiple of the grid."""
    X = np.random.default_rng(0).uniform(-1, 1, size=(300, 3))
    for seed in range(3):
        scaler = _quiet_fit(StandardScaler(epsilon=0.5, bounds=(-1, 1),
                                           random_state=NoContinuousNoiseGenerator(
                                               np.random.PCG64(seed))), X)
        n = scaler.n_samples_seen_
        assert float(n).is_integer() and n != 300
        gamma = counts_and_sums_plan(scaler.noise_std_, _sums_sensitivity(3), 6)[1].gamma
        steps = scaler.mean_ * n / gamma
        assert np.abs(steps - np.round(steps)).max() < 1e-6


def test_standard_scaler_variance_of_released_mean():
    """Across seeds, the released mean's spread is the Gaussian noise's over n."""
    X = np.random.default_rng(1).uniform(0, 10, size=(5000, 2))
    means = np.array([
        _quiet_fit(StandardScaler(epsilon=0.5, delta=1e-6, bounds=(0, 10), random_state=s),
                   X).mean_
        for s in range(400)
    ])
    scaler = _quiet_fit(StandardScaler(epsilon=0.5, delta=1e-6, bounds=(0, 10),
                                       random_state=0), X)
    expected = 5.0 * scaler.noise_std_ / X.shape[0]  # half-width times sigma over n
    assert means.std(axis=0) == pytest.approx([expected, expected], rel=0.15)
    assert means.mean(axis=0) == pytest.approx(X.mean(axis=0), abs=4 * expected / 20)


def test_standard_scaler_recovers_statistics_and_reports():
    rng = np.random.default_rng(0)
    X = rng.normal([10, -5], [2, 0.5], size=(20000, 2))
    scaler = _quiet_fit(StandardScaler(epsilon=1.0, bounds=([0, -10], [20, 0]),
                                       random_state=0), X)
    assert scaler.mean_ == pytest.approx([10, -5], abs=0.05)
    assert scaler.scale_ == pytest.approx([2, 0.5], rel=0.05)
    Xt = scaler.transform(X)
    assert Xt.mean(axis=0) == pytest.approx([0, 0], abs=0.05)
    assert scaler.inverse_transform(Xt) == pytest.approx(np.clip(X, [0, -10], [20, 0]))
    report = scaler.privacy_report_
    assert report["epsilon"] == 1.0 and report["l2_sensitivity"] == pytest.approx(math.sqrt(3.5))
    assert report.caveat_codes == ["seed_fixed"]


def test_bounds_read_from_data_warn_once():
    X = np.random.default_rng(0).normal(size=(100, 2))
    with pytest.warns(PrivacyLeakWarning, match="bounds") as record:
        scaler = StandardScaler().fit(X)
    assert len(record) == 1
    assert "bounds_from_data" in scaler.privacy_report_.caveat_codes
    assert scaler.bounds_[0] == pytest.approx(X.min(axis=0))


def test_bad_bounds_are_named():
    X = np.ones((5, 2))
    with pytest.raises(ValueError, match="bounds"):
        StandardScaler(bounds=(1, 0)).fit(X)
    with pytest.raises(ValueError, match="n_features=2"):
        StandardScaler(bounds=([0, 0, 0], [1, 1, 1])).fit(X)


def test_accountant_is_charged_before_reading():
    # Two fits at (0.1, 1e-6) are two GaussianDpEvents (noise multiplier 8.06 each): the
    # accountant composes them in Renyi DP to about 0.152 at delta 2e-6 (dp_accounting's
    # RDP accountant on its default orders: 0.154; its PLD accountant: 0.138), above 0.13.
    # With the zCDP events of the discrete Gaussian it was 0.139, from more noise.
    acc = BudgetAccountant(epsilon=0.13)
    X = np.random.default_rng(0).uniform(size=(100, 2))
    StandardScaler(epsilon=0.1, bounds=(0, 1), accountant=acc).fit(X)
    with pytest.raises(Exception, match="budget"):
        StandardScaler(epsilon=0.1, bounds=(0, 1), accountant=acc).fit(X)
    assert acc.spends[0].event is not None  # composes in Renyi DP with the estimator


def test_robust_scaler_on_heavy_tails():
    # Bounds 100 times the IQR: the candidates' step is 200 / 4096 = 0.05 (with bounds
    # +-1e4 it would be 4.9, more than the IQR: the grid's resolution is the width over 4096).
    X = np.random.default_rng(0).standard_cauchy(size=(20000, 2))
    scaler = _quiet_fit(RobustScaler(epsilon=1.0, bounds=(-100, 100), random_state=0), X)
    assert scaler.center_ == pytest.approx([0, 0], abs=0.1)
    assert scaler.scale_ == pytest.approx([2, 2], rel=0.1)  # Cauchy IQR = 2
    assert scaler.epsilon_ == 1.0 and scaler.delta_ == 0.0
    with pytest.raises(ValueError, match="quantile_range"):
        RobustScaler(bounds=(0, 1), quantile_range=(80, 20)).fit(X)


def test_set_output_pandas_and_feature_names():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": np.arange(50.0), "b": np.arange(50.0) * 2})
    scaler = StandardScaler(bounds=(0, 100), epsilon=1.0).set_output(transform="pandas")
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)  # public bounds, OS noise: none
        out = scaler.fit_transform(df)
    assert list(out.columns) == ["a", "b"]
    assert list(scaler.get_feature_names_out()) == ["a", "b"]


@pytest.mark.parametrize("loader, bounds", [(load_digits, (0.0, 16.0)),
                                            (load_breast_cancer, None)])
def test_private_scaler_pipeline_is_as_accurate_as_the_leaky_one(loader, bounds):
    """At total epsilon 1 the private pipeline matches StandardScaler + DP-LSSGD (which
    leaks) within a few points, averaged over three seeds."""
    X, y = loader(return_X_y=True)
    if bounds is None:  # breast cancer: no codebook; a range 1.5x past the largest value
        bounds = (np.zeros(X.shape[1]), np.ceil(1.5 * X.max(axis=0)))
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    leaky, private = [], []
    for seed in range(3):
        leaky.append(_quiet_fit(make_pipeline(
            SkStandardScaler(), DPLSSGDClassifier(epsilon=1.0, random_state=seed)
        ), Xtr, ytr).score(Xte, yte))
        private.append(_quiet_fit(make_private_pipeline(
            StandardScaler(bounds=bounds, random_state=seed),
            DPLSSGDClassifier(random_state=seed), epsilon=1.0,
        ), Xtr, ytr).score(Xte, yte))
    # Breast cancer over 12 seeds (zCDP-calibrated discrete Gaussian, before): leaky 0.942,
    # private 0.922 (the scaler's 20 % share); 3 seeds spread about 0.012 around that gap.
    assert np.mean(private) >= np.mean(leaky) - 0.04
    assert np.mean(private) > 0.85


# --- bounds and rows as wide as doubles go ----------------------------------------------------


@pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")
@pytest.mark.parametrize("scaler", [StandardScaler, RobustScaler])
def test_scalers_with_the_widest_bounds_are_finite(scaler):
    # (upper - lower) overflowed for bounds beyond +-9e307: mean_ and scale_ were inf
    # whatever the rows.
    big = np.finfo(np.float64).max
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2)) * 1e307
    X[0, 0] = 1e300
    fitted = scaler(epsilon=1.0, bounds=(-big, big), random_state=0).fit(X)
    for name in ("mean_", "center_", "scale_"):
        if hasattr(fitted, name):
            assert np.isfinite(getattr(fitted, name)).all(), name
    assert np.isfinite(fitted.transform(X[:5] / 1e10)).all()
