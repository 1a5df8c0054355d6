"""Tests of the DP-LSSGD skorch nets.

Clipping and summation are checked with the noise switched off against a loop that takes
one example at a time through plain autograd; the noise is checked separately with
statistics; the torch smoothing against skprivate's numpy operator; the accounting against
``dpsgd_epsilon``. The failures that skorch itself causes in scikit-learn's common checks
are listed here with their reasons; tests/test_common.py runs the checks, once.
"""

import functools
import warnings

import numpy as np
import pytest
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from skorch.callbacks import Callback

from skprivate._dpsgd._plan import auto_steps, epoch_steps
from skprivate.accounting import BudgetAccountant, dpsgd_epsilon
from skprivate.exceptions import BudgetExceededError, PrivacyLeakWarning
from skprivate.neural_network import DPLSSGDNeuralNetClassifier, DPLSSGDNeuralNetRegressor
from skprivate.neural_network._dplssgd_net import _Run
from skprivate.neural_network._per_sample import clipped_gradient_sum
from skprivate.neural_network._smoothing import BlockSmoother, laplacian_smooth_torch
from skprivate.smoothing import laplacian_smooth

pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")


@pytest.fixture(autouse=True)
def _one_thread():
    # The machine is shared; one thread also makes the timings of the accuracy test honest.
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


class MLP(torch.nn.Module):
    """A small fully connected network returning logits (or one output for regression)."""

    def __init__(self, n_in=64, hidden=64, n_out=10, depth=1, dropout=None):
        super().__init__()
        layers = [torch.nn.Linear(n_in, hidden), torch.nn.Tanh()]
        for _ in range(depth - 1):
            layers += [torch.nn.Linear(hidden, hidden), torch.nn.Tanh()]
        if dropout is not None:
            layers.append(torch.nn.Dropout(dropout))
        self.layers = torch.nn.Sequential(*layers, torch.nn.Linear(hidden, n_out))

    def forward(self, X):
        return self.layers(X)


def small_data(n=40, d=5, k=3, seed=0):
    rng = np.random.default_rng(seed)
    X = (rng.normal(size=(n, d)) * rng.uniform(0.1, 3.0, size=(n, 1))).astype(np.float32)
    y = rng.integers(0, k, size=n)
    return X, y


# --- per-example gradients and clipping, noise off ------------------------------------------


def reference_clipped_sum(module, criterion, X, y, C):
    """One example at a time: backward, clip the whole gradient vector, add up."""
    params = [p for p in module.parameters() if p.requires_grad]
    total = [torch.zeros_like(p) for p in params]
    for i in range(len(X)):
        module.zero_grad()
        criterion(module(X[i : i + 1]), y[i : i + 1]).mean().backward()
        grads = [p.grad.detach().clone() for p in params]
        norm = torch.sqrt(sum((g**2).sum() for g in grads))
        scale = min(1.0, C / float(norm)) if norm > 0 else 1.0
        total = [t + scale * g for t, g in zip(total, grads, strict=True)]
    return total


@pytest.mark.parametrize("C", [0.05, 1.0, 1e3])
def test_clipped_sum_matches_one_example_at_a_time(C):
    torch.manual_seed(0)
    module = MLP(n_in=5, hidden=7, n_out=3, depth=2).double()
    X, y = small_data()
    X, y = torch.as_tensor(X, dtype=torch.float64), torch.as_tensor(y)
    criterion = torch.nn.CrossEntropyLoss(reduction="none")
    params = {n: p.detach() for n, p in module.named_parameters()}
    got, losses, y_pred, norms = clipped_gradient_sum(
        module,
        params,
        {},
        X,
        y,
        example_loss=lambda out, target, _: criterion(out, target).mean(),
        max_grad_norm=C,
    )
    expected = reference_clipped_sum(module, criterion, X, y, C)
    for g, e in zip(got.values(), expected, strict=True):
        torch.testing.assert_close(g, e, atol=1e-10, rtol=1e-10)
    torch.testing.assert_close(losses, criterion(module(X), y).detach())
    torch.testing.assert_close(y_pred, module(X).detach())
    assert norms.shape == (len(X),)
    if C == 0.05:
        assert (norms > C).all()  # every example was clipped: the test is not vacuous


def _net_gradient_without_noise(net, X, y):
    """The .grad a net's train step sets on one batch, with the noise multiplier set to 0."""
    net.initialize()
    plan = net._plan(len(X))._replace(noise_multiplier=0.0)
    generator = torch.Generator().manual_seed(0)
    smoother = BlockSmoother(net.smoothing, net.smoothing_order, net.smoothing_blocks)
    net._dp_run_ = _Run(plan, len(X), np.random.default_rng(0), generator, smoother)
    try:
        net.train_step_single((torch.as_tensor(X), torch.as_tensor(y)))
    finally:
        del net._dp_run_
    return {n: p.grad.clone() for n, p in net.module_.named_parameters()}, plan


@pytest.mark.parametrize("weighted", [False, True])
def test_net_step_is_clipped_sum_over_expected_batch(weighted):
    # Through the net: criterion switched to per-example losses (class weights kept), float64
    # input cast to the module's float32, sum divided by the expected batch size q * n.
    X, y = small_data(n=30)
    weight = torch.tensor([1.0, 3.0, 0.5]) if weighted else None
    torch.manual_seed(1)
    module = MLP(n_in=5, hidden=6, n_out=3)
    net = DPLSSGDNeuralNetClassifier(
        module, max_grad_norm=0.3, smoothing=0.0, batch_size=10, criterion__weight=weight
    )
    grads, plan = _net_gradient_without_noise(net, X.astype(np.float64), y)
    criterion = torch.nn.CrossEntropyLoss(weight=weight, reduction="none")
    expected = reference_clipped_sum(
        module, criterion, torch.as_tensor(X), torch.as_tensor(y), 0.3
    )
    for g, e in zip(grads.values(), expected, strict=True):
        torch.testing.assert_close(g, e / (plan.sample_rate * len(X)), atol=1e-6, rtol=1e-5)


def test_net_step_smooths_each_tensor():
    X, y = small_data(n=20)
    torch.manual_seed(2)
    net = DPLSSGDNeuralNetClassifier(MLP(n_in=5, hidden=6, n_out=3), smoothing=0.0)
    raw, _ = _net_gradient_without_noise(net, X, y)
    torch.manual_seed(2)
    net = DPLSSGDNeuralNetClassifier(MLP(n_in=5, hidden=6, n_out=3), smoothing=2.0,
                                     smoothing_order=2)
    smoothed, _ = _net_gradient_without_noise(net, X, y)
    for name, g in raw.items():
        expected = laplacian_smooth(g.double().numpy().ravel(), 2.0, 2).reshape(g.shape)
        np.testing.assert_allclose(smoothed[name].numpy(), expected, atol=1e-6)


def test_dropout_runs_per_example_and_clips():
    torch.manual_seed(0)
    module = MLP(n_in=5, hidden=16, n_out=3, dropout=0.5)
    module.train()
    X, y = small_data()
    params = {n: p.detach() for n, p in module.named_parameters()}
    criterion = torch.nn.CrossEntropyLoss()
    _, _, _, norms = clipped_gradient_sum(
        module, params, {}, torch.as_tensor(X), torch.as_tensor(y),
        example_loss=lambda out, t, _: criterion(out, t), max_grad_norm=1.0,
    )
    assert torch.isfinite(norms).all()
    net = DPLSSGDNeuralNetClassifier(MLP, module__n_in=5, module__n_out=3, module__dropout=0.5,
                                     max_epochs=2, noise_multiplier=1.0, random_state=0)
    net.fit(X, y)
    assert net.n_steps_ == 2 * net._plan(len(X)).steps_per_epoch


# --- the noise, separately ----------------------------------------------------------------


def test_noise_is_gaussian_with_the_stated_scale():
    # An empty batch leaves the noise alone: its .grad is N(0, (z C)^2) / (q n) per coordinate.
    torch.manual_seed(0)
    net = DPLSSGDNeuralNetClassifier(MLP(n_in=64, hidden=64, n_out=10), smoothing=0.0,
                                     max_grad_norm=0.5, batch_size=20)
    net.initialize()
    plan = net._plan(200)._replace(noise_multiplier=3.0)
    net._dp_run_ = _Run(plan, 200, np.random.default_rng(0), torch.Generator().manual_seed(0),
                        BlockSmoother(0.0, 1, "per_tensor"))
    try:
        net.train_step_single(None)
    finally:
        del net._dp_run_
    flat = torch.cat([p.grad.ravel() for p in net.module_.parameters()]).double().numpy()
    z = flat * (plan.sample_rate * 200) / (3.0 * 0.5)
    assert abs(z.mean()) < 4 / np.sqrt(z.size)
    assert abs(z.std() - 1.0) < 0.03
    assert abs(np.mean(z**4) - 3.0) < 0.2  # Gaussian kurtosis


# --- smoothing in torch == skprivate's numpy operator ---------------------------------------


@pytest.mark.parametrize("m", [1, 2, 3, 7, 64, 1001])
@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("sigma", [0.0, 0.5, 3.0])
def test_torch_smoothing_matches_numpy(m, order, sigma):
    g = np.random.default_rng(m + order).normal(size=(3, m))
    got = laplacian_smooth_torch(torch.as_tensor(g), sigma, order).numpy()
    np.testing.assert_allclose(got, laplacian_smooth(g, sigma, order), atol=1e-12)
    got32 = laplacian_smooth_torch(torch.as_tensor(g, dtype=torch.float32), sigma, order)
    assert got32.dtype == torch.float32
    np.testing.assert_allclose(got32.numpy(), laplacian_smooth(g, sigma, order), atol=1e-5)


@pytest.mark.parametrize("blocks", ["per_tensor", "global"])
def test_block_smoother(blocks):
    rng = np.random.default_rng(0)
    shapes = {"w": (4, 6), "b": (4,), "one": (1,), "c": (2, 3, 5)}
    grads = {k: torch.as_tensor(rng.normal(size=s)) for k, s in shapes.items()}
    out = BlockSmoother(1.5, 2, blocks)(grads)
    if blocks == "per_tensor":
        for k, g in grads.items():
            expected = laplacian_smooth(g.numpy().ravel(), 1.5, 2).reshape(g.shape)
            np.testing.assert_allclose(out[k].numpy(), expected, atol=1e-12)
    else:
        flat = np.concatenate([g.numpy().ravel() for g in grads.values()])
        expected = laplacian_smooth(flat, 1.5, 2)
        got = np.concatenate([out[k].numpy().ravel() for k in grads])
        np.testing.assert_allclose(got, expected, atol=1e-12)
    assert {k: tuple(v.shape) for k, v in out.items()} == shapes


# --- accounting ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _fitted_digits_classifier():
    X, y = load_digits(return_X_y=True)
    X = (X / 16.0).astype(np.float32)  # 4-bit pixels: a public bound, not a data statistic
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    torch.manual_seed(0)
    clf = DPLSSGDNeuralNetClassifier(MLP, epsilon=2.0, random_state=0)
    clf.fit(X_train, y_train)
    return clf, X_test, y_test


def test_digits_accuracy_at_epsilon_2():
    clf, X_test, y_test = _fitted_digits_classifier()
    # One fit on one torch random stream, which torch does not keep across versions: seeds
    # 0-5 gave 0.911 to 0.94 (torch 2.13), so 0.90 failed on about 1 stream in 20. With the
    # exact rounded Gaussian noise, seeds 0-4 gave 0.880 to 0.907 with its first sampler and
    # 0.873 to 0.896 with the faster one (the same law, another stream): 0.86 leaves room.
    assert clf.score(X_test, y_test) >= 0.86


def _planned_rows(net):
    """The noisy count of rows a fit planned on, as its report states it."""
    return int(net.privacy_report_["number of rows"].rsplit(": ", 1)[1])


def test_epsilon_matches_dpsgd_epsilon_and_budget():
    clf, _, _ = _fitted_digits_classifier()
    # The default fit planned on a noisy count of its 1,347 rows (5 % of epsilon 2, basic
    # composition with the training).
    # The training of this plan, accounted independently, meets the 1.9 the count left;
    # epsilon_ reports that bound (every count's plan meets it), not this plan's value.
    training = dpsgd_epsilon(
        clf.noise_multiplier_, clf.sample_rate_, clf.n_steps_, 1e-5, accounting="pld"
    )
    assert 0.99 * 1.9 <= training <= 1.9
    assert clf.epsilon_ == 2.0
    assert clf.delta_ == 1e-5
    assert clf._privacy_spend_record.event is None  # chosen from the count: no event
    # the "auto" plan on the noisy count: batch 128, 2,000 steps in whole epochs
    n_plan = _planned_rows(clf)
    assert n_plan != 1347 and abs(n_plan - 1347) < 200
    per_epoch = epoch_steps(n_plan, 128)
    assert clf.sample_rate_ == 128 / n_plan
    assert clf.n_iter_ == round(auto_steps(n_plan, 128) / per_epoch)
    assert clf.n_steps_ == clf.n_iter_ * per_epoch
    assert clf.privacy_report_["noise_multiplier"] == clf.noise_multiplier_


def test_history_records_epsilon_per_epoch_and_no_training_loss():
    clf, _, _ = _fitted_digits_classifier()
    eps = clf.history[:, "epsilon"]
    assert len(eps) == clf.n_iter_
    assert all(a < b for a, b in zip(eps, eps[1:], strict=False))
    # the history is this plan's (count + training so far); epsilon_ is the bound every
    # count's plan meets, at most 1 % above it
    assert clf.epsilon_ * 0.99 <= eps[-1] <= clf.epsilon_
    steps_per_epoch = clf.n_steps_ // clf.n_iter_
    # the noisy count (0.1) was spent before the first step
    first_epoch = 0.1 + dpsgd_epsilon(
        clf.noise_multiplier_, clf.sample_rate_, steps_per_epoch, 1e-5, accounting="pld"
    )
    # The history composes on the whole plan's PLD grid (coarser than one epoch's own, so
    # that a huge-epsilon plan stays affordable): pessimistic, so never below, and close.
    assert first_epoch * (1 - 1e-12) <= eps[0] <= first_epoch * 1.002
    keys = set(clf.history[-1]) | {k for batch in clf.history[-1]["batches"] for k in batch}
    assert not {"train_loss", "train_batch_size", "valid_loss"} & keys


def test_pld_accounting():
    X, y = small_data(n=60)
    net = DPLSSGDNeuralNetClassifier(MLP, module__n_in=5, module__n_out=3, max_epochs=2,
                                     noise_multiplier=2.0, batch_size=20, accounting="pld",
                                     random_state=0, n_samples_public=True).fit(X, y)
    assert net.epsilon_ == pytest.approx(
        dpsgd_epsilon(2.0, 20 / 60, 6, 1e-5, accounting="pld"), rel=1e-12
    )
    assert net.history[-1, "epsilon"] == net.epsilon_


def test_explicit_noise_multiplier_reports_its_epsilon():
    X, y = small_data(n=50)
    net = DPLSSGDNeuralNetClassifier(MLP, module__n_in=5, module__n_out=3, max_epochs=3,
                                     noise_multiplier=1.3, batch_size=10, random_state=0,
                                     n_samples_public=True)
    net.fit(X, y)
    assert net.noise_multiplier_ == 1.3
    assert net.epsilon_ == pytest.approx(dpsgd_epsilon(1.3, 0.2, 15, 1e-5, accounting="pld"), rel=1e-12)
    assert "note" in net.privacy_report_


# --- budgets, partial_fit and warm_start ----------------------------------------------------


def test_budget_refusal_before_any_value_is_read():
    X = np.full((100, 5), np.nan, dtype=np.float32)
    y = np.zeros(100, dtype=np.int64)
    acc = BudgetAccountant(epsilon=0.5)
    net = DPLSSGDNeuralNetClassifier(MLP, module__n_in=5, module__n_out=3, epsilon=1.0,
                                     accountant=acc)
    with pytest.raises(BudgetExceededError):
        net.fit(X, y)
    assert acc.spends == []
    assert not net.initialized_


def test_partial_fit_and_warm_start_compose_every_call():
    X, y = small_data(n=50)
    acc = BudgetAccountant()
    kw = dict(module__n_in=5, module__n_out=3, max_epochs=2, noise_multiplier=1.5,
              batch_size=10, random_state=0)
    net = DPLSSGDNeuralNetClassifier(MLP, accountant=acc, **kw, n_samples_public=True)
    net.partial_fit(X, y)
    first = net.epsilon_
    net.partial_fit(X, y)
    assert net.n_steps_ == 20 and net.n_iter_ == 4
    # PLD on dp-accounting's grid (composed_epsilon) against dpsgd_epsilon's coarser one
    assert net.epsilon_ == pytest.approx(
        dpsgd_epsilon(1.5, 0.2, 20, 1e-5, accounting="pld"), rel=1e-4
    )
    assert net.epsilon_ > first
    # The accountant records each call's own spend and composes them itself.
    assert [s.epsilon for s in acc.spends] == pytest.approx([first, first])
    assert net.privacy_report_["epsilon"] == net.epsilon_
    assert net.history[-1, "epsilon"] == net.epsilon_
    assert len(net.history) == 4

    warm = DPLSSGDNeuralNetClassifier(MLP, warm_start=True, **kw, n_samples_public=True)
    warm.fit(X, y).fit(X, y)
    assert warm.epsilon_ == net.epsilon_
    cold = DPLSSGDNeuralNetClassifier(MLP, **kw, n_samples_public=True)
    cold.fit(X, y).fit(X, y)  # re-initialized: the second fit starts afresh
    assert cold.epsilon_ == pytest.approx(first) and cold.n_steps_ == 10


def test_early_stop_and_failure_spend_the_plan():
    # When training stops is read from the data (EarlyStopping reads validation scores), so
    # the stop is released too: the fit costs its plan. The old code reported and recorded
    # only the steps that ran (epsilon of 5 steps, not 15).
    from skorch.callbacks import Callback

    class StopAfterOneEpoch(Callback):
        def on_epoch_end(self, net, **kwargs):
            raise KeyboardInterrupt  # how skorch's EarlyStopping stops

    class FailOnSecondBatch(Callback):
        def initialize(self):
            self.seen_ = 0
            return self

        def on_batch_end(self, net, **kwargs):
            self.seen_ += 1
            if self.seen_ == 2:
                raise RuntimeError("boom")

    X, y = small_data(n=50)
    kw = dict(module__n_in=5, module__n_out=3, max_epochs=3, noise_multiplier=1.5,
              batch_size=10, random_state=0)
    planned = dpsgd_epsilon(1.5, 0.2, 15, 1e-5, accounting="pld")
    assert planned > dpsgd_epsilon(1.5, 0.2, 5, 1e-5, accounting="pld") * 1.3  # the test can tell them apart
    acc = BudgetAccountant()
    net = DPLSSGDNeuralNetClassifier(MLP, callbacks=[StopAfterOneEpoch()], accountant=acc, **kw,
                                     n_samples_public=True)
    net.fit(X, y)
    assert net.n_iter_ == 1 and net.n_steps_ == 5 and len(net.history) == 1
    assert net.epsilon_ == pytest.approx(planned, rel=1e-12)
    assert [s.epsilon for s in acc.spends] == pytest.approx([planned], rel=1e-12)
    assert net.privacy_report_["stopped_early"].startswith("5 of 15 planned steps ran")

    acc = BudgetAccountant()
    net = DPLSSGDNeuralNetClassifier(MLP, callbacks=[FailOnSecondBatch()], accountant=acc, **kw,
                                     n_samples_public=True)
    with pytest.raises(RuntimeError, match="boom"):
        net.fit(X, y)
    assert net.n_steps_ == 2  # two noisy steps reached the weights; the plan is spent
    assert net.epsilon_ == pytest.approx(planned, rel=1e-12)
    assert [s.epsilon for s in acc.spends] == pytest.approx([planned], rel=1e-12)


def test_skorch_early_stopping_reports_and_records_the_planned_epsilon():
    # The case with skorch's own EarlyStopping: planned epsilon 2.0, stopped after
    # 2 of 5 epochs. Monitoring the per-epoch epsilon (which only grows) makes the stop
    # deterministic; with patience=1 it stops after the second epoch.
    from skorch.callbacks import EarlyStopping

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.int64)
    acc = BudgetAccountant()
    net = DPLSSGDNeuralNetClassifier(
        torch.nn.Linear(5, 2), epsilon=2.0, batch_size=50, max_epochs=5, classes=[0, 1],
        callbacks=[EarlyStopping(monitor="epsilon", patience=1, lower_is_better=True)],
        accountant=acc, random_state=0, n_samples_public=True,
    ).fit(X, y)
    assert net.n_steps_ == 16  # 2 of 5 epochs of 8 steps
    spent_by_16_steps = net.history[-1, "epsilon"]
    assert spent_by_16_steps < 1.5  # what the old code reported and recorded
    assert 0.99 * 2.0 <= net.epsilon_ <= 2.0
    assert net.epsilon_ == pytest.approx(dpsgd_epsilon(
        net.noise_multiplier_, 50 / 400, 40, 1e-5, accounting="pld"
    ))
    assert acc.total()[0] == pytest.approx(net.epsilon_, rel=1e-12)


def test_composed_fits_warn_and_report_on_the_composed_epsilon():
    # Each call spends 7.6, under the epsilon > 10 line; two compose to 9.7, three to 11.3.
    # The old code checked each call's own spend, then overwrote epsilon_: no warning, no
    # caveat, while epsilon_ exceeded 10.
    X, y = small_data(n=50)
    net = DPLSSGDNeuralNetClassifier(MLP, module__n_in=5, module__n_out=3, max_epochs=1,
                                     noise_multiplier=0.75, batch_size=10, classes=[0, 1, 2],
                                     accounting="rdp", n_samples_public=True)
    codes, epsilons = [], []
    for _ in range(3):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            net.partial_fit(X, y)
        leaks = [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
        codes.append(net.privacy_report_.caveat_codes)
        epsilons.append(net.epsilon_)
        assert len(leaks) == (net.epsilon_ > 10)
        if leaks:
            assert f"epsilon={net.epsilon_:.4g} > 10" in str(leaks[0].message)
    assert net.privacy_report_["epsilon_this_call"] < 10 < epsilons[-1]
    assert epsilons[0] < epsilons[1] < epsilons[2]
    assert codes == [[], [], ["epsilon_weak"]]
    assert net.privacy_report_["epsilon"] == net.epsilon_

    # warm_start=True fits compose the same way
    warm = DPLSSGDNeuralNetClassifier(MLP, module__n_in=5, module__n_out=3, max_epochs=1,
                                      noise_multiplier=0.75, batch_size=10, classes=[0, 1, 2],
                                      warm_start=True, accounting="rdp", n_samples_public=True)
    for _ in range(3):
        warm.fit(X, y)
    assert warm.epsilon_ == pytest.approx(epsilons[-1])
    assert warm.privacy_report_.caveat_codes == ["epsilon_weak"]


def test_nothing_changes_the_spend_after_finish_private_fit(finished_fits):
    # epsilon_, delta_ and privacy_report_ are set once, by _finish_private_fit, from the spend
    # it is handed (the composition of every call for partial_fit and warm_start). The mixin
    # of issue #18 overwrote epsilon_ after it, so the report, the spend record that
    # total_privacy_cost reads, and the warning's checks could disagree with epsilon_.
    from skprivate.accounting import total_privacy_cost

    finished = finished_fits  # the state each _finish_private_fit left
    X, y = small_data(n=50)
    kw = dict(module__n_in=5, module__n_out=3, max_epochs=1, noise_multiplier=1.5,
              batch_size=10, classes=[0, 1, 2], random_state=0)
    acc = BudgetAccountant()
    net = DPLSSGDNeuralNetClassifier(MLP, accountant=acc, **kw, n_samples_public=True)
    warm = DPLSSGDNeuralNetClassifier(MLP, warm_start=True, **kw, n_samples_public=True)
    for calls in (1, 2, 3):
        for model, fit in ((net, net.partial_fit), (warm, warm.fit)):
            fit(X, y)
            # the state _finish_private_fit left is the state the fit returned
            assert finished[-1] == (model.epsilon_, model.delta_, dict(model.privacy_report_))
            assert model.privacy_report_["epsilon"] == model.epsilon_
            assert model._privacy_spend_record.epsilon == model.epsilon_
            assert total_privacy_cost(model).epsilon == model.epsilon_
            assert model.privacy_report_.get("calls", 1) == calls
            assert model.history[-1, "epsilon"] == model.epsilon_
    assert len(finished) == 6
    assert warm.epsilon_ == net.epsilon_ > net.privacy_report_["epsilon_this_call"]
    # the accountant records each call's own plan, the report the composition of all three
    assert [s.epsilon for s in acc.spends] == [net.privacy_report_["epsilon_this_call"]] * 3


def test_labels_read_from_y_are_a_caveat_and_declared_classes_are_checked():
    X, y = small_data(n=50)
    kw = dict(module__n_in=5, module__n_out=3, max_epochs=1, batch_size=10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        net = DPLSSGDNeuralNetClassifier(MLP, **kw).fit(X, y)
    (leak,) = [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    assert "classes=None" in str(leak.message)
    assert net.privacy_report_.caveat_codes == ["labels_from_data"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)  # (50 rows: a UtilityWarning)
        net = DPLSSGDNeuralNetClassifier(MLP, classes=["a", "b", "c"], **kw).fit(X, y)
    assert net.privacy_report_["caveats"] == [] and list(net.classes_) == ["a", "b", "c"]
    with pytest.raises(ValueError, match=r"classes=\['a', 'b'\]"):
        DPLSSGDNeuralNetClassifier(MLP, classes=["a", "b"], **kw).fit(X, y)


def test_train_split_caveat_comes_from_the_vocabulary():
    from skorch.dataset import ValidSplit

    X, y = small_data(n=60)
    net = DPLSSGDNeuralNetClassifier(MLP, module__n_in=5, module__n_out=3, max_epochs=1,
                                     batch_size=10, classes=[0, 1, 2],
                                     train_split=ValidSplit(3)).fit(X, y)
    assert net.privacy_report_.caveat_codes == ["validation_rows_unprotected"]


def test_changing_the_noise_between_calls_composes_both():
    X, y = small_data(n=50)
    net = DPLSSGDNeuralNetClassifier(MLP, module__n_in=5, module__n_out=3, max_epochs=1,
                                     noise_multiplier=1.5, batch_size=10, random_state=0,
                                     n_samples_public=True)
    net.partial_fit(X, y)
    net.set_params(noise_multiplier=3.0)
    net.partial_fit(X, y)
    one = dpsgd_epsilon(1.5, 0.2, 5, 1e-5, accounting="pld")
    other = dpsgd_epsilon(3.0, 0.2, 5, 1e-5, accounting="pld")
    assert other < one < net.epsilon_
    assert net.epsilon_ < one + other  # RDP beats adding up


# --- data handling, reproducibility, sampling ------------------------------------------------


def test_same_random_state_gives_identical_weights():
    X, y = small_data(n=60)
    kw = dict(module__n_in=5, module__n_out=3, max_epochs=2, noise_multiplier=1.0,
              batch_size=15, module__dropout=0.3)

    def weights(seed):
        net = DPLSSGDNeuralNetClassifier(MLP, random_state=seed, **kw).fit(X, y)
        return [p.detach().clone() for p in net.module_.parameters()]

    state = torch.random.get_rng_state()
    a, b, c = weights(0), weights(0), weights(1)
    for p, q in zip(a, b, strict=True):
        torch.testing.assert_close(p, q, rtol=0, atol=0)
    assert any(not torch.equal(p, q) for p, q in zip(a, c, strict=True))
    assert torch.equal(torch.random.get_rng_state(), state)  # the global generator is restored


def test_random_state_none_gives_different_noise():
    X, y = small_data(n=60)
    module = MLP(n_in=5, n_out=3)
    kw = dict(max_epochs=1, noise_multiplier=1.0, batch_size=15)
    a = DPLSSGDNeuralNetClassifier(module, **kw).fit(X, y)
    b = DPLSSGDNeuralNetClassifier(module, **kw).fit(X, y)
    assert not torch.equal(a.module_.layers[0].weight, b.module_.layers[0].weight)


def test_module_instance_is_not_trained_in_place():
    X, y = small_data(n=60)
    module = MLP(n_in=5, n_out=3)
    before = [p.detach().clone() for p in module.parameters()]
    net = DPLSSGDNeuralNetClassifier(module, max_epochs=1, noise_multiplier=1.0, random_state=0)
    first = [p.detach().clone() for p in net.fit(X, y).module_.parameters()]
    second = [p.detach().clone() for p in net.fit(X, y).module_.parameters()]
    for p, q, r in zip(before, module.parameters(), first, strict=True):
        assert torch.equal(p, q) and not torch.equal(p, r)
    for p, q in zip(first, second, strict=True):
        assert torch.equal(p, q)


def test_poisson_batches_and_empty_batches():
    X, y = small_data(n=50)
    sizes = []

    class Recorder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = MLP(n_in=5, n_out=3)

        def forward(self, X):
            return self.inner(X)

    from skorch.callbacks import Callback

    class BatchSizes(Callback):
        def on_batch_begin(self, net, batch=None, training=False, **kwargs):
            sizes.append(0 if batch is None else len(batch[0]))

    net = DPLSSGDNeuralNetClassifier(Recorder, max_epochs=15, batch_size=1, noise_multiplier=1.0,
                                     callbacks=[BatchSizes()], random_state=0,
                                     n_samples_public=True).fit(X, y)
    assert len(sizes) == net.n_steps_ == 15 * 50
    counts = np.bincount(sizes)
    # Binomial(50, 1/50): about 36.4 % empty batches, 37.2 % of size one.
    assert 0.30 < counts[0] / len(sizes) < 0.43
    assert 0.31 < counts[1] / len(sizes) < 0.44
    assert max(sizes) > 2


def test_dict_input_and_lazy_layers():
    class TwoInputs(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.LazyLinear(4)
            self.b = torch.nn.LazyLinear(4)
            self.out = torch.nn.Linear(4, 2)

        def forward(self, left, right):
            return self.out(torch.tanh(self.a(left) + self.b(right)))

    rng = np.random.default_rng(0)
    X = {"left": rng.normal(size=(40, 3)), "right": rng.normal(size=(40, 6))}
    y = rng.integers(0, 2, size=40)
    net = DPLSSGDNeuralNetClassifier(TwoInputs, max_epochs=2, noise_multiplier=1.0,
                                     batch_size=10, random_state=0,
                                     n_samples_public=True).fit(X, y)
    assert net.sample_rate_ == 0.25  # 40 rows, not 2 keys
    assert net.predict_proba(X).shape == (40, 2)
    assert net.module_.a.weight.shape == (4, 3)


def test_regressor_beats_a_constant():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(3000, 4)).astype(np.float32)
    y = (np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=3000))
    y = y.astype(np.float32).reshape(-1, 1)
    reg = DPLSSGDNeuralNetRegressor(MLP, module__n_in=4, module__hidden=32, module__n_out=1,
                                    epsilon=2.0, max_epochs=10, random_state=0)
    assert reg.lr == "auto"
    reg.fit(X[:2000], y[:2000])
    assert reg.predict(X[2000:]).shape == (1000, 1)
    assert reg.score(X[2000:], y[2000:]) > 0.7  # a constant scores 0
    assert reg.epsilon_ <= 2.0


def test_regressor_reads_a_1d_target_as_one_column():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(200, 3))
    y = X[:, 0] - X[:, 1]  # float64, 1-d
    reg = DPLSSGDNeuralNetRegressor(MLP, module__n_in=3, module__n_out=1, max_epochs=2,
                                    noise_multiplier=1.0, random_state=0).fit(X, y)
    assert reg.predict(X).shape == (200, 1)
    assert np.isfinite(reg.predict(X)).all()


def test_found_by_all_estimators():
    from skprivate.utils import all_estimators

    names = {name for name, _ in all_estimators()}
    assert {"DPLSSGDNeuralNetClassifier", "DPLSSGDNeuralNetRegressor"} <= names


def test_classifier_outputs_probabilities():
    X, y = small_data(n=40)
    net = DPLSSGDNeuralNetClassifier(MLP, module__n_in=5, module__n_out=3, max_epochs=1,
                                     noise_multiplier=1.0, random_state=0).fit(X, y)
    proba = net.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-5)
    assert isinstance(net.criterion_, torch.nn.CrossEntropyLoss)
    np.testing.assert_array_equal(net.predict(X), proba.argmax(axis=1))


# --- refusals, warnings, output ---------------------------------------------------------------


@pytest.mark.parametrize(
    "layer", [torch.nn.BatchNorm1d(8), torch.nn.InstanceNorm1d(8, track_running_stats=True)]
)
def test_batch_mixing_layers_are_refused(layer):
    module = torch.nn.Sequential(torch.nn.Linear(5, 8), layer, torch.nn.Linear(8, 3))
    X, y = small_data()
    net = DPLSSGDNeuralNetClassifier(module, noise_multiplier=1.0)
    with pytest.raises(ValueError, match=rf"{type(layer).__name__} at 'module_.1'.*GroupNorm"):
        net.fit(X, y)


def test_train_split_warns_once():
    from skorch.dataset import ValidSplit

    X, y = small_data(n=60)
    net = DPLSSGDNeuralNetClassifier(MLP, module__n_in=5, module__n_out=3, max_epochs=2,
                                     noise_multiplier=1.0, train_split=ValidSplit(3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        net.fit(X, y)
    privacy = [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    assert len(privacy) == 1
    assert "train_split" in str(privacy[0].message)
    assert "valid_loss" in net.history[-1]


def test_no_warning_without_seed_or_split():
    X, y = small_data(n=60)
    net = DPLSSGDNeuralNetClassifier(MLP, module__n_in=5, module__n_out=3, max_epochs=1,
                                     noise_multiplier=1.0, classes=[0, 1, 2],
                                     n_samples_public=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        net.fit(X, y)


def test_explicit_noise_with_a_private_count_says_epsilon_follows_the_count():
    # With a fixed noise, the training's epsilon follows the plan chosen from the noisy
    # count: no bound over every count, so the fit says so (and epsilon_ is this plan's).
    X, y = small_data(n=60)
    net = DPLSSGDNeuralNetClassifier(MLP, module__n_in=5, module__n_out=3, max_epochs=1,
                                     noise_multiplier=1.0, classes=[0, 1, 2])
    with pytest.warns(PrivacyLeakWarning, match="noise_multiplier=1.0 fixes the noise"):
        net.fit(X, y)
    assert "epsilon_from_count" in net.privacy_report_.caveat_codes


def test_verbose(capsys):
    X, y = small_data(n=60)
    kw = dict(module__n_in=5, module__n_out=3, max_epochs=2, noise_multiplier=1.0)
    DPLSSGDNeuralNetClassifier(MLP, **kw).fit(X, y)
    assert capsys.readouterr() == ("", "")
    DPLSSGDNeuralNetClassifier(MLP, verbose=1, **kw).fit(X, y)
    out = capsys.readouterr()
    assert "epsilon" in out.out and "train_loss" not in out.out  # skorch's epoch table
    assert "DPLSSGDNeuralNetClassifier steps" in out.err  # the bar over the steps


@pytest.mark.parametrize(
    "params, name",
    [
        ({"epsilon": -1.0}, "epsilon"),
        ({"epsilon": np.inf}, "epsilon"),
        ({"delta": 0.0}, "delta"),
        ({"smoothing": -0.5}, "smoothing"),
        ({"smoothing_order": 0}, "smoothing_order"),
        ({"smoothing_blocks": "rows"}, "smoothing_blocks"),
        ({"max_grad_norm": 0.0}, "max_grad_norm"),
        ({"noise_multiplier": -1.0}, "noise_multiplier"),
        ({"accounting": "moments"}, "accounting"),
        ({"batch_size": 0}, "batch_size"),
        ({"batch_size": 1000}, "batch_size"),
        ({"max_epochs": 0}, "max_epochs"),
        ({"lr": 0.0}, "lr"),
        ({"random_state": "seed"}, "random_state"),
        ({"accountant": 1.0}, "accountant"),
        ({"train_split": 0.2}, "train_split"),
        ({"iterator_train__shuffle": True}, "iterator_train__shuffle"),
    ],
)
def test_bad_parameters_are_named(params, name):
    X, y = small_data()
    net = DPLSSGDNeuralNetClassifier(MLP, module__n_in=5, module__n_out=3, **params,
                                     n_samples_public=True)
    with pytest.raises(ValueError, match=name):
        net.fit(X, y)


def test_train_step_outside_fit_is_refused():
    net = DPLSSGDNeuralNetClassifier(MLP).initialize()
    with pytest.raises(RuntimeError, match="fit or partial_fit"):
        net.train_step(None)


def test_constructor_stores_parameters_verbatim():
    acc = BudgetAccountant()
    net = DPLSSGDNeuralNetClassifier(MLP, epsilon=-3, accountant=acc, module__hidden=7)
    params = net.get_params(deep=False)
    assert params["epsilon"] == -3 and params["accountant"] is acc
    assert params["module__hidden"] == 7
    assert not any(name.startswith("_") for name in params)
    assert params["train_split"] is None and params["verbose"] == 0
    assert params["batch_size"] == "auto"


# --- scikit-learn's common checks ---------------------------------------------------------------


class LazyMLP(torch.nn.Module):
    """Input width from the data (a lazy layer), as the common checks vary it."""

    def __init__(self, n_out=3, hidden=8):
        super().__init__()
        self.layers = torch.nn.Sequential(
            torch.nn.LazyLinear(hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, n_out)
        )

    def forward(self, X):
        return self.layers(X)


# What skorch's nets themselves do not do, with the reason; none of these is a privacy
# matter, and each fails the same way for skorch.NeuralNetClassifier/Regressor.
# tests/test_common.py runs scikit-learn's common checks on the nets with these lists.
_SKORCH_FAILURES = {
    "check_no_attributes_set_in_init": (
        "skorch's NeuralNet.__init__ sets history_, initialized_ and virtual_params_, and "
        "stores prefixed parameters (module__*) as attributes"
    ),
    "check_estimators_dtypes": (
        "integer X goes to the module unconverted (skorch: integers may be embedding "
        "indices), and a Linear layer refuses it with a RuntimeError"
    ),
    "check_complex_data": "complex X reaches the module, which raises a RuntimeError",
    "check_dtype_object": "object arrays cannot become tensors (TypeError from torch)",
    "check_requires_y_none": "y=None fails inside skorch with its own message",
    "check_supervised_y_2d": "skorch passes 2-d y to the criterion as it is",
}
_CLASSIFIER_FAILURES = {
    **_SKORCH_FAILURES,
    "check_classifier_data_not_an_array": (
        "skorch takes arrays, tensors, dicts and Datasets; an object with only __array__ "
        "has no length to plan the privacy spend from"
    ),
    "check_classifiers_train": "skorch reads a Python list X as one input per element",
    "check_classifiers_classes": (
        "skorch needs y as int64 indices of the module's outputs; string labels cannot "
        "become tensors"
    ),
}
_REGRESSOR_FAILURES = {
    **_SKORCH_FAILURES,
    "check_regressor_data_not_an_array": _CLASSIFIER_FAILURES[
        "check_classifier_data_not_an_array"
    ],
    "check_regressors_train": "skorch reads a Python list X as one input per element",
    "check_regressors_no_decision_function": "skorch defines predict_proba on every net",
}


# --- the "auto" plan and the tail average ----------------------------------------------------


def _auto_plan(net):
    return (net.lr_, net.noise_multiplier_, net.sample_rate_, net.n_steps_, net.n_iter_,
            net.epsilon_)


def test_auto_plan_reads_only_public_numbers_and_follows_its_rule():
    # Two data sets of the same shape, one with values a thousand times larger: the same plan.
    rng = np.random.default_rng(0)
    X1, y1 = small_data(n=300)
    X2 = (1000 * rng.normal(size=X1.shape)).astype(np.float32)
    y2 = rng.integers(0, 3, size=len(y1))
    kw = dict(module__n_in=5, module__n_out=3, classes=[0, 1, 2], random_state=0)
    plans = [_auto_plan(DPLSSGDNeuralNetClassifier(MLP, max_epochs=3, **kw,
                                                   n_samples_public=True).fit(X, y))
             for X, y in ((X1, y1), (X2, y2))]
    assert plans[0] == plans[1]
    net = DPLSSGDNeuralNetClassifier(MLP, **kw, n_samples_public=True)
    assert net.accounting == "pld" and net.smoothing == 0.0 and net.max_grad_norm == 0.3
    # batch max(128, n / 256) = 128 of 300 rows: 2 steps an epoch, 1,000 epochs = 2,000 steps
    plan = net._plan(300)
    assert plan.sample_rate == 128 / 300 and plan.n_steps == 2000
    assert net._epochs(300, "auto") == 1000
    lr = net._learning_rate(plan, 300)
    assert lr * 2000 * 0.3 == pytest.approx(0.04 * 300 * plan.epsilon)
    # what a fit reports and uses (3 epochs here, to keep the test fast)
    net = DPLSSGDNeuralNetClassifier(MLP, max_epochs=3, **kw, n_samples_public=True).fit(X1, y1)
    assert net.lr_ * net.n_steps_ * 0.3 == pytest.approx(0.04 * 300 * net.epsilon_)
    assert net.optimizer_.param_groups[0]["lr"] == net.lr_
    assert net.privacy_report_["learning_rate"] == net.lr_
    assert "after step 3 of 6" in net.privacy_report_["average"]


def test_auto_learning_rate_grows_with_epsilon_and_explicit_values_win():
    X, y = small_data(n=300)
    kw = dict(module__n_in=5, module__n_out=3, classes=[0, 1, 2], random_state=0,
              max_epochs=2)
    rates = [DPLSSGDNeuralNetClassifier(MLP, epsilon=e, **kw).fit(X, y).lr_ for e in (0.5, 2)]
    assert rates[0] < rates[1]
    net = DPLSSGDNeuralNetClassifier(MLP, lr=0.7, **kw).fit(X, y)
    assert net.lr_ == 0.7 and net.optimizer_.param_groups[0]["lr"] == 0.7
    # partial_fit on more rows re-plans the "auto" rate for that call
    net = DPLSSGDNeuralNetClassifier(MLP, **kw).fit(X[:150], y[:150])
    first = net.lr_
    net.partial_fit(X, y)
    assert net.lr_ != first and net.optimizer_.param_groups[0]["lr"] == net.lr_


class _Iterates(Callback):
    def on_train_begin(self, net, **kwargs):
        self.iterates = []

    def on_batch_end(self, net, **kwargs):
        self.iterates.append([p.detach().clone() for p in net.module_.parameters()])


@pytest.mark.parametrize("average", ["auto", True, False])
def test_returned_weights_are_the_tail_average_of_the_iterates(average):
    X, y = small_data(n=60)
    recorder = _Iterates()
    net = DPLSSGDNeuralNetClassifier(MLP, module__n_in=5, module__n_out=3, classes=[0, 1, 2],
                                     max_epochs=4, batch_size=20, noise_multiplier=1.0,
                                     average=average, callbacks=[recorder], random_state=0,
                                     n_samples_public=True)
    net.fit(X, y)
    steps = len(recorder.iterates)
    assert steps == net.n_steps_ == 12
    start = {"auto": steps // 2, True: 0, False: steps - 1}[average]
    for i, p in enumerate(net.module_.parameters()):
        expected = torch.stack([it[i] for it in recorder.iterates[start:]]).mean(0)
        assert torch.allclose(p.detach(), expected, atol=1e-6)
    if average is not False:  # not the last iterate
        assert not torch.allclose(next(net.module_.parameters()).detach(),
                                  recorder.iterates[-1][0])


# --- inputs and gradients of any finite magnitude -------------------------------------------


def test_a_huge_gradient_is_clipped_like_any_other():
    # A linear layer's weight gradient is (softmax - onehot) x^T: about 1e30 for an input of
    # 1e30 (finite in float32), whose squares overflow float32. The old norm was inf, the
    # clip factor 0, and the example's contribution 0 (or NaN where a coordinate was inf).
    # It must be clipped to norm C, in the direction of the same example's gradient at 1e20.
    torch.manual_seed(0)
    module = torch.nn.Linear(3, 2)
    params = {n: p.detach() for n, p in module.named_parameters()}
    criterion = torch.nn.CrossEntropyLoss()
    x = torch.tensor([[1.0, -2.0, 0.5]])
    wrong = torch.argmin(module(x)).reshape(1)  # the residual is not 0 for the true class

    def clipped(size):
        got, _, _, norms = clipped_gradient_sum(
            module, params, {}, size * x, wrong,
            example_loss=lambda out, t, _: criterion(out, t), max_grad_norm=0.5,
        )
        return torch.cat([g.ravel() for g in got.values()]), norms

    reference, _ = clipped(1e20)
    got, norms = clipped(1e30)
    assert torch.isfinite(got).all() and torch.isfinite(norms).all()
    assert float(got.norm()) == pytest.approx(0.5, rel=1e-5)
    torch.testing.assert_close(got, reference, atol=1e-6, rtol=1e-4)


def test_an_example_whose_gradient_overflows_contributes_zero():
    # An inf input (the module overflowed on a value beyond its dtype) makes the example's
    # gradient NaN: it contributes nothing, the others are clipped as usual.
    torch.manual_seed(0)
    module = MLP(n_in=3, hidden=4, n_out=2)
    params = {n: p.detach() for n, p in module.named_parameters()}
    criterion = torch.nn.CrossEntropyLoss()
    X = torch.tensor([[1.0, -2.0, 0.5], [float("inf"), 0.0, 0.0]])

    def clipped(X, y):
        got, _, _, norms = clipped_gradient_sum(
            module, params, {}, X, y,
            example_loss=lambda out, t, _: criterion(out, t), max_grad_norm=0.5,
        )
        return got, norms

    both, norms = clipped(X, torch.tensor([1, 0]))
    alone, _ = clipped(X[:1], torch.tensor([1]))
    assert not torch.isfinite(norms[1])
    for name in both:
        torch.testing.assert_close(both[name], alone[name])


@pytest.mark.parametrize("value, where", [(1e200, slice(None)), (-1e300, 1)])
def test_a_fit_with_a_value_beyond_float32_is_finite(value, where):
    # float64 values above float32's range are clamped to it when cast for the module; the
    # model stays finite (before: NaN on every fit with such a row) and predicts on them.
    X, y = small_data(d=3)
    X = X.astype(np.float64)
    X[0, where] = value
    net = DPLSSGDNeuralNetClassifier(MLP, module__n_in=3, module__hidden=4, module__n_out=3,
                                     max_epochs=2, noise_multiplier=1.0, random_state=0)
    net.fit(X, y)
    weights = torch.cat([p.detach().ravel() for p in net.module_.parameters()])
    assert torch.isfinite(weights).all()
    assert np.isfinite(net.predict_proba(X)).all()


# --- the number of rows is private: each call plans on a noisy count (finding 3) ----------


def test_row_count_net_plans_and_divides_on_a_noisy_count():
    # Old code: sample_rate_ = 10 / 50 whatever the seed (n published exactly), and the
    # noisy sum divided by 10 / 50 x 50.
    X, y = small_data(n=50)
    divisors = []

    class Divisor(Callback):
        def on_batch_end(self, net, **kwargs):
            divisors.append(net._dp_run_.divisor)

    kw = dict(module__n_in=5, module__n_out=3, max_epochs=1, noise_multiplier=1.5,
              batch_size=10, epsilon=2.0)
    nets = [DPLSSGDNeuralNetClassifier(MLP, random_state=s, callbacks=[Divisor()], **kw)
            .fit(X, y) for s in range(4)]
    planned = [_planned_rows(net) for net in nets]
    assert len(set(planned)) > 1
    for net, m in zip(nets, planned, strict=True):
        batch = min(10, m)
        assert net.sample_rate_ == batch / m  # planned on the count, never on 50
        assert net.n_steps_ == epoch_steps(m, batch)
        expected = dpsgd_epsilon(1.5, batch / m, net.n_steps_, 1e-5, accounting="pld")
        assert net.epsilon_ == pytest.approx(0.1 + expected, rel=1e-12)
        assert net._privacy_spend_record.event is None
        assert net.privacy_report_["composition"].startswith("basic")
    # the expected batch size of the count's plan: rate x count, not rate x 50
    assert divisors == pytest.approx(
        [min(10, m) for net, m in zip(nets, planned, strict=True) for _ in range(net.n_steps_)]
    )
    public = DPLSSGDNeuralNetClassifier(MLP, random_state=0, n_samples_public=True, **kw)
    public.fit(X, y)
    assert public.sample_rate_ == 10 / 50
    assert "50, treated as public" in public.privacy_report_["number of rows"]


def test_row_count_calls_compose_by_basic_composition():
    # Each partial_fit call releases its own count and plans on it: the calls' parameters
    # were chosen from those counts, so their epsilons and deltas add.
    X, y = small_data(n=50)
    acc = BudgetAccountant()
    net = DPLSSGDNeuralNetClassifier(MLP, module__n_in=5, module__n_out=3, max_epochs=1,
                                     batch_size=10, epsilon=1.0, accountant=acc,
                                     random_state=0)
    net.partial_fit(X, y)
    first = net.epsilon_
    assert first <= 1.0
    net.partial_fit(X, y)
    this_call = net.privacy_report_["epsilon_this_call"]
    assert net.epsilon_ == pytest.approx(first + this_call, rel=1e-12)
    assert net.delta_ == pytest.approx(2e-5)
    assert net.privacy_report_["calls"] == 2
    # the accountant holds each call's reservation: the target, no event
    assert [(s.epsilon, s.delta, s.event) for s in acc.spends] == [(1.0, 1e-5, None)] * 2
