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

from ..smoothing import _make_smoother
from ..utils._progress import progress
from ..utils._dask import is_dask_collection
from ._kernels import (  # noqa: F401 - re-exported: the loop's callers import them here
    clipped_gradient_sum,
    clipped_row_sums,
    residual_function,
    squared_row_norms,
)
from ._sampling import BlockPoissonSampler, draw_sampling_key

__all__ = []


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
