"""Audits of DPLSSGDClassifier.fit and DPLSSGDNeuralNetClassifier.fit as users call them.

Each runs the real fit 1000 times (the net: 800) on D and on D + a gradient canary, and bounds
epsilon from the released weights (skprivate.audit._estimators). The claim must survive, and
a control fit whose noise is 4x smaller than the noise its epsilon_ was computed for must be
caught by the same audit, with the same number of runs: that is what shows the audit has the
power to see such a bug. The full-strength version is benchmarks/audit_estimators.py.
"""

import contextlib
import warnings
from unittest import mock

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import MinMaxScaler

from skprivate import DPLSSGDClassifier
from skprivate.audit._estimators import (
    linear_canary_score,
    net_canary_score,
    summarise_runs,
    with_gradient_canary,
)
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import _dplssgd_base

N_RUNS = 1000
# A net's fit costs a few milliseconds (skorch, functorch) against the linear model's one:
# 800 runs per side still catch the control in more than 99.9% of simulated audits.
N_RUNS_NET = 800
EPSILON, DELTA = 2.0, 1e-5


def _data(n=50, n_features=5, dtype=np.float64):
    X, y = load_breast_cancer(return_X_y=True)
    X = MinMaxScaler().fit_transform(X[:n, :n_features]).astype(dtype)
    return with_gradient_canary(X, y[:n])


def _quieter(run):
    """run_dplssgd with the calibrated noise multiplier divided by 4 (claim unchanged)."""

    def run_quieter(*args, **kwargs):
        return run(*args, **{**kwargs, "noise_multiplier": kwargs["noise_multiplier"] / 4})

    return run_quieter


def _linear_scores(X, y, seeds):
    scores, claimed = [], 0.0
    for seed in seeds:
        # batch_size = n_samples: every row at each of the 2 steps (q = 1)
        clf = DPLSSGDClassifier(epsilon=EPSILON, delta=DELTA, batch_size=len(y), max_iter=2,
                                learning_rate=0.1, alpha=0.0, smoothing=1.0,
                                smoothing_order=1, smoothing_blocks="per_tensor",
                                max_grad_norm=1.0, average=False, random_state=seed,
                                n_samples_public=True)  # the audit fixes the plan
        clf.fit(X, y)
        scores.append(linear_canary_score(clf, len(y)))
        claimed = max(claimed, clf.epsilon_)
    return np.array(scores), claimed, clf


def _audit_linear(quieter=False):
    X, y, X_prime, y_prime = _data()
    patch = (mock.patch.object(_dplssgd_base, "run_dplssgd", _quieter(_dplssgd_base.run_dplssgd))
             if quieter else contextlib.nullcontext())
    with patch, warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # fixed seeds of an audit
        on_prime, claimed_prime, fitted = _linear_scores(X_prime, y_prime, range(N_RUNS))
        on_d, claimed_d, _ = _linear_scores(X, y, range(N_RUNS, 2 * N_RUNS))
    result = summarise_runs(on_prime, on_d, max(claimed_prime, claimed_d), delta=DELTA)
    # every run has the same plan: on D' the canary adds 0.995 C at each of the T steps
    result["expected_shift"] = (10 / np.sqrt(101) * np.sqrt(fitted.n_steps_)
                                / fitted.noise_multiplier_)
    return on_prime, on_d, result


def _assert_claimed_gaussian(on_prime, on_d, shift):
    # unit spread on both sides, and the canary's mean shift, within 5 standard errors
    n = len(on_d)
    assert np.std(on_d) == pytest.approx(1.0, abs=5 / np.sqrt(2 * n))
    assert np.std(on_prime) == pytest.approx(1.0, abs=5 / np.sqrt(2 * n))
    assert np.mean(on_prime) - np.mean(on_d) == pytest.approx(shift, abs=5 * np.sqrt(2 / n))


def test_canary_statistic_is_the_claimed_gaussian_mechanism():
    # Without noise the statistic is exactly the canary's clipped contribution, 0.995 C per
    # step, over the claimed noise: the audit reads the right coordinate with the right scale.
    X, y, X_prime, y_prime = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        clf = DPLSSGDClassifier(epsilon=EPSILON, delta=DELTA, batch_size=len(y_prime),
                                max_iter=2, learning_rate=0.1, alpha=0.0, average=False,
                                max_grad_norm=1.0, random_state=0, n_samples_public=True)
        no_noise = lambda value, sensitivity, noise_multiplier, rng: np.array(value, float)  # noqa: E731
        with mock.patch.object(_dplssgd_base, "gaussian_release", lambda: no_noise):
            clf.fit(X_prime, y_prime)
            mean_prime = linear_canary_score(clf, len(y_prime))
            clf.set_params(batch_size=len(y)).fit(X, y)
            mean_d = linear_canary_score(clf, len(y))
    expected = 2 * 10 / np.sqrt(101) / (clf.noise_multiplier_ * np.sqrt(2))  # T = 2 steps
    assert mean_prime == pytest.approx(expected, rel=1e-3)
    assert mean_d == 0.0


def test_dplssgd_classifier_fit_survives_a_canary_audit_and_a_quieter_fit_does_not():
    on_prime, on_d, result = _audit_linear()
    assert result["claimed_epsilon"] == pytest.approx(EPSILON, rel=0.01)
    # the runs are the claimed Gaussian mechanism: unit spread, mean 0.995 sqrt(T) / z
    _assert_claimed_gaussian(on_prime, on_d, result["expected_shift"])
    assert result["fixed_event_bound"] <= result["claimed_epsilon"]
    assert result["chosen_event_bound"] <= result["claimed_epsilon"]
    # The control: the same fits with the noise the estimator uses divided by 4 after
    # calibration, so epsilon_ still claims 2. The audit must refute that claim.
    _, _, control = _audit_linear(quieter=True)
    assert control["claimed_epsilon"] == result["claimed_epsilon"]
    assert control["fixed_event_bound"] > control["claimed_epsilon"]


def _net_classes():
    """The zero-initialised logistic module, the net, and the control net (torch imported here
    so that the linear audits run without it)."""
    torch = pytest.importorskip("torch")
    from skprivate.neural_network import DPLSSGDNeuralNetClassifier

    class ZeroLogistic(torch.nn.Module):
        """Logits of a linear layer that starts at zero (the audit reads its weight)."""

        def __init__(self, n_features=6):
            super().__init__()
            self.linear = torch.nn.Linear(n_features, 2)
            torch.nn.init.zeros_(self.linear.weight)
            torch.nn.init.zeros_(self.linear.bias)

        def forward(self, X):
            return self.linear(X)

    class QuieterNet(DPLSSGDNeuralNetClassifier):
        """The net with its calibrated noise multiplier divided by 4 inside each step only,
        so its accounting (epsilon_, noise_multiplier_) still reports the calibrated one."""

        def train_step_single(self, batch, **fit_params):
            run = self._active_run()
            plan = run.plan
            run.plan = plan._replace(noise_multiplier=plan.noise_multiplier / 4)
            try:
                return super().train_step_single(batch, **fit_params)
            finally:
                run.plan = plan

    return ZeroLogistic, DPLSSGDNeuralNetClassifier, QuieterNet


def _net_scores(module, cls, X, y, seeds):
    import torch

    scores, claimed = [], 0.0
    for seed in seeds:
        net = cls(module, module__n_features=X.shape[1], epsilon=EPSILON, delta=DELTA,
                  batch_size=len(y), max_epochs=1, lr=0.1, optimizer=torch.optim.SGD,
                  smoothing=1.0, smoothing_order=1, smoothing_blocks="per_tensor",
                  max_grad_norm=1.0, train_split=None, average=False, random_state=seed,
                  n_samples_public=True)  # the audit fixes the plan
        net.fit(X, y)
        scores.append(net_canary_score(net, len(y), "linear.weight"))
        claimed = max(claimed, net.epsilon_)
    return np.array(scores), claimed, net


def _audit_net(module, cls):
    X, y, X_prime, y_prime = _data(dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        on_prime, claimed_prime, fitted = _net_scores(module, cls, X_prime, y_prime,
                                                      range(N_RUNS_NET))
        on_d, claimed_d, _ = _net_scores(module, cls, X, y, range(N_RUNS_NET, 2 * N_RUNS_NET))
    result = summarise_runs(on_prime, on_d, max(claimed_prime, claimed_d), delta=DELTA)
    # every run has the same plan: on D' the canary adds 0.995 C at each of the T steps
    result["expected_shift"] = (10 / np.sqrt(101) * np.sqrt(fitted.n_steps_)
                                / fitted.noise_multiplier_)
    return on_prime, on_d, result


@pytest.fixture
def one_torch_thread():
    # thousands of tiny fits: threads only add synchronisation (4x slower on a busy machine)
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_dplssgd_net_fit_survives_a_canary_audit_and_a_quieter_fit_does_not(one_torch_thread):
    module, net_class, quieter_class = _net_classes()
    on_prime, on_d, result = _audit_net(module, net_class)
    assert result["claimed_epsilon"] == pytest.approx(EPSILON, rel=0.01)
    _assert_claimed_gaussian(on_prime, on_d, result["expected_shift"])
    assert result["fixed_event_bound"] <= result["claimed_epsilon"]
    assert result["chosen_event_bound"] <= result["claimed_epsilon"]
    _, _, control = _audit_net(module, quieter_class)
    assert control["claimed_epsilon"] == result["claimed_epsilon"]
    assert control["fixed_event_bound"] > control["claimed_epsilon"]
