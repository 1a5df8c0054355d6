"""Poisson sampling of the rows, the batch distribution the DP-SGD accountant assumes.

The sampled Gaussian mechanism (Mironov, Talwar and Zhang 2019) is accounted for batches in
which every row enters independently with probability ``q``. Shuffled batches of a fixed size
are a different mechanism that this accountant does not cover (DP-LSSGD user guide, "What the
authors' code did"). The indices must stay secret for the amplification by subsampling, so
both backends draw them from the generator the noise comes from.
"""

import numpy as np

__all__ = []


def poisson_batch(rng, n_samples, sample_rate):
    """Indices of a Poisson sample: every row independently with probability ``sample_rate``.

    Drawn as a Binomial(n, q) size and then a uniform subset of that size, which has exactly
    the distribution of independent inclusions, at a cost in the batch size rather than in n.
    The indices are sorted (cheaper row slicing of CSR matrices; a set has no order anyway),
    so the subset need not be shuffled.
    """
    if sample_rate >= 1.0:
        return np.arange(n_samples)
    size = rng.binomial(n_samples, sample_rate)
    return np.sort(rng.choice(n_samples, size=size, replace=False, shuffle=False))


# --- Poisson batches addressable by (step, block): the same sample wherever rows live ------
#
# The linear DP-SGD loop draws its batches so that the sample of row i at step t is a function
# of (key, t, i) only, not of how the rows are split into chunks: a Dask chunk [r0, r1) on a
# worker draws exactly the rows of the sample that an in-memory fit of the same seed draws.
# The rows are cut into public "sampling blocks" of SAMPLING_BLOCK rows; the sample of block
# b at step t is drawn from a counter-based generator, Philox (Salmon, Moraes, Dror and Shaw,
# "Parallel random numbers: as easy as 1, 2, 3", SC 2011), keyed by the secret key and
# started at the counter (0, 0, b, t). Draws advance the lowest counter word only, so the
# streams of different (t, b) never overlap (a block would need 2**128 draws to reach the
# next one).
#
# Within a block the sample is drawn as the gaps between successive sampled rows: for
# independent Bernoulli(q) inclusions the position of the first sampled row and every later
# gap are independent Geometric(q) variables (support 1, 2, ...), so the cumulative sums of
# i.i.d. Geometric(q) draws are exactly the sampled positions (Devroye, "Non-Uniform Random
# Variate Generation", 1986, Section X.2). The draws come in batches of a size fixed by the
# block's length and q alone, so a chunk that covers only the start of a block can stop
# early and still get the same rows; the positions come out sorted.
#
# Privacy: the sampled Gaussian mechanism (Mironov, Talwar and Zhang 2019) needs each row to
# enter each step's batch independently with probability q, and the batch to stay secret.
# Within a block the geometric gaps give exactly independent Bernoulli(q) inclusions; blocks
# and steps use disjoint Philox streams, which are independent to the extent that Philox is
# a pseudo-random function (the assumption every PRNG-based DP implementation makes of its
# generator); the key is 128 bits drawn from the fit's noise generator, so it is as secret as
# the noise. tests/dask/test_sampling.py checks the inclusion frequencies, the independence
# of pairs of rows and of steps, and the invariance to chunking by Monte Carlo.

# Public constant, part of the sampling scheme (never data-dependent). The in-memory loop
# pays a few microseconds per block and step (a Philox reset), and a Dask chunk smaller than
# a block draws the sample of the block's start up to its own end: 2**20 rows keep both
# small (at most one block per step below a million rows; measured with
# benchmarks/dplssgd_speed.py).
SAMPLING_BLOCK = 2**20


def draw_sampling_key(rng):
    """A secret 128-bit Philox key for :class:`BlockPoissonSampler`, drawn from ``rng``."""
    return rng.integers(0, 2**64, size=2, dtype=np.uint64)


class BlockPoissonSampler:
    """Poisson samples of the rows, step by step, addressable by row range.

    ``indices(step, start, stop)`` returns the sorted indices in ``[start, stop)`` of the rows
    sampled at ``step``: each row independently with probability ``sample_rate``, the same
    rows whatever ``[start, stop)`` is cut from (see the comment above). Not thread-safe: one
    instance per thread or task (an instance is cheap).

    Parameters
    ----------
    key : ndarray of 2 uint64
        From :func:`draw_sampling_key`.
    n_samples : int
        Number of rows of the whole table (public).
    sample_rate : float
        The Poisson rate ``q``, in ``(0, 1]``.
    """

    def __init__(self, key, n_samples, sample_rate):
        self.key = np.asarray(key, dtype=np.uint64)
        self.n_samples = int(n_samples)
        self.sample_rate = float(sample_rate)
        self._bits = np.random.Philox(key=self.key)
        self._generator = np.random.Generator(self._bits)
        self._counter = np.zeros(4, dtype=np.uint64)
        self._state = self._bits.state

    def _block_sample(self, step, block, stop):
        """Sorted offsets below ``stop``, within ``block``, of its rows sampled at ``step``."""
        # Resetting the state of one Philox is several times cheaper than constructing one.
        self._counter[2], self._counter[3] = block, step
        state = self._state
        state["state"] = {"counter": self._counter, "key": self.key}
        state["buffer_pos"], state["has_uint32"], state["uinteger"] = 4, 0, 0
        self._bits.state = state
        length = min(SAMPLING_BLOCK, self.n_samples - block * SAMPLING_BLOCK)
        mean = length * self.sample_rate
        draws = int(mean + 4.0 * np.sqrt(mean) + 16)  # a function of (length, q) only
        parts, last = [], 0
        while last < stop:  # rarely more than one batch
            positions = np.cumsum(self._generator.geometric(self.sample_rate, size=draws))
            positions += last
            parts.append(positions)
            last = int(positions[-1])
        positions = parts[0] if len(parts) == 1 else np.concatenate(parts)
        # Position p (1-based) is row p - 1; keep the rows below stop.
        return positions[: np.searchsorted(positions, stop, side="right")] - 1

    def indices(self, step, start=0, stop=None):
        """Sorted indices of the rows of ``[start, stop)`` sampled at ``step``."""
        stop = self.n_samples if stop is None else int(stop)
        if self.sample_rate >= 1.0:
            return np.arange(start, stop)
        first, last = start // SAMPLING_BLOCK, -(-stop // SAMPLING_BLOCK)
        parts = []
        for block in range(first, last):  # n / 2**20 blocks at most
            offset = block * SAMPLING_BLOCK
            idx = self._block_sample(step, block, min(stop - offset, SAMPLING_BLOCK)) + offset
            if offset < start:
                idx = idx[np.searchsorted(idx, start):]
            parts.append(idx)
        if len(parts) == 1:
            return parts[0]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
