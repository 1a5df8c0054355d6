"""What a model selection run spent, recomputed from the fitted objects."""

import warnings
from collections.abc import Mapping

from sklearn.base import clone, is_classifier
from sklearn.model_selection import check_cv

from ..exceptions import PrivacyLeakWarning
from ._budget import BudgetAccountant, PrivacySpend

__all__ = ["total_privacy_cost"]


def _dp_parts(estimator):
    """The differentially private estimators inside ``estimator`` (itself, or Pipeline steps)."""
    if hasattr(estimator, "_privacy_plan"):
        return [estimator]
    steps = getattr(estimator, "steps", None)
    if steps is not None:  # a Pipeline: every DP step reads the training rows
        return [part for _, step in steps for part in _dp_parts(step)]
    return []


def _fitted_spends(estimator):
    parts = _dp_parts(estimator)
    missing = [type(p).__name__ for p in parts if not hasattr(p, "epsilon_")]
    if missing:
        raise ValueError(
            f"total_privacy_cost: {', '.join(missing)} is not fitted, so it spent nothing yet; "
            "pass fitted estimators."
        )
    return [
        getattr(p, "_privacy_spend_record", None)
        or PrivacySpend(p.epsilon_, p.delta_, label=type(p).__name__)
        for p in parts
    ]


def _search_spends(search, X, y, groups):
    if X is None:
        raise ValueError(
            f"total_privacy_cost: {type(search).__name__} keeps no fitted model per candidate "
            "and split, so the cost of each fit is recomputed from the training-fold sizes: "
            "pass the data the search was fitted on, total_privacy_cost(search, X, y, groups)."
        )
    cv = check_cv(search.cv, y, classifier=is_classifier(search.estimator))
    fold_sizes = [len(train) for train, _ in cv.split(X, y, groups)]
    spends = []
    for params in search.cv_results_["params"]:
        candidate = clone(search.estimator).set_params(**params)
        parts = _dp_parts(candidate)
        for n_train in fold_sizes:
            spends.extend(part._privacy_plan(n_train) for part in parts)
    if hasattr(search, "best_estimator_"):  # the refit on all rows
        spends.extend(_fitted_spends(search.best_estimator_))
    warnings.warn(
        f"total_privacy_cost: {type(search).__name__} chose its best candidate with "
        "validation scores computed on the private data without noise. The total covers "
        "every fit; the choice itself is not differentially private.",
        PrivacyLeakWarning,
        stacklevel=3,
    )
    return spends


def total_privacy_cost(fitted, X=None, y=None, groups=None, *, composition="basic"):
    """Total ``(epsilon, delta)`` spent by fitted estimators, a search, or ``cross_validate``.

    Use it when fits ran where no shared :class:`BudgetAccountant` could follow them, for
    example ``GridSearchCV(n_jobs=2)`` or ``cross_validate(n_jobs=2)``, whose joblib workers
    hold copies of any accountant.

    Parameters
    ----------
    fitted : estimator, list of estimators, fitted search, or dict
        One of:

        - a fitted skprivate estimator, or a Pipeline containing some: its ``epsilon_`` and
          ``delta_``;
        - a list or tuple of such estimators;
        - the dict returned by ``sklearn.model_selection.cross_validate(...,
          return_estimator=True)``;
        - a fitted ``GridSearchCV``, ``RandomizedSearchCV`` or other ``BaseSearchCV``: every
          candidate on every training fold, recomputed from the candidate's parameters and
          the fold's size with the estimator's own privacy plan (the search keeps no
          per-fold models), plus the refit ``best_estimator_``. Pass ``X`` (and ``y``,
          ``groups`` if the splitter uses them) as given to the search's ``fit``.
    X, y, groups : array-like, default=None
        Only for searches: the data the search was fitted on; only their number of rows and
        the split are used.
    composition : {"basic", "auto"}, default="basic"
        ``"basic"`` adds epsilons and deltas (the total most reports quote); ``"auto"``
        composes spends with events in Renyi DP, as :class:`BudgetAccountant` does.

    Returns
    -------
    epsilon : float
        The total epsilon.
    delta : float
        The total delta.

    Notes
    -----
    All fits of a search read the same private rows, so their costs compose. A search's
    choice of the best candidate uses noiseless validation scores on private rows and is not
    covered by this total (a :class:`~skprivate.exceptions.PrivacyLeakWarning` says so).
    Only skprivate's differentially private steps are counted: a non-private step fitted on
    the private rows (a ``StandardScaler``, say) is outside every guarantee.

    Examples
    --------
    >>> from skprivate.accounting import BudgetAccountant, total_privacy_cost
    >>> total_privacy_cost([])
    (0.0, 0.0)
    """
    if composition not in ("basic", "auto"):
        raise ValueError(
            f"total_privacy_cost: composition must be 'basic' or 'auto'; got {composition!r}."
        )
    if hasattr(fitted, "cv_results_") and not hasattr(fitted, "_privacy_plan"):
        # a scikit-learn search; a private search is a DP estimator with its own spend
        spends = _search_spends(fitted, X, y, groups)
    elif isinstance(fitted, Mapping):
        if "estimator" not in fitted:
            raise ValueError(
                "total_privacy_cost: this cross_validate result has no 'estimator' entry; run "
                "cross_validate(..., return_estimator=True) so the fitted estimators, and "
                "their spends, are kept."
            )
        spends = [s for est in fitted["estimator"] for s in _fitted_spends(est)]
    elif isinstance(fitted, (list, tuple)):
        spends = [s for est in fitted for s in _fitted_spends(est)]
    else:
        spends = _fitted_spends(fitted)
        if not spends:
            raise ValueError(
                f"total_privacy_cost: {type(fitted).__name__} is not a skprivate estimator, a "
                "Pipeline containing one, a list of them, a cross_validate result or a fitted "
                "search."
            )
    ledger = BudgetAccountant(composition=composition)
    for spend in spends:
        ledger._record(spend)
    return ledger.total()
