"""The rounded Gaussian sampler as it was before the float fast path (for the benchmark only).

A verbatim copy of ``skprivate/mechanisms/_rounded.py`` at commit ce8446d (its module
docstring omitted): discrete Laplace candidates from CKS Algorithm 2, an exact
Bernoulli(exp(-g1)) from ``_discrete._bernoulli_exp_neg`` and von Neumann chains for
exp(-t2). ``benchmarks/rounded_sampler.py`` times it against the package's sampler.
"""

import math
from fractions import Fraction

import numpy as np

from skprivate.mechanisms._discrete import (
    _INT64_MAX,
    _SQRT_INT64_MAX,
    _bernoulli_exp_neg,
    _sample_discrete_laplace,
)

__all__ = []

_BITS = 60  # bits per lazy-uniform word; 1 + 2 sign(m) u then fits int64 exactly
_WORD = 1 << _BITS
# The fast path decides x < V or x >= V only beyond this relative margin (see docstring).
_FAST_MARGIN = 2.0**-40
# 2 |m| d t stays far inside int64 for every discrete Laplace draw below this d t (a draw
# beyond 2**40 t has probability exp(-2**40)); larger d t take the Python-int path.
_SAFE = 2**20


class _Lazy:
    """A uniform real on [0, 1) known through ``prefix / 2**bits`` (the exact slow path)."""

    __slots__ = ("prefix", "bits")

    def __init__(self, prefix, bits):
        self.prefix, self.bits = int(prefix), int(bits)

    def extend(self, rng):
        self.prefix = (self.prefix << _BITS) | int(rng.integers(0, _WORD))
        self.bits += _BITS

    def interval(self):
        return Fraction(self.prefix, 1 << self.bits), Fraction(self.prefix + 1, 1 << self.bits)


def _t2_interval(m, k, S, u_lazy):
    """Exact bounds of ``t2(m, U) / k`` over the interval ``U`` (``u = lazy - 1/2``) allows."""
    lo, hi = u_lazy.interval()
    lo, hi = lo - Fraction(1, 2), hi - Fraction(1, 2)

    def t2(u):
        return (abs(m) * (1 + 2 * (1 if m > 0 else -1) * u) + u * u) / (2 * S * k)

    if m == 0:
        values = [lo * lo / (2 * S * k), hi * hi / (2 * S * k)]
        low = Fraction(0) if lo <= 0 <= hi else min(values)
        return low, max(values)
    a, b = t2(lo), t2(hi)
    return min(a, b), max(a, b)


def _less(a, b, rng):
    """Exactly whether lazy uniform ``a < b``, extending both until their intervals part."""
    while True:
        bits = max(a.bits, b.bits)
        while a.bits < bits:
            a.extend(rng)
        while b.bits < bits:
            b.extend(rng)
        if a.prefix != b.prefix:
            return a.prefix < b.prefix
        a.extend(rng)
        b.extend(rng)


def _exact_chain(m, k, S, u_lazy, v_prev, v_cur, position, rng):
    """Finish one von Neumann chain exactly; True iff it accepts (its length is odd).

    ``position`` is the index ``n`` of ``v_cur`` in the chain (``V_n``); ``v_prev`` is
    ``V_{n-1}``, or None when ``n = 1`` (then ``V_0 = x = t2(m, U) / k``).
    """
    while True:
        if position == 1:
            while True:  # compare x = t2(m, U) / k with V_1
                x_lo, x_hi = _t2_interval(m, k, S, u_lazy)
                v_lo, v_hi = v_cur.interval()
                if v_lo >= x_hi:
                    return True  # V_1 >= x: the chain stops at n = 1, odd
                if v_hi <= x_lo:
                    break  # V_1 < x: go on
                (u_lazy.extend if x_hi - x_lo >= v_hi - v_lo else v_cur.extend)(rng)
        elif not _less(v_cur, v_prev, rng):
            return position % 2 == 1  # V_n >= V_{n-1}: the chain stops at n
        v_prev, v_cur = v_cur, _Lazy(rng.integers(0, _WORD), _BITS)
        position += 1


def _exact_rest(m, k, S, u_lazy, done, v_prev, v_cur, position, rng):
    """Exact acceptance of the remaining chains of one candidate, from a mid-chain state."""
    if not _exact_chain(m, k, S, u_lazy, v_prev, v_cur, position, rng):
        return False
    for _ in range(done + 1, k):
        if not _exact_chain(m, k, S, u_lazy, None, _Lazy(rng.integers(0, _WORD), _BITS), 1,
                            rng):
            return False
    return True


def _accept_t2(m, u_word, S, rng):
    """Bernoulli(exp(-t2(m, U))) for each candidate, ``U = u_word / 2**60 - 1/2`` (lazy)."""
    count = m.size
    S_float = float(S)
    abs_m = np.abs(m).astype(np.float64)
    sign = np.where(m >= 0, 1, -1).astype(np.int64)
    # 1 + 2 sign(m) u at the two ends of U's interval, as exact integers over 2**60.
    p_lo = (2 * u_word - _WORD) * sign + _WORD
    p_hi = (2 * (u_word + 1) - _WORD) * sign + _WORD
    # u = (2 word - 2**60) / 2**61 from an exact integer numerator: no cancellation near 0.
    num_lo = 2 * u_word - _WORD
    num_hi = num_lo + 2
    u_lo = num_lo.astype(np.float64) / (2.0 * _WORD)
    u_hi = num_hi.astype(np.float64) / (2.0 * _WORD)
    t_a = (abs_m * (p_lo.astype(np.float64) / _WORD) + u_lo * u_lo) / (2.0 * S_float)
    t_b = (abs_m * (p_hi.astype(np.float64) / _WORD) + u_hi * u_hi) / (2.0 * S_float)
    t_min, t_max = np.minimum(t_a, t_b), np.maximum(t_a, t_b)
    straddles = (m == 0) & (num_lo <= 0) & (num_hi >= 0)
    t_min = np.where(straddles, 0.0, t_min)
    # k chains of exp(-t2 / k) each keep every x <= 1; k > 1 needs |m| > S - 1/8.
    k = np.maximum(1, np.ceil(t_max * (1 + 2 * _FAST_MARGIN))).astype(np.int64)
    accepted = np.ones(count, dtype=bool)
    slow = []
    for chain in range(int(k.max()) if count else 0):
        alive = np.flatnonzero(accepted & (k > chain))
        if not alive.size:
            break
        x_lo = t_min[alive] / k[alive] * (1 - _FAST_MARGIN)
        x_hi = t_max[alive] / k[alive] * (1 + _FAST_MARGIN)
        v = rng.integers(0, _WORD, size=alive.size, dtype=np.int64)
        v_lo = v.astype(np.float64) / _WORD * (1 - 2.0**-52)
        v_hi = (v + 1).astype(np.float64) / _WORD * (1 + 2.0**-52)
        stop = v_lo >= x_hi  # V_1 >= x: this chain accepts
        go = v_hi <= x_lo  # V_1 < x: the chain goes on
        undecided = ~(stop | go)
        for i, word in zip(alive[undecided], v[undecided]):
            slow.append((i, chain, None, _Lazy(word, _BITS), 1))
        accepted[alive[undecided]] = False  # settled below by the exact path
        # Chains past V_1: compare fresh 60-bit words; a tie goes to the exact path.
        idx, prev, position = alive[go], v[go], 1
        while idx.size:
            position += 1
            cur = rng.integers(0, _WORD, size=idx.size, dtype=np.int64)
            tie = cur == prev
            for i, p, c in zip(idx[tie], prev[tie], cur[tie]):
                slow.append((i, chain, _Lazy(p, _BITS), _Lazy(c, _BITS), position))
            accepted[idx[tie]] = False
            ended = (cur > prev) & ~tie
            accepted[idx[ended]] = position % 2 == 1  # stopped at V_position >= V_prev
            more = (cur < prev) & ~tie
            idx, prev = idx[more], cur[more]
    for i, chain, v_prev, v_cur, position in slow:
        u_lazy = _Lazy(u_word[i], _BITS)
        accepted[i] = _exact_rest(int(m[i]), int(k[i]), S, u_lazy, chain, v_prev, v_cur,
                                  position, rng)
    return accepted


def sample_rounded_gaussian(S, count, rng):
    """``count`` exact draws of ``floor(X + 1/2)``, ``X ~ N(0, S)``, ``S`` a positive Fraction."""
    n, d = S.numerator, S.denominator
    t = math.isqrt(n // d) + 1  # floor(sqrt(S)) + 1, as in CKS Algorithm 3
    dt = d * t
    den = 8 * n * d * t * t  # g1(m) = (2 |m| d t - 2 n - d t)**2 / den
    out = np.empty(count, dtype=np.int64)
    filled, accept = 0, 0.5  # running acceptance estimate, used only to size batches
    while filled < count:
        need = count - filled
        batch = min(int(need / accept * 1.05) + 16, 1 << 20)
        m = _sample_discrete_laplace(t, 1, batch, rng)
        w = np.abs(2 * np.abs(m) * dt - 2 * n - dt) if dt < _SAFE else None
        if w is not None and den <= _INT64_MAX and int(w.max(initial=0)) <= _SQRT_INT64_MAX:
            num = w * w
            q, r = num // den, num % den
        else:  # exact Python ints where int64 could overflow
            w = np.abs(2 * np.abs(m).astype(object) * dt - 2 * n - dt)
            num = w * w
            q = np.minimum(num // den, 2**62).astype(np.int64)
            r = num % den
            if den <= _INT64_MAX:
                r = r.astype(np.int64)
        m = m[_bernoulli_exp_neg(q, r, den, rng)]
        u_word = rng.integers(0, _WORD, size=m.size, dtype=np.int64)
        m = m[_accept_t2(m, u_word, S, rng)]
        accept = min(max(m.size / batch, 0.05), 1.0)
        take = min(m.size, need)
        out[filled:filled + take] = m[:take]
        filled += take
    return out
