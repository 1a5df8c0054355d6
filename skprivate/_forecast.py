"""Forecasts of usefulness from public numbers, made before any row is read.

One mechanism for every estimator. A forecast is a function of public numbers only (the
parameters, ``epsilon``, ``delta``, the number of features, classes and public points, and
the number of rows the fit planned on: the noisy count of :mod:`skprivate._row_count`, or
the exact one where it is declared public), so computing it and printing it is
post-processing of what the fit releases anyway and costs no privacy. Each estimator
supplies a *quantity* that grows (or falls) with the rows and with ``epsilon`` and a
threshold calibrated on the benchmarks' small tables, next to its constant; this module
finds the rows and the epsilon that leave the region where the benchmarks gave no better
than a constant predictor, and words the :class:`~skprivate.exceptions.UtilityWarning`.

The estimators that use it: the dropout estimators (``skprivate.dropout._chance``, the
noise-to-signal ratio), :class:`~skprivate.DPLSSGDClassifier` (rows x epsilon against the
dimension), ``DPLSSGDNeuralNetClassifier`` (rows x epsilon per trainable weight),
:class:`~skprivate.PATEClassifier` (answers afforded, rows per teacher) and the
private :class:`~skprivate.preprocessing.OneHotEncoder` (the release threshold against the
rows). The guarantee (``epsilon_``, ``delta_``) never depends on a forecast.
"""

import math
import warnings

from .accounting._calibrate import NoFeasiblePointError, solve_monotone
from .base import _user_stacklevel
from .exceptions import UtilityWarning

__all__ = []

# How far a way out is searched: up to this factor above the current rows or epsilon.
_SEARCH_FACTOR = 2.0**20


def value_needed(quantity, threshold, start, *, increasing=True, integer=False):
    """The smallest ``v >= start`` (up to ``start * 2**20``) where ``quantity(v)`` reaches
    ``threshold``, or None.

    ``quantity`` is monotone in ``v`` (the rows or the epsilon of a plan): increasing when a
    larger value is better (``quantity(v) >= threshold`` is the goal), decreasing otherwise
    (``quantity(v) <= threshold``). The package's one solver
    (:func:`~skprivate.accounting._calibrate.solve_monotone`: doubling, then geometric
    bisection). ``integer=True`` rounds up (a number of rows).
    """
    start = float(start)
    at = (lambda v: quantity(int(math.ceil(v)))) if integer else quantity
    # The solver finds the smallest x with fun(x) <= target for a non-increasing fun: a
    # quantity that must grow to the threshold is negated.
    sign = -1.0 if increasing else 1.0
    try:
        value = solve_monotone(
            lambda v: sign * at(v), sign * threshold, increasing=False, lower=start,
            upper=start * _SEARCH_FACTOR, start=start, xtol=1e-12,
        )
    except NoFeasiblePointError:
        return None
    return int(math.ceil(value)) if integer else float(value)


def way_out_text(alternative, *, epsilon=None, rows_needed=None, epsilon_needed=None):
    """The sentence that names the way out: the better estimator, then the rows (at this
    epsilon) and the epsilon (on these rows) that leave the chance region."""
    parts = [alternative] if alternative else []
    if rows_needed is not None:
        at = f" at epsilon={epsilon:g}" if epsilon is not None else " at this epsilon"
        parts.append(f"about {int(rows_needed):,} rows{at}")
    if epsilon_needed is not None:
        parts.append(f"epsilon of about {epsilon_needed:.3g} on these rows")
    return "; or ".join(parts)


_BEFORE = "a forecast from public numbers only, made before reading the data"


def warn_forecast(estimator, finding, outcome, alternative, *, epsilon=None,
                  rows_needed=None, epsilon_needed=None, source=_BEFORE):
    """Emit the :class:`~skprivate.exceptions.UtilityWarning` of a forecast; return its text.

    ``finding``: the public numbers and what they give (one clause); ``outcome``: what the
    benchmarks gave in that region (None: the finding says it all); ``alternative``: the
    better estimator or setting. ``source`` says what was read, so a reader knows it cost
    nothing: public numbers before the data (the default), or a released value after.
    """
    where = f", where the benchmarks gave {outcome}" if outcome else ""
    message = (
        f"{type(estimator).__name__}: {finding} ({source}){where}. Instead, "
        + way_out_text(
            alternative, epsilon=epsilon, rows_needed=rows_needed,
            epsilon_needed=epsilon_needed,
        )
        + "."
    )
    warnings.warn(message, UtilityWarning, stacklevel=_user_stacklevel())
    return message


def warn_rows_epsilon(estimator, n_plan, epsilon, size, threshold, *, finding, outcome,
                      alternative):
    """The rows x epsilon forecast: warn when ``n_plan * epsilon / size`` is below
    ``threshold`` (``size``: coefficients or weights), naming the rows and the epsilon
    that reach it. ``finding`` is formatted with ``ratio`` (the value) and ``n_plan``.
    Returns the message, or None when there is nothing to say."""

    def ratio(n, eps=epsilon):
        return n * eps / size

    if ratio(n_plan) >= threshold:
        return None
    return warn_forecast(
        estimator, finding.format(ratio=ratio(n_plan), n_plan=n_plan), outcome, alternative,
        epsilon=epsilon,
        rows_needed=value_needed(ratio, threshold, n_plan, integer=True),
        epsilon_needed=value_needed(lambda e: ratio(n_plan, e), threshold, epsilon),
    )
