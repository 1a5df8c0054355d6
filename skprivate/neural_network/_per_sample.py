"""Per-example gradients of a torch module, clipped as one vector and summed.

This is the data-dependent part of a DP-SGD step, before any noise: for every example of
the batch, the gradient of its own loss with respect to *all* trainable parameters of the
module together, scaled to Euclidean norm at most ``C``, then summed. Adding or removing one
example changes the sum by one clipped gradient, so its L2 sensitivity is ``C`` (the
property the sampled Gaussian mechanism needs). Clipping tensor by tensor, as the DP-LSSGD
authors' code does, would give sensitivity ``C sqrt(K)`` for ``K`` tensors; clipping the
batch mean bounds nothing per example (DP-LSSGD user guide, "What the authors' code did").

The per-example gradients come from ``torch.func``: ``grad`` of the loss of one example
(the module called through ``functional_call`` on a batch of one), vectorised over the batch
with ``vmap``. Each example passes through the module on its own, so no layer can mix
examples (which is also why batch normalisation is refused by the estimators).
"""

import math
from collections.abc import Mapping

import torch
from torch.func import functional_call, grad, vmap

__all__ = []


def tree_map(fn, data):
    """Apply ``fn`` to every tensor in ``data`` (a tensor, or dicts/lists/tuples of them)."""
    if isinstance(data, torch.Tensor):
        return fn(data)
    if isinstance(data, Mapping):
        return {key: tree_map(fn, value) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return type(data)(tree_map(fn, value) for value in data)
    return data


def _drop_batch_of_one(t):
    # vmap stacks the per-example outputs of shape (1, ...) into (b, 1, ...).
    return t[:, 0] if t.ndim >= 2 and t.shape[1] == 1 else t


def clipped_gradient_sum(
    module,
    params,
    buffers,
    X,
    y,
    *,
    example_loss,
    max_grad_norm,
    fit_params=None,
    randomness="different",
    grid=None,
):
    """Sum over the batch of per-example gradients, each clipped to ``max_grad_norm``.

    Parameters
    ----------
    module : torch.nn.Module
        The network, in the mode (train/eval) it should run in.
    params : dict of str to Tensor
        The trainable parameters (detached), by name: the gradient is taken for these.
    buffers : dict of str to Tensor
        Every other tensor the module needs (buffers, frozen parameters).
    X : Tensor, or dict/list/tuple of Tensors
        The batch; every tensor has the examples along its first axis.
    y : Tensor or None
        The targets, examples along the first axis.
    example_loss : callable
        ``example_loss(y_pred, y_true, X)`` on a batch of one example, returning that
        example's loss as a scalar tensor.
    max_grad_norm : float
        Clipping norm ``C`` for the whole per-example gradient vector.
    fit_params : dict, default=None
        Extra keyword arguments for the module's ``forward`` (the same for every example).
    randomness : {"different", "same", "error"}, default="different"
        How random operations inside the module (dropout) behave under ``vmap``:
        ``"different"`` draws independently for every example, as a plain batched forward
        pass does.
    grid : tuple (gamma, bound) or None, default=None
        None: the sum is taken in the parameters' dtype. A power of two ``gamma`` and an
        int ``bound``: each clipped example is rounded to the grid ``gamma`` (an integer
        vector ``k_i``), an example whose ``||k_i||_2**2`` exceeds ``bound`` contributes
        zero, and the integer vectors are summed exactly (:func:`_grid_sum`).

    Returns
    -------
    grad_sum : dict of str to Tensor
        The sum of the clipped per-example gradients, shaped like ``params``; with a
        ``grid``, the exact int64 sum of the rounded examples, in grid units.
    losses : Tensor of shape (b,)
        Each example's (unclipped) loss, detached.
    y_pred : Tensor or structure of Tensors
        The module's output for the batch, detached.
    norms : Tensor of shape (b,)
        Each example's gradient norm before clipping.
    """
    fit_params = {} if fit_params is None else fit_params

    def loss_of_one(p, x, target):
        xb = tree_map(lambda t: t.unsqueeze(0), x)
        tb = tree_map(lambda t: t.unsqueeze(0), target)
        if isinstance(xb, Mapping):
            out = functional_call(module, (p, buffers), (), {**xb, **fit_params})
        else:
            out = functional_call(module, (p, buffers), (xb,), fit_params)
        value = example_loss(out, tb, xb)
        if value.ndim != 0:
            raise ValueError(
                "The loss of one example must be a scalar tensor; got shape "
                f"{tuple(value.shape)}. A custom get_loss must reduce over the example's "
                "outputs."
            )
        return value, (value.detach(), tree_map(torch.Tensor.detach, out))

    y_dim = 0 if isinstance(y, torch.Tensor) else None
    per_example = vmap(
        grad(loss_of_one, has_aux=True), in_dims=(None, 0, y_dim), randomness=randomness
    )
    grads, (losses, y_pred) = per_example(params, X, y)
    factors, norms, finite = _clip_factors(grads, losses.shape[0], max_grad_norm)
    if grid is not None:
        grad_sum = _grid_sum(grads, factors, finite, *grid)
        return grad_sum, losses, tree_map(_drop_batch_of_one, y_pred), norms
    grad_sum = {
        # where(), not a zero factor: 0 * inf is NaN.
        name: torch.tensordot(factors, torch.where(_along(finite, g), g, 0.0), dims=1)
        for name, g in grads.items()
    }
    return grad_sum, losses, tree_map(_drop_batch_of_one, y_pred), norms


def _along(per_example, g):
    """A per-example tensor of shape (b,) shaped to broadcast against ``g`` of shape (b, ...)."""
    return per_example.reshape((-1,) + (1,) * (g.ndim - 1))


def _grid_sum(grads, factors, finite, gamma, bound):
    """Exact int64 sum of the clipped examples rounded to the grid ``gamma``, in grid units.

    Why per example. The secure release (:mod:`._private_step`) adds integer noise to this
    sum, and its guarantee needs the sum *as computed* to change by at most ``L`` grid units
    (L2) when one example is added or removed. A floating-point sum (float32 on the device,
    or float64) cannot promise that: adding one example changes the rounding of every other
    term, by up to about ``b u sum_i ||g_i||`` (Higham 2002, Section 4.2), and the batch size
    ``b`` is private and unbounded. Here no sum of examples is rounded: each example's
    clipped gradient becomes the integer vector ``k_i = floor(c_i g_i / gamma + 1/2)``,
    exactly for the stored ``c_i`` and ``g_i`` (a product of two float32 numbers and a power
    of two is exact in float64, and so are ``+ 1/2`` and ``floor``), an example is kept only
    if ``||k_i||_2**2 <= bound`` (``bound = floor(L**2) < 2**52``, decided exactly, below),
    and the kept vectors are added exactly. One example therefore moves the sum by one kept
    ``k_i``, of norm at most ``L``, whatever the others are. A clipped example passes:
    ``||k_i|| <= ||c_i g_i|| / gamma + sqrt(d) / 2`` (each coordinate moves by at most
    1/2), and ``L = max_grad_norm / gamma + ceil(sqrt(d))`` leaves ``sqrt(d) / 2`` grid
    units, a relative ``2**-12`` or more of ``max_grad_norm``, for the float error of the
    clipping (a few units in the last place); an example beyond it is dropped, a rule
    applied to each example on its own, as for a non-finite gradient.

    Exactness in float64. Every ``k_ij`` is an integer. A square ``k_ij**2 <= 2**53`` is
    exact, a larger one is at least ``2**53`` as computed (rounding is monotone); sums of
    such non-negative terms, in any order, are exact while the true sum is at most ``2**53``
    and at least ``2**53`` otherwise, so ``squares <= bound`` is decided exactly. The kept
    vectors have ``|k_ij| <= L < 2**26``, so their sum over fewer than ``2**27`` examples
    never leaves the integers that float64 holds exactly (larger batches are summed in
    int64).
    """
    if factors.device.type == "mps":  # Apple's GPUs have no float64: round on the CPU
        grads = {name: g.cpu() for name, g in grads.items()}
        factors, finite = factors.cpu(), finite.cpu()
    n = factors.shape[0]
    all_finite = bool(finite.all())
    per_unit = factors.to(torch.float64) / gamma  # exact: gamma is a power of two
    rounded, squares = {}, None
    for name, g in grads.items():
        if not all_finite:
            g = torch.where(_along(finite, g), g, 0.0)
        k = g.reshape(n, -1).to(torch.float64).mul_(per_unit[:, None]).add_(0.5).floor_()
        square = (k * k).sum(dim=1)
        squares = square if squares is None else squares + square
        rounded[name] = k
    keep = finite & (squares <= bound)
    if n < 2**27:
        weights = keep.to(torch.float64)
        return {name: (weights @ k).to(torch.int64).reshape(grads[name].shape[1:])
                for name, k in rounded.items()}
    return {name: k[keep].to(torch.int64).sum(dim=0).reshape(grads[name].shape[1:])
            for name, k in rounded.items()}  # pragma: no cover - batches of 2**27 rows


def _clip_factors(grads, n, max_grad_norm):
    """``(factors, norms, finite)``: ``min(1, C / ||g_i||)`` for each example's whole gradient.

    Without overflow and without ``0 * inf``, for a gradient of any magnitude: in float32 the
    sum of squares overflows from a coordinate of about 1.8e19 on (an input of 1e30 is enough),
    and an infinite norm made the factor 0 and the example's contribution ``0 * g``, NaN as
    soon as one coordinate of ``g`` is inf. The norm is taken of ``g_i / m_i`` (``m_i`` the
    largest magnitude in ``g_i``), so ``||g_i|| = m_i ||g_i / m_i||`` and the factor
    ``(C / ||g_i / m_i||) / m_i`` are formed without squaring anything above 1. An example
    whose gradient is not finite (the module overflowed on it, or its target did) contributes
    zero: a rule applied to each example on its own, so the clipped sum still changes by at
    most ``C`` when one example is added or removed (its ``norms`` entry is inf).
    """
    flat = [g.reshape(n, -1) for g in grads.values()]
    finite = torch.stack([torch.isfinite(f).all(dim=1) for f in flat]).all(dim=0)
    largest = torch.stack([f.abs().amax(dim=1) for f in flat if f.shape[1]]).amax(dim=0)
    largest = torch.where(finite & (largest > 0), largest, torch.ones_like(largest))
    unit_sq = sum((torch.where(finite[:, None], f, 0.0) / largest[:, None]).pow(2).sum(dim=1)
                  for f in flat)
    unit = unit_sq.sqrt()  # ||g_i / m_i||: 1 to sqrt(n_params), 0 for a zero gradient
    # (C / 0) / m = inf for a zero gradient: the clamp gives 1, and 1 * 0 = 0.
    factors = ((max_grad_norm / unit) / largest).clamp(max=1.0)
    factors = torch.where(finite, factors, torch.zeros_like(factors))
    norms = torch.where(finite, largest * unit, torch.full_like(unit, float("inf")))
    return factors, norms, finite
