"""Bound the native thread pools during a fit, and give them back as they were.

A Python process that has run scikit-learn and then trains a torch model holds several
native runtimes at once: scikit-learn's OpenMP (libgomp), NumPy's and SciPy's OpenBLAS, and
torch's own OpenMP, each with one thread per core. Their threads busy-wait for a while after
each parallel region; on a machine whose cores are shared (a JupyterHub server, a CI runner,
several processes of one job), short parallel regions then cost more spinning than work, and
the pools spin against each other and against the other processes (we measured a net
fit after a ``LogisticRegression`` fit beside two busy processes on two cores: 225 s, against
16 s with ``OMP_NUM_THREADS=1``). ``threadpoolctl`` bounds every pool it finds in the
process, whichever library loaded it; a runtime that keeps its own count (torch's intra-op
pool) is passed as a getter and a setter, so that this module imports nothing above it.
"""

from contextlib import contextmanager

from threadpoolctl import threadpool_info, threadpool_limits

__all__ = ["bounded_threads"]


@contextmanager
def bounded_threads(limit=1, *, runtimes=()):
    """Run the block with at most ``limit`` threads in every native pool, then restore them.

    Parameters
    ----------
    limit : int, default=1
        The most threads each BLAS and OpenMP pool that ``threadpoolctl`` finds may use
        inside the block (at least 1). A pool already bounded lower (by the user's
        ``threadpool_limits`` or ``OMP_NUM_THREADS``) keeps its bound.
    runtimes : iterable of (getter, setter, limit) triples, default=()
        Thread counts that ``threadpoolctl`` does not hold, e.g.
        ``(torch.get_num_threads, torch.set_num_threads, 1)``: each is set to
        ``min(getter(), limit)`` inside the block (after the pools, so that it wins where
        it shares a pool with them) and back to ``getter()``'s value after it, whether the
        block returns or raises.

    Yields
    ------
    None
    """
    runtimes = list(runtimes)
    previous = [get() for get, _, _ in runtimes]
    # Every BLAS and OpenMP pool loaded in the process, not only the ones the block calls:
    # a pool left at one thread per core wakes its threads (which then spin) whenever a
    # NumPy or SciPy call reaches it.
    with threadpool_limits(limits=_lowest_limits(limit)):
        try:
            for (_, set_threads, bound), count in zip(runtimes, previous):
                set_threads(max(1, min(count, int(bound))))
            yield
        finally:
            for (_, set_threads, _), count in zip(runtimes, previous):
                set_threads(count)


def _lowest_limits(limit):
    # threadpool_limits(limits=n) would raise a pool that the user bounded below n: keep the
    # lower of the two, by library prefix (threadpoolctl's finest key; it restores every
    # pool on exit).
    limits = {}
    for info in threadpool_info():
        count = max(1, min(int(info["num_threads"]), int(limit)))
        limits[info["prefix"]] = min(count, limits.get(info["prefix"], count))
    return limits
