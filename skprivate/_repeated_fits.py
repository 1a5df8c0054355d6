"""Repeated fits on the same rows without an accountant: warn once, from the second fit.

Why: scikit-learn's ``GridSearchCV`` and ``cross_validate`` clone the estimator and fit
every clone on overlapping folds of the same rows; a refit in a notebook does the same.
Each fitted clone reports its own ``epsilon_``, and the rows' privacy loss is the
composition of all of them (3.70 in RDP, 9.94 by basic composition, for a 5-fold grid
search at epsilon 1 over a DP pipeline), but nothing in any one model shows it. With a
:class:`~skprivate.accounting.BudgetAccountant` the total is kept and capped; without one
this module is the only place that can notice.

Design. A counter on the estimator object cannot see it: every clone is a new object. So
the registry is keyed by what the clones share and a fold does not change:

* the estimator's *configuration*: its class and its parameters (``get_params(deep=False)``,
  as ``clone`` copies them; ``random_state``, ``verbose`` and ``n_jobs`` left out: they do
  not change what is learnt about a row), and the number of columns;
* the *rows*: one 64-bit fingerprint per row, computed without a Python loop over the rows
  (each row's values folded column by column with splitmix64's exact integer mixing for a
  numeric array, pandas' row hash for a DataFrame or an object array). Two fits are "on the same rows" when their fingerprints
  intersect: cross-validation folds overlap without being equal, so a hash of the whole
  matrix would never match.

The fits of one class on overlapping rows form a group, which warns once, at the first fit
whose configuration an earlier fit in the group had (a clone), so a 50-fit grid search
gives one warning, not 49, and two different models fitted once each on a table give none
(a deliberate analysis, not a clone's refit). Skipped: fits with an
accountant (it totals them), fits that compose their own spends (``warm_start=True``), the
runs of skprivate's private searches (the search's ``epsilon_`` is their total; the search
marks them with :data:`IN_PRIVATE_SEARCH`), and inputs that cannot be fingerprinted
cheaply (Dask collections, torch tensors, lists).

Privacy: nothing here is released. The fingerprints stay in this process's memory (the
last :data:`MAX_FITS` fits, about 8 bytes a row) and the warning is shown to whoever holds
the rows already; its text holds only the number of earlier fits and their planned
epsilons, which are public.
"""

import threading
import warnings
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from .exceptions import RepeatedFitWarning

__all__ = ["IN_PRIVATE_SEARCH", "MAX_FITS", "clear", "note_fit"]

#: Attribute a private search sets on its runs' DP steps: their spends are inside the
#: search's own ``epsilon_``.
IN_PRIVATE_SEARCH = "_skprivate_in_private_search"

#: Fits whose fingerprints are kept (a grid of 10 candidates x 5 folds fits in it).
MAX_FITS = 64

# Parameters that do not change what a fit learns about a row.
_IGNORED = frozenset({"random_state", "verbose", "n_jobs", "accountant"})


@dataclass
class _Group:
    epsilons: list = field(default_factory=list)
    warned: bool = False


@dataclass
class _Fit:
    key: str  # the configuration: a clone has the same
    estimator: str  # the class and the number of columns: the group's scope
    rows: np.ndarray  # sorted uint64 fingerprints
    group: _Group


_fits = deque(maxlen=MAX_FITS)
_lock = threading.Lock()


def clear():
    """Forget every fit seen so far (for tests, and for a new analysis in one process)."""
    with _lock:
        _fits.clear()


def _configuration(estimator, n_features):
    params = estimator.get_params(deep=False)
    kept = {k: v for k, v in sorted(params.items()) if k not in _IGNORED}
    scope = f"{type(estimator).__module__}.{type(estimator).__qualname__}|{n_features}"
    return f"{scope}|{kept!r}", scope


# Each column's 64 bits are folded into the row's hash with exact integer arithmetic
# (wrapping), column by column, so a row's fingerprint does not depend on the array's
# layout (a BLAS product's last bits do: a fold's copy of a row could hash differently from
# the row itself). The mixing step is splitmix64's finaliser (Steele, Lea and Flood 2014),
# which spreads every input bit over the whole word: a float's differences sit in its high
# bits, which a bare multiplication would push out.
_SAMPLE_FROM = 4096  # rows; below it every row is fingerprinted
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def _fold_columns(values):
    bits = np.asfortranarray(values).view(np.uint64)  # one copy; each column contiguous
    h = np.zeros(values.shape[0], dtype=np.uint64)
    for j in range(bits.shape[1]):  # a loop over columns; the rows are vectorised
        h = _mix(h * _GOLDEN + bits[:, j])
    return h


def _canonical(X):
    # + 0.0 turns -0.0 into 0.0 and one NaN bit pattern stands for all: equal values,
    # equal bits
    values = X.astype(np.float64) + 0.0
    values[np.isnan(values)] = np.nan
    return values


def row_fingerprints(X):
    """One uint64 per row of ``X``, or None when ``X`` cannot be read cheaply.

    Equal rows get equal fingerprints; different rows collide with negligible probability
    for real data. Only numpy arrays and pandas DataFrames are read. A numeric array of
    :data:`_SAMPLE_FROM` rows or more gives the fingerprints of the rows (about one in
    eight) whose first columns hash to a multiple of 8: a choice by content, the same in
    every fit, so overlapping row sets keep overlapping.
    """
    if hasattr(X, "iloc") and hasattr(X, "columns"):  # a pandas DataFrame
        return _hash_frame(X)
    if type(X) is not np.ndarray or X.ndim != 2 or X.shape[0] == 0:
        return None
    if X.dtype.kind in "biuf":
        if X.shape[0] >= _SAMPLE_FROM:
            # One row in eight, chosen by its first columns' values, so that a row is kept
            # or dropped alike in every fit that reads it: overlapping folds still share
            # kept rows, at an eighth of the cost (a fit reads each row far more often).
            keep = (_fold_columns(_canonical(X[:, :4])) & np.uint64(7)) == 0
            if keep.any():
                X = X[keep]
        return _fold_columns(_canonical(X))
    try:
        import pandas as pd
    except ImportError:  # an object array without pandas: not fingerprinted
        return None
    return _hash_frame(pd.DataFrame(X))


def _hash_frame(frame):
    from pandas.util import hash_pandas_object

    try:
        return np.asarray(hash_pandas_object(frame, index=False), dtype=np.uint64)
    except (TypeError, ValueError):
        # values pandas cannot hash (dicts, lists): not fingerprinted; the fit's own
        # validation says what is wrong with them
        return None


def note_fit(estimator, X, epsilon, stacklevel=2):
    """Record a fit of ``estimator`` on ``X``; warn if its configuration read these rows.

    Parameters
    ----------
    estimator : DPEstimatorMixin
        The estimator being fitted (its parameters are read, not changed).
    X : object
        Its training rows, before validation.
    epsilon : float
        The fit's planned epsilon, for the message.
    stacklevel : int, default=2
        Passed to :func:`warnings.warn`, to name the user's line.
    """
    if getattr(estimator, "accountant", None) is not None:
        return
    if getattr(estimator, IN_PRIVATE_SEARCH, False) or getattr(estimator, "warm_start", False):
        return
    rows = row_fingerprints(X)
    if rows is None:
        return
    rows = np.unique(rows)
    key, scope = _configuration(estimator, getattr(X, "shape", (0, 0))[1])
    with _lock:
        # Fits of this class on overlapping rows form one group (a grid's candidates and
        # their folds); the group warns once, when a clone (the same configuration) reads
        # rows an earlier fit of it read.
        overlapping = [
            fit for fit in _fits
            if fit.estimator == scope and np.isin(rows, fit.rows, assume_unique=True).any()
        ]
        group = overlapping[-1].group if overlapping else _Group()
        group.epsilons.append(float(epsilon))
        _fits.append(_Fit(key, scope, rows, group))
        if group.warned or not any(fit.key == key for fit in overlapping):
            return
        group.warned = True
        n_fits, total = len(group.epsilons), sum(group.epsilons)
    name = type(estimator).__name__
    warnings.warn(
        f"{name} was fitted {n_fits} times on overlapping rows, twice with the same "
        "parameters, and no accountant (clones fitted by GridSearchCV or cross_validate "
        "on their folds, or a refit). Each fitted model's epsilon_ is its own spend; the "
        f"rows' privacy loss is the composition of every fit, {total:.4g} so far by basic "
        "composition, and grows with each further fit. Total a scikit-learn search with "
        "skprivate.accounting.total_privacy_cost(search), cap every fit with "
        "accountant=BudgetAccountant(epsilon=...), or tune with "
        "skprivate.model_selection.PrivateGridSearchCV, which spends one budget. Warned "
        "once for these rows and parameters.",
        RepeatedFitWarning,
        stacklevel=stacklevel + 1,
    )
