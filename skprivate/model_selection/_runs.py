"""One run of a private search: fit on the training part, release a noisy validation sum.

Also what a run is given: the score's range, and the fit arguments (``sample_weight`` is
refused; per-row metadata routed to the estimator is split with the rows).
"""

import math
import warnings
from collections import namedtuple
from numbers import Real

import numpy as np

from .._dpsgd._plan import PUBLIC_N_SAMPLES
from ..base import _n_rows
from ..exceptions import PrivacyLeakWarning
from ..mechanisms import granular_gaussian_mechanism
from ..utils._compat import safe_indexing as _safe_indexing
from ._candidates import dp_step, run_dp_steps

__all__ = []

# Kinds of caveat a run states that the search states itself, once, from public numbers:
# the runs' generators are derived from the search's random_state, their delta check would
# use the realised (private) size of the training part, and their epsilon is below the
# search's.
_RESTATED_BY_THE_SEARCH = ("seed_fixed", "delta_protects_no_one", "epsilon_weak")


def _check_score_range(name, value):
    """``(low, high)`` from ``score_range``, with an error that says how to fix it."""
    if isinstance(value, Real):
        raise ValueError(
            f"{name}: score_range={value!r} is a single number; pass the interval "
            "(low, high) that holds every validation row's term, for example (0, 1) for "
            "accuracy or (-2 * B, 0) for the negated absolute error of predictions clipped "
            "to, and targets within, [-B, B]. The search releases a noisy sum of the terms "
            "centred on the interval's midpoint; the noise of a mean would depend on the "
            "private number of validation rows, so a width alone is not enough."
        )
    try:
        low, high = (float(v) for v in value)
    except (TypeError, ValueError):
        low = high = math.nan
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(
            f"{name}: score_range must be a pair (low, high) of finite numbers with "
            f"low < high, the interval holding every validation row's term; got {value!r}."
        )
    return low, high


def _check_no_sample_weight(name, params):
    """Refuse ``sample_weight``: a weight can scale one row beyond the bound the noise covers.

    No skprivate DP estimator takes ``sample_weight``: each clips one row's contribution
    (its gradient) to a bound and calibrates the noise to that bound. A weight ``w > 1``
    would scale the row's clipped gradient, and its term in the released validation sum, by
    ``w``, beyond the sensitivity the noise is calibrated to, and the guarantee would be
    void; weights in ``[0, 1]`` would keep it only if every run applied them after clipping,
    which no estimator does. So the search refuses the parameter, routed or not.
    """
    if "sample_weight" in params:
        raise ValueError(
            f"{name}: sample_weight is not supported. A weight above 1 would scale one row's "
            "clipped contribution (its gradient, its term in the noisy validation score) "
            "beyond the bound the noise is calibrated to, which voids the privacy guarantee, "
            "and none of skprivate's differentially private estimators takes weights. "
            "Remove sample_weight; to correct class imbalance, resample the rows with rates "
            "fixed in advance (public), before the search."
        )


def _run_caveats(estimator):
    """Caveats of a fitted run, read from its structured ``privacy_report_["caveats"]``.

    Never parsed out of warning text (a caveat may contain ``"; "``): each is a
    :class:`skprivate._caveats.Caveat`, and the kinds the search restates are dropped by
    their code.
    """
    caveats = []
    for _, step in run_dp_steps(estimator):  # private preprocessing, then the model
        report = getattr(step, "privacy_report_", None) or {}
        caveats.extend(
            c for c in report.get("caveats", [])
            if getattr(c, "code", None) not in _RESTATED_BY_THE_SEARCH
            and c not in caveats
        )
    return caveats


def _accuracy_terms(estimator, X, y):
    """1 where the prediction is right, else 0 (all outputs right, for several outputs)."""
    pred = np.asarray(estimator.predict(X))
    right = pred == np.asarray(y).reshape(pred.shape)
    return right.reshape(right.shape[0], -1).all(axis=1).astype(float)


def _error_terms(power):
    def terms(estimator, X, y):
        pred = np.asarray(estimator.predict(X), dtype=float)
        error = np.abs(pred - np.asarray(y, dtype=float).reshape(pred.shape)) ** power
        # several outputs: scikit-learn's uniform average over them, row by row
        return -error.reshape(error.shape[0], -1).mean(axis=1)

    return terms


def _true_class(estimator, X, y):
    """``(proba, onehot, seen)``: the predicted probabilities, the rows' labels one-hot over
    ``estimator.classes_``, and whether each row's label is among them.

    A label the model never saw is not an error (it would be one row's doing): its
    probability is 0, the worst term, which the clip to ``score_range`` bounds.
    """
    proba = np.asarray(estimator.predict_proba(X), dtype=float)
    classes = np.asarray(estimator.classes_)
    onehot = np.asarray(y).reshape(-1, 1) == classes.reshape(1, -1)
    return proba, onehot, onehot.any(axis=1)


def _log_loss_terms(estimator, X, y):
    """``log p(true class)``, probabilities normalised and floored at the machine epsilon as
    in :func:`sklearn.metrics.log_loss` (minus the loss: higher is better)."""
    proba, onehot, _ = _true_class(estimator, X, y)
    proba = proba / np.maximum(proba.sum(axis=1, keepdims=True), np.finfo(float).tiny)
    eps = np.finfo(proba.dtype).eps
    return np.log(np.clip(np.sum(proba * onehot, axis=1), eps, 1.0))


def _brier_terms(estimator, X, y):
    """Minus ``sum_c (p_c - [y = c])^2``, halved for two classes, as
    :func:`sklearn.metrics.brier_score_loss` ("auto" scaling); an unseen label adds its own
    column, ``(0 - 1)^2``."""
    proba, onehot, seen = _true_class(estimator, X, y)
    loss = np.sum((proba - onehot) ** 2, axis=1) + ~seen
    return -(0.5 * loss if proba.shape[1] < 3 else loss)


# The named scorers the searches accept: each is the mean over the validation rows of one
# term per row, computed here row by row (higher is better, as the scorer's sign). The search
# clips every term to score_range before summing (_released_score), so one row moves the
# released sum by at most half the range's width whatever the row holds; the scorer's mean
# alone would let one row's unbounded error move it without limit.
PER_ROW_TERMS = {
    "accuracy": _accuracy_terms,
    "neg_mean_absolute_error": _error_terms(1),
    "neg_mean_squared_error": _error_terms(2),
    "neg_log_loss": _log_loss_terms,
    "neg_brier_score": _brier_terms,
}
# ... and the method each needs of the estimator (checked before any data is read).
PER_ROW_METHOD = {
    "accuracy": "predict",
    "neg_mean_absolute_error": "predict",
    "neg_mean_squared_error": "predict",
    "neg_log_loss": "predict_proba",
    "neg_brier_score": "predict_proba",
}

RowTerms = namedtuple("RowTerms", "name terms")
RowTerms.__doc__ = """A named scorer as its per-row terms: ``terms(estimator, X, y)`` -> one
term per row (:data:`PER_ROW_TERMS`)."""


def _released_score(estimator, X_val, y_val, score, low, high):
    """The statistic a run releases (before noise): ``sum_i (term_i - center)`` over the
    validation rows, ``center = (low + high) / 2``.

    For a named scorer (``score`` a :class:`RowTerms`) each row's term is computed and
    clipped to ``[low, high]`` before the sum (a term that is not a number, a diverged
    prediction, counts as ``low``): adding or removing one validation row changes the sum by
    its clipped term minus ``center``, at most ``(high - low) / 2``, whatever the row holds
    and whatever the number of validation rows, so the noise added to it is fixed before
    the split (see ``_tuning_accounting``). A mean would not do: its sensitivity ``1 / n_val``
    depends on the realised size of the random validation part, which is private. A callable
    ``score`` is its mean times the number of rows, taken on trust to be such a sum of
    terms in ``[low, high]`` (the search's ``score_vouched`` caveat says so).
    """
    n_val = _n_rows(X_val)
    if not n_val:
        return 0.0  # an empty sum
    center = 0.5 * (low + high)
    if isinstance(score, RowTerms):
        terms = np.asarray(score.terms(estimator, X_val, y_val), dtype=float)
        terms = np.clip(np.nan_to_num(terms, nan=low, posinf=high, neginf=low), low, high)
        return float(np.sum(terms - center))
    return n_val * (float(score(estimator, X_val, y_val)) - center)


def _fit_and_score(
    estimator, X_train, y_train, X_val, y_val, fit_params, score, low, high, noise_std, rng
):
    """One run: fit on the training part, release the noisy score sum of the validation part."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrivacyLeakWarning)
        if y_train is None:
            estimator.fit(X_train, **fit_params)
        else:
            estimator.fit(X_train, y_train, **fit_params)
    # The search restates the runs' caveats from their reports; other warnings pass through.
    for w in caught:
        if not issubclass(w.category, PrivacyLeakWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    caveats = _run_caveats(estimator)
    for _, step in run_dp_steps(estimator):
        report = getattr(step, "privacy_report_", None)
        if report is not None:
            # The released model's own reports: a seed caveat named a generator it no longer
            # keeps, a delta check named the realised (private) size of the training part.
            report["caveats"] = [
                c for c in report.get("caveats", [])
                if getattr(c, "code", None) not in _RESTATED_BY_THE_SEARCH
            ]
    # The public planned size served this fit only: a refit of the model plans on its rows.
    vars(dp_step(estimator)).pop(PUBLIC_N_SAMPLES, None)
    released = _released_score(estimator, X_val, y_val, score, low, high)
    # The granular Gaussian (exact discrete Gaussian on a power-of-two grid, no floating-point
    # noise): with the sum's sensitivity (high - low) / 2 and the planned noise_std it has
    # the continuous plan's Renyi divergence at every order (Canonne, Kamath and Steinke
    # 2020, Theorem 14 on the lattice sensitivity; skprivate.mechanisms._secure), the RDP
    # curve _tuning_accounting.gaussian_rdp that the search's accounting composes.
    noisy = granular_gaussian_mechanism(released, 0.5 * (high - low), noise_std,
                                        random_state=rng)
    return estimator, float(noisy), caveats


def _split_rows(params, n_samples, index):
    """Per-row metadata (one entry per row of ``X``) restricted to ``index``; the rest as is."""
    out = {}
    for key, value in params.items():
        try:
            per_row = not np.isscalar(value) and _n_rows(value) == n_samples
        except TypeError:
            per_row = False
        out[key] = _safe_indexing(value, index) if per_row else value
    return out
