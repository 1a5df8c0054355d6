"""Exact integer-valued noise: the discrete Laplace and discrete Gaussian distributions.

The samplers follow Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential
Privacy" (NeurIPS 2020), Algorithms 1-3, vectorised over samples: every rejection loop keeps the
indices of the samples not yet decided and runs one *round* at a time for all of them.

Exactness. No floating-point number enters any accept/reject decision. Every Bernoulli(a/b)
with integers ``0 <= a <= b`` is drawn as ``rng.integers(0, b) < a`` (for ``b`` beyond int64 a
uniform integer below ``b`` is assembled from 62-bit words by rejection and compared as a Python
int), and Bernoulli(exp(-gamma)) for rational ``gamma`` uses only such draws. Arithmetic is
int64 wherever the operands are proven to fit; entries that might overflow are computed with
Python ints (object arrays). Floats are used only to choose batch sizes.

Parameters arrive as floats and are converted to exact rationals rounded *up* (never less noise
than asked): see :func:`discrete_laplace_rational_scale` and
:func:`discrete_gaussian_rational_sigma2`.
"""

import math
from fractions import Fraction

import numpy as np

from ..utils._docstrings import SHARED_DOCS, Substitution, fragment
from ._rng import check_rng
from ._validation import check_positive, check_size, exact_fraction

__all__ = [
    "discrete_gaussian_noise",
    "discrete_gaussian_pmf",
    "discrete_gaussian_rational_sigma2",
    "discrete_laplace_noise",
    "discrete_laplace_pmf",
    "discrete_laplace_rational_scale",
]

_INT64_MAX = 2**63 - 1
_SQRT_INT64_MAX = math.isqrt(_INT64_MAX)  # u * u fits int64 when |u| <= this
# floor(gamma) is stored clipped to this value: an entry needs that many consecutive
# Bernoulli(exp(-1)) successes before the clip could matter, which never happens.
_Q_CAP = 2**62
_BATCH_MAX = 1 << 20  # samples per round, bounds memory

# Rational rounding (see the two *_rational_* helpers).
_DENOMINATOR_BITS = 30
_LAPLACE_NUMERATOR_BITS = 53
_GAUSSIAN_NUMERATOR_BITS = 26
MAX_LAPLACE_SCALE = 2.0**52
MAX_GAUSSIAN_SIGMA = 2.0**40


# --------------------------------------------------------------------------------------------
# Exact rational rounding
# --------------------------------------------------------------------------------------------
def _round_up_rational(x, numerator_bits):
    """Smallest rational ``>= x`` with small terms.

    ``x`` itself when its denominator is at most ``2**_DENOMINATOR_BITS`` and its numerator at
    most ``2**numerator_bits``; otherwise ``ceil(x 2**k) / 2**k`` for the largest
    ``k <= _DENOMINATOR_BITS`` whose numerator is at most ``2**numerator_bits`` (``k = 0``
    when none is).
    """
    if x.denominator <= 2**_DENOMINATOR_BITS and x.numerator <= 2**numerator_bits:
        return x
    for k in range(_DENOMINATOR_BITS, -1, -1):
        numerator = -((-x.numerator << k) // x.denominator)  # ceil(x * 2**k)
        if numerator <= 2**numerator_bits or k == 0:
            return Fraction(numerator, 1 << k)
    raise AssertionError("unreachable")  # pragma: no cover


def _check_scale(scale):
    return check_positive(
        scale,
        "scale",
        upper=MAX_LAPLACE_SCALE,
        hint="Pass the noise scale, sensitivity / epsilon for epsilon-DP.",
    )


def _check_sigma(sigma):
    return check_positive(
        sigma,
        "sigma",
        upper=MAX_GAUSSIAN_SIGMA,
        hint="Pass the standard-deviation parameter of the discrete Gaussian.",
    )


def discrete_laplace_rational_scale(scale):
    """The exact rational scale that :func:`discrete_laplace_noise` uses for ``scale``.

    Parameters
    ----------
    scale : float, int or fractions.Fraction
        Requested scale ``> 0`` (at most ``2**52``).

    Returns
    -------
    scale_used : fractions.Fraction
        ``scale`` itself when it is a rational with denominator at most ``2**30`` and
        numerator at most ``2**53`` (every float that is a multiple of ``2**-30`` below
        ``2**23``, such as 0.5 or 50.0, and every ``Fraction`` with small terms);
        otherwise ``scale`` rounded *up* to a multiple of ``2**-k``, with ``k <= 30`` as
        large as keeps the numerator at most ``2**53``. It is never smaller than ``scale``;
        it exceeds it by less than ``2**-30``, and by a relative ``2**-52`` at most when
        ``scale > 2**23``.

    See Also
    --------
    discrete_laplace_noise : The sampler that uses this scale.

    Examples
    --------
    >>> from skprivate.mechanisms import discrete_laplace_rational_scale
    >>> discrete_laplace_rational_scale(0.5)
    Fraction(1, 2)
    >>> discrete_laplace_rational_scale(0.1)
    Fraction(107374183, 1073741824)
    """
    _check_scale(scale)
    return _round_up_rational(exact_fraction(scale), _LAPLACE_NUMERATOR_BITS)


def discrete_gaussian_rational_sigma2(sigma):
    """The exact rational ``sigma**2`` that :func:`discrete_gaussian_noise` uses for ``sigma``.

    Parameters
    ----------
    sigma : float, int or fractions.Fraction
        Requested ``sigma > 0`` (at most ``2**40``).

    Returns
    -------
    sigma2_used : fractions.Fraction
        The exact square of ``sigma`` (computed as a rational, without floating-point
        rounding) when it has denominator at most ``2**30`` and numerator at most ``2**26``;
        otherwise that square rounded *up* to a multiple of ``2**-k``, with ``k <= 30`` as
        large as keeps the numerator at most ``2**26``. It is never smaller than
        ``sigma**2``; it exceeds it by at most ``2**-30`` in absolute terms or ``2**-25``
        relatively, whichever is larger.

    See Also
    --------
    discrete_gaussian_noise : The sampler that uses this parameter.

    Notes
    -----
    The bounds on numerator and denominator keep the acceptance test of the sampler in
    int64 arithmetic for all candidates but a few far in the tails while ``sigma`` is below
    about ``3 * 10**4``; the others are handled exactly with Python ints. The relative
    increase of ``sigma**2`` (at most ``2**-25``) is far below anything that affects
    utility.

    Examples
    --------
    >>> from skprivate.mechanisms import discrete_gaussian_rational_sigma2
    >>> discrete_gaussian_rational_sigma2(1.5)
    Fraction(9, 4)
    >>> discrete_gaussian_rational_sigma2(0.7) > 0.7**2
    True
    """
    _check_sigma(sigma)
    return _round_up_rational(exact_fraction(sigma) ** 2, _GAUSSIAN_NUMERATOR_BITS)


# --------------------------------------------------------------------------------------------
# Exact Bernoulli draws, vectorised
# --------------------------------------------------------------------------------------------
def _uniform_below_big(bound, m, rng):
    """``m`` uniform Python ints in ``[0, bound)`` for ``bound`` beyond int64 (object array)."""
    nbits = bound.bit_length()
    words = -(-nbits // 62)
    shift = 62 * words - nbits
    out = np.empty(m, dtype=object)
    pending = np.arange(m)
    while pending.size:
        draws = rng.integers(0, 1 << 62, size=(words, pending.size), dtype=np.int64)
        x = draws[0].astype(object)
        for j in range(1, words):  # loop over 62-bit words, not samples
            x = (x << 62) | draws[j].astype(object)
        x = x >> shift  # uniform on [0, 2**nbits)
        ok = np.asarray(x < bound, dtype=bool)
        out[pending[ok]] = x[ok]
        pending = pending[~ok]
    return out


def _bernoulli_ratio(num, den, rng):
    """Exact Bernoulli(num[i] / den) for integers ``0 <= num[i] <= den`` (``den`` a Python int)."""
    m = len(num)
    if den <= _INT64_MAX:
        return rng.integers(0, den, size=m, dtype=np.int64) < np.asarray(num).astype(np.int64)
    return np.asarray(_uniform_below_big(den, m, rng) < num, dtype=bool)


def _bernoulli_exp_minus_one(m, rng):
    """``m`` exact Bernoulli(exp(-1)) draws: CKS Algorithm 1 with gamma = 1."""
    out = np.empty(m, dtype=bool)
    idx = np.arange(m)
    k = 2  # with gamma = 1 the first draw, Bernoulli(1/1), always succeeds
    while idx.size:
        a = rng.integers(0, k, size=idx.size) < 1  # Bernoulli(1/k)
        out[idx[~a]] = k % 2 == 1
        idx = idx[a]
        k += 1
    return out


def _geometric_exp_minus_one(m, rng):
    """Number of Bernoulli(exp(-1)) successes before the first failure, ``m`` times."""
    v = np.zeros(m, dtype=np.int64)
    idx = np.arange(m)
    while idx.size:
        idx = idx[_bernoulli_exp_minus_one(idx.size, rng)]
        v[idx] += 1
    return v


def _bernoulli_exp_neg(q, r, den, rng):
    """Exact Bernoulli(exp(-gamma[i])) for ``gamma[i] = q[i] + r[i] / den`` (CKS Algorithm 1).

    Parameters
    ----------
    q : ndarray of int64 or None
        Integer parts ``floor(gamma) >= 0`` (None for all zero).
    r : ndarray of int64 or object
        Numerators of the fractional parts, ``0 <= r[i] < den``.
    den : int
        Common denominator, a positive Python int of any size.
    rng : numpy.random.Generator
    """
    m = len(r)
    out = np.ones(m, dtype=bool)
    if q is not None:
        # floor(gamma) independent Bernoulli(exp(-1)) draws must all succeed; round j draws
        # the j-th one for every entry still alive that needs it.
        idx = np.flatnonzero(q > 0)
        j = 0
        while idx.size:
            j += 1
            if j >= _Q_CAP:  # pragma: no cover - probability exp(-2**62)
                raise RuntimeError("Bernoulli(exp(-gamma)) exceeded its round limit.")
            ok = _bernoulli_exp_minus_one(idx.size, rng)
            out[idx[~ok]] = False
            idx = idx[ok]
            idx = idx[q[idx] > j]
    # Fractional part gamma' = r / den in [0, 1): K <- 1; while Bernoulli(gamma' / K): K += 1;
    # succeed iff K is odd. Bernoulli(r / (den K)) = Bernoulli(1 / K) and Bernoulli(r / den).
    idx = np.flatnonzero(out & np.asarray(r > 0, dtype=bool))
    k = 1
    while idx.size:
        if k > 1:
            a = rng.integers(0, k, size=idx.size) < 1  # Bernoulli(1/k)
            stop_a, idx = idx[~a], idx[a]
        else:
            stop_a = idx[:0]
        b = _bernoulli_ratio(r[idx], den, rng)
        out[stop_a] = k % 2 == 1
        out[idx[~b]] = k % 2 == 1
        idx = idx[b]
        k += 1
    return out


# --------------------------------------------------------------------------------------------
# Samplers
# --------------------------------------------------------------------------------------------
def _sample_discrete_laplace(t, s, m, rng):
    """``m`` exact draws with pmf proportional to ``exp(-|z| s / t)`` (CKS Algorithm 2)."""
    out = np.empty(m, dtype=np.int64)
    # Expected fraction of candidates kept, used only to size batches.
    p_keep_u = 1.0 if t == 1 else -math.expm1(-1.0) / (t * -math.expm1(-1.0 / t))
    p_zero = -math.expm1(-s / t)
    accept = max(p_keep_u * (1.0 - p_zero / 2.0), 1e-3)
    filled = 0
    while filled < m:
        need = m - filled
        batch = min(int(need / accept * 1.05) + 16, _BATCH_MAX)
        # U uniform on {0..t-1}, kept with probability exp(-U/t).
        u = rng.integers(0, t, size=batch, dtype=np.int64)
        if t > 1:
            u = u[_bernoulli_exp_neg(None, u, t, rng)]
        # V geometric: P(V >= v) = exp(-v).
        v = _geometric_exp_minus_one(u.size, rng)
        if v.size and int(v.max()) > (_INT64_MAX - (t - 1)) // t:  # pragma: no cover
            raise OverflowError("A discrete Laplace draw does not fit in int64.")
        x = u + t * v  # P(X = x) proportional to exp(-x / t) on x >= 0
        y = x // s
        negative = rng.integers(0, 2, size=y.size, dtype=np.int8).astype(bool)
        keep = ~(negative & (y == 0))  # reject (-, 0) so that 0 is not counted twice
        z = np.where(negative, -y, y)[keep]
        take = min(z.size, need)
        out[filled : filled + take] = z[:take]
        filled += take
    return out


def _sample_discrete_gaussian(n, d, m, rng):
    """``m`` exact draws with pmf proportional to ``exp(-z**2 d / (2 n))`` (CKS Algorithm 3)."""
    # sigma**2 = n / d; t = floor(sigma) + 1, with floor(sqrt(n / d)) = isqrt(n // d).
    t = math.isqrt(n // d) + 1
    dt = d * t
    # Acceptance probability exp(-(|Y| - sigma^2 / t)^2 / (2 sigma^2)) = exp(-u^2 / den)
    # with u = |Y| d t - n and den = 2 n d t^2.
    den = 2 * n * d * t * t
    if den <= _INT64_MAX and n <= _SQRT_INT64_MAX and dt <= _INT64_MAX:
        # |Y| <= y_safe implies |u| <= _SQRT_INT64_MAX, so u * u fits int64.
        y_safe = (_SQRT_INT64_MAX + n) // dt
    else:
        y_safe = -1
    r_dtype = np.int64 if den <= _INT64_MAX else object
    out = np.empty(m, dtype=np.int64)
    accept = 0.5  # running estimate, used only to size batches
    filled = 0
    while filled < m:
        need = m - filled
        batch = min(int(need / accept * 1.05) + 16, _BATCH_MAX)
        y = _sample_discrete_laplace(t, 1, batch, rng)
        abs_y = np.abs(y)
        q = np.empty(batch, dtype=np.int64)
        r = np.empty(batch, dtype=r_dtype)
        small = abs_y <= y_safe
        if small.any():
            u = abs_y[small] * dt - n
            num = u * u
            q[small] = num // den
            r[small] = num % den
        large = ~small
        if large.any():  # exact Python-int arithmetic for these entries only
            u = abs_y[large].astype(object) * dt - n
            num = u * u
            q[large] = np.minimum(num // den, _Q_CAP).astype(np.int64)
            r[large] = num % den
        z = y[_bernoulli_exp_neg(q, r, den, rng)]
        accept = min(max(z.size / batch, 0.05), 1.0)
        take = min(z.size, need)
        out[filled : filled + take] = z[:take]
        filled += take
    return out


#: The ``size`` and ``random_state`` of the exact integer samplers.
_INT_NOISE_SIZE_DOC = fragment(
    """
    size : int or tuple of int, default=None
        Output shape. ``None`` returns a single Python int.
    %(random_state_mechanism)s
    """
)

#: The points of the probability mass functions.
_PMF_POINTS_DOC = fragment(
    """
    x : int or array-like of int
        Points; non-integer points have probability 0.
    """
)


def _n_samples(size):
    return 1 if size is None else math.prod(size)


@Substitution(**SHARED_DOCS, int_noise_size=_INT_NOISE_SIZE_DOC)
def discrete_laplace_noise(scale, size=None, random_state=None):
    """Draw exact discrete Laplace noise: ``P(Z = z)`` proportional to ``exp(-|z| / scale)``.

    Parameters
    ----------
    scale : float, int or fractions.Fraction
        Scale ``> 0`` (at most ``2**52``). For epsilon-DP of an integer query with
        sensitivity ``Delta`` use ``Delta / epsilon``. It is converted to the exact rational
        :func:`discrete_laplace_rational_scale` ``(scale)``, which is never smaller.
    %(int_noise_size)s

    Returns
    -------
    noise : int or ndarray of int64
        Independent draws on the integers with
        ``P(Z = z) = tanh(1 / (2 scale)) exp(-|z| / scale)``.

    See Also
    --------
    discrete_laplace_pmf : The probability mass function.
    discrete_laplace_rational_scale : The exact scale used.
    laplace_mechanism : Continuous analogue.

    Notes
    -----
    Adding this noise with ``scale = Delta / epsilon`` to an integer-valued query of
    sensitivity ``Delta`` is epsilon-DP: the geometric mechanism of Ghosh, Roughgarden and
    Sundararajan (2012), whose pmf ratio at neighbouring inputs is at most
    ``exp(Delta / scale)`` as in the proof of Dwork and Roth (2014), Theorem 3.6.

    Sampling is exact (Canonne, Kamath and Steinke 2020, Algorithm 2, with the
    Bernoulli(exp(-gamma)) sampler of their Algorithm 1): with ``scale = t / s`` in lowest
    terms, ``U`` uniform on ``{0, ..., t-1}`` is kept with probability ``exp(-U / t)``,
    ``V`` counts Bernoulli(exp(-1)) successes, ``Y = (U + t V) // s`` gets a fair random
    sign, and a negative zero is rejected. Every random decision uses integer comparisons
    only; the loops run over rejection rounds for all pending samples at once.

    References
    ----------
    .. [1] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for Differential
       Privacy", NeurIPS 2020, arXiv:2004.00010.
    .. [2] A. Ghosh, T. Roughgarden and M. Sundararajan, "Universally utility-maximizing
       privacy mechanisms", SIAM Journal on Computing 41(6), 2012.

    Examples
    --------
    >>> from skprivate.mechanisms import discrete_laplace_noise
    >>> discrete_laplace_noise(2.0, size=5, random_state=0)
    array([-1, -1,  0,  0,  0])
    >>> discrete_laplace_noise(2.0, size=5, random_state=0).dtype
    dtype('int64')
    """
    _check_scale(scale)
    size = check_size(size)
    rng = check_rng(random_state)
    exact = discrete_laplace_rational_scale(scale)
    samples = _sample_discrete_laplace(exact.numerator, exact.denominator, _n_samples(size), rng)
    return int(samples[0]) if size is None else samples.reshape(size)


@Substitution(**SHARED_DOCS, int_noise_size=_INT_NOISE_SIZE_DOC)
def discrete_gaussian_noise(sigma, size=None, random_state=None):
    """Draw exact discrete Gaussian noise: ``P(Z = z) ~ exp(-z**2 / (2 sigma**2))``.

    Parameters
    ----------
    sigma : float, int or fractions.Fraction
        Parameter ``> 0`` (at most ``2**40``); the variance is slightly below ``sigma**2``.
        ``sigma**2`` is converted to the exact rational
        :func:`discrete_gaussian_rational_sigma2` ``(sigma)``, which is never smaller.
    %(int_noise_size)s

    Returns
    -------
    noise : int or ndarray of int64
        Independent draws from the discrete Gaussian on the integers.

    See Also
    --------
    discrete_gaussian_pmf : The probability mass function.
    discrete_gaussian_rational_sigma2 : The exact ``sigma**2`` used.
    gaussian_mechanism : Continuous analogue.

    Notes
    -----
    Adding this noise to an integer-valued query of sensitivity ``Delta`` satisfies
    ``(Delta / sigma)**2 / 2``-zero-concentrated DP, the same guarantee as continuous Gaussian
    noise (Canonne, Kamath and Steinke 2020, Theorem 4), which converts to (epsilon, delta)-DP.

    Sampling is exact (their Algorithm 3): with ``t = floor(sigma) + 1``, a discrete Laplace
    candidate ``Y`` of scale ``t`` (Algorithm 2) is accepted with probability
    ``exp(-(|Y| - sigma**2 / t)**2 / (2 sigma**2))``, drawn with the Bernoulli(exp(-gamma))
    sampler of Algorithm 1 (``floor(gamma)`` Bernoulli(exp(-1)) draws, then one for the
    fractional part). With ``sigma**2 = n / d``, ``gamma = u**2 / (2 n d t**2)`` with the
    integer ``u = |Y| d t - n``; it is computed in int64 when ``u**2`` provably fits and with
    Python ints otherwise. The latter is rare for ``sigma`` below about ``3 * 10**4``; above
    about ``4 * 10**4`` the denominator itself exceeds int64 and every candidate takes the
    Python-int path, several times slower but still exact. Every random decision uses
    integer comparisons only.

    References
    ----------
    .. [1] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for Differential
       Privacy", NeurIPS 2020, arXiv:2004.00010.

    Examples
    --------
    >>> from skprivate.mechanisms import discrete_gaussian_noise
    >>> discrete_gaussian_noise(3.0, size=5, random_state=0)
    array([ 3,  6, -2, -1,  1])
    """
    _check_sigma(sigma)
    size = check_size(size)
    rng = check_rng(random_state)
    exact = discrete_gaussian_rational_sigma2(sigma)
    samples = _sample_discrete_gaussian(exact.numerator, exact.denominator, _n_samples(size), rng)
    return int(samples[0]) if size is None else samples.reshape(size)


# --------------------------------------------------------------------------------------------
# Probability mass functions
# --------------------------------------------------------------------------------------------
def _integer_points(x):
    arr = np.asarray(x)
    if arr.dtype.kind not in "iuf" and arr.dtype != bool:
        raise TypeError(f"x must be an integer or an array of integers; got {x!r}.")
    arr = arr.astype(float)
    return arr, np.isfinite(arr) & (arr == np.round(arr))


@Substitution(pmf_points=_PMF_POINTS_DOC)
def discrete_laplace_pmf(x, scale):
    """Probability mass function of the discrete Laplace distribution.

    Parameters
    ----------
    %(pmf_points)s
    scale : float
        Scale ``> 0``, as in :func:`discrete_laplace_noise`.

    Returns
    -------
    pmf : float or ndarray of float64
        ``tanh(1 / (2 scale)) exp(-|x| / scale)`` at integer ``x``, computed in floating
        point for the ``scale`` given (not its rational rounding).

    See Also
    --------
    discrete_laplace_noise : Exact sampler.

    Notes
    -----
    The normaliser is ``sum_z exp(-|z| / b) = (1 + e^{-1/b}) / (1 - e^{-1/b})
    = 1 / tanh(1 / (2 b))``.

    Examples
    --------
    >>> from skprivate.mechanisms import discrete_laplace_pmf
    >>> discrete_laplace_pmf([0, 1, -1], scale=1.0)
    array([0.4621..., 0.1700..., 0.1700...])
    """
    check_positive(scale, "scale", hint="Pass the scale of the discrete Laplace distribution.")
    arr, integer = _integer_points(x)
    b = float(scale)
    with np.errstate(over="ignore", invalid="ignore"):
        pmf = np.where(integer, math.tanh(0.5 / b) * np.exp(-np.abs(arr) / b), 0.0)
    return float(pmf) if pmf.ndim == 0 else pmf


def _discrete_gaussian_normaliser(sigma):
    """``sum_{z in Z} exp(-z**2 / (2 sigma**2))``."""
    if sigma <= 1000.0:
        k = math.ceil(40.0 * sigma + 50.0)
        z = np.arange(-k, k + 1, dtype=float)
        return float(np.sum(np.exp(-(z * z) / (2.0 * sigma * sigma))))
    # Poisson summation: sum_z exp(-z^2/(2 s^2)) = s sqrt(2 pi) sum_j exp(-2 pi^2 s^2 j^2);
    # for s > 1000 every j != 0 term is below exp(-1.9e7).
    return sigma * math.sqrt(2.0 * math.pi)


@Substitution(pmf_points=_PMF_POINTS_DOC)
def discrete_gaussian_pmf(x, sigma):
    """Probability mass function of the discrete Gaussian distribution.

    Parameters
    ----------
    %(pmf_points)s
    sigma : float
        Parameter ``> 0``, as in :func:`discrete_gaussian_noise`.

    Returns
    -------
    pmf : float or ndarray of float64
        ``exp(-x**2 / (2 sigma**2)) / Z`` at integer ``x``, computed in floating point for the
        ``sigma`` given (not its rational rounding).

    See Also
    --------
    discrete_gaussian_noise : Exact sampler.

    Notes
    -----
    ``Z = sum_z exp(-z**2 / (2 sigma**2))`` is summed over ``|z| <= 40 sigma + 50`` (the
    rest is below ``exp(-800)`` relative); for ``sigma > 1000`` it equals
    ``sigma sqrt(2 pi)`` to double precision by the Poisson summation formula.

    Examples
    --------
    >>> from skprivate.mechanisms import discrete_gaussian_pmf
    >>> discrete_gaussian_pmf([0, 1, 2], sigma=1.0)
    array([0.3989..., 0.2419..., 0.0539...])
    """
    check_positive(sigma, "sigma", hint="Pass the parameter of the discrete Gaussian.")
    arr, integer = _integer_points(x)
    s = float(sigma)
    norm = _discrete_gaussian_normaliser(s)
    with np.errstate(over="ignore", invalid="ignore"):
        pmf = np.where(integer, np.exp(-(arr * arr) / (2.0 * s * s)) / norm, 0.0)
    return float(pmf) if pmf.ndim == 0 else pmf
