"""The noisy row count: its noise, its lower confidence bound and its report."""

import math

import numpy as np
import pytest

from skprivate._row_count import (
    COUNT_SHARE,
    count_lower_bound,
    count_report,
    release_row_count,
)
from skprivate.mechanisms import discrete_laplace_pmf


def test_public_count_is_exact_and_free():
    count = release_row_count(1234, 1.0, public=True, rng=np.random.default_rng(0))
    assert count.n_plan == 1234 and count.epsilon == 0.0 and count.public
    assert count_lower_bound(count, 1e-6) == 1234
    assert "treated as public" in count_report(count)["number of rows"]


def test_private_count_spends_its_share_and_varies():
    rng = np.random.default_rng(0)
    counts = [release_row_count(1000, 2.0, public=False, rng=rng) for _ in range(400)]
    assert all(c.epsilon == pytest.approx(COUNT_SHARE * 2.0) for c in counts)
    values = np.array([c.n_plan for c in counts])
    # discrete Laplace of scale 1 / (0.05 * 2) = 10: standard deviation about 14
    assert 9 < values.std() < 20 and abs(values.mean() - 1000) < 3
    assert "discrete Laplace" in count_report(counts[0])["number of rows"]


def test_noisy_count_never_below_one():
    rng = np.random.default_rng(1)
    assert min(release_row_count(1, 0.01, public=False, rng=rng).n_plan for _ in range(50)) >= 1


@pytest.mark.parametrize("epsilon, beta", [(1.0, 1e-6), (0.1, 1e-3), (4.0, 1e-9)])
def test_lower_bound_failure_probability_against_the_pmf(epsilon, beta):
    """P(n < bound) <= beta, and the bound is the tightest integer one (exact pmf sums)."""
    count = release_row_count(10**6, epsilon, public=False, rng=np.random.default_rng(2))
    t = count.n_plan - count_lower_bound(count, beta)  # n < n_plan - t  iff  Z > t
    z = np.arange(t + 1, t + 20000)
    tail = float(np.sum(discrete_laplace_pmf(z, count.scale)))
    assert tail <= beta
    tail_one_less = tail + float(discrete_laplace_pmf(t, count.scale))
    assert tail_one_less > beta  # t - 1 would not do
    assert t <= math.ceil(count.scale * math.log(1 / beta))


@pytest.mark.parametrize("epsilon", [1.0, 0.3, 0.1, 2.0 / 3.0, 7.3, 1e-3])
def test_rest_never_lets_the_count_and_the_rest_exceed_epsilon(epsilon):
    # the one rule every family uses: count + rest <= epsilon in floating point, and the
    # rest is the largest float that keeps it (one ulp up would exceed or equal the sum)
    from skprivate._row_count import rest_epsilon

    count = COUNT_SHARE * epsilon
    rest = rest_epsilon(epsilon, count)
    assert count + rest <= epsilon
    assert rest == pytest.approx(epsilon - count, rel=1e-15)
    assert rest_epsilon(epsilon, 0.0) == epsilon
