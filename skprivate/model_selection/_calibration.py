"""Calibration of a private search from public numbers: the per-run epsilon, the score noise.

The search's total privacy cost as a function of the per-run epsilon is computed with the
theorems of :mod:`._tuning_accounting` (where the privacy argument is stated); this module
solves for the largest per-run epsilon whose total stays within the search's ``epsilon``,
never above it. Only public quantities enter: the parameters, the candidate space and the
public (planned) number of training rows.
"""

import math

import numpy as np
from sklearn.base import clone

from .._dpsgd._plan import DPSGDPlanMixin
from ..accounting._calibrate import NoFeasiblePointError, solve_monotone
from ..exceptions import InfeasiblePrivacyError
from . import _tuning_accounting as ta
from ._candidates import dp_step, resolve_relative, split_run_budget

__all__ = []


def plan_curve(spend, name):
    """RDP curve of a planned spend: its event, or pure DP; approximate DP is refused.

    ``name`` says whose plan it is in the error (the search checks every step first, with
    :func:`check_has_curve`, so that its error names the step and its fix).
    """
    if spend.event is not None:
        return ta.event_rdp(spend.event)
    if spend.delta == 0:
        return ta.pure_dp_rdp(spend.epsilon)
    raise TypeError(
        f"{name}'s privacy plan states only (epsilon={spend.epsilon:.4g}, "
        f"delta={spend.delta:.3g}), without a Renyi-DP curve (a dp_accounting event). "
        + _WHY_CURVE
    )


# Why a run's plan needs a curve: said once, in every refusal.
_WHY_CURVE = (
    "The tuning theorems this search uses (Papernot and Steinke 2022, Theorems 2 and 6) "
    "need the Renyi-DP curve of one run, the sum of its steps' curves; the approximate-DP "
    "route (Liu and Talwar 2019) is not implemented, because its bound is far weaker and "
    "its constants could not be checked here."
)


def check_has_curve(search_name, path, step, spend, is_model):
    """Refuse, naming the step and its fix, a DP step of a run whose plan has no RDP curve.

    A run's Renyi-DP curve is the sum of its steps' curves (:func:`run_curve`), so any step
    whose plan states only ``(epsilon, delta)`` makes the run untunable, whichever step it
    is: the error names that step, not the model at the end of the pipeline. Read from the
    plans alone, before any data is read.
    """
    if spend.event is not None or spend.delta == 0:
        return
    kind = type(step).__name__
    stated = (
        f"states only (epsilon={spend.epsilon:.4g}, delta={spend.delta:.3g}), without a "
        "Renyi-DP curve (a dp_accounting event). "
    )
    if is_model:
        raise TypeError(
            f"{search_name}: the estimator {kind}'s privacy plan {stated}{_WHY_CURVE} Tune "
            "an estimator whose plan has a curve (skprivate's DP-SGD estimators: the "
            "DP-LSSGD linear models and the nets) or is pure DP, or spend part of your "
            f"budget on one fit of {kind} with hyperparameters fixed in advance."
        )
    if "categories" in step.get_params(deep=False):
        fix = (
            f"Declare the categories, {kind}(categories=[[...], ...]) (public knowledge: "
            "it costs nothing and has no such plan), or fit the encoder once outside the "
            "search with its own share of the budget and pass its fitted categories_ as "
            "categories= to the step the search tunes (basic composition adds the two)."
        )
    else:
        fix = (
            "Give the step public parameters (then it costs nothing), or fit it once "
            "outside the search with its own share of the budget (basic composition adds "
            "the two)."
        )
    raise TypeError(
        f"{search_name}: the step '{path}' ({kind}) is fitted in every run, and its "
        f"privacy plan {stated}{_WHY_CURVE} The model at the end of the pipeline is not "
        f"the cause. {fix}"
    )


def _event_key(event):
    """A dictionary key for a dp_accounting event (a ComposedDpEvent holds a list)."""
    try:
        hash(event)
    except TypeError:
        return repr(event)  # attrs' repr names every field, recursively
    return event


def candidate_spends(search, support, eps_run, n_train, n_preprocessing=None):
    """Each candidate's planned spends when a run has ``eps_run`` and ``n_train`` rows.

    One tuple per candidate of ``(path, PrivacySpend)``, one per DP step of the run (private
    preprocessing first, the model last), the run's budget split between them by
    :func:`._candidates.split_run_budget`. Every plan is computed from public numbers
    before any data is read. The preprocessing steps are planned on ``n_preprocessing``
    rows when given (to check that their plans ignore the number of rows: they are not told
    the public one, see :func:`check_public_plans`).
    """
    spends = []
    for params in support:
        candidate = clone(search.estimator).set_params(**params)
        steps = split_run_budget(candidate, eps_run, search.delta)
        resolve_relative(steps[-1][1], n_train)
        n_pre = n_train if n_preprocessing is None else n_preprocessing
        run = []
        for k, (path, step) in enumerate(steps):
            is_model = k == len(steps) - 1
            spend = step._privacy_plan(n_train if is_model else n_pre)
            check_has_curve(type(search).__name__, path, step, spend, is_model)
            run.append((path, spend))
        spends.append(tuple(run))
    return spends


def run_curve(run_spends, name, cache=None):
    """Renyi-DP curve of one run: the sum of its steps' curves.

    The steps (private preprocessing, then the model fitted on its output) all read the
    run's training part, each chosen after the previous ones' outputs: adaptive composition
    of Renyi DP adds their curves order by order (Mironov 2017, Proposition 1).
    """
    cache = {} if cache is None else cache
    total = np.zeros(ta.ORDERS.size)
    for _, spend in run_spends:
        key = (spend.epsilon, spend.delta, _event_key(spend.event))
        if key not in cache:
            cache[key] = plan_curve(spend, name)
        total = total + cache[key]
    return total


def _score_noise_multiplier(search, eps_run):
    if search.score_epsilon is not None:
        return ta.gaussian_noise_multiplier(search.score_epsilon, search.delta)
    return ta.gaussian_noise_multiplier(eps_run, search.delta)


def _total(search, support, eps_run, n_train, cache):
    """Whole-search epsilon if every run trains with ``eps_run`` (inf if infeasible)."""
    try:
        spends = candidate_spends(search, support, eps_run, n_train)
    except InfeasiblePrivacyError:
        return math.inf, None, None
    name = type(dp_step(search.estimator)).__name__
    curves = [run_curve(run, name, cache) for run in spends]
    z = cache.get("score_z") if search.score_epsilon is not None else None
    if z is None:
        z = _score_noise_multiplier(search, eps_run)
        if search.score_epsilon is not None:
            cache["score_z"] = z  # fixed: solved once
    total = ta.tuning_epsilon(
        curves, ta.gaussian_rdp(z), search._distribution(), search.mean_candidates,
        search.delta,
    )
    return total, z, spends


def too_small(search, n_train, floor, epsilon):
    """The error for a budget that cannot train even one candidate."""
    counted = "" if epsilon == search.epsilon else (
        f", {epsilon:.4g} of it left after the noisy count of the rows"
    )
    return InfeasiblePrivacyError(
        f"{type(search).__name__}: epsilon={search.epsilon!r} (delta={search.delta!r}"
        f"{counted}) is too small to train even one candidate. Releasing the best of a "
        "random number of "
        f"runs (n_candidates_distribution={search._renamed_params()[0]!r}, mean_candidates="
        f"{search.mean_candidates!r}) costs epsilon {floor:.3g} even for runs that spend "
        "nothing, and the estimator must train within what is left (on "
        f"{n_train} training rows; a fixed noise_multiplier spends what it spends). "
        "Raise epsilon, lower mean_candidates, or use more rows."
    )


def calibrate(search, support, n_train, epsilon, rtol=0.02):
    """Largest per-run epsilon whose runs and selection stay within ``epsilon`` (to ``rtol``).

    ``epsilon`` is the search's budget, less what its noisy count of the rows spent (see
    ``_search_base``). Returns ``(eps_run, total, z, spends)``: the per-run epsilon, the
    epsilon of the runs and their selection (never above ``epsilon``), the score's noise
    multiplier and each candidate's planned spend. The total grows with ``eps_run``; a bracket (lo feasible, hi not) is
    narrowed by Illinois false position on ``log(total)`` against ``log(eps_run)``
    (:func:`skprivate.accounting._calibrate.solve_monotone`), and the answer is always a
    feasible point, so the budget is never overshot.
    """
    if search._renamed_params()[0] != "poisson" and search.mean_candidates <= 1:
        # gamma = 1: the truncated negative binomial is then one run for sure
        raise ValueError(
            f"{type(search).__name__}: mean_candidates={search.mean_candidates!r} with "
            f"n_candidates_distribution={search._renamed_params()[0]!r} means exactly one run, "
            "with no choice to "
            "make: fit the estimator itself, or use mean_candidates > 1."
        )
    target = float(epsilon)
    cache, results = {}, {}

    def f(eps_run):
        results[eps_run] = _total(search, support, eps_run, n_train, cache)
        return results[eps_run][0]

    def answer(eps_run):
        return (eps_run, *results[eps_run])

    # The selection alone (runs that cost nothing) already costs this much.
    zero = np.zeros(ta.ORDERS.size)
    floor = ta.tuning_epsilon(
        [zero], zero, search._distribution(), search.mean_candidates, search.delta
    )
    if floor >= target:
        raise too_small(search, n_train, floor, target)
    # From target / 3, doubling (up to the whole budget: a run never costs more than the
    # search) or halving (down to target / 1000) to a bracket, then Illinois false position
    # on log(total) against log(eps_run): the package's one calibration solver.
    try:
        eps_run = solve_monotone(
            f, target, increasing=True, lower=target * 1e-3, upper=target,
            start=target / 3.0, rtol=rtol, xtol=1e-6, method="illinois", max_steps=30,
        )
    except NoFeasiblePointError:
        raise too_small(search, n_train, floor, target) from None
    return answer(eps_run)


def check_public_plans(search, dp, support, eps_run, n_train_public, spends):
    """Whether the model must be told the public number of rows to plan on (or refuse).

    The realised size of a run's training part is private: a row that is added changes
    it. Every sampling rate, number of steps and noise scale of a run must therefore come
    from a public number. skprivate's DP-SGD estimators, as the run's model, plan on the
    number the search gives them (``_dpsgd._plan.PUBLIC_N_SAMPLES``); a step whose plan does
    not depend on the number of rows (the private scalers, a pure-DP estimator) needs
    nothing; any other is refused, before any data is read.
    """
    told = isinstance(dp, DPSGDPlanMixin)
    for n in {max(1, n_train_public // 2), 2 * n_train_public}:
        try:
            if told:  # only the preprocessing steps can depend on n
                others = candidate_spends(search, support, eps_run, n_train_public, n)
            else:
                others = candidate_spends(search, support, eps_run, n)
        except (InfeasiblePrivacyError, ValueError):
            others = None
        changed = None if others is not None else "its"
        for run, other in zip(spends, others or ()):
            for (path, a), (_, b) in zip(run, other):
                if changed is None and (a.epsilon, a.delta, a.event) != (
                    b.epsilon, b.delta, b.event
                ):
                    changed = path
        if changed is not None:
            what = (
                type(dp).__name__ if changed == "its" else f"the step '{changed}'"
            )
            raise TypeError(
                f"{type(search).__name__}: the privacy plan of {what} depends on the "
                "number of rows it is fitted on, and a run's training part has a random "
                "size that depends on the private rows (the split assigns each row "
                "independently), so the run's noise would depend on the data. Tune "
                "steps whose plans ignore the number of rows (skprivate.preprocessing's "
                "scalers), with one of skprivate's DP-SGD estimators last, which plans on "
                "the public expected size the search gives it."
            )
    return told
