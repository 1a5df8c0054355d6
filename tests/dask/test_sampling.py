"""The blockwise Poisson sampler of the linear DP-SGD loop, checked by Monte Carlo.

The sampled Gaussian mechanism's accounting assumes every row enters every step's batch
independently with probability q. These tests check that distribution directly: per-row
inclusion frequencies (chi-square), the variance of the batch size (a fixed-size batch would
have none), independence of neighbouring rows (across a block boundary too) and of
successive steps, and that the rows sampled do not depend on how the table is chunked.
"""

import numpy as np
import pytest
from scipy import stats

from skprivate._dpsgd import _sampling
from skprivate._dpsgd._sampling import BlockPoissonSampler, draw_sampling_key

N, Q, T = 3000, 0.05, 4000


@pytest.fixture
def small_blocks(monkeypatch):
    # Blocks of 1000 rows, so that 3000 rows span three blocks and two block boundaries.
    monkeypatch.setattr(_sampling, "SAMPLING_BLOCK", 1000)


@pytest.fixture
def inclusions(small_blocks):
    sampler = BlockPoissonSampler(draw_sampling_key(np.random.default_rng(0)), N, Q)
    included = np.zeros((T, N), dtype=bool)
    for step in range(T):
        included[step, sampler.indices(step)] = True
    return included


def test_each_row_is_sampled_with_probability_q(inclusions):
    counts = inclusions.sum(axis=0)  # Binomial(T, q) per row if the sampler is right
    z = (counts - T * Q) / np.sqrt(T * Q * (1 - Q))
    assert np.abs(z).max() < 5.5
    # Chi-square with N degrees of freedom, two-sided: too regular counts fail as well.
    chi2 = float(np.sum(z**2))
    assert 1e-4 < stats.chi2.sf(chi2, N) < 1 - 1e-4


def test_batch_size_varies_as_independent_inclusions(inclusions):
    sizes = inclusions.sum(axis=1)
    assert sizes.mean() == pytest.approx(N * Q, rel=0.01)
    # Var = n q (1 - q); the sample variance's relative sd is sqrt(2 / T), about 2 %.
    assert sizes.var() == pytest.approx(N * Q * (1 - Q), rel=0.1)


def test_rows_and_steps_are_independent(inclusions):
    x = inclusions.astype(float)
    # Neighbouring rows (all pairs, then the pairs that straddle a block boundary).
    both = (x[:, :-1] * x[:, 1:]).mean()
    assert both == pytest.approx(Q * Q, abs=5 * np.sqrt(Q * Q / x[:, 1:].size) + 1e-5)
    for boundary in (1000, 2000):
        pair = (x[:, boundary - 1] * x[:, boundary]).mean()
        assert pair == pytest.approx(Q * Q, abs=5 * np.sqrt(Q * Q / T))
    # Rows at the same offset in different blocks (one stream shared by blocks would tie them).
    same_offset = (x[:, :1000] * x[:, 1000:2000]).mean()
    assert same_offset == pytest.approx(Q * Q, abs=5 * np.sqrt(Q * Q / (T * 1000)) + 1e-5)
    # The same row at successive steps.
    again = (x[:-1] * x[1:]).mean()
    assert again == pytest.approx(Q * Q, abs=5 * np.sqrt(Q * Q / x[1:].size) + 1e-5)
    # Whole batches of successive steps are uncorrelated in size.
    sizes = x.sum(axis=1)
    assert abs(np.corrcoef(sizes[:-1], sizes[1:])[0, 1]) < 5 / np.sqrt(T)


@pytest.mark.parametrize("n_samples", [2999, 3000, 3001])
def test_sample_does_not_depend_on_the_chunking(small_blocks, n_samples):
    key = draw_sampling_key(np.random.default_rng(1))
    whole = BlockPoissonSampler(key, n_samples, 0.1)
    cut_rng = np.random.default_rng(2)
    for step in range(20):
        cuts = np.unique(np.concatenate([[0, n_samples], cut_rng.integers(0, n_samples, 7)]))
        # A fresh sampler per chunk, as on a worker.
        pieces = [BlockPoissonSampler(key, n_samples, 0.1).indices(step, a, b)
                  for a, b in zip(cuts[:-1], cuts[1:])]
        np.testing.assert_array_equal(np.concatenate(pieces), whole.indices(step))
        for (a, b), piece in zip(zip(cuts[:-1], cuts[1:]), pieces):
            assert np.all((piece >= a) & (piece < b)) and np.all(np.diff(piece) > 0)


def test_key_and_step_select_the_sample():
    rng = np.random.default_rng(3)
    key, other = draw_sampling_key(rng), draw_sampling_key(rng)
    a = BlockPoissonSampler(key, 5000, 0.2)
    np.testing.assert_array_equal(a.indices(4), BlockPoissonSampler(key, 5000, 0.2).indices(4))
    assert not np.array_equal(a.indices(4), a.indices(5))
    assert not np.array_equal(a.indices(4), BlockPoissonSampler(other, 5000, 0.2).indices(4))
    np.testing.assert_array_equal(BlockPoissonSampler(key, 50, 1.0).indices(0), np.arange(50))


def test_sampling_block_is_a_public_constant():
    # Part of the sampling scheme: changing it changes every fit's batches (and the
    # reference loop in tests/linear_model/test_dplssgd.py assumes n <= SAMPLING_BLOCK).
    assert _sampling.SAMPLING_BLOCK == 2**20
