"""Trees whose splits are drawn at random, without the rows, and their noisy leaf sums.

Structure. Every internal node of a tree of depth ``D`` draws a feature uniformly and a split
of that feature's public bins (:mod:`._binning`): a threshold uniform among the bins of a
numeric feature (its missing-value bin goes right), a uniform random subset of the bins of a
categorical one. The draws use the fit's generator and nothing else, so the tree's shape is
independent of the data and costs no privacy ("totally random trees"; the random splits of
DP Explainable Boosting, Nori, Caruana, Zhong, Weld and Lou 2021).

Leaves. Every row falls in exactly one leaf of each tree. A boosting round grows ``K`` trees
(one per class score; ``K = 1`` for two classes) and releases, for all of them at once, the
vector of leaf sums of the gradients ``g`` and Hessians ``h`` of the loss at the current
(already released) scores: adding or removing one row changes that vector by the row's own
contribution ``(g_1, .., g_K, h_1, .., h_K)`` placed in its leaves, and nothing else, since
every other row's gradient depends on that row and on released values only. Its L2 norm is
the sensitivity (:func:`row_sensitivity`); each row's contribution is scaled down to it in
case floating point rounding exceeds the bound. The vector is released with
:func:`~skprivate.mechanisms.rounded_gaussian_mechanism` (exact rounded Gaussian noise on a
power-of-two grid): a post-processing of the continuous Gaussian mechanism with noise
multiplier ``sigma / Delta`` (Dwork and Roth 2014, Proposition 2.1), so every guarantee of
that mechanism holds, in particular ``Delta / sigma``-GDP (Dong, Roth and Su 2022, Theorem
2.7). The rounds are chosen adaptively from earlier releases, and GDP composes adaptively
and exactly: ``mu = sqrt(sum_t mu_t**2)`` (Dong, Roth and Su 2022, Corollary 3.3).
"""

import math

import numpy as np

from ..mechanisms import rounded_gaussian_mechanism

__all__ = []


def row_sensitivity(n_scores):
    """L2 norm bound of one row's contribution ``(g, h)`` to a round's leaf sums.

    Two classes (one score, the logistic loss): ``g = p - y`` in ``[-1, 1]`` and ``h = p (1 -
    p) <= 1/4``, so ``||(g, h)||^2 <= 1 + 1/16``. ``K >= 3`` classes (softmax): ``g_k = p_k -
    y_k``, ``sum_k g_k^2 = (1 - p_y)^2 + sum_{k != y} p_k^2 <= 2 (1 - p_y)^2 <= 2``, and ``h_k =
    p_k (1 - p_k)``, ``sum_k h_k^2 <= max_k h_k * sum_k h_k <= 1/4 (1 - sum_k p_k^2) <= 1/4``,
    so ``||(g, h)||^2 <= 2 + 1/4``.
    """
    return math.sqrt(1.0 + 1.0 / 16.0) if n_scores == 1 else 1.5


#: The squared loss's gradient, the residual ``score - target`` (target scaled to [-1, 1]),
#: is clipped to ``[-RESIDUAL_CLIP, RESIDUAL_CLIP]``: at the start the score is the target's
#: noisy mean, so only rows further than 1 (half the declared range) from it are clipped.
RESIDUAL_CLIP = 1.0


def residual_sensitivity():
    """L2 norm bound of one row's ``(g, h)`` under the squared loss: ``sqrt(c**2 + 1)``.

    ``g`` is the residual clipped to ``[-c, c]`` (``c = RESIDUAL_CLIP``) and ``h = 1`` (the
    squared loss ``(s - v)**2 / 2`` has Hessian 1), so ``||(g, h)||^2 <= c**2 + 1``; the H sums
    are the leaves' counts of rows.
    """
    return math.sqrt(RESIDUAL_CLIP**2 + 1.0)


def draw_trees(rng, n_trees, depth, n_bins, categorical):
    """Random splits of ``n_trees`` trees: ``(features, go_right)``.

    ``features`` of shape ``(n_trees, 2**depth - 1)``: the feature of each internal node
    (heap order: the children of node ``i`` are ``2 i + 1`` and ``2 i + 2``); ``go_right`` of
    shape ``(n_trees, 2**depth - 1, max(n_bins))``: whether each bin of that feature goes to
    the right child. Drawn from ``rng`` alone (no row is read).
    """
    n_nodes = 2**depth - 1
    width = int(np.max(n_bins))
    features = rng.integers(0, len(n_bins), size=(n_trees, n_nodes))
    # numeric: a threshold among the bins 0 .. B - 2 (B the feature's bins without the
    # missing-value bin), so that each side holds at least one bin; categorical: each bin
    # goes right with probability 1/2
    n_value_bins = n_bins[features] - 1
    thresholds = np.floor(rng.random((n_trees, n_nodes)) * np.maximum(n_value_bins - 1, 1))
    by_threshold = np.arange(width)[None, None, :] > thresholds[..., None]
    by_subset = rng.random((n_trees, n_nodes, width)) < 0.5
    go_right = np.where(categorical[features][..., None], by_subset, by_threshold)
    go_right &= np.arange(width)[None, None, :] < n_bins[features][..., None]
    return features, go_right


def leaf_index(bins, features, go_right):
    """The leaf (``0 .. 2**depth - 1``) of every row in one tree (vectorised over rows).

    ``bins`` of shape ``(n_features, n_samples)`` (feature-major, so that the gather of one
    feature per row reads one flat array).
    """
    n_nodes = features.shape[0]
    depth = int(round(math.log2(n_nodes + 1)))
    n_samples = bins.shape[1]
    flat_bins, width = bins.ravel(), go_right.shape[1]
    flat_right = go_right.ravel()
    column = np.arange(n_samples)
    node = np.zeros(n_samples, dtype=np.intp)
    for _ in range(depth):
        value = flat_bins[features[node] * n_samples + column]
        node = 2 * node + 1 + flat_right[node * width + value]
    return node - n_nodes


def clip_contributions(g, h, sensitivity):
    """Scale each row's ``(g, h)`` (rows of shape ``(n, K)`` each) to L2 norm ``sensitivity``."""
    norm = np.sqrt(np.sum(g * g, axis=1) + np.sum(h * h, axis=1))
    factor = np.minimum(1.0, sensitivity / np.maximum(norm, np.finfo(float).tiny))
    return g * factor[:, None], h * factor[:, None]


def noisy_leaf_sums(leaves, g, h, n_leaves, sensitivity, sigma, rng, release=None):
    """The rounded Gaussian release of the leaf sums of ``g`` and ``h``: ``(G, H)``.

    ``leaves`` of shape ``(n, K)``: each row's leaf in each of the round's ``K`` trees;
    ``g``, ``h`` of shape ``(n, K)``, already clipped (:func:`clip_contributions`). Returns
    two arrays of shape ``(K, n_leaves)``; their joint release is
    ``sensitivity / sigma``-GDP (module docstring). ``release``: a fit's
    :class:`~skprivate._dpsgd._release.SecureGaussianRelease`, the same rounded Gaussian
    release with the integer noise of the fit's rounds drawn in batches (the exact sampler
    has a fixed cost per call); None draws this release's noise alone.
    """
    n_scores = g.shape[1]
    offset = leaves + n_leaves * np.arange(n_scores)[None, :]
    size = n_leaves * n_scores
    sums = np.concatenate([
        np.bincount(offset.ravel(), weights=g.ravel(), minlength=size),
        np.bincount(offset.ravel(), weights=h.ravel(), minlength=size),
    ])
    if release is None:
        released = rounded_gaussian_mechanism(sums, sensitivity, sigma / sensitivity,
                                              random_state=rng)
    else:
        released = release(sums, sensitivity, sigma / sensitivity, rng)
    return released[:size].reshape(n_scores, n_leaves), released[size:].reshape(n_scores, n_leaves)
