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

from skprivate.pate._classifier import PATEClassifier


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
            rng.integers(n_teachers, size=len(y)) if groups is None else None
            rng.integers(np.iinfo(np.int32).max, size=n_teachers)
        return cache[key][1]

    PATEClassifier._teacher_labels = cached
    try:
        yield
    finally:
        PATEClassifier._teacher_labels = original


def majority(y_train, y_eval):
    values, counts = np.unique(y_train, return_counts=True)
    return float(np.mean(np.asarray(y_eval) == values[np.argmax(counts)]))


# The student's options both PATE benchmarks compare (query choice x semi-supervision).
STUDENT_OPTIONS = {
    "random queries, no semi-supervision": dict(query_strategy="random", semi_supervised=None),
    "random queries, self-training": dict(query_strategy="random",
                                          semi_supervised="self_training"),
    "k-means queries, no semi-supervision": dict(query_strategy="kmeans",
                                                 semi_supervised=None),
    "k-means queries, self-training": dict(query_strategy="kmeans",
                                           semi_supervised="self_training"),
}
