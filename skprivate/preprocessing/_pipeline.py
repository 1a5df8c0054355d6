"""One privacy budget for a whole Pipeline: private preprocessing and a private estimator."""

import inspect
import math
import warnings
from numbers import Real

from sklearn.base import clone
from sklearn.pipeline import make_pipeline

from ..accounting._leaks import _spends, dp_steps, leaking_steps
from ..exceptions import InfeasiblePrivacyError, PrivacyLeakWarning

__all__ = ["DEFAULT_PREPROCESSING_SHARE", "make_private_pipeline"]

# Share of the budget given to the private preprocessing steps together. Measured by
# benchmarks/private_preprocessing.py at total epsilon 1 (3 seeds, paired noise): Adult is
# indifferent (0.852-0.853 for 5-30 %), digits prefers less (0.920 at 5 %, 0.911 at 10 %,
# 0.900 at 20 %), breast cancer more (0.924 at 5 %, 0.936 at 10 %, 0.943 at 20 %). 20 % is
# the smallest share within one point of scikit-learn's (leaky) scaler on all three
# (Adult 0.853, digits 0.909, breast cancer 0.949).
DEFAULT_PREPROCESSING_SHARE = 0.2


# Parameters with which a step fixes its own privacy loss, whatever epsilon it is given:
# set, they make the split a fiction (a DP-SGD step given noise_multiplier=0.3 reports an
# epsilon_ in the hundreds however small its share), so such a step is refused by name.
BUDGET_OVERRIDES = {
    "noise_multiplier": (
        "a fixed noise multiplier makes the step ignore epsilon (its epsilon_ is then "
        "whatever that noise achieves on the rows it is given)",
        "remove noise_multiplier (leave it None) so that the noise is calibrated to the "
        "share of epsilon the pipeline assigns",
    ),
}


# A backstop for a parameter not known by name (a user's own private estimator): the plan of
# each step on this many rows, with its share set, must fit in that share. Few rows, because
# a noise fixed in advance costs most there (the largest sampling rate); a calibrated step
# meets its share at every size.
PLAN_CHECK_ROWS = 100


def _plan_exceeds(est, epsilon, delta):
    """``(epsilon, delta)`` of ``est``'s plan on :data:`PLAN_CHECK_ROWS` rows with its share,
    if it exceeds the share; None if it fits or the plan cannot be made on so few rows."""
    probe = clone(est).set_params(epsilon=epsilon, delta=delta)
    try:
        plan = probe._privacy_plan(PLAN_CHECK_ROWS)
    except Exception:  # infeasible on so few rows, or needs fitted state: the fit will say
        return None
    if plan.epsilon > epsilon * (1 + 1e-6) or plan.delta > delta * (1 + 1e-6):
        return plan.epsilon, plan.delta
    return None


def _default(est, name):
    """The default of parameter ``name`` in ``est``'s ``__init__`` (inspect.Parameter.empty)."""
    try:
        parameter = inspect.signature(type(est).__init__).parameters.get(name)
    except (TypeError, ValueError):
        return inspect.Parameter.empty
    return inspect.Parameter.empty if parameter is None else parameter.default


def _differs(value, target):
    if not (isinstance(value, Real) and not isinstance(value, bool)):
        return True  # None (no budget) or not a number: no share can be honoured
    return not math.isclose(float(value), float(target), rel_tol=1e-9, abs_tol=0.0)


def _check_budget_not_overridden(path, est, epsilon, delta):
    """Refuse, before any data is read, a step whose parameters override its assigned share.

    Three cases: a parameter of :data:`BUDGET_OVERRIDES` is set; ``epsilon``/``delta`` was
    set explicitly (a value other than the class default) to something else than the share,
    which make_private_pipeline would otherwise overwrite without a word; or, for a
    parameter not known by name, the step's plan exceeds its share (:func:`_plan_exceeds`).
    """
    params = est.get_params(deep=False)
    name = type(est).__name__
    for key, (why, fix) in BUDGET_OVERRIDES.items():
        if params.get(key) is not None:
            raise InfeasiblePrivacyError(
                f"make_private_pipeline: step '{path}' ({name}) was given {key}="
                f"{params[key]!r}, which overrides the budget the pipeline assigns it "
                f"(epsilon={epsilon:.4g}): {why}. Fix: {fix}, or build the pipeline with "
                "sklearn.pipeline.make_pipeline and account for it yourself."
            )
    for key, target in (("epsilon", epsilon), ("delta", delta)):
        if key not in params:
            continue
        value, default = params[key], _default(est, key)
        explicit = default is inspect.Parameter.empty or not (
            value is default or (value is not None and default is not None
                                 and not _differs(value, default)))
        if explicit and _differs(value, target):
            raise InfeasiblePrivacyError(
                f"make_private_pipeline: step '{path}' ({name}) was given {key}={value!r}, but "
                f"the pipeline assigns it {key}={target:.6g} (its share of the pipeline's "
                f"{key}), which would silently replace it. Fix: leave {key} at its default "
                "and set the pipeline's total (make_private_pipeline(..., epsilon=, delta=, "
                "preprocessing_share=)), or give the step the assigned value."
            )
    over = _plan_exceeds(est, epsilon, delta)
    if over is not None:
        raise InfeasiblePrivacyError(
            f"make_private_pipeline: step '{path}' ({name}) plans to spend epsilon="
            f"{over[0]:.4g}, delta={over[1]:.3g} on {PLAN_CHECK_ROWS} rows, more than the "
            f"share the pipeline assigns it (epsilon={epsilon:.4g}, delta={delta:.3g}): one "
            "of its parameters fixes its own privacy loss. Fix: leave the parameters that "
            "set its noise at their defaults, so that it is calibrated to its share, or "
            "build the pipeline with sklearn.pipeline.make_pipeline and account for it "
            "yourself."
        )


def make_private_pipeline(*steps, epsilon=1.0, delta=1e-5,
                          preprocessing_share=DEFAULT_PREPROCESSING_SHARE, accountant=None,
                          memory=None, verbose=False):
    """A Pipeline whose differentially private steps share one budget ``(epsilon, delta)``.

    Like :func:`sklearn.pipeline.make_pipeline`, with the privacy parameters of every
    skprivate step set so that the whole pipeline is ``(epsilon, delta)``-DP by basic
    composition: the private preprocessing steps (inside ColumnTransformers too) share
    ``preprocessing_share`` of the budget equally, and the final estimator gets the rest.
    Steps that cost nothing (declared categories, :class:`BoundedScaler`,
    :class:`BoundedKBinsDiscretizer`) get nothing.

    Parameters
    ----------
    *steps : estimators
        The steps, the last a skprivate differentially private estimator. They are
        cloned: the originals are left as they were.
    epsilon : float, default=1.0
        Total privacy budget of a fit of the pipeline, > 0.
    delta : float, default=1e-5
        Total delta, in (0, 1), split in the same proportions.
    preprocessing_share : float, default=0.2
        Fraction of ``epsilon`` and ``delta`` for the private preprocessing, in (0, 1).
        Measured on three data sets (see Notes).
    accountant : BudgetAccountant, default=None
        Given to every private step, so that the accountant sees each one's spend.
    memory : str or object with the joblib.Memory interface, default=None
        As in :func:`sklearn.pipeline.make_pipeline`.
    verbose : bool, default=False
        As in :func:`sklearn.pipeline.make_pipeline`.

    Returns
    -------
    Pipeline

    Raises
    ------
    InfeasiblePrivacyError
        Before any data is read, naming the step and the parameter, if a private step's
        parameters override the share it is assigned: a parameter that fixes its own
        loss (``noise_multiplier`` on a DP-SGD step, with which its ``epsilon_`` is
        whatever that noise achieves), or an ``epsilon``/``delta`` set to
        something other than the class default and other than the share (it would be
        replaced without a word; ``epsilon=None`` included). As a backstop for a
        parameter not known by name, each step's plan on 100 rows, with its share set,
        must fit in that share.

    Warns
    -----
    PrivacyLeakWarning
        If a step learns from the rows without a guarantee (a scikit-learn
        ``StandardScaler``, say), or a private step will read its bounds or its classes
        from the rows (``bounds=None``, ``classes=None``), naming it: the total does not
        cover it.

    See Also
    --------
    skprivate.accounting.total_privacy_cost : The fitted pipeline's total.
    StandardScaler : The private scaler.

    Notes
    -----
    The steps all read the same rows, so their spends add up (Dwork and Roth 2014,
    Theorem 3.16): ``sum(epsilon_i) = epsilon`` and ``sum(delta_i) <= delta``. That holds
    only if every step spends what it is given, which is why a step that fixes its own
    loss is refused; a later ``pipe.set_params(..., noise_multiplier=...)`` is not
    checked, and :func:`~skprivate.accounting.total_privacy_cost` of the fitted pipeline
    is then the number to quote. Composing
    their Renyi-DP curves (``total_privacy_cost(pipe)``, ``BudgetAccountant``) gives a
    total at most ``epsilon``, often below it.

    The default share, 20 %, was measured with ``benchmarks/private_preprocessing.py`` at
    total epsilon 1: Adult does not care (0.852 to 0.853 for 5 to 30 %), digits prefers
    less (0.920 at 5 %, 0.911 at 10 %, 0.900 at 20 %), breast cancer, with 398 rows and
    loose bounds, more (0.924 at 5 %, 0.936 at 10 %, 0.943 at 20 %). 20 % is the smallest
    share that keeps all three within one point of the same classifier behind
    scikit-learn's scaler (0.853, 0.909, 0.949), whose statistics leak. With many rows and
    tight bounds, less is enough.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from skprivate.linear_model import DPLSSGDClassifier
    >>> from skprivate.preprocessing import StandardScaler, make_private_pipeline
    >>> pipe = make_private_pipeline(
    ...     StandardScaler(bounds=(0, 4000)), DPLSSGDClassifier(classes=[0, 1]),
    ...     epsilon=1.0, delta=1e-5,
    ... )
    >>> [(name, step.epsilon) for name, step in pipe.steps]
    [('standardscaler', 0.2), ('dplssgdclassifier', 0.8)]

    A step that sets its own loss is refused, by name, before any data is read:

    >>> make_private_pipeline(DPLSSGDClassifier(classes=[0, 1], noise_multiplier=0.3))
    Traceback (most recent call last):
    ...
    skprivate.exceptions.InfeasiblePrivacyError: make_private_pipeline: step ...
    """
    if not steps:
        raise ValueError("make_private_pipeline: pass at least one step (the DP estimator).")
    for name, value, low in (("epsilon", epsilon, 0.0), ("delta", delta, 0.0),
                             ("preprocessing_share", preprocessing_share, 0.0)):
        ok = isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)
        if not (ok and value > low and (name == "epsilon" or value < 1)):
            allowed = "> 0" if name == "epsilon" else "in (0, 1)"
            raise ValueError(
                f"make_private_pipeline: {name} must be a number {allowed}; got {value!r}."
            )
    steps = [s if isinstance(s, str) or s is None else clone(s) for s in steps]
    final = steps[-1]
    if not hasattr(final, "_privacy_plan"):
        raise TypeError(
            f"make_private_pipeline: the last step must be a skprivate differentially "
            f"private estimator (for example DPLSSGDClassifier); got "
            f"{type(final).__name__}. Use sklearn.pipeline.make_pipeline for a non-private "
            "pipeline."
        )
    pipe = make_pipeline(*steps, memory=memory, verbose=verbose)
    named = pipe.steps
    preprocessing = [(path, est) for name, s in named[:-1]
                     for path, est in dp_steps(s, name) if _spends(est)]
    share = preprocessing_share if preprocessing else 0.0
    assigned = [(path, est, epsilon * share / len(preprocessing),
                 delta * share / len(preprocessing)) for path, est in preprocessing]
    assigned.append((named[-1][0], final, epsilon * (1.0 - share), delta * (1.0 - share)))
    for path, est, eps, dlt in assigned:  # every refusal before anything is changed
        _check_budget_not_overridden(path, est, eps, dlt)
    for _, est, eps, dlt in assigned:
        est.set_params(epsilon=eps, delta=dlt)
    if accountant is not None:
        for s in steps:
            for _, est in dp_steps(s):
                est.set_params(accountant=accountant)
    leaks = leaking_steps(pipe)
    if leaks:
        warnings.warn(
            "make_private_pipeline: the pipeline's epsilon does not cover "
            + "; ".join(step.caveat for step in leaks) + ".",
            PrivacyLeakWarning,
            stacklevel=2,
        )
    return pipe

