"""The private step of a DP-LSSGD net: where the private rows meet the model in training.

One training step (Wang, Gu, Boedihardjo, Barekat and Osher, "DP-LSSGD", 2019, without the
defects listed in the DP-LSSGD user guide, "What the authors' code did"), in
:meth:`_PrivateStepMixin.train_step_single`:

1. The batch is a Poisson sample: every training row independently with probability ``q``
   (the training iterator, :class:`~skprivate.neural_network._sampling.PoissonBatchSampler`).
2. Each example's gradient of the loss with respect to all trainable parameters together is
   clipped to Euclidean norm ``C`` (``torch.func``: ``_per_sample.clipped_gradient_sum``).
3. The clipped gradients are summed, ``N(0, (z C)^2)`` is added to every coordinate, and the
   result is divided by the expected batch size ``q n``. By default
   (``set_config(secure_noise=True)``) without floating-point noise: each clipped example
   is rounded to the power-of-two grid of
   :func:`~skprivate.mechanisms.rounded_gaussian_plan` and the integer vectors are summed
   exactly (:func:`._per_sample._grid_sum`, which says why the sum is not taken in
   float32), and exact rounded Gaussian integer noise, drawn from the fit's generator on
   the CPU in batches of steps (:class:`~skprivate._dpsgd._release.SecureGaussianRelease`),
   is added (:func:`_rounded_release`): the linear models' release, on an integer sum.
   Under ``secure_noise=False`` the noise is floating-point, as it always was: drawn
   through the fit's NumPy generator when it is cryptographic (ChaCha20, the default for
   ``random_state=None``; :func:`_gaussian_noise`), and by ``torch.randn`` from a torch
   generator seeded from the fit's generator otherwise (an int ``random_state`` or
   ``set_config(secure_generator=False)``).
4. Each parameter tensor (or their concatenation) is smoothed with
   ``(I + (-1)^p sigma L^p)^{-1}`` and becomes the parameter's ``.grad``.
5. The optimizer steps (momentum, weight decay, Adam's moments: all allowed).

Privacy (add/remove-one-row neighbours): steps 1-3 are the sampled Gaussian mechanism of
Mironov, Talwar and Zhang (2019), with sensitivity ``C``, rate ``q`` and noise multiplier
``z`` (with secure noise, on the integer sum, of sensitivity ``L`` grid units, followed by
rounding: a post-processing of it, :func:`_rounded_release`); ``T`` steps compose
(accounted in RDP or PLD with dp-accounting; the runs of several calls in
:mod:`skprivate._dpsgd._runs`). Steps 4-5 use only the noisy sum and public
values, so by the post-processing property (Dwork and Roth 2014, Prop. 2.1; the "DP-LSSGD -
Recap" slide of Osher's talk) they cost nothing more, whatever the smoothing and the
optimizer; so does the average of the iterates. The privacy step is part of the net's own
``train_step``, not a callback that could be left out.
"""

import contextlib
import math

import numpy as np
import torch
from skorch.dataset import unpack_data
from skorch.utils import TeeGenerator, to_tensor

from .._dpsgd._release import SecureGaussianRelease
from .._dpsgd._runs import Run
from ..mechanisms import rounded_gaussian_plan
from ..mechanisms._rng import is_cryptographic
from ._per_sample import clipped_gradient_sum

__all__ = []


@contextlib.contextmanager
def _seeded_torch_rng(device, seed):
    """Seed torch's global generators for the fit only, and restore them afterwards.

    Weight initialisation and dropout draw from torch's global generators; seeding them
    from the fit's generator makes ``random_state`` govern them too, without changing the
    state the user's own code sees after the fit.
    """
    dev = torch.device(device) if device is not None else torch.device("cpu")
    cuda = []
    if dev.type == "cuda":
        cuda = [dev.index if dev.index is not None else torch.cuda.current_device()]
    with torch.random.fork_rng(devices=cuda):
        torch.default_generator.manual_seed(seed)
        for index in cuda:
            with torch.cuda.device(index):
                torch.cuda.manual_seed(seed)
        yield


class _Run(Run):
    """A net's run: the DP-SGD run ledger plus the torch state of the step."""

    def __init__(self, plan, n_samples, rng, generator, smoother, release=None):
        super().__init__(plan, n_samples, rng)
        # The secure release (a SecureGaussianRelease, set_config(secure_noise=True)) or None
        # for the floating-point noise of _gaussian_noise; its grid is set at the first step,
        # once lazy parameters have their size (_secure_grid).
        self.release = release if isinstance(release, SecureGaussianRelease) else None
        self.grid = None
        # The noise's torch generator, seeded from rng; None when rng is cryptographic: the
        # noise is then drawn through rng itself, never through torch's statistical
        # generators (MT19937 on the CPU, Philox on CUDA), whose state follows from outputs.
        self.generator = None if is_cryptographic(rng) else generator
        self.smoother = smoother
        self.divisor = plan.sample_rate * n_samples
        self.reduction = None
        self.average_sum = None
        self.average_count = 0


def _gaussian_noise(run, like):
    """Standard normal noise shaped, typed and placed like the tensor ``like``.

    From the fit's cryptographic NumPy generator (drawn on the CPU, in float64 for a float64
    tensor and in float32 otherwise, then moved to the device) when the run has no torch
    generator; from ``torch.randn`` with the run's torch generator otherwise.
    """
    if run.generator is not None:
        return torch.randn(like.shape, generator=run.generator, device=like.device,
                           dtype=like.dtype)
    dtype = np.float64 if like.dtype == torch.float64 else np.float32
    draw = run.rng.standard_normal(tuple(like.shape), dtype=dtype)
    return torch.from_numpy(draw).to(device=like.device, dtype=like.dtype)


# Above this many grid units a clipped example's squared norm is no longer decided exactly
# in float64 (see _per_sample._grid_sum): 2**26 grid units is max_grad_norm / gamma for a
# noise multiplier near 3e-5 or a billion parameters.
_MAX_LATTICE = 2**26


def _secure_grid(run, max_grad_norm, n_params):
    """``(gamma, bound)`` of the rounded Gaussian release of a step of ``n_params`` numbers.

    The plan is :func:`~skprivate.mechanisms.rounded_gaussian_plan` for sensitivity
    ``max_grad_norm``, the run's noise multiplier and dimension ``n_params``: the very plan
    the run's :class:`~skprivate._dpsgd._release.SecureGaussianRelease` computes for the
    same three numbers, so its grid and its lattice sensitivity ``L`` are those below.
    ``bound = floor(L**2)``: an integer vector has ``||k||_2 <= L`` iff ``||k||_2**2 <=
    bound``.
    """
    if run.grid is None or run.grid[2] != n_params:
        plan = rounded_gaussian_plan(max_grad_norm, float(run.plan.noise_multiplier), n_params)
        lattice = plan.lattice_sensitivity
        if lattice >= _MAX_LATTICE:
            raise ValueError(
                f"noise_multiplier={float(run.plan.noise_multiplier):.3g} with {n_params} "
                f"trainable parameters needs a grid of {float(lattice):.3g} units per clipped "
                "gradient, beyond the 2**26 the secure noise decides exactly. Raise the noise "
                "(a smaller epsilon or a larger noise_multiplier), or use "
                "skprivate.set_config(secure_noise=False)."
            )
        bound = math.floor(lattice * lattice)
        run.grid = (plan.gamma, bound, n_params)
    return run.grid[:2]


def _rounded_release(run, grad_sum, max_grad_norm, like):
    """The rounded Gaussian release of a step's integer sum, back in tensors like ``like``.

    ``grad_sum`` holds the exact int64 sum of the rounded clipped examples, in units of the
    grid ``gamma`` (:func:`._per_sample._grid_sum`), so ``gamma * k`` is the statistic on
    the grid, exactly (an integer of at most 53 bits times a power of two). The run's
    :class:`~skprivate._dpsgd._release.SecureGaussianRelease` rounds it to the same grid
    (the identity here) and adds the exact rounded Gaussian integer noise, drawn on the CPU
    in batches for the steps of the run: ``gamma * (k + round(X))`` with ``X ~ N(0, S I)``,
    ``S >= (z L)**2``. This is ``gamma * round(k + X)``, a post-processing of the Gaussian
    mechanism with noise multiplier ``z`` on the integer statistic ``k`` of L2 sensitivity
    ``L`` (each example moves ``k`` by at most ``L``: ``_grid_sum``), Poisson-subsampled
    (Dwork and Roth 2014, Proposition 2.1; :func:`~skprivate.mechanisms.rounded_gaussian_plan`):
    the accounting of the continuous sampled Gaussian mechanism holds unchanged. The
    released float64 values are divided by the public expected batch size, cast to each
    parameter's dtype and moved to its device (for a CUDA module, ``.to(device)``).
    """
    gamma, _ = run.grid[:2]
    names = list(grad_sum)
    flat = torch.cat([grad_sum[name].reshape(-1) for name in names]).cpu().numpy()
    released = run.release(flat.astype(np.float64) * gamma, max_grad_norm,
                           float(run.plan.noise_multiplier), run.rng)
    released = torch.from_numpy(released)
    noisy, start = {}, 0
    for name in names:
        size = like[name].numel()
        part = released[start:start + size].reshape(like[name].shape)
        start += size
        # The division by the public expected batch size is post-processing too; it is done
        # on the CPU in float64, before the move (Apple's GPUs have no float64).
        noisy[name] = (part / run.divisor).to(like[name].dtype).to(like[name].device)
    return noisy


class _PrivateStepMixin:
    """The noisy, smoothed training step of a DP-LSSGD net (see the module docstring)."""

    def _active_run(self):
        run = getattr(self, "_dp_run_", None)
        if run is None:
            raise RuntimeError(
                f"{type(self).__name__}: training steps run only inside fit or partial_fit, "
                "which plan and account for the privacy spend; call one of those."
            )
        return run

    def _example_loss(self, y_pred, y_true, X):
        loss = self.get_loss(y_pred, y_true, X=X, training=True)
        if loss.ndim == 0:
            return loss
        # The criterion ran with reduction="none": reduce over this example's outputs the
        # way the criterion was configured to.
        return loss.sum() if self._dp_run_.reduction == "sum" else loss.mean()

    @contextlib.contextmanager
    def _criterion_per_example(self):
        criterion = getattr(self, "criterion_", None)
        reduction = getattr(criterion, "reduction", None)
        self._dp_run_.reduction = reduction
        if not isinstance(reduction, str):
            yield
            return
        # reduction="none" keeps per-class weights (CrossEntropyLoss(weight=...)), which a
        # mean over a batch of one would divide out again.
        criterion.reduction = "none"
        try:
            yield
        finally:
            criterion.reduction = reduction

    def train_step_single(self, batch, **fit_params):
        """Set each parameter's ``.grad`` to the smoothed noisy gradient of one batch.

        The only place where the private data meet the model during training: per-example
        gradients clipped to ``max_grad_norm`` as one vector, summed, plus Gaussian noise.

        Parameters
        ----------
        batch : tuple or None
            One Poisson batch from the training iterator; None for an empty batch (which
            still takes a step: noise only).
        **fit_params : dict
            Extra keyword arguments for the module's ``forward``.

        Returns
        -------
        step : dict
            ``{"loss": mean unclipped loss of the batch, "y_pred": module output}``, for
            callbacks only; neither is recorded in the history.
        """
        run = self._active_run()
        self._set_training(True)
        named = dict(self.module_.named_parameters())
        params = {name: p.detach() for name, p in named.items() if p.requires_grad}
        max_grad_norm = float(self.max_grad_norm)
        grid = None
        if run.release is not None:
            grid = _secure_grid(run, max_grad_norm, sum(p.numel() for p in params.values()))
        if batch is None:
            kind = {} if grid is None else {"dtype": torch.int64}
            grad_sum = {name: torch.zeros_like(p, **kind) for name, p in params.items()}
            loss, y_pred = torch.tensor(float("nan")), None
        else:
            Xi, yi = unpack_data(batch)
            Xi = self._as_module_input(Xi)
            yi = to_tensor(yi, device=self.device) if yi is not None else None
            constants = {name: p.detach() for name, p in named.items() if not p.requires_grad}
            constants.update(dict(self.module_.named_buffers()))
            with self._criterion_per_example():
                grad_sum, losses, y_pred, _ = clipped_gradient_sum(
                    self.module_,
                    params,
                    constants,
                    Xi,
                    yi,
                    example_loss=self._example_loss,
                    max_grad_norm=max_grad_norm,
                    fit_params=fit_params,
                    # Dropout draws a fresh mask for every example, as in a batched forward.
                    randomness="different",
                    grid=grid,
                )
            loss = losses.mean()
        if grid is not None:
            noisy = _rounded_release(run, grad_sum, max_grad_norm, params)
        else:
            noise_std = float(run.plan.noise_multiplier) * max_grad_norm
            noisy = {}
            for name, total in grad_sum.items():
                noise = _gaussian_noise(run, total)
                # Dividing by the expected batch size, a public number, keeps the step size
                # data-independent (dividing by the drawn batch size would make it private).
                noisy[name] = (total + noise_std * noise) / run.divisor
        run.steps += 1
        # From here on only the noisy sum and public values are used: post-processing (Dwork
        # and Roth 2014, Prop. 2.1; slide "DP-LSSGD - Recap"), so the smoothing and the
        # optimizer cost nothing beyond the sampled Gaussian mechanism above.
        smoothed = run.smoother(noisy)
        for name, g in smoothed.items():
            named[name].grad = g.to(named[name].dtype)
        return {"loss": loss, "y_pred": y_pred}

    def train_step(self, batch, **fit_params):
        """One DP-LSSGD step: the noisy smoothed gradient, then every optimizer's ``step()``.

        Optimizers are stepped without a closure: a closure would let them (LBFGS) evaluate
        the loss on the private batch again, outside the accounting.
        """
        self._zero_grad_optimizer()
        step = self.train_step_single(batch, **fit_params)
        self.notify(
            "on_grad_computed",
            named_parameters=TeeGenerator(self.get_all_learnable_params()),
            batch=batch,
            training=True,
        )
        for name in self._optimizers:
            getattr(self, name + "_").step()
        self._accumulate_average(self._active_run())
        return step

    def _accumulate_average(self, run):
        # The iterates are post-processing of the noisy steps: averaging them is free.
        if run.average_from is None or run.steps <= run.average_from:
            return
        with torch.no_grad():
            params = {
                name: p.detach() for name, p in self.module_.named_parameters() if p.requires_grad
            }
            if run.average_sum is None:
                run.average_sum = {name: p.clone() for name, p in params.items()}
            else:
                for name, p in params.items():
                    run.average_sum[name].add_(p)
        run.average_count += 1

    def _load_average(self, run):
        """Replace the trainable weights by the mean of the averaged iterates (if any)."""
        if run.average_sum is None:
            return
        named = dict(self.module_.named_parameters())
        with torch.no_grad():
            for name, total in run.average_sum.items():
                named[name].copy_(total / run.average_count)

