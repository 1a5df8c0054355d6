"""Teacher votes and the noisy aggregators of PATE, vectorised over queries.

The privacy of each aggregator is stated and accounted in :mod:`skprivate.accounting._pate`;
this module only draws the noise. All three release a label (or "no answer") per query and
never the noisy counts themselves: the noisy values stay inside this module, which also
removes the surface of floating-point attacks on the low-order bits of released Laplace or
Gaussian samples (Mironov 2012), since no such sample is ever released.
"""

import numpy as np

from ..mechanisms import gaussian_noise, laplace_noise

__all__ = []

NO_ANSWER = -1


def vote_counts(teacher_labels, n_classes):
    """Histogram of teacher labels per query.

    Parameters
    ----------
    teacher_labels : ndarray of shape (n_teachers, n_queries)
        Class indices in ``[0, n_classes)`` predicted by each teacher for each query.
    n_classes : int

    Returns
    -------
    votes : ndarray of shape (n_queries, n_classes), dtype int64
    """
    n_teachers, n_queries = teacher_labels.shape
    # one bincount over (query, class) cells instead of a loop over queries or teachers
    cells = np.arange(n_queries)[None, :] * n_classes + teacher_labels
    counts = np.bincount(cells.ravel(), minlength=n_queries * n_classes)
    return counts.reshape(n_queries, n_classes).astype(np.int64)


def noisy_argmax(votes, mechanism, noise_scale, rng):
    """Report noisy max: the index of the largest noisy count of each row.

    ``mechanism`` is "laplace" (LNMax, Papernot et al. 2017, Eq. 1: Laplace(noise_scale) on
    each count) or "gaussian" (GNMax, Papernot et al. 2018, Section 4.1:
    N(0, noise_scale^2) on each count). Ties between noisy counts have probability zero.
    """
    if mechanism == "laplace":
        noise = laplace_noise(noise_scale, size=votes.shape, random_state=rng)
    else:
        noise = gaussian_noise(noise_scale, size=votes.shape, random_state=rng)
    return np.argmax(votes + noise, axis=1)


def confident_gnmax(votes, threshold, threshold_noise_scale, noise_scale, rng):
    """Confident-GNMax (Papernot et al. 2018, Algorithm 1).

    A query is answered only if its largest count plus N(0, threshold_noise_scale^2) reaches
    ``threshold``; answered queries then get GNMax with ``noise_scale``. Returns labels with
    :data:`NO_ANSWER` where the ensemble was not confident enough.
    """
    top = votes.max(axis=1)
    passed = top + gaussian_noise(threshold_noise_scale, size=top.shape, random_state=rng)
    answered = passed >= threshold
    labels = np.full(votes.shape[0], NO_ANSWER, dtype=np.int64)
    if answered.any():
        labels[answered] = noisy_argmax(votes[answered], "gaussian", noise_scale, rng)
    return labels
