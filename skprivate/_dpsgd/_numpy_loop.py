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


def squared_row_norms(X):
    """Squared Euclidean norm of each row of a dense array, a CSR matrix or a Dask array.

    A Dask array gives a lazy Dask array (chunked as the rows): nothing is computed here.
    """
    if is_dask_collection(X):
        return X.map_blocks(lambda block: np.einsum("ij,ij->i", block, block),
                            drop_axis=1, dtype=np.float64)
    if hasattr(X, "multiply"):
        return np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
    return np.einsum("ij,ij->i", X, X)


def clipped_gradient_sum(
    X, y, coef, intercept, residual, max_grad_norm, fit_intercept, sq_row_norms
):
    """Sum over the rows of ``X`` of per-example gradients, each clipped to ``max_grad_norm``.

    The gradient of row ``i`` with respect to ``(coef, intercept)`` is ``(r_i x_i^T, r_i)``,
    whose Euclidean norm is ``||r_i|| sqrt(||x_i||^2 + fit_intercept)``. Scaling ``r_i`` by
    ``c_i = min(1, C / norm_i)`` clips the whole gradient, and the clipped sum is then a single
    product ``(c R)^T X``: no per-example loop, and a CSR ``X`` is never densified.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (b, d)
    y : ndarray of shape (b,)
        Encoded targets, as ``residual`` expects them.
    coef : ndarray of shape (K, d)
    intercept : ndarray of shape (K,)
    residual : callable
        From :func:`residual_function`.
    max_grad_norm : float
        Clipping norm ``C``.
    fit_intercept : bool
    sq_row_norms : ndarray of shape (b,)
        ``||x_i||^2`` for the rows of ``X``.

    Returns
    -------
    grad_coef : ndarray of shape (K, d)
    grad_intercept : ndarray of shape (K,)
        Zero when ``fit_intercept`` is False.
    """
    K, d = coef.shape
    if X.shape[0] == 0:
        return np.zeros((K, d)), np.zeros(K)
    F = np.asarray(X @ coef.T)
    if fit_intercept:
        F += intercept
    R = residual(F, y)
    norms = np.sqrt(np.einsum("ij,ij->i", R, R) * (sq_row_norms + float(fit_intercept)))
    # min(1, C / norm) without dividing by a zero norm: C / max(norm, C).
    R *= (max_grad_norm / np.maximum(norms, max_grad_norm))[:, None]
    grad_coef = np.asarray(X.T @ R).T
    grad_intercept = R.sum(axis=0) if fit_intercept else np.zeros(K)
    return grad_coef, grad_intercept


def transformed_squared_norms(X, sq_norms, scale, shift):
    """``||scale x - shift||^2`` of each row from ``||x||^2`` (``shift`` None: no shift)."""
    if shift is not None:
        return np.maximum(
            scale * scale * sq_norms - 2 * scale * np.asarray(X @ shift).ravel()
            + float(shift @ shift), 0.0
        )
    if scale != 1.0:
        return scale * scale * sq_norms
    return sq_norms


def memory_gradient_sum(
    X, y, *, key, sample_rate, residual, max_grad_norm, fit_intercept, scale, shift
):
    """The ``gradient_sum`` of :func:`run_dplssgd` for an in-memory ``X`` (array or CSR).

    Returns ``step_sum(step, coef, intercept)``: the clipped-gradient sum over the rows that
    :class:`~skprivate._dpsgd._sampling.BlockPoissonSampler` (``key``) samples at ``step``,
    each row's gradient taken at the rows ``scale x - shift`` and clipped there, returned as
    ``(R^T X, sum R)`` on the raw rows (the loop turns it into the gradient of the
    transformed rows).
    """
    n_samples = X.shape[0]
    sq_norms = transformed_squared_norms(X, squared_row_norms(X), scale, shift)
    sampler = BlockPoissonSampler(key, n_samples, sample_rate)
    if isinstance(X, np.ndarray):

        def rows(idx):
            return X.take(idx, axis=0)
    else:
        rows = X.__getitem__

    def step_sum(step, coef, intercept):
        idx = sampler.indices(step)
        return clipped_gradient_sum(
            rows(idx) if len(idx) < n_samples else X,
            y.take(idx),
            coef,
            intercept,
            residual,
            max_grad_norm,
            fit_intercept,
            sq_norms.take(idx),
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
    noise,
    verbose=0,
    name="DPLSSGD",
    expected_batch=None,
    offset=None,
    row_scale=1.0,
    gradient_sum=None,
):
    """Run ``n_steps`` noisy steps from zero and return ``(coef, intercept)``.

    ``noise(sigma, size, rng)`` draws the Gaussian noise (skprivate.mechanisms.gaussian_noise);
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
    gradients at ``(coef, intercept)`` on the rows ``scale x - shift``, each clipped to
    ``max_grad_norm``, as ``(R^T X, sum R)`` on the raw rows (see
    :func:`memory_gradient_sum`). Default: :func:`memory_gradient_sum`, or
    :func:`skprivate._dpsgd._distributed.dask_gradient_sum` for a Dask ``X``. Only
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
    # Training on x' = a x - m (a = 1 / row_scale, m = a offset): x'.W = x.(a W) - m.W, and the
    # gradient R^T X' = a R^T X - (sum R) m^T, so only the coefficients are transformed.
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
    noise_std = noise_multiplier * max_grad_norm
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
        if m is None and a == 1.0:
            eff_coef, eff_intercept = coef, intercept
        else:
            eff_coef = a * coef
            eff_intercept = intercept - coef @ m if m is not None else intercept
        # Steps 1-2: the clipped sum over this step's Poisson sample, wherever the rows live.
        grad_coef, grad_intercept = step_sum(step, eff_coef, eff_intercept)
        if a != 1.0:
            grad_coef *= a
        if m is not None:
            grad_coef -= np.outer(grad_intercept, m)
        flat = noise(noise_std, n_params, rng)
        flat[:n_coef] += grad_coef.ravel()
        if fit_intercept:
            flat[n_coef:] += grad_intercept
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
