"""The package's one calibration solver: the feasible point nearest a monotone boundary.

Every "solve for the noise or the budget" in skprivate is the same problem. A cost ``f`` (an
epsilon, a total privacy cost, a number of answers' cost) is monotone in one parameter ``x``
(a noise multiplier, a per-run epsilon, a number of queries) and must stay within a
``target``. The answer is the *feasible* point (``f(x) <= target``) nearest the boundary:

- ``increasing=True`` (the cost grows with ``x``: a per-run budget, a number of queries):
  the largest feasible ``x``;
- ``increasing=False`` (the cost falls with ``x``: a noise multiplier): the smallest.

:func:`solve_monotone` returns only a point whose ``f`` it evaluated (or that the caller
vouched for through ``known``) and found within the target, so a calibration built on it
never overshoots: the privacy claim rests on the returned point's own evaluation, not on the
search having converged. Ties, plateaus and steps in ``f`` are fine; only monotonicity (in the
weak sense) is assumed, and with a non-monotone ``f`` the answer is still feasible, only
perhaps not the nearest one.

The search has two phases. A bracket is found by moving from ``start`` by factors of
``expand`` (clamped to ``[lower, upper]``) until feasibility flips; if the whole domain is
feasible the domain end is the answer, if none of it is, :class:`NoFeasiblePointError` is
raised. The bracket is then narrowed, by bisection (geometric on ``scale="log"``, integer
midpoints with ``integer=True``) or by false position with the Illinois modification on
``log f`` against ``x`` (Dowell and Jarratt 1971), until either the feasible end's value is
within ``rtol`` of the target (``(1 - rtol) * target <= f(x) <= target``) or the bracket is
narrower than ``xtol`` (relative), or ``max_steps`` steps were taken; the feasible end is
returned. ``tests/accounting/test_calibrate.py`` checks these properties on random monotone
functions.
"""

import math

from ..exceptions import InfeasiblePrivacyError

__all__ = []


class NoFeasiblePointError(InfeasiblePrivacyError):
    """No point of the domain meets the target (callers re-raise with their own message)."""


def solve_monotone(
    fun, target, *, increasing, lower, upper, start=None, known=None, rtol=None, xtol=1e-10,
    method="bisect", scale="log", integer=False, expand=2.0, max_steps=200,
):
    """Feasible point nearest the boundary of ``{x : fun(x) <= target}``, ``fun`` monotone.

    Parameters
    ----------
    fun : callable
        ``fun(x) -> float``, non-decreasing (``increasing=True``) or non-increasing in ``x``
        on ``[lower, upper]``. ``math.inf`` and NaN are allowed: they count as infeasible.
    target : float
        The bound ``fun(x) <= target`` to meet.
    increasing : bool
        Direction of ``fun``. True: return the largest feasible ``x``; False: the smallest.
    lower, upper : float or int
        The domain. Positive when ``scale="log"``.
    start : float or int, optional
        First point evaluated (it need not be feasible). If None, ``known`` must hold at
        least one point.
    known : dict, optional
        Points whose value the caller already has ``{x: fun(x)}`` (or vouches for, such as
        ``{0: 0.0}`` for a cost of zero queries); they are used, never re-evaluated.
    rtol : float, optional
        Stop once the feasible end of the bracket has ``fun(x) >= (1 - rtol) * target``.
        None: stop on ``xtol`` only (the right choice on plateaus and integer domains).
    xtol : float, default=1e-10
        Stop once the bracket's relative width is at most ``xtol`` (``hi / lo - 1`` on a
        log scale, ``(hi - lo) / max(|lo|, |hi|)`` on a linear one). Integer domains stop
        when the bracket's ends are adjacent.
    method : {"bisect", "illinois"}, default="bisect"
        Narrowing step. "illinois" (false position on ``log fun``, the stale end's weight
        halved when one end moves twice) needs fewer evaluations on smooth costs; it needs a
        positive ``fun`` and ``target``.
    scale : {"log", "linear"}, default="log"
        Whether midpoints and secants work on ``log x`` or ``x``.
    integer : bool, default=False
        Integer domain (bisection on integers; ``scale="linear"``).
    expand : float > 1, default=2.0
        Factor by which the bracket search moves from ``start``.
    max_steps : int, default=200
        Most narrowing steps; the feasible end found so far is returned after them.

    Returns
    -------
    x : float or int
        A point with ``fun(x) <= target`` (evaluated, or from ``known``), the nearest to the
        boundary found within the tolerances.

    Raises
    ------
    NoFeasiblePointError
        If ``fun`` exceeds ``target`` over the whole domain (the end nearest the feasible
        side was evaluated and found above the target).

    Examples
    --------
    The smallest noise multiplier ``z`` whose (toy) epsilon ``3 / z`` is at most 1.5, to
    0.2 % in epsilon, never above it:

    >>> from skprivate.accounting._calibrate import solve_monotone
    >>> z = solve_monotone(lambda z: 3.0 / z, 1.5, increasing=False, lower=1e-2,
    ...                    upper=1e5, start=1.0, rtol=0.002)
    >>> 0.998 * 1.5 <= 3.0 / z <= 1.5
    True

    The largest number of queries whose cost ``k // 4`` is at most 10:

    >>> solve_monotone(lambda k: k // 4, 10, increasing=True, lower=0, upper=1000,
    ...                start=1000, known={0: 0}, scale="linear", integer=True)
    43
    """
    if integer and (scale != "linear" or method != "bisect"):
        raise ValueError("integer=True needs scale='linear' and method='bisect'.")
    values = dict(known or {})

    def evaluate(x):
        if x not in values:
            values[x] = float(fun(x))
        return values[x]

    def feasible(x):
        return values[x] <= target

    def in_band(x):
        return rtol is not None and values[x] >= (1.0 - rtol) * target

    if start is not None:
        evaluate(start)
    if not values:
        raise ValueError("solve_monotone needs a start point or known values.")

    # Moving "outward" = towards larger x if increasing (where the cost grows), else smaller.
    def move(x, up):
        y = x * expand if up else x / expand
        if integer:
            y = math.ceil(y) if up else math.floor(y)
        if up:  # from zero or a negative x a factor does not move up: go to the domain end
            return min(y, upper) if y > x else upper
        return max(y, lower) if y < x else lower

    def outward(x):
        return move(x, up=increasing)

    def inward(x):
        return move(x, up=not increasing)

    def best_feasible():  # the feasible point nearest the boundary
        points = [x for x in values if feasible(x)]
        return (max if increasing else min)(points) if points else None

    def nearest_infeasible():  # the infeasible point nearest the feasible side
        points = [x for x in values if not feasible(x)]
        return (min if increasing else max)(points) if points else None

    # --- bracket -------------------------------------------------------------------------
    good, bad = best_feasible(), nearest_infeasible()
    if good is None:  # approach the feasible side
        while True:
            if bad == (lower if increasing else upper):
                raise NoFeasiblePointError(
                    f"no point in [{lower!r}, {upper!r}] has a value <= {target!r} (the "
                    f"most favourable end gives {values[bad]!r})."
                )
            x = inward(bad)
            if evaluate(x) <= target:
                good = x
                break
            bad = x
    elif bad is None:  # move away from the feasible side until the boundary is crossed
        while True:
            if good == (upper if increasing else lower):
                return good  # the whole domain (as far as seen) is feasible
            x = outward(good)
            if evaluate(x) > target:
                bad = x
                break
            good = x

    # --- narrow --------------------------------------------------------------------------
    lo, hi = min(good, bad), max(good, bad)  # by position; one is feasible, one is not

    def narrow_enough(lo, hi):
        if integer:
            return hi - lo <= 1
        if scale == "log":
            return hi / lo - 1.0 <= xtol
        return hi - lo <= xtol * max(abs(lo), abs(hi))

    if method == "illinois":
        goal = math.log(target * (1.0 - (rtol or 0.0) / 2.0))

        def g(x):
            v = values[x]
            return math.log(max(v, 1e-300)) - goal if math.isfinite(v) else 50.0

        def position(x):
            return math.log(x) if scale == "log" else x

        def point(p):
            return math.exp(p) if scale == "log" else p

        g_lo, g_hi, side = g(lo), g(hi), 0
    for _ in range(max_steps):
        good = lo if feasible(lo) else hi
        if in_band(good) or narrow_enough(lo, hi):
            break
        if method == "illinois":
            a, b = position(lo), position(hi)
            p = b - g_hi * (b - a) / (g_hi - g_lo) if g_hi != g_lo else 0.5 * (a + b)
            if not a < p < b:
                p = 0.5 * (a + b)
            x = point(p)
        elif integer:
            x = (lo + hi) // 2
        elif scale == "log":
            x = math.sqrt(lo * hi)
        else:
            x = 0.5 * (lo + hi)
        ok = evaluate(x) <= target
        replaces_lo = ok == feasible(lo)
        if method == "illinois":
            # Illinois: when the same end (feasible or not) moves twice, halve the other's g.
            this_side = 1 if ok else -1
            if replaces_lo:
                lo, g_lo = x, g(x)
                if side == this_side:
                    g_hi /= 2
            else:
                hi, g_hi = x, g(x)
                if side == this_side:
                    g_lo /= 2
            side = this_side
        elif replaces_lo:
            lo = x
        else:
            hi = x
    return lo if feasible(lo) else hi
