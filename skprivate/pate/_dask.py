"""PATE on Dask collections: teachers trained on the workers, only their votes come back.

:meth:`PATEClassifier.fit <skprivate.pate.PATEClassifier.fit>` routes a Dask ``X`` (a
``dask.array.Array`` with known row chunks, a Dask DataFrame) here. The fit is the
in-memory fit with the teachers' training moved to the workers:

1. The plan, from public numbers only (the noisy count of the rows, whose exact number is
   read from the known chunk sizes; the number of public points and of classes), is made
   and reserved before any value is read, exactly as in memory, so the accountant, the
   count, the plan and ``epsilon_`` are those of an in-memory fit of the same ``n`` and
   ``random_state``.
2. The partition. Each chunk's task (rows ``[r0, r1)``) computes the teacher of each of
   its rows with :func:`~skprivate.pate._partition.teacher_owners`, a function of the
   secret key and the row index only, and splits its rows by teacher. Teacher ``t``'s
   rows are therefore the rows an in-memory fit of the same key gives it, in the same
   order, whatever the chunking.
3. One task per teacher gathers its pieces from the chunks (worker to worker), trains a
   clone of ``teacher`` with the seed the in-memory fit would give it, predicts the public
   points, and returns those predictions only. The driver (the process that called
   ``fit``) receives ``n_teachers x n_public`` labels, never a row.
4. Noise, queries, student and accounting: the in-memory code, on the driver, from the
   same generator (``PATEClassifier._fit_teachers_and_student``).

Privacy: the mechanism is unchanged. The partition is data-independent and each row lands
in exactly one teacher (the argument, with the papers' references, is in
:mod:`skprivate.pate._partition`), so adding or removing a row changes at most one
teacher's vote per query: the sensitivity of the vote histogram (2 in l1, sqrt(2) in l2)
that LNMax / GNMax / Confident-GNMax are accounted for (Papernot et al. 2017, Section 2.1;
2018, Section 4; :func:`skprivate.accounting.pate_epsilon`). The noise is added once, on
the driver, to the histogram of all the votes. So the same plan and accountant give the
same ``epsilon_`` as in memory; for the same ``random_state`` the votes, the noisy answers
and the student are the in-memory ones.

Trust model (as for DP-SGD on Dask, ``docs/user_guide/scaling.rst``): the workers hold the
rows, move each teacher's rows to the worker that trains it, and see the secret partition
key (a task argument) and every teacher's votes; the driver receives the votes without
noise. Driver, scheduler and workers must all be inside the data owner's trust boundary;
the release is the student (and its privacy report).

If a worker is lost, Dask recomputes its tasks: each is a pure function of (its rows, the
key, the teacher's seed), so the recomputed votes are the ones that were lost.
"""

import operator

import numpy as np
from sklearn.base import clone
from sklearn.utils import get_tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from ..base import _n_rows, _resolve_classes
from ._teachers import _train_and_predict, default_teacher
from ._partition import teacher_owners

__all__ = []


def _check_inputs(owner, X, y, X_public, groups):
    """``(X, y)`` as Dask arrays with the same row chunks (whole rows per chunk)."""
    from .._dpsgd._distributed import dask_rows_and_targets, is_dask_collection

    if y is None:
        raise ValueError(
            f"{owner} requires y to be passed, but the target y is None. Pass the private "
            "labels."
        )
    if not is_dask_collection(X):
        raise TypeError(
            f"{owner}: y is a Dask collection but X is a {type(X).__name__}. Pass X as a "
            "Dask array or DataFrame too (dask.array.from_array(X)), or y.compute() to fit "
            "in memory."
        )
    if groups is not None:
        raise TypeError(
            f"{owner}: groups is not supported with Dask input (one teacher per data owner "
            "needs the owners' list on the driver). Fit in memory with groups, or leave "
            "groups=None for random partitions drawn where the rows live."
        )
    if X_public is None:
        raise ValueError(
            f"{owner}: with a Dask X, pass the public points as X_public=... (in memory). "
            "Public rows marked y == -1 inside a Dask X are not supported."
        )
    X, y, columns = dask_rows_and_targets(owner, X, y)
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})  # whole rows per chunk: a row goes to one teacher whole
    if y.chunks[0] != X.chunks[0]:
        y = y.rechunk({0: X.chunks[0]})
    return X, y, columns


def fit_dask(estimator, X, y, X_public, groups):
    """The body of ``PATEClassifier.fit`` for a Dask ``X``: same steps, same order."""
    import dask.array as da

    from .._dpsgd._distributed import is_dask_collection

    name = type(estimator).__name__
    X, y, columns = _check_inputs(name, X, y, X_public, groups)
    if is_dask_collection(X_public):
        X_public = X_public.compute()  # public points: gathered on the driver
    n_private, n_public = int(X.shape[0]), _n_rows(X_public)
    if not n_public:
        raise ValueError(f"{name}: no public points to label; X_public has no rows.")
    # The label set is read exactly as in memory: from the data when classes=None (with the
    # same caveat), checked against the declared classes otherwise.
    present = np.asarray(da.unique(y).compute())
    n_classes = len(estimator.classes) if estimator.classes is not None else len(present)
    # The count (unless public), the plan on it and the reservation, as in memory and from
    # the same generator: the same count, partition and noise for the same random_state.
    rng = estimator._noise_rng()
    count = estimator._plan_on_count(n_private, n_public, n_classes, None, rng)
    teacher = estimator.teacher if estimator.teacher is not None else default_teacher(n_classes)
    allow_nan = get_tags(teacher).input_tags.allow_nan
    if X.dtype.kind in "fc" and not allow_nan and not bool(da.isfinite(X).all().compute()):
        raise ValueError(
            f"{name}: X holds NaN or infinite values, which the teacher does not accept. "
            "Impute them first, or use a teacher that handles them."
        )
    check_classification_targets(present)
    estimator.n_features_in_ = int(X.shape[1])
    if columns is not None and len(columns) and all(isinstance(c, str) for c in columns):
        estimator.feature_names_in_ = np.asarray(list(columns), dtype=object)
    elif hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_
    X_public = validate_data(
        estimator, X_public, reset=False,
        ensure_all_finite="allow-nan" if allow_nan else True, dtype=None,
    )
    estimator.classes_, _, label_caveats = _resolve_classes(name, estimator.classes, present)
    return estimator._fit_teachers_and_student(
        teacher, X, y, None, X_public, count, label_caveats, rng
    )


def _split_chunk(X, y, start, key, n_teachers):
    """A chunk's rows split by teacher: ``[(X_t, y_t) for t in range(n_teachers)]``."""
    owner = teacher_owners(key, n_teachers, start, start + len(y))
    order = np.argsort(owner, kind="stable")  # rows keep their order within a teacher
    bounds = np.searchsorted(owner[order], np.arange(n_teachers + 1))
    return [(X[order[a:b]], y[order[a:b]]) for a, b in zip(bounds[:-1], bounds[1:])]


def _train_teacher(teacher, X_public, seed, *pieces):
    # Runs on a worker: the teacher's rows (its pieces of every chunk, in chunk order) are
    # joined there, it is trained and asked there, and only its predictions leave.
    X = np.concatenate([p[0] for p in pieces])
    y = np.concatenate([p[1] for p in pieces])
    return _train_and_predict(teacher, X, y, X_public, seed)


def dask_teacher_predictions(teacher, X, y, X_public, key, seeds):
    """Each teacher's predictions for ``X_public`` (None for a teacher without rows).

    One task per chunk splits its rows by teacher; one task per (chunk, teacher) selects a
    piece; one task per teacher trains on its pieces and predicts the public points. Only
    the predictions are returned to the driver.
    """
    import dask
    from dask import delayed
    from dask.base import tokenize

    n_teachers = len(seeds)
    key = np.asarray(key, dtype=np.uint64)
    token = tokenize(X.name, y.name, key, np.asarray(seeds))
    starts = np.concatenate([[0], np.cumsum(X.chunks[0])[:-1]]).astype(int)
    public = delayed(X_public, name=f"pate-public-{token}", pure=True)
    split = delayed(_split_chunk, pure=True)
    splits = [
        split(xb, yb, int(start), key, n_teachers, dask_key_name=f"pate-split-{token}-{c}")
        for c, (xb, yb, start) in enumerate(
            zip(X.to_delayed().ravel(), y.to_delayed().ravel(), starts)
        )
    ]
    pick = delayed(operator.getitem, pure=True)
    train = delayed(_train_teacher, pure=True)
    tasks = [
        train(
            clone(teacher), public, int(seed),
            *[pick(s, t, dask_key_name=f"pate-piece-{token}-{c}-{t}")
              for c, s in enumerate(splits)],
            dask_key_name=f"pate-teacher-{token}-{t}",
        )
        for t, seed in enumerate(seeds)
    ]
    return list(dask.compute(*tasks))
