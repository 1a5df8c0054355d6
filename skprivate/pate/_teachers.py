"""The teachers: the default one, and one teacher's training and answers (in a worker).

Kept apart from the labelling so that the Dask path (:mod:`._dask`) and the in-memory one
(:mod:`._labelling`) both import them from one floor below.
"""

import numpy as np
from sklearn import config_context
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

from ..base import _n_rows
from ..utils._validation import explain_non_numeric

__all__ = []

# teacher=None with two classes: one decision tree of depth 6. The teachers are already an
# ensemble (the noisy vote averages them as a forest averages its trees), so each need not
# be one. A policy constant chosen on Adult (benchmarks/pate_teachers.py, 3 seeds, every
# other default kept): against forests of 100 trees, the default before, 0.820 against
# 0.820 at epsilon 1 and 0.836 against 0.830 at epsilon 2, in 10 s against 231 s;
# forests of 10 or 20 trees, extra trees, boosting of 20 iterations and logistic
# regression were slower and no more accurate, trees of depth 4, 8 or unlimited within
# the seeds' spread. On an imbalanced table (benchmarks/pate_imbalanced.py) a tree's votes
# also carry the minority class, which a forest's averaged probabilities on a teacher's
# few rows almost never reach (ROC AUC of the student 0.677 against 0.595 at epsilon 1).
# The benchmarks replace it here (mock.patch.object(_teachers, "_DEFAULT_TEACHER", ...)).
_DEFAULT_TEACHER = lambda: DecisionTreeClassifier(max_depth=6)  # noqa: E731


def default_teacher(n_classes):
    """The teacher used when ``teacher=None`` (see ``PATEClassifier``'s docstring).

    ``n_classes`` is public (the declared label set, or the one read with its caveat).
    """
    if n_classes > 2:
        # More classes on a teacher's few rows: on digits (10 classes, teachers of about
        # 28 rows, pate_small.py's split, five seeds, epsilon 2) a tree's votes scored
        # 0.291 against 0.461 for the forest's.
        return RandomForestClassifier(100)
    return _DEFAULT_TEACHER()


def _train_and_predict(teacher, X, y, X_query, seed):
    # Runs in a joblib worker: the teacher is trained, asked, and discarded there. Only its
    # labels for the public queries come back; teachers are not private and are never kept.
    if len(y) == 0:
        return None  # a teacher without rows abstains (its votes change by 1 if one is added)
    if len(np.unique(y)) == 1:
        # A teacher that saw one class votes for it: what any classifier would learn, and
        # still one teacher's votes, so the analysis is unchanged.
        return np.repeat(y[:1], _n_rows(X_query))
    if "random_state" in teacher.get_params():
        teacher.set_params(random_state=seed)
    # X and X_query were validated once by PATEClassifier.fit (finite unless the teacher
    # accepts NaN): the teacher need not scan them again, 250 times over the same public
    # points (the scan was about a third of a tree teacher's time on Adult).
    with config_context(assume_finite=True), explain_non_numeric(
        "PATEClassifier", "the teacher needs numeric X",
        "Pass a teacher Pipeline that encodes the categorical columns with categories fixed "
        "from public knowledge (OneHotEncoder(categories=[...])), or encode X first.",
    ):
        teacher.fit(X, y)
        return teacher.predict(X_query)
