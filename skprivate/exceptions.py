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
]


class BudgetExceededError(ValueError):
    """A fit or spend would take a :class:`~skprivate.accounting.BudgetAccountant` past its budget.

    Raised *before* any data is read, so nothing has been spent when it is raised.
    """


class InfeasiblePrivacyError(ValueError):
    """The requested privacy guarantee cannot be met with the given parameters.

    For example a target epsilon that no noise multiplier within the supported range reaches.
    """


class AccountantDetachedError(RuntimeError):
    """A :class:`~skprivate.accounting.BudgetAccountant` is a copy made in another process.

    Spends recorded on such a copy (for example inside a joblib worker started by
    ``GridSearchCV(n_jobs=2)``) never reach the user's accountant, so the fit is refused
    before any data is read rather than silently under-counted.
    """


class PrivacyLeakWarning(UserWarning):
    """The differential-privacy guarantee of a fit is weaker than its parameters suggest.

    Emitted at most once per fit, listing every reason: noise from a fixed ``random_state``,
    bounds read from the private data, a ``delta`` that protects no one (``delta >= 1/n``), ...
    """


class PrivacyTestFailed(ValueError):
    """A private propose-test-release check refused to release a model.

    Raised when the noisy test statistic of a propose-test-release mechanism (for example
    the dropout-stability test of :class:`~skprivate.DPDropoutRegressor`) says the data are
    not stable enough for the release to be private. The failed test is itself an output of
    a private mechanism: its privacy cost has been spent (and recorded in any
    :class:`~skprivate.accounting.BudgetAccountant`) even though no model is returned.
    Its message says why the test failed (a rare or constant feature, too few rows) and
    what to change.
    """


class NoIntersectionError(ValueError):
    """The parties' good-enough sets have no common point at the requested threshold.

    Raised by :class:`~skprivate.gems.GEMSCombiner` after its retries with new
    initialisations. The message names the parties whose balls are furthest apart and says
    what to change (a larger ``epsilon``, or ``epsilon=None`` to search for the smallest
    threshold at which the sets meet).
    """
