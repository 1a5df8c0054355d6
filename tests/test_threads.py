"""Native threads during a fit: bounded inside it, restored after it (issue 30).

The timing itself (a net fit after a scikit-learn fit beside busy processes) is too noisy for
CI; it is ``benchmarks/threads.py``. These tests check the settings the fit runs under and
leaves behind, starting from two threads everywhere so that the old behaviour (the pools left
at one thread per core) fails on any machine.
"""

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from skprivate.utils._threads import bounded_threads

torch = pytest.importorskip("torch")
from skorch.callbacks import Callback  # noqa: E402

from skprivate.neural_network import DPLSSGDNeuralNetClassifier  # noqa: E402
from skprivate.neural_network._dplssgd_net import _PARALLEL_STEP_SIZE  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")


def pools():
    """(library path, threads) of every BLAS and OpenMP pool threadpoolctl finds."""
    return sorted((info["filepath"], info["num_threads"]) for info in threadpool_info())


@pytest.fixture
def two_threads():
    """Two threads in torch and in every pool for the test, the user's settings after it."""
    before = torch.get_num_threads()
    with threadpool_limits(limits=2):
        torch.set_num_threads(2)
        yield
    torch.set_num_threads(before)


class Seen(Callback):
    """Records torch's threads and the pools' while the training loop runs."""

    def __init__(self, fail=False):
        self.fail = fail

    def on_batch_end(self, net, **kwargs):
        net.threads_seen_ = (torch.get_num_threads(), pools())
        if self.fail:
            raise RuntimeError("a callback failed inside the training loop")


def net(hidden, callbacks):
    module = torch.nn.Sequential(torch.nn.Linear(8, hidden), torch.nn.Tanh(),
                                 torch.nn.Linear(hidden, 2))
    return DPLSSGDNeuralNetClassifier(module, classes=[0, 1], max_epochs=1, batch_size=32,
                                      n_samples_public=True, noise_multiplier=1.0, random_state=0,
                                      callbacks=callbacks)


def data(n=64):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, 8)).astype(np.float32), rng.integers(0, 2, size=n)


def test_small_net_trains_on_one_thread_and_restores_them(two_threads):
    before = (torch.get_num_threads(), pools())
    model = net(16, [Seen()]).fit(*data())
    torch_threads, seen_pools = model.threads_seen_
    assert torch_threads == 1
    assert {threads for _, threads in seen_pools} == {1}
    assert (torch.get_num_threads(), pools()) == before


def test_large_step_keeps_torch_threads(two_threads):
    # 32 rows a step x (8 x hidden + hidden + 2 x hidden + 2) weights above the threshold:
    # regions long enough for two threads to pay; the other pools still get one
    hidden = _PARALLEL_STEP_SIZE // (32 * 11) + 1
    model = net(hidden, [Seen()]).fit(*data())
    torch_threads, seen_pools = model.threads_seen_
    assert torch_threads == 2
    assert {threads for path, threads in seen_pools if "torch" not in path} == {1}
    assert torch.get_num_threads() == 2


def test_threads_restored_when_the_fit_raises(two_threads):
    before = (torch.get_num_threads(), pools())
    with pytest.raises(RuntimeError, match="callback failed"):
        net(16, [Seen(fail=True)]).fit(*data())
    assert (torch.get_num_threads(), pools()) == before


def test_helper_keeps_a_lower_user_bound_and_restores_on_error():
    counts = {"runtime": 3}
    runtime = (lambda: counts["runtime"], lambda n: counts.update(runtime=n), 8)
    with threadpool_limits(limits=1):
        outside = pools()
        with pytest.raises(KeyError):
            with bounded_threads(2, runtimes=[runtime]):
                # the user's one thread stays one; the runtime's 3 is already under 8
                assert pools() == outside and counts["runtime"] == 3
                raise KeyError("inside")
        assert pools() == outside and counts["runtime"] == 3


def test_calibration_runs_on_one_thread_too(two_threads, monkeypatch):
    # the noise calibration and the accounting (NumPy, SciPy) happen outside the loop
    seen = []
    original = DPLSSGDNeuralNetClassifier._count_plan

    def count_plan(self, count):
        seen.append(pools())
        return original(self, count)

    monkeypatch.setattr(DPLSSGDNeuralNetClassifier, "_count_plan", count_plan)
    net(16, []).fit(*data())
    # torch's own pool keeps its count until the loop decides it
    assert seen and {threads for path, threads in seen[0] if "torch" not in path} == {1}


def test_linear_fit_runs_one_thread_per_pool_and_restores_them(monkeypatch):
    # Each DP-SGD step multiplies one small batch: the linear fit bounds every native pool
    # to one thread (idle BLAS threads spin against other work) and gives them back after.
    from threadpoolctl import threadpool_info

    from skprivate.linear_model import DPLSSGDClassifier, _dplssgd_base

    seen = []
    real = _dplssgd_base.run_dplssgd

    def spy(*args, **kwargs):
        seen.append(max(info["num_threads"] for info in threadpool_info()))
        return real(*args, **kwargs)

    monkeypatch.setattr(_dplssgd_base, "run_dplssgd", spy)
    before = [info["num_threads"] for info in threadpool_info()]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    DPLSSGDClassifier(classes=[0, 1], max_iter=1, n_samples_public=True).fit(X, X[:, 0] > 0)
    assert seen == [1]  # 2 per pool on this 2-core machine without the bound
    assert [info["num_threads"] for info in threadpool_info()] == before
