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
