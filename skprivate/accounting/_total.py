"""What a model selection run or a pipeline spent, recomputed from the fitted objects."""

import dataclasses
import warnings
from collections.abc import Mapping

from sklearn.base import clone, is_classifier, is_regressor
from sklearn.model_selection import check_cv

from .._caveats import GUARANTEE_VOID, Caveat
from ..exceptions import PrivacyLeakWarning
from ._budget import BudgetAccountant, PrivacySpend
from ._leaks import dp_steps, leaking_steps
from ._public import COLUMNS, PublicInput, public_inputs

__all__ = ["PrivacyCost", "total_privacy_cost"]

# The relation of every skprivate guarantee (each fit's report says it too).
NEIGHBOURING = "add/remove one row"


def _dp_parts(estimator):
    """The differentially private estimators inside ``estimator``."""
    return [step for _, step in dp_steps(estimator)]


def _fitted_spends(estimator):
    parts = dp_steps(estimator)
    missing = [type(p).__name__ for _, p in parts if not hasattr(p, "epsilon_")]
    if missing:
        raise ValueError(
            f"total_privacy_cost: {', '.join(missing)} is not fitted, so it spent nothing yet; "
            "pass fitted estimators."
        )
    spends = []
    for path, p in parts:
        spend = getattr(p, "_privacy_spend_record", None) or PrivacySpend(
            p.epsilon_, p.delta_, label=type(p).__name__
        )
        if len(parts) > 1 or "/" in path:  # name the step where a pipeline has several
            spend = dataclasses.replace(spend, label=path)
        spends.append(spend)
    return spends


class PrivacyCost(tuple):
    """The ``(epsilon, delta)`` of :func:`total_privacy_cost`, with how it was obtained.

    It is a pair (``epsilon, delta = cost`` works) that also says how the spends were
    composed, what basic composition gives, what it adds up, which steps it does not
    cover, the neighbouring relation it holds for and what it assumes public.

    Attributes
    ----------
    epsilon, delta : float
        The total.
    composition : str
        ``"auto"`` (Renyi DP where the spends carry events, as :class:`BudgetAccountant`
        does, else basic) or ``"basic"``.
    basic_epsilon : float
        The sum of the epsilons (basic composition), always a valid bound too.
    spends : list of PrivacySpend
        What was added up, labelled by step.
    leaks : list of LeakingStep
        Steps that learned from the rows without a guarantee: the total does not cover
        them (see :func:`leaking_steps`). A differentially private step whose bounds or
        classes were read from the rows is one of them.
    neighbouring : str
        The neighbouring relation the total holds for (every skprivate step's:
        ``"add/remove one row"``).
    public : list of PublicInput
        What the guarantee takes as known without the rows, step by step (see
        :func:`public_inputs`): the columns, the number of rows of every fit that read it
        exactly or was told it is public, declared bounds, classes and categories.
    caveats : list of Caveat
        The steps' other caveats (a fixed seed, a large delta), labelled by step: the
        guarantee holds, qualified as they say.

    Examples
    --------
    >>> from skprivate.accounting import PrivacyCost
    >>> cost = PrivacyCost(1.5, 1e-5, composition="basic", basic_epsilon=1.5)
    >>> epsilon, delta = cost
    >>> cost
    PrivacyCost(epsilon=1.5, delta=1e-05, composition='basic'; neighbouring: add/remove one
    row; public: nothing)
    """

    def __new__(cls, epsilon, delta, *, composition, basic_epsilon, spends=(), leaks=(),
                neighbouring=NEIGHBOURING, public=(), caveats=()):
        self = super().__new__(cls, (float(epsilon), float(delta)))
        self.composition = composition
        self.basic_epsilon = float(basic_epsilon)
        self.spends = list(spends)
        self.leaks = list(leaks)
        self.neighbouring = neighbouring
        self.public = list(public)
        self.caveats = list(caveats)
        return self

    def __getnewargs_ex__(self):
        return (tuple(self), {"composition": self.composition,
                              "basic_epsilon": self.basic_epsilon,
                              "spends": self.spends, "leaks": self.leaks,
                              "neighbouring": self.neighbouring, "public": self.public,
                              "caveats": self.caveats})

    @property
    def epsilon(self):
        return self[0]

    @property
    def delta(self):
        return self[1]

    def __repr__(self):
        text = f"epsilon={self[0]:.6g}, delta={self[1]:.3g}, composition={self.composition!r}"
        if self.basic_epsilon > self[0] * (1 + 1e-9):
            text += f" (basic composition: epsilon={self.basic_epsilon:.6g})"
        if self.leaks:
            text += f"; NOT covered: {', '.join(repr(s.path) for s in self.leaks)}"
        text += f"; neighbouring: {self.neighbouring}"
        names = [item.name if item.step is None else f"{item.name} of {item.step!r}"
                 for item in self.public]
        text += f"; public: {', '.join(names) if names else 'nothing'}"
        return f"PrivacyCost({text})"

    @property
    def report(self):
        """A :class:`~skprivate.base.PrivacyReport` of the whole: total, steps, what is
        assumed public, caveats."""
        from ..base import PrivacyReport

        return PrivacyReport(
            epsilon=self[0],
            delta=self[1],
            composition=self.composition,
            basic_epsilon=self.basic_epsilon,
            neighbouring=self.neighbouring,
            steps=[f"{s.label}: epsilon={s.epsilon:.4g}, delta={s.delta:.3g}"
                   for s in self.spends],
            public=list(self.public),
            caveats=[s.caveat for s in self.leaks] + self.caveats,
        )


def _assumptions(estimators):
    """``(neighbouring, public, caveats)`` of the DP steps of fitted ``estimators``.

    ``public`` lists the columns once, then each step's public inputs (the same item of the
    same step once, for cross_validate's repeated fits); ``caveats`` the steps' caveats
    that qualify their guarantee without voiding it (those that void it are leaks).
    """
    relations, public, caveats = [], [PublicInput("columns", COLUMNS)], []
    for est in estimators:
        for path, step in dp_steps(est):
            report = getattr(step, "privacy_report_", None) or {}
            relations.append(report.get("neighbouring", NEIGHBOURING))
            public.extend(dataclasses.replace(item, step=path)
                          for item in public_inputs(step, report) if item.name != "columns")
            caveats.extend(
                Caveat(c.code, f"{path}: {c}") for c in report.get("caveats", ())
                if getattr(c, "code", None) not in GUARANTEE_VOID
                and getattr(c, "code", None) is not None
            )
    relations = list(dict.fromkeys(relations))
    neighbouring = relations[0] if len(relations) == 1 else (
        "; ".join(relations) if relations else NEIGHBOURING)
    return neighbouring, list(dict.fromkeys(public)), list(dict.fromkeys(caveats))


def _leak_warning(leaks, stacklevel=3):
    if leaks:
        warnings.warn(
            "total_privacy_cost: the total does not cover "
            + "; ".join(s.caveat for s in leaks) + ".",
            PrivacyLeakWarning,
            stacklevel=stacklevel,
        )


def _unique_leaks(estimators):
    seen, out = set(), []
    for est in estimators:
        for step in leaking_steps(est):
            if step.path not in seen:
                seen.add(step.path)
                out.append(step)
    return out


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
            # what each fold's fit is charged (a bound where it planned on a noisy count)
            spends.extend(
                getattr(part, "_spend_bound", part._privacy_plan)(n_train) for part in parts
            )
    if hasattr(search, "best_estimator_"):  # the refit on all rows
        spends.extend(_fitted_spends(search.best_estimator_))
    # The search itself is the first leak (its noiseless choice); its candidates' steps follow.
    leaks = leaking_steps(search)
    others = [s for s in leaks if s.estimator is not search]
    more = ("; it also does not cover " + "; ".join(s.caveat for s in others)) if others else ""
    warnings.warn(
        f"total_privacy_cost: {type(search).__name__} chose its best candidate with "
        "validation scores computed on the private data without noise. The total covers "
        f"every fit; the choice itself is not differentially private{more}.",
        PrivacyLeakWarning,
        stacklevel=3,
    )
    return spends, leaks


def total_privacy_cost(fitted, X=None, y=None, groups=None, *, composition="auto"):
    """Total ``(epsilon, delta)`` spent by fitted estimators, a search, or ``cross_validate``.

    Use it when fits ran where no shared :class:`BudgetAccountant` could follow them, for
    example ``GridSearchCV(n_jobs=2)`` or ``cross_validate(n_jobs=2)``, whose joblib workers
    hold copies of any accountant.

    Parameters
    ----------
    fitted : estimator, list of estimators, fitted search, or dict
        One of:

        - a fitted skprivate estimator, or a Pipeline containing some (inside
          ColumnTransformers and FeatureUnions too): their ``epsilon_`` and ``delta_``;
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
    composition : {"auto", "basic"}, default="auto"
        ``"auto"`` composes the spends that carry a ``dp_accounting`` event in Renyi DP
        and adds the rest, keeping the smaller of that and the plain sum, exactly as
        :class:`BudgetAccountant` (whose default is also ``"auto"``) does, so the two
        agree; ``"basic"`` adds epsilons and deltas. The result shows both.

    Returns
    -------
    cost : PrivacyCost
        The pair ``(epsilon, delta)`` (unpack it as such), with ``composition``,
        ``basic_epsilon`` (the plain sum), ``spends`` (labelled by step), ``leaks`` (the
        steps not covered), ``neighbouring`` (the relation the total holds for),
        ``public`` (what it assumes known without the rows, step by step) and ``caveats``
        as attributes, and a ``report``. Its text (``repr``) states all of these.

    Warns
    -----
    PrivacyLeakWarning
        When a step learned from the rows without a guarantee (a scikit-learn scaler or
        encoder in the pipeline, a non-private model, a private step whose bounds or
        classes were read from the rows) or a search chose its best candidate without
        noise, naming each step and its data-independent alternative.

    Notes
    -----
    All fits of a search read the same private rows, so their costs compose. A search's
    choice of the best candidate uses noiseless validation scores on private rows and is not
    covered by this total (a :class:`~skprivate.exceptions.PrivacyLeakWarning` says so).
    Only skprivate's differentially private steps are counted: a non-private step fitted on
    the private rows (a ``StandardScaler``, say) is outside every guarantee; it is named in
    ``leaks`` and in the warning (see :func:`leaking_steps`). So is a private step whose
    report says its guarantee is void (its bounds or its classes read from the rows: the
    caveat codes of :data:`skprivate._caveats.GUARANTEE_VOID`): its ``epsilon_`` is added
    up, but does not cover what it read.

    The total holds for add/remove-one-row neighbours (``neighbouring``) and takes as
    public what each fit did (``public``, read by :func:`public_inputs`): the columns;
    the number of rows of every fit that read it exactly (a fit whose report has no
    ``"number of rows"`` entry) or was told it is public (``n_samples_public=True``),
    but not of a fit that released a noisy count; declared bounds, norms, classes and
    categories; PATE's public points.

    Before version 0.2 the default was ``"basic"``, which could print 9.99 where a
    ``BudgetAccountant`` printed 3.12 for the same search; both numbers are valid bounds,
    the smaller is the one to quote.

    Examples
    --------
    >>> from skprivate.accounting import BudgetAccountant, total_privacy_cost
    >>> total_privacy_cost([])
    PrivacyCost(epsilon=0, delta=0, composition='auto'; neighbouring: add/remove one row;
    public: nothing)

    A private scaler and a private classifier: one total, each step named.

    >>> import warnings
    >>> from sklearn.datasets import load_breast_cancer
    >>> from skprivate.linear_model import DPLSSGDClassifier
    >>> from skprivate.preprocessing import StandardScaler, make_private_pipeline
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> pipe = make_private_pipeline(
    ...     StandardScaler(bounds=(0, 4000), random_state=0),
    ...     DPLSSGDClassifier(classes=[0, 1], random_state=0), epsilon=1.0,
    ... )
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the seed caveats: random_state=0
    ...     cost = total_privacy_cost(pipe.fit(X, y))
    >>> round(cost.basic_epsilon, 6), cost.epsilon <= 1.0, cost.leaks
    (1.0, True, [])
    >>> [spend.label for spend in cost.spends]
    ['standardscaler', 'dplssgdclassifier']
    >>> cost.neighbouring
    'add/remove one row'
    >>> print(cost.public[1])
    standardscaler: bounds (declared: bounds=(0, 4000))
    """
    if composition not in ("basic", "auto"):
        raise ValueError(
            f"total_privacy_cost: composition must be 'basic' or 'auto'; got {composition!r}."
        )
    if hasattr(fitted, "cv_results_") and not hasattr(fitted, "_privacy_plan"):
        # a scikit-learn search; a private search is a DP estimator with its own spend
        spends, leaks = _search_spends(fitted, X, y, groups)
        best = getattr(fitted, "best_estimator_", None)
        fits = [fitted.estimator if best is None else best]
    elif isinstance(fitted, Mapping):
        if "estimator" not in fitted:
            raise ValueError(
                "total_privacy_cost: this cross_validate result has no 'estimator' entry; run "
                "cross_validate(..., return_estimator=True) so the fitted estimators, and "
                "their spends, are kept."
            )
        fits = list(fitted["estimator"])
        spends = [s for est in fits for s in _fitted_spends(est)]
        leaks = _unique_leaks(fits)
        _leak_warning(leaks)
    elif isinstance(fitted, (list, tuple)):
        fits = list(fitted)
        spends = [s for est in fits for s in _fitted_spends(est)]
        leaks = _unique_leaks(fits)
        _leak_warning(leaks)
    else:
        fits = [fitted]
        spends = _fitted_spends(fitted)
        if not spends:
            if hasattr(fitted, "__sklearn_tags__") and (
                is_classifier(fitted) or is_regressor(fitted)
            ):  # a model with no spend: GEMSCombiner, a scikit-learn model, a Pipeline of them
                raise ValueError(
                    f"total_privacy_cost: {type(fitted).__name__} is not differentially "
                    "private: it is a model of the rows with no privacy guarantee, so it has "
                    "no privacy cost to add up. Fit a skprivate differentially private "
                    "estimator instead."
                )
            raise ValueError(
                f"total_privacy_cost: {type(fitted).__name__} is not a skprivate estimator, a "
                "Pipeline containing one, a list of them, a cross_validate result or a fitted "
                "search."
            )
        leaks = leaking_steps(fitted)
        _leak_warning(leaks)
    ledger = BudgetAccountant(composition=composition)
    for spend in spends:
        ledger._record(spend)
    epsilon, delta = ledger.total()
    basic = sum(s.epsilon for s in spends)
    neighbouring, public, caveats = _assumptions(fits) if spends else (NEIGHBOURING, [], [])
    return PrivacyCost(epsilon, delta, composition=composition, basic_epsilon=basic,
                       spends=spends, leaks=leaks, neighbouring=neighbouring, public=public,
                       caveats=caveats)
