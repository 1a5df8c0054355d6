"""DP-SGD on Dask collections: the data-dependent sums computed where the rows live.

The linear DP-LSSGD loop (:func:`skprivate._dpsgd._numpy_loop.run_dplssgd`) reads the data
only through exact sums: each step's clipped-gradient sum over a Poisson sample and, with
``max_grad_norm="auto"``, the two sums released by
:func:`skprivate._dpsgd._private_scaling.private_row_statistics`. Here they are computed per
Dask chunk and added up; the driver (the process that called ``fit``) adds the noise, once,
exactly as for an array in memory.

Privacy of a distributed step (add/remove-one-row neighbours). The mechanism is the sampled
Gaussian mechanism of Mironov, Talwar and Zhang (2019), unchanged:

* The batch: the chunk holding rows ``[r0, r1)`` keeps the rows of ``[r0, r1)`` that
  :class:`~skprivate._dpsgd._sampling.BlockPoissonSampler` samples at step ``t``, a function
  of the secret key, ``t`` and the row index only. The union over the chunks is therefore
  the batch an in-memory fit of the same key draws: every row independently with
  probability ``q``, independently across steps (the argument is next to the sampler). The
  distribution of the batch does not depend on the chunking, on the number of workers or on
  which worker computes which chunk.
* The sum: each chunk returns the sum of its sampled rows' clipped gradients (no count, no
  per-row value); the chunk sums add up to the clipped sum of the batch, whose sensitivity
  is one clipped gradient, ``C``, as in memory.
* The noise: ``N(0, (z C)^2 I)`` is drawn by the driver from the fit's noise generator and
  added once to the total, never per chunk.

So the same accountant, with the same ``(q, z, T)``, covers the fit, and ``epsilon_`` is the
in-memory one. What a Dask fit shows that an in-memory fit does not (the trust model): the
workers hold the rows and the secret sampling key (a task argument); the workers that run
the sum tree see the chunks' clipped sums; the driver (through the scheduler) receives each
step's total clipped sum, without noise, before it adds the noise, and with
``max_grad_norm="auto"`` the exact sums that the two private-scaling releases noise. Driver,
scheduler and workers must all be inside the data owner's trust boundary; what is released
is the fitted model (and its privacy report), as in memory.

Fault tolerance without a privacy cost: a chunk's task is a pure function of (its rows, the
key, the step, the current coefficients), so when a worker is lost Dask recomputes the
chunk (and, from the lineage of the collection, the chunk's rows) and gets the same sum: no
row is skipped or counted twice and no extra noise is drawn (the noise is drawn by the
driver once per step, after the sum has arrived).

The row count ``n`` is handled as in memory: the plan (``q = batch_size / n``, the steps,
the divisors) reads a noisy count of it (:mod:`skprivate._row_count`) unless
``n_samples_public=True``. The driver still needs the chunk sizes to address each chunk's
rows in the sampler (``to_dask_array(lengths=True)`` for a DataFrame, which counts the rows
of each partition); they locate rows and are never published.
"""

from functools import partial

import numpy as np

from ..utils._dask import is_dask_collection  # noqa: F401 - imported from here too
from ._kernels import clipped_gradient_sum, clipped_row_sums
from ._sampling import BlockPoissonSampler

__all__ = []


def refuse_dask(owner, X, y=None):
    """Raise a clear error for a Dask ``X`` or ``y`` in an estimator without a Dask path."""
    if is_dask_collection(X) or is_dask_collection(y):
        raise TypeError(
            f"{owner} does not train on Dask collections; got X of type "
            f"{type(X).__name__}. Call .compute() to fit in memory if the data fit, or use "
            "DPLSSGDClassifier / DPLSSGDRegressor, whose linear models train on Dask arrays "
            "and DataFrames where the rows live (see the 'Scaling out' user guide page)."
        )


# --- inputs ------------------------------------------------------------------------------


def _to_dask_array(owner, name, data):
    """A Dask array with known row chunks from a Dask array, DataFrame or Series."""
    import dask.array as da

    columns = None
    if not isinstance(data, da.Array):
        if not hasattr(data, "to_dask_array"):
            raise TypeError(
                f"{owner}: {name} is a Dask collection of type {type(data).__name__}, which "
                "cannot be used; pass a dask.array.Array, a dask DataFrame or a dask Series."
            )
        columns = getattr(data, "columns", None)
        # lengths=True counts the rows of each partition: the chunk sizes the blockwise
        # sampler needs (the plan reads a noisy count of the rows, as in memory).
        data = data.to_dask_array(lengths=True)
    if any(np.isnan(c) for c in data.chunks[0]):
        raise ValueError(
            f"{owner}: {name} has unknown chunk sizes along the rows ({data.chunks[0]!r}). "
            "Each chunk's size is "
            f"needed before the fit: call {name}.compute_chunk_sizes() first, or build it "
            "with to_dask_array(lengths=True)."
        )
    return data, columns


def dask_rows_and_targets(owner, X, y):
    """``(X, y, columns)``: ``X`` a 2-d Dask array, ``y`` a 1-d one (from a Dask collection
    or an in-memory array, chunked as ``X``'s rows) with as many rows; the shared checks of
    the DP-SGD and PATE Dask fits. Reads no value, only metadata."""
    import dask.array as da

    X, columns = _to_dask_array(owner, "X", X)
    if not is_dask_collection(y):
        y = da.from_array(np.asarray(y), chunks=(X.chunks[0],))
    y, _ = _to_dask_array(owner, "y", y)
    if X.ndim != 2:
        raise ValueError(
            f"{owner}: X must be 2-d (n_samples, n_features); got a Dask array of shape "
            f"{X.shape}. Reshape it, e.g. X.reshape(-1, 1) for a single feature."
        )
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(
            f"{owner}: y must be 1-d (n_samples,); got a Dask array of shape {y.shape}."
        )
    if X.shape[0] != y.shape[0]:
        raise ValueError(
            f"{owner}: X and y have different numbers of rows: {X.shape[0]} and {y.shape[0]}."
        )
    return X, y, columns


def validate_dask_data(estimator, X, y):
    """``(X, y)`` as Dask arrays of float64 rows and 1-d targets with the same row chunks.

    Reads no value: only metadata (shapes, dtypes, chunk sizes, column names). Sets
    ``n_features_in_`` and, for a DataFrame with string column names, ``feature_names_in_``.
    """
    owner = type(estimator).__name__
    if y is None:
        raise ValueError(f"{owner} requires y to be passed, but the target y is None.")
    X, y, columns = dask_rows_and_targets(owner, X, y)
    if X.dtype.kind not in "biuf":
        raise TypeError(
            f"{owner}: X must hold numbers; got a Dask array of dtype {X.dtype}. Encode the "
            "non-numeric columns first (a data-independent encoder in a Pipeline)."
        )
    sparse = getattr(X, "_meta", None)
    if sparse is not None and not isinstance(sparse, np.ndarray):
        raise TypeError(
            f"{owner}: the chunks of X must be NumPy arrays; got chunks of type "
            f"{type(sparse).__name__}. Sparse Dask arrays are not supported: densify the "
            "chunks (X.map_blocks(lambda b: b.toarray())) or fit in memory with a CSR matrix."
        )
    if X.dtype != np.float64:
        X = X.astype(np.float64)
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})  # whole rows in each chunk: a row's gradient is one task's
    if y.chunks[0] != X.chunks[0]:
        y = y.rechunk({0: X.chunks[0]})
    estimator.n_features_in_ = X.shape[1]
    if columns is not None and len(columns) and all(isinstance(c, str) for c in columns):
        estimator.feature_names_in_ = np.asarray(list(columns), dtype=object)
    elif hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_
    return X, y


def _check_finite(owner, X, y=None):
    import dask
    import dask.array as da

    checks = [da.isfinite(X).all()] + ([] if y is None else [da.isfinite(y).all()])
    finite = dask.compute(*checks)
    for name, ok in zip(("X", "y"), finite):
        if not bool(ok):
            raise ValueError(
                f"{owner}: {name} holds NaN or infinite values; DP-SGD needs finite values. "
                "Impute or drop them first (with a data-independent rule, or a private one)."
            )


def _dask_classes(owner, declared, y):
    """``(classes_, y_index, caveats)`` as :func:`skprivate.base._resolve_classes`, blockwise."""
    import dask
    import dask.array as da
    from sklearn.utils.multiclass import check_classification_targets

    from ..base import _resolve_classes

    if declared is None:
        present = np.asarray(da.unique(y).compute())
        check_classification_targets(present)
        # The label set read from the data: the same check and caveat as in memory.
        classes_, _, caveats = _resolve_classes(owner, None, present)
    else:
        classes_, _, caveats = _resolve_classes(owner, declared, np.asarray(declared))
        unknown = da.unique(y[~da.isin(y, classes_)])
        unknown = np.asarray(dask.compute(unknown)[0])
        if unknown.size:
            _resolve_classes(owner, declared, unknown)  # raises its error naming `classes`
    y_index = y.map_blocks(lambda block: np.searchsorted(classes_, block), dtype=np.intp)
    return classes_, y_index, caveats


def fit_dask(estimator, X, y, *, classifier):
    """Fit a DP-LSSGD linear model on Dask ``X``/``y``; the body of its ``fit`` for Dask input.

    The same steps as the in-memory ``fit``, in the same order (plan and reserve the budget
    before reading any value, then validate, then train with ``_fit_linear``), so the plan,
    the accountant and ``epsilon_`` are those of an in-memory fit of the same ``n``.
    """
    import dask

    owner = type(estimator).__name__
    X, y = validate_dask_data(estimator, X, y)
    if not classifier and y.dtype.kind not in "biuf":  # metadata: before the budget is spent
        raise TypeError(
            f"{owner}: y must hold numbers for a regressor; got a Dask array of dtype "
            f"{y.dtype}. Encode the targets as numbers."
        )
    estimator._begin_private_fit(X)
    rng = estimator._noise_rng()
    # Keep the chunks in the workers' memory for the many passes of the fit (dask-ml's
    # solvers do the same); they are released when the fit returns.
    X, y = dask.persist(X, y)
    # the first draw, before any value is used; X's length is known from its chunks
    count = estimator._row_count(X.shape[0], rng)
    if classifier:
        _check_finite(owner, X)
        estimator.classes_, y_index, caveats = _dask_classes(owner, estimator.classes, y)
        if len(estimator.classes_) == 2:
            n_outputs, y_encoded = 1, y_index.astype(np.float64)
        else:
            n_outputs, y_encoded = len(estimator.classes_), y_index
        (y_encoded,) = dask.persist(y_encoded)
        coef, intercept = estimator._fit_linear(
            X, y_encoded, rng, n_outputs, count, caveats=caveats
        )
        estimator.coef_, estimator.intercept_ = coef, intercept
    else:
        (y,) = dask.persist(y.astype(np.float64))
        _check_finite(owner, X, y)
        coef, intercept = estimator._fit_linear(X, y, rng, 1, count, estimator.huber_threshold)
        estimator.coef_, estimator.intercept_ = coef.ravel(), float(intercept[0])
    return estimator


# --- blockwise sums ----------------------------------------------------------------------


_FAN_IN = 8  # parts added per task of the reduction: few tasks per step, small transfers


def _add(*parts):
    """The sum of ``parts`` (arrays, or tuples of arrays added element by element), in order."""
    total = parts[0]
    for part in parts[1:]:
        total = tuple(a + b for a, b in zip(total, part)) if isinstance(total, tuple) \
            else total + part
    return total


def _tree_sum(parts, name=None):
    """Sum of delayed parts by a tree of fixed shape (``_FAN_IN`` parts per task, in chunk
    order), so that the result does not depend on which worker finishes first. ``name``: a
    prefix for deterministic task names."""
    from dask import delayed

    add = delayed(_add, pure=True)
    level = 0
    while len(parts) > 1:
        parts = [
            add(*parts[i : i + _FAN_IN],
                **({} if name is None else {"dask_key_name": f"{name}-sum-{level}-{i}"}))
            for i in range(0, len(parts), _FAN_IN)
        ]
        level += 1
    return parts[0]


def _row_blocks(*arrays):
    """The row chunks of aligned Dask arrays as delayed objects, and each chunk's first row."""
    blocks = [a.to_delayed().ravel() for a in arrays]
    starts = np.concatenate([[0], np.cumsum(arrays[0].chunks[0])[:-1]]).astype(int)
    return list(zip(*blocks)), [int(s) for s in starts]


def _norm_counts_block(sq_norms, edges):
    return np.bincount(np.searchsorted(edges, np.sqrt(sq_norms)), minlength=edges.size + 1)


def dask_norm_counts(sq_norms, edges):
    """``np.bincount(np.searchsorted(edges, sqrt(sq_norms)))`` of a Dask array, blockwise."""
    import dask
    from dask import delayed

    blocks, _ = _row_blocks(sq_norms)
    task = delayed(_norm_counts_block, pure=True)
    return dask.compute(_tree_sum([task(b, edges) for (b,) in blocks]))[0]


def _clipped_row_sums_block(X, clip_norm):
    return clipped_row_sums(X, clip_norm)


def dask_clipped_row_sums(X, clip_norm):
    """The two sums that ``private_row_statistics`` releases, of a Dask ``X``, blockwise.

    ``(sum_i c_i x_i / R, sum_i ||c_i x_i||^2 / R^2)`` with ``c_i = min(1, R / ||x_i||)``
    and ``R = clip_norm`` (see :mod:`skprivate._dpsgd._private_scaling`).
    """
    import dask
    from dask import delayed

    blocks, _ = _row_blocks(X)
    task = delayed(_clipped_row_sums_block, pure=True)
    return dask.compute(_tree_sum([task(b, float(clip_norm)) for (b,) in blocks]))[0]


def _chunk_gradient_sum(X, y, start, *, key, n_samples, sample_rate, step, coef, intercept,
                        residual, max_grad_norm, fit_intercept, scale, shift):
    """One chunk's clipped-gradient sum at ``step``: a pure function of its arguments."""
    sampler = BlockPoissonSampler(key, n_samples, sample_rate)
    idx = sampler.indices(step, start, start + X.shape[0]) - start
    # X.take copies the sampled rows, so they may be scaled in place.
    return clipped_gradient_sum(X.take(idx, axis=0), y.take(idx), coef, intercept, residual,
                                max_grad_norm, fit_intercept, scale=scale, shift=shift,
                                copy=False)


def dask_gradient_sum(
    X, y, *, key, sample_rate, residual, max_grad_norm, fit_intercept, scale, shift
):
    """The ``gradient_sum`` of :func:`~skprivate._dpsgd._numpy_loop.run_dplssgd` for Dask
    ``X`` and ``y`` with the same row chunks (see
    :func:`~skprivate._dpsgd._numpy_loop.memory_gradient_sum` for the contract).

    Each step is one Dask computation: one task per chunk (its sampled rows' clipped sum) and
    a fixed pairwise sum of the chunks' results, returned to the driver. The tasks are named
    by (fit, step, chunk) rather than by hashing their arguments at every step: the same
    name always means the same pure computation.
    """
    import dask
    from dask import delayed
    from dask.base import tokenize

    n_samples = X.shape[0]
    blocks, starts = _row_blocks(X, y)
    key = np.asarray(key, dtype=np.uint64)
    chunk_sum = partial(
        _chunk_gradient_sum, key=key, n_samples=n_samples, sample_rate=sample_rate,
        residual=residual, max_grad_norm=max_grad_norm, fit_intercept=fit_intercept,
        scale=scale, shift=shift,
    )
    fit_token = tokenize(X, y, key, sample_rate, max_grad_norm, fit_intercept, scale, shift)
    task = delayed(chunk_sum, pure=True)

    def step_sum(step, coef, intercept):
        coef, intercept = np.array(coef), np.array(intercept)  # frozen copies for the tasks
        # The coefficients are part of the name: the same name, the same computation.
        name = f"dplssgd-step-{fit_token}-{step}-{tokenize(coef, intercept)}"
        parts = [
            task(xb, yb, start, step=int(step), coef=coef, intercept=intercept,
                 dask_key_name=f"{name}-chunk-{i}")
            for i, ((xb, yb), start) in enumerate(zip(blocks, starts))
        ]
        grad_coef, grad_intercept = dask.compute(_tree_sum(parts, name), optimize_graph=False)[0]
        return np.array(grad_coef), np.array(grad_intercept)

    return step_sum
