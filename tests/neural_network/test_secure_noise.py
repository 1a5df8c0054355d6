"""The nets' DP-SGD noise comes from the fit's cryptographic generator (issue 29).

By default the noise is drawn by NumPy from the fit's ChaCha20 generator, never by
``torch.randn`` (PyTorch's MT19937 on the CPU); an int ``random_state`` and
``set_config(secure_generator=False)`` keep the torch path they always had.
"""

import numpy as np
import pytest
import torch

from skprivate import config_context
from skprivate.mechanisms import check_rng
from skprivate.neural_network import DPLSSGDNeuralNetClassifier
from skprivate.neural_network import _private_step
from skprivate.neural_network._dplssgd_net import _Run
from skprivate.neural_network._smoothing import BlockSmoother

pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")


class MLP(torch.nn.Module):
    def __init__(self, n_in=5, hidden=8, n_out=3):
        super().__init__()
        self.layers = torch.nn.Sequential(
            torch.nn.Linear(n_in, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, n_out)
        )

    def forward(self, X):
        return self.layers(X)


def _data(n=60):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, 5)).astype(np.float32), rng.integers(0, 3, size=n)


@pytest.fixture
def randn_calls(monkeypatch):
    calls = []
    original = torch.randn

    def counting(*args, **kwargs):
        calls.append(kwargs.get("generator"))
        return original(*args, **kwargs)

    monkeypatch.setattr(_private_step.torch, "randn", counting)
    return calls


def _fit(**kw):
    X, y = _data()
    net = DPLSSGDNeuralNetClassifier(MLP, classes=[0, 1, 2], max_epochs=1, batch_size=15,
                                     noise_multiplier=1.0, **kw)
    return net.fit(X, y)


def test_default_fit_draws_no_noise_from_torch(randn_calls):
    state = torch.random.get_rng_state()
    net = _fit()
    assert randn_calls == []  # the noise came from the fit's ChaCha20 generator
    assert torch.equal(torch.random.get_rng_state(), state)  # global MT19937 untouched
    assert net.privacy_report_["generator"].startswith("ChaCha20")


@pytest.mark.parametrize("how", ["int", "opt_out"])
def test_int_seed_and_opt_out_keep_torch_noise(randn_calls, how):
    if how == "int":
        net = _fit(random_state=0)
    else:
        with config_context(secure_generator=False):
            net = _fit()
        assert "statistical" in net.privacy_report_["generator"]
    assert randn_calls and all(isinstance(g, torch.Generator) for g in randn_calls)


def test_int_seed_stays_reproducible():
    a = [p.detach().clone() for p in _fit(random_state=0).module_.parameters()]
    b = [p.detach().clone() for p in _fit(random_state=0).module_.parameters()]
    for p, q in zip(a, b, strict=True):
        torch.testing.assert_close(p, q, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_secure_noise_is_the_generators_normal_draws(dtype):
    # An empty batch leaves the noise alone: .grad is z C N(0, 1) / (q n) per coordinate,
    # and N(0, 1) is exactly the generator's standard_normal stream, parameter by parameter.
    torch.manual_seed(0)
    net = DPLSSGDNeuralNetClassifier(MLP(n_in=64, hidden=64, n_out=10).to(dtype),
                                     smoothing=0.0, max_grad_norm=0.5, batch_size=20)
    net.initialize()
    plan = net._plan(200)._replace(noise_multiplier=3.0)
    from randomgen import ChaCha

    rng = np.random.Generator(ChaCha(key=12345, rounds=20))
    run = _Run(plan, 200, rng, torch.Generator().manual_seed(0),
               BlockSmoother(0.0, 1, "per_tensor"))
    assert run.generator is None  # a cryptographic rng: no torch generator is used
    net._dp_run_ = run
    try:
        net.train_step_single(None)
    finally:
        del net._dp_run_
    ref = np.random.Generator(ChaCha(key=12345, rounds=20))
    np_dtype = np.float64 if dtype == torch.float64 else np.float32
    scale = 3.0 * 0.5 / (plan.sample_rate * 200)
    for p in net.module_.parameters():
        assert p.grad.dtype == dtype
        expected = ref.standard_normal(tuple(p.shape), dtype=np_dtype) * scale
        np.testing.assert_allclose(p.grad.numpy(), expected, rtol=1e-5, atol=1e-7)
    z = torch.cat([p.grad.ravel() for p in net.module_.parameters()]).double().numpy() / scale
    assert abs(z.std() - 1.0) < 0.03


def test_check_rng_default_is_what_the_net_sees():
    assert _private_step.is_cryptographic(check_rng(None))
