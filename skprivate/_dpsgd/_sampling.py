"""Poisson sampling of the rows, the batch distribution the DP-SGD accountant assumes.

The sampled Gaussian mechanism (Mironov, Talwar and Zhang 2019) is accounted for batches in
which every row enters independently with probability ``q``. Shuffled batches of a fixed size
are a different mechanism that this accountant does not cover (DP-LSSGD user guide, "What the
authors' code did"). The indices must stay secret for the amplification by subsampling, so
both backends draw them from the generator the noise comes from.
"""

import numpy as np

from ..mechanisms._rng import KeyedStreams, draw_stream_key

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
# b at step t is drawn from the keyed stream (b, t) of skprivate.mechanisms._rng.KeyedStreams:
# ChaCha20 under a secret 256-bit key when the fit's generator is cryptographic (the
# default), Philox under a 128-bit key otherwise (an int random_state: the batches it always
# drew). The streams of different (t, b) never overlap (see that module).
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
# and steps use disjoint keyed streams, which are independent to the extent that the stream
# cipher is a pseudo-random function (ChaCha20, a cryptographic assumption, by default; for
# Philox the statistical assumption every PRNG-based DP implementation makes); the key is
# drawn from the fit's noise generator, so it is as secret as the noise. tests/dask/test_sampling.py checks the inclusion frequencies, the independence
# of pairs of rows and of steps, and the invariance to chunking by Monte Carlo.

# Public constant, part of the sampling scheme (never data-dependent). The in-memory loop
# pays a few microseconds per block and step (a stream reset), and a Dask chunk smaller than
# a block draws the sample of the block's start up to its own end: 2**20 rows keep both
# small (at most one block per step below a million rows; measured with
# benchmarks/dplssgd_speed.py).
SAMPLING_BLOCK = 2**20


def draw_sampling_key(rng):
    """A secret key for :class:`BlockPoissonSampler`, drawn from ``rng``: 256 bits for
    ChaCha20 when ``rng`` is cryptographic, 128 for Philox otherwise (see ``KeyedStreams``)."""
    return draw_stream_key(rng)


class BlockPoissonSampler:
    """Poisson samples of the rows, step by step, addressable by row range.

    ``indices(step, start, stop)`` returns the sorted indices in ``[start, stop)`` of the rows
    sampled at ``step``: each row independently with probability ``sample_rate``, the same
    rows whatever ``[start, stop)`` is cut from (see the comment above). Not thread-safe: one
    instance per thread or task (an instance is cheap).

    Parameters
    ----------
    key : ndarray of 2 or 4 uint64
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
        self._streams = KeyedStreams(self.key)

    def _block_sample(self, step, block, stop):
        """Sorted offsets below ``stop``, within ``block``, of its rows sampled at ``step``."""
        generator = self._streams.generator(block, step)
        length = min(SAMPLING_BLOCK, self.n_samples - block * SAMPLING_BLOCK)
        mean = length * self.sample_rate
        draws = int(mean + 4.0 * np.sqrt(mean) + 16)  # a function of (length, q) only
        parts, last = [], 0
        while last < stop:  # rarely more than one batch
            positions = np.cumsum(generator.geometric(self.sample_rate, size=draws))
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
