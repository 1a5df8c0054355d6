"""Teacher votes and the noisy aggregators of PATE, vectorised over queries.

The privacy of each aggregator is stated and accounted in :mod:`skprivate.accounting._pate`
(``noise="discrete"``); this module only draws the noise. The counts are integers, so the
noise is exact integer noise, discrete Laplace or discrete Gaussian (Canonne, Kamath and
Steinke 2020), drawn by samplers whose every decision is an integer comparison: no
floating-point sample exists whose low-order bits could leak the counts (the attack of
Mironov 2012 on textbook Laplace samplers). All three aggregators release a label (or "no
answer") per query; with ``return_counts=True`` they also hand back the noisy counts the label
was read from, which the student may learn from (``PATEClassifier(soft_labels=...)``): the
data-independent analysis already is that of the noisy histogram (the arg max is its
post-processing), while the data-dependent analysis covers the label only.
"""

import numpy as np

from ..mechanisms import discrete_gaussian_noise, discrete_laplace_noise

__all__ = []

NO_ANSWER = -1


def vote_counts(teacher_labels, n_classes):
    """Histogram of teacher labels per query.

    Parameters
    ----------
    teacher_labels : ndarray of shape (n_teachers, n_queries)
        Class indices in ``[0, n_classes)`` predicted by each teacher for each query, or -1
        where a teacher abstains (it received no rows).
    n_classes : int

    Returns
    -------
    votes : ndarray of shape (n_queries, n_classes), dtype int64
    """
    n_teachers, n_queries = teacher_labels.shape
    # one bincount over (query, class) cells instead of a loop over queries or teachers
    cells = np.arange(n_queries)[None, :] * n_classes + teacher_labels
    counts = np.bincount(cells[teacher_labels >= 0], minlength=n_queries * n_classes)
    return counts.reshape(n_queries, n_classes).astype(np.int64)


def _argmax_random_ties(values, rng):
    """Index of the largest entry of each row, ties broken uniformly at random.

    The columns are visited in an independent random order per row and the first maximum in
    that order is kept. The order does not depend on the counts, so this is post-processing
    of the noisy counts; a fixed rule (lowest index) would be too, but would favour the
    first classes when discrete noise ties.
    """
    n_rows, n_cols = values.shape
    order = rng.permuted(np.tile(np.arange(n_cols), (n_rows, 1)), axis=1)
    rows = np.arange(n_rows)[:, None]
    return order[rows[:, 0], np.argmax(values[rows, order], axis=1)]


def noisy_argmax(votes, mechanism, noise_scale, rng, return_counts=False):
    """Report noisy max: the index of the largest noisy count of each row.

    ``mechanism`` is "laplace" (LNMax, Papernot et al. 2017, Eq. 1, with discrete Laplace
    noise ``P(z) ~ exp(-|z| / noise_scale)`` on each count) or "gaussian" (GNMax, Papernot
    et al. 2018, Section 4.1, with discrete Gaussian noise ``P(z) ~ exp(-z^2 / (2
    noise_scale^2))``). Ties are broken uniformly at random. ``return_counts``: also return
    the noisy counts (int64, the shape of ``votes``); the draws are the same either way.
    """
    if mechanism == "laplace":
        noise = discrete_laplace_noise(noise_scale, size=votes.shape, random_state=rng)
    else:
        noise = discrete_gaussian_noise(noise_scale, size=votes.shape, random_state=rng)
    noisy = votes.astype(np.int64) + noise
    labels = _argmax_random_ties(noisy, rng)
    return (labels, noisy) if return_counts else labels


def confident_gnmax(votes, threshold, threshold_noise_scale, noise_scale, rng,
                    return_counts=False):
    """Confident-GNMax (Papernot et al. 2018, Algorithm 1), with discrete Gaussian noise.

    A query is answered only if its largest count plus discrete Gaussian noise of parameter
    ``threshold_noise_scale`` reaches ``threshold`` (for integers, the same as reaching
    ``ceil(threshold)``, which is how it is compared: no float enters); answered queries
    then get GNMax with ``noise_scale``. Returns labels with :data:`NO_ANSWER` where the
    ensemble was not confident enough; with ``return_counts``, also the GNMax noisy counts
    (rows of unanswered queries are zero and carry no information).
    """
    top = votes.max(axis=1).astype(np.int64)
    noise = discrete_gaussian_noise(threshold_noise_scale, size=top.shape, random_state=rng)
    answered = top + noise >= int(np.ceil(threshold))
    labels = np.full(votes.shape[0], NO_ANSWER, dtype=np.int64)
    noisy = np.zeros(votes.shape, dtype=np.int64)
    if answered.any():
        labels[answered], noisy[answered] = noisy_argmax(
            votes[answered], "gaussian", noise_scale, rng, return_counts=True
        )
    return (labels, noisy) if return_counts else labels
