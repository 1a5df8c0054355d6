"""The noisy training loop shared by the DP-LSSGD linear estimators.

One step of the loop (Wang, Gu, Boedihardjo, Barekat and Osher, "DP-LSSGD", 2019, without the
defects listed in the DP-LSSGD user guide, "What the authors' code did"):

1. Poisson-sample a batch: each row independently with probability ``q``.
2. Compute each sampled row's gradient of the *whole* parameter vector (coefficients and
   intercepts together) and clip it to Euclidean norm ``C``.
3. Sum, add ``N(0, (z C)^2 I)``, divide by the expected batch size ``q n``.
4. Smooth with ``(I + (-1)^p sigma L^p)^{-1}``, per block (post-processing, see below).
5. Add the L2 penalty's gradient (data-independent, post-processing) and step.

Privacy (add/remove-one-row neighbours): steps 1-3 are the sampled Gaussian mechanism of
Mironov, Talwar and Zhang (2019): sensitivity ``C`` because one row changes the clipped sum by
one clipped gradient, rate ``q``, noise multiplier ``z``. Every later step, including the
smoothing, only transforms the noisy sum and public values (the current iterate, which is
itself a function of earlier noisy sums), so by the post-processing property of differential
privacy (Dwork and Roth 2014, Proposition 2.1; the "DP-LSSGD - Recap" slide of Osher's talk)
the whole run costs exactly what ``T`` steps of DP-SGD cost, for every smoothing strength.
The batch indices must stay secret for the subsampling amplification, so the key of the
batch sampler (:class:`skprivate._dpsgd._sampling.BlockPoissonSampler`) is drawn from the same
generator as the noise.

The data-dependent part of a step, the clipped-gradient sum of step 2, is a pluggable
``gradient_sum`` (:func:`memory_gradient_sum` for arrays in memory,
:func:`skprivate._dpsgd._distributed.dask_gradient_sum` for Dask arrays): both draw the batch
of step ``t`` from the same sampler, keyed by the same secret key, so that the rows sampled,
and hence the fit, are the same for the same seed (to the order in which floats are added).
Only the sum ever reaches the loop; the noise is added once, here.
"""

import numpy as np
from scipy.special import expit

from ..smoothing import _make_smoother
from ..utils._progress import progress
from ._distributed import is_dask_collection
from ._sampling import BlockPoissonSampler, draw_sampling_key

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


def memory_gradient_sum(
    X, y, *, key, sample_rate, residual, max_grad_norm, fit_intercept, scale, shift
):
    """The ``gradient_sum`` of :func:`run_dplssgd` for an in-memory ``X`` (array or CSR).

    Returns ``step_sum(step, coef, intercept)``: the clipped-gradient sum over the rows that
    :class:`~skprivate._dpsgd._sampling.BlockPoissonSampler` (``key``) samples at ``step``,
    each row's gradient taken at the rows ``scale x - shift`` and clipped there
    (:func:`clipped_gradient_sum`); ``coef`` and the returned sum are those of the
    transformed rows.
    """
    n_samples = X.shape[0]
    sampler = BlockPoissonSampler(key, n_samples, sample_rate)
    if isinstance(X, np.ndarray):

        def rows(idx):
            return X.take(idx, axis=0)
    else:
        rows = X.__getitem__

    def step_sum(step, coef, intercept):
        idx = sampler.indices(step)
        # The batch is a fresh copy: clipped_gradient_sum may scale its rows in place.
        return clipped_gradient_sum(
            rows(idx), y.take(idx), coef, intercept, residual, max_grad_norm, fit_intercept,
            scale=scale, shift=shift, copy=False,
        )

    return step_sum


def make_block_smoother(n_coef, n_params, sigma, order, blocks):
    """A function smoothing the flat gradient ``[coef.ravel(), intercept]`` in place, or None.

    ``"per_tensor"``: the coefficients (row-major, as the authors flatten a weight tensor)
    and the intercepts are separate vectors, so the periodic boundary never joins a weight to
    a bias. ``"global"``: one vector.
    """
    if sigma == 0:
        return None
    if blocks == "global":
        spans = [(0, n_params)]
    else:
        spans = [(0, n_coef), (n_coef, n_params)]
    parts = [(start, stop, _make_smoother(stop - start, sigma, order)) for start, stop in spans]
    parts = [part for part in parts if part[2] is not None]  # identity on length <= 1

    def smooth(flat):
        for start, stop, apply in parts:
            flat[start:stop] = apply(flat[start:stop])

    return smooth


def run_dplssgd(
    X,
    y,
    *,
    residual,
    n_outputs,
    sample_rate,
    n_steps,
    noise_multiplier,
    max_grad_norm,
    learning_rate,
    alpha,
    smoothing,
    smoothing_order,
    smoothing_blocks,
    fit_intercept,
    average,
    rng,
    release,
    verbose=0,
    name="DPLSSGD",
    expected_batch=None,
    offset=None,
    row_scale=1.0,
    gradient_sum=None,
):
    """Run ``n_steps`` noisy steps from zero and return ``(coef, intercept)``.

    ``release(value, sensitivity, noise_multiplier, rng)`` releases a step's clipped sum with
    Gaussian noise (:mod:`skprivate._dpsgd._release`);
    ``rng`` is the generator the noise and the batch sampler's secret key come from (the key
    is its first draw). ``average``: False or
    None returns the last iterate; True the mean of all iterates; an int ``k`` the mean of the
    iterates after steps ``k + 1, ..., n_steps`` (a tail average; post-processing).

    ``offset`` (shape ``(n_features,)``, only with ``fit_intercept``) and ``row_scale``: the
    model is trained on the rows ``(x - offset) / row_scale`` without forming them (a CSR
    ``X`` stays sparse), and the returned ``(coef, intercept)`` apply to the raw rows.

    ``gradient_sum``: where the data-dependent part of a step runs. A factory called once as
    ``gradient_sum(X, y, key=, sample_rate=, residual=, max_grad_norm=, fit_intercept=,
    scale=, shift=)`` that returns ``step_sum(step, coef, intercept)``, the sum over the rows
    sampled at ``step`` by ``BlockPoissonSampler(key, n_samples, sample_rate)`` of their
    gradients at ``(coef, intercept)`` (the parameters of the transformed rows) on the rows
    ``scale x - shift``, each clipped to ``max_grad_norm`` (see
    :func:`clipped_gradient_sum` and :func:`memory_gradient_sum`). Default:
    :func:`memory_gradient_sum`, or :func:`skprivate._dpsgd._distributed.dask_gradient_sum`
    for a Dask ``X``. Only
    ``X.shape`` is read here: the loop never touches a row itself.
    """
    n_samples, n_features = X.shape
    K = n_outputs
    n_coef = K * n_features
    n_params = n_coef + (K if fit_intercept else 0)
    # One flat parameter vector with coef and intercept as views, so that a step is one
    # vector operation.
    theta = np.zeros(n_params)
    coef = theta[:n_coef].reshape(K, n_features)
    intercept = theta[n_coef:] if fit_intercept else np.zeros(K)
    if average is None or average is False:
        average_from = None
    else:
        average_from = 0 if average is True else min(int(average), n_steps - 1)
    theta_sum = np.zeros(n_params) if average_from is not None else None
    # Training on x' = a x - m (a = 1 / row_scale, m = a offset), never formed: theta holds the
    # parameters of x', and x'.W = x.(a W) - m.W turns them into the raw rows' at the end.
    a = 1.0 / float(row_scale)
    m = None if offset is None else a * np.asarray(offset, dtype=np.float64)
    if gradient_sum is None:
        if is_dask_collection(X):
            from ._distributed import dask_gradient_sum as gradient_sum
        else:
            gradient_sum = memory_gradient_sum
    # The sampler's key: secret, from the noise generator, drawn before any step (so that the
    # in-memory and the Dask fits of one seed draw the same batches and the same noise).
    step_sum = gradient_sum(
        X, y, key=draw_sampling_key(rng), sample_rate=sample_rate, residual=residual,
        max_grad_norm=max_grad_norm, fit_intercept=fit_intercept, scale=a, shift=m,
    )
    smooth = make_block_smoother(n_coef, n_params, smoothing, smoothing_order, smoothing_blocks)
    if hasattr(release, "expect"):  # a batched noise stream: draw no more than n_steps
        release.expect(n_steps)
    # Dividing by the expected batch size, a public number, keeps the step data-independent in
    # scale (dividing by the drawn batch size would make the step size itself private).
    # A private search passes the expected batch of its run's public planned size instead of
    # the realised size of the run's random training part (which is private).
    if expected_batch is None:
        expected_batch = sample_rate * n_samples
    # Only public quantities are shown (steps done, time): a loss or an accuracy would read
    # the private data outside the privacy guarantee.
    steps = progress(range(n_steps), total=n_steps, desc=f"{name} steps", verbose=verbose)
    for step in steps:
        # Steps 1-2: the clipped sum over this step's Poisson sample, wherever the rows live,
        # taken on the transformed rows a x - m (never formed).
        grad_coef, grad_intercept = step_sum(step, coef, intercept)
        exact = np.empty(n_params)
        exact[:n_coef] = grad_coef.ravel()
        if fit_intercept:
            exact[n_coef:] = grad_intercept
        # Step 3: the one release of the step (the Gaussian mechanism on the clipped sum,
        # L2 sensitivity max_grad_norm under add/remove).
        flat = release(exact, max_grad_norm, noise_multiplier, rng)
        flat /= expected_batch
        # From here on only the noisy sum and public values are used: post-processing (Dwork
        # and Roth 2014, Prop. 2.1; slide "DP-LSSGD - Recap"), so for every smoothing strength
        # the privacy cost is that of the DP-SGD step above.
        if smooth is not None:
            smooth(flat)
        if alpha:
            flat[:n_coef] += alpha * theta[:n_coef]
        theta -= learning_rate * flat
        if average_from is not None and step >= average_from:
            theta_sum += theta
    if average_from is not None:
        theta = theta_sum / (n_steps - average_from)
    coef = theta[:n_coef].reshape(K, n_features).copy()
    intercept = theta[n_coef:].copy() if fit_intercept else np.zeros(K)
    if m is not None:
        intercept = intercept - coef @ m
    return a * coef, intercept


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
