"""Poisson-sampled batches for a torch DataLoader.

The accountant of DP-SGD (the sampled Gaussian mechanism) assumes that every row enters
every batch independently with probability ``q``. Shuffled batches of a fixed size, what a
DataLoader gives by default, are a different mechanism, which that accountant does not
cover (DP-LSSGD user guide, "What the authors' code did"). The batch indices must also stay
secret for the amplification by subsampling to hold, so they are drawn from the same
generator as the noise.
"""

from torch.utils.data import Sampler, default_collate

from .._dpsgd._sampling import poisson_batch

__all__ = []


class PoissonBatchSampler(Sampler):
    """``steps`` Poisson batches of ``range(n_samples)`` per iteration, from ``rng``.

    Each iteration (one epoch) draws fresh batches from the numpy generator ``rng``; a batch
    can be empty.
    """

    def __init__(self, n_samples, sample_rate, steps, rng):
        self.n_samples = int(n_samples)
        self.sample_rate = float(sample_rate)
        self.steps = int(steps)
        self.rng = rng

    def __iter__(self):
        for _ in range(self.steps):
            yield poisson_batch(self.rng, self.n_samples, self.sample_rate).tolist()

    def __len__(self):
        return self.steps


class EmptySafeCollate:
    """A collate function that turns an empty batch into None instead of failing.

    A class rather than a closure so that DataLoader workers can pickle it.
    """

    def __init__(self, collate_fn=None):
        self.collate_fn = default_collate if collate_fn is None else collate_fn

    def __call__(self, items):
        if len(items) == 0:
            return None
        return self.collate_fn(items)
