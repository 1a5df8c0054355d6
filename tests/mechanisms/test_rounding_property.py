"""Property tests: the rational parameters of the discrete samplers never mean less noise."""

from fractions import Fraction

import pytest

from skprivate.mechanisms import discrete_gaussian_rational_sigma2, discrete_laplace_rational_scale

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

POSITIVE = st.floats(min_value=1e-300, max_value=2.0**40, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None, database=None)
@given(scale=POSITIVE)
def test_laplace_scale_never_rounded_down(scale):
    used = discrete_laplace_rational_scale(scale)
    exact = Fraction(scale)
    assert exact <= used <= exact + Fraction(1, 2**30)
    assert used.denominator <= 2**30 and used.numerator <= 2**53


@settings(max_examples=300, deadline=None, database=None)
@given(sigma=POSITIVE)
def test_gaussian_sigma2_never_rounded_down(sigma):
    used = discrete_gaussian_rational_sigma2(sigma)
    exact = Fraction(sigma) ** 2
    assert exact <= used <= exact + max(Fraction(1, 2**30), exact / 2**25)
    assert used.denominator <= 2**30


@settings(max_examples=100, deadline=None, database=None)
@given(numerator=st.integers(1, 2**20), denominator=st.integers(1, 2**20))
def test_small_fractions_are_used_exactly(numerator, denominator):
    scale = Fraction(numerator, denominator)
    assert discrete_laplace_rational_scale(scale) == scale
