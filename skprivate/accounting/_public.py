"""What a fit's guarantee assumes public: the inputs it does not protect.

Every guarantee in skprivate is stated for add/remove-one-row neighbours. Such a guarantee
protects the rows; it says nothing about what the fit took as known without looking at them,
and a report that does not say what that was reads cleaner than it is. This module lists it,
for one fitted estimator (the ``"public"`` entry of ``privacy_report_``) and for a total
(:attr:`~skprivate.accounting.PrivacyCost.public`):

- the columns: their number (and names), always (the schema, not the rows);
- the number of rows, unless the fit released a noisy count (the ``"number of rows"`` report
  entry of :func:`skprivate._row_count.count_report`) or declares that it uses no exact
  count; a fit whose report says nothing about it read the exact number, so the number is
  listed as treated as public;
- declared bounds and norms (``bounds``, ``data_norm``, ``y_bound``), classes and categories:
  parameters the user states are known without the rows;
- PATE's public points (``X_public``, or the rows labelled -1), which are not protected.

What was *read from the rows* instead (bounds, classes) is not assumed public: it is released
outside the guarantee, and :func:`~skprivate.accounting.leaking_steps` counts it as a leak.
"""

import dataclasses
import inspect

import numpy as np

from ._leaks import dp_steps

__all__ = ["PublicInput", "public_inputs"]

# The report key of :func:`skprivate._row_count.count_report`, and the words it uses when the
# user declared the number public. Read here, once; tests/accounting/test_public.py checks both
# against count_report itself, so a change of its wording fails there, not silently here.
ROW_COUNT_KEY = "number of rows"
_DECLARED_PUBLIC = "treated as public"

# Class attribute by which an estimator whose fit publishes nothing computed from the exact
# number of rows says so (a sentence: why). The private preprocessors set it: their count is
# one of the noisy released sums, or enters only a mechanism whose analysis covers add/remove.
ROW_COUNT_UNUSED = "_skprivate_row_count_unused"

COLUMNS = "their number and names: the schema, not the rows"
ROWS_READ_EXACTLY = (
    "read exactly, so treated as public: this fit released no noisy count of the rows, and "
    "under add/remove-one-row neighbours its guarantee assumes whoever reads the model knows it"
)


@dataclasses.dataclass(frozen=True)
class PublicInput:
    """One input a fit's guarantee takes as public.

    Parameters
    ----------
    name : str
        What: ``"columns"``, ``"number of rows"``, ``"bounds"``, ``"classes"``, ...
    how : str
        Why it is public: declared (with the value), or read exactly.
    step : str or None, default=None
        The pipeline step it belongs to (in a total; None in a fit's own report).

    Examples
    --------
    >>> from skprivate.accounting import PublicInput
    >>> print(PublicInput("classes", "declared: classes=[0, 1]", step="clf"))
    clf: classes (declared: classes=[0, 1])
    """

    name: str
    how: str
    step: str = None

    def __str__(self):
        where = f"{self.step}: " if self.step else ""
        return f"{where}{self.name} ({self.how})"


def _shown(value):
    """A short readable form of a declared value (long arrays are summarised)."""
    if isinstance(value, (tuple, list)) and any(np.ndim(v) > 0 for v in value):
        inner = ", ".join(_shown(v) for v in value)
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    if np.size(value) > 6:
        return f"array of {np.size(value)}"
    if isinstance(value, np.ndarray):
        return repr(value.tolist())
    return repr(value)


def _row_count(estimator, report):
    """The ``number of rows`` item, or None when the fit's number of rows is not public."""
    entry = report.get(ROW_COUNT_KEY) if report is not None else None
    if entry is not None:
        if _DECLARED_PUBLIC in str(entry):
            return PublicInput(ROW_COUNT_KEY, str(entry))
        return None  # a noisy count, part of epsilon_: private
    if getattr(estimator, ROW_COUNT_UNUSED, None):
        return None
    return PublicInput(ROW_COUNT_KEY, ROWS_READ_EXACTLY)


def _declared(estimator):
    """Declared bounds, norms, classes and categories: parameters stated to be public."""
    try:
        params = estimator.get_params(deep=False)
    except Exception:  # not an estimator: nothing declared
        return []
    out = []
    for key in ("bounds", "data_norm", "y_bound", "bounds_X", "bounds_y"):
        if params.get(key) is not None:
            out.append(PublicInput(key, f"declared: {key}={_shown(params[key])}"))
    if params.get("classes") is not None:
        out.append(PublicInput("classes", f"declared: classes={_shown(params['classes'])}"))
    if params.get("min_categories") is not None:  # CategoricalNB: the number of codes
        out.append(PublicInput(
            "min_categories", f"declared: min_categories={_shown(params['min_categories'])}"))
    categories = params.get("categories")
    if categories is not None and not isinstance(categories, str):
        out.append(PublicInput("categories", "declared: one list per feature"))
    return out


def _takes_public_points(estimator):
    try:
        return "X_public" in inspect.signature(type(estimator).fit).parameters
    except (TypeError, ValueError, AttributeError):
        return False


def public_inputs(estimator, report=None):
    """What the guarantee of ``estimator``'s fit takes as public.

    Parameters
    ----------
    estimator : estimator
        A skprivate differentially private estimator (fitted, or being finished).
    report : mapping, default=None
        Its privacy report so far (default: ``estimator.privacy_report_`` if fitted); its
        ``"number of rows"`` entry says whether the number of rows was released privately.

    Returns
    -------
    inputs : list of PublicInput
        Always the columns first; then the number of rows where it was read exactly or
        declared public, the declared parameters, and PATE's public points.

    Examples
    --------
    >>> from skprivate.accounting import public_inputs
    >>> from skprivate.preprocessing import OneHotEncoder
    >>> [item.name for item in public_inputs(OneHotEncoder(categories=[["a", "b"]]), {})]
    ['columns', 'categories']
    """
    if report is None:
        report = getattr(estimator, "privacy_report_", None)
    out = [PublicInput("columns", COLUMNS)]
    rows = _row_count(estimator, report)
    if rows is not None:
        out.append(rows)
    out.extend(_declared(estimator))
    if _takes_public_points(estimator):
        out.append(PublicInput(
            "public points",
            "X_public (or the rows labelled -1): the teachers answer about them and the "
            "student learns from them; they are not protected",
        ))
    inner = getattr(estimator, "estimator", None)
    if inner is not None and (hasattr(estimator, "param_distributions")
                              or hasattr(estimator, "param_grid")):
        # a private search: its candidates' declared inputs are public too
        for path, step in dp_steps(inner):
            out.extend(dataclasses.replace(item, name=f"{path}: {item.name}")
                       for item in _declared(step))
    return out
