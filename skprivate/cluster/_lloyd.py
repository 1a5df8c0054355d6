"""The private steps of k-means: a noisy-count tree that finds dense cells, and noisy Lloyd.

Both steps work on rows already clipped and mapped to ``[-1, 1]^d`` (public bounds), so a
row has L2 norm at most ``sqrt(d)``; every release is zero-concentrated DP (zCDP) with the
``rho`` stated next to it, and the ``rho`` of all releases add up (Bun and Steinke 2016,
Lemma 2.3: adaptive composition, so a step may be chosen from earlier noisy outputs).

Tree. Level ``l`` halves every surviving cell along axis ``l mod p`` of the tree's
coordinates (the rows themselves, or a random projection of them, see
:func:`tree_coordinates`); the counts of *all* children of the surviving cells get exact
discrete Gaussian noise (empty children too, so that which children exist says nothing).
Each row lies in exactly one child at each level, so one level's vector of counts has L2
sensitivity 1 under add/remove of a row, whichever cells are counted, and noise ``sigma``
makes it ``1 / (2 sigma**2)``-zCDP (Canonne, Kamath and Steinke 2020, Theorem 4).
Children whose noisy count clears a threshold survive (post-processing of the noisy counts).

Lloyd. Each iteration assigns the rows to the nearest centre (the centres are earlier
releases: public), then releases the ``k`` counts with exact discrete Gaussian noise
``sigma_count`` and the ``k x d`` sums with the granular Gaussian mechanism
(:func:`~skprivate.mechanisms.granular_gaussian_mechanism`) of noise ``sigma_sum``. A row
changes one count by 1 and one sum by at most ``sqrt(d)`` in L2, so the iteration is
``1 / (2 sigma_count**2) + d / (2 sigma_sum**2)``-zCDP (Canonne, Kamath and Steinke 2020,
Theorems 4 and 14, composed).
"""

import math

import numpy as np

from ..mechanisms import discrete_gaussian_noise, granular_gaussian_mechanism

__all__ = []

#: The tree's coordinates: the rows themselves when ``d <= MAX_TREE_DIMENSION``, otherwise a
#: random orthonormal projection onto that many directions.
MAX_TREE_DIMENSION = 6


def tree_coordinates(U, rng):
    """The rows' coordinates in the tree, in ``[0, 1]``, and whether they are projected.

    ``U`` holds rows in ``[-1, 1]^d``. For ``d <= MAX_TREE_DIMENSION`` the tree splits the
    cube itself; otherwise it splits ``p = MAX_TREE_DIMENSION`` directions of a random
    orthonormal basis drawn from ``rng`` (data-independent, like a seed: it carries no
    information about the rows), each clipped to ``[-1, 1]``. A projection of a row of the
    cube onto a unit vector is at most ``sqrt(d)`` in magnitude but concentrates within
    ``||u|| / sqrt(d) <= 1``; the clip only sends rare rows to a border cell, and the counts
    keep sensitivity 1 whatever cell a row lands in.
    """
    d = U.shape[1]
    if d <= MAX_TREE_DIMENSION:
        return (U + 1.0) / 2.0, None
    basis, _ = np.linalg.qr(rng.standard_normal((d, MAX_TREE_DIMENSION)))
    return (np.clip(U @ basis, -1.0, 1.0) + 1.0) / 2.0, basis


def cell_centres(codes, depths, p):
    """The centre of each cell ``codes[i]`` at depth ``depths[i]``, in the tree's ``[0, 1]^p``."""
    codes = np.asarray(codes, dtype=np.int64)
    depths = np.asarray(depths, dtype=np.int64)
    lower = np.zeros((codes.size, p))
    splits = np.zeros((codes.size, p))
    for level in range(int(depths.max(initial=0))):
        axis = level % p
        below = level < depths  # cells deep enough to have this level
        splits[below, axis] += 1
        bit = (codes >> np.maximum(depths - 1 - level, 0)) & 1
        lower[below, axis] += bit[below] * 2.0 ** -splits[below, axis]
    return lower + 2.0 ** -(splits + 1.0)


def dense_cells(V, depth, sigma, threshold, max_cells, rng):
    """The tree's leaves: ``(codes, depths, noisy_counts, row_leaf)``.

    ``depth`` levels, each ``1 / (2 sigma**2)``-zCDP (module docstring); a child survives
    when its noisy count is at least ``threshold``, and at most the ``max_cells`` largest
    survive (both post-processing). A leaf is a surviving cell none of whose children
    survive, or a survivor of the last level: the dense regions, each at the finest scale
    the noise lets through. Leaves are returned with their depth and noisy count;
    ``row_leaf`` (private, never released) is the leaf of each row, -1 for a row in none.
    """
    p = V.shape[1]
    digits = -(-depth // p)
    # floor(v 2**digits), kept below 2**digits (v = 1 belongs to the last cell); level l
    # halves along axis l mod p by the (l // p + 1)-th binary digit of v
    grid = np.minimum((V * 2.0**digits).astype(np.int64), 2**digits - 1)
    rows = np.arange(V.shape[0])  # the rows inside a surviving cell
    cell = np.zeros(V.shape[0], dtype=np.int64)  # each such row's index in ``active``
    row_leaf = np.full(V.shape[0], -1)
    active = np.zeros(1, dtype=np.int64)
    active_counts = np.array([np.nan])  # the root is never a leaf: its count is not released
    leaves, leaf_depths, leaf_counts, n_leaves = [], [], [], 0
    for level in range(depth):
        axis, digit = level % p, level // p
        children = np.stack([2 * active, 2 * active + 1], axis=1).ravel()  # sorted
        # the child of a row: the lower or upper half of its cell along ``axis``
        child = 2 * cell + ((grid[rows, axis] >> (digits - 1 - digit)) & 1)
        counts = np.bincount(child, minlength=children.size)
        noisy = counts + discrete_gaussian_noise(sigma, size=children.size, random_state=rng)
        keep = np.flatnonzero(noisy >= threshold)
        if keep.size > max_cells:
            # the largest noisy counts; a stable sort breaks ties by cell order
            keep = np.sort(keep[np.argsort(-noisy[keep], kind="stable")[:max_cells]])
        has_child = np.zeros(active.size, dtype=bool)
        has_child[keep // 2] = True
        if level:
            new_leaf = ~has_child
            leaves.append(active[new_leaf])
            leaf_depths.append(np.full(new_leaf.sum(), level))
            leaf_counts.append(active_counts[new_leaf])
            in_leaf = new_leaf[cell]
            row_leaf[rows[in_leaf]] = n_leaves + (np.cumsum(new_leaf) - 1)[cell[in_leaf]]
            n_leaves += int(new_leaf.sum())
        position = np.full(children.size, -1)
        position[keep] = np.arange(keep.size)
        cell = position[child]
        stay = cell >= 0
        rows, cell = rows[stay], cell[stay]
        active, active_counts = children[keep], noisy[keep].astype(float)
        if keep.size == 0:
            break
    leaves.append(active)
    leaf_depths.append(np.full(active.size, depth))
    leaf_counts.append(active_counts)
    row_leaf[rows] = n_leaves + cell
    return (np.concatenate(leaves), np.concatenate(leaf_depths), np.concatenate(leaf_counts),
            row_leaf)


def leaf_sums(U, row_leaf, n_leaves, sigma, rng):
    """Noisy sums of the rows of ``U`` in each leaf of the tree (``row_leaf``, -1: none).

    The leaves are disjoint cells, so a row lies in at most one of them, and it has L2 norm
    at most ``sqrt(d)``: the ``n_leaves x d`` sums have L2 sensitivity ``sqrt(d)``, and
    granular Gaussian noise ``sigma`` makes the release ``d / (2 sigma**2)``-zCDP.
    """
    inside = row_leaf >= 0
    sums = _sums_by_label(U[inside], row_leaf[inside], n_leaves)
    return granular_gaussian_mechanism(sums, math.sqrt(U.shape[1]), sigma, random_state=rng)


def _sums_by_label(U, labels, n_labels):
    return np.stack(
        [np.bincount(labels, weights=U[:, j], minlength=n_labels) for j in range(U.shape[1])],
        axis=1,
    ).reshape(n_labels, U.shape[1])


def nearest(U, centres):
    """Index of the nearest centre of each row (squared Euclidean distance)."""
    # einsum, not BLAS: a thin (n x d) by (d x k) product gains nothing from BLAS threads,
    # and on a busy machine their spinning made it ten times slower (measured at 300k rows).
    scores = np.einsum("ij,kj->ik", U, centres)
    scores -= 0.5 * np.einsum("ij,ij->i", centres, centres)[None, :]
    return np.argmax(scores, axis=1)


def lloyd_step(U, centres, sigma_count, sigma_sum, min_count, rng):
    """One noisy Lloyd iteration: new centres, and the noisy counts.

    ``1 / (2 sigma_count**2) + d / (2 sigma_sum**2)``-zCDP (module docstring). A centre
    whose noisy count is below ``min_count`` keeps its place (its mean would be mostly
    noise); the others move to the noisy sum over the noisy count, clipped to the cube.
    """
    k, d = centres.shape
    labels = nearest(U, centres)
    counts = np.bincount(labels, minlength=k)
    noisy_counts = counts + discrete_gaussian_noise(sigma_count, size=k, random_state=rng)
    noisy_sums = granular_gaussian_mechanism(
        _sums_by_label(U, labels, k), math.sqrt(d), sigma_sum, random_state=rng
    )
    moved = noisy_counts >= min_count
    new = centres.copy()
    new[moved] = np.clip(noisy_sums[moved] / noisy_counts[moved, None], -1.0, 1.0)
    return new, noisy_counts
