"""The candidate space of a private search: parsing it, and what it makes public.

Everything here reads only the search's parameters (the estimator and the space), never the
data: the candidates, their probabilities and the caveats the search states are functions of
public information. That matters for the caveats (see :func:`space_caveats`): a caveat that
only some candidates produce, stated only when such a candidate ran, would tell which
candidates ran, and so something about the secret number of runs.
"""

import itertools
import math
from collections.abc import Mapping, Sequence
from numbers import Real

import numpy as np
from sklearn.base import clone

from .. import _caveats

__all__ = []

_MAX_SUPPORT = 10_000  # candidates whose privacy plans are computed at each calibration step
_PRIVACY_PARAMS = ("epsilon", "delta", "accountant", "random_state")


# --- learning rates relative to the "auto" one ----------------------------------------------
class RelativeToAuto:
    """A learning rate given as a multiple of the estimator's ``"auto"`` learning rate.

    A value for ``learning_rate`` in the space of :class:`PrivateRandomSearchCV` or
    :class:`PrivateGridSearchCV`: ``RelativeToAuto(factor)`` trains the run with ``factor``
    times the learning rate ``learning_rate="auto"`` would choose for that run. The
    ``"auto"`` rate depends on the run's own plan (its epsilon, which the search
    calibrates, its steps and the planned number of training rows), so it cannot be
    written as a number before the search; a multiple of it can. ``RelativeToAuto(1.0)`` is
    ``"auto"`` itself. Plain numbers in the space keep their meaning: an absolute learning
    rate.

    The rate is resolved from public numbers only, before any data is read; the released
    model ``best_estimator_`` holds the number it was trained with, and ``best_params_``
    this object.

    Parameters
    ----------
    factor : float
        The multiple of the ``"auto"`` learning rate, > 0.

    See Also
    --------
    PrivateRandomSearchCV : A search whose space can hold these values.

    Notes
    -----
    Only the ``learning_rate`` of the search's DP model (the estimator itself, or a
    Pipeline's last step) takes these values, and only for estimators with an ``"auto"``
    learning rate (:class:`~skprivate.linear_model.DPLSSGDClassifier`,
    :class:`~skprivate.linear_model.DPLSSGDRegressor`).

    Examples
    --------
    >>> from skprivate.model_selection import RelativeToAuto
    >>> space = {"learning_rate": [RelativeToAuto(f) for f in (0.5, 1.0, 2.0)]}
    >>> space["learning_rate"][0]
    RelativeToAuto(0.5)
    >>> RelativeToAuto(2) == RelativeToAuto(2.0)
    True
    """

    def __init__(self, factor):
        ok = isinstance(factor, Real) and not isinstance(factor, bool)
        if not (ok and math.isfinite(factor) and factor > 0):
            raise ValueError(
                f"RelativeToAuto: factor must be a finite number > 0 (the multiple of the "
                f"'auto' learning rate); got {factor!r}."
            )
        self.factor = float(factor)

    def __repr__(self):
        return f"RelativeToAuto({self.factor:g})"

    def __eq__(self, other):
        return isinstance(other, RelativeToAuto) and other.factor == self.factor

    def __hash__(self):
        return hash((RelativeToAuto, self.factor))


def _relative_keys(support):
    return sorted({k for params in support for k, v in params.items()
                   if isinstance(v, RelativeToAuto)})


def _check_relative(name, estimator, support):
    """Refuse ``RelativeToAuto`` anywhere but the DP model's ``learning_rate``."""
    for key in _relative_keys(support):
        params = next(p for p in support if isinstance(p.get(key), RelativeToAuto))
        model = dp_step(clone(estimator).set_params(**params))
        if key.rsplit("__", 1)[-1] != "learning_rate" or not isinstance(
            model.get_params(deep=False).get("learning_rate"), RelativeToAuto
        ) or not hasattr(model, "_resolved"):
            raise TypeError(
                f"{name}: {key!r} holds RelativeToAuto values, which only the learning_rate "
                "of the DP model (the estimator, or a Pipeline's last step) takes, for an "
                "estimator with learning_rate='auto' (DPLSSGDClassifier, "
                f"DPLSSGDRegressor); {type(model).__name__} there is not one. Give "
                "absolute values instead."
            )


def resolve_relative(model, n_samples):
    """Set a ``RelativeToAuto`` learning rate of ``model`` to the number it stands for.

    ``model`` is the run's DP model with its run budget already set; ``n_samples`` the
    public number of rows it plans on. The ``"auto"`` rate is read from the plan, a function
    of public numbers only (``skprivate._dpsgd._plan.auto_learning_rate``).
    """
    value = model.get_params(deep=False).get("learning_rate")
    if not isinstance(value, RelativeToAuto):
        return model
    model.set_params(learning_rate="auto")
    auto = model._resolved(model._plan(n_samples), n_samples)[0]
    return model.set_params(learning_rate=auto * value.factor)


# --- the DP steps inside a (possibly nested) Pipeline ----------------------------------------
def dp_step(estimator):
    """The differentially private model in ``estimator``: itself, or the Pipeline's last step.

    Private preprocessing steps (``skprivate.preprocessing``) may come before it: see
    :func:`run_dp_steps`.
    """
    if hasattr(estimator, "_privacy_plan"):
        return estimator
    steps = getattr(estimator, "steps", None)
    if steps:
        last = steps[-1][1]
        if last not in (None, "passthrough") and (
            hasattr(last, "_privacy_plan") or getattr(last, "steps", None)
        ):
            return dp_step(last)
        raise TypeError(
            f"The Pipeline's last step must be a differentially private estimator; got "
            f"{type(last).__name__ if not isinstance(last, str) else repr(last)}. Put the DP "
            "estimator last (private preprocessing from skprivate.preprocessing, or "
            "preprocessing with public parameters, before it)."
        )
    raise TypeError(
        f"{type(estimator).__name__} is not a differentially private estimator (it has no "
        "privacy plan), so tuning it on private data has no privacy guarantee to compute. "
        "Pass a skprivate DP estimator (for example DPLSSGDClassifier), or a Pipeline whose "
        "last step is one."
    )


def run_dp_steps(estimator):
    """``(path, step)`` of every DP step of a run, in fitting order, the model last.

    The private preprocessing steps (inside Pipelines, ColumnTransformers and
    FeatureUnions, as :func:`skprivate.accounting.total_privacy_cost` walks them) and the
    model :func:`dp_step`. On a fitted estimator, the fitted copies a ColumnTransformer
    holds.
    """
    from ..accounting._total import dp_steps

    model = dp_step(estimator)
    steps = dp_steps(estimator)
    if not steps or steps[-1][1] is not model:  # pragma: no cover - dp_step found it last
        raise RuntimeError("the DP model is not the last DP step; please report.")
    return steps


def dp_objects(estimator):
    """Every DP estimator object inside ``estimator``, the unfitted templates a fitted
    ColumnTransformer keeps (``transformers``) as well as its fitted copies."""
    from ..accounting._total import dp_steps

    found = [step for _, step in dp_steps(estimator)]
    for step in _nested(estimator):
        if hasattr(step, "transformers") and hasattr(step, "transformers_"):
            found.extend(s for _, t, _ in step.transformers for _, s in dp_steps(t))
    return list({id(s): s for s in found}.values())


def _nested(estimator):
    yield estimator
    children = [s for _, s in getattr(estimator, "steps", None) or []]
    children += [t for _, t, _ in getattr(estimator, "transformers", None) or []]
    children += [t for _, t, _ in getattr(estimator, "transformers_", None) or []]
    children += [t for _, t in getattr(estimator, "transformer_list", None) or []]
    for child in children:
        if child is not None and not isinstance(child, str):
            yield from _nested(child)


def split_run_budget(estimator, epsilon, delta):
    """Give a run's budget ``(epsilon, delta)`` to its DP steps; return ``run_dp_steps``.

    The rule of :func:`skprivate.preprocessing.make_private_pipeline`: the private
    preprocessing steps that spend (a declared encoder does not) share
    ``DEFAULT_PREPROCESSING_SHARE`` of ``epsilon`` and ``delta`` equally, the model gets the
    rest; with no such step the model gets it all. The split only shapes the noise: the
    run's cost is the Renyi-DP composition of the steps' planned spends, computed from
    those plans (``_calibration``), never from this arithmetic. Each step's own accountant is
    set to None: the search charges its accountant once for the whole search.
    """
    from ..preprocessing._pipeline import DEFAULT_PREPROCESSING_SHARE, _spends

    steps = run_dp_steps(estimator)
    model = steps[-1][1]
    spending = [step for _, step in steps[:-1] if _spends(step)]
    share = DEFAULT_PREPROCESSING_SHARE if spending else 0.0
    for step in spending:
        step.set_params(epsilon=epsilon * share / len(spending),
                        delta=delta * share / len(spending), accountant=None)
    for _, step in steps[:-1]:
        if "accountant" in step.get_params(deep=False):
            step.set_params(accountant=None)
    model.set_params(epsilon=epsilon * (1.0 - share), delta=delta * (1.0 - share),
                     accountant=None)
    return steps


# --- parsing ---------------------------------------------------------------------------------
def _check_values(name, key, values):
    if hasattr(values, "rvs"):
        raise TypeError(
            f"{name}: {key!r} is a distribution ({type(values).__name__}). The privacy cost "
            "of a search is bounded over every value a run can draw, so each parameter needs "
            f"a finite list of values; give a list, for example np.geomspace(1e-3, 1, 8)."
        )
    if isinstance(values, str) or not isinstance(values, (Sequence, np.ndarray)):
        raise TypeError(
            f"{name}: the values of {key!r} must be a list or array; got "
            f"{type(values).__name__} {values!r}."
        )
    if len(values) == 0:
        raise ValueError(f"{name}: {key!r} has an empty list of values; give at least one.")
    return list(values)


def _as_dicts(name, space, what):
    dicts = [space] if isinstance(space, Mapping) else space
    if not isinstance(dicts, (list, tuple)) or not all(isinstance(d, Mapping) for d in dicts):
        raise TypeError(f"{name}: {what} must be a dict or a list of dicts; got {space!r}.")
    if len(dicts) == 0:
        raise ValueError(f"{name}: {what} is empty; give at least one candidate.")
    return dicts


def _grid_points(name, grid):
    points = []
    for values in grid:
        keys = sorted(values)
        lists = [_check_values(name, k, values[k]) for k in keys]
        points.extend(dict(zip(keys, combo)) for combo in itertools.product(*lists))
    return points


def random_support(name, space, what="param_distributions"):
    """Candidates of a random search and their probabilities.

    A dict is picked uniformly, then each value uniformly: a point's probability is
    ``1 / (n_dicts * product of list lengths)``, repeated values adding up.
    """
    dicts = _as_dicts(name, space, what)
    support, probs = [], []
    for d in dicts:
        points = _grid_points(name, [d])
        support.extend(points)
        probs.extend([1.0 / (len(dicts) * max(len(points), 1))] * len(points))
    probs = np.asarray(probs, dtype=float)
    return support, probs / probs.sum() if len(probs) else probs


def grid_support(name, space, what="param_grid"):
    """Candidates of a grid search: every point of every grid, equally likely."""
    points = _grid_points(name, _as_dicts(name, space, what))
    return points, np.full(len(points), 1.0 / max(len(points), 1))


def check_space(name, estimator, support):
    """Refuse an empty or too large space, privacy parameters in it, and unknown names."""
    if not support:
        raise ValueError(
            f"{name}: the search space is empty; give at least one value for each parameter."
        )
    if len(support) > _MAX_SUPPORT:
        raise ValueError(
            f"{name}: the search space has {len(support)} candidates, more than "
            f"{_MAX_SUPPORT}; the privacy plan of every candidate is checked, so use "
            "fewer values."
        )
    touched = sorted(
        {k for params in support for k in params if k.rsplit("__", 1)[-1] in _PRIVACY_PARAMS}
    )
    if touched:
        raise ValueError(
            f"{name}: the search space sets {touched}; the privacy parameters (epsilon, "
            "delta, accountant, random_state) belong to the search, which calibrates "
            "them for every run. Remove them from the space."
        )
    for params in support:  # unknown names fail here, before any data is read
        clone(estimator).set_params(**params)
    _check_relative(name, estimator, support)


# --- what the space makes public: the caveats ------------------------------------------------
def space_caveats(estimator, support, classes):
    """Caveats of every candidate of the space, decided from public information only.

    The union, over the whole space, of the steps that learn from the private rows outside
    the guarantee (:func:`skprivate.accounting.leaking_steps`) and of the caveats each
    candidate's parameters decide (:func:`~skprivate.accounting._leaks.parameter_caveats`). Whether a candidate ran, and
    how many runs there were, plays no part: a union over the runs that happened would state
    a caveat only some candidates produce exactly when one of them ran, which tells something
    about the secret number of runs. Every candidate that can run weakens the guarantee of
    the one released, so each counts whether it ran or not.
    """
    from ..accounting._leaks import leaking_steps, parameter_caveats

    caveats = []
    for params in support:
        candidate = clone(estimator).set_params(**params)
        for step in leaking_steps(candidate):
            if step.caveats:  # a private step whose guarantee is void: stated just below
                continue
            caveats.append(_caveats.preprocessing_learned(
                f"step '{step.path}' ({step.name}, which learns {step.learns})", step.remedy
            ))
        for _, step in run_dp_steps(candidate):
            caveats.extend(parameter_caveats(step, classes, planned=False))
    return list(dict.fromkeys(caveats))  # in the space's order, each sentence once
