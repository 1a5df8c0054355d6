"""The one calibration solver never overshoots, on random monotone functions.

Property test (hypothesis): for random non-decreasing or non-increasing functions, with
plateaus, steps and kinks, on continuous (log or linear scale) and integer domains, and for
both narrowing methods, :func:`solve_monotone` returns a point that

- meets the target (``f(x) <= target``: the never-overshoot guarantee every calibration of
  the package relies on),
- lies within the tolerance of the true boundary, computed independently by inverting the
  function exactly (or, with ``rtol``, has a value within ``rtol`` of the target),

and raises when no point of the domain meets the target.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skprivate.accounting._calibrate import NoFeasiblePointError, solve_monotone
from skprivate.exceptions import InfeasiblePrivacyError

LOWER, UPPER = 1e-2, 1e5


@st.composite
def monotone_problems(draw):
    """A monotone piecewise-linear or step function on [LOWER, UPPER] and a target."""
    n = draw(st.integers(2, 8))
    # knots on a log scale, values sorted (repeats make plateaus)
    log_knots = sorted(draw(st.lists(
        st.floats(math.log(LOWER), math.log(UPPER)), min_size=n, max_size=n, unique=True)))
    knots = np.exp(log_knots)
    levels = np.sort(draw(st.lists(
        st.sampled_from([0.1, 0.5, 1.0, 1.0, 2.0, 3.0, 7.0, 20.0]), min_size=n, max_size=n)))
    increasing = draw(st.booleans())
    if not increasing:
        levels = levels[::-1]
    steps = draw(st.booleans())
    target = draw(st.sampled_from([0.3, 1.0, 1.5, 2.0, 5.0, 10.0, 25.0]))
    start = math.exp(draw(st.floats(math.log(LOWER), math.log(UPPER))))
    return knots, levels, increasing, steps, target, start


def _make(knots, levels, steps):
    calls = []

    def fun(x):
        calls.append(x)
        if steps:  # right-continuous step function
            i = np.searchsorted(knots, x, side="right") - 1
            return float(levels[max(i, 0)])
        return float(np.interp(math.log(x), np.log(knots), levels))

    return fun, calls


def _boundary(knots, levels, increasing, steps, target):
    """The exact boundary of {x in [LOWER, UPPER]: f(x) <= target} (inf/-inf if none)."""
    # A crossing point computed in floating point may evaluate a hair above the target.
    feasible_at = lambda x: _make(knots, levels, steps)[0](x) <= target * (1 + 1e-12)  # noqa: E731
    # Crossing points: knots (steps) or the linear pieces' crossings (interp on log x).
    candidates = [LOWER, UPPER, *knots]
    if not steps:
        lk = np.log(knots)
        for i in range(len(knots) - 1):
            a, b = levels[i], levels[i + 1]
            if (a - target) * (b - target) < 0:
                t = (target - a) / (b - a)
                candidates.append(math.exp(lk[i] + t * (lk[i + 1] - lk[i])))
    candidates = sorted({c for c in candidates if LOWER <= c <= UPPER})
    # Between consecutive candidates feasibility is constant: test the middle of each gap.
    points = [(c, c, feasible_at(c)) for c in candidates]
    points += [(a, b, feasible_at(math.sqrt(a * b))) for a, b in zip(candidates, candidates[1:])]
    ok = [(a, b) for a, b, good in points if good]
    if not ok:
        return None
    return max(b for a, b in ok) if increasing else min(a for a, b in ok)


@settings(max_examples=300, deadline=None)
@given(
    problem=monotone_problems(),
    method=st.sampled_from(["bisect", "illinois"]),
    scale=st.sampled_from(["log", "linear"]),
    rtol=st.sampled_from([None, 0.002, 0.05]),
)
def test_never_overshoots_and_reaches_the_boundary(problem, method, scale, rtol):
    knots, levels, increasing, steps, target, start = problem
    fun, calls = _make(knots, levels, steps)
    edge = _boundary(knots, levels, increasing, steps, target)
    xtol = 1e-6
    kwargs = dict(increasing=increasing, lower=LOWER, upper=UPPER, start=start, rtol=rtol,
                  xtol=xtol, method=method, scale=scale, max_steps=400)
    if edge is None:
        with pytest.raises(NoFeasiblePointError):
            solve_monotone(fun, target, **kwargs)
        return
    x = solve_monotone(fun, target, **kwargs)
    assert LOWER <= x <= UPPER
    assert x in calls  # evaluated, not guessed
    assert fun(x) <= target  # never overshoots
    if rtol is not None and fun(x) >= (1 - rtol) * target:
        return  # within rtol in value
    # Within xtol of the true boundary, on the feasible side.
    if increasing:
        assert x <= edge * (1 + 1e-12)
        gap = (edge - x) / edge if scale == "linear" else edge / x - 1
    else:
        assert x >= edge * (1 - 1e-12)
        gap = (x - edge) / x if scale == "linear" else x / edge - 1
    assert gap <= xtol * (1 + 1e-9) + 1e-12


@settings(max_examples=300, deadline=None)
@given(
    costs=st.lists(st.integers(0, 50), min_size=1, max_size=60),
    target=st.integers(0, 60),
    start_frac=st.floats(0, 1),
)
def test_integer_domain_returns_the_exact_largest_feasible_count(costs, target, start_frac):
    # A non-decreasing integer cost, as the PATE cost of k queries, with cost(0) = 0 known.
    cost = np.concatenate([[0], np.cumsum(costs) // 3])
    k_max = len(cost) - 1
    calls = []

    def fun(k):
        calls.append(k)
        return float(cost[k])

    start = int(round(start_frac * k_max))
    k = solve_monotone(fun, target, increasing=True, lower=0, upper=k_max, start=start,
                       known={0: 0.0}, scale="linear", integer=True)
    expected = int(np.flatnonzero(cost <= target).max())
    assert k == expected
    assert cost[k] <= target


def test_infeasible_raises_an_infeasible_privacy_error():
    with pytest.raises(InfeasiblePrivacyError, match="no point"):
        solve_monotone(lambda z: 10.0 / z + 5, 1.0, increasing=False, lower=1e-2,
                       upper=1e5, start=1.0)


def test_known_points_are_not_evaluated_again():
    calls = []

    def fun(x):
        calls.append(x)
        return 1.0 / x

    z = solve_monotone(fun, 0.5, increasing=False, lower=1e-2, upper=1e5,
                       known={1.0: 1.0, 4.0: 0.25}, rtol=0.01, method="illinois")
    assert 1.0 not in calls and 4.0 not in calls
    assert 0.99 * 0.5 <= 1.0 / z <= 0.5
    assert len(calls) <= 6  # the secant on log f vs log x is exact for a power law
