"""PATEClassifier: a student trained on noisy labels from an ensemble of teachers."""

import functools
import warnings
from numbers import Integral, Real

import numpy as np
from joblib import delayed
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.semi_supervised import LabelSpreading, SelfTrainingClassifier
from sklearn.utils import get_tags
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ..accounting._pate import _check_discrete_noise, _to_epsilon, pate_epsilon
from ..accounting._pate_smooth import _default_sanitization, gnss_rdp, pate_sanitized_epsilon
from ..base import DPEstimatorMixin, PrivacyReport
from ..utils._progress import parallel_progress
from ..utils._validation import explain_non_numeric
from ._aggregation import NO_ANSWER, confident_gnmax, noisy_argmax, vote_counts

__all__ = ["PATEClassifier"]

# Defaults of the noise, as multiples of the number of teachers where the 2018 paper scales
# them with the ensemble: its MNIST setting with 250 teachers used threshold 200, threshold
# noise 150 and GNMax noise 40. LNMax uses the 2017 paper's Laplace scale 20 (gamma = 0.05),
# the setting of its Adult experiment (Appendix C).
_LNMAX_SCALE = 20.0
_GNMAX_SCALE_PER_TEACHER = 40.0 / 250
_THRESHOLD_PER_TEACHER = 200.0 / 250
_THRESHOLD_NOISE_PER_TEACHER = 150.0 / 250
_MECHANISM = {"lnmax": "laplace", "gnmax": "gaussian", "confident_gnmax": "gaussian"}
_DATA_DEPENDENT_ROW = "epsilon (data-dependent, do not publish)"
_UNCERTAINTY_ROUNDS = 4


def _train_and_predict(teacher, X, y, X_query, seed):
    # Runs in a joblib worker: the teacher is trained, asked, and discarded there. Only its
    # labels for the public queries come back; teachers are not private and are never kept.
    if "random_state" in teacher.get_params():
        teacher.set_params(random_state=seed)
    with explain_non_numeric(
        "PATEClassifier", "the teacher needs numeric X",
        "Pass a teacher Pipeline that encodes the categorical columns with categories fixed "
        "from public knowledge (OneHotEncoder(categories=[...])), or encode X first.",
    ):
        teacher.fit(X, y)
    return teacher.predict(X_query)


class PATEClassifier(DPEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Private Aggregation of Teacher Ensembles: a classifier trained on noisy teacher votes.

    ``n_teachers`` copies of ``teacher`` are trained on disjoint partitions of the private
    rows. Up to ``n_queries`` public, unlabelled points are labelled by a noisy vote of the
    teachers; a ``student`` learns from those labels and is the only model kept:
    :meth:`predict`, :meth:`predict_proba` and :meth:`score` use it.

    Parameters
    ----------
    teacher : classifier, default=None
        Any scikit-learn classifier (or skorch ``NeuralNetClassifier``), cloned once per
        partition. None means ``RandomForestClassifier(n_estimators=100)``.
    student : classifier, default=None
        The model trained on the noisy labels. None means a clone of ``teacher``.
    n_teachers : int, default=250
        Number of teachers, hence of disjoint partitions of the private rows.
    aggregator : {"lnmax", "gnmax", "confident_gnmax"}, default="lnmax"
        ``"lnmax"``: Laplace noisy max (2017), ``noise_scale`` is the Laplace scale
        ``b = 1/gamma``. ``"gnmax"``: Gaussian noisy max (2018), ``noise_scale`` is sigma.
        ``"confident_gnmax"``: answer only queries whose top count plus Gaussian noise of
        parameter ``threshold_noise_scale`` reaches ``threshold``, then GNMax. The noise is
        the exact discrete Laplace or discrete Gaussian on the integer counts (see Notes).
    noise_scale : float, default=None
        None means 20 for "lnmax" (the 2017 paper's Adult setting) and ``0.16 * n_teachers``
        for the Gaussian aggregators (40 for 250 teachers, the 2018 paper's MNIST setting).
    threshold : float, default=None
        Confident-GNMax only. None means ``0.8 * n_teachers``.
    threshold_noise_scale : float, default=None
        Confident-GNMax only. None means ``0.6 * n_teachers``.
    n_queries : int, default=500
        Number of public points to ask the teachers about (clipped, with a warning, to the
        number of public points).
    epsilon : float, default=None
        Optional budget. With it, the student asks only as many queries as the
        data-independent bound allows within ``epsilon``.
    delta : float, default=1e-5
        Target delta.
    query_strategy : {"random", "uncertainty"}, default="random"
        ``"random"``: a random subset of the public points. ``"uncertainty"`` (2017
        Appendix B.2): train the student on a first quarter of the queries, then ask about the
        public points it is least sure of, in rounds.
    semi_supervised : {None, "self_training", "label_spreading"}, default=None
        Let the student also learn from the public points that were not labelled:
        scikit-learn's ``SelfTrainingClassifier`` around the student, or ``LabelSpreading``
        instead of it (the tabular stand-in for the paper's PATE-G).
    accountant : BudgetAccountant, default=None
        Shared budget; the fit's data-independent cost is reserved before any data is read.
    n_jobs : int, default=None
        Teachers trained in parallel by joblib (any joblib backend, Dask or Ray included).
    random_state : None, int, Generator or RandomState, default=None
        None: noise from a generator seeded by the operating system. An int makes the noise
        reproducible, for tests and docs only: the fit then warns, because whoever knows the
        seed knows the noise.
    verbose : int, default=0
        0 prints nothing; 1 shows a progress bar as the teachers are trained (tqdm when
        installed, else a line every tenth of the way, on stderr).

    Attributes
    ----------
    student_ : classifier
        The fitted student; the only model kept.
    classes_ : ndarray of shape (n_classes,)
        The labels of the private data (the set of labels is treated as public).
    n_features_in_ : int
        Number of features.
    n_queries_ : int
        Queries asked of the ensemble.
    n_answered_ : int
        Queries answered (all of them except under Confident-GNMax).
    noise_scale_, threshold_, threshold_noise_scale_ : float
        The noise actually used (None where not applicable).
    epsilon_ : float
        Data-independent epsilon of the queries asked and of the release of
        ``epsilon_sanitized_``: the guarantee to publish.
    delta_ : float
        Its delta.
    epsilon_data_dependent_ : float
        The papers' tighter data-dependent bound. It is a function of the private votes, so
        publishing it leaks information about the private data. It is left out of pickles
        (with its row of ``privacy_report_``): saving a model is how it leaves your machine.
    epsilon_sanitized_ : float
        The data-dependent epsilon released privately by smooth sensitivity (2018 paper,
        Section 4 and Appendix C; :func:`skprivate.accounting.pate_sanitized_epsilon`),
        its own cost included: a publishable estimate, not a worst-case bound.
    privacy_report_ : PrivacyReport
        Mechanism, noise, queries and both epsilons.

    See Also
    --------
    skprivate.accounting.pate_epsilon : The privacy analysis used here.

    Notes
    -----
    Guarantee: add/remove-one-row neighbouring datasets of the private rows ``X, y``; the
    public points are not protected. Each private row is assigned to a teacher by an
    independent uniform draw (or by ``groups``), so adding or removing a row changes one
    teacher's training set and at most one vote per query: the vote histogram moves by at
    most 2 in l1 and sqrt(2) in l2 norm. The released labels are then the output of LNMax
    (Papernot et al. 2017, Section 2.1), GNMax or Confident-GNMax (Papernot et al. 2018,
    Section 4), composed over the queries; :func:`skprivate.accounting.pate_epsilon` states
    the bounds. The student only post-processes those labels and the public points.

    The vote counts are integers, and the noise added to them is exact integer noise
    (discrete Laplace or discrete Gaussian, Canonne, Kamath and Steinke 2020, drawn by
    :func:`~skprivate.mechanisms.discrete_laplace_noise` and
    :func:`~skprivate.mechanisms.discrete_gaussian_noise`), so no floating-point sample is
    involved; ties between noisy counts are broken uniformly at random. The
    data-independent bounds are the same as for continuous noise; the data-dependent ones
    bound the probability of not returning the plurality for the discrete noise
    (``pate_epsilon(..., noise="discrete")``).

    ``epsilon_`` is data-independent and counts every asked query as answered, so it holds
    whatever the teachers voted. ``epsilon_data_dependent_`` (2017 Theorem 3, 2018
    Theorem 6) is usually much smaller but depends on the private votes: do not publish it.
    ``epsilon_sanitized_`` is that bound at one Renyi order (chosen from public quantities),
    plus Gaussian noise scaled to a beta-smooth bound on its sensitivity, plus the cost of
    that release (GNSS, :func:`skprivate.accounting.gnss_rdp`); ``epsilon_`` includes that cost, so
    ``epsilon_sanitized_`` may be published beside it.

    Partitions are drawn uniformly at random, never from the labels: a label-stratified
    split would let one row shift many partitions and void the analysis.

    References
    ----------
    .. [1] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow, K. Talwar, "Semi-supervised
       Knowledge Transfer for Deep Learning from Private Training Data", ICLR 2017.
    .. [2] N. Papernot, S. Song, I. Mironov, A. Raghunathan, K. Talwar, U. Erlingsson,
       "Scalable Private Learning with PATE", ICLR 2018.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from skprivate.pate import PATEClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = PATEClassifier(RandomForestClassifier(n_estimators=10), n_teachers=30,
    ...                      n_queries=30, noise_scale=10, random_state=0)
    >>> clf = clf.fit(X[:400], y[:400], X_public=X[400:500])
    >>> bool(clf.score(X[500:], y[500:]) > 0.85), round(clf.epsilon_, 2)
    (True, 5.33)

    On a data set of 400 rows, 30 teachers see about 13 rows each; PATE pays off with
    thousands of private rows, where hundreds of teachers agree (see the Adult benchmark).
    """

    _parameter_constraints = {
        **DPEstimatorMixin._dp_parameter_constraints,
        "epsilon": [Interval(Real, 0, np.inf, closed="neither"), None],
        "teacher": [HasMethods(["fit", "predict"]), None],
        "student": [HasMethods(["fit", "predict"]), None],
        "n_teachers": [Interval(Integral, 2, None, closed="left")],
        "aggregator": [StrOptions({"lnmax", "gnmax", "confident_gnmax"})],
        "noise_scale": [Interval(Real, 0, np.inf, closed="neither"), None],
        "threshold": [Interval(Real, None, None, closed="neither"), None],
        "threshold_noise_scale": [Interval(Real, 0, np.inf, closed="neither"), None],
        "n_queries": [Interval(Integral, 1, None, closed="left")],
        "query_strategy": [StrOptions({"random", "uncertainty"})],
        "semi_supervised": [StrOptions({"self_training", "label_spreading"}), None],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        teacher=None,
        student=None,
        n_teachers=250,
        aggregator="lnmax",
        noise_scale=None,
        threshold=None,
        threshold_noise_scale=None,
        n_queries=500,
        epsilon=None,
        delta=1e-5,
        query_strategy="random",
        semi_supervised=None,
        accountant=None,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.teacher = teacher
        self.student = student
        self.n_teachers = n_teachers
        self.aggregator = aggregator
        self.noise_scale = noise_scale
        self.threshold = threshold
        self.threshold_noise_scale = threshold_noise_scale
        self.n_queries = n_queries
        self.epsilon = epsilon
        self.delta = delta
        self.query_strategy = query_strategy
        self.semi_supervised = semi_supervised
        self.accountant = accountant
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    # --- the public, data-independent side of a fit ----------------------------------------
    def _noise(self):
        """(noise_scale, threshold, threshold_noise_scale) with the documented defaults."""
        if self.aggregator == "lnmax":
            scale = _LNMAX_SCALE if self.noise_scale is None else float(self.noise_scale)
            threshold = sigma1 = None
        else:
            scale = self.noise_scale
            if scale is None:
                scale = _GNMAX_SCALE_PER_TEACHER * self.n_teachers
            threshold = sigma1 = None
            if self.aggregator == "confident_gnmax":
                threshold = self.threshold
                if threshold is None:
                    threshold = _THRESHOLD_PER_TEACHER * self.n_teachers
                sigma1 = self.threshold_noise_scale
                if sigma1 is None:
                    sigma1 = _THRESHOLD_NOISE_PER_TEACHER * self.n_teachers
                threshold, sigma1 = float(threshold), float(sigma1)
        _check_discrete_noise(_MECHANISM[self.aggregator], scale, sigma1)
        return float(scale), threshold, sigma1

    def _cost(self, votes, answered=None, data_dependent=False):
        scale, threshold, sigma1 = self._noise()
        return pate_epsilon(
            votes,
            mechanism=_MECHANISM[self.aggregator],
            noise_scale=scale,
            delta=self.delta,
            data_dependent=data_dependent,
            threshold=threshold,
            threshold_noise_scale=sigma1,
            answered=answered,
        )

    def _sanitization(self):
        """(order, beta, sigma_s) of the sanitised data-dependent epsilon: public choices."""
        scale, threshold, sigma1 = self._noise()
        return _cached_sanitization(
            int(self.n_queries), int(self.n_teachers), _MECHANISM[self.aggregator], scale,
            float(self.delta), threshold, sigma1,
        )

    def _data_independent_epsilon(self, n_queries):
        """Worst-case epsilon of asking ``n_queries`` and publishing ``epsilon_sanitized_``.

        Every asked query is counted as answered, so the bound holds whatever the votes; the
        sanitised epsilon's release (GNSS, ``gnss_rdp``) is composed in RDP at every
        order where its bound holds.
        """
        if n_queries == 0:
            return 0.0
        placeholder = np.zeros((n_queries, 2), dtype=np.int64)
        cost = self._cost(placeholder)
        _, beta, sigma = self._sanitization()
        release = gnss_rdp(cost.orders, beta, sigma)
        epsilon, _ = _to_epsilon(
            cost.orders, cost.rdp_data_independent + release, self.delta, "improved"
        )
        if self.aggregator == "lnmax":
            # LNMax is pure (2/b)-DP per query: basic composition plus the release's own
            # (epsilon, delta) (Dwork and Roth 2014, Theorem 3.16), when that is smaller.
            alone, _ = _to_epsilon(cost.orders, release, self.delta, "improved")
            epsilon = min(epsilon, n_queries * 2.0 / self._noise()[0] + alone)
        return float(epsilon)

    def _affordable_queries(self, n_max):
        """Most queries (<= n_max) whose data-independent epsilon stays within ``epsilon``."""
        if self.epsilon is None or self._data_independent_epsilon(n_max) <= self.epsilon:
            return n_max
        lo, hi = 0, n_max  # cost(lo) <= epsilon < cost(hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self._data_independent_epsilon(mid) <= self.epsilon:
                lo = mid
            else:
                hi = mid
        return lo

    def _privacy_plan(self, n_samples):
        # PATE's data-independent cost depends on the number of queries, not on n_samples.
        n = self._affordable_queries(self.n_queries)
        return self._privacy_spend(self._data_independent_epsilon(n), self.delta)

    # --- fit -------------------------------------------------------------------------------
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, X_public=None, groups=None):
        """Train the teachers, label public points by noisy vote, and train the student.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private rows, plus public unlabelled rows marked ``y == -1`` (scikit-learn's
            semi-supervised convention) when ``X_public`` is None.
        y : array-like of shape (n_samples,)
            Private labels (-1 for public rows).
        X_public : array-like of shape (n_public, n_features), default=None
            Public unlabelled points the teachers are asked about.
        groups : array-like of shape (n_samples,), default=None
            Data owner of each private row: one teacher per owner (the papers' "one hospital
            per teacher") instead of random partitions; ``n_teachers`` is then ignored.

        Returns
        -------
        self : PATEClassifier
        """
        name = type(self).__name__
        self._begin_private_fit(X)  # reserves the worst case before any value is read
        teacher = self.teacher if self.teacher is not None else RandomForestClassifier(100)
        allow_nan = get_tags(teacher).input_tags.allow_nan
        X, y = validate_data(
            self, X, y, ensure_all_finite="allow-nan" if allow_nan else True, dtype=None
        )
        check_classification_targets(y)
        public_rows = (y == -1) if X_public is None else np.zeros(len(y), dtype=bool)
        X_private, y_private = X[~public_rows], y[~public_rows]
        if X_public is None:
            if not public_rows.any():
                raise ValueError(
                    f"{name}: no public points to label. Pass X_public=..., or mark public "
                    "unlabelled rows of X with y == -1."
                )
            X_public = X[public_rows]
        else:
            X_public = validate_data(
                self, X_public, reset=False,
                ensure_all_finite="allow-nan" if allow_nan else True, dtype=None,
            )
        if groups is not None:
            groups = np.asarray(groups)
            if groups.shape != (len(y),):
                raise ValueError(
                    f"{name}: groups must have one entry per row of X ({len(y)}); got shape "
                    f"{groups.shape}."
                )
            groups = groups[~public_rows]
        self._noise()  # refuses noise the exact samplers cannot draw, before any teacher trains
        n_private = len(y_private)
        if groups is None and n_private < 2 * self.n_teachers:
            raise ValueError(
                f"{name}: {n_private} private rows for n_teachers={self.n_teachers}: every "
                "teacher needs rows of at least two classes. Use n_teachers <= "
                f"{max(n_private // 2, 2)} or more private data."
            )
        self.classes_ = np.unique(y_private)
        if len(self.classes_) < 2:
            raise ValueError(f"{name}: the private labels have a single class {self.classes_}.")

        n_public = X_public.shape[0]
        n_queries = self._affordable_queries(self.n_queries)
        if n_queries > n_public:
            warnings.warn(
                f"{name}: n_queries={self.n_queries} is more than the {n_public} public "
                f"points; asking {n_public}.",
                UserWarning,
                stacklevel=2,
            )
            n_queries = n_public
        rng = self._noise_rng()
        self._student_seed = rng.integers(np.iinfo(np.int32).max)
        teacher_labels = self._teacher_labels(teacher, X_private, y_private, groups, X_public, rng)
        asked, labels = self._ask(teacher_labels, X_public, n_queries, rng)

        answered = labels != NO_ANSWER
        if len(np.unique(labels[answered])) < 2:
            raise ValueError(
                f"{name}: the noisy answers to {len(asked)} queries name fewer than two "
                "classes, so no student can be trained. Ask more queries (n_queries), lower "
                "the noise, or lower the Confident-GNMax threshold."
            )
        self.student_ = self._train_student(X_public, asked, labels)
        self._account(teacher_labels[:, asked], answered, n_private, rng)
        return self

    def _teacher_labels(self, teacher, X, y, groups, X_public, rng):
        """Each teacher's predicted class index for every public point: (n_teachers, n_public)."""
        name = type(self).__name__
        if groups is None:
            # One independent uniform draw per row: adding or removing a row leaves every
            # other row's teacher unchanged, which is what the analysis needs.
            owner = rng.integers(self.n_teachers, size=len(y))
            n_teachers = self.n_teachers
        else:
            _, owner = np.unique(groups, return_inverse=True)
            n_teachers = owner.max() + 1
            if n_teachers < 2:
                raise ValueError(f"{name}: groups names a single data owner; PATE needs two.")
        order = np.argsort(owner, kind="stable")
        bounds = np.searchsorted(owner[order], np.arange(n_teachers + 1))
        parts = [order[bounds[t] : bounds[t + 1]] for t in range(n_teachers)]
        # Classes seen by each teacher, from one (teacher, class) histogram.
        n_classes = len(self.classes_)
        cells = owner * n_classes + np.searchsorted(self.classes_, y)
        seen = np.bincount(cells, minlength=n_teachers * n_classes).reshape(n_teachers, -1)
        single = np.flatnonzero((seen > 0).sum(axis=1) < 2)
        if single.size:
            t = int(single[0])
            raise ValueError(
                f"{name}: teacher {t} received {len(parts[t])} rows of a single class, so it "
                f"cannot be trained. Use fewer teachers (n_teachers={self.n_teachers}) or "
                "groups that each hold at least two classes."
            )
        # One seed per teacher, drawn before the loop: results do not depend on n_jobs.
        seeds = rng.integers(np.iinfo(np.int32).max, size=n_teachers)
        jobs = (
            delayed(_train_and_predict)(clone(teacher), X[part], y[part], X_public, seed)
            for part, seed in zip(parts, seeds)
        )
        predictions = parallel_progress(jobs, n_jobs=self.n_jobs, total=n_teachers,
                                        desc="PATE teachers", verbose=self.verbose)
        return np.searchsorted(self.classes_, np.asarray(predictions))

    def _aggregate(self, votes, rng):
        scale, threshold, sigma1 = self._noise()
        if self.aggregator == "confident_gnmax":
            return confident_gnmax(votes, threshold, sigma1, scale, rng)
        return noisy_argmax(votes, _MECHANISM[self.aggregator], scale, rng)

    def _ask(self, teacher_labels, X_public, n_queries, rng):
        """Choose the queries and aggregate their votes; returns (indices, noisy labels)."""
        votes = vote_counts(teacher_labels, len(self.classes_))
        order = rng.permutation(X_public.shape[0])
        if self.query_strategy == "random":
            asked = order[:n_queries]
            return asked, self._aggregate(votes[asked], rng)
        # Uncertainty sampling (2017, Appendix B.2): the student's confidence depends only on
        # earlier noisy answers and public points, so choosing queries by it is
        # post-processing and the data-independent cost is unchanged.
        first = max(n_queries // _UNCERTAINTY_ROUNDS, 1)
        asked = order[:first]
        labels = self._aggregate(votes[asked], rng)
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
            labels = np.concatenate([labels, self._aggregate(votes[chosen], rng)])
        return asked, labels

    def _new_student(self):
        student = self.student if self.student is not None else self.teacher
        student = clone(student) if student is not None else RandomForestClassifier(100)
        # Like the teachers, seeded from this fit's generator (as sklearn's bagging does), so
        # that an int random_state makes the whole fit reproducible.
        if "random_state" in student.get_params():
            student.set_params(random_state=int(self._student_seed))
        return student

    def _fit_student(self, X, y):
        return self._new_student().fit(X, y)

    def _train_student(self, X_public, asked, labels):
        answered = labels != NO_ANSWER
        X_labelled, y_labelled = X_public[asked[answered]], self.classes_[labels[answered]]
        if self.semi_supervised is None:
            return self._fit_student(X_labelled, y_labelled)
        # The unlabelled public points join as -1 rows; the encoded labels keep -1 free.
        y_all = np.full(X_public.shape[0], -1, dtype=np.int64)
        y_all[asked[answered]] = labels[answered]
        if self.semi_supervised == "label_spreading":
            model = LabelSpreading()
        else:
            model = SelfTrainingClassifier(self._new_student())
        return _EncodedStudent(model.fit(X_public, y_all), self.classes_)

    def _account(self, votes_labels, answered, n_private, rng):
        votes = vote_counts(votes_labels, len(self.classes_))
        cost = self._cost(votes, answered=answered, data_dependent=True)
        scale, threshold, sigma1 = self._noise()
        order, beta, sigma_s = self._sanitization()
        sanitized = pate_sanitized_epsilon(
            votes,
            mechanism=_MECHANISM[self.aggregator],
            noise_scale=scale,
            delta=self.delta,
            order=order,
            beta=beta,
            sigma=sigma_s,
            n_teachers=votes_labels.shape[0],
            threshold=threshold,
            threshold_noise_scale=sigma1,
            answered=answered if threshold is not None else None,
            random_state=rng,
        )
        worst_case = self._data_independent_epsilon(votes.shape[0])
        # The worst-case bound (public) also holds for these votes: never report more.
        self.epsilon_sanitized_ = float(min(sanitized.epsilon, worst_case))
        self.n_queries_ = int(votes.shape[0])
        self.n_answered_ = int(answered.sum())
        self.noise_scale_, self.threshold_, self.threshold_noise_scale_ = scale, threshold, sigma1
        self.epsilon_data_dependent_ = float(cost.epsilon_data_dependent)
        spend = self._privacy_spend(worst_case, self.delta)
        report = {
            "mechanism": {
                "lnmax": "Laplace noisy max (LNMax)",
                "gnmax": "Gaussian noisy max (GNMax)",
                "confident_gnmax": "Confident-GNMax",
            }[self.aggregator],
            "accountant": "RDP over queries (skprivate.accounting.pate_epsilon)",
            "reference": "Papernot et al. ICLR 2017, Sec. 3; Papernot et al. ICLR 2018, Sec. 4",
            "n_teachers": self.n_teachers,
            "noise_scale": scale,
            "queries asked": self.n_queries_,
            "queries answered": self.n_answered_,
            _DATA_DEPENDENT_ROW: self.epsilon_data_dependent_,
            "epsilon (data-dependent, sanitised: publishable estimate)": self.epsilon_sanitized_,
            "sanitisation": f"GNSS at order {order:g}, beta {beta:.3g}, sigma_s {sigma_s:.3g}",
        }
        if threshold is not None:
            report["threshold"] = threshold
            report["threshold_noise_scale"] = sigma1
        self._finish_private_fit(spend, report, n_private)

    def __getstate__(self):
        # A pickle (pickle, joblib.dump, a process pool's return) is how a model leaves the
        # data owner's machine, and the data-dependent epsilon reads the private votes: it
        # stays behind. The student, the public guarantee and the sanitised estimate go.
        state = super().__getstate__()
        if "epsilon_data_dependent_" in state:
            state = dict(state)
            del state["epsilon_data_dependent_"]
            report = PrivacyReport(state["privacy_report_"])
            del report[_DATA_DEPENDENT_ROW]
            state["privacy_report_"] = report
        return state

    # --- the student answers ---------------------------------------------------------------
    def predict(self, X):
        """Predict with the student."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, ensure_all_finite=False, dtype=None)
        return self.student_.predict(X)

    def predict_proba(self, X):
        """Class probabilities from the student, columns in the order of ``classes_``."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, ensure_all_finite=False, dtype=None)
        proba = self.student_.predict_proba(X)
        full = np.zeros((X.shape[0], len(self.classes_)))
        full[:, np.searchsorted(self.classes_, self.student_.classes_)] = proba
        return full

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = get_tags(
            self.teacher if self.teacher is not None else RandomForestClassifier()
        ).input_tags.allow_nan
        return tags


@functools.lru_cache(maxsize=64)
def _cached_sanitization(n_queries, n_teachers, mechanism, scale, delta, threshold, sigma1):
    # a pure function of public parameters, called at every step of the query bisection
    return _default_sanitization(
        n_queries, n_teachers, mechanism, scale, delta, threshold, sigma1
    )


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
