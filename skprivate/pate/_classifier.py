"""PATEClassifier: a student trained on noisy labels from an ensemble of teachers."""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils import get_tags
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _caveats
from .._dpsgd._distributed import is_dask_collection
from .._dpsgd._plan import PUBLIC_N_SAMPLES
from .._forecast import value_needed, warn_forecast
from .._repeated_fits import note_fit
from .._row_count import COUNT_SHARE, count_report, release_row_count, rest_epsilon
from ..accounting._pate import _check_discrete_noise, pate_epsilon
from ..accounting._pate_smooth import pate_sanitized_epsilon
from ..base import (
    DPEstimatorMixin, PrivacyReport, _n_rows, _resolve_classes, _user_stacklevel,
)
from ..exceptions import UtilityWarning
from ..utils._docstrings import SHARED_DOCS, Substitution
from ._aggregation import NO_ANSWER, vote_counts
from ._calibration import MECHANISM as _MECHANISM
from ._calibration import auto_n_teachers, calibrate, plan_epsilon, sanitization
from ._labelling import _LabellingMixin, default_teacher

__all__ = ["PATEClassifier"]

_DATA_DEPENDENT_ROW = "epsilon (data-dependent, do not publish)"

# With epsilon=None (no budget) the noisy count still needs an epsilon before anything else
# is known: it spends skprivate._row_count.COUNT_SHARE of this, as at the default epsilon=1.
_COUNT_BUDGET_WITHOUT_EPSILON = 1.0

# The forecast (``_forecast_plan``), calibrated on benchmarks/results/pate_small.md (5 seeds,
# default PATE against the majority class and DPLSSGDClassifier at the same epsilon).
# Answers: every plan of fewer than 40 answers scored at or below the majority class
# (Adult 1,000 rows, epsilon 1: 30 answers, 0.739 against 0.762), or far below
# DPLSSGDClassifier (digits, 20 and 30 answers: 0.38 and 0.51 against 0.91 and 0.93;
# breast cancer, 28 answers: 0.79 with a seed at 0.54 against 0.90); with 44 answers or more
# the answers no longer decided it.
_FORECAST_ANSWERS = 40
# Rows per teacher: Adult 1,000 rows (47 teachers of about 21 rows) stayed within a point
# of the majority class even at epsilon 4 with 150 answers, Adult 3,000 rows (82 teachers
# of 36) gained 3.6 points at epsilon 2. With n_teachers="auto" (1.5 sqrt(n) teachers) the
# threshold 30 asks for about 2,000 rows.
_FORECAST_ROWS_PER_TEACHER = 30


@Substitution(**SHARED_DOCS)
class PATEClassifier(_LabellingMixin, DPEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Private Aggregation of Teacher Ensembles: a classifier trained on noisy teacher votes.

    ``n_teachers`` copies of ``teacher`` are trained on disjoint partitions of the private
    rows. Up to ``n_queries`` public, unlabelled points are labelled by a noisy vote of the
    teachers; a ``student`` learns from those labels and is the only model kept:
    :meth:`predict`, :meth:`predict_proba` and :meth:`score` use it.

    Parameters
    ----------
    teacher : classifier, default=None
        Any scikit-learn classifier (or skorch ``NeuralNetClassifier``), cloned once per
        partition. None means, for two classes, ``DecisionTreeClassifier(max_depth=6)``:
        the teachers are already an ensemble (the vote averages them as a forest averages
        its trees), so each need not be one. Chosen on Adult
        (``benchmarks/pate_teachers.py``, three seeds, every other default kept): as
        accurate as the forests of 100 trees used before, in a fraction of the fit time
        (see the PATE user guide); on imbalanced data its votes also carry the minority
        class, so the student ranks (``benchmarks/pate_imbalanced.py``). For more classes,
        ``RandomForestClassifier(n_estimators=100)`` as before (on digits the tree scored
        0.29 against 0.46).
    student : classifier, default=None
        The model trained on the noisy labels. None means a clone of ``teacher``; when
        ``teacher`` is None too, a random forest of 100 trees with leaves of at least 5
        rows (which average neighbouring noisy answers: at epsilon 1, 3 seeds, Adult's
        accuracy unchanged and its ROC AUC 0.868 against 0.836 for fully grown trees, the
        interaction table of ``benchmarks/nonlinear.py`` 0.703 against 0.671), or, for two
        classes,
        scikit-learn's ``HistGradientBoostingClassifier`` when the plan asks 1,000 queries
        or more (a policy constant chosen on Adult, where boosting gained 0.2 points at
        1,255 answers and 0.7 at 4,270 and lost 0.5 at 100 and 0.3 at 358; checked on
        synthetic two- and five-class problems, ``benchmarks/pate_student.py``; see the
        PATE user guide).
    n_teachers : int or "auto", default="auto"
        Number of teachers, hence of disjoint partitions of the private rows. ``"auto"``:
        1.5 sqrt(n) teachers for n private rows, between 2 and 250, with n the noisy count
        of the private rows (exact only with ``n_samples_public=True``). More teachers make
        the votes stand out from the noise, as long as each still learns something.
    aggregator : {"lnmax", "gnmax", "confident_gnmax"}, default="gnmax"
        ``"lnmax"``: Laplace noisy max (2017), ``noise_scale`` is the Laplace scale
        ``b = 1/gamma``. ``"gnmax"``: Gaussian noisy max (2018), ``noise_scale`` is sigma.
        ``"confident_gnmax"``: answer only queries whose top count plus Gaussian noise of
        parameter ``threshold_noise_scale`` reaches ``threshold``, then GNMax. The noise is
        the exact discrete Laplace or discrete Gaussian on the integer counts (see Notes).
    noise_scale : float, default=None
        The noise on the vote counts (Laplace scale for "lnmax", sigma otherwise). None:
        chosen with ``n_queries`` to meet ``epsilon`` (see Notes, "Calibration"); with
        ``epsilon=None``, ``0.4 * n_teachers`` (``0.4 / sqrt(2) * n_teachers`` for LNMax).
    threshold : float, default=None
        Confident-GNMax only. None means ``0.8 * n_teachers``.
    threshold_noise_scale : float, default=None
        Confident-GNMax only. None means ``3.75 * noise_scale`` (the 2018 paper's MNIST
        ratio, 150 / 40).
    n_queries : int, default=None
        Most public points to ask the teachers about (clipped, with a warning, to the number
        of public points). None: chosen with ``noise_scale`` to meet ``epsilon``; with
        ``epsilon=None``, up to 500. Given with ``noise_scale``, only as many as
        ``epsilon`` affords are asked.
    epsilon : float or None, default=1.0
        The publishable guarantee of everything the fit releases: the noise, the number of
        queries (and, with ``release_data_dependent``, the sanitised epsilon's release) are
        chosen so that ``epsilon_ <= epsilon``. A request no choice can meet raises
        :class:`~skprivate.exceptions.InfeasiblePrivacyError` before any teacher is
        trained. None sets no budget: the fit uses the parameters as given (or their
        no-budget defaults) and warns with the epsilon it reached.
    delta : float, default=1e-5
        Target delta.
    release_data_dependent : bool, default=False
        Also publish ``epsilon_sanitized_``, the data-dependent epsilon released by smooth
        sensitivity, and pay for that release in ``epsilon_`` (the calibration accounts for
        it up front, so fewer queries or more noise remain for the labels). Off by
        default: at the defaults the released value's noise is about as large as its
        signal (see the PATE user guide).
    query_strategy : {"kmeans", "random", "uncertainty"}, default="kmeans"
        Which public points to ask about; each choice reads only public points and earlier
        noisy answers, so it costs no privacy. ``"kmeans"``: points spread over the public
        data: the standardised public points are clustered into ``n_queries`` clusters by
        k-means and the point nearest each centre is asked. It falls back to random
        points when the public points are not numeric or when ``n_public * n_queries``
        exceeds 2e7 (each k-means iteration computes that many distances). Chosen as the
        default on measurements at epsilon 2 (five seeds, default student and soft labels,
        ``benchmarks/pate_small.py``, ``benchmarks/pate_adult.py``): against random
        points it raised the student on digits (0.512 against 0.402) and was within about
        a point elsewhere: breast cancer 0.898 against 0.909, 1,000 and 3,000 Adult rows
        0.769 against 0.771 and 0.798 against 0.792, all of Adult 0.834 against 0.833.
        ``"random"``: a random subset. ``"uncertainty"`` (2017 Appendix B.2): train the
        student on a first quarter of the queries, then ask about the public points it is
        least sure of, in rounds.
    semi_supervised : {None, "self_training", "label_spreading"}, default=None
        Let the student also learn from the public points that were not labelled (free:
        public points and the noisy answers only): scikit-learn's
        ``SelfTrainingClassifier`` around the student, or ``LabelSpreading`` instead of
        it (the tabular stand-in for the paper's PATE-G); both learn from the noisy labels
        (no soft labels). Off by default: at epsilon 2, self-training was below the
        default student on breast cancer (0.884 against 0.898), digits (0.393 against
        0.512), 1,000 and 3,000 Adult rows (0.766 against 0.769, 0.785 against 0.798) and
        all of Adult (0.833 against 0.834) (``benchmarks/pate_small.py``, five seeds;
        ``benchmarks/pate_adult.py``).
    soft_labels : "auto" or bool, default="auto"
        Train the student on how sure each answer is, not only on the answer: each
        answered point enters once per class, weighted by the probability that the class is
        the teachers' plurality given the noisy counts drawn. Free: the data-independent
        analysis already covers the noisy counts, of which the label is a function (see
        Notes). ``"auto"``: on, unless ``release_data_dependent=True`` (the data-dependent
        analysis covers the label only), ``semi_supervised`` is set, or the student's
        ``fit`` takes no ``sample_weight``; True: on, and any of these is an error; False:
        the noisy labels only. Chosen as the default on measurements (five seeds,
        ``benchmarks/pate_adult.py``, ``benchmarks/pate_small.py``; see the PATE user
        guide).
    accountant : BudgetAccountant, default=None
        Shared budget; the fit's data-independent cost is reserved before any data is read
        (with the number of rows private: ``(epsilon, delta)`` itself, or, with
        ``epsilon=None``, the count's cost first and the rest once planned on it).
    n_jobs : int, default=None
        Teachers trained in parallel by joblib (any joblib backend, Dask or Ray included).
        Teachers trained in this process run with their native thread pools (OpenMP,
        BLAS) bounded to one thread, as a teacher's few hundred rows give threads nothing
        to share; joblib's worker processes bound theirs by the number of jobs.
    random_state : None, int, Generator or RandomState, default=None
        None: noise from a generator seeded by the operating system. An int makes the noise
        reproducible, for tests and docs only: the fit then warns, because whoever knows the
        seed knows the noise.
    verbose : int, default=0
        0 prints nothing; 1 shows a progress bar as the teachers are trained (tqdm when
        installed, else a line every tenth of the way, on stderr).

    classes : array-like of shape (n_classes,), default=None
        The class labels, known without looking at the data; ``classes_`` is their sorted
        set (it also sets the number of vote counts the plan is made for), and a private
        label outside it is an error. None: the labels present in the private ``y`` are read
        and published as ``classes_``, outside the guarantee (a caveat in
        ``privacy_report_`` and the fit's :class:`~skprivate.exceptions.PrivacyLeakWarning`
        say so).
    %(n_samples_public)s
        Here the count sets ``n_teachers="auto"`` (hence the noise and the number of queries
        calibrated from the teachers) and the check that each teacher gets at least two rows
        on average. With ``epsilon=None`` it costs 0.05.

    Attributes
    ----------
    student_ : classifier
        The fitted student; the only model kept.
    classes_ : ndarray of shape (n_classes,)
        The labels of the private data (the set of labels is treated as public).
    n_features_in_ : int
        Number of features.
    n_teachers_ : int
        Teachers trained (``n_teachers``, its "auto" value on the noisy count of the rows,
        or the number of owners in ``groups``).
    n_queries_ : int
        Queries asked of the ensemble.
    n_answered_ : int
        Queries answered (all of them except under Confident-GNMax).
    soft_labels_ : bool
        Whether the student was trained on soft labels (``soft_labels`` resolved).
    noise_scale_, threshold_, threshold_noise_scale_ : float
        The noise actually used (None where not applicable).
    epsilon_ : float
        The noisy count's epsilon (0 with ``n_samples_public=True``) plus the
        data-independent epsilon of the queries asked (and, with
        ``release_data_dependent``, of the release of ``epsilon_sanitized_``, composed in
        RDP): the guarantee to publish, at most ``epsilon``. For GNMax and Confident-GNMax
        without the release, the exact composition of the discrete Gaussian noise (see
        Notes).
    delta_ : float
        Its delta.
    epsilon_data_dependent_ : float
        The papers' tighter data-dependent bound. It is a function of the private votes, so
        publishing it leaks information about the private data. It bounds the release of
        the noisy labels only: with soft labels (``soft_labels_``) it is ``epsilon_``. It
        is left out of pickles (with its row of ``privacy_report_``): saving a model is how
        it leaves your machine.
    epsilon_sanitized_ : float
        Only with ``release_data_dependent=True``: the data-dependent epsilon released
        privately by smooth sensitivity (2018 paper, Section 4 and Appendix C;
        :func:`skprivate.accounting.pate_sanitized_epsilon`), its own cost included in
        ``epsilon_``: a publishable estimate, not a worst-case bound.
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

    The data-independent bounds are those of the whole noisy vote histogram (the Gaussian
    mechanism of l2 change ``sqrt(2)``, 2018 Proposition 8; the Laplace mechanism of l1
    change 2, 2017 Section 3), of which the label is a function. So with soft labels
    (``soft_labels``) the student also reads the noisy counts of the answered queries at
    no further cost; the data-dependent bounds (2017 Theorem 3, 2018 Theorem 6) cover the
    label only, which is why soft labels are not used with ``release_data_dependent``.

    The vote counts are integers, and the noise added to them is exact integer noise
    (discrete Laplace or discrete Gaussian, Canonne, Kamath and Steinke 2020, drawn by
    :func:`~skprivate.mechanisms.discrete_laplace_noise` and
    :func:`~skprivate.mechanisms.discrete_gaussian_noise`), so no floating-point sample is
    involved; ties between noisy counts are broken uniformly at random. The
    data-independent Gaussian bounds (GNMax, Confident-GNMax) are the exact composition of
    the discrete Gaussian noise drawn, computed with privacy-loss distributions (within
    1e-4 of the continuous noise's Gaussian-DP value, and below the papers' RDP bound,
    which is kept where tighter; ``pate_epsilon(..., accounting="pld")``); LNMax's are
    the papers'. The data-dependent ones bound the probability of not returning the
    plurality for the discrete noise (``pate_epsilon(..., noise="discrete")``).

    **Calibration.** With ``epsilon`` set, the noise and the number of queries are chosen
    from public numbers only (``epsilon``, ``delta``, the noisy count of the private rows,
    the numbers of teachers, public points and classes), before any other value is read, so
    an infeasible request raises before any teacher is trained. ``k`` GNMax answers at
    noise ``sigma`` compose exactly to a Gaussian mechanism of ``mu = sqrt(2 k) / sigma``
    (Gaussian DP, Dong, Roth and Su 2022; for the discrete noise drawn, the privacy-loss
    distribution accountant computes it, see :func:`~skprivate.accounting.pate_epsilon`),
    so ``epsilon`` fixes the load ``k / sigma^2`` it affords; the vote margin of ``T``
    teachers grows as ``T``, so the noise is set relative to it, ``sigma = 0.4 T``, and
    the load then gives ``k``. If that is more than the public points, every point is
    asked and the noise is lowered to fit; if it is fewer than 30 answers, the noise is raised (up to
    ``sigma = T``) to buy them; if even that buys fewer than 10 (and 2 per class), the
    request is infeasible. With more than two classes both noises are lowered so that a
    unanimous vote errs as rarely as with two (``0.27 T`` and ``0.37 T`` for ten). LNMax
    uses ``b = sigma / sqrt(2)``. Each solve keeps only values whose epsilon was computed
    and found within the budget, so ``epsilon_ <= epsilon`` always. The rule
    and its measurements are in :mod:`skprivate.pate._calibration`, in the PATE user guide
    and in ``benchmarks/pate_adult.py`` and ``benchmarks/pate_small.py``.

    **The number of rows.** It differs between add/remove neighbours, so it is private:
    ``n_teachers="auto"`` and the rows-per-teacher check read a noisy count of the private
    rows (exact discrete Laplace noise, ``epsilon_n = 0.05 epsilon``), released first; the
    queries are calibrated to ``epsilon - epsilon_n`` and the two compose by basic
    (adaptive) composition, so ``epsilon_ <= epsilon`` still (the proof is in
    ``skprivate._row_count``). The partition still gives each real row to one of
    ``n_teachers_`` teachers, so one row changes one vote per query whatever the count
    said: the number of rows enters no sensitivity. ``n_samples_public=True`` skips the
    count, reads the exact number and reports it as public; with ``groups`` the number of
    owners (the number of teachers) is treated as public, as the set of classes is.

    ``epsilon_`` is data-independent and counts every asked query as answered, so it holds
    whatever the teachers voted. ``epsilon_data_dependent_`` (2017 Theorem 3, 2018
    Theorem 6) is usually much smaller but depends on the private votes: do not publish it.
    With ``release_data_dependent=True``, ``epsilon_sanitized_`` is that bound at one Renyi
    order (chosen from public quantities), plus Gaussian noise scaled to a beta-smooth bound
    on its sensitivity, plus the cost of that release (GNSS,
    :func:`skprivate.accounting.gnss_rdp`); ``epsilon_`` includes that cost, so
    ``epsilon_sanitized_`` may be published beside it.

    Teachers that received rows of one class vote for it; teachers that received none
    abstain (a row added to one makes it vote: one vote changes, as the analysis allows).

    Before any teacher is trained, ``fit`` emits a
    :class:`~skprivate.exceptions.UtilityWarning` when the plan buys fewer than 40 answers
    or gives each teacher fewer than 30 rows (where the small benchmark tables scored at or
    below the majority class or below :class:`~skprivate.DPLSSGDClassifier`), and when the
    budget cuts an explicit ``n_queries``; public numbers only (see the user guide).

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
    >>> from sklearn.model_selection import train_test_split
    >>> from skprivate.pate import PATEClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X_private, X_rest, y_private, y_rest = train_test_split(
    ...     X, y, test_size=0.35, random_state=0)
    >>> X_public, X_test, y_test = X_rest[:100], X_rest[100:], y_rest[100:]
    >>> clf = PATEClassifier(RandomForestClassifier(n_estimators=10), epsilon=2.0,
    ...                      classes=[0, 1])
    >>> clf = clf.fit(X_private, y_private, X_public=X_public)
    >>> 20 <= clf.n_teachers_ <= 40, clf.n_queries_ >= 10, clf.epsilon_ <= 2.0
    (True, True, True)
    >>> clf.predict(X_test).shape
    (100,)

    The noise and the number of queries were chosen from ``epsilon`` and public numbers
    only: the 369 private rows, counted with noise of scale 10 (5 % of epsilon), give about
    29 teachers (``n_teachers="auto"``; exactly 29 with ``n_samples_public=True``), and the
    rest of epsilon 2 buys about 30 answers at a noise of about 0.5 times the number of
    teachers, asked about public points spread over the public data
    (``query_strategy="kmeans"``). On so few rows the student
    depends much on the noise draw: over eight seeds of this example its accuracy on
    ``X_test`` ranged from 0.72 to 0.89 (0.59 to 0.92 with ``soft_labels=False``; majority
    class 0.68), where
    :class:`~skprivate.DPLSSGDClassifier` at the same epsilon does better. PATE pays off
    with thousands of private rows, where hundreds of teachers agree (see the Adult
    benchmark in the user guide).
    """

    _parameter_constraints = {
        **DPEstimatorMixin._dp_parameter_constraints,
        "epsilon": [Interval(Real, 0, np.inf, closed="neither"), None],
        "teacher": [HasMethods(["fit", "predict"]), None],
        "student": [HasMethods(["fit", "predict"]), None],
        "n_teachers": [Interval(Integral, 2, None, closed="left"), StrOptions({"auto"})],
        "aggregator": [StrOptions({"lnmax", "gnmax", "confident_gnmax"})],
        "noise_scale": [Interval(Real, 0, np.inf, closed="neither"), None],
        "threshold": [Interval(Real, None, None, closed="neither"), None],
        "threshold_noise_scale": [Interval(Real, 0, np.inf, closed="neither"), None],
        "n_queries": [Interval(Integral, 1, None, closed="left"), None],
        "release_data_dependent": ["boolean"],
        "query_strategy": [StrOptions({"kmeans", "random", "uncertainty"})],
        "semi_supervised": [StrOptions({"self_training", "label_spreading"}), None],
        "soft_labels": [StrOptions({"auto"}), "boolean"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
        "classes": ["array-like", None],
        "n_samples_public": ["boolean"],
    }

    def __init__(
        self,
        teacher=None,
        student=None,
        n_teachers="auto",
        aggregator="gnmax",
        noise_scale=None,
        threshold=None,
        threshold_noise_scale=None,
        n_queries=None,
        epsilon=1.0,
        delta=1e-5,
        release_data_dependent=False,
        query_strategy="kmeans",
        semi_supervised=None,
        soft_labels="auto",
        accountant=None,
        n_jobs=None,
        random_state=None,
        verbose=0,
        classes=None,
        n_samples_public=False,
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
        self.release_data_dependent = release_data_dependent
        self.query_strategy = query_strategy
        self.semi_supervised = semi_supervised
        self.soft_labels = soft_labels
        self.accountant = accountant
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.classes = classes
        self.n_samples_public = n_samples_public

    # --- the public, data-independent side of a fit ----------------------------------------
    def _make_plan(self, n_private, n_public=None, n_classes=None, n_owners=None, *,
                   epsilon):
        """The fit's :class:`~._calibration.QueryPlan`, from public numbers only.

        ``n_private`` is the number of rows to plan on (the noisy count, or the exact one
        when public); ``epsilon`` the budget of the queries (None: no budget). Raises
        :class:`~skprivate.exceptions.InfeasiblePrivacyError` when ``epsilon`` cannot be
        met, before any teacher is trained.
        """
        mechanism = _MECHANISM[self.aggregator]
        _check_discrete_noise(mechanism, self.noise_scale, self.threshold_noise_scale)
        if n_owners is not None:
            n_teachers = n_owners
        elif self.n_teachers == "auto":
            n_teachers = auto_n_teachers(n_private)
        else:
            n_teachers = self.n_teachers
        plan = calibrate(
            epsilon=epsilon, delta=self.delta, aggregator=self.aggregator,
            n_teachers=n_teachers, n_public=n_public, n_classes=n_classes,
            noise_scale=self.noise_scale, n_queries=self.n_queries, threshold=self.threshold,
            threshold_noise_scale=self.threshold_noise_scale,
            release=self.release_data_dependent, name=type(self).__name__,
        )
        _check_discrete_noise(mechanism, plan.noise_scale, plan.threshold_noise_scale)
        return plan

    def _noise(self):
        """(noise_scale, threshold, threshold_noise_scale) of this fit's plan."""
        plan = self._query_plan
        return plan.noise_scale, plan.threshold, plan.threshold_noise_scale

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

    def _sanitization(self, n_queries=None):
        """(order, beta, sigma_s) of the sanitised data-dependent epsilon: public choices."""
        plan = self._query_plan
        return sanitization(
            int(plan.n_queries if n_queries is None else n_queries), int(plan.n_teachers),
            _MECHANISM[self.aggregator], plan.noise_scale, float(self.delta), plan.threshold,
            plan.threshold_noise_scale,
        )

    def _data_independent_epsilon(self, n_queries):
        """Worst-case epsilon of asking ``n_queries`` under this fit's plan.

        Every asked query is counted as answered, so the bound holds whatever the votes;
        with ``release_data_dependent`` the sanitised epsilon's release (GNSS,
        ``gnss_rdp``) is composed in RDP (:func:`~._calibration.plan_epsilon`).
        """
        plan = self._query_plan
        return plan_epsilon(
            n_queries, self.aggregator, plan.noise_scale, plan.threshold,
            plan.threshold_noise_scale, self.delta, plan.n_teachers,
            self.release_data_dependent,
        )

    def _rows_public(self):
        """Whether the number of rows is public: declared so, or set by a private search
        (``_dpsgd._plan.PUBLIC_N_SAMPLES``, the public size it planned the run on)."""
        return bool(self.n_samples_public) or getattr(self, PUBLIC_N_SAMPLES, None) is not None

    def _count_budget(self):
        """The budget the count takes its share of (``epsilon``, or a fixed one without)."""
        return self.epsilon if self.epsilon is not None else _COUNT_BUDGET_WITHOUT_EPSILON

    def _count_epsilon(self):
        """What the private count costs, known before it is drawn (its share of the budget,
        as :func:`~skprivate._row_count.release_row_count` computes it)."""
        return float(COUNT_SHARE * self._count_budget())

    def _privacy_plan(self, n_samples):
        public = getattr(self, "_public_numbers", None)
        if public is None:
            # Planned before the public points are known (the private searches,
            # total_privacy_cost): the calibration never exceeds epsilon, whatever their
            # number, and with the count the whole fit stays within it too.
            if self.epsilon is not None:
                return self._privacy_spend(self.epsilon, self.delta)
            spent = self._make_plan(n_samples, epsilon=None).epsilon
            if not self._rows_public():
                # No budget and a private count: the count's cost plus the queries planned
                # on n_samples rows (a fit plans on its noisy count instead).
                spent += self._count_epsilon()
            return self._privacy_spend(spent, self.delta)
        self._query_plan = self._make_plan(n_samples, *public, epsilon=self.epsilon)
        return self._privacy_spend(self._query_plan.epsilon, self.delta)

    def _plan_on_count(self, n_private, n_public, n_classes, n_owners, rng):
        """Release the number of private rows, plan the queries on it, reserve the spend.

        Returns the :class:`~skprivate._row_count.NoisyCount`; ``self._query_plan`` is set.

        The exact number of rows differs between add/remove neighbours, and
        ``n_teachers="auto"`` (hence the noise, the number of queries and the threshold
        calibrated from the teachers) and the rows-per-teacher check would publish a
        function of it. So, unless it is public, it is released first with discrete Laplace
        noise (:func:`~skprivate._row_count.release_row_count`, a share of the budget), and
        everything is planned on that count and calibrated to what is left of ``epsilon``.
        The whole fit is then ``(count + queries, delta)``-DP by basic composition
        (adaptive: the queries' parameters are chosen from the count; the proof is in
        :mod:`skprivate._row_count`). The number of rows enters no sensitivity: the
        partition gives each of the real rows to one of ``n_teachers_`` teachers whatever
        their number, so one row still changes one vote per query (``._partition``); no
        lower confidence bound (and no extra delta) is needed.
        """
        public = self._rows_public()
        if public:
            n_plan = getattr(self, PUBLIC_N_SAMPLES, None) or n_private
            self._check_rows_per_teacher(n_plan, n_owners, "")
            self._public_numbers = (n_public, n_classes, n_owners)
            try:
                self._reserve_plan(n_plan)  # calibrates; reserves before any value is read
            finally:
                del self._public_numbers
            self._forecast_plan(n_plan, n_public, n_classes, n_owners, count_public=True)
            return release_row_count(n_plan, 0.0, public=True, rng=rng)
        budget = self._count_budget()
        if self.epsilon is not None:
            # Reserved before the count: the target itself bounds the whole fit (the plan
            # below stays within what the count leaves), and reads no n.
            self._reserve(self._privacy_spend(self.epsilon, self.delta))
        else:
            # No budget: the queries' epsilon follows from the teachers, hence from the
            # count, so only the count's share can be reserved before it; the rest is
            # reserved once planned, below.
            self._reserve(self._privacy_spend(self._count_epsilon(), 0.0))
        count = release_row_count(n_private, budget, public=False, rng=rng)
        self._check_rows_per_teacher(count.n_plan, n_owners, " (noisy count)")
        rest = None if self.epsilon is None else rest_epsilon(self.epsilon, count.epsilon)
        self._query_plan = self._make_plan(
            count.n_plan, n_public, n_classes, n_owners, epsilon=rest
        )
        if self.epsilon is None:
            reserved = self._reserved_spend
            if self.accountant is not None:
                self.accountant.spend(self._privacy_spend(self._query_plan.epsilon, self.delta))
            self._reserved_spend = self._privacy_spend(
                reserved.epsilon + self._query_plan.epsilon, self.delta
            )
        self._forecast_plan(count.n_plan, n_public, n_classes, n_owners, count_public=False)
        return count

    def _forecast_plan(self, n_plan, n_public, n_classes, n_owners, *, count_public):
        """Say, before any teacher is trained, when the plan cuts an explicit ``n_queries``
        or forecasts a model no better than a constant (the shared mechanism of
        :mod:`skprivate._forecast`).

        Reads the plan and public numbers only (the count planned on, the public points,
        the classes, the owners, the parameters): post-processing of what the fit releases,
        at no privacy cost. The thresholds are :data:`_FORECAST_ANSWERS` and
        :data:`_FORECAST_ROWS_PER_TEACHER`.
        """
        plan = self._query_plan
        asked = None if self.n_queries is None else min(int(self.n_queries), int(n_public))
        if asked is not None and plan.n_queries < asked:
            # The budget, not the user, set the number of answers: never silently.
            warnings.warn(
                f"{type(self).__name__}: epsilon={self.epsilon:g} (delta={self.delta:g}) "
                f"pays for only {plan.n_queries} of the n_queries={self.n_queries} queries "
                f"at noise_scale={plan.noise_scale:g} with {plan.n_teachers} teachers, so "
                f"{plan.n_queries} are asked. For {asked} answers, raise epsilon to about "
                f"{self._epsilon_for_answers(asked, count_public):.3g}, raise noise_scale, or "
                "leave noise_scale=None to let the estimator trade noise for answers.",
                UtilityWarning,
                stacklevel=_user_stacklevel(),
            )
        if self.epsilon is None:
            return  # no budget: the answers are what the user set, nothing to forecast
        rows_per_teacher = n_plan / plan.n_teachers
        few_answers = plan.n_queries < min(_FORECAST_ANSWERS, int(n_public))
        small_teachers = rows_per_teacher < _FORECAST_ROWS_PER_TEACHER
        if not (few_answers or small_teachers):
            return
        findings = []
        if few_answers:
            findings.append(
                f"epsilon={self.epsilon:g} buys {plan.n_queries} answers (noise_scale="
                f"{plan.noise_scale:.3g}, {plan.n_teachers} teachers), fewer than "
                f"{_FORECAST_ANSWERS}"
            )
        if small_teachers:
            findings.append(
                f"each of the {plan.n_teachers} teachers sees about {rows_per_teacher:.3g} "
                f"of the {n_plan:,} rows planned on, fewer than "
                f"{_FORECAST_ROWS_PER_TEACHER}"
            )
        rows_needed = None
        if small_teachers and n_owners is None:
            rows_needed = value_needed(
                lambda n: n / self._teachers_for(n), _FORECAST_ROWS_PER_TEACHER, n_plan,
                integer=True,
            )
        epsilon_needed = (
            self._epsilon_for_answers(_FORECAST_ANSWERS, count_public) if few_answers
            else None
        )
        warn_forecast(
            self,
            " and ".join(findings),
            "accuracy at or below the majority class's on Adult subsets and below "
            "DPLSSGDClassifier's on every small table",
            f"use skprivate.DPLSSGDClassifier(epsilon={self.epsilon:g}), which learns from "
            "every row at once and needs no public data",
            epsilon=self.epsilon, rows_needed=rows_needed,
            epsilon_needed=None if small_teachers else epsilon_needed,
        )

    def _teachers_for(self, n_rows):
        """The number of teachers a plan on ``n_rows`` rows would have (public numbers)."""
        if self.n_teachers == "auto":
            return auto_n_teachers(n_rows)
        return int(self.n_teachers)

    def _epsilon_for_answers(self, n_answers, count_public):
        """The epsilon (count included) that pays for ``n_answers`` answers at this plan's
        noise, from the same accountant as the plan (:func:`~._calibration.plan_epsilon`)."""
        queries = self._data_independent_epsilon(n_answers)
        return queries if count_public else queries / (1.0 - COUNT_SHARE)

    def _check_rows_per_teacher(self, n_rows, n_owners, how):
        """Refuse an explicit ``n_teachers`` of under two rows per teacher on ``n_rows``."""
        if n_owners is not None or self.n_teachers == "auto" or n_rows >= 2 * self.n_teachers:
            return
        name = type(self).__name__
        raise ValueError(
            f"{name}: {n_rows} private rows{how} for n_teachers={self.n_teachers}: a "
            f"teacher would see {n_rows / self.n_teachers:.1f} rows on average. Use "
            f"n_teachers='auto' (here {auto_n_teachers(n_rows)}), at most "
            f"{max(n_rows // 2, 2)} teachers, or more private data."
        )

    def _public_counts(self, X, y, X_public, groups):
        """(n_private, n_public, n_classes, n_owners) read without any private value.

        The public rows' marker (y == -1), the number of classes (the label set is treated
        as public) and the number of data owners are public; nothing else is looked at.
        """
        y = np.asarray(y)
        public_rows = (y == -1) if X_public is None else np.zeros(len(y), dtype=bool)
        n_public = int(public_rows.sum()) if X_public is None else _n_rows(X_public)
        classes = getattr(self, "classes", None)
        n_classes = len(classes) if classes is not None else len(np.unique(y[~public_rows]))
        n_owners = None
        if groups is not None:
            n_owners = len(np.unique(np.asarray(groups)[~public_rows]))
        return int((~public_rows).sum()), n_public, n_classes, n_owners

    # --- fit -------------------------------------------------------------------------------
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, X_public=None, groups=None):
        """Train the teachers, label public points by noisy vote, and train the student.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private rows, plus public unlabelled rows marked ``y == -1`` (scikit-learn's
            semi-supervised convention) when ``X_public`` is None. A Dask array or
            DataFrame (with ``X_public`` given) is trained where its rows live: each
            teacher on a worker, only its votes on the public points sent back; the same
            partition, votes and ``epsilon_`` as in memory for the same ``random_state``
            (see the "Scaling out" user guide page).
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
        if is_dask_collection(X) or is_dask_collection(y):
            from ._dask import fit_dask  # teachers trained where the rows live

            return fit_dask(self, X, y, X_public, groups)
        name = type(self).__name__
        if y is None:
            # Checked first: the public counts below read the public rows' marker from y.
            raise ValueError(
                f"{name} requires y to be passed, but the target y is None. Pass the private "
                "labels, with -1 for public unlabelled rows of X."
            )
        if groups is not None and np.shape(groups) != (_n_rows(X),):
            raise ValueError(
                f"{name}: groups must have one entry per row of X ({_n_rows(X)}); got shape "
                f"{np.shape(groups)}."
            )
        # Public numbers (shapes, the public rows' marker, the label set, the number of
        # owners) and the number of private rows, which only the count reads: the plan, its
        # accountant reservation and any infeasibility come before any other private value
        # is read and before any teacher is trained.
        n_private, n_public, n_classes, n_owners = self._public_counts(X, y, X_public, groups)
        if n_public == 0:
            raise ValueError(
                f"{name}: no public points to label. Pass X_public=..., or mark public "
                "unlabelled rows of X with y == -1."
            )
        if n_owners is not None and n_owners < 2:
            raise ValueError(f"{name}: groups names a single data owner; PATE needs two.")
        if n_private < 1:
            # As every estimator's input validation does (scikit-learn's "0 sample(s)"): no
            # fit on empty data; the count and its guarantee start at one row.
            raise ValueError(
                f"{name}: 0 private rows (n_samples=0) to train the teachers on; pass "
                "labelled private rows."
            )
        rng = self._noise_rng()
        count = self._plan_on_count(n_private, n_public, n_classes, n_owners, rng)
        # Clones refitted on overlapping rows without an accountant (scikit-learn's searches,
        # cross_validate): each epsilon_ is one fit's, the rows' loss their composition.
        note_fit(self, X, count.epsilon + float(self._query_plan.epsilon),
                 stacklevel=_user_stacklevel())
        teacher = self.teacher if self.teacher is not None else default_teacher(n_classes)
        allow_nan = get_tags(teacher).input_tags.allow_nan
        X, y = validate_data(
            self, X, y, ensure_all_finite="allow-nan" if allow_nan else True, dtype=None
        )
        check_classification_targets(y)
        public_rows = (y == -1) if X_public is None else np.zeros(len(y), dtype=bool)
        X_private, y_private = X[~public_rows], y[~public_rows]
        if X_public is None:
            X_public = X[public_rows]
        else:
            try:
                X_public = validate_data(
                    self, X_public, reset=False,
                    ensure_all_finite="allow-nan" if allow_nan else True, dtype=None,
                )
            except ValueError as exc:
                if "features" not in str(exc):
                    raise
                # The usual cause: PATE at the end of a Pipeline, where fit's X went through
                # the earlier steps and a routed X_public did not.
                raise ValueError(
                    f"{name}: X_public must have the columns of X. {exc} If PATE ends a "
                    "Pipeline, X_public skips the earlier steps: pass the public rows inside "
                    "X, marked y == -1 (they then go through the same preprocessing), or put "
                    "the preprocessing in teacher and student (make_pipeline(preprocessor, "
                    "model)), where it is fitted on each teacher's rows and on the public "
                    "points."
                ) from exc
        if groups is not None:
            groups = np.asarray(groups)[~public_rows]
        self.classes_, _, label_caveats = _resolve_classes(name, self.classes, y_private)

        return self._fit_teachers_and_student(
            teacher, X_private, y_private, groups, X_public, count, label_caveats, rng
        )

    def _fit_teachers_and_student(self, teacher, X_private, y_private, groups, X_public,
                                  count, label_caveats, rng):
        """The private part of ``fit``, once the plan is reserved and the data validated.

        Shared by the in-memory fit and the Dask fit (:func:`._dask.fit_dask`), which then
        draw the same count, partition, seeds and noise from the same generator ``rng``.
        """
        name = type(self).__name__
        plan = self._query_plan
        n_public = X_public.shape[0]
        if self.n_queries is not None and self.n_queries > n_public:
            warnings.warn(
                f"{name}: n_queries={self.n_queries} is more than the {n_public} public "
                f"points; asking at most {n_public}.",
                UserWarning,
                stacklevel=3,
            )
        self.soft_labels_ = self._soft_labels_wanted()  # refuses a bad combination first
        self._student_seed = rng.integers(np.iinfo(np.int32).max)
        teacher_labels = self._teacher_labels(
            teacher, X_private, y_private, groups, X_public, plan.n_teachers, rng
        )
        asked, labels, counts = self._ask(teacher_labels, X_public, plan.n_queries, rng)

        answered = labels != NO_ANSWER
        if len(np.unique(labels[answered])) < 2:
            budget = "" if self.epsilon is None else f" (what epsilon={self.epsilon:g} buys)"
            raise ValueError(
                f"{name}: the noisy answers to {len(asked)} queries{budget} at "
                f"noise_scale={plan.noise_scale:.3g} with {plan.n_teachers} teachers name "
                "fewer than two classes, so no student can be trained. Raise epsilon (more "
                "answers, less noise), give more private rows (more teachers), or lower the "
                "Confident-GNMax threshold."
            )
        self.student_ = self._train_student(X_public, asked, labels, counts)
        self._account(teacher_labels[:, asked], answered, count, rng, label_caveats)
        return self

    def _account(self, votes_labels, answered, count, rng, caveats=()):
        votes = vote_counts(votes_labels, len(self.classes_))
        cost = self._cost(votes, answered=answered, data_dependent=True)
        scale, threshold, sigma1 = self._noise()
        plan = self._query_plan
        # The data-independent bound of the queries asked (and of the sanitised release when
        # it is on): public, and never above the plan, hence never above epsilon.
        worst_case = self._data_independent_epsilon(votes.shape[0])
        self.n_teachers_ = int(plan.n_teachers)
        self.n_queries_ = int(votes.shape[0])
        self.n_answered_ = int(answered.sum())
        self.noise_scale_, self.threshold_, self.threshold_noise_scale_ = scale, threshold, sigma1
        # The data-dependent theorems bound the release of the noisy arg max; a student
        # trained on the noisy counts (soft labels) is covered by the data-independent
        # bound only (._soft_labels).
        bound = float(worst_case)
        if not count.public and self.epsilon is not None:
            # Every count's plan is calibrated to at most the rest of epsilon, so the whole
            # fit's guarantee (the count plus the worst plan any count could choose) is
            # that rest; this plan's own bound may be smaller and would understate it.
            bound = max(bound, rest_epsilon(self.epsilon, count.epsilon))
        elif not count.public:
            caveats = [*caveats, _caveats.epsilon_from_count(
                f"epsilon=None with noise_scale={self.noise_scale!r}"
            )]
        # Both bounds of the whole release, the count's (data-independent) cost included.
        self.epsilon_data_dependent_ = count.epsilon + (
            bound if self.soft_labels_ else float(cost.epsilon_data_dependent)
        )
        # Basic composition with the count (pure DP; the queries were planned on it), so no
        # dp_accounting event: see skprivate._row_count. 0.0 when the count is public.
        spend = self._privacy_spend(count.epsilon + bound, self.delta)
        report = {
            "mechanism": {
                "lnmax": "Laplace noisy max (LNMax)",
                "gnmax": "Gaussian noisy max (GNMax)",
                "confident_gnmax": "Confident-GNMax",
            }[self.aggregator],
            "accountant": (
                "exact composition of the discrete Gaussian by privacy-loss distributions, "
                "or RDP where tighter (skprivate.accounting.pate_epsilon)"
                if _MECHANISM[self.aggregator] == "gaussian" and not self.release_data_dependent
                else "RDP over queries (skprivate.accounting.pate_epsilon)"
            ),
            "reference": "Papernot et al. ICLR 2017, Sec. 3; Papernot et al. ICLR 2018, Sec. 4",
            "n_teachers": self.n_teachers_,
            "noise_scale": scale,
            "noise per teacher": scale / self.n_teachers_,
            "chosen from epsilon": plan.calibrated,
            "queries asked": self.n_queries_,
            "queries answered": self.n_answered_,
            "student": type(self.student_).__name__,
            "student labels": (
                "soft: P(plurality | noisy counts), as sample weights" if self.soft_labels_
                else "the noisy arg max"
            ),
            _DATA_DEPENDENT_ROW: self.epsilon_data_dependent_,
            **count_report(count),
        }
        if self.release_data_dependent:
            order, beta, sigma_s = self._sanitization(votes.shape[0])
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
            # The worst-case bound (public) also holds for these votes: never report more.
            self.epsilon_sanitized_ = count.epsilon + float(min(sanitized.epsilon, worst_case))
            report["epsilon (data-dependent, sanitised: publishable estimate)"] = (
                self.epsilon_sanitized_
            )
            report["sanitisation"] = (
                f"GNSS at order {order:g}, beta {beta:.3g}, sigma_s {sigma_s:.3g}"
            )
        if threshold is not None:
            report["threshold"] = threshold
            report["threshold_noise_scale"] = sigma1
        caveats = list(caveats)
        if self.epsilon is None:
            caveats.append(_caveats.no_budget(
                spend.epsilon, f"the {self.n_queries_} answers at noise_scale={scale:.4g} that "
                "were asked" + ("" if count.public else " and the noisy count of the rows")
                + " (the noise and the number of queries were not chosen from a budget)",
            ))
        # The delta >= 1/n check reads the count: the exact n is not published.
        self._finish_private_fit(spend, report, count.n_plan, caveats=caveats)

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
            self.teacher if self.teacher is not None else default_teacher(2)
        ).input_tags.allow_nan
        return tags
