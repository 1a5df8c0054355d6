"""The exact rounded Gaussian sampler and release (skprivate.mechanisms._rounded)."""

import math
from decimal import ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chisquare, norm

import skprivate.mechanisms._rounded as rounded
from skprivate._dpsgd._release import SecureGaussianRelease
from skprivate.mechanisms import rounded_gaussian_mechanism, rounded_gaussian_plan
from skprivate.mechanisms._rounded import sample_rounded_gaussian


def _chi_square_pvalue(draws, S):
    # Against P(R = m) = Phi((m + 1/2) / s) - Phi((m - 1/2) / s), tails pooled.
    s = float(S) ** 0.5
    support = np.arange(int(-8 * s) - 2, int(8 * s) + 3)
    pmf = norm.cdf((support + 0.5) / s) - norm.cdf((support - 0.5) / s)
    observed = np.bincount(np.clip(draws, support[0], support[-1]) - support[0],
                           minlength=support.size)
    expected = pmf / pmf.sum() * draws.size
    big = expected >= 5
    observed = np.append(observed[big], observed[~big].sum())
    expected = np.append(expected[big], expected[~big].sum())
    keep = expected > 0
    return chisquare(observed[keep], expected[keep] * observed.sum() / expected[keep].sum()).pvalue


@pytest.mark.parametrize("S", [Fraction(1, 4), Fraction(2), Fraction(37, 3), Fraction(4001, 4)])
def test_pmf_is_the_rounded_gaussian(S):
    draws = sample_rounded_gaussian(S, 40_000, np.random.default_rng(7))
    assert draws.dtype == np.int64
    assert _chi_square_pvalue(draws, S) > 1e-4
    # The discrete Gaussian (variance below S) is a different law: the variance tells them
    # apart at this S (S + 1/12 for the rounded one).
    if S > 10:
        assert abs(draws.var() - (float(S) + 1 / 12)) < 0.05 * float(S)


def _binned_pvalue(draws, S, bins=40):
    # Large S: bins of about sqrt(S) / 5 grid units, P(a <= R < b) from the same Phi.
    s = float(S) ** 0.5
    edges = np.unique(np.round(np.linspace(-4 * s, 4 * s, bins + 1)).astype(np.int64))
    cdf = norm.cdf((edges - 0.5) / s)
    expected = np.diff(np.concatenate([[0.0], cdf, [1.0]])) * draws.size
    observed = np.bincount(np.searchsorted(edges, draws, side="right"), minlength=edges.size + 1)
    return chisquare(observed, expected * observed.sum() / expected.sum()).pvalue


@pytest.mark.parametrize(
    "S",
    [rounded_gaussian_plan(1.0, 1.1, 1000).scale,  # DP-SGD's plan: std 36,000 grid units
     Fraction(10**12), Fraction(10**12 + 1, 3)],
    ids=["dpsgd-plan", "1e12", "1e12/3"],
)
def test_pmf_at_large_scales(S):
    draws = sample_rounded_gaussian(S, 40_000, np.random.default_rng(11))
    assert _binned_pvalue(draws, S) > 1e-4
    assert abs(draws.mean()) < 5 * float(S) ** 0.5 / np.sqrt(draws.size)


def _exact_path_only(monkeypatch):
    # Three- and two-bit prefixes and a margin of one half leave the float path nearly
    # nothing to decide: (almost) every candidate goes through the exact path.
    monkeypatch.setattr(rounded, "_W_BITS", 3)
    monkeypatch.setattr(rounded, "_V_BITS", 2)
    monkeypatch.setattr(rounded, "_MARGIN", 0.5)
    calls = []
    exact_accept = rounded._exact_accept
    monkeypatch.setattr(rounded, "_exact_accept",
                        lambda *a: calls.append(1) or exact_accept(*a))
    return calls


def test_exact_path_alone_gives_the_same_law(monkeypatch):
    calls = _exact_path_only(monkeypatch)
    S = Fraction(3)
    draws = sample_rounded_gaussian(S, 3_000, np.random.default_rng(3))
    assert len(calls) > 3_000
    assert _chi_square_pvalue(draws, S) > 1e-4


@pytest.mark.parametrize("mutant", ["accept always", "round down"])
def test_exact_path_mutants_are_caught(monkeypatch, mutant):
    # The same check fails when the exact path is wrong: it has the power to see it.
    _exact_path_only(monkeypatch)
    if mutant == "accept always":
        monkeypatch.setattr(rounded, "_exact_accept", lambda *a: True)
    else:  # floor(|Y| + 1/2) from the lower end of the prefix's interval, undecided or not
        monkeypatch.setattr(rounded, "_exact_round", lambda w, p, rng: math.floor(
            rounded._abs_y_bounds(w, p)[0] + Fraction(1, 2)))
    S = Fraction(3)
    draws = sample_rounded_gaussian(S, 3_000, np.random.default_rng(3))
    assert _chi_square_pvalue(draws, S) < 1e-6


class _PrefixUndecided(Exception):
    pass


class _NoMoreBits:
    """A generator that refuses to extend a prefix: the exact path decides on it or raises."""

    def integers(self, *args, **kwargs):
        raise _PrefixUndecided


def _on_prefix(fn, *args):
    try:
        return fn(*args, _NoMoreBits())
    except _PrefixUndecided:
        return None


@pytest.mark.parametrize("S", [Fraction(3), rounded_gaussian_plan(1.0, 1.1, 1000).scale])
def test_fast_path_agrees_with_the_exact_decisions_near_ties(S):
    # Prefixes chosen at ties: V's cell around the acceptance probability of W's prefix,
    # and |Y| = t (-ln W) near a half-integer. Wherever the float path decides, the exact
    # path decides the same on the same prefixes; at the ties it must leave them open.
    p = rounded._Proposal(S)
    rng = np.random.default_rng(0)
    n_w, n_v = rounded._W_BITS, rounded._V_BITS
    w = rng.integers(1, 2**n_w, size=40)
    half = np.arange(40) + 0.5  # |Y| = k + 1/2 exactly at W = exp(-(k + 1/2) / t)
    w = np.concatenate([w, np.floor(2.0**n_w * np.exp(-half / p.t_f)).astype(np.int64)])
    x = -np.log(w / 2.0**n_w) * p.t_f
    p_acc = np.exp(-((x - p.c_f) ** 2) / (2 * float(S)))
    cell = np.floor(p_acc * 2**n_v).astype(np.int64)
    w_all, v_all = [], []
    for shift in (-1, 0, 1):
        w_all.append(w)
        v_all.append(np.clip(cell + shift, 0, 2**n_v - 1))
    w_all, v_all = np.concatenate(w_all), np.concatenate(v_all)
    accepted, decided, r = rounded._fast_path(w_all.astype(float), v_all.astype(float), p)
    undecided = 0
    for i in range(w_all.size):
        exact = _on_prefix(rounded._exact_accept, rounded._Lazy(w_all[i], n_w),
                           rounded._Lazy(v_all[i], n_v), p)
        exact_r = _on_prefix(rounded._exact_round, rounded._Lazy(w_all[i], n_w), p)
        if decided[i]:
            assert exact is not None and exact == accepted[i]
            if exact:
                assert exact_r == r[i]
        else:
            undecided += 1
        if exact is None or (exact and exact_r is None):
            assert not decided[i]  # the prefixes do not decide: neither may the floats
    assert undecided >= 10  # the ties were reached


class _Scripted(rounded._Lazy):
    """A lazy uniform whose further bits are given (then zeros): a chosen real number."""

    __slots__ = ("words",)

    def __init__(self, prefix, bits, words):
        super().__init__(prefix, bits)
        self.words = list(words)

    def extend(self, rng):
        word = self.words.pop(0) if self.words else 0
        self.prefix = (self.prefix << rounded._EXTEND_BITS) | word
        self.bits += rounded._EXTEND_BITS


def _split(value, bits, first):
    """``value`` (``bits`` bits) as a ``first``-bit prefix and 60-bit words."""
    words = [(value >> (bits - first - 60 * (k + 1))) & (2**60 - 1)
             for k in range((bits - first) // 60)]
    return value >> (bits - first), words


def test_exact_acceptance_decides_ties_at_two_to_the_minus_200():
    # W = w / 2**40 exactly; V within 2**-200 of the acceptance probability p(W), on
    # either side. The exact path must extend both and decide each side right; the
    # reference p(W) is computed independently at 150 digits.
    S = Fraction(1301766401)
    p = rounded._Proposal(S)
    w0 = 734_123_456_789
    with localcontext() as ctx:
        ctx.prec = 150
        y = -Decimal(p.t.numerator) / Decimal(p.t.denominator) * (
            Decimal(w0) / Decimal(2**40)).ln()
        z = y - Decimal(p.c.numerator) / Decimal(p.c.denominator)
        p_w = (-(z * z) / (2 * Decimal(S.numerator) / Decimal(S.denominator))).exp()
        v_full = int((p_w * Decimal(2**203)).to_integral_value(rounding=ROUND_FLOOR))
    assert 0.2 < float(p_w) < 1  # a likely candidate, not a tail
    for v_value, expected in ((v_full, True), (v_full + 1, False)):
        prefix, words = _split(v_value, 203, rounded._V_BITS)
        w = _Scripted(w0, 40, [])
        v = _Scripted(prefix, rounded._V_BITS, words)
        assert rounded._exact_accept(w, v, p, _NoMoreBits()) is expected
        assert v.bits > 200  # it did need the bits beyond 2**-200


@pytest.mark.parametrize(
    "q",
    [Fraction(1, 2), Fraction(2**100 - 1, 2**100), Fraction(1, 2**60), Fraction(37, 3),
     # within 1e-90 of ln 2 and of e: exp and ln land next to a round number
     Fraction(Decimal("0.69314718055994530941723212145817656807550013436025525412068000949339"
                      "3621969694715605863326996418687")),
     Fraction(Decimal("2.71828182845904523536028747135266249775724709369995957496696762772407"
                      "663035354759457138217852516642"))],
)
@pytest.mark.parametrize("digits", [25, 60])
def test_decimal_bounds_enclose_ln_and_exp(q, digits):
    with localcontext() as ctx:
        ctx.prec = 200
        exact = Decimal(q.numerator) / Decimal(q.denominator)
        ref = {"ln": exact.ln(), "exp": exact.exp(), "exp-": (-exact).exp()}
        slack = Decimal(10) ** -190  # the references' own error, far below the bounds'
    got = {"ln": (rounded._ln_bound(q, digits, False), rounded._ln_bound(q, digits, True)),
           "exp": (rounded._exp_bound(q, digits, False), rounded._exp_bound(q, digits, True)),
           "exp-": (rounded._exp_bound(-q, digits, False), rounded._exp_bound(-q, digits, True))}
    for name, (lo, hi) in got.items():
        with localcontext() as ctx:
            ctx.prec = 250
            assert lo <= ref[name] - slack and ref[name] + slack <= hi, name
            # and tight (the exact path makes progress): the rounding of q to ``digits``
            # digits, carried through ln or exp, and a few units in the last digit
            assert hi - lo <= (abs(ref[name]) + 1) * (abs(exact) + 1) * Decimal(10) ** (
                3 - digits), name


def test_numpy_log_and_exp_are_within_the_margin_s_assumption():
    # The fast path's margin covers float errors of up to about 1000 units in the last
    # place (it assumes at most 4); fail loudly on a platform far outside that.
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(2.0**-40, 1, 500), 1 - rng.uniform(0, 2.0**-20, 100)])
    e = rng.uniform(0, 45, 600)
    worst = 0.0
    with localcontext() as ctx:
        ctx.prec = 40
        for fn, arg, ref in ((np.log, x, Decimal.ln), (np.exp, -e, Decimal.exp)):
            got = fn(arg)
            for g, a in zip(got.tolist(), arg.tolist()):
                exact = ref(Decimal(a))
                worst = max(worst, float(abs(Decimal(g) - exact)) / np.spacing(abs(g)))
    assert worst <= 16


def test_large_scale_is_fast_enough_and_centred():
    draws = sample_rounded_gaussian(Fraction(2**24), 20_000, np.random.default_rng(0))
    assert abs(draws.mean()) < 5 * 2**12 / np.sqrt(20_000)
    assert draws.std() == pytest.approx(2**12, rel=0.03)


def test_release_lies_on_the_grid_and_keeps_the_plan():
    value = np.array([0.3, -7.25, 1e3])
    plan = rounded_gaussian_plan(2.0, 1.5, value.size)
    # The variance in grid units is at least (noise_multiplier * lattice sensitivity)^2:
    # the continuous Gaussian plan's noise multiplier on the rounded statistic.
    assert plan.scale >= (Fraction(3, 2) * plan.lattice_sensitivity) ** 2
    out = rounded_gaussian_mechanism(value, 2.0, 1.5, random_state=0)
    steps = out / plan.gamma
    np.testing.assert_array_equal(steps, np.round(steps))
    # The noise in real units: std noise_multiplier * sensitivity, within the grid's 2**-10.
    many = rounded_gaussian_mechanism(np.zeros(20_000), 2.0, 1.5, random_state=1)
    assert many.std() == pytest.approx(3.0, rel=0.03)


def test_batched_stream_matches_one_release_per_call_in_law():
    # The fit's stream draws repeated releases in batches; each release still lies on the
    # plan's grid and has the plan's noise.
    release = SecureGaussianRelease()
    rng = np.random.default_rng(5)
    outs = np.array([release(np.full(3, 0.5), 1.0, 2.0, rng) for _ in range(3000)])
    plan = rounded_gaussian_plan(1.0, 2.0, 3)
    np.testing.assert_array_equal(outs / plan.gamma, np.round(outs / plan.gamma))
    assert outs.std() == pytest.approx(2.0, rel=0.05)
    assert abs(outs.mean() - 0.5) < 0.1
    # Rows of the batch are independent: no two releases repeat the same noise.
    assert len({tuple(row) for row in outs}) == len(outs)
