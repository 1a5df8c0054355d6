"""Audits with an overflowing canary row: no finite input value may break the guarantee.

A finite row can be as large as the largest double. Before the fix, a row of norm 1e200 made
the squared norm inf and the clip factor 0, so ``0 * inf`` made the default DP-SGD model NaN
on most fits with the row and on none without it: whether the model is NaN told whether the
row was in the data (an unbounded privacy loss; epsilon >= 6.66 at 95 % against a claimed
0.997 in the issue). Here the real ``fit`` runs on ``D`` and on ``D`` plus one canary (a row
of 1e200 everywhere, or 1e300 in one coordinate), and the event "some fitted value is not
finite" is audited with :func:`skprivate.audit.audit_outcomes`: it must happen on neither
side, so the lower bound on epsilon cannot exceed the claim. Each audit takes a few seconds;
on the old code each one reports a lower bound far above the claim.
"""

import warnings

import numpy as np
import pytest

from skprivate.audit import audit_outcomes
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier, DPLSSGDRegressor
from skprivate.preprocessing import RobustScaler, StandardScaler

_MAX = np.finfo(np.float64).max


def _data(n=60, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, (X[:, 0] > 0).astype(int)


def _with_canary(X, y, canary):
    row = np.zeros((1, X.shape[1]))
    if canary == "row":
        row[:] = 1e200  # norm 1.7e200: its square overflows
    else:
        row[0, 1] = 1e300  # one coordinate; the others zero
    return np.vstack([X, row]), np.append(y, 1)


def _not_finite(estimator, names):
    values = [getattr(estimator, name, None) for name in names]
    return not all(np.isfinite(np.asarray(v, dtype=float)).all() for v in values
                   if v is not None)  # offset_ is None when the rows were used as given


def _audit(fit, data, data_prime, n_runs, names):
    """``(non-finite fits on D, on D', AuditResult, largest epsilon_)`` of ``n_runs`` fits
    per side, each with its own seed."""
    claimed, outcomes = 0.0, []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # fixed seeds of an audit
        for first, (X, y) in ((0, data), (n_runs, data_prime)):
            side = []
            for seed in range(first, first + n_runs):
                estimator = fit(X, y, seed)
                side.append(_not_finite(estimator, names))
                claimed = max(claimed, estimator.epsilon_)
            outcomes.append(np.array(side))
    result = audit_outcomes(outcomes[0], outcomes[1])
    return int(outcomes[0].sum()), int(outcomes[1].sum()), result, claimed


_LINEAR = ("coef_", "intercept_", "offset_", "row_scale_")


@pytest.mark.parametrize("canary", ["row", "coordinate"])
@pytest.mark.parametrize(
    "make",
    [
        # the default: max_grad_norm="auto" (private row statistics, then the loop)
        lambda seed: DPLSSGDClassifier(epsilon=1.0, max_iter=5, random_state=seed),
        # a numeric clip: a hinge residual of exactly 0 met the canary's inf squared norm
        lambda seed: DPLSSGDClassifier(epsilon=1.0, loss="hinge", max_grad_norm=1.0,
                                       max_iter=5, random_state=seed),
        lambda seed: DPLSSGDRegressor(epsilon=1.0, max_iter=5, random_state=seed),
    ],
    ids=["auto", "hinge-numeric-clip", "regressor"],
)
def test_linear_models_show_no_overflow_event(make, canary):
    X, y = _data()
    target = (lambda X, y: X[:, 0]) if "Regressor" in type(make(0)).__name__ else (
        lambda X, y: y)
    D = (X, target(X, y))
    Xc, yc = _with_canary(X, y, canary)
    D_prime = (Xc, target(Xc, yc))
    on_d, on_prime, result, claimed = _audit(
        lambda X, y, seed: make(seed).fit(X, y), D, D_prime, 150, _LINEAR)
    assert (on_d, on_prime) == (0, 0)
    assert result.epsilon_lower_bound <= claimed


def test_dask_fit_shows_no_overflow_event():
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    X, y = _data(n=40)
    Xc, yc = _with_canary(X, y, "row")

    def fit(X, y, seed):
        model = DPLSSGDClassifier(epsilon=1.0, max_iter=2, batch_size=20, random_state=seed)
        return model.fit(da.from_array(X, chunks=(20, 3)), da.from_array(y, chunks=20))

    with dask.config.set(scheduler="synchronous"):
        on_d, on_prime, result, claimed = _audit(fit, (X, y), (Xc, yc), 25, _LINEAR)
    assert (on_d, on_prime) == (0, 0)
    assert result.epsilon_lower_bound <= claimed


def test_net_shows_no_overflow_event():
    torch = pytest.importorskip("torch")
    from skprivate.neural_network import DPLSSGDNeuralNetClassifier

    class Small(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(),
                                              torch.nn.Linear(4, 2))

        def forward(self, X):
            return self.layers(X)

    X, y = _data()
    Xc, yc = _with_canary(X, y, "row")  # 1e200: inf once cast to the module's float32

    def fit(X, y, seed):
        net = DPLSSGDNeuralNetClassifier(Small, max_epochs=1, batch_size=len(y), epsilon=1.0,
                                         random_state=seed).fit(X, y)
        weights = torch.cat([p.detach().ravel() for p in net.module_.parameters()])
        net.weights_for_audit_ = weights.numpy()
        return net

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        # 25 fits a side: on the old code (NaN on every fit with the canary) the bound is
        # 1.49, above the claim of about 1.
        on_d, on_prime, result, claimed = _audit(fit, (X, y), (Xc, yc), 25,
                                                 ("weights_for_audit_",))
    finally:
        torch.set_num_threads(before)
    assert (on_d, on_prime) == (0, 0)
    assert result.epsilon_lower_bound <= claimed


@pytest.mark.parametrize("scaler", [RobustScaler, StandardScaler])
def test_private_scalers_show_no_overflow_event(scaler):
    # Public bounds as wide as doubles go; the rows of D all lie far up, so the gap below
    # them is wider than the largest double. RobustScaler's exponential-mechanism quantiles
    # used to draw that infinite gap for sure (inf or NaN) on D, and never on D plus a
    # canary at -1e300, which splits it. StandardScaler's (upper - lower) / 2 was inf for
    # such bounds whatever the rows.
    rng = np.random.default_rng(0)
    X = 1e300 * rng.uniform(1.0, 2.0, size=(30, 2))
    Xc = np.vstack([X, [[-1e300, -1e300]]])

    def fit(X, y, seed):
        return scaler(epsilon=1.0, bounds=(-_MAX, _MAX), random_state=seed).fit(X)

    names = ("center_", "scale_") if scaler is RobustScaler else ("mean_", "scale_")
    on_d, on_prime, result, claimed = _audit(fit, (X, None), (Xc, None), 150, names)
    assert (on_d, on_prime) == (0, 0)
    assert result.epsilon_lower_bound <= claimed
