"""Per-row kernels of the linear DP-SGD step: losses' residuals, row norms, clipped sums.

Shared by the in-memory loop (:mod:`._numpy_loop`) and the Dask one (:mod:`._distributed`),
one floor below both. The privacy argument each kernel's bound serves is stated in
:mod:`._numpy_loop` and next to each kernel.
"""

import numpy as np
from scipy.special import expit

from ..utils._dask import is_dask_collection

__all__ = []


# --- losses: derivative of each example's loss with respect to its K outputs --------------
#
# Each function maps outputs F of shape (b, K) and encoded targets y of shape (b,) to the
# residuals R = dloss/dF of shape (b, K). The per-example gradient of the parameters
# (W of shape (K, d), intercept of shape (K,)) is then the outer product r_i x_i^T (and r_i).


def _log_loss_binary(F, y):
    # Logistic loss with one output: the softmax of two outputs with the first pinned at 0.
    return expit(F) - y[:, None]


def _log_loss_multinomial(F, y):
    F = F - F.max(axis=1, keepdims=True)  # overflow-free softmax
    P = np.exp(F)
    P /= P.sum(axis=1, keepdims=True)
    P[np.arange(len(y)), y] -= 1.0
    return P


def _hinge_binary(F, y):
    sign = 2.0 * y[:, None] - 1.0
    return np.where(sign * F < 1.0, -sign, 0.0)


def _hinge_weston_watkins(F, y):
    # sum_{j != y} max(0, 1 + F_j - F_y): every violated margin pushes F_j up and F_y down.
    rows = np.arange(len(y))
    active = (F - F[rows, y][:, None] + 1.0) > 0
    active[rows, y] = False
    R = active.astype(F.dtype)
    R[rows, y] = -active.sum(axis=1)
    return R


def _squared_error(F, y):
    return F - y[:, None]


def _huber(threshold):
    def residual(F, y):
        return np.clip(F - y[:, None], -threshold, threshold)

    return residual


def residual_function(loss, n_outputs, huber_threshold=None):
    """The residual function of ``loss`` for a model with ``n_outputs`` outputs."""
    if loss == "log_loss":
        return _log_loss_binary if n_outputs == 1 else _log_loss_multinomial
    if loss == "hinge":
        return _hinge_binary if n_outputs == 1 else _hinge_weston_watkins
    if loss == "squared_error":
        return _squared_error
    if loss == "huber":
        return _huber(float(huber_threshold))
    raise ValueError(f"Unknown loss {loss!r}.")  # pragma: no cover - validated before


# --- the data-dependent part of a step, without noise --------------------------------------
#
# Overflow. A finite row can be as large as the largest double (1.8e308), so nothing here
# squares a row or multiplies it by the coefficients as given: ``||x||^2`` overflows to inf
# from ``||x|| = 1.3e154`` on, and then ``0 * inf`` (a clip factor of 0, a residual of 0) is
# NaN, a model whose NaN-ness tells whether the row was in the data (an unbounded privacy
# loss). Each row is first divided by ``sigma_i = max(1, max_j |x_ij|)``, so every value
# that is squared or multiplied is at most ``1 + |offset|`` in magnitude, and the row's size
# ``sigma_i`` enters only through a ``min`` with the clip bound (``inf`` there is harmless,
# ``0 * inf`` never occurs).

# Outputs are kept within +-_MAX_OUTPUT: the difference of two of them (softmax, multiclass
# hinge) stays finite, and an output this large saturates every loss's residual anyway.
_MAX_OUTPUT = np.finfo(np.float64).max / 4


def squared_row_norms(X):
    """Squared Euclidean norm of each row of a dense array, a CSR matrix or a Dask array.

    ``inf`` for a row of norm above about ``1.3e154`` (the square overflows): only the
    histogram of :mod:`skprivate._dpsgd._private_scaling` reads these, and such a row belongs
    in its last bin (norms above ``2^30``) either way. A Dask array gives a lazy Dask array
    (chunked as the rows): nothing is computed here.
    """
    if is_dask_collection(X):
        return X.map_blocks(_squared_row_norms_block, drop_axis=1, dtype=np.float64)
    return _squared_row_norms_block(X)


def _squared_row_norms_block(X):
    with np.errstate(over="ignore"):  # inf is the right answer here (see above)
        if hasattr(X, "multiply"):
            return np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
        return np.einsum("ij,ij->i", X, X)


def _csr_row_reduce(ufunc, X, values):
    """``ufunc.reduce`` of ``values`` (aligned with ``X.data``) over each row of a CSR ``X``;
    0 for an empty row."""
    out = np.zeros(X.shape[0])
    starts = X.indptr[:-1][np.diff(X.indptr) > 0]
    if starts.size:  # consecutive non-empty rows' starts delimit their entries
        out[np.diff(X.indptr) > 0] = ufunc.reduceat(values[: X.indptr[-1]], starts)
    return out


def row_magnitudes(X):
    """``max(1, max_j |x_ij|)`` for each row of a dense array or a CSR matrix: finite for a
    finite row, and dividing the row by it leaves no entry above 1 in magnitude."""
    if hasattr(X, "multiply"):
        largest = _csr_row_reduce(np.maximum, X, np.abs(X.data))
    else:
        largest = np.max(np.abs(X), axis=1, initial=0.0)
    return np.maximum(largest, 1.0)


def divide_rows(X, sigma, in_place=False):
    """``X`` with row ``i`` divided by ``sigma[i]`` (in place when ``in_place``)."""
    if hasattr(X, "multiply"):
        X = X.tocsr(copy=not in_place)
        X.data /= np.repeat(sigma, np.diff(X.indptr))
        return X
    return np.divide(X, sigma[:, None], out=X if in_place else None)


def clipped_gradient_sum(
    X, y, coef, intercept, residual, max_grad_norm, fit_intercept, *, scale=1.0, shift=None,
    copy=True,
):
    """Sum over the rows of ``X`` of per-example gradients, each clipped to ``max_grad_norm``.

    The model is trained on the rows ``x' = scale x - shift`` (not formed: a CSR ``X`` stays
    sparse). The gradient of row ``i`` with respect to ``(coef, intercept)`` is
    ``(r_i x'_i^T, r_i)``, whose Euclidean norm is ``||r_i|| sqrt(||x'_i||^2 +
    fit_intercept)``; it is scaled by ``c_i = min(1, C / norm_i)`` and the clipped sum is a
    single product of the batch with the scaled residuals: no per-example loop.

    No step overflows for a finite row of any magnitude (see the comment above
    ``_MAX_OUTPUT``): with ``sigma_i = max(1, max_j |x_ij|)``, ``u_i = (x_i - shift / scale)
    / sigma_i`` (entries at most ``1 + |shift / scale|``), ``t_i = max_k |r_ik|`` and
    ``v_i = r_i / t_i``, the clipped gradient is ``w_i v_i (scale u_i, 1 / sigma_i)`` with
    ``w_i = min(t_i sigma_i, C / (||v_i|| ||(scale u_i, 1 / sigma_i)||))`` (that is,
    ``c_i t_i sigma_i``): every factor is finite, and the clipped gradient has norm at most
    ``C`` (the sensitivity the sampled Gaussian mechanism of the module docstring needs).

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (b, d)
        Finite rows, raw (before ``scale`` and ``shift``).
    y : ndarray of shape (b,)
        Encoded targets, as ``residual`` expects them.
    coef : ndarray of shape (K, d)
        Coefficients of the transformed rows ``x'``.
    intercept : ndarray of shape (K,)
    residual : callable
        From :func:`residual_function`.
    max_grad_norm : float
        Clipping norm ``C``.
    fit_intercept : bool
    scale : float, default=1.0
    shift : ndarray of shape (d,) or None, default=None
    copy : bool, default=True
        False lets the function divide the rows of ``X`` in place (a batch taken for it).

    Returns
    -------
    grad_coef : ndarray of shape (K, d)
        The clipped sum of the gradients with respect to the coefficients of ``x'``.
    grad_intercept : ndarray of shape (K,)
        Zero when ``fit_intercept`` is False.
    """
    K, d = coef.shape
    if X.shape[0] == 0:
        return np.zeros((K, d)), np.zeros(K)
    sigma = row_magnitudes(X)
    inv_sigma = 1.0 / sigma
    offset = None if shift is None else np.asarray(shift, dtype=np.float64) / scale
    sparse = hasattr(X, "multiply")
    if offset is not None and not sparse:
        # u_i formed, so that its norm has no cancellation; halved first, so that no
        # difference overflows: (x / 2 - offset / 2) / (sigma / 2), in place on a copy.
        U = np.multiply(X, 0.5, out=None if copy else X)
        U -= 0.5 * offset
        U /= 0.5 * sigma[:, None]
        offset = None
    else:
        U = divide_rows(X, sigma, in_place=not copy)
    # u_i . coef (finite), then sigma_i and scale: +-inf at worst, never NaN, and clipped.
    F = np.asarray(U @ coef.T)
    if offset is not None:
        F -= np.outer(inv_sigma, coef @ offset)
    with np.errstate(over="ignore"):
        F *= sigma[:, None]
        F *= scale
    if fit_intercept:
        F += intercept
    R = residual(np.clip(F, -_MAX_OUTPUT, _MAX_OUTPUT), y)
    # A squared error beyond the largest double (a target near it) saturates there.
    R = np.clip(R, -np.finfo(np.float64).max, np.finfo(np.float64).max)
    if sparse:
        u_sq = _csr_row_reduce(np.add, U, U.data * U.data)
        if offset is not None:  # ||u - o / sigma||^2 of a row that stays sparse
            cross = np.asarray(U @ offset).ravel()
            u_sq += inv_sigma * (inv_sigma * float(offset @ offset) - 2.0 * cross)
            u_sq = np.maximum(u_sq, 0.0)
    else:
        u_sq = np.einsum("ij,ij->i", U, U)
    row_norm = np.sqrt(scale * scale * u_sq + float(fit_intercept) * inv_sigma * inv_sigma)
    t = np.max(np.abs(R), axis=1)
    live = (t > 0) & (row_norm > 0)  # the others have a zero gradient
    V = np.zeros_like(R)
    V[live] = R[live] / t[live, None]
    v_norm = np.sqrt(np.einsum("ij,ij->i", V, V))
    w = np.zeros_like(t)
    with np.errstate(over="ignore"):  # t sigma = inf is the clipped case: the min is finite
        w[live] = np.minimum(t[live] * sigma[live],
                             max_grad_norm / (v_norm[live] * row_norm[live]))
    W = V * w[:, None]
    grad_coef = np.asarray(U.T @ W).T * scale
    if offset is not None:
        grad_coef -= np.outer(scale * (W.T @ inv_sigma), offset)
    grad_intercept = W.T @ inv_sigma if fit_intercept else np.zeros(K)
    return grad_coef, grad_intercept


def clipped_row_sums(X, clip_norm):
    """``(sum_i c_i x_i / R, sum_i ||c_i x_i||^2 / R^2)``, ``c_i = min(1, R / ||x_i||)``,
    ``R = clip_norm``, for a dense array or a CSR matrix of finite rows of any magnitude.

    Nothing overflows and no ``0 * inf`` occurs (the clipped squared norm used to be
    ``c_i^2 ||x_i||^2``, NaN for a row above about ``1.3e154``, where ``||x_i||^2`` is inf and
    ``c_i`` is 0): each row's norm is ``s_i ||x_i / s_i||`` with ``s_i`` the larger of 1
    and its largest magnitude (:func:`row_magnitudes`), each
    row's released vector keeps norm at most ``sqrt(2)`` (the Gaussian mechanism's
    sensitivity in the module docstring), the clipped norm
    ``min(||x_i||, R) / R`` is formed before it is squared, and ``c_i / R = min(1 / R,
    (1 / s_i) / ||x_i / s_i||)`` is finite and non-zero for a finite row (at worst a
    subnormal, for norms above 4.5e307), so every term ``c_i x_ij / R`` is at most 1.
    """
    s = row_magnitudes(X)
    inv_s = 1.0 / s
    unit_norm = np.sqrt(squared_row_norms(divide_rows(X, s)))  # in [0, sqrt(n_features)]
    with np.errstate(divide="ignore"):  # a zero row: 1 / 0 = inf, and the min picks 1 / R
        weight = np.minimum(1.0 / clip_norm, inv_s / unit_norm)
    with np.errstate(over="ignore"):  # s_i ||x_i / s_i|| / R = inf is clipped to 1
        clipped = np.minimum(s * unit_norm / clip_norm, 1.0)
    total = np.asarray(X.T @ weight).ravel()
    return total, float(np.sum(clipped * clipped))
