"""Continuous (floating-point) noise: the Laplace and Gaussian mechanisms.

The Gaussian mechanism is calibrated with the analytic Gaussian mechanism of Balle and Wang
(2018), which is exact for every epsilon > 0 and never needs the ``epsilon < 1`` condition of
the classical bound.
"""

import math
from fractions import Fraction

import numpy as np
from scipy.special import erfinv, log_ndtr, ndtr

from ..utils._docstrings import SHARED_DOCS, Substitution, fragment
from ._rng import check_rng
from ._validation import (
    EPSILON_HINT,
    SENSITIVITY_HINT,
    check_delta,
    check_positive,
    check_size,
    exact_fraction,
)

__all__ = [
    "gaussian_mechanism",
    "gaussian_noise",
    "gaussian_sigma",
    "laplace_mechanism",
    "laplace_noise",
]

# gaussian_sigma solves delta(sigma) = delta * (1 - _DELTA_SAFETY) rather than
# delta(sigma) = delta: the relative error of evaluating the Balle-Wang formula in double
# precision is far below 1e-9, so the returned sigma is never below the exact smallest one.
_DELTA_SAFETY = 1e-9


def _round_up(exact):
    """The float nearest to the rational ``exact``, moved up one ulp if it fell below it."""
    try:
        result = float(exact)
    except OverflowError:
        return math.inf
    if math.isfinite(result) and Fraction(result) < exact:
        result = math.nextafter(result, math.inf)
    return result


def _as_value(value):
    """Return ``value`` as a float array and whether it was a scalar."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"value must be a real number or an array of real numbers; got {value!r} "
            f"(of type {type(value).__name__})."
        ) from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(
            "value must be finite: an infinite or NaN query answer stays infinite or NaN after "
            "adding noise and reveals itself. Clip or impute the data before the query."
        )
    return arr, arr.ndim == 0


#: The ``size`` and ``random_state`` of the floating-point noise samplers.
_FLOAT_NOISE_SIZE_DOC = fragment(
    """
    size : int or tuple of int, default=None
        Output shape. ``None`` returns a single float.
    %(random_state_mechanism)s
    """
)


@Substitution(**SHARED_DOCS, float_noise_size=_FLOAT_NOISE_SIZE_DOC)
def laplace_noise(scale, size=None, random_state=None):
    """Draw Laplace noise with density ``exp(-|x| / scale) / (2 scale)``.

    Parameters
    ----------
    scale : float
        Scale ``b > 0`` of the Laplace distribution (its standard deviation is
        ``sqrt(2) b``). For epsilon-DP use ``sensitivity / epsilon``, or call
        :func:`laplace_mechanism`.
    %(float_noise_size)s

    Returns
    -------
    noise : float or ndarray of float64
        Independent Laplace(0, ``scale``) draws.

    See Also
    --------
    laplace_mechanism : Add calibrated Laplace noise to a query answer.
    discrete_laplace_noise : Exact integer-valued analogue.

    Notes
    -----
    The samples come from numpy's floating-point sampler. Floating-point Laplace noise
    can leak through the pattern of its low-order bits (Mironov 2012); for integer-valued
    queries such as counts prefer :func:`discrete_laplace_noise`, which is sampled exactly.

    References
    ----------
    .. [1] I. Mironov, "On significance of the least significant bits for differential
       privacy", ACM CCS 2012.

    Examples
    --------
    >>> from skprivate.mechanisms import laplace_noise
    >>> laplace_noise(1.0, size=3, random_state=0)
    array([ 0.3200..., -0.6169..., -2.5016...])
    """
    check_positive(scale, "scale", hint="Pass the Laplace scale, sensitivity / epsilon.")
    size = check_size(size)
    rng = check_rng(random_state)
    return rng.laplace(0.0, float(scale), size=size)


@Substitution(**SHARED_DOCS, float_noise_size=_FLOAT_NOISE_SIZE_DOC)
def gaussian_noise(sigma, size=None, random_state=None):
    """Draw Gaussian noise ``N(0, sigma**2)``.

    Parameters
    ----------
    sigma : float
        Standard deviation ``> 0``. For (epsilon, delta)-DP use
        :func:`gaussian_sigma`, or call :func:`gaussian_mechanism`.
    %(float_noise_size)s

    Returns
    -------
    noise : float or ndarray of float64
        Independent ``N(0, sigma**2)`` draws.

    See Also
    --------
    gaussian_mechanism : Add calibrated Gaussian noise to a query answer.
    discrete_gaussian_noise : Exact integer-valued analogue.

    Notes
    -----
    The samples come from numpy's floating-point sampler; for integer-valued queries prefer
    :func:`discrete_gaussian_noise`, which is sampled exactly.

    Examples
    --------
    >>> from skprivate.mechanisms import gaussian_noise
    >>> gaussian_noise(2.0, size=3, random_state=0)
    array([ 0.2514..., -0.2642...,  1.2808...])
    """
    check_positive(
        sigma, "sigma", hint="Pass the standard deviation, for example from gaussian_sigma."
    )
    size = check_size(size)
    rng = check_rng(random_state)
    return rng.normal(0.0, float(sigma), size=size)


@Substitution(**SHARED_DOCS)
def laplace_mechanism(value, sensitivity, epsilon, random_state=None):
    """Release ``value`` with epsilon-differential privacy by adding Laplace noise.

    Parameters
    ----------
    value : float or array-like of float
        The exact query answer ``f(D)``; must be finite.
    sensitivity : float
        L1 sensitivity ``> 0`` of the query: the largest ``sum(|f(D) - f(D')|)`` over
        neighbouring datasets (over all coordinates when ``value`` is an array).
    epsilon : float
        Privacy budget ``> 0``.
    %(random_state_mechanism)s

    Returns
    -------
    noisy_value : float or ndarray of float64
        ``value`` plus independent Laplace noise of scale ``sensitivity / epsilon`` in every
        coordinate; a float when ``value`` is a scalar, else an array of its shape.

    See Also
    --------
    laplace_noise : The noise alone.
    discrete_laplace_noise : Exact noise for integer-valued queries.

    Notes
    -----
    The Laplace mechanism with scale ``Delta_1 / epsilon`` is ``(epsilon, 0)``-DP
    (Dwork, McSherry, Nissim and Smith 2006; Dwork and Roth 2014, Theorem 3.6), assuming
    exact real arithmetic; see the floating-point caveat in :func:`laplace_noise`.

    References
    ----------
    .. [1] C. Dwork, F. McSherry, K. Nissim and A. Smith, "Calibrating noise to sensitivity
       in private data analysis", TCC 2006.
    .. [2] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential Privacy",
       Foundations and Trends in Theoretical Computer Science 9(3-4), 2014.

    Examples
    --------
    >>> from skprivate.mechanisms import laplace_mechanism
    >>> laplace_mechanism(10.0, sensitivity=1.0, epsilon=0.5, random_state=0)
    10.640...
    >>> laplace_mechanism([10.0, 20.0], sensitivity=1.0, epsilon=0.5, random_state=0)
    array([10.640..., 18.766...])
    """
    check_positive(sensitivity, "sensitivity", hint=SENSITIVITY_HINT)
    check_positive(epsilon, "epsilon", hint=EPSILON_HINT)
    arr, scalar = _as_value(value)
    scale = _round_up(exact_fraction(sensitivity) / exact_fraction(epsilon))
    if not math.isfinite(scale) or scale <= 0:
        raise ValueError(
            f"sensitivity / epsilon = {sensitivity!r} / {epsilon!r} is not a usable finite "
            "positive scale; use values of moderate magnitude."
        )
    rng = check_rng(random_state)
    noisy = arr + rng.laplace(0.0, scale, size=arr.shape)
    return float(noisy) if scalar else noisy


#: The analytic Gaussian mechanism's paper, cited by gaussian_sigma and gaussian_mechanism.
_BALLE_WANG_REFERENCES_DOC = fragment(
    """
    References
    ----------
    .. [1] B. Balle and Y.-X. Wang, "Improving the Gaussian mechanism for differential
       privacy: analytical calibration and optimal denoising", ICML 2018.
    """
)


def _balle_wang_terms(sigma, epsilon):
    """The two terms of delta(sigma) for L2 sensitivity 1 (Balle and Wang 2018, Theorem 8).

    ``Phi(1/(2 sigma) - epsilon sigma)`` and ``exp(epsilon) Phi(-1/(2 sigma) - epsilon sigma)``,
    the second evaluated as ``exp(epsilon + log Phi(.))`` to avoid overflow; also returns
    ``epsilon + log Phi(.)``, which bounds how much that evaluation amplifies rounding.
    """
    a = 0.5 / sigma
    b = epsilon * sigma
    log_second = float(epsilon + log_ndtr(-a - b))
    return float(ndtr(a - b)), math.exp(min(log_second, 0.0)), log_second


def _balle_wang_delta(sigma, epsilon):
    """delta(sigma) for L2 sensitivity 1 (Balle and Wang 2018, Theorem 8)."""
    first, second, _ = _balle_wang_terms(sigma, epsilon)
    return first - second


def _balle_wang_delta_upper(sigma, epsilon):
    """An upper bound on delta(sigma) that absorbs the rounding error of its evaluation.

    The two terms nearly cancel when delta is much smaller than them (small epsilon and delta),
    so a bound on their floating-point error, 256 ulps each plus the amplification of the log
    through ``exp``, is added to the difference.
    """
    first, second, log_second = _balle_wang_terms(sigma, epsilon)
    ulp = np.finfo(float).eps
    error = ulp * (256.0 * first + (256.0 + 4.0 * abs(log_second)) * second)
    return first - second + error


@Substitution(balle_wang_references=_BALLE_WANG_REFERENCES_DOC)
def gaussian_sigma(sensitivity, epsilon, delta):
    """Smallest Gaussian noise for (epsilon, delta)-DP: the analytic Gaussian mechanism.

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity ``Delta > 0`` of the query: the largest ``||f(D) - f(D')||_2`` over
        neighbouring datasets.
    epsilon : float
        Privacy budget ``> 0``; any value is allowed (no ``epsilon < 1`` condition).
    delta : float
        Failure probability in ``(0, 1)``.

    Returns
    -------
    sigma : float
        The smallest standard deviation such that adding ``N(0, sigma**2 I)`` is
        (epsilon, delta)-DP, rounded up (never down).

    See Also
    --------
    gaussian_mechanism : Add noise of this ``sigma`` to a query answer.

    Notes
    -----
    By Balle and Wang (2018), Theorem 8, the Gaussian mechanism with L2 sensitivity
    ``Delta`` and standard deviation ``sigma`` is (epsilon, delta)-DP if and only if::

        Phi(Delta / (2 sigma) - epsilon sigma / Delta)
            - exp(epsilon) Phi(-Delta / (2 sigma) - epsilon sigma / Delta) <= delta,

    where ``Phi`` is the standard normal distribution function. The left-hand side decreases
    in ``sigma``; like their Algorithm 1 this function finds the root numerically, but on
    ``sigma`` directly, with the package's one calibration solver (geometric bisection to
    the last few ulps). It solves for the target ``delta (1 - 1e-9)`` with the left-hand
    side evaluated in double precision *plus* a bound on the rounding error of that
    evaluation, and returns only a ``sigma`` at which that upper bound was evaluated and
    met, so rounding never yields a ``sigma`` below the exact one (the excess is
    negligible except where the two terms nearly cancel, at very small ``epsilon`` and
    ``delta``). For ``epsilon < 1`` the result is always below the classical
    ``sqrt(2 ln(1.25 / delta)) Delta / epsilon`` (Dwork and Roth 2014, Theorem A.1).

    %(balle_wang_references)s

    Examples
    --------
    >>> from skprivate.mechanisms import gaussian_sigma
    >>> round(gaussian_sigma(1.0, epsilon=1.0, delta=1e-5), 4)
    3.7306
    """
    check_positive(sensitivity, "sensitivity", hint=SENSITIVITY_HINT)
    check_positive(epsilon, "epsilon", hint=EPSILON_HINT)
    delta = check_delta(delta)
    epsilon = float(epsilon)
    target = delta * (1.0 - _DELTA_SAFETY)

    # Sensitivity 1, then scaled exactly. The start: the classical calibration (valid for
    # epsilon < 1) or the epsilon -> 0 limit 1 / (2 sqrt(2) erfinv(delta)), valid for every
    # epsilon because delta(sigma) decreases in epsilon; it only seeds the bracket search.
    # The package's one calibration solver (imported here: skprivate.accounting imports this
    # module) returns only a sigma whose upper bound on delta, rounding error included, it
    # evaluated within the target, so rounding never yields a sigma below the exact one.
    from ..accounting._calibrate import NoFeasiblePointError, solve_monotone

    limit = 1.0 / (2.0 * math.sqrt(2.0) * float(erfinv(delta)))
    classical = math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon
    not_solvable = ValueError(
        f"gaussian_sigma cannot calibrate epsilon={epsilon!r}, delta={delta!r} in double "
        "precision; use an epsilon of moderate size (below about 1e100)."
    )

    def delta_bound(sigma):
        value = _balle_wang_delta_upper(sigma, epsilon)
        if math.isnan(value):
            raise not_solvable
        return value

    try:
        sigma = solve_monotone(
            delta_bound, target, increasing=False, lower=1e-300, upper=1e300,
            start=min(limit, classical), xtol=4 * np.finfo(float).eps,
        )
    except NoFeasiblePointError:  # pragma: no cover - delta(sigma) -> 0 as sigma grows
        raise not_solvable from None
    result = _round_up(Fraction(sigma) * exact_fraction(sensitivity))
    if not 0.0 < result < math.inf:
        raise ValueError(
            f"The noise for sensitivity={sensitivity!r}, epsilon={epsilon!r}, delta={delta!r} "
            "is not a finite float; use a larger epsilon or a smaller sensitivity."
        )
    return float(result)


@Substitution(**SHARED_DOCS, balle_wang_references=_BALLE_WANG_REFERENCES_DOC)
def gaussian_mechanism(value, sensitivity, epsilon, delta, random_state=None):
    """Release ``value`` with (epsilon, delta)-differential privacy by adding Gaussian noise.

    Parameters
    ----------
    value : float or array-like of float
        The exact query answer ``f(D)``; must be finite.
    sensitivity : float
        L2 sensitivity ``Delta > 0`` of the query: the largest ``||f(D) - f(D')||_2`` over
        neighbouring datasets (over all coordinates when ``value`` is an array).
    epsilon : float
        Privacy budget ``> 0``.
    delta : float
        Failure probability in ``(0, 1)``.
    %(random_state_mechanism)s

    Returns
    -------
    noisy_value : float or ndarray of float64
        ``value`` plus independent ``N(0, sigma**2)`` noise in every coordinate, with
        ``sigma = gaussian_sigma(sensitivity, epsilon, delta)``; a float when ``value`` is a
        scalar, else an array of its shape.

    See Also
    --------
    gaussian_sigma : The calibration used.
    discrete_gaussian_noise : Exact noise for integer-valued queries.

    Notes
    -----
    Privacy follows from the analytic Gaussian mechanism, Balle and Wang (2018),
    Theorem 8, which holds for every ``epsilon > 0`` (the classical calibration of Dwork and
    Roth 2014, Theorem A.1, needs ``epsilon < 1`` and adds more noise).

    %(balle_wang_references)s

    Examples
    --------
    >>> from skprivate.mechanisms import gaussian_mechanism
    >>> gaussian_mechanism([10.0, 20.0], 1.0, epsilon=1.0, delta=1e-5, random_state=0)
    array([10.469..., 19.507...])
    """
    sigma = gaussian_sigma(sensitivity, epsilon, delta)
    arr, scalar = _as_value(value)
    rng = check_rng(random_state)
    noisy = arr + rng.normal(0.0, sigma, size=arr.shape)
    return float(noisy) if scalar else noisy
