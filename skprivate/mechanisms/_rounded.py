"""Exact rounded Gaussian noise: ``floor(X + 1/2)`` for ``X ~ N(0, S)``, decided exactly.

Why this distribution. Adding ``R = round(X)`` to an integer-valued statistic ``f`` releases
``f + round(X) = round(f + X)``: a *post-processing* of the continuous Gaussian mechanism
``f + X`` (Dwork and Roth 2014, Proposition 2.1). Every guarantee of that mechanism carries
over unchanged, including those that hold only for the continuous Gaussian's exact curve:
the analytic Gaussian, privacy-loss distributions, and Poisson subsampling (the subsampled
Gaussian mechanism followed by rounding is a post-processing of the subsampled Gaussian
mechanism). The discrete Gaussian ``N_Z(0, S)`` has the same Renyi divergences but not the
same privacy-loss distribution, so it does not inherit those (see
:mod:`skprivate.accounting._zcdp`). The sampler below draws ``R`` with exactly the
probability mass function ``P(R = m) = Phi((m + 1/2) / sqrt(S)) - Phi((m - 1/2) / sqrt(S))``:
every decision it takes is proved right, with floating point only where a margin covers its
error and exact arithmetic (Python integers, :mod:`fractions`, :mod:`decimal`) otherwise.

Sampler: rejection from a Laplace proposal (von Neumann 1951; Devroye 1986, *Non-Uniform
Random Variate Generation*, Section II.3, the rejection method, and Section II.2, inversion).
The proposal is ``Y = +-t E`` with ``E = -ln W`` exponential (``W`` uniform on ``(0, 1)``,
inversion), a fair sign, and ``t`` a dyadic rational just below ``sqrt(S)``: density
``exp(-|y| / t) / (2 t)``. The target density ``exp(-y**2 / (2 S))`` over it is
proportional to ``exp(-(|y| - c)**2 / (2 S))`` with ``c = S / t`` (complete the square), at
most 1; accepting ``Y`` with that probability, i.e. when a uniform ``V`` falls below it,
leaves ``Y`` exactly ``N(0, S)``, so ``floor(Y + 1/2)`` of an accepted ``Y`` is exactly
``R`` (a half-integer ``Y`` has probability 0, so ``+-`` and rounding commute). About
``sqrt(2 pi) / (2 sqrt(e)) = 0.76`` of the candidates are accepted.

Lazy uniforms. ``W`` and ``V`` are uniform reals known through a prefix of random bits
(``W`` in ``[w, w + 1) / 2**b``); a decision is taken only when every real the prefixes
allow gives the same answer, so the unread bits stay uniform given the prefix and are drawn
only if needed. Each candidate reads one 64-bit word: its top 40 bits for ``W`` (exact in a
float64), the next 23 for ``V`` and the last for the sign.

Fast path (vectorised, float64). ``x = t (-ln(w / 2**40))`` bounds ``|Y|`` from above and
``x - t / w`` from below (``ln(1 + 1/w) <= 1/w``). The float value of ``x`` is within
``(L + 1) 2**-52 x`` of the real one, where ``L`` is the error of NumPy's ``log`` in units
in the last place: at most 4 (the SIMD kernels NumPy ships, checked by its
``test_umath_accuracy``; glibc's are within 1), so within ``2**-49.6 x``. Each bound is
widened by ``_MARGIN (x + t)`` with ``_MARGIN = 2**-42``: over 100 times that error plus the
single roundings of the bounds' own arithmetic, of ``c`` (within ``2**-28`` of ``t``) and of
``x - c`` (it would cover a ``log`` 1000 ulp off). The exponent ``e = (x - c)**2 / (2 S)``
(0 when the interval of ``x`` straddles ``c``) is bounded from the ends of that interval
with four correctly rounded operations (``2**-51`` relative) and ``p = exp(-e)`` with
``L <= 4`` ulp (``2**-50``); both are widened by the relative ``_MARGIN`` again. ``V < p``
is then decided by exact float comparisons of the integers ``v + 1`` and ``v`` (below
``2**53``) with ``2**23`` times the bounds of ``p``, and the rounding by
``floor(x_lo + 1/2) == floor(x_hi + 1/2)`` (the addition's error is far below the margin
wherever a half-integer is near). About ``5 t 2**-40`` of the candidates are left undecided
by the rounding (the interval of ``|Y|`` that 40 bits of ``W`` leave, about ``t / w`` wide,
holds a half-integer) and ``2**-23`` by the acceptance (``V``'s 23 bits): one in 10**6 for
DP-SGD's ``t`` of about ``2**15``, one in ``2 * 10**5`` for ``t = 10**6`` (``S = 10**12``).
The share grows with ``t``: at ``S = 2**60`` it is 0.3 % and a value costs about 1
microsecond, at ``S = 2**80`` the exact path decides nearly every candidate (still exactly).

Exact path (per undecided candidate, Python). Bounds ``lo <= f(q) <= hi`` for
``f = ln, exp`` at a rational ``q`` come from :mod:`decimal`: ``q`` is rounded toward the
side that keeps the bound (a ``ROUND_FLOOR`` or ``ROUND_CEILING`` context), ``Context.ln``
and ``Context.exp`` are correctly rounded (documented), and one step of ``next_minus`` or
``next_plus`` past the result encloses the real value. From these, the intervals of
``|Y|``, ``e`` and ``exp(-e)`` over the prefixes are exact rationals or decimals; when they
do not decide, both prefixes are extended by 60 random bits and the precision by 20 digits.
The procedure stops with probability 1 (the intervals shrink to points, and ``V`` equals the
acceptance probability, or ``|Y|`` a half-integer, with probability 0).
"""

import math
from decimal import MAX_EMAX, MIN_EMIN, ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from fractions import Fraction

import numpy as np

__all__ = []

# Bits of W (a word's top bits: below 2**53 a float64 holds w exactly) and of V (the next
# ones; the last bit is the sign) read on the fast path. Tests shorten them to send most
# candidates down the exact path.
_W_BITS = 40
_V_BITS = 23
# Relative widening of every float bound (see the module docstring): over 100 times the
# float64 error it covers. Tests raise it for the same purpose. W_BITS + V_BITS <= 63.
_MARGIN = 2.0**-42
_EXTEND_BITS = 60  # random bits added to a prefix per round of the exact path
_T_BITS = 30  # significant bits of the proposal scale t
_CHUNK = 1 << 16  # candidates per vectorised pass: arrays stay in cache
_BATCH_MAX = 1 << 22  # candidates per call of the fast path, bounds memory


class _Lazy:
    """A uniform real in ``[prefix, prefix + 1) / 2**bits``; its unread bits are drawn on demand."""

    __slots__ = ("prefix", "bits", "memo")

    def __init__(self, prefix, bits):
        self.prefix, self.bits = int(prefix), int(bits)
        self.memo = None  # the last bounds computed from this prefix (see _abs_y_bounds)

    def extend(self, rng):
        word = int(rng.integers(0, 1 << _EXTEND_BITS, dtype=np.int64))
        self.prefix = (self.prefix << _EXTEND_BITS) | word
        self.bits += _EXTEND_BITS

    def low(self):
        return Fraction(self.prefix, 1 << self.bits)

    def high(self):
        return Fraction(self.prefix + 1, 1 << self.bits)


def _context(digits, rounding):
    # Exponents unbounded in practice: exp(-e) of a huge e stays a (tiny) decimal, not 0.
    return Context(prec=digits, rounding=rounding, Emin=MIN_EMIN, Emax=MAX_EMAX)


def _to_decimal(q, digits, up):
    """A decimal ``>= q`` (``up``) or ``<= q``, of ``digits`` significant digits."""
    ctx = _context(digits, ROUND_CEILING if up else ROUND_FLOOR)
    return ctx.divide(Decimal(q.numerator), Decimal(q.denominator)), ctx


def _ln_bound(q, digits, up):
    """A decimal ``>= ln(q)`` (``up``) or ``<= ln(q)``, for a positive Fraction ``q``."""
    d, ctx = _to_decimal(q, digits, up)  # ln is increasing: round q the same way
    if d == 1:  # ln(1) = 0 exactly (a step past 0 would be a needlessly tiny decimal)
        return Decimal(0)
    r = ctx.ln(d)  # correctly rounded (to nearest): one step past it encloses ln(d)
    return r.next_plus(ctx) if up else r.next_minus(ctx)


def _exp_bound(q, digits, up):
    """A decimal ``>= exp(q)`` (``up``) or ``<= exp(q)``, for a Fraction ``q``."""
    d, ctx = _to_decimal(q, digits, up)
    r = ctx.exp(d)
    return r.next_plus(ctx) if up else r.next_minus(ctx)


def _dyadic_bound(q, digits, up):
    """``q`` (a Fraction) rounded up or down to a decimal, for comparisons with decimals."""
    return _to_decimal(q, digits, up)[0]


class _Proposal:
    """The constants of one ``S``: exact rationals for the exact path, floats for the fast one."""

    def __init__(self, S):
        n, d = S.numerator, S.denominator
        # t = floor(sqrt(S) 2**k) / 2**k with about _T_BITS significant bits: 0 < t <= sqrt(S)
        # and S / t - t < 2**-28 t, so the proposal accepts near the optimal 0.76.
        k = max(0, -((n.bit_length() - d.bit_length() - 2 * _T_BITS - 1) // 2))
        self.t = Fraction(math.isqrt((n << (2 * k)) // d), 1 << k)
        self.S, self.c = S, S / self.t
        self.t_f, self.c_f = float(self.t), float(self.c)
        self.inv_2S_f = float(1 / (2 * S))
        # sqrt(2 pi S) / (2 t) exp(-S / (2 t**2)): the acceptance rate, to size batches only.
        s_over_t = math.sqrt(float(S)) / self.t_f
        self.accept = math.sqrt(2 * math.pi) / 2 * s_over_t * math.exp(-s_over_t**2 / 2)


def _digits(w):
    """Decimal precision for a prefix of ``W``: a third of its bits (> log10(2)) and 20 more."""
    return 20 + w.bits // 3


def _abs_y_bounds(w, p):
    """Exact rational bounds of ``|Y| = -t ln W`` over the prefix of ``W`` (None: unbounded)."""
    digits = _digits(w)
    key = (w.prefix, w.bits)
    if w.memo is not None and w.memo[0] == key:  # the rounding reuses the acceptance's last
        return w.memo[1]
    low = -p.t * Fraction(_ln_bound(w.high(), digits, up=True))
    high = None if w.prefix == 0 else -p.t * Fraction(_ln_bound(w.low(), digits, up=False))
    w.memo = (key, (low, high))
    return low, high


def _exact_accept(w, v, p, rng):
    """Exactly whether ``V < exp(-(|Y| - c)**2 / (2 S))``, extending both prefixes as needed."""
    while True:
        y_lo, y_hi = _abs_y_bounds(w, p)
        digits = _digits(w)
        z_lo = y_lo - p.c
        if y_hi is None:  # |Y| in [y_lo, inf): (|Y| - c)**2 is unbounded, 0 at |Y| = c
            p_lo = Decimal(0)
            e_lo = 0 if z_lo <= 0 else z_lo * z_lo / (2 * p.S)
        else:
            z_hi = y_hi - p.c
            p_lo = _exp_bound(-max(z_lo * z_lo, z_hi * z_hi) / (2 * p.S), digits, up=False)
            e_lo = 0 if z_lo <= 0 <= z_hi else min(z_lo * z_lo, z_hi * z_hi) / (2 * p.S)
        p_hi = _exp_bound(-Fraction(e_lo), digits, up=True)
        if _dyadic_bound(v.high(), digits, up=True) <= p_lo:
            return True  # V < its prefix's end <= p_lo <= the acceptance probability
        if _dyadic_bound(v.low(), digits, up=False) >= p_hi:
            return False
        w.extend(rng)
        v.extend(rng)


def _exact_round(w, p, rng):
    """Exactly ``floor(|Y| + 1/2)``, extending the prefix of ``W`` as needed."""
    while True:
        y_lo, y_hi = _abs_y_bounds(w, p)
        if y_hi is not None:
            r = math.floor(y_lo + Fraction(1, 2))
            if r == math.floor(y_hi + Fraction(1, 2)):
                return r
        w.extend(rng)


def _words(count, rng):
    """``count`` prefixes of ``W`` and ``V`` (as exact floats) and signs, one 64-bit word each."""
    raw = rng.integers(0, 2**64, size=count, dtype=np.uint64)
    w = (raw >> np.uint64(64 - _W_BITS)).astype(np.float64)  # exact: below 2**53
    v = ((raw >> np.uint64(1)) & np.uint64((1 << _V_BITS) - 1)).astype(np.float64)
    return w, v, (raw & np.uint64(1)).astype(bool)


def _fast_path(w, v, p):
    """Vectorised decisions from the prefixes alone: (accepted, decided, rounded ``|Y|``).

    ``decided`` is False where the float bounds leave the acceptance or, for an accepted
    candidate, the rounding open; there the other two outputs are meaningless.
    """
    zero = w == 0  # W below 2**-_W_BITS: |Y| unbounded, left to the exact path
    wf = np.maximum(w, 1.0)
    x = np.log(wf * 2.0**-_W_BITS)
    x *= -p.t_f  # t (-ln(w / 2**b)): the top of the interval of |Y|
    slack = x + p.t_f
    slack *= _MARGIN
    x_hi = x + slack
    x_lo = x - slack
    x_lo -= p.t_f * (1 + _MARGIN) / wf  # -ln W >= -ln((w + 1) / 2**b) >= y - 1 / w
    np.maximum(x_lo, 0.0, out=x_lo)
    z_lo, z_hi = x_lo - p.c_f, x_hi - p.c_f
    straddle = (z_lo < 0) & (z_hi > 0)
    np.square(z_lo, out=z_lo)
    np.square(z_hi, out=z_hi)
    e_hi = np.maximum(z_lo, z_hi)
    e_hi *= p.inv_2S_f * (1 + _MARGIN)
    e_lo = np.minimum(z_lo, z_hi)
    e_lo *= p.inv_2S_f * (1 - _MARGIN)
    e_lo[straddle] = 0.0
    # V in [v, v + 1) / 2**b is below p_lo when v + 1 <= 2**b p_lo and at least p_hi when
    # v >= 2**b p_hi: exact float comparisons (v + 1 < 2**53; scaling by 2**b is exact).
    scale = float(1 << _V_BITS)
    np.negative(e_hi, out=e_hi)
    p_lo = np.exp(e_hi, out=e_hi)
    p_lo *= (1 - _MARGIN) * scale
    np.negative(e_lo, out=e_lo)
    p_hi = np.exp(e_lo, out=e_lo)
    p_hi *= (1 + _MARGIN) * scale
    accepted = v + 1 <= p_lo
    x_lo += 0.5
    x_hi += 0.5
    r = np.floor(x_lo, out=x_lo)
    rounded = r == np.floor(x_hi, out=x_hi)
    decided = accepted & rounded
    decided |= v >= p_hi
    decided &= ~zero
    return accepted, decided, r.astype(np.int64)


def _candidates(count, p, rng):
    """Up to ``count`` accepted draws from ``count`` candidates, each decided exactly."""
    out = []
    for start in range(0, count, _CHUNK):  # a chunk's arrays stay in cache
        w, v, negative = _words(min(_CHUNK, count - start), rng)
        accepted, decided, r = _fast_path(w, v, p)
        for i in np.flatnonzero(~decided).tolist():  # rare: see the module docstring
            w_i, v_i = _Lazy(int(w[i]), _W_BITS), _Lazy(int(v[i]), _V_BITS)
            accepted[i] = _exact_accept(w_i, v_i, p, rng)
            if accepted[i]:
                r[i] = _exact_round(w_i, p, rng)
        np.negative(r, out=r, where=negative)
        out.append(r[accepted])
    return np.concatenate(out)


def sample_rounded_gaussian(S, count, rng):
    """``count`` exact draws of ``floor(X + 1/2)``, ``X ~ N(0, S)``, ``S`` a positive Fraction."""
    p = _Proposal(S)
    out = np.empty(count, dtype=np.int64)
    filled = 0
    while filled < count:
        need = count - filled
        r = _candidates(min(int(need / p.accept * 1.02) + 32, _BATCH_MAX), p, rng)
        take = min(r.size, need)
        out[filled:filled + take] = r[:take]
        filled += take
    return out
