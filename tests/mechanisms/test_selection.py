"""Permute-and-flip: its output law against an independent enumeration, and its DP bound."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats as sps

from skprivate.mechanisms._selection import permute_and_flip, permute_and_flip_probabilities


def _enumerated_pmf(utility, epsilon, sensitivity):
    """McKenna and Sheldon's Algorithm 1 run over every order, in floating point."""
    u = np.asarray(utility, dtype=float)
    p = np.exp(epsilon * (u - u.max()) / (2.0 * float(sensitivity)))
    m = u.size
    pmf = np.zeros(m)
    for order in itertools.permutations(range(m)):
        reach = 1.0
        for r in order:  # the sequential walk: visit, flip, stop at the first head
            pmf[r] += reach * p[r]
            reach *= 1.0 - p[r]
    return pmf / math.factorial(m)


CASES = [
    ([0, -1, -2, -5], 1.0, 1),
    ([3, 3, 0, -7, 2], 0.7, Fraction(3, 2)),
    ([10, 4, 4, 9], 2.5, 3),
]


@pytest.mark.parametrize("utility, epsilon, sensitivity", CASES)
def test_probabilities_match_the_sequential_algorithm(utility, epsilon, sensitivity):
    np.testing.assert_allclose(
        permute_and_flip_probabilities(utility, epsilon, sensitivity),
        _enumerated_pmf(utility, epsilon, sensitivity), rtol=1e-12, atol=1e-15,
    )


@pytest.mark.parametrize("utility, epsilon, sensitivity", CASES)
def test_sampler_follows_the_enumerated_law(utility, epsilon, sensitivity):
    n = 20000
    draws = permute_and_flip(utility, epsilon, sensitivity, size=n, random_state=1)
    observed = np.bincount(draws, minlength=len(utility))
    expected = n * _enumerated_pmf(utility, epsilon, sensitivity)
    keep = expected > 0
    chi2 = np.sum((observed[keep] - expected[keep]) ** 2 / expected[keep])
    assert sps.chi2.sf(chi2, keep.sum() - 1) > 1e-4
    assert observed[~keep].sum() == 0


def test_uniform_pick_among_heads_is_not_the_first_head():
    # Taking the first head in index order (no permutation) would favour index 0 among
    # equal utilities; the law is uniform over tied candidates.
    draws = permute_and_flip([0, 0, 0, 0], 1.0, 1, size=8000, random_state=2)
    counts = np.bincount(draws, minlength=4)
    assert sps.chisquare(counts).pvalue > 1e-4


def test_epsilon_dp_on_neighbouring_utilities():
    # Theorem 1 of McKenna and Sheldon: utilities that differ by at most the sensitivity
    # everywhere give output probabilities within a factor exp(epsilon).
    rng = np.random.default_rng(0)
    epsilon, sensitivity = 0.8, 2
    worst = 0.0
    for _ in range(200):
        u = rng.integers(-8, 8, size=4)
        v = u + rng.integers(-sensitivity, sensitivity + 1, size=4)
        p = permute_and_flip_probabilities(u, epsilon, sensitivity)
        q = permute_and_flip_probabilities(v, epsilon, sensitivity)
        worst = max(worst, float(np.max(np.abs(np.log(p / q)))))
    assert worst <= epsilon + 1e-9
    assert worst > 0.5 * epsilon  # the bound is nearly met: the test can see a violation


def test_huge_gaps_are_never_chosen():
    utility = [0, -(10**30), -(10**25)]
    assert set(permute_and_flip(utility, 1.0, 1, size=50, random_state=0).tolist()) == {0}


def test_single_draw_is_an_int():
    assert isinstance(permute_and_flip([1, 2], 1.0, 1, random_state=0), int)


def test_errors_name_the_parameter():
    with pytest.raises(TypeError, match="utility"):
        permute_and_flip([0.5, 1.0], 1.0, 1)
    with pytest.raises(ValueError, match="utility"):
        permute_and_flip([], 1.0, 1)
    with pytest.raises(ValueError, match="epsilon"):
        permute_and_flip([0, 1], 0.0, 1)
    with pytest.raises(ValueError, match="sensitivity"):
        permute_and_flip([0, 1], 1.0, -1)
