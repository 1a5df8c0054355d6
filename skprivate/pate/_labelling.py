"""How PATE's teachers label the public points and how its student learns from the answers.

Everything here runs on values the privacy analysis already covers: the teachers are trained
on a data-independent partition (:mod:`._partition`), each query is answered by the noisy
aggregator of :mod:`._aggregation`, and the choice of queries and the student's training read
only public points and earlier noisy answers, or the noisy counts behind them (soft labels,
:mod:`._soft_labels`): post-processing. The accounting is in :mod:`._classifier`
(``PATEClassifier._account``).
"""

import numpy as np
from joblib import delayed
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.semi_supervised import LabelSpreading, SelfTrainingClassifier

from .._dpsgd._distributed import is_dask_collection
from ..utils._progress import parallel_progress
from ..utils._threads import bounded_threads
from ._aggregation import NO_ANSWER, confident_gnmax, noisy_argmax, vote_counts
from ._calibration import MECHANISM as _MECHANISM
from ._partition import draw_partition_key, teacher_owners
from ._soft_labels import fit_on_posterior, plurality_posterior, weight_parameter
from ._teachers import _train_and_predict, default_teacher

__all__ = ["default_teacher"]

_UNCERTAINTY_ROUNDS = 4
# student=None with teacher=None: a random forest, or, for two classes, gradient boosting
# once the plan asks at least this many queries. A policy constant chosen on Adult (250
# teachers, five seeds, soft labels, benchmarks/pate_adult.py): boosting against the forest,
# -0.5 points at 100 answers, -0.3 at 358, +0.2 at 1,255, +0.7 at 4,270. Checked on
# synthetic problems (benchmarks/pate_student.py): with two classes boosting lost below
# 1,000 answers and tied or gained above; with five the forest was better at every budget.
_BOOSTING_FROM_QUERIES = 1000
# student=None with teacher=None, when the forest is chosen: its leaves hold at least
# this many rows. The student's rows are the answered points, each once per class
# weighted by the posterior of the noisy counts, and the answers are noisy (on the
# interaction table of benchmarks/nonlinear.py at epsilon 1, 73 to 76 % of them name the
# teachers' plurality, which is itself 99.6 % right): fully grown trees isolate single
# answers and their noise, leaves of five rows average neighbouring ones. A policy
# constant chosen at epsilon 1 (326 answers from 250 teachers, 3 seeds, every other
# default kept), against the fully grown trees of before: Adult 0.819 against 0.820 (ROC
# AUC 0.868 against 0.836); that interaction table (label x1 x2 > 0, 34,000 private rows,
# 6,000 public points) 0.703 against 0.671; the 200,000-row imbalanced table of
# benchmarks/pate_imbalanced.py, ROC AUC 0.743 against 0.718 (accuracy 0.935 against
# 0.941, the majority class 0.935); breast cancer (pate_small.py's split) 0.725 against
# 0.702 at epsilon 1 and 0.868 against 0.866 at epsilon 2; digits (10 classes, epsilon 2)
# 0.422 against 0.410. Leaves of 3 rows gained less on the interaction table (0.688) and
# the imbalanced one (ROC AUC 0.739); leaves of 10 rows lost 1.7 points on Adult.
_STUDENT_MIN_SAMPLES_LEAF = 5
# query_strategy="kmeans": k-means only while n_public * n_queries is at most this (one
# k-means iteration costs that many distances); beyond it the queries are drawn at random.
_KMEANS_MAX_WORK = 2 * 10**7


class _LabellingMixin:
    """Teachers' labels, the noisy answers to the chosen queries, and the student's fit."""

    def _teacher_labels(self, teacher, X, y, groups, X_public, n_teachers, rng):
        """Each teacher's class index for every public point, -1 where it abstains.

        Shape (n_teachers, n_public). A teacher that received rows of a single class votes
        for that class, and one that received none abstains: either way it is still one
        teacher's votes, which is all the analysis needs.
        """
        # One independent uniform draw per row, a function of (secret key, row index) only
        # (._partition states why the analysis holds): the Dask fit (._dask) draws the same
        # partition where the rows live. (A split stratified by label would let one row
        # move others between teachers.)
        key = draw_partition_key(rng) if groups is None else None
        # One seed per teacher, drawn before the loop: results do not depend on n_jobs.
        seeds = rng.integers(np.iinfo(np.int32).max, size=n_teachers)
        if is_dask_collection(X):
            from ._dask import dask_teacher_predictions

            predictions = dask_teacher_predictions(teacher, X, y, X_public, key, seeds)
        else:
            if groups is None:
                owner = teacher_owners(key, n_teachers, 0, len(y))
            else:
                _, owner = np.unique(groups, return_inverse=True)
            order = np.argsort(owner, kind="stable")
            bounds = np.searchsorted(owner[order], np.arange(n_teachers + 1))
            parts = [order[bounds[t] : bounds[t + 1]] for t in range(n_teachers)]
            jobs = (
                delayed(_train_and_predict)(clone(teacher), X[part], y[part], X_public, seed)
                for part, seed in zip(parts, seeds)
            )
            # Each teacher fits a few hundred rows (sqrt(n) / 1.5 with n_teachers="auto"):
            # native thread pools (OpenMP in HistGradientBoosting, BLAS) only spin on so
            # little work, and on a shared machine they spin against the other processes
            # (skprivate.utils._threads). Parallelism is across teachers, by n_jobs.
            with bounded_threads(1):
                predictions = parallel_progress(jobs, n_jobs=self.n_jobs, total=n_teachers,
                                                desc="PATE teachers", verbose=self.verbose)
        labels = np.full((n_teachers, X_public.shape[0]), -1, dtype=np.int64)
        voted = [t for t, p in enumerate(predictions) if p is not None]
        if voted:
            labels[voted] = np.searchsorted(
                self.classes_, np.asarray([predictions[t] for t in voted])
            )
        return labels

    def _aggregate(self, votes, rng):
        """The noisy labels of ``votes``' queries and the noisy counts they were read from."""
        scale, threshold, sigma1 = self._noise()
        if self.aggregator == "confident_gnmax":
            return confident_gnmax(votes, threshold, sigma1, scale, rng, return_counts=True)
        return noisy_argmax(votes, _MECHANISM[self.aggregator], scale, rng, return_counts=True)

    def _ask(self, teacher_labels, X_public, n_queries, rng):
        """Choose the queries and aggregate their votes.

        Returns (indices, noisy labels, noisy counts): the counts are what the
        data-independent analysis already pays for (see :mod:`._soft_labels`).
        """
        votes = vote_counts(teacher_labels, len(self.classes_))
        order = rng.permutation(X_public.shape[0])
        if self.query_strategy == "random" or n_queries >= X_public.shape[0]:
            asked = order[:n_queries]
            return (asked, *self._aggregate(votes[asked], rng))
        if self.query_strategy == "kmeans":
            if X_public.shape[0] * n_queries > _KMEANS_MAX_WORK:
                asked = order[:n_queries]
            else:
                asked = _representative_points(X_public, n_queries, order, rng)
            return (asked, *self._aggregate(votes[asked], rng))
        # Uncertainty sampling (2017, Appendix B.2): the student's confidence depends only on
        # earlier noisy answers and public points, so choosing queries by it is
        # post-processing and the data-independent cost is unchanged.
        first = max(n_queries // _UNCERTAINTY_ROUNDS, 1)
        asked = order[:first]
        labels, counts = self._aggregate(votes[asked], rng)
        remaining = order[first:]
        per_round = int(np.ceil((n_queries - first) / max(_UNCERTAINTY_ROUNDS - 1, 1)))
        while len(asked) < n_queries and len(remaining):
            answered = labels != NO_ANSWER
            student = None
            if len(np.unique(labels[answered])) >= 2:
                student = self._fit_student(X_public[asked[answered]],
                                            self.classes_[labels[answered]])
            take = min(per_round, n_queries - len(asked), len(remaining))
            if student is not None and hasattr(student, "predict_proba"):
                confidence = student.predict_proba(X_public[remaining]).max(axis=1)
                pick = np.argsort(confidence, kind="stable")[:take]
            else:
                pick = np.arange(take)
            chosen = remaining[pick]
            remaining = np.delete(remaining, pick)
            asked = np.concatenate([asked, chosen])
            more_labels, more_counts = self._aggregate(votes[chosen], rng)
            labels = np.concatenate([labels, more_labels])
            counts = np.concatenate([counts, more_counts])
        return asked, labels, counts

    def _student_template(self):
        student = self.student if self.student is not None else self.teacher
        if student is not None:
            return clone(student)
        if len(self.classes_) == 2 and self._query_plan.n_queries >= _BOOSTING_FROM_QUERIES:
            return HistGradientBoostingClassifier()
        return RandomForestClassifier(100, min_samples_leaf=_STUDENT_MIN_SAMPLES_LEAF)

    def _new_student(self):
        student = self._student_template()
        # Like the teachers, seeded from this fit's generator (as sklearn's bagging does), so
        # that an int random_state makes the whole fit reproducible.
        if "random_state" in student.get_params():
            student.set_params(random_state=int(self._student_seed))
        return student

    def _fit_student(self, X, y):
        return self._new_student().fit(X, y)

    def _soft_labels_wanted(self):
        """Whether the student learns from soft labels: ``soft_labels`` resolved, or an error.

        Public settings only, so it is decided (and a bad combination refused) before any
        teacher is trained.
        """
        name = type(self).__name__
        why_not = None
        if self.release_data_dependent:
            why_not = ("release_data_dependent=True: the data-dependent analysis covers the "
                       "noisy arg max only, not the noisy counts soft labels read")
        elif self.semi_supervised is not None:
            why_not = (f"semi_supervised={self.semi_supervised!r}: the semi-supervised "
                       "models are trained on hard labels")
        elif weight_parameter(self._student_template()) is None:
            why_not = ("the student's fit takes no sample_weight (soft labels are passed as "
                       "weights)")
        if self.soft_labels == "auto":
            return why_not is None
        if self.soft_labels and why_not is not None:
            raise ValueError(
                f"{name}: soft_labels=True cannot be used with {why_not}. Use "
                "soft_labels='auto' (soft labels where they apply) or soft_labels=False."
            )
        return bool(self.soft_labels)

    def _train_student(self, X_public, asked, labels, counts):
        answered = labels != NO_ANSWER
        X_labelled, y_labelled = X_public[asked[answered]], self.classes_[labels[answered]]
        method = self.semi_supervised
        if self.soft_labels_:
            scale = self._noise()[0]
            posterior = plurality_posterior(
                counts[answered], _MECHANISM[self.aggregator], scale, int(self._student_seed)
            )
            return fit_on_posterior(self._new_student(), X_labelled, posterior,
                                    self.classes_)
        if method is None:
            return self._fit_student(X_labelled, y_labelled)
        # The unlabelled public points join as -1 rows; the encoded labels keep -1 free.
        y_all = np.full(X_public.shape[0], -1, dtype=np.int64)
        y_all[asked[answered]] = labels[answered]
        if method == "label_spreading":
            model = LabelSpreading()
        else:
            model = SelfTrainingClassifier(self._new_student())
        return _EncodedStudent(model.fit(X_public, y_all), self.classes_)


def _representative_points(X_public, n_queries, order, rng):
    """``n_queries`` distinct public points spread over the public data (k-means).

    The public points are standardised and clustered into ``n_queries`` clusters by k-means
    (one initialisation, seeded from the fit's generator); each cluster contributes its
    point closest to the centre. Only public points are read, so the choice is free of
    privacy cost. Should k-means leave clusters empty or the points not be numeric, the
    rest is filled from ``order`` (a random permutation).
    """
    from sklearn.cluster import KMeans
    from sklearn.impute import SimpleImputer
    from sklearn.preprocessing import StandardScaler

    try:
        Z = np.asarray(X_public, dtype=np.float64)
    except (TypeError, ValueError):
        return order[:n_queries]
    if np.isnan(Z).any():
        Z = SimpleImputer(keep_empty_features=True).fit_transform(Z)
    Z = StandardScaler().fit_transform(Z)
    km = KMeans(n_queries, n_init=1, max_iter=50,
                random_state=int(rng.integers(np.iinfo(np.int32).max))).fit(Z)
    distance = np.einsum("ij,ij->i", Z - km.cluster_centers_[km.labels_],
                         Z - km.cluster_centers_[km.labels_])
    by_cluster = np.lexsort((distance, km.labels_))
    first = np.r_[True, km.labels_[by_cluster][1:] != km.labels_[by_cluster][:-1]]
    chosen = by_cluster[first]
    if len(chosen) < n_queries:
        rest = order[~np.isin(order, chosen)]
        chosen = np.concatenate([chosen, rest[: n_queries - len(chosen)]])
    return chosen[:n_queries]


class _EncodedStudent:
    """A semi-supervised model trained on class indices, answering with the class labels."""

    def __init__(self, model, classes):
        self.model = model
        self._all_classes = classes
        self.classes_ = classes[model.classes_]  # the model never lists the -1 of unlabelled

    def predict(self, X):
        return self._all_classes[self.model.predict(X)]

    def predict_proba(self, X):
        return self.model.predict_proba(X)
