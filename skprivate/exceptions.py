"""Exceptions and warnings raised by skprivate.

Every error is a subclass of a built-in ``ValueError`` or ``TypeError`` so that code written
for scikit-learn (``except ValueError``) keeps working, and every message says what was
received, what is allowed and how to fix it.
"""

__all__ = [
    "AccountantDetachedError",
    "BudgetExceededError",
    "InfeasiblePrivacyError",
    "NoIntersectionError",
    "PrivacyLeakWarning",
    "PrivacyTestFailed",
    "RepeatedFitWarning",
    "UpstreamAPIError",
    "UtilityWarning",
]


class BudgetExceededError(ValueError):
    """A fit or spend would take a :class:`~skprivate.accounting.BudgetAccountant` past its budget.

    Raised *before* any data is read, so nothing has been spent when it is raised.

    Examples
    --------
    >>> from skprivate.accounting import BudgetAccountant
    >>> from skprivate.exceptions import BudgetExceededError
    >>> accountant = BudgetAccountant(epsilon=1.0)
    >>> accountant.spend(0.8, label="first fit")
    >>> try:
    ...     accountant.spend(0.5, label="second fit")
    ... except BudgetExceededError as exc:
    ...     print(exc)
    A spend of epsilon=0.5, delta=0 by second fit would take the total to epsilon=1.3, ...
    >>> accountant.total()  # the refused spend was not recorded
    (0.8, 0.0)
    """


class InfeasiblePrivacyError(ValueError):
    """The requested privacy guarantee cannot be met with the given parameters.

    For example a target epsilon that no noise multiplier within the supported range reaches.

    Examples
    --------
    >>> from skprivate.accounting import dpsgd_noise_multiplier
    >>> dpsgd_noise_multiplier(1e-4, sample_rate=1.0, steps=100, delta=1e-5)
    Traceback (most recent call last):
    ...
    skprivate.exceptions.InfeasiblePrivacyError: target_epsilon=0.0001 cannot be reached ...
    """


class AccountantDetachedError(RuntimeError):
    """A :class:`~skprivate.accounting.BudgetAccountant` is a copy made in another process.

    Spends recorded on such a copy (for example inside a joblib worker started by
    ``GridSearchCV(n_jobs=2)``) never reach the user's accountant, so the fit is refused
    before any data is read rather than silently under-counted.

    Examples
    --------
    A pickled copy of an accountant, as a joblib worker or a saved model would hold:

    >>> import pickle
    >>> from skprivate.accounting import BudgetAccountant
    >>> accountant = BudgetAccountant(epsilon=1.0)
    >>> copy = pickle.loads(pickle.dumps(accountant))
    >>> copy.spend(0.1)
    Traceback (most recent call last):
    ...
    skprivate.exceptions.AccountantDetachedError: This BudgetAccountant is a pickled copy, ...

    A ledger restored from disk on purpose is taken over with ``reattach``:

    >>> copy.reattach().spend(0.1)
    >>> copy.total()
    (0.1, 0.0)
    """


class PrivacyLeakWarning(UserWarning):
    """The differential-privacy guarantee of a fit is weaker than its parameters suggest.

    Emitted at most once per fit, listing every reason: noise from a fixed ``random_state``,
    bounds read from the private data, a ``delta`` that protects no one (``delta >= 1/n``), ...

    Examples
    --------
    A fixed ``random_state`` makes the noise known to whoever knows the seed:

    >>> import warnings
    >>> from sklearn.datasets import load_iris
    >>> from skprivate.exceptions import PrivacyLeakWarning
    >>> from skprivate.linear_model import DPLSSGDClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     clf = DPLSSGDClassifier(epsilon=1.0, random_state=0).fit(X / 8, y)
    >>> [w.category.__name__ for w in caught]
    ['PrivacyLeakWarning']
    >>> print(caught[0].message)
    DPLSSGDClassifier: the privacy guarantee (epsilon=1, delta=1e-05) is weaker than ...

    To turn it into an error, for example in a release pipeline:
    ``warnings.simplefilter("error", PrivacyLeakWarning)``.
    """


class UtilityWarning(UserWarning):
    """The privacy guarantee holds, but the model is likely to be no better than chance.

    Emitted before the data are read when public numbers alone (rows, bounds, epsilon, delta)
    predict that the released model's noise swamps its signal (the dropout estimators,
    DP-LSSGD, PATE: ``skprivate._forecast``), after a fit that fell back to a constant
    predictor, and when a private step released nothing usable (an encoder that kept no
    category); the message gives the numbers and an alternative. The guarantee
    (``epsilon_``, ``delta_``) is unaffected: this warning is about usefulness, not privacy.

    Examples
    --------
    >>> import warnings
    >>> from skprivate.exceptions import UtilityWarning
    >>> issubclass(UtilityWarning, UserWarning)
    True
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", UtilityWarning)  # silence it in a batch job
    """


class RepeatedFitWarning(UserWarning):
    """The same estimator was fitted again on rows it had read, with no accountant.

    Each fit's ``epsilon_`` is the spend of that fit alone; the rows' privacy loss is the
    composition of every fit that read them. scikit-learn's ``GridSearchCV``,
    ``cross_validate`` and a plain refit clone the estimator and fit every clone on
    overlapping rows, so nothing in any one fitted model shows the total. Emitted once per
    data set and estimator configuration, from the second fit, when no
    :class:`~skprivate.accounting.BudgetAccountant` was given; the message gives the
    fits' summed epsilon and the fix (an accountant,
    :func:`~skprivate.accounting.total_privacy_cost`, or a private search). Nothing is
    released by this check: the rows' fingerprints stay in the process's memory.

    Examples
    --------
    >>> import warnings
    >>> from skprivate.exceptions import RepeatedFitWarning
    >>> issubclass(RepeatedFitWarning, UserWarning)
    True
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", RepeatedFitWarning)  # refuse untotalled refits
    """


class PrivacyTestFailed(ValueError):
    """A private propose-test-release check refused to release a model.

    Raised when the noisy test statistic of a propose-test-release mechanism (for example
    the dropout-stability test of :class:`~skprivate.DPDropoutRegressor`) says the data are
    not stable enough for the release to be private. The failed test is itself an output of
    a private mechanism whose guarantee covers test and release together, so the whole
    planned spend has been paid (and recorded in any
    :class:`~skprivate.accounting.BudgetAccountant`) even though no model is returned.
    Its message says why the test failed (a rare or constant feature, too few rows) and
    what to change.

    Examples
    --------
    A constant (all-zero) feature fails the dropout-stability test of
    :class:`~skprivate.DPDropoutRegressor` without a ridge floor (``alpha=0``):

    >>> import numpy as np
    >>> from skprivate.accounting import BudgetAccountant
    >>> from skprivate.dropout import DPDropoutRegressor
    >>> from skprivate.exceptions import PrivacyTestFailed
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(2000, 3))
    >>> X[:, 2] = 0.0
    >>> y = np.clip(X @ [0.5, -0.3, 0.2], -1, 1)
    >>> accountant = BudgetAccountant(epsilon=2.0, delta=1e-4)
    >>> reg = DPDropoutRegressor(epsilon=1.0, bounds=(-1, 1), y_bound=1.0, alpha=0.0,
    ...                          accountant=accountant, random_state=0)
    >>> try:
    ...     reg.fit(X, y)
    ... except PrivacyTestFailed as exc:
    ...     print(exc)
    DPDropoutRegressor: the private stability test failed: ...
    >>> accountant.total()  # test and release are one mechanism: the whole plan is paid
    (1.0, 1e-05)
    """


class NoIntersectionError(ValueError):
    """The parties' good-enough sets have no common point at the requested threshold.

    Raised by :class:`~skprivate.gems.GEMSCombiner` after its retries with new
    initialisations. The message names the parties whose balls are furthest apart and says
    what to change (a larger ``epsilon``, or ``epsilon=None`` to search for the smallest
    threshold at which the sets meet).

    Examples
    --------
    Two parties whose labels disagree (the second one's are flipped) have no common
    good-enough model:

    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skprivate.exceptions import NoIntersectionError
    >>> from skprivate.gems import GEMSCombiner, good_enough_space
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> spaces = [
    ...     good_enough_space(LogisticRegression(), X[:250], y[:250], epsilon=0.3,
    ...                       random_state=0),
    ...     good_enough_space(LogisticRegression(), X[250:500], 1 - y[250:500], epsilon=0.3,
    ...                       random_state=0),
    ... ]
    >>> try:
    ...     GEMSCombiner().combine(spaces)
    ... except NoIntersectionError as exc:
    ...     print(exc)
    GEMSCombiner: the parties' good-enough sets do not intersect at epsilon=0.3. ...
    """


class UpstreamAPIError(ImportError):
    """An installed upstream package no longer offers an API that skprivate relies on.

    Raised by skprivate's compatibility layer (``skprivate.utils._compat``) when neither
    the public name of an API of scikit-learn, dp-accounting or torch nor its guarded
    fallback exists in the installed release. The message names the package, the installed
    version and the supported range; the fix is another install, hence an
    :class:`ImportError`. skprivate raises it rather than guess: a wrong RDP curve would
    be a wrong epsilon.

    Examples
    --------
    >>> from skprivate.exceptions import UpstreamAPIError
    >>> from skprivate.utils._compat import rdp_curve
    >>> try:
    ...     rdp_curve(object())  # no RDP curve where an RdpAccountant keeps one
    ... except UpstreamAPIError as exc:
    ...     print(exc)
    skprivate needs the RDP curve of RdpAccountant ... from dp-accounting, which the installed dp-accounting ... does not provide. ...
    """
