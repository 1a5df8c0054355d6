"""The number of rows, released privately before any plan reads it.

Why. Every guarantee in skprivate is stated for add/remove-one-row neighbours, so the number
of rows ``n`` differs between neighbours and is itself private. A fit that plans on the exact
``n`` (a DP-SGD batch and sampling rate, PATE's number of teachers, a divisor) publishes a
function of it in its fitted attributes, and under add/remove that alone is an unbounded
loss: ``n_teachers_ = 29`` against ``30`` tells whether a row was there. So every fit that
plans on ``n`` first releases a noisy count and plans on it, unless the user declares the
number of rows public (``n_samples_public=True``; the report then says so).

Mechanism. ``n + Z`` with ``Z`` exact discrete Laplace noise of scale ``1 / epsilon_n``
(:func:`~skprivate.mechanisms.discrete_laplace_noise`): the count has sensitivity 1 under
add/remove, so the release is ``epsilon_n``-DP (the geometric mechanism: Ghosh, Roughgarden
and Sundararajan 2012; Dwork and Roth 2014, Theorem 3.6), with ``epsilon_n`` a fixed share
:data:`COUNT_SHARE` of the fit's epsilon.

Composition (why the count is added to the rest's epsilon, not composed in RDP or PLD).
What follows the count is chosen from it: the sampling rate, the steps and the noise of
DP-SGD, PATE's teachers and queries. The exact PLD or RDP composition of two mechanisms
holds for a second mechanism fixed in advance; here its parameters depend on the first's
output, and the mixture over those choices is not covered by composing one of them. Basic
composition is: for neighbours ``D, D'``, the privacy loss of the count is bounded by
``epsilon_n`` at every output (pure DP), so the hockey-stick divergence of the joint output
``(c, W)`` is ``sum_c P_D(c) H_{exp(eps - L(c))}(A_c(D) || A_c(D')) <= sup_c
delta_{A_c}(eps - epsilon_n)`` with ``|L(c)| <= epsilon_n``. Hence if every choice ``A_c`` is
``(epsilon - epsilon_n, delta)``-DP, the whole fit is ``(epsilon, delta)``-DP (the adaptive
composition theorem of Dwork, Rothblum and Vadhan 2010, Theorem III.3 with ``k = 2``; Dwork and
Roth 2014, Theorem 3.16 for adaptively chosen mechanisms). The spend of such a fit carries no
``dp_accounting`` event: composing its realised event with other fits' in RDP would treat the
choice made from the count as fixed.

Where ``n`` enters a sensitivity or a noise scale (not only a plan), a lower confidence
bound on ``n`` is used (:func:`count_lower_bound`): ``P(n < bound) <= beta``, and ``beta``
is added to delta.
"""

import math
from collections import namedtuple

from .mechanisms import discrete_laplace_noise

__all__ = []

# Share of a fit's epsilon spent on its noisy count. 5 %: at epsilon 1 the count's noise has
# scale 20 rows (standard deviation 28), 6 % of 500 rows and 0.1 % of Adult's 32,561, while
# the rest of the fit keeps 95 % of its budget (measured in benchmarks/row_count.py).
COUNT_SHARE = 0.05

NoisyCount = namedtuple("NoisyCount", "n_plan epsilon scale public")
NoisyCount.__doc__ = """The number of rows a fit plans on.

``n_plan``: the noisy count (at least 1), or the exact ``n`` when it is public;
``epsilon``: what the count cost (0.0 when public); ``scale``: the discrete Laplace scale
(``None`` when public); ``public``: whether ``n`` was declared public.
"""


def release_row_count(n_samples, epsilon, *, public, rng, share=COUNT_SHARE):
    """The number of rows to plan on: ``n`` if ``public``, else ``n`` plus discrete Laplace noise.

    ``epsilon`` is the fit's whole budget; the count spends ``share * epsilon`` of it (see
    the module docstring for the composition with the rest). The noisy value is clipped
    below at 1 (post-processing).
    """
    if public:
        return NoisyCount(int(n_samples), 0.0, None, True)
    epsilon_n = float(share * epsilon)
    scale = 1.0 / epsilon_n
    noisy = int(n_samples) + int(discrete_laplace_noise(scale, random_state=rng))
    return NoisyCount(max(noisy, 1), epsilon_n, scale, False)


def rest_epsilon(epsilon, count_epsilon):
    """What a fit's ``epsilon`` leaves after its count: ``epsilon - count_epsilon``, stepped
    down ulp by ulp until ``count_epsilon + rest <= epsilon`` in floating point, so that a
    plan calibrated within the rest keeps the reported ``count_epsilon + rest`` within
    ``epsilon`` (``epsilon`` itself when the count is public and costs 0)."""
    epsilon, count_epsilon = float(epsilon), float(count_epsilon)
    rest = epsilon - count_epsilon
    while count_epsilon + rest > epsilon:
        rest = math.nextafter(rest, 0.0)
    return rest


def count_lower_bound(count, beta):
    """A bound ``b`` with ``P(n < b) <= beta`` over the count's noise (``n_plan`` if public).

    The discrete Laplace noise ``Z`` of scale ``s`` has ``P(Z >= t) = p^t / (1 + p)`` for
    integers ``t >= 1``, ``p = exp(-1 / s)`` (sum of its pmf ``(1 - p) / (1 + p) p^|z|``).
    ``n < n_plan - t`` needs ``Z > t``, so ``t`` is the least integer with
    ``p^(t + 1) / (1 + p) <= beta``. (The clip of the noisy count at 1 only raises ``b``'s
    distance from ``n`` when ``n`` is tiny; ``b`` is itself at least 1.)
    """
    if count.public:
        return count.n_plan
    if not 0.0 < beta < 1.0:
        raise ValueError(f"beta must be in (0, 1); got {beta!r}.")
    log_p = -1.0 / count.scale
    t = max(0, math.ceil(math.log(beta * (1.0 + math.exp(log_p))) / log_p) - 1)
    return max(1, count.n_plan - t)


def count_report(count):
    """The report entry that says how the number of rows entered the fit."""
    if count.public:
        return {
            "number of rows": (
                f"{count.n_plan}, treated as public (n_samples_public=True): read exactly and "
                "not protected; the guarantee assumes whoever reads the model knows it"
            )
        }
    return {
        "number of rows": (
            f"released with discrete Laplace noise (epsilon {count.epsilon:.3g}, part of "
            f"epsilon_): {count.n_plan}"
        )
    }
