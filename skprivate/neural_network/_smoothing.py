"""Laplacian smoothing of parameter gradients in torch, on the gradients' own device.

The operator is the one of :mod:`skprivate.smoothing`: ``(I + (-1)^n sigma L^n)^{-1}`` with
``L`` the periodic one-dimensional Laplacian, applied as a division by its analytic symbol
in Fourier space. The symbol itself comes from :func:`skprivate.smoothing.smoothing_symbol`,
so the numpy and torch versions cannot drift apart; only the FFTs run in torch, which keeps
a CUDA gradient on the GPU.
"""

import torch

from ..smoothing import _check_sigma_order, smoothing_symbol

__all__ = []


def _inverse_symbol(m, sigma, order, like):
    """``1 / symbol`` for real FFTs of length ``m``, as a real tensor on ``like``'s device."""
    inverse = 1.0 / smoothing_symbol(m, sigma, order)
    return torch.as_tensor(inverse, dtype=like.dtype, device=like.device)


def laplacian_smooth_torch(g, sigma, order=1):
    """Apply ``(I + (-1)^order sigma L^order)^{-1}`` along the last axis of the tensor ``g``.

    The torch counterpart of :func:`skprivate.smoothing.laplacian_smooth` (same operator,
    same analytic symbol), computed with ``torch.fft`` on ``g``'s device and in its dtype.
    ``sigma == 0`` and vectors of length 1 are returned as an exact copy.
    """
    _check_sigma_order(sigma, order)
    m = g.shape[-1]
    if sigma == 0 or m <= 1 or g.numel() == 0:
        return g.clone()
    spectrum = torch.fft.rfft(g, dim=-1)
    return torch.fft.irfft(spectrum * _inverse_symbol(m, sigma, order, g), n=m, dim=-1)


class BlockSmoother:
    """Smooth a dict of gradient tensors block by block, with symbols computed once.

    ``"per_tensor"``: every tensor, flattened row-major (as the DP-LSSGD authors flatten a
    weight tensor), is one vector, so the periodic boundary never joins two tensors.
    ``"global"``: the tensors, in the order of the dict, are concatenated into one vector.
    Tensors of one element pass unchanged under ``"per_tensor"`` (the operator is the
    identity on length 1).
    """

    def __init__(self, sigma, order, blocks):
        _check_sigma_order(sigma, order)
        self.sigma = float(sigma)
        self.order = int(order)
        self.blocks = blocks
        self._symbols = {}

    def _inverse(self, m, like):
        key = (m, like.dtype, like.device)
        if key not in self._symbols:
            self._symbols[key] = _inverse_symbol(m, self.sigma, self.order, like)
        return self._symbols[key]

    def _smooth_vector(self, v):
        m = v.shape[-1]
        if m <= 1:
            return v
        return torch.fft.irfft(torch.fft.rfft(v) * self._inverse(m, v), n=m)

    def __call__(self, grads):
        """Return a new dict with every tensor of ``grads`` smoothed (the input is kept)."""
        if self.sigma == 0:
            return dict(grads)
        if self.blocks == "global":
            names = list(grads)
            flat = torch.cat([grads[name].reshape(-1) for name in names])
            smoothed = self._smooth_vector(flat)
            out, start = {}, 0
            for name in names:
                size = grads[name].numel()
                out[name] = smoothed[start : start + size].reshape(grads[name].shape)
                start += size
            return out
        return {
            name: self._smooth_vector(g.reshape(-1)).reshape(g.shape) for name, g in grads.items()
        }
