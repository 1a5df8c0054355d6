"""Mironov's attack on the package's own floating-point Laplace, and on the granular release.

Mironov (2012): the floats that ``value + Laplace noise`` can produce depend on ``value``. The
attacker here knows the sampler (NumPy's ``Generator.laplace``, which
:func:`skprivate.mechanisms.laplace_mechanism` calls: one 53-bit uniform ``U = k / 2**53``,
``-scale log(2 - 2U)`` for ``U >= 1/2``, else ``scale log(2U)``) and asks of each output ``o``
whether it is reachable from the value ``x``: is there a ``U`` on the 53-bit grid with
``x + noise(U) == o`` exactly? The preimage of ``o - x`` under each branch is computed, and
the uniforms around it tried with the same C ``log`` (Python's :func:`math.log`, the C
library's, as NumPy's sampler calls). From ``x`` the answer is always yes; from a neighbour
``x + 1`` the rounding of ``x + 1 + noise`` lands on an unreachable float most of the time,
so the event's probabilities differ by far more than ``exp(epsilon)``. The granular release
is ``gamma`` times an integer whatever the value, its noise covering every integer: the
outputs' low bits carry nothing about the value, and no such event separates neighbours.
"""

import math

import numpy as np

from skprivate.audit import audit_outcomes, audit_scores
from skprivate.mechanisms import (
    discrete_laplace_noise,
    granular_laplace_mechanism,
    granular_laplace_plan,
    laplace_mechanism,
)
from skprivate.mechanisms._secure import _granular

_RUNS = 2000
_EPSILON = 1.0  # sensitivity 1: the neighbours are x and x + 1
_X = 0.3


def _numpy_laplace(u, scale):
    """NumPy's ``random_laplace`` with ``loc = 0`` for the uniform ``u`` (distributions.c)."""
    if u >= 0.5:
        return 0.0 - scale * math.log(2.0 - u - u)
    return 0.0 + scale * math.log(u + u)


def _reachable_from(x, scale, outputs):
    """For each output, whether ``x + NumPy's Laplace(0, scale)`` can produce it exactly."""
    found = []
    for out in np.asarray(outputs, dtype=float).tolist():
        noise = out - x  # the preimage, up to the rounding the attacker undoes below
        preimages = (1.0 - math.exp(-noise / scale) / 2.0, math.exp(noise / scale) / 2.0)
        found.append(any(
            x + _numpy_laplace(k / 2.0**53, scale) == out
            for u in preimages
            for k in range(round(u * 2.0**53) - 3, round(u * 2.0**53) + 4)
            if 0 < k < 2**53
        ))
    return np.array(found)


def test_the_floating_point_laplace_reveals_its_input():
    """On the package's continuous path the low bits tell x from x + 1: the audit's lower
    bound on epsilon is more than five times the claimed epsilon (measured: every output of
    x is reachable from x, about a quarter of those of x + 1)."""
    scale = 1.0 / _EPSILON
    out = laplace_mechanism(np.full(_RUNS, _X), 1.0, _EPSILON, random_state=0)
    out_prime = laplace_mechanism(np.full(_RUNS, _X + 1.0), 1.0, _EPSILON, random_state=1)
    on_x, on_prime = _reachable_from(_X, scale, out), _reachable_from(_X, scale, out_prime)
    assert on_x.all()  # the attacker's test never misses a true output of x
    assert on_prime.mean() < 0.5
    assert audit_outcomes(on_x, on_prime).epsilon_lower_bound > 5 * _EPSILON


def test_the_granular_release_hides_its_input_in_the_low_bits():
    """The same attack, and the low bits of the grid index, on the granular release: no
    event exceeds the claimed epsilon; a threshold on the values themselves still finds most
    of it (the audit has power)."""
    plan = granular_laplace_plan(1.0, _EPSILON)  # the plan of one scalar release
    rng = np.random.default_rng(0)
    # _RUNS independent scalar releases, vectorised: the mechanism's own path with the
    # one-coordinate plan (an array passed to granular_laplace_mechanism would be one release
    # of _RUNS coordinates, with a finer grid)
    out, out_prime = (
        _granular(np.full(_RUNS, value), plan, discrete_laplace_noise, rng)
        for value in (_X, _X + 1.0)
    )
    one = granular_laplace_mechanism(_X, 1.0, _EPSILON, random_state=rng)
    assert (one / plan.gamma).is_integer()
    index, index_prime = out / plan.gamma, out_prime / plan.gamma
    # every output of both is gamma times an integer: the reachable sets are the same
    assert np.all(index % 1 == 0) and np.all(index_prime % 1 == 0)
    events = [
        (_reachable_from(_X, 1.0 / _EPSILON, out),
         _reachable_from(_X, 1.0 / _EPSILON, out_prime)),
        (index % 2 == 0, index_prime % 2 == 0),  # the lowest bit of the grid index
        (index % 256 < 16, index_prime % 256 < 16),  # low bits, a rarer event
    ]
    for on_x, on_prime in events:
        assert audit_outcomes(on_x, on_prime).epsilon_lower_bound <= _EPSILON
    threshold = audit_scores(out_prime, out).epsilon_lower_bound
    assert 0.3 * _EPSILON <= threshold <= _EPSILON
