"""Secure noise by granularity: real-valued releases with exact integer noise on a dyadic grid.

Why. A floating-point ``value + noise`` with continuous noise can reveal ``value``: the set of
floats the textbook sampler can reach depends on ``value`` (Mironov 2012; Jin, McMurtry,
Rubinstein and Ohrimenko 2022). Here the exact statistic is rounded to a grid of spacing
``gamma``, a power of two chosen from public numbers only, integer noise is drawn with the
exact samplers of :mod:`skprivate.mechanisms._discrete` (integer comparisons only), and the
release is ``gamma * (round(value / gamma) + Z)``: a function of the integer
``round(value / gamma) + Z`` alone, computed exactly in float64. This is Google's "secure noise
generation by granularity" (Google differential-privacy library, "Secure Noise Generation",
2020), with the accounting made exact below.

Rounding. ``round(x) = floor(x + 1/2)`` for ``x = value / gamma``. Dividing by a power of two
is exact in float64 (no overflow, no subnormal result: checked), and ``floor(x + 1/2)`` is
computed as ``floor(x) + [x - floor(x) >= 1/2]``, whose subtraction is exact, so the integer is
the rounding of the *real* quotient. For reals ``a, b``: ``floor(a) - floor(b) <= ceil(a - b)``
(because ``floor(b + t) <= floor(b + ceil(t)) = floor(b) + ceil(t)``), hence

``|round(a) - round(b)| <= ceil(|a - b|)``.  (R)

(Round-half-to-even, NumPy's ``rint``, breaks (R): ``0.5 -> 0`` and ``3.5 -> 4``.)

Laplace (pure DP). Let the statistic ``f`` take values in ``R**d`` with
``||f(x) - f(x')||_1 <= Delta`` for neighbours. By (R) the rounded statistics differ by an
integer vector ``k`` with ``|k_i| <= ceil(|t_i|)``, ``t = (f(x) - f(x')) / gamma``; since
``ceil(s) < s + 1`` and ``k_i = 0`` where ``t_i = 0``,
``||k||_1 < Delta / gamma + d``; ``||k||_1`` is an integer and the largest integer below
``D + d`` is ``ceil(D + d) - 1 = ceil(D) + d - 1``, so
``||k||_1 <= K = ceil(Delta / gamma) + d - 1``; for ``d = 1``, ``K = ceil(Delta / gamma)``,
which is attained. Independent discrete Laplace noise of scale ``b`` on each
coordinate (the geometric mechanism, Ghosh, Roughgarden and Sundararajan 2012) has pmf ratio
``exp((|z - k| - |z|) / b) <= exp(|k| / b)`` per coordinate, so the release is
``K / b``-DP, and exactly ``K / b`` for ``d = 1`` (the ratio is attained at ``z >= k``).
:func:`granular_laplace_plan` sets ``b = K / epsilon`` as an exact rational, rounded *up* by
the sampler, so the guarantee met is never weaker than the ``epsilon`` charged.

Gaussian (zero-concentrated DP). With ``||f(x) - f(x')||_2 <= Delta``, the triangle
inequality on ``|k_i| <= |t_i| + 1`` gives ``||k||_2 <= Delta / gamma + sqrt(d)``, bounded
here by ``L = Delta / gamma + ceil(sqrt(d))`` (``L = ceil(Delta / gamma)`` when ``d = 1``, by
(R)). Independent discrete Gaussian noise ``N_Z(0, s**2)`` on each coordinate of an integer
query of L2 sensitivity ``L`` is ``L**2 / (2 s**2)``-zCDP, the same bound as continuous
Gaussian noise (Canonne, Kamath and Steinke 2020, Theorem 14, the multivariate form of their
Theorem 4). :func:`granular_gaussian_plan` takes the ``sigma`` a plan calibrated for the
continuous Gaussian of sensitivity ``Delta`` and sets ``s = sigma * L / Delta`` in grid units
(an exact rational, whose square the sampler rounds up), so ``L**2 / (2 s**2) <=
Delta**2 / (2 sigma**2)``: every Renyi order of the continuous plan is kept.

Grid. ``gamma`` is the largest power of two at most ``2**-GRID_BITS`` times both the noise
scale (``Delta / epsilon`` or ``sigma``: the rounding is negligible against the noise) and the
per-coordinate sensitivity (``Delta / d`` for L1, ``Delta / sqrt(d)`` for L2: the sensitivity
on the lattice exceeds ``Delta / gamma`` by at most ``d`` or ``sqrt(d)``, a relative
``2**-GRID_BITS``). With ``GRID_BITS = 10`` the noise is at most ``2**-10 < 0.1 %`` larger than
the continuous mechanism's for the same epsilon, and the rounding error (at most
``gamma / 2``) is below ``0.05 %`` of the noise scale.

The release ``gamma * n`` for the integer ``n = round(value / gamma) + Z`` is exact in float64
while ``|n| <= 2**53`` (checked: a larger ``n`` raises instead of rounding).
"""

import math
from collections import namedtuple
from fractions import Fraction

import numpy as np

from ._discrete import (
    _GAUSSIAN_NUMERATOR_BITS,
    _round_up_rational,
    discrete_gaussian_noise,
    discrete_laplace_noise,
)
from ._rounded import sample_rounded_gaussian
from ._rng import check_rng
from ._validation import EPSILON_HINT, SENSITIVITY_HINT, check_positive, exact_fraction

__all__ = [
    "granular_gaussian_mechanism",
    "granular_gaussian_plan",
    "granular_laplace_mechanism",
    "granular_laplace_plan",
    "rounded_gaussian_mechanism",
    "rounded_gaussian_plan",
]

#: The grid is 2**-GRID_BITS of the noise scale and of the per-coordinate sensitivity.
GRID_BITS = 10
_EXACT_INT = 2**53  # every integer of magnitude <= 2**53 is a float64

GranularPlan = namedtuple("GranularPlan", "gamma lattice_sensitivity scale")
GranularPlan.__doc__ = """The public parameters of one granular release.

Parameters
----------
gamma : float
    The grid spacing, a power of two.
lattice_sensitivity : fractions.Fraction
    The bound on the rounded statistics' difference in grid units (L1 for Laplace, L2 for
    Gaussian).
scale : fractions.Fraction
    The integer noise's parameter in grid units: the discrete Laplace scale ``b`` or the
    discrete Gaussian ``sigma``, which the sampler rounds up.

See Also
--------
granular_laplace_plan : The plan of a granular Laplace release.
granular_gaussian_plan : The plan of a granular Gaussian release.

Examples
--------
>>> from skprivate.mechanisms import granular_laplace_plan
>>> granular_laplace_plan(1.0, 1.0).gamma
0.0009765625
"""  # a namedtuple returned by the two plans, not exported on its own


def _power_of_two_at_most(x):
    """The largest power of two ``<= x`` for a finite float ``x > 0`` (exact)."""
    mantissa, exponent = math.frexp(x)  # x = mantissa * 2**exponent, 0.5 <= mantissa < 1
    return math.ldexp(1.0, exponent - 1)


def _check_dimension(dimension):
    if isinstance(dimension, bool) or not isinstance(dimension, (int, np.integer)) \
            or dimension < 1:
        raise ValueError(
            f"dimension must be an int >= 1 (the number of released coordinates); got "
            f"{dimension!r}."
        )
    return int(dimension)


def granular_laplace_plan(sensitivity, epsilon, dimension=1):
    """Grid and discrete Laplace scale of an epsilon-DP granular release.

    Parameters
    ----------
    sensitivity : float
        L1 sensitivity ``Delta > 0`` of the real-valued statistic.
    epsilon : float
        The privacy loss charged, ``> 0``; the release is epsilon-DP exactly.
    dimension : int, default=1
        Number of coordinates ``d`` of the statistic.

    Returns
    -------
    plan : namedtuple GranularPlan (gamma, lattice_sensitivity, scale)
        ``gamma`` the largest power of two at most ``2**-10 min(Delta / d, Delta / epsilon)``;
        ``lattice_sensitivity`` ``K = ceil(Delta / gamma) + d - 1``; ``scale`` ``K / epsilon``.

    See Also
    --------
    granular_laplace_mechanism : The release that uses this plan.

    Notes
    -----
    The derivation (rounding, lattice sensitivity, geometric mechanism) is in the module
    docstring of :mod:`skprivate.mechanisms._secure`.

    Examples
    --------
    >>> from skprivate.mechanisms import granular_laplace_plan
    >>> plan = granular_laplace_plan(1.0, 0.5)
    >>> plan.gamma, plan.lattice_sensitivity, plan.scale
    (0.0009765625, Fraction(1024, 1), Fraction(2048, 1))
    """
    check_positive(sensitivity, "sensitivity", hint=SENSITIVITY_HINT)
    check_positive(epsilon, "epsilon", hint=EPSILON_HINT)
    d = _check_dimension(dimension)
    delta = float(sensitivity)
    gamma = _power_of_two_at_most(min(delta / d, delta / float(epsilon)) / 2.0**GRID_BITS)
    # delta / gamma is exact (gamma a power of two), ceil of a Fraction is exact.
    k = Fraction(math.ceil(exact_fraction(delta) / exact_fraction(gamma)) + d - 1)
    return GranularPlan(gamma, k, k / exact_fraction(epsilon))


def granular_gaussian_plan(sensitivity, sigma, dimension=1):
    """Grid and discrete Gaussian parameter that keep a continuous Gaussian plan's zCDP.

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity ``Delta > 0`` of the real-valued statistic.
    sigma : float
        The standard deviation a plan calibrated for continuous Gaussian noise on a
        statistic of sensitivity ``Delta``; the release is ``Delta**2 / (2 sigma**2)``-zCDP,
        hence has every Renyi divergence of that plan.
    dimension : int, default=1
        Number of coordinates ``d`` of the statistic.

    Returns
    -------
    plan : namedtuple GranularPlan (gamma, lattice_sensitivity, scale)
        ``gamma`` the largest power of two at most
        ``2**-10 min(Delta / sqrt(d), sigma)``; ``lattice_sensitivity``
        ``L = Delta / gamma + ceil(sqrt(d))`` (``ceil(Delta / gamma)`` when ``d = 1``);
        ``scale`` ``sigma L / Delta`` (grid units).

    See Also
    --------
    granular_gaussian_mechanism : The release that uses this plan.

    Notes
    -----
    Canonne, Kamath and Steinke (2020), Theorem 14; derivation in the module docstring of
    :mod:`skprivate.mechanisms._secure`.

    Examples
    --------
    >>> from skprivate.mechanisms import granular_gaussian_plan
    >>> plan = granular_gaussian_plan(1.0, 4.0)
    >>> plan.gamma, plan.lattice_sensitivity, plan.scale
    (0.0009765625, Fraction(1024, 1), Fraction(4096, 1))
    """
    check_positive(sensitivity, "sensitivity", hint=SENSITIVITY_HINT)
    check_positive(sigma, "sigma", hint="Pass the continuous Gaussian plan's standard "
                   "deviation, for example from gaussian_sigma.")
    d = _check_dimension(dimension)
    delta = float(sensitivity)
    gamma = _power_of_two_at_most(min(delta / math.sqrt(d), float(sigma)) / 2.0**GRID_BITS)
    ratio = exact_fraction(delta) / exact_fraction(gamma)
    if d == 1:
        lattice = Fraction(math.ceil(ratio))
    else:
        root = math.isqrt(d)
        lattice = ratio + (root if root * root == d else root + 1)
    return GranularPlan(gamma, lattice, exact_fraction(sigma) * lattice / exact_fraction(delta))


def _round_to_grid(value, gamma):
    """``floor(value / gamma + 1/2)`` as int64, exact for the real quotient (see (R))."""
    arr = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise ValueError(
            "value must be finite; got a NaN or infinite entry. Clip or impute the statistic "
            "before releasing it."
        )
    x = arr / gamma
    if np.any(np.abs(x) > _EXACT_INT):
        raise ValueError(
            f"value is too large for the grid: |value| / gamma exceeds 2**53 (gamma={gamma!r}, "
            f"max |value|={float(np.max(np.abs(arr))):.6g}). Rescale the statistic or bound it "
            "by a public constant before releasing it."
        )
    floor = np.floor(x)
    return (floor + (x - floor >= 0.5)).astype(np.int64)


def _release(rounded, noise, gamma):
    total = rounded + noise
    if np.any(np.abs(total) > _EXACT_INT):
        raise ValueError(  # pragma: no cover - needs noise beyond 2**53 grid steps
            "the noisy release is beyond 2**53 grid steps and would not be exact in float64; "
            "bound the statistic or lower the noise."
        )
    return total * gamma  # exact: a power of two times an integer of at most 53 bits


def _granular(value, plan, sampler, random_state):
    rng = check_rng(random_state)
    rounded = _round_to_grid(value, plan.gamma)
    noise = np.asarray(sampler(plan.scale, size=rounded.shape, random_state=rng), np.int64)
    released = _release(rounded, noise, plan.gamma)
    return float(released) if released.ndim == 0 else released


def _dimension_of(value):
    return max(int(np.asarray(value).size), 1)


def granular_laplace_mechanism(value, sensitivity, epsilon, random_state=None):
    """Release ``value`` with epsilon-DP on a power-of-two grid (discrete Laplace noise).

    Parameters
    ----------
    value : float or array-like of float
        The exact statistic.
    sensitivity : float
        Its L1 sensitivity ``Delta > 0`` (over all coordinates).
    epsilon : float
        Privacy loss ``> 0``; the release is epsilon-DP exactly, in exact arithmetic.
    random_state : None, int or numpy.random.Generator, default=None
        ``None`` (the default, the only choice that keeps the guarantee) draws from a
        generator seeded from the operating system; an int is for tests and documentation.

    Returns
    -------
    released : float or ndarray of float64
        ``gamma * (round(value / gamma) + Z)`` with ``Z`` discrete Laplace of scale
        ``K / epsilon`` (see :func:`granular_laplace_plan`): every entry is a multiple of
        ``gamma``.

    See Also
    --------
    granular_laplace_plan : The grid and scale used.
    laplace_mechanism : The floating-point analogue, exposed to Mironov's attack.

    Notes
    -----
    The noise's standard deviation is at most ``2**-10`` above that of
    :func:`laplace_mechanism` for the same ``epsilon``; the guarantee holds for the values
    the computer releases, not only for real-valued noise (module docstring of
    :mod:`skprivate.mechanisms._secure`).

    References
    ----------
    .. [1] I. Mironov, "On significance of the least significant bits for differential
       privacy", CCS 2012.
    .. [2] Google differential-privacy library, "Secure noise generation", 2020.

    Examples
    --------
    >>> from skprivate.mechanisms import granular_laplace_mechanism
    >>> granular_laplace_mechanism(10.3, sensitivity=1.0, epsilon=0.5, random_state=0)
    8.5986328125
    """
    plan = granular_laplace_plan(sensitivity, epsilon, _dimension_of(value))
    return _granular(value, plan, discrete_laplace_noise, random_state)


def granular_gaussian_mechanism(value, sensitivity, sigma, random_state=None):
    """Release ``value`` with the zCDP of Gaussian noise ``sigma``, on a power-of-two grid.

    Parameters
    ----------
    value : float or array-like of float
        The exact statistic.
    sensitivity : float
        Its L2 sensitivity ``Delta > 0``.
    sigma : float
        Standard deviation of the continuous Gaussian noise the plan was calibrated for; the
        release is ``Delta**2 / (2 sigma**2)``-zCDP (every Renyi order of that plan).
    random_state : None, int or numpy.random.Generator, default=None
        As in :func:`granular_laplace_mechanism`.

    Returns
    -------
    released : float or ndarray of float64
        ``gamma * (round(value / gamma) + Z)``, ``Z`` discrete Gaussian per coordinate with
        the parameter of :func:`granular_gaussian_plan`.

    See Also
    --------
    granular_gaussian_plan : The grid and parameter used.
    gaussian_mechanism : The floating-point analogue.

    Notes
    -----
    The guarantee is zCDP/RDP (Canonne, Kamath and Steinke 2020, Theorem 14); a release
    whose plan converts (epsilon, delta) through the *continuous* Gaussian's exact curve
    (the analytic Gaussian, or a PLD) must be re-planned in zCDP or RDP before using it.

    References
    ----------
    .. [1] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for Differential
       Privacy", NeurIPS 2020, arXiv:2004.00010.

    Examples
    --------
    >>> from skprivate.mechanisms import granular_gaussian_mechanism
    >>> out = granular_gaussian_mechanism([1.0, 2.0], 1.0, sigma=4.0, random_state=0)
    >>> bool(all((out / 2.0**-11) % 1 == 0))
    True
    """
    plan = granular_gaussian_plan(sensitivity, sigma, _dimension_of(value))
    return _granular(value, plan, discrete_gaussian_noise, random_state)


def rounded_gaussian_plan(sensitivity, noise_multiplier, dimension=1):
    """Grid and noise of a rounded-Gaussian release with a continuous Gaussian's guarantee.

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity ``Delta > 0`` of the real-valued statistic.
    noise_multiplier : float
        The continuous Gaussian plan's ``sigma / Delta`` (``> 0``): the release has every
        guarantee of the Gaussian mechanism with this noise multiplier, the exact curve,
        privacy-loss distributions and Poisson subsampling included.
    dimension : int, default=1
        Number of coordinates ``d`` of the statistic.

    Returns
    -------
    plan : namedtuple GranularPlan (gamma, lattice_sensitivity, scale)
        ``gamma`` as in :func:`granular_gaussian_plan` for ``sigma = noise_multiplier *
        Delta``; ``lattice_sensitivity`` ``L`` (the same bound); ``scale`` the *variance*
        ``S >= (noise_multiplier * L)**2`` in grid units, an exact rational rounded up.

    See Also
    --------
    rounded_gaussian_mechanism : The release that uses this plan.

    Notes
    -----
    The statistic rounded to the grid is an integer vector of L2 sensitivity at most ``L``
    (module docstring, bound (R)); the release adds ``round(X)``, ``X ~ N(0, S I)``, to it,
    which equals ``round(f + X)``: a post-processing of the Gaussian mechanism with noise
    multiplier ``sqrt(S) / L >= noise_multiplier`` on that integer statistic (Dwork and Roth
    2014, Proposition 2.1), and of its Poisson-subsampled version when the statistic is a
    sum over a Poisson sample. In real units the noise's standard deviation is
    ``gamma sqrt(S + 1/12)``-ish, at most a relative ``2**-10`` above ``noise_multiplier *
    Delta`` plus the rounding's.

    Examples
    --------
    >>> from skprivate.mechanisms import rounded_gaussian_plan
    >>> plan = rounded_gaussian_plan(1.0, 2.0)
    >>> plan.gamma, plan.lattice_sensitivity, plan.scale
    (0.0009765625, Fraction(1024, 1), Fraction(4194304, 1))
    """
    check_positive(noise_multiplier, "noise_multiplier", hint="Pass the Gaussian plan's "
                   "noise multiplier (standard deviation over sensitivity).")
    check_positive(sensitivity, "sensitivity", hint=SENSITIVITY_HINT)
    sigma = float(noise_multiplier) * float(sensitivity)
    if not math.isfinite(sigma) or sigma <= 0:
        raise ValueError(
            f"noise_multiplier * sensitivity must be a positive finite number; got "
            f"{noise_multiplier!r} * {sensitivity!r}. Pass smaller values."
        )
    plan = granular_gaussian_plan(sensitivity, sigma, dimension)
    s = exact_fraction(noise_multiplier) * plan.lattice_sensitivity
    return GranularPlan(plan.gamma, plan.lattice_sensitivity,
                        _round_up_rational(s * s, _GAUSSIAN_NUMERATOR_BITS))


def rounded_gaussian_mechanism(value, sensitivity, noise_multiplier, random_state=None):
    """Release ``value`` with a continuous Gaussian mechanism's guarantee, on a dyadic grid.

    Parameters
    ----------
    value : float or array-like of float
        The exact statistic.
    sensitivity : float
        Its L2 sensitivity ``Delta > 0``.
    noise_multiplier : float
        ``sigma / Delta`` of the Gaussian mechanism whose guarantee the release keeps.
    random_state : None, int or numpy.random.Generator, default=None
        As in :func:`granular_laplace_mechanism`.

    Returns
    -------
    released : float or ndarray of float64
        ``gamma * (round(value / gamma) + R)``, ``R`` exact rounded Gaussian noise of
        variance parameter ``S`` (:func:`rounded_gaussian_plan`): every entry is a multiple of
        ``gamma``.

    See Also
    --------
    rounded_gaussian_plan : The grid and noise used, and why the guarantee carries over.
    granular_gaussian_mechanism : Discrete Gaussian noise instead (zCDP only).
    gaussian_mechanism : The floating-point analogue.

    Notes
    -----
    Unlike the discrete Gaussian, whose Renyi divergences match the continuous Gaussian's
    but whose privacy-loss distribution does not, the rounded Gaussian is a post-processing
    of the continuous Gaussian mechanism, so a plan accounted with the continuous Gaussian's
    exact curve, a PLD or the subsampled Gaussian's accountant stays valid as it is. The
    sampler (:mod:`skprivate.mechanisms._rounded`) uses integer arithmetic only, and
    floating point only where a rigorous error bound decides.

    Examples
    --------
    >>> from skprivate.mechanisms import rounded_gaussian_mechanism
    >>> out = rounded_gaussian_mechanism([1.0, 2.0], 1.0, 4.0, random_state=0)
    >>> bool(all((out / 2.0**-11) % 1 == 0))
    True
    """
    plan = rounded_gaussian_plan(sensitivity, noise_multiplier, _dimension_of(value))
    return _granular(value, plan, _rounded_noise, random_state)


def _rounded_noise(scale, size, random_state):
    # ``scale`` is the exact variance S of the plan (a Fraction).
    return sample_rounded_gaussian(scale, int(np.prod(size)), random_state).reshape(size)
