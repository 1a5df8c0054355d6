"""What every private statistic shares: rows from ``axis``, public bounds, the budget, exact sums.

The unit protected. ``a`` is read as rows: the reduced axes index the rows and the kept axes
the output entries (``axis=None``: every element is a row and the output is one number;
``axis=0`` on a matrix: each ``a[i, :]`` is a row and the output has one entry per column).
Every guarantee is add/remove one row, and covers all output entries of a call together:
a row adds to every column, so the columns' sensitivities add up (L1), unlike diffprivlib,
whose ``axis`` releases spend the full epsilon on each output entry.
"""

import math
import warnings
from fractions import Fraction
from numbers import Integral, Real

import numpy as np

from .. import _caveats
from ..accounting import BudgetAccountant
from ..base import _user_stacklevel
from ..exceptions import PrivacyLeakWarning
from ..mechanisms import is_reproducible
from ..mechanisms._secure import _power_of_two_at_most
from ..mechanisms._validation import EPSILON_HINT, check_positive, exact_fraction
from ._result import PrivateResult

__all__ = []

# Each clipped (and centred or squared) value is rounded to a multiple of a power of two
# eta <= 2**-FIXED_POINT_BITS of its largest magnitude before summing, so that the sum is
# computed exactly (in int64) and one row moves it by a bound computed from the same
# rounding (see exact_sums). Relative rounding error: at most 2**-21 of the range per value.
FIXED_POINT_BITS = 20
_EXACT_INT = 2**53


def check_epsilon(epsilon):
    """``epsilon`` as a float, a finite number > 0 (an error naming it otherwise)."""
    return float(check_positive(epsilon, "epsilon", hint=EPSILON_HINT))


def check_delta_param(delta):
    """``delta`` as a float in [0, 1): 0 for pure DP (Laplace), > 0 for Gaussian noise."""
    if isinstance(delta, bool) or not isinstance(delta, Real) or not math.isfinite(delta) \
            or not 0 <= delta < 1:
        raise ValueError(
            f"delta must be a number in [0, 1); got {delta!r}. Use 0 (the default) for pure "
            "differential privacy, or a small value such as 1e-6, well below 1/n, for "
            "Gaussian noise."
        )
    return float(delta)


def check_accountant(accountant):
    if accountant is not None and not isinstance(accountant, BudgetAccountant):
        raise TypeError(
            f"accountant must be a skprivate.accounting.BudgetAccountant or None; got "
            f"{type(accountant).__name__}. Create one with BudgetAccountant(epsilon=...)."
        )


def charge(accountant, name, epsilon, delta=0.0, event=None):
    """Book the release in ``accountant`` (if any) before any value of the data is read."""
    if accountant is not None:
        accountant.spend(epsilon, delta, event=event, label=f"stats.{name}")


def split_epsilon(epsilon, weights):
    """Floats ``epsilon_i`` proportional to ``weights`` whose exact sum is at most ``epsilon``.

    Basic composition (Dwork and Roth 2014, Theorem 3.16) adds the parts; each part is
    stepped down by ulps until the exact rational sum of the floats is within ``epsilon``,
    so the release never costs more than the ``epsilon`` reported.
    """
    total = sum(weights)
    parts = [epsilon * w / total for w in weights]
    while sum(Fraction(p) for p in parts) > Fraction(epsilon):
        parts[-1] = math.nextafter(parts[-1], 0.0)
    return parts


def _normalize_axis(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, Integral) and not isinstance(axis, bool) else axis
    try:
        axes = tuple(axes)
    except TypeError:
        raise TypeError(f"axis must be None, an int or a tuple of ints; got {axis!r}.") \
            from None
    out = []
    for ax in axes:
        if isinstance(ax, bool) or not isinstance(ax, Integral) or not -ndim <= ax < ndim:
            raise ValueError(
                f"axis={axis!r} is out of range for an array of dimension {ndim}; pass None "
                f"or axes in [-{ndim}, {ndim - 1}]."
            )
        out.append(int(ax) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"axis={axis!r} repeats an axis; name each axis once.")
    return tuple(sorted(out))


class Rows:
    """``a`` as a float matrix ``X`` of shape (rows, outputs), and how to shape the output."""

    def __init__(self, a, axis, keepdims, name):
        arr = np.asarray(a)
        if arr.dtype.kind not in "biuf":
            raise TypeError(
                f"{name}: a must be numeric (bool, int or float); got dtype {arr.dtype}. "
                "Encode categorical values as numbers first."
            )
        arr = arr.astype(float, copy=False)
        reduced = _normalize_axis(axis, arr.ndim)
        kept = tuple(i for i in range(arr.ndim) if i not in reduced)
        moved = np.moveaxis(arr, reduced, tuple(range(len(reduced))))
        self.out_shape = tuple(arr.shape[i] for i in kept)
        n_out = math.prod(self.out_shape)
        self.X = moved.reshape(math.prod(arr.shape[i] for i in reduced), n_out)
        self.keep_shape = tuple(1 if i in reduced else arr.shape[i] for i in range(arr.ndim))
        self.keepdims = bool(keepdims)
        self.name = name

    @property
    def n_outputs(self):
        return self.X.shape[1]

    def shape_output(self, flat, dtype=None):
        """The released values (one per output column) in the output's shape."""
        out = np.asarray(flat).reshape(self.keep_shape if self.keepdims else self.out_shape)
        if dtype is not None:
            out = out.astype(dtype)
        return out.item() if out.ndim == 0 else out

    def check_no_nan(self):
        if np.isnan(self.X).any():
            raise ValueError(
                f"{self.name}: a contains NaN; use nan{self.name} to leave missing values "
                "out (their number is then released with noise too), or impute them first."
            )


def resolve_bounds(bounds, rows):
    """Public ``(lower, upper)`` per output column, and the caveats if read from the data."""
    k = rows.n_outputs
    X = rows.X
    if bounds is None:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
            lower = np.nanmin(X, axis=0) if X.shape[0] else np.zeros(k)
            upper = np.nanmax(X, axis=0) if X.shape[0] else np.ones(k)
        lower = np.where(np.isfinite(lower), lower, 0.0)
        upper = np.where(np.isfinite(upper), upper, lower + 1.0)
        upper = np.where(upper > lower, upper, lower + 1.0)
        caveat = _caveats.bounds_from_data(["bounds"], "bounds=(lower, upper)")
        return lower.astype(float), upper.astype(float), [caveat]
    try:
        lower, upper = bounds
        lower = np.broadcast_to(np.asarray(lower, dtype=float), rows.out_shape).reshape(k)
        upper = np.broadcast_to(np.asarray(upper, dtype=float), rows.out_shape).reshape(k)
    except (TypeError, ValueError):
        raise ValueError(
            f"{rows.name}: bounds must be a pair (lower, upper) of numbers, or of arrays "
            f"broadcastable to the output shape {rows.out_shape}; got {bounds!r}. Pass the "
            "public range known without looking at the data, for example bounds=(17, 90) "
            "for ages."
        ) from None
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ValueError(f"{rows.name}: bounds must be finite; got {bounds!r}.")
    if np.any(lower >= upper):
        raise ValueError(
            f"{rows.name}: every lower bound must be below its upper bound; got "
            f"bounds={bounds!r}. Widen the range."
        )
    return lower.copy(), upper.copy(), []


def exact_sums(Y, extremes, present=None, norm="l1"):
    """Column sums of ``Y`` computed exactly on a fixed-point grid, and their L1 sensitivity.

    Parameters
    ----------
    Y : ndarray of shape (n, k)
        Values already clipped (and centred or squared); NaN where ``present`` is False.
    extremes : ndarray of shape (m, k)
        The values of the same transformation at the ends of the public range: every
        entry of ``Y[:, j]`` lies between the smallest and largest of ``extremes[:, j]``
        (the transformations used are monotone on each side of their extremes).
    present : ndarray of bool of shape (n, k) or None
        Which entries count (None: all).
    norm : {"l1", "both"}, default="l1"
        Return the L1 sensitivity, or the pair (L1, L2).

    Returns
    -------
    sums : ndarray of float64, shape (k,)
        ``eta_j * sum_i round(Y[i, j] / eta_j)``, exact (every partial sum is an integer
        below ``2**53``).
    sensitivity : float or tuple of float
        ``sum_j eta_j max |round(extremes[:, j] / eta_j)|``: one row added or removed moves
        the sums by at most this much in L1, *for the values the computer sums*, because
        rounding is monotone and the row's rounded entries are bounded by the extremes'
        (with ``norm="both"``, also the L2 norm of the same per-column bounds).

    Notes
    -----
    Floating-point sums are not exact and their rounding depends on the other rows, so
    the textbook sensitivity bound does not hold for them (Casacuberta, Shoemate, Vadhan
    and Wagaman 2022); integer sums of rounded values are exact and make it hold.
    """
    magnitude = np.max(np.abs(extremes), axis=0)
    magnitude = np.where(magnitude > 0, magnitude, 1.0)
    if not np.all(np.isfinite(magnitude)) or np.any(magnitude < 2.0**-1000):
        raise ValueError(
            "bounds are too large or too small for an exact sum (or a sum of squares) in "
            f"float64: the largest |value| per column is {magnitude.tolist()}. Rescale the "
            "values (for example to thousands) and the bounds with them."
        )
    eta = np.array([_power_of_two_at_most(float(m)) for m in magnitude]) \
        * 2.0**-FIXED_POINT_BITS
    ints = _round_half_up(np.where(np.isnan(Y), 0.0, Y) / eta)
    if present is not None:
        ints = np.where(present, ints, 0)
    if ints.shape[0] > _EXACT_INT >> (FIXED_POINT_BITS + 2):  # pragma: no cover - 2**31 rows
        raise ValueError("a has more than 2**31 rows along the reduced axes; split it.")
    totals = ints.sum(axis=0)
    bound = np.max(np.abs(_round_half_up(extremes / eta)), axis=0)
    per_column = [Fraction(float(e)) * int(b) for e, b in zip(eta, bound)]  # exact
    # Floats rounded up, so the stated sensitivities are never below the exact ones.
    l1 = _float_at_least(sum(per_column))
    l2 = math.hypot(*(float(c) for c in per_column))  # scaled: no overflow of the squares
    while Fraction(l2) ** 2 < sum(c * c for c in per_column):
        l2 = math.nextafter(l2, math.inf)
    return totals.astype(float) * eta, (l1, l2) if norm == "both" else l1


def _float_at_least(x):
    value = float(x)
    while Fraction(value) < x:
        value = math.nextafter(value, math.inf)
    return value


def _round_half_up(x):
    floor = np.floor(x)
    return (floor + (x - floor >= 0.5)).astype(np.int64)


def finish(name, value, epsilon, delta, mechanism, caveats, random_state, event=None):
    """The :class:`PrivateResult`, with the fixed-seed and large-epsilon caveats, and the
    one :class:`~skprivate.exceptions.PrivacyLeakWarning` of the call if any caveat holds."""
    caveats = list(caveats)
    if is_reproducible(random_state):
        caveats.append(_caveats.seed_fixed(random_state))
    if epsilon > _caveats.WEAK_EPSILON:
        caveats.append(_caveats.epsilon_weak(epsilon))
    if caveats:
        warnings.warn(
            f"stats.{name}: the privacy guarantee (epsilon={epsilon:.4g}, delta={delta:.3g}) "
            "is weaker than stated: " + "; ".join(caveats) + ".",
            PrivacyLeakWarning,
            stacklevel=_user_stacklevel(),
        )
    result = PrivateResult(value, float(epsilon), float(delta), mechanism, caveats, name)
    result._event = event
    return result


def as_fraction_quantile(q, name, scale=1):
    """Quantiles as exact fractions in [0, 1] (``q / scale``: 100 for percentiles)."""
    arr = np.asarray(q)
    if arr.dtype.kind not in "iuf" or arr.ndim > 1:
        raise TypeError(
            f"{name}: q must be a number or a 1-D array of numbers; got {q!r}."
        )
    allowed = "[0, 100]" if scale == 100 else "[0, 1]"
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: q must lie in {allowed}; got {q!r}.")
    flat = [exact_fraction(v) / scale for v in np.atleast_1d(arr).tolist()]
    if not all(0 <= v <= 1 for v in flat):
        raise ValueError(f"{name}: q must lie in {allowed}; got {q!r}.")
    return flat, arr.shape
