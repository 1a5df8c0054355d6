"""What the PATE benchmarks share: teachers trained once per data set and seed, baselines.

Not a benchmark (``run_all.py`` skips files whose name starts with ``_``).

Training hundreds of forests dominates a PATE fit. Within :func:`shared_teachers`, fits with
the same private rows, public points, number of teachers, teacher and ``random_state``
reuse the teachers' votes of the first such fit: exactly what that fit would train, since
the partition and the teachers' seeds come from ``random_state``. Public points that are the
first rows of an earlier fit's public points reuse that fit's votes on them. Each fit still draws its
own noise, chooses its own queries and trains its own student, so every configuration is
measured as a user would run it, only faster.
"""

import contextlib
import hashlib

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits

from skprivate.pate._classifier import PATEClassifier
from skprivate.pate._partition import draw_partition_key


def _digest(array):
    return hashlib.sha1(np.ascontiguousarray(array).view(np.uint8)).hexdigest()


@contextlib.contextmanager
def shared_teachers():
    cache = {}
    original = PATEClassifier._teacher_labels

    def cached(self, teacher, X, y, groups, X_public, n_teachers, rng):
        same = (_digest(X), _digest(np.asarray(y)), n_teachers, repr(teacher),
                repr(self.random_state), groups is None)
        key = same + (_digest(X_public),)
        if key not in cache:
            # Public points that are the first rows of cached ones: the same teachers (same
            # partition and seeds) labelled them already.
            for (other, (pool, labels)) in list(cache.items()):
                n = X_public.shape[0]
                if other[:-1] == same and pool.shape[0] >= n and np.array_equal(pool[:n],
                                                                               X_public):
                    cache[key] = (X_public, labels[:, :n])
                    break
        if key not in cache:
            labels = original(self, teacher, X, y, groups, X_public, n_teachers, rng)
            cache[key] = (X_public, labels)
        else:
            # Draw what the partition and the seeds would have drawn: the noise that follows
            # comes from the same point of the generator as in an uncached fit.
            draw_partition_key(rng) if groups is None else None
            rng.integers(np.iinfo(np.int32).max, size=n_teachers)
        return cache[key][1]

    PATEClassifier._teacher_labels = cached
    try:
        yield
    finally:
        PATEClassifier._teacher_labels = original


def small_data_splits(name, seed, adult):
    """The splits of ``pate_small.py`` (and ``pate_label_ceiling.py``), new per seed.

    Breast cancer and digits: 60 % private, 20 % public, 20 % evaluation. Adult (``adult``
    is the encoded ``(X, y, X_test, y_test)``): 1,000 or 3,000 random training rows are
    private (``name`` is ``"adult_1000"`` or ``"adult_3000"``), 500 random test rows public
    and 5,000 more the evaluation set. Returns ``(X, y, X_public, y_public, X_eval,
    y_eval)``; ``y_public`` is for the label-ceiling benchmark only (PATE must not see it).
    """
    rng = np.random.default_rng(seed)
    if name in ("breast_cancer", "digits"):
        X, y = (load_breast_cancer if name == "breast_cancer" else load_digits)(
            return_X_y=True)
        order = rng.permutation(len(y))
        a, b = int(0.6 * len(y)), int(0.8 * len(y))
        private, public, evaluation = order[:a], order[a:b], order[b:]
        return (X[private], y[private], X[public], y[public], X[evaluation], y[evaluation])
    X, y, X_test, y_test = adult
    rows = rng.permutation(len(y))[: int(name.split("_")[1])]
    test = rng.permutation(len(y_test))
    public, evaluation = test[:500], test[500:5500]
    return (X[rows], y[rows], X_test[public], y_test[public], X_test[evaluation],
            y_test[evaluation])


def majority(y_train, y_eval):
    values, counts = np.unique(y_train, return_counts=True)
    return float(np.mean(np.asarray(y_eval) == values[np.argmax(counts)]))


# The student's options both PATE benchmarks compare: query choice x what the student learns
# from (soft labels, the noisy labels only, or self-training on the unlabelled points, which
# uses the noisy labels). The default combination is left out by the benchmarks (it is their
# "defaults" row).
STUDENT_OPTIONS = {
    "random queries, soft labels": dict(query_strategy="random", semi_supervised=None,
                                        soft_labels="auto"),
    "random queries, self-training": dict(query_strategy="random",
                                          semi_supervised="self_training",
                                          soft_labels="auto"),
    "k-means queries, soft labels": dict(query_strategy="kmeans", semi_supervised=None,
                                         soft_labels="auto"),
    "k-means queries, noisy labels only": dict(query_strategy="kmeans", semi_supervised=None,
                                               soft_labels=False),
    "k-means queries, self-training": dict(query_strategy="kmeans",
                                           semi_supervised="self_training",
                                           soft_labels="auto"),
}
