"""Private quantiles: permute-and-flip over a public grid, with an exact integer rank utility.

Mechanism. For the ``q``-quantile of one column, the candidates are the ``resolution + 1``
points ``lower + (upper - lower) i / resolution`` of the public range (``i = 0..resolution``),
and candidate ``c`` has utility ``u(c) = -max(#{x_i < c} - q n, q n - #{x_i <= c}, 0)`` over
the ``n`` present values (clipped to the bounds): 0 exactly when ``c`` is a ``q``-quantile of
the data (at least ``q n`` values at or below it, at most ``q n`` below it), so that tied
values (ages in whole years) do not flatten the utility around the answer, as the plain
``-|#{x_i < c} - q n|`` does. Sensitivity ``max(q, 1 - q)`` under add/remove one row: adding
a row ``z`` makes ``q n -> q n + q`` and adds 0 or 1 to each count, so ``#{x_i < c} - q n``
moves by ``1 - q`` or ``-q`` and ``q n - #{x_i <= c}`` by ``q`` or ``q - 1``; the maximum
with 0 is 1-Lipschitz in both (:mod:`skprivate.mechanisms._quantile`, shared with the
private preprocessors; ``n`` changing with the row is covered, so no noisy count is needed). With ``q = a / b`` an exact fraction (the float's
exact binary value), ``b u(c)`` is an integer with sensitivity ``max(a, b - a)``, which is
what :func:`skprivate.mechanisms._selection.permute_and_flip` takes: epsilon-DP (McKenna and
Sheldon 2020, Theorem 1), sampled with integer arithmetic only.

Discretisation. The release is a grid point, so on top of the mechanism's error it is off by
at most half a grid step, ``(upper - lower) / (2 resolution)``, from the best candidate
(0.036 years for ages in [17, 90] with the default 1024 steps).

Composition. Several quantiles, and several output columns (a row adds to every column's
ranks), split ``epsilon`` equally and add up (basic composition, Dwork and Roth 2014,
Theorem 3.16).
"""

from numbers import Integral

import numpy as np

from ..mechanisms import check_rng
from ..mechanisms._quantile import quantile_candidates, rank_quantile_index
from ..utils._docstrings import Substitution, fragment
from ._common import (
    Rows,
    as_fraction_quantile,
    charge,
    check_accountant,
    check_epsilon,
    finish,
    resolve_bounds,
    split_epsilon,
)
from ._docs import STATS_DOCS

__all__ = ["median", "nanmedian", "nanpercentile", "nanquantile", "percentile", "quantile"]

_RESOLUTION_DOC = fragment("""
    resolution : int, default=1024
        Number of equal steps the public range is divided into; the ``resolution + 1``
        step ends are the candidates, so the result is off by at most
        ``(upper - lower) / (2 resolution)`` from the best candidate. Public, chosen without
        the data: 1024 puts that error below 0.05 %% of the range while the selection costs
        about a millisecond per quantile.""").replace("%%", "%")

_QUANTILE_NOTES = fragment("""
    Mechanism: permute-and-flip (McKenna and Sheldon 2020, Theorem 1: epsilon-DP) over the
    ``resolution + 1`` evenly spaced points of the public range, with the rank utility
    ``-max(#{x_i < c} - q n, q n - #{x_i <= c}, 0)`` of sensitivity ``max(q, 1 - q)``
    under add/remove one row, sampled exactly with integer arithmetic
    (:mod:`skprivate.mechanisms._selection`). Values are clipped to the bounds. Each of
    the ``len(q)`` quantiles of each output entry gets an equal share of ``epsilon``
    (basic composition).""")


def _check_resolution(resolution, name):
    if isinstance(resolution, bool) or not isinstance(resolution, Integral) \
            or not 1 <= resolution <= 2**20:
        raise ValueError(
            f"{name}: resolution must be an int in [1, 2**20]; got {resolution!r}. Use the "
            "default 1024, or more steps for a finer result (slower)."
        )
    return int(resolution)


def _quantile(name, a, q, axis, keepdims, bounds, epsilon, random_state, accountant,
              resolution, nan, scale):
    epsilon = check_epsilon(epsilon)
    check_accountant(accountant)
    resolution = _check_resolution(resolution, name)
    fractions, q_shape = as_fraction_quantile(q, name, scale)
    rows = Rows(a, axis, keepdims, name)
    charge(accountant, name, epsilon)
    if not nan:
        rows.check_no_nan()
    lower, upper, caveats = resolve_bounds(bounds, rows)
    rng = check_rng(random_state)
    k = rows.n_outputs
    parts = split_epsilon(epsilon, [1] * (k * len(fractions)))
    eps_each = min(parts)
    X = np.clip(rows.X, lower, upper)  # NaN stays NaN and sorts last
    X.sort(axis=0)
    present = (~np.isnan(X)).sum(axis=0)
    out = np.empty((len(fractions), k))
    # The public grid of each column (in half units: bounds wider than the largest double
    # give finite candidates), and one exact permute-and-flip per column and quantile.
    candidates = quantile_candidates(lower, upper, resolution)
    for j in range(k):  # over output columns, not rows
        values = X[: present[j], j]
        for i, frac in enumerate(fractions):  # over the quantiles asked for
            pick = rank_quantile_index(values, candidates[:, j], frac, eps_each, rng)
            out[i, j] = candidates[pick, j]
    values = [rows.shape_output(out[i]) for i in range(len(fractions))]
    value = values[0] if q_shape == () else np.asarray(values)
    mechanism = (
        f"permute-and-flip over {resolution + 1} evenly spaced candidates in the bounds, rank "
        f"utility of sensitivity max(q, 1 - q), epsilon {eps_each:.4g} for each of the "
        f"{len(fractions) * k} quantile(s) (basic composition), exact integer sampling"
    )
    return finish(name, value, epsilon, 0.0, mechanism, caveats, random_state)


def _quantile_doc(q_doc, see_also, example):
    return f"""
    Parameters
    ----------
    %(a)s
    {q_doc}
    %(axis)s
    %(keepdims)s
    %(bounds)s
    %(epsilon)s
    %(random_state)s
    %(accountant)s
    %(resolution)s

    Returns
    -------
    result : PrivateResult
        The released quantile(s), with shape ``q.shape + output shape`` as in NumPy, and
        their guarantee.

    See Also
    --------
    {see_also}

    Notes
    -----
    %(notes)s

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import stats
    >>> ages = np.array([23, 35, 41, 52, 67] * 200)
{example}
    """


_Q = "q : float or array-like of float\n        Quantile(s) in [0, 1]."
_P = "q : float or array-like of float\n        Percentile(s) in [0, 100]."
_SUBS = dict(STATS_DOCS, resolution=_RESOLUTION_DOC, notes=_QUANTILE_NOTES)


def quantile(a, q, axis=None, keepdims=False, *, bounds=None, epsilon=1.0,
             random_state=None, accountant=None, resolution=1024):
    return _quantile("quantile", a, q, axis, keepdims, bounds, epsilon, random_state,
                     accountant, resolution, False, 1)


quantile.__doc__ = "Differentially private quantile(s) of values clipped to public bounds.\n" \
    + _quantile_doc(_Q, "median : The 0.5-quantile.\n    nanquantile : Leaving NaN out.",
                    "    >>> float(stats.quantile(ages, 0.5, bounds=(0, 128), random_state=0))\n"
                    "    41.0")
quantile = Substitution(**_SUBS)(quantile)


def nanquantile(a, q, axis=None, keepdims=False, *, bounds=None, epsilon=1.0,
                random_state=None, accountant=None, resolution=1024):
    return _quantile("nanquantile", a, q, axis, keepdims, bounds, epsilon, random_state,
                     accountant, resolution, True, 1)


nanquantile.__doc__ = "Differentially private quantile(s), leaving NaN out.\n" \
    + _quantile_doc(_Q, "quantile : The same, refusing NaN.",
                    "    >>> q = stats.nanquantile(np.append(ages, np.nan), [0.25, 0.75],\n"
                    "    ...                       bounds=(0, 128), random_state=0)\n"
                    "    >>> np.asarray(q).round(1).tolist()\n"
                    "    [35.0, 52.0]")
nanquantile = Substitution(**_SUBS)(nanquantile)


def percentile(a, q, axis=None, keepdims=False, *, bounds=None, epsilon=1.0,
               random_state=None, accountant=None, resolution=1024):
    return _quantile("percentile", a, q, axis, keepdims, bounds, epsilon, random_state,
                     accountant, resolution, False, 100)


percentile.__doc__ = "Differentially private percentile(s): :func:`quantile` of ``q / 100``.\n" \
    + _quantile_doc(_P, "quantile : The same in [0, 1].",
                    "    >>> float(stats.percentile(ages, 50, bounds=(0, 128), random_state=0))\n"
                    "    41.0")
percentile = Substitution(**_SUBS)(percentile)


def nanpercentile(a, q, axis=None, keepdims=False, *, bounds=None, epsilon=1.0,
                  random_state=None, accountant=None, resolution=1024):
    return _quantile("nanpercentile", a, q, axis, keepdims, bounds, epsilon, random_state,
                     accountant, resolution, True, 100)


nanpercentile.__doc__ = "Differentially private percentile(s), leaving NaN out.\n" \
    + _quantile_doc(_P, "percentile : The same, refusing NaN.",
                    "    >>> float(stats.nanpercentile(np.append(ages, np.nan), 50,\n"
                    "    ...                           bounds=(0, 128), random_state=0))\n"
                    "    41.0")
nanpercentile = Substitution(**_SUBS)(nanpercentile)


def median(a, axis=None, keepdims=False, *, bounds=None, epsilon=1.0, random_state=None,
           accountant=None, resolution=1024):
    return _quantile("median", a, 0.5, axis, keepdims, bounds, epsilon, random_state,
                     accountant, resolution, False, 1)


median.__doc__ = ("Differentially private median: :func:`quantile` at 0.5.\n"
                  + _quantile_doc(_Q, "quantile : Any quantile.",
                                  "    >>> float(stats.median(ages, bounds=(0, 128), "
                                  "random_state=0))\n    41.0")
                  .replace("    " + _Q + "\n", ""))
median = Substitution(**_SUBS)(median)


def nanmedian(a, axis=None, keepdims=False, *, bounds=None, epsilon=1.0, random_state=None,
              accountant=None, resolution=1024):
    return _quantile("nanmedian", a, 0.5, axis, keepdims, bounds, epsilon, random_state,
                     accountant, resolution, True, 1)


nanmedian.__doc__ = ("Differentially private median, leaving NaN out.\n"
                     + _quantile_doc(_Q, "median : The same, refusing NaN.",
                                     "    >>> float(stats.nanmedian(np.append(ages, np.nan), "
                                     "bounds=(0, 128),\n    ...                       "
                                     "random_state=0))\n    41.0")
                     .replace("    " + _Q + "\n", ""))
nanmedian = Substitution(**_SUBS)(nanmedian)
