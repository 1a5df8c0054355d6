"""Soft labels for PATE's student: how sure each noisy answer is, from the noisy counts.

GNMax (and LNMax) draw a noisy vote histogram and release its arg max. The student can be
given more than the arg max at no privacy cost: the data-independent analysis of the
aggregators is already that of the whole noisy histogram (the Gaussian mechanism on a
histogram of l2 change ``sqrt(2)``, Papernot et al. 2018, Proposition 8 and its exact
composition in :func:`skprivate.accounting.pate_epsilon`; the Laplace mechanism of l1 change
2 for LNMax, 2017, Section 3), of which the arg max is post-processing (Dwork and Roth
2014, Proposition 2.1). The student trained here is post-processing of the noisy counts and
the public points, so ``epsilon_`` is unchanged. The data-dependent bounds (2017 Theorem 3,
2018 Theorem 6) bound the release of the arg max only, so they no longer describe the
student: with soft labels ``epsilon_data_dependent_`` is the data-independent value, and
soft labels are refused with ``release_data_dependent=True``.

What the student gets: for each answered query, the probability that each class is the
teachers' plurality given the noisy counts ``n`` drawn, under a flat prior on the true
counts ``v``. The noise is symmetric, so ``v`` given ``n`` is distributed as ``n`` plus an
independent copy of the noise, and ``P(c is the plurality | n) = P(arg max (n + z) = c)``;
with two classes and Gaussian noise of standard deviation ``sigma`` this is ``Phi((n_c -
n_other) / (sqrt(2) sigma))``, otherwise a Monte-Carlo average over ``_DRAWS`` draws of the
continuous noise of the same scale (the discrete noise drawn has, for the scales
calibrated, nearly the same distribution; the posterior is a weighting of the student's
rows, so an approximation costs accuracy, never privacy). The student is then fitted on
each answered point once per class, weighted by that probability (the weighted
log-loss of a classifier is then its cross-entropy against the soft label).

Measured (``benchmarks/pate_adult.py``, ``benchmarks/pate_small.py``, five seeds, epsilon
2 unless said): on Adult with 250 teachers the default student reached 0.834 against 0.830
with the noisy labels only, and at epsilon 1 0.823 against 0.817; digits 0.512 against
0.410; 3,000 Adult rows 0.798 against 0.793; breast cancer and 1,000 Adult rows within the
spread of the seeds (0.898 against 0.900, 0.769 against 0.777). Close answers, which the
noise decides about half the time, no longer count as much as unanimous ones.
"""

import numpy as np
from scipy.special import ndtr
from sklearn import get_config
from sklearn.utils.validation import has_fit_parameter

__all__ = []

# Monte-Carlo draws per answer for more than two classes or Laplace noise, and answers per
# block of draws (memory: block * draws * classes floats).
_DRAWS = 256
_BLOCK = 512
# A class whose posterior is below this gets no row. Such rows carry little for a weighted
# fit, and they harm forests that bootstrap rows uniformly and multiply their weights
# (scikit-learn before its PR #31529 of January 2026, which draws rows in proportion to
# their weights): a tree whose bootstrap holds a point's low-weight row without its twin
# predicts that class with certainty in the leaf. Chosen on pate_small.py's data sets (five
# seeds, epsilon 2) under scikit-learn 1.6.1 and 1.9.1: at 1e-4, breast cancer's forest
# student fell to 0.851 under 1.6.1 (0.900 with the noisy labels only); at 0.05 it was
# 0.900 and 0.898, digits 0.510 and 0.512, 3,000 Adult rows 0.800 and 0.799.
_MIN_WEIGHT = 0.05


def plurality_posterior(noisy_counts, mechanism, noise_scale, seed):
    """``P(class c is the teachers' plurality | noisy counts)`` under a flat prior.

    Parameters
    ----------
    noisy_counts : ndarray of shape (n_answers, n_classes)
        The noisy vote counts of the answered queries.
    mechanism : {"gaussian", "laplace"}
        The noise drawn: standard deviation ``noise_scale`` (Gaussian) or Laplace scale
        ``noise_scale`` on each count.
    noise_scale : float
    seed : int
        Seeds the Monte-Carlo draws (post-processing: any seed is private).

    Returns
    -------
    posterior : ndarray of shape (n_answers, n_classes)
        Rows sum to one.
    """
    counts = np.asarray(noisy_counts, dtype=np.float64)
    n, c = counts.shape
    if mechanism == "gaussian" and c == 2:
        # The difference of two independent N(0, sigma^2) is N(0, 2 sigma^2).
        p1 = ndtr((counts[:, 1] - counts[:, 0]) / (np.sqrt(2.0) * noise_scale))
        return np.column_stack([1.0 - p1, p1])
    rng = np.random.default_rng(seed)
    posterior = np.empty((n, c))
    for start in range(0, n, _BLOCK):  # blocks of answers bound the memory, not a row loop
        block = counts[start : start + _BLOCK]
        shape = (block.shape[0], _DRAWS, c)
        if mechanism == "gaussian":
            noise = rng.normal(0.0, noise_scale, size=shape)
        else:
            noise = rng.laplace(0.0, noise_scale, size=shape)
        top = np.argmax(block[:, None, :] + noise, axis=2)
        posterior[start : start + _BLOCK] = (
            (top[:, :, None] == np.arange(c)).mean(axis=1)
        )
    return posterior


def weight_parameter(student):
    """The fit keyword that passes ``sample_weight`` to ``student``, or None if none does.

    A Pipeline routes it to its last step as ``<name>__sample_weight``. With scikit-learn's
    metadata routing switched on, weights would need the user's ``set_fit_request``: None.
    """
    if get_config().get("enable_metadata_routing", False):
        return None
    steps = getattr(student, "steps", None)
    if steps:
        name, last = steps[-1]
        if last in (None, "passthrough"):
            return None
        return f"{name}__sample_weight" if weight_parameter(last) else None
    try:
        return "sample_weight" if has_fit_parameter(student, "sample_weight") else None
    except (TypeError, ValueError):
        return None


def fit_on_posterior(student, X, posterior, classes):
    """Fit ``student`` (a fresh clone) on each point once per class, weighted by ``posterior``."""
    keyword = weight_parameter(student)
    n, c = posterior.shape
    rows = np.tile(np.arange(n), c)
    labels = np.repeat(np.arange(c), n)
    weights = posterior.T.ravel()
    keep = weights >= _MIN_WEIGHT  # the largest posterior is at least 1 / c: always kept
    rows, labels, weights = rows[keep], labels[keep], weights[keep]
    return student.fit(X[rows], classes[labels], **{keyword: weights})
