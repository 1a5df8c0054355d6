"""The random partition of the private rows among PATE's teachers, addressable by row.

Row ``i`` goes to teacher ``teacher_owners(key, T, i, i + 1)[0]``: a uniform draw from a
keyed stream (:class:`skprivate.mechanisms._rng.KeyedStreams`) under a secret key drawn from
the fit's noise generator: ChaCha20 with a 256-bit key when that generator is cryptographic
(the default), Philox (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as
1, 2, 3", SC 2011) with a 128-bit key otherwise, the partition an int ``random_state``
always gave. The rows are cut into public blocks of ``PARTITION_BLOCK`` rows; the teachers
of block ``b`` are drawn in order from the stream ``(b, 0)``, so a row's teacher is a function of ``(key, T, i)`` alone, not of how the rows are split
into chunks: an in-memory fit and a Dask fit (:mod:`skprivate.pate._dask`) of the same
``random_state`` give every teacher the same rows, in the same order.

Privacy (add/remove-one-row neighbours; the argument of Papernot et al., ICLR 2017, Section
3, and ICLR 2018, Section 4). The assignment reads no value of the data: it depends on the
key, the number of teachers and the row positions only, and the teachers' draws are
independent and uniform. Independent identical draws are exchangeable, so the runs on two
neighbouring data sets can be coupled to give every row they share the same teacher; under
that coupling the added (or removed) row changes the training set of exactly one teacher,
hence at most one vote per query: the vote histogram moves by at most 2 in l1 and sqrt(2)
in l2 norm, the sensitivity that the LNMax / GNMax / Confident-GNMax analysis
(:func:`skprivate.accounting.pate_epsilon`) assumes. The output is a mixture, with the same
weights on both sides, over the coupled assignments of mechanisms that each meet that
guarantee, and (epsilon, delta) and Renyi guarantees survive such mixtures (joint
convexity of the hockey-stick divergence and of ``exp((alpha - 1) D_alpha)``), so the
accounting is unchanged. A partition stratified by label, or balanced by counting rows,
would let one row move others between teachers, and is not used.

The independence of blocks rests on the stream cipher behaving as a pseudo-random function
(a cryptographic assumption for ChaCha20, the default; for Philox the statistical assumption
every PRNG-based DP implementation makes of its generator); the key is as secret as the
noise (``random_state=None`` draws it from a generator keyed by the operating system).
"""

import numpy as np

from ..mechanisms._rng import KeyedStreams, draw_stream_key

__all__ = []

# Public constant, part of the scheme (never data-dependent): a chunk draws at most the
# teachers of its blocks' starts up to its own end, and an in-memory fit pays one stream
# reset per block.
PARTITION_BLOCK = 2**20


def draw_partition_key(rng):
    """A secret key for :func:`teacher_owners`, drawn from ``rng``: 256 bits for ChaCha20
    when ``rng`` is cryptographic, 128 for Philox otherwise (see ``KeyedStreams``)."""
    return draw_stream_key(rng)


def teacher_owners(key, n_teachers, start, stop):
    """The teacher (0 to ``n_teachers - 1``) of each row of ``[start, stop)``.

    Each row's teacher is an independent uniform draw that depends on ``(key, n_teachers,
    row index)`` only: any cut of the rows into ranges gives the same teachers.

    Examples
    --------
    >>> import numpy as np
    >>> key = np.array([1, 2], dtype=np.uint64)
    >>> whole = teacher_owners(key, 5, 0, 10)
    >>> bool(np.array_equal(whole, np.r_[teacher_owners(key, 5, 0, 4),
    ...                                  teacher_owners(key, 5, 4, 10)]))
    True
    """
    streams = KeyedStreams(key)
    start, stop = int(start), int(stop)
    parts = []
    for block in range(start // PARTITION_BLOCK, -(-stop // PARTITION_BLOCK)):
        offset = block * PARTITION_BLOCK
        # Draws are consumed in order (bounded integers by rejection, one after another),
        # so the first k teachers of a block do not depend on how many are drawn after.
        owners = streams.generator(block, 0).integers(
            n_teachers, size=min(stop, offset + PARTITION_BLOCK) - offset, dtype=np.int64
        )
        parts.append(owners[max(start - offset, 0):])
    if not parts:
        return np.zeros(0, dtype=np.int64)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)
