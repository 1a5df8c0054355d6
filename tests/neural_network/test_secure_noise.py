"""The nets' DP-SGD noise: a cryptographic generator and no floating-point noise.

By default (``secure_noise=True``) each step's clipped sum is rounded to a power-of-two grid
example by example, summed exactly in integers and released with exact rounded Gaussian
integer noise drawn from the fit's generator (ChaCha20 for ``random_state=None``), never by
``torch.randn`` (PyTorch's MT19937 on the CPU). Under ``set_config(secure_noise=False)`` the
floating-point noise is what it always was: NumPy's ``standard_normal`` from the ChaCha20
generator, or ``torch.randn`` from a seeded torch generator under an int ``random_state``
and ``set_config(secure_generator=False)``.
"""

import numpy as np
import pytest
import torch

from skprivate import config_context
from skprivate._dpsgd._release import SecureGaussianRelease
from skprivate.mechanisms import check_rng, rounded_gaussian_plan
from skprivate.neural_network import DPLSSGDNeuralNetClassifier
from skprivate.neural_network import _private_step
from skprivate.neural_network._per_sample import _grid_sum
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
def test_int_seed_and_opt_out_keep_torch_noise_without_secure_noise(randn_calls, how):
    with config_context(secure_noise=False):
        if how == "int":
            net = _fit(random_state=0)
        else:
            with config_context(secure_generator=False):
                net = _fit()
            assert "statistical" in net.privacy_report_["generator"]
    assert randn_calls and all(isinstance(g, torch.Generator) for g in randn_calls)
    assert net.privacy_report_["noise"].startswith("floating-point Gaussian (torch.randn")


@pytest.mark.parametrize("how", ["int", "opt_out"])
def test_int_seed_and_opt_out_draw_no_torch_noise_with_secure_noise(randn_calls, how):
    with config_context(secure_generator=how == "int"):
        net = _fit(random_state=0 if how == "int" else None)
    assert randn_calls == []
    assert net.privacy_report_["noise"].startswith("rounded Gaussian")


def test_secure_noise_false_reproduces_the_int_seeded_fit_of_earlier_versions():
    # recorded with the code before the rounded Gaussian release of the nets' steps
    with config_context(secure_noise=False):
        net = _fit(random_state=0)
    sums = [float(p.detach().double().sum()) for p in net.module_.parameters()]
    np.testing.assert_allclose(
        sums, [0.25172385573387146, -0.5811438038945198, -0.016914457082748413,
               -0.607235748320818], rtol=1e-6, atol=0)
    assert net.epsilon_ == 4.753567460175003


def test_epsilon_is_the_same_with_and_without_secure_noise():
    # the rounded release is a post-processing of the same sampled Gaussian mechanism
    with config_context(secure_noise=False):
        plain = _fit(random_state=0)
    secure = _fit(random_state=0)
    assert secure.epsilon_ == plain.epsilon_ and secure.delta_ == plain.delta_
    assert secure.privacy_report_["noise_multiplier"] == plain.privacy_report_["noise_multiplier"]


@pytest.fixture
def releases(monkeypatch):
    calls = []
    original = SecureGaussianRelease.__call__

    def recording(self, value, sensitivity, noise_multiplier, rng):
        out = original(self, value, sensitivity, noise_multiplier, rng)
        calls.append((np.array(value), sensitivity, noise_multiplier, np.array(out)))
        return out

    monkeypatch.setattr(SecureGaussianRelease, "__call__", recording)
    return calls


def test_default_fit_releases_every_step_through_the_rounded_gaussian(releases):
    net = _fit(random_state=0)
    n_params = sum(p.numel() for p in net.module_.parameters())
    assert len(releases) == net.privacy_report_["steps"] == net._dp_steps_ > 0  # one per step
    plan = rounded_gaussian_plan(0.3, 1.0, n_params)
    for value, sensitivity, multiplier, out in releases:
        assert (sensitivity, multiplier) == (0.3, 1.0) and value.shape == (n_params,)
        # the statistic arrives on the grid (an exact integer sum), the release stays on it
        assert np.all((value / plan.gamma) % 1 == 0) and np.all((out / plan.gamma) % 1 == 0)
        assert not np.array_equal(value, out)  # noise was added
    assert net.privacy_report_["noise"].startswith("rounded Gaussian")


def _one_step(batch, release, dtype=torch.float64, smoothing=0.0):
    torch.manual_seed(0)
    net = DPLSSGDNeuralNetClassifier(MLP().to(dtype), smoothing=smoothing, max_grad_norm=0.5,
                                     batch_size=20, optimizer__momentum=0.0)
    net.initialize()
    plan = net._plan(60)._replace(noise_multiplier=2.0)
    run = _Run(plan, 60, check_rng(3), torch.Generator().manual_seed(0),
               BlockSmoother(smoothing, 1, "per_tensor"), release)
    net._dp_run_ = run
    try:
        net.train_step_single(batch)
    finally:
        del net._dp_run_
    return net, run


def test_the_step_before_the_optimizer_is_on_the_grid():
    # plain SGD, no smoothing: .grad = released / (q n), the release a multiple of gamma
    X, y = _data()
    batch = (torch.as_tensor(X[:17], dtype=torch.float64), torch.as_tensor(y[:17]))
    net, run = _one_step(batch, SecureGaussianRelease())
    n_params = sum(p.numel() for p in net.module_.parameters())
    gamma = rounded_gaussian_plan(0.5, 2.0, n_params).gamma
    grads = torch.cat([p.grad.ravel() for p in net.module_.parameters()]).numpy()
    units = grads * run.divisor / gamma
    np.testing.assert_allclose(units, np.round(units), rtol=0, atol=1e-6)


def test_the_integer_sum_changes_by_exactly_the_added_example():
    # The float32 sum of clipped examples changes by more or less than the added example
    # (the rounding of every other term changes too, by up to b u sum ||g_i||, b private):
    # the secure path sums per-example integer vectors instead, exactly.
    gen = torch.Generator().manual_seed(0)
    g = torch.randn(200, 50, generator=gen, dtype=torch.float32) * 1e3
    g[7] *= 1e-4
    factors = (1.0 / g.norm(dim=1)).clamp(max=1.0)  # clip to norm 1
    finite = torch.ones(200, dtype=torch.bool)
    gamma = 2.0**-16
    bound = int((2**16 + 8) ** 2)  # L = C / gamma + ceil(sqrt(50)), C = 1
    with_x = _grid_sum({"w": g}, factors, finite, gamma, bound)["w"]
    without = _grid_sum({"w": g[1:]}, factors[1:], finite[1:], gamma, bound)["w"]
    alone = _grid_sum({"w": g[:1]}, factors[:1], finite[:1], gamma, bound)["w"]
    assert with_x.dtype == torch.int64
    assert torch.equal(with_x - without, alone)
    assert float(alone.double().norm()) <= 2**16 + 8


def test_an_example_beyond_the_lattice_bound_is_dropped_exactly():
    # gamma = 1, bound 25 (L = 5): [3, 4] and [3.2, 4.4] -> [3, 4] pass (25), [4, 4] (32)
    # and a coordinate of 6 do not; the sum is the passing examples' only.
    g = torch.tensor([[3.0, 4.0], [3.2, 4.4], [4.0, 4.0], [6.0, 0.0]])
    ones, finite = torch.ones(4), torch.ones(4, dtype=torch.bool)
    out = _grid_sum({"w": g}, ones, finite, 1.0, 25)["w"]
    assert out.tolist() == [6, 8]


def test_empty_batch_releases_noise_only_on_the_grid():
    net, run = _one_step(None, SecureGaussianRelease())
    n_params = sum(p.numel() for p in net.module_.parameters())
    gamma = rounded_gaussian_plan(0.5, 2.0, n_params).gamma
    units = torch.cat([p.grad.ravel() for p in net.module_.parameters()]).numpy()
    units = units * run.divisor / gamma
    np.testing.assert_allclose(units, np.round(units), rtol=0, atol=1e-6)
    # noise only: z C = 2 * 0.5 per coordinate (75 coordinates: within 30 %)
    assert 0.7 < np.std(units * gamma) < 1.3


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_secure_noise_on_a_cuda_module():
    X, y = _data()
    net = DPLSSGDNeuralNetClassifier(MLP, classes=[0, 1, 2], max_epochs=1, batch_size=15,
                                     noise_multiplier=1.0, device="cuda", random_state=0)
    net.fit(X, y)
    assert all(p.device.type == "cuda" for p in net.module_.parameters())
    assert net.privacy_report_["noise"].startswith("rounded Gaussian")


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
