"""One run of a private search: fit on the training part, release a noisy validation sum.

Also what a run is given: the score's range, and the fit arguments (``sample_weight`` is
refused; per-row metadata routed to the estimator is split with the rows).
"""

import math
import warnings
from numbers import Real

import numpy as np
from sklearn.metrics import accuracy_score

from .._dpsgd._plan import PUBLIC_N_SAMPLES
from ..base import _n_rows
from ..exceptions import PrivacyLeakWarning
from ..mechanisms import gaussian_noise
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


def _released_score(estimator, X_val, y_val, scorer, center):
    """The statistic a run releases (before noise): ``sum_i (term_i - center)`` over the
    validation rows, where the score is the mean of the terms.

    Adding or removing one validation row changes it by ``term - center``, at most
    ``(high - low) / 2`` for terms in ``[low, high]`` and ``center = (low + high) / 2``,
    whatever the number of validation rows: the noise added to it is fixed before the split
    (see ``_tuning_accounting``). A mean would not do: its sensitivity ``1 / n_val`` depends on
    the realised size of the random validation part, which is private.
    """
    n_val = _n_rows(X_val)
    if not n_val:
        return 0.0  # an empty sum
    return n_val * (float(scorer(estimator, X_val, y_val)) - center)


def _fit_and_score(
    estimator, X_train, y_train, X_val, y_val, fit_params, scorer, center, noise_std, rng
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
    released = _released_score(estimator, X_val, y_val, scorer, center)
    noisy = released + float(gaussian_noise(noise_std, random_state=rng))
    return estimator, noisy, caveats


def _accuracy(estimator, X, y):
    return accuracy_score(y, estimator.predict(X))


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
